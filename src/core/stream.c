/* stream.c: streams and events, behind slot/generation handles. */
#include "gpu/gpu.h"
#include "core/internal.h"

static hk_status stale(const char *function, const char *what, const void *handle)
{
    return hk__fail(HK_ERROR_INVALID_HANDLE, function,
                    "%s %p is not live (already destroyed, or never created by hipkit)", what, handle);
}

static hk_status wrong_device(const char *function, const char *what, int owner)
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
        return hk__require_gpu(function);
    }
    int device;
    if (!hk__handle_lookup(HK__HANDLE_STREAM, (uintptr_t)stream, vendor_stream, &device))
        return stale(function, "stream", stream);
    if (device != hk__current_device())
        return wrong_device(function, "stream", device);
    return HK_SUCCESS;
}

static hk_status resolve_event(const char *function, hk_event event, hipEvent_t *vendor_event)
{
    if (!event)
        return hk__fail(HK_ERROR_INVALID_HANDLE, function, "event is NULL");
    void *object;
    int device;
    if (!hk__handle_lookup(HK__HANDLE_EVENT, (uintptr_t)event, &object, &device))
        return stale(function, "event", event);
    *vendor_event = (hipEvent_t)object;
    return HK_SUCCESS;
}

/* ----------------------------------------------------------------- streams */

hk_status hk_stream_create(hk_stream *stream)
{
    static const char fn[] = "hk_stream_create";
    if (!stream)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "stream must not be NULL");
    hk_status s = hk__require_gpu(fn);
    if (s != HK_SUCCESS)
        return s;
    hipStream_t vendor;
    hipError_t e = hipStreamCreate(&vendor);
    if (e != hipSuccess)
        return hk__fail_gpu(e, fn, "hipStreamCreate");
    uintptr_t handle = hk__handle_insert(HK__HANDLE_STREAM, (void *)vendor, hk__current_device());
    if (!handle) {
        (void)hipStreamDestroy(vendor);
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
    void *object;
    int device;
    if (!hk__handle_remove(HK__HANDLE_STREAM, (uintptr_t)stream, &object, &device))
        return stale(fn, "stream", stream);
    hipStream_t vendor = (hipStream_t)object;
    int previous = hk__current_device();
    hk_status s = HK_SUCCESS;
    if (device != previous && (s = hk__activate_device(fn, device)) != HK_SUCCESS)
        return s;
    hipError_t e = hipStreamSynchronize(vendor);
    /* Pending work is done: blocks cached for this stream may now go to anyone. */
    hk__pool_forget_stream(object);
    hipError_t e2 = hipStreamDestroy(vendor);
    if (device != previous)
        s = hk__activate_device(fn, previous);
    if (e != hipSuccess)
        return hk__fail_gpu(e, fn, "hipStreamSynchronize");
    if (e2 != hipSuccess)
        return hk__fail_gpu(e2, fn, "hipStreamDestroy");
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_stream_synchronize(hk_stream stream)
{
    static const char fn[] = "hk_stream_synchronize";
    void *vendor;
    hk_status s = hk__resolve_stream(fn, stream, &vendor);
    if (s != HK_SUCCESS)
        return s;
    hipError_t e = hipStreamSynchronize((hipStream_t)vendor);
    return e == hipSuccess ? hk__ok() : hk__fail_gpu(e, fn, "hipStreamSynchronize");
}

hk_status hk_stream_query(hk_stream stream)
{
    static const char fn[] = "hk_stream_query";
    void *vendor;
    hk_status s = hk__resolve_stream(fn, stream, &vendor);
    if (s != HK_SUCCESS)
        return s;
    hipError_t e = hipStreamQuery((hipStream_t)vendor);
    if (e == hipErrorNotReady)
        return hk__not_ready();
    return e == hipSuccess ? hk__ok() : hk__fail_gpu(e, fn, "hipStreamQuery");
}

hk_status hk_stream_wait_event(hk_stream stream, hk_event event)
{
    static const char fn[] = "hk_stream_wait_event";
    hipEvent_t vendor_event;
    hk_status s = resolve_event(fn, event, &vendor_event);
    if (s != HK_SUCCESS)
        return s;
    void *vendor;
    if ((s = hk__resolve_stream(fn, stream, &vendor)) != HK_SUCCESS)
        return s;
    hipError_t e = hipStreamWaitEvent((hipStream_t)vendor, vendor_event, 0);
    return e == hipSuccess ? hk__ok() : hk__fail_gpu(e, fn, "hipStreamWaitEvent");
}

hk_status hk_stream_get_device(hk_stream stream, int *device)
{
    static const char fn[] = "hk_stream_get_device";
    if (!device)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "device must not be NULL");
    if (!stream) {
        hk_status s = hk__require_gpu(fn);
        if (s != HK_SUCCESS)
            return s;
        *device = hk__current_device();
        return hk__ok();
    }
    void *object;
    if (!hk__handle_lookup(HK__HANDLE_STREAM, (uintptr_t)stream, &object, device))
        return stale(fn, "stream", stream);
    return hk__ok();
}

