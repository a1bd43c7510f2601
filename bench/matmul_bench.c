/* matmul_bench.c: hk_matmul's engines on square products (float32 8192^3 is the headline: the own
 * kernel's target is 0.5 x the vendor BLAS, the vendor path's 0.95 x the vendor BLAS called directly,
 * which is what HK_MATMUL_VENDOR is, so its ratio to cuBLAS is the call overhead), plus a transposed
 * operand, a batched product and hk_take's row gather against a device-to-device copy of the same
 * bytes. GPU time from events, median of 7 after a warm-up.
 * Usage: matmul_bench [N] (default 8192). */
#include <hipkit/hipkit.h>
#include <stdio.h>
#include <stdlib.h>

#define REPEATS 7

static void check(hk_status s, const char *what)
{
    if (s != HK_SUCCESS) {
        fprintf(stderr, "matmul_bench: %s: %s\n", what, hk_last_error());
        exit(1);
    }
}

static int compare(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

typedef hk_status (*op_fn)(const void *ctx);

typedef struct {
    const hk_array *a, *b, *out;
    hk_matmul_engine engine;
} matmul_ctx;

static hk_status run_matmul(const void *ctx)
{
    const matmul_ctx *c = ctx;
    return hk_matmul(c->a, c->b, c->out, c->engine, NULL);
}

typedef struct {
    const hk_array *in, *idx, *out;
} take_ctx;

static hk_status run_take(const void *ctx)
{
    const take_ctx *c = ctx;
    return hk_take(c->in, c->idx, 0, c->out, HK_TAKE_WRAP, NULL);
}

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
} copy_ctx;

static hk_status run_copy(const void *ctx)
{
    const copy_ctx *c = ctx;
    return hk_memcpy_dtod_async(c->dst, c->src, c->bytes, NULL);
}

/* Median milliseconds of one call. */
static float time_ms(op_fn op, const void *ctx)
{
    hk_event start, stop;
    check(hk_event_create(&start), "hk_event_create");
    check(hk_event_create(&stop), "hk_event_create");
    float times[REPEATS];
    for (int r = -1; r < REPEATS; r++) {
        check(hk_event_record(start, NULL), "hk_event_record");
        check(op(ctx), "the measured call");
        check(hk_event_record(stop, NULL), "hk_event_record");
        check(hk_event_synchronize(stop), "hk_event_synchronize");
        if (r >= 0)
            check(hk_event_elapsed_ms(&times[r], start, stop), "hk_event_elapsed_ms");
    }
    hk_event_destroy(start);
    hk_event_destroy(stop);
    qsort(times, REPEATS, sizeof times[0], compare);
    return times[REPEATS / 2];
}

static hk_array matrix(void *data, hk_dtype dtype, int64_t rows, int64_t cols, int transposed)
{
    hk_array a = {data, dtype, 2, {rows, cols}, {cols, 1}};
    if (transposed) { /* stored as cols x rows */
        a.strides[0] = 1;
        a.strides[1] = rows;
    }
    return a;
}

