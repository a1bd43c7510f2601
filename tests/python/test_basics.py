"""Import, version, platform, devices and the status -> exception mapping.
Most of these need no GPU and run everywhere."""
import os
import subprocess
import sys
import textwrap

import pytest

import hipkit
from hipkit._ffi import ffi, lib
from hipkit.errors import check


def test_version_is_the_header_version():
    assert hipkit.__version__ == f"{lib.HK_VERSION_MAJOR}.{lib.HK_VERSION_MINOR}.{lib.HK_VERSION_PATCH}"


def test_platform_is_amd_or_nvidia():
    assert hipkit.platform() in ("amd", "nvidia")


def test_device_count_is_a_non_negative_int():
    count = hipkit.device_count()
    assert isinstance(count, int) and count >= 0


def test_current_device_is_known_even_without_a_gpu():
    device = hipkit.get_device()
    assert isinstance(device, hipkit.Device)
    assert 0 <= device.id < max(hipkit.device_count(), 1)


# ------------------------------------------------------- status -> exception

EXPECTED_CLASSES = {
    lib.HK_ERROR_INVALID_ARGUMENT: (hipkit.InvalidArgumentError, ValueError),
    lib.HK_ERROR_NO_DEVICE: (hipkit.NoDeviceError,),
    lib.HK_ERROR_INVALID_DEVICE: (hipkit.InvalidDeviceError,),
    lib.HK_ERROR_OUT_OF_MEMORY: (hipkit.OutOfMemoryError, MemoryError),
    lib.HK_ERROR_INVALID_HANDLE: (hipkit.InvalidHandleError,),
    lib.HK_ERROR_NOT_READY: (hipkit.NotReadyError,),
    lib.HK_ERROR_NOT_SUPPORTED: (hipkit.NotSupportedError,),
    lib.HK_ERROR_LAUNCH_FAILED: (hipkit.LaunchError,),
    lib.HK_ERROR_RUNTIME: (hipkit.RuntimeGPUError,),
    lib.HK_ERROR_INTERNAL: (hipkit.InternalError,),
}


@pytest.mark.parametrize("status", sorted(EXPECTED_CLASSES))
def test_each_status_raises_its_exception_class(status):
    with pytest.raises(hipkit.HipkitError) as raised:
        check(status)
    for cls in EXPECTED_CLASSES[status]:
        assert isinstance(raised.value, cls)
    assert raised.value.status == status
    assert raised.value.status_name == ffi.string(lib.hk_status_name(status)).decode()


def test_success_raises_nothing():
    check(lib.HK_SUCCESS)


def test_unknown_status_raises_the_base_class():
    with pytest.raises(hipkit.HipkitError) as raised:
        check(999)
    assert type(raised.value) is hipkit.HipkitError


def test_message_is_the_library_sentence():
    # Argument checks come before any device check, so this fails the same way everywhere.
    with pytest.raises(hipkit.InvalidArgumentError) as raised:
        check(lib.hk_dtype_size(999, ffi.new("size_t *")))
    assert str(raised.value).startswith("hk_dtype_size")
    assert str(raised.value) == ffi.string(lib.hk_last_error()).decode()


def test_destroying_the_null_stream_is_an_invalid_handle():
    with pytest.raises(hipkit.InvalidHandleError, match="^hk_stream_destroy"):
        check(lib.hk_stream_destroy(ffi.NULL))


# ----------------------------------------------------- machine without a GPU

@pytest.mark.nogpu
def test_device_info_without_gpu_raises_no_device():
    with pytest.raises(hipkit.NoDeviceError) as raised:
        hipkit.Device(0).info()
    assert str(raised.value).startswith("hk_device_get_info")
    assert raised.value.status == lib.HK_ERROR_NO_DEVICE


@pytest.mark.nogpu
@pytest.mark.parametrize("make, function", [
    (lambda: hipkit.Device(0).__enter__(), "hk_device_set"),
    (lambda: hipkit.Stream(), "hk_stream_create"),
    (lambda: hipkit.Event(), "hk_event_create"),
    (lambda: hipkit.empty(10), "hk_malloc"),
    (lambda: hipkit.asarray([1.0, 2.0]), "hk_malloc"),
    (lambda: hipkit.pool_stats(), "hk_pool_get_stats"),
])
def test_gpu_work_without_gpu_raises_no_device(make, function):
    with pytest.raises(hipkit.NoDeviceError, match=f"^{function}"):
        make()


# --------------------------------------------------------------- with a GPU

@pytest.mark.gpu
def test_device_info_is_plausible():
    info = hipkit.Device(0).info()
    assert info["device"] == 0 and info["name"]
    assert info["arch"].startswith(("sm_", "gfx"))
    assert info["multiprocessor_count"] > 0 and info["warp_size"] in (32, 64)
    assert 0 < info["free_memory"] <= info["total_memory"]
    assert hipkit.Device(0).name == info["name"]
    assert hipkit.runtime_version() > 0


@pytest.mark.gpu
@pytest.mark.parametrize("offset", [0, 1000])
def test_device_out_of_range_raises_invalid_device(offset):
    with pytest.raises(hipkit.InvalidDeviceError, match="^hk_device_get_info"):
        hipkit.Device(hipkit.device_count() + offset).info()
    with pytest.raises(hipkit.InvalidDeviceError):
        hipkit.Device(-1 - offset).info()


@pytest.mark.gpu
def test_device_context_sets_and_restores_the_current_device():
    last = hipkit.Device(hipkit.device_count() - 1)
    before = hipkit.get_device()
    with last:
        assert hipkit.get_device() == last
        with hipkit.Device(0):
            assert hipkit.get_device() == hipkit.Device(0)
        assert hipkit.get_device() == last
    assert hipkit.get_device() == before
    last.synchronize()


@pytest.mark.gpu
def test_operands_on_another_device_are_refused():
    if hipkit.device_count() < 2:
        pytest.skip("needs two GPUs")
    a = hipkit.zeros(4)
    with hipkit.Device(1):
        with pytest.raises(ValueError, match="device 0"):
            a + a


# ------------------------------------------------------- interpreter exit

EXIT_SCRIPT = textwrap.dedent("""
    import hipkit
    keep = [hipkit.empty(0), hipkit.asarray([])]
    if hipkit.device_count():
        keep += [hipkit.asarray([1.0, 2.0]), hipkit.Stream(), hipkit.Event()]
        cycle = [hipkit.zeros(1000)]
        cycle.append(cycle)           # only the cycle collector could free it
        hipkit.Stream().close()
    print("done")
""")


def test_interpreter_exit_with_live_objects_is_clean():
    done = subprocess.run([sys.executable, "-c", EXIT_SCRIPT], capture_output=True, text=True,
                          env=os.environ, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    assert done.stderr == ""
