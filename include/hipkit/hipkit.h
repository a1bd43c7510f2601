/* hipkit.h: the whole public C API of hipkit, a small portable GPU compute
 * library over the HIP runtime (AMD) and the CUDA runtime (NVIDIA), with the
 * host CPU as one more device.
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
    HK_ERROR_NO_DEVICE = 2,        /* a GPU was asked for, and there is none (or no driver) on this machine */
    HK_ERROR_INVALID_DEVICE = 3,   /* device id out of range */
    HK_ERROR_OUT_OF_MEMORY = 4,    /* device or pinned memory exhausted, or pool limit reached */
    HK_ERROR_INVALID_HANDLE = 5,   /* stream/event handle unknown or already destroyed */
    HK_ERROR_NOT_READY = 6,        /* query: work still pending (not a failure) */
    HK_ERROR_NOT_SUPPORTED = 7,    /* valid request this build or device cannot do */
    HK_ERROR_LAUNCH_FAILED = 8,    /* a kernel launch was rejected */
    HK_ERROR_RUNTIME = 9,          /* any other error reported by the vendor runtime */
    HK_ERROR_INTERNAL = 10,        /* a bug in hipkit: please report it */
    HK_ERROR_COMPILE = 11          /* run-time compilation failed; hk_last_error() holds the log */
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
/* Version of the vendor's driver (NVIDIA: the newest CUDA it supports, 13000 for 13.0; AMD:
 * hipDriverGetVersion's number); 0 when no driver is installed. The test hook
 * HIPKIT_TEST_DRIVER_VERSION=N reports N instead, and an N below the runtime's version makes discovery
 * find no GPU with the sentence a driver that old gives (tests/python/test_config.py). */
HK_API hk_status hk_driver_version(int *version);
/* Why this process has no GPU, as a sentence a person can act on ("CUDA driver 12.2 found; this build
 * needs 13.0 or newer (driver 580 or newer)", "cudaErrorNoDevice: no CUDA-capable device is detected");
 * "" when it has one. Never NULL. */
HK_API const char *hk_no_gpu_reason(void);

/* ---------------------------------------------------------------- devices */

/* Devices are numbered from 0: the GPUs first (0 .. G-1, as the vendor runtime numbers them), then
 * the host CPU as device G, always present. So hk_device_count is at least 1, and on a machine with
 * no GPU (or no driver) the CPU device is device 0. */
typedef enum hk_device_kind {
    HK_DEVICE_KIND_GPU = 0,
    HK_DEVICE_KIND_CPU = 1 /* the host CPU: "device" memory is host memory, streams are worker threads */
} hk_device_kind;

/* "gpu" or "cpu"; "unknown" for any other value. Never NULL. */
HK_API const char *hk_device_kind_name(hk_device_kind kind);

#define HK_DEVICE_NAME_MAX 256
#define HK_DEVICE_ARCH_MAX 64

/* For the CPU device: name "CPU: <model>" (from /proc/cpuinfo, else the machine), arch "host",
 * multiprocessor_count the online cores, warp_size 1, max_threads_per_block 1024 (the block a user
 * kernel may have there, once the CPU device runs them), total and free memory the system's (free:
 * MemAvailable), shared_memory_per_block 64 KiB, l2_cache_size the first core's L2 (0 if unknown),
 * compute_major/minor 0, pci_bus_id -1. */
typedef struct hk_device_info {
    int device;                    /* ordinal */
    hk_device_kind kind;           /* a GPU or the host CPU */
    char name[HK_DEVICE_NAME_MAX]; /* "NVIDIA H200", "AMD Instinct MI250X", "CPU: AMD EPYC 7763 64-Core Processor" */
    char arch[HK_DEVICE_ARCH_MAX]; /* "sm_90", "gfx90a"; "host" for the CPU device */
    int multiprocessor_count;      /* SMs (NVIDIA) or CUs (AMD); cores for the CPU device */
    int warp_size;                 /* 32 on NVIDIA, 64 on most AMD GPUs, 1 on the CPU device */
    int max_threads_per_block;
    size_t total_memory;            /* bytes */
    size_t free_memory;             /* bytes, at the time of the call */
    size_t shared_memory_per_block; /* bytes */
    size_t l2_cache_size;           /* bytes */
    int compute_major;              /* compute capability (NVIDIA) or gfx major; 0 for the CPU device */
    int compute_minor;
    int pci_bus_id; /* -1 for the CPU device */
} hk_device_info;

/* Number of devices: the GPUs visible plus the CPU device, so at least 1 (the GPUs may be 0: no GPU
 * or no driver). */
HK_API hk_status hk_device_count(int *count);
/* Number of GPUs visible (devices 0 .. count-1); 0 (and HK_SUCCESS) with no GPU or no driver. */
HK_API hk_status hk_gpu_count(int *count);
HK_API hk_status hk_device_get_info(int device, hk_device_info *info);
/* Select the device for the calling host thread. A thread starts on the default device: the one the
 * environment variable HIPKIT_DEVICE names (read once per process: "cpu", "gpu" for device 0 as a
 * GPU, or an ordinal), else device 0 (the first GPU, or the CPU device when there is none). When
 * HIPKIT_DEVICE names no device here ("gpu" without a GPU: HK_ERROR_NO_DEVICE; an ordinal out of
 * range or any other text: HK_ERROR_INVALID_DEVICE), every call that needs the current device
 * fails with a sentence naming the variable, until the thread calls hk_device_set. */
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
 * use it have completed. On a machine without a GPU it is plain (pageable)
 * host memory: the CPU device's copies need nothing more. */
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

/* ----------------------------------------------------------------- dtypes */

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
    HK_FLOAT64 = 9,
    HK_INT16 = 10,
    HK_UINT16 = 11,
    HK_COMPLEX64 = 12, /* two float32: real, imaginary (C's float _Complex, NumPy's complex64) */
    HK_COMPLEX128 = 13 /* two float64 */
} hk_dtype;
/* The number of dtypes: hk_dtype values are 0 .. HK_DTYPE_COUNT - 1. */
#define HK_DTYPE_COUNT 14

/* "float32", ...; "invalid" for values out of range. Never NULL. */
HK_API const char *hk_dtype_name(hk_dtype dtype);
/* Bytes per element; HK_ERROR_INVALID_ARGUMENT for values out of range. */
HK_API hk_status hk_dtype_size(hk_dtype dtype, size_t *bytes);

/* ----------------------------------------------------------------- random */

