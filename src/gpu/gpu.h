/* gpu.h: the one vendor seam. Everything else in hipkit uses HIP names; this
 * header makes them mean the HIP runtime (AMD) or, through hip_to_cuda.h, the
 * CUDA runtime (NVIDIA). Included by src/ (C11) and hip_kernels/ (HIP C++). */
#ifndef HIPKIT_GPU_H
#define HIPKIT_GPU_H

#include <stdio.h>
#include <string.h>

#if defined(HIPKIT_PLATFORM_NVIDIA)
#include "hip_to_cuda.h"
#define HK_GPU_PLATFORM HK_PLATFORM_NVIDIA
#elif defined(HIPKIT_PLATFORM_AMD)
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#else
#include <hip/hip_runtime_api.h>
#endif
#define HK_GPU_PLATFORM HK_PLATFORM_AMD
#else
#error "define HIPKIT_PLATFORM_NVIDIA or HIPKIT_PLATFORM_AMD (CMake's HIPKIT_PLATFORM does)"
#endif

/* Architecture string users pass back to us: "gfx90a" (no feature suffix such
 * as ":sramecc+:xnack-") or "sm_90". */
static inline void hk_gpu_arch_name(const hipDeviceProp_t *prop, char *out, size_t size)
{
#if defined(HIPKIT_PLATFORM_NVIDIA)
    snprintf(out, size, "sm_%d%d", prop->major, prop->minor);
#else
    size_t i = 0;
    for (; i + 1 < size && prop->gcnArchName[i] && prop->gcnArchName[i] != ':'; i++)
        out[i] = prop->gcnArchName[i];
    out[i] = '\0';
#endif
}

/* The most dynamic shared memory one block of `f` may ask for, raising the
 * kernel's limit when the vendor needs that (NVIDIA, above 48 KiB). */
static inline hipError_t hk_gpu_max_dynamic_shared(const hipDeviceProp_t *prop, int static_bytes, size_t *bytes)
{
#if defined(HIPKIT_PLATFORM_NVIDIA)
    size_t limit = prop->sharedMemPerBlockOptin;
#else
    size_t limit = prop->sharedMemPerBlock;
#endif
    *bytes = limit > (size_t)static_bytes ? limit - (size_t)static_bytes : 0;
    return hipSuccess;
}

static inline hipError_t hk_gpu_allow_dynamic_shared(hipFunction_t f, size_t bytes)
{
#if defined(HIPKIT_PLATFORM_NVIDIA)
    return cudaFuncSetAttribute((const void *)f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
#else
    (void)f;
    (void)bytes; /* AMD has no opt-in: the whole LDS is available */
    return hipSuccess;
#endif
}

/* Number of parameters recorded in the loaded code, or -1 when the vendor
 * cannot tell (AMD). */
static inline int hk_gpu_kernel_param_count(hipFunction_t f)
{
#if defined(HIPKIT_PLATFORM_NVIDIA)
    int count = 0;
    size_t offset, size;
    while (count < 4096 && cudaFuncGetParamInfo((const void *)f, (size_t)count, &offset, &size) == cudaSuccess)
        count++;
    (void)cudaGetLastError(); /* the probe past the end is expected to fail */
    return count;
#else
    (void)f;
    return -1;
#endif
}

/* Is [ptr] page-locked host memory the DMA engines can read directly? Any
 * failure of the query means "no" (plain pageable memory on HIP 5.2). */
static inline int hk_gpu_host_is_pinned(const void *ptr)
{
#if defined(HIPKIT_PLATFORM_NVIDIA)
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
#else
    hipPointerAttribute_t a;
    if (hipPointerGetAttributes(&a, ptr) != hipSuccess) {
        (void)hipGetLastError();
        return 0;
    }
    return a.memoryType == hipMemoryTypeHost;
#endif
}

/* Statuses meaning "there is no GPU to use here" rather than a failure. */
static inline int hk_gpu_error_means_no_device(hipError_t e)
{
    return e == hipErrorNoDevice || e == hipErrorInsufficientDriver;
}

#endif
