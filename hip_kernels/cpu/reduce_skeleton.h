// reduce_skeleton.h: the CPU device's hk_reduce, generic over the GPU kernels' own op functors
// (reduce/ops.h), instantiated per family by cpu/reduce_<family>.cpp; cpu/reduce.cpp routes.
//
// Order of combining, the same for any thread count (so results are too):
//  - rows (the reduced positions of an output, C order over the reduced dims): leaves of kLeaf
//    positions, each pushed into lanes of independent states (loops the compiler vectorises) merged
//    as a tree; the leaves merge as a binary tree whose left parts are powers of two, built as a
//    binary counter while they come. An aligned block of kRowBlock positions is a subtree, so a long
//    row split over threads at blocks (partial states in scratch, merged by the same tree) gives the
//    bits one thread's walk gives. With 16 lanes of 16 positions, float sums are as accurate as
//    NumPy's pairwise summation (blocks of 128, 8 accumulators).
//  - columns (the innermost kept dim runs faster through memory than the reduced ones: axis 0 of a
//    C-order matrix): a tile of outputs accumulates one input row at a time, so memory is walked
//    contiguously; leaves of kColLeaf rows merge as the same tree, up to blocks of kColBlock rows
//    whose states go to scratch when there are several.
// Two ops have leaves of their own, built from the functors' own parts: VAR/STD's leaf state
// (mean, M2, n) comes from two passes over the leaf (no division per element), ARGMIN/ARGMAX's from
// MIN/MAX's vectorised lanes and a search for the first element that is the extreme. Leaves then
// merge with the op's merge, as on the GPU.
#ifndef HIPKIT_CPU_REDUCE_SKELETON_H
#define HIPKIT_CPU_REDUCE_SKELETON_H

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include "common/dispatch.h"
#include "cpu/cpu.h"
#include "cpu/parallel.h"
#include "reduce/ops.h"
#include "reduce/reduce.h"

// The family files' entries (query non-NULL: store the scratch bytes there and reduce nothing).
extern "C" {
int hkc__reduce_sum_family(hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out, void *scratch,
                           const hkk_reduce_layout *layout, int ddof, size_t *query);
int hkc__reduce_minmax_family(hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out, void *scratch,
                              const hkk_reduce_layout *layout, int ddof, size_t *query);
int hkc__reduce_arg_family(hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out, void *scratch,
                           const hkk_reduce_layout *layout, int ddof, size_t *query);
int hkc__reduce_stat_family(hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out, void *scratch,
                            const hkk_reduce_layout *layout, int ddof, size_t *query);
}

namespace hkcr
{
namespace // every family file gets its own copy
{

constexpr int64_t kLeaf = 256;            // positions of a row leaf
constexpr int64_t kRowBlock = kLeaf << 7; // positions of a row block (a subtree)
constexpr int64_t kColLeaf = 64;          // rows of a column leaf
constexpr int kColLevels = 6;             // kColBlock = kColLeaf * 2^kColLevels
constexpr int64_t kColBlock = kColLeaf << kColLevels;
constexpr size_t kTileBytes = 2048;          // one tile of column states
constexpr int64_t kGrain = (int64_t)1 << 15; // elements one thread takes at least

inline int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}
inline int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}
inline int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

// Independent states per leaf: a 64-byte line of them in registers, two lines in memory (where each
// lane's chain of updates goes through a store and a load).
template <typename Acc> constexpr int lanes(bool in_memory)
{
    return (sizeof(Acc) <= 4 ? 16 : sizeof(Acc) <= 8 ? 8 : 4) * (in_memory ? 2 : 1);
}
// Outputs per column tile.
template <typename Acc> constexpr int64_t tile_width()
{
    return (int64_t)(kTileBytes / sizeof(Acc));
}

