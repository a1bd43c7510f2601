/* first_array.cu: the C baseline of bench/import_bench.py, what a new process needs before it has a sum
 * of 1000 floats computed on the GPU: the runtime's context, an allocation, a copy in, one kernel, the
 * copy back. Prints the sum; exit status 1 on any CUDA error or a wrong sum. */
#include <stdio.h>

#include <cuda_runtime.h>

__global__ void sum_kernel(const float *x, int n, float *out)
{
    __shared__ float part[256];
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s += x[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w)
            part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *out = part[0];
}

#define CHECK(call)                                                                                                   \
    do {                                                                                                               \
        cudaError_t e = (call);                                                                                       \
        if (e != cudaSuccess) {                                                                                       \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));                                               \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

int main(void)
{
    enum { N = 1000 };
    float host[N], sum = 0.0f, *x = NULL, *out = NULL;
    for (int i = 0; i < N; i++)
        host[i] = 1.0f;
    CHECK(cudaMalloc((void **)&x, sizeof host));
    CHECK(cudaMalloc((void **)&out, sizeof(float)));
    CHECK(cudaMemcpy(x, host, sizeof host, cudaMemcpyHostToDevice));
    sum_kernel<<<1, 256>>>(x, N, out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&sum, out, sizeof sum, cudaMemcpyDeviceToHost));
    printf("%g\n", sum);
    return sum == (float)N ? 0 : 1;
}
