/* dtype.h: the dtypes' sizes for the library's own checks (dtype.c; names and sizes for users are in
 * hipkit.h). Not installed. */
#ifndef HIPKIT_CORE_DTYPE_H
#define HIPKIT_CORE_DTYPE_H

#include <stddef.h>

#include "hipkit/hipkit.h"

/* Bytes per element of a dtype; 0 for a value that is not one (nothing recorded: for checks on hot paths). */
size_t hk__dtype_bytes(hk_dtype dtype);

#endif
