// raw_launch.cu: the vendor baselines for pool_bench's launch figures, launched
// straight through the CUDA runtime (NVIDIA builds only): an empty kernel, and
// an add of float32 vectors shaped like the contiguous elementwise kernel's (16-byte vectors, then a
// scalar tail; 4 arguments; one block of 256 for small n).
#include <cuda_runtime.h>

#include "raw_launch.h"

// Exported from libraw_launch.so (the project builds with hidden visibility).
#define RAW_API extern "C" __attribute__((visibility("default")))

__global__ void empty_kernel() {}

struct alignas(16) float4_ {
    float v[4];
};

__global__ void add_kernel(const float *a, const float *b, float *out, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x, first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t nvec = n / 4;
    for (size_t i = first; i < nvec; i += stride) {
        float4_ x = reinterpret_cast<const float4_ *>(a)[i], y = reinterpret_cast<const float4_ *>(b)[i], r;
        for (int k = 0; k < 4; k++)
            r.v[k] = x.v[k] + y.v[k];
        reinterpret_cast<float4_ *>(out)[i] = r;
    }
    for (size_t i = nvec * 4 + first; i < n; i += stride)
        out[i] = a[i] + b[i];
}

static int finish(void (*issued)(void))
{
    cudaError_t e = cudaGetLastError();
    if (issued)
        issued();
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(0);
    return static_cast<int>(e);
}

RAW_API int raw_empty_launches(long iterations, int synchronize_each, void (*issued)(void))
{
    for (long i = 0; i < iterations; i++) {
        empty_kernel<<<1, 1>>>();
        if (synchronize_each) {
            cudaError_t e = cudaStreamSynchronize(0);
            if (e != cudaSuccess)
                return static_cast<int>(e);
        }
    }
    return finish(issued);
}

RAW_API int raw_add_launches(long iterations, const float *a, const float *b, float *out, void (*issued)(void))
{
    for (long i = 0; i < iterations; i++)
        add_kernel<<<1, 256>>>(a, b, out, 1);
    return finish(issued);
}
