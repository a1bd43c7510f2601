/* pool_bench.c: what one device allocation and one tiny launch cost through
 * hipkit, against the vendor runtime measured in the same run (NVIDIA builds):
 * medians of repeated timed loops after a warm-up, in microseconds per
 * operation, with each row's ratio to hipkit's.
 *
 *   pool_bench [ITERATIONS [REPEATS]]   (defaults 100000 and 5)
 *
 * ITERATIONS is the loop length for hk_malloc + hk_free, cudaMallocAsync and
 * the asynchronous launches; round trips use a fifth of it and cudaMalloc a
 * fiftieth (each costs tens of microseconds). */
#define _POSIX_C_SOURCE 199309L
#include <hipkit/hipkit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(HIPKIT_BENCH_CUDA)
#include <cuda_runtime_api.h>

#include "raw_launch.h"
#endif

#define MIB ((size_t)1 << 20)
#define MAX_REPEATS 101

/* A loop under test: runs `iterations` operations, returns 0 or prints why not. */
typedef int (*loop_fn)(void *context, long iterations);

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* When an asynchronous loop's last operation was issued (before its final
 * synchronize): set by the loop through enqueued(); < 0 for loops without one. */
static double enqueued_at = -1.0;
static void enqueued(void)
{
    enqueued_at = now_us();
}

/* The median time per operation to issue the last one, of the latest
 * median_us() of an asynchronous loop (< 0 for other loops). Next to the
 * whole time per operation it tells whether the host (issue time close to
 * the whole) or the GPU's pace (issue time much shorter: the launch queue was
 * full) set the rate. */
static double last_enqueue_us = -1.0;

/* One untimed warm-up loop, then `repeats` timed loops: the median time per
 * operation in microseconds, or a negative value if the loop failed. */
static double median_us(loop_fn loop, void *context, long iterations, int repeats)
{
    long warm_up = iterations / 10 > 0 ? iterations / 10 : 1;
    if (loop(context, warm_up) != 0)
        return -1.0;
    double samples[MAX_REPEATS], issue[MAX_REPEATS];
    for (int r = 0; r < repeats; r++) {
        enqueued_at = -1.0;
        double start = now_us();
        if (loop(context, iterations) != 0)
            return -1.0;
        samples[r] = (now_us() - start) / (double)iterations;
        issue[r] = enqueued_at < 0 ? -1.0 : (enqueued_at - start) / (double)iterations;
    }
    qsort(samples, (size_t)repeats, sizeof samples[0], compare_doubles);
    qsort(issue, (size_t)repeats, sizeof issue[0], compare_doubles);
    last_enqueue_us = issue[repeats / 2];
    return samples[repeats / 2];
}

static int hk_failed(const char *call, hk_status status)
{
    fprintf(stderr, "pool_bench: %s failed with %s: %s\n", call, hk_status_name(status), hk_last_error());
    return 1;
}

/* ------------------------------------------------------------ hipkit loops */

static int hk_malloc_free_loop(void *context, long iterations)
{
    (void)context;
    for (long i = 0; i < iterations; i++) {
        void *ptr = NULL;
        hk_status s = hk_malloc(&ptr, MIB);
        if (s != HK_SUCCESS)
            return hk_failed("hk_malloc", s);
        if ((s = hk_free(ptr)) != HK_SUCCESS)
            return hk_failed("hk_free", s);
    }
    return 0;
}

/* A 1-d float32 view of n elements at data. */
static hk_array floats(void *data, int64_t n)
{
    hk_array a = {0};
    a.data = data;
    a.dtype = HK_FLOAT32;
    a.ndim = 1;
    a.shape[0] = n;
    a.strides[0] = 1;
    return a;
}

