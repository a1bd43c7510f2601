/* stream.c: streams and events behind slot/generation handles; the vendor work is the kind's. */
#include "core/device.h"
#include "core/handles.h"
#include "kinds/kind.h"
#include "memory/pool.h"

/* The kind's event of a live handle, and the table of the device it was created on. */
static hk_status resolve_event(const char *function, hk_event event, void **vendor_event, const hk__kind **kind)
{
    if (!event)
        return hk__fail(HK_ERROR_INVALID_HANDLE, function, "event is NULL");
    int device;
    if (!hk__handle_lookup(HK__HANDLE_EVENT, (uintptr_t)event, vendor_event, &device))
        return hk__stale_handle(function, "event", event);
    *kind = hk__kind_of(device);
    return HK_SUCCESS;
}

/* A stream waits only for events of its own kind of device (a GPU's for a GPU, the CPU device's for
 * the CPU device). */
static hk_status same_kind(const char *function, const hk__kind *event_kind, const char *what)
{
    if (event_kind == hk__kind_current())
        return HK_SUCCESS;
    return hk__fail(HK_ERROR_INVALID_ARGUMENT, function,
                    "the event belongs to a %s device and %s to a %s device (device %d); order work between a GPU "
                    "and the CPU device with hk_stream_synchronize or hk_event_synchronize on the host",
                    hk_device_kind_name(event_kind->device_kind), what,
                    hk_device_kind_name(hk__kind_current()->device_kind), hk__current_device());
}

/* ----------------------------------------------------------------- streams */

hk_status hk_stream_create(hk_stream *stream)
{
    static const char fn[] = "hk_stream_create";
    if (!stream)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "stream must not be NULL");
    hk_status s = hk__require_device(fn);
    if (s != HK_SUCCESS)
        return s;
    const hk__kind *kind = hk__kind_current();
    void *vendor;
    if ((s = kind->stream_create(fn, &vendor)) != HK_SUCCESS)
        return s;
    uintptr_t handle = hk__handle_insert(HK__HANDLE_STREAM, vendor, hk__current_device());
    if (!handle) {
        (void)kind->stream_destroy(fn, vendor);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "no room for another stream handle (host memory)");
    }
    *stream = (hk_stream)handle;
    return hk__ok();
}