/* Counter-based random numbers: Philox4x32-10 (Salmon et al., SC'11; the
 * Random123 generator). Any element can be computed on its own from (seed,
 * position), so results are reproducible and the same bits come out on every
 * device and vendor. float32 and float64 (others: HK_ERROR_NOT_SUPPORTED);
 * asynchronous on `stream`, as every op is.
 *
 * Exactly which number element i of dst gets:
 *  - Its position is p = offset + i, computed exactly: `offset` counts
 *    elements, so two calls whose offsets differ by the first call's n give
 *    the same numbers as one call for both, whatever the offset.
 *  - E elements share one Philox block: E = 4 for float32, E = 2 for float64.
 *    Element p uses block b = floor(p / E), and is number k = p mod E of it.
 *  - The block's 32-bit words (w0, w1, w2, w3) = Philox4x32-10(counter, key),
 *    key = (seed & 0xffffffff, seed >> 32), counter (c0, c1, c2, c3) =
 *    (b & 0xffffffff, b >> 32, s, 0). The sub-stream s is 0 for float32
 *    uniform, 1 for float64 uniform, 2 for float32 normal, 3 for float64
 *    normal: different kinds of draw never share bits, so one offset
 *    advanced by every call (as hipkit.random's Generator does) serves all.
 *  - Uniform bits in [0, 1):
 *      U32(w)      = (w >> 8) * 2^-24                          (24 bits)
 *      U64(lo, hi) = (((uint64_t)hi << 32 | lo) >> 11) * 2^-53  (53 bits)
 *  - hk_random_uniform: u = U32(w_k) for float32, U64(w_2k, w_2k+1) for
 *    float64; the result is fma(high - low, u, low) in the element type, with
 *    low and high rounded to it and high - low subtracted in it. The same
 *    bits everywhere. As in NumPy, rounding can give `high` itself when the
 *    span is wide compared with the spacing of numbers near high.
 *  - hk_random_normal: Box-Muller on pairs of uniforms, u1 in (0, 1] (never
 *    log(0)) and u2 in [0, 1). float32: numbers 2m and 2m+1 of a block
 *    (m = 0, 1) take u1 = U32(w_2m) + 2^-24 and u2 = U32(w_2m+1); float64:
 *    numbers 0 and 1 take u1 = U64(w0, w1) + 2^-53 and u2 = U64(w2, w3).
 *    r = sqrt(-2 log(u1)); z = r cospi(2 u2) for the even number of the
 *    pair, r sinpi(2 u2) for the odd one; the result is fma(stddev, z, mean)
 *    in the element type. Computed in the element type with the vendor's
 *    device math (logf, sqrtf, sincospif; log, sqrt, sincospi): the uniforms
 *    are bit-identical everywhere, the results may differ in the last bits
 *    between vendors' math libraries. |z| <= 5.8 for float32, 8.6 for float64.
 *
 * low, high, mean and stddev must be finite and within the dtype's range,
 * with low <= high, high - low finite in the dtype, and stddev >= 0;
 * otherwise HK_ERROR_INVALID_ARGUMENT. They are checked even for n == 0,
 * which does nothing else (dst may then be NULL). */
HK_API hk_status hk_random_uniform(void *dst, hk_dtype dtype, size_t n, uint64_t seed, uint64_t offset, double low,
                                   double high, hk_stream stream);
HK_API hk_status hk_random_normal(void *dst, hk_dtype dtype, size_t n, uint64_t seed, uint64_t offset, double mean,
                                  double stddev, hk_stream stream);

/* ------------------------------------------------- N-d arrays (strided views) */

/* The most dimensions a view has (NumPy allows 64; hk_reduce's axes are a 32-bit mask). Layouts are
 * merged first (size-1 extents dropped, neighbours every operand walks as one joined), so most deep
 * views reach the kernels with a few dimensions; one that stays deeper than the kernels' 8 still
 * works, split into several launches or routed through contiguous scratch copies. */
#define HK_MAX_DIMS 32

/* A view of device memory: element (i0, ..., i{ndim-1}) is at
 * data + (i0*strides[0] + ... ) elements. Strides count elements (not
 * bytes), may be negative (reversed views) or 0 (broadcast). ndim 0 is a
 * scalar (one element at data). */
typedef struct hk_array {
    void *data;
    hk_dtype dtype;
    int ndim;
    int64_t shape[HK_MAX_DIMS];
    int64_t strides[HK_MAX_DIMS];
} hk_array;

/* dst[...] = src[...] converted to dst's dtype, for any strides of either.
 * src is broadcast to dst's shape by NumPy's rules (so a 0-d src fills dst).
 * Covers astype, making a view contiguous, transposing, and assignment into
 * slices. Casts are NumPy's astype (unsafe casting), except that a float
 * outside an integer type's range or NaN converts to the nearest limit or 0
 * (GPUs saturate; NumPy's result there is undefined). float16 is supported
 * here. dst must not overlap src unless they are the same view: copy
 * through a temporary. */
HK_API hk_status hk_copy_array(const hk_array *src, const hk_array *dst, hk_stream stream);

/* Every element of `out` (any view of any of the fourteen dtypes) = *value, ONE host element of out's dtype
 * (bool: any non-zero byte is true), read during the call. Its bits are stored as they are (NaN payloads
 * and -0.0 survive). Asynchronous on `stream`. */
HK_API hk_status hk_fill(const hk_array *out, const void *value, hk_stream stream);
/* out[i] = *start + i * *step for a 1-d `out` (any stride, negative included; a stride of 0 over more than
 * one element is refused), `start` and `step` ONE host element each of out's dtype: float32, float64, int32
 * or int64 (others: HK_ERROR_NOT_SUPPORTED). float32 is computed in float64 and rounded once, so large i
 * stay exact as in NumPy's arange; integers wrap around. Asynchronous on `stream`. */
HK_API hk_status hk_iota(const hk_array *out, const void *start, const void *step, hk_stream stream);

/* ------------------------------------------------------- elementwise ops */

/* Dtype masks: bit d set for hk_dtype d. */
#define HK_DTYPE_BIT(d) (1u << (d))
#define HK_DTYPES_ALL 0x3FFFu /* the fourteen */
#define HK_DTYPES_COMPLEX (HK_DTYPE_BIT(HK_COMPLEX64) | HK_DTYPE_BIT(HK_COMPLEX128))
#define HK_DTYPES_REAL (HK_DTYPES_ALL & ~HK_DTYPES_COMPLEX) /* all but complex: the dtypes that have an order */
#define HK_DTYPES_FLOAT (HK_DTYPE_BIT(HK_FLOAT16) | HK_DTYPE_BIT(HK_FLOAT32) | HK_DTYPE_BIT(HK_FLOAT64))
#define HK_DTYPES_INEXACT (HK_DTYPES_FLOAT | HK_DTYPES_COMPLEX)          /* real and complex floats */
#define HK_DTYPES_NUMERIC (HK_DTYPES_ALL & ~HK_DTYPE_BIT(HK_BOOL))       /* all but bool */
#define HK_DTYPES_REAL_NUMERIC (HK_DTYPES_REAL & ~HK_DTYPE_BIT(HK_BOOL)) /* all but bool and complex */
#define HK_DTYPES_INTEGER (HK_DTYPES_REAL & ~HK_DTYPES_FLOAT)            /* bool and the integers */
#define HK_DTYPES_INT (HK_DTYPES_INTEGER & ~HK_DTYPE_BIT(HK_BOOL))       /* the integers */

