/* kind.h: the device-kind table: everything that differs between kinds of device, as one table of
 * functions (ggml's backends do the same). Nothing outside src/kinds/ and src/gpu/ calls a vendor:
 * the rest of the library validates, lays out and keeps books, then calls these entries.
 *
 * Which kind: two tables, the GPU kind (gpu_*.c) and the host CPU kind (cpu_*.c); CMake builds every
 * .c file of this folder. Discovery (src/core/device.c) asks each kind of hk__kinds_in_order for its
 * devices and numbers them in that order: the GPUs 0 .. G-1 (the vendor's own numbering, so a GPU
 * entry's `device` is the vendor's ordinal), then the CPU device G. hk__kind_of(device) gives the
 * table of a device and hk__kind_current() that of the calling thread's current device; the rest of
 * the library calls through them and never asks which kind it is on. What belongs to the build
 * rather than to a device (the vendor, its runtime's version and compiler) comes from
 * hk__kind_vendor(); pinned host memory from hk__kind_host_memory(); run-time compilation for a named
 * target from hk__kind_for_target() (kinds.c).
 *
 * Conventions: arguments arrive validated; `fn` names the public call for the error sentence; every
 * entry that returns a status records its own sentence on failure (hk_last_error), except where its
 * comment says a status comes back with nothing recorded. Streams, events, modules and functions are
 * the kind's own objects, passed as void *; a NULL stream is the default stream of the current device.
 *
 * Scratch: the kind never allocates device memory for an op. Where an op needs scratch, the kind says
 * how much (*_scratch_bytes, or a hk__scratch_list for matmul), the ops layer (src/ops/) takes it
 * from the caching pool on the call's stream, passes it in, and frees it stream-ordered afterwards.
 * A size query costs nothing and keeps the pool, which calls this table, out of the table's callees.
 * matmul's vendor path needs up to four buffers at once, one of them optional: a list of sizes is
 * enough to say that, so it is a description filled by the kind rather than a callback into the pool. */
#ifndef HIPKIT_KINDS_KIND_H
#define HIPKIT_KINDS_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/device_state.h"
#include "core/status.h"

struct hkk_layout;        /* hip_kernels/common/kernels.h */
struct hkk_ew_call;       /* hip_kernels/elementwise/elementwise.h */
struct hkk_scan_args;     /* hip_kernels/scan/scan.h */
struct hkk_sort_args;     /* hip_kernels/sort/sort.h */
struct hkk_matmul_args;   /* hip_kernels/matmul/matmul.h */
struct hkk_take_args;     /* hip_kernels/index/index.h */
struct hkk_put_args;      /* hip_kernels/index/index.h */
struct hkk_compact_args;  /* hip_kernels/index/compact.h */
struct hkk_reduce_layout; /* hip_kernels/reduce/reduce.h */

typedef enum hk__copy_kind { HK__HOST_TO_DEVICE, HK__DEVICE_TO_HOST, HK__DEVICE_TO_DEVICE } hk__copy_kind;

/* The scratch buffers one call needs, each with its size (0: not needed). The ops layer fills ptr;
 * an optional buffer the pool cannot give stays NULL, and the kind does without it. */
#define HK__SCRATCH_MAX 4
typedef struct hk__scratch_list {
    size_t bytes[HK__SCRATCH_MAX];
    bool optional[HK__SCRATCH_MAX];
    void *ptr[HK__SCRATCH_MAX];
} hk__scratch_list;

