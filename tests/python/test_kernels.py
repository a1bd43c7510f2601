"""User kernels: run-time compilation (no GPU needed when a target is named),
the disk cache, argument typing and packing, and launches against NumPy (on a GPU,
or on the CPU device once it runs user kernels: until then it refuses them with a
sentence)."""
import os
import re
import struct
import subprocess
import sys
import uuid

import numpy as np
import pytest

import hipkit
from hipkit import kernel
from hipkit._ffi import ffi, lib

TARGET = kernel.default_target()  # "sm_90" on NVIDIA builds, "gfx90a" on AMD builds
NVIDIA = hipkit.platform() == "nvidia"

SAXPY = r"""
#include <hipkit_device.h>
extern "C" __global__ void saxpy(float a, const float *x, float *y, long long n)
{
    for (long long i = (long long)hk_global_index(); i < n; i += (long long)hk_grid_stride())
        y[i] = a * x[i] + y[i];
}
"""


def unique(source):
    """The source with a fresh comment, so nothing is in any cache yet."""
    return f"// {uuid.uuid4().hex}\n{source}"


def looks_like_code(binary):
    if NVIDIA:
        return binary.startswith(b"\x7fELF")  # CUBIN
    return binary.startswith(b"\x7fELF") or binary.startswith(b"__CLANG_OFFLOAD_BUNDLE__")


# ------------------------------------------------- compiling (no GPU needed)

def test_compiles_for_the_platforms_target():
    program = kernel.compile(SAXPY, TARGET, name="saxpy.hip")
    assert program.target == TARGET
    assert len(program.binary) > 100 and looks_like_code(program.binary)
    assert isinstance(program.log, str) and isinstance(program.cached, bool)
    program.close()
    program.close()  # twice is harmless
    with pytest.raises(ValueError, match="closed"):
        program.binary


@pytest.mark.skipif(not NVIDIA, reason="PTX is NVIDIA's")
def test_compiles_to_ptx_for_a_virtual_target():
    program = kernel.compile(SAXPY, "compute_90")
    assert program.binary.startswith(b"//")
    assert b".entry saxpy" in program.binary


def test_compile_error_gives_the_file_and_line():
    source = 'extern "C" __global__ void broken(float *x)\n{\n    x[0] = undeclared_name;\n}\n'
    with pytest.raises(hipkit.CompileError) as error:
        kernel.compile(unique(source), TARGET, name="broken.hip")
    message = str(error.value)
    # NVRTC: "broken.hip(4): error: ..."; hiprtc (clang): "broken.hip:4:12: error: ..."
    assert re.search(r"broken\.hip(\(4\)|:4:)", message), message
    assert "undeclared_name" in message
    assert error.value.status_name == "HK_ERROR_COMPILE"
    assert isinstance(error.value, hipkit.HipkitError)


def test_options_reach_the_compiler():
    source = unique('#ifndef SCALE\n#error SCALE is not defined\n#endif\n'
                    'extern "C" __global__ void scale(float *x) { x[0] *= SCALE; }\n')
    assert looks_like_code(kernel.compile(source, TARGET, options=["-DSCALE=3"]).binary)
    assert looks_like_code(kernel.compile(source, TARGET, options="-DSCALE=3").binary)  # one str: one option
    with pytest.raises(hipkit.CompileError, match="SCALE is not defined"):
        kernel.compile(source, TARGET)


def test_the_device_prelude_is_included():
    source = r"""
    #include <hipkit_device.h>
    extern "C" __global__ void block_sums(const float *x, float *out, long long n)
    {
        __shared__ float scratch[32];
        float v = 0;
        for (long long i = (long long)hk_global_index(); i < n; i += (long long)hk_grid_stride())
            v += x[i];
        v = hk_block_sum(v, scratch);
        if (threadIdx.x == 0)
            out[blockIdx.x] = v + 0 * hk_warp_size() + hk_lane() + hk_warp_index();
    }
    """
    assert looks_like_code(kernel.compile(source, TARGET).binary)