/* How an op's result dtype follows from its inputs (NumPy's ufunc loops; the promotion of mixed inputs to one
 * dtype T comes first and is the caller's: hipkit's Python layer does it as NumPy 2 does). hk_elementwise takes
 * inputs of T itself, T in the op's dtype mask; the result is T except where a rule says bool. */
typedef enum hk_op_rule {
    HK_RULE_SAME = 0,             /* T -> T */
    HK_RULE_NO_BOOL = 1,          /* T -> T; bool is refused (NumPy raises for - of bools) */
    HK_RULE_BOOL_AS_INT8 = 2,     /* T -> T; bool computes as int8 */
    HK_RULE_TRUE_DIVIDE = 3,      /* inexact -> themselves; integers -> float64 (int8, uint8: float16 ... as NumPy) */
    HK_RULE_FLOAT = 4,            /* inexact -> themselves; bool, 1-byte ints -> float16; 2-byte -> float32; else f64 */
    HK_RULE_FLOAT_TO_BOOL = 5,    /* computed as HK_RULE_FLOAT, the result is bool */
    HK_RULE_TO_BOOL = 6,          /* T -> bool, any T */
    HK_RULE_INTEGER = 7,          /* bool and integers -> themselves; floats refused */
    HK_RULE_INT_BOOL_AS_INT8 = 8, /* integers -> themselves; bool computes as int8; floats refused */
    HK_RULE_ROUND = 9,            /* floats -> themselves; integers and bool as NumPy's version gives */
    HK_RULE_WHERE = 10,           /* (bool, T, T) -> T */
    HK_RULE_REAL_PART = 11        /* T -> T; complex64 -> float32, complex128 -> float64 (abs, real, imag) */
} hk_op_rule;

/* The identity of an op as a reduction, where it has one. */
typedef enum hk_op_identity {
    HK_IDENTITY_NONE = 0,
    HK_IDENTITY_ZERO = 1,     /* 0, false */
    HK_IDENTITY_ONE = 2,      /* 1, true */
    HK_IDENTITY_ALL_BITS = 3, /* -1: every bit set (true for bool) */
    HK_IDENTITY_LOWEST = 4,   /* the dtype's lowest value (-inf for floats): maximum's */
    HK_IDENTITY_HIGHEST = 5   /* the dtype's highest value (+inf for floats): minimum's */
} hk_op_identity;

/* The op table: every elementwise op, once. Its columns are the enum name (HK_OP_<NAME>), NumPy's name (the
 * device functor is op_<name>, hip_kernels/common/ops.h), the array API's name ("" where the standard has
 * none; reciprocal is in its 2024.12 edition), the number of inputs, the dtypes T the kernel takes, the result rule,
 * the identity, and what the op computes. hk_op_info() returns a row; the C validation, the kernels' dispatch
 * and the Python functions are all made from this list. Semantics per dtype, beyond the one-line summaries:
 *  - Integers wrap on overflow (ABSOLUTE and NEGATIVE of the minimum give the minimum; SQUARE wraps); integer
 *    x // 0, x % 0, fmod(x, 0) and reciprocal(0) give 0; MIN // -1 wraps. REMAINDER has the divisor's sign
 *    (floats too: NumPy's divmod, e.g. -5.0 % inf == inf, x // 0.0 == x / 0.0); FMOD the dividend's (C's fmod).
 *    FLOOR_DIVIDE of +-inf by a finite non-zero number is +-inf, and of a finite number by +-inf the signed zero
 *    x1 / x2 (the array API's special cases; NumPy 2.4 gives NaN, and -1.0 for -5.0 // inf). Integer POWER with a
 * negative exponent gives 0 except for bases 1 and -1 (NumPy raises). Integer RECIPROCAL is 1 / x truncated (0 for |x|
 * > 1).
 *  - MINIMUM/MAXIMUM/CLIP propagate NaN; of equal values (0.0 and -0.0) they give the first.
 *  - Comparisons with NaN are false (NOT_EQUAL: true); NaN is true for LOGICAL_*. SIGN(NaN) is NaN, SIGN(-0.0)
 *    is 0.0. SIGNBIT is the sign bit (true for -0.0 and negative NaNs).
 *  - LEFT_SHIFT/RIGHT_SHIFT by a count below 0 or at least the width give 0 (RIGHT_SHIFT of a negative
 *    number: -1), as NumPy's; the shifted bits of a negative number are those of two's complement.
 *  - RINT rounds half to even; FLOOR CEIL RINT TRUNC of integers and bool are the identity.
 *  - Complex numbers (complex64, complex128): arithmetic and the elementary functions as C99's Annex G and
 *    the array API standard define them (branch cuts and special values); == and != compare both parts; a
 *    value is true when either part is non-zero; ISNAN/ISINF: either part; SIGN is z / |z| (0 for 0); ABSOLUTE,
 *    REAL and IMAG give the parts' real dtype. They have no order: comparisons, MINIMUM, MAXIMUM, CLIP, the
 *    rounding functions and the real-only functions (ERF, ARCTAN2, HYPOT, ...) do not list them.
 *  - A bool input byte other than 0 reads as true; bool results are 0 or 1. float16 is computed in float32
 *    and rounded once to float16, as NumPy does. Transcendental functions are the vendor's device math. */
