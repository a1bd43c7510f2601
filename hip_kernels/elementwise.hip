// elementwise.hip: fill, iota, axpy and the binary arithmetic ops. Op meaning
// per dtype is written once as functors; one grid-stride map skeleton runs them,
// with 16-byte vector accesses when every pointer allows it.
#include "gpu/gpu.h"
#include "common/hipkit_device.h"
#include "kernels.h"
#include "common/launch.h"

// Calls fn<T>(args...) for the four arithmetic dtypes of the foundation.
#define HK_DISPATCH_ARITHMETIC(dtype, fn, ...)                                                                         \
    switch (dtype) {                                                                                                   \
    case HK_FLOAT32: return fn<float>(__VA_ARGS__);                                                                    \
    case HK_FLOAT64: return fn<double>(__VA_ARGS__);                                                                   \
    case HK_INT32: return fn<int32_t>(__VA_ARGS__);                                                                    \
    case HK_INT64: return fn<int64_t>(__VA_ARGS__);                                                                    \
    default: return (int)hipErrorInvalidValue;                                                                         \
    }

// ---- integer semantics: two's complement wrap-around, computed unsigned so
// the C++ compiler sees no signed overflow.
template <typename T> struct hk_unsigned_of;
template <> struct hk_unsigned_of<int32_t> {
    typedef uint32_t type;
};
template <> struct hk_unsigned_of<int64_t> {
    typedef uint64_t type;
};

template <typename T> HK_DEVICE T hk_wrap_add(T a, T b)
{
    return a + b;
}
template <typename T> HK_DEVICE T hk_wrap_sub(T a, T b)
{
    return a - b;
}
template <typename T> HK_DEVICE T hk_wrap_mul(T a, T b)
{
    return a * b;
}
#define HK_WRAPPING_INT(T)                                                                                             \
    template <> HK_DEVICE T hk_wrap_add<T>(T a, T b)                                                                   \
    {                                                                                                                  \
        typedef hk_unsigned_of<T>::type U;                                                                             \
        return (T)((U)a + (U)b);                                                                                       \
    }                                                                                                                  \
    template <> HK_DEVICE T hk_wrap_sub<T>(T a, T b)                                                                   \
    {                                                                                                                  \
        typedef hk_unsigned_of<T>::type U;                                                                             \
        return (T)((U)a - (U)b);                                                                                       \
    }                                                                                                                  \
    template <> HK_DEVICE T hk_wrap_mul<T>(T a, T b)                                                                   \
    {                                                                                                                  \
        typedef hk_unsigned_of<T>::type U;                                                                             \
        return (T)((U)a * (U)b);                                                                                       \
    }
HK_WRAPPING_INT(int32_t)
HK_WRAPPING_INT(int64_t)

// Floats divide; integers floor-divide as NumPy's floor_divide does:
// x // 0 == 0 and MIN // -1 == MIN (wraps).
template <typename T> HK_DEVICE T hk_divide(T a, T b)
{
    return a / b;
}
#define HK_FLOOR_DIVIDE_INT(T)                                                                                         \
    template <> HK_DEVICE T hk_divide<T>(T a, T b)                                                                     \
    {                                                                                                                  \
        if (b == 0)                                                                                                    \
            return 0;                                                                                                  \
        if (b == -1)                                                                                                   \
            return hk_wrap_sub<T>(0, a);                                                                               \
        T q = a / b;                                                                                                   \
        if ((a % b != 0) && ((a < 0) != (b < 0)))                                                                      \
            q -= 1;                                                                                                    \
        return q;                                                                                                      \
    }
HK_FLOOR_DIVIDE_INT(int32_t)
HK_FLOOR_DIVIDE_INT(int64_t)

// start + i * step: float32 in double so large i stays exact, as NumPy's arange.
template <typename T> HK_DEVICE T hk_iota_value(T start, T step, size_t i)
{
    return start + (T)i * step;
}
template <> HK_DEVICE float hk_iota_value<float>(float start, float step, size_t i)
{
    return (float)((double)start + (double)i * (double)step);
}
#define HK_IOTA_INT(T)                                                                                                 \
    template <> HK_DEVICE T hk_iota_value<T>(T start, T step, size_t i)                                                \
    {                                                                                                                  \
        return hk_wrap_add<T>(start, hk_wrap_mul<T>((T)i, step));                                                      \
    }
HK_IOTA_INT(int32_t)
HK_IOTA_INT(int64_t)


