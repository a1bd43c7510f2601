/* vendor_blas.c: cuBLAS (NVIDIA) or rocBLAS (AMD) opened with dlopen on first use, never linked, so
 * libhipkit loads on machines without them (or without any GPU) and every other path still works.
 * The few prototypes and enum values used are declared here, as in nvrtc_loader.c; values are the
 * vendors' documented ABI (cublas_api.h, rocblas-types.h).
 *
 * One handle per device, created on first use and kept for the life of the process (destroying it
 * at exit could race the runtime's own teardown). A call takes the device's lock, binds the handle
 * to the caller's stream (and, for cuBLAS, to the workspace the caller took from hipkit's
 * stream-ordered pool), runs the GEMM and releases the lock: the host-side cost is a few
 * microseconds, the GPU work stays asynchronous. Built without the vendor path (CMake HIPKIT_VENDOR_BLAS=OFF) the
 * functions say so. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/device_state.h"
#include "../core/settings.h"
#include "gpu.h"
#include "vendor_blas.h"

#if defined(HIPKIT_WITH_VENDOR_BLAS)

/* ------------------------------------------------------------ the vendor's API */

#if defined(HIPKIT_PLATFORM_NVIDIA)

#ifndef HIPKIT_NVRTC_DIR
#define HIPKIT_NVRTC_DIR "/usr/local/cuda/lib64"
#endif

#define VENDOR_NAME "cuBLAS"
enum { BLAS_SUCCESS = 0, BLAS_OP_N = 0, BLAS_OP_T = 1, CUBLAS_DEFAULT_MATH = 0 };
enum { CUBLAS_STATUS_ALLOC_FAILED = 3, CUBLAS_STATUS_ARCH_MISMATCH = 8, CUBLAS_STATUS_NOT_SUPPORTED = 15 };
/* The toolkit's soname first, then the folder CMake found the toolkit in (HIPKIT_NVRTC_DIR is it). */
static const char *const library_names[] = {"libcublas.so.13",
                                            "libcublas.so.12",
                                            "libcublas.so",
                                            HIPKIT_NVRTC_DIR "/libcublas.so.13",
                                            HIPKIT_NVRTC_DIR "/libcublas.so.12",
                                            HIPKIT_NVRTC_DIR "/libcublas.so"};
#define LIBRARY_HINT "install the CUDA toolkit's cuBLAS (libcublas.so.13 or .12) and make it findable (LD_LIBRARY_PATH)"

static struct {
    int (*create)(void **handle);
    int (*set_stream)(void *handle, void *stream);
    int (*set_workspace)(void *handle, void *workspace, size_t bytes);
    int (*set_math_mode)(void *handle, int mode);
    int (*sgemm)(void *handle, int transa, int transb, int64_t m, int64_t n, int64_t k, const float *alpha,
                 const float *a, int64_t lda, long long stride_a, const float *b, int64_t ldb, long long stride_b,
                 const float *beta, float *c, int64_t ldc, long long stride_c, int64_t batch);
    int (*dgemm)(void *handle, int transa, int transb, int64_t m, int64_t n, int64_t k, const double *alpha,
                 const double *a, int64_t lda, long long stride_a, const double *b, int64_t ldb, long long stride_b,
                 const double *beta, double *c, int64_t ldc, long long stride_c, int64_t batch);
    /* single products go through plain GEMM, so cuBLAS's choice is exactly the one cublasSgemm makes */
    int (*sgemm1)(void *handle, int transa, int transb, int64_t m, int64_t n, int64_t k, const float *alpha,
                  const float *a, int64_t lda, const float *b, int64_t ldb, const float *beta, float *c,
                  int64_t ldc); /* optional */
    int (*dgemm1)(void *handle, int transa, int transb, int64_t m, int64_t n, int64_t k, const double *alpha,
                  const double *a, int64_t lda, const double *b, int64_t ldb, const double *beta, double *c,
                  int64_t ldc); /* optional */
    const char *(*status_name)(int status);   /* optional */
    const char *(*status_string)(int status); /* optional */
} api;