/* hk_fill of one float: the smallest real launch through the whole API. */
static int hk_fill_loop(void *context, long iterations)
{
    const float value = 1.0f;
    const hk_array out = floats(context, 1);
    for (long i = 0; i < iterations; i++) {
        hk_status s = hk_fill(&out, &value, NULL);
        if (s != HK_SUCCESS)
            return hk_failed("hk_fill", s);
    }
    enqueued();
    hk_status s = hk_stream_synchronize(NULL);
    return s == HK_SUCCESS ? 0 : hk_failed("hk_stream_synchronize", s);
}

/* hk_elementwise add of one float, output given: what hipkit.add(x, y, out=z) runs. */
static int hk_add_loop(void *context, long iterations)
{
    float *x = context;
    const hk_array in[2] = {floats(x, 1), floats(x + 4, 1)}, out = floats(x + 8, 1);
    for (long i = 0; i < iterations; i++) {
        hk_status s = hk_elementwise(HK_OP_ADD, in, 2, &out, NULL);
        if (s != HK_SUCCESS)
            return hk_failed("hk_elementwise", s);
    }
    enqueued();
    hk_status s = hk_stream_synchronize(NULL);
    return s == HK_SUCCESS ? 0 : hk_failed("hk_stream_synchronize", s);
}

/* An empty user kernel (run-time compiled) through the packed fast path. */
static int user_launch_loop(void *context, long iterations)
{
    hk_kernel kernel = context;
    const hk_dim3 one = {1, 1, 1};
    for (long i = 0; i < iterations; i++) {
        hk_status s = hk_kernel_launch_packed(kernel, one, one, 0, NULL, NULL, 0);
        if (s != HK_SUCCESS)
            return hk_failed("hk_kernel_launch_packed", s);
    }
    enqueued();
    hk_status s = hk_stream_synchronize(NULL);
    return s == HK_SUCCESS ? 0 : hk_failed("hk_stream_synchronize", s);
}

static int hk_fill_round_trip_loop(void *context, long iterations)
{
    const float value = 1.0f;
    const hk_array out = floats(context, 1);
    for (long i = 0; i < iterations; i++) {
        hk_status s = hk_fill(&out, &value, NULL);
        if (s != HK_SUCCESS)
            return hk_failed("hk_fill", s);
        if ((s = hk_stream_synchronize(NULL)) != HK_SUCCESS)
            return hk_failed("hk_stream_synchronize", s);
    }
    return 0;
}

/* ------------------------------------------------------ CUDA runtime loops */

#if defined(HIPKIT_BENCH_CUDA)
static int cuda_failed(const char *call, cudaError_t e)
{
    fprintf(stderr, "pool_bench: %s failed: %s: %s\n", call, cudaGetErrorName(e), cudaGetErrorString(e));
    return 1;
}

static int cuda_malloc_free_loop(void *context, long iterations)
{
    (void)context;
    for (long i = 0; i < iterations; i++) {
        void *ptr = NULL;
        cudaError_t e = cudaMalloc(&ptr, MIB);
        if (e != cudaSuccess)
            return cuda_failed("cudaMalloc", e);
        if ((e = cudaFree(ptr)) != cudaSuccess)
            return cuda_failed("cudaFree", e);
    }
    return 0;
}

/* Stream-ordered: no synchronization inside the loop, one at the end. */
static int cuda_malloc_async_loop(void *context, long iterations)
{
    cudaStream_t stream = (cudaStream_t)context;
    for (long i = 0; i < iterations; i++) {
        void *ptr = NULL;
        cudaError_t e = cudaMallocAsync(&ptr, MIB, stream);
        if (e != cudaSuccess)
            return cuda_failed("cudaMallocAsync", e);
        if ((e = cudaFreeAsync(ptr, stream)) != cudaSuccess)
            return cuda_failed("cudaFreeAsync", e);
    }
    cudaError_t e = cudaStreamSynchronize(stream);
    return e == cudaSuccess ? 0 : cuda_failed("cudaStreamSynchronize", e);
}

