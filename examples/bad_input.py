"""bad_input.py: what hipkit says when it is used wrongly. Every mistake below
raises a hipkit exception whose text names the call, the argument, the device
and what the vendor runtime said; none of them crashes the process."""
import numpy as np

import hipkit


def attempt(title, action):
    try:
        action()
        print(f"{title:<42} no error (unexpected)")
    except Exception as error:  # the point is to show each one
        print(f"{title:<42} {type(error).__name__}: {error}")


def main():
    devices, gpus = hipkit.device_count(), hipkit.gpu_count()
    print(f"hipkit {hipkit.__version__} ({hipkit.platform()} build), {gpus} GPU(s) and the CPU device; "
          f"current: {hipkit.get_device()}")
    attempt("device number out of range", lambda: hipkit.Device(devices + 7))
    attempt("a device name hipkit does not know", lambda: hipkit.Device("tpu"))
    if gpus == 0:
        attempt("a GPU on a machine without one", lambda: hipkit.Device("gpu"))
    attempt("unsupported dtype", lambda: hipkit.empty(4, np.complex64))
    attempt("negative size", lambda: hipkit.empty(-1, np.float32))
    attempt("huge allocation (1 PiB)", lambda: hipkit.empty(2**48, np.float32))
    x, y = hipkit.zeros(10, np.float32), hipkit.zeros(11, np.float32)
    attempt("shapes that do not broadcast", lambda: x + y)
    attempt("a host array in a device op", lambda: x + np.zeros(10, np.float32))
    attempt("an integer too big for uint8", lambda: hipkit.zeros(3, np.uint8) + 300)
    attempt("axis out of range", lambda: hipkit.sum(hipkit.zeros((3, 4)), axis=2))
    attempt("min of nothing", lambda: hipkit.min(hipkit.zeros((0, 4))))
    attempt("matmul shapes", lambda: hipkit.matmul(hipkit.zeros((3, 4)), hipkit.zeros((3, 4))))
    attempt("take out of range", lambda: hipkit.take(hipkit.zeros(5), hipkit.asarray(np.array([7]))))
    if hipkit.get_device().is_gpu:
        attempt("implicit conversion to NumPy", lambda: np.asarray(x))
    else:
        attempt("a user kernel on the CPU device", lambda: hipkit.RawKernel(
            'extern "C" __global__ void k(float *x) { x[0] = 1; }', "k")(1, 1, (x,)))
    if gpus:
        attempt("operands on two devices", lambda: x + hipkit.zeros(10, np.float32, device="cpu"))
    stream = hipkit.Stream()
    stream.close()
    attempt("a destroyed stream used again", lambda: hipkit.add(x, x, stream=stream))
    limit_before = hipkit.pool_stats()["limit"]
    hipkit.set_pool_limit(1 << 20)
    attempt("over the pool limit (1 MiB)", lambda: hipkit.empty(1 << 21, np.float32))
    hipkit.set_pool_limit(limit_before)


if __name__ == "__main__":
    main()