#define REQUIRED_SYMBOLS                                                                                               \
    {(void **)&api.create, "cublasCreate_v2"}, {(void **)&api.set_stream, "cublasSetStream_v2"},                       \
        {(void **)&api.set_workspace, "cublasSetWorkspace_v2"}, {(void **)&api.set_math_mode, "cublasSetMathMode"},    \
        {(void **)&api.sgemm, "cublasSgemmStridedBatched_64"}, {                                                       \
        (void **)&api.dgemm, "cublasDgemmStridedBatched_64"                                                            \
    }
#define OPTIONAL_SYMBOLS                                                                                               \
    {(void **)&api.status_name, "cublasGetStatusName"}, {(void **)&api.status_string, "cublasGetStatusString"},        \
        {(void **)&api.sgemm1, "cublasSgemm_v2_64"}, {                                                                 \
        (void **)&api.dgemm1, "cublasDgemm_v2_64"                                                                      \
    }

static void describe_status(int status, char *out, size_t size)
{
    const char *name = api.status_name ? api.status_name(status) : NULL;
    const char *text = api.status_string ? api.status_string(status) : NULL;
    snprintf(out, size, "%s (%d)%s%s", name ? name : "cublasStatus_t", status, text ? ": " : "", text ? text : "");
}

static hk_status status_of(int status)
{
    switch (status) {
    case CUBLAS_STATUS_ALLOC_FAILED: return HK_ERROR_OUT_OF_MEMORY;
    case CUBLAS_STATUS_ARCH_MISMATCH:
    case CUBLAS_STATUS_NOT_SUPPORTED: return HK_ERROR_NOT_SUPPORTED;
    default: return HK_ERROR_RUNTIME;
    }
}

static int is_success(int status)
{
    return status == BLAS_SUCCESS;
}

/* Library and hipkit talk to one CUDA driver, whichever runtime each links: nothing to check. */
static const char *runtime_mismatch(void *lib)
{
    (void)lib;
    return NULL;
}

#elif defined(HIPKIT_PLATFORM_AMD)

#define VENDOR_NAME "rocBLAS"
enum { BLAS_SUCCESS = 0, BLAS_OP_N = 111, BLAS_OP_T = 112 };
enum {
    ROCBLAS_STATUS_NOT_IMPLEMENTED = 2,
    ROCBLAS_STATUS_MEMORY_ERROR = 5,
    ROCBLAS_STATUS_PERF_DEGRADED = 7, /* done, slower for lack of device memory: success */
    ROCBLAS_ATOMICS_NOT_ALLOWED = 0
};
static const char *const library_names[] = {"librocblas.so.5",
                                            "librocblas.so.4",
                                            "librocblas.so.3",
                                            "librocblas.so.0",
                                            "librocblas.so",
                                            "/opt/rocm/lib/librocblas.so.5",
                                            "/opt/rocm/lib/librocblas.so.4",
                                            "/opt/rocm/lib/librocblas.so"};
#define LIBRARY_HINT "install rocBLAS for this HIP runtime (Debian: librocblas0) and make it findable (LD_LIBRARY_PATH)"

static struct {
    int (*create)(void **handle);
    int (*set_stream)(void *handle, void *stream);
    int (*sgemm)(void *handle, int transa, int transb, int32_t m, int32_t n, int32_t k, const float *alpha,
                 const float *a, int32_t lda, int64_t stride_a, const float *b, int32_t ldb, int64_t stride_b,
                 const float *beta, float *c, int32_t ldc, int64_t stride_c, int32_t batch);
    int (*dgemm)(void *handle, int transa, int transb, int32_t m, int32_t n, int32_t k, const double *alpha,
                 const double *a, int32_t lda, int64_t stride_a, const double *b, int32_t ldb, int64_t stride_b,
                 const double *beta, double *c, int32_t ldc, int64_t stride_c, int32_t batch);
    const char *(*status_string)(int status); /* optional */
    int (*set_atomics_mode)(void *handle, int mode); /* optional */
} api;

#define REQUIRED_SYMBOLS                                                                                               \
    {(void **)&api.create, "rocblas_create_handle"}, {(void **)&api.set_stream, "rocblas_set_stream"},                 \
        {(void **)&api.sgemm, "rocblas_sgemm_strided_batched"}, {                                                      \
        (void **)&api.dgemm, "rocblas_dgemm_strided_batched"                                                           \
    }
#define OPTIONAL_SYMBOLS                                                                                               \
    {(void **)&api.status_string, "rocblas_status_to_string"}, {                                                       \
        (void **)&api.set_atomics_mode, "rocblas_set_atomics_mode"                                                     \
    }

