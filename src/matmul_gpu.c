/* matmul_gpu.c: the GPU backend of the matmul family (hk_matmul, hk_take): the own GEMM kernel, the
 * vendor BLAS path (operands passed as transposes where a column-major BLAS can read them, copied
 * through contiguous pool scratch where it cannot, batches as strided-batched calls), and take with
 * its RAISE check. Arguments arrive validated and laid out by src/matmul.c. */
#include <limits.h>

#include "../hip_kernels/copy/copy.h"
#include "gpu/gpu.h"
#include "gpu/vendor_blas.h"
#include "matmul_internal.h"

static hkk_launch launch_for(void *stream)
{
    int device = hk__current_device();
    return (hkk_launch){stream, hk__device_properties(device)->multiprocessor_count, device};
}

static hk_status launched(const char *fn, int error, const char *kernel)
{
    return error == hipSuccess ? HK_SUCCESS : hk__fail_gpu(error, fn, kernel);
}

int hk__matmul_coalesce(int ndim, int64_t *shape, int64_t *const *strides, int arrays)
{
    int n = 0;
    for (int k = 0; k < ndim; k++) {
        if (shape[k] == 1)
            continue;
        if (n > 0) {
            bool merge = true;
            for (int a = 0; a < arrays; a++)
                merge = merge && strides[a][k] * shape[k] == strides[a][n - 1];
            if (merge) {
                shape[n - 1] *= shape[k];
                for (int a = 0; a < arrays; a++)
                    strides[a][n - 1] = strides[a][k];
                continue;
            }
        }
        shape[n] = shape[k];
        for (int a = 0; a < arrays; a++)
            strides[a][n] = strides[a][k];
        n++;
    }
    return n;
}

/* ------------------------------------------------------------- vendor BLAS path */

/* How a column-major BLAS sees a rows x cols matrix with element strides (rs, cs): row-major (stored
 * as its transpose, leading dimension rs) or column-major (leading dimension cs), with the leading
 * dimension at least the stored row count as BLAS requires; row-major preferred when both work.
 * Returns 0 when neither does (then the matrix is copied). */
static int blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int *row_major, int64_t *ld)
{
    const int64_t min_row_ld = cols > 1 ? cols : 1, min_col_ld = rows > 1 ? rows : 1;
    if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= min_row_ld)) {
        *row_major = 1;
        *ld = rows <= 1 ? min_row_ld : rs;
        return 1;
    }
    if ((rows <= 1 || rs == 1) && (cols <= 1 || cs >= min_col_ld)) {
        *row_major = 0;
        *ld = cols <= 1 ? min_col_ld : cs;
        return 1;
    }
    return 0;
}

/* The layout of a copy between a batch of rows x cols matrices (batch dims of `p`, extents given)
 * in two stride sets. */
static void copy_layout(const hkk_matmul_args *p, const int64_t *extents, int64_t rows, int64_t cols,
                        const int64_t *src_bs, int64_t src_rs, int64_t src_cs, const int64_t *dst_bs, int64_t dst_rs,
                        int64_t dst_cs, hkk_layout *layout, size_t *count)
{
    int nd = p->batch_ndim;
    int64_t shape[HK_MAX_DIMS], src[HK_MAX_DIMS], dst[HK_MAX_DIMS];
    size_t n = (size_t)(rows * cols);
    for (int d = 0; d < nd; d++) {
        shape[d] = extents[d];
        src[d] = src_bs[d];
        dst[d] = dst_bs[d];
        n *= (size_t)extents[d];
    }
    shape[nd] = rows;
    shape[nd + 1] = cols;
    src[nd] = src_rs;
    src[nd + 1] = src_cs;
    dst[nd] = dst_rs;
    dst[nd + 1] = dst_cs;
    int64_t *const strides[2] = {src, dst};
    int ndim = hk__matmul_coalesce(nd + 2, shape, strides, 2);
    if (ndim == 0) {
        shape[0] = 1;
        src[0] = dst[0] = 0;
        ndim = 1;
    }
    layout->ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        layout->shape[d] = shape[d];
        layout->src_strides[d] = src[d];
        layout->dst_strides[d] = dst[d];
    }
    *count = n;
}