int main(int argc, char **argv)
{
    int count = 0;
    if (hk_device_count(&count) != HK_SUCCESS || count == 0) {
        printf("matmul_bench: no GPU found (hk_device_count() == 0); nothing to measure.\n");
        return 0;
    }
    const int64_t n = argc > 1 ? atoll(argv[1]) : 8192;
    int vendor = 0;
    check(hk_matmul_vendor_available(&vendor), "hk_matmul_vendor_available");
    hk_device_info info;
    check(hk_device_get_info(0, &info), "hk_device_get_info");
    printf("matmul_bench on %s, N = %lld; vendor BLAS %s\n", info.name, (long long)n,
           vendor ? "available" : "NOT available (own kernel only)");
    const size_t elems = (size_t)(n * n);
    void *a, *b, *out;
    check(hk_malloc(&a, elems * 8), "hk_malloc");
    check(hk_malloc(&b, elems * 8), "hk_malloc");
    check(hk_malloc(&out, elems * 8), "hk_malloc");
    const double flops = 2.0 * (double)n * (double)n * (double)n;

    static const hk_dtype dtypes[2] = {HK_FLOAT32, HK_FLOAT64};
    printf("%-34s %12s %12s %12s\n", "product", "own TFLOP/s", "vendor", "own/vendor");
    for (int d = 0; d < 2; d++) {
        const hk_dtype dtype = dtypes[d];
        check(hk_random_uniform(a, dtype, elems, 1, 0, -1, 1, NULL), "hk_random_uniform");
        check(hk_random_uniform(b, dtype, elems, 2, 0, -1, 1, NULL), "hk_random_uniform");
        for (int layout = 0; layout < 3; layout++) {
            hk_array ma = matrix(a, dtype, n, n, layout == 1), mb = matrix(b, dtype, n, n, layout == 2);
            hk_array mo = matrix(out, dtype, n, n, 0);
            matmul_ctx own = {&ma, &mb, &mo, HK_MATMUL_OWN}, ven = {&ma, &mb, &mo, HK_MATMUL_VENDOR};
            const double t_own = time_ms(run_matmul, &own);
            const double t_ven = vendor ? time_ms(run_matmul, &ven) : 0;
            char name[64];
            snprintf(name, sizeof name, "%s %s", hk_dtype_name(dtype),
                     layout == 0   ? "a @ b"
                     : layout == 1 ? "a.T @ b (a transposed)"
                                   : "a @ b.T (b transposed)");
            printf("%-34s %12.2f %12.2f %12.2f\n", name, flops / t_own / 1e9, vendor ? flops / t_ven / 1e9 : 0.0,
                   vendor ? t_ven / t_own : 0.0);
        }
    }
    /* A batch of 64 products of 1024^3, and b broadcast over it. */
    {
        const int64_t m = 1024, batch = elems / (size_t)(m * m) < 64 ? (int64_t)(elems / (size_t)(m * m)) : 64;
        hk_array ba = {a, HK_FLOAT32, 3, {batch, m, m}, {m * m, m, 1}};
        hk_array bb = {b, HK_FLOAT32, 3, {batch, m, m}, {m * m, m, 1}};
        hk_array bo = {out, HK_FLOAT32, 3, {batch, m, m}, {m * m, m, 1}};
        hk_array shared_b = {b, HK_FLOAT32, 2, {m, m}, {m, 1}};
        const double bflops = 2.0 * (double)batch * (double)m * (double)m * (double)m;
        for (int shared = 0; shared < 2; shared++) {
            matmul_ctx own = {&ba, shared ? &shared_b : &bb, &bo, HK_MATMUL_OWN};
            matmul_ctx ven = {&ba, shared ? &shared_b : &bb, &bo, HK_MATMUL_VENDOR};
            const double t_own = time_ms(run_matmul, &own), t_ven = vendor ? time_ms(run_matmul, &ven) : 0;
            printf("%-34s %12.2f %12.2f %12.2f\n",
                   shared ? "float32 (64,1024,1024) @ (1024,1024)" : "float32 64 x 1024^3 batched",
                   bflops / t_own / 1e9, vendor ? bflops / t_ven / 1e9 : 0.0, vendor ? t_ven / t_own : 0.0);
        }
    }
    /* take: gather rows of a float32 (rows, 256) matrix; compared with copying the same bytes. */
    {
        const int64_t cols = 256, rows = (int64_t)(elems / 256);
        int64_t *host = malloc((size_t)rows * sizeof *host);
        for (int64_t i = 0; i < rows; i++)
            host[i] = (i * 7919) % rows;
        void *idx;
        check(hk_malloc(&idx, (size_t)rows * 8), "hk_malloc");
        check(hk_memcpy_htod(idx, host, (size_t)rows * 8), "hk_memcpy_htod");
        hk_array in = {a, HK_FLOAT32, 2, {rows, cols}, {cols, 1}}, ix = {idx, HK_INT64, 1, {rows}, {1}};
        hk_array to = {out, HK_FLOAT32, 2, {rows, cols}, {cols, 1}};
        take_ctx t = {&in, &ix, &to};
        copy_ctx c = {out, a, (size_t)(rows * cols) * 4};
        const double t_take = time_ms(run_take, &t), t_copy = time_ms(run_copy, &c);
        const double bytes = 2.0 * (double)(rows * cols) * 4;
        printf("take rows of (%lld, 256) float32: %.0f GB/s; device copy %.0f GB/s; ratio %.2f\n", (long long)rows,
               bytes / t_take / 1e6, bytes / t_copy / 1e6, t_copy / t_take);
        hk_free(idx);
        free(host);
    }
    hk_free(a);
    hk_free(b);
    hk_free(out);
    return 0;
}
