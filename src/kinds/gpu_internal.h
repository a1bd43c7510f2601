/* gpu_internal.h: what the GPU kind's files (gpu_*.c) share: the check of every vendor call, the
 * launch description of the built-in kernels, and the entries its table (gpu_kind.c) is made of. */
#ifndef HIPKIT_KINDS_GPU_INTERNAL_H
#define HIPKIT_KINDS_GPU_INTERNAL_H

#include "../../hip_kernels/common/kernels.h"
#include "core/device_state.h"
#include "core/settings.h"
#include "core/status.h"
#include "gpu/gpu.h"
#include "kinds/kind.h"

/* A vendor call failed: map its error code (an int holding hipError_t) to a status, and record
 * "<function>: <what> failed on device <d> (<name>): <vendor name>: <vendor text>". */
hk_status hk__fail_gpu(int gpu_error, const char *function, const char *what);

/* Returns from the calling entry with the failure recorded unless `call` succeeds. */
#define GPU_CALL(fn, call)                                                                                             \
    do {                                                                                                               \
        hipError_t gpu_call_error_ = (call);                                                                           \
        if (gpu_call_error_ != hipSuccess)                                                                             \
            return hk__fail_gpu(gpu_call_error_, fn, #call);                                                           \
    } while (0)

/* How the built-in kernels launch on `stream` of the current device. */
static inline hkk_launch hk__gpu_launch(void *stream)
{
    int device = hk__current_device();
    return (hkk_launch){stream, hk__device_properties(device)->multiprocessor_count, device,
                        hk__settings_kernel_tuning()};
}

/* A vendor code (an int holding hipError_t; the built-in kernels return one too) as a status, the
 * failure recorded as "<what> failed ...". */
static inline hk_status hk__gpu_check(const char *fn, int error, const char *what)
{
    return error == hipSuccess ? HK_SUCCESS : hk__fail_gpu(error, fn, what);
}

/* ---- the entries of the table, by file; each as kinds/kind.h describes it */

/* gpu_device.c */
int hk__gpu_device_count(char *reason, size_t reason_size);
hk_status hk__gpu_device_describe(const char *fn, int device, hk_device_info *info, hk__device_props *props);
hk_status hk__gpu_runtime_version(const char *fn, int *version);
hk_status hk__gpu_driver_version(const char *fn, int *version);
hk_status hk__gpu_activate(const char *fn, int device);
hk_status hk__gpu_free_memory(const char *fn, size_t *free_bytes);
hk_status hk__gpu_synchronize(const char *fn);

/* gpu_memory.c */
hk_status hk__gpu_device_alloc(const char *fn, void **ptr, size_t bytes);
hk_status hk__gpu_device_release(const char *fn, void *ptr);
hk_status hk__gpu_host_alloc(const char *fn, void **ptr, size_t bytes);
hk_status hk__gpu_host_release(const char *fn, void *ptr);
hk_status hk__gpu_copy(const char *fn, void *dst, const void *src, size_t bytes, hk__copy_kind kind, void *stream,
                       bool async);
hk_status hk__gpu_memset(const char *fn, void *dst, int value, size_t bytes, void *stream, bool async);
bool hk__gpu_host_is_pinned(const void *ptr);
bool hk__gpu_staging_markers_create(void **markers, int count);
void hk__gpu_staging_markers_destroy(void **markers, int count);
hk_status hk__gpu_staging_copy(const char *fn, const char *what, void *dst, const void *src, size_t bytes,
                               bool to_device, void *marker);
hk_status hk__gpu_staging_wait(const char *fn, const char *what, void *marker);
hk_status hk__gpu_staging_finish(const char *fn, const char *what);

/* gpu_stream.c */
hk_status hk__gpu_stream_create(const char *fn, void **stream);
hk_status hk__gpu_stream_destroy(const char *fn, void *stream);
hk_status hk__gpu_stream_synchronize(const char *fn, void *stream);
hk_status hk__gpu_stream_query(const char *fn, void *stream);
hk_status hk__gpu_stream_wait_event(const char *fn, void *stream, void *event);
hk_status hk__gpu_stream_order(const char *fn, void *producer, void *waiter);
hk_status hk__gpu_event_create(const char *fn, void **event);
hk_status hk__gpu_event_destroy(const char *fn, void *event);
hk_status hk__gpu_event_record(const char *fn, void *event, void *stream);
hk_status hk__gpu_event_synchronize(const char *fn, void *event);
hk_status hk__gpu_event_query(const char *fn, void *event);
hk_status hk__gpu_event_elapsed_ms(const char *fn, float *milliseconds, void *start, void *end);

/* gpu_module.c */
hk_status hk__gpu_module_load(const char *fn, const char *what, void **module, const void *binary,
                              size_t binary_size);
hk_status hk__gpu_module_unload(const char *fn, void *module);
hk_status hk__gpu_module_function(const char *fn, void *module, const char *name, void **function, void **fast);
hk_status hk__gpu_function_attributes(const char *fn, void *function, int *max_threads_per_block,
                                      size_t *static_shared_bytes, int *registers_per_thread);
int hk__gpu_function_param_count(void *function);
hk_status hk__gpu_function_allow_shared(const char *fn, void *function, size_t bytes);
hk_status hk__gpu_function_occupancy(const char *fn, void *function, int block_size, size_t shared_bytes, int *blocks);
hk_status hk__gpu_launch_function(const char *fn, const char *name, void *function, void *fast,
                                  const unsigned int grid[3], const unsigned int block[3], size_t shared_bytes,
                                  void *stream, void **params);

/* gpu_rtc.c */
const char *hk__gpu_rtc_unavailable(void);
hk_status hk__gpu_rtc_version(const char *fn, int *major, int *minor);
hk_status hk__gpu_rtc_check_target(const char *fn, const char *target);
hk_status hk__gpu_rtc_compile(const char *fn, const char *source, const char *name, const char *target,
                              const char *prelude, const char *const *options, int num_options, void **binary,
                              size_t *binary_size, char **log);

/* gpu_ops.c */
hk_status hk__gpu_iota(const char *fn, void *stream, hk_dtype dtype, void *out, int64_t stride, size_t n,
                       const void *start, const void *step);
hk_status hk__gpu_random_numbers(const char *fn, void *stream, hk_dtype dtype, int normal, void *dst, size_t n,
                                 uint64_t seed, uint64_t offset, double a, double b);
hk_status hk__gpu_copy_array(const char *fn, void *stream, hk_dtype src_dtype, hk_dtype dst_dtype, const void *src,
                             void *dst, size_t n, const struct hkk_layout *layout);
hk_status hk__gpu_elementwise(const char *fn, void *stream, const struct hkk_ew_call *call);
size_t hk__gpu_reduce_scratch_bytes(hk_reduce_op op, hk_dtype in_dtype, const void *in,
                                    const struct hkk_reduce_layout *layout);
hk_status hk__gpu_reduce(const char *fn, void *stream, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out,
                         const struct hkk_reduce_layout *layout, int ddof, void *scratch);

/* gpu_scan_sort.c */
size_t hk__gpu_scan_scratch_bytes(const struct hkk_scan_args *args);
hk_status hk__gpu_scan(const char *fn, void *stream, const struct hkk_scan_args *args, void *scratch);
size_t hk__gpu_sort_scratch_bytes(const struct hkk_sort_args *args);
hk_status hk__gpu_sort(const char *fn, void *stream, const struct hkk_sort_args *args, void *scratch);

/* gpu_matmul.c */
void hk__gpu_matmul_scratch(const struct hkk_matmul_args *args, int use_vendor, hk__scratch_list *need);
hk_status hk__gpu_matmul(const char *fn, void *stream, const struct hkk_matmul_args *args, int use_vendor,
                         const hk__scratch_list *scratch);
size_t hk__gpu_take_scratch_bytes(const struct hkk_take_args *args);
hk_status hk__gpu_take(const char *fn, void *stream, const struct hkk_take_args *args, int axis, void *scratch);
size_t hk__gpu_put_scratch_bytes(const struct hkk_put_args *args, const struct hkk_take_args *check);
hk_status hk__gpu_put(const char *fn, void *stream, const struct hkk_put_args *args, const struct hkk_take_args *check,
                      int axis, void *scratch);

/* gpu_compact.c */
size_t hk__gpu_compact_scratch_bytes(const struct hkk_compact_args *args);
hk_status hk__gpu_compact(const char *fn, void *stream, const struct hkk_compact_args *args, void *scratch);

#endif
