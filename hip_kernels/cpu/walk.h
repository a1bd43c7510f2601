// walk.h: how the CPU device's maps (elementwise, copy) walk a coalesced N-d layout: the elements
// [0, n) in C order over `shape` (the last dimension innermost), cut into contiguous chunks over the
// cores (parallel.h), each chunk as runs along the innermost dimension, so that a row function with
// a tight loop does the work; only a chunk's first coordinates cost divisions.
#ifndef HIPKIT_CPU_WALK_H
#define HIPKIT_CPU_WALK_H

#include <stdint.h>

#include "cpu/parallel.h"
#include "common/kernels.h"
#include "hipkit/hipkit.h"

namespace hkc
{

// Ops operands walking one shape; strides in elements, any sign, 0 for a broadcast.
template <int Ops> struct walk_layout {
    int ndim; // 1 .. HKK_MAX_DIMS
    int64_t shape[HKK_MAX_DIMS];
    int64_t strides[Ops][HKK_MAX_DIMS];
};

// Drops the dimensions that no operand moves along (every stride 0: each element there is the same
// work on the same memory, done once instead), keeping at least one.
template <int Ops> void drop_still_dimensions(walk_layout<Ops> &w)
{
    int kept = 0;
    for (int k = 0; k < w.ndim; k++) {
        bool moves = false;
        for (int t = 0; t < Ops; t++)
            moves = moves || w.strides[t][k] != 0;
        if (!moves && w.shape[k] != 0)
            continue;
        w.shape[kept] = w.shape[k];
        for (int t = 0; t < Ops; t++)
            w.strides[t][kept] = w.strides[t][k];
        kept++;
    }
    if (kept == 0) {
        w.shape[0] = 1;
        for (int t = 0; t < Ops; t++)
            w.strides[t][0] = 0;
        kept = 1;
    }
    w.ndim = kept;
}

// row(offsets, len) for each run of len elements along the innermost dimension among the positions
// [begin, end) of the C-order walk, offsets[t] being operand t's element offset at the run's start;
// on the calling thread.
template <int Ops, typename Row> void walk_range(const walk_layout<Ops> &w, int64_t begin, int64_t end, Row &&row)
{
    const int inner = w.ndim - 1;
    int64_t coord[HKK_MAX_DIMS], off[Ops];
    for (int t = 0; t < Ops; t++)
        off[t] = 0;
    int64_t rest = begin;
    for (int k = inner; k >= 0; k--) {
        coord[k] = rest % w.shape[k];
        rest /= w.shape[k];
        for (int t = 0; t < Ops; t++)
            off[t] += coord[k] * w.strides[t][k];
    }
    for (int64_t pos = begin; pos < end;) {
        const int64_t left_in_row = w.shape[inner] - coord[inner];
        const int64_t len = end - pos < left_in_row ? end - pos : left_in_row;
        row((const int64_t *)off, len);
        pos += len;
        if (pos >= end)
            return;
        // to the start of the next row: the inner coordinate back to 0, then carry outwards
        for (int t = 0; t < Ops; t++)
            off[t] -= coord[inner] * w.strides[t][inner];
        coord[inner] = 0;
        for (int k = inner - 1; k >= 0; k--) {
            for (int t = 0; t < Ops; t++)
                off[t] += w.strides[t][k];
            if (++coord[k] < w.shape[k])
                break;
            for (int t = 0; t < Ops; t++)
                off[t] -= w.shape[k] * w.strides[t][k];
            coord[k] = 0;
        }
    }
}

// The whole walk, cut into contiguous chunks over the cores: runs of different chunks may go to
// different threads at once; grain is the fewest elements worth a thread.
template <int Ops, typename Row> void walk_rows(const walk_layout<Ops> &w, int64_t grain, Row &&row)
{
    int64_t n = 1;
    for (int k = 0; k < w.ndim; k++)
        n *= w.shape[k];
    parallel_for(n, grain, [&](int64_t begin, int64_t end) { walk_range(w, begin, end, row); });
}

} // namespace hkc

#endif