// The binary counter: states of consecutive leaves (or blocks) come in order; result() is the tree
// whose left parts are the largest powers of two (in leaves), and never merges an identity.
template <class Op> struct Tree {
    typedef typename Op::Acc Acc;
    Acc state[64];
    unsigned char level[64];
    int top = 0;
    void add(const Op &op, Acc s)
    {
        unsigned char l = 0;
        while (top > 0 && level[top - 1] == l) {
            s = op.merge(state[top - 1], s);
            top--;
            l++;
        }
        state[top] = s;
        level[top] = l;
        top++;
    }
    Acc result(const Op &op) const
    {
        if (top == 0)
            return op.identity();
        Acc r = state[top - 1];
        for (int t = top - 2; t >= 0; t--)
            r = op.merge(state[t], r);
        return r;
    }
};

// Ops whose lanes the compiler vectorises only as an array in memory, walked by a loop of its own
// (MIN/MAX of floats: their NaN rule is no reduction it knows); the others' lanes live in registers.
template <class Op> struct lanes_in_memory : std::false_type {
};
template <hk_dtype D, bool IsMax>
struct lanes_in_memory<hkr::ExtremeOp<D, IsMax>> : std::integral_constant<bool, D == HK_FLOAT32 || D == HK_FLOAT64> {
};

// One leaf's lanes: runs of positions pushed K at a time into K states (lane k takes every K-th
// element of a run), the rest of a run into lane 0; merged as a tree at the end. Lanes 1..K-1 start
// only when a run has K positions, so short rows cost one state.
template <class Op> struct Lanes {
    typedef typename Op::Acc Acc;
    typedef typename Op::In In;
    static constexpr int K = lanes<Acc>(lanes_in_memory<Op>::value);
    Acc acc[K];
    bool wide = false;
    explicit Lanes(const Op &op) { acc[0] = op.identity(); }
    // p[j * s] (p[j] when Unit) for j < n, reduced positions i0 + j.
    template <bool Unit> void take(const Op &op, const In *p, int64_t s, int64_t n, int64_t i0)
    {
        int64_t j = 0;
        if (n >= K) {
            if (!wide) {
                for (int k = 1; k < K; k++)
                    acc[k] = op.identity();
                wide = true;
            }
            if constexpr (lanes_in_memory<Op>::value) {
                for (; j + K <= n; j += K) {
#pragma GCC unroll 1
                    for (int k = 0; k < K; k++)
                        acc[k] = op.push(acc[k], p[Unit ? j + k : (j + k) * s], i0 + j + k);
                }
            } else {
                Acc a[K];
                for (int k = 0; k < K; k++)
                    a[k] = acc[k];
                for (; j + K <= n; j += K)
                    for (int k = 0; k < K; k++)
                        a[k] = op.push(a[k], p[Unit ? j + k : (j + k) * s], i0 + j + k);
                for (int k = 0; k < K; k++)
                    acc[k] = a[k];
            }
        }
        for (; j < n; j++)
            acc[0] = op.push(acc[0], p[Unit ? j : j * s], i0 + j);
    }
    Acc result(const Op &op)
    {
        if (!wide)
            return acc[0];
        for (int w = K / 2; w > 0; w /= 2) {
            if constexpr (lanes_in_memory<Op>::value) {
#pragma GCC unroll 1
                for (int k = 0; k < w; k++)
                    acc[k] = op.merge(acc[k], acc[k + w]);
            } else {
                for (int k = 0; k < w; k++)
                    acc[k] = op.merge(acc[k], acc[k + w]);
            }
        }
        return acc[0];
    }
};

// The state of one row leaf of n positions, whose runs runs(f) hands over as f(p, s, len, i0, unit):
// elements p[j * s] (s == 1 when unit) at reduced positions i0 + j, j < len. runs may be called
// again. By lanes, unless the op has a leaf of its own (below).
template <class Op, class Runs> typename Op::Acc lanes_leaf(const Op &op, const Runs &runs)
{
    Lanes<Op> lanes(op);
    runs([&](const typename Op::In *p, int64_t s, int64_t len, int64_t i0, bool unit) {
        if (unit)
            lanes.template take<true>(op, p, 1, len, i0);
        else
            lanes.template take<false>(op, p, s, len, i0);
    });
    return lanes.result(op);
}
template <class Op, class Runs> typename Op::Acc row_leaf(const Op &op, int64_t, const Runs &runs)
{
    return lanes_leaf(op, runs);
}

