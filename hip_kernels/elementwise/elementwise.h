/* elementwise.h: the C entry point of hk_elementwise's kernels (the files of
 * this folder), called by the GPU kind with a call already validated,
 * broadcast and coalesced by the ops layer (src/elementwise.c). */
#ifndef HIPKIT_KERNELS_ELEMENTWISE_H
#define HIPKIT_KERNELS_ELEMENTWISE_H

#include "../common/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An op of the map skeleton that is not a NumPy function (so not in HK_OP_TABLE): out = in[0], a host
 * value, its bits stored as they are (hk_fill). */
enum { HKK_EW_FILL = HK_OP_COUNT };

/* A host scalar's bytes (memcpy'd, the rest zero): 16, for complex128. */
typedef struct hkk_scalar {
    uint64_t bits[2];
} hkk_scalar;

/* One elementwise launch. Operand 0 is out, operand 1 + k is input k. */
typedef struct hkk_ew_call {
    int op;               /* hk_op, or HKK_EW_FILL */
    hk_dtype dtype;       /* T: the inputs' dtype (WHERE: in[1]'s; in[0] is bool) */
    int n_inputs;         /* 1..3 */
    unsigned scalar_mask; /* bit k: input k is a host value, held in scalar[k] */
    size_t n;             /* elements of out, 1 .. 2^62 */
    void *out;
    const void *in[3];
    hkk_scalar scalar[3]; /* a host scalar's bytes */
    /* The coalesced layout: out's shape with dimensions of extent 1 dropped,
     * out's negative strides flipped (every operand's base moved to match),
     * dimensions ordered by out's stride (largest first) and neighbours that
     * every operand walks as one merged. ndim >= 1. Strides in elements;
     * inputs' are broadcast (0), host scalars' are 0. */
    int ndim;
    int64_t shape[HKK_MAX_DIMS];
    int64_t strides[4][HKK_MAX_DIMS];
} hkk_ew_call;

int hkk_elementwise(const hkk_launch *launch, const hkk_ew_call *call);
/* out[i * stride] = start + i * step, i < n, for float32, float64, int32, int64 (hk_iota). */
int hkk_iota(const hkk_launch *launch, hk_dtype dtype, void *out, int64_t stride, size_t n, const void *start,
             const void *step);

#ifdef __cplusplus
}
#endif
#endif
