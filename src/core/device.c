/* device.c: device discovery (once per process), per-thread current device,
 * device information, version and platform queries. */
#include <pthread.h>
#include <stdlib.h>

#include "gpu/gpu.h"
#include "core/internal.h"

typedef struct device_entry {
    char name[HK_DEVICE_NAME_MAX];
    hk__device_props props;
} device_entry;

static pthread_once_t discovery_once = PTHREAD_ONCE_INIT;
static int device_count;
static device_entry *devices;
static char no_device_reason[256]; /* what the runtime said when it found none */

static _Thread_local int current_device;

static void discover_devices(void)
{
    int count = 0;
    hipError_t e = hipGetDeviceCount(&count);
    if (e != hipSuccess) {
        /* No driver or no GPU: the library stays usable, with zero devices. */
        const char *name = hipGetErrorName(e), *text = hipGetErrorString(e);
        if (strcmp(name, text) == 0)
            snprintf(no_device_reason, sizeof no_device_reason, "%s", name);
        else
            snprintf(no_device_reason, sizeof no_device_reason, "%s: %s", name, text);
        (void)hipGetLastError();
        return;
    }
    if (count <= 0) {
        snprintf(no_device_reason, sizeof no_device_reason, "the runtime reports 0 devices");
        return;
    }
    devices = calloc((size_t)count, sizeof *devices);
    if (!devices) {
        snprintf(no_device_reason, sizeof no_device_reason, "out of host memory at start-up");
        return;
    }
    for (int d = 0; d < count; d++) {
        hipDeviceProp_t prop;
        if (hipGetDeviceProperties(&prop, d) != hipSuccess) {
            snprintf(devices[d].name, sizeof devices[d].name, "?");
            devices[d].props = (hk__device_props){1, 256, 32, {256, 1, 1}, {65535, 1, 1}, 0, "unknown"};
            continue;
        }
        snprintf(devices[d].name, sizeof devices[d].name, "%s", prop.name);
        devices[d].props.multiprocessor_count = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
        devices[d].props.max_threads_per_block = prop.maxThreadsPerBlock > 0 ? prop.maxThreadsPerBlock : 256;
        devices[d].props.warp_size = prop.warpSize;
        for (int k = 0; k < 3; k++) {
            devices[d].props.max_block_dim[k] = prop.maxThreadsDim[k];
            devices[d].props.max_grid_dim[k] = prop.maxGridSize[k];
        }
        hk_gpu_max_dynamic_shared(&prop, 0, &devices[d].props.max_shared_per_block);
        hk_gpu_arch_name(&prop, devices[d].props.arch, sizeof devices[d].props.arch);
    }
    device_count = count;
}

int hk__device_count(void)
{
    pthread_once(&discovery_once, discover_devices);
    return device_count;
}

int hk__current_device(void)
{
    return current_device;
}

const char *hk__device_name(int device)
{
    if (device < 0 || device >= hk__device_count())
        return "?";
    return devices[device].name;
}

const hk__device_props *hk__device_properties(int device)
{
    return &devices[device].props;
}

hk_status hk__require_gpu(const char *function)
{
    if (hk__device_count() > 0)
        return HK_SUCCESS;
    return hk__fail(HK_ERROR_NO_DEVICE, function, "no GPU found (%s); this call needs %s GPU and a working driver",
                    no_device_reason, HK_GPU_PLATFORM == HK_PLATFORM_AMD ? "an AMD" : "an NVIDIA");
}

hk_status hk__check_device(const char *function, int device)
{
    if (device < 0)
        return hk__fail(HK_ERROR_INVALID_DEVICE, function, "device %d is negative; devices are numbered from 0",
                        device);
    hk_status s = hk__require_gpu(function);
    if (s != HK_SUCCESS)
        return s;
    if (device >= device_count)
        return hk__fail(HK_ERROR_INVALID_DEVICE, function, "device %d requested, but only %d device%s (0..%d)", device,
                        device_count, device_count == 1 ? " exists" : "s exist", device_count - 1);
    return HK_SUCCESS;
}

hk_status hk__activate_device(const char *function, int device)
{
    hipError_t e = hipSetDevice(device);
    if (e != hipSuccess)
        return hk__fail_gpu(e, function, "hipSetDevice");
    return HK_SUCCESS;
}

/* ---------------------------------------------------------------- public */

hk_status hk_version(int *major, int *minor, int *patch)
{
    if (!major || !minor || !patch)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, "hk_version", "major, minor and patch must not be NULL");
    *major = HK_VERSION_MAJOR;
    *minor = HK_VERSION_MINOR;
    *patch = HK_VERSION_PATCH;
    return hk__ok();
}

hk_status hk_platform_get(hk_platform *platform)
{
    if (!platform)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, "hk_platform_get", "platform must not be NULL");
    *platform = HK_GPU_PLATFORM;
    return hk__ok();
}

const char *hk_platform_name(hk_platform platform)
{
    switch (platform) {
    case HK_PLATFORM_AMD: return "amd";
    case HK_PLATFORM_NVIDIA: return "nvidia";
    }
    return "unknown";
}

hk_status hk_runtime_version(int *version)
{
    if (!version)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, "hk_runtime_version", "version must not be NULL");
    hipError_t e = hipRuntimeGetVersion(version);
    if (e != hipSuccess)
        return hk__fail_gpu(e, "hk_runtime_version", "hipRuntimeGetVersion");
    return hk__ok();
}

hk_status hk_device_count(int *count)
{
    if (!count)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, "hk_device_count", "count must not be NULL");
    *count = hk__device_count();
    return hk__ok();
}

hk_status hk_device_get_info(int device, hk_device_info *info)
{
    static const char fn[] = "hk_device_get_info";
    if (!info)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "info must not be NULL");
    hk_status s = hk__check_device(fn, device);
    if (s != HK_SUCCESS)
        return s;
    hipDeviceProp_t prop;
    hipError_t e = hipGetDeviceProperties(&prop, device);
    if (e != hipSuccess)
        return hk__fail_gpu(e, fn, "hipGetDeviceProperties");
    memset(info, 0, sizeof *info);
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

    /* Free memory is a per-device query: switch to it and back. */
    int previous = current_device;
    if ((s = hk__activate_device(fn, device)) != HK_SUCCESS)
        return s;
    size_t free_bytes = 0, total_bytes = 0;
    e = hipMemGetInfo(&free_bytes, &total_bytes);
    hk_status restore = hk__activate_device(fn, previous);
    if (e != hipSuccess)
        return hk__fail_gpu(e, fn, "hipMemGetInfo");
    if (restore != HK_SUCCESS)
        return restore;
    info->free_memory = free_bytes;
    return hk__ok();
}

hk_status hk_device_set(int device)
{
    hk_status s = hk__check_device("hk_device_set", device);
    if (s != HK_SUCCESS)
        return s;
    if ((s = hk__activate_device("hk_device_set", device)) != HK_SUCCESS)
        return s;
    current_device = device;
    return hk__ok();
}

hk_status hk_device_get(int *device)
{
    if (!device)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, "hk_device_get", "device must not be NULL");
    *device = current_device;
    return hk__ok();
}

hk_status hk_device_synchronize(void)
{
    hk_status s = hk__require_gpu("hk_device_synchronize");
    if (s != HK_SUCCESS)
        return s;
    hipError_t e = hipDeviceSynchronize();
    if (e != hipSuccess)
        return hk__fail_gpu(e, "hk_device_synchronize", "hipDeviceSynchronize");
    return hk__ok();
}