static void describe_status(int status, char *out, size_t size)
{
    const char *text = api.status_string ? api.status_string(status) : NULL;
    snprintf(out, size, "rocblas_status %d%s%s", status, text ? ": " : "", text ? text : "");
}

static hk_status status_of(int status)
{
    switch (status) {
    case ROCBLAS_STATUS_MEMORY_ERROR: return HK_ERROR_OUT_OF_MEMORY;
    case ROCBLAS_STATUS_NOT_IMPLEMENTED: return HK_ERROR_NOT_SUPPORTED;
    default: return HK_ERROR_RUNTIME;
    }
}

static int is_success(int status)
{
    return status == BLAS_SUCCESS || status == ROCBLAS_STATUS_PERF_DEGRADED;
}

/* rocBLAS must run on hipkit's own HIP runtime: a rocBLAS built for another ROCm brings a second
 * libamdhip64 whose streams and allocations are not hipkit's. */
static const char *runtime_mismatch(void *lib)
{
    void *theirs = dlsym(lib, "hipRuntimeGetVersion");
    void *ours = (void *)&hipRuntimeGetVersion;
    if (theirs && theirs != ours)
        return "the rocBLAS found uses a different HIP runtime (libamdhip64) than hipkit; install the rocBLAS of "
               "hipkit's ROCm";
    return NULL;
}

#else
#error "define HIPKIT_PLATFORM_NVIDIA or HIPKIT_PLATFORM_AMD"
#endif

/* ------------------------------------------------------------------- loading */

typedef struct device_slot {
    pthread_mutex_t lock;
    void *handle; /* created on first use, then kept */
} device_slot;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char unavailable[512];
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;
static device_slot *slots;
static int slot_count;

