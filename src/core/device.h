/* device.h: device discovery (once per process, through the kind table), the checks a call makes
 * before it touches a device, and switching the device the vendor works on. */
#ifndef HIPKIT_CORE_DEVICE_H
#define HIPKIT_CORE_DEVICE_H

#include "core/device_state.h"
#include "core/status.h"

/* Number of devices, discovered on the first call: the GPUs, then the CPU device (0 only when even
 * the host could not be set up). */
int hk__device_count(void);
/* Number of GPUs (devices 0 .. count-1). */
int hk__gpu_device_total(void);
/* HK_SUCCESS when the calling thread has a usable current device (it has none while HIPKIT_DEVICE
 * names no device here and the thread has not called hk_device_set), else records why for
 * `function`. Every call that works on the current device makes this check first. */
hk_status hk__require_device(const char *function);
/* As hk__require_device, and the current device is a GPU (HK_ERROR_NO_DEVICE without one,
 * HK_ERROR_NOT_SUPPORTED on the CPU device): for the calls only a GPU can serve. */
hk_status hk__require_gpu(const char *function);
/* Validates an ordinal. */
hk_status hk__check_device(const char *function, int device);
/* The calling thread's vendor work goes to `device` (hk__current_device() stays as it is). */
hk_status hk__activate_device(const char *function, int device);

#endif
