/* gpu_device.c: the GPU kind's devices (discovery, properties, activation, free memory, device-wide
 * synchronisation) and the sentence every failed vendor call becomes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/gpu_internal.h"

static hk_status status_from_gpu_error(hipError_t e)
{
    if (hk_gpu_error_means_no_device(e))
        return HK_ERROR_NO_DEVICE;
    switch (e) {
    case hipErrorOutOfMemory: return HK_ERROR_OUT_OF_MEMORY;
    case hipErrorInvalidDevice: return HK_ERROR_INVALID_DEVICE;
    case hipErrorNotReady: return HK_ERROR_NOT_READY;
    case hipErrorInvalidValue: return HK_ERROR_INVALID_ARGUMENT;
    case hipErrorInvalidHandle: return HK_ERROR_INVALID_HANDLE;
    case hipErrorInvalidConfiguration:
    case hipErrorLaunchOutOfResources:
    case hipErrorNoBinaryForGpu:
    case hipErrorInvalidDeviceFunction:
    case hipErrorLaunchFailure: return HK_ERROR_LAUNCH_FAILED;
    default: return HK_ERROR_RUNTIME;
    }
}

hk_status hk__fail_gpu(int gpu_error, const char *function, const char *what)
{
    hipError_t e = (hipError_t)gpu_error;
    hk_status status = status_from_gpu_error(e);
    int device = hk__current_device();
    const char *hint = "";
    if (e == hipErrorNoBinaryForGpu)
        hint = " (this build of hipkit has no code for this GPU: rebuild with its architecture in HIPKIT_GPU_TARGETS)";
    else if (e == hipErrorIllegalAddress || e == hipErrorLaunchFailure)
        hint = " (a kernel touched memory it does not own; the device context is now unusable, restart the process)";
    (void)hipGetLastError(); /* the failure is reported here; do not let a later launch check see it */
    return hk__fail(status, function, "%s failed on device %d (%s): %s: %s%s", what, device, hk__device_name(device),
                    hipGetErrorName(e), hipGetErrorString(e), hint);
}

/* HIPKIT_TEST_DRIVER_VERSION: a test hook standing for the driver's version (hk_driver_version). */
static int faked_driver_version(int *version)
{
    const char *text = getenv("HIPKIT_TEST_DRIVER_VERSION");
    if (!text || !*text)
        return 0;
    *version = atoi(text);
    return 1;
}

#ifdef HIPKIT_PLATFORM_NVIDIA
/* The oldest driver that runs a CUDA major version (NVIDIA's release notes); 0 unknown. */
static int driver_release_for(int cuda_major)
{
    return cuda_major >= 13 ? 580 : cuda_major == 12 ? 525 : cuda_major == 11 ? 450 : 0;
}
#endif

/* The sentence for a driver older than the runtime, into reason. */
static void old_driver_reason(int driver, int runtime, char *reason, size_t reason_size)
{
#ifdef HIPKIT_PLATFORM_NVIDIA
    const int release = driver_release_for(runtime / 1000);
    if (driver > 0) {
        char needs[48] = "";
        if (release)
            snprintf(needs, sizeof needs, " (driver %d or newer)", release);
        snprintf(reason, reason_size, "CUDA driver %d.%d found; this build needs %d.%d or newer%s", driver / 1000,
                 driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10, needs);
    } else {
        snprintf(reason, reason_size, "no NVIDIA driver is installed; this build needs one for CUDA %d.%d or newer",
                 runtime / 1000, runtime % 1000 / 10);
    }
#else
    if (driver > 0)
        snprintf(reason, reason_size, "HIP driver %d found; this build needs %d or newer", driver, runtime);
    else
        snprintf(reason, reason_size, "no AMD GPU driver (amdgpu / ROCm) is installed");
#endif
}

/* The runtime's version; the one built against when the runtime cannot say (no driver at all). */
static int runtime_version_or_built(void)
{
    int runtime = 0;
    if (hipRuntimeGetVersion(&runtime) == hipSuccess && runtime > 0)
        return runtime;
    (void)hipGetLastError();
#if defined(HIPKIT_PLATFORM_NVIDIA) && defined(CUDART_VERSION)
    return CUDART_VERSION;
#elif defined(HIP_VERSION)
    return HIP_VERSION;
#else
    return 0;
#endif
}

