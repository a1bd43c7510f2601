/* vector_add.c: hipkit from C in one page. Describe the current device, copy
 * two vectors to it, add them, sum the result on the device, time the add with
 * events, check the answers on the host, and check every status on the way:
 * when a call fails, hk_last_error() says which call, which argument and which
 * device. On a machine without a GPU the current device is the CPU device
 * (HIPKIT_DEVICE=cpu chooses it anywhere), and the same calls run there. */
#include <hipkit/hipkit.h>

#include <stdio.h>
#include <stdlib.h>

/* Stop at the first failure, saying what failed and why. */
#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        hk_status status_ = (call);                                                                                    \
        if (status_ != HK_SUCCESS) {                                                                                   \
            fprintf(stderr, "vector_add: %s failed: %s\n  %s\n", #call, hk_status_name(status_), hk_last_error());     \
            goto cleanup;                                                                                              \
        }                                                                                                              \
    } while (0)

/* A 1-d view of n float32 elements at data (0-d when n is 0: one element). */
static hk_array floats(void *data, size_t n)
{
    hk_array a = {0};
    a.data = data;
    a.dtype = HK_FLOAT32;
    a.ndim = n ? 1 : 0;
    a.shape[0] = (int64_t)n;
    a.strides[0] = 1;
    return a;
}

int main(void)
{
    const size_t n = (size_t)1 << 24; /* 16 Mi floats: 64 MiB per vector */
    const size_t bytes = n * sizeof(float);
    int exit_code = 1;
    float *a = NULL, *b = NULL, *c = NULL;
    void *a_device = NULL, *b_device = NULL, *c_device = NULL, *sum_device = NULL;
    hk_event start = NULL, stop = NULL;
    double expected_sum = 0.0, relative_error = 0.0;
    float sum = 0.0f, milliseconds = 0.0f;
    size_t wrong = 0;
    void *huge = NULL;

    int device = 0, gpus = 0;
    hk_status status = HK_SUCCESS;
    CHECK(hk_gpu_count(&gpus));
    CHECK(hk_device_get(&device)); /* the first GPU, else the CPU device (devices: the GPUs, then the CPU) */
    hk_device_info info;
    CHECK(hk_device_get_info(device, &info));
    printf("device %d (%s, %d GPU(s) here): %s (%s), %d %s, %.1f GiB of which %.1f GiB free\n", device,
           hk_device_kind_name(info.kind), gpus, info.name, info.arch, info.multiprocessor_count,
           info.kind == HK_DEVICE_KIND_GPU ? "multiprocessors" : "cores", (double)info.total_memory / (1 << 30),
           (double)info.free_memory / (1 << 30));

    a = malloc(bytes);
    b = malloc(bytes);
    c = malloc(bytes);
    if (!a || !b || !c) {
        fprintf(stderr, "vector_add: out of host memory\n");
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(i % 1000) * 0.5f;
        b[i] = (float)(i % 7);
        expected_sum += (double)a[i] + (double)b[i];
    }

    CHECK(hk_malloc(&a_device, bytes));
    CHECK(hk_malloc(&b_device, bytes));
    CHECK(hk_malloc(&c_device, bytes));
    CHECK(hk_malloc(&sum_device, sizeof(float)));
    CHECK(hk_memcpy_htod(a_device, a, bytes));
    CHECK(hk_memcpy_htod(b_device, b, bytes));

    /* Everything below is queued on the default stream (NULL) in order. The
     * first launch of a kernel also loads its code, so time the second. */
    const hk_array inputs[2] = {floats(a_device, n), floats(b_device, n)};
    const hk_array c_view = floats(c_device, n), sum_view = floats(sum_device, 0);
    CHECK(hk_elementwise(HK_OP_ADD, inputs, 2, &c_view, NULL));
    CHECK(hk_event_create(&start));
    CHECK(hk_event_create(&stop));
    CHECK(hk_event_record(start, NULL));
    CHECK(hk_elementwise(HK_OP_ADD, inputs, 2, &c_view, NULL));
    CHECK(hk_event_record(stop, NULL));
    CHECK(hk_reduce(HK_REDUCE_SUM, &c_view, 1u, &sum_view, 0, NULL)); /* axis 0: bit 0 */

    CHECK(hk_memcpy_dtoh(c, c_device, bytes)); /* waits for the work before it */
    CHECK(hk_memcpy_dtoh(&sum, sum_device, sizeof sum));
    CHECK(hk_event_synchronize(stop));
    CHECK(hk_event_elapsed_ms(&milliseconds, start, stop));

    for (size_t i = 0; i < n; i++)
        wrong += c[i] != a[i] + b[i];
    relative_error = ((double)sum - expected_sum) / expected_sum;
    if (relative_error < 0)
        relative_error = -relative_error;
    printf("c = a + b: %zu elements, %zu wrong, %.3f ms (%.0f GB/s)\n", n, wrong, milliseconds,
           3.0 * (double)bytes / (milliseconds * 1e6));
    printf("sum(c) = %.6e (host, in double: %.6e; relative error %.1e)\n", sum, expected_sum, relative_error);

    /* What a failure looks like: ask for 1 PiB. */
    status = hk_malloc(&huge, (size_t)1 << 50);
    printf("asking for 1 PiB: %s\n  %s\n", hk_status_name(status), hk_last_error());
    if (status == HK_SUCCESS)
        hk_free(huge);

    exit_code = (wrong == 0 && relative_error < 1e-4) ? 0 : 1;
    if (exit_code != 0)
        fprintf(stderr, "vector_add: results do not match the host's\n");

cleanup:
    hk_free(a_device); /* hk_free(NULL) is a no-op */
    hk_free(b_device);
    hk_free(c_device);
    hk_free(sum_device);
    if (start)
        hk_event_destroy(start);
    if (stop)
        hk_event_destroy(stop);
    free(a);
    free(b);
    free(c);
    return exit_code;
}
