"""kernel_bench.py: what a user kernel costs from Python, against the raw C
launch and CuPy measured in the same run.

    python3 bench/kernel_bench.py [BUILD_DIR]     (or HIPKIT_BUILD_DIR; default build/test-nvidia)

(a) 20,000 launches of a tiny kernel (one pointer, one int; grid 1, block 32):
    wall clock over the loop with one synchronize at the end, median of
    repeats, next to an empty kernel <<<1, 1>>> launched from C (the line
    BUILD_DIR/bench/pool_bench prints) and CuPy's RawKernel of the same source.
(b) the first compile + launch of a kernel nobody has compiled before (a fresh
    token in its source), and the same kernel in a new process, where it comes
    from the disk cache: timed inside the child around compile + load + launch
    + synchronize, after import and the first device array.
(c) tiny template kernels (ElementwiseKernel, ReductionKernel) per call.
(d) @hipkit.jit: the same tiny kernel written in Python, per launch (kernel[1, 32](x, 32)) beside the raw C
    launch and numba-cuda's @cuda.jit in the same run; its first translation + compile + launch (with the
    jit machinery already loaded, as CuPy is for its RawKernel first compile above); a new process's cache
    hit: importing the user's module and the first launch + synchronize, with hipkit's jit machinery
    (hipkit.kernel, _jit) loaded before and its loading time printed apart.
Benchmarks are not tests: nothing is asserted, only printed.
"""
import os
import re
import statistics
import subprocess
import sys
import time
import uuid

import numpy as np

import hipkit

LAUNCHES = 20000
REPEATS = 5
TINY = r"""
extern "C" __global__ void tiny(float *x, int n)
{
    if ((int)threadIdx.x < n)
        x[threadIdx.x] += 1.0f;
}
"""


def build_dir():
    if len(sys.argv) > 1:
        return sys.argv[1]
    return os.environ.get("HIPKIT_BUILD_DIR", "build/test-nvidia")


def raw_c_launch_us():
    """µs per empty kernel <<<1, 1>>> from C, as pool_bench measures it; None if unavailable."""
    program = os.path.join(build_dir(), "bench", "pool_bench")
    if not os.path.exists(program):
        return None, f"{program} not found (build with -DHIPKIT_BUILD_BENCH=ON)"
    result = subprocess.run([program, str(LAUNCHES), str(REPEATS)], capture_output=True, text=True)
    match = re.search(r"^\s*empty kernel <<<1, 1>>>\s+([0-9.]+)", result.stdout, re.M)
    if not match:
        return None, f"no 'empty kernel <<<1, 1>>>' line from {program} (NVIDIA builds only)"
    return float(match.group(1)), program


def raw_c_launcher():
    """run(count) -> µs per launch of count empty kernels <<<1, 1>>> from C and
    one synchronize, in this process (BUILD_DIR/bench/libraw_launch.so through
    ctypes: one foreign call per loop); None and why when unavailable."""
    import ctypes
    path = os.path.join(build_dir(), "bench", "libraw_launch.so")
    if not os.path.exists(path):
        return None, f"{path} not found (NVIDIA builds with -DHIPKIT_BUILD_BENCH=ON)"
    try:
        raw = ctypes.CDLL(path)
        raw.raw_empty_launches.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p]
        raw.raw_empty_launches.restype = ctypes.c_int
    except (OSError, AttributeError) as e:
        return None, f"{path}: {e}"

    def run(count):
        start = time.perf_counter()
        error = raw.raw_empty_launches(count, 0, None)
        elapsed = time.perf_counter() - start
        if error:
            raise RuntimeError(f"raw_empty_launches: CUDA error {error}")
        return elapsed / count * 1e6
    try:
        run(1000)  # warm-up: the runtime's context and module
    except RuntimeError as e:
        return None, str(e)
    return run, path


def per_launch_us(launch, sync, count=LAUNCHES, repeats=REPEATS):
    for _ in range(1000):  # warm-up: code loading, clocks, the launch queue
        launch()
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(count):
            launch()
        sync()
        times.append((time.perf_counter() - start) / count * 1e6)
    return statistics.median(times)


