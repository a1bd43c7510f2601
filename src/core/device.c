/* device.c: device discovery (once per process, through the kind table), the per-thread current
 * device, device information, version and platform queries. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/settings.h"
#include "kinds/kind.h"

static pthread_once_t discovery_once = PTHREAD_ONCE_INIT;
static char no_gpu_reason[256];      /* what the vendor runtime said when it found no GPU */
static int gpu_count;                /* devices 0 .. gpu_count-1 are GPUs */
static char default_problem[512];    /* why HIPKIT_DEVICE names no device here; "" when it does */
static hk_status default_problem_status;

/* HIPKIT_DEVICE's device: "cpu", "gpu" (the first GPU) or an ordinal; -1 with default_problem written
 * when it names none. Unset: the first device (the first GPU, else the CPU device). */
static int default_device_of(int count)
{
    const char *text = hk__settings_device();
    if (!text)
        return 0;
    if (strcmp(text, "cpu") == 0) {
        for (int d = 0; d < count; d++)
            if (hk__device_kind_table(d) == &hk__cpu_kind)
                return d;
    } else if (strcmp(text, "gpu") == 0) {
        if (gpu_count > 0)
            return 0;
        default_problem_status = HK_ERROR_NO_DEVICE;
        snprintf(default_problem, sizeof default_problem,
                 "HIPKIT_DEVICE=gpu, but this machine has no GPU (%s); unset it to use the CPU device", no_gpu_reason);
        return -1;
    } else {
        char *end = NULL;
        long ordinal = strtol(text, &end, 10);
        if (end != text && *end == '\0' && ordinal >= 0 && ordinal < count)
            return (int)ordinal;
    }
    default_problem_status = HK_ERROR_INVALID_DEVICE;
    snprintf(default_problem, sizeof default_problem,
             "HIPKIT_DEVICE=%s names no device here: use cpu, gpu or an ordinal 0..%d (%d GPU%s, then the CPU device)",
             text, count - 1, gpu_count, gpu_count == 1 ? "" : "s");
    return -1;
}

/* Each kind in turn numbers its devices after the previous kind's (the GPUs first). */
static void discover_devices(void)
{
    int counts[HK__KIND_COUNT], total = 0;
    for (int k = 0; k < HK__KIND_COUNT; k++) {
        char reason[sizeof no_gpu_reason] = "";
        counts[k] = hk__kinds_in_order[k]->device_count(reason, sizeof reason);
        if (counts[k] < 0)
            counts[k] = 0;
        if (hk__kinds_in_order[k] == &hk__gpu_kind) {
            gpu_count = counts[k];
            snprintf(no_gpu_reason, sizeof no_gpu_reason, "%s",
                     reason[0] ? reason : "the runtime reports 0 devices");
        }
        total += counts[k];
    }
    hk__device_entry *devices = total > 0 ? calloc((size_t)total, sizeof *devices) : NULL;
    if (!devices) {
        snprintf(no_gpu_reason, sizeof no_gpu_reason, "out of host memory at start-up");
        gpu_count = 0;
        return;
    }
    int d = 0;
    for (int k = 0; k < HK__KIND_COUNT; k++) {
        for (int i = 0; i < counts[k]; i++, d++) {
            hk_device_info info;
            memset(&info, 0, sizeof info);
            devices[d].kind = hk__kinds_in_order[k];
            if (devices[d].kind->device_describe(NULL, d, &info, &devices[d].props) != HK_SUCCESS) {
                snprintf(devices[d].name, sizeof devices[d].name, "?");
                devices[d].props = (hk__device_props){1, 256, 32, {256, 1, 1}, {65535, 1, 1}, 0, "unknown"};
                continue;
            }
            snprintf(devices[d].name, sizeof devices[d].name, "%s", info.name);
        }
    }
    hk__record_devices(total, devices, 0);
    int chosen = default_device_of(total);
    hk__record_devices(total, devices, chosen >= 0 ? chosen : 0);
}

int hk__device_count(void)
{
    pthread_once(&discovery_once, discover_devices);
    return hk__recorded_device_count();
}

int hk__gpu_device_total(void)
{
    pthread_once(&discovery_once, discover_devices);
    return gpu_count;
}

