/* gpu_rtc.c: the GPU kind's run-time compiler: hiprtc on AMD, NVRTC (opened lazily by
 * gpu/nvrtc_loader.c) on NVIDIA, both behind the hiprtc names of gpu/rtc.h. Needs no device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/rtc.h"
#include "kinds/gpu_internal.h"

static int target_is_valid(const char *target)
{
#if defined(HIPKIT_PLATFORM_NVIDIA)
    const char *digits = !strncmp(target, "sm_", 3) ? target + 3 : !strncmp(target, "compute_", 8) ? target + 8 : NULL;
    if (!digits || !*digits)
        return 0;
    for (const char *p = digits; *p; p++)
        if (!(*p >= '0' && *p <= '9') && !(p[1] == '\0' && (*p == 'a' || *p == 'f') && p != digits))
            return 0;
    return 1;
#else
    if (strncmp(target, "gfx", 3) != 0 || !target[3])
        return 0;
    for (const char *p = target + 3; *p && *p != ':'; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
#endif
}

hk_status hk__gpu_rtc_check_target(const char *fn, const char *target)
{
    if (target_is_valid(target))
        return HK_SUCCESS;
    return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
#if defined(HIPKIT_PLATFORM_NVIDIA)
                    "target \"%s\" is not an NVIDIA architecture such as sm_90 or compute_90 "
                    "(this is the NVIDIA build; gfx targets need the AMD build)",
#else
                    "target \"%s\" is not an AMD architecture such as gfx90a "
                    "(this is the AMD build; sm targets need the NVIDIA build)",
#endif
                    target);
}

const char *hk__gpu_rtc_unavailable(void)
{
    return hk_rtc_unavailable();
}

hk_status hk__gpu_rtc_version(const char *fn, int *major, int *minor)
{
    hiprtcResult r = hiprtcVersion(major, minor);
    if (r != HIPRTC_SUCCESS)
        return hk__fail(HK_ERROR_RUNTIME, fn, "%s: %s", HK_RTC_NAME, hiprtcGetErrorString(r));
    return HK_SUCCESS;
}

/* hiprtc (HIP 5.2) names the source ".../comgr-XXXX/input/CompileSource" in
 * its messages; put the user's name back so the log points at their file. */
static char *rename_source_in_log(char *log, const char *name)
{
    static const char marker[] = "CompileSource";
    size_t count = 0;
    for (const char *p = strstr(log, marker); p; p = strstr(p + 1, marker))
        count++;
    if (!count)
        return log;
    char *out = malloc(strlen(log) + count * (strlen(name) + 1) + 1);
    if (!out)
        return log;
    char *w = out;
    const char *r = log;
    for (const char *p = strstr(r, marker); p; p = strstr(r, marker)) {
        const char *start = p;
        while (start > r && start[-1] != ' ' && start[-1] != '\n' && start[-1] != '\'' && start[-1] != '"')
            start--;
        memcpy(w, r, (size_t)(start - r));
        w += start - r;
        w += sprintf(w, "%s", name);
        r = p + sizeof marker - 1;
    }
    strcpy(w, r);
    free(log);
    return out;
}

hk_status hk__gpu_rtc_compile(const char *fn, const char *source, const char *name, const char *target,
                              const char *prelude, const char *const *user_options, int num_user_options, void **binary,
                              size_t *binary_size, char **log_out)
{
    *binary = NULL;
    *log_out = NULL;
    hiprtcProgram program;
    const char *header_names[] = {"hipkit_device.h"};
    const char *headers[] = {prelude};
    hiprtcResult r =
        hiprtcCreateProgram(&program, source, name, 1, (hk_rtc_strings)headers, (hk_rtc_strings)header_names);
    if (r != HIPRTC_SUCCESS)
        return hk__fail(HK_ERROR_RUNTIME, fn, "%s could not create a program for %s: %s", HK_RTC_NAME, name,
                        hiprtcGetErrorString(r));
    int has_std = 0;
    for (int i = 0; i < num_user_options; i++)
        has_std |= !strncmp(user_options[i], "-std=", 5) || !strncmp(user_options[i], "--std", 5);
    const char **options = malloc(((size_t)num_user_options + 3) * sizeof *options);
    char arch_option[96];
    snprintf(arch_option, sizeof arch_option, "--gpu-architecture=%s", target);
    if (!options) {
        hiprtcDestroyProgram(&program);
        return hk__fail(HK_ERROR_OUT_OF_MEMORY, fn, "out of host memory");
    }
    int n = 0;
    options[n++] = arch_option;
    options[n++] = "-DHIPKIT_RTC=1";
    if (!has_std)
        options[n++] = "-std=c++17";
    for (int i = 0; i < num_user_options; i++)
        options[n++] = user_options[i];
    r = hiprtcCompileProgram(program, n, (hk_rtc_strings)options);
    free(options);

    size_t log_size = 0;
    char *log = NULL;
    if (hiprtcGetProgramLogSize(program, &log_size) == HIPRTC_SUCCESS && log_size > 0 && (log = malloc(log_size + 1))) {
        if (hiprtcGetProgramLog(program, log) != HIPRTC_SUCCESS)
            log[0] = '\0';
        log[log_size] = '\0';
        log = rename_source_in_log(log, name);
    }
    hk_status s = HK_SUCCESS;
    void *code = NULL;
    size_t code_size = 0;
    if (r != HIPRTC_SUCCESS) {
        s = hk__fail(r == HIPRTC_ERROR_COMPILATION ? HK_ERROR_COMPILE : HK_ERROR_RUNTIME, fn,
                     "compiling %s for %s with %s failed (%s):\n%s", name, target, HK_RTC_NAME, hiprtcGetErrorString(r),
                     log && *log ? log : "(the compiler gave no log)");
    } else if (hiprtcGetCodeSize(program, &code_size) != HIPRTC_SUCCESS || code_size == 0 ||
               !(code = malloc(code_size)) || hiprtcGetCode(program, code) != HIPRTC_SUCCESS) {
        s = hk__fail(HK_ERROR_RUNTIME, fn, "%s compiled %s for %s but gave no code", HK_RTC_NAME, name, target);
    }
    hiprtcDestroyProgram(&program);
    if (s != HK_SUCCESS) {
        free(code);
        free(log);
        return s;
    }
    *binary = code;
    *binary_size = code_size;
    *log_out = log ? log : strdup("");
    return HK_SUCCESS;
}
