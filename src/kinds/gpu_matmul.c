/* gpu_matmul.c: the GPU kind's matmul family (hip_kernels/matmul/, hip_kernels/index/): hk_matmul by the own
 * GEMM kernel or the vendor BLAS (operands passed as transposes where a column-major BLAS can read
 * them, copied through contiguous scratch where it cannot, batches as strided-batched calls), and
 * hk_take and hk_put with their RAISE check of the indices. */
#include <limits.h>
#include <string.h>

#include "../../hip_kernels/copy/copy.h"
#include "../../hip_kernels/index/index.h"
#include "../../hip_kernels/matmul/matmul.h"
#include "core/layout.h"
#include "gpu/vendor_blas.h"
#include "kinds/gpu_internal.h"

/* The scratch buffers of the vendor path, by position in its hk__scratch_list. */
enum { SCRATCH_A, SCRATCH_B, SCRATCH_OUT, SCRATCH_WORKSPACE };

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
    int64_t shape[HKK_MAX_DIMS], src[HKK_MAX_DIMS], dst[HKK_MAX_DIMS];
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
    int ndim = hk__coalesce_dims(nd + 2, shape, strides, 2);
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

/* Elements of one operand's contiguous copy: each distinct matrix once (a repeated batch dimension,
 * stride 0, counts once). */
static int64_t distinct_elements(const hkk_matmul_args *p, int64_t rows, int64_t cols, const int64_t *bs)
{
    int64_t count = rows * cols;
    for (int d = 0; d < p->batch_ndim; d++)
        count *= bs[d] == 0 ? 1 : p->batch_shape[d];
    return count;
}

/* Copies one operand (rows x cols, strides *rs *cs, batch strides bs; 0 = repeated) into the
 * contiguous row-major `scratch` holding each distinct matrix once, and points the operand at it. */
