/* view_check.h: the host-side checks every family that takes N-d strided views (hk_array) runs
 * before the GPU is touched: one view's validity, element count and byte range, and NumPy
 * broadcasting of one view's strides to another's shape. Defined in view_check.c. Not installed. */
#ifndef HIPKIT_VIEW_CHECK_H
#define HIPKIT_VIEW_CHECK_H

#include "core/status.h"

/* Variants of hk__check_view; 0 gives hk_copy_array's checks. */
enum {
    /* The ndim message adds "(or HK_HOST_SCALAR for an input)" (hk_elementwise, whose inputs may
     * be host scalars; the caller handles those before calling). */
    HK__VIEW_HOST_SCALAR_HINT = 1u << 0,
    /* A non-empty view with more than INT64_MAX elements is refused, after the shape and stride
     * checks: "<name> has <n> elements, more than int64_t counts" (hk_reduce). */
    HK__VIEW_INT64_COUNT = 1u << 1,
    /* Every running product of the extents must fit int64_t, checked with each dimension (so an
     * extent of 0 later on does not excuse it); that refusal and the size_t overflow both read
     * "<name> has more elements than hipkit can count" (hk_matmul, hk_take). */
    HK__VIEW_INT64_EXTENTS = 1u << 2,
};

/* A view: present, known dtype, ndim 0..HK_MAX_DIMS, extents >= 0 whose product size_t counts,
 * strides that do not overflow and stay in the address space, data present and aligned to the
 * element size when it has elements. Sets *count to its element count and [*first, *last) to the
 * byte range it touches (0, 0 when empty), for the overlap checks. `name` ("in", "out", ...)
 * starts each message; `flags`: the HK__VIEW_* variants above. */
hk_status hk__check_view(const char *fn, const char *name, const hk_array *a, unsigned flags, size_t *count,
                         uintptr_t *first, uintptr_t *last);

/* src's strides as seen through dst's shape (NumPy broadcasting: leading dimensions added with
 * stride 0, extent-1 dimensions stretched with stride 0) into strides[0..dst->ndim), or an error
 * naming both views. `ndim_hint` ends the too-many-dimensions message ("" for none). Both views
 * must have passed hk__check_view. */
hk_status hk__broadcast(const char *fn, const char *src_name, const hk_array *src, const char *dst_name,
                        const hk_array *dst, const char *ndim_hint, int64_t *strides);

#endif
