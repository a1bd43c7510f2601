// reduce_cub.cu: CUB's DeviceReduce::Sum, the peer of hk_reduce's whole-array
// sum in reduce_bench.c (NVIDIA builds only). Timed with CUDA events on the
// default stream; median of `repeats` after a warm-up.
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <vector>

extern "C" double hkbench_cub_sum_ms(const float *x, size_t n, float *result, int repeats)
{
    size_t temp_bytes = 0;
    if (cub::DeviceReduce::Sum(nullptr, temp_bytes, x, result, (int64_t)n) != cudaSuccess)
        return -1;
    void *temp = nullptr;
    if (cudaMalloc(&temp, temp_bytes) != cudaSuccess)
        return -1;
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cub::DeviceReduce::Sum(temp, temp_bytes, x, result, (int64_t)n);
    std::vector<float> ms((size_t)repeats);
    for (int r = 0; r < repeats; r++) {
        cudaEventRecord(start);
        cub::DeviceReduce::Sum(temp, temp_bytes, x, result, (int64_t)n);
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        cudaEventElapsedTime(&ms[(size_t)r], start, stop);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(temp);
    const bool ok = cudaGetLastError() == cudaSuccess;
    std::sort(ms.begin(), ms.end());
    return ok ? ms[(size_t)repeats / 2] : -1;
}