#define HK_OP_TABLE(X)                                                                                                 \
    X(ADD, add, "add", 2, HK_DTYPES_ALL, HK_RULE_SAME, HK_IDENTITY_ZERO, "x1 + x2 (bool: or)")                         \
    X(SUBTRACT, subtract, "subtract", 2, HK_DTYPES_NUMERIC, HK_RULE_NO_BOOL, HK_IDENTITY_NONE, "x1 - x2")              \
    X(MULTIPLY, multiply, "multiply", 2, HK_DTYPES_ALL, HK_RULE_SAME, HK_IDENTITY_ONE, "x1 * x2 (bool: and)")          \
    X(DIVIDE, divide, "divide", 2, HK_DTYPES_INEXACT, HK_RULE_TRUE_DIVIDE, HK_IDENTITY_NONE,                           \
      "x1 / x2 (true division: integers divide in a float dtype, as NumPy)")                                           \
    X(FLOOR_DIVIDE, floor_divide, "floor_divide", 2, HK_DTYPES_REAL_NUMERIC, HK_RULE_BOOL_AS_INT8, HK_IDENTITY_NONE,   \
      "x1 // x2 (rounds toward minus infinity; integer x // 0 gives 0)")                                               \
    X(REMAINDER, remainder, "remainder", 2, HK_DTYPES_REAL_NUMERIC, HK_RULE_BOOL_AS_INT8, HK_IDENTITY_NONE,            \
      "x1 % x2 (the sign of x2, as Python's and NumPy's; integer x % 0 gives 0)")                                      \
    X(POWER, power, "pow", 2, HK_DTYPES_NUMERIC, HK_RULE_BOOL_AS_INT8, HK_IDENTITY_NONE,                               \
      "x1 ** x2 (integers: a negative exponent gives 0 except for bases 1 and -1, where NumPy raises)")                \
    X(MINIMUM, minimum, "minimum", 2, HK_DTYPES_REAL, HK_RULE_SAME, HK_IDENTITY_HIGHEST,                               \
      "the smaller of x1 and x2 (NaN propagates)")                                                                     \
    X(MAXIMUM, maximum, "maximum", 2, HK_DTYPES_REAL, HK_RULE_SAME, HK_IDENTITY_LOWEST,                                \
      "the larger of x1 and x2 (NaN propagates)")                                                                      \
    X(EQUAL, equal, "equal", 2, HK_DTYPES_ALL, HK_RULE_TO_BOOL, HK_IDENTITY_NONE, "x1 == x2")                          \
    X(NOT_EQUAL, not_equal, "not_equal", 2, HK_DTYPES_ALL, HK_RULE_TO_BOOL, HK_IDENTITY_NONE, "x1 != x2")              \
    X(LESS, less, "less", 2, HK_DTYPES_REAL, HK_RULE_TO_BOOL, HK_IDENTITY_NONE, "x1 < x2")                             \
    X(LESS_EQUAL, less_equal, "less_equal", 2, HK_DTYPES_REAL, HK_RULE_TO_BOOL, HK_IDENTITY_NONE, "x1 <= x2")          \
    X(GREATER, greater, "greater", 2, HK_DTYPES_REAL, HK_RULE_TO_BOOL, HK_IDENTITY_NONE, "x1 > x2")                    \
    X(GREATER_EQUAL, greater_equal, "greater_equal", 2, HK_DTYPES_REAL, HK_RULE_TO_BOOL, HK_IDENTITY_NONE, "x1 >= x2") \
    X(LOGICAL_AND, logical_and, "logical_and", 2, HK_DTYPES_ALL, HK_RULE_TO_BOOL, HK_IDENTITY_ONE,                     \
      "x1 and x2, elementwise, as bool")                                                                               \
    X(LOGICAL_OR, logical_or, "logical_or", 2, HK_DTYPES_ALL, HK_RULE_TO_BOOL, HK_IDENTITY_ZERO,                       \
      "x1 or x2, elementwise, as bool")                                                                                \
    X(LOGICAL_XOR, logical_xor, "logical_xor", 2, HK_DTYPES_ALL, HK_RULE_TO_BOOL, HK_IDENTITY_ZERO,                    \
      "x1 xor x2, elementwise, as bool")                                                                               \
    X(BITWISE_AND, bitwise_and, "bitwise_and", 2, HK_DTYPES_INTEGER, HK_RULE_INTEGER, HK_IDENTITY_ALL_BITS, "x1 & x2") \
    X(BITWISE_OR, bitwise_or, "bitwise_or", 2, HK_DTYPES_INTEGER, HK_RULE_INTEGER, HK_IDENTITY_ZERO, "x1 | x2")        \
    X(BITWISE_XOR, bitwise_xor, "bitwise_xor", 2, HK_DTYPES_INTEGER, HK_RULE_INTEGER, HK_IDENTITY_ZERO, "x1 ^ x2")     \
    X(NEGATIVE, negative, "negative", 1, HK_DTYPES_NUMERIC, HK_RULE_NO_BOOL, HK_IDENTITY_NONE, "-x")                   \
    X(ABSOLUTE, absolute, "abs", 1, HK_DTYPES_ALL, HK_RULE_REAL_PART, HK_IDENTITY_NONE, "|x|")                         \
    X(LOGICAL_NOT, logical_not, "logical_not", 1, HK_DTYPES_ALL, HK_RULE_TO_BOOL, HK_IDENTITY_NONE,                    \
      "not x, elementwise, as bool")                                                                                   \
    X(BITWISE_INVERT, bitwise_invert, "bitwise_invert", 1, HK_DTYPES_INTEGER, HK_RULE_INTEGER, HK_IDENTITY_NONE,       \
      "~x (bool: not)")                                                                                                \
    X(EXP, exp, "exp", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "e**x")                                  \
    X(LOG, log, "log", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "natural logarithm")                     \
    X(LOG2, log2, "log2", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "base-2 logarithm")                   \
    X(LOG1P, log1p, "log1p", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "log(1 + x)")                      \
    X(EXPM1, expm1, "expm1", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "e**x - 1")                        \
    X(SQRT, sqrt, "sqrt", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "square root")                        \
    X(SIN, sin, "sin", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "sine")                                  \
    X(COS, cos, "cos", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "cosine")                                \
    X(TAN, tan, "tan", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "tangent")                               \
    X(TANH, tanh, "tanh", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "hyperbolic tangent")                 \
    X(ERF, erf, "", 1, HK_DTYPES_FLOAT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "the error function")                         \
    X(FLOOR, floor, "floor", 1, HK_DTYPES_REAL, HK_RULE_ROUND, HK_IDENTITY_NONE, "round down")                         \
    X(CEIL, ceil, "ceil", 1, HK_DTYPES_REAL, HK_RULE_ROUND, HK_IDENTITY_NONE, "round up")                              \
    X(RINT, rint, "", 1, HK_DTYPES_REAL, HK_RULE_ROUND, HK_IDENTITY_NONE,                                              \
      "round to the nearest integer, halves to even")                                                                  \
    X(ISNAN, isnan, "isnan", 1, HK_DTYPES_ALL, HK_RULE_TO_BOOL, HK_IDENTITY_NONE, "x is NaN")                          \
    X(ISINF, isinf, "isinf", 1, HK_DTYPES_ALL, HK_RULE_TO_BOOL, HK_IDENTITY_NONE, "x is +-inf")                        \
    X(ISFINITE, isfinite, "isfinite", 1, HK_DTYPES_ALL, HK_RULE_TO_BOOL, HK_IDENTITY_NONE, "x is neither inf nor NaN") \
    X(WHERE, where, "where", 3, HK_DTYPES_ALL, HK_RULE_WHERE, HK_IDENTITY_NONE,                                        \
      "x1 where condition is true, x2 elsewhere (inputs: condition (bool), x1, x2)")                                   \
    X(CLIP, clip, "clip", 3, HK_DTYPES_REAL, HK_RULE_SAME, HK_IDENTITY_NONE,                                           \
      "minimum(maximum(x, low), high) (inputs: x, low, high; NaN propagates)")                                         \
    X(LOG10, log10, "log10", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "base-10 logarithm")               \
    X(SIGN, sign, "sign", 1, HK_DTYPES_NUMERIC, HK_RULE_NO_BOOL, HK_IDENTITY_NONE, "-1, 0 or 1 by the sign of x")      \
    X(TRUNC, trunc, "trunc", 1, HK_DTYPES_REAL, HK_RULE_ROUND, HK_IDENTITY_NONE, "round toward zero")                  \
    X(SINH, sinh, "sinh", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "hyperbolic sine")                    \
    X(COSH, cosh, "cosh", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "hyperbolic cosine")                  \
    X(ARCSIN, arcsin, "asin", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "inverse sine")                   \
    X(ARCCOS, arccos, "acos", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "inverse cosine")                 \
    X(ARCTAN, arctan, "atan", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "inverse tangent")                \
    X(ARCSINH, arcsinh, "asinh", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "inverse hyperbolic sine")     \
    X(ARCCOSH, arccosh, "acosh", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "inverse hyperbolic cosine")   \
    X(ARCTANH, arctanh, "atanh", 1, HK_DTYPES_INEXACT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "inverse hyperbolic tangent")  \
    X(ARCTAN2, arctan2, "atan2", 2, HK_DTYPES_FLOAT, HK_RULE_FLOAT, HK_IDENTITY_NONE,                                  \
      "the angle of the point (x2, x1), in (-pi, pi]")                                                                 \
    X(HYPOT, hypot, "hypot", 2, HK_DTYPES_FLOAT, HK_RULE_FLOAT, HK_IDENTITY_NONE,                                      \
      "sqrt(x1**2 + x2**2), without overflow")                                                                         \
    X(LOGADDEXP, logaddexp, "logaddexp", 2, HK_DTYPES_FLOAT, HK_RULE_FLOAT, HK_IDENTITY_LOWEST,                        \
      "log(exp(x1) + exp(x2))")                                                                                        \
    X(COPYSIGN, copysign, "copysign", 2, HK_DTYPES_FLOAT, HK_RULE_FLOAT, HK_IDENTITY_NONE, "|x1| with the sign of x2") \
    X(RECIPROCAL, reciprocal, "reciprocal", 1, HK_DTYPES_NUMERIC, HK_RULE_BOOL_AS_INT8, HK_IDENTITY_NONE, "1 / x")     \
    X(SQUARE, square, "square", 1, HK_DTYPES_NUMERIC, HK_RULE_BOOL_AS_INT8, HK_IDENTITY_NONE, "x * x")                 \
    X(SIGNBIT, signbit, "signbit", 1, HK_DTYPES_FLOAT, HK_RULE_FLOAT_TO_BOOL, HK_IDENTITY_NONE,                        \
      "the sign bit of x is set")                                                                                      \
    X(LEFT_SHIFT, left_shift, "bitwise_left_shift", 2, HK_DTYPES_INT, HK_RULE_INT_BOOL_AS_INT8, HK_IDENTITY_NONE,      \
      "x1 << x2")                                                                                                      \
    X(RIGHT_SHIFT, right_shift, "bitwise_right_shift", 2, HK_DTYPES_INT, HK_RULE_INT_BOOL_AS_INT8, HK_IDENTITY_NONE,   \
      "x1 >> x2 (arithmetic for signed integers)")                                                                     \
    X(FMOD, fmod, "", 2, HK_DTYPES_REAL_NUMERIC, HK_RULE_BOOL_AS_INT8, HK_IDENTITY_NONE,                               \
      "the remainder of x1 / x2 with the sign of x1 (C's fmod; integer fmod(x, 0) gives 0)")                           \
    X(CONJ, conjugate, "conj", 1, HK_DTYPES_ALL, HK_RULE_BOOL_AS_INT8, HK_IDENTITY_NONE,                               \
      "the complex conjugate (real dtypes: x; bool as int8, as NumPy)")                                                \
    X(REAL, real, "real", 1, HK_DTYPES_ALL, HK_RULE_REAL_PART, HK_IDENTITY_NONE, "the real part (real dtypes: x)")     \
    X(IMAG, imag, "imag", 1, HK_DTYPES_ALL, HK_RULE_REAL_PART, HK_IDENTITY_NONE,                                       \
      "the imaginary part (real dtypes: 0)")                                                                           \
    X(NEXTAFTER, nextafter, "nextafter", 2, HK_DTYPE_BIT(HK_FLOAT32) | HK_DTYPE_BIT(HK_FLOAT64), HK_RULE_FLOAT,        \
      HK_IDENTITY_NONE,                                                                                                \
      "the next representable value after x1 toward x2 (float16, computed in float32, is not listed)")

