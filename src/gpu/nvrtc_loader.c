/* nvrtc_loader.c: NVRTC behind hiprtc names, opened with dlopen on first use.
 * Linking NVRTC directly would make libhipkit fail to load where only the CUDA
 * runtime (or nothing) is installed. NVIDIA builds only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "rtc.h"

#ifndef HIPKIT_NVRTC_DIR
#define HIPKIT_NVRTC_DIR "/usr/local/cuda/lib64"
#endif

static struct {
    int (*create)(hiprtcProgram *, const char *, const char *, int, const char *const *, const char *const *);
    int (*compile)(hiprtcProgram, int, const char *const *);
    int (*log_size)(hiprtcProgram, size_t *);
    int (*log)(hiprtcProgram, char *);
    int (*cubin_size)(hiprtcProgram, size_t *);
    int (*cubin)(hiprtcProgram, char *);
    int (*ptx_size)(hiprtcProgram, size_t *);
    int (*ptx)(hiprtcProgram, char *);
    int (*destroy)(hiprtcProgram *);
    int (*version)(int *, int *);
    const char *(*error_string)(int);
} nvrtc;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char unavailable[512];

static void load(void)
{
    /* The toolkit's soname first, then the folder CMake found the toolkit in. */
    static const char *const names[] = {"libnvrtc.so.13",
                                        "libnvrtc.so.12",
                                        "libnvrtc.so",
                                        HIPKIT_NVRTC_DIR "/libnvrtc.so.13",
                                        HIPKIT_NVRTC_DIR "/libnvrtc.so.12",
                                        HIPKIT_NVRTC_DIR "/libnvrtc.so"};
    void *lib = NULL;
    const char *last_error = "not found";
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++) {
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            last_error = dlerror();
    }
    if (!lib) {
        snprintf(unavailable, sizeof unavailable,
                 "NVRTC could not be loaded (%s); install the CUDA toolkit's NVRTC (libnvrtc.so.13 or .12) "
                 "and make it findable (LD_LIBRARY_PATH)",
                 last_error);
        return;
    }
    struct {
        void **slot;
        const char *name;
    } symbols[] = {
        {(void **)&nvrtc.create, "nvrtcCreateProgram"},        {(void **)&nvrtc.compile, "nvrtcCompileProgram"},
        {(void **)&nvrtc.log_size, "nvrtcGetProgramLogSize"},  {(void **)&nvrtc.log, "nvrtcGetProgramLog"},
        {(void **)&nvrtc.cubin_size, "nvrtcGetCUBINSize"},     {(void **)&nvrtc.cubin, "nvrtcGetCUBIN"},
        {(void **)&nvrtc.ptx_size, "nvrtcGetPTXSize"},         {(void **)&nvrtc.ptx, "nvrtcGetPTX"},
        {(void **)&nvrtc.destroy, "nvrtcDestroyProgram"},      {(void **)&nvrtc.version, "nvrtcVersion"},
        {(void **)&nvrtc.error_string, "nvrtcGetErrorString"},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        *symbols[i].slot = dlsym(lib, symbols[i].name);
        if (!*symbols[i].slot) {
            snprintf(unavailable, sizeof unavailable, "the NVRTC found lacks %s; it is too old for hipkit",
                     symbols[i].name);
            return;
        }
    }
}

const char *hk_rtc_unavailable(void)
{
    pthread_once(&load_once, load);
    return unavailable[0] ? unavailable : NULL;
}

/* Callers check hk_rtc_unavailable() first; these never run without NVRTC. */
hiprtcResult hiprtcCreateProgram(hiprtcProgram *program, const char *source, const char *name, int num_headers,
                                 const char *const *headers, const char *const *include_names)
{
    return nvrtc.create(program, source, name, num_headers, headers, include_names);
}

hiprtcResult hiprtcCompileProgram(hiprtcProgram program, int num_options, const char *const *options)
{
    return nvrtc.compile(program, num_options, options);
}

hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram program, size_t *size)
{
    return nvrtc.log_size(program, size);
}
hiprtcResult hiprtcGetProgramLog(hiprtcProgram program, char *log)
{
    return nvrtc.log(program, log);
}

hiprtcResult hiprtcGetCodeSize(hiprtcProgram program, size_t *size)
{
    /* A virtual architecture gives no CUBIN: then the code is the PTX. */
    if (nvrtc.cubin_size(program, size) == HIPRTC_SUCCESS && *size > 0)
        return HIPRTC_SUCCESS;
    return nvrtc.ptx_size(program, size);
}

hiprtcResult hiprtcGetCode(hiprtcProgram program, char *code)
{
    size_t size = 0;
    if (nvrtc.cubin_size(program, &size) == HIPRTC_SUCCESS && size > 0)
        return nvrtc.cubin(program, code);
    return nvrtc.ptx(program, code);
}

hiprtcResult hiprtcDestroyProgram(hiprtcProgram *program)
{
    return nvrtc.destroy(program);
}
hiprtcResult hiprtcVersion(int *major, int *minor)
{
    return nvrtc.version(major, minor);
}
const char *hiprtcGetErrorString(hiprtcResult result)
{
    return nvrtc.error_string(result);
}
