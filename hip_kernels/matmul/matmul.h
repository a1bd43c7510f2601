/* matmul.h: C entry point of hipkit's own GEMM (matmul.hip), called by the
 * GPU backend (src/matmul_gpu.c) with arguments validated by src/matmul.c. */
#ifndef HIPKIT_MATMUL_H
#define HIPKIT_MATMUL_H

#include "../common/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HKK_MATMUL_MAX_BATCH (HKK_MAX_DIMS - 2)

/* out[z][i][j] = sum_p a[z][i][p] * b[z][p][j] for every batch index z, i < m, j < n. All strides count
 * elements; a[z][i][p] is at a + a_batch(z) + i * a_rs + p * a_cs, and so on. The batch index z runs
 * over batch_shape (C order; batch_count = the product, 1 when batch_ndim == 0); the batch strides are
 * already broadcast (0 where an operand repeats). Strides of extent-1 dimensions are 0. m, n >= 1;
 * k >= 0 (k == 0 writes zeros). dtype float32 or float64. */
typedef struct hkk_matmul_args {
    hk_dtype dtype;
    int64_t m, n, k;
    const void *a;
    int64_t a_rs, a_cs;
    const void *b;
    int64_t b_rs, b_cs;
    void *out;
    int64_t o_rs, o_cs;
    int batch_ndim;
    int64_t batch_count;
    int64_t batch_shape[HKK_MATMUL_MAX_BATCH];
    int64_t a_bs[HKK_MATMUL_MAX_BATCH];
    int64_t b_bs[HKK_MATMUL_MAX_BATCH];
    int64_t o_bs[HKK_MATMUL_MAX_BATCH];
} hkk_matmul_args;

/* The register-tiled GEMM (hipkit's own engine). */
int hkk_matmul(const hkk_launch *launch, const hkk_matmul_args *args);

#ifdef __cplusplus
}
#endif
#endif