// The (mean, M2, n) of x[0, n) in two passes, both shifted by x[0] (so equal values give M2 = 0
// exactly), sums by lanes. What VAR/STD's leaves are, instead of Welford's division per element.
template <typename M> hkr::MomentState<M> moments(const M *x, int64_t n)
{
    constexpr int K = (int)(64 / sizeof(M));
    const M shift = x[0];
    M s[K] = {}, q[K] = {};
    int64_t j = 0;
    for (; j + K <= n; j += K)
        for (int k = 0; k < K; k++)
            s[k] += x[j + k] - shift;
    for (int k = 0; j < n; j++, k++)
        s[k] += x[j] - shift;
    for (int w = K / 2; w > 0; w /= 2)
        for (int k = 0; k < w; k++)
            s[k] += s[k + w];
    hkr::MomentState<M> m;
    m.mean = shift + s[0] / (M)n;
    for (j = 0; j + K <= n; j += K)
        for (int k = 0; k < K; k++)
            q[k] += (x[j + k] - m.mean) * (x[j + k] - m.mean);
    for (int k = 0; j < n; j++, k++)
        q[k] += (x[j] - m.mean) * (x[j] - m.mean);
    for (int w = K / 2; w > 0; w /= 2)
        for (int k = 0; k < w; k++)
            q[k] += q[k + w];
    m.m2 = q[0];
    m.n = n;
    return m;
}

template <hk_dtype D, class Runs> typename hkr::VarOp<D>::Acc row_leaf(const hkr::VarOp<D> &, int64_t, const Runs &runs)
{
    typedef typename hkr::VarOp<D>::M M;
    M x[kLeaf];
    int64_t n = 0;
    runs([&](const typename hkr::VarOp<D>::In *p, int64_t s, int64_t len, int64_t, bool) {
        for (int64_t j = 0; j < len; j++)
            x[n + j] = (M)hk_dt::traits<D>::load(p[j * s]);
        n += len;
    });
    return moments(x, n);
}

// ARGMIN/ARGMAX's row leaf: the leaf's extreme by MIN/MAX's lanes (which vectorise), then the first
// position whose element is that extreme (ArgOp::is_extreme), rather than (value, index) pairs per
// element (short leaves keep the pairs: two passes cost more there).
template <hk_dtype D, bool IsMax, class Runs>
typename hkr::ArgOp<D, IsMax>::Acc row_leaf(const hkr::ArgOp<D, IsMax> &op, int64_t n, const Runs &runs)
{
    typedef hkr::ArgOp<D, IsMax> Op;
    typedef typename Op::In In;
    if (n < 64)
        return lanes_leaf(op, runs);
    const typename Op::C extreme = lanes_leaf(typename Op::Extreme{}, runs);
    typename Op::Acc a = op.identity();
    bool found = false;
    auto is_it = [&](const In *p, int64_t j, int64_t s) {
        return Op::is_extreme((typename Op::C)hk_dt::traits<D>::load(p[j * s]), extreme);
    };
    runs([&](const In *p, int64_t s, int64_t len, int64_t i0, bool unit) {
        int64_t j = 0;
        if (unit) // whole blocks of 32 first, each tested without an exit (that loop vectorises)
            for (; !found && j + 32 <= len; j += 32) {
                unsigned any = 0;
#pragma GCC unroll 1
                for (int k = 0; k < 32; k++)
                    any |= (unsigned)is_it(p + j, k, 1);
                if (any)
                    break;
            }
        for (; !found && j < len; j++) {
            if (is_it(p, j, s)) {
                a = op.push(a, p[j * s], i0 + j);
                found = true;
            }
        }
    });
    return a;
}

