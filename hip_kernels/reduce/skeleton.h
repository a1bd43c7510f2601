// skeleton.h: the reduction kernels of hk_reduce, generic over an op functor,
// and their launch (the plan comes from plan.c). Included by the .hip files of
// this folder, each of which instantiates a few ops for the ten dtypes.
//
// The op functors (identity, push, merge, finish: what each op means) are in
// reduce/ops.h, which the CPU device's skeleton (cpu/reduce_skeleton.h) runs
// too.
//
// Kernels (the host's layout has kept dims x reduced dims, see reduce.h):
//  - row_kernel: reduced elements of one output are "along the row": a group
//    of G threads (1..32 lanes of a warp, or the whole block of 256) per
//    (output, split) item. Contig: one reduced dim of stride 1, read with
//    16-byte vector loads after a per-row alignment head; else the reduced
//    position is decomposed into the strided dims (the general fallback).
//    With few outputs the reduced extent is split over S blocks per output
//    and finalize_kernel merges the S partial states. The whole-array
//    reduction (one output, contiguous) is this kernel with S ~ 8 blocks per
//    multiprocessor, chunk-contiguous.
//  - col_kernel: the innermost kept dim is more inner than the reduced ones
//    (axis 0 of a C-order matrix): threads of a block run across the kept
//    dim (W columns each with 16-byte loads when aligned), the block's rows
//    (threadIdx.y) walk down the reduced dims, then combine in shared memory;
//    the reduced extent is split over gridDim.y blocks when the outputs are
//    too few to fill the device (then finalize_kernel again).
// No atomics: every launch shape is a pure function of the layout, the
// dtype, the pointer's alignment and the multiprocessor count, so results are
// bitwise reproducible.
#ifndef HIPKIT_REDUCE_SKELETON_H
#define HIPKIT_REDUCE_SKELETON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <type_traits>

#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "common/ops.h"
#include "reduce/plan.h"
#include "reduce/reduce.h"

// HKR_EMULATION: tests/c/test_reduce_emulated.cpp compiles this header for
// the host, with GPU threads run as cooperative fibers; it provides the
// device names used here (the prelude's and hk_dev's) and HKR_LAUNCH itself.
#if !defined(HKR_EMULATION)
#include "common/hipkit_device.h"
#include "common/launch.h"
#include "gpu/device.h"
#include "gpu/gpu.h"
#define HKR_LAUNCH(kernel, grid, block, stream, ...) kernel<<<grid, block, 0, stream>>>(__VA_ARGS__)
#define HKR_UNROLL _Pragma("unroll")
#endif

#include "reduce/ops.h"

