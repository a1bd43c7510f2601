/* compact.h: C entry points of the stream-compaction kernels (compact.hip; the CPU device's
 * cpu/compact.cpp): the true elements of a contiguous 1-d bool mask, in order, written either as
 * their positions (NumPy's nonzero / flatnonzero) or as the elements of `in` there (in[mask]).
 * Called by the kinds (src/kinds/gpu_compact.c, cpu_ops.c) with arguments validated and flattened
 * by src/ops/select.c. */
#ifndef HIPKIT_COMPACT_H
#define HIPKIT_COMPACT_H

#include "../common/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The coordinate rows a POSITIONS call writes at most (hk_array's own limit, 32, kept here apart
 * from the other kernel layouts' HKK_MAX_DIMS: a coordinate row is written, never walked). */
#define HKK_COMPACT_MAX_DIMS 32

enum {
    HKK_COMPACT_POSITIONS = 0, /* rows[d][j] = coordinate d of the j-th true element */
    HKK_COMPACT_VALUES = 1     /* out[j] = in[i] for the j-th true element i */
};

typedef struct hkk_compact_args {
    int mode;            /* HKK_COMPACT_* */
    const void *mask;    /* n bytes, contiguous; any nonzero byte is true */
    int64_t n;           /* 0 <= n < 2^62 */
    int64_t count;       /* results j < count are written, none past (out's length) */
    /* POSITIONS: ndim rows; ndim 1 writes flat positions i (shape unused), ndim > 1 the C-order
     * coordinates of i in shape[0..ndim) (whose product is n). Row d's element j is at
     * rows[d] + j * row_strides[d] (int64 elements). */
    int ndim;
    int64_t shape[HKK_COMPACT_MAX_DIMS];
    int64_t *rows[HKK_COMPACT_MAX_DIMS];
    int64_t row_strides[HKK_COMPACT_MAX_DIMS];
    /* VALUES: in holds n contiguous elements of item_bytes (1, 2, 4, 8 or 16) each, aligned to their
     * size; out[j * out_stride] (elements) receives the j-th selected one. */
    const void *in;
    int item_bytes;
    void *out;
    int64_t out_stride;
} hkk_compact_args;

/* Device scratch hkk_compact needs (a tile counter and one look-back state per tile of 8192 mask
 * bytes, zeroed by hkk_compact itself): 0 for a mask of one tile or none. */
size_t hkk_compact_scratch_bytes(const hkk_launch *launch, const hkk_compact_args *args);
int hkk_compact(const hkk_launch *launch, const hkk_compact_args *args, void *scratch);

#ifdef __cplusplus
}
#endif
#endif
