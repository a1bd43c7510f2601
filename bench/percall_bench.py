"""percall_bench.py: what the calls people write cost per call, hipkit against CuPy and PyTorch in one
process, and against the raw C launch of an empty kernel in the same process.

    python3 bench/percall_bench.py [BUILD_DIR] [--quick]

Each call runs on 1000-element float32 vectors (x, y), a bool mask k, 100 int64 indices i, or a
64 x 64 float32 matrix m: 1000 calls issued asynchronously, then one synchronize, median of 5 such
loops, in µs per call. Printed per call: hipkit's figure, each peer's, hipkit / the faster peer (at
or below 1.00: hipkit is at least as fast) and, for calls that are one kernel with a new output,
hipkit / the raw C launch (BUILD_DIR/bench/libraw_launch.so: empty <<<1, 1>>> kernels from C).
Every call's result is checked against NumPy once before timing.

On a machine without a GPU the hipkit column is the CPU device and NumPy is the one peer (its calls
are synchronous, so that comparison is of per-call overhead on small data, not of a GPU's queue).
Benchmarks are not tests: nothing here asserts a time.
"""
import os
import statistics
import sys
import time

import numpy as np

import hipkit

QUICK = "--quick" in sys.argv
CALLS = 200 if QUICK else 1000
LOOPS = 3 if QUICK else 5

# (name, one kernel with a new output?, the call on a namespace `xp` and its data `d`)
CASES = [
    ("x + y", True, lambda xp, d: d.x + d.y),
    ("x + 1.0", True, lambda xp, d: d.x + 1.0),
    ("2.0 * x", True, lambda xp, d: 2.0 * d.x),
    ("x * 2.0 + 1.0", False, lambda xp, d: d.x * 2.0 + 1.0),
    ("sqrt(x)", True, lambda xp, d: xp.sqrt(d.x)),
    ("exp(x)", True, lambda xp, d: xp.exp(d.x)),
    ("x > 0.5", True, lambda xp, d: d.x > 0.5),
    ("where(k, x, 0.0)", True, lambda xp, d: xp.where(d.k, d.x, 0.0)),
    ("x.sum()", True, lambda xp, d: d.x.sum()),
    ("x.max()", True, lambda xp, d: d.x.max()),
    ("x.mean()", True, lambda xp, d: d.x.mean()),
    ("m.sum(axis=0)", True, lambda xp, d: d.m.sum(axis=0)),
    ("m.max(axis=1)", True, lambda xp, d: d.m.max(axis=1)),
    ("x[1:] - x[:-1]", True, lambda xp, d: d.x[1:] - d.x[:-1]),
    ("m[:, :1] * m[:1]", True, lambda xp, d: d.m[:, :1] * d.m[:1]),
    ("x[::2] (a view)", False, lambda xp, d: d.x[::2]),
    ("m.T (a view)", False, lambda xp, d: d.m.T),
    ("x[5] (a view)", False, lambda xp, d: d.x[5]),
    ("m @ m, 64 x 64", True, lambda xp, d: d.m @ d.m),
    ("zeros(1000)", True, lambda xp, d: xp.zeros(1000, dtype=xp.float32)),
    ("x[i], 100 indices", False, lambda xp, d: d.x[d.i]),
    ("cumsum(x)", True, lambda xp, d: xp.cumsum(d.x)),
    ("x[k], boolean mask", False, lambda xp, d: d.x[d.k]),
    ("float(x.sum())", False, lambda xp, d: float(d.x.sum())),
    ("add(x, y, out=z)", True, lambda xp, d: xp.add(d.x, d.y, out=d.z)),
    ("x += 1.0", True, lambda xp, d: d.x.__iadd__(1.0)),
    ("n + 1 (int64)", True, lambda xp, d: d.n + 1),
]


class Data:
    """The operands of the calls, in one library's arrays."""

    def __init__(self, to, host):
        for name, value in host.items():
            setattr(self, name, to(value))


def host_data():
    rng = np.random.default_rng(12)
    x = rng.random(1000, np.float32)  # in [0, 1): sqrt and comparisons with 0.5 as users write them
    return {"x": x, "y": rng.random(1000, np.float32), "k": x > 0.5,
            "i": rng.integers(0, 1000, 100).astype(np.int64), "m": rng.standard_normal((64, 64)).astype(np.float32),
            "z": np.zeros(1000, np.float32), "n": np.arange(1000, dtype=np.int64)}


def per_call_us(call, sync):
    for _ in range(50):
        call()
    sync()
    loops = []
    for _ in range(LOOPS):
        start = time.perf_counter()
        for _ in range(CALLS):
            call()
        sync()
        loops.append((time.perf_counter() - start) / CALLS * 1e6)
    return statistics.median(loops)


