/* scan_sort_gpu.c: the GPU backend of hk_scan and hk_sort: pool scratch for
 * the look-backs and radix passes, the kernels of hip_kernels/scan.hip and
 * hip_kernels/sort.hip, every status checked. */
#include "core/settings.h"
#include "kinds/scan_sort_internal.h"

static hkk_launch scan_sort_launch(void *stream)
{
    int device = hk__current_device();
    hkk_launch l = {stream, hk__device_properties(device)->multiprocessor_count, device, hk__settings_kernel_tuning()};
    return l;
}

/* Runs `kernels` with `bytes` of stream-ordered pool scratch (none for 0). */
static hk_status scan_sort_with_scratch(const char *fn, void *stream, size_t bytes, const char *what,
                                        int (*kernels)(const hkk_launch *, const void *, void *), const void *args)
{
    hkk_launch l = scan_sort_launch(stream);
    void *scratch = NULL;
    if (bytes) {
        hk_status s = hk__pool_alloc(fn, &scratch, bytes, stream);
        if (s != HK_SUCCESS)
            return s;
    }
    int e = kernels(&l, args, scratch);
    hk_status s = e == 0 ? HK_SUCCESS : hk__fail_gpu(e, fn, what);
    /* Stream-ordered: the block is reused only after the kernels queued on this stream. */
    if (scratch) {
        hk_status f = hk__pool_free(fn, scratch, stream, false);
        if (s == HK_SUCCESS)
            s = f;
    }
    return s;
}

static int scan_sort_run_scan(const hkk_launch *l, const void *args, void *scratch)
{
    return hkk_scan(l, (const hkk_scan_args *)args, scratch);
}

static int scan_sort_run_sort(const hkk_launch *l, const void *args, void *scratch)
{
    return hkk_sort(l, (const hkk_sort_args *)args, scratch);
}

hk_status hk__gpu_scan(const char *fn, void *stream, const hkk_scan_args *args)
{
    hkk_launch l = scan_sort_launch(stream);
    return scan_sort_with_scratch(fn, stream, hkk_scan_scratch_bytes(&l, args), "launching the scan kernels",
                                  scan_sort_run_scan, args);
}

hk_status hk__gpu_sort(const char *fn, void *stream, const hkk_sort_args *args)
{
    hkk_launch l = scan_sort_launch(stream);
    return scan_sort_with_scratch(fn, stream, hkk_sort_scratch_bytes(&l, args), "launching the sort kernels",
                                  scan_sort_run_sort, args);
}
