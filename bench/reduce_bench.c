/* reduce_bench.c: hk_reduce against the hardware and its peers, in one run:
 *  - device-to-device copy (hk_memcpy_dtod, 1 GiB): the bandwidth ceiling,
 *    as (bytes read + bytes written) / time;
 *  - sum of 2^28 float32 (all axes): hk_reduce, and on NVIDIA CUB's
 *    DeviceReduce::Sum (reduce_cub.cu), in GB/s of input read;
 *  - sum, max, argmax, mean, var along axis 0 and axis 1 of an 8192 x 8192
 *    float32 matrix and over all of it, in GB/s of input read, with the ratio
 *    to copy bandwidth (the target is 0.85 for sum along either axis).
 * Median of 9 timed runs (events on one stream) after a warm-up, each run
 * INNER back-to-back calls (time divided by INNER), as library_bench.py.
 * The column kernel's shape can be swept with HIPKIT_REDUCE_COLUMN_BX and
 * HIPKIT_REDUCE_COLUMN_WAVES (hip_kernels/reduce/skeleton.h). */
#include <hipkit/hipkit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPEATS 9
#define INNER 10

#if defined(HIPKIT_BENCH_CUDA)
/* reduce_cub.cu: milliseconds of one cub::DeviceReduce::Sum over n floats
 * (median of `repeats`), or a negative value when CUB failed. */
double hkbench_cub_sum_ms(const float *x, size_t n, float *result, int repeats);
#endif

static void check(hk_status s, const char *what)
{
    if (s != HK_SUCCESS) {
        fprintf(stderr, "reduce_bench: %s: %s\n", what, hk_last_error());
        exit(1);
    }
}

