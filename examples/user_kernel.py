"""user_kernel.py: a kernel of your own, written in HIP C++ inside Python,
compiled at run time for whatever GPU this machine has, launched and checked
against NumPy. Exit status 1 if the result is wrong.

    python3 examples/user_kernel.py

To target AMD: change nothing. The source below is HIP; on an AMD build of
hipkit (cmake -DHIPKIT_PLATFORM=amd) the same file compiles with hiprtc for
the AMD GPU present, on an NVIDIA build with NVRTC for the NVIDIA GPU. The
prelude (hipkit_device.h) reads the warp size from the device (64 lanes on
most AMD GPUs, 32 on NVIDIA), so nothing here assumes either. On the CPU device (no GPU, or
HIPKIT_DEVICE=cpu) the same source is compiled by the system's C++ compiler
and runs there; without one, the library's sentence says what to install, and
the kernel is still compiled for a named GPU architecture (no GPU is needed
for that), which is what main() does then.
"""
import sys

import numpy as np

import hipkit

SAXPY = r"""
#include <hipkit_device.h>

extern "C" __global__ void saxpy(float a, const float *x, float *y, long long n)
{
    // A grid-stride loop: any grid covers any n.
    for (long long i = (long long)hk_global_index(); i < n; i += (long long)hk_grid_stride())
        y[i] = a * x[i] + y[i];
}
"""


def main():
    if hipkit.get_device().is_cpu:
        try:
            hipkit.kernel.compile(SAXPY, name="saxpy.hip")  # for the CPU device: the host's C++ compiler
        except hipkit.NotSupportedError as e:
            target = "gfx90a" if hipkit.platform() == "amd" else "sm_90"
            program = hipkit.kernel.compile(SAXPY, target=target, name="saxpy.hip")
            print(f"{e}\nso saxpy.hip was compiled for {target} only: {len(program.binary)} bytes"
                  f"{' (from the cache)' if program.cached else ''}")
            return 0

    n = 1_000_003
    rng = np.random.default_rng()
    x_host = rng.standard_normal(n).astype(np.float32)
    y_host = rng.standard_normal(n).astype(np.float32)
    x, y = hipkit.asarray(x_host), hipkit.asarray(y_host)

    # Compiled on the first call (and cached on disk: the next run skips the compiler).
    saxpy = hipkit.RawKernel(SAXPY, "saxpy")
    # grid, block, then the arguments in the kernel's order. 2.5 becomes a
    # float and n a long long, as the kernel declares; a value that does not
    # fit its parameter raises before anything is launched.
    saxpy((n + 255) // 256, 256, (2.5, x, y, n))
    # Or let hipkit pick the block size from occupancy: saxpy.launch_n(n, (2.5, x, y, n))

    expected = np.float32(2.5) * x_host + y_host
    got = y.get()
    wrong = np.count_nonzero(~np.isclose(got, expected, rtol=1e-6, atol=1e-6))
    device = hipkit.get_device()
    print(f"saxpy on {n} floats on {device.name} ({device.arch}): {wrong} wrong; "
          f"parameters {saxpy.param_types}, {saxpy.attributes['registers_per_thread']} registers a thread")

    # The same thing as a template: hipkit writes the loop, the kernel is one line.
    axpy = hipkit.ElementwiseKernel("float32 a, float32 x, float32 y", "float32 z", "z = a * x + y", "axpy")
    z = axpy(2.5, x, hipkit.asarray(y_host))
    wrong += np.count_nonzero(~np.isclose(z.get(), expected, rtol=1e-6, atol=1e-6))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
