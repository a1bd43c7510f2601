/* hip_to_cuda.h: the subset of the HIP runtime API hipkit uses, mapped onto
 * the CUDA runtime (CUDA 12 and 13). A HIP name not listed here is a compile
 * error on NVIDIA, never a silent stub: add it here when code starts using it.
 * Inline wrappers stand where the signatures differ. */
#ifndef HIPKIT_HIP_TO_CUDA_H
#define HIPKIT_HIP_TO_CUDA_H

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#else
#include <cuda_runtime_api.h>
#endif

/* types */
#define hipError_t cudaError_t
#define hipStream_t cudaStream_t
#define hipEvent_t cudaEvent_t
typedef struct cudaDeviceProp hipDeviceProp_t; /* a struct tag in C */

/* error codes */
#define hipSuccess cudaSuccess
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorInsufficientDriver cudaErrorInsufficientDriver
#define hipErrorInvalidDevice cudaErrorInvalidDevice
#define hipErrorNotReady cudaErrorNotReady
#define hipErrorInvalidHandle cudaErrorInvalidResourceHandle
#define hipErrorLaunchFailure cudaErrorLaunchFailure
#define hipErrorInvalidConfiguration cudaErrorInvalidConfiguration
#define hipErrorLaunchOutOfResources cudaErrorLaunchOutOfResources
#define hipErrorIllegalAddress cudaErrorIllegalAddress
#define hipErrorNoBinaryForGpu cudaErrorNoKernelImageForDevice
#define hipErrorInvalidDeviceFunction cudaErrorInvalidDeviceFunction

/* errors */
#define hipGetErrorName cudaGetErrorName
#define hipGetErrorString cudaGetErrorString
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError

/* runtime and devices */
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipDriverGetVersion cudaDriverGetVersion
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipSetDevice cudaSetDevice
#define hipGetDevice cudaGetDevice
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipMemGetInfo cudaMemGetInfo

/* streams and events */
#define hipStreamCreate cudaStreamCreate
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamQuery cudaStreamQuery
#define hipStreamWaitEvent cudaStreamWaitEvent
#define hipEventCreate cudaEventCreate
#define hipEventCreateWithFlags cudaEventCreateWithFlags
#define hipEventDisableTiming cudaEventDisableTiming
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventQuery cudaEventQuery
#define hipEventElapsedTime cudaEventElapsedTime

/* memory */
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipHostMallocDefault cudaHostAllocDefault
#define hipHostFree cudaFreeHost
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync

/* loaded code: HIP's module/function are the CUDA runtime's library/kernel
 * (CUDA 12+), which load run-time-compiled code without the driver API. */
typedef cudaLibrary_t hipModule_t;
typedef cudaKernel_t hipFunction_t;
#define hipErrorNotFound cudaErrorSymbolNotFound
#define hipErrorInvalidImage cudaErrorInvalidKernelImage
#define hipErrorSharedObjectInitFailed cudaErrorSharedObjectInitFailed

static inline cudaError_t hipModuleLoadData(hipModule_t *module, const void *image)
{
    return cudaLibraryLoadData(module, image, NULL, NULL, 0, NULL, NULL, 0);
}

static inline cudaError_t hipModuleUnload(hipModule_t module)
{
    return cudaLibraryUnload(module);
}

static inline cudaError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module, const char *name)
{
    return cudaLibraryGetKernel(function, module, name);
}

static inline cudaError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int grid_x, unsigned int grid_y,
                                                unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                                                unsigned int block_z, unsigned int shared_bytes, hipStream_t stream,
                                                void **params, void **extra)
{
    (void)extra;
    dim3 grid = {grid_x, grid_y, grid_z}, block = {block_x, block_y, block_z};
    return cudaLaunchKernel((const void *)f, grid, block, params, shared_bytes, stream);
}

static inline cudaError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, hipFunction_t f,
                                                                             int block_size, size_t shared_bytes)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, (const void *)f, block_size, shared_bytes);
}

typedef enum hipFunction_attribute {
    HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
    HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
    HIP_FUNC_ATTRIBUTE_NUM_REGS,
    HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
} hipFunction_attribute;

/* HIP's driver-style per-attribute query over CUDA's struct query. */
static inline cudaError_t hipFuncGetAttribute(int *value, hipFunction_attribute attribute, hipFunction_t f)
{
    struct cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, (const void *)f);
    if (e != cudaSuccess)
        return e;
    switch (attribute) {
    case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = a.maxThreadsPerBlock; break;
    case HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = (int)a.sharedSizeBytes; break;
    case HIP_FUNC_ATTRIBUTE_NUM_REGS: *value = a.numRegs; break;
    case HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = a.maxDynamicSharedSizeBytes; break;
    }
    return cudaSuccess;
}

/* HIP's hipHostMalloc(ptr, size, flags) is CUDA's cudaHostAlloc. */
static inline cudaError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
    return cudaHostAlloc(ptr, size, flags);
}

/* ---- resident blocks of a kernel, for sizing split reductions */
#define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor

#endif
