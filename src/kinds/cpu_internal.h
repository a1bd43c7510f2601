/* cpu_internal.h: what the CPU kind's files (cpu_*.c) share: the device's work queue, and the
 * entries its table (cpu_kind.c) is made of.
 *
 * The queue (cpu_queue.c): the CPU device runs its work on one worker thread, in the order it was
 * queued over all its streams, so everything a GPU guarantees holds (each stream in order, the
 * default stream and events ordered after what was queued before them, hk_stream_wait_event
 * satisfied), and more: streams never overlap one another, which no caller may count on anyway. Each
 * op spreads over the cores itself (hip_kernels/cpu/parallel.h). Work is numbered as it is queued; a
 * stream or an event is done when the worker has finished the work up to its last number. Small work
 * queued while the device is idle runs at once on the calling thread, in its place in the order, so
 * a tiny op costs a function call rather than a thread hand-over. */
#ifndef HIPKIT_KINDS_CPU_INTERNAL_H
#define HIPKIT_KINDS_CPU_INTERNAL_H

#include <stdint.h>

#include "core/device_state.h"
#include "core/status.h"
#include "kinds/kind.h"

/* A piece of work: run(args) with a copy of the caller's `bytes` of arguments (the caller's memory
 * may be gone before it runs). It returns 0, or a status (with its sentence written into `why`,
 * at most HK__CPU_WHY_MAX bytes) that the next synchronisation reports. */
#define HK__CPU_WHY_MAX 256
typedef int (*hk__cpu_work)(void *args, char *why);

/* Work at or below this many elements runs on the caller when the device is idle. */
#define HK__CPU_INLINE_ELEMENTS ((size_t)1 << 15)

/* Queues run(copy of args) on `stream` (NULL: the default stream). `elements` sizes the work for the
 * inline rule. Fails only without host memory (recorded for fn). */
hk_status hk__cpu_enqueue(const char *fn, void *stream, hk__cpu_work run, const void *args, size_t bytes,
                          size_t elements);
/* Waits for the work queued so far on `stream` (NULL: the default stream, which waits for all), then
 * reports the first failure of queued work not yet reported, for fn. */
hk_status hk__cpu_wait_stream(const char *fn, void *stream);

/* ---- the entries of the table, by file; each as kinds/kind.h describes it */

/* cpu_device.c */
int hk__cpu_device_count(char *reason, size_t reason_size);
hk_status hk__cpu_device_describe(const char *fn, int device, hk_device_info *info, hk__device_props *props);
hk_status hk__cpu_runtime_version(const char *fn, int *version);
hk_status hk__cpu_driver_version(const char *fn, int *version);
hk_status hk__cpu_activate(const char *fn, int device);
hk_status hk__cpu_free_memory(const char *fn, size_t *free_bytes);
hk_status hk__cpu_synchronize(const char *fn);

/* cpu_memory.c */
hk_status hk__cpu_device_alloc(const char *fn, void **ptr, size_t bytes);
hk_status hk__cpu_device_release(const char *fn, void *ptr);
hk_status hk__cpu_host_alloc(const char *fn, void **ptr, size_t bytes);
hk_status hk__cpu_host_release(const char *fn, void *ptr);
hk_status hk__cpu_copy(const char *fn, void *dst, const void *src, size_t bytes, hk__copy_kind kind, void *stream,
                       bool async);
hk_status hk__cpu_memset(const char *fn, void *dst, int value, size_t bytes, void *stream, bool async);
bool hk__cpu_host_is_pinned(const void *ptr);
bool hk__cpu_staging_markers_create(void **markers, int count);
void hk__cpu_staging_markers_destroy(void **markers, int count);
hk_status hk__cpu_staging_copy(const char *fn, const char *what, void *dst, const void *src, size_t bytes,
                               bool to_device, void *marker);
hk_status hk__cpu_staging_wait(const char *fn, const char *what, void *marker);
hk_status hk__cpu_staging_finish(const char *fn, const char *what);

/* cpu_queue.c */
hk_status hk__cpu_stream_create(const char *fn, void **stream);
hk_status hk__cpu_stream_destroy(const char *fn, void *stream);
hk_status hk__cpu_stream_synchronize(const char *fn, void *stream);
hk_status hk__cpu_stream_query(const char *fn, void *stream);
hk_status hk__cpu_stream_wait_event(const char *fn, void *stream, void *event);
hk_status hk__cpu_stream_order(const char *fn, void *producer, void *waiter);
hk_status hk__cpu_event_create(const char *fn, void **event);
hk_status hk__cpu_event_destroy(const char *fn, void *event);
hk_status hk__cpu_event_record(const char *fn, void *event, void *stream);
hk_status hk__cpu_event_synchronize(const char *fn, void *event);
hk_status hk__cpu_event_query(const char *fn, void *event);
hk_status hk__cpu_event_elapsed_ms(const char *fn, float *milliseconds, void *start, void *end);

