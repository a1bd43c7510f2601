"""library_bench.py: the built-in kernel library (issue 3) against the raw
ceilings and the peers, all measured in this run on this GPU.

    python3 bench/library_bench.py [BUILD_DIR]

Ceilings: the device-to-device copy (bandwidth), CUB's DeviceReduce::Sum,
DeviceScan::InclusiveSum and DeviceRadixSort::SortKeys (BUILD_DIR/bench/cub_bench)
and cuBLAS SGEMM without TF32 (through PyTorch or CuPy). Peers: CuPy and
PyTorch. Medians of event-timed repeats after warm-up, on random data; every
hipkit result is checked against the peer or NumPy once before timing.
Benchmarks are not tests: the only asserts guard against timing wrong results.
"""
import os
import re
import statistics
import subprocess
import sys

import numpy as np

import hipkit
from hipkit._ffi import ffi, lib

N = 1 << 28
SORT_N = 1 << 26
SIDE = 8192
GEMM = 8192
REPEATS = 10
INNER = 10  # calls per timed interval (median_ms)


def build_dir():
    return sys.argv[1] if len(sys.argv) > 1 else os.environ.get("HIPKIT_BUILD_DIR", "build/test-nvidia")


def median_ms(run, start, stop, repeats=REPEATS, inner=INNER):
    """Median over `repeats` of the time of `inner` back-to-back calls, divided
    by inner: the device's time per call, the host's submission cost hidden
    behind the queue (hipkit, the peers and bench/cub_bench alike; per-call host
    overhead is ops_bench.py's subject). A single call timed alone would add
    Python's 5-20 us before its launch to a 60-250 us kernel."""
    run()
    run()
    times = []
    for _ in range(repeats):
        start()
        for _ in range(inner):
            run()
        times.append(stop() / inner)
    return statistics.median(times)


def hipkit_timer():
    a, b = hipkit.Event(), hipkit.Event()

    def stop():
        b.record()
        b.synchronize()
        return a.elapsed_ms(b)
    return (lambda: a.record()), stop


def cupy_timer(cp):
    a, b = cp.cuda.Event(), cp.cuda.Event()

    def stop():
        b.record()
        b.synchronize()
        return cp.cuda.get_elapsed_time(a, b)
    return (lambda: a.record()), stop


def torch_timer(torch):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def stop():
        b.record()
        b.synchronize()
        return a.elapsed_time(b)
    return (lambda: a.record()), stop


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


def cub_figures():
    program = os.path.join(build_dir(), "bench", "cub_bench")
    if not os.path.exists(program):
        print(f"(CUB ceilings not measured: {program} not found)")
        return {}
    result = subprocess.run([program], capture_output=True, text=True)
    if result.returncode:
        print(f"(CUB ceilings not measured: {result.stderr.strip()})")
        return {}
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^(\w+) ([0-9.]+)", result.stdout, re.M)}