/* Copies one operand (rows x cols, strides *rs *cs, batch strides bs; 0 = repeated) into contiguous
 * row-major scratch holding each distinct matrix once, and points the operand at it. */
static hk_status operand_to_scratch(const char *fn, void *stream, const hkk_launch *l, const hkk_matmul_args *p,
                                    const void **data, int64_t rows, int64_t cols, int64_t *rs, int64_t *cs,
                                    int64_t *bs, void **scratch)
{
    size_t item = p->dtype == HK_FLOAT32 ? 4 : 8;
    int64_t extents[HKK_MATMUL_MAX_BATCH], dst_bs[HKK_MATMUL_MAX_BATCH];
    int64_t step = rows * cols;
    for (int d = p->batch_ndim - 1; d >= 0; d--) {
        extents[d] = bs[d] == 0 ? 1 : p->batch_shape[d];
        dst_bs[d] = bs[d] == 0 ? 0 : step;
        step *= extents[d];
    }
    hkk_layout layout;
    size_t count;
    copy_layout(p, extents, rows, cols, bs, *rs, *cs, dst_bs, cols, 1, &layout, &count);
    HK_TRY(hk__pool_alloc(fn, scratch, count * item, stream));
    hk_status s = launched(fn, hkk_copy_array(l, p->dtype, p->dtype, *data, *scratch, count, &layout),
                           "launching the copy kernel (an operand into contiguous scratch for the vendor BLAS)");
    if (s != HK_SUCCESS)
        return s;
    *data = *scratch;
    *rs = cols;
    *cs = 1;
    for (int d = 0; d < p->batch_ndim; d++)
        bs[d] = dst_bs[d];
    return HK_SUCCESS;
}

/* One product of the batch: the operands at the given offsets, `count` matrices strides apart. */
typedef struct vendor_call {
    int a_row, b_row, out_row;
    int64_t lda, ldb, ldc;
} vendor_call;

static hk_status vendor_batch(const char *fn, void *stream, const hkk_matmul_args *q, const vendor_call *v,
                              int64_t off_a, int64_t off_b, int64_t off_out, int64_t sa, int64_t sb, int64_t so,
                              int64_t count)
{
    size_t item = q->dtype == HK_FLOAT32 ? 4 : 8;
    const char *a = (const char *)q->a + off_a * (int64_t)item;
    const char *b = (const char *)q->b + off_b * (int64_t)item;
    char *out = (char *)q->out + off_out * (int64_t)item;
    if (v->out_row) /* out^T (N x M, column-major) = b^T a^T */
        return hk__vendor_gemm(fn, stream, q->dtype, !v->b_row, !v->a_row, q->n, q->m, q->k, b, v->ldb, sb, a, v->lda,
                               sa, out, v->ldc, so, count);
    /* out (M x N, column-major) = a b */
    return hk__vendor_gemm(fn, stream, q->dtype, v->a_row, v->b_row, q->m, q->n, q->k, a, v->lda, sa, b, v->ldb, sb,
                           out, v->ldc, so, count);
}