typedef struct hk__kind {
    /* What hk_platform_get reports (read from hk__kind_vendor() only; the CPU kind leaves it 0). */
    hk_platform platform;
    /* What hk_device_info.kind reports for this kind's devices. */
    hk_device_kind device_kind;

    /* ---- devices: discovery (once per process, src/core/device.c), properties, activation */

    /* How many devices of this kind there are; 0 with `reason` written ("cudaErrorNoDevice: ...") when
     * the runtime finds none or fails. Records nothing. */
    int (*device_count)(char *reason, size_t reason_size);
    /* The public description of `device` (the library's ordinal; all of `info` but kind and
     * free_memory) and its launch properties. With fn NULL (discovery) a failure records nothing. */
    hk_status (*device_describe)(const char *fn, int device, hk_device_info *info, hk__device_props *props);
    /* The vendor runtime's version (read from hk__kind_vendor() only). */
    hk_status (*runtime_version)(const char *fn, int *version);
    /* The vendor driver's version, 0 without a driver (read from hk__kind_vendor() only). */
    hk_status (*driver_version)(const char *fn, int *version);
    /* The calling thread's later vendor work goes to `device` (one of this kind's). */
    hk_status (*activate)(const char *fn, int device);
    /* Free memory of the active device. */
    hk_status (*free_memory)(const char *fn, size_t *free_bytes);
    /* Waits for all work on the active device. */
    hk_status (*synchronize)(const char *fn);

    /* ---- memory below the pools (src/memory/), on the active device */

    /* HK_ERROR_OUT_OF_MEMORY comes back with nothing recorded: the pool retries, then explains. */
    hk_status (*device_alloc)(const char *fn, void **ptr, size_t bytes);
    hk_status (*device_release)(const char *fn, void *ptr);
    /* Page-locked host memory (from hk__kind_host_memory() only); out of memory as for device_alloc. */
    hk_status (*host_alloc)(const char *fn, void **ptr, size_t bytes);
    hk_status (*host_release)(const char *fn, void *ptr);

    /* ---- streams and events */

    hk_status (*stream_create)(const char *fn, void **stream);
    hk_status (*stream_destroy)(const char *fn, void *stream);
    hk_status (*stream_synchronize)(const char *fn, void *stream);
    /* HK_ERROR_NOT_READY (nothing recorded): work is still queued. */
    hk_status (*stream_query)(const char *fn, void *stream);
    hk_status (*stream_wait_event)(const char *fn, void *stream, void *event);
    /* Work queued on `waiter` from now on waits for the work already queued on `producer` (the pool
     * handing a block freed on one stream to another). */
    hk_status (*stream_order)(const char *fn, void *producer, void *waiter);
    hk_status (*event_create)(const char *fn, void **event);
    hk_status (*event_destroy)(const char *fn, void *event);
    hk_status (*event_record)(const char *fn, void *event, void *stream);
    hk_status (*event_synchronize)(const char *fn, void *event);
    /* HK_ERROR_NOT_READY (nothing recorded): not reached yet. */
    hk_status (*event_query)(const char *fn, void *event);
    /* HK_ERROR_NOT_READY (nothing recorded): an event has not completed. */
    hk_status (*event_elapsed_ms)(const char *fn, float *milliseconds, void *start, void *end);

    /* ---- modules and launches of run-time-compiled code (src/rtc/module.c) */

    /* `what` describes the load for the failure sentence ("loading saxpy.hip (compiled for sm_90...)");
     * `binary` is what rtc_compile made (binary_size bytes). */
    hk_status (*module_load)(const char *fn, const char *what, void **module, const void *binary, size_t binary_size);
    hk_status (*module_unload)(const char *fn, void *module);
    /* The kernel `name` of `module`: *function NULL (HK_SUCCESS, nothing recorded) when there is none.
     * *fast is a handle for a quicker launch of it, or NULL. */
    hk_status (*module_function)(const char *fn, void *module, const char *name, void **function, void **fast);
    hk_status (*function_attributes)(const char *fn, void *function, int *max_threads_per_block,
                                     size_t *static_shared_bytes, int *registers_per_thread);
    /* Parameters recorded in the loaded code, or -1 when the kind cannot tell. */
    int (*function_param_count)(void *function);
    /* Lets one block of `function` ask for `bytes` of dynamic shared memory. */
    hk_status (*function_allow_shared)(const char *fn, void *function, size_t bytes);
    /* Blocks of `block_size` threads resident on one multiprocessor. */
    hk_status (*function_occupancy)(const char *fn, void *function, int block_size, size_t shared_bytes, int *blocks);
    /* `name` (the kernel's) is for the failure sentence; params point at each argument's bytes. */
    hk_status (*launch)(const char *fn, const char *name, void *function, void *fast, const unsigned int grid[3],
                        const unsigned int block[3], size_t shared_bytes, void *stream, void **params);

    /* ---- run-time compilation of user kernels (src/rtc/rtc.c); needs no device */

    /* The compiler's name in sentences and cache keys ("NVRTC", "hiprtc"), and the version of the
     * toolkit built against, which keys the cache without loading the compiler. */
    const char *rtc_name;
    int rtc_build_version;
    /* What else the compiled code depends on, for the disk cache's key (the CPU kind: which host
     * compiler, and the host prelude); NULL: nothing but rtc_name and rtc_build_version. */
    const char *(*rtc_cache_identity)(void);
    /* NULL when the compiler can be used; else why not, as a sentence. */
    const char *(*rtc_unavailable)(void);
    hk_status (*rtc_version)(const char *fn, int *major, int *minor);
    /* HK_SUCCESS when `target` is an architecture the compiler takes ("sm_90", "gfx90a"). */
    hk_status (*rtc_check_target)(const char *fn, const char *target);
    /* Compiles `source` (`name` in messages) for `target`, with `prelude` as the header
     * hipkit_device.h and the caller's options. On success *binary (malloc'd, *binary_size bytes)
     * and *log (malloc'd, "" when the compiler said nothing; NULL without host memory); on failure
     * neither, and with HK_ERROR_COMPILE the sentence holds the log. */
    hk_status (*rtc_compile)(const char *fn, const char *source, const char *name, const char *target,
                             const char *prelude, const char *const *options, int num_options, void **binary,
                             size_t *binary_size, char **log);

    /* ---- copies and memset; a NULL stream with async false is a synchronous call */

    hk_status (*copy)(const char *fn, void *dst, const void *src, size_t bytes, hk__copy_kind kind, void *stream,
                      bool async);
    hk_status (*memset)(const char *fn, void *dst, int value, size_t bytes, void *stream, bool async);

    /* ---- what staging needs (src/memory/staging.c): large pageable copies pipelined through pinned
     * buffers, ordered on the default stream as the synchronous copy they stand for. Failures are
     * recorded as "<what> failed on device ...". */

    /* Is `ptr` host memory the copy engines read directly? Any doubt is no. */
    bool (*host_is_pinned)(const void *ptr);
    /* `count` markers of copy completion; false (nothing recorded, nothing left) when there are none
     * to be had: the caller then copies the plain way. */
    bool (*staging_markers_create)(void **markers, int count);
    void (*staging_markers_destroy)(void **markers, int count);
    /* Queues one chunk's copy (host to device or back) and then `marker`. */
    hk_status (*staging_copy)(const char *fn, const char *what, void *dst, const void *src, size_t bytes,
                              bool to_device, void *marker);
    /* Waits until the copy before `marker` is done. */
    hk_status (*staging_wait)(const char *fn, const char *what, void *marker);
    /* Waits until every queued chunk is done. */
    hk_status (*staging_finish)(const char *fn, const char *what);

    /* ---- op families: `stream` is the kind's stream; arguments are validated and laid out by src/ops/ */

    /* out[i * stride] = start + i * step, i < n (hk_iota). */
    hk_status (*iota)(const char *fn, void *stream, hk_dtype dtype, void *out, int64_t stride, size_t n,
                      const void *start, const void *step);
    /* Philox numbers: normal == 0: a = low, b = high; normal == 1: a = mean, b = stddev. */
    hk_status (*random_numbers)(const char *fn, void *stream, hk_dtype dtype, int normal, void *dst, size_t n,
                                uint64_t seed, uint64_t offset, double a, double b);
    /* dst = convert(src) over a coalesced layout. */
    hk_status (*copy_array)(const char *fn, void *stream, hk_dtype src_dtype, hk_dtype dst_dtype, const void *src,
                            void *dst, size_t n, const struct hkk_layout *layout);
    /* One validated, coalesced hk_elementwise call, or hk_fill's (op HKK_EW_FILL). */
    hk_status (*elementwise)(const char *fn, void *stream, const struct hkk_ew_call *call);
    /* hk_scan and hk_sort, each with the scratch its size query asks for. */
    size_t (*scan_scratch_bytes)(const struct hkk_scan_args *args);
    hk_status (*scan)(const char *fn, void *stream, const struct hkk_scan_args *args, void *scratch);
    size_t (*sort_scratch_bytes)(const struct hkk_sort_args *args);
    hk_status (*sort)(const char *fn, void *stream, const struct hkk_sort_args *args, void *scratch);
    /* NULL when the vendor BLAS can serve matmul; else why not, as the end of a sentence. */
    const char *(*vendor_blas_unavailable)(void);
    /* out = a @ b (use_vendor: the vendor BLAS, else the own kernel), with the buffers matmul_scratch
     * listed for the same arguments. */
    void (*matmul_scratch)(const struct hkk_matmul_args *args, int use_vendor, hk__scratch_list *need);
    hk_status (*matmul)(const char *fn, void *stream, const struct hkk_matmul_args *args, int use_vendor,
                        const hk__scratch_list *scratch);
    /* numpy.take; RAISE mode checks the indices first (and waits for the stream). `axis` (normalised)
     * only names the axis in messages. */
    size_t (*take_scratch_bytes)(const struct hkk_take_args *args);
    hk_status (*take)(const char *fn, void *stream, const struct hkk_take_args *args, int axis, void *scratch);
    /* out = op over the reduced dims of a normalised layout; in and out point at its origin elements. */
    size_t (*reduce_scratch_bytes)(hk_reduce_op op, hk_dtype in_dtype, const void *in,
                                   const struct hkk_reduce_layout *layout);
    hk_status (*reduce)(const char *fn, void *stream, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out,
                        const struct hkk_reduce_layout *layout, int ddof, void *scratch);
    /* hk_put's scatter; `check` (RAISE mode, else NULL) describes the indices for take's check, run
     * first; `axis` (normalised) only names the axis in messages. */
    size_t (*put_scratch_bytes)(const struct hkk_put_args *args, const struct hkk_take_args *check);
    hk_status (*put)(const char *fn, void *stream, const struct hkk_put_args *args, const struct hkk_take_args *check,
                     int axis, void *scratch);
    /* Stream compaction of a contiguous bool mask (hk_mask_select's values, hk_mask_positions' positions
     * or coordinates), with the scratch its size query asks for. */
    size_t (*compact_scratch_bytes)(const struct hkk_compact_args *args);
    hk_status (*compact)(const char *fn, void *stream, const struct hkk_compact_args *args, void *scratch);
} hk__kind;

