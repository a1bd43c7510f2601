/* gpu_stream.c: the GPU kind's streams and events. */
#include "kinds/gpu_internal.h"

hk_status hk__gpu_stream_create(const char *fn, void **stream)
{
    hipStream_t vendor;
    hipError_t e = hipStreamCreate(&vendor);
    if (e != hipSuccess)
        return hk__fail_gpu(e, fn, "hipStreamCreate");
    *stream = (void *)vendor;
    return HK_SUCCESS;
}

hk_status hk__gpu_stream_destroy(const char *fn, void *stream)
{
    return hk__gpu_check(fn, hipStreamDestroy((hipStream_t)stream), "hipStreamDestroy");
}

hk_status hk__gpu_stream_synchronize(const char *fn, void *stream)
{
    return hk__gpu_check(fn, hipStreamSynchronize((hipStream_t)stream), "hipStreamSynchronize");
}

hk_status hk__gpu_stream_query(const char *fn, void *stream)
{
    hipError_t e = hipStreamQuery((hipStream_t)stream);
    if (e == hipErrorNotReady)
        return HK_ERROR_NOT_READY;
    return hk__gpu_check(fn, e, "hipStreamQuery");
}

hk_status hk__gpu_stream_wait_event(const char *fn, void *stream, void *event)
{
    return hk__gpu_check(fn, hipStreamWaitEvent((hipStream_t)stream, (hipEvent_t)event, 0), "hipStreamWaitEvent");
}

hk_status hk__gpu_stream_order(const char *fn, void *producer, void *waiter)
{
    hipEvent_t event;
    GPU_CALL(fn, hipEventCreateWithFlags(&event, hipEventDisableTiming));
    hipError_t e = hipEventRecord(event, (hipStream_t)producer);
    if (e == hipSuccess)
        e = hipStreamWaitEvent((hipStream_t)waiter, event, 0);
    /* The runtime keeps the event alive until the wait has been satisfied. */
    (void)hipEventDestroy(event);
    return hk__gpu_check(fn, e, "ordering a reused pool block after its last stream");
}

hk_status hk__gpu_event_create(const char *fn, void **event)
{
    hipEvent_t vendor;
    hipError_t e = hipEventCreate(&vendor);
    if (e != hipSuccess)
        return hk__fail_gpu(e, fn, "hipEventCreate");
    *event = (void *)vendor;
    return HK_SUCCESS;
}

hk_status hk__gpu_event_destroy(const char *fn, void *event)
{
    return hk__gpu_check(fn, hipEventDestroy((hipEvent_t)event), "hipEventDestroy");
}

hk_status hk__gpu_event_record(const char *fn, void *event, void *stream)
{
    return hk__gpu_check(fn, hipEventRecord((hipEvent_t)event, (hipStream_t)stream), "hipEventRecord");
}

hk_status hk__gpu_event_synchronize(const char *fn, void *event)
{
    return hk__gpu_check(fn, hipEventSynchronize((hipEvent_t)event), "hipEventSynchronize");
}

hk_status hk__gpu_event_query(const char *fn, void *event)
{
    hipError_t e = hipEventQuery((hipEvent_t)event);
    if (e == hipErrorNotReady)
        return HK_ERROR_NOT_READY;
    return hk__gpu_check(fn, e, "hipEventQuery");
}

hk_status hk__gpu_event_elapsed_ms(const char *fn, float *milliseconds, void *start, void *end)
{
    hipError_t e = hipEventElapsedTime(milliseconds, (hipEvent_t)start, (hipEvent_t)end);
    if (e == hipErrorNotReady)
        return HK_ERROR_NOT_READY;
    return hk__gpu_check(fn, e, "hipEventElapsedTime (were both events recorded?)");
}
