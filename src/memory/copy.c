/* copy.c: the public host/device copies and memset: validated, large pageable ones staged, the
 * rest handed to the kind. */
#include "core/device.h"
#include "core/handles.h"
#include "kinds/kind.h"
#include "memory/staging.h"

static hk_status copy(const char *fn, void *dst, const void *src, size_t bytes, hk__copy_kind kind, hk_stream stream,
                      bool async)
{
    void *vendor_stream = NULL;
    hk_status s = HK_SUCCESS;
    if (stream && (s = hk__resolve_stream(fn, stream, &vendor_stream)) != HK_SUCCESS)
        return s;
    if (bytes == 0)
        return hk__ok();
    if (!dst || !src)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s is NULL but %zu bytes are to be copied",
                        !dst ? "dst" : "src", bytes);
    if ((uintptr_t)dst > UINTPTR_MAX - bytes || (uintptr_t)src > UINTPTR_MAX - bytes)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%zu bytes from %p to %p run past the address space", bytes, src,
                        dst);
    if (kind == HK__DEVICE_TO_DEVICE) {
        uintptr_t d = (uintptr_t)dst, r = (uintptr_t)src;
        if (d < r + bytes && r < d + bytes)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "source [%p, +%zu) and destination [%p, +%zu) overlap; copy through a temporary", src,
                            bytes, dst, bytes);
    }
    if ((s = hk__require_device(fn)) != HK_SUCCESS)
        return s;
    if (!async && kind != HK__DEVICE_TO_DEVICE) {
        bool done = false;
        s = hk__staged_copy(fn, dst, src, bytes, kind == HK__HOST_TO_DEVICE, &done);
        if (s != HK_SUCCESS || done)
            return s == HK_SUCCESS ? hk__ok() : s;
    }
    s = hk__kind_current()->copy(fn, dst, src, bytes, kind, vendor_stream, async);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_memcpy_htod(void *dst, const void *src, size_t bytes)
{
    return copy("hk_memcpy_htod", dst, src, bytes, HK__HOST_TO_DEVICE, NULL, false);
}

hk_status hk_memcpy_dtoh(void *dst, const void *src, size_t bytes)
{
    return copy("hk_memcpy_dtoh", dst, src, bytes, HK__DEVICE_TO_HOST, NULL, false);
}

hk_status hk_memcpy_dtod(void *dst, const void *src, size_t bytes)
{
    return copy("hk_memcpy_dtod", dst, src, bytes, HK__DEVICE_TO_DEVICE, NULL, false);
}

hk_status hk_memcpy_htod_async(void *dst, const void *src, size_t bytes, hk_stream stream)
{
    return copy("hk_memcpy_htod_async", dst, src, bytes, HK__HOST_TO_DEVICE, stream, true);
}

hk_status hk_memcpy_dtoh_async(void *dst, const void *src, size_t bytes, hk_stream stream)
{
    return copy("hk_memcpy_dtoh_async", dst, src, bytes, HK__DEVICE_TO_HOST, stream, true);
}

hk_status hk_memcpy_dtod_async(void *dst, const void *src, size_t bytes, hk_stream stream)
{
    return copy("hk_memcpy_dtod_async", dst, src, bytes, HK__DEVICE_TO_DEVICE, stream, true);
}

static hk_status set(const char *fn, void *dst, int value, size_t bytes, hk_stream stream, bool async)
{
    void *vendor_stream = NULL;
    hk_status s = HK_SUCCESS;
    if (stream && (s = hk__resolve_stream(fn, stream, &vendor_stream)) != HK_SUCCESS)
        return s;
    if (bytes == 0)
        return hk__ok();
    if (!dst)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "dst is NULL but %zu bytes are to be set", bytes);
    if ((uintptr_t)dst > UINTPTR_MAX - bytes)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%zu bytes from %p run past the address space", bytes, dst);
    if ((s = hk__require_device(fn)) != HK_SUCCESS)
        return s;
    s = hk__kind_current()->memset(fn, dst, value, bytes, vendor_stream, async);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_memset(void *dst, int value, size_t bytes)
{
    return set("hk_memset", dst, value, bytes, NULL, false);
}

hk_status hk_memset_async(void *dst, int value, size_t bytes, hk_stream stream)
{
    return set("hk_memset_async", dst, value, bytes, stream, true);
}