/* NumPy's elementwise functions (ufuncs) over N-d strided views, one per row of HK_OP_TABLE. */
typedef enum hk_op {
#define HK_OP_ENUMERATOR_(NAME, name, api, arity, dtypes, rule, identity, summary) HK_OP_##NAME,
    HK_OP_TABLE(HK_OP_ENUMERATOR_)
#undef HK_OP_ENUMERATOR_
        HK_OP_COUNT
} hk_op;

/* One row of the op table. Strings are static. */
typedef struct hk_op_info {
    const char *name;           /* NumPy's name: "add", "arctan2", "invert" */
    const char *array_api_name; /* the array API's: "add", "atan2", "bitwise_invert"; "" if it has none */
    const char *summary;        /* what it computes, one line */
    int arity;                  /* inputs: 1, 2 or 3 */
    uint32_t dtypes;            /* the dtypes T hk_elementwise takes (bit d: hk_dtype d) */
    hk_op_rule rule;
    hk_op_identity identity;
} hk_op_info;

/* The row of `op`; HK_ERROR_INVALID_ARGUMENT for values out of range. */
HK_API hk_status hk_op_get_info(hk_op op, hk_op_info *info);
/* NumPy's name of the op: "add", "floor_divide", "invert", "where", ...; "invalid" out of range. Never NULL. */
HK_API const char *hk_op_name(hk_op op);
/* Number of inputs: 1, 2 or 3; HK_ERROR_INVALID_ARGUMENT for values out of range. */
HK_API hk_status hk_op_arity(hk_op op, int *inputs);

/* An operand whose ndim is HK_HOST_SCALAR is one value of its dtype in HOST memory at data, broadcast
 * everywhere and read during the call (the pointer need not outlive it). */
#define HK_HOST_SCALAR (-1)

/* out = op(inputs...) elementwise, with the semantics of HK_OP_TABLE. Every input broadcasts to out's shape
 * (NumPy's rules; the caller computes the result shape) or is a host scalar. Dtypes: every input has one dtype
 * T (WHERE: in[0] is bool and T is in[1]'s) in the op's dtype mask, else HK_ERROR_NOT_SUPPORTED naming the op,
 * the dtype and the mask; out has T, or bool where the op's rule says so (HK_RULE_TO_BOOL,
 * HK_RULE_FLOAT_TO_BOOL). Type promotion between different dtypes is the caller's (cast with hk_copy_array).
 * Overlap: out may be the same view as an input (same data, dtype, strides after broadcasting); any other
 * overlap with an input is refused, and so is an out that repeats an element (a stride of 0 over an extent
 * above 1) or has more than 2^62 elements. When every operand is C-contiguous and of out's shape (or a host
 * scalar), the call takes a short path straight to the contiguous kernel; the contiguous kernel (16-byte
 * accesses) also runs when all views are reversed or permuted alike, and host scalars and one-element device
 * inputs are broadcast from registers there. */