static int raw_launch_loop(void *context, long iterations)
{
    (void)context;
    int e = raw_empty_launches(iterations, 0, enqueued);
    return e == 0 ? 0 : cuda_failed("empty_kernel<<<1, 1>>>", (cudaError_t)e);
}

static int raw_add_loop(void *context, long iterations)
{
    float *x = context;
    int e = raw_add_launches(iterations, x, x + 4, x + 8, enqueued);
    return e == 0 ? 0 : cuda_failed("add_kernel<<<1, 256>>>", (cudaError_t)e);
}

static int raw_round_trip_loop(void *context, long iterations)
{
    (void)context;
    int e = raw_empty_launches(iterations, 1, NULL);
    return e == 0 ? 0 : cuda_failed("empty_kernel<<<1, 1>>> + cudaStreamSynchronize", (cudaError_t)e);
}
#endif

/* ------------------------------------------------------------------ table */

static void print_group(const char *title)
{
    printf("\n%-46s %10s %10s %11s %10s\n", title, "us/op", "x hipkit", "iterations", "issue us");
}

/* Prints one row; `baseline` is the hipkit row of the group (<= 0: this is it).
 * "issue us": for asynchronous launch loops, the time per operation until the
 * last one was issued (the rest is the wait for the GPU). */
static int print_row(const char *what, double us, double baseline, long iterations)
{
    if (us < 0)
        return 1;
    double ratio = baseline > 0 ? us / baseline : 1.0;
    printf("  %-44s %10.3f %10.2f %11ld", what, us, ratio, iterations);
    if (last_enqueue_us >= 0)
        printf(" %10.3f", last_enqueue_us);
    printf("\n");
    last_enqueue_us = -1.0;
    return 0;
}

static long parse_positive(const char *text, const char *what)
{
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (!end || *end != '\0' || value <= 0) {
        fprintf(stderr, "pool_bench: %s must be a positive integer, not '%s'\n", what, text);
        exit(2);
    }
    return value;
}

