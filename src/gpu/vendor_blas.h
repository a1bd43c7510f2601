/* vendor_blas.h: the vendor BLAS (cuBLAS on NVIDIA, rocBLAS on AMD) behind two calls, opened with
 * dlopen on first use so libhipkit loads and works without it. Used by hk_matmul's vendor engine. */
#ifndef HIPKIT_VENDOR_BLAS_H
#define HIPKIT_VENDOR_BLAS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/status.h"

/* NULL when the vendor BLAS is usable; otherwise why not, as the end of a sentence ("cuBLAS could not
 * be loaded (...)"). The first call loads the library (thread-safe, once). Needs no GPU. */
const char *hk__vendor_blas_unavailable(void);

/* "cuBLAS" or "rocBLAS". */
const char *hk__vendor_blas_name(void);

/* Bytes of device workspace the vendor BLAS wants per call on the current device (0: none). */
size_t hk__vendor_blas_workspace_bytes(void);

/* Column-major C (m x n, leading dimension ldc) = op(A) op(B), alpha 1 and beta 0, for `batch`
 * matrices `stride_*` elements apart (0 repeats one), on the current device and `stream`, with the
 * caller's `workspace` (NULL and 0: the vendor picks algorithms that need none), ordered on `stream`.
 * trans_*: 0 = as stored, 1 = transposed. dtype float32 or float64; float32 is computed in float32
 * (never TF32). m, n, k >= 1. The handle is per device and used under a lock, so any thread may call. */
hk_status hk__vendor_gemm(const char *fn, void *stream, void *workspace, size_t workspace_bytes, hk_dtype dtype,
                          int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
                          int64_t stride_a, const void *b, int64_t ldb, int64_t stride_b, void *c, int64_t ldc,
                          int64_t stride_c, int64_t batch);

#endif