hk_status hk_stream_destroy(hk_stream stream)
{
    static const char fn[] = "hk_stream_destroy";
    if (!stream)
        return hk__fail(HK_ERROR_INVALID_HANDLE, fn, "the default stream (NULL) cannot be destroyed");
    void *vendor;
    int device;
    if (!hk__handle_remove(HK__HANDLE_STREAM, (uintptr_t)stream, &vendor, &device))
        return hk__stale_handle(fn, "stream", stream);
    const hk__kind *kind = hk__kind_of(device);
    int previous = hk__current_device();
    hk_status s = HK_SUCCESS;
    if (device != previous && (s = hk__activate_device(fn, device)) != HK_SUCCESS)
        return s;
    hk__first_failure_begin();
    hk_status synchronized = kind->stream_synchronize(fn, vendor);
    /* Pending work is done: blocks cached for this stream may now go to anyone. */
    hk__pool_forget_stream(vendor);
    hk_status destroyed = kind->stream_destroy(fn, vendor);
    if (device != previous)
        s = hk__activate_device(fn, previous);
    hk__first_failure_end();
    if (synchronized != HK_SUCCESS)
        return synchronized;
    if (destroyed != HK_SUCCESS)
        return destroyed;
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_stream_synchronize(hk_stream stream)
{
    static const char fn[] = "hk_stream_synchronize";
    void *vendor;
    hk_status s = hk__resolve_stream(fn, stream, &vendor);
    if (s != HK_SUCCESS)
        return s;
    s = hk__kind_current()->stream_synchronize(fn, vendor);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_stream_query(hk_stream stream)
{
    static const char fn[] = "hk_stream_query";
    void *vendor;
    hk_status s = hk__resolve_stream(fn, stream, &vendor);
    if (s != HK_SUCCESS)
        return s;
    s = hk__kind_current()->stream_query(fn, vendor);
    if (s == HK_ERROR_NOT_READY)
        return hk__not_ready();
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_stream_wait_event(hk_stream stream, hk_event event)
{
    static const char fn[] = "hk_stream_wait_event";
    void *vendor_event;
    const hk__kind *event_kind;
    hk_status s = resolve_event(fn, event, &vendor_event, &event_kind);
    if (s != HK_SUCCESS)
        return s;
    void *vendor;
    if ((s = hk__resolve_stream(fn, stream, &vendor)) != HK_SUCCESS)
        return s;
    HK_TRY(same_kind(fn, event_kind, "the stream"));
    s = hk__kind_current()->stream_wait_event(fn, vendor, vendor_event);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_stream_get_device(hk_stream stream, int *device)
{
    static const char fn[] = "hk_stream_get_device";
    if (!device)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "device must not be NULL");
    if (!stream) {
        hk_status s = hk__require_device(fn);
        if (s != HK_SUCCESS)
            return s;
        *device = hk__current_device();
        return hk__ok();
    }
    void *object;
    if (!hk__handle_lookup(HK__HANDLE_STREAM, (uintptr_t)stream, &object, device))
        return hk__stale_handle(fn, "stream", stream);
    return hk__ok();
}

/* ------------------------------------------------------------------ events */

hk_status hk_event_create(hk_event *event)
{
    static const char fn[] = "hk_event_create";
    if (!event)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "event must not be NULL");
    hk_status s = hk__require_device(fn);
    if (s != HK_SUCCESS)
        return s;
    const hk__kind *kind = hk__kind_current();
    void *vendor;
    if ((s = kind->event_create(fn, &vendor)) != HK_SUCCESS)
        return s;
    uintptr_t handle = hk__handle_insert(HK__HANDLE_EVENT, vendor, hk__current_device());
    if (!handle) {
        (void)kind->event_destroy(fn, vendor);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "no room for another event handle (host memory)");
    }
    *event = (hk_event)handle;
    return hk__ok();
}

hk_status hk_event_destroy(hk_event event)
{
    static const char fn[] = "hk_event_destroy";
    if (!event)
        return hk__fail(HK_ERROR_INVALID_HANDLE, fn, "event is NULL");
    void *object;
    int device;
    if (!hk__handle_remove(HK__HANDLE_EVENT, (uintptr_t)event, &object, &device))
        return hk__stale_handle(fn, "event", event);
    hk_status s = hk__kind_of(device)->event_destroy(fn, object);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_event_record(hk_event event, hk_stream stream)
{
    static const char fn[] = "hk_event_record";
    if (!event)
        return hk__fail(HK_ERROR_INVALID_HANDLE, fn, "event is NULL");
    void *object;
    int device;
    if (!hk__handle_lookup(HK__HANDLE_EVENT, (uintptr_t)event, &object, &device))
        return hk__stale_handle(fn, "event", event);
    void *vendor_stream;
    hk_status s = hk__resolve_stream(fn, stream, &vendor_stream);
    if (s != HK_SUCCESS)
        return s;
    if (device != hk__current_device())
        return hk__wrong_device(fn, "event", device);
    s = hk__kind_current()->event_record(fn, object, vendor_stream);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_event_synchronize(hk_event event)
{
    static const char fn[] = "hk_event_synchronize";
    void *vendor;
    const hk__kind *kind;
    hk_status s = resolve_event(fn, event, &vendor, &kind);
    if (s != HK_SUCCESS)
        return s;
    s = kind->event_synchronize(fn, vendor);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_event_query(hk_event event)
{
    static const char fn[] = "hk_event_query";
    void *vendor;
    const hk__kind *kind;
    hk_status s = resolve_event(fn, event, &vendor, &kind);
    if (s != HK_SUCCESS)
        return s;
    s = kind->event_query(fn, vendor);
    if (s == HK_ERROR_NOT_READY)
        return hk__not_ready();
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_event_elapsed_ms(float *milliseconds, hk_event start, hk_event end)
{
    static const char fn[] = "hk_event_elapsed_ms";
    if (!milliseconds)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "milliseconds must not be NULL");
    void *a, *b;
    const hk__kind *kind_a, *kind_b;
    hk_status s = resolve_event(fn, start, &a, &kind_a);
    if (s != HK_SUCCESS || (s = resolve_event(fn, end, &b, &kind_b)) != HK_SUCCESS)
        return s;
    if (kind_a != kind_b)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "start belongs to a %s device and end to a %s device: time two events of one kind",
                        hk_device_kind_name(kind_a->device_kind), hk_device_kind_name(kind_b->device_kind));
    s = kind_a->event_elapsed_ms(fn, milliseconds, a, b);
    if (s == HK_ERROR_NOT_READY)
        return hk__fail(HK_ERROR_NOT_READY, fn, "an event has not completed yet; hk_event_synchronize(end) first");
    return s == HK_SUCCESS ? hk__ok() : s;
}
