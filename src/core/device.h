/* device.h: device discovery (once per process, through the kind table), the checks a call makes
 * before it touches a device, and switching the device the vendor works on. */
#ifndef HIPKIT_CORE_DEVICE_H
#define HIPKIT_CORE_DEVICE_H

#include "core/device_state.h"
#include "core/status.h"

/* Number of devices, discovered on the first call. 0 when there is no GPU or no driver. */
int hk__device_count(void);
/* HK_SUCCESS if at least one GPU exists, else records HK_ERROR_NO_DEVICE for `function`. */
hk_status hk__require_gpu(const char *function);
/* Validates an ordinal (and that a GPU exists). */
hk_status hk__check_device(const char *function, int device);
/* The calling thread's vendor work goes to `device` (hk__current_device() stays as it is). */
hk_status hk__activate_device(const char *function, int device);

#endif
