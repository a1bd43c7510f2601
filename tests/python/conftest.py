"""Shared fixtures and markers: `needs_gpu`, `nogpu`, `rng`.

Op-semantics tests carry no marker: they run on the current device, whatever its kind (the
first GPU, else the CPU device; HIPKIT_DEVICE=cpu|gpu|N chooses), so a machine without a GPU
runs them on the CPU device.

`needs_gpu` (or `needs_gpu(2)` for two GPUs) is for the few tests that need a real GPU: the CUDA
array interface, DLPack with CUDA consumers, the vendor BLAS, GPU launch paths, user kernels (the
CPU device does not run them yet), several GPUs. Such a test runs on the first GPU, made current
for it when the current device is the CPU device (HIPKIT_DEVICE=cpu), and skips with the reason
on a machine without one; with HIPKIT_REQUIRE_GPU=1 that skip is a failure instead, so a GPU
machine cannot pass by skipping. (A test that needs two GPUs skips on a machine with one, even
then.)

`user_kernels` is for the tests of user kernels (RawKernel, ElementwiseKernel, ...): they run on the
current device when it runs them (a GPU, or the CPU device once the library's CPU device does: asked
of the library once per session), else as `needs_gpu` tests, with the reason.

`nogpu` tests check what a machine without a GPU does; on a machine with one they re-run in a
child process whose GPUs are hidden from the vendor runtime, so they run everywhere.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import hipkit

NO_GPU = "needs a GPU: the current device is the CPU device"


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_gpu(count=1): needs a real GPU (runs on the first GPU; skips "
                                       "without one, fails instead with HIPKIT_REQUIRE_GPU=1)")
    config.addinivalue_line("markers", "user_kernels: runs user kernels (on the current device when it runs them, "
                                       "else as needs_gpu)")
    config.addinivalue_line("markers", "nogpu: checks the behaviour of a machine without a GPU")


_PROBE = 'extern "C" __global__ void probe(int *x) { x[0] = 1; }'
_cpu_runs_user_kernels = None


def cpu_runs_user_kernels():
    """Whether the CPU device compiles user kernels (hk_program_compile for it succeeds)."""
    global _cpu_runs_user_kernels
    if _cpu_runs_user_kernels is None:
        with hipkit.Device("cpu"):
            try:
                hipkit.kernel.compile(_PROBE, name="probe.hip").close()
                _cpu_runs_user_kernels = True
            except hipkit.NotSupportedError:
                _cpu_runs_user_kernels = False
    return _cpu_runs_user_kernels


def _gpus_missing(count):
    """Why a test needing `count` GPUs cannot run here, or None."""
    gpus = hipkit.gpu_count()
    if gpus == 0:
        return f"{NO_GPU} (this machine has no GPU: hk_gpu_count() == 0, {hipkit.platform()} build)"
    if gpus < count:
        return f"needs {count} GPUs: this machine has {gpus}"
    return None


def require_gpu(count=1):
    reason = _gpus_missing(count)
    if reason is None:
        return
    if os.environ.get("HIPKIT_REQUIRE_GPU") == "1" and hipkit.gpu_count() == 0:
        pytest.fail(f"{reason}, and HIPKIT_REQUIRE_GPU=1", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(autouse=True)
def _on_a_gpu_when_needed(request):
    """A needs_gpu test runs with the first GPU as the current device (it is device 0)."""
    marker = request.node.get_closest_marker("needs_gpu")
    if marker is None and request.node.get_closest_marker("user_kernels") is not None:
        if hipkit.get_device().is_gpu or cpu_runs_user_kernels():
            yield
            return
        if hipkit.gpu_count() == 0:
            pytest.skip(f"{NO_GPU}, and the CPU device has no C++ compiler for user kernels (install g++)")
        marker = pytest.mark.needs_gpu.mark
    if marker is None:
        yield
        return
    require_gpu(marker.args[0] if marker.args else 1)
    if hipkit.get_device().is_gpu:
        yield
        return
    with hipkit.Device("gpu"):
        yield


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """A `nogpu` test on a machine with a GPU re-runs in a child process whose
    GPUs are hidden from the vendor runtime, so it runs everywhere and skips nowhere."""
    if not pyfuncitem.get_closest_marker("nogpu") or hipkit.gpu_count() == 0:
        return None
    if os.environ.get("HIPKIT_TEST_GPUS_HIDDEN") == "1":
        pytest.fail("the GPUs were hidden from the runtime, yet hk_gpu_count() > 0", pytrace=False)
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", HIP_VISIBLE_DEVICES="", ROCR_VISIBLE_DEVICES="",
               HIPKIT_TEST_GPUS_HIDDEN="1")
    env.pop("HIPKIT_REQUIRE_GPU", None)
    env.pop("HIPKIT_DEVICE", None)  # a machine without a GPU, as it comes
    child = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", pyfuncitem.nodeid],
                           cwd=str(pyfuncitem.config.rootpath), env=env, capture_output=True, text=True)
    if child.returncode != 0:
        pytest.fail(f"failed when re-run with the GPUs hidden:\n{child.stdout}{child.stderr}", pytrace=False)
    return True


@pytest.fixture
def device():
    """The current device (the one the op-semantics tests run on)."""
    return hipkit.get_device()


@pytest.fixture
def rng():
    """A generator on a fresh seed; the seed is printed, so a failure shows it
    (rerun with HIPKIT_TEST_SEED=<seed> to reproduce)."""
    seed = int(os.environ.get("HIPKIT_TEST_SEED") or int.from_bytes(os.urandom(8), "little"))
    print(f"rng seed: HIPKIT_TEST_SEED={seed}")
    return np.random.default_rng(seed)