/* Any failure to read the driver's version means there is no usable driver: 0, not an error. */
hk_status hk__gpu_driver_version(const char *fn, int *version)
{
    (void)fn;
    if (faked_driver_version(version))
        return HK_SUCCESS;
    *version = 0;
    if (hipDriverGetVersion(version) != hipSuccess || *version < 0)
        *version = 0;
    (void)hipGetLastError();
    return HK_SUCCESS;
}

int hk__gpu_device_count(char *reason, size_t reason_size)
{
    int count = 0, driver = 0;
    const int faked = faked_driver_version(&driver);
    const int runtime = runtime_version_or_built();
    if (faked && driver < runtime) {
        old_driver_reason(driver, runtime, reason, reason_size);
        return 0;
    }
    hipError_t e = hipGetDeviceCount(&count);
    if (e == hipErrorInsufficientDriver && runtime > 0) {
        (void)hipGetLastError();
        if (!faked && hipDriverGetVersion(&driver) != hipSuccess)
            driver = 0;
        (void)hipGetLastError();
        old_driver_reason(driver, runtime, reason, reason_size);
        return 0;
    }
    if (e != hipSuccess) {
        const char *name = hipGetErrorName(e), *text = hipGetErrorString(e);
        if (strcmp(name, text) == 0)
            snprintf(reason, reason_size, "%s", name);
        else
            snprintf(reason, reason_size, "%s: %s", name, text);
        (void)hipGetLastError();
        return 0;
    }
    return count;
}

hk_status hk__gpu_device_describe(const char *fn, int device, hk_device_info *info, hk__device_props *props)
{
    hipDeviceProp_t prop;
    hipError_t e = hipGetDeviceProperties(&prop, device);
    if (e != hipSuccess)
        return fn ? hk__fail_gpu(e, fn, "hipGetDeviceProperties") : HK_ERROR_RUNTIME;
    info->device = device;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    hk_gpu_arch_name(&prop, info->arch, sizeof info->arch);
    info->multiprocessor_count = prop.multiProcessorCount;
    info->warp_size = prop.warpSize;
    info->max_threads_per_block = prop.maxThreadsPerBlock;
    info->total_memory = prop.totalGlobalMem;
    info->shared_memory_per_block = prop.sharedMemPerBlock;
    info->l2_cache_size = prop.l2CacheSize > 0 ? (size_t)prop.l2CacheSize : 0;
    info->compute_major = prop.major;
    info->compute_minor = prop.minor;
    info->pci_bus_id = prop.pciBusID;

    props->multiprocessor_count = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    props->max_threads_per_block = prop.maxThreadsPerBlock > 0 ? prop.maxThreadsPerBlock : 256;
    props->warp_size = prop.warpSize;
    for (int k = 0; k < 3; k++) {
        props->max_block_dim[k] = prop.maxThreadsDim[k];
        props->max_grid_dim[k] = prop.maxGridSize[k];
    }
    hk_gpu_max_dynamic_shared(&prop, 0, &props->max_shared_per_block);
    snprintf(props->arch, sizeof props->arch, "%s", info->arch);
    return HK_SUCCESS;
}

hk_status hk__gpu_runtime_version(const char *fn, int *version)
{
    hipError_t e = hipRuntimeGetVersion(version);
    return hk__gpu_check(fn, e, "hipRuntimeGetVersion");
}

hk_status hk__gpu_activate(const char *fn, int device)
{
    hipError_t e = hipSetDevice(device);
    return hk__gpu_check(fn, e, "hipSetDevice");
}

hk_status hk__gpu_free_memory(const char *fn, size_t *free_bytes)
{
    size_t total;
    hipError_t e = hipMemGetInfo(free_bytes, &total);
    return hk__gpu_check(fn, e, "hipMemGetInfo");
}

hk_status hk__gpu_synchronize(const char *fn)
{
    hipError_t e = hipDeviceSynchronize();
    return hk__gpu_check(fn, e, "hipDeviceSynchronize");
}
