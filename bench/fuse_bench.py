"""fuse_bench.py: chained elementwise expressions as one kernel (hipkit.fuse) against one pass over the same
bytes at device-to-device copy bandwidth (the ceiling), hipkit eager, cupy.fuse, CuPy eager and PyTorch
eager, all in one run:

  (a) a * x + y * b - c over five float32 arrays of 2^26 elements (5 reads, 1 write);
  (b) a 10-operation chain of two arrays (2 reads, 1 write);
  (c) the same small expression in a loop over 1000-element arrays: µs per iteration, fused and eager.
Each also in lazy mode (`with hipkit.lazy():` around the eager expression, its kernel compiled before
timing): what a program gets without writing a decorator.

Medians of event-timed repeats after warm-up ((a), (b)); wall clock over 5000 iterations and one
synchronize ((c)). Results are checked against NumPy. Nothing is asserted about speed.

    python3 bench/fuse_bench.py
"""
import math
import statistics
import time

import numpy as np

import hipkit
from dtype_bench import copy_gbps  # bench/ is sys.path[0]
from ops_bench import cupy_timer, hipkit_timer, median_ms, torch_timer

N = 1 << 26


@hipkit.fuse
def axpbyc(a, x, y, b, c):
    return a * x + y * b - c


@hipkit.fuse
def chain10(x, y):
    return ((((x * 1.5 + y) * 0.5 - x) / (y * y + 1.0)) + hipkit.sin(x) - math.exp(-y * y) + x * y) * 2.0 - 1.0


def eager_axpbyc(xp, a, x, y, b, c):
    return a * x + y * b - c


def eager_chain10(xp, x, y):
    return ((((x * 1.5 + y) * 0.5 - x) / (y * y + 1.0)) + xp.sin(x) - xp.exp(-y * y) + x * y) * 2.0 - 1.0


def lazy(expression):
    """The eager expression run in lazy mode: recorded, then one fused kernel at the block's end."""
    def run(*args):
        with hipkit.lazy(background=False):
            return expression(hipkit, *args)
    return run


lazy_axpbyc, lazy_chain10 = lazy(eager_axpbyc), lazy(eager_chain10)


def import_peers():
    peers = {}
    try:
        import cupy
        cupy.zeros(1).sum()
        peers["cupy"] = cupy
    except Exception as error:
        print(f"(CuPy not measured: {type(error).__name__}: {str(error)[:100]})")
    try:
        import torch
        if torch.cuda.is_available():
            torch.zeros(1, device="cuda").sum()
            peers["torch"] = torch
    except Exception as error:
        print(f"(PyTorch not measured: {type(error).__name__}: {str(error)[:100]})")
    return peers


def report(title, one_pass_ms, rows):
    print(f"\n{title}\n    {'':44s} {'ms':>8s} {'x one pass':>11s}")
    print(f"    {'one pass at copy bandwidth':44s} {one_pass_ms:8.3f} {1.0:11.2f}")
    for label, ms in rows:
        print(f"    {label:44s} {ms:8.3f} {ms / one_pass_ms:11.2f}")


