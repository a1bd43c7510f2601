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

/* Statuses meaning "there is no GPU to use here" rather than a failure. */
static inline int hk_gpu_error_means_no_device(hipError_t e)
{
    return e == hipErrorNoDevice || e == hipErrorInsufficientDriver;
}

#endif
