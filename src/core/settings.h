/* settings.h: the HIPKIT_* environment variables, read in settings.c and nowhere else. Each group
 * is read once per process, at its first use, and keeps that value for the life of the process. */
#ifndef HIPKIT_CORE_SETTINGS_H
#define HIPKIT_CORE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

struct hkk_tuning; /* hip_kernels/common/kernels.h */

/* HIPKIT_DEVICE as given (at most 63 characters kept), NULL when unset or empty; src/core/device.c
 * says what it means. */
const char *hk__settings_device(void);

/* Threads the CPU device's skeletons spread one op over: HIPKIT_CPU_THREADS, else the online cores. */
int hk__settings_cpu_threads(void);

/* The run-time compilation cache's folder: HIPKIT_CACHE_DIR, else $XDG_CACHE_HOME/hipkit, else
 * $HOME/.cache/hipkit; NULL when HIPKIT_CACHE_DISABLE turns the cache off or no folder is known. */
const char *hk__settings_cache_dir(void);

/* What the CPU device's run-time compiler needs of the environment (src/kinds/cpu_rtc.c): CXX, the
 * C++ compiler to use (a program and its first options, as make takes it; NULL when unset or
 * empty); PATH, where to look for it (NULL when unset); TMPDIR, the folder for the compiler's
 * files and loaded kernels (/tmp when unset or empty). Read once, at the first compile. */
const char *hk__settings_host_compiler(void);
const char *hk__settings_path(void);
const char *hk__settings_temp_dir(void);

/* HIPKIT_VENDOR_BLAS's text when it turns the vendor BLAS off ("0", "off" or "OFF"), else NULL. */
const char *hk__settings_vendor_blas_off(void);

/* HIPKIT_LAUNCH_API=runtime: launch through the CUDA runtime, not the driver's cuLaunchKernel. */
bool hk__settings_launch_api_runtime(void);

/* Host threads that copy beside the caller in a staged copy (HIPKIT_STAGING_THREADS), and the size
 * of each pinned staging buffer (HIPKIT_STAGING_CHUNK_MB, in bytes). */
int hk__settings_staging_threads(void);
size_t hk__settings_staging_chunk_bytes(void);

/* The built-in kernels' benchmark knobs, for hkk_launch.tuning. */
const struct hkk_tuning *hk__settings_kernel_tuning(void);

#endif
