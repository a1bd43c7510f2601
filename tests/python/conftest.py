"""Shared fixtures: `gpu` (a marker and a fixture) and `rng`.

Tests that need a GPU skip with the reason when hk_device_count() == 0;
with HIPKIT_REQUIRE_GPU=1 a missing GPU fails them instead, so a GPU
machine cannot pass by skipping everything.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import hipkit


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a GPU (skips without one, unless HIPKIT_REQUIRE_GPU=1)")
    config.addinivalue_line("markers", "nogpu: checks the behaviour of a machine without a GPU")


def _no_gpu_reason():
    if hipkit.device_count() > 0:
        return None
    return f"no GPU: hk_device_count() == 0 ({hipkit.platform()} build)"


def require_gpu():
    reason = _no_gpu_reason()
    if reason is None:
        return
    if os.environ.get("HIPKIT_REQUIRE_GPU") == "1":
        pytest.fail(f"{reason}, and HIPKIT_REQUIRE_GPU=1", pytrace=False)
    pytest.skip(reason)


def pytest_runtest_setup(item):
    if item.get_closest_marker("gpu"):
        require_gpu()


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """A `nogpu` test on a machine with a GPU re-runs in a child process whose
    GPUs are hidden from the vendor runtime, so it runs everywhere and skips nowhere."""
    if not pyfuncitem.get_closest_marker("nogpu") or _no_gpu_reason() is not None:
        return None
    if os.environ.get("HIPKIT_TEST_GPUS_HIDDEN") == "1":
        pytest.fail("the GPUs were hidden from the runtime, yet hk_device_count() > 0", pytrace=False)
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", HIP_VISIBLE_DEVICES="", ROCR_VISIBLE_DEVICES="",
               HIPKIT_TEST_GPUS_HIDDEN="1")
    env.pop("HIPKIT_REQUIRE_GPU", None)
    child = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", pyfuncitem.nodeid],
                           cwd=str(pyfuncitem.config.rootpath), env=env, capture_output=True, text=True)
    if child.returncode != 0:
        pytest.fail(f"failed when re-run with the GPUs hidden:\n{child.stdout}{child.stderr}", pytrace=False)
    return True


@pytest.fixture
def gpu():
    """Device 0, or skip (fail with HIPKIT_REQUIRE_GPU=1) when there is no GPU."""
    require_gpu()
    return hipkit.Device(0)


@pytest.fixture
def rng():
    """A generator on a fresh seed; the seed is printed, so a failure shows it
    (rerun with HIPKIT_TEST_SEED=<seed> to reproduce)."""
    seed = int(os.environ.get("HIPKIT_TEST_SEED") or int.from_bytes(os.urandom(8), "little"))
    print(f"rng seed: HIPKIT_TEST_SEED={seed}")
    return np.random.default_rng(seed)
