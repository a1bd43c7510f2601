"""hipkit.show_config() and `python -m hipkit`: what this installation is and what it found, in one
report: hipkit's version and build (platform, the GPU architectures its kernels were compiled for), the
vendor runtime, driver and run-time compiler versions, why there is no GPU when there is none, whether the vendor BLAS loads, every device with its
architecture and whether the build has code for it, the kernel cache folder and its size, the memory
pools' statistics, and the HIPKIT_* settings in the environment."""
import os
import typing

from ._build import GPU_TARGETS, PLATFORM
from ._ffi import ffi, lib
from .errors import check
from .device import Device, device_count, platform, pool_stats, runtime_version, version


def _driver():
    version_ = ffi.new("int *")
    check(lib.hk_driver_version(version_))
    v = version_[0]
    if v == 0:
        return "none installed"
    return f"CUDA driver {v // 1000}.{v % 1000 // 10}" if platform() == "nvidia" else f"HIP driver {v}"


def _rtc():
    major, minor = ffi.new("int *"), ffi.new("int *")
    status = lib.hk_rtc_version(major, minor)
    name = "NVRTC" if platform() == "nvidia" else "hiprtc"
    if status != lib.HK_SUCCESS:
        return f"{name}: not usable ({ffi.string(lib.hk_last_error()).decode(errors='replace')})"
    return f"{name} {major[0]}.{minor[0]}"


def _runtime():
    version_ = runtime_version()
    if platform() == "nvidia":
        return f"CUDA runtime {version_ // 1000}.{version_ % 1000 // 10}"
    return f"HIP runtime {version_}"


def _blas():
    available = ffi.new("int *")
    status = lib.hk_matmul_vendor_available(available)
    name = "cuBLAS" if platform() == "nvidia" else "rocBLAS/hipBLAS"
    if status != lib.HK_SUCCESS:
        return f"{name}: not checked ({ffi.string(lib.hk_last_error()).decode(errors='replace')})"
    return f"{name}: {'loads' if available[0] else 'not found (matmul uses hipkit’s own kernel)'}"


def _code_for(arch, platform_=None, targets=None):
    """Whether the build carries kernels for a GPU architecture ("sm_90", "gfx90a"), as a phrase. NVIDIA
    builds hold code (SASS) for each target and PTX for the newest (cmake/HipkitPlatform.cmake): SASS runs
    on later minor versions of its major, the PTX on anything newer, compiled by the driver at load."""
    platform_ = PLATFORM if platform_ is None else platform_
    targets = GPU_TARGETS if targets is None else targets
    if platform_ == "nvidia" and arch.startswith("sm_") and arch[3:].isdigit():
        cc = int(arch[3:])
        numbers = [int(t.rstrip("a")) for t in targets if t.rstrip("a").isdigit()]
        if str(cc) in targets:
            return f"compiled for {arch}"
        same_major = [t for t in numbers if t // 10 == cc // 10 and t <= cc]
        if same_major:
            return f"runs the sm_{max(same_major)} code (binary compatible)"
        if numbers and cc > numbers[-1]:
            return (f"runs the PTX of sm_{numbers[-1]}, compiled by the driver when loaded (rebuild with "
                    f"HIPKIT_GPU_TARGETS={cc} for code of its own)")
        return f"NO code for {arch}: rebuild with HIPKIT_GPU_TARGETS={cc}"
    if platform_ == "amd":
        if arch in targets:
            return f"compiled for {arch}"
        return f"NO code for {arch}: rebuild with HIPKIT_GPU_TARGETS={arch}"
    return f"NO code for {arch}: this is a {platform_} build"


def _cache():
    box = ffi.new("const char **")
    check(lib.hk_cache_get_dir(box))
    folder = None if box[0] == ffi.NULL else ffi.string(box[0]).decode()
    total = count = 0
    for root, _, files in os.walk(folder) if folder else ():
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
                count += 1
            except OSError:
                pass
    return folder, total, count


def config() -> dict:
    """The report's facts as a dict (show_config prints them)."""
    devices = []
    for d in range(device_count()):
        info = Device(d).info()
        arch = info["arch"]
        devices.append({"device": d, "kind": info["kind"], "name": info["name"], "arch": arch,
                        "memory_gib": round(info["total_memory"] / 2**30, 1),
                        "code": _code_for(arch) if info["kind"] == "gpu" else "host code"})
    folder, size, files = _cache()
    return {"hipkit": version(), "platform": PLATFORM, "gpu_targets": list(GPU_TARGETS),
            "runtime": _runtime(), "driver": _driver(), "run-time compiler": _rtc(),
            "no GPU because": ffi.string(lib.hk_no_gpu_reason()).decode(errors="replace"), "vendor BLAS": _blas(), "devices": devices,
            "kernel cache": {"folder": folder, "files": files, "bytes": size},
            "pools": {d["device"]: pool_stats(d["device"]) for d in devices},
            "settings": {k: v for k, v in sorted(os.environ.items()) if k.startswith("HIPKIT_")}}


def show_config(file: "typing.TextIO | None" = None) -> None:
    """Print what this hipkit is and what it found (the same as `python -m hipkit`)."""
    c = config()
    targets = ", ".join(f"sm_{t}" if t.isdigit() else t for t in c["gpu_targets"]) or "none"
    lines = [f"hipkit {c['hipkit']} ({c['platform']} build; GPU kernels for {targets})",
             f"  runtime:            {c['runtime']}",
             f"  driver:             {c['driver']}",
             f"  run-time compiler:  {c['run-time compiler']}",
             f"  vendor BLAS:        {c['vendor BLAS']}",
             "  devices:"]
    if c["no GPU because"]:
        lines.append(f"    no GPU: {c['no GPU because']}")
    for d in c["devices"]:
        lines.append(f"    {d['device']}: {d['name']} ({d['kind']}, {d['arch']}, {d['memory_gib']} GiB): {d['code']}")
    cache = c["kernel cache"]
    where = cache["folder"] or "off (HIPKIT_CACHE_DISABLE)"
    lines.append(f"  kernel cache:       {where} ({cache['files']} files, {cache['bytes'] / 2**20:.1f} MiB)")
    for d, stats in c["pools"].items():
        lines.append(f"  pool, device {d}:    {stats}")
    settings = ", ".join(f"{k}={v}" for k, v in c["settings"].items()) or "none set"
    lines.append(f"  HIPKIT_* settings:  {settings}")
    print("\n".join(lines), file=file)
