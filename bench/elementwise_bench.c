/* elementwise_bench.c: hk_elementwise's bandwidth against a device-to-device
 * copy of the same size (the ceiling for a streaming kernel), in one run.
 * Bytes counted: every element read and written once. Median of 9 after a
 * warm-up, timed with events on one stream. Target: c = a + b, float32,
 * 2^28 elements, at least 0.97 x the copy's rate. */
#include <hipkit/hipkit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N ((int64_t)1 << 28)
#define REPEATS 9

static hk_stream stream;
static hk_event start, stop;

static void check(hk_status s, const char *what)
{
    if (s != HK_SUCCESS) {
        fprintf(stderr, "elementwise_bench: %s: %s\n", what, hk_last_error());
        exit(1);
    }
}

static int compare(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

typedef struct job {
    hk_op op;
    const hk_array *in;
    int n_in;
    const hk_array *out;
    const void *copy_dst; /* a plain copy when set */
    const void *copy_src;
    size_t copy_bytes;
} job;

static void run(const job *j)
{
    if (j->copy_dst)
        check(hk_memcpy_dtod_async((void *)j->copy_dst, j->copy_src, j->copy_bytes, stream), "copy");
    else
        check(hk_elementwise(j->op, j->in, j->n_in, j->out, stream), hk_op_name(j->op));
}

/* GB/s for `bytes` moved per run */
static double measure(const job *j, double bytes)
{
    float ms[REPEATS];
    run(j);
    check(hk_stream_synchronize(stream), "warm-up");
    for (int r = 0; r < REPEATS; r++) {
        check(hk_event_record(start, stream), "event");
        run(j);
        check(hk_event_record(stop, stream), "event");
        check(hk_event_synchronize(stop), "event");
        check(hk_event_elapsed_ms(&ms[r], start, stop), "event");
    }
    qsort(ms, REPEATS, sizeof ms[0], compare);
    return bytes / (ms[REPEATS / 2] * 1e-3) / 1e9;
}

static hk_array vec(void *data, hk_dtype dtype, int64_t n)
{
    hk_array a;
    memset(&a, 0, sizeof a);
    a.data = data;
    a.dtype = dtype;
    a.ndim = 1;
    a.shape[0] = n;
    a.strides[0] = 1;
    return a;
}

static hk_array mat(void *data, hk_dtype dtype, int64_t rows, int64_t cols, int64_t s0, int64_t s1)
{
    hk_array a = vec(data, dtype, rows);
    a.ndim = 2;
    a.shape[1] = cols;
    a.strides[0] = s0;
    a.strides[1] = s1;
    return a;
}

int main(void)
{
    int count = 0;
    if (hk_device_count(&count) != HK_SUCCESS || count == 0) {
        printf("elementwise_bench: no GPU found (hk_device_count() == 0); nothing to measure.\n");
        return 0;
    }
    check(hk_stream_create(&stream), "stream");
    check(hk_event_create(&start), "event");
    check(hk_event_create(&stop), "event");
    void *a, *b, *c, *flags;
    const size_t bytes = (size_t)N * 4;
    check(hk_malloc(&a, bytes), "hk_malloc");
    check(hk_malloc(&b, bytes), "hk_malloc");
    check(hk_malloc(&c, bytes), "hk_malloc");
    check(hk_malloc(&flags, (size_t)N), "hk_malloc");
    /* random-ish finite data */
    const float one = 1.0f, low = 0.5f;
    check(hk_random_uniform(a, HK_FLOAT32, (size_t)N, 1, 0, -1.0, 1.0, stream), "random");
    check(hk_random_uniform(b, HK_FLOAT32, (size_t)N, 2, 0, -1.0, 1.0, stream), "random");
    hk_array fa = vec(a, HK_FLOAT32, N), fb = vec(b, HK_FLOAT32, N), fc = vec(c, HK_FLOAT32, N);
    hk_array ab[2] = {fa, fb};
    hk_array a_scalar[2] = {fa, {(void *)&one, HK_FLOAT32, HK_HOST_SCALAR, {0}, {0}}};
    hk_array bools = vec(flags, HK_BOOL, N);
    hk_array where_in[3] = {bools, fa, fb};
    hk_array clip_in[3] = {fa, {(void *)&low, HK_FLOAT32, HK_HOST_SCALAR, {0}, {0}}, fb};
    hk_array ha = vec(a, HK_FLOAT16, N), hb = vec(b, HK_FLOAT16, N), hc = vec(c, HK_FLOAT16, N);
    hk_array hab[2] = {ha, hb};
    hk_array da = vec(a, HK_FLOAT64, N / 2), db = vec(b, HK_FLOAT64, N / 2), dc = vec(c, HK_FLOAT64, N / 2);
    hk_array dab[2] = {da, db};
    hk_array ua = vec(a, HK_UINT8, N), ub = vec(b, HK_UINT8, N), uc = vec(c, HK_UINT8, N);
    hk_array uab[2] = {ua, ub};
    const int64_t side = (int64_t)1 << 14; /* 16384 x 16384 = 2^28 */
    hk_array row[2] = {mat(a, HK_FLOAT32, side, side, side, 1), vec(b, HK_FLOAT32, side)};
    hk_array transposed[2] = {mat(a, HK_FLOAT32, side, side, 1, side), mat(b, HK_FLOAT32, side, side, side, 1)};
    hk_array square = mat(c, HK_FLOAT32, side, side, side, 1);
    hk_array fa1 = vec(a, HK_FLOAT32, N);

    const double f = (double)N;
    job copy = {0, NULL, 0, NULL, c, a, bytes};
    const double copy_gbps = measure(&copy, 2.0 * (double)bytes);
    struct row {
        const char *name;
        job j;
        double bytes;
    } rows[] = {
        {"c = a + b, float32 (target >= 0.97)", {HK_OP_ADD, ab, 2, &fc, NULL, NULL, 0}, 12 * f},
        {"c = a + 1 (host scalar), float32", {HK_OP_ADD, a_scalar, 2, &fc, NULL, NULL, 0}, 8 * f},
        {"a = a + b in place, float32", {HK_OP_ADD, ab, 2, &fa1, NULL, NULL, 0}, 12 * f},
        {"c = a + b, float16", {HK_OP_ADD, hab, 2, &hc, NULL, NULL, 0}, 6 * f},
        {"c = a + b, float64 (2^27)", {HK_OP_ADD, dab, 2, &dc, NULL, NULL, 0}, 12 * f},
        {"c = a + b, uint8", {HK_OP_ADD, uab, 2, &uc, NULL, NULL, 0}, 3 * f},
        {"flags = a < b, float32 -> bool", {HK_OP_LESS, ab, 2, &bools, NULL, NULL, 0}, 9 * f},
        {"c = where(flags, a, b), float32", {HK_OP_WHERE, where_in, 3, &fc, NULL, NULL, 0}, 13 * f},
        {"c = clip(a, 0.5, b), float32", {HK_OP_CLIP, clip_in, 3, &fc, NULL, NULL, 0}, 12 * f},
        {"c = exp(a), float32", {HK_OP_EXP, ab, 1, &fc, NULL, NULL, 0}, 8 * f},
        {"c = a + row (broadcast), 16384^2 float32", {HK_OP_ADD, row, 2, &square, NULL, NULL, 0}, 8 * f},
        {"c = a.T + b (strided), 16384^2 float32", {HK_OP_ADD, transposed, 2, &square, NULL, NULL, 0}, 12 * f},
    };
    check(hk_elementwise(HK_OP_LESS, ab, 2, &bools, stream), "flags");
    printf("\nhk_elementwise, 2^28 elements (GB/s, median of %d)          GB/s   vs copy\n", REPEATS);
    printf("  device-to-device copy (hk_memcpy_dtod_async)       %9.1f   %6.3f\n", copy_gbps, 1.0);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const double g = measure(&rows[i].j, rows[i].bytes);
        printf("  %-50s %9.1f   %6.3f\n", rows[i].name, g, g / copy_gbps);
    }
    hk_free(a);
    hk_free(b);
    hk_free(c);
    hk_free(flags);
    hk_event_destroy(start);
    hk_event_destroy(stop);
    hk_stream_destroy(stream);
    return 0;
}