HK_API hk_status hk_elementwise(hk_op op, const hk_array *inputs, int n_inputs, const hk_array *out, hk_stream stream);
/* -------------------------------------------------------- scans, sorts */

typedef enum hk_scan_op { HK_SCAN_CUMSUM = 0, HK_SCAN_CUMPROD = 1 } hk_scan_op;

/* Inclusive scan along `axis` (0 <= axis < in->ndim; negative counts from the end; a 0-d input is
 * treated as 1-d of one element, and its out may be 0-d or 1-d of one element):
 * out[..., i, ...] = in[..., 0, ...] op ... op in[..., i, ...].
 * out has in's shape, dtype acc(in) (NumPy's: bool, int8, int32, int64 -> int64; uint8, uint32,
 * uint64 -> uint64; float16, float32, float64 -> themselves), any strides except 0 along an extent
 * above 1; out may be the same view as in when the dtypes are equal (in place); other overlap refused.
 * Integers wrap around on overflow. NaN propagates. Floats are combined in a parallel order, so the
 * last bits can differ from a sequential loop's (within about n * eps * the running sum of |x|).
 * float16 accumulates in float32 and rounds each output to float16 once; NumPy instead rounds its
 * running sum to float16 after every step (so NumPy's float16 cumsum of many small values stalls,
 * e.g. at 256 for 5000 x 0.1, where hipkit gives 499.9). */
HK_API hk_status hk_scan(hk_scan_op op, const hk_array *in, int axis, const hk_array *out, hk_stream stream);

/* Stable ascending sort along the last axis of `in` (any view, any of the fourteen dtypes; a 0-d input is one
 * element). NaN sorts last (after +inf); -0.0 and 0.0 compare equal and keep their order; the sorted
 * keys are the input's bits (NaN payloads and the sign of zero survive).
 * keys_out: the sorted values (in's shape and dtype, any strides) or NULL; indices_out: the positions
 * along the last axis that sort in (argsort), int64, in's shape, or NULL; at least one must be given.
 * Outputs may not have stride 0 along an extent above 1. keys_out may be the same view as in
 * (in-place sort); other overlaps are refused. */
HK_API hk_status hk_sort(const hk_array *in, const hk_array *keys_out, const hk_array *indices_out, hk_stream stream);
/* ------------------------------------------------- matrix products, take */

typedef enum hk_matmul_engine {
    HK_MATMUL_AUTO = 0,  /* the vendor BLAS when hipkit was built with one and it loads, else the own kernel */
    HK_MATMUL_OWN = 1,   /* hipkit's tiled HIP kernel */
    HK_MATMUL_VENDOR = 2 /* cuBLAS (CUDA) / rocBLAS (ROCm); HK_ERROR_NOT_SUPPORTED if absent or on the CPU device */
} hk_matmul_engine;

/* Whether the vendor BLAS is usable on the current device (a GPU, hipkit built with it, and the library
 * loads): 1 or 0; 0 on the CPU device, which has no BLAS yet. The library is
 * opened on first use with dlopen (libcublas.so.13, .so.12 or libcublas.so on NVIDIA; librocblas.so.5,
 * .4, .3, .0 or librocblas.so on AMD, which must use the same HIP runtime as hipkit), never linked, so
 * hipkit loads without it. CMake's HIPKIT_VENDOR_BLAS=OFF builds without the vendor path; the
 * environment variable HIPKIT_VENDOR_BLAS=0 (read once, at the first matmul call) turns it off at run
 * time. */
HK_API hk_status hk_matmul_vendor_available(int *available);

/* out = a @ b, NumPy's matmul for ndim >= 2: a (..., M, K), b (..., K, N), out (..., M, N); the batch
 * dimensions broadcast (NumPy's rules; out's batch shape is exactly the broadcast shape). float32 and
 * float64, all three the same dtype (different dtypes: HK_ERROR_INVALID_ARGUMENT, cast first with
 * hk_copy_array; other dtypes: HK_ERROR_NOT_SUPPORTED). Any strides, negative and 0 included, except
 * that out must not write one element twice (a 0 stride on an extent above 1 is refused). The own
 * kernel reads strided views directly; the vendor path passes row- and column-major views as
 * transposes and copies any other operand (or out) through contiguous pool scratch. float32 is
 * computed in full float32 precision: no TF32 (cuBLAS runs in its default math mode, whose float32
 * GEMM computes in float32). K == 0 gives zeros (with every engine this is done by the own kernel).
 * out must not overlap a or b. Asynchronous on `stream`; the vendor handle is per device, bound to
 * `stream` for the call, and shared safely between threads. */
HK_API hk_status hk_matmul(const hk_array *a, const hk_array *b, const hk_array *out, hk_matmul_engine engine,
                           hk_stream stream);

typedef enum hk_take_mode {
    HK_TAKE_RAISE = 0, /* an index out of range: HK_ERROR_INVALID_ARGUMENT naming it (this mode waits for
                          the stream to find out) */
    HK_TAKE_WRAP = 1,  /* indices wrap around (NumPy mode='wrap') */
    HK_TAKE_CLIP = 2   /* indices clip to the range (NumPy mode='clip') */
} hk_take_mode;

/* out = numpy.take(in, indices, axis, mode): out's shape is in.shape[:axis] + indices.shape +
 * in.shape[axis+1:], dtype in's (any of the fourteen; elements are copied as bytes); indices int64 (any
 * view, 0-d included; other dtypes: HK_ERROR_INVALID_ARGUMENT). axis in 0..in->ndim-1 (negative counts
 * from the end; a 0-d in has no axis). Index i of an axis of size n, as NumPy's take:
 *   RAISE: -n <= i < n is valid, negative counts from the end; any other value fails the call with
 *          HK_ERROR_INVALID_ARGUMENT ("index 7 is out of bounds for axis 1 with size 5", naming the
 *          first bad index in the C order of indices) after synchronizing `stream`; out is then left
 *          unwritten (the indices are checked before anything is copied).
 *   WRAP:  i mod n (Python's modulo: -1 is n-1, n is 0).
 *   CLIP:  clipped to 0..n-1, so negative indices give 0 (NumPy's mode='clip' disables negative
 *          indexing; this differs from RAISE and WRAP, where -1 is the last element).
 * Taking from an empty axis is an error when the result is not empty (NumPy's rule; an empty result
 * is success without a launch, even in RAISE mode). out must not overlap in or indices, nor write one
 * element twice. */
HK_API hk_status hk_take(const hk_array *in, const hk_array *indices, int axis, const hk_array *out, hk_take_mode mode,
                         hk_stream stream);

/* ------------------------------------------------------------ reductions */

typedef enum hk_reduce_op {
    HK_REDUCE_SUM = 0,
    HK_REDUCE_PROD,
    HK_REDUCE_MIN,
    HK_REDUCE_MAX,
    HK_REDUCE_ARGMIN,
    HK_REDUCE_ARGMAX,
    HK_REDUCE_ANY,
    HK_REDUCE_ALL,
    HK_REDUCE_MEAN,
    HK_REDUCE_VAR,
    HK_REDUCE_STD,
    HK_REDUCE_COUNT
} hk_reduce_op;

