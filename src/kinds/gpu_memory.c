/* gpu_memory.c: the GPU kind's memory below the pools, its copies and memset, and the steps of a
 * staged pageable copy (src/memory/staging.c). */
#include "kinds/gpu_internal.h"

hk_status hk__gpu_device_alloc(const char *fn, void **ptr, size_t bytes)
{
    hipError_t e = hipMalloc(ptr, bytes);
    if (e == hipErrorOutOfMemory) {
        (void)hipGetLastError(); /* not sticky: clear it so later launch checks stay clean */
        return HK_ERROR_OUT_OF_MEMORY;
    }
    return hk__gpu_check(fn, e, "hipMalloc");
}

hk_status hk__gpu_device_release(const char *fn, void *ptr)
{
    GPU_CALL(fn, hipFree(ptr));
    return HK_SUCCESS;
}

hk_status hk__gpu_host_alloc(const char *fn, void **ptr, size_t bytes)
{
    hipError_t e = hipHostMalloc(ptr, bytes, hipHostMallocDefault);
    if (e == hipErrorOutOfMemory) {
        (void)hipGetLastError();
        return HK_ERROR_OUT_OF_MEMORY;
    }
    return hk__gpu_check(fn, e, "hipHostMalloc");
}

hk_status hk__gpu_host_release(const char *fn, void *ptr)
{
    GPU_CALL(fn, hipHostFree(ptr));
    return HK_SUCCESS;
}

hk_status hk__gpu_copy(const char *fn, void *dst, const void *src, size_t bytes, hk__copy_kind kind, void *stream,
                       bool async)
{
    static const int kinds[] = {hipMemcpyHostToDevice, hipMemcpyDeviceToHost, hipMemcpyDeviceToDevice};
    if (async)
        GPU_CALL(fn, hipMemcpyAsync(dst, src, bytes, kinds[kind], (hipStream_t)stream));
    else
        GPU_CALL(fn, hipMemcpy(dst, src, bytes, kinds[kind]));
    return HK_SUCCESS;
}

hk_status hk__gpu_memset(const char *fn, void *dst, int value, size_t bytes, void *stream, bool async)
{
    if (async)
        GPU_CALL(fn, hipMemsetAsync(dst, value, bytes, (hipStream_t)stream));
    else
        GPU_CALL(fn, hipMemset(dst, value, bytes));
    return HK_SUCCESS;
}

/* ---------------------------------------------------------------- staging */

bool hk__gpu_host_is_pinned(const void *ptr)
{
    return hk_gpu_host_is_pinned(ptr) != 0;
}

bool hk__gpu_staging_markers_create(void **markers, int count)
{
    for (int i = 0; i < count; i++) {
        hipEvent_t event;
        if (hipEventCreateWithFlags(&event, hipEventDisableTiming) != hipSuccess) {
            (void)hipGetLastError();
            hk__gpu_staging_markers_destroy(markers, i);
            return false;
        }
        markers[i] = event;
    }
    return true;
}

void hk__gpu_staging_markers_destroy(void **markers, int count)
{
    for (int i = 0; i < count; i++) {
        (void)hipEventDestroy((hipEvent_t)markers[i]);
        markers[i] = NULL;
    }
}

/* The legacy default stream: ordered like the synchronous copy a staged one stands for. */
#define STAGING_STREAM ((hipStream_t)NULL)

hk_status hk__gpu_staging_copy(const char *fn, const char *what, void *dst, const void *src, size_t bytes,
                               bool to_device, void *marker)
{
    hipError_t e =
        hipMemcpyAsync(dst, src, bytes, to_device ? hipMemcpyHostToDevice : hipMemcpyDeviceToHost, STAGING_STREAM);
    if (e == hipSuccess)
        e = hipEventRecord((hipEvent_t)marker, STAGING_STREAM);
    return hk__gpu_check(fn, e, what);
}

hk_status hk__gpu_staging_wait(const char *fn, const char *what, void *marker)
{
    hipError_t e = hipEventSynchronize((hipEvent_t)marker);
    return hk__gpu_check(fn, e, what);
}

hk_status hk__gpu_staging_finish(const char *fn, const char *what)
{
    hipError_t e = hipStreamSynchronize(STAGING_STREAM);
    return hk__gpu_check(fn, e, what);
}