// One column leaf: rows[r] (r < rn) point at the tile's first element in each row, whose reduced
// positions are r0 + r; leaf[k] becomes the state of column k < tc (elements rows[r][k * sc]).
// Four rows at a time per column, in order, so a state is loaded and stored once per four.
template <class Op>
void column_leaf(const Op &op, const typename Op::In *const *rows, int64_t rn, int64_t r0, int64_t sc, int64_t tc,
                 typename Op::Acc *leaf)
{
    typedef typename Op::In In;
    for (int64_t k = 0; k < tc; k++)
        leaf[k] = op.identity();
    int64_t r = 0;
    if (sc == 1) {
        for (; r + 4 <= rn; r += 4) {
            const In *a = rows[r], *b = rows[r + 1], *c = rows[r + 2], *d = rows[r + 3];
            const int64_t i = r0 + r;
            for (int64_t k = 0; k < tc; k++)
                leaf[k] = op.push(op.push(op.push(op.push(leaf[k], a[k], i), b[k], i + 1), c[k], i + 2), d[k], i + 3);
        }
        for (; r < rn; r++)
            for (int64_t k = 0; k < tc; k++)
                leaf[k] = op.push(leaf[k], rows[r][k], r0 + r);
    } else {
        for (; r < rn; r++)
            for (int64_t k = 0; k < tc; k++)
                leaf[k] = op.push(leaf[k], rows[r][k * sc], r0 + r);
    }
}

// VAR/STD's column leaf: moments() column by column, row by row.
template <hk_dtype D>
void column_leaf(const hkr::VarOp<D> &, const typename hkr::VarOp<D>::In *const *rows, int64_t rn, int64_t, int64_t sc,
                 int64_t tc, typename hkr::VarOp<D>::Acc *leaf)
{
    typedef typename hkr::VarOp<D>::M M;
    typedef hk_dt::traits<D> T;
    constexpr int64_t W = tile_width<typename hkr::VarOp<D>::Acc>();
    M shift[W], s[W], q[W];
    for (int64_t k = 0; k < tc; k++) {
        shift[k] = (M)T::load(rows[0][k * sc]);
        s[k] = M(0);
        q[k] = M(0);
    }
    for (int64_t r = 0; r < rn; r++)
        for (int64_t k = 0; k < tc; k++)
            s[k] += (M)T::load(rows[r][k * sc]) - shift[k];
    for (int64_t k = 0; k < tc; k++)
        leaf[k].mean = shift[k] + s[k] / (M)rn;
    for (int64_t r = 0; r < rn; r++)
        for (int64_t k = 0; k < tc; k++) {
            const M d = (M)T::load(rows[r][k * sc]) - leaf[k].mean;
            q[k] += d * d;
        }
    for (int64_t k = 0; k < tc; k++) {
        leaf[k].m2 = q[k];
        leaf[k].n = rn;
    }
}

// Position `pos` over the reduced dims of L (C order) and its element offset, stepping along.
struct Cursor {
    int last;
    int64_t shape[HKK_MAX_DIMS], stride[HKK_MAX_DIMS], idx[HKK_MAX_DIMS];
    int64_t off = 0;
    Cursor(const hkk_reduce_layout &L, int64_t pos)
    {
        last = L.red_ndim - 1;
        for (int k = last; k >= 0; k--) {
            shape[k] = L.red_shape[k];
            stride[k] = L.red_in[k];
            const int64_t q = k > 0 ? pos / shape[k] : 0;
            idx[k] = pos - q * shape[k];
            off += idx[k] * stride[k];
            pos = q;
        }
    }
    // Positions from here to the end of the innermost dim.
    int64_t run_left() const { return shape[last] - idx[last]; }
    // Forward len <= run_left() positions.
    void advance(int64_t len)
    {
        idx[last] += len;
        off += len * stride[last];
        if (idx[last] < shape[last])
            return;
        off -= shape[last] * stride[last];
        idx[last] = 0;
        for (int k = last - 1; k >= 0; k--) {
            idx[k]++;
            off += stride[k];
            if (idx[k] < shape[k])
                return;
            off -= shape[k] * stride[k];
            idx[k] = 0;
        }
    }
};

