/* gpu_module.c: the GPU kind's modules of run-time-compiled code: loading, kernels and their
 * attributes, occupancy, and the launch (the driver's direct one where gpu/fast_launch.h has it). */
#include "gpu/fast_launch.h"
#include "kinds/gpu_internal.h"

hk_status hk__gpu_module_load(const char *fn, const char *what, void **module, const void *binary,
                              size_t binary_size)
{
    (void)binary_size; /* the vendor reads the size from the code object or PTX itself */
    hipModule_t vendor;
    hipError_t e = hipModuleLoadData(&vendor, binary);
    if (e != hipSuccess)
        return hk__fail_gpu(e, fn, what);
    *module = (void *)vendor;
    return HK_SUCCESS;
}

hk_status hk__gpu_module_unload(const char *fn, void *module)
{
    return hk__gpu_check(fn, hipModuleUnload((hipModule_t)module), "hipModuleUnload");
}

hk_status hk__gpu_module_function(const char *fn, void *module, const char *name, void **function, void **fast)
{
    hipFunction_t vendor;
    hipError_t e = hipModuleGetFunction(&vendor, (hipModule_t)module, name);
    if (e == hipErrorNotFound || e == hipErrorInvalidValue) {
        (void)hipGetLastError();
        *function = *fast = NULL;
        return HK_SUCCESS;
    }
    if (e != hipSuccess)
        return hk__fail_gpu(e, fn, "hipModuleGetFunction");
    *function = (void *)vendor;
    *fast = hk_gpu_fast_function(vendor);
    return HK_SUCCESS;
}

hk_status hk__gpu_function_attributes(const char *fn, void *function, int *max_threads_per_block,
                                      size_t *static_shared_bytes, int *registers_per_thread)
{
    hipFunction_t f = (hipFunction_t)function;
    int static_shared = 0;
    hipError_t e = hipFuncGetAttribute(max_threads_per_block, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
    if (e == hipSuccess)
        e = hipFuncGetAttribute(&static_shared, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
    if (e == hipSuccess)
        e = hipFuncGetAttribute(registers_per_thread, HIP_FUNC_ATTRIBUTE_NUM_REGS, f);
    if (e != hipSuccess)
        return hk__fail_gpu(e, fn, "reading the kernel's attributes");
    *static_shared_bytes = (size_t)static_shared;
    return HK_SUCCESS;
}

int hk__gpu_function_param_count(void *function)
{
    return hk_gpu_kernel_param_count((hipFunction_t)function);
}

hk_status hk__gpu_function_allow_shared(const char *fn, void *function, size_t bytes)
{
    return hk__gpu_check(fn, hk_gpu_allow_dynamic_shared((hipFunction_t)function, bytes),
                         "raising the kernel's dynamic shared memory limit");
}

hk_status hk__gpu_function_occupancy(const char *fn, void *function, int block_size, size_t shared_bytes, int *blocks)
{
    return hk__gpu_check(
        fn,
        hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(blocks, (hipFunction_t)function, block_size, shared_bytes),
        "computing occupancy");
}

hk_status hk__gpu_launch_function(const char *fn, const char *name, void *function, void *fast,
                                  const unsigned int grid[3], const unsigned int block[3], size_t shared_bytes,
                                  void *stream, void **params)
{
    if (fast && hk_gpu_fast_launch(fast, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                   (unsigned int)shared_bytes, (hipStream_t)stream, params) == 0)
        return HK_SUCCESS;
    /* The runtime's launch: the usual path where there is no direct one, and the one that reports an
     * error in the runtime's words. */
    hipError_t e = hipModuleLaunchKernel((hipFunction_t)function, grid[0], grid[1], grid[2], block[0], block[1],
                                         block[2], (unsigned int)shared_bytes, (hipStream_t)stream, params, NULL);
    if (e != hipSuccess) {
        char what[160];
        snprintf(what, sizeof what, "launching %s", name);
        return hk__fail_gpu(e, fn, what);
    }
    return HK_SUCCESS;
}
