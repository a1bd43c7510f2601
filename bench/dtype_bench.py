"""dtype_bench.py: the newer dtypes at the hardware limit, beside the device-to-device copy (the bandwidth
ceiling) and CuPy in the same run: c = a + b (a new output, as users write it) for complex64 of 2**27
elements and int16 of 2**28, also int16 + a Python int and complex64 * a reversed view (the common
calls, not only the fastest one); and nonzero of a 2**26-element random bool mask against cupy.nonzero.
Medians of event-timed repeats after warm-up. Prints bandwidths and ratios."""
import numpy as np

import hipkit
from hipkit._ffi import ffi, lib
from hipkit.errors import check
from ops_bench import cupy_timer, gbps, hipkit_timer, median_ms  # bench/ is sys.path[0]


def copy_gbps(nbytes):
    """Device-to-device copy bandwidth (read + write) of nbytes: the ceiling an elementwise op can reach."""
    src, dst = hipkit.empty(nbytes, dtype=np.uint8), hipkit.empty(nbytes, dtype=np.uint8)
    src.fill(1)
    start, stop, elapsed = hipkit_timer()
    ms = median_ms(lambda: check(lib.hk_memcpy_dtod_async(dst._data, src._data, nbytes, ffi.NULL)),
                   start, stop, elapsed)
    return gbps(2 * nbytes, ms)


def random_array(dtype, n, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        host = (rng.standard_normal(n, np.float32) + 1j * rng.standard_normal(n, np.float32)).astype(dtype)
    else:
        host = rng.integers(-1000, 1000, n).astype(dtype)
    return host


def main():
    try:
        import cupy as cp
    except ImportError:
        cp = None
    rng = np.random.default_rng(7)
    start, stop, elapsed = hipkit_timer()
    rows = []
    for dtype, n in (("complex64", 1 << 27), ("int16", 1 << 28)):
        host = random_array(dtype, n, rng)
        a, b = hipkit.asarray(host), hipkit.asarray(host[::-1].copy())
        nbytes = host.nbytes
        ceiling = copy_gbps(nbytes)
        cases = [("c = a + b", lambda: a + b, 3 * nbytes),
                 ("c = a + 3" if dtype == "int16" else "c = a * b[::-1]",
                  (lambda: a + 3) if dtype == "int16" else (lambda: a * b[::-1]),
                  2 * nbytes if dtype == "int16" else 3 * nbytes)]
        for what, call, moved in cases:
            ms = median_ms(call, start, stop, elapsed)
            ours = gbps(moved, ms)
            theirs = None
            if cp is not None:
                ca, cb = cp.asarray(host), cp.asarray(host[::-1].copy())
                ccall = {"c = a + b": lambda: ca + cb, "c = a + 3": lambda: ca + 3,
                         "c = a * b[::-1]": lambda: ca * cb[::-1]}[what]
                cstart, cstop, celapsed = cupy_timer(cp)
                theirs = gbps(moved, median_ms(ccall, cstart, cstop, celapsed))
                del ca, cb
            rows.append((f"{dtype} {what} (n = 2^{n.bit_length() - 1})", ours, ceiling, theirs))
        del a, b
    for what, ours, ceiling, theirs in rows:
        peer = f"  CuPy {theirs:7.1f} GB/s, hipkit / CuPy {ours / theirs:5.2f}" if theirs else ""
        print(f"{what:42s} {ours:7.1f} GB/s = {ours / ceiling:5.2f} x copy ({ceiling:6.1f} GB/s){peer}")

    n = 1 << 26
    mask_host = rng.random(n) < 0.5
    mask = hipkit.asarray(mask_host)
    ms = median_ms(lambda: hipkit.nonzero(mask), start, stop, elapsed)
    rate = n / (ms * 1e-3) / 1e9
    line = f"nonzero of a random bool mask (n = 2^26) {rate:7.2f} G elements/s ({ms:.3f} ms)"
    if cp is not None:
        cmask = cp.asarray(mask_host)
        cstart, cstop, celapsed = cupy_timer(cp)
        cms = median_ms(lambda: cp.nonzero(cmask), cstart, cstop, celapsed)
        crate = n / (cms * 1e-3) / 1e9
        line += f"  CuPy {crate:7.2f} G/s ({cms:.3f} ms), hipkit / CuPy {rate / crate:5.2f}"
    print(line)
    got = hipkit.nonzero(mask)[0].get()
    assert np.array_equal(got, np.nonzero(mask_host)[0]), "nonzero gave wrong indices"


if __name__ == "__main__":
    main()
