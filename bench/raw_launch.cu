// raw_launch.cu: the vendor baseline for pool_bench's launch figures: an empty
// kernel launched straight through the CUDA runtime (NVIDIA builds only).
#include <cuda_runtime.h>

#include "raw_launch.h"

__global__ void empty_kernel() {}

extern "C" int raw_empty_launches(long iterations, int synchronize_each)
{
    for (long i = 0; i < iterations; i++) {
        empty_kernel<<<1, 1>>>();
        if (synchronize_each) {
            cudaError_t e = cudaStreamSynchronize(0);
            if (e != cudaSuccess)
                return static_cast<int>(e);
        }
    }
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(0);
    return static_cast<int>(e);
}
