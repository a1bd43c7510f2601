/* rtc.h: the run-time compiler seam. hipkit's rtc.c uses hiprtc names; on
 * AMD they are HIP's own hiprtc (inside libamdhip64), on NVIDIA they are
 * NVRTC, opened lazily with dlopen by nvrtc_loader.c so that libhipkit loads
 * (and everything but run-time compilation works) on machines without NVRTC. */
#ifndef HIPKIT_GPU_RTC_H
#define HIPKIT_GPU_RTC_H

#include <stddef.h>

#if defined(HIPKIT_PLATFORM_AMD)
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hiprtc.h>

/* hiprtc is part of the HIP runtime: always there. */
static inline const char *hk_rtc_unavailable(void)
{
    return NULL;
}
#define HK_RTC_NAME "hiprtc"
typedef const char **hk_rtc_strings; /* hiprtc's headers are not const-qualified */

#else /* NVIDIA */

typedef struct _nvrtcProgram *hiprtcProgram;
typedef int hiprtcResult;
#define HIPRTC_SUCCESS 0
#define HIPRTC_ERROR_COMPILATION 6 /* NVRTC_ERROR_COMPILATION */
#define HK_RTC_NAME "NVRTC"
typedef const char *const *hk_rtc_strings;

/* NULL when NVRTC is loaded; otherwise a sentence saying why not. */
const char *hk_rtc_unavailable(void);
hiprtcResult hiprtcCreateProgram(hiprtcProgram *program, const char *source, const char *name, int num_headers,
                                 const char *const *headers, const char *const *include_names);
hiprtcResult hiprtcCompileProgram(hiprtcProgram program, int num_options, const char *const *options);
hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram program, size_t *size);
hiprtcResult hiprtcGetProgramLog(hiprtcProgram program, char *log);
/* CUBIN for a real architecture (sm_XX), PTX for a virtual one (compute_XX). */
hiprtcResult hiprtcGetCodeSize(hiprtcProgram program, size_t *size);
hiprtcResult hiprtcGetCode(hiprtcProgram program, char *code);
hiprtcResult hiprtcDestroyProgram(hiprtcProgram *program);
hiprtcResult hiprtcVersion(int *major, int *minor);
const char *hiprtcGetErrorString(hiprtcResult result);
#endif

#endif
