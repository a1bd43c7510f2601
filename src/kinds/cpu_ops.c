/* cpu_ops.c: the CPU kind's op families: each entry copies its validated arguments into the device's
 * queue (cpu_queue.c), whose worker runs the family's skeleton (hip_kernels/cpu/, cpu.h). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../../hip_kernels/cpu/cpu.h"
#include "core/dtype.h"
#include "kinds/cpu_internal.h"

/* A skeleton's code as a status, its sentence in `why`. */
static int skeleton_status(int code, const char *family, char *why)
{
    if (code == 0)
        return 0;
    if (code == HKC_NOT_SUPPORTED) {
        snprintf(why, HK__CPU_WHY_MAX, "the CPU device's %s skeleton does not serve this case", family);
        return HK_ERROR_NOT_SUPPORTED;
    }
    snprintf(why, HK__CPU_WHY_MAX, "the CPU device's %s skeleton failed (internal error %d)", family, code);
    return HK_ERROR_INTERNAL;
}

/* ------------------------------------------------------------ elementwise */

typedef struct iota_args {
    hk_dtype dtype;
    void *out;
    int64_t stride;
    size_t n;
    uint64_t start, step; /* the values' bytes */
} iota_args;

static int run_iota(void *args, char *why)
{
    const iota_args *a = args;
    return skeleton_status(hkc_iota(a->dtype, a->out, a->stride, a->n, &a->start, &a->step), "iota", why);
}

hk_status hk__cpu_iota(const char *fn, void *stream, hk_dtype dtype, void *out, int64_t stride, size_t n,
                       const void *start, const void *step)
{
    iota_args a = {dtype, out, stride, n, 0, 0};
    const size_t item = hk__dtype_bytes(dtype);
    memcpy(&a.start, start, item);
    memcpy(&a.step, step, item);
    return hk__cpu_enqueue(fn, stream, run_iota, &a, sizeof a, n);
}

static int run_elementwise(void *args, char *why)
{
    return skeleton_status(hkc_elementwise((const hkk_ew_call *)args), "elementwise", why);
}

hk_status hk__cpu_elementwise(const char *fn, void *stream, const hkk_ew_call *call)
{
    return hk__cpu_enqueue(fn, stream, run_elementwise, call, sizeof *call, call->n);
}

typedef struct copy_array_args {
    hk_dtype src_dtype, dst_dtype;
    const void *src;
    void *dst;
    size_t n;
    hkk_layout layout;
} copy_array_args;

static int run_copy_array(void *args, char *why)
{
    const copy_array_args *a = args;
    return skeleton_status(hkc_copy_array(a->src_dtype, a->dst_dtype, a->src, a->dst, a->n, &a->layout), "copy",
                           why);
}

hk_status hk__cpu_copy_array(const char *fn, void *stream, hk_dtype src_dtype, hk_dtype dst_dtype, const void *src,
                             void *dst, size_t n, const hkk_layout *layout)
{
    copy_array_args a = {src_dtype, dst_dtype, src, dst, n, *layout};
    return hk__cpu_enqueue(fn, stream, run_copy_array, &a, sizeof a, n);
}

/* ----------------------------------------------------------------- random */

typedef struct random_args {
    hk_dtype dtype;
    int normal;
    void *dst;
    size_t n;
    uint64_t seed, offset;
    double a, b;
} random_args;

static int run_random(void *args, char *why)
{
    const random_args *r = args;
    return skeleton_status(hkc_random(r->dtype, r->normal, r->dst, r->n, r->seed, r->offset, r->a, r->b), "random",
                           why);
}

hk_status hk__cpu_random_numbers(const char *fn, void *stream, hk_dtype dtype, int normal, void *dst, size_t n,
                                 uint64_t seed, uint64_t offset, double a, double b)
{
    random_args r = {dtype, normal, dst, n, seed, offset, a, b};
    return hk__cpu_enqueue(fn, stream, run_random, &r, sizeof r, n);
}

/* ----------------------------------------------------------------- reduce */

typedef struct reduce_args {
    hk_reduce_op op;
    hk_dtype in_dtype;
    const void *in;
    void *out;
    void *scratch;
    int ddof;
    hkk_reduce_layout layout;
} reduce_args;

static int run_reduce(void *args, char *why)
{
    const reduce_args *r = args;
    return skeleton_status(hkc_reduce(r->op, r->in_dtype, r->in, r->out, r->scratch, &r->layout, r->ddof), "reduce",
                           why);
}

size_t hk__cpu_reduce_scratch_bytes(hk_reduce_op op, hk_dtype in_dtype, const void *in, const hkk_reduce_layout *layout)
{
    return hkc_reduce_scratch_bytes(op, in_dtype, in, layout);
}

hk_status hk__cpu_reduce(const char *fn, void *stream, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out,
                         const hkk_reduce_layout *layout, int ddof, void *scratch)
{
    reduce_args r = {op, in_dtype, in, out, scratch, ddof, *layout};
    const size_t elements = (size_t)(layout->outputs * (layout->count > 0 ? layout->count : 1));
    return hk__cpu_enqueue(fn, stream, run_reduce, &r, sizeof r, elements);
}

/* ------------------------------------------------------------ scan, sort */