/* "sum", "prod", "min", "max", "argmin", "argmax", "any", "all", "mean",
 * "var", "std"; "invalid" for values out of range. Never NULL. */
HK_API const char *hk_reduce_op_name(hk_reduce_op op);

/* Reduce `in` over the axes whose bits are set in `axes` (bit k = axis k;
 * bits at or above in->ndim are an error; 0 = reduce nothing, i.e. a
 * per-element op; a 0-d input reduces to itself).
 * out: in's shape with the reduced axes removed, or kept with extent 1
 * (keepdims: told apart by out->ndim); any strides, but no stride 0 along an
 * extent above 1.
 * Dtypes ("acc" is NumPy's accumulation dtype: bool, int8, int32, int64 ->
 * int64; uint8, uint32, uint64 -> uint64; floats -> themselves; "mean" is
 * float64 for bool and integers, the float dtype itself otherwise):
 *   SUM PROD: out acc(in) (integers wrap around, float16 adds in float32);
 *   MIN MAX: out in's dtype; ARGMIN ARGMAX: out int64, and `axes` names one
 *   axis (the index along it) or all of them (the flat index, C order);
 *   ANY ALL: out bool (NaN is true);
 *   MEAN VAR STD: out mean(in), accumulated in float32 for float16 and
 *   float32, in float64 otherwise. VAR/STD merge (count, mean, M2) states
 *   (Welford/Chan), divide M2 by max(n - ddof, 0) as NumPy does (0 gives inf
 *   or nan), and are NaN when any element is NaN or infinite (as NumPy's);
 *   ddof is ignored by the other ops.
 * Empty reductions: SUM 0, PROD 1, ANY false, ALL true, MEAN/VAR/STD NaN;
 * MIN MAX ARGMIN ARGMAX over an empty extent with a non-empty out are
 * refused (HK_ERROR_INVALID_ARGUMENT: "zero-size reduction ... has no
 * identity", as NumPy). NaN propagates through SUM PROD MIN MAX MEAN VAR STD;
 * ARGMIN/ARGMAX give the first NaN's index; ties give the first index.
 * out must not overlap in. Results are deterministic (no float atomics): the
 * same call on the same device gives the same bits. */
HK_API hk_status hk_reduce(hk_reduce_op op, const hk_array *in, uint32_t axes, const hk_array *out, int ddof,
                           hk_stream stream);

/* -------------------------------------------------------------- scatter */

/* hk_put's axis for a flat put: indices address out's elements by their C-order position, whatever
 * out's strides (NumPy's put into out.flat). */
#define HK_PUT_FLAT (-128)

/* The inverse of hk_take, in place on out: out[..., indices[J], ...] = values[..., J, ...] for every
 * position J of indices (NumPy's `x[:, idx] = values` for an index array on one axis).
 * values' shape is out.shape[:axis] + indices.shape + out.shape[axis+1:] (take's result shape) and its
 * dtype out's (any of the fourteen; elements are copied as bytes: convert values first, e.g. with
 * hk_copy_array; another dtype is HK_ERROR_INVALID_ARGUMENT); values may be any view, strides of 0
 * included (a broadcast value). indices int64 (any view, 0-d included; other dtypes:
 * HK_ERROR_INVALID_ARGUMENT). axis in 0..out->ndim-1 (negative counts from the end; a 0-d out has no
 * axis), or HK_PUT_FLAT: then values has indices' shape and index i addresses element i of out in C
 * order (out of any ndim, 0-d included, whose "axis" is its element count). Index i of an axis of
 * size n is normalised as hk_take's:
 *   RAISE: -n <= i < n is valid, negative counts from the end; any other value fails the call with
 *          HK_ERROR_INVALID_ARGUMENT ("index 7 is out of bounds for axis 1 with size 5", naming the
 *          first bad index in the C order of indices; a flat put names axis 0) after synchronizing
 *          `stream`; out is then left unwritten (every index is checked before anything is written).
 *   WRAP:  i mod n (Python's modulo).
 *   CLIP:  clipped to 0..n-1 (negative indices give 0).
 * Duplicate indices: which of the values aimed at one element lands is unspecified (NumPy says the
 * same of advanced assignment), but every element written holds one of those values whole (elements
 * are stored with single stores of at most 8 bytes, complex128's of 16, which the GPUs write as one
 * aligned access; along an axis, the elements of one row may come from different duplicates). Putting into an empty
 * axis is an error when values is not empty (an empty values is success without a launch, even in RAISE mode). out must
 * not overlap values or indices, nor repeat an element (a stride of 0 on an extent above 1). Asynchronous on `stream`
 * except in RAISE mode. */
HK_API hk_status hk_put(const hk_array *values, const hk_array *indices, int axis, const hk_array *out,
                        hk_take_mode mode, hk_stream stream);

/* Boolean-mask selection, NumPy's in[mask] for a mask of in's shape, in two calls because the result's
 * length depends on the data:
 * hk_mask_count: *count = the number of true elements of `mask` (bool, any view; other dtypes:
 * HK_ERROR_INVALID_ARGUMENT). Waits for `stream`: the count is read back (the one number copied to the
 * host). An empty mask counts 0.
 * hk_mask_select: out = the elements of `in` (any view, any of the fourteen dtypes, mask's shape) where mask
 * is true, in C order. out is 1-d, in's dtype, any stride, and must have hk_mask_count's length for
 * this mask (another length leaves its contents unspecified, but nothing outside out is written); out
 * must not overlap in. Asynchronous on `stream`; computed on the device (a scan of the mask gives each
 * element's place), from stream-ordered pool scratch. */
HK_API hk_status hk_mask_count(const hk_array *mask, int64_t *count, hk_stream stream);
HK_API hk_status hk_mask_select(const hk_array *in, const hk_array *mask, const hk_array *out, hk_stream stream);
/* hk_mask_positions: where mask (bool, any view, as for hk_mask_count) is true, in C order, NumPy's
 * nonzero and flatnonzero in one call. out is int64 of shape (k, count), any strides, count being
 * hk_mask_count's for this mask (another count leaves out's contents unspecified, but nothing outside
 * out is written):
 *   k == mask->ndim: out[d, j] = coordinate d of the j-th true element (numpy.nonzero's row d);
 *   k == 1:          out[0, j] = its flat C-order position (numpy.flatnonzero; for a 1-d mask the two
 *                    are the same, and a 0-d mask gives position 0 when true).
 * out's elements must be distinct (a stride of 0 along an extent above 1 is refused) and must not
 * overlap mask. Asynchronous on `stream`; computed on the device in one compaction of the mask (no
 * index array is materialised), from stream-ordered pool scratch. */
HK_API hk_status hk_mask_positions(const hk_array *mask, const hk_array *out, hk_stream stream);

