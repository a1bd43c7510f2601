"""Import, version, platform, devices (the GPUs, then the CPU device; Device("cpu"), HIPKIT_DEVICE)
and the status -> exception mapping. Most of these run everywhere, on the CPU device without a GPU."""
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


def test_device_count_counts_the_gpus_and_the_cpu_device():
    count, gpus = hipkit.device_count(), hipkit.gpu_count()
    assert isinstance(count, int) and isinstance(gpus, int)
    assert gpus >= 0 and count == gpus + 1


def test_current_device_is_known_even_without_a_gpu():
    device = hipkit.get_device()
    assert isinstance(device, hipkit.Device)
    assert 0 <= device.id < hipkit.device_count()
    assert device.kind in ("gpu", "cpu")


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


# ---------------------------------------------------------------- devices

def test_gpus_come_first_then_the_cpu_device():
    gpus = hipkit.gpu_count()
    kinds = [hipkit.Device(i).kind for i in range(hipkit.device_count())]
    assert kinds == ["gpu"] * gpus + ["cpu"]
    assert hipkit.Device("cpu").id == gpus and hipkit.Device("cpu").is_cpu and not hipkit.Device("cpu").is_gpu


def test_the_cpu_device_describes_the_host():
    info = hipkit.Device("cpu").info()
    assert info["kind"] == "cpu" and info["device"] == hipkit.gpu_count()
    assert info["name"].startswith("CPU") and info["arch"] == "host"
    assert info["multiprocessor_count"] >= 1 and info["warp_size"] >= 1 and info["pci_bus_id"] == -1
    assert 0 < info["free_memory"] <= info["total_memory"]
    assert hipkit.Device("cpu").name == info["name"]


@pytest.mark.parametrize("spec", ["cpu", "CPU", " cpu "])
def test_device_cpu_names_the_cpu_device(spec):
    assert hipkit.Device(spec) == hipkit.Device(hipkit.gpu_count())


def test_a_device_equals_its_number_and_another_device_of_it():
    cpu = hipkit.Device("cpu")
    assert cpu == cpu.id and cpu == hipkit.Device(cpu) and cpu == hipkit.Device(cpu.id)
    assert cpu != cpu.id + 1 and cpu != "cpu"
    assert len({cpu, hipkit.Device(cpu.id), cpu.id}) == 1
    assert repr(cpu) == f"<hipkit.Device {cpu.id} (cpu)>"


@pytest.mark.parametrize("spec", ["tpu", "0", "", "gpu:x", "cpu:1"])
def test_a_device_name_other_than_cpu_or_gpu_is_refused(spec):
    with pytest.raises(hipkit.InvalidDeviceError, match="a device is 'cpu', 'gpu'") as raised:
        hipkit.Device(spec)
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize("offset", [0, 99])
def test_a_device_number_out_of_range_is_refused_with_the_devices_there_are(offset):
    with pytest.raises(hipkit.InvalidDeviceError, match="no such device") as raised:
        hipkit.Device(hipkit.device_count() + offset)
    assert "(cpu: CPU" in str(raised.value)
    with pytest.raises(hipkit.InvalidDeviceError):
        hipkit.Device(-1 - offset)


def test_the_device_context_sets_and_restores_the_current_device():
    before = hipkit.get_device()
    cpu = hipkit.Device("cpu")
    with cpu:
        assert hipkit.get_device() == cpu and hipkit.get_device().is_cpu
        with hipkit.Device(0):
            assert hipkit.get_device() == hipkit.Device(0)
            with cpu:  # one Device entered again, inside itself
                assert hipkit.get_device() == cpu
            assert hipkit.get_device() == hipkit.Device(0)
        assert hipkit.get_device() == cpu
    assert hipkit.get_device() == before
    cpu.synchronize()


def test_arrays_report_their_device(device):
    x = hipkit.zeros(3)
    assert x.device == device and x.device.kind == device.kind and isinstance(x.device, hipkit.Device)
    assert x[1:].device == device and (x + 1).device == device and x.T.device == device


# ----------------------------------------------------- machine without a GPU

@pytest.mark.nogpu
def test_without_a_gpu_device_0_is_the_cpu_device():
    assert hipkit.gpu_count() == 0 and hipkit.device_count() == 1
    assert hipkit.get_device() == hipkit.Device(0) == hipkit.Device("cpu")
    assert hipkit.Device(0).kind == "cpu" and hipkit.Device(0).info()["kind"] == "cpu"
    x = hipkit.asarray([1.0, 2.0])
    assert x.device.is_cpu and (x + x).get().tolist() == [2.0, 4.0]
    with hipkit.Stream() as stream, hipkit.Event() as event:
        event.record(stream)
        event.synchronize()
    assert hipkit.pool_stats()["bytes_in_use"] >= x.nbytes


