/* plan.h: the launch planner of the reduce family (plan.c, host C): which
 * kernel of reduce/skeleton.h a reduction runs and its launch shape, a pure
 * function of the layout, the element size, the input's alignment, the
 * multiprocessor count and the kernels' residency, so results are bitwise
 * reproducible. */
#ifndef HIPKIT_REDUCE_PLAN_H
#define HIPKIT_REDUCE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HKK_REDUCE_BLOCK 256 /* threads of every reduce kernel's block */
#define HKK_REDUCE_UNROLL 4  /* 16-byte loads in flight per thread and trip */

typedef enum hkk_reduce_kind { HKK_REDUCE_ROW_CONTIG, HKK_REDUCE_ROW_STRIDED, HKK_REDUCE_COLUMNS } hkk_reduce_kind;

typedef struct hkk_reduce_plan {
    hkk_reduce_kind kind;
    int G;          /* row kernel: threads per item */
    int64_t S;      /* splits of the reduced extent (1: no second pass) */
    int64_t chunk;  /* reduced positions per split */
    unsigned grid;  /* row kernel blocks */
    int W;          /* column kernel: columns per thread (1 or 16 / element size) */
    int bx, by;     /* column kernel block */
    int64_t VC;     /* column vectors per outer position */
    unsigned gx;    /* column kernel blocks along x */
    int fG;         /* finalize: threads per output */
    unsigned fgrid; /* finalize blocks */
} hkk_reduce_plan;

/* Blocks of one kernel resident on one multiprocessor (the occupancy
 * calculator's answer, asked by the kernel side), for each kernel the planner
 * may choose. */
typedef struct hkk_reduce_residency {
    int row_contig, row_strided, col_vector, col_scalar;
} hkk_reduce_residency;

/* The column kernel's shape: bx block threads across columns (a power of two,
 * 1..HKK_REDUCE_BLOCK), and waves: resident blocks' worth of splits to aim
 * for, as a multiple of one wave. */
typedef struct hkk_reduce_column_knobs {
    int64_t bx;
    int64_t waves;
} hkk_reduce_column_knobs;

/* The plan for a reduction of `layout` over elements of in_size bytes from
 * `in` (its alignment picks vector loads). */
void hkk_reduce_make_plan(const hkk_launch *launch, const hkk_reduce_layout *layout, size_t in_size, const void *in,
                          const hkk_reduce_residency *per_sm, const hkk_reduce_column_knobs *knobs,
                          hkk_reduce_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
