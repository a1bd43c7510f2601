// reduce_skeleton.h: the reduction kernels of hk_reduce, generic over an op
// functor, and the launch planner. Included by the reduce_*.hip files, each of
// which instantiates a few ops for the ten dtypes.
//
// An op functor describes one reduction once for every kernel:
//   typedef In (storage type read), Acc (accumulator state), Out (stored);
//   Acc identity() const;                   the empty state
//   Acc push(Acc a, In x, int64_t i) const;  add element x whose reduced index is i
//   Acc merge(Acc a, Acc b) const;           combine two states (any order)
//   Out finish(Acc a) const;                 the result of a whole reduction
// Indices matter only to ARGMIN/ARGMAX, whose states carry them (so ties and
// NaNs resolve by index, whatever order the threads merge in).
//
// Kernels (the host's layout has kept dims x reduced dims, see kernels_reduce.h):
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

#include "kernels_reduce.h"

// HKR_EMULATION: tests/c/test_reduce_emulated.cpp compiles this header for
// the host, with GPU threads run as cooperative fibers; it provides the
// device names used here and HKR_LAUNCH itself.
#if !defined(HKR_EMULATION)
#include "gpu/gpu.h"
#include "common/hipkit_device.h"
#include "common/launch.h"
#if defined(HIPKIT_PLATFORM_NVIDIA)
#include <cuda_fp16.h>
#else
#include <hip/hip_fp16.h>
#endif
#define HKR_LAUNCH(kernel, grid, block, stream, ...) kernel<<<grid, block, 0, stream>>>(__VA_ARGS__)
#define HKR_UNROLL _Pragma("unroll")
#endif