typedef struct scan_args {
    hkk_scan_args args;
    void *scratch;
} scan_args;

static int run_scan(void *args, char *why)
{
    scan_args *s = args;
    return skeleton_status(hkc_scan(&s->args, s->scratch), "scan", why);
}

size_t hk__cpu_scan_scratch_bytes(const hkk_scan_args *args)
{
    return hkc_scan_scratch_bytes(args);
}

hk_status hk__cpu_scan(const char *fn, void *stream, const hkk_scan_args *args, void *scratch)
{
    scan_args s = {*args, scratch};
    return hk__cpu_enqueue(fn, stream, run_scan, &s, sizeof s, (size_t)(args->length * args->rows));
}

typedef struct sort_args {
    hkk_sort_args args;
    void *scratch;
} sort_args;

static int run_sort(void *args, char *why)
{
    sort_args *s = args;
    return skeleton_status(hkc_sort(&s->args, s->scratch), "sort", why);
}

size_t hk__cpu_sort_scratch_bytes(const hkk_sort_args *args)
{
    return hkc_sort_scratch_bytes(args);
}

hk_status hk__cpu_sort(const char *fn, void *stream, const hkk_sort_args *args, void *scratch)
{
    sort_args s = {*args, scratch};
    return hk__cpu_enqueue(fn, stream, run_sort, &s, sizeof s, (size_t)(args->length * args->rows));
}

/* ----------------------------------------------------------------- matmul */

const char *hk__cpu_blas_unavailable(void)
{
    return "the CPU device has no BLAS library (hipkit's own blocked kernel serves it)";
}

void hk__cpu_matmul_scratch(const hkk_matmul_args *args, int use_vendor, hk__scratch_list *need)
{
    (void)args, (void)use_vendor;
    memset(need, 0, sizeof *need);
}

static int run_matmul(void *args, char *why)
{
    return skeleton_status(hkc_matmul((const hkk_matmul_args *)args), "matmul", why);
}

hk_status hk__cpu_matmul(const char *fn, void *stream, const hkk_matmul_args *args, int use_vendor,
                         const hk__scratch_list *scratch)
{
    (void)use_vendor, (void)scratch;
    const size_t work = (size_t)(args->batch_count * args->m * args->n * (args->k > 0 ? args->k : 1));
    return hk__cpu_enqueue(fn, stream, run_matmul, args, sizeof *args, work);
}

/* ------------------------------------------------------------ take and put */

/* RAISE mode's check, on the calling thread once the stream's earlier work (which may write the
 * indices) is done: HK_ERROR_INVALID_ARGUMENT naming the first index out of range, as on the GPUs. */
static hk_status check_indices(const char *fn, void *stream, const hkk_take_args *p, int axis)
{
    HK_TRY(hk__cpu_wait_stream(fn, stream));
    unsigned long long first = ULLONG_MAX;
    char why[HK__CPU_WHY_MAX] = "";
    int status = skeleton_status(hkc_take_check(p, &first), "index check", why);
    if (status != 0)
        return hk__fail((hk_status)status, fn, "%s", why);
    if (first == ULLONG_MAX)
        return HK_SUCCESS;
    return hk__index_out_of_bounds(fn, p, axis, first, p->indices[hk__index_check_offset(p, first)]);
}

static int run_take(void *args, char *why)
{
    return skeleton_status(hkc_take((const hkk_take_args *)args), "take", why);
}

size_t hk__cpu_take_scratch_bytes(const hkk_take_args *args)
{
    (void)args;
    return 0;
}

hk_status hk__cpu_take(const char *fn, void *stream, const hkk_take_args *args, int axis, void *scratch)
{
    (void)scratch;
    if (args->mode == HK_TAKE_RAISE)
        HK_TRY(check_indices(fn, stream, args, axis));
    return hk__cpu_enqueue(fn, stream, run_take, args, sizeof *args, (size_t)args->count);
}

static int run_put(void *args, char *why)
{
    return skeleton_status(hkc_put((const hkk_put_args *)args), "put", why);
}

size_t hk__cpu_put_scratch_bytes(const hkk_put_args *args, const hkk_take_args *check)
{
    (void)args, (void)check;
    return 0;
}

hk_status hk__cpu_put(const char *fn, void *stream, const hkk_put_args *args, const hkk_take_args *check, int axis,
                      void *scratch)
{
    (void)scratch;
    if (check)
        HK_TRY(check_indices(fn, stream, check, axis));
    return hk__cpu_enqueue(fn, stream, run_put, args, sizeof *args, (size_t)args->count);
}

/* ------------------------------------------------------ stream compaction */

typedef struct compact_args {
    hkk_compact_args args;
    void *scratch;
} compact_args;

static int run_compact(void *args, char *why)
{
    compact_args *c = args;
    return skeleton_status(hkc_compact(&c->args, c->scratch), "compact", why);
}

size_t hk__cpu_compact_scratch_bytes(const hkk_compact_args *args)
{
    return hkc_compact_scratch_bytes(args);
}

hk_status hk__cpu_compact(const char *fn, void *stream, const hkk_compact_args *args, void *scratch)
{
    compact_args c = {*args, scratch};
    return hk__cpu_enqueue(fn, stream, run_compact, &c, sizeof c, (size_t)args->n);
}
