/* fast_launch_nvidia.c: cuKernelGetFunction and cuLaunchKernel, fetched from
 * the driver through the CUDA runtime once, and the functions of the built-in
 * kernels (see fast_launch.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../core/settings.h"
#include "fast_launch.h"

typedef int (*kernel_get_function_fn)(void **function, cudaKernel_t kernel);
typedef int (*launch_kernel_fn)(void *f, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                                unsigned int, unsigned int, cudaStream_t, void **, void **);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static kernel_get_function_fn kernel_get_function;
static launch_kernel_fn launch_kernel;

static void load(void)
{
    if (hk__settings_launch_api_runtime())
        return;
    void *get = NULL, *launch = NULL;
    enum cudaDriverEntryPointQueryResult found_get, found_launch;
    if (cudaGetDriverEntryPointByVersion("cuKernelGetFunction", &get, 12000, cudaEnableDefault, &found_get) !=
            cudaSuccess ||
        cudaGetDriverEntryPointByVersion("cuLaunchKernel", &launch, 12000, cudaEnableDefault, &found_launch) !=
            cudaSuccess ||
        found_get != cudaDriverEntryPointSuccess || found_launch != cudaDriverEntryPointSuccess || !get || !launch) {
        (void)cudaGetLastError();
        return;
    }
    kernel_get_function = (kernel_get_function_fn)get;
    launch_kernel = (launch_kernel_fn)launch;
}

void *hk_gpu_fast_function(hipFunction_t f)
{
    pthread_once(&once, load);
    void *function = NULL;
    if (!kernel_get_function || !launch_kernel || kernel_get_function(&function, f) != 0)
        return NULL;
    return function;
}

void *hk_gpu_static_function(const void *symbol)
{
    pthread_once(&once, load);
    cudaFunction_t function = NULL;
    if (!launch_kernel)
        return NULL;
    if (cudaGetFuncBySymbol(&function, symbol) != cudaSuccess) {
        (void)cudaGetLastError(); /* not this launch's error: the runtime's launch reports its own */
        return NULL;
    }
    return (void *)function;
}

int hk_gpu_fast_launch(void *function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                       unsigned int block_x, unsigned int block_y, unsigned int block_z, unsigned int shared_bytes,
                       hipStream_t stream, void **params)
{
    return launch_kernel(function, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes, stream, params,
                         NULL);
}
