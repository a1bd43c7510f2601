/* handles.c: opaque handle values for streams, events, programs, modules and kernels. A handle
 * encodes kind, slot and generation, so a destroyed or invented handle is recognised as stale
 * without dereferencing freed memory. Also the lookup of a stream handle every call with a stream
 * makes. */
#include <pthread.h>
#include <stdlib.h>

#include "core/device.h"
#include "core/handles.h"

#define KIND_BITS 4
#define SLOT_BITS 20
#define MAX_SLOTS (1u << SLOT_BITS)

typedef struct slot {
    void *object; /* the kind's stream or event, or hipkit's program, module or kernel; NULL when free */
    int device;
    uint32_t generation;
    uint8_t kind;
} slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot *slots;
static uint32_t slot_capacity;
static uint32_t *free_list; /* stack of free slot indices */
static uint32_t free_count;

static uintptr_t encode(hk__handle_kind kind, uint32_t index, uint32_t generation)
{
    return ((uintptr_t)generation << (KIND_BITS + SLOT_BITS)) | ((uintptr_t)index << KIND_BITS) | (uintptr_t)kind;
}

static slot *decode(hk__handle_kind kind, uintptr_t handle)
{
    if ((handle & ((1u << KIND_BITS) - 1)) != (uintptr_t)kind)
        return NULL;
    uint32_t index = (uint32_t)((handle >> KIND_BITS) & (MAX_SLOTS - 1));
    uint32_t generation = (uint32_t)(handle >> (KIND_BITS + SLOT_BITS));
    if (index >= slot_capacity)
        return NULL;
    slot *s = &slots[index];
    if (!s->object || s->kind != kind || s->generation != generation)
        return NULL;
    return s;
}

static int grow(void)
{
    uint32_t capacity = slot_capacity ? slot_capacity * 2 : 64;
    if (capacity > MAX_SLOTS)
        capacity = MAX_SLOTS;
    if (capacity == slot_capacity)
        return 0;
    slot *grown = realloc(slots, capacity * sizeof *grown);
    if (!grown)
        return 0;
    slots = grown;
    uint32_t *grown_free = realloc(free_list, capacity * sizeof *grown_free);
    if (!grown_free)
        return 0;
    free_list = grown_free;
    for (uint32_t i = capacity; i > slot_capacity; i--) {
        /* Generation starts at 1 so that no valid handle has a zero top part. */
        slots[i - 1] = (slot){NULL, 0, 1, 0};
        free_list[free_count++] = i - 1;
    }
    slot_capacity = capacity;
    return 1;
}

uintptr_t hk__handle_insert(hk__handle_kind kind, void *object, int device)
{
    uintptr_t handle = 0;
    pthread_mutex_lock(&lock);
    if (free_count > 0 || grow()) {
        uint32_t index = free_list[--free_count];
        slots[index].object = object;
        slots[index].device = device;
        slots[index].kind = (uint8_t)kind;
        handle = encode(kind, index, slots[index].generation);
    }
    pthread_mutex_unlock(&lock);
    return handle;
}

bool hk__handle_lookup(hk__handle_kind kind, uintptr_t handle, void **object, int *device)
{
    pthread_mutex_lock(&lock);
    slot *s = decode(kind, handle);
    if (s) {
        *object = s->object;
        *device = s->device;
    }
    pthread_mutex_unlock(&lock);
    return s != NULL;
}

bool hk__handle_remove(hk__handle_kind kind, uintptr_t handle, void **object, int *device)
{
    pthread_mutex_lock(&lock);
    slot *s = decode(kind, handle);
    if (s) {
        *object = s->object;
        *device = s->device;
        s->object = NULL;
        s->generation = (s->generation + 1) & 0xffffffffu;
        if (s->generation == 0)
            s->generation = 1;
        free_list[free_count++] = (uint32_t)(s - slots);
    }
    pthread_mutex_unlock(&lock);
    return s != NULL;
}

hk_status hk__stale_handle(const char *function, const char *what, const void *handle)
{
    return hk__fail(HK_ERROR_INVALID_HANDLE, function,
                    "%s %p is not live (already destroyed, or never created by hipkit)", what, handle);
}

hk_status hk__wrong_device(const char *function, const char *what, int owner)
{
    return hk__fail(HK_ERROR_INVALID_ARGUMENT, function,
                    "the %s belongs to device %d but this thread's current device is %d; "
                    "call hk_device_set(%d) first",
                    what, owner, hk__current_device(), owner);
}

hk_status hk__resolve_stream(const char *function, hk_stream stream, void **vendor_stream)
{
    if (!stream) {
        *vendor_stream = NULL; /* the current device's default stream */
        return hk__require_device(function);
    }
    int device;
    if (!hk__handle_lookup(HK__HANDLE_STREAM, (uintptr_t)stream, vendor_stream, &device))
        return hk__stale_handle(function, "stream", stream);
    if (device != hk__current_device())
        return hk__wrong_device(function, "stream", device);
    return HK_SUCCESS;
}
