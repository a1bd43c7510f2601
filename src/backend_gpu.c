/* backend_gpu.c: the GPU device kind: vendor memory, copies, stream ordering
 * and the built-in kernels of hip_kernels/, each call's status checked. */
#include "../hip_kernels/copy/copy.h"
#include "../hip_kernels/elementwise/elementwise.h"
#include "../hip_kernels/kernels.h"
#include "../hip_kernels/random/random.h"
#include "../hip_kernels/reduce/reduce.h"
#include "backend.h"
#include "gpu/gpu.h"
#include "scan_sort_internal.h"
#include "matmul_internal.h" /* matmul family (issue 3) */

#define GPU_CALL(fn, call)                                                                                             \
    do {                                                                                                               \
        hipError_t gpu_call_error_ = (call);                                                                           \
        if (gpu_call_error_ != hipSuccess)                                                                             \
            return hk__fail_gpu(gpu_call_error_, fn, #call);                                                           \
    } while (0)

static hk_status device_alloc(const char *fn, void **ptr, size_t bytes)
{
    hipError_t e = hipMalloc(ptr, bytes);
    if (e == hipErrorOutOfMemory) {
        (void)hipGetLastError(); /* not sticky: clear it so later launch checks stay clean */
        return HK_ERROR_OUT_OF_MEMORY;
    }
    return e == hipSuccess ? HK_SUCCESS : hk__fail_gpu(e, fn, "hipMalloc");
}

static hk_status device_release(const char *fn, void *ptr)
{
    GPU_CALL(fn, hipFree(ptr));
    return HK_SUCCESS;
}

static hk_status host_alloc(const char *fn, void **ptr, size_t bytes)
{
    hipError_t e = hipHostMalloc(ptr, bytes, hipHostMallocDefault);
    if (e == hipErrorOutOfMemory) {
        (void)hipGetLastError();
        return HK_ERROR_OUT_OF_MEMORY;
    }
    return e == hipSuccess ? HK_SUCCESS : hk__fail_gpu(e, fn, "hipHostMalloc");
}

static hk_status host_release(const char *fn, void *ptr)
{
    GPU_CALL(fn, hipHostFree(ptr));
    return HK_SUCCESS;
}

static hk_status free_memory(const char *fn, size_t *free_bytes)
{
    size_t total;
    GPU_CALL(fn, hipMemGetInfo(free_bytes, &total));
    return HK_SUCCESS;
}

static hk_status synchronize(const char *fn)
{
    GPU_CALL(fn, hipDeviceSynchronize());
    return HK_SUCCESS;
}

static hk_status stream_order(const char *fn, void *producer, void *waiter)
{
    hipEvent_t event;
    GPU_CALL(fn, hipEventCreateWithFlags(&event, hipEventDisableTiming));
    hipError_t e = hipEventRecord(event, (hipStream_t)producer);
    if (e == hipSuccess)
        e = hipStreamWaitEvent((hipStream_t)waiter, event, 0);
    /* The runtime keeps the event alive until the wait has been satisfied. */
    (void)hipEventDestroy(event);
    if (e != hipSuccess)
        return hk__fail_gpu(e, fn, "ordering a reused pool block after its last stream");
    return HK_SUCCESS;
}

static hk_status copy(const char *fn, void *dst, const void *src, size_t bytes, hk__copy_kind kind, void *stream,
                      bool async)
{
    static const int kinds[] = {hipMemcpyHostToDevice, hipMemcpyDeviceToHost, hipMemcpyDeviceToDevice};
    if (async)
        GPU_CALL(fn, hipMemcpyAsync(dst, src, bytes, kinds[kind], (hipStream_t)stream));
    else
        GPU_CALL(fn, hipMemcpy(dst, src, bytes, kinds[kind]));
    return HK_SUCCESS;
}

static hk_status set(const char *fn, void *dst, int value, size_t bytes, void *stream, bool async)
{
    if (async)
        GPU_CALL(fn, hipMemsetAsync(dst, value, bytes, (hipStream_t)stream));
    else
        GPU_CALL(fn, hipMemset(dst, value, bytes));
    return HK_SUCCESS;
}

/* ------------------------------------------------------------------ kernels */

static hkk_launch launch_for(void *stream)
{
    int device = hk__current_device();
    return (hkk_launch){stream, hk__device_properties(device)->multiprocessor_count, device};
}

static hk_status launched(const char *fn, int error, const char *kernel)
{
    return error == hipSuccess ? HK_SUCCESS : hk__fail_gpu(error, fn, kernel);
}

static hk_status fill(const char *fn, void *stream, hk_dtype dtype, void *dst, size_t n, const void *value)
{
    hkk_launch l = launch_for(stream);
    return launched(fn, hkk_fill(&l, dtype, dst, n, value), "launching the fill kernel");
}

static hk_status iota(const char *fn, void *stream, hk_dtype dtype, void *dst, size_t n, const void *start,
                      const void *step)
{
    hkk_launch l = launch_for(stream);
    return launched(fn, hkk_iota(&l, dtype, dst, n, start, step), "launching the iota kernel");
}

static hk_status axpy(const char *fn, void *stream, hk_dtype dtype, size_t n, const void *alpha, const void *x, void *y)
{
    hkk_launch l = launch_for(stream);
    return launched(fn, hkk_axpy(&l, dtype, n, alpha, x, y), "launching the axpy kernel");
}

static hk_status binary(const char *fn, void *stream, hk_binary_op op, hk_dtype dtype, size_t n, const void *a,
                        const void *b, void *out)
{
    hkk_launch l = launch_for(stream);
    return launched(fn, hkk_binary(&l, op, dtype, n, a, b, out), "launching the elementwise kernel");
}

static hk_status sum(const char *fn, void *stream, hk_dtype dtype, size_t n, const void *x, void *result)
{
    hkk_launch l = launch_for(stream);
    size_t scratch_bytes = hkk_sum_scratch_bytes(&l, dtype, n);
    void *scratch = NULL;
    if (scratch_bytes) {
        hk_status s = hk__pool_alloc(fn, &scratch, scratch_bytes, stream);
        if (s != HK_SUCCESS)
            return s;
    }
    hk_status s = launched(fn, hkk_sum(&l, dtype, n, x, scratch, result), "launching the sum kernels");
    /* Stream-ordered: the scratch is reused only after the kernels on this stream. */
    if (scratch) {
        hk_status f = hk__pool_free(fn, scratch, stream, false);
        if (s == HK_SUCCESS)
            s = f;
    }
    return s;
}

static hk_status random_numbers(const char *fn, void *stream, hk_dtype dtype, int normal, void *dst, size_t n,
                                uint64_t seed, uint64_t offset, double a, double b)
{
    hkk_launch l = launch_for(stream);
    return launched(fn, hkk_random(&l, dtype, normal, dst, n, seed, offset, a, b), "launching the random kernel");
}

static hk_status copy_array(const char *fn, void *stream, hk_dtype src_dtype, hk_dtype dst_dtype, const void *src,
                            void *dst, size_t n, const hkk_layout *layout)
{
    hkk_launch l = launch_for(stream);
    return launched(fn, hkk_copy_array(&l, src_dtype, dst_dtype, src, dst, n, layout), "launching the copy kernel");
}

/* elementwise (issue 3) */
static hk_status elementwise(const char *fn, void *stream, const hkk_ew_call *call)
{
    hkk_launch l = launch_for(stream);
    return launched(fn, hkk_elementwise(&l, call), "launching the elementwise kernel");
}

/* ---- reduce (issue 3) */
static hk_status reduce(const char *fn, void *stream, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out,
                        const hkk_reduce_layout *layout, int ddof)
{
    hkk_launch l = launch_for(stream);
    size_t scratch_bytes = hkk_reduce_scratch_bytes(&l, op, in_dtype, in, layout);
    void *scratch = NULL;
    if (scratch_bytes)
        HK_TRY(hk__pool_alloc(fn, &scratch, scratch_bytes, stream));
    hk_status s = launched(fn, hkk_reduce(&l, op, in_dtype, in, out, scratch, layout, ddof),
                           "launching the reduction kernels");
    /* Stream-ordered: the scratch is reused only after the kernels on this stream. */
    if (scratch) {
        hk_status f = hk__pool_free(fn, scratch, stream, false);
        if (s == HK_SUCCESS)
            s = f;
    }
    return s;
}

/* ---- put (issue 5): the indices are checked (and the stream waited for) before anything is written */
static hk_status put(const char *fn, void *stream, const hkk_put_args *args, const hkk_take_args *check, int axis)
{
    if (check)
        HK_TRY(hk__take_check_indices(fn, stream, check, axis));
    hkk_launch l = launch_for(stream);
    return launched(fn, hkk_put(&l, args), "launching the put kernel");
}

static const hk__backend gpu_backend = {
    device_alloc, device_release, host_alloc, host_release, free_memory, synchronize, stream_order,   copy,
    set,          fill,           iota,       axpy,         binary,      sum,         random_numbers, copy_array,
    /* elementwise (issue 3) */
    elementwise,
    /* scan_sort (issue 3) */
    hk__gpu_scan, hk__gpu_sort,
    /* matmul family (issue 3) */
    hk__gpu_matmul, hk__gpu_take,
    /* ---- reduce (issue 3) */
    reduce,
    /* ---- put (issue 5) */
    put,
};

const hk__backend *hk__backend_current(void)
{
    return &gpu_backend;
}
