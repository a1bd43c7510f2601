/* hipkit.h: the whole public C API of hipkit, a small portable GPU compute
 * library over the HIP runtime (AMD) and the CUDA runtime (NVIDIA).
 * C99, no vendor type appears here. Every function returns hk_status;
 * results go through pointer arguments; hk_last_error() explains failures. */
#ifndef HIPKIT_H
#define HIPKIT_H

#include <stddef.h>
#include <stdint.h>

#if defined(HIPKIT_CDEF)
#define HK_API
#elif defined(_WIN32)
#if defined(HIPKIT_BUILDING)
#define HK_API __declspec(dllexport)
#else
#define HK_API
#endif
#else
#define HK_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define HK_VERSION_MAJOR 0
#define HK_VERSION_MINOR 1
#define HK_VERSION_PATCH 0

/* ---------------------------------------------------------------- status */

typedef enum hk_status {
    HK_SUCCESS = 0,
    HK_ERROR_INVALID_ARGUMENT = 1, /* NULL, size, overflow, dtype or op out of range */
    HK_ERROR_NO_DEVICE = 2,        /* no GPU (or no driver) on this machine */
    HK_ERROR_INVALID_DEVICE = 3,   /* device id out of range */
    HK_ERROR_OUT_OF_MEMORY = 4,    /* device or pinned memory exhausted, or pool limit reached */
    HK_ERROR_INVALID_HANDLE = 5,   /* stream/event handle unknown or already destroyed */
    HK_ERROR_NOT_READY = 6,        /* query: work still pending (not a failure) */
    HK_ERROR_NOT_SUPPORTED = 7,    /* valid request this build or device cannot do */
    HK_ERROR_LAUNCH_FAILED = 8,    /* a kernel launch was rejected */
    HK_ERROR_RUNTIME = 9,          /* any other error reported by the vendor runtime */
    HK_ERROR_INTERNAL = 10         /* a bug in hipkit: please report it */
} hk_status;

/* Short constant name of a status, e.g. "HK_ERROR_NO_DEVICE". Never NULL. */
HK_API const char *hk_status_name(hk_status status);

/* The sentence describing the last failure on the calling thread: which call,
 * which argument, which device and what the vendor runtime said. Empty string
 * when the last hipkit call on this thread succeeded. Valid until the next
 * hipkit call on the same thread. Never NULL. */
HK_API const char *hk_last_error(void);

/* ------------------------------------------------------ version, platform */

typedef enum hk_platform {
    HK_PLATFORM_AMD = 1,   /* built with hipcc against the HIP runtime */
    HK_PLATFORM_NVIDIA = 2 /* built with nvcc against the CUDA runtime */
} hk_platform;

HK_API hk_status hk_version(int *major, int *minor, int *patch);
/* Which vendor this build of the library targets. */
HK_API hk_status hk_platform_get(hk_platform *platform);
/* "amd" or "nvidia"; "unknown" for any other value. Never NULL. */
HK_API const char *hk_platform_name(hk_platform platform);
/* Version of the vendor runtime the library talks to (e.g. 13000 for CUDA 13.0). */
HK_API hk_status hk_runtime_version(int *version);

/* ---------------------------------------------------------------- devices */

#define HK_DEVICE_NAME_MAX 256
#define HK_DEVICE_ARCH_MAX 64

typedef struct hk_device_info {
    int device;                    /* ordinal */
    char name[HK_DEVICE_NAME_MAX]; /* "NVIDIA H200", "AMD Instinct MI250X" */
    char arch[HK_DEVICE_ARCH_MAX]; /* "sm_90", "gfx90a" */
    int multiprocessor_count;      /* SMs (NVIDIA) or CUs (AMD) */
    int warp_size;                 /* 32 on NVIDIA, 64 on most AMD GPUs */
    int max_threads_per_block;
    size_t total_memory;            /* bytes */
    size_t free_memory;             /* bytes, at the time of the call */
    size_t shared_memory_per_block; /* bytes */
    size_t l2_cache_size;           /* bytes */
    int compute_major;              /* compute capability (NVIDIA) or gfx major */
    int compute_minor;
    int pci_bus_id;
} hk_device_info;

