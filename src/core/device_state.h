/* device_state.h: what is known of the devices once discovery (device.c) has run (their number, kind,
 * names and launch properties, the default device) and the calling thread's current device. Kept
 * apart from device.c because the device kinds read it and device.c calls the kinds. */
#ifndef HIPKIT_CORE_DEVICE_STATE_H
#define HIPKIT_CORE_DEVICE_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "hipkit/hipkit.h"

struct hk__kind; /* kinds/kind.h */

/* What launches need to know of a device. */
typedef struct hk__device_props {
    int multiprocessor_count;
    int max_threads_per_block;
    int warp_size;
    int max_block_dim[3];
    int max_grid_dim[3];
    size_t max_shared_per_block; /* including the opt-in beyond the default where the vendor has one */
    char arch[HK_DEVICE_ARCH_MAX];
} hk__device_props;

typedef struct hk__device_entry {
    char name[HK_DEVICE_NAME_MAX];
    hk__device_props props;
    const struct hk__kind *kind; /* the table that serves it */
} hk__device_entry;

/* The calling thread's current device: the one hk_device_set chose, else the default device. */
int hk__current_device(void);
void hk__set_current_device(int device);
/* Whether the calling thread has chosen its device (hk_device_set). */
bool hk__current_device_chosen(void);

/* Discovery's result, recorded once: `count` devices described by `entries` (kept), and the device a
 * thread starts on. */
void hk__record_devices(int count, hk__device_entry *entries, int default_device);
/* The number recorded: 0 before discovery. */
int hk__recorded_device_count(void);
/* The device's name for messages ("NVIDIA H200"); "?" if unknown. */
const char *hk__device_name(int device);
/* Its launch properties; `device` must be a recorded one. */
const hk__device_props *hk__device_properties(int device);
/* The table of a recorded device; NULL for any other ordinal. */
const struct hk__kind *hk__device_kind_table(int device);

#endif
