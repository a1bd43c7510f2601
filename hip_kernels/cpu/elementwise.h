// elementwise.h: the CPU device's map skeleton for hk_elementwise and hk_fill, generic over the op
// signatures of elementwise/signature.h (the GPU kernels' own: same functors, same loads and stores).
// The call's coalesced layout is walked in runs along its innermost dimension (cpu/walk.h); a run
// where out has unit stride and every input unit stride or none (a broadcast value, a host scalar) is
// a tight loop the compiler vectorises, with each broadcast value loaded once; any other run steps
// through its strides. The ops are instantiated in HKC_EW_PARTS files by enum value modulo
// HKC_EW_PARTS (cpu/elementwise*.cpp), as the GPU's part_<k>.hip, so the build spreads over cores.
#ifndef HIPKIT_CPU_ELEMENTWISE_H
#define HIPKIT_CPU_ELEMENTWISE_H

#include <stdint.h>

#include <type_traits>

#include "cpu/cpu.h"
#include "cpu/walk.h"
#include "elementwise/signature.h"

#define HKC_EW_PARTS 4

namespace hkc
{

int ew_part_0(const hkk_ew_call *call);
int ew_part_1(const hkk_ew_call *call);
int ew_part_2(const hkk_ew_call *call);
int ew_part_3(const hkk_ew_call *call);

namespace ew
{

// Elements a thread takes at the least.
constexpr int64_t grain = 1 << 15;

template <class Sig> struct map {
    typedef typename Sig::op Op;
    typedef typename Sig::in0 In0;
    typedef typename Sig::in In;
    typedef typename Sig::out Out;
    typedef typename Sig::SO SO;
    typedef typename Sig::S0 S0;
    typedef typename Sig::S S;
    typedef typename Sig::C0 C0;
    typedef typename Sig::C C;
    static constexpr int A = Sig::arity;
    static constexpr int Ops = 1 + A;

    // One run's operands: out, then the inputs (a host scalar points at its stored copy, stride 0).
    struct run_ptrs {
        SO *out;
        const S0 *a;
        const S *b, *c;
    };

    static SO one(const Op &op, C0 a, C b, C c) { return Out::store(hk_ew::apply<A>::run(op, a, b, c)); }

    // A run with out unit-stride: input k an array of unit stride where bit k of Arrays is set, else
    // one value, loaded once.
    template <unsigned Arrays> static void unit_run(const run_ptrs &p, int64_t len)
    {
        const Op op;
        const C0 va = (Arrays & 1u) ? C0() : In0::load(p.a[0]);
        C vb = C(), vc = C();
        if constexpr (A >= 2)
            vb = (Arrays & 2u) ? C() : In::load(p.b[0]);
        if constexpr (A >= 3)
            vc = (Arrays & 4u) ? C() : In::load(p.c[0]);
        SO *out = p.out;
        if constexpr (Arrays == 0) {
            const SO r = one(op, va, vb, vc);
            for (int64_t i = 0; i < len; i++)
                out[i] = r;
        } else {
            const S0 *a = p.a;
            const S *b = p.b, *c = p.c;
            for (int64_t i = 0; i < len; i++) {
                C0 x = va;
                C y = vb, z = vc;
                if constexpr ((Arrays & 1u) != 0)
                    x = In0::load(a[i]);
                if constexpr ((Arrays & 2u) != 0)
                    y = In::load(b[i]);
                if constexpr ((Arrays & 4u) != 0)
                    z = In::load(c[i]);
                out[i] = one(op, x, y, z);
            }
        }
    }

    // Any other run: every operand through its innermost stride.
    static void strided_run(const run_ptrs &p, const int64_t *inner, int64_t len)
    {
        const Op op;
        for (int64_t i = 0; i < len; i++) {
            const C0 x = In0::load(p.a[i * inner[1]]);
            C y = C(), z = C();
            if constexpr (A >= 2)
                y = In::load(p.b[i * inner[2]]);
            if constexpr (A >= 3)
                z = In::load(p.c[i * inner[3]]);
            p.out[i * inner[0]] = one(op, x, y, z);
        }
    }

    static int run(const hkk_ew_call *call)
    {
        // Host scalars as stored values (their bytes, as the GPU's from_bits reads them).
        const S0 scalar0 = hk_ew::stored_from_bits<In0>(call->scalar[0]);
        const S scalar1 = hk_ew::stored_from_bits<In>(call->scalar[1]);
        const S scalar2 = hk_ew::stored_from_bits<In>(call->scalar[2]);
        const void *scalars[3] = {&scalar0, &scalar1, &scalar2};
        const void *base[4] = {call->out, nullptr, nullptr, nullptr};
        walk_layout<Ops> w;
        w.ndim = call->ndim;
        for (int d = 0; d < call->ndim; d++) {
            w.shape[d] = call->shape[d];
            w.strides[0][d] = call->strides[0][d];
        }
        for (int k = 0; k < A; k++) {
            const bool scalar = (call->scalar_mask >> k) & 1u;
            base[1 + k] = scalar ? scalars[k] : call->in[k];
            for (int d = 0; d < call->ndim; d++) // a scalar's strides may be unset (the contiguous path)
                w.strides[1 + k][d] = scalar ? 0 : call->strides[1 + k][d];
        }
        drop_still_dimensions(w); // hk_fill of a broadcast view writes each element once
        const int inner = w.ndim - 1;
        int64_t inner_strides[4] = {0, 0, 0, 0};
        bool unit = w.strides[0][inner] == 1;
        unsigned arrays = 0;
        for (int t = 0; t < Ops; t++) {
            inner_strides[t] = w.strides[t][inner];
            if (t > 0 && inner_strides[t] == 1)
                arrays |= 1u << (t - 1);
            else if (t > 0 && inner_strides[t] != 0)
                unit = false;
        }
        auto ptrs = [&](const int64_t *off) {
            run_ptrs p;
            p.out = static_cast<SO *>(const_cast<void *>(base[0])) + off[0];
            p.a = static_cast<const S0 *>(base[1]) + off[1];
            p.b = A >= 2 ? static_cast<const S *>(base[2]) + off[2] : nullptr;
            p.c = A >= 3 ? static_cast<const S *>(base[3]) + off[3] : nullptr;
            return p;
        };
        if (!unit) {
            walk_rows(w, grain, [&](const int64_t *off, int64_t len) { strided_run(ptrs(off), inner_strides, len); });
            return 0;
        }
        // The run kind, once per call: which inputs are arrays along the innermost dimension.
        switch (arrays) {
#define HKC_EW_UNIT(M)                                                                                                 \
    case M:                                                                                                            \
        if constexpr ((M >> A) == 0) {                                                                                 \
            walk_rows(w, grain, [&](const int64_t *off, int64_t len) { unit_run<M>(ptrs(off), len); });                \
            return 0;                                                                                                  \
        }                                                                                                              \
        break;
            HKC_EW_UNIT(0u)
            HKC_EW_UNIT(1u)
            HKC_EW_UNIT(2u)
            HKC_EW_UNIT(3u)
            HKC_EW_UNIT(4u)
            HKC_EW_UNIT(5u)
            HKC_EW_UNIT(6u)
            HKC_EW_UNIT(7u)
#undef HKC_EW_UNIT
        default: break;
        }
        return 1;
    }
};

// One op of the table (hk_ew::row) over the dtypes of its row.
template <class Row> int run_row(const hkk_ew_call *call)
{
    return hk_ew::dispatch_dtype<Row>(call->dtype, [&](auto sig) { return map<decltype(sig)>::run(call); });
}

// The ops of part Part (enum value modulo HKC_EW_PARTS); the body of each cpu/elementwise*.cpp.
template <int Part> int part(const hkk_ew_call *call)
{
    return hk_ew::switch_op<Part, HKC_EW_PARTS>(call->op, [&](auto row) { return run_row<decltype(row)>(call); });
}

} // namespace ew
} // namespace hkc

#endif
