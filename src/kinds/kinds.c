/* kinds.c: which kinds there are, in the order their devices are numbered, and the kinds that answer
 * for what belongs to the process rather than to a device. */
#include <string.h>

#include "../../hip_kernels/index/index.h"

#include "core/device.h"
#include "kinds/kind.h"

const hk__kind *const hk__kinds_in_order[HK__KIND_COUNT] = {&hk__gpu_kind, &hk__cpu_kind};

const hk__kind *hk__kind_host_memory(void)
{
    return hk__gpu_device_total() > 0 ? &hk__gpu_kind : &hk__cpu_kind;
}

const hk__kind *hk__kind_for_target(const char *target)
{
    return target && strcmp(target, "host") == 0 ? &hk__cpu_kind : &hk__gpu_kind;
}

int64_t hk__index_check_offset(const hkk_take_args *p, unsigned long long first)
{
    unsigned long long rest = first;
    int64_t off = 0;
    for (int d = p->idx_ndim - 1; d >= 0; d--) {
        const unsigned long long extent = (unsigned long long)p->idx_shape[d];
        off += (int64_t)(rest % extent) * p->idx_own_strides[d];
        rest /= extent;
    }
    return off;
}

hk_status hk__index_out_of_bounds(const char *fn, const hkk_take_args *p, int axis, unsigned long long first,
                                  int64_t value)
{
    return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                    "index %lld is out of bounds for axis %d with size %lld (element %llu of indices in C "
                    "order; mode HK_TAKE_RAISE; out was not written)",
                    (long long)value, axis, (long long)p->axis_size, first);
}