namespace hkr
{
namespace // every .hip file gets its own copy: no symbol is shared between them
{

// --------------------------------------------------- warp and block combining

// A shuffle of any trivially copyable state, one 32-bit word at a time.
template <typename T> HK_DEVICE T shfl_down_state(T v, int delta)
{
    constexpr int N = (int)((sizeof(T) + 3) / 4);
    int w[N];
    w[N - 1] = 0;
    memcpy(w, &v, sizeof(T));
    HKR_UNROLL
    for (int k = 0; k < N; k++)
        w[k] = hk_dev::shfl_down(w[k], delta);
    memcpy(&v, w, sizeof(T));
    return v;
}

// Groups of G consecutive lanes (G a power of two, 1..32, so within a warp of
// 32 or 64); the result is valid in each group's first lane. Every lane of
// the warp must call it.
template <class Op> HK_DEVICE typename Op::Acc group_combine(const Op &op, typename Op::Acc v, int G)
{
    for (int d = G / 2; d > 0; d /= 2)
        v = op.merge(v, shfl_down_state(v, d));
    return v;
}

// The whole block (blockDim.x a multiple of the warp size, at most 1024);
// valid in thread 0. `smem` holds one state per warp (32 at most).
template <class Op> HK_DEVICE typename Op::Acc block_combine(const Op &op, typename Op::Acc v, typename Op::Acc *smem)
{
    const int ws = warpSize;
    for (int d = ws / 2; d > 0; d /= 2)
        v = op.merge(v, shfl_down_state(v, d));
    const int warps = (int)(blockDim.x / (unsigned)ws);
    const int lane = (int)(threadIdx.x % (unsigned)ws), warp = (int)(threadIdx.x / (unsigned)ws);
    if (lane == 0)
        smem[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < warps ? smem[lane] : op.identity();
        for (int d = ws / 2; d > 0; d /= 2)
            v = op.merge(v, shfl_down_state(v, d));
    }
    __syncthreads(); // smem is reused by the next round
    return v;
}

template <class Op> HK_DEVICE typename Op::Acc combine(const Op &op, typename Op::Acc v, int G, typename Op::Acc *smem)
{
    return G <= 32 ? group_combine(op, v, G) : block_combine(op, v, smem);
}

// ------------------------------------------------------- layout arithmetic

// Offset of reduced position j (C order over the reduced dims).
HK_DEVICE int64_t reduced_offset(const hkk_reduce_layout &L, int64_t j)
{
    if (L.red_ndim == 1)
        return j * L.red_in[0];
    int64_t off = 0;
    HKR_UNROLL
    for (int k = HKK_MAX_DIMS - 1; k > 0; k--) {
        if (k < L.red_ndim) {
            const int64_t e = L.red_shape[k];
            const int64_t q = j / e;
            off += (j - q * e) * L.red_in[k];
            j = q;
        }
    }
    return off + j * L.red_in[0];
}

// Input and output offsets of output o over kept dims [0, ndim) (ndim is
// kept_ndim, or kept_ndim - 1 for the column kernel's outer dims).
HK_DEVICE void kept_offsets(const hkk_reduce_layout &L, int ndim, int64_t o, int64_t *in_off, int64_t *out_off)
{
    int64_t a = 0, b = 0;
    HKR_UNROLL
    for (int k = HKK_MAX_DIMS - 1; k >= 0; k--) {
        if (k < ndim) {
            const int64_t e = L.kept_shape[k];
            const int64_t q = k > 0 ? o / e : 0;
            const int64_t c = o - q * e;
            a += c * L.kept_in[k];
            b += c * L.kept_out[k];
            o = q;
        }
    }
    *in_off = a;
    *out_off = b;
}

// ------------------------------------------------------------------ kernels

constexpr int kBlock = HKK_REDUCE_BLOCK;
constexpr int kUnroll = HKK_REDUCE_UNROLL;

template <typename T> struct alignas(16) Vec16 {
    T v[16 / sizeof(T)];
};

// The emulator checks every vector load's alignment (the GPU would fault).
#if !defined(HKR_CHECK_ALIGNED)
#define HKR_CHECK_ALIGNED(p) ((void)0)
#endif
template <typename T> HK_DEVICE Vec16<T> load16(const T *p)
{
    HKR_CHECK_ALIGNED(p);
    return *reinterpret_cast<const Vec16<T> *>(p);
}

// push every element of p[0, len) (contiguous; reduced indices idx0 + j) that
// belongs to `lane` of a group of G: an alignment head, 16-byte vectors
// (kUnroll per trip), a tail.
template <class Op>
HK_DEVICE typename Op::Acc push_contiguous(const Op &op, typename Op::Acc acc, const typename Op::In *p, int64_t len,
                                           int64_t idx0, int lane, int G)
{
    typedef typename Op::In In;
    constexpr int W = 16 / (int)sizeof(In);
    int64_t head = (int64_t)(((16u - ((unsigned)(uintptr_t)p & 15u)) & 15u) / sizeof(In));
    if (head > len)
        head = len;
    for (int64_t j = lane; j < head; j += G)
        acc = op.push(acc, p[j], idx0 + j);
    const In *vp = p + head; // 16-byte aligned
    const int64_t nvec = (len - head) / W;
    const int64_t base = idx0 + head;
    int64_t v = lane;
    for (; v + (kUnroll - 1) * (int64_t)G < nvec; v += kUnroll * (int64_t)G) {
        Vec16<In> x[kUnroll];
        HKR_UNROLL
        for (int u = 0; u < kUnroll; u++)
            x[u] = load16(vp + (v + u * (int64_t)G) * W);
        HKR_UNROLL
        for (int u = 0; u < kUnroll; u++)
            HKR_UNROLL
        for (int k = 0; k < W; k++)
            acc = op.push(acc, x[u].v[k], base + (v + u * (int64_t)G) * W + k);
    }
    for (; v < nvec; v += G) {
        const Vec16<In> x = load16(vp + v * W);
        HKR_UNROLL
        for (int k = 0; k < W; k++)
            acc = op.push(acc, x.v[k], base + v * W + k);
    }
    for (int64_t j = head + nvec * W + lane; j < len; j += G)
        acc = op.push(acc, p[j], idx0 + j);
    return acc;
}

// Items (output o, split s) = o * S + s, one per group of G threads; split s
// covers reduced positions [s * chunk, min(count, (s + 1) * chunk)).
// S == 1: the group's first lane writes out; else partial[o * S + s].
template <class Op, bool Contig>
__global__ void __launch_bounds__(kBlock)
    row_kernel(Op op, const typename Op::In *__restrict__ in, typename Op::Out *__restrict__ out,
               typename Op::Acc *__restrict__ partial, hkk_reduce_layout L, int G, int64_t S, int64_t chunk)
{
    typedef typename Op::Acc Acc;
    __shared__ Acc smem[32];
    const int per_block = (int)blockDim.x / G;
    const int lane = (int)threadIdx.x % G;
    const int64_t items = L.outputs * S;
    // The loop condition is uniform over the block, so every lane reaches the
    // shuffles and barriers of each round.
    for (int64_t first = (int64_t)blockIdx.x * per_block; first < items; first += (int64_t)gridDim.x * per_block) {
        const int64_t item = first + (int64_t)threadIdx.x / G;
        const bool active = item < items;
        Acc acc = op.identity();
        int64_t in_off = 0, out_off = 0;
        if (active) {
            const int64_t o = item / S, s = item - o * S;
            kept_offsets(L, L.kept_ndim, o, &in_off, &out_off);
            const int64_t begin = s * chunk;
            const int64_t end = begin + chunk < L.count ? begin + chunk : L.count;
            const typename Op::In *row = in + in_off;
            if (Contig) {
                if (end > begin)
                    acc = push_contiguous(op, acc, row + begin, end - begin, begin, lane, G);
            } else {
                for (int64_t j = begin + lane; j < end; j += G)
                    acc = op.push(acc, row[reduced_offset(L, j)], j);
            }
        }
        acc = combine(op, acc, G, smem);
        if (active && lane == 0) {
            if (S == 1)
                out[out_off] = op.finish(acc);
            else
                partial[item] = acc;
        }
    }
}

// blockDim (bx, by), bx * by == kBlock, both powers of two. x runs over the
// column vectors: outer kept position times VC = ceil(C / W) vectors of the
// inner kept dim (extent C, input stride 1 when W > 1). Block row blockIdx.y
// = split s covers reduced positions [s * chunk, min(count, (s+1) * chunk)).
// S == 1: results go to out; else partial[s * outputs + o].
template <class Op, int W>
__global__ void __launch_bounds__(kBlock)
    col_kernel(Op op, const typename Op::In *__restrict__ in, typename Op::Out *__restrict__ out,
               typename Op::Acc *__restrict__ partial, hkk_reduce_layout L, int64_t VC, int64_t S, int64_t chunk)
{
    typedef typename Op::In In;
    typedef typename Op::Acc Acc;
    __shared__ Acc smem[kBlock];
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    const int bx = (int)blockDim.x, by = (int)blockDim.y;
    const int inner = L.kept_ndim - 1;
    const int64_t C = L.kept_shape[inner], sc = L.kept_in[inner], oc = L.kept_out[inner];
    const int64_t xwork = (L.outputs / C) * VC;
    const int64_t s = blockIdx.y;
    const int64_t r0 = s * chunk;
    const int64_t r1 = r0 + chunk < L.count ? r0 + chunk : L.count;
    for (int64_t xfirst = (int64_t)blockIdx.x * bx; xfirst < xwork; xfirst += (int64_t)gridDim.x * bx) {
        const int64_t x = xfirst + tx;
        const bool active = x < xwork;
        Acc acc[W];
        HKR_UNROLL
        for (int k = 0; k < W; k++)
            acc[k] = op.identity();
        int64_t outer = 0, c0 = 0, in_off = 0, out_off = 0;
        if (active) {
            outer = x / VC;
            c0 = (x - outer * VC) * W;
            kept_offsets(L, inner, outer, &in_off, &out_off);
            const In *base = in + in_off + c0 * sc;
            if (W > 1 && c0 + W <= C) {
                // Aligned by the planner: base, every reduced stride and every
                // outer stride are multiples of 16 bytes.
                int64_t r = r0 + ty;
                for (; r + (kUnroll - 1) * (int64_t)by < r1; r += kUnroll * (int64_t)by) {
                    Vec16<In> v[kUnroll];
                    HKR_UNROLL
                    for (int u = 0; u < kUnroll; u++)
                        v[u] = load16(base + reduced_offset(L, r + u * (int64_t)by));
                    HKR_UNROLL
                    for (int u = 0; u < kUnroll; u++)
                        HKR_UNROLL
                    for (int k = 0; k < W; k++)
                        acc[k] = op.push(acc[k], v[u].v[k], r + u * (int64_t)by);
                }
                for (; r < r1; r += by) {
                    const Vec16<In> v = load16(base + reduced_offset(L, r));
                    HKR_UNROLL
                    for (int k = 0; k < W; k++)
                        acc[k] = op.push(acc[k], v.v[k], r);
                }
            } else {
                const int64_t left = C - c0; // columns this thread has: min(W, left)
                for (int64_t r = r0 + ty; r < r1; r += by) {
                    const In *p = base + reduced_offset(L, r);
                    HKR_UNROLL
                    for (int k = 0; k < W; k++)
                        if (k < left)
                            acc[k] = op.push(acc[k], p[k * sc], r);
                }
            }
        }
        // Combine the block's rows, one column lane at a time.
        HKR_UNROLL
        for (int k = 0; k < W; k++) {
            Acc *mine = smem + ty * bx + tx;
            *mine = acc[k];
            __syncthreads();
            for (int h = by / 2; h > 0; h /= 2) {
                if (ty < h)
                    *mine = op.merge(*mine, mine[h * bx]);
                __syncthreads();
            }
            if (ty == 0 && active && c0 + k < C) {
                if (S == 1)
                    out[out_off + (c0 + k) * oc] = op.finish(*mine);
                else
                    partial[s * L.outputs + outer * C + c0 + k] = *mine;
            }
            __syncthreads();
        }
    }
}

// out[o] = finish(merge of partial[o * po + s * ps], s = 0..S-1), a group of
// G threads per output.
template <class Op>
__global__ void __launch_bounds__(kBlock)
    finalize_kernel(Op op, const typename Op::Acc *__restrict__ partial, typename Op::Out *__restrict__ out,
                    hkk_reduce_layout L, int G, int64_t S, int64_t po, int64_t ps)
{
    typedef typename Op::Acc Acc;
    __shared__ Acc smem[32];
    const int per_block = (int)blockDim.x / G;
    const int lane = (int)threadIdx.x % G;
    for (int64_t first = (int64_t)blockIdx.x * per_block; first < L.outputs; first += (int64_t)gridDim.x * per_block) {
        const int64_t o = first + (int64_t)threadIdx.x / G;
        const bool active = o < L.outputs;
        Acc acc = op.identity();
        if (active)
            for (int64_t s = lane; s < S; s += G)
                acc = op.merge(acc, partial[o * po + s * ps]);
        acc = combine(op, acc, G, smem);
        if (active && lane == 0) {
            int64_t in_off, out_off;
            kept_offsets(L, L.kept_ndim, o, &in_off, &out_off);
            out[out_off] = op.finish(acc);
        }
    }
}

// ------------------------------------------------------------------ launching

// Benchmark-only knobs for the column kernel's shape (bench/reduce_bench.c
// sweeps them; the defaults are what the planner uses): HIPKIT_REDUCE_COLUMN_BX
// (block threads across columns: a power of two, 1..256; default 32) and
// HIPKIT_REDUCE_COLUMN_WAVES (resident blocks' worth of splits to aim for, as
// a multiple of one wave: default 1). Read once by src/core/settings.c.
typedef hkk_reduce_column_knobs ColumnKnobs; // plan.h's, under the name column_knobs() returns
inline ColumnKnobs column_knobs(const hkk_launch *l)
{
    ColumnKnobs r = {32, 1};
    const long b = l->tuning ? l->tuning->reduce_column_bx : 0, w = l->tuning ? l->tuning->reduce_column_waves : 0;
    if (b >= 1 && b <= kBlock && (b & (b - 1)) == 0)
        r.bx = b;
    if (w >= 1 && w <= 16)
        r.waves = w;
    return r;
}

template <class Op> size_t scratch_bytes(const hkk_reduce_plan &p, const hkk_reduce_layout *L)
{
    return p.S > 1 ? (size_t)(L->outputs * p.S) * sizeof(typename Op::Acc) : 0;
}

// Resident blocks per multiprocessor of one kernel of 256 threads on the
// current device, asked once per device (4 if the vendor cannot tell).
template <typename Kernel> int blocks_per_sm(Kernel kernel)
{
    static std::atomic<int> cache[64];
    int device = 0;
    if (hipGetDevice(&device) != hipSuccess) {
        (void)hipGetLastError();
        device = 0;
    }
    const int slot = device >= 0 && device < 64 ? device : 0;
    int n = cache[slot].load(std::memory_order_relaxed);
    if (n > 0)
        return n;
    if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&n, reinterpret_cast<const void *>(kernel), kBlock, 0) !=
            hipSuccess ||
        n < 1) {
        (void)hipGetLastError(); // not this call's launch error
        n = 4;
    }
    cache[slot].store(n, std::memory_order_relaxed);
    return n;
}

