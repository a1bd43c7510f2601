/* cpu_rtc.c: user kernels on the CPU device. Not there yet: every entry refuses with a sentence that
 * says so, and what to do instead. */
#include "kinds/cpu_internal.h"

#define NO_USER_KERNELS                                                                                               \
    "the CPU device does not run user kernels yet (RawKernel, RawModule, ElementwiseKernel, ReductionKernel); "      \
    "run them on a GPU, or use the built-in ops on the CPU device"

static hk_status refuse(const char *fn)
{
    return hk__fail(HK_ERROR_NOT_SUPPORTED, fn, NO_USER_KERNELS);
}

hk_status hk__cpu_module_load(const char *fn, const char *what, void **module, const void *binary)
{
    (void)what, (void)module, (void)binary;
    return refuse(fn);
}

hk_status hk__cpu_module_unload(const char *fn, void *module)
{
    (void)module;
    return refuse(fn);
}

hk_status hk__cpu_module_function(const char *fn, void *module, const char *name, void **function, void **fast)
{
    (void)module, (void)name, (void)function, (void)fast;
    return refuse(fn);
}

hk_status hk__cpu_function_attributes(const char *fn, void *function, int *max_threads_per_block,
                                      size_t *static_shared_bytes, int *registers_per_thread)
{
    (void)function, (void)max_threads_per_block, (void)static_shared_bytes, (void)registers_per_thread;
    return refuse(fn);
}

int hk__cpu_function_param_count(void *function)
{
    (void)function;
    return -1;
}

hk_status hk__cpu_function_allow_shared(const char *fn, void *function, size_t bytes)
{
    (void)function, (void)bytes;
    return refuse(fn);
}

hk_status hk__cpu_function_occupancy(const char *fn, void *function, int block_size, size_t shared_bytes, int *blocks)
{
    (void)function, (void)block_size, (void)shared_bytes, (void)blocks;
    return refuse(fn);
}

hk_status hk__cpu_launch_function(const char *fn, const char *name, void *function, void *fast,
                                  const unsigned int grid[3], const unsigned int block[3], size_t shared_bytes,
                                  void *stream, void **params)
{
    (void)name, (void)function, (void)fast, (void)grid, (void)block, (void)shared_bytes, (void)stream, (void)params;
    return refuse(fn);
}

const char *hk__cpu_rtc_unavailable(void)
{
    return NO_USER_KERNELS;
}

hk_status hk__cpu_rtc_version(const char *fn, int *major, int *minor)
{
    (void)major, (void)minor;
    return refuse(fn);
}

hk_status hk__cpu_rtc_check_target(const char *fn, const char *target)
{
    (void)target;
    return refuse(fn);
}

hk_status hk__cpu_rtc_compile(const char *fn, const char *source, const char *name, const char *target,
                              const char *prelude, const char *const *options, int num_options, void **binary,
                              size_t *binary_size, char **log)
{
    (void)source, (void)name, (void)target, (void)prelude, (void)options, (void)num_options, (void)binary,
        (void)binary_size, (void)log;
    return refuse(fn);
}
