/* dense.h: C-contiguous stand-ins for views, from stream-ordered pool scratch: how an op whose merged
 * layout is deeper than a kernel layout (HKK_MAX_DIMS) still runs. A C-contiguous view merges to one
 * dimension, so the op called again on stand-ins has at most a few. */
#ifndef HIPKIT_OPS_DENSE_H
#define HIPKIT_OPS_DENSE_H

#include <stdbool.h>

#include "hipkit/hipkit.h"

/* Is `a` C-contiguous (extent-1 dims ignored; an empty view is)? */
bool hk__is_c_contiguous(const hk_array *a);

/* *dense = a's shape and dtype over `ptr`, C-contiguous strides. */
void hk__dense_view(const hk_array *a, void *ptr, hk_array *dense);

/* *dense = `a` itself when C-contiguous (*scratch NULL), else a C-contiguous copy of it in scratch
 * (*scratch, freed by the caller with hk__scratch_free on `vendor_stream`); with copy false the scratch
 * is left unwritten (an output's stand-in). `stream` is the call's, `vendor_stream` its resolution. */
hk_status hk__dense(const char *fn, const hk_array *a, bool copy, hk_array *dense, void **scratch, hk_stream stream,
                    void *vendor_stream);

#endif
