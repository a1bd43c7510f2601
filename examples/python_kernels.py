"""python_kernels.py: kernels written in Python. The Numba-style vector add (@hipkit.jit with
hipkit.grid(1)) over a million elements, a block-wise sum in shared memory, and a chained expression
fused into one kernel (hipkit.fuse, and the same expression written plainly in lazy mode: hipkit.lazy), each
checked against NumPy. Exit status 1 if a result is wrong.

    python3 examples/python_kernels.py

The same file runs on an NVIDIA GPU (NVRTC), an AMD GPU (hiprtc; the translator writes HIP C++, and
nothing here assumes a warp size) and on the CPU device (no GPU, or HIPKIT_DEVICE=cpu: the system's C++
compiler). A Numba user changes the import (numba.cuda's names are hipkit's: jit, grid, gridsize,
threadIdx, blockIdx, blockDim, shared.array, syncthreads, atomic.add) and passes hipkit arrays.
"""
import sys

import numpy as np

import hipkit


@hipkit.jit
def vector_add_kernel(a, b, c):
    idx = hipkit.grid(1)
    if idx < a.size:
        c[idx] = a[idx] + b[idx]


@hipkit.jit
def block_sums(x, partial):
    tile = hipkit.shared.array(256, hipkit.float32)
    t = hipkit.threadIdx.x
    i = hipkit.grid(1)
    tile[t] = x[i] if i < x.size else 0.0
    hipkit.syncthreads()
    step = hipkit.blockDim.x // 2
    while step > 0:
        if t < step:
            tile[t] += tile[t + step]
        hipkit.syncthreads()
        step //= 2
    if t == 0:
        partial[hipkit.blockIdx.x] = tile[0]


@hipkit.fuse
def axpbyc(a, x, y, b, c):
    return a * x + y * b - c


def main():
    rng = np.random.default_rng()
    n = 1_000_000
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    d_a, d_b = hipkit.asarray(a), hipkit.asarray(b)
    d_c = hipkit.empty_like(d_a)
    threads = 256
    blocks = (n + threads - 1) // threads
    vector_add_kernel[blocks, threads](d_a, d_b, d_c)
    ok = np.array_equal(d_c.get(), a + b)
    print(f"vector_add_kernel[{blocks}, {threads}] over {n} elements on {hipkit.get_device()}: "
          f"{'matches NumPy' if ok else 'WRONG'}")

    partial = hipkit.empty(blocks, dtype=np.float32)
    block_sums[blocks, threads](d_a, partial)
    total = float(hipkit.sum(partial.astype(np.float64)))
    ok_sum = abs(total - a.sum(dtype=np.float64)) < 1e-3 * n
    print(f"block_sums (shared memory, syncthreads): {total:.3f} vs NumPy {a.sum(dtype=np.float64):.3f}: "
          f"{'ok' if ok_sum else 'WRONG'}")

    x, y, c = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    got = axpbyc(d_a, hipkit.asarray(x), hipkit.asarray(y), d_b, hipkit.asarray(c)).get()
    ok_fuse = np.allclose(got, a * x + y * b - c, rtol=1e-5, atol=1e-5)
    print(f"hipkit.fuse a * x + y * b - c as one kernel: {'matches NumPy' if ok_fuse else 'WRONG'}")

    # Lazy mode: the same expression written plainly, recorded and run as one kernel at the block's end.
    d_x, d_y, d_cc = hipkit.asarray(x), hipkit.asarray(y), hipkit.asarray(c)
    for _ in range(2):  # the first time its kernel compiles (and it runs op by op); then it runs fused
        before = hipkit.lazy.stats()["fused"]
        with hipkit.lazy(background=False):
            d = d_a * d_x + d_y * d_b - d_cc
    ok_lazy = hipkit.lazy.stats()["fused"] == before + 1 and np.allclose(d.get(), a * x + y * b - c, rtol=1e-5,
                                                                          atol=1e-5)
    print(f"with hipkit.lazy(): a * x + y * b - c ran as one kernel: {'matches NumPy' if ok_lazy else 'WRONG'}")
    print("the generated C++ of vector_add_kernel (the end):")
    print("\n".join(vector_add_kernel.inspect_source(d_a, d_b, d_c).splitlines()[-8:]))
    return 0 if ok and ok_sum and ok_fuse and ok_lazy else 1


if __name__ == "__main__":
    sys.exit(main())
