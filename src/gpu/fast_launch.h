/* fast_launch.h: launching a kernel with as little work per call as the
 * vendor allows. On NVIDIA the runtime's cudaLaunchKernel (and <<<>>>) looks
 * the kernel up for the current context on every call; the driver's
 * cuLaunchKernel on the context's own function does not. The driver entry
 * points are fetched through the runtime (no link against libcuda), once.
 * HIPKIT_LAUNCH_API=runtime turns this off. Used for run-time-compiled
 * kernels (kinds/gpu_module.c) and the built-in ones (hip_kernels/launch.h). On AMD,
 * hipModuleLaunchKernel already is the direct path: nothing here. */
#ifndef HIPKIT_GPU_FAST_LAUNCH_H
#define HIPKIT_GPU_FAST_LAUNCH_H

#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(HIPKIT_PLATFORM_NVIDIA)
#define HK_GPU_FAST_LAUNCH 1 /* the functions below can launch; else they are stubs that decline */
/* The driver's function for kernel f in the current context, or NULL. */
void *hk_gpu_fast_function(hipFunction_t f);
/* The driver's function for a kernel compiled into this library (its host
 * symbol, as <<<>>> takes it) in the current context, or NULL. */
void *hk_gpu_static_function(const void *symbol);
/* 0 on success; otherwise the caller falls back to the runtime's launch,
 * which reports the error with the runtime's own message. */
int hk_gpu_fast_launch(void *function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                       unsigned int block_x, unsigned int block_y, unsigned int block_z, unsigned int shared_bytes,
                       hipStream_t stream, void **params);
#else
#define HK_GPU_FAST_LAUNCH 0
static inline void *hk_gpu_fast_function(hipFunction_t f)
{
    (void)f;
    return NULL;
}
static inline void *hk_gpu_static_function(const void *symbol)
{
    (void)symbol;
    return NULL;
}
static inline int hk_gpu_fast_launch(void *function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                                     unsigned int block_x, unsigned int block_y, unsigned int block_z,
                                     unsigned int shared_bytes, hipStream_t stream, void **params)
{
    (void)function, (void)grid_x, (void)grid_y, (void)grid_z, (void)block_x, (void)block_y, (void)block_z;
    (void)shared_bytes, (void)stream, (void)params;
    return -1;
}
#endif

#ifdef __cplusplus
}
#endif

#endif