/* Number of GPUs visible. 0 (and HK_SUCCESS) on a machine with no GPU or no driver. */
HK_API hk_status hk_device_count(int *count);
HK_API hk_status hk_device_get_info(int device, hk_device_info *info);
/* Select the device for the calling host thread (default 0). */
HK_API hk_status hk_device_set(int device);
HK_API hk_status hk_device_get(int *device);
/* Wait for all work on the current device. */
HK_API hk_status hk_device_synchronize(void);

/* -------------------------------------------------------- streams, events */

typedef struct hk_stream_opaque *hk_stream; /* NULL means the default stream */
typedef struct hk_event_opaque *hk_event;

/* A stream on the current device. */
HK_API hk_status hk_stream_create(hk_stream *stream);
/* Waits for the stream's pending work, then destroys it. Using the handle
 * afterwards gives HK_ERROR_INVALID_HANDLE. */
HK_API hk_status hk_stream_destroy(hk_stream stream);
HK_API hk_status hk_stream_synchronize(hk_stream stream);
/* HK_SUCCESS when all work is done, HK_ERROR_NOT_READY while some is pending. */
HK_API hk_status hk_stream_query(hk_stream stream);
/* Work queued on `stream` after this call waits until `event` has completed. */
HK_API hk_status hk_stream_wait_event(hk_stream stream, hk_event event);
/* The device a stream belongs to. */
HK_API hk_status hk_stream_get_device(hk_stream stream, int *device);

/* An event on the current device, able to time (elapsed_ms). */
HK_API hk_status hk_event_create(hk_event *event);
HK_API hk_status hk_event_destroy(hk_event event);
HK_API hk_status hk_event_record(hk_event event, hk_stream stream);
HK_API hk_status hk_event_synchronize(hk_event event);
/* HK_SUCCESS when the recorded work is done, HK_ERROR_NOT_READY otherwise. */
HK_API hk_status hk_event_query(hk_event event);
/* Milliseconds between two recorded, completed events. */
HK_API hk_status hk_event_elapsed_ms(float *milliseconds, hk_event start, hk_event end);

/* ----------------------------------------------------------------- memory */

/* Device memory comes from a caching, stream-ordered pool per device.
 * A block freed with hk_free_async(p, s) is reused at once by allocations on
 * the same stream (stream order keeps that safe) and by other streams only
 * after they have been made to wait for s. On out-of-memory the pool frees
 * its cache and retries once. Zero-byte requests give NULL and HK_SUCCESS;
 * freeing NULL is a no-op. */
HK_API hk_status hk_malloc(void **ptr, size_t bytes);
HK_API hk_status hk_malloc_async(void **ptr, size_t bytes, hk_stream stream);
/* Returns the block to the pool; it is reused after work already queued on
 * the stream it was allocated on. Pointers not from hk_malloc are refused. */
HK_API hk_status hk_free(void *ptr);
HK_API hk_status hk_free_async(void *ptr, hk_stream stream);

typedef struct hk_pool_stats {
    size_t bytes_in_use;         /* handed out and not yet freed */
    size_t bytes_cached;         /* held by the pool for reuse */
    size_t peak_bytes_in_use;    /* high-water mark of bytes_in_use */
    size_t limit;                /* bytes_in_use + bytes_cached may not exceed this; 0: no limit */
    uint64_t allocations;        /* successful hk_malloc calls */
    uint64_t cache_hits;         /* of which served from the cache */
    uint64_t vendor_allocations; /* calls to the vendor allocator */
} hk_pool_stats;

HK_API hk_status hk_pool_get_stats(int device, hk_pool_stats *stats);
/* Cap on the device memory the pool holds (in use + cached); 0 removes it. */
HK_API hk_status hk_pool_set_limit(int device, size_t bytes);
/* Give cached blocks back to the vendor until at most keep_bytes stay cached.
 * Waits for the device first so no pending work still uses them. */
HK_API hk_status hk_pool_trim(int device, size_t keep_bytes);

/* Page-locked (pinned) host memory, pooled. Free only after the copies that
 * use it have completed. */
