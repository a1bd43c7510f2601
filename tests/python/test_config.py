"""hipkit.show_config() and `python -m hipkit`: the report lists the build, runtime, compiler, BLAS, every
device, the kernel cache and the HIPKIT_* settings; and the sentence for each kind of GPU architecture
against the build's targets (faked targets: no such GPU is needed)."""
import os
import subprocess
import sys

import pytest

import hipkit
from hipkit import _config


def test_config_lists_every_device_and_the_build():
    c = _config.config()
    assert c["hipkit"] == hipkit.__version__ and c["platform"] == hipkit.platform()
    assert [d["device"] for d in c["devices"]] == list(range(hipkit.device_count()))
    assert all(d["code"] for d in c["devices"])
    assert set(c["kernel cache"]) == {"folder", "files", "bytes"}


def test_python_dash_m_hipkit_prints_the_report():
    env = dict(os.environ, HIPKIT_CPU_THREADS="2")
    done = subprocess.run([sys.executable, "-m", "hipkit"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith(f"hipkit {hipkit.__version__} ({hipkit.platform()} build; GPU kernels for ")
    for part in ("runtime:", "driver:", "run-time compiler:", "vendor BLAS:", "devices:", "kernel cache:", "pool, device 0"):
        assert part in out, out
    assert "HIPKIT_CPU_THREADS=2" in out


@pytest.mark.parametrize("arch, targets, phrase", [
    ("sm_90", ("80", "90"), "compiled for sm_90"),
    ("sm_86", ("80", "90"), "runs the sm_80 code (binary compatible)"),
    ("sm_120", ("80", "90"), "runs the PTX of sm_90, compiled by the driver when loaded (rebuild with "
                              "HIPKIT_GPU_TARGETS=120 for code of its own)"),
    ("sm_75", ("80", "90"), "NO code for sm_75: rebuild with HIPKIT_GPU_TARGETS=75"),
])
def test_nvidia_architecture_sentences(arch, targets, phrase):
    assert _config._code_for(arch, "nvidia", targets) == phrase


def test_amd_architecture_sentences():
    assert _config._code_for("gfx90a", "amd", ("gfx90a", "gfx1030")) == "compiled for gfx90a"
    assert _config._code_for("gfx1100", "amd", ("gfx90a", "gfx1030")) == \
        "NO code for gfx1100: rebuild with HIPKIT_GPU_TARGETS=gfx1100"


def test_a_driver_older_than_the_runtime_is_named_with_its_version():
    """HIPKIT_TEST_DRIVER_VERSION (a test hook) stands for an old driver: no GPU is found, and the sentence
    says which driver was found and which one the build needs."""
    env = dict(os.environ, HIPKIT_TEST_DRIVER_VERSION="12020")
    env.pop("HIPKIT_DEVICE", None)
    code = ("import hipkit\n"
            "from hipkit._ffi import ffi, lib\n"
            "print(hipkit.gpu_count())\n"
            "print(ffi.string(lib.hk_no_gpu_reason()).decode())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    count, reason = done.stdout.splitlines()[:2]
    assert count == "0"
    if hipkit.platform() == "nvidia":
        runtime = hipkit.runtime_version()
        assert reason == (f"CUDA driver 12.2 found; this build needs {runtime // 1000}.{runtime % 1000 // 10} or "
                          f"newer (driver 580 or newer)"), reason
    else:
        assert reason.startswith("HIP driver 12020 found; this build needs "), reason
    report = subprocess.run([sys.executable, "-m", "hipkit"], capture_output=True, text=True, env=env, timeout=120)
    assert f"no GPU: {reason}" in report.stdout and "driver:" in report.stdout
