// cub_bench.cu: the raw ceilings the kernel library is measured against, from
// CUB (shipped with the CUDA toolkit) on the same GPU: device-to-device copy,
// DeviceReduce::Sum and DeviceScan::InclusiveSum over 2^28 float32, and
// DeviceRadixSort::SortKeys over 2^26 float32 keys. Medians of event-timed
// repeats after a warm-up, on random data. Prints one "name value unit" line
// each, which bench/library_bench.py reads. Not a test: nothing is asserted
// beyond the CUDA calls succeeding.
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            std::fprintf(stderr, "cub_bench: %s failed: %s\n", #call, cudaGetErrorString(e_));                         \
            std::exit(1);                                                                                              \
        }                                                                                                              \
    } while (0)

// Median over `repeats` of the time of `inner` back-to-back calls, divided by
// inner: the device's time per call, with the host's submission cost hidden
// behind the queue (library_bench.py times hipkit and the peers the same way).
template <typename F> static double median_ms(F run, int repeats = 20, int inner = 10)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    run();
    run();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> times;
    for (int i = 0; i < repeats; i++) {
        CHECK(cudaEventRecord(a));
        for (int k = 0; k < inner; k++)
            run();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        times.push_back(ms / (float)inner);
    }
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

__global__ void random_floats(float *x, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned v = (unsigned)(i * 2654435761u) ^ seed;
        v ^= v >> 16;
        v *= 0x7feb352dU;
        v ^= v >> 15;
        v *= 0x846ca68bU;
        v ^= v >> 16;
        x[i] = (float)(v >> 8) * (1.0f / 16777216.0f) - 0.5f;
    }
}

int main()
{
    const size_t n = size_t(1) << 28, sort_n = size_t(1) << 26;
    float *x, *y;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    random_floats<<<4096, 256>>>(x, n, 12345u);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    double copy_ms = median_ms([&] { CHECK(cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice)); });
    std::printf("copy %.1f GB/s\n", 2.0 * n * sizeof(float) / (copy_ms * 1e6));

    size_t reduce_bytes = 0, scan_bytes = 0, sort_bytes = 0;
    CHECK(cub::DeviceReduce::Sum(nullptr, reduce_bytes, x, y, (int)n));
    CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, x, y, (int)n));
    CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, x, y, (int)sort_n));
    void *scratch;
    size_t scratch_bytes = std::max(reduce_bytes, std::max(scan_bytes, sort_bytes));
    CHECK(cudaMalloc(&scratch, scratch_bytes));

    double sum_ms = median_ms([&] { CHECK(cub::DeviceReduce::Sum(scratch, reduce_bytes, x, y, (int)n)); });
    std::printf("sum %.1f GB/s\n", n * sizeof(float) / (sum_ms * 1e6));
    double scan_ms = median_ms([&] { CHECK(cub::DeviceScan::InclusiveSum(scratch, scan_bytes, x, y, (int)n)); });
    std::printf("cumsum %.1f GB/s\n", 2.0 * n * sizeof(float) / (scan_ms * 1e6));
    double sort_ms = median_ms([&] { CHECK(cub::DeviceRadixSort::SortKeys(scratch, sort_bytes, x, y, (int)sort_n)); });
    std::printf("sort %.1f Mkeys/s\n", sort_n / (sort_ms * 1e3));

    CHECK(cudaFree(scratch));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    return 0;
}
