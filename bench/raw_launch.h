/* raw_launch.h: kernels launched straight through the CUDA runtime (raw_launch.cu). */
#ifndef HIPKIT_BENCH_RAW_LAUNCH_H
#define HIPKIT_BENCH_RAW_LAUNCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* Launches empty_kernel<<<1, 1>>> on the default stream `iterations` times,
 * synchronizing after each when synchronize_each is non-zero, and once at the
 * end; `issued` (may be NULL) is called after the last launch, before that
 * final synchronize. Returns 0 (cudaSuccess) or the cudaError_t value of the
 * failure. */
int raw_empty_launches(long iterations, int synchronize_each, void (*issued)(void));

/* out[0] = a[0] + b[0] by add_kernel<<<1, 256>>>(a, b, out, 1), the work of
 * hk_elementwise(HK_OP_ADD, ...) on one float32, `iterations` times on the default
 * stream; then as above. */
int raw_add_launches(long iterations, const float *a, const float *b, float *out, void (*issued)(void));

#ifdef __cplusplus
}
#endif
#endif
