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

/* HIP's hipHostMalloc(ptr, size, flags) is CUDA's cudaHostAlloc. */
static inline cudaError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
    return cudaHostAlloc(ptr, size, flags);
}

#endif