def main():
    dev = hipkit.Device(0).info()
    print(f"library_bench: {dev['name']} ({dev['arch']}, {dev['multiprocessor_count']} SMs), hipkit "
          f"{hipkit.__version__} ({hipkit.platform()} build)")
    rng = np.random.default_rng(1)
    cub = cub_figures()
    start, stop = hipkit_timer()
    rows = []  # (work, unit, hipkit value, ceiling name, ceiling value, {peer: value})
    peers = {}
    try:
        import cupy as cp
        cp.zeros(1).sum()
        peers["cupy"] = cp
    except Exception as error:
        print(f"(CuPy not measured: {error})")
    try:
        import torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.zeros(1, device="cuda").sum()
        peers["torch"] = torch
    except Exception as error:
        print(f"(PyTorch not measured: {error})")

    def peer_ms(name, make):
        """make(module) -> a zero-argument callable to time, or None."""
        module = peers.get(name)
        if module is None:
            return None
        try:
            run = make(module)
            timer = cupy_timer(module) if name == "cupy" else torch_timer(module)
            return median_ms(run, *timer)
        except Exception as error:
            print(f"({name}: {error})")
            return None

    # --- copy, add, sum, cumsum over 2^28 float32
    host_a = rng.standard_normal(N, dtype=np.float32)
    host_b = rng.standard_normal(N, dtype=np.float32)
    a, b = hipkit.asarray(host_a), hipkit.asarray(host_b)
    c = hipkit.empty(N, np.float32)
    nbytes = host_a.nbytes
    copy_ms = median_ms(lambda: lib.hk_memcpy_dtod_async(c._data, a._data, nbytes, ffi.NULL), start, stop)
    copy_bw = gbps(2 * nbytes, copy_ms)
    rows.append(("device-to-device copy", "GB/s", copy_bw, "copy", copy_bw, {}))

    hipkit.add(a, b, out=c)
    assert np.array_equal(c[:1000003].get(), host_a[:1000003] + host_b[:1000003])
    add_ms = median_ms(lambda: hipkit.add(a, b, out=c), start, stop)
    add_peers = {
        "cupy": peer_ms("cupy", lambda cp: (lambda x=cp.asarray(host_a), y=cp.asarray(host_b), z=cp.empty(N, cp.float32):
                                            (lambda: cp.add(x, y, out=z)))()),
        "torch": peer_ms("torch", lambda t: (lambda x=t.from_numpy(host_a).cuda(), y=t.from_numpy(host_b).cuda(),
                                             z=t.empty(N, device="cuda"): (lambda: t.add(x, y, out=z)))()),
    }
    rows.append(("c = a + b, f32 2^28", "GB/s", gbps(3 * nbytes, add_ms), "copy", copy_bw,
                 {k: gbps(3 * nbytes, v) for k, v in add_peers.items() if v}))
    # the general (strided, broadcasting) engine on the same traffic: a + b through reversed views
    rev_ms = median_ms(lambda: hipkit.add(a[::-1], b[::-1], out=c[::-1]), start, stop)
    rows.append(("c = a + b, f32 2^28, reversed views", "GB/s", gbps(3 * nbytes, rev_ms), "copy", copy_bw, {}))

    s = hipkit.empty((), np.float32)
    hipkit.sum(a, out=s)
    want = float(np.sum(host_a, dtype=np.float64))
    assert abs(float(s) - want) <= 1e-3 * float(np.abs(host_a).sum()) ** 0.5 + 1e-2, (float(s), want)
    sum_ms = median_ms(lambda: hipkit.sum(a, out=s), start, stop)
    sum_peers = {
        "cupy": peer_ms("cupy", lambda cp: (lambda x=cp.asarray(host_a), o=cp.empty((), cp.float32):
                                            (lambda: cp.sum(x, out=o)))()),
        "torch": peer_ms("torch", lambda t: (lambda x=t.from_numpy(host_a).cuda(): (lambda: t.sum(x)))()),
    }
    rows.append(("sum, f32 2^28", "GB/s", gbps(nbytes, sum_ms), "CUB", cub.get("sum"),
                 {k: gbps(nbytes, v) for k, v in sum_peers.items() if v}))

    hipkit.cumsum(a, out=c)
    got = c[:100000].get().astype(np.float64)
    want = np.cumsum(host_a[:100000], dtype=np.float64)
    assert np.max(np.abs(got - want)) < 1e-2 * max(1.0, float(np.max(np.abs(want)))), "cumsum result"
    scan_ms = median_ms(lambda: hipkit.cumsum(a, out=c), start, stop)
    scan_peers = {
        "cupy": peer_ms("cupy", lambda cp: (lambda x=cp.asarray(host_a), o=cp.empty(N, cp.float32):
                                            (lambda: cp.cumsum(x, out=o)))()),
        "torch": peer_ms("torch", lambda t: (lambda x=t.from_numpy(host_a).cuda(), o=t.empty(N, device="cuda"):
                                             (lambda: t.cumsum(x, 0, out=o)))()),
    }
    rows.append(("cumsum, f32 2^28", "GB/s", gbps(2 * nbytes, scan_ms), "CUB", cub.get("cumsum"),
                 {k: gbps(2 * nbytes, v) for k, v in scan_peers.items() if v}))
    del a, b, c
    for module in peers.values():
        if hasattr(module, "get_default_memory_pool"):
            module.get_default_memory_pool().free_all_blocks()
        elif hasattr(module, "cuda"):
            module.cuda.empty_cache()

    # --- sum along each axis of an 8192 x 8192 matrix
    host_m = rng.standard_normal((SIDE, SIDE), dtype=np.float32)
    m = hipkit.asarray(host_m)
    mbytes = host_m.nbytes
    for axis in (0, 1):
        out = hipkit.empty(SIDE, np.float32)
        hipkit.sum(m, axis=axis, out=out)
        want = host_m.sum(axis=axis, dtype=np.float64)
        assert np.max(np.abs(out.get() - want)) < 1e-2 * SIDE ** 0.5, f"sum axis {axis}"
        ms = median_ms(lambda: hipkit.sum(m, axis=axis, out=out), start, stop)
        axis_peers = {
            "cupy": peer_ms("cupy", lambda cp: (lambda x=cp.asarray(host_m), o=cp.empty(SIDE, cp.float32):
                                                (lambda: cp.sum(x, axis=axis, out=o)))()),
            "torch": peer_ms("torch", lambda t: (lambda x=t.from_numpy(host_m).cuda(), o=t.empty(SIDE, device="cuda"):
                                                 (lambda: t.sum(x, axis, out=o)))()),
        }
        rows.append((f"sum axis {axis}, 8192 x 8192 f32", "GB/s", gbps(mbytes, ms), "copy", copy_bw,
                     {k: gbps(mbytes, v) for k, v in axis_peers.items() if v}))
    del m

    # --- sort 2^26 float32 keys
    host_k = rng.standard_normal(SORT_N, dtype=np.float32)
    k = hipkit.asarray(host_k)
    sorted_k = hipkit.sort(k)
    assert np.array_equal(sorted_k.get(), np.sort(host_k)), "sort result"
    del sorted_k
    sort_ms = median_ms(lambda: hipkit.sort(k), start, stop)
    sort_peers = {
        "cupy": peer_ms("cupy", lambda cp: (lambda x=cp.asarray(host_k): (lambda: cp.sort(x)))()),
        "torch": peer_ms("torch", lambda t: (lambda x=t.from_numpy(host_k).cuda(): (lambda: t.sort(x)))()),
    }
    rows.append(("sort, f32 keys 2^26", "Mkeys/s", SORT_N / (sort_ms * 1e3), "CUB", cub.get("sort"),
                 {k2: SORT_N / (v * 1e3) for k2, v in sort_peers.items() if v}))
    del k

    # --- SGEMM 8192^3 (no TF32 anywhere)
    host_x = rng.standard_normal((GEMM, GEMM), dtype=np.float32)
    host_y = rng.standard_normal((GEMM, GEMM), dtype=np.float32)
    x, y = hipkit.asarray(host_x), hipkit.asarray(host_y)
    z = hipkit.empty((GEMM, GEMM), np.float32)
    flops = 2.0 * GEMM ** 3
    check_rows = slice(0, 64)
    want = host_x[check_rows].astype(np.float64) @ host_y.astype(np.float64)
    cublas = None
    gemm_peers = {
        "cupy": peer_ms("cupy", lambda cp: (lambda p=cp.asarray(host_x), q=cp.asarray(host_y),
                                            o=cp.empty((GEMM, GEMM), cp.float32): (lambda: cp.matmul(p, q, out=o)))()),
        "torch": peer_ms("torch", lambda t: (lambda p=t.from_numpy(host_x).cuda(), q=t.from_numpy(host_y).cuda(),
                                             o=t.empty((GEMM, GEMM), device="cuda"): (lambda: t.matmul(p, q, out=o)))()),
    }
    gemm_peers = {k2: flops / (v * 1e-3) / 1e12 for k2, v in gemm_peers.items() if v}
    cublas = gemm_peers.get("torch") or gemm_peers.get("cupy")
    for engine in ("vendor", "own"):
        try:
            hipkit.matmul(x, y, out=z, engine=engine)
        except hipkit.NotSupportedError as error:
            print(f"(matmul engine {engine}: {error})")
            continue
        got = z[check_rows].get().astype(np.float64)
        assert np.max(np.abs(got - want)) < 1e-3 * GEMM ** 0.5 * 4, f"matmul {engine}"
        ms = median_ms(lambda: hipkit.matmul(x, y, out=z, engine=engine), start, stop, repeats=5, inner=1)
        rows.append((f"SGEMM 8192^3 ({engine} engine)", "TFLOP/s", flops / (ms * 1e-3) / 1e12, "cuBLAS", cublas,
                     gemm_peers))

    print(f"{'work':<38} {'hipkit':>18}   {'vs ceiling':<22} peers (same run; ratio > 1: hipkit better)")
    for work, unit, value, ceiling_name, ceiling, peer_values in rows:
        ratio = f"{value / ceiling:5.2f} x {ceiling_name} ({ceiling:.0f})" if ceiling else f"(no {ceiling_name})"
        cells = [f"{name} {v:9.1f} (hipkit {value / v:4.2f}x)" for name, v in peer_values.items()]
        print(f"{work:<38} {value:10.1f} {unit:<7}   {ratio:<22} " + "  ".join(cells))


if __name__ == "__main__":
    main()