def import_cupy():
    try:
        import cupy
        cupy.zeros(1).sum()  # a CUDA context, so it is not timed below
        return cupy
    except Exception as error:  # not installed, or no usable GPU for it
        print(f"(CuPy not measured: {type(error).__name__}: {error})")
        return None


def launch_overhead(cupy):
    print(f"\n(a) {LAUNCHES} launches of a tiny kernel (float *, int; grid 1, block 32), "
          f"median of {REPEATS} loops, µs per launch")
    device = hipkit.Device(0)
    x = hipkit.zeros(32, np.float32)
    tiny = hipkit.RawKernel(TINY, "tiny")
    tiny(1, 32, (x, 32))
    rows = []
    raw, where = raw_c_launch_us()
    if raw is None:
        print(f"    raw C launch not measured: {where}")
    else:
        rows.append(("raw C: empty kernel <<<1, 1>>> (pool_bench)", raw))
    rows.append(("hipkit.RawKernel: k(1, 32, (x, 32))",
                 per_launch_us(lambda: tiny(1, 32, (x, 32)), device.synchronize)))
    stream = hipkit.Stream()
    rows.append(("hipkit.RawKernel on a stream: k(1, 32, (x, 32), 0, s)",
                 per_launch_us(lambda: tiny(1, 32, (x, 32), 0, stream), stream.synchronize)))
    rows.append(("hipkit.RawKernel.launch_n(32, (x, 32))",
                 per_launch_us(lambda: tiny.launch_n(32, (x, 32)), device.synchronize)))
    if cupy is not None:
        kernel = cupy.RawKernel(TINY, "tiny")
        y = cupy.zeros(32, cupy.float32)
        n = np.int32(32)  # CuPy passes a Python int as 64 bits: give the width
        kernel((1,), (32,), (y, n))
        rows.append(("CuPy RawKernel: k((1,), (32,), (y, np.int32(32)))",
                     per_launch_us(lambda: kernel((1,), (32,), (y, n)), cupy.cuda.Device().synchronize)))
    print(f"    {'':58s} {'µs':>8s} {'x raw C':>8s}")
    for label, us in rows:
        ratio = f"{us / raw:8.2f}" if raw else f"{'':8s}"
        print(f"    {label:58s} {us:8.3f} {ratio}")
    if not x.get()[0] > 0:
        print("    WARNING: the hipkit kernel did not run")


CHILD = r"""
import sys, time
import numpy as np
import hipkit
x = hipkit.zeros(32, np.float32)
hipkit.Device(0).synchronize()  # the device context exists before the clock starts
start = time.perf_counter()
kernel = hipkit.RawKernel(sys.argv[1], "tiny")
kernel(1, 32, (x, 32))
hipkit.Device(0).synchronize()
elapsed = time.perf_counter() - start
print(f"{elapsed * 1e3:.3f} {kernel.program.cached}")
"""