static hk_status vendor_products(const char *fn, void *stream, const hkk_matmul_args *q, const vendor_call *v)
{
    const int nd = q->batch_ndim;
    if (nd == 0)
        return vendor_batch(fn, stream, q, v, 0, 0, 0, 0, 0, 0, 1);
    /* The innermost batch dimension is one strided-batched call; the others loop here. */
    const int inner = nd - 1;
    const int64_t extent = q->batch_shape[inner];
    const int64_t sa = q->a_bs[inner], sb = q->b_bs[inner], so = q->o_bs[inner];
    const int64_t outer_count = q->batch_count / extent;
    for (int64_t o = 0; o < outer_count; o++) {
        int64_t off_a = 0, off_b = 0, off_out = 0, rest = o;
        for (int d = inner - 1; d >= 0; d--) {
            const int64_t c = rest % q->batch_shape[d];
            rest /= q->batch_shape[d];
            off_a += c * q->a_bs[d];
            off_b += c * q->b_bs[d];
            off_out += c * q->o_bs[d];
        }
        hk_status s;
        if (sa >= 0 && sb >= 0 && so >= 0)
            s = vendor_batch(fn, stream, q, v, off_a, off_b, off_out, sa, sb, so, extent);
        else if (sa <= 0 && sb <= 0 && so <= 0) /* walk the batch backwards: the strides turn positive */
            s = vendor_batch(fn, stream, q, v, off_a + (extent - 1) * sa, off_b + (extent - 1) * sb,
                             off_out + (extent - 1) * so, -sa, -sb, -so, extent);
        else { /* mixed directions: one matrix at a time */
            s = HK_SUCCESS;
            for (int64_t e = 0; e < extent && s == HK_SUCCESS; e++)
                s = vendor_batch(fn, stream, q, v, off_a + e * sa, off_b + e * sb, off_out + e * so, 0, 0, 0, 1);
        }
        if (s != HK_SUCCESS)
            return s;
    }
    return HK_SUCCESS;
}

static hk_status vendor_matmul(const char *fn, void *stream, const hkk_matmul_args *p)
{
    hkk_launch l = launch_for(stream);
    hkk_matmul_args q = *p;
    vendor_call v;
    void *scratch_a = NULL, *scratch_b = NULL, *scratch_out = NULL;
    hk_status s = HK_SUCCESS;
    if (!blas_layout(q.m, q.k, q.a_rs, q.a_cs, &v.a_row, &v.lda)) {
        s = operand_to_scratch(fn, stream, &l, p, &q.a, q.m, q.k, &q.a_rs, &q.a_cs, q.a_bs, &scratch_a);
        if (s == HK_SUCCESS)
            blas_layout(q.m, q.k, q.a_rs, q.a_cs, &v.a_row, &v.lda);
    }
    if (s == HK_SUCCESS && !blas_layout(q.k, q.n, q.b_rs, q.b_cs, &v.b_row, &v.ldb)) {
        s = operand_to_scratch(fn, stream, &l, p, &q.b, q.k, q.n, &q.b_rs, &q.b_cs, q.b_bs, &scratch_b);
        if (s == HK_SUCCESS)
            blas_layout(q.k, q.n, q.b_rs, q.b_cs, &v.b_row, &v.ldb);
    }
    if (s == HK_SUCCESS && !blas_layout(q.m, q.n, q.o_rs, q.o_cs, &v.out_row, &v.ldc)) {
        /* out is written into contiguous scratch, then copied into its view. */
        size_t item = p->dtype == HK_FLOAT32 ? 4 : 8;
        s = hk__pool_alloc(fn, &scratch_out, (size_t)(q.batch_count * q.m * q.n) * item, stream);
        if (s == HK_SUCCESS) {
            int64_t step = q.m * q.n;
            for (int d = q.batch_ndim - 1; d >= 0; d--) {
                q.o_bs[d] = step;
                step *= q.batch_shape[d];
            }
            q.out = scratch_out;
            q.o_rs = q.n;
            q.o_cs = 1;
            blas_layout(q.m, q.n, q.o_rs, q.o_cs, &v.out_row, &v.ldc);
        }
    }
    if (s == HK_SUCCESS)
        s = vendor_products(fn, stream, &q, &v);
    if (s == HK_SUCCESS && scratch_out) {
        hkk_layout layout;
        size_t count;
        copy_layout(p, p->batch_shape, p->m, p->n, q.o_bs, q.o_rs, q.o_cs, p->o_bs, p->o_rs, p->o_cs, &layout,
                    &count);
        s = launched(fn, hkk_copy_array(&l, p->dtype, p->dtype, scratch_out, p->out, count, &layout),
                     "launching the copy kernel (the vendor BLAS's result into out)");
    }
    /* Stream-ordered frees: the blocks are reused only after the work queued above. */
    void *scratch[3] = {scratch_a, scratch_b, scratch_out};
    for (int i = 0; i < 3; i++) {
        if (!scratch[i])
            continue;
        hk_status f = hk__pool_free(fn, scratch[i], stream, false);
        if (s == HK_SUCCESS)
            s = f;
    }
    return s;
}