@pytest.mark.parametrize("bad", [b"source", None, 3])
def test_source_must_be_text(bad):
    with pytest.raises(TypeError, match="source"):
        kernel.compile(bad, TARGET)


def test_an_unknown_target_is_refused():
    with pytest.raises(hipkit.HipkitError):
        kernel.compile(SAXPY, "not_a_gpu_1")


def test_rtc_version():
    major, minor = kernel.rtc_version()
    assert major > 0 and minor >= 0


# ------------------------------------------------------------ the disk cache

@pytest.fixture
def cache_dir(tmp_path):
    """The cache in a fresh folder for the test; the previous setting after it."""
    previous = kernel.get_cache_dir()
    kernel.set_cache_dir(tmp_path)
    yield tmp_path
    kernel.set_cache_dir(previous)


def cache_files(folder):
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_second_compile_is_a_cache_hit(cache_dir):
    assert kernel.get_cache_dir() == str(cache_dir)
    source = unique(SAXPY)
    first = kernel.compile(source, TARGET)
    assert first.cached is False
    assert cache_files(cache_dir)
    second = kernel.compile(source, TARGET)
    assert second.cached is True
    assert second.binary == first.binary and second.target == TARGET
    # Another option, another entry.
    assert kernel.compile(source, TARGET, options=["-DUNUSED=1"]).cached is False


