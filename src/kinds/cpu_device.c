/* cpu_device.c: the CPU device: the host's processor as one device (its name, cores, memory). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/settings.h"
#include "kinds/cpu_internal.h"

int hk__cpu_device_count(char *reason, size_t reason_size)
{
    (void)reason, (void)reason_size;
    return 1;
}

/* A "key : value" line of a /proc file, the value copied into out; false if absent. */
static bool proc_value(const char *path, const char *key, char *out, size_t out_size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[512];
    bool found = false;
    const size_t key_len = strlen(key);
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, key_len) != 0)
            continue;
        const char *v = line + key_len;
        while (*v == ' ' || *v == '\t' || *v == ':')
            v++;
        snprintf(out, out_size, "%s", v);
        out[strcspn(out, "\n")] = '\0';
        found = true;
    }
    fclose(f);
    return found;
}

/* Bytes of a /proc/meminfo line ("MemTotal:  131072 kB"); 0 if absent. */
static size_t meminfo_bytes(const char *key)
{
    char value[64];
    unsigned long long kib = 0;
    if (!proc_value("/proc/meminfo", key, value, sizeof value) || sscanf(value, "%llu", &kib) != 1)
        return 0;
    return (size_t)kib * 1024;
}

hk_status hk__cpu_device_describe(const char *fn, int device, hk_device_info *info, hk__device_props *props)
{
    (void)fn;
    char model[HK_DEVICE_NAME_MAX - 8] = "";
    if (!proc_value("/proc/cpuinfo", "model name", model, sizeof model) || !model[0])
        snprintf(model, sizeof model, "host processor");
    info->device = device;
    info->kind = HK_DEVICE_KIND_CPU;
    snprintf(info->name, sizeof info->name, "CPU: %s", model);
    snprintf(info->arch, sizeof info->arch, "host");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    info->multiprocessor_count = cores > 0 ? (int)cores : 1;
    info->warp_size = 32; /* user kernels' warps: 32 lanes, emulated (hip_kernels/cpu/user_kernel.cpp) */
    info->max_threads_per_block = 1024;
    info->total_memory = meminfo_bytes("MemTotal");
    info->shared_memory_per_block = 64 * 1024;
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    info->l2_cache_size = l2 > 0 ? (size_t)l2 : 0;
    info->compute_major = 0;
    info->compute_minor = 0;
    info->pci_bus_id = -1;

    props->multiprocessor_count = hk__settings_cpu_threads();
    props->max_threads_per_block = 1024;
    props->warp_size = 32;
    props->max_block_dim[0] = props->max_block_dim[1] = props->max_block_dim[2] = 1024;
    props->max_grid_dim[0] = 2147483647;
    props->max_grid_dim[1] = props->max_grid_dim[2] = 65535;
    props->max_shared_per_block = 64 * 1024;
    snprintf(props->arch, sizeof props->arch, "host");
    return HK_SUCCESS;
}

/* The CPU device has no runtime of its own: hipkit's version stands for it. */
hk_status hk__cpu_runtime_version(const char *fn, int *version)
{
    (void)fn;
    *version = HK_VERSION_MAJOR * 10000 + HK_VERSION_MINOR * 100 + HK_VERSION_PATCH;
    return HK_SUCCESS;
}

/* ... and no driver. */
hk_status hk__cpu_driver_version(const char *fn, int *version)
{
    (void)fn;
    *version = 0;
    return HK_SUCCESS;
}

hk_status hk__cpu_activate(const char *fn, int device)
{
    (void)fn, (void)device;
    return HK_SUCCESS;
}

hk_status hk__cpu_free_memory(const char *fn, size_t *free_bytes)
{
    (void)fn;
    *free_bytes = meminfo_bytes("MemAvailable");
    return HK_SUCCESS;
}