// Outputs o, o + 1, ... over kept dims [0, ndim) of L (C order): their input and output offsets.
struct Outputs {
    int ndim;
    int64_t idx[HKK_MAX_DIMS];
    const hkk_reduce_layout *L;
    int64_t in_off = 0, out_off = 0;
    Outputs(const hkk_reduce_layout &layout, int nd, int64_t o) : ndim(nd), L(&layout)
    {
        for (int k = ndim - 1; k >= 0; k--) {
            const int64_t e = L->kept_shape[k];
            const int64_t q = k > 0 ? o / e : 0;
            idx[k] = o - q * e;
            in_off += idx[k] * L->kept_in[k];
            out_off += idx[k] * L->kept_out[k];
            o = q;
        }
    }
    void next()
    {
        for (int k = ndim - 1; k >= 0; k--) {
            idx[k]++;
            in_off += L->kept_in[k];
            out_off += L->kept_out[k];
            if (idx[k] < L->kept_shape[k] || k == 0)
                return;
            in_off -= idx[k] * L->kept_in[k];
            out_off -= idx[k] * L->kept_out[k];
            idx[k] = 0;
        }
    }
};

// How one call is cut into items of work (a pure function of the layout and the thread count; the
// results depend on the layout only).
struct Plan {
    bool columns;
    bool contig;                 // rows: one reduced dim of stride 1
    bool unit;                   // rows: the innermost reduced dim has stride 1
    int64_t nb;                  // blocks per output (1: an item is a whole row, or a whole column tile)
    int64_t block;               // reduced positions per block
    int64_t C, T, ntiles, outer; // columns: inner kept extent, tile width, tiles per outer position
    int64_t items, per_item;     // items and elements visited per item
    int64_t states;              // partial states in scratch (0: none)
};

template <class Op> Plan make_plan(const hkk_reduce_layout &L)
{
    Plan p = {};
    const int64_t N = L.count;
    const int last = L.red_ndim - 1;
    const int inner = L.kept_ndim - 1;
    p.columns = N > 0 && L.kept_ndim > 0 && L.kept_in[inner] > 0 && L.kept_in[inner] < abs64(L.red_in[last]);
    if (p.columns) {
        p.C = L.kept_shape[inner];
        p.outer = L.outputs / p.C;
        p.T = tile_width<typename Op::Acc>();
        p.ntiles = ceil_div(p.C, p.T);
        p.block = kColBlock;
        p.nb = ceil_div(N, kColBlock);
        p.items = p.outer * p.ntiles * p.nb;
        p.per_item = min64(p.C, p.T) * min64(N, kColBlock);
    } else {
        p.contig = L.red_ndim == 1 && L.red_in[0] == 1;
        p.unit = L.red_in[last] == 1;
        // Split rows at blocks only when the outputs are too few to keep the threads busy.
        const bool split = N > kRowBlock && L.outputs < 4 * (int64_t)hkc::threads();
        p.block = split ? kRowBlock : N;
        p.nb = split ? ceil_div(N, kRowBlock) : 1;
        p.items = L.outputs * p.nb;
        p.per_item = p.block > 0 ? p.block : 1;
    }
    p.states = p.nb > 1 ? L.outputs * p.nb : 0;
    return p;
}

inline int64_t grain_for(int64_t per_item)
{
    return per_item >= kGrain ? 1 : kGrain / (per_item > 0 ? per_item : 1);
}

// The state of reduced positions [begin, end) of the row at `row` (begin a multiple of kLeaf).
template <class Op>
typename Op::Acc reduce_row(const Op &op, const typename Op::In *row, const hkk_reduce_layout &L, const Plan &p,
                            int64_t begin, int64_t end)
{
    Tree<Op> tree;
    if (p.contig) {
        for (int64_t b = begin; b < end; b += kLeaf) {
            const int64_t n = min64(kLeaf, end - b);
            const typename Op::Acc s = row_leaf(op, n, [&](const auto &f) { f(row + b, (int64_t)1, n, b, true); });
            if (end - begin <= kLeaf)
                return s;
            tree.add(op, s);
        }
        return tree.result(op);
    }
    // A leaf may walk its runs more than once (row_leaf's passes): each walk starts from `at`.
    Cursor at(L, begin), next = at;
    const int64_t s = at.stride[at.last];
    for (int64_t b = begin; b < end; b += kLeaf) {
        const int64_t stop = min64(b + kLeaf, end);
        tree.add(op, row_leaf(op, stop - b, [&](const auto &f) {
                     Cursor c = at;
                     for (int64_t i = b; i < stop;) {
                         const int64_t len = min64(stop - i, c.run_left());
                         f(row + c.off, s, len, i, p.unit);
                         c.advance(len);
                         i += len;
                     }
                     next = c;
                 }));
        at = next;
    }
    return tree.result(op);
}