def child_env():
    """The children's environment: bytecode written (a user's installed package has it), so that a new
    process measures hipkit's cache hit rather than Python compiling hipkit's modules."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compile_times(cupy):
    print("\n(b) compile + load + launch + synchronize of a new kernel, ms")
    source = f"// {uuid.uuid4().hex}\n{TINY}"
    x = hipkit.zeros(32, np.float32)
    hipkit.Device(0).synchronize()
    start = time.perf_counter()
    kernel = hipkit.RawKernel(source, "tiny")
    kernel(1, 32, (x, 32))
    hipkit.Device(0).synchronize()
    first = (time.perf_counter() - start) * 1e3
    rows = [("hipkit, first compile (nothing cached)", f"{first:.2f}")]
    hits = []
    subprocess.run([sys.executable, "-c", CHILD, source], capture_output=True, text=True, env=child_env())  # bytecode
    for _ in range(3):
        child = subprocess.run([sys.executable, "-c", CHILD, source], capture_output=True, text=True,
                               env=child_env())
        if child.returncode != 0:
            rows.append(("hipkit, new process, cache hit", f"failed: {child.stderr.strip()[-300:]}"))
            break
        ms, cached = child.stdout.split()
        hits.append(float(ms))
        if cached != "True":
            rows.append(("hipkit, new process", f"{ms} (NOT a cache hit: is the cache off?)"))
    if hits:
        rows.append((f"hipkit, new process, cache hit (median of {len(hits)})", f"{statistics.median(hits):.3f}"))
    if cupy is not None:
        cupy_source = f"// {uuid.uuid4().hex}\n{TINY}"
        y = cupy.zeros(32, cupy.float32)
        cupy.cuda.Device().synchronize()
        start = time.perf_counter()
        kernel = cupy.RawKernel(cupy_source, "tiny")
        kernel((1,), (32,), (y, np.int32(32)))
        cupy.cuda.Device().synchronize()
        rows.append(("CuPy, first compile (nothing cached)", f"{(time.perf_counter() - start) * 1e3:.2f}"))
    for label, value in rows:
        print(f"    {label:58s} {value:>10s}")
    print(f"    (cache folder: {hipkit.kernel.get_cache_dir()})")


def template_costs(cupy):
    print("\n(c) tiny template kernels from Python, µs per call (asynchronous, one synchronize at the end)")
    device = hipkit.Device(0)
    x, y = hipkit.zeros(32, np.float32), hipkit.zeros(32, np.float32)
    out = hipkit.zeros(32, np.float32)
    axpy2 = hipkit.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * 2 + y", "axpy2")
    total = hipkit.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "total")
    result = hipkit.zeros((), np.float32)
    rows = [("hipkit ElementwiseKernel, out given", per_launch_us(lambda: axpy2(x, y, out), device.synchronize)),
            ("hipkit ElementwiseKernel, new output", per_launch_us(lambda: axpy2(x, y), device.synchronize)),
            ("hipkit ReductionKernel, out given", per_launch_us(lambda: total(x, out=result), device.synchronize))]
    if cupy is not None:
        c_axpy2 = cupy.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * 2 + y", "axpy2")
        c_total = cupy.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "total")
        cx, cy, cout = cupy.zeros(32, cupy.float32), cupy.zeros(32, cupy.float32), cupy.zeros(32, cupy.float32)
        sync = cupy.cuda.Device().synchronize
        rows += [("CuPy ElementwiseKernel, out given", per_launch_us(lambda: c_axpy2(cx, cy, cout), sync)),
                 ("CuPy ElementwiseKernel, new output", per_launch_us(lambda: c_axpy2(cx, cy), sync)),
                 ("CuPy ReductionKernel", per_launch_us(lambda: c_total(cx), sync))]
    for label, us in rows:
        print(f"    {label:58s} {us:8.3f}")


JIT_SOURCE = """
import hipkit
# {token}
@hipkit.jit
def tiny_jit(x, n):
    i = hipkit.threadIdx.x
    if i < n:
        x[i] += 1.0
"""
JIT_CHILD = r"""
import importlib, sys, time
import numpy as np
import hipkit
sys.path.insert(0, sys.argv[1])
x = hipkit.zeros(32, np.float32)
hipkit.Device(0).synchronize()
loading = time.perf_counter()
hipkit.jit  # hipkit's jit machinery (hipkit.kernel, _jit): loaded once per process, timed apart
start = time.perf_counter()
module = importlib.import_module(sys.argv[2])
imported = time.perf_counter()
module.tiny_jit[1, 32](x, 32)
hipkit.Device(0).synchronize()
end = time.perf_counter()
print(f"{(end - start) * 1e3:.3f} {module.tiny_jit.specialize(x, 32).program.cached} "
      f"{(imported - start) * 1e3:.3f} {(end - imported) * 1e3:.3f} {(start - loading) * 1e3:.3f}")