/* cpu_module.c: user kernels' modules and launches */
hk_status hk__cpu_module_load(const char *fn, const char *what, void **module, const void *binary,
                              size_t binary_size);
hk_status hk__cpu_module_unload(const char *fn, void *module);
hk_status hk__cpu_module_function(const char *fn, void *module, const char *name, void **function, void **fast);
hk_status hk__cpu_function_attributes(const char *fn, void *function, int *max_threads_per_block,
                                      size_t *static_shared_bytes, int *registers_per_thread);
int hk__cpu_function_param_count(void *function);
hk_status hk__cpu_function_allow_shared(const char *fn, void *function, size_t bytes);
hk_status hk__cpu_function_occupancy(const char *fn, void *function, int block_size, size_t shared_bytes, int *blocks);
hk_status hk__cpu_launch_function(const char *fn, const char *name, void *function, void *fast,
                                  const unsigned int grid[3], const unsigned int block[3], size_t shared_bytes,
                                  void *stream, void **params);
/* cpu_rtc.c: the host compiler */
const char *hk__cpu_rtc_cache_identity(void);
const char *hk__cpu_rtc_unavailable(void);
hk_status hk__cpu_rtc_version(const char *fn, int *major, int *minor);
hk_status hk__cpu_rtc_check_target(const char *fn, const char *target);
hk_status hk__cpu_rtc_compile(const char *fn, const char *source, const char *name, const char *target,
                              const char *prelude, const char *const *options, int num_options, void **binary,
                              size_t *binary_size, char **log);

/* cpu_rtc_source.c: a user's source ready for the host compiler: `text` has `extern __shared__`
 * arrays given storage, line numbers kept (#line names the user's file), and the entries of its
 * extern "C" __global__ kernels appended; the flags say what GPU-only constructs it uses, to
 * explain a failed compile. False without host memory. */
typedef struct hk__cpu_source {
    char *text;
    int kernel_count;
    bool uses_asm, uses_nested_launch, uses_half, uses_textures, uses_cooperative_groups;
} hk__cpu_source;
bool hk__cpu_prepare_source(const char *source, const char *file_name, hk__cpu_source *out);
void hk__cpu_source_free(hk__cpu_source *source);

/* cpu_ops.c */
hk_status hk__cpu_iota(const char *fn, void *stream, hk_dtype dtype, void *out, int64_t stride, size_t n,
                       const void *start, const void *step);
hk_status hk__cpu_random_numbers(const char *fn, void *stream, hk_dtype dtype, int normal, void *dst, size_t n,
                                 uint64_t seed, uint64_t offset, double a, double b);
hk_status hk__cpu_copy_array(const char *fn, void *stream, hk_dtype src_dtype, hk_dtype dst_dtype, const void *src,
                             void *dst, size_t n, const struct hkk_layout *layout);
hk_status hk__cpu_elementwise(const char *fn, void *stream, const struct hkk_ew_call *call);
size_t hk__cpu_scan_scratch_bytes(const struct hkk_scan_args *args);
hk_status hk__cpu_scan(const char *fn, void *stream, const struct hkk_scan_args *args, void *scratch);
size_t hk__cpu_sort_scratch_bytes(const struct hkk_sort_args *args);
hk_status hk__cpu_sort(const char *fn, void *stream, const struct hkk_sort_args *args, void *scratch);
const char *hk__cpu_blas_unavailable(void);
void hk__cpu_matmul_scratch(const struct hkk_matmul_args *args, int use_vendor, hk__scratch_list *need);
hk_status hk__cpu_matmul(const char *fn, void *stream, const struct hkk_matmul_args *args, int use_vendor,
                         const hk__scratch_list *scratch);
size_t hk__cpu_take_scratch_bytes(const struct hkk_take_args *args);
hk_status hk__cpu_take(const char *fn, void *stream, const struct hkk_take_args *args, int axis, void *scratch);
size_t hk__cpu_reduce_scratch_bytes(hk_reduce_op op, hk_dtype in_dtype, const void *in,
                                    const struct hkk_reduce_layout *layout);
hk_status hk__cpu_reduce(const char *fn, void *stream, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out,
                         const struct hkk_reduce_layout *layout, int ddof, void *scratch);
size_t hk__cpu_put_scratch_bytes(const struct hkk_put_args *args, const struct hkk_take_args *check);
hk_status hk__cpu_put(const char *fn, void *stream, const struct hkk_put_args *args, const struct hkk_take_args *check,
                      int axis, void *scratch);
size_t hk__cpu_compact_scratch_bytes(const struct hkk_compact_args *args);
hk_status hk__cpu_compact(const char *fn, void *stream, const struct hkk_compact_args *args, void *scratch);

#endif