// Row items [ib, ie): item i is block i % nb of output i / nb.
template <class Op>
void row_items(const Op &op, const typename Op::In *in, typename Op::Out *out, typename Op::Acc *partial,
               const hkk_reduce_layout &L, const Plan &p, int64_t ib, int64_t ie)
{
    const int64_t N = L.count;
    int64_t o = ib / p.nb, b = ib - o * p.nb;
    Outputs w(L, L.kept_ndim, o);
    for (int64_t i = ib; i < ie; i++) {
        const int64_t begin = b * p.block, end = min64(N, begin + p.block);
        const typename Op::Acc s = reduce_row(op, in + w.in_off, L, p, begin, end);
        if (p.nb == 1)
            out[w.out_off] = op.finish(s);
        else
            partial[i] = s;
        if (++b == p.nb) {
            b = 0;
            w.next();
        }
    }
}

// ARGMIN/ARGMAX's column leaf: each column's extreme by MIN/MAX's leaf, then the first row whose
// element is it.
template <hk_dtype D, bool IsMax>
void column_leaf(const hkr::ArgOp<D, IsMax> &op, const typename hkr::ArgOp<D, IsMax>::In *const *rows, int64_t rn,
                 int64_t r0, int64_t sc, int64_t tc, typename hkr::ArgOp<D, IsMax>::Acc *leaf)
{
    typedef hkr::ArgOp<D, IsMax> Op;
    constexpr int64_t W = tile_width<typename Op::Acc>();
    typename Op::C extreme[W];
    column_leaf(typename Op::Extreme{}, rows, rn, r0, sc, tc, extreme);
    for (int64_t k = 0; k < tc; k++) {
        leaf[k] = op.identity();
        for (int64_t r = 0; r < rn; r++) {
            const typename Op::In x = rows[r][k * sc];
            if (Op::is_extreme((typename Op::C)hk_dt::traits<D>::load(x), extreme[k])) {
                leaf[k] = op.push(leaf[k], x, r0 + r);
                break;
            }
        }
    }
}

// Column items [ib, ie): item i is block i % nb of tile (i / nb) % ntiles of outer position
// i / (nb * ntiles). A tile's states live on the stack: the leaf being filled and the counter's.
template <class Op>
void column_items(const Op &op, const typename Op::In *in, typename Op::Out *out, typename Op::Acc *partial,
                  const hkk_reduce_layout &L, const Plan &p, int64_t ib, int64_t ie)
{
    typedef typename Op::In In;
    typedef typename Op::Acc Acc;
    constexpr int64_t T = tile_width<Acc>();
    constexpr int kSlots = kColLevels + 2;
    Acc slot[kSlots][T];
    int level[kSlots];
    const In *rows[kColLeaf];
    const int inner = L.kept_ndim - 1;
    const int64_t sc = L.kept_in[inner], oc = L.kept_out[inner], N = L.count;
    int64_t b = ib % p.nb, rest = ib / p.nb;
    int64_t t = rest % p.ntiles, outer = rest / p.ntiles;
    Outputs w(L, inner, outer);
    for (int64_t i = ib; i < ie; i++) {
        const int64_t c0 = t * T, tc = min64(T, p.C - c0);
        const int64_t r0 = b * p.block, r1 = min64(N, r0 + p.block);
        const In *base = in + w.in_off + c0 * sc;
        Cursor c(L, r0);
        int top = 0;
        for (int64_t r = r0; r < r1; r += kColLeaf) {
            const int64_t rn = min64(kColLeaf, r1 - r);
            for (int64_t j = 0; j < rn; j++) {
                rows[j] = base + c.off;
                c.advance(1);
            }
            Acc *leaf = slot[top];
            column_leaf(op, rows, rn, r, sc, tc, leaf);
            int l = 0;
            while (top > 0 && level[top - 1] == l) {
                Acc *s = slot[top - 1];
                for (int64_t k = 0; k < tc; k++)
                    s[k] = op.merge(s[k], leaf[k]);
                leaf = s;
                top--;
                l++;
            }
            level[top++] = l;
        }
        for (int u = top - 2; u >= 0; u--)
            for (int64_t k = 0; k < tc; k++)
                slot[u][k] = op.merge(slot[u][k], slot[u + 1][k]);
        if (p.nb == 1) {
            typename Op::Out *o = out + w.out_off + c0 * oc;
            for (int64_t k = 0; k < tc; k++)
                o[k * oc] = op.finish(slot[0][k]);
        } else {
            Acc *dst = partial + ((outer * p.C) + c0) * p.nb + b;
            for (int64_t k = 0; k < tc; k++)
                dst[k * p.nb] = slot[0][k];
        }
        if (++b == p.nb) {
            b = 0;
            if (++t == p.ntiles) {
                t = 0;
                outer++;
                w.next();
            }
        }
    }
}