/* ------------------------------------------------- user kernels (run time) */

/* Write a kernel once in HIP C++; hipkit compiles it at run time (hiprtc on
 * AMD, NVRTC on NVIDIA) for the current device or for a named target, caches
 * the result on disk and launches it. Kernels must be `extern "C" __global__`
 * (or their parameter types given with hk_kernel_set_params). The device
 * prelude is available as `#include <hipkit_device.h>`: index helpers, the
 * warp size, warp and block reductions correct for 32 and 64 lanes. */

/* Programs, modules and kernels may be used from any thread, but a handle
 * must not be destroyed (or its module unloaded) while another thread is
 * still using it. */
typedef struct hk_program_opaque *hk_program; /* compiled code for one target */
typedef struct hk_module_opaque *hk_module;   /* a program loaded on one device */
typedef struct hk_kernel_opaque *hk_kernel;   /* one kernel of a module */

/* Compile `source` (named `name` in messages, e.g. "saxpy.hip") with compiler
 * `options` ("-DN=4", "-O3", ...) for `target` ("gfx90a", "sm_90"), or for the
 * current device when target is NULL. Needs no GPU when a target is named.
 * A compile error gives HK_ERROR_COMPILE, with the compiler's log (file and
 * line numbers) in hk_last_error(). A cached result is used when present. */
HK_API hk_status hk_program_compile(hk_program *program, const char *source, const char *name,
                                    const char *const *options, int num_options, const char *target);
HK_API hk_status hk_program_destroy(hk_program program);
/* Code object (AMD), CUBIN (NVIDIA sm_XX) or PTX (NVIDIA compute_XX); valid
 * until the program is destroyed. */
HK_API hk_status hk_program_get_binary(hk_program program, const void **binary, size_t *bytes);
/* The compiler's messages (warnings) for a successful compile; "" if none or
 * cached. Valid until the program is destroyed. */
HK_API hk_status hk_program_get_log(hk_program program, const char **log);
/* The target compiled for ("sm_90", "gfx90a"); valid until the program is destroyed. */
HK_API hk_status hk_program_get_target(hk_program program, const char **target);
/* 1 when the binary came from the disk cache, 0 when it was compiled now. */
HK_API hk_status hk_program_is_cached(hk_program program, int *cached);

/* Load a program on the current device; its target must be the device's. */
HK_API hk_status hk_module_load(hk_module *module, hk_program program);
/* Unloads the module; its kernels' handles become invalid. */
HK_API hk_status hk_module_unload(hk_module module);
HK_API hk_status hk_module_get_kernel(hk_kernel *kernel, hk_module module, const char *name);

typedef enum hk_arg_type {
    HK_ARG_POINTER = 0, /* any T* (device address) */
    HK_ARG_INT8 = 1,
    HK_ARG_UINT8 = 2,
    HK_ARG_INT16 = 3,
    HK_ARG_UINT16 = 4,
    HK_ARG_INT32 = 5,
    HK_ARG_UINT32 = 6,
    HK_ARG_INT64 = 7,
    HK_ARG_UINT64 = 8,
    HK_ARG_FLOAT32 = 9,
    HK_ARG_FLOAT64 = 10,
    HK_ARG_BOOL = 11
} hk_arg_type;

#define HK_KERNEL_MAX_PARAMS 64

/* The kernel's parameter types, read from its `extern "C"` declaration in the
 * source (or set by hk_kernel_set_params). *count is -1 when unknown. `types`
 * may be NULL; at most `capacity` entries are written. */
HK_API hk_status hk_kernel_get_params(hk_kernel kernel, int *count, hk_arg_type *types, int capacity);
/* Declare the parameter types when the source cannot tell (templates, macros). */
HK_API hk_status hk_kernel_set_params(hk_kernel kernel, const hk_arg_type *types, int count);

typedef struct hk_kernel_attributes {
    int max_threads_per_block; /* for this kernel on this device */
    size_t static_shared_bytes;
    size_t max_dynamic_shared_bytes; /* the most a launch may ask for */
    int registers_per_thread;
} hk_kernel_attributes;
HK_API hk_status hk_kernel_get_attributes(hk_kernel kernel, hk_kernel_attributes *attributes);

typedef struct hk_dim3 {
    unsigned int x, y, z;
} hk_dim3;

/* One argument with its type; launches check each against the parameter list. */
typedef struct hk_arg {
    hk_arg_type type;
    union {
        const void *pointer;
        int64_t i64;  /* any signed integer type: range-checked against the parameter */
        uint64_t u64; /* any unsigned integer type and bool: range-checked */
        double f64;   /* float32 or float64 parameters */
    } value;
} hk_arg;

/* Launch with a grid, a block, dynamic shared memory and a stream. Refused
 * with a sentence, before launching: a block over the kernel's thread limit,
 * a grid over the device's, shared memory over the limit, the wrong number of
 * arguments, an argument whose type or value does not fit its parameter. */
HK_API hk_status hk_kernel_launch(hk_kernel kernel, hk_dim3 grid, hk_dim3 block, size_t shared_bytes, hk_stream stream,
                                  const hk_arg *args, int num_args);
/* The fast path for bindings: the arguments already laid out as the kernel's
 * parameters are in memory (each at its natural alignment, like a C struct
 * of them); args_bytes is that layout's size, with or without the struct's
 * tail padding. Needs the parameter list. */
HK_API hk_status hk_kernel_launch_packed(hk_kernel kernel, hk_dim3 grid, hk_dim3 block, size_t shared_bytes,
                                         hk_stream stream, const void *args, size_t args_bytes);
/* The block size with the best occupancy for this kernel (1-D), and the grid
 * that covers n items with it. */
HK_API hk_status hk_kernel_suggest_launch(hk_kernel kernel, size_t n, size_t shared_bytes, hk_dim3 *grid,
                                          hk_dim3 *block);
/* hk_kernel_suggest_launch, then hk_kernel_launch. */
HK_API hk_status hk_kernel_launch_n(hk_kernel kernel, size_t n, size_t shared_bytes, hk_stream stream,
                                    const hk_arg *args, int num_args);

/* The disk cache of compiled programs, keyed by source, options, target,
 * compiler version and hipkit version. Default folder: $HIPKIT_CACHE_DIR,
 * else $XDG_CACHE_HOME/hipkit, else ~/.cache/hipkit; HIPKIT_CACHE_DISABLE=1
 * turns it off. A damaged entry is detected (size, checksum, key) and rebuilt. */
/* NULL turns the cache off; a folder turns it on there (created if needed). */
HK_API hk_status hk_cache_set_dir(const char *dir);
/* The folder in use, or NULL when the cache is off; valid until the next
 * hk_cache_set_dir. */
HK_API hk_status hk_cache_get_dir(const char **dir);
/* Version of the run-time compiler (NVRTC or hiprtc). */
HK_API hk_status hk_rtc_version(int *major, int *minor);

#ifdef __cplusplus
}
#endif
#endif /* HIPKIT_H */
