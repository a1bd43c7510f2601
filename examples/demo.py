"""demo.py: what hipkit does, in one run. Prints the build and the devices (the GPUs, then the CPU
device), moves 256 MiB to the current device and back, shows NumPy and the CPU device sharing
memory, runs the built-in ops on random data, checks each against NumPy and times it with hipkit's
events (NumPy's time beside it), and runs a kernel of its own (compiled at run time by NVRTC / hiprtc
on a GPU, by the system's C++ compiler on the CPU device). Without a GPU everything runs on the CPU
device; with one,
on the GPU first and then on the CPU device too. Exit status 1 if any result is wrong.

    python3 examples/demo.py
    HIPKIT_DEVICE=cpu python3 examples/demo.py     # the CPU device alone, on any machine
"""
import math
import os
import sys
import time

import numpy as np

import hipkit

MiB = 1 << 20
N = 1 << 24  # elements per op: 64 MiB of float32, well past any cache

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
    print(f"hipkit {hipkit.__version__}, {hipkit.platform()} build; {hipkit.device_count()} device(s), "
          f"{hipkit.gpu_count()} of them GPUs:")
    for i in range(hipkit.device_count()):
        info = hipkit.Device(i).info()
        memory = f"{info['total_memory'] / 2**30:.1f} GiB ({info['free_memory'] / 2**30:.1f} GiB free)"
        if info["kind"] == "gpu":
            print(f"  [{i}] gpu  {info['name']} ({info['arch']}), {info['multiprocessor_count']} SMs/CUs, "
                  f"warp {info['warp_size']}, {memory}")
        else:
            print(f"  [{i}] cpu  {info['name']}, {info['multiprocessor_count']} cores, {memory} "
                  f"(host memory: for development, CI and small data)")
    if hipkit.gpu_count():
        print(f"  vendor runtime version {hipkit.runtime_version()}")
    current = hipkit.get_device()
    why = f"HIPKIT_DEVICE={os.environ['HIPKIT_DEVICE']}" if os.environ.get("HIPKIT_DEVICE") else \
        "the default: the first GPU, else the CPU device"
    print(f"current device: [{current.id}] {current.kind} ({why})")


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


def sharing(rng):
    """The CPU device's memory is host memory: NumPy and hipkit share it without copies."""
    host = rng.standard_normal(1000)
    x = hipkit.asarray(host, device="cpu")
    view = np.from_dlpack(x)  # DLPack kDLCPU: no copy
    shared = view.ctypes.data == x.ptr
    y = hipkit.from_dlpack(host)  # and the other way
    shared &= y.ptr == host.ctypes.data
    hipkit.multiply(y, 2.0, out=y)  # asynchronous on the CPU device, as on a GPU
    y.device.synchronize()
    same = np.array_equal(view * 2, host) and np.array_equal(np.asarray(x) * 2, host)
    ok = shared and same
    print(f"CPU device and NumPy share memory both ways (DLPack kDLCPU, np.asarray): {'OK' if ok else 'FAIL'}")
    if hipkit.gpu_count():
        g = x.to_device("gpu")
        back = g.to_device("cpu")
        moved = g.device.is_gpu and back.device.is_cpu and np.array_equal(back.get(), x.get())
        print(f"  to_device('gpu') and back to the CPU device: {'OK' if moved else 'FAIL'}")
        ok &= moved
    return ok


def timed_ms(work, repeats=10):
    """Mean device time of work() from events on the default stream, after a warm-up."""
    work()
    start, end = hipkit.Event(), hipkit.Event()
    start.record()
    for _ in range(repeats):
        work()
    end.record()
    end.synchronize()
    return start.elapsed_ms(end) / repeats


def numpy_ms(work, repeats=3):
    """Best wall time of work() in NumPy."""
    best = math.inf
    for _ in range(repeats):
        t = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def report(name, error, bound, ms, nbytes, reference_ms=None):
    ok = error <= bound
    numpy = f"  NumPy {reference_ms:8.3f} ms" if reference_ms is not None else ""
    print(f"  {name:<22} max error {error:9.3g} (allowed {bound:8.3g})  {'OK  ' if ok else 'FAIL'}"
          f"  {ms:8.3f} ms  {nbytes / (ms * 1e-3) / 1e9:7.1f} GB/s{numpy}")
    return ok


