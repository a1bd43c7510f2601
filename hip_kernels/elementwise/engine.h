// engine.h: the launch skeletons of hk_elementwise, generic over the op
// functors of common/ops.h and over dtypes (common/dtype_traits.h).
//  - ew_flat: every operand contiguous (or one broadcast value): a grid-stride
//    loop with 16-byte vector accesses where the pointers allow it.
//  - ew_strided: any coalesced N-d layout; coordinates come from the linear
//    index with multiply-high "magic" divisions (no hardware division), in
//    32-bit arithmetic whenever the element count and every operand's offsets
//    fit, 64-bit otherwise.
// Host scalars arrive by value; operands are loaded into the compute type,
// the functor runs, and the result is stored once in out's type.
#ifndef HIPKIT_ELEMENTWISE_ENGINE_H
#define HIPKIT_ELEMENTWISE_ENGINE_H

#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "common/launch.h"
#include "common/ops.h"
#include "elementwise/elementwise.h"
#include "elementwise/signature.h"
#include "gpu/device.h"

// The kernels are compiled in HKK_EW_PARTS files (part_<k>.hip), each taking
// the ops whose enum value is k modulo HKK_EW_PARTS, so the build spreads over
// cores; hkk_elementwise (part_0.hip) routes a call to its part.
#define HKK_EW_PARTS 4
int hkk_ew_part_0(const hkk_launch *launch, const hkk_ew_call *call);
int hkk_ew_part_1(const hkk_launch *launch, const hkk_ew_call *call);
int hkk_ew_part_2(const hkk_launch *launch, const hkk_ew_call *call);
int hkk_ew_part_3(const hkk_launch *launch, const hkk_ew_call *call);