def big(peers, rng):
    host = [rng.standard_normal(N).astype(np.float32) for _ in range(5)]
    want = host[0] * host[1] + host[2] * host[3] - host[4]
    dev = [hipkit.asarray(h) for h in host]
    copy = copy_gbps(N * 4)
    one_pass = 6 * N * 4 / (copy * 1e9) * 1e3
    start, stop, elapsed = hipkit_timer()
    got = axpbyc(*dev)
    np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=1e-5)
    rows = [("hipkit.fuse", median_ms(lambda: axpbyc(*dev), start, stop, elapsed)),
            ("hipkit lazy", median_ms(lambda: lazy_axpbyc(*dev), start, stop, elapsed)),
            ("hipkit eager", median_ms(lambda: eager_axpbyc(hipkit, *dev), start, stop, elapsed))]
    np.testing.assert_allclose(lazy_axpbyc(*dev).get(), want, rtol=1e-5, atol=1e-5)
    if "cupy" in peers:
        cp = peers["cupy"]
        cdev = [cp.asarray(h) for h in host]
        def c_axpbyc(a, x, y, b, c):
            return a * x + y * b - c
        cfused = cp.fuse(c_axpbyc)
        cs, ce, cel = cupy_timer(cp)
        rows += [("cupy.fuse", median_ms(lambda: cfused(*cdev), cs, ce, cel)),
                 ("CuPy eager", median_ms(lambda: eager_axpbyc(cp, *cdev), cs, ce, cel))]
    if "torch" in peers:
        torch = peers["torch"]
        tdev = [torch.from_numpy(h).cuda() for h in host]
        ts, te, tel = torch_timer(torch)
        rows.append(("PyTorch eager", median_ms(lambda: eager_axpbyc(torch, *tdev), ts, te, tel)))
    report(f"(a) a * x + y * b - c, float32, n = 2^26 (copy {copy:.0f} GB/s)", one_pass, rows)

    x, y = host[0], host[1]
    want = eager_chain10(np, x, y)
    dx, dy = dev[0], dev[1]
    np.testing.assert_allclose(chain10(dx, dy).get(), want, rtol=1e-4, atol=1e-4)
    one_pass = 3 * N * 4 / (copy * 1e9) * 1e3
    rows = [("hipkit.fuse", median_ms(lambda: chain10(dx, dy), start, stop, elapsed)),
            ("hipkit lazy", median_ms(lambda: lazy_chain10(dx, dy), start, stop, elapsed)),
            ("hipkit eager", median_ms(lambda: eager_chain10(hipkit, dx, dy), start, stop, elapsed))]
    np.testing.assert_allclose(lazy_chain10(dx, dy).get(), want, rtol=1e-4, atol=1e-4)
    if "cupy" in peers:
        cp = peers["cupy"]
        cx, cy = cp.asarray(x), cp.asarray(y)
        def c_chain10(x, y):
            return ((((x * 1.5 + y) * 0.5 - x) / (y * y + 1.0)) + cp.sin(x) - cp.exp(-y * y) + x * y) * 2.0 - 1.0
        cfused = cp.fuse(c_chain10)
        cs, ce, cel = cupy_timer(cp)
        rows += [("cupy.fuse", median_ms(lambda: cfused(cx, cy), cs, ce, cel)),
                 ("CuPy eager", median_ms(lambda: eager_chain10(cp, cx, cy), cs, ce, cel))]
    if "torch" in peers:
        torch = peers["torch"]
        tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
        ts, te, tel = torch_timer(torch)
        rows.append(("PyTorch eager", median_ms(lambda: eager_chain10(torch, tx, ty), ts, te, tel)))
    report("(b) a 10-operation chain of two float32 arrays, n = 2^26", one_pass, rows)


def loop_us(step, sync, iterations=5000, repeats=5):
    for _ in range(500):
        step()
    sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(iterations):
            step()
        sync()
        times.append((time.perf_counter() - t0) / iterations * 1e6)
    return statistics.median(times)


def small(rng):
    dev = [hipkit.asarray(rng.standard_normal(1000).astype(np.float32)) for _ in range(5)]
    sync = hipkit.Device(0).synchronize
    fused = loop_us(lambda: axpbyc(*dev), sync)
    eager = loop_us(lambda: eager_axpbyc(hipkit, *dev), sync)
    lazy_loop = loop_us(lambda: lazy_axpbyc(*dev), sync)
    print(f"\n(c) the same expression on 1000-element arrays, µs per iteration (5000 in a loop)\n"
          f"    hipkit.fuse {fused:8.2f}    hipkit eager {eager:8.2f}    fused / eager {fused / eager:5.2f}\n"
          f"    hipkit lazy {lazy_loop:8.2f}    lazy / eager {lazy_loop / eager:5.2f}")


def main():
    if hipkit.device_count() == 0:
        print("fuse_bench: no GPU; nothing to measure")
        return
    print(f"fuse_bench: {hipkit.Device(0).info()['name']}")
    rng = np.random.default_rng(0)
    peers = import_peers()
    big(peers, rng)
    small(rng)


if __name__ == "__main__":
    main()