/* ------------------------------------------------------------------ events */

hk_status hk_event_create(hk_event *event)
{
    static const char fn[] = "hk_event_create";
    if (!event)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "event must not be NULL");
    hk_status s = hk__require_gpu(fn);
    if (s != HK_SUCCESS)
        return s;
    hipEvent_t vendor;
    hipError_t e = hipEventCreate(&vendor);
    if (e != hipSuccess)
        return hk__fail_gpu(e, fn, "hipEventCreate");
    uintptr_t handle = hk__handle_insert(HK__HANDLE_EVENT, (void *)vendor, hk__current_device());
    if (!handle) {
        (void)hipEventDestroy(vendor);
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
        return stale(fn, "event", event);
    hipError_t e = hipEventDestroy((hipEvent_t)object);
    return e == hipSuccess ? hk__ok() : hk__fail_gpu(e, fn, "hipEventDestroy");
}

hk_status hk_event_record(hk_event event, hk_stream stream)
{
    static const char fn[] = "hk_event_record";
    if (!event)
        return hk__fail(HK_ERROR_INVALID_HANDLE, fn, "event is NULL");
    void *object;
    int device;
    if (!hk__handle_lookup(HK__HANDLE_EVENT, (uintptr_t)event, &object, &device))
        return stale(fn, "event", event);
    void *vendor_stream;
    hk_status s = hk__resolve_stream(fn, stream, &vendor_stream);
    if (s != HK_SUCCESS)
        return s;
    if (device != hk__current_device())
        return wrong_device(fn, "event", device);
    hipError_t e = hipEventRecord((hipEvent_t)object, (hipStream_t)vendor_stream);
    return e == hipSuccess ? hk__ok() : hk__fail_gpu(e, fn, "hipEventRecord");
}

hk_status hk_event_synchronize(hk_event event)
{
    static const char fn[] = "hk_event_synchronize";
    hipEvent_t vendor;
    hk_status s = resolve_event(fn, event, &vendor);
    if (s != HK_SUCCESS)
        return s;
    hipError_t e = hipEventSynchronize(vendor);
    return e == hipSuccess ? hk__ok() : hk__fail_gpu(e, fn, "hipEventSynchronize");
}

hk_status hk_event_query(hk_event event)
{
    static const char fn[] = "hk_event_query";
    hipEvent_t vendor;
    hk_status s = resolve_event(fn, event, &vendor);
    if (s != HK_SUCCESS)
        return s;
    hipError_t e = hipEventQuery(vendor);
    if (e == hipErrorNotReady)
        return hk__not_ready();
    return e == hipSuccess ? hk__ok() : hk__fail_gpu(e, fn, "hipEventQuery");
}

hk_status hk_event_elapsed_ms(float *milliseconds, hk_event start, hk_event end)
{
    static const char fn[] = "hk_event_elapsed_ms";
    if (!milliseconds)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "milliseconds must not be NULL");
    hipEvent_t a, b;
    hk_status s = resolve_event(fn, start, &a);
    if (s != HK_SUCCESS || (s = resolve_event(fn, end, &b)) != HK_SUCCESS)
        return s;
    hipError_t e = hipEventElapsedTime(milliseconds, a, b);
    if (e == hipErrorNotReady)
        return hk__fail(HK_ERROR_NOT_READY, fn, "an event has not completed yet; hk_event_synchronize(end) first");
    if (e != hipSuccess)
        return hk__fail_gpu(e, fn, "hipEventElapsedTime (were both events recorded?)");
    return hk__ok();
}