def as_numpy(value, library):
    if isinstance(value, float):
        return np.float64(value)
    if library == "hipkit":
        return value.get() if isinstance(value, hipkit.ndarray) else value
    if library == "cupy":
        return value.get()
    if library == "torch":
        return value.cpu().numpy()
    return np.asarray(value)


def libraries(on_gpu):
    """[(name, namespace, to_array, sync)] for hipkit and the peers present."""
    found = []
    device = hipkit.get_device()
    found.append(("hipkit", hipkit, hipkit.asarray, device.synchronize))
    if not on_gpu:
        found.append(("numpy", np, np.array, lambda: None))
        return found, []
    missing = []
    try:
        import cupy as cp
        found.append(("cupy", cp, cp.asarray, cp.cuda.Device().synchronize))
    except ImportError as e:
        missing.append(f"cupy ({e})")
    try:
        import torch
        if torch.cuda.is_available():
            torch_ns = _TorchNamespace(torch)
            found.append(("torch", torch_ns, lambda a: torch.as_tensor(a, device="cuda"), torch.cuda.synchronize))
        else:
            missing.append("torch (no CUDA device)")
    except ImportError as e:
        missing.append(f"torch ({e})")
    return found, missing


class _TorchNamespace:
    """PyTorch under the NumPy names the calls use."""

    def __init__(self, torch):
        self.torch, self.float32 = torch, torch.float32
        self.sqrt, self.exp, self.cumsum, self.add = torch.sqrt, torch.exp, torch.cumsum, torch.add

    def where(self, c, x, y):
        return self.torch.where(c, x, y)

    def zeros(self, n, dtype):
        return self.torch.zeros(n, dtype=dtype, device="cuda")


def main():
    on_gpu = hipkit.get_device().is_gpu
    build = next((a for a in sys.argv[1:] if not a.startswith("--")), os.environ.get("HIPKIT_BUILD_DIR", "build"))
    host = host_data()
    found, missing = libraries(on_gpu)
    raw, raw_why = None, "no GPU: the CPU device has no kernel launch to compare with"
    if on_gpu:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        os.environ.setdefault("HIPKIT_BUILD_DIR", build)
        from kernel_bench import raw_c_launcher
        raw, raw_why = raw_c_launcher()
    device = hipkit.get_device()
    print(f"hipkit {hipkit.__version__} on {device.name} ({device.kind}); {CALLS} calls and one synchronize, "
          f"median of {LOOPS}, µs per call")
    if missing:
        print("not measured: " + "; ".join(missing))
    raw_us = raw(CALLS * 10) if raw else None
    print(f"raw C launch, empty <<<1, 1>>>: {raw_us:.2f} µs" if raw_us else f"raw C launch: {raw_why}")
    names = [name for name, *_ in found]
    print(f"{'call':24s}" + "".join(f"{n:>10s}" for n in names) + f"{'/ faster peer':>15s}{'/ raw C':>10s}")
    worst = []
    for label, single, call in CASES:
        times, reference = {}, None
        for name, xp, to, sync in found:
            data = Data(to, host)
            try:
                value = as_numpy(call(xp, Data(to, host)), name)
            except Exception as e:  # a peer without the call: say so, keep going
                times[name] = None
                print(f"  ({name}: {label}: {type(e).__name__}: {e})")
                continue
            if reference is None:
                reference = value
            elif not np.allclose(np.asarray(value, np.float64), np.asarray(reference, np.float64), rtol=1e-4,
                                 atol=1e-4, equal_nan=True):
                raise AssertionError(f"{label}: {name} disagrees with {names[0]}")
            times[name] = per_call_us(lambda: call(xp, data), sync)
        peers = [t for n, t in times.items() if n != "hipkit" and t]
        ratio = times["hipkit"] / min(peers) if peers else float("nan")
        vs_raw = times["hipkit"] / raw_us if raw_us and single else None
        worst.append((ratio, label))
        print(f"{label:24s}" + "".join(f"{times[n]:10.2f}" if times[n] else f"{'-':>10s}" for n in names) +
              f"{ratio:15.2f}" + (f"{vs_raw:10.2f}" if vs_raw else f"{'':>10s}"))
    worst.sort(reverse=True)
    over = [label for ratio, label in worst if ratio > 1.0]
    print(f"hipkit / the faster peer: worst {worst[0][0]:.2f} ({worst[0][1]}); above 1.00: {len(over)} of "
          f"{len(worst)}" + (f" ({', '.join(over)})" if over else ""))


if __name__ == "__main__":
    main()