static void load(void)
{
    const char *off = hk__settings_vendor_blas_off();
    if (off) {
        snprintf(unavailable, sizeof unavailable, "%s is turned off by the environment (HIPKIT_VENDOR_BLAS=%s)",
                 VENDOR_NAME, off);
        return;
    }
    void *lib = NULL;
    const char *last_error = "not found";
    for (size_t i = 0; i < sizeof library_names / sizeof library_names[0] && !lib; i++) {
        lib = dlopen(library_names[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            last_error = dlerror();
    }
    if (!lib) {
        snprintf(unavailable, sizeof unavailable, "%s could not be loaded (%s); %s", VENDOR_NAME, last_error,
                 LIBRARY_HINT);
        return;
    }
    const char *mismatch = runtime_mismatch(lib);
    if (mismatch) {
        snprintf(unavailable, sizeof unavailable, "%s", mismatch);
        return; /* the library stays loaded: unloading code whose constructors ran is riskier */
    }
    struct {
        void **slot;
        const char *name;
    } required[] = {REQUIRED_SYMBOLS}, optional[] = {OPTIONAL_SYMBOLS};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        *required[i].slot = dlsym(lib, required[i].name);
        if (!*required[i].slot) {
            snprintf(unavailable, sizeof unavailable, "the %s found lacks %s; it is too old for hipkit", VENDOR_NAME,
                     required[i].name);
            return;
        }
    }
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        *optional[i].slot = dlsym(lib, optional[i].name);
}

/* One slot per device, made at the first GEMM: devices are discovered by then (a GEMM runs on one). */
static void make_slots(void)
{
    int count = hk__recorded_device_count();
    if (count > 0 && (slots = (device_slot *)calloc((size_t)count, sizeof *slots))) {
        for (int d = 0; d < count; d++)
            pthread_mutex_init(&slots[d].lock, NULL);
        slot_count = count;
    }
}

const char *hk__vendor_blas_unavailable(void)
{
    pthread_once(&load_once, load);
    return unavailable[0] ? unavailable : NULL;
}

const char *hk__vendor_blas_name(void)
{
    return VENDOR_NAME;
}

static hk_status vendor_failed(const char *fn, int status, const char *what)
{
    char text[256];
    describe_status(status, text, sizeof text);
    int device = hk__current_device();
    return hk__fail(status_of(status), fn, "%s %s failed on device %d (%s): %s", VENDOR_NAME, what, device,
                    hk__device_name(device), text);
}

/* The device's handle, created on first use; called with the slot locked. */
static hk_status handle_for(const char *fn, device_slot *slot, void **handle)
{
    if (!slot->handle) {
        void *h = NULL;
        int st = api.create(&h);
        if (!is_success(st))
            return vendor_failed(fn, st, "handle creation");
#if defined(HIPKIT_PLATFORM_NVIDIA)
        /* float32 GEMMs in float32: the default math mode never uses TF32 for cublasSgemm*. */
        st = api.set_math_mode(h, CUBLAS_DEFAULT_MATH);
        if (!is_success(st))
            return vendor_failed(fn, st, "cublasSetMathMode");
#else
        /* Deterministic results, as everywhere else in hipkit. */
        if (api.set_atomics_mode && !is_success(st = api.set_atomics_mode(h, ROCBLAS_ATOMICS_NOT_ALLOWED)))
            return vendor_failed(fn, st, "rocblas_set_atomics_mode");
#endif
        slot->handle = h;
    }
    *handle = slot->handle;
    return HK_SUCCESS;
}

#if defined(HIPKIT_PLATFORM_NVIDIA)

/* cuBLAS's recommended workspace: 32 MiB on Hopper and newer, 4 MiB before. */
size_t hk__vendor_blas_workspace_bytes(void)
{
    int capability = 0; /* "sm_90" -> 90 */
    if (sscanf(hk__device_properties(hk__current_device())->arch, "sm_%d", &capability) != 1)
        capability = 0;
    return capability >= 90 ? (size_t)32 << 20 : (size_t)4 << 20;
}

static hk_status run_gemm(const char *fn, void *handle, void *stream, void *ws, size_t ws_bytes, hk_dtype dtype, int ta,
                          int tb, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda, int64_t sa,
                          const void *b, int64_t ldb, int64_t sb, void *c, int64_t ldc, int64_t sc, int64_t batch)
{
    int st = api.set_stream(handle, stream); /* also resets the workspace: set it after */
    hk_status s = HK_SUCCESS;
    if (!is_success(st))
        s = vendor_failed(fn, st, "cublasSetStream");
    else if (!is_success(st = api.set_workspace(handle, ws, ws_bytes)))
        s = vendor_failed(fn, st, "cublasSetWorkspace");
    else if (dtype == HK_FLOAT32) {
        const float one = 1.0f, zero = 0.0f;
        if (batch == 1 && api.sgemm1)
            st = api.sgemm1(handle, ta, tb, m, n, k, &one, (const float *)a, lda, (const float *)b, ldb, &zero,
                            (float *)c, ldc);
        else
            st = api.sgemm(handle, ta, tb, m, n, k, &one, (const float *)a, lda, sa, (const float *)b, ldb, sb,
                           &zero, (float *)c, ldc, sc, batch);
        if (!is_success(st))
            s = vendor_failed(fn, st, batch == 1 && api.sgemm1 ? "cublasSgemm_v2_64" : "cublasSgemmStridedBatched_64");
    } else {
        const double one = 1.0, zero = 0.0;
        if (batch == 1 && api.dgemm1)
            st = api.dgemm1(handle, ta, tb, m, n, k, &one, (const double *)a, lda, (const double *)b, ldb, &zero,
                            (double *)c, ldc);
        else
            st = api.dgemm(handle, ta, tb, m, n, k, &one, (const double *)a, lda, sa, (const double *)b, ldb, sb,
                           &zero, (double *)c, ldc, sc, batch);
        if (!is_success(st))
            s = vendor_failed(fn, st, batch == 1 && api.dgemm1 ? "cublasDgemm_v2_64" : "cublasDgemmStridedBatched_64");
    }
    return s;
}

#else

/* rocBLAS manages its own workspace. */
size_t hk__vendor_blas_workspace_bytes(void)
{
    return 0;
}

static hk_status run_gemm(const char *fn, void *handle, void *stream, void *ws, size_t ws_bytes, hk_dtype dtype, int ta,
                          int tb, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda, int64_t sa,
                          const void *b, int64_t ldb, int64_t sb, void *c, int64_t ldc, int64_t sc, int64_t batch)
{
    (void)ws, (void)ws_bytes;
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX)
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn,
                        "rocBLAS takes 32-bit sizes and leading dimensions; this product (m %lld, n %lld, k %lld, "
                        "leading dimensions %lld, %lld, %lld) needs HK_MATMUL_OWN",
                        (long long)m, (long long)n, (long long)k, (long long)lda, (long long)ldb, (long long)ldc);
    int st = api.set_stream(handle, stream);
    if (!is_success(st))
        return vendor_failed(fn, st, "rocblas_set_stream");
    for (int64_t done = 0; done < batch;) { /* batches beyond 2^31 - 1 in chunks */
        const int32_t count = batch - done > INT32_MAX ? INT32_MAX : (int32_t)(batch - done);
        if (dtype == HK_FLOAT32) {
            const float one = 1.0f, zero = 0.0f;
            st = api.sgemm(handle, ta, tb, (int32_t)m, (int32_t)n, (int32_t)k, &one, (const float *)a + done * sa,
                           (int32_t)lda, sa, (const float *)b + done * sb, (int32_t)ldb, sb, &zero,
                           (float *)c + done * sc, (int32_t)ldc, sc, count);
            if (!is_success(st))
                return vendor_failed(fn, st, "rocblas_sgemm_strided_batched");
        } else {
            const double one = 1.0, zero = 0.0;
            st = api.dgemm(handle, ta, tb, (int32_t)m, (int32_t)n, (int32_t)k, &one, (const double *)a + done * sa,
                           (int32_t)lda, sa, (const double *)b + done * sb, (int32_t)ldb, sb, &zero,
                           (double *)c + done * sc, (int32_t)ldc, sc, count);
            if (!is_success(st))
                return vendor_failed(fn, st, "rocblas_dgemm_strided_batched");
        }
        done += count;
    }
    return HK_SUCCESS;
}

