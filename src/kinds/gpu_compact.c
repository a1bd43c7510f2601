/* gpu_compact.c: the GPU kind's stream compaction (hk_mask_select, hk_mask_positions): the kernels
 * of hip_kernels/index/compact.hip, with the look-back's tile states in scratch. */
#include "../../hip_kernels/index/compact.h"
#include "kinds/gpu_internal.h"

size_t hk__gpu_compact_scratch_bytes(const hkk_compact_args *args)
{
    hkk_launch l = hk__gpu_launch(NULL);
    return hkk_compact_scratch_bytes(&l, args);
}

hk_status hk__gpu_compact(const char *fn, void *stream, const hkk_compact_args *args, void *scratch)
{
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_compact(&l, args, scratch), "launching the compaction kernels");
}