static int compare(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

typedef struct job {
    int kind; /* 0 copy, 2 hk_reduce */
    hk_reduce_op op;
    hk_array in, out;
    uint32_t axes;
    void *dst, *src;
    size_t bytes, n;
} job;

static void run(const job *j, hk_stream stream)
{
    if (j->kind == 0)
        check(hk_memcpy_dtod_async(j->dst, j->src, j->bytes, stream), "hk_memcpy_dtod_async");
    else
        check(hk_reduce(j->op, &j->in, j->axes, &j->out, 0, stream), "hk_reduce");
}

static float median_ms(const job *j, hk_stream stream)
{
    hk_event start, stop;
    check(hk_event_create(&start), "hk_event_create");
    check(hk_event_create(&stop), "hk_event_create");
    run(j, stream); /* warm-up: pool blocks, first-launch costs */
    check(hk_stream_synchronize(stream), "hk_stream_synchronize");
    float ms[REPEATS];
    for (int r = 0; r < REPEATS; r++) {
        check(hk_event_record(start, stream), "hk_event_record");
        for (int k = 0; k < INNER; k++)
            run(j, stream);
        check(hk_event_record(stop, stream), "hk_event_record");
        check(hk_event_synchronize(stop), "hk_event_synchronize");
        check(hk_event_elapsed_ms(&ms[r], start, stop), "hk_event_elapsed_ms");
        ms[r] /= (float)INNER;
    }
    hk_event_destroy(start);
    hk_event_destroy(stop);
    qsort(ms, REPEATS, sizeof ms[0], compare);
    return ms[REPEATS / 2];
}

static hk_array array2(void *data, hk_dtype dtype, int ndim, int64_t rows, int64_t cols)
{
    hk_array a;
    memset(&a, 0, sizeof a);
    a.data = data;
    a.dtype = dtype;
    a.ndim = ndim;
    if (ndim == 2) {
        a.shape[0] = rows;
        a.shape[1] = cols;
        a.strides[0] = cols;
        a.strides[1] = 1;
    } else if (ndim == 1) {
        a.shape[0] = rows;
        a.strides[0] = 1;
    }
    return a;
}

int main(void)
{
    int count = 0;
    if (hk_device_count(&count) != HK_SUCCESS || count == 0) {
        printf("reduce_bench: no GPU found (hk_device_count() == 0); nothing to measure.\n");
        return 0;
    }
    hk_device_info info;
    check(hk_device_get_info(0, &info), "hk_device_get_info");
    hk_stream stream;
    check(hk_stream_create(&stream), "hk_stream_create");
    const size_t n = (size_t)1 << 28, bytes = n * 4;
    const int64_t R = 8192, C = 8192;
    void *x, *copy_dst, *out;
    check(hk_malloc(&x, bytes), "hk_malloc");
    check(hk_malloc(&copy_dst, bytes), "hk_malloc");
    check(hk_malloc(&out, (size_t)C * 8), "hk_malloc");
    float one = 1.0f;
    const hk_array all_x = array2(x, HK_FLOAT32, 1, (int64_t)n, 0);
    check(hk_fill(&all_x, &one, NULL), "hk_fill");
    check(hk_device_synchronize(), "hk_device_synchronize");
    printf("reduce_bench on %s (%d multiprocessors)\n", info.name, info.multiprocessor_count);

    job copy = {0};
    copy.dst = copy_dst;
    copy.src = x;
    copy.bytes = bytes;
    const double copy_gbps = 2.0 * (double)bytes / median_ms(&copy, stream) / 1e6;
    printf("%-44s %8.1f GB/s (read + write)\n", "copy, 1 GiB (hk_memcpy_dtod)", copy_gbps);

    job sum_all = {0};
    sum_all.kind = 2;
    sum_all.op = HK_REDUCE_SUM;
    sum_all.in = array2(x, HK_FLOAT32, 1, (int64_t)n, 0);
    sum_all.out = array2(out, HK_FLOAT32, 0, 0, 0);
    sum_all.axes = 1;
    const double all_gbps = (double)bytes / median_ms(&sum_all, stream) / 1e6;
    printf("%-44s %8.1f GB/s\n", "sum f32 2^28: hk_reduce", all_gbps);
#if defined(HIPKIT_BENCH_CUDA)
    const double cub_ms = hkbench_cub_sum_ms((const float *)x, n, (float *)out, REPEATS);
    if (cub_ms > 0) {
        const double cub_gbps = (double)bytes / cub_ms / 1e6;
        printf("%-44s %8.1f GB/s  (hk_reduce: %.2f x CUB, target 0.95)\n", "sum f32 2^28: CUB DeviceReduce::Sum",
               cub_gbps, all_gbps / cub_gbps);
    }
#endif

    static const hk_reduce_op ops[] = {HK_REDUCE_SUM, HK_REDUCE_MAX, HK_REDUCE_ARGMAX, HK_REDUCE_MEAN, HK_REDUCE_VAR};
    static const char *const where[] = {"axis 0", "axis 1", "all"};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        for (int axes = 1; axes <= 3; axes++) {
            job j = {0};
            j.kind = 2;
            j.op = ops[k];
            j.in = array2(x, HK_FLOAT32, 2, R, C);
            j.axes = (uint32_t)axes;
            const hk_dtype od = ops[k] == HK_REDUCE_ARGMAX ? HK_INT64 : HK_FLOAT32;
            j.out = axes == 3 ? array2(out, od, 0, 0, 0) : array2(out, od, 1, axes == 1 ? C : R, 0);
            const double gbps = (double)(R * C * 4) / median_ms(&j, stream) / 1e6;
            char label[80];
            snprintf(label, sizeof label, "%s f32 8192x8192, %s", hk_reduce_op_name(ops[k]), where[axes - 1]);
            printf("%-44s %8.1f GB/s  (%.2f x copy)\n", label, gbps, gbps / copy_gbps);
        }
    }
    hk_free(x);
    hk_free(copy_dst);
    hk_free(out);
    hk_stream_destroy(stream);
    return 0;
}