namespace
{
namespace ew
{

using hk_ew::apply;
using hk_ew::from_bits;

// The op's signature (elementwise/signature.h) and the GPU's vector width: 16 bytes of the widest operand.
template <class Op, class In0, class In, int A> struct signature : hk_ew::signature<Op, In0, In, A> {
    typedef hk_ew::signature<Op, In0, In, A> base;
    typedef typename base::SO SO;
    typedef typename base::S0 S0;
    typedef typename base::S S;
    static constexpr size_t widest = sizeof(SO) > sizeof(S0)
                                         ? (A >= 2 && sizeof(S) > sizeof(SO) ? sizeof(S) : sizeof(SO))
                                         : (A >= 2 && sizeof(S) > sizeof(S0) ? sizeof(S) : sizeof(S0));
    // elements per vector access: 16 bytes of the widest operand
    static constexpr int W = (int)(16 / widest);
};

template <typename S, int W> struct alignas(sizeof(S) * W) vec {
    S v[W];
};

// ---- contiguous fast path
enum { MODE_ARRAY = 0, MODE_DEVICE_VALUE = 1, MODE_HOST_VALUE = 2 };

struct flat_args {
    void *out;
    const void *in[3];
    hkk_scalar scalar[3];
    int mode[3]; // MODE_*: element i at in[k][i], one value at in[k][0], or scalar[k]
    size_t n;
    size_t head; // vector path: elements before the first aligned vector; else n
    int vectorized;
};

template <class T> HK_DEVICE typename T::compute operand_value(const flat_args &p, int k)
{
    if (p.mode[k] == MODE_HOST_VALUE)
        return from_bits<T>(p.scalar[k]);
    if (p.mode[k] == MODE_DEVICE_VALUE)
        return T::load(static_cast<const typename T::stored *>(p.in[k])[0]);
    return typename T::compute();
}

template <class T, int W>
HK_DEVICE void load_vec(const flat_args &p, int k, size_t e, typename T::compute value, typename T::compute (&x)[W])
{
    if (p.mode[k] == MODE_ARRAY) {
        const vec<typename T::stored, W> v =
            *reinterpret_cast<const vec<typename T::stored, W> *>(static_cast<const typename T::stored *>(p.in[k]) + e);
#pragma unroll
        for (int j = 0; j < W; j++)
            x[j] = T::load(v.v[j]);
    } else {
#pragma unroll
        for (int j = 0; j < W; j++)
            x[j] = value;
    }
}

template <class T>
HK_DEVICE typename T::compute load_one(const flat_args &p, int k, size_t e, typename T::compute value)
{
    return p.mode[k] == MODE_ARRAY ? T::load(static_cast<const typename T::stored *>(p.in[k])[e]) : value;
}

template <class Op, class In0, class In, int A> __global__ void __launch_bounds__(HK_BLOCK) ew_flat(flat_args p)
{
    typedef signature<Op, In0, In, A> sig;
    typedef typename sig::out Out;
    typedef typename sig::SO SO;
    typedef typename In0::compute C0;
    typedef typename In::compute C;
    constexpr int W = sig::W;
    const Op op;
    const C0 v0 = operand_value<In0>(p, 0);
    const C v1 = A >= 2 ? operand_value<In>(p, 1) : C();
    const C v2 = A >= 3 ? operand_value<In>(p, 2) : C();
    SO *out = static_cast<SO *>(p.out);
    const size_t n = p.n, head = p.head, step = hk_grid_stride();
    size_t rest = n; // first element after the vectors
    if (p.vectorized) {
        const size_t nvec = (n - head) / W;
        for (size_t i = hk_global_index(); i < nvec; i += step) {
            const size_t e = head + i * W;
            C0 a[W];
            C b[W] = {}, c[W] = {}; // unused ones stay defined (and vanish)
            load_vec<In0, W>(p, 0, e, v0, a);
            if constexpr (A >= 2)
                load_vec<In, W>(p, 1, e, v1, b);
            if constexpr (A >= 3)
                load_vec<In, W>(p, 2, e, v2, c);
            vec<SO, W> r;
#pragma unroll
            for (int j = 0; j < W; j++)
                r.v[j] = Out::store(apply<A>::run(op, a[j], b[j], c[j]));
            *reinterpret_cast<vec<SO, W> *>(out + e) = r;
        }
        rest = head + nvec * W;
    }
    // The elements no vector covers: [0, head) and [rest, n) (all of them when not vectorized).
    const size_t left = head + (n - rest);
    for (size_t i = hk_global_index(); i < left; i += step) {
        const size_t e = i < head ? i : rest + (i - head);
        const C0 a = load_one<In0>(p, 0, e, v0);
        const C b = A >= 2 ? load_one<In>(p, 1, e, v1) : C();
        const C c = A >= 3 ? load_one<In>(p, 2, e, v2) : C();
        out[e] = Out::store(apply<A>::run(op, a, b, c));
    }
}

// ---- strided path: magic-number division (Granlund & Montgomery; the
// round-up variant PyTorch's IntDivider uses): for 1 <= d and n < 2^(N-1),
// n / d == (umulhi(n, m) + n) >> s with s = ceil(log2 d) and
// m = floor(2^N (2^s - d) / d) + 1, which fits N bits.
template <typename Index> struct divider {
    Index d, m;
    int s;
};
using hk_dev::mulhi;

template <typename Index, typename Offset> struct strided_args {
    void *out;
    const void *in[3];
    hkk_scalar scalar[3];
    unsigned scalar_mask;
    int ndim;
    Index n;
    divider<Index> div[HKK_MAX_DIMS]; // div[k].d == shape[k]; div[0] unused
    Offset strides[4][HKK_MAX_DIMS];  // [0]: out, [1 + k]: input k
};

template <class T, typename Offset>
HK_DEVICE typename T::compute load_at(const void *base, Offset offset, bool is_value, typename T::compute value)
{
    return is_value ? value : T::load(static_cast<const typename T::stored *>(base)[offset]);
}

template <class Op, class In0, class In, int A, typename Index, typename Offset>
__global__ void __launch_bounds__(HK_BLOCK) ew_strided(strided_args<Index, Offset> p)
{
    typedef signature<Op, In0, In, A> sig;
    typedef typename sig::out Out;
    typedef typename In0::compute C0;
    typedef typename In::compute C;
    const Op op;
    const bool s0 = p.scalar_mask & 1u, s1 = p.scalar_mask & 2u, s2 = p.scalar_mask & 4u;
    const C0 v0 = s0 ? from_bits<In0>(p.scalar[0]) : C0();
    const C v1 = A >= 2 && s1 ? from_bits<In>(p.scalar[1]) : C();
    const C v2 = A >= 3 && s2 ? from_bits<In>(p.scalar[2]) : C();
    typename sig::SO *out = static_cast<typename sig::SO *>(p.out);
    const Index step = (Index)hk_grid_stride();
    for (Index i = (Index)hk_global_index(); i < p.n; i += step) {
        Index rest = i;
        Offset o[4] = {0, 0, 0, 0};
#pragma unroll
        for (int k = HKK_MAX_DIMS - 1; k >= 1; k--) {
            if (k < p.ndim) {
                const Index q = (Index)((mulhi(rest, p.div[k].m) + rest) >> p.div[k].s);
                const Offset c = (Offset)(rest - q * p.div[k].d);
                rest = q;
#pragma unroll
                for (int t = 0; t <= A; t++)
                    o[t] += c * p.strides[t][k];
            }
        }
#pragma unroll
        for (int t = 0; t <= A; t++)
            o[t] += (Offset)rest * p.strides[t][0];
        const C0 a = load_at<In0>(p.in[0], o[1], s0, v0);
        const C b = A >= 2 ? load_at<In>(p.in[1], o[2], s1, v1) : C();
        const C c = A >= 3 ? load_at<In>(p.in[2], o[3], s2, v2) : C();
        out[o[0]] = Out::store(apply<A>::run(op, a, b, c));
    }
}

// ---- host side of the launch
template <typename Index> inline divider<Index> make_divider(Index d)
{
    divider<Index> r;
    r.d = d;
    r.s = 0;
    while (((Index)1 << r.s) < d)
        r.s++;
    constexpr int N = (int)(8 * sizeof(Index));
    typedef typename std::conditional<N == 32, uint64_t, unsigned __int128>::type Wide;
    r.m = (Index)(((((Wide)1) << N) * (((Wide)1 << r.s) - d)) / d + 1);
    return r;
}

// The contiguous path applies: one dimension, out unit-stride, every input
// unit-stride, one broadcast value or a host scalar.
inline bool flat_layout(const hkk_ew_call *c)
{
    if (c->ndim != 1 || c->strides[0][0] != 1)
        return false;
    for (int k = 0; k < c->n_inputs; k++)
        if (!(c->scalar_mask & (1u << k)) && c->strides[1 + k][0] != 0 && c->strides[1 + k][0] != 1)
            return false;
    return true;
}

// Whether 32-bit indices and offsets cover the call.
inline bool fits_32_bits(const hkk_ew_call *c)
{
    if (c->n > (size_t)INT32_MAX)
        return false;
    for (int t = 0; t <= c->n_inputs; t++) {
        uint64_t reach = 0; // largest |offset| from the base
        for (int k = 0; k < c->ndim; k++) {
            const int64_t s = c->strides[t][k];
            reach += (uint64_t)(s < 0 ? -s : s) * (uint64_t)(c->shape[k] - 1);
            if (reach > (uint64_t)INT32_MAX)
                return false;
        }
    }
    return true;
}

template <typename Index, typename Offset> inline strided_args<Index, Offset> make_strided(const hkk_ew_call *c)
{
    strided_args<Index, Offset> a;
    memset(&a, 0, sizeof a);
    a.out = c->out;
    for (int k = 0; k < 3; k++) {
        a.in[k] = k < c->n_inputs ? c->in[k] : nullptr;
        a.scalar[k] = c->scalar[k];
    }
    a.scalar_mask = c->scalar_mask;
    a.ndim = c->ndim;
    a.n = (Index)c->n;
    for (int k = 0; k < c->ndim; k++) {
        a.div[k] = make_divider<Index>((Index)c->shape[k]);
        for (int t = 0; t < 4; t++)
            a.strides[t][k] = t <= c->n_inputs ? (Offset)c->strides[t][k] : 0;
    }
    return a;
}

template <class Op, class In0, class In, int A> int run(const hkk_launch *l, const hkk_ew_call *c)
{
    typedef signature<Op, In0, In, A> sig;
    if (flat_layout(c)) {
        constexpr int W = sig::W;
        flat_args p;
        memset(&p, 0, sizeof p);
        p.out = c->out;
        p.n = c->n;
        for (int k = 0; k < A; k++) {
            p.in[k] = c->in[k];
            p.scalar[k] = c->scalar[k];
            p.mode[k] = (c->scalar_mask & (1u << k)) ? MODE_HOST_VALUE
                        : c->strides[1 + k][0] == 0  ? MODE_DEVICE_VALUE
                                                     : MODE_ARRAY;
        }
        // Vectors start where out is aligned to a whole vector; every array
        // input must then be aligned there too, else element by element.
        const size_t so = sizeof(typename sig::SO), out_bytes = so * W;
        size_t head = ((out_bytes - (uintptr_t)c->out % out_bytes) % out_bytes) / so;
        bool aligned = head < c->n && (uintptr_t)c->out % so == 0;
        for (int k = 0; k < A && aligned; k++) {
            if (p.mode[k] != MODE_ARRAY)
                continue;
            const size_t s = k == 0 ? sizeof(typename sig::S0) : sizeof(typename sig::S);
            aligned = ((uintptr_t)c->in[k] + head * s) % (s * W) == 0;
        }
        p.vectorized = aligned && c->n - head >= (size_t)W;
        p.head = p.vectorized ? head : c->n;
        const size_t work = p.vectorized ? (c->n - head) / W + W : c->n;
        return hk_launcher<ew_flat<Op, In0, In, A>>::launch(l, hk_grid_for(l, work, HK_BLOCK), HK_BLOCK, 0, p);
    }
    if (fits_32_bits(c))
        return hk_launcher<ew_strided<Op, In0, In, A, uint32_t, int32_t>>::launch(
            l, hk_grid_for(l, c->n, HK_BLOCK), HK_BLOCK, 0, make_strided<uint32_t, int32_t>(c));
    return hk_launcher<ew_strided<Op, In0, In, A, uint64_t, int64_t>>::launch(
        l, hk_grid_for(l, c->n, HK_BLOCK), HK_BLOCK, 0, make_strided<uint64_t, int64_t>(c));
}

// ---- one op of the table (hk_ew::row) over the dtypes of its row
template <class Row> int run_row(const hkk_launch *l, const hkk_ew_call *c)
{
    return hk_ew::dispatch_dtype<Row>(c->dtype, [&](auto s) {
        typedef decltype(s) S;
        return run<typename S::op, typename S::in0, typename S::in, S::arity>(l, c);
    });
}

} // namespace ew
} // namespace

#endif
