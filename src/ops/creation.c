/* creation.c: the creation ops hk_fill (a map of one host value over any view, run by the elementwise
 * kernels) and hk_iota (1-d arange): validated here, then the current kind's table. */
#include <string.h>

#include "core/device.h"
#include "core/dtype.h"
#include "core/handles.h"
#include "kinds/kind.h"
#include "ops/elementwise.h"
#include "ops/view_check.h"

/* The stream (a stale handle is an error even when there is no work), then a device when there is work. */
static hk_status begin(const char *fn, hk_stream stream, size_t n, void **vendor_stream)
{
    *vendor_stream = NULL;
    if (stream)
        HK_TRY(hk__resolve_stream(fn, stream, vendor_stream));
    return n ? hk__require_device(fn) : HK_SUCCESS;
}

static hk_status finish(hk_status s)
{
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_fill(const hk_array *out, const void *value, hk_stream stream)
{
    static const char fn[] = "hk_fill";
    size_t n;
    uintptr_t first, last;
    HK_TRY(hk__check_view(fn, "out", out, 0, &n, &first, &last));
    if (!value)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "value must point to one host element of out's dtype (%s)",
                        hk_dtype_name(out->dtype));
    void *vendor_stream;
    HK_TRY(begin(fn, stream, n, &vendor_stream));
    if (n == 0)
        return hk__ok();
    /* One op of the elementwise family: out = a host value, over out's own walk (no element is repeated in
     * effect: a broadcast out just gets the value more than once). */
    hkk_ew_call call;
    memset(&call, 0, sizeof call);
    call.op = HKK_EW_FILL;
    call.dtype = out->dtype;
    call.n_inputs = 1;
    call.n = n;
    call.scalar_mask = 1u;
    memcpy(call.scalar[0].bits, value, hk__dtype_bytes(out->dtype));
    if (out->dtype == HK_BOOL)
        call.scalar[0].bits[0] = call.scalar[0].bits[0] != 0;
    return finish(hk__elementwise_over(fn, vendor_stream, out, &call));
}

hk_status hk_iota(const hk_array *out, const void *start, const void *step, hk_stream stream)
{
    static const char fn[] = "hk_iota";
    size_t n;
    uintptr_t first, last;
    HK_TRY(hk__check_view(fn, "out", out, 0, &n, &first, &last));
    if (out->ndim != 1)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out.ndim is %d; hk_iota writes a 1-d view", out->ndim);
    const hk_dtype t = out->dtype;
    if (t != HK_FLOAT32 && t != HK_FLOAT64 && t != HK_INT32 && t != HK_INT64)
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn,
                        "out is %s; hk_iota supports float32, float64, int32 and int64 (write another dtype with "
                        "hk_copy_array from one of them)",
                        hk_dtype_name(t));
    if (!start || !step)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s must point to one host element of out's dtype (%s)",
                        start ? "step" : "start", hk_dtype_name(t));
    if (n > 1 && out->strides[0] == 0)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out.strides[0] is 0 over %zu elements: every value would land on one element", n);
    void *vendor_stream;
    HK_TRY(begin(fn, stream, n, &vendor_stream));
    if (n == 0)
        return hk__ok();
    return finish(hk__kind_current()->iota(fn, vendor_stream, t, out->data, out->strides[0], n, start, step));
}
