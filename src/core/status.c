/* status.c: status names and the thread-local last-error sentence. */
#include <stdio.h>
#include <string.h>

#include "core/status.h"

/* Large enough for a compiler log. */
#define HK_ERROR_TEXT_MAX 32768

static _Thread_local char last_error[HK_ERROR_TEXT_MAX];
/* Between hk__first_failure_begin and _end: holding, and held once a failure is recorded. */
static _Thread_local bool holding, held;

const char *hk_status_name(hk_status status)
{
    switch (status) {
    case HK_SUCCESS: return "HK_SUCCESS";
    case HK_ERROR_INVALID_ARGUMENT: return "HK_ERROR_INVALID_ARGUMENT";
    case HK_ERROR_NO_DEVICE: return "HK_ERROR_NO_DEVICE";
    case HK_ERROR_INVALID_DEVICE: return "HK_ERROR_INVALID_DEVICE";
    case HK_ERROR_OUT_OF_MEMORY: return "HK_ERROR_OUT_OF_MEMORY";
    case HK_ERROR_INVALID_HANDLE: return "HK_ERROR_INVALID_HANDLE";
    case HK_ERROR_NOT_READY: return "HK_ERROR_NOT_READY";
    case HK_ERROR_NOT_SUPPORTED: return "HK_ERROR_NOT_SUPPORTED";
    case HK_ERROR_LAUNCH_FAILED: return "HK_ERROR_LAUNCH_FAILED";
    case HK_ERROR_RUNTIME: return "HK_ERROR_RUNTIME";
    case HK_ERROR_INTERNAL: return "HK_ERROR_INTERNAL";
    case HK_ERROR_COMPILE: return "HK_ERROR_COMPILE";
    }
    return "HK_ERROR_UNKNOWN_STATUS";
}

const char *hk_last_error(void)
{
    return last_error;
}

hk_status hk__ok(void)
{
    last_error[0] = '\0';
    return HK_SUCCESS;
}

hk_status hk__not_ready(void)
{
    last_error[0] = '\0';
    return HK_ERROR_NOT_READY;
}

hk_status hk__fail(hk_status status, const char *function, const char *fmt, ...)
{
    if (holding && held)
        return status;
    held = holding;
    int used = snprintf(last_error, sizeof last_error, "%s: ", function);
    if (used < 0 || (size_t)used >= sizeof last_error)
        return status;
    va_list args;
    va_start(args, fmt);
    vsnprintf(last_error + used, sizeof last_error - (size_t)used, fmt, args);
    va_end(args);
    return status;
}

const char *hk__format_bytes(size_t bytes, char *buf, size_t size)
{
    static const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, size, "%zu bytes", bytes);
        return buf;
    }
    double value = (double)bytes;
    int unit = 0;
    while (value >= 1024.0 && unit < 6) {
        value /= 1024.0;
        unit++;
    }
    snprintf(buf, size, "%.1f %s", value, units[unit]);
    return buf;
}

void hk__first_failure_begin(void)
{
    holding = true;
    held = false;
}

void hk__first_failure_end(void)
{
    holding = held = false;
}