template <class Op> hkk_reduce_residency residency()
{
    typedef typename Op::In In;
    hkk_reduce_residency r;
    r.row_contig = blocks_per_sm(row_kernel<Op, true>);
    r.row_strided = blocks_per_sm(row_kernel<Op, false>);
    r.col_vector = blocks_per_sm(col_kernel<Op, (int)(16 / sizeof(In))>);
    r.col_scalar = blocks_per_sm(col_kernel<Op, 1>);
    return r;
}

template <class Op>
int run(const hkk_launch *l, const Op &op, const void *in_v, void *out_v, void *scratch, const hkk_reduce_layout *L,
        size_t *query, hkk_reduce_plan *plan_used)
{
    typedef typename Op::In In;
    typedef typename Op::Out Out;
    typedef typename Op::Acc Acc;
    const hkk_reduce_residency per_sm = residency<Op>();
    const ColumnKnobs knobs = column_knobs(l);
    hkk_reduce_plan p;
    hkk_reduce_make_plan(l, L, sizeof(In), in_v, &per_sm, &knobs, &p);
    if (plan_used)
        *plan_used = p;
    if (query) {
        *query = scratch_bytes<Op>(p, L);
        return (int)hipSuccess;
    }
    const In *in = static_cast<const In *>(in_v);
    Out *out = static_cast<Out *>(out_v);
    Acc *partial = static_cast<Acc *>(scratch);
    if (p.S > 1 && !partial)
        return (int)hipErrorInvalidValue;
    hipStream_t stream = hk_vendor_stream(l);
    int64_t po, ps;
    if (p.kind == HKK_REDUCE_COLUMNS) {
        void (*kernel)(Op, const In *, Out *, Acc *, hkk_reduce_layout, int64_t, int64_t, int64_t) =
            p.W > 1 ? col_kernel<Op, (int)(16 / sizeof(In))> : col_kernel<Op, 1>;
        const dim3 grid(p.gx, (unsigned)p.S), block((unsigned)p.bx, (unsigned)p.by);
        HKR_LAUNCH(kernel, grid, block, stream, op, in, out, partial, *L, p.VC, p.S, p.chunk);
        po = 1;
        ps = L->outputs;
    } else {
        void (*kernel)(Op, const In *, Out *, Acc *, hkk_reduce_layout, int, int64_t, int64_t) =
            p.kind == HKK_REDUCE_ROW_CONTIG ? row_kernel<Op, true> : row_kernel<Op, false>;
        HKR_LAUNCH(kernel, dim3(p.grid), dim3(kBlock), stream, op, in, out, partial, *L, p.G, p.S, p.chunk);
        po = p.S;
        ps = 1;
    }
    int e = hk_launch_error();
    if (e != (int)hipSuccess || p.S == 1)
        return e;
    void (*finalize)(Op, const Acc *, Out *, hkk_reduce_layout, int, int64_t, int64_t, int64_t) = finalize_kernel<Op>;
    HKR_LAUNCH(finalize, dim3(p.fgrid), dim3(kBlock), stream, op, partial, out, *L, p.fG, p.S, po, ps);
    return hk_launch_error();
}

// What every family entry point receives.
struct Call {
    const hkk_launch *l;
    const void *in;
    void *out;
    void *scratch;
    const hkk_reduce_layout *L;
    int ddof;
    size_t *query;
    hkk_reduce_plan *plan_used; // the launch plan chosen (NULL: not wanted)
    template <class Op> int operator()(const Op &op) const { return run(l, op, in, out, scratch, L, query, plan_used); }
};

} // namespace
} // namespace hkr

#endif