static hk_status operand_to_scratch(const char *fn, const hkk_launch *l, const hkk_matmul_args *p, const void **data,
                                    int64_t rows, int64_t cols, int64_t *rs, int64_t *cs, int64_t *bs, void *scratch)
{
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
    HK_TRY(hk__gpu_check(fn, hkk_copy_array(l, p->dtype, p->dtype, *data, scratch, count, &layout),
                         "launching the copy kernel (an operand into contiguous scratch for the vendor BLAS)"));
    *data = scratch;
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
    void *workspace;
    size_t workspace_bytes;
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
        return hk__vendor_gemm(fn, stream, v->workspace, v->workspace_bytes, q->dtype, !v->b_row, !v->a_row, q->n, q->m,
                               q->k, b, v->ldb, sb, a, v->lda, sa, out, v->ldc, so, count);
    /* out (M x N, column-major) = a b */
    return hk__vendor_gemm(fn, stream, v->workspace, v->workspace_bytes, q->dtype, v->a_row, v->b_row, q->m, q->n, q->k,
                           a, v->lda, sa, b, v->ldb, sb, out, v->ldc, so, count);
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

void hk__gpu_matmul_scratch(const hkk_matmul_args *p, int use_vendor, hk__scratch_list *need)
{
    memset(need, 0, sizeof *need);
    if (!use_vendor || p->k == 0) /* k == 0 runs the own kernel, which writes the zeros */
        return;
    const size_t item = p->dtype == HK_FLOAT32 ? 4 : 8;
    int row_major;
    int64_t ld;
    if (!blas_layout(p->m, p->k, p->a_rs, p->a_cs, &row_major, &ld))
        need->bytes[SCRATCH_A] = (size_t)distinct_elements(p, p->m, p->k, p->a_bs) * item;
    if (!blas_layout(p->k, p->n, p->b_rs, p->b_cs, &row_major, &ld))
        need->bytes[SCRATCH_B] = (size_t)distinct_elements(p, p->k, p->n, p->b_bs) * item;
    if (!blas_layout(p->m, p->n, p->o_rs, p->o_cs, &row_major, &ld))
        need->bytes[SCRATCH_OUT] = (size_t)(p->batch_count * p->m * p->n) * item;
    /* Without a workspace (the pool exhausted) the vendor picks algorithms that need none. */
    need->bytes[SCRATCH_WORKSPACE] = hk__vendor_blas_workspace_bytes();
    need->optional[SCRATCH_WORKSPACE] = true;
}

static hk_status vendor_matmul(const char *fn, void *stream, const hkk_matmul_args *p, const hk__scratch_list *scratch)
{
    hkk_launch l = hk__gpu_launch(stream);
    hkk_matmul_args q = *p;
    vendor_call v;
    v.workspace = scratch->ptr[SCRATCH_WORKSPACE];
    v.workspace_bytes = v.workspace ? scratch->bytes[SCRATCH_WORKSPACE] : 0;
    hk_status s = HK_SUCCESS;
    if (!blas_layout(q.m, q.k, q.a_rs, q.a_cs, &v.a_row, &v.lda)) {
        s = operand_to_scratch(fn, &l, p, &q.a, q.m, q.k, &q.a_rs, &q.a_cs, q.a_bs, scratch->ptr[SCRATCH_A]);
        if (s == HK_SUCCESS)
            blas_layout(q.m, q.k, q.a_rs, q.a_cs, &v.a_row, &v.lda);
    }
    if (s == HK_SUCCESS && !blas_layout(q.k, q.n, q.b_rs, q.b_cs, &v.b_row, &v.ldb)) {
        s = operand_to_scratch(fn, &l, p, &q.b, q.k, q.n, &q.b_rs, &q.b_cs, q.b_bs, scratch->ptr[SCRATCH_B]);
        if (s == HK_SUCCESS)
            blas_layout(q.k, q.n, q.b_rs, q.b_cs, &v.b_row, &v.ldb);
    }
    void *scratch_out = NULL;
    if (s == HK_SUCCESS && !blas_layout(q.m, q.n, q.o_rs, q.o_cs, &v.out_row, &v.ldc)) {
        /* out is written into contiguous scratch, then copied into its view. */
        scratch_out = scratch->ptr[SCRATCH_OUT];
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
    if (s == HK_SUCCESS)
        s = vendor_products(fn, stream, &q, &v);
    if (s == HK_SUCCESS && scratch_out) {
        hkk_layout layout;
        size_t count;
        copy_layout(p, p->batch_shape, p->m, p->n, q.o_bs, q.o_rs, q.o_cs, p->o_bs, p->o_rs, p->o_cs, &layout, &count);
        s = hk__gpu_check(fn, hkk_copy_array(&l, p->dtype, p->dtype, scratch_out, p->out, count, &layout),
                          "launching the copy kernel (the vendor BLAS's result into out)");
    }
    return s;
}

hk_status hk__gpu_matmul(const char *fn, void *stream, const hkk_matmul_args *args, int use_vendor,
                         const hk__scratch_list *scratch)
{
    if (use_vendor && args->k > 0)
        return vendor_matmul(fn, stream, args, scratch);
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_matmul(&l, args), "launching the matmul kernel");
}

/* ------------------------------------------------------------- take and put */

/* RAISE: the smallest C-order position of an index out of range, or ULLONG_MAX, through the
 * caller's 8-byte `flag`; waits for the stream. */
static hk_status first_bad_index(const char *fn, void *stream, const hkk_take_args *p, void *flag,
                                 unsigned long long *first)
{
    hkk_launch l = hk__gpu_launch(stream);
    hipError_t e = hipMemsetAsync(flag, 0xFF, sizeof *first, (hipStream_t)stream);
    if (e != hipSuccess)
        return hk__fail_gpu(e, fn, "hipMemsetAsync (the out-of-range flag)");
    HK_TRY(hk__gpu_check(fn, hkk_take_check(&l, p, (unsigned long long *)flag), "launching the index check kernel"));
    if ((e = hipMemcpyAsync(first, flag, sizeof *first, hipMemcpyDeviceToHost, (hipStream_t)stream)) != hipSuccess)
        return hk__fail_gpu(e, fn, "hipMemcpyAsync (the out-of-range flag)");
    if ((e = hipStreamSynchronize((hipStream_t)stream)) != hipSuccess)
        return hk__fail_gpu(e, fn, "hipStreamSynchronize (waiting for the index check)");
    return HK_SUCCESS;
}

/* RAISE mode's index check of hk_take and hk_put: fails with HK_ERROR_INVALID_ARGUMENT naming the
 * first index outside [-axis_size, axis_size) ("index 7 is out of bounds for axis `axis` with
 * size 5"), or returns HK_SUCCESS. */
static hk_status check_indices(const char *fn, void *stream, const hkk_take_args *p, int axis, void *flag)
{
    unsigned long long first = 0;
    HK_TRY(first_bad_index(fn, stream, p, flag, &first));
    if (first == ULLONG_MAX)
        return HK_SUCCESS;
    /* Read the offending value itself. */
    int64_t value = 0;
    GPU_CALL(fn, hipMemcpy(&value, p->indices + hk__index_check_offset(p, first), sizeof value, hipMemcpyDeviceToHost));
    return hk__index_out_of_bounds(fn, p, axis, first, value);
}

size_t hk__gpu_take_scratch_bytes(const hkk_take_args *args)
{
    return args->mode == HK_TAKE_RAISE ? sizeof(unsigned long long) : 0;
}

hk_status hk__gpu_take(const char *fn, void *stream, const hkk_take_args *p, int axis, void *scratch)
{
    if (p->mode == HK_TAKE_RAISE)
        HK_TRY(check_indices(fn, stream, p, axis, scratch));
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_take(&l, p), "launching the take kernel");
}

size_t hk__gpu_put_scratch_bytes(const hkk_put_args *args, const hkk_take_args *check)
{
    (void)args;
    return check ? sizeof(unsigned long long) : 0;
}

/* The indices are checked (and the stream waited for) before anything is written. */
hk_status hk__gpu_put(const char *fn, void *stream, const hkk_put_args *args, const hkk_take_args *check, int axis,
                      void *scratch)
{
    if (check)
        HK_TRY(check_indices(fn, stream, check, axis, scratch));
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_put(&l, args), "launching the put kernel");
}