hk_status hk__require_device(const char *function)
{
    if (hk__device_count() > 0 && (default_problem[0] == '\0' || hk__current_device_chosen()))
        return HK_SUCCESS;
    if (default_problem[0])
        return hk__fail(default_problem_status, function, "%s (or call hk_device_set first)", default_problem);
    return hk__fail(HK_ERROR_NO_DEVICE, function, "no device could be set up (%s)", no_gpu_reason);
}

hk_status hk__require_gpu(const char *function)
{
    hk_status s = hk__require_device(function);
    if (s != HK_SUCCESS)
        return s;
    if (hk__kind_current() != &hk__cpu_kind)
        return HK_SUCCESS;
    if (gpu_count == 0)
        return hk__fail(HK_ERROR_NO_DEVICE, function,
                        "this call needs %s GPU, and there is none (%s); the current device is the CPU device",
                        hk__kind_vendor()->platform == HK_PLATFORM_AMD ? "an AMD" : "an NVIDIA", no_gpu_reason);
    return hk__fail(HK_ERROR_NOT_SUPPORTED, function,
                    "this call needs a GPU, and the current device is the CPU device (%d): hk_device_set(0) "
                    "selects the first GPU",
                    hk__current_device());
}

hk_status hk__check_device(const char *function, int device)
{
    if (device < 0)
        return hk__fail(HK_ERROR_INVALID_DEVICE, function, "device %d is negative; devices are numbered from 0",
                        device);
    int count = hk__device_count();
    if (count == 0)
        return hk__require_device(function);
    if (device >= count)
        return hk__fail(HK_ERROR_INVALID_DEVICE, function,
                        "device %d requested, but only %d device%s (0..%d: %d GPU%s, then the CPU device)", device,
                        count, count == 1 ? " exists" : "s exist", count - 1, gpu_count, gpu_count == 1 ? "" : "s");
    return HK_SUCCESS;
}

hk_status hk__activate_device(const char *function, int device)
{
    return hk__kind_of(device)->activate(function, device);
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
    *platform = hk__kind_vendor()->platform;
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
    hk_status s = hk__kind_vendor()->runtime_version("hk_runtime_version", version);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_driver_version(int *version)
{
    if (!version)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, "hk_driver_version", "version must not be NULL");
    hk_status s = hk__kind_vendor()->driver_version("hk_driver_version", version);
    return s == HK_SUCCESS ? hk__ok() : s;
}

const char *hk_no_gpu_reason(void)
{
    (void)hk__device_count(); /* discovery, once */
    return gpu_count > 0 ? "" : no_gpu_reason;
}

hk_status hk_device_count(int *count)
{
    if (!count)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, "hk_device_count", "count must not be NULL");
    *count = hk__device_count();
    return hk__ok();
}

hk_status hk_gpu_count(int *count)
{
    if (!count)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, "hk_gpu_count", "count must not be NULL");
    *count = hk__gpu_device_total();
    return hk__ok();
}

const char *hk_device_kind_name(hk_device_kind kind)
{
    switch (kind) {
    case HK_DEVICE_KIND_GPU: return "gpu";
    case HK_DEVICE_KIND_CPU: return "cpu";
    }
    return "unknown";
}

hk_status hk_device_get_info(int device, hk_device_info *info)
{
    static const char fn[] = "hk_device_get_info";
    if (!info)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "info must not be NULL");
    hk_status s = hk__check_device(fn, device);
    if (s != HK_SUCCESS)
        return s;
    const hk__kind *kind = hk__kind_of(device);
    hk_device_info described;
    hk__device_props props;
    memset(&described, 0, sizeof described);
    if ((s = kind->device_describe(fn, device, &described, &props)) != HK_SUCCESS)
        return s;
    described.device = device;
    described.kind = kind->device_kind;
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
    (void)hk__device_count(); /* the default device is known after discovery */
    *device = hk__current_device();
    return hk__ok();
}

hk_status hk_device_synchronize(void)
{
    hk_status s = hk__require_device("hk_device_synchronize");
    if (s != HK_SUCCESS)
        return s;
    s = hk__kind_current()->synchronize("hk_device_synchronize");
    return s == HK_SUCCESS ? hk__ok() : s;
}