def ops(rng):
    device = hipkit.get_device()
    eps = float(np.finfo(np.float32).eps)
    x_host = rng.standard_normal(N).astype(np.float32)
    y_host = rng.standard_normal(N).astype(np.float32)
    x, y = hipkit.asarray(x_host), hipkit.asarray(y_host)
    out = hipkit.empty(N, np.float32)
    scratch = np.empty(N, np.float32)
    nbytes = x.nbytes  # one array's worth; GB/s counts every array read or written
    print(f"built-in ops on {N} float32 elements on device [{device.id}] {device.kind} "
          f"(random data, checked against NumPy):")
    ok = True

    value = float(rng.standard_normal())
    ms = timed_ms(lambda: out.fill(value))
    ok &= report("fill", float(np.max(np.abs(out.get() - np.float32(value)))), 0.0, ms, nbytes,
                 numpy_ms(lambda: scratch.fill(value)))

    ms = timed_ms(lambda: hipkit.arange(N, dtype=np.float32))
    got = hipkit.arange(N, dtype=np.float32).get()  # 0 .. 2^24-1: all exact in float32
    ok &= report("iota (arange)", float(np.max(np.abs(got - np.arange(N, dtype=np.float32)))), 0.0, ms, nbytes,
                 numpy_ms(lambda: np.arange(N, dtype=np.float32)))

    ms = timed_ms(lambda: hipkit.add(x, y, out=out))
    ok &= report("add", float(np.max(np.abs(out.get() - (x_host + y_host)))), 0.0, ms, 3 * nbytes,
                 numpy_ms(lambda: np.add(x_host, y_host, out=scratch)))

    alpha = np.float32(rng.standard_normal())
    z = y.copy()
    hipkit.axpy(alpha, x, z)
    exact = np.float64(alpha) * x_host + y_host.astype(np.float64)
    scale = float(np.max(np.abs(np.float64(alpha) * x_host) + np.abs(y_host)))
    error = float(np.max(np.abs(z.get() - exact)))  # the device may fuse multiply and add
    ms = timed_ms(lambda: hipkit.axpy(alpha, x, z))
    w = y_host.copy()

    def numpy_axpy():
        np.multiply(alpha, x_host, out=scratch)
        np.add(scratch, w, out=w)
    ok &= report("axpy (y = a*x + y)", error, 2 * eps * scale, ms, 3 * nbytes, numpy_ms(numpy_axpy))

    total = float(hipkit.sum(x))  # a 0-d device array; float() copies the value back
    exact = math.fsum(x_host.astype(np.float64))
    bound = (math.log2(N) + 32) * eps * float(np.abs(x_host).astype(np.float64).sum())
    ms = timed_ms(lambda: float(hipkit.sum(x)))  # includes copying the result back
    ok &= report("sum", abs(total - exact), bound, ms, nbytes, numpy_ms(lambda: float(x_host.sum())))

    try:
        ok &= user_kernel(rng, x, x_host, out, eps, nbytes)
    except hipkit.NotSupportedError as error:
        if device.is_gpu:
            raise
        # The CPU device compiles user kernels with the system's C++ compiler: without one it says so.
        print(f"  the user kernel cannot run on the CPU device here: {error}")
    return ok


def user_kernel(rng, x, x_host, out, eps, nbytes):
    """A user kernel: HIP source compiled at run time (NVRTC / hiprtc on a GPU, the system's C++
    compiler on the CPU device), on the current device."""
    t = time.perf_counter()
    kernel = hipkit.RawKernel(USER_KERNEL, "scaled_square")
    scale = float(rng.standard_normal())
    kernel.launch_n(N, (x, out, scale, N))  # first call: compile (or cache hit), load, launch
    hipkit.get_device().synchronize()
    first_ms = (time.perf_counter() - t) * 1e3
    exact = np.float32(scale) * x_host.astype(np.float64) ** 2
    error = float(np.max(np.abs(out.get() - exact)))
    ms = timed_ms(lambda: kernel.launch_n(N, (x, out, scale, N)))
    ok = report("user kernel", error, 4 * eps * float(np.max(np.abs(exact))), ms, 2 * nbytes)
    print(f"  (first call of the user kernel, compile or cache hit + load + launch: {first_ms:.1f} ms; "
          f"cache: {hipkit.kernel.get_cache_dir()})")
    return ok


def main():
    show_devices()
    rng = np.random.default_rng()
    ok = transfer(rng)
    ok &= sharing(rng)
    ok &= ops(rng)
    if hipkit.get_device().is_gpu:  # and the same on the CPU device, for comparison
        with hipkit.Device("cpu"):
            ok &= ops(rng)
    print("all results OK" if ok else "SOME RESULTS ARE WRONG")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
