/* copy.h: C entry point of the copy kernels (copy_cast.hip): a strided copy
 * with a dtype conversion, called by the GPU backend (astype, contiguous
 * copies, transposes, broadcasts, slice assignment). */
#ifndef HIPKIT_COPY_H
#define HIPKIT_COPY_H

#include "../common/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst = convert(src) over `layout` (n elements); NumPy's astype rules,
 * floats saturating into integers. */
int hkk_copy_array(const hkk_launch *launch, hk_dtype src_dtype, hk_dtype dst_dtype, const void *src, void *dst,
                   size_t n, const hkk_layout *layout);

#ifdef __cplusplus
}
#endif
#endif