"""


def jit_module(folder):
    """A fresh module defining tiny_jit (a token nobody has compiled), imported from `folder`."""
    import importlib
    name = f"jit_tiny_{uuid.uuid4().hex}"
    with open(os.path.join(folder, name + ".py"), "w") as f:
        f.write(JIT_SOURCE.format(token=uuid.uuid4().hex))
    sys.path.insert(0, folder)
    try:
        return name, importlib.import_module(name)
    finally:
        sys.path.remove(folder)


def jit_costs():
    import tempfile
    print("\n(d) @hipkit.jit, the tiny kernel written in Python")
    device = hipkit.Device(0)
    raw, _ = raw_c_launch_us()
    folder = tempfile.mkdtemp(prefix="hipkit-jit-bench-")
    x = hipkit.zeros(32, np.float32)
    hipkit.jit  # the machinery loaded first: what is timed is one new kernel, as CuPy's first compile above
    device.synchronize()
    start = time.perf_counter()
    name, module = jit_module(folder)
    module.tiny_jit[1, 32](x, 32)
    device.synchronize()
    first = (time.perf_counter() - start) * 1e3
    tiny_jit = module.tiny_jit
    launch = tiny_jit[1, 32]
    rows = [("@hipkit.jit: k[1, 32](x, 32)", per_launch_us(lambda: tiny_jit[1, 32](x, 32), device.synchronize)),
            ("@hipkit.jit, configured once: launch(x, 32)", per_launch_us(lambda: launch(x, 32), device.synchronize))]
    try:
        if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still names it (removed in NumPy 2.5; ANCHORS.md)
            np.row_stack = np.vstack
        from numba import cuda as numba_cuda

        @numba_cuda.jit
        def tiny_numba(y, n):
            i = numba_cuda.threadIdx.x
            if i < n:
                y[i] += 1.0
        y = numba_cuda.to_device(np.zeros(32, np.float32))
        tiny_numba[1, 32](y, 32)
        rows.append(("numba-cuda @cuda.jit: k[1, 32](y, 32)",
                     per_launch_us(lambda: tiny_numba[1, 32](y, 32), numba_cuda.synchronize, count=5000)))
    except Exception as error:  # not installed or not usable here
        print(f"    (numba-cuda not measured: {type(error).__name__}: {str(error)[:120]})")
    print(f"    {'':58s} {'µs':>8s} {'x raw C':>8s}")
    for label, us in rows:
        ratio = f"{us / raw:8.2f}" if raw else f"{'':8s}"
        print(f"    {label:58s} {us:8.3f} {ratio}")
    print(f"    {'first translation + compile + launch + sync (ms)':58s} {first:8.2f}")
    hits, parts = [], []
    subprocess.run([sys.executable, "-c", JIT_CHILD, folder, name], capture_output=True, text=True, env=child_env())
    for _ in range(5):
        child = subprocess.run([sys.executable, "-c", JIT_CHILD, folder, name], capture_output=True, text=True,
                               env=child_env())
        if child.returncode != 0:
            print(f"    new process failed: {child.stderr.strip()[-300:]}")
            break
        ms, cached, imported, launched, machinery = child.stdout.split()
        hits.append(float(ms))
        parts.append((float(imported), float(launched), float(machinery)))
        if cached != "True":
            print(f"    new process: {ms} ms, NOT a cache hit")
    if hits:
        print(f"    {'new process, cache hit: import the module + launch + sync (ms)':58s} {statistics.median(hits):8.3f}")
        print(f"    {'  of which importing the user module (the decorator)':58s} "
              f"{statistics.median(p[0] for p in parts):8.3f}")
        print(f"    {'  of which the first launch + sync (translation and binary cached)':58s} "
              f"{statistics.median(p[1] for p in parts):8.3f}")
        print(f"    {'before it, once per process: loading hipkit.kernel and _jit':58s} "
              f"{statistics.median(p[2] for p in parts):8.3f}")
    if not x.get()[0] > 0:
        print("    WARNING: the jit kernel did not run")


def main():
    if hipkit.device_count() == 0:
        print("kernel_bench: no GPU (hk_device_count() == 0); nothing to measure.")
        return
    info = hipkit.Device(0).info()
    print(f"kernel_bench: device 0: {info['name']} ({info['arch']}), hipkit {hipkit.__version__} for "
          f"{hipkit.platform()}, run-time compiler {'.'.join(map(str, hipkit.kernel.rtc_version()))}")
    cupy = import_cupy()
    launch_overhead(cupy)
    compile_times(cupy)
    template_costs(cupy)
    jit_costs()


if __name__ == "__main__":
    main()
