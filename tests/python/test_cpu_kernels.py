"""User kernels on the CPU device, from Python: RawKernel, RawModule, ElementwiseKernel and
ReductionKernel compiled by the host's C++ compiler and run there, with barriers, shared memory,
32-lane warps and atomics; the sentences of what it refuses; its compiler found (or not) through
CXX; its disk cache across processes. Every test runs on the CPU device, on any machine (on a
GPU machine the same kernels also run on the GPU in test_kernels.py and test_templates.py)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import hipkit
from hipkit import kernel


@pytest.fixture(autouse=True)
def on_the_cpu_device():
    with hipkit.Device("cpu"):
        yield


REVERSE = r'''
extern "C" __global__ void reverse(const float *x, float *y, int n)
{
    __shared__ float tile[256];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    const int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
    if (i < n && j < n)
        y[i] = tile[blockDim.x - 1 - threadIdx.x];
}
'''


def test_a_raw_kernel_with_a_barrier_and_shared_memory(rng):
    n, block = 256 * 9, 256
    x = rng.standard_normal(n).astype(np.float32)
    y = hipkit.asarray(np.full(n, np.nan, np.float32))
    hipkit.RawKernel(REVERSE, "reverse")((n + block - 1) // block, block, (hipkit.asarray(x), y, n))
    assert np.array_equal(y.get(), x.reshape(-1, block)[:, ::-1].ravel())
    assert y.device.is_gpu is False


def test_a_raw_module_with_atomics_and_a_warp_sum(rng):
    module = hipkit.RawModule(r'''
extern "C" __global__ void histogram(const int *x, int *bins, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[x[i]], 1);
}
extern "C" __global__ void warp_sums(const float *x, float *out)
{
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    for (int offset = 16; offset > 0; offset >>= 1)       // 32-lane warps, as on NVIDIA GPUs
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x % 32 == 0)
        out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
''', name="mixed.hip")
    assert module.program.target == "host"
    x = rng.integers(0, 16, 100003).astype(np.int32)
    bins = hipkit.zeros(16, np.int32)
    module.get_function("histogram")(7, 128, (hipkit.asarray(x), bins, x.size))
    assert np.array_equal(bins.get(), np.bincount(x, minlength=16))
    values = rng.integers(-8, 8, 1024).astype(np.float32)
    sums = hipkit.zeros(32, np.float32)
    module.get_function("warp_sums")(4, 256, (hipkit.asarray(values), sums))
    assert np.array_equal(sums.get(), values.reshape(32, 32).sum(axis=1))


def test_the_templates_run_on_the_cpu_device(rng):
    x, y = rng.standard_normal(100003), rng.standard_normal(100003)
    axpy = hipkit.ElementwiseKernel("float64 x, float64 y", "float64 z", "z = 2 * x + y", "axpy_cpu")
    assert np.allclose(axpy(hipkit.asarray(x), hipkit.asarray(y)).get(), 2 * x + y)
    l2 = hipkit.ReductionKernel("float64 x", "float64 y", "x * x", "a + b", "y = sqrt(a)", "0", "l2_cpu")
    for n in (0, 1, 8192, 8193, 100003):
        assert np.isclose(l2(hipkit.asarray(x[:n])).get(), np.sqrt((x[:n] ** 2).sum()))
    biggest = hipkit.ReductionKernel("int32 x", "int32 y", "x", "max(a, b)", "y = a", "-2147483648", "max_cpu")
    ints = rng.integers(-10**9, 10**9, 54321).astype(np.int32)
    assert biggest(hipkit.asarray(ints)).get() == ints.max()


def test_a_failed_assert_raises_with_the_thread_and_the_line():
    checked = hipkit.RawKernel('extern "C" __global__ void checked(int *x, int n)\n'
                               '{\n    assert(threadIdx.x < (unsigned)n);\n    x[threadIdx.x] = 1;\n}\n', "checked")
    x = hipkit.zeros(64, np.int32)
    with pytest.raises(hipkit.LaunchError, match=r"kernel checked, block \(0, 0, 0\), thread \(10, 0, 0\): "
                                                r"assertion `threadIdx.x < \(unsigned\)n' failed at checked.hip:3"):
        checked(1, 64, (x, 10))
        hipkit.get_device().synchronize()
    checked(1, 64, (x, 64))  # nothing is left behind
    assert x.get().sum() == 64


def test_what_the_cpu_device_cannot_run_is_named():
    with pytest.raises(hipkit.CompileError, match=r"inline assembly \(asm\)"):
        kernel.compile('extern "C" __global__ void k(unsigned *x) { unsigned l; '
                       'asm volatile("mov.u32 %0, %%laneid;" : "=r"(l)); x[0] = l; }', target="host")
    with pytest.raises(hipkit.CompileError, match="tex1Dfetch"):
        kernel.compile('extern "C" __global__ void k(float *x) { x[0] = tex1Dfetch<float>(0, 0); }')


def test_a_program_for_the_host_is_a_shared_object():
    program = kernel.compile(REVERSE, target="host", name="reverse.hip")
    assert program.target == "host" and program.binary[:4] == b"\x7fELF"


def _run_child(code, **env):
    environment = dict(os.environ, **env)
    child = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=environment, capture_output=True,
                           text=True, timeout=600)
    assert child.returncode == 0, child.stdout + child.stderr
    return child.stdout


CHILD_COMPILE = '''
    import hipkit
    with hipkit.Device("cpu"):
        try:
            program = hipkit.kernel.compile('extern "C" __global__ void k(int *x) { x[0] = 1; }', name="k.hip")
            print("cached" if program.cached else "compiled")
        except hipkit.HipkitError as error:
            print(type(error).__name__, error)
'''


def test_a_missing_compiler_is_named_with_what_to_do():
    said = _run_child(CHILD_COMPILE, CXX="/nonexistent/c++", HIPKIT_CACHE_DISABLE="1")
    assert said.startswith("NotSupportedError") and 'CXX is "/nonexistent/c++"' in said and "set CXX" in said, said


def test_the_disk_cache_spares_the_compiler_in_a_new_process(tmp_path):
    cache = str(tmp_path / "cache")
    assert _run_child(CHILD_COMPILE, HIPKIT_CACHE_DIR=cache).strip() == "compiled"
    assert _run_child(CHILD_COMPILE, HIPKIT_CACHE_DIR=cache).strip() == "cached"
    # The entry is the host's: with no compiler at all, hk_program_compile is refused, not served
    # code built by another compiler.
    assert _run_child(CHILD_COMPILE, HIPKIT_CACHE_DIR=cache, CXX="/nonexistent/c++").startswith("NotSupportedError")
