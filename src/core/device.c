/* device.c: device discovery (once per process, through the kind table), the per-thread current
 * device, device information, version and platform queries. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "kinds/kind.h"

static pthread_once_t discovery_once = PTHREAD_ONCE_INIT;
static char no_device_reason[256]; /* what the runtime said when it found none */

static void discover_devices(void)
{
    const hk__kind *kind = hk__kind_current();
    /* No driver or no GPU: the library stays usable, with zero devices. */
    int count = kind->device_count(no_device_reason, sizeof no_device_reason);
    if (count <= 0) {
        if (!no_device_reason[0])
            snprintf(no_device_reason, sizeof no_device_reason, "the runtime reports 0 devices");
        return;
    }
    hk__device_entry *devices = calloc((size_t)count, sizeof *devices);
    if (!devices) {
        snprintf(no_device_reason, sizeof no_device_reason, "out of host memory at start-up");
        return;
    }
    for (int d = 0; d < count; d++) {
        hk_device_info info;
        memset(&info, 0, sizeof info);
        if (kind->device_describe(NULL, d, &info, &devices[d].props) != HK_SUCCESS) {
            snprintf(devices[d].name, sizeof devices[d].name, "?");
            devices[d].props = (hk__device_props){1, 256, 32, {256, 1, 1}, {65535, 1, 1}, 0, "unknown"};
            continue;
        }
        snprintf(devices[d].name, sizeof devices[d].name, "%s", info.name);
    }
    hk__record_devices(count, devices);
}

int hk__device_count(void)
{
    pthread_once(&discovery_once, discover_devices);
    return hk__recorded_device_count();
}

hk_status hk__require_gpu(const char *function)
{
    if (hk__device_count() > 0)
        return HK_SUCCESS;
    return hk__fail(HK_ERROR_NO_DEVICE, function, "no GPU found (%s); this call needs %s GPU and a working driver",
                    no_device_reason, hk__kind_current()->platform == HK_PLATFORM_AMD ? "an AMD" : "an NVIDIA");
}

hk_status hk__check_device(const char *function, int device)
{
    if (device < 0)
        return hk__fail(HK_ERROR_INVALID_DEVICE, function, "device %d is negative; devices are numbered from 0",
                        device);
    hk_status s = hk__require_gpu(function);
    if (s != HK_SUCCESS)
        return s;
    int count = hk__device_count();
    if (device >= count)
        return hk__fail(HK_ERROR_INVALID_DEVICE, function, "device %d requested, but only %d device%s (0..%d)", device,
                        count, count == 1 ? " exists" : "s exist", count - 1);
    return HK_SUCCESS;
}

hk_status hk__activate_device(const char *function, int device)
{
    return hk__kind_current()->activate(function, device);
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
    *platform = hk__kind_current()->platform;
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
    hk_status s = hk__kind_current()->runtime_version("hk_runtime_version", version);
    return s == HK_SUCCESS ? hk__ok() : s;
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
    const hk__kind *kind = hk__kind_current();
    hk_device_info described;
    hk__device_props props;
    memset(&described, 0, sizeof described);
    if ((s = kind->device_describe(fn, device, &described, &props)) != HK_SUCCESS)
        return s;
    *info = described;
    /* Free memory is a per-device query: switch to it and back. */
    int previous = hk__current_device();
    if ((s = hk__activate_device(fn, device)) != HK_SUCCESS)
        return s;
    size_t free_bytes = 0;
    hk__first_failure_begin();
    s = kind->free_memory(fn, &free_bytes);
    hk_status restore = hk__activate_device(fn, previous);
    hk__first_failure_end();
    if (s != HK_SUCCESS)
        return s;
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
    hk__set_current_device(device);
    return hk__ok();
}

hk_status hk_device_get(int *device)
{
    if (!device)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, "hk_device_get", "device must not be NULL");
    *device = hk__current_device();
    return hk__ok();
}

hk_status hk_device_synchronize(void)
{
    hk_status s = hk__require_gpu("hk_device_synchronize");
    if (s != HK_SUCCESS)
        return s;
    s = hk__kind_current()->synchronize("hk_device_synchronize");
    return s == HK_SUCCESS ? hk__ok() : s;
}
