"""demo.py: what hipkit does, in one run. Prints the build and the GPUs, moves
256 MiB to a GPU and back, runs the built-in ops on random data, checks each
against NumPy and times it with GPU events. Exit status 1 if any result is wrong.

    python3 examples/demo.py
"""
import math
import sys
import time

import numpy as np

import hipkit

MiB = 1 << 20
N = 1 << 24  # elements per op: 64 MiB of float32, well past any L2 cache

# A kernel of our own, in HIP C++, compiled at run time (NVRTC or hiprtc).
USER_KERNEL = r"""
#include <hipkit_device.h>
extern "C" __global__ void scaled_square(const float *x, float *out, float scale, long long n)
{
    for (long long i = (long long)hk_global_index(); i < n; i += (long long)hk_grid_stride())
        out[i] = scale * x[i] * x[i];
}
"""


def show_devices():
    print(f"hipkit {hipkit.__version__}, {hipkit.platform()} build")
    count = hipkit.device_count()
    if count:
        print(f"vendor runtime version {hipkit.runtime_version()}, {count} GPU(s):")
    for i in range(count):
        info = hipkit.Device(i).info()
        print(f"  [{i}] {info['name']} ({info['arch']}), {info['multiprocessor_count']} SMs/CUs, "
              f"warp {info['warp_size']}, {info['total_memory'] / 2**30:.1f} GiB "
              f"({info['free_memory'] / 2**30:.1f} GiB free)")
    return count


def transfer(rng):
    host = rng.random(256 * MiB // 4, dtype=np.float32)
    back = np.zeros_like(host)  # written once now, so no page faults are timed
    hipkit.asarray(host[:1024]).get()  # warm-up: runtime start, pool
    to_device, to_host = math.inf, math.inf
    for _ in range(3):  # best of three; synchronous copies, so wall time is right
        t = time.perf_counter()
        device = hipkit.asarray(host)
        to_device = min(to_device, time.perf_counter() - t)
        t = time.perf_counter()
        device.get(out=back)
        to_host = min(to_host, time.perf_counter() - t)
        del device
    same = back.tobytes() == host.tobytes()
    print(f"256 MiB host->device {host.nbytes / to_device / 1e9:6.1f} GB/s, "
          f"device->host {host.nbytes / to_host / 1e9:6.1f} GB/s (pageable memory), "
          f"round trip {'OK' if same else 'FAIL'}")
    return same


def timed_ms(work, repeats=10):
    """Mean GPU time of work() from events on the default stream, after a warm-up."""
    work()
    start, end = hipkit.Event(), hipkit.Event()
    start.record()
    for _ in range(repeats):
        work()
    end.record()
    end.synchronize()
    return start.elapsed_ms(end) / repeats


def report(name, error, bound, ms, nbytes):
    ok = error <= bound
    print(f"  {name:<22} max error {error:9.3g} (allowed {bound:8.3g})  {'OK  ' if ok else 'FAIL'}"
          f"  {ms:8.3f} ms  {nbytes / (ms * 1e-3) / 1e9:7.1f} GB/s")
    return ok


def ops(rng):
    eps = float(np.finfo(np.float32).eps)
    x_host = rng.standard_normal(N).astype(np.float32)
    y_host = rng.standard_normal(N).astype(np.float32)
    x, y = hipkit.asarray(x_host), hipkit.asarray(y_host)
    out = hipkit.empty(N, np.float32)
    nbytes = x.nbytes  # one array's worth; GB/s counts every array read or written
    print(f"built-in ops on {N} float32 elements (random data, checked against NumPy):")
    ok = True

    value = float(rng.standard_normal())
    ms = timed_ms(lambda: out.fill(value))
    ok &= report("fill", float(np.max(np.abs(out.get() - np.float32(value)))), 0.0, ms, nbytes)

    ms = timed_ms(lambda: hipkit.arange(N, dtype=np.float32))
    got = hipkit.arange(N, dtype=np.float32).get()  # 0 .. 2^24-1: all exact in float32
    ok &= report("iota (arange)", float(np.max(np.abs(got - np.arange(N, dtype=np.float32)))), 0.0, ms, nbytes)

    ms = timed_ms(lambda: hipkit.add(x, y, out=out))
    ok &= report("add", float(np.max(np.abs(out.get() - (x_host + y_host)))), 0.0, ms, 3 * nbytes)

    alpha = np.float32(rng.standard_normal())
    z = y.copy()
    hipkit.axpy(alpha, x, z)
    exact = np.float64(alpha) * x_host + y_host.astype(np.float64)
    scale = float(np.max(np.abs(np.float64(alpha) * x_host) + np.abs(y_host)))
    error = float(np.max(np.abs(z.get() - exact)))  # the GPU may fuse multiply and add
    ms = timed_ms(lambda: hipkit.axpy(alpha, x, z))
    ok &= report("axpy (y = a*x + y)", error, 2 * eps * scale, ms, 3 * nbytes)

    total = float(hipkit.sum(x))  # a 0-d device array; float() copies the value back
    exact = math.fsum(x_host.astype(np.float64))
    bound = (math.log2(N) + 32) * eps * float(np.abs(x_host).astype(np.float64).sum())
    ms = timed_ms(lambda: float(hipkit.sum(x)))  # includes copying the result back
    ok &= report("sum", abs(total - exact), bound, ms, nbytes)

    # --- A user kernel: HIP source compiled at run time (NVRTC / hiprtc) ------
    t = time.perf_counter()
    kernel = hipkit.RawKernel(USER_KERNEL, "scaled_square")
    scale = float(rng.standard_normal())
    kernel.launch_n(N, (x, out, scale, N))  # first call: compile (or cache hit), load, launch
    hipkit.Device(0).synchronize()
    first_ms = (time.perf_counter() - t) * 1e3
    exact = np.float32(scale) * x_host.astype(np.float64) ** 2
    error = float(np.max(np.abs(out.get() - exact)))
    ms = timed_ms(lambda: kernel.launch_n(N, (x, out, scale, N)))
    ok &= report("user kernel", error, 4 * eps * float(np.max(np.abs(exact))), ms, 2 * nbytes)
    print(f"  (first call of the user kernel, compile or cache hit + load + launch: {first_ms:.1f} ms; "
          f"cache: {hipkit.kernel.get_cache_dir()})")
    return ok


def main():
    if show_devices() == 0:
        # Run-time compilation needs no GPU: show it for this build's vendor.
        target = "gfx90a" if hipkit.platform() == "amd" else "sm_90"
        t = time.perf_counter()
        program = hipkit.kernel.compile(USER_KERNEL, target=target, name="scaled_square.hip")
        print(f"No GPU found (hk_device_count() == 0): no data to move or kernels to run here. "
              f"Run-time compilation works without one: scaled_square.hip -> {target}, "
              f"{len(program.binary)} bytes in {(time.perf_counter() - t) * 1e3:.1f} ms"
              f"{' (from the cache)' if program.cached else ''}.")
        return 0
    rng = np.random.default_rng()
    ok = transfer(rng)
    ok &= ops(rng)
    print("all results OK" if ok else "SOME RESULTS ARE WRONG")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