hk_status hk__gpu_matmul(const char *fn, void *stream, const hkk_matmul_args *args, int use_vendor)
{
    if (use_vendor && args->k > 0)
        return vendor_matmul(fn, stream, args);
    hkk_launch l = launch_for(stream);
    return launched(fn, hkk_matmul(&l, args), "launching the matmul kernel");
}

/* ---------------------------------------------------------------------- take */

#define GPU_CALL(fn, call)                                                                                             \
    do {                                                                                                               \
        hipError_t gpu_call_error_ = (call);                                                                           \
        if (gpu_call_error_ != hipSuccess)                                                                             \
            return hk__fail_gpu(gpu_call_error_, fn, #call);                                                           \
    } while (0)

/* RAISE: the smallest C-order position of an index out of range, or UINT64_MAX; waits for the stream. */
static hk_status first_bad_index(const char *fn, void *stream, const hkk_take_args *p, unsigned long long *first)
{
    hkk_launch l = launch_for(stream);
    void *flag = NULL;
    HK_TRY(hk__pool_alloc(fn, &flag, sizeof *first, stream));
    hk_status s = HK_SUCCESS;
    hipError_t e = hipMemsetAsync(flag, 0xFF, sizeof *first, (hipStream_t)stream);
    if (e != hipSuccess)
        s = hk__fail_gpu(e, fn, "hipMemsetAsync (the out-of-range flag)");
    if (s == HK_SUCCESS)
        s = launched(fn, hkk_take_check(&l, p, (unsigned long long *)flag), "launching the index check kernel");
    if (s == HK_SUCCESS && (e = hipMemcpyAsync(first, flag, sizeof *first, hipMemcpyDeviceToHost,
                                               (hipStream_t)stream)) != hipSuccess)
        s = hk__fail_gpu(e, fn, "hipMemcpyAsync (the out-of-range flag)");
    if (s == HK_SUCCESS && (e = hipStreamSynchronize((hipStream_t)stream)) != hipSuccess)
        s = hk__fail_gpu(e, fn, "hipStreamSynchronize (waiting for the index check)");
    hk_status f = hk__pool_free(fn, flag, stream, false);
    return s == HK_SUCCESS ? f : s;
}

hk_status hk__take_check_indices(const char *fn, void *stream, const hkk_take_args *p, int axis)
{
    unsigned long long first = 0;
    HK_TRY(first_bad_index(fn, stream, p, &first));
    if (first == ULLONG_MAX)
        return HK_SUCCESS;
    /* Read the offending value itself: its offset in the indices' own layout. */
    unsigned long long rest = first;
    int64_t off = 0;
    for (int d = p->idx_ndim - 1; d >= 0; d--) {
        const unsigned long long extent = (unsigned long long)p->idx_shape[d];
        off += (int64_t)(rest % extent) * p->idx_own_strides[d];
        rest /= extent;
    }
    int64_t value = 0;
    GPU_CALL(fn, hipMemcpy(&value, p->indices + off, sizeof value, hipMemcpyDeviceToHost));
    return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                    "index %lld is out of bounds for axis %d with size %lld (element %llu of indices in C "
                    "order; mode HK_TAKE_RAISE; out was not written)",
                    (long long)value, axis, (long long)p->axis_size, first);
}

hk_status hk__gpu_take(const char *fn, void *stream, const hkk_take_args *p, int axis)
{
    if (p->mode == HK_TAKE_RAISE)
        HK_TRY(hk__take_check_indices(fn, stream, p, axis));
    hkk_launch l = launch_for(stream);
    return launched(fn, hkk_take(&l, p), "launching the take kernel");
}
