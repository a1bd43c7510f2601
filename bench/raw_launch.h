/* raw_launch.h: an empty kernel launched through the CUDA runtime (raw_launch.cu). */
#ifndef HIPKIT_BENCH_RAW_LAUNCH_H
#define HIPKIT_BENCH_RAW_LAUNCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* Launches empty_kernel<<<1, 1>>> on the default stream `iterations` times,
 * synchronizing after each when synchronize_each is non-zero, and once at the
 * end. Returns 0 (cudaSuccess) or the cudaError_t value of the failure. */
int raw_empty_launches(long iterations, int synchronize_each);

#ifdef __cplusplus
}
#endif
#endif