@pytest.mark.nogpu
@pytest.mark.parametrize("spec", ["gpu", "gpu:0", "GPU"])
def test_without_a_gpu_device_gpu_is_refused_and_names_the_cpu_device(spec):
    with pytest.raises(hipkit.NoDeviceError, match="no GPU") as raised:
        hipkit.Device(spec)
    assert "hipkit.Device('cpu')" in str(raised.value)


# Every call that needs the current device fails, naming HIPKIT_DEVICE, until the thread picks a device.
NO_GPU_SCRIPT = textwrap.dedent("""
    import hipkit
    calls = {"Stream": hipkit.Stream, "Event": hipkit.Event, "empty": lambda: hipkit.empty(10),
             "asarray": lambda: hipkit.asarray([1.0, 2.0])}
    for name, call in calls.items():
        try:
            call()
            print("no error from", name)
        except hipkit.NoDeviceError as error:
            assert "HIPKIT_DEVICE=gpu" in str(error), str(error)
            print("refused", name, str(error).split(":")[0])
    with hipkit.Device("cpu"):
        print("cpu", (hipkit.arange(3) * 2).get().tolist())
""")


@pytest.mark.nogpu
def test_without_a_gpu_hipkit_device_gpu_makes_calls_fail_naming_the_variable():
    env = dict(os.environ, HIPKIT_DEVICE="gpu")
    done = subprocess.run([sys.executable, "-c", NO_GPU_SCRIPT], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines[:4]] == ["refused"] * 4, done.stdout
    assert lines[4] == "cpu [0, 2, 4]"


# --------------------------------------------------------------- HIPKIT_DEVICE

DEVICE_SCRIPT = textwrap.dedent("""
    import hipkit
    try:
        x = hipkit.zeros(2)
        print(hipkit.get_device().id, x.device.id, x.device.kind)
    except hipkit.HipkitError as error:
        print(type(error).__name__, error)
""")


def _run_with_hipkit_device(value):
    env = dict(os.environ, HIPKIT_DEVICE=value)
    done = subprocess.run([sys.executable, "-c", DEVICE_SCRIPT], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_hipkit_device_cpu_makes_the_cpu_device_the_default():
    cpu = hipkit.gpu_count()
    assert _run_with_hipkit_device("cpu") == f"{cpu} {cpu} cpu"


def test_hipkit_device_with_a_number_picks_that_device():
    last = hipkit.device_count() - 1
    assert _run_with_hipkit_device(str(last)) == f"{last} {last} cpu"


@pytest.mark.parametrize("value", ["tpu", "99"])
def test_hipkit_device_naming_no_device_fails_naming_the_variable(value):
    out = _run_with_hipkit_device(value)
    assert out.startswith("InvalidDeviceError hk_malloc:") and f"HIPKIT_DEVICE={value}" in out, out


def test_hipkit_device_gpu_uses_the_first_gpu_or_fails_without_one():
    out = _run_with_hipkit_device("gpu")
    if hipkit.gpu_count():
        assert out == "0 0 gpu"
    else:
        assert out.startswith("NoDeviceError hk_malloc:") and "HIPKIT_DEVICE=gpu" in out, out


# --------------------------------------------------------------- with a GPU

@pytest.mark.needs_gpu
def test_gpu_info_is_plausible():
    info = hipkit.Device(0).info()
    assert info["device"] == 0 and info["name"] and info["kind"] == "gpu"
    assert info["arch"].startswith(("sm_", "gfx"))
    assert info["multiprocessor_count"] > 0 and info["warp_size"] in (32, 64)
    assert 0 < info["free_memory"] <= info["total_memory"]
    assert hipkit.Device(0).name == info["name"] and hipkit.Device("gpu") == hipkit.Device(0)
    assert hipkit.runtime_version() > 0


@pytest.mark.needs_gpu
def test_operands_on_two_devices_are_refused():
    a, b = hipkit.zeros(4, device="gpu"), hipkit.zeros(4, device="cpu")
    with pytest.raises(ValueError, match=r"two devices, 0 \(gpu\) and \d+ \(cpu\)"):
        a + b
    with pytest.raises(ValueError, match=r"two devices, \d+ \(cpu\) and 0 \(gpu\).*to_device"):
        hipkit.maximum(b, a)


@pytest.mark.needs_gpu(2)
def test_operands_on_two_gpus_are_refused():
    a = hipkit.zeros(4)
    with hipkit.Device(1):
        b = hipkit.zeros(4)
    with pytest.raises(ValueError, match=r"two devices, 0 \(gpu\) and 1 \(gpu\)"):
        a + b


# ------------------------------------------------------- interpreter exit

EXIT_SCRIPT = textwrap.dedent("""
    import hipkit
    keep = [hipkit.empty(0), hipkit.asarray([])]
    for device in range(hipkit.device_count()):
        with hipkit.Device(device):
            keep += [hipkit.asarray([1.0, 2.0]), hipkit.Stream(), hipkit.Event(), hipkit.ones(3) + 1]
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
