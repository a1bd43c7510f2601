/* transfer_bench.c: host<->device copies of 256 MiB from pageable memory
 * (malloc, already touched) and from pinned memory (hk_host_malloc), through
 * hipkit's synchronous copies. Pinned is the bus's ceiling; the ratio of
 * pageable to pinned is the figure that matters. Median of 7 after a warm-up. */
#include <hipkit/hipkit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES ((size_t)256 << 20)
#define REPEATS 7

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double gbps(int to_device, void *device, void *host)
{
    double times[REPEATS];
    for (int r = -1; r < REPEATS; r++) {
        double t = now();
        hk_status s = to_device ? hk_memcpy_htod(device, host, BYTES) : hk_memcpy_dtoh(host, device, BYTES);
        if (s != HK_SUCCESS) {
            fprintf(stderr, "transfer_bench: %s\n", hk_last_error());
            exit(1);
        }
        if (r >= 0)
            times[r] = now() - t;
    }
    qsort(times, REPEATS, sizeof times[0], compare);
    return (double)BYTES / times[REPEATS / 2] / 1e9;
}

int main(void)
{
    int count = 0;
    if (hk_device_count(&count) != HK_SUCCESS || count == 0) {
        printf("transfer_bench: no GPU found (hk_device_count() == 0); nothing to measure.\n");
        return 0;
    }
    void *device = NULL, *pinned = NULL;
    char *pageable = malloc(BYTES);
    if (!pageable || hk_malloc(&device, BYTES) != HK_SUCCESS || hk_host_malloc(&pinned, BYTES) != HK_SUCCESS) {
        fprintf(stderr, "transfer_bench: allocation failed: %s\n", hk_last_error());
        return 1;
    }
    for (size_t i = 0; i < BYTES; i++) /* random-ish, and every page touched */
        pageable[i] = (char)(i * 2654435761u >> 13);
    memcpy(pinned, pageable, BYTES);
    double h2d_pageable = gbps(1, device, pageable), h2d_pinned = gbps(1, device, pinned);
    double d2h_pageable = gbps(0, device, pageable), d2h_pinned = gbps(0, device, pinned);
    printf("\n256 MiB copies (GB/s, median of %d)        pageable    pinned   pageable/pinned\n", REPEATS);
    printf("  host -> device (hk_memcpy_htod)        %9.1f %9.1f   %6.2f\n", h2d_pageable, h2d_pinned,
           h2d_pageable / h2d_pinned);
    printf("  device -> host (hk_memcpy_dtoh)        %9.1f %9.1f   %6.2f\n", d2h_pageable, d2h_pinned,
           d2h_pageable / d2h_pinned);
    free(pageable);
    hk_host_free(pinned);
    hk_free(device);
    return 0;
}