template <class Op>
int run(const Op &op, const void *in_v, void *out_v, void *scratch, const hkk_reduce_layout &L, size_t *query)
{
    typedef typename Op::In In;
    typedef typename Op::Out Out;
    typedef typename Op::Acc Acc;
    const Plan p = make_plan<Op>(L);
    if (query) {
        *query = (size_t)p.states * sizeof(Acc);
        return 0;
    }
    const In *in = static_cast<const In *>(in_v);
    Out *out = static_cast<Out *>(out_v);
    Acc *partial = static_cast<Acc *>(scratch);
    if (L.outputs <= 0)
        return 0;
    if (L.count == 0) { // nothing to read (in may be NULL): every output is the empty reduction's
        const Out empty = op.finish(op.identity());
        hkc::parallel_for(L.outputs, kGrain, [&](int64_t begin, int64_t end) {
            Outputs w(L, L.kept_ndim, begin);
            for (int64_t o = begin; o < end; o++, w.next())
                out[w.out_off] = empty;
        });
        return 0;
    }
    if (p.states > 0 && !partial)
        return 1;
    hkc::parallel_for(p.items, grain_for(p.per_item), [&](int64_t begin, int64_t end) {
        if (p.columns)
            column_items(op, in, out, partial, L, p, begin, end);
        else
            row_items(op, in, out, partial, L, p, begin, end);
    });
    if (p.nb == 1)
        return 0;
    // The blocks' states of each output, merged by the tree their positions would have formed.
    hkc::parallel_for(L.outputs, grain_for(p.nb), [&](int64_t begin, int64_t end) {
        Outputs w(L, L.kept_ndim, begin);
        for (int64_t o = begin; o < end; o++, w.next()) {
            Tree<Op> tree;
            for (int64_t b = 0; b < p.nb; b++)
                tree.add(op, partial[o * p.nb + b]);
            out[w.out_off] = op.finish(tree.result(op));
        }
    });
    return 0;
}

// What a family entry hands to hkr::with_op: runs the functor it is given.
struct Call {
    const void *in;
    void *out;
    void *scratch;
    const hkk_reduce_layout *L;
    size_t *query;
    template <class Op> int operator()(const Op &op) const { return run(op, in, out, scratch, *L, query); }
};

// A family entry: the functor of op over in_dtype (one of Dtypes: complex numbers only sum, as the host
// validated), among the ops Ops of one family file.
template <unsigned Ops, unsigned Dtypes = HK_DTYPES_REAL>
int family(hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out, void *scratch,
           const hkk_reduce_layout *layout, int ddof, size_t *query)
{
    const Call call = {in, out, scratch, layout, query};
    return hk_dispatch::dispatch<Dtypes>(
        in_dtype, [&](auto tag) { return hkr::with_op<Ops, decltype(tag)::value>(op, layout->count, ddof, call); });
}

} // namespace
} // namespace hkcr

#endif
