/* gpu_device.c: the GPU kind's devices (discovery, properties, activation, free memory, device-wide
 * synchronisation) and the sentence every failed vendor call becomes. */
#include <stdio.h>
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

int hk__gpu_device_count(char *reason, size_t reason_size)
{
    int count = 0;
    hipError_t e = hipGetDeviceCount(&count);
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
