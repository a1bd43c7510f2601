/* device_state.c: the recorded devices, the default device and the calling thread's current device. */
#include <stdatomic.h>

#include "core/device_state.h"

static _Thread_local int current_device = -1; /* -1: not chosen, the default device */
static hk__device_entry *devices;
static int default_device;
static atomic_int device_count; /* published after `devices`, for threads that did not run discovery */

int hk__current_device(void)
{
    return current_device >= 0 ? current_device : default_device;
}

void hk__set_current_device(int device)
{
    current_device = device;
}

bool hk__current_device_chosen(void)
{
    return current_device >= 0;
}

void hk__record_devices(int count, hk__device_entry *entries, int default_ordinal)
{
    devices = entries;
    default_device = default_ordinal;
    atomic_store_explicit(&device_count, count, memory_order_release);
}

int hk__recorded_device_count(void)
{
    return atomic_load_explicit(&device_count, memory_order_acquire);
}

const char *hk__device_name(int device)
{
    if (device < 0 || device >= hk__recorded_device_count())
        return "?";
    return devices[device].name;
}

const hk__device_props *hk__device_properties(int device)
{
    return &devices[device].props;
}

const struct hk__kind *hk__device_kind_table(int device)
{
    if (device < 0 || device >= hk__recorded_device_count())
        return NULL;
    return devices[device].kind;
}