namespace hkr
{
namespace // every .hip file gets its own copy: no symbol is shared between them
{

// ------------------------------------------------------------ dtype traits
// S: how the dtype is stored (bool as a byte, float16 as its 16 bits);
// C: what it computes as (bool 0/1, float16 as float32).
template <hk_dtype D> struct dt;
#define HKR_PLAIN_DTYPE(D, T, LO, HI, FLOAT)                                                                           \
    template <> struct dt<D> {                                                                                         \
        typedef T S;                                                                                                   \
        typedef T C;                                                                                                   \
        static constexpr bool is_float = FLOAT;                                                                        \
        static HK_DEVICE C load(S x) { return x; }                                                                     \
        static HK_DEVICE S store(C c) { return c; }                                                                    \
        static HK_DEVICE C lowest() { return LO; }                                                                     \
        static HK_DEVICE C highest() { return HI; }                                                                    \
    };
HKR_PLAIN_DTYPE(HK_INT8, int8_t, (int8_t)-128, (int8_t)127, false)
HKR_PLAIN_DTYPE(HK_UINT8, uint8_t, (uint8_t)0, (uint8_t)255, false)
HKR_PLAIN_DTYPE(HK_INT32, int32_t, (int32_t)(-2147483647 - 1), (int32_t)2147483647, false)
HKR_PLAIN_DTYPE(HK_UINT32, uint32_t, 0u, 4294967295u, false)
HKR_PLAIN_DTYPE(HK_INT64, int64_t, (int64_t)(-9223372036854775807LL - 1), (int64_t)9223372036854775807LL, false)
HKR_PLAIN_DTYPE(HK_UINT64, uint64_t, (uint64_t)0, (uint64_t)18446744073709551615ULL, false)
HKR_PLAIN_DTYPE(HK_FLOAT32, float, -__int_as_float(0x7f800000), __int_as_float(0x7f800000), true)
HKR_PLAIN_DTYPE(HK_FLOAT64, double, -__longlong_as_double(0x7ff0000000000000LL),
                __longlong_as_double(0x7ff0000000000000LL), true)
#undef HKR_PLAIN_DTYPE

template <> struct dt<HK_BOOL> {
    typedef uint8_t S;
    typedef uint8_t C; // 0 or 1, whatever nonzero byte was stored
    static constexpr bool is_float = false;
    static HK_DEVICE C load(S x) { return x != 0; }
    static HK_DEVICE S store(C c) { return c != 0; }
    static HK_DEVICE C lowest() { return 0; }
    static HK_DEVICE C highest() { return 1; }
};
template <> struct dt<HK_FLOAT16> {
    typedef uint16_t S;
    typedef float C;
    static constexpr bool is_float = true;
    static HK_DEVICE C load(S x) { return __half2float(__ushort_as_half(x)); }
    static HK_DEVICE S store(C c) { return __half_as_ushort(__float2half(c)); } // round to nearest even
    static HK_DEVICE C lowest() { return -__int_as_float(0x7f800000); }
    static HK_DEVICE C highest() { return __int_as_float(0x7f800000); }
};

template <typename T> HK_DEVICE bool is_nan(T)
{
    return false; // integers
}
HK_DEVICE bool is_nan(float x)
{
    return x != x;
}
HK_DEVICE bool is_nan(double x)
{
    return x != x;
}
HK_DEVICE float quiet_nan(float)
{
    return __int_as_float(0x7fc00000);
}
HK_DEVICE double quiet_nan(double)
{
    return __longlong_as_double(0x7ff8000000000000LL);
}
HK_DEVICE float square_root(float x)
{
    return sqrtf(x);
}
HK_DEVICE double square_root(double x)
{
    return sqrt(x);
}

// Accumulation dtype of SUM/PROD (NumPy's): signed integers and bool -> int64,
// unsigned -> uint64 (both added in uint64, which wraps); float16 -> float32
// (stored back as float16).
template <hk_dtype D> struct sum_types {
    typedef uint64_t Acc;
    typedef int64_t Out;
    static HK_DEVICE Out out(Acc a) { return (Out)a; }
};
#define HKR_UNSIGNED_SUM(D)                                                                                            \
    template <> struct sum_types<D> {                                                                                  \
        typedef uint64_t Acc;                                                                                          \
        typedef uint64_t Out;                                                                                          \
        static HK_DEVICE Out out(Acc a) { return a; }                                                                  \
    };
HKR_UNSIGNED_SUM(HK_UINT8)
HKR_UNSIGNED_SUM(HK_UINT32)
HKR_UNSIGNED_SUM(HK_UINT64)
#undef HKR_UNSIGNED_SUM
template <> struct sum_types<HK_FLOAT16> {
    typedef float Acc;
    typedef uint16_t Out;
    static HK_DEVICE Out out(Acc a) { return dt<HK_FLOAT16>::store(a); }
};
template <> struct sum_types<HK_FLOAT32> {
    typedef float Acc;
    typedef float Out;
    static HK_DEVICE Out out(Acc a) { return a; }
};
template <> struct sum_types<HK_FLOAT64> {
    typedef double Acc;
    typedef double Out;
    static HK_DEVICE Out out(Acc a) { return a; }
};

// Mean dtype (MEAN VAR STD): float64 for bool and integers, float16 computed
// in float32, float32 in float32, float64 in float64.
template <hk_dtype D> struct mean_types {
    typedef double M;
    typedef double Out;
    static HK_DEVICE Out out(M v) { return v; }
};
template <> struct mean_types<HK_FLOAT16> {
    typedef float M;
    typedef uint16_t Out;
    static HK_DEVICE Out out(M v) { return dt<HK_FLOAT16>::store(v); }
};
template <> struct mean_types<HK_FLOAT32> {
    typedef float M;
    typedef float Out;
    static HK_DEVICE Out out(M v) { return v; }
};

// ------------------------------------------------------------------- ops

template <hk_dtype D> struct SumOp {
    typedef typename dt<D>::S In;
    typedef typename sum_types<D>::Acc Acc;
    typedef typename sum_types<D>::Out Out;
    HK_DEVICE Acc identity() const { return Acc(0); }
    HK_DEVICE Acc push(Acc a, In x, int64_t) const { return a + (Acc)dt<D>::load(x); }
    HK_DEVICE Acc merge(Acc a, Acc b) const { return a + b; }
    HK_DEVICE Out finish(Acc a) const { return sum_types<D>::out(a); }
};

template <hk_dtype D> struct ProdOp {
    typedef typename dt<D>::S In;
    typedef typename sum_types<D>::Acc Acc;
    typedef typename sum_types<D>::Out Out;
    HK_DEVICE Acc identity() const { return Acc(1); }
    HK_DEVICE Acc push(Acc a, In x, int64_t) const { return a * (Acc)dt<D>::load(x); }
    HK_DEVICE Acc merge(Acc a, Acc b) const { return a * b; }
    HK_DEVICE Out finish(Acc a) const { return sum_types<D>::out(a); }
};

// NaN-propagating minimum / maximum (a NaN operand wins).
template <hk_dtype D, bool IsMax> struct ExtremeOp {
    typedef typename dt<D>::S In;
    typedef typename dt<D>::C Acc;
    typedef typename dt<D>::S Out;
    HK_DEVICE Acc identity() const { return IsMax ? dt<D>::lowest() : dt<D>::highest(); }
    HK_DEVICE Acc merge(Acc a, Acc b) const
    {
        // b wins when it is NaN or strictly better; a NaN in a stays (comparisons with it are false).
        return (is_nan(b) || (IsMax ? b > a : b < a)) ? b : a;
    }
    HK_DEVICE Acc push(Acc a, In x, int64_t) const { return merge(a, dt<D>::load(x)); }
    HK_DEVICE Out finish(Acc a) const { return dt<D>::store(a); }
};

// (value, index) pairs; index -1 is the empty state. Preference: a NaN
// over any number, then the smaller (larger) value, then the smaller index.
template <typename C> struct ArgState {
    C v;
    int64_t i;
};
template <hk_dtype D, bool IsMax> struct ArgOp {
    typedef typename dt<D>::S In;
    typedef typename dt<D>::C C;
    typedef ArgState<C> Acc;
    typedef int64_t Out;
    static HK_DEVICE bool better(C xv, int64_t xi, C yv, int64_t yi)
    {
        if (xi < 0)
            return false;
        if (yi < 0)
            return true;
        const bool xn = is_nan(xv), yn = is_nan(yv);
        if (xn || yn)
            return xn && (!yn || xi < yi);
        if (IsMax ? xv > yv : xv < yv)
            return true;
        return xv == yv && xi < yi;
    }
    HK_DEVICE Acc identity() const
    {
        Acc a;
        a.v = C(0);
        a.i = -1;
        return a;
    }
    HK_DEVICE Acc merge(Acc a, Acc b) const { return better(b.v, b.i, a.v, a.i) ? b : a; }
    HK_DEVICE Acc push(Acc a, In x, int64_t i) const
    {
        const C c = dt<D>::load(x);
        if (better(c, i, a.v, a.i)) {
            a.v = c;
            a.i = i;
        }
        return a;
    }
    HK_DEVICE Out finish(Acc a) const { return a.i; }
};

// ANY, and ALL as not-any-zero: the state says "some element differs from
// what the op looks for". NaN is nonzero, -0.0 is zero.
template <hk_dtype D> struct AnyAllOp {
    typedef typename dt<D>::S In;
    typedef uint32_t Acc;
    typedef uint8_t Out;
    uint32_t all; // 0: ANY, 1: ALL
    HK_DEVICE Acc identity() const { return 0; }
    HK_DEVICE Acc push(Acc a, In x, int64_t) const
    {
        return a | ((uint32_t)(dt<D>::load(x) != typename dt<D>::C(0)) ^ all);
    }
    HK_DEVICE Acc merge(Acc a, Acc b) const { return a | b; }
    HK_DEVICE Out finish(Acc a) const { return (Out)(a ^ all); }
};

template <hk_dtype D> struct MeanOp {
    typedef typename dt<D>::S In;
    typedef typename mean_types<D>::M Acc;
    typedef typename mean_types<D>::Out Out;
    int64_t count;
    HK_DEVICE Acc identity() const { return Acc(0); }
    HK_DEVICE Acc push(Acc a, In x, int64_t) const { return a + (Acc)dt<D>::load(x); }
    HK_DEVICE Acc merge(Acc a, Acc b) const { return a + b; }
    HK_DEVICE Out finish(Acc a) const { return mean_types<D>::out(a / (Acc)count); } // 0/0: NaN
};

// Welford's update per element and Chan et al.'s merge of (n, mean, M2)
// states, in the mean dtype's accumulation precision.
template <typename M> struct MomentState {
    M mean;
    M m2;
    int64_t n;
};
template <hk_dtype D> struct VarOp {
    typedef typename dt<D>::S In;
    typedef typename mean_types<D>::M M;
    typedef MomentState<M> Acc;
    typedef typename mean_types<D>::Out Out;
    int ddof;
    uint32_t take_sqrt; // STD
    HK_DEVICE Acc identity() const
    {
        Acc a;
        a.mean = M(0);
        a.m2 = M(0);
        a.n = 0;
        return a;
    }
    HK_DEVICE Acc push(Acc a, In x, int64_t) const
    {
        const M v = (M)dt<D>::load(x);
        a.n += 1;
        const M d = v - a.mean;
        a.mean += d / (M)a.n;
        a.m2 += d * (v - a.mean);
        return a;
    }
    HK_DEVICE Acc merge(Acc a, Acc b) const
    {
        if (a.n == 0)
            return b;
        if (b.n == 0)
            return a;
        Acc r;
        r.n = a.n + b.n;
        const M d = b.mean - a.mean;
        const M fb = (M)b.n / (M)r.n;
        r.mean = a.mean + d * fb;
        r.m2 = a.m2 + b.m2 + d * d * (M)a.n * fb;
        return r;
    }
    HK_DEVICE Out finish(Acc a) const
    {
        M var;
        // NumPy's var is NaN as soon as an element is NaN or infinite (x - mean
        // gives inf - inf); a non-finite mean marks exactly that case.
        if (a.n == 0 || !(a.mean - a.mean == M(0))) {
            var = quiet_nan(M(0));
        } else {
            const int64_t dof = a.n - (int64_t)ddof;
            var = a.m2 / (dof > 0 ? (M)dof : M(0)); // x/0: inf, 0/0: nan, as NumPy
        }
        if (take_sqrt)
            var = square_root(var);
        return mean_types<D>::out(var);
    }
};

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
        w[k] = hk_shfl_down(w[k], delta);
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
template <class Op>
HK_DEVICE typename Op::Acc block_combine(const Op &op, typename Op::Acc v, typename Op::Acc *smem)
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

template <class Op>
HK_DEVICE typename Op::Acc combine(const Op &op, typename Op::Acc v, int G, typename Op::Acc *smem)
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
    for (int k = HK_MAX_DIMS - 1; k > 0; k--) {
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
    for (int k = HK_MAX_DIMS - 1; k >= 0; k--) {
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

constexpr int kBlock = 256;
constexpr int kUnroll = 4; // 16-byte loads in flight per thread and trip

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
    for (int64_t first = (int64_t)blockIdx.x * per_block; first < L.outputs;
         first += (int64_t)gridDim.x * per_block) {
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

// ------------------------------------------------------------------ planning

enum Kind { ROW_CONTIG, ROW_STRIDED, COLUMNS };

struct Plan {
    Kind kind;
    int G;          // row kernel: threads per item
    int64_t S;      // splits of the reduced extent (1: no second pass)
    int64_t chunk;  // reduced positions per split
    unsigned grid;  // row kernel blocks
    int W;          // column kernel: columns per thread (1 or 16 / sizeof(In))
    int bx, by;     // column kernel block
    int64_t VC;     // column vectors per outer position
    unsigned gx;    // column kernel blocks along x
    int fG;         // finalize: threads per output
    unsigned fgrid; // finalize blocks
};

inline int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}
inline int64_t pow2_at_least(int64_t v)
{
    int64_t p = 1;
    while (p < v)
        p *= 2;
    return p;
}
inline int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}
inline unsigned grid_cap(const hkk_launch *l, int64_t blocks)
{
    const int64_t cap = (int64_t)(l->multiprocessor_count > 0 ? l->multiprocessor_count : 1) * 32;
    return (unsigned)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
}

// Split [0, count) into S pieces of chunk positions (a multiple of `align`),
// none empty.
inline void split(int64_t count, int64_t want, int64_t align, int64_t *S, int64_t *chunk)
{
    if (count <= 0 || want <= 1) {
        *S = 1;
        *chunk = count > 0 ? count : 0;
        return;
    }
    int64_t c = ceil_div(ceil_div(count, want), align) * align;
    *chunk = c;
    *S = ceil_div(count, c);
}

// Blocks of one kernel resident on one multiprocessor (from the occupancy
// calculator), for each kernel the planner may choose.
struct Residency {
    int row_contig, row_strided, col_vector, col_scalar;
};

// Benchmark-only knobs for the column kernel's shape (bench/reduce_bench.c
// sweeps them; the defaults are what the planner uses): HIPKIT_REDUCE_COLUMN_BX
// (block threads across columns: a power of two, 1..256; default 32) and
// HIPKIT_REDUCE_COLUMN_WAVES (resident blocks' worth of splits to aim for, as
// a multiple of one wave: default 1). Read once by src/core/settings.c.
struct ColumnKnobs {
    int64_t bx;
    int64_t waves;
};
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

inline Plan make_plan(const hkk_launch *l, const hkk_reduce_layout *L, size_t in_size, const void *in,
                      const Residency &per_sm)
{
    Plan p;
    memset(&p, 0, sizeof p);
    const int64_t sms = l->multiprocessor_count > 0 ? l->multiprocessor_count : 1;
    const int64_t vw = (int64_t)(16 / in_size);
    const int last_red = L->red_ndim - 1;
    // Columns when the innermost kept dim runs faster through memory than the
    // innermost reduced one (a broadcast kept dim, stride 0, does not count).
    const int64_t kept_inner = L->kept_ndim > 0 ? L->kept_in[L->kept_ndim - 1] : 0;
    const bool columns = kept_inner > 0 && kept_inner < abs64(L->red_in[last_red]);
    // Splits fill at most one wave of resident blocks: a second, partial wave
    // would cost a whole block's time for a fraction of the work.
    if (columns) {
        p.kind = COLUMNS;
        const int inner = L->kept_ndim - 1;
        const int64_t C = L->kept_shape[inner];
        bool vec = L->kept_in[inner] == 1 && C >= vw && ((uintptr_t)in & 15u) == 0;
        for (int k = 0; k < inner; k++)
            vec = vec && L->kept_in[k] % vw == 0;
        for (int k = 0; k < L->red_ndim; k++)
            vec = vec && L->red_in[k] % vw == 0;
        p.W = vec ? (int)vw : 1;
        p.VC = ceil_div(C, p.W);
        const int64_t xwork = (L->outputs / C) * p.VC;
        const ColumnKnobs knobs = column_knobs(l);
        p.bx = (int)(pow2_at_least(xwork) < knobs.bx ? pow2_at_least(xwork) : knobs.bx);
        p.by = kBlock / p.bx;
        const int64_t bxs = ceil_div(xwork, p.bx);
        p.gx = grid_cap(l, bxs);
        const int64_t resident = sms * (vec ? per_sm.col_vector : per_sm.col_scalar) * knobs.waves;
        int64_t want = 1;
        if (bxs < resident) {
            want = resident / bxs;
            const int64_t most = ceil_div(L->count, (int64_t)p.by * kUnroll); // >= kUnroll rows per thread
            want = want < most ? want : most;
            want = want < 65535 ? want : 65535;
        }
        split(L->count, want, 1, &p.S, &p.chunk);
    } else {
        const bool contig = L->red_ndim == 1 && L->red_in[0] == 1;
        p.kind = contig ? ROW_CONTIG : ROW_STRIDED;
        const int64_t w = contig ? vw : 1;
        const int64_t V = ceil_div(L->count, w); // loads per reduction
        const int64_t resident = sms * (contig ? per_sm.row_contig : per_sm.row_strided);
        int64_t want = 1;
        if (V <= 64) {
            const int64_t g = pow2_at_least(ceil_div(V, 2));
            p.G = (int)(g < 1 ? 1 : g > 32 ? 32 : g);
        } else if (L->outputs * 32 >= resident * kBlock / 2) {
            // Outputs enough for a warp each to fill half the device: a warp
            // streams its whole row (no block-wide combine, no split pass).
            p.G = 32;
        } else {
            p.G = kBlock;
            if (L->outputs < resident) {
                want = resident / L->outputs;
                const int64_t most = ceil_div(V, (int64_t)kBlock * kUnroll); // >= kUnroll loads per thread
                want = want < most ? want : most;
            }
        }
        split(L->count, want, w, &p.S, &p.chunk);
        p.grid = grid_cap(l, ceil_div(L->outputs * p.S, kBlock / p.G));
    }
    if (p.S > 1) {
        p.fG = p.S <= 16 ? 1 : p.S <= 256 ? 32 : kBlock;
        p.fgrid = grid_cap(l, ceil_div(L->outputs, kBlock / p.fG));
    }
    return p;
}

template <class Op> size_t scratch_bytes(const Plan &p, const hkk_reduce_layout *L)
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

template <class Op> Residency residency()
{
    typedef typename Op::In In;
    Residency r;
    r.row_contig = blocks_per_sm(row_kernel<Op, true>);
    r.row_strided = blocks_per_sm(row_kernel<Op, false>);
    r.col_vector = blocks_per_sm(col_kernel<Op, (int)(16 / sizeof(In))>);
    r.col_scalar = blocks_per_sm(col_kernel<Op, 1>);
    return r;
}

template <class Op>
int run(const hkk_launch *l, const Op &op, const void *in_v, void *out_v, void *scratch,
        const hkk_reduce_layout *L, size_t *query, Plan *plan_used)
{
    typedef typename Op::In In;
    typedef typename Op::Out Out;
    typedef typename Op::Acc Acc;
    const Plan p = make_plan(l, L, sizeof(In), in_v, residency<Op>());
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
    if (p.kind == COLUMNS) {
        void (*kernel)(Op, const In *, Out *, Acc *, hkk_reduce_layout, int64_t, int64_t, int64_t) =
            p.W > 1 ? col_kernel<Op, (int)(16 / sizeof(In))> : col_kernel<Op, 1>;
        const dim3 grid(p.gx, (unsigned)p.S), block((unsigned)p.bx, (unsigned)p.by);
        HKR_LAUNCH(kernel, grid, block, stream, op, in, out, partial, *L, p.VC, p.S, p.chunk);
        po = 1;
        ps = L->outputs;
    } else {
        void (*kernel)(Op, const In *, Out *, Acc *, hkk_reduce_layout, int, int64_t, int64_t) =
            p.kind == ROW_CONTIG ? row_kernel<Op, true> : row_kernel<Op, false>;
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

// Calls FN<dtype>(args...) for the ten dtypes.
#define HKR_DISPATCH_DTYPE(dtype, FN, ...)                                                                             \
    switch (dtype) {                                                                                                   \
    case HK_BOOL: return FN<HK_BOOL>(__VA_ARGS__);                                                                     \
    case HK_INT8: return FN<HK_INT8>(__VA_ARGS__);                                                                     \
    case HK_UINT8: return FN<HK_UINT8>(__VA_ARGS__);                                                                   \
    case HK_INT32: return FN<HK_INT32>(__VA_ARGS__);                                                                   \
    case HK_UINT32: return FN<HK_UINT32>(__VA_ARGS__);                                                                 \
    case HK_INT64: return FN<HK_INT64>(__VA_ARGS__);                                                                   \
    case HK_UINT64: return FN<HK_UINT64>(__VA_ARGS__);                                                                 \
    case HK_FLOAT16: return FN<HK_FLOAT16>(__VA_ARGS__);                                                               \
    case HK_FLOAT32: return FN<HK_FLOAT32>(__VA_ARGS__);                                                               \
    case HK_FLOAT64: return FN<HK_FLOAT64>(__VA_ARGS__);                                                               \
    }                                                                                                                  \
    return (int)hipErrorInvalidValue;

// What every family entry point receives.
struct Call {
    const hkk_launch *l;
    const void *in;
    void *out;
    void *scratch;
    const hkk_reduce_layout *L;
    int ddof;
    size_t *query;
    Plan *plan_used; // the launch plan chosen (NULL: not wanted)
    template <class Op> int operator()(const Op &op) const
    {
        return run(l, op, in, out, scratch, L, query, plan_used);
    }
};

} // namespace
} // namespace hkr

#endif