HK_API hk_status hk_host_malloc(void **ptr, size_t bytes);
HK_API hk_status hk_host_free(void *ptr);
/* Give every cached (free) pinned block back to the system. */
HK_API hk_status hk_host_pool_trim(void);

/* Copies. The synchronous ones return when the data has arrived. Host
 * pointers may be pageable or pinned; the async forms are truly asynchronous
 * only with pinned host memory. Overlapping device-to-device ranges are refused. */
HK_API hk_status hk_memcpy_htod(void *dst_device, const void *src_host, size_t bytes);
HK_API hk_status hk_memcpy_dtoh(void *dst_host, const void *src_device, size_t bytes);
HK_API hk_status hk_memcpy_dtod(void *dst_device, const void *src_device, size_t bytes);
HK_API hk_status hk_memcpy_htod_async(void *dst_device, const void *src_host, size_t bytes, hk_stream stream);
HK_API hk_status hk_memcpy_dtoh_async(void *dst_host, const void *src_device, size_t bytes, hk_stream stream);
HK_API hk_status hk_memcpy_dtod_async(void *dst_device, const void *src_device, size_t bytes, hk_stream stream);
/* Set `bytes` bytes to the low byte of value. */
HK_API hk_status hk_memset(void *dst_device, int value, size_t bytes);
HK_API hk_status hk_memset_async(void *dst_device, int value, size_t bytes, hk_stream stream);

/* ------------------------------------------------------- built-in kernels */

typedef enum hk_dtype {
    HK_BOOL = 0,
    HK_INT8 = 1,
    HK_UINT8 = 2,
    HK_INT32 = 3,
    HK_UINT32 = 4,
    HK_INT64 = 5,
    HK_UINT64 = 6,
    HK_FLOAT16 = 7,
    HK_FLOAT32 = 8,
    HK_FLOAT64 = 9
} hk_dtype;

/* "float32", ...; "invalid" for values out of range. Never NULL. */
HK_API const char *hk_dtype_name(hk_dtype dtype);
/* Bytes per element; HK_ERROR_INVALID_ARGUMENT for values out of range. */
HK_API hk_status hk_dtype_size(hk_dtype dtype, size_t *bytes);

typedef enum hk_binary_op {
    HK_ADD = 0,
    HK_SUBTRACT = 1,
    HK_MULTIPLY = 2,
    /* Floats: IEEE division. Integers: NumPy's floor_divide (rounds toward
     * minus infinity; x / 0 gives 0; INT_MIN / -1 wraps to INT_MIN). */
    HK_DIVIDE = 3
} hk_binary_op;

/* All kernels run on the current device and are asynchronous on `stream`.
 * Device pointers must be aligned to their element size. `value`, `start`,
 * `step` and `alpha` point to ONE host element of `dtype`. Supported dtypes
 * for now: float32, float64, int32, int64 (others: HK_ERROR_NOT_SUPPORTED).
 * Integer arithmetic wraps around on overflow, as NumPy's does. */

/* dst[i] = *value */
HK_API hk_status hk_fill(void *dst, hk_dtype dtype, size_t n, const void *value, hk_stream stream);
/* dst[i] = *start + i * *step */
HK_API hk_status hk_iota(void *dst, hk_dtype dtype, size_t n, const void *start, const void *step, hk_stream stream);
/* y[i] = *alpha * x[i] + y[i] */
HK_API hk_status hk_axpy(hk_dtype dtype, size_t n, const void *alpha, const void *x, void *y, hk_stream stream);
/* out[i] = a[i] op b[i]; out may equal a or b, other overlaps are refused. */
HK_API hk_status hk_binary(hk_binary_op op, hk_dtype dtype, size_t n, const void *a, const void *b, void *out,
                           hk_stream stream);
/* *result_device = sum of x[0..n) (0 for n == 0), float32 and float64 only;
 * the result stays on the device (copy it back, or pass it to another op). */
HK_API hk_status hk_sum(hk_dtype dtype, size_t n, const void *x, void *result_device, hk_stream stream);

#ifdef __cplusplus
}
#endif
#endif /* HIPKIT_H */