int main(int argc, char **argv)
{
    long iterations = 100000;
    int repeats = 5;
    if (argc > 1)
        iterations = parse_positive(argv[1], "ITERATIONS");
    if (argc > 2) {
        long r = parse_positive(argv[2], "REPEATS");
        repeats = (int)(r < MAX_REPEATS ? r : MAX_REPEATS);
    }
    long round_trips = iterations / 5 > 0 ? iterations / 5 : 1;
    long vendor_mallocs = iterations / 50 > 0 ? iterations / 50 : 1;

    int count = 0;
    hk_status s = hk_device_count(&count);
    if (s != HK_SUCCESS)
        return hk_failed("hk_device_count", s);
    if (count == 0) {
        printf("pool_bench: no GPU (hk_device_count() == 0); nothing to measure.\n");
        return 0;
    }

    hk_device_info info;
    if ((s = hk_device_get_info(0, &info)) != HK_SUCCESS)
        return hk_failed("hk_device_get_info", s);
    hk_platform platform;
    int major, minor, patch, runtime = 0;
    if ((s = hk_platform_get(&platform)) != HK_SUCCESS)
        return hk_failed("hk_platform_get", s);
    hk_version(&major, &minor, &patch);
    hk_runtime_version(&runtime);
    printf("pool_bench: device 0: %s (%s), hipkit %d.%d.%d for %s, runtime %d\n", info.name, info.arch, major, minor,
           patch, hk_platform_name(platform), runtime);
    printf("median of %d repeats after a warm-up; \"x hipkit\" = this row's time / the hipkit row's\n", repeats);

    void *one_float = NULL, *three_vectors = NULL; /* 3 x 4 floats, each 16-byte aligned */
    if ((s = hk_malloc(&one_float, sizeof(float))) != HK_SUCCESS ||
        (s = hk_malloc(&three_vectors, 12 * sizeof(float))) != HK_SUCCESS)
        return hk_failed("hk_malloc", s);
    if ((s = hk_memset(three_vectors, 0, 12 * sizeof(float))) != HK_SUCCESS)
        return hk_failed("hk_memset", s);

    int failed = 0;
    print_group("device malloc + free, 1 MiB");
    double hk_pair = median_us(hk_malloc_free_loop, NULL, iterations, repeats);
    failed |= print_row("hk_malloc + hk_free", hk_pair, 0, iterations);
#if defined(HIPKIT_BENCH_CUDA)
    failed |= print_row("cudaMalloc + cudaFree", median_us(cuda_malloc_free_loop, NULL, vendor_mallocs, repeats),
                        hk_pair, vendor_mallocs);
    cudaStream_t stream;
    cudaError_t e = cudaStreamCreate(&stream);
    if (e != cudaSuccess)
        return cuda_failed("cudaStreamCreate", e);
    failed |= print_row("cudaMallocAsync + cudaFreeAsync (one sync)",
                        median_us(cuda_malloc_async_loop, stream, iterations, repeats), hk_pair, iterations);
    cudaStreamDestroy(stream);
#else
    (void)vendor_mallocs;
#endif

    print_group("launch, asynchronous (one sync at the end)");
    double hk_launch = median_us(hk_fill_loop, one_float, iterations, repeats);
    failed |= print_row("hk_fill, n = 1", hk_launch, 0, iterations);
#if defined(HIPKIT_BENCH_CUDA)
    failed |= print_row("empty kernel <<<1, 1>>>", median_us(raw_launch_loop, NULL, iterations, repeats), hk_launch,
                        iterations);
#endif
    failed |= print_row("hk_elementwise add, n = 1 (out given)",
                        median_us(hk_add_loop, three_vectors, iterations, repeats), hk_launch, iterations);
#if defined(HIPKIT_BENCH_CUDA)
    failed |= print_row("add kernel <<<1, 256>>>, n = 1 (the same work)",
                        median_us(raw_add_loop, three_vectors, iterations, repeats), hk_launch, iterations);
#endif
    {
        hk_program program = NULL;
        hk_module module = NULL;
        hk_kernel kernel = NULL;
        hk_status s =
            hk_program_compile(&program, "extern \"C\" __global__ void empty() {}\n", "empty.hip", NULL, 0, NULL);
        if (s == HK_SUCCESS)
            s = hk_module_load(&module, program);
        if (s == HK_SUCCESS)
            s = hk_module_get_kernel(&kernel, module, "empty");
        if (s != HK_SUCCESS)
            failed |= hk_failed("compiling the empty user kernel", s);
        else
            failed |= print_row(getenv("HIPKIT_LAUNCH_API") ? "empty user kernel, hk_kernel_launch_packed (runtime API)"
                                                            : "empty user kernel, hk_kernel_launch_packed",
                                median_us(user_launch_loop, kernel, iterations, repeats), hk_launch, iterations);
        if (module)
            hk_module_unload(module);
        if (program)
            hk_program_destroy(program);
    }

    print_group("launch + synchronize round trip");
    double hk_trip = median_us(hk_fill_round_trip_loop, one_float, round_trips, repeats);
    failed |= print_row("hk_fill, n = 1 + hk_stream_synchronize", hk_trip, 0, round_trips);
#if defined(HIPKIT_BENCH_CUDA)
    failed |= print_row("empty kernel + cudaStreamSynchronize",
                        median_us(raw_round_trip_loop, NULL, round_trips, repeats), hk_trip, round_trips);
#endif

    hk_pool_stats stats;
    if (hk_pool_get_stats(0, &stats) == HK_SUCCESS)
        printf("\nhipkit pool: %llu allocations, %llu from the cache, %llu vendor allocations\n",
               (unsigned long long)stats.allocations, (unsigned long long)stats.cache_hits,
               (unsigned long long)stats.vendor_allocations);
    hk_free(one_float);
    hk_free(three_vectors);
    return failed ? 1 : 0;
}
