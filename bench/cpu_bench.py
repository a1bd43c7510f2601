"""cpu_bench.py: hipkit's CPU device against NumPy on the same machine, same run.

    python3 bench/cpu_bench.py [--quick]

Times c = a + b (into an existing array, and as a new array) and sum over 2^26 float32, sort of 2^24
float32 and SGEMM 2048^3, each as the median wall time of repeated calls that end with the result ready
on the host side (hipkit's CPU device queues work like a GPU: every timed call is followed by a
synchronisation). Prints the times and NumPy's time / hipkit's (above 1: hipkit is faster), the cores
and the memory-copy ceiling (np.copyto of the same bytes) for reference. Results are checked against
NumPy once before timing. Benchmarks are not tests: the asserts only guard against timing wrong results.
--quick: 1/16 of the sizes, for a smoke run.
"""
import os
import statistics
import sys
import time

import numpy as np

import hipkit

QUICK = "--quick" in sys.argv
N = (1 << 26) >> (4 if QUICK else 0)
SORT_N = (1 << 24) >> (4 if QUICK else 0)
GEMM = 2048 >> (2 if QUICK else 0)
REPEATS = 7


def median_s(run, repeats=REPEATS):
    run()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def row(name, np_s, hk_s, extra=""):
    print(f"{name:34s} numpy {np_s * 1e3:9.2f} ms   hipkit {hk_s * 1e3:9.2f} ms   numpy/hipkit {np_s / hk_s:6.2f}"
          + (f"   {extra}" if extra else ""))
    return np_s / hk_s


def main():
    cpu = hipkit.Device("cpu")
    info = cpu.info()
    print(f"hipkit CPU device: {info['name']}, {os.cpu_count()} cores, HIPKIT_CPU_THREADS="
          f"{os.environ.get('HIPKIT_CPU_THREADS', 'unset')}; NumPy {np.__version__}")
    try:
        config = np.show_config(mode="dicts")
        blas = config.get("Build Dependencies", {}).get("blas", {}).get("name", "?")
    except Exception:  # older NumPy: no dict mode
        blas = "?"
    print(f"NumPy's BLAS: {blas}")
    rng = np.random.default_rng(1)
    ratios = {}
    with cpu:
        a_h = rng.random(N, dtype=np.float32)
        b_h = rng.random(N, dtype=np.float32)
        c_h = np.empty_like(a_h)
        a, b = hipkit.asarray(a_h), hipkit.asarray(b_h)
        c = hipkit.empty(N, dtype=np.float32)

        copy_s = median_s(lambda: np.copyto(c_h, a_h))
        gbs = 3 * 4 * N / 1e9

        hipkit.add(a, b, out=c)
        assert np.array_equal(c.get(), a_h + b_h)

        def hk_add():
            hipkit.add(a, b, out=c)
            cpu.synchronize()
        np_s, hk_s = median_s(lambda: np.add(a_h, b_h, out=c_h)), median_s(hk_add)
        ratios["c = a + b (out=)"] = row(f"c = a + b, out= (2^{N.bit_length() - 1} f32)", np_s, hk_s,
                                         f"hipkit {gbs / hk_s:.1f} GB/s, copy ceiling {2 * 4 * N / 1e9 / copy_s:.1f} GB/s")

        def hk_add_new():
            z = a + b
            cpu.synchronize()
            return z
        np_s, hk_s = median_s(lambda: a_h + b_h), median_s(hk_add_new)
        ratios["c = a + b (new)"] = row("c = a + b, new array", np_s, hk_s)

        total = float(hipkit.sum(a))
        assert abs(total - float(np.sum(a_h, dtype=np.float64))) <= 1e-4 * N, total
        np_s, hk_s = median_s(lambda: float(np.sum(a_h))), median_s(lambda: float(hipkit.sum(a)))
        ratios["sum"] = row(f"sum (2^{N.bit_length() - 1} f32), read back", np_s, hk_s, f"hipkit {4 * N / 1e9 / hk_s:.1f} GB/s")

        s_h = rng.random(SORT_N, dtype=np.float32)
        s = hipkit.asarray(s_h)
        assert np.array_equal(hipkit.sort(s).get(), np.sort(s_h))

        def hk_sort():
            z = hipkit.sort(s)
            cpu.synchronize()
            return z
        np_s, hk_s = median_s(lambda: np.sort(s_h), repeats=5), median_s(hk_sort, repeats=5)
        ratios["sort"] = row(f"sort (2^{SORT_N.bit_length() - 1} f32)", np_s, hk_s)

        m_h = rng.random((GEMM, GEMM), dtype=np.float32)
        n_h = rng.random((GEMM, GEMM), dtype=np.float32)
        m, n = hipkit.asarray(m_h), hipkit.asarray(n_h)
        got = (m @ n).get()
        want = m_h.astype(np.float64) @ n_h.astype(np.float64)
        assert np.max(np.abs(got - want)) <= 1e-3 * GEMM, np.max(np.abs(got - want))

        def hk_gemm():
            z = m @ n
            cpu.synchronize()
            return z
        np_s, hk_s = median_s(lambda: m_h @ n_h, repeats=5), median_s(hk_gemm, repeats=5)
        flops = 2 * GEMM ** 3
        ratios["sgemm"] = row(f"SGEMM {GEMM}^3", np_s, hk_s,
                              f"hipkit {flops / hk_s / 1e9:.1f} GFLOP/s, numpy {flops / np_s / 1e9:.1f}")
    print("ratios (numpy time / hipkit time): " + ", ".join(f"{k} {v:.2f}" for k, v in ratios.items()))


if __name__ == "__main__":
    main()