def damage_truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def damage_flip(path):
    data = bytearray(path.read_bytes())
    for i in range(len(data) // 3, len(data), max(1, len(data) // 7)):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))


def damage_empty(path):
    path.write_bytes(b"")


@pytest.mark.parametrize("damage", [damage_truncate, damage_flip, damage_empty])
def test_a_damaged_entry_is_rebuilt_not_loaded(cache_dir, damage):
    source = unique(SAXPY)
    original = kernel.compile(source, TARGET).binary
    files = cache_files(cache_dir)
    assert files
    for path in files:
        damage(path)
    rebuilt = kernel.compile(source, TARGET)
    assert rebuilt.cached is False
    assert rebuilt.binary == original
    again = kernel.compile(source, TARGET)  # the rebuilt entry is good again
    assert again.cached is True and again.binary == original


def test_cache_off_never_caches(cache_dir):
    kernel.set_cache_dir(None)
    assert kernel.get_cache_dir() is None
    source = unique(SAXPY)
    assert kernel.compile(source, TARGET).cached is False
    assert kernel.compile(source, TARGET).cached is False
    assert cache_files(cache_dir) == []


def test_cache_dir_is_created(tmp_path):
    previous = kernel.get_cache_dir()
    try:
        folder = tmp_path / "a" / "b"
        kernel.set_cache_dir(folder)
        kernel.compile(unique(SAXPY), TARGET)
        assert cache_files(folder)
    finally:
        kernel.set_cache_dir(previous)


def run_child(code, **env):
    child_env = {k: v for k, v in os.environ.items() if k not in ("HIPKIT_CACHE_DIR", "HIPKIT_CACHE_DISABLE")}
    child_env.update(env)
    result = subprocess.run([sys.executable, "-c", code], env=child_env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_environment_selects_the_cache(tmp_path):
    code = ("from hipkit import kernel; print(kernel.get_cache_dir()); "
            f"print(kernel.compile({unique(SAXPY)!r}, {TARGET!r}).cached)")
    assert run_child(code, HIPKIT_CACHE_DIR=str(tmp_path)).split("\n") == [str(tmp_path), "False"]
    assert cache_files(tmp_path)
    assert run_child(code, HIPKIT_CACHE_DIR=str(tmp_path), HIPKIT_CACHE_DISABLE="1").split("\n") == ["None", "False"]


def test_a_new_process_hits_the_cache(tmp_path):
    source = unique(SAXPY)
    code = f"from hipkit import kernel; print(kernel.compile({source!r}, {TARGET!r}).cached)"
    assert run_child(code, HIPKIT_CACHE_DIR=str(tmp_path)) == "False"
    assert run_child(code, HIPKIT_CACHE_DIR=str(tmp_path)) == "True"


# ------------------------------------- argument types and packing (no GPU)

@pytest.mark.parametrize("spec, name", [
    (np.float32, "float32"), ("float64", "float64"), (np.dtype(np.int32), "int32"), ("int64", "int64"),
    ("float", "float32"), ("double", "float64"), ("int", "int32"), ("unsigned int", "uint32"),
    ("long long", "int64"), ("size_t", "uint64"), ("uint8", "uint8"), (np.int16, "int16"), ("bool", "bool"),
    (np.bool_, "bool"), ("float32*", "pointer"), ("const float *", "pointer"), ("void*", "pointer"),
    ("ptr", "pointer"), ("pointer", "pointer"),
])
def test_param_types_are_understood(spec, name):
    assert kernel._ARG[kernel._arg_type(spec)][0] == name


@pytest.mark.parametrize("spec", ["complex64", np.complex128, "float16", "struct foo", 3, None, "T"])
def test_unknown_param_types_are_refused(spec):
    with pytest.raises(TypeError, match="param_types"):
        kernel._arg_type(spec)
    with pytest.raises(TypeError, match="param_types"):
        hipkit.RawKernel(SAXPY, "saxpy", param_types=[spec])


def types(*names):
    return tuple(kernel._arg_type(n) for n in names)


@pytest.mark.parametrize("names, fmt, size", [
    (("ptr", "int32"), "=Qi", 12),
    (("int8", "float64", "int16"), "=b7xdh", 18),
    (("bool", "int32", "uint8", "ptr"), "=?3xiB7xQ", 24),
    (("float32", "float32", "float64"), "=ffd", 16),
    ((), "=", 0),
])
def test_packed_layout_is_a_c_struct_without_tail_padding(names, fmt, size):
    got_fmt, got_size = kernel._layout(types(*names))
    assert struct.calcsize(got_fmt) == got_size == size
    assert struct.calcsize(got_fmt) == struct.calcsize(fmt)
    assert got_fmt.replace("xxxxxxx", "7x").replace("xxx", "3x") == fmt


class FakeLaunch:
    """Stands in for hk_kernel_launch_packed: converts its arguments as cffi
    would (raising the same errors), records the call, returns a status."""

    def __init__(self, status=0):
        self.calls, self.status = [], status

    def __call__(self, handle, grid, block, shared, stream, data, size):
        for dims in (grid, block):
            if ffi.typeof(dims) is not ffi.typeof("hk_dim3"):
                raise TypeError("hk_dim3 expected")
        ffi.new("size_t *", shared)  # TypeError or OverflowError, as for the real call
        if stream != ffi.NULL and ffi.typeof(stream) is not ffi.typeof("hk_stream"):
            raise TypeError("hk_stream expected")
        assert isinstance(data, bytes) and len(data) == size
        self.calls.append(((grid.x, grid.y, grid.z), (block.x, block.y, block.z), shared, data, size))
        return self.status


def fake_launcher(*names, status=0):
    fake = FakeLaunch(status)
    return kernel._make_launcher(None, "k", types(*names), call=fake), fake


def test_launcher_packs_declared_types():
    launch, fake = fake_launcher("ptr", "int32", "float32", "float64", "uint8", "bool", "int64")
    launch(3, (32, 2), (None, -5, 1.5, 2, 255, True, 2**62))
    launch(3, (32, 2), (4096, np.int32(-5), np.float32(1.5), np.int8(2), np.uint8(255), np.True_, np.int64(2**62)))
    launch(3, (32, 2), [0, -5, 1.5, 2.0, 255, 1, 2**62], shared_mem=64)  # a list; 2.0 to float64 is fine
    expected = struct.pack("=QifdB?6xq", 0, -5, 1.5, 2.0, 255, True, 2**62)
    assert fake.calls[0] == ((3, 1, 1), (32, 2, 1), 0, expected, len(expected))
    assert fake.calls[1][3] == struct.pack("=QifdB?6xq", 4096, -5, 1.5, 2.0, 255, True, 2**62)
    assert fake.calls[2][2] == 64 and fake.calls[2][3] == expected


@pytest.mark.parametrize("names, args, error, match", [
    (("int32",), (2**40,), OverflowError, "int32 cannot hold 1099511627776"),
    (("int32",), (-2**31 - 1,), OverflowError, "int32"),
    (("uint32",), (-1,), OverflowError, "uint32"),
    (("uint8",), (256,), OverflowError, "uint8"),
    (("int64",), (2**63,), OverflowError, "int64"),
    (("uint64",), (2**64,), OverflowError, "uint64"),
    (("int32",), (1.5,), TypeError, "floating-point"),
    (("int32",), (2.0,), TypeError, "floating-point"),
    (("int64",), (np.float32(1),), TypeError, "floating-point"),
    (("int32",), ("3",), TypeError, "integer"),
    (("float32",), (1e300,), OverflowError, "float32"),
    (("float32",), (2**1000,), OverflowError, "float32"),
    (("float64",), ("1.0",), TypeError, "real number"),
    (("float64",), (1j,), TypeError, "real number"),
    (("bool",), (2,), TypeError, "bool"),
    (("bool",), (1.0,), TypeError, "bool"),
    (("ptr",), (np.zeros(3),), TypeError, "hipkit.asarray"),
    (("ptr",), (1.5,), TypeError, "hipkit.ndarray"),
    (("ptr",), (-1,), OverflowError, "address"),
    (("ptr", "int32"), (None,), TypeError, "takes 2 arguments"),
    (("ptr", "int32"), (None, 1, 2), TypeError, "takes 2 arguments"),
    ((), (1,), TypeError, "takes 0 arguments"),
])
def test_arguments_that_do_not_fit_are_refused_before_launch(names, args, error, match):
    launch, fake = fake_launcher(*names)
    with pytest.raises(error, match=match):
        launch(1, 1, args)
    assert fake.calls == []


def test_refusals_name_the_argument():
    launch, fake = fake_launcher("ptr", "int32")
    with pytest.raises(OverflowError, match=r"k: argument 1 \(int32\)"):
        launch(1, 1, (None, 2**40))


@pytest.mark.parametrize("kwargs, error", [
    (dict(grid=0), ValueError), (dict(grid=(1, 2, 3, 4)), TypeError), (dict(grid=1.5), TypeError),
    (dict(block=-32), ValueError), (dict(block=(32, "1")), TypeError), (dict(block=2**32), ValueError),
    (dict(shared_mem=-1), ValueError), (dict(shared_mem=1.0), TypeError),
    (dict(stream=hipkit.Event), TypeError), (dict(stream=3), TypeError),
])
def test_bad_launch_shapes_are_refused(kwargs, error):
    launch, fake = fake_launcher("int32")
    call = dict(grid=1, block=32, args=(1,))
    call.update(kwargs)
    with pytest.raises(error):
        launch(**call)
    assert fake.calls == []


def test_args_must_be_a_sequence():
    launch, fake = fake_launcher("int32")
    with pytest.raises(TypeError, match="tuple or list"):
        launch(1, 1, 5)


def test_a_failed_launch_raises_the_status():
    launch, fake = fake_launcher("int32", status=lib.HK_ERROR_LAUNCH_FAILED)
    with pytest.raises(hipkit.LaunchError):
        launch(1, 1, (1,))
    assert len(fake.calls) == 1


def test_grids_may_be_ints_or_tuples_of_up_to_three():
    launch, fake = fake_launcher()
    for grid, expected in [(5, (5, 1, 1)), ((5,), (5, 1, 1)), ((5, 6), (5, 6, 1)), ((5, 6, 7), (5, 6, 7)),
                           ([5, 6], (5, 6, 1)), (np.int64(9), (9, 1, 1))]:
        launch(grid, grid, ())
        assert fake.calls[-1][0] == expected and fake.calls[-1][1] == expected


# ---------------------------------------------------------- launches
# On the current device when it runs user kernels (a GPU, or the CPU device through the system's C++
# compiler), else on a GPU (conftest.py, the user_kernels marker).

NO_COMPILER_CHILD = r"""
import numpy as np, hipkit
with hipkit.Device("cpu"):
    out = hipkit.zeros(3, np.float32)
    for attempt in (lambda: hipkit.RawKernel(SOURCE, "fill")(1, 32, (out, 1.0, 3)),
                    lambda: hipkit.RawModule(SOURCE),
                    lambda: hipkit.kernel.compile(SOURCE)):
        try:
            attempt()
            raise SystemExit("compiled without a compiler")
        except hipkit.NotSupportedError as e:
            print("REFUSED:", e)
    hipkit.add(out, 1.0, out=out)  # the built-in ops need no compiler
    assert np.array_equal(out.get(), np.ones(3, np.float32))
    print("BUILTIN OK")
"""


def test_user_kernels_on_the_cpu_device_without_a_compiler_are_refused_plainly(tmp_path):
    """With no C++ compiler, the CPU device refuses user kernels with a sentence naming CXX and what to
    install, while every built-in op still runs (they are compiled into the library)."""
    env = dict(os.environ, CXX=str(tmp_path / "no-such-c++"), HIPKIT_CACHE_DIR=str(tmp_path / "cache"))
    code = "SOURCE = " + repr(unique(FILL)) + "\n" + NO_COMPILER_CHILD
    child = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert child.returncode == 0, child.stdout + child.stderr
    refusals = [line for line in child.stdout.splitlines() if line.startswith("REFUSED:")]
    assert len(refusals) == 3, child.stdout
    for line in refusals:
        assert "the CPU device has no C++ compiler to build kernels with" in line, line
        assert "no-such-c++" in line and "g++ or clang++" in line, line
    assert "BUILTIN OK" in child.stdout


def poisoned(n, dtype=np.float32):
    return hipkit.asarray(np.full(n, np.nan, dtype))


@pytest.mark.user_kernels
@pytest.mark.parametrize("n", [1, 7, 1000003])
def test_saxpy_matches_numpy(rng, n):
    x_host = rng.standard_normal(n).astype(np.float32)
    y_host = rng.standard_normal(n).astype(np.float32)
    x, y = hipkit.asarray(x_host), hipkit.asarray(y_host)
    saxpy = hipkit.RawKernel(SAXPY, "saxpy")
    saxpy((n + 255) // 256, 256, (np.float32(2.5), x, y, n))
    # The GPU may fuse a * x + y into one rounding (FMA), NumPy rounds twice.
    np.testing.assert_allclose(y.get(), np.float32(2.5) * x_host + y_host, rtol=1e-6, atol=1e-6)
    assert saxpy.param_types == ("float32", "pointer", "pointer", "int64")


FILL = r"""
#include <hipkit_device.h>
extern "C" __global__ void fill(float *out, float value, int n)
{
    for (long long i = (long long)hk_global_index(); i < n; i += (long long)hk_grid_stride())
        out[i] = value + (float)i;
}
"""


@pytest.mark.user_kernels
@pytest.mark.parametrize("n", [1, 7, 1000003])
def test_every_element_is_written(n):
    out = poisoned(n)
    hipkit.RawKernel(FILL, "fill")(64, 128, (out, 0.5, n))  # fewer threads than elements: grid-stride
    np.testing.assert_array_equal(out.get(), np.float32(0.5) + np.arange(n, dtype=np.float32))


@pytest.mark.user_kernels
def test_each_declared_type_arrives_as_given():
    source = r"""
    extern "C" __global__ void show(double *out, signed char a, unsigned short b, int c, long long d,
                                    unsigned long long e, float f, double g, bool h, unsigned char k)
    {
        out[0] = a; out[1] = b; out[2] = c; out[3] = (double)d; out[4] = (double)e;
        out[5] = f; out[6] = g; out[7] = h ? 1.0 : 0.0; out[8] = k;
    }
    """
    out = poisoned(9, np.float64)
    show = hipkit.RawKernel(source, "show")
    assert show.param_types == ("pointer", "int8", "uint16", "int32", "int64", "uint64", "float32", "float64",
                                "bool", "uint8")
    show(1, 1, (out, -128, 65535, -2**31, -2**53, 2**53, 1.5, 1 / 3, True, np.uint8(255)))
    assert out.get().tolist() == [-128, 65535, -2**31, -2**53, 2**53, 1.5, 1 / 3, 1.0, 255]


@pytest.mark.user_kernels
@pytest.mark.parametrize("args, error", [
    (lambda out: (out, 1.0, 2**40), OverflowError),  # int32 n
    (lambda out: (out, 1.0, 3.0), TypeError),  # float for int
    (lambda out: (out, 1.0), TypeError),  # too few
    (lambda out: (out, 1.0, 3, 4), TypeError),  # too many
    (lambda out: (out.get(), 1.0, 3), TypeError),  # a host array
    (lambda out: (out, "1", 3), TypeError),
])
def test_wrong_arguments_raise_before_launch(args, error):
    out = poisoned(3)
    fill = hipkit.RawKernel(FILL, "fill")
    with pytest.raises(error):
        fill(1, 32, args(out))
    hipkit.get_device().synchronize()
    assert np.isnan(out.get()).all()  # nothing ran


@pytest.mark.user_kernels
def test_too_many_threads_is_refused_with_the_limit():
    fill = hipkit.RawKernel(FILL, "fill")
    limit = fill.attributes["max_threads_per_block"]
    with pytest.raises(hipkit.HipkitError, match="limit of 1024") as error:  # the device's block.x limit
        fill(1, 2048, (poisoned(1), 1.0, 1))
    assert "2048" in str(error.value)
    with pytest.raises(hipkit.HipkitError, match=f"{limit} threads per block"):
        fill(1, (32, 32, 2), (poisoned(1), 1.0, 1))  # 2048 threads as well, in three dimensions


@pytest.mark.user_kernels
def test_too_much_shared_memory_is_refused():
    fill = hipkit.RawKernel(FILL, "fill")
    with pytest.raises(hipkit.HipkitError, match="shared"):
        fill(1, 32, (poisoned(1), 1.0, 1), shared_mem=1 << 30)
    attributes = fill.attributes
    assert attributes["max_dynamic_shared_bytes"] < 1 << 30


@pytest.mark.user_kernels
def test_dynamic_shared_memory():
    source = r"""
    extern "C" __global__ void reverse_block(const float *x, float *y)
    {
        extern __shared__ float tile[];
        tile[threadIdx.x] = x[threadIdx.x];
        __syncthreads();
        y[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
    }
    """
    host = np.arange(256, dtype=np.float32)
    x, y = hipkit.asarray(host), poisoned(256)
    hipkit.RawKernel(source, "reverse_block")(1, 256, (x, y), shared_mem=256 * 4)
    np.testing.assert_array_equal(y.get(), host[::-1])


@pytest.mark.user_kernels
def test_launches_on_streams_are_ordered_by_events(rng):
    n = 1 << 22
    host = rng.standard_normal(n).astype(np.float32)
    x, y = hipkit.asarray(host), hipkit.zeros(n, np.float32)
    saxpy = hipkit.RawKernel(SAXPY, "saxpy")
    with hipkit.Stream() as first, hipkit.Stream() as second, hipkit.Event() as done:
        for _ in range(10):
            saxpy(1024, 256, (1.0, x, y, n), stream=first)  # y = 10 x
        done.record(first)
        second.wait_event(done)
        saxpy(1024, 256, (2.0, y, y, n), stream=second)  # y = 3 y, after all ten
        second.synchronize()
    np.testing.assert_allclose(y.get(), 30 * host, rtol=1e-5)


@pytest.mark.user_kernels
@pytest.mark.parametrize("n", [1, 7, 1000003])
def test_launch_n_covers_n(n):
    source = r"""
    extern "C" __global__ void iota(long long *out, long long n)
    {
        long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;  // one item per thread
        if (i < n) out[i] = 3 * i;
    }
    """
    out = hipkit.asarray(np.full(n, -1, np.int64))
    hipkit.RawKernel(source, "iota").launch_n(n, (out, n))
    np.testing.assert_array_equal(out.get(), 3 * np.arange(n, dtype=np.int64))


@pytest.mark.user_kernels
def test_launch_n_of_nothing_checks_the_arguments():
    iota = hipkit.RawKernel(FILL, "fill")
    iota.launch_n(0, (poisoned(0), 1.0, 0))
    with pytest.raises(TypeError):
        iota.launch_n(0, (poisoned(0), 1.0))


@pytest.mark.user_kernels
def test_raw_module_with_two_kernels():
    source = r"""
    #define INDEX (int)(blockIdx.x * blockDim.x + threadIdx.x)
    extern "C" __global__ void add_one(float *x, int n) { if (INDEX < n) x[INDEX] += 1; }
    extern "C" __global__ void twice(float *x, int n) { if (INDEX < n) x[INDEX] *= 2; }
    """
    module = hipkit.RawModule(source, name="two.hip")
    add_one, twice = module.get_function("add_one"), module.get_function("twice")
    assert module.get_function("add_one") is add_one
    host = np.arange(1000, dtype=np.float32)
    x = hipkit.asarray(host)
    add_one(4, 256, (x, 1000))
    twice(4, 256, (x, 1000))
    np.testing.assert_array_equal(x.get(), (host + 1) * 2)
    assert module.program.target == hipkit.get_device().arch
    with pytest.raises(hipkit.HipkitError, match="missing"):
        module.get_function("missing")


@pytest.mark.user_kernels
def test_raw_module_for_the_named_device_target():
    module = hipkit.RawModule(SAXPY, target=hipkit.get_device().arch)
    x, y = hipkit.asarray(np.ones(10, np.float32)), hipkit.asarray(np.ones(10, np.float32))
    module.get_function("saxpy")(1, 32, (3.0, x, y, 10))
    np.testing.assert_array_equal(y.get(), np.full(10, 4, np.float32))


@pytest.mark.user_kernels
def test_param_types_when_the_source_cannot_tell():
    source = r"""
    #define REAL float
    extern "C" __global__ void scale(float *x, REAL a, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] *= a;
    }
    """
    with pytest.raises(TypeError, match="param_types"):
        hipkit.RawKernel(source, "scale")(1, 32, (poisoned(1), 2.0, 1))
    scale = hipkit.RawKernel(source, "scale", param_types=("float32*", np.float32, "int32"))
    x = hipkit.asarray(np.arange(5, dtype=np.float32))
    scale(1, 32, (x, 2.0, 5))
    np.testing.assert_array_equal(x.get(), 2 * np.arange(5, dtype=np.float32))
    assert scale.param_types == ("pointer", "float32", "int32")
    with pytest.raises(TypeError, match="declares 4 parameters"):
        hipkit.RawKernel(SAXPY, "saxpy", param_types=("ptr",))(1, 1, (None,))


@pytest.mark.user_kernels
def test_attributes():
    attributes = hipkit.RawKernel(SAXPY, "saxpy").attributes
    assert 1 <= attributes["max_threads_per_block"] <= 1024
    assert attributes["registers_per_thread"] >= 0
    assert attributes["static_shared_bytes"] == 0


@pytest.mark.user_kernels
def test_compiling_for_the_current_device(cache_dir):
    source = unique(SAXPY)
    program = kernel.compile(source)
    assert program.target == hipkit.get_device().arch and program.cached is False
    assert kernel.compile(source).cached is True


@pytest.mark.user_kernels
def test_a_missing_kernel_is_reported():
    with pytest.raises(hipkit.HipkitError, match="nope"):
        hipkit.RawKernel(SAXPY, "nope")(1, 1, ())


@pytest.mark.user_kernels
def test_kernel_of_no_arguments_and_3d_shapes():
    source = r"""
    __device__ int counter;
    extern "C" __global__ void count() { atomicAdd(&counter, 1); }
    extern "C" __global__ void read(int *out) { *out = counter; }
    """
    module = hipkit.RawModule(unique(source))
    module.get_function("count")((2, 3, 4), (4, 2, 2), ())
    out = hipkit.asarray(np.zeros(1, np.int32))
    module.get_function("read")(1, 1, (out,))
    assert out.get()[0] == 2 * 3 * 4 * 4 * 2 * 2
