// cplx.h: how a complex number is stored: two R (float for complex64, double
// for complex128), the real part first, aligned to its whole size as C's
// float _Complex / double _Complex and NumPy's complex64 / complex128 are laid
// out (and as the vendors' cuFloatComplex / hipDoubleComplex). An aggregate,
// so it can sit in kernel arguments and unions. What the ops mean for it
// (arithmetic, the elementary functions) is common/complex.h.
#ifndef HIPKIT_CPLX_H
#define HIPKIT_CPLX_H

namespace hk_ops
{

template <typename R> struct alignas(2 * sizeof(R)) cplx {
    R re, im;
};

// number<T>::of(v): the value v (an integer or a real number) in T, for the skeletons' identities and
// counts: T(v) for the real types, v + 0i for complex ones. (HK_DEVICE comes from the includer.)
template <typename T> struct number {
    template <typename V> static HK_DEVICE T of(V v) { return T(v); }
};
template <typename R> struct number<cplx<R>> {
    template <typename V> static HK_DEVICE cplx<R> of(V v)
    {
        cplx<R> z = {R(v), R(0)};
        return z;
    }
};

} // namespace hk_ops

#endif