#endif

hk_status hk__vendor_gemm(const char *fn, void *stream, void *workspace, size_t workspace_bytes, hk_dtype dtype,
                          int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
                          int64_t stride_a, const void *b, int64_t ldb, int64_t stride_b, void *c, int64_t ldc,
                          int64_t stride_c, int64_t batch)
{
    const char *why = hk__vendor_blas_unavailable();
    if (why)
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn, "%s", why);
    pthread_once(&slots_once, make_slots);
    int device = hk__current_device();
    if (device < 0 || device >= slot_count)
        return hk__fail(HK_ERROR_INTERNAL, fn, "no %s state for device %d (%d devices known)", VENDOR_NAME, device,
                        slot_count);
    device_slot *slot = &slots[device];
    pthread_mutex_lock(&slot->lock);
    void *handle = NULL;
    hk_status s = handle_for(fn, slot, &handle);
    if (s == HK_SUCCESS)
        s = run_gemm(fn, handle, stream, workspace, workspace_bytes, dtype, trans_a ? BLAS_OP_T : BLAS_OP_N,
                     trans_b ? BLAS_OP_T : BLAS_OP_N, m, n, k, a, lda, stride_a, b, ldb, stride_b, c, ldc, stride_c,
                     batch);
    pthread_mutex_unlock(&slot->lock);
    return s;
}

#else /* built without the vendor path */

const char *hk__vendor_blas_unavailable(void)
{
    return "hipkit was built without the vendor BLAS (CMake option HIPKIT_VENDOR_BLAS=OFF)";
}

const char *hk__vendor_blas_name(void)
{
    return HK_GPU_PLATFORM == HK_PLATFORM_AMD ? "rocBLAS" : "cuBLAS";
}

size_t hk__vendor_blas_workspace_bytes(void)
{
    return 0;
}

hk_status hk__vendor_gemm(const char *fn, void *stream, void *workspace, size_t workspace_bytes, hk_dtype dtype,
                          int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
                          int64_t stride_a, const void *b, int64_t ldb, int64_t stride_b, void *c, int64_t ldc,
                          int64_t stride_c, int64_t batch)
{
    (void)stream, (void)workspace, (void)workspace_bytes, (void)dtype, (void)trans_a, (void)trans_b, (void)m, (void)n,
        (void)k, (void)a, (void)lda;
    (void)stride_a, (void)b, (void)ldb, (void)stride_b, (void)c, (void)ldc, (void)stride_c, (void)batch;
    return hk__fail(HK_ERROR_NOT_SUPPORTED, fn, "%s", hk__vendor_blas_unavailable());
}

#endif