namespace
{

// ---- op semantics (NumPy's): integer arithmetic wraps, floor division for ints
template <typename T> struct add_op {
    HK_DEVICE T operator()(T a, T b) const { return hk_wrap_add(a, b); }
};
template <typename T> struct subtract_op {
    HK_DEVICE T operator()(T a, T b) const { return hk_wrap_sub(a, b); }
};
template <typename T> struct multiply_op {
    HK_DEVICE T operator()(T a, T b) const { return hk_wrap_mul(a, b); }
};
template <typename T> struct divide_op {
    HK_DEVICE T operator()(T a, T b) const { return hk_divide(a, b); }
};
template <typename T> struct axpy_op {
    T alpha;
    HK_DEVICE T operator()(T x, T y) const { return hk_wrap_add(hk_wrap_mul(alpha, x), y); }
};

// ---- skeletons

template <typename T> struct alignas(16) vec16 {
    T v[16 / sizeof(T)];
};

template <typename T, typename Op> __global__ void map2_kernel(const T *a, const T *b, T *out, size_t n, Op op)
{
    for (size_t i = hk_global_index(); i < n; i += hk_grid_stride())
        out[i] = op(a[i], b[i]);
}

template <typename T, typename Op> __global__ void map2_vec_kernel(const T *a, const T *b, T *out, size_t n, Op op)
{
    constexpr int W = 16 / sizeof(T);
    const size_t nvec = n / W;
    const vec16<T> *va = reinterpret_cast<const vec16<T> *>(a);
    const vec16<T> *vb = reinterpret_cast<const vec16<T> *>(b);
    vec16<T> *vo = reinterpret_cast<vec16<T> *>(out);
    for (size_t i = hk_global_index(); i < nvec; i += hk_grid_stride()) {
        vec16<T> x = va[i], y = vb[i], r;
#pragma unroll
        for (int k = 0; k < W; k++)
            r.v[k] = op(x.v[k], y.v[k]);
        vo[i] = r;
    }
    for (size_t i = nvec * W + hk_global_index(); i < n; i += hk_grid_stride())
        out[i] = op(a[i], b[i]);
}

template <typename T> __global__ void fill_kernel(T *dst, size_t n, T value)
{
    for (size_t i = hk_global_index(); i < n; i += hk_grid_stride())
        dst[i] = value;
}

template <typename T> __global__ void iota_kernel(T *dst, size_t n, T start, T step)
{
    for (size_t i = hk_global_index(); i < n; i += hk_grid_stride())
        dst[i] = hk_iota_value(start, step, i);
}

template <typename T, typename Op>
int map2(const hkk_launch *l, const void *a, const void *b, void *out, size_t n, Op op)
{
    const T *pa = static_cast<const T *>(a), *pb = static_cast<const T *>(b);
    T *po = static_cast<T *>(out);
    if (hk_aligned16(a) && hk_aligned16(b) && hk_aligned16(out))
        return hk_launcher<map2_vec_kernel<T, Op>>::launch(l, hk_grid_for(l, n / (16 / sizeof(T)) + 1, HK_BLOCK),
                                                           HK_BLOCK, 0, pa, pb, po, n, op);
    return hk_launcher<map2_kernel<T, Op>>::launch(l, hk_grid_for(l, n, HK_BLOCK), HK_BLOCK, 0, pa, pb, po, n, op);
}

template <typename T>
int binary_typed(const hkk_launch *l, hk_binary_op op, const void *a, const void *b, void *out, size_t n)
{
    switch (op) {
    case HK_ADD: return map2<T>(l, a, b, out, n, add_op<T>{});
    case HK_SUBTRACT: return map2<T>(l, a, b, out, n, subtract_op<T>{});
    case HK_MULTIPLY: return map2<T>(l, a, b, out, n, multiply_op<T>{});
    case HK_DIVIDE: return map2<T>(l, a, b, out, n, divide_op<T>{});
    }
    return hipErrorInvalidValue;
}

template <typename T> int fill_typed(const hkk_launch *l, void *dst, size_t n, const void *value)
{
    return hk_launcher<fill_kernel<T>>::launch(l, hk_grid_for(l, n, HK_BLOCK), HK_BLOCK, 0, static_cast<T *>(dst), n,
                                               *static_cast<const T *>(value));
}

template <typename T> int iota_typed(const hkk_launch *l, void *dst, size_t n, const void *start, const void *step)
{
    return hk_launcher<iota_kernel<T>>::launch(l, hk_grid_for(l, n, HK_BLOCK), HK_BLOCK, 0, static_cast<T *>(dst), n,
                                               *static_cast<const T *>(start), *static_cast<const T *>(step));
}

template <typename T> int axpy_typed(const hkk_launch *l, size_t n, const void *alpha, const void *x, void *y)
{
    return map2<T>(l, x, y, y, n, axpy_op<T>{*static_cast<const T *>(alpha)});
}

} // namespace

extern "C" int hkk_binary(const hkk_launch *l, hk_binary_op op, hk_dtype dtype, size_t n, const void *a, const void *b,
                          void *out)
{
    HK_DISPATCH_ARITHMETIC(dtype, binary_typed, l, op, a, b, out, n);
}

extern "C" int hkk_fill(const hkk_launch *l, hk_dtype dtype, void *dst, size_t n, const void *value)
{
    HK_DISPATCH_ARITHMETIC(dtype, fill_typed, l, dst, n, value);
}

extern "C" int hkk_iota(const hkk_launch *l, hk_dtype dtype, void *dst, size_t n, const void *start, const void *step)
{
    HK_DISPATCH_ARITHMETIC(dtype, iota_typed, l, dst, n, start, step);
}

extern "C" int hkk_axpy(const hkk_launch *l, hk_dtype dtype, size_t n, const void *alpha, const void *x, void *y)
{
    HK_DISPATCH_ARITHMETIC(dtype, axpy_typed, l, n, alpha, x, y);
}
