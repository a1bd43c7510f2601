// scan_sort_bench.cu: hk_scan and hk_sort against CUB (the CUDA toolkit's
// DeviceScan, DeviceRadixSort, DeviceSegmentedSort) and against the
// device-to-device copy, on the same GPU in the same run (NVIDIA builds
// only). Times are medians of 7 after a warm-up, from CUDA events on the
// default stream, which hipkit's NULL stream also is. Usage:
// scan_sort_bench [log2 scan size = 28] [log2 sort size = 26]
#include <hipkit/hipkit.h>

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace
{

void check_cuda(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "scan_sort_bench: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

void check_hk(hk_status s, const char *what)
{
    if (s != HK_SUCCESS) {
        std::fprintf(stderr, "scan_sort_bench: %s: %s\n", what, hk_last_error());
        std::exit(1);
    }
}

template <typename F> double median_ms(F run)
{
    cudaEvent_t start, stop;
    check_cuda(cudaEventCreate(&start), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
    run(); // warm-up: pool blocks, module loading
    check_cuda(cudaDeviceSynchronize(), "warm-up");
    std::vector<float> times;
    for (int r = 0; r < 7; r++) {
        check_cuda(cudaEventRecord(start, 0), "cudaEventRecord");
        run();
        check_cuda(cudaEventRecord(stop, 0), "cudaEventRecord");
        check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float ms = 0;
        check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        times.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

hk_array view(void *data, hk_dtype dtype, std::vector<int64_t> shape)
{
    hk_array a{};
    a.data = data;
    a.dtype = dtype;
    a.ndim = (int)shape.size();
    int64_t step = 1;
    for (int k = a.ndim - 1; k >= 0; k--) {
        a.shape[k] = shape[k];
        a.strides[k] = step;
        step *= shape[k];
    }
    return a;
}

void *device(size_t bytes)
{
    void *p = nullptr;
    check_hk(hk_malloc(&p, bytes), "hk_malloc");
    return p;
}

// CUB's temporary storage, sized by a first call.
struct Temp {
    void *p = nullptr;
    size_t bytes = 0;
    void need(size_t b)
    {
        if (b > bytes) {
            if (p)
                cudaFree(p);
            check_cuda(cudaMalloc(&p, b), "cudaMalloc (CUB temporary storage)");
            bytes = b;
        }
    }
};

__global__ void iota64(int64_t *v, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        v[i] = (int64_t)i;
}

__global__ void row_offsets(int *offsets, int rows, int length)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= rows; i += gridDim.x * blockDim.x)
        offsets[i] = i * length;
}

} // namespace

int main(int argc, char **argv)
{
    int count = 0;
    if (hk_device_count(&count) != HK_SUCCESS || count == 0) {
        std::printf("scan_sort_bench: no GPU found (hk_device_count() == 0); nothing to measure.\n");
        return 0;
    }
    const int scan_log2 = argc > 1 ? std::atoi(argv[1]) : 28;
    const int sort_log2 = argc > 2 ? std::atoi(argv[2]) : 26;
    const size_t n = (size_t)1 << scan_log2, m = (size_t)1 << sort_log2;
    hk_device_info info;
    check_hk(hk_device_get_info(0, &info), "hk_device_get_info");
    std::printf("\nscan_sort_bench on %s (%d SMs); medians of 7\n", info.name, info.multiprocessor_count);

    Temp temp;
    // ---------------------------------------------------------------- scans
    float *x = (float *)device(n * 4), *y = (float *)device(n * 4);
    check_hk(hk_random_uniform(x, HK_FLOAT32, n, 1, 0, -1.0, 1.0, nullptr), "hk_random_uniform");
    const double copy_ms = median_ms([&] { check_cuda(cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice, 0), "copy"); });
    const double copy_gbs = 2.0 * n * 4 / copy_ms / 1e6;
    std::printf("\n%-52s %10s %10s %8s\n", "scan", "hipkit", "peer", "ratio");
    std::printf("  device-to-device copy, %zu MiB (GB/s r+w)           %10s %10.0f\n", n * 4 >> 20, "", copy_gbs);

    hk_array a = view(x, HK_FLOAT32, {(int64_t)n}), b = view(y, HK_FLOAT32, {(int64_t)n});
    const double hk_scan_ms = median_ms([&] { check_hk(hk_scan(HK_SCAN_CUMSUM, &a, 0, &b, nullptr), "hk_scan"); });
    size_t tb = 0;
    cub::DeviceScan::InclusiveSum(nullptr, tb, x, y, (int)n);
    temp.need(tb);
    const double cub_scan_ms =
        median_ms([&] { check_cuda(cub::DeviceScan::InclusiveSum(temp.p, tb, x, y, (int)n), "cub InclusiveSum"); });
    std::printf("  cumsum float32, 2^%d (GB/s r+w; peer: CUB)          %10.0f %10.0f %8.2f\n", scan_log2,
                2.0 * n * 4 / hk_scan_ms / 1e6, 2.0 * n * 4 / cub_scan_ms / 1e6, cub_scan_ms / hk_scan_ms);
    const double hk_in_place_ms =
        median_ms([&] { check_hk(hk_scan(HK_SCAN_CUMPROD, &b, 0, &b, nullptr), "hk_scan in place"); });
    std::printf("  cumprod float32 in place, 2^%d (GB/s r+w; peer: copy) %8.0f %10.0f %8.2f\n", scan_log2,
                2.0 * n * 4 / hk_in_place_ms / 1e6, copy_gbs, copy_ms / hk_in_place_ms);

    int64_t *z = (int64_t *)device(n * 8);
    hk_array ai = view(x, HK_INT32, {(int64_t)n}), bi = view(z, HK_INT64, {(int64_t)n});
    const double hk_int_ms = median_ms([&] { check_hk(hk_scan(HK_SCAN_CUMSUM, &ai, 0, &bi, nullptr), "hk_scan int"); });
    cub::DeviceScan::InclusiveSum(nullptr, tb, (const int *)x, z, (int)n);
    temp.need(tb);
    const double cub_int_ms = median_ms(
        [&] { check_cuda(cub::DeviceScan::InclusiveSum(temp.p, tb, (const int *)x, z, (int)n), "cub InclusiveSum"); });
    std::printf("  cumsum int32 -> int64, 2^%d (GB/s r+w; peer: CUB)   %10.0f %10.0f %8.2f\n", scan_log2,
                12.0 * n / hk_int_ms / 1e6, 12.0 * n / cub_int_ms / 1e6, cub_int_ms / hk_int_ms);

    const int64_t side = 8192;
    if ((size_t)(side * side) <= n) {
        hk_array ma = view(x, HK_FLOAT32, {side, side}), mb = view(y, HK_FLOAT32, {side, side});
        for (int axis = 0; axis < 2; axis++) {
            const double ms = median_ms([&] { check_hk(hk_scan(HK_SCAN_CUMSUM, &ma, axis, &mb, nullptr), "axis"); });
            std::printf("  cumsum float32 8192 x 8192 along axis %d (GB/s; peer: copy) %4.0f %10.0f %8.2f\n", axis,
                        8.0 * side * side / ms / 1e6, copy_gbs, (8.0 * side * side / ms / 1e6) / copy_gbs);
        }
        hk_array sa = view(x, HK_FLOAT32, {(int64_t)(n / 100), 100}), sb = view(y, HK_FLOAT32, {(int64_t)(n / 100), 100});
        const double ms = median_ms([&] { check_hk(hk_scan(HK_SCAN_CUMSUM, &sa, 1, &sb, nullptr), "rows"); });
        std::printf("  cumsum float32 rows of 100 (GB/s; peer: copy)       %10.0f %10.0f %8.2f\n",
                    8.0 * (n / 100 * 100) / ms / 1e6, copy_gbs, (8.0 * (n / 100 * 100) / ms / 1e6) / copy_gbs);
    }
    hk_free(z);

    // ---------------------------------------------------------------- sorts
    std::printf("\n%-52s %10s %10s %8s\n", "sort (Mkeys/s)", "hipkit", "CUB", "ratio");
    float *keys = (float *)device(m * 4), *sorted = (float *)device(m * 4);
    int64_t *idx = (int64_t *)device(m * 8), *idx_in = (int64_t *)device(m * 8);
    check_hk(hk_random_uniform(keys, HK_FLOAT32, m, 2, 0, -1e6, 1e6, nullptr), "hk_random_uniform");
    hk_array k = view(keys, HK_FLOAT32, {(int64_t)m}), s = view(sorted, HK_FLOAT32, {(int64_t)m});
    hk_array ix = view(idx, HK_INT64, {(int64_t)m});

    const double hk_sort_ms = median_ms([&] { check_hk(hk_sort(&k, &s, nullptr, nullptr), "hk_sort"); });
    cub::DeviceRadixSort::SortKeys(nullptr, tb, keys, sorted, (int)m);
    temp.need(tb);
    const double cub_sort_ms =
        median_ms([&] { check_cuda(cub::DeviceRadixSort::SortKeys(temp.p, tb, keys, sorted, (int)m), "SortKeys"); });
    std::printf("  sort float32 keys, 2^%d                             %10.0f %10.0f %8.2f\n", sort_log2,
                m / hk_sort_ms / 1e3, m / cub_sort_ms / 1e3, cub_sort_ms / hk_sort_ms);

    // Already sorted keys (the output of the sort above): many equal digits per
    // warp, the histogram's and the ranking's worst case for shared atomics.
    hk_array sk = view(sorted, HK_FLOAT32, {(int64_t)m}), sk_out = view(keys, HK_FLOAT32, {(int64_t)m});
    const double hk_sorted_ms = median_ms([&] { check_hk(hk_sort(&sk, &sk_out, nullptr, nullptr), "hk_sort sorted"); });
    const double cub_sorted_ms =
        median_ms([&] { check_cuda(cub::DeviceRadixSort::SortKeys(temp.p, tb, sorted, keys, (int)m), "SortKeys"); });
    std::printf("  sort float32 keys, 2^%d, already sorted             %10.0f %10.0f %8.2f\n", sort_log2,
                m / hk_sorted_ms / 1e3, m / cub_sorted_ms / 1e3, cub_sorted_ms / hk_sorted_ms);
    check_hk(hk_random_uniform(keys, HK_FLOAT32, m, 2, 0, -1e6, 1e6, nullptr), "hk_random_uniform");

    const double hk_arg_ms = median_ms([&] { check_hk(hk_sort(&k, &s, &ix, nullptr), "hk_sort argsort"); });
    cub::DeviceRadixSort::SortPairs(nullptr, tb, keys, sorted, idx_in, idx, (int)m);
    temp.need(tb);
    const double cub_arg_ms = median_ms([&] {
        iota64<<<1024, 256>>>(idx_in, m); // what an argsort through CUB needs first
        check_cuda(cub::DeviceRadixSort::SortPairs(temp.p, tb, keys, sorted, idx_in, idx, (int)m), "SortPairs");
    });
    std::printf("  sort float32 keys + int64 indices, 2^%d              %10.0f %10.0f %8.2f\n", sort_log2,
                m / hk_arg_ms / 1e3, m / cub_arg_ms / 1e3, cub_arg_ms / hk_arg_ms);

    double *dkeys = (double *)device(m * 8), *dsorted = (double *)device(m * 8);
    check_hk(hk_random_uniform(dkeys, HK_FLOAT64, m, 3, 0, -1e6, 1e6, nullptr), "hk_random_uniform");
    hk_array dk = view(dkeys, HK_FLOAT64, {(int64_t)m}), ds = view(dsorted, HK_FLOAT64, {(int64_t)m});
    const double hk_d_ms = median_ms([&] { check_hk(hk_sort(&dk, &ds, nullptr, nullptr), "hk_sort f64"); });
    cub::DeviceRadixSort::SortKeys(nullptr, tb, dkeys, dsorted, (int)m);
    temp.need(tb);
    const double cub_d_ms =
        median_ms([&] { check_cuda(cub::DeviceRadixSort::SortKeys(temp.p, tb, dkeys, dsorted, (int)m), "SortKeys"); });
    std::printf("  sort float64 keys, 2^%d                             %10.0f %10.0f %8.2f\n", sort_log2,
                m / hk_d_ms / 1e3, m / cub_d_ms / 1e3, cub_d_ms / hk_d_ms);

    // Rows: long (radix over (row, key)) and short (one block per row or rows).
    int *offsets = nullptr;
    check_cuda(cudaMalloc(&offsets, sizeof(int) * ((m >> 6) + 1)), "cudaMalloc offsets");
    for (int length : {65536, 1000, 64}) {
        const int rows = (int)(m / (size_t)length);
        const size_t total = (size_t)rows * (size_t)length;
        hk_array rk = view(keys, HK_FLOAT32, {rows, length}), rs = view(sorted, HK_FLOAT32, {rows, length});
        const double hk_ms = median_ms([&] { check_hk(hk_sort(&rk, &rs, nullptr, nullptr), "hk_sort rows"); });
        row_offsets<<<256, 256>>>(offsets, rows, length);
        cub::DeviceSegmentedSort::SortKeys(nullptr, tb, keys, sorted, (int)total, rows, offsets, offsets + 1);
        temp.need(tb);
        const double cub_ms = median_ms([&] {
            check_cuda(cub::DeviceSegmentedSort::SortKeys(temp.p, tb, keys, sorted, (int)total, rows, offsets,
                                                          offsets + 1),
                       "DeviceSegmentedSort");
        });
        std::printf("  sort float32 rows: %7d x %-6d (peer: CUB segmented) %9.0f %10.0f %8.2f\n", rows, length,
                    total / hk_ms / 1e3, total / cub_ms / 1e3, cub_ms / hk_ms);
    }
    cudaFree(offsets);
    if (temp.p)
        cudaFree(temp.p);
    hk_free(x);
    hk_free(y);
    hk_free(keys);
    hk_free(sorted);
    hk_free(idx);
    hk_free(idx_in);
    hk_free(dkeys);
    hk_free(dsorted);
    return 0;
}