extern const hk__kind hk__gpu_kind; /* gpu_kind.c */
extern const hk__kind hk__cpu_kind; /* cpu_kind.c */

/* The kinds in the order their devices are numbered (kinds.c). */
#define HK__KIND_COUNT 2
extern const hk__kind *const hk__kinds_in_order[HK__KIND_COUNT];

/* The table of `device`. For an ordinal that names no device (a thread whose HIPKIT_DEVICE is
 * unusable, before its call has been refused) the CPU kind's, whose entries touch no vendor. */
static inline const hk__kind *hk__kind_of(int device)
{
    const struct hk__kind *kind = hk__device_kind_table(device);
    return kind ? kind : &hk__cpu_kind;
}

/* The table of the calling thread's current device. */
static inline const hk__kind *hk__kind_current(void)
{
    return hk__kind_of(hk__current_device());
}

/* The kind that answers for the build: the GPU vendor's platform, runtime version, run-time compiler
 * version and BLAS library (all of which need no GPU). */
static inline const hk__kind *hk__kind_vendor(void)
{
    return &hk__gpu_kind;
}

/* The kind whose memory hk_host_malloc hands out: page-locked by the GPU vendor when there is a GPU,
 * plain host memory when there is none (kinds.c). One kind for the whole process, so a cached block
 * is always released by the kind that allocated it. */
const hk__kind *hk__kind_host_memory(void);

/* RAISE mode's index check, the part every kind shares (kinds.c): the offset (in int64 elements,
 * in the indices' own layout) of the index at C-order position `first`, and the failure naming it:
 * HK_ERROR_INVALID_ARGUMENT, "index 7 is out of bounds for axis `axis` with size 5 ...". */
int64_t hk__index_check_offset(const struct hkk_take_args *p, unsigned long long first);
hk_status hk__index_out_of_bounds(const char *fn, const struct hkk_take_args *p, int axis, unsigned long long first,
                                  int64_t value);

/* The kind whose compiler takes `target` ("host": the CPU kind; anything else: the GPU kind, which
 * checks it) (kinds.c). */
const hk__kind *hk__kind_for_target(const char *target);

#endif
