// test_elementwise.cpp: hk_elementwise (NumPy's ufuncs over strided views)
// against a CPU reference written here from NumPy's documented semantics:
// every op x every dtype on fresh random data (NaN, inf, -0.0, integer
// extremes), awkward sizes, broadcasting, host scalars on either side,
// 0-d device inputs, transposed, reversed and strided views, in place, with
// the output poisoned; NumPy's known answers for the tricky cases; 64-bit
// indexing; and, without a GPU, every validation error.
#include "common.h"
#include "views.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace
{

// ------------------------------------------------------------------ basics

// The real dtypes (complex numbers: test_new_dtypes.cpp, against std::complex).
constexpr hk_dtype kDtypes[] = {HK_BOOL,   HK_INT8,  HK_UINT8,  HK_INT16,   HK_UINT16,  HK_INT32,
                                HK_UINT32, HK_INT64, HK_UINT64, HK_FLOAT16, HK_FLOAT32, HK_FLOAT64};

size_t dsize(hk_dtype d)
{
    size_t s = 0;
    EXPECT_EQ(hk_dtype_size(d, &s), HK_SUCCESS);
    return s;
}

// Each op's arity, dtypes and result dtype: its row of the op table (hk_op_get_info), the public contract.
// What the op computes is checked against the references below, written here independently.
hk_op_info row(hk_op op)
{
    hk_op_info info{};
    EXPECT_EQ(hk_op_get_info(op, &info), HK_SUCCESS);
    return info;
}

bool supported(hk_op op, hk_dtype t)
{
    return (row(op).dtypes >> t) & 1u;
}

int arity(hk_op op)
{
    return row(op).arity;
}

bool gives_bool(hk_op op)
{
    const hk_op_rule r = row(op).rule;
    return r == HK_RULE_TO_BOOL || r == HK_RULE_FLOAT_TO_BOOL;
}

hk_dtype input_dtype(hk_op op, hk_dtype t, int k)
{
    return row(op).rule == HK_RULE_WHERE && k == 0 ? HK_BOOL : t;
}

hk_dtype output_dtype(hk_op op, hk_dtype t)
{
    return gives_bool(op) ? HK_BOOL : t;
}

// Transcendental ops: compared within a few units in the last place (the rest must be exact).
bool approximate(hk_op op)
{
    switch (op) {
    case HK_OP_POWER:
    case HK_OP_EXP:
    case HK_OP_LOG:
    case HK_OP_LOG2:
    case HK_OP_LOG10:
    case HK_OP_LOG1P:
    case HK_OP_EXPM1:
    case HK_OP_SIN:
    case HK_OP_COS:
    case HK_OP_TAN:
    case HK_OP_SINH:
    case HK_OP_COSH:
    case HK_OP_TANH:
    case HK_OP_ARCSIN:
    case HK_OP_ARCCOS:
    case HK_OP_ARCTAN:
    case HK_OP_ARCSINH:
    case HK_OP_ARCCOSH:
    case HK_OP_ARCTANH:
    case HK_OP_ARCTAN2:
    case HK_OP_HYPOT:
    case HK_OP_LOGADDEXP:
    case HK_OP_ERF: return true;
    default: return false;
    }
}

using hktest::view; // tests/c/views.h
using hktest::walk;

hk_array host_scalar(const void *value, hk_dtype dtype)
{
    hk_array a{};
    a.data = const_cast<void *>(value);
    a.dtype = dtype;
    a.ndim = HK_HOST_SCALAR;
    return a;
}

// Calls f(T()) with T the host type of a dtype (_Float16 is GCC's IEEE half).
template <typename F> void with_type(hk_dtype d, F &&f)
{
    switch (d) {
    case HK_BOOL: f(bool()); break;
    case HK_INT8: f(int8_t()); break;
    case HK_UINT8: f(uint8_t()); break;
    case HK_INT32: f(int32_t()); break;
    case HK_UINT32: f(uint32_t()); break;
    case HK_INT64: f(int64_t()); break;
    case HK_UINT64: f(uint64_t()); break;
    case HK_FLOAT16: f(_Float16()); break;
    case HK_FLOAT32: f(float()); break;
    case HK_FLOAT64: f(double()); break;
    case HK_INT16: f(int16_t()); break;
    case HK_UINT16: f(uint16_t()); break;
    case HK_COMPLEX64:
    case HK_COMPLEX128: break; // not in kDtypes
    }
}

template <typename T> constexpr bool is_fp = std::is_floating_point_v<T> || std::is_same_v<T, _Float16>;
template <typename T> using Compute = std::conditional_t<std::is_same_v<T, _Float16>, float, T>;

template <typename T> T read(const void *p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

template <typename T> std::string show_value(T v)
{
    std::ostringstream out;
    if constexpr (std::is_same_v<T, bool>)
        out << (v ? "true" : "false");
    else if constexpr (is_fp<T>)
        out << std::setprecision(17) << static_cast<double>(v);
    else
        out << +v;
    return out.str();
}

std::string show_element(hk_dtype d, const void *p)
{
    std::string s;
    with_type(d, [&](auto t) {
        using T = decltype(t);
        if constexpr (std::is_same_v<T, bool>) {
            uint8_t byte = read<uint8_t>(p); // show a stray byte as it is
            s = byte == 0 ? "false" : byte == 1 ? "true" : "byte " + std::to_string(byte);
        } else {
            s = show_value(read<T>(p));
        }
    });
    return s;
}

// ------------------------------------------------------------- random data

// Floats: mostly [-10, 10], plus small integers (so equality and integral
// powers happen), NaN, +-inf, +-0.0, huge and tiny magnitudes. Integers: the
// extremes (MIN, MAX, 0, -1, 1), small values and full-range bits.
template <typename T> T random_value(std::mt19937_64 &rng)
{
    std::uniform_int_distribution<int> pick(0, 99);
    const int r = pick(rng);
    if constexpr (std::is_same_v<T, bool>) {
        return r < 50;
    } else if constexpr (is_fp<T>) {
        const double huge = std::is_same_v<T, _Float16> ? 60000.0 : std::is_same_v<T, float> ? 1e30 : 1e300;
        const double tiny = std::is_same_v<T, _Float16> ? 1e-5 : std::is_same_v<T, float> ? 1e-30 : 1e-300;
        std::uniform_real_distribution<double> wide(-10.0, 10.0);
        std::uniform_int_distribution<int> small(-4, 4);
        const double sign = (rng() & 1) ? -1.0 : 1.0;
        double x;
        if (r < 60)
            x = wide(rng);
        else if (r < 75)
            x = small(rng);
        else if (r < 78)
            x = std::nan("");
        else if (r < 81)
            x = INFINITY;
        else if (r < 84)
            x = -INFINITY;
        else if (r < 87)
            x = 0.0;
        else if (r < 90)
            x = -0.0;
        else if (r < 95)
            x = sign * huge * (1.0 + wide(rng) / 20.0);
        else
            x = sign * tiny * (1.0 + wide(rng) / 20.0);
        return static_cast<T>(x);
    } else {
        typedef std::numeric_limits<T> lim;
        if (r < 12) {
            const T extremes[] = {lim::min(), lim::max(),         T(0),
                                  T(1),       static_cast<T>(-1), static_cast<T>(lim::min() + 1)};
            return extremes[static_cast<size_t>(r) % 6];
        }
        if (r < 56) {
            std::uniform_int_distribution<int> small(std::is_signed_v<T> ? -20 : 0, 20);
            return static_cast<T>(small(rng));
        }
        return static_cast<T>(rng());
    }
}

void fill_random(hk_dtype d, void *dst, size_t n, std::mt19937_64 &rng)
{
    with_type(d, [&](auto t) {
        using T = decltype(t);
        for (size_t i = 0; i < n; i++) {
            T v = random_value<T>(rng);
            std::memcpy(static_cast<char *>(dst) + i * sizeof(T), &v, sizeof(T));
        }
    });
}

// ----------------------------------------------------------- CPU reference

template <typename C> bool truth(C x)
{
    if constexpr (std::is_same_v<C, bool>)
        return x;
    else
        return x != C(0);
}

// Python's (and NumPy's) float floor division and modulo, in the type C
// NumPy computes in (float for float16).
template <typename C> C py_floordiv(C a, C b, C *mod_out)
{
    C mod = std::fmod(a, b);
    if (b == C(0)) {
        *mod_out = mod;
        return a / b;
    }
    C div = (a - mod) / b;
    if (mod != C(0)) {
        if ((b < C(0)) != (mod < C(0))) {
            mod += b;
            div -= C(1);
        }
    } else {
        mod = std::copysign(C(0), b);
    }
    C floordiv;
    if (div != C(0)) {
        floordiv = std::floor(div);
        if (div - floordiv > C(0.5))
            floordiv += C(1);
    } else {
        floordiv = std::copysign(C(0), a / b);
    }
    *mod_out = mod;
    return floordiv;
}

// Integers through 128-bit arithmetic, wrapped to T's width at the end.
template <typename T> T wrap(unsigned __int128 v)
{
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v));
}
template <typename T> unsigned __int128 widen(T v)
{
    return static_cast<unsigned __int128>(static_cast<__int128>(v));
}

template <typename T> T ref_value(hk_op op, T a, T b, T c)
{
    if constexpr (std::is_same_v<T, bool>) {
        switch (op) {
        case HK_OP_ADD:
        case HK_OP_MAXIMUM:
        case HK_OP_BITWISE_OR: return a || b;
        case HK_OP_MULTIPLY:
        case HK_OP_MINIMUM:
        case HK_OP_BITWISE_AND: return a && b;
        case HK_OP_BITWISE_XOR: return a != b;
        case HK_OP_CLIP: return (a || b) && c;
        case HK_OP_BITWISE_INVERT: return !a;
        case HK_OP_ABSOLUTE:
        case HK_OP_FLOOR:
        case HK_OP_CEIL:
        case HK_OP_RINT:
        case HK_OP_TRUNC:
        case HK_OP_CONJ:
        case HK_OP_REAL: return a;
        case HK_OP_IMAG: return false;
        default: break;
        }
    } else if constexpr (is_fp<T>) {
        using C = Compute<T>;
        const C x = static_cast<C>(a), y = static_cast<C>(b), z = static_cast<C>(c);
        const long double lx = x, ly = y;
        auto nan_min = [](C p, C q) { return std::isnan(p) || std::isnan(q) ? C(NAN) : (p <= q ? p : q); };
        auto nan_max = [](C p, C q) { return std::isnan(p) || std::isnan(q) ? C(NAN) : (p >= q ? p : q); };
        C mod;
        switch (op) {
        case HK_OP_ADD: return static_cast<T>(x + y);
        case HK_OP_SUBTRACT: return static_cast<T>(x - y);
        case HK_OP_MULTIPLY: return static_cast<T>(x * y);
        case HK_OP_DIVIDE: return static_cast<T>(x / y);
        case HK_OP_FLOOR_DIVIDE: // +-inf // finite non-zero: +-inf, finite // +-inf: the signed zero x / y (the
                                 // array API; Python and NumPy 2.4: NaN, and -1.0 for -1.0 // inf)
            if (std::isfinite(x) && std::isinf(y))
                return static_cast<T>(x / y);
            if (std::isinf(x) && std::isfinite(y) && y != C(0))
                return static_cast<T>(x / y);
            return static_cast<T>(py_floordiv(x, y, &mod));
        case HK_OP_REMAINDER: py_floordiv(x, y, &mod); return static_cast<T>(mod);
        case HK_OP_POWER: return static_cast<T>(std::pow(lx, ly));
        case HK_OP_MINIMUM: return static_cast<T>(nan_min(x, y));
        case HK_OP_MAXIMUM: return static_cast<T>(nan_max(x, y));
        case HK_OP_CLIP: return static_cast<T>(nan_min(nan_max(x, y), z));
        case HK_OP_NEGATIVE: return static_cast<T>(-x);
        case HK_OP_ABSOLUTE: return static_cast<T>(std::fabs(x));
        case HK_OP_EXP: return static_cast<T>(std::exp(lx));
        case HK_OP_LOG: return static_cast<T>(std::log(lx));
        case HK_OP_LOG2: return static_cast<T>(std::log2(lx));
        case HK_OP_LOG1P: return static_cast<T>(std::log1p(lx));
        case HK_OP_EXPM1: return static_cast<T>(std::expm1(lx));
        case HK_OP_SQRT: return static_cast<T>(std::sqrt(x));
        case HK_OP_SIN: return static_cast<T>(std::sin(lx));
        case HK_OP_COS: return static_cast<T>(std::cos(lx));
        case HK_OP_TAN: return static_cast<T>(std::tan(lx));
        case HK_OP_TANH: return static_cast<T>(std::tanh(lx));
        case HK_OP_ERF: return static_cast<T>(std::erf(lx));
        case HK_OP_FLOOR: return static_cast<T>(std::floor(x));
        case HK_OP_CEIL: return static_cast<T>(std::ceil(x));
        case HK_OP_RINT: return static_cast<T>(std::rint(x)); // default rounding: half to even
        case HK_OP_TRUNC: return static_cast<T>(std::trunc(x));
        case HK_OP_LOG10: return static_cast<T>(std::log10(lx));
        case HK_OP_SINH: return static_cast<T>(std::sinh(lx));
        case HK_OP_COSH: return static_cast<T>(std::cosh(lx));
        case HK_OP_ARCSIN: return static_cast<T>(std::asin(lx));
        case HK_OP_ARCCOS: return static_cast<T>(std::acos(lx));
        case HK_OP_ARCTAN: return static_cast<T>(std::atan(lx));
        case HK_OP_ARCSINH: return static_cast<T>(std::asinh(lx));
        case HK_OP_ARCCOSH: return static_cast<T>(std::acosh(lx));
        case HK_OP_ARCTANH: return static_cast<T>(std::atanh(lx));
        case HK_OP_ARCTAN2: return static_cast<T>(std::atan2(lx, ly));
        case HK_OP_HYPOT: return static_cast<T>(std::hypot(lx, ly));
        case HK_OP_COPYSIGN: return static_cast<T>(std::copysign(x, y));
        case HK_OP_FMOD: return static_cast<T>(std::fmod(x, y));
        case HK_OP_LOGADDEXP: { // log(e^x + e^y) without overflow; equal infinities stay
            if (std::isnan(lx) || std::isnan(ly))
                return static_cast<T>(NAN);
            if (lx == ly)
                return static_cast<T>(lx + std::log(2.0L));
            const long double hi = std::fmax(lx, ly), lo = std::fmin(lx, ly);
            return static_cast<T>(hi + std::log1p(std::exp(lo - hi)));
        }
        case HK_OP_SIGN: return static_cast<T>(std::isnan(x) ? x : x > C(0) ? C(1) : x < C(0) ? C(-1) : C(0));
        case HK_OP_RECIPROCAL: return static_cast<T>(C(1) / x);
        case HK_OP_SQUARE: return static_cast<T>(x * x);
        case HK_OP_CONJ:
        case HK_OP_REAL: return a;
        case HK_OP_IMAG: return T(0);
        case HK_OP_NEXTAFTER: // float32 and float64 only: the table's
            if constexpr (std::is_same_v<T, _Float16>)
                break;
            else
                return std::nextafter(a, b);
        default: break;
        }
    } else {
        const unsigned __int128 x = widen(a), y = widen(b);
        const __int128 sx = static_cast<__int128>(a), sy = static_cast<__int128>(b);
        switch (op) {
        case HK_OP_ADD: return wrap<T>(x + y);
        case HK_OP_SUBTRACT: return wrap<T>(x - y);
        case HK_OP_MULTIPLY: return wrap<T>(x * y);
        case HK_OP_FLOOR_DIVIDE:
        case HK_OP_REMAINDER: {
            if (b == 0)
                return 0;
            __int128 q = sx / sy; // exact in 128 bits, then floored
            if (sx % sy != 0 && ((sx < 0) != (sy < 0)))
                q -= 1;
            return op == HK_OP_FLOOR_DIVIDE ? wrap<T>(static_cast<unsigned __int128>(q))
                                            : static_cast<T>(sx - q * sy); // in range: |r| < |b|
        }
        case HK_OP_POWER: {
            if (sy < 0)
                return a == 1 ? T(1) : sx == -1 ? static_cast<T>((b % 2) ? -1 : 1) : T(0);
            uint64_t base = static_cast<uint64_t>(a), e = static_cast<uint64_t>(b), r = 1;
            for (; e; e >>= 1, base *= base)
                if (e & 1)
                    r *= base;
            return wrap<T>(r); // mod 2^64, then mod 2^bits
        }
        case HK_OP_MINIMUM: return a <= b ? a : b;
        case HK_OP_MAXIMUM: return a >= b ? a : b;
        case HK_OP_CLIP: {
            T m = a >= b ? a : b;
            return m <= c ? m : c;
        }
        case HK_OP_BITWISE_AND: return static_cast<T>(a & b);
        case HK_OP_BITWISE_OR: return static_cast<T>(a | b);
        case HK_OP_BITWISE_XOR: return static_cast<T>(a ^ b);
        case HK_OP_BITWISE_INVERT: return static_cast<T>(~a);
        case HK_OP_NEGATIVE: return wrap<T>(0 - x);
        case HK_OP_ABSOLUTE: return sx < 0 ? wrap<T>(0 - x) : a;
        case HK_OP_FLOOR:
        case HK_OP_CEIL:
        case HK_OP_RINT:
        case HK_OP_TRUNC: return a;
        case HK_OP_SIGN: return static_cast<T>(sx > 0 ? 1 : sx < 0 ? -1 : 0);
        case HK_OP_RECIPROCAL: return sx == 0 ? T(0) : static_cast<T>(1 / sx); // truncated; 1 / 0 gives 0
        case HK_OP_SQUARE: return wrap<T>(x * x);
        case HK_OP_CONJ:
        case HK_OP_REAL: return a;
        case HK_OP_IMAG: return T(0);
        case HK_OP_FMOD: return sy == 0 ? T(0) : static_cast<T>(sx % sy); // the dividend's sign
        case HK_OP_LEFT_SHIFT:
        case HK_OP_RIGHT_SHIFT: {
            constexpr __int128 bits = 8 * sizeof(T);
            if (sy < 0 || sy >= bits) // every bit shifted out
                return op == HK_OP_LEFT_SHIFT || sx >= 0 ? T(0) : static_cast<T>(-1);
            return op == HK_OP_LEFT_SHIFT ? wrap<T>(x << static_cast<int>(sy))
                                          : static_cast<T>(sx >> static_cast<int>(sy)); // arithmetic
        }
        default: break;
        }
    }
    ADD_FAILURE() << "no reference for " << hk_op_name(op);
    return T();
}

template <typename T> bool ref_bool(hk_op op, T a, T b)
{
    using C = Compute<T>;
    const C x = static_cast<C>(a), y = static_cast<C>(b);
    switch (op) {
    case HK_OP_EQUAL: return x == y;
    case HK_OP_NOT_EQUAL: return x != y;
    case HK_OP_LESS: return x < y;
    case HK_OP_LESS_EQUAL: return x <= y;
    case HK_OP_GREATER: return x > y;
    case HK_OP_GREATER_EQUAL: return x >= y;
    case HK_OP_LOGICAL_AND: return truth(x) && truth(y);
    case HK_OP_LOGICAL_OR: return truth(x) || truth(y);
    case HK_OP_LOGICAL_XOR: return truth(x) != truth(y);
    case HK_OP_LOGICAL_NOT: return !truth(x);
    case HK_OP_ISNAN:
        if constexpr (is_fp<T>)
            return std::isnan(x);
        return false;
    case HK_OP_ISINF:
        if constexpr (is_fp<T>)
            return std::isinf(x);
        return false;
    case HK_OP_ISFINITE:
        if constexpr (is_fp<T>)
            return std::isfinite(x);
        return true;
    case HK_OP_SIGNBIT:
        if constexpr (is_fp<T>)
            return std::signbit(x);
        break;
    default: break;
    }
    ADD_FAILURE() << "no boolean reference for " << hk_op_name(op);
    return false;
}

// Units in the last place allowed for the transcendental ops: the vendors'
// float and double math is within 4 ulp (CUDA's documented bounds); float16
// is computed in float32, so only the final rounding may differ.
template <typename T> double allowed_ulps()
{
    return std::is_same_v<T, _Float16> ? 1.0 : 8.0;
}

template <typename T> double ulp_at(double x)
{
    constexpr int digits = std::is_same_v<T, _Float16> ? 11 : std::numeric_limits<T>::digits;
    constexpr int min_exponent = std::is_same_v<T, _Float16> ? -14 : std::numeric_limits<T>::min_exponent - 1;
    int e = std::ilogb(x == 0 ? 1e-300 : x);
    if (e < min_exponent)
        e = min_exponent; // subnormal spacing
    return std::ldexp(1.0, e - (digits - 1));
}

template <typename T> double largest_finite()
{
    return std::is_same_v<T, _Float16> ? 65504.0 : static_cast<double>(std::numeric_limits<T>::max());
}

// Does `got` match `want`? NaN only matches NaN; zeros must agree in sign. Approximate ops may be off by a
// few ulp of the larger of |want| and `scale` (logaddexp: of its inputs, whose sum cancels near 0).
template <typename T> bool matches(hk_op op, T got, T want, double scale = 0.0)
{
    if constexpr (is_fp<T>) {
        const double g = static_cast<double>(got), w = static_cast<double>(want);
        if (std::isnan(g) || std::isnan(w))
            return std::isnan(g) && std::isnan(w);
        if (g == 0 && w == 0)
            return std::signbit(g) == std::signbit(w);
        if (g == w)
            return true;
        if (!approximate(op))
            return false;
        if (std::isinf(g) || std::isinf(w)) // rounding at the edge of the range
            return std::signbit(g) == std::signbit(w) && std::fabs(std::isinf(g) ? w : g) == largest_finite<T>();
        return std::fabs(g - w) <= allowed_ulps<T>() * ulp_at<T>(std::fmax(std::fabs(w), scale));
    } else {
        return got == want;
    }
}

// Empty when out's element `got` is right for inputs at in[0..2]; else why not.
std::string check_element(hk_op op, hk_dtype t, const void *const in[3], const void *got)
{
    std::string why;
    with_type(t, [&](auto tag) {
        using T = decltype(tag);
        const int a = arity(op);
        std::string inputs;
        for (int k = 0; k < a; k++)
            inputs += (k ? ", " : "") + show_element(input_dtype(op, t, k), in[k]);
        if (op == HK_OP_WHERE) { // values move as they are, bit for bit
            const bool cond = read<uint8_t>(in[0]) != 0;
            const void *want = cond ? in[1] : in[2];
            if (std::memcmp(got, want, sizeof(T)) != 0)
                why = "where(" + inputs + ") gave " + show_element(t, got) + ", expected " + show_element(t, want);
            return;
        }
        const T x = read<T>(in[0]);
        const T y = a >= 2 ? read<T>(in[1]) : T();
        const T z = a >= 3 ? read<T>(in[2]) : T();
        if (gives_bool(op)) {
            const uint8_t byte = read<uint8_t>(got);
            const bool want = ref_bool<T>(op, x, y);
            if (byte != (want ? 1 : 0))
                why = std::string(hk_op_name(op)) + "(" + inputs + ") gave " + show_element(HK_BOOL, got) +
                      ", expected " + show_value(want);
            return;
        }
        const T want = ref_value<T>(op, x, y, z);
        if constexpr (std::is_same_v<T, bool>) { // a byte other than 0 or 1 is wrong too
            if (read<uint8_t>(got) != (want ? 1 : 0))
                why = std::string(hk_op_name(op)) + "(" + inputs + ") gave " + show_element(HK_BOOL, got) +
                      ", expected " + show_value(want);
            return;
        }
        const T g = read<T>(got);
        double scale = 0.0;
        if constexpr (is_fp<T>)
            if (op == HK_OP_LOGADDEXP)
                scale = std::fmax(std::fabs(static_cast<double>(x)), std::fabs(static_cast<double>(y)));
        if (!matches(op, g, want, scale))
            why = std::string(hk_op_name(op)) + "(" + inputs + ") gave " + show_value(g) + ", expected " +
                  show_value(want);
    });
    return why;
}

// ---------------------------------------------------------- test scenarios

enum class Kind { Array, HostScalar, SameAsOut };

// One operand: a view into its own buffer, or a host scalar, or (inputs
// only) the very view out is (in place).
struct Operand {
    Kind kind = Kind::Array;
    std::vector<int64_t> shape, strides; // strides empty: C-contiguous
    int64_t offset = 0;                  // elements from the buffer's start to element (0, ..., 0)
};

Operand array(std::vector<int64_t> shape, std::vector<int64_t> strides = {}, int64_t offset = 0)
{
    Operand o;
    o.shape = std::move(shape);
    o.strides = std::move(strides);
    o.offset = offset;
    return o;
}
Operand scalar()
{
    Operand o;
    o.kind = Kind::HostScalar;
    return o;
}
Operand same_as_out()
{
    Operand o;
    o.kind = Kind::SameAsOut;
    return o;
}

struct Scenario {
    std::string name;
    Operand out;
    std::vector<Operand> in; // one per input (the scenario builders make `arity` of them)
};

std::vector<int64_t> strides_of(const Operand &o)
{
    if (!o.strides.empty())
        return o.strides;
    std::vector<int64_t> s(o.shape.size());
    int64_t step = 1;
    for (size_t k = o.shape.size(); k-- > 0;) {
        s[k] = step;
        step *= o.shape[k];
    }
    return s;
}

// Elements the buffer of a view needs (with 3 spare elements after it, so
// writes past the end show), or 0 when the view is empty.
size_t buffer_elements(const Operand &o)
{
    const std::vector<int64_t> s = strides_of(o);
    int64_t high = o.offset, low = o.offset;
    for (size_t k = 0; k < o.shape.size(); k++) {
        if (o.shape[k] == 0)
            return 0;
        (s[k] > 0 ? high : low) += s[k] * (o.shape[k] - 1);
    }
    EXPECT_GE(low, 0) << "scenario bug: a view reaching before its buffer";
    return static_cast<size_t>(high) + 1 + 3;
}

std::vector<Scenario> scenarios(int a)
{
    std::vector<Scenario> list;
    auto all = [&](const std::string &name, Operand out, const Operand &each) {
        list.push_back({name, std::move(out), std::vector<Operand>(static_cast<size_t>(a), each)});
    };
    // contiguous, every vector width's remainders, more than one vector per thread
    for (int64_t n : {1, 2, 3, 5, 17, 33, 1009, 100003})
        all("contiguous n=" + std::to_string(n), array({n}), array({n}));
    // all views one element past a vector boundary (vectors after a head), or misaligned differently
    all("all offset by one element", array({1009}, {}, 1), array({1009}, {}, 1));
    {
        Scenario s{"inputs offset by one, out aligned", array({1009}), {}};
        for (int k = 0; k < a; k++)
            s.in.push_back(array({1009}, {}, k == 0 ? 1 : 0));
        list.push_back(s);
    }
    // a host scalar in each position, and all inputs host scalars
    for (int p = 0; p < a; p++) {
        Scenario s{"host scalar as inputs[" + std::to_string(p) + "]", array({1009}), {}};
        for (int k = 0; k < a; k++)
            s.in.push_back(k == p ? scalar() : array({1009}));
        list.push_back(s);
    }
    all("every input a host scalar", array({4, 257}), scalar());
    // a 0-d device input in each position (broadcast from one element)
    for (int p = 0; p < a; p++) {
        Scenario s{"0-d device array as inputs[" + std::to_string(p) + "]", array({1009}), {}};
        for (int k = 0; k < a; k++)
            s.in.push_back(k == p ? array({}) : array({1009}));
        list.push_back(s);
    }
    // NumPy broadcasting: (5,1,7) with (3,1) (and (7,)) to (5,3,7)
    {
        Scenario s{"broadcast (5,1,7), (3,1), (7,) to (5,3,7)", array({5, 3, 7}), {}};
        const std::vector<std::vector<int64_t>> shapes = {{5, 1, 7}, {3, 1}, {7}};
        for (int k = 0; k < a; k++)
            s.in.push_back(array(shapes[static_cast<size_t>(k)]));
        list.push_back(s);
        Scenario r{"broadcast (3,1), (5,1,7), (1,3,1) to (5,3,7)", array({5, 3, 7}), {}};
        const std::vector<std::vector<int64_t>> rshapes = {{3, 1}, {5, 1, 7}, {1, 3, 1}};
        for (int k = 0; k < a; k++)
            r.in.push_back(array(rshapes[static_cast<size_t>(k)]));
        list.push_back(r);
    }
    // transposes: inputs read transposed; out written transposed
    all("transposed inputs", array({13, 11}), array({13, 11}, {1, 13}));
    all("transposed out", array({13, 11}, {1, 13}), array({13, 11}));
    {
        Scenario s{"first input transposed, the others not", array({29, 31}), {}};
        for (int k = 0; k < a; k++)
            s.in.push_back(k == 0 ? array({29, 31}, {1, 29}) : array({29, 31}));
        list.push_back(s);
    }
    // negative strides
    all("reversed inputs", array({1009}), array({1009}, {-1}, 1008));
    all("reversed out and inputs", array({1009}, {-1}, 1008), array({1009}, {-1}, 1008));
    all("reversed out, rows of the inputs reversed every third", array({7, 11}, {-11, -1}, 76),
        array({7, 11}, {-33, 3}, 200));
    // strided out: every other element of every other row (the gaps must stay poisoned)
    all("strided out", array({17, 19}, {80, 2}), array({17, 19}));
    // eight dimensions that do not merge, and size-1 dimensions
    all("eight dimensions", array({2, 3, 2, 3, 2, 3, 2, 3}),
        array({2, 3, 2, 3, 2, 3, 2, 3}, {1, 2, 6, 12, 36, 72, 216, 432}));
    all("size-1 dimensions and a permutation", array({3, 1, 4, 1, 5}), array({3, 1, 4, 1, 5}, {1, 7, 3, 9, 12}));
    return list;
}

// In-place scenarios: out is the same view as input `k` (the first input of
// out's dtype); for binary ops also out = both inputs.
std::vector<Scenario> in_place_scenarios(hk_op op, hk_dtype t)
{
    const int a = arity(op);
    int alias = -1;
    for (int k = 0; k < a && alias < 0; k++)
        if (input_dtype(op, t, k) == output_dtype(op, t))
            alias = k;
    std::vector<Scenario> list;
    if (alias < 0)
        return list;
    const std::string who = "inputs[" + std::to_string(alias) + "]";
    Scenario s{"in place: out is " + who + ", contiguous", array({1009}), {}};
    Scenario r{"in place: out is " + who + ", every other element", array({23, 17}, {40, 2}, 3), {}};
    Scenario b{"in place: out is " + who + ", others broadcast", array({9, 1, 13}), {}};
    for (int k = 0; k < a; k++) {
        s.in.push_back(k == alias ? same_as_out() : array({1009}));
        r.in.push_back(k == alias ? same_as_out() : array({23, 17}, {1, 23}));
        b.in.push_back(k == alias ? same_as_out() : array({13}));
    }
    list.push_back(s);
    list.push_back(r);
    list.push_back(b);
    if (a == 2 && input_dtype(op, t, 1) == output_dtype(op, t)) {
        Scenario both{"in place: out is both inputs", array({1009}), {same_as_out(), same_as_out()}};
        list.push_back(both);
    }
    return list;
}

std::string show_index(const std::vector<int64_t> &i)
{
    std::string s = "(";
    for (size_t k = 0; k < i.size(); k++)
        s += (k ? "," : "") + std::to_string(i[k]);
    return s + ")";
}

constexpr uint8_t kPoison = 0xA5; // no result of these random inputs is all 0xA5 bytes; bools must be 0 or 1

// Runs one scenario of op on dtype t and checks every element of out's buffer.
void check_scenario(hk_op op, hk_dtype t, const Scenario &sc, std::mt19937_64 &rng)
{
    SCOPED_TRACE(std::string(hk_op_name(op)) + " on " + hk_dtype_name(t) + ", " + sc.name);
    const int a = arity(op);
    ASSERT_EQ(static_cast<int>(sc.in.size()), a);
    const hk_dtype od = output_dtype(op, t);
    const size_t osz = dsize(od);
    const size_t out_elems = buffer_elements(sc.out);
    bool in_place = false;
    for (const Operand &o : sc.in)
        in_place = in_place || o.kind == Kind::SameAsOut;

    // out's buffer: poison, or (in place) random data of out's dtype
    std::vector<uint8_t> out_before(out_elems * osz, kPoison);
    if (in_place)
        fill_random(od, out_before.data(), out_elems, rng);
    hktest::DeviceMemory dout;
    ASSERT_HK_OK(dout.allocate(out_before.size() + 16));
    ASSERT_HK_OK(hk_memcpy_htod(dout.get(), out_before.data(), out_before.size()));
    hk_array out_view = view(static_cast<char *>(dout.get()) + sc.out.offset * static_cast<int64_t>(osz), od,
                             sc.out.shape, strides_of(sc.out));

    std::vector<std::vector<uint8_t>> host(static_cast<size_t>(a));
    std::vector<std::vector<uint8_t>> call_scalar(static_cast<size_t>(a)); // what the call reads
    std::vector<std::unique_ptr<hktest::DeviceMemory>> device(static_cast<size_t>(a));
    std::vector<hk_array> views(static_cast<size_t>(a));
    for (int k = 0; k < a; k++) {
        const Operand &o = sc.in[static_cast<size_t>(k)];
        const hk_dtype d = input_dtype(op, t, k);
        const size_t sz = dsize(d);
        if (o.kind == Kind::SameAsOut) {
            views[static_cast<size_t>(k)] = out_view;
            continue;
        }
        if (o.kind == Kind::HostScalar) {
            host[static_cast<size_t>(k)].resize(sz);
            fill_random(d, host[static_cast<size_t>(k)].data(), 1, rng);
            call_scalar[static_cast<size_t>(k)] = host[static_cast<size_t>(k)];
            views[static_cast<size_t>(k)] = host_scalar(call_scalar[static_cast<size_t>(k)].data(), d);
            continue;
        }
        const size_t elems = buffer_elements(o);
        host[static_cast<size_t>(k)].resize(elems * sz);
        fill_random(d, host[static_cast<size_t>(k)].data(), elems, rng);
        device[static_cast<size_t>(k)] = std::make_unique<hktest::DeviceMemory>();
        ASSERT_HK_OK(device[static_cast<size_t>(k)]->allocate(elems * sz + 16));
        ASSERT_HK_OK(
            hk_memcpy_htod(device[static_cast<size_t>(k)]->get(), host[static_cast<size_t>(k)].data(), elems * sz));
        views[static_cast<size_t>(k)] =
            view(static_cast<char *>(device[static_cast<size_t>(k)]->get()) + o.offset * static_cast<int64_t>(sz), d,
                 o.shape, strides_of(o));
    }

    ASSERT_HK_OK(hk_elementwise(op, views.data(), a, &out_view, nullptr));
    // A host scalar is read during the call: changing it now must not matter.
    for (std::vector<uint8_t> &v : call_scalar)
        std::fill(v.begin(), v.end(), uint8_t{0x5A});
    std::vector<uint8_t> got(out_before.size());
    ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), dout.get(), got.size()));

    std::vector<char> written(out_elems, 0);
    size_t wrong = 0;
    std::string text;
    const std::vector<int64_t> ostrides = strides_of(sc.out);
    walk(sc.out.shape, [&](const std::vector<int64_t> &i) {
        int64_t off = sc.out.offset;
        for (size_t k = 0; k < i.size(); k++)
            off += i[k] * ostrides[k];
        written[static_cast<size_t>(off)] = 1;
        const void *in[3] = {nullptr, nullptr, nullptr};
        for (int k = 0; k < a; k++) {
            const Operand &o = sc.in[static_cast<size_t>(k)];
            const size_t sz = dsize(input_dtype(op, t, k));
            if (o.kind == Kind::SameAsOut) {
                in[k] = out_before.data() + static_cast<size_t>(off) * osz;
            } else if (o.kind == Kind::HostScalar) {
                in[k] = host[static_cast<size_t>(k)].data();
            } else {
                const std::vector<int64_t> s = strides_of(o);
                const size_t shift = i.size() - o.shape.size();
                int64_t ioff = o.offset;
                for (size_t d = 0; d < o.shape.size(); d++)
                    if (o.shape[d] != 1)
                        ioff += i[d + shift] * s[d];
                in[k] = host[static_cast<size_t>(k)].data() + static_cast<size_t>(ioff) * sz;
            }
        }
        const std::string why = check_element(op, t, in, got.data() + static_cast<size_t>(off) * osz);
        if (!why.empty() && wrong++ < 8)
            text += "  index " + show_index(i) + " (out buffer element " + std::to_string(off) + "): " + why + "\n";
    });
    EXPECT_EQ(wrong, 0u) << wrong << " wrong elements, the first ones:\n" << text;
    size_t stray = 0;
    for (size_t e = 0; e < out_elems; e++)
        if (!written[e] && std::memcmp(got.data() + e * osz, out_before.data() + e * osz, osz) != 0)
            stray++;
    EXPECT_EQ(stray, 0u) << "elements of out's buffer outside the view were written";
}

// -------------------------------------------------------------- GPU tests

class ElementwiseOp : public ::testing::TestWithParam<int>
{
  protected:
    void SetUp() override { ASSERT_TRUE(::hktest::device_available()); }
};

std::string op_param_name(const ::testing::TestParamInfo<int> &info)
{
    return hk_op_name(static_cast<hk_op>(info.param));
}

TEST_P(ElementwiseOp, MatchesTheCpuReferenceForEveryDtypeAndLayout)
{
    const hk_op op = static_cast<hk_op>(GetParam());
    HKTEST_SEEDED_RNG(rng);
    for (hk_dtype t : kDtypes) {
        if (!supported(op, t))
            continue;
        for (const Scenario &sc : scenarios(arity(op)))
            check_scenario(op, t, sc, rng);
        for (const Scenario &sc : in_place_scenarios(op, t))
            check_scenario(op, t, sc, rng);
        if (::testing::Test::HasFatalFailure())
            return;
    }
}

TEST(Elementwise, EmptyOutputsSucceedWithoutAGpuOrData)
{
    for (int o = 0; o < HK_OP_COUNT; o++)
        for (hk_dtype t : kDtypes) {
            const hk_op op = static_cast<hk_op>(o);
            if (!supported(op, t))
                continue;
            std::vector<hk_array> in;
            for (int k = 0; k < arity(op); k++)
                in.push_back(view(nullptr, input_dtype(op, t, k), {0}));
            hk_array out = view(nullptr, output_dtype(op, t), {0});
            SCOPED_TRACE(std::string(hk_op_name(op)) + " on " + hk_dtype_name(t));
            EXPECT_HK_OK(hk_elementwise(op, in.data(), arity(op), &out, nullptr));
            hk_array out2 = view(nullptr, output_dtype(op, t), {3, 0});
            EXPECT_HK_OK(hk_elementwise(op, in.data(), arity(op), &out2, nullptr));
        }
}

INSTANTIATE_TEST_SUITE_P(AllOps, ElementwiseOp, ::testing::Range(0, static_cast<int>(HK_OP_COUNT)), op_param_name);

class ElementwiseOnGpu : public GpuTest
{
};

// Runs op on explicit values (contiguous arrays) and returns out's bytes.
template <typename T, typename O = T>
std::vector<O> run_values(hk_op op, const std::vector<std::vector<T>> &inputs, hk_dtype t, hk_dtype od)
{
    const size_t n = inputs[0].size();
    std::vector<hktest::DeviceMemory> mem(inputs.size() + 1);
    std::vector<hk_array> views;
    for (size_t k = 0; k < inputs.size(); k++) {
        EXPECT_HK_OK(mem[k].allocate(n * sizeof(T)));
        EXPECT_HK_OK(hk_memcpy_htod(mem[k].get(), inputs[k].data(), n * sizeof(T)));
        views.push_back(view(mem[k].get(), t, {static_cast<int64_t>(n)}));
    }
    hktest::DeviceMemory &out = mem.back();
    EXPECT_HK_OK(out.allocate(n * sizeof(O)));
    EXPECT_HK_OK(hk_memset(out.get(), kPoison, n * sizeof(O)));
    hk_array ov = view(out.get(), od, {static_cast<int64_t>(n)});
    EXPECT_HK_OK(hk_elementwise(op, views.data(), static_cast<int>(views.size()), &ov, nullptr));
    std::vector<O> got(n);
    EXPECT_HK_OK(hk_memcpy_dtoh(got.data(), out.get(), n * sizeof(O)));
    return got;
}

// Bit-exact expectations, including the sign of zero.
template <typename T> void expect_bits(const std::vector<T> &got, const std::vector<T> &want, const std::string &what)
{
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); i++) {
        if constexpr (is_fp<T>) {
            const bool same = (std::isnan(static_cast<double>(got[i])) && std::isnan(static_cast<double>(want[i]))) ||
                              (got[i] == want[i] &&
                               std::signbit(static_cast<double>(got[i])) == std::signbit(static_cast<double>(want[i])));
            EXPECT_TRUE(same) << what << " [" << i << "]: got " << show_value(got[i]) << ", expected "
                              << show_value(want[i]);
        } else {
            EXPECT_EQ(got[i], want[i]) << what << " [" << i << "]";
        }
    }
}

// Answers NumPy 2 gives (np.floor_divide, np.remainder, ... on these values).
TEST_F(ElementwiseOnGpu, FloatFloorDivideAndRemainderGiveNumpysAnswers)
{
    const double inf = INFINITY, nan = NAN;
    const std::vector<double> a = {7.0, -7.0, 7.0, -7.0, 5.0, -5.0, 5.0, -5.0, 1.0, 0.0, -0.0, 0.0, nan, 5.5, -3.5};
    const std::vector<double> b = {2.0, 2.0, -2.0, -2.0, inf, inf, -inf, -inf, 0.0, 0.0, 5.0, -5.0, 2.0, nan, 0.5};
    // finite // +-inf is the signed zero a / b (the array API's; NumPy gives -1.0 for -5.0 // inf)
    const std::vector<double> fdiv = {3.0, -4.0, -4.0, 3.0, 0.0, -0.0, -0.0, 0.0, inf, nan, -0.0, -0.0, nan, nan, -7.0};
    const std::vector<double> rem = {1.0, 1.0, -1.0, -1.0, 5.0, inf, -inf, -5.0, nan, nan, 0.0, -0.0, nan, nan, 0.0};
    expect_bits(run_values<double>(HK_OP_FLOOR_DIVIDE, {a, b}, HK_FLOAT64, HK_FLOAT64), fdiv, "float64 //");
    expect_bits(run_values<double>(HK_OP_REMAINDER, {a, b}, HK_FLOAT64, HK_FLOAT64), rem, "float64 %");
    std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end()), fdf(fdiv.begin(), fdiv.end()),
        rf(rem.begin(), rem.end());
    expect_bits(run_values<float>(HK_OP_FLOOR_DIVIDE, {af, bf}, HK_FLOAT32, HK_FLOAT32), fdf, "float32 //");
    expect_bits(run_values<float>(HK_OP_REMAINDER, {af, bf}, HK_FLOAT32, HK_FLOAT32), rf, "float32 %");
    // GCC 13 allows double -> _Float16 only as an explicit conversion: convert one by one.
    auto halves = [](const std::vector<double> &v) {
        std::vector<_Float16> h;
        for (double x : v)
            h.push_back(static_cast<_Float16>(static_cast<float>(x)));
        return h;
    };
    std::vector<_Float16> ah = halves(a), bh = halves(b), fdh = halves(fdiv), rh = halves(rem);
    expect_bits(run_values<_Float16>(HK_OP_FLOOR_DIVIDE, {ah, bh}, HK_FLOAT16, HK_FLOAT16), fdh, "float16 //");
    expect_bits(run_values<_Float16>(HK_OP_REMAINDER, {ah, bh}, HK_FLOAT16, HK_FLOAT16), rh, "float16 %");
}

TEST_F(ElementwiseOnGpu, IntegerDivisionPowerAndAbsoluteGiveNumpysAnswers)
{
    const int32_t mn = INT32_MIN, mx = INT32_MAX;
    const std::vector<int32_t> a = {-7, 7, -7, 7, mn, mn, 5, -5, 0, mx};
    const std::vector<int32_t> b = {2, -2, -2, 0, -1, 1, 0, 3, -3, -1};
    expect_bits(run_values<int32_t>(HK_OP_FLOOR_DIVIDE, {a, b}, HK_INT32, HK_INT32),
                {-4, -4, 3, 0, mn, mn, 0, -2, 0, -mx}, "int32 //");
    expect_bits(run_values<int32_t>(HK_OP_REMAINDER, {a, b}, HK_INT32, HK_INT32), {1, -1, -1, 0, 0, 0, 0, 1, 0, 0},
                "int32 %");
    expect_bits(run_values<int32_t>(HK_OP_ABSOLUTE, {a}, HK_INT32, HK_INT32), {7, 7, 7, 7, mn, mn, 5, 5, 0, mx},
                "int32 abs");
    expect_bits(run_values<int32_t>(HK_OP_NEGATIVE, {a}, HK_INT32, HK_INT32), {7, -7, 7, -7, mn, mn, -5, 5, 0, -mx},
                "int32 negative");
    const std::vector<int32_t> base = {2, 2, 1, -1, -1, 0, 0, 3, 2, -2, 7};
    const std::vector<int32_t> expo = {10, -1, -5, -3, -2, -1, 0, 0, 31, 31, 2};
    expect_bits(run_values<int32_t>(HK_OP_POWER, {base, expo}, HK_INT32, HK_INT32),
                {1024, 0, 1, -1, 1, 0, 1, 1, mn, mn, 49}, "int32 power");
    const std::vector<int8_t> a8 = {-128, -128, 127, -1, 100};
    const std::vector<int8_t> b8 = {-1, 2, 1, 127, 100};
    expect_bits(run_values<int8_t>(HK_OP_FLOOR_DIVIDE, {a8, b8}, HK_INT8, HK_INT8), {-128, -64, 127, -1, 1}, "int8 //");
    expect_bits(run_values<int8_t>(HK_OP_ADD, {a8, b8}, HK_INT8, HK_INT8), {127, -126, -128, 126, -56}, "int8 +");
    expect_bits(run_values<int8_t>(HK_OP_ABSOLUTE, {a8}, HK_INT8, HK_INT8), {-128, -128, 127, 1, 100}, "int8 abs");
    const std::vector<uint8_t> u = {0, 1, 200, 255};
    const std::vector<uint8_t> v = {1, 0, 100, 2};
    expect_bits(run_values<uint8_t>(HK_OP_SUBTRACT, {u, v}, HK_UINT8, HK_UINT8), {255, 1, 100, 253}, "uint8 -");
    expect_bits(run_values<uint8_t>(HK_OP_NEGATIVE, {u}, HK_UINT8, HK_UINT8), {0, 255, 56, 1}, "uint8 negative");
    expect_bits(run_values<uint8_t>(HK_OP_REMAINDER, {u, v}, HK_UINT8, HK_UINT8), {0, 0, 0, 1}, "uint8 %");
    expect_bits(run_values<uint8_t>(HK_OP_POWER, {u, v}, HK_UINT8, HK_UINT8), {0, 1, 0, 1}, "uint8 power");
}

TEST_F(ElementwiseOnGpu, FloatRoundingAndNanGiveNumpysAnswers)
{
    const double nan = NAN, inf = INFINITY;
    const std::vector<double> x = {0.5, 1.5, 2.5, -0.5, -2.5, 3.5, -0.0, 2.4999999999999996, inf, nan};
    expect_bits(run_values<double>(HK_OP_RINT, {x}, HK_FLOAT64, HK_FLOAT64),
                {0.0, 2.0, 2.0, -0.0, -2.0, 4.0, -0.0, 2.0, inf, nan}, "float64 rint");
    expect_bits(run_values<double>(HK_OP_FLOOR, {x}, HK_FLOAT64, HK_FLOAT64),
                {0.0, 1.0, 2.0, -1.0, -3.0, 3.0, -0.0, 2.0, inf, nan}, "float64 floor");
    expect_bits(run_values<double>(HK_OP_CEIL, {x}, HK_FLOAT64, HK_FLOAT64),
                {1.0, 2.0, 3.0, -0.0, -2.0, 4.0, -0.0, 3.0, inf, nan}, "float64 ceil");
    const std::vector<float> a = {1.0f, NAN, NAN, -0.0f, 3.0f}, b = {NAN, 2.0f, NAN, 0.0f, 3.0f};
    const std::vector<float> mins = run_values<float>(HK_OP_MINIMUM, {a, b}, HK_FLOAT32, HK_FLOAT32);
    const std::vector<float> maxs = run_values<float>(HK_OP_MAXIMUM, {a, b}, HK_FLOAT32, HK_FLOAT32);
    for (int i = 0; i < 3; i++) {
        EXPECT_TRUE(std::isnan(mins[i])) << "minimum propagates NaN [" << i << "]";
        EXPECT_TRUE(std::isnan(maxs[i])) << "maximum propagates NaN [" << i << "]";
    }
    EXPECT_EQ(mins[4], 3.0f);
    EXPECT_EQ(maxs[4], 3.0f);
    const std::vector<float> lo = {0.0f, 0.0f, NAN, 0.0f, 2.0f}, hi = {1.0f, 1.0f, 1.0f, NAN, 1.0f};
    const std::vector<float> v = {-3.0f, NAN, 0.5f, 0.5f, 0.5f};
    const std::vector<float> c = run_values<float>(HK_OP_CLIP, {v, lo, hi}, HK_FLOAT32, HK_FLOAT32);
    EXPECT_EQ(c[0], 0.0f);
    EXPECT_TRUE(std::isnan(c[1]) && std::isnan(c[2]) && std::isnan(c[3])) << "clip propagates NaN";
    EXPECT_EQ(c[4], 1.0f) << "clip with lo > hi gives hi, as NumPy";
    const std::vector<uint8_t> eq = run_values<float, uint8_t>(HK_OP_EQUAL, {a, b}, HK_FLOAT32, HK_BOOL);
    const std::vector<uint8_t> ne = run_values<float, uint8_t>(HK_OP_NOT_EQUAL, {a, b}, HK_FLOAT32, HK_BOOL);
    EXPECT_EQ(eq, (std::vector<uint8_t>{0, 0, 0, 1, 1})) << "NaN == anything is false; -0.0 == 0.0";
    EXPECT_EQ(ne, (std::vector<uint8_t>{1, 1, 1, 0, 0})) << "NaN != anything is true";
    const std::vector<uint8_t> land = run_values<float, uint8_t>(HK_OP_LOGICAL_AND, {a, b}, HK_FLOAT32, HK_BOOL);
    EXPECT_EQ(land, (std::vector<uint8_t>{1, 1, 1, 0, 1})) << "NaN is true, -0.0 false";
}

TEST_F(ElementwiseOnGpu, BoolArithmeticIsLogic)
{
    const std::vector<uint8_t> a = {0, 0, 1, 1}, b = {0, 1, 0, 1};
    struct Case {
        hk_op op;
        std::vector<uint8_t> want;
    };
    const Case cases[] = {{HK_OP_ADD, {0, 1, 1, 1}},         {HK_OP_MULTIPLY, {0, 0, 0, 1}},
                          {HK_OP_MINIMUM, {0, 0, 0, 1}},     {HK_OP_MAXIMUM, {0, 1, 1, 1}},
                          {HK_OP_BITWISE_XOR, {0, 1, 1, 0}}, {HK_OP_LESS, {0, 1, 0, 0}}};
    for (const Case &c : cases)
        EXPECT_EQ((run_values<uint8_t>(c.op, {a, b}, HK_BOOL, HK_BOOL)), c.want) << hk_op_name(c.op);
    EXPECT_EQ((run_values<uint8_t>(HK_OP_BITWISE_INVERT, {a}, HK_BOOL, HK_BOOL)), (std::vector<uint8_t>{1, 1, 0, 0}));
    EXPECT_EQ((run_values<uint8_t>(HK_OP_ABSOLUTE, {b}, HK_BOOL, HK_BOOL)), b);
}

// A bool byte other than 0 reads as true (NumPy never makes one, a C caller might); bool results are 0 or 1.
TEST_F(ElementwiseOnGpu, BoolBytesOtherThanOneReadAsTrue)
{
    typedef std::vector<uint8_t> bytes;
    EXPECT_EQ((run_values<uint8_t>(HK_OP_ADD, {{0, 2, 255, 0}, {0, 0, 0, 7}}, HK_BOOL, HK_BOOL)), (bytes{0, 1, 1, 1}));
    EXPECT_EQ((run_values<uint8_t>(HK_OP_BITWISE_AND, {{2, 4, 0}, {1, 2, 3}}, HK_BOOL, HK_BOOL)), (bytes{1, 1, 0}));
    EXPECT_EQ((run_values<uint8_t>(HK_OP_EQUAL, {{2, 1, 0}, {1, 3, 0}}, HK_BOOL, HK_BOOL)), (bytes{1, 1, 1}));
    EXPECT_EQ((run_values<uint8_t>(HK_OP_LOGICAL_NOT, {{0, 2, 128}}, HK_BOOL, HK_BOOL)), (bytes{1, 0, 0}));
    EXPECT_EQ((run_values<uint8_t>(HK_OP_FLOOR, {{0, 2, 255}}, HK_BOOL, HK_BOOL)), (bytes{0, 1, 1}));
    EXPECT_EQ((run_values<uint8_t>(HK_OP_ABSOLUTE, {{0, 9}}, HK_BOOL, HK_BOOL)), (bytes{0, 1}));
    EXPECT_EQ((run_values<uint8_t>(HK_OP_ISNAN, {{0, 9}}, HK_BOOL, HK_BOOL)), (bytes{0, 0}));
    EXPECT_EQ((run_values<uint8_t>(HK_OP_WHERE, {{2, 0, 1}, {3, 1, 0}, {0, 9, 5}}, HK_BOOL, HK_BOOL)),
              (bytes{1, 1, 0}));
}

// Big enough that every thread of the grid loops more than once.
TEST_F(ElementwiseOnGpu, LargeArraysCoverEveryElement)
{
    HKTEST_SEEDED_RNG(rng);
    const size_t n = (size_t{1} << 25) + 3;
    std::vector<float> a(n), b(n);
    std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
    for (size_t i = 0; i < n; i++) {
        a[i] = dist(rng);
        b[i] = dist(rng);
    }
    hktest::DeviceMemory da, db, dout;
    ASSERT_HK_OK(da.allocate((n + 1) * 4));
    ASSERT_HK_OK(db.allocate((n + 1) * 4));
    ASSERT_HK_OK(dout.allocate((n + 1) * 4));
    ASSERT_HK_OK(hk_memcpy_htod(da.get(), a.data(), n * 4));
    ASSERT_HK_OK(hk_memcpy_htod(db.get(), b.data(), n * 4));
    std::vector<float> got(n + 1);
    for (int shift = 0; shift < 2; shift++) { // aligned, and every view one element in
        SCOPED_TRACE("views start " + std::to_string(shift) + " element(s) into their buffers");
        const int64_t m = static_cast<int64_t>(n) - shift;
        ASSERT_HK_OK(hk_memset(dout.get(), kPoison, (n + 1) * 4));
        hk_array in[2] = {view(da.as<float>() + shift, HK_FLOAT32, {m}), view(db.as<float>() + shift, HK_FLOAT32, {m})};
        hk_array out = view(dout.as<float>() + shift, HK_FLOAT32, {m});
        ASSERT_HK_OK(hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr));
        ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), dout.get(), (n + 1) * 4));
        size_t wrong = 0;
        for (size_t i = 0; i < n + 1; i++) {
            const bool inside = i >= static_cast<size_t>(shift) && i < n;
            float want;
            std::memset(&want, kPoison, 4);
            if (inside)
                want = a[i] + b[i];
            if (std::memcmp(&got[i], &want, 4) != 0 && wrong++ < 5)
                ADD_FAILURE() << "element " << i << ": got " << got[i] << ", expected " << want;
        }
        EXPECT_EQ(wrong, 0u);
    }
    // the strided path over as many elements: out written transposed
    const int64_t rows = 4099, cols = 4097;
    ASSERT_LE(static_cast<size_t>(rows * cols), n);
    hk_array in[2] = {view(da.get(), HK_FLOAT32, {rows, cols}), view(db.get(), HK_FLOAT32, {rows, cols})};
    hk_array out = view(dout.get(), HK_FLOAT32, {rows, cols}, {1, rows});
    ASSERT_HK_OK(hk_elementwise(HK_OP_SUBTRACT, in, 2, &out, nullptr));
    ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), dout.get(), static_cast<size_t>(rows * cols) * 4));
    size_t wrong = 0;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            const float want = a[static_cast<size_t>(r * cols + c)] - b[static_cast<size_t>(r * cols + c)];
            if (got[static_cast<size_t>(c * rows + r)] != want && wrong++ < 5)
                ADD_FAILURE() << "transposed element (" << r << ", " << c << ")";
        }
    EXPECT_EQ(wrong, 0u);
    // uint8: 16 elements per vector; the same buffers hold 4x as many
    const size_t n8 = 4 * n;
    std::vector<uint8_t> x8(n8);
    for (size_t i = 0; i < n8; i++)
        x8[i] = static_cast<uint8_t>(rng());
    ASSERT_HK_OK(hk_memcpy_htod(da.get(), x8.data(), n8));
    const uint8_t three = 3;
    hk_array in8[2] = {view(da.get(), HK_UINT8, {static_cast<int64_t>(n8)}), host_scalar(&three, HK_UINT8)};
    hk_array out8 = view(dout.get(), HK_UINT8, {static_cast<int64_t>(n8)});
    ASSERT_HK_OK(hk_elementwise(HK_OP_MULTIPLY, in8, 2, &out8, nullptr));
    std::vector<uint8_t> got8(n8);
    ASSERT_HK_OK(hk_memcpy_dtoh(got8.data(), dout.get(), n8));
    wrong = 0;
    for (size_t i = 0; i < n8; i++)
        if (got8[i] != static_cast<uint8_t>(x8[i] * 3) && wrong++ < 5)
            ADD_FAILURE() << "uint8 element " << i;
    EXPECT_EQ(wrong, 0u);
}

// Offsets past 2^31 elements and more than 2^31 elements: the 64-bit path.
TEST_F(ElementwiseOnGpu, SixtyFourBitIndexing)
{
    HKTEST_SEEDED_RNG(rng);
    // (a) a view whose rows lie 2^31 + 3 bytes apart
    const int64_t far = (int64_t{1} << 31) + 3;
    hktest::DeviceMemory big, small, out;
    ASSERT_HK_OK(big.allocate(static_cast<size_t>(far) + 64));
    ASSERT_HK_OK(small.allocate(64));
    ASSERT_HK_OK(out.allocate(64));
    std::vector<uint8_t> row0(16), row1(16), other(10);
    for (auto *v : {&row0, &row1, &other})
        for (uint8_t &x : *v)
            x = static_cast<uint8_t>(rng());
    ASSERT_HK_OK(hk_memcpy_htod(big.get(), row0.data(), 16));
    ASSERT_HK_OK(hk_memcpy_htod(big.as<uint8_t>() + far, row1.data(), 16));
    ASSERT_HK_OK(hk_memcpy_htod(small.get(), other.data(), 10));
    hk_array in[2] = {view(big.get(), HK_UINT8, {2, 5}, {far, 1}), view(small.get(), HK_UINT8, {2, 5})};
    hk_array o = view(out.get(), HK_UINT8, {2, 5});
    ASSERT_HK_OK(hk_elementwise(HK_OP_ADD, in, 2, &o, nullptr));
    std::vector<uint8_t> got(10);
    ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), out.get(), 10));
    for (int i = 0; i < 10; i++)
        EXPECT_EQ(got[static_cast<size_t>(i)],
                  static_cast<uint8_t>((i < 5 ? row0[static_cast<size_t>(i)] : row1[static_cast<size_t>(i - 5)]) +
                                       other[static_cast<size_t>(i)]))
            << "element " << i;
    // (b) 2^31 + 1000 results from a broadcast row (so not the contiguous path)
    const int64_t cols = (int64_t{1} << 30) + 500;
    hktest::DeviceMemory wide;
    ASSERT_HK_OK(wide.allocate(static_cast<size_t>(2 * cols)));
    std::vector<uint8_t> rowv(static_cast<size_t>(cols));
    for (uint8_t &x : rowv)
        x = static_cast<uint8_t>(rng());
    ASSERT_HK_OK(hk_memcpy_htod(big.get(), rowv.data(), rowv.size()));
    ASSERT_HK_OK(hk_memset(wide.get(), kPoison, static_cast<size_t>(2 * cols)));
    const uint8_t seven = 7;
    hk_array bin[2] = {view(big.get(), HK_UINT8, {1, cols}), host_scalar(&seven, HK_UINT8)};
    hk_array bout = view(wide.get(), HK_UINT8, {2, cols});
    ASSERT_HK_OK(hk_elementwise(HK_OP_BITWISE_XOR, bin, 2, &bout, nullptr));
    std::vector<uint8_t> all(static_cast<size_t>(2 * cols));
    ASSERT_HK_OK(hk_memcpy_dtoh(all.data(), wide.get(), all.size()));
    size_t wrong = 0;
    for (size_t i = 0; i < all.size(); i++)
        if (all[i] != static_cast<uint8_t>(rowv[i % static_cast<size_t>(cols)] ^ 7) && wrong++ < 5)
            ADD_FAILURE() << "element " << i << " of 2^31 + 1000: got " << +all[i];
    EXPECT_EQ(wrong, 0u);
}

TEST_F(ElementwiseOnGpu, RunsOnACreatedStream)
{
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    const size_t n = 4097;
    std::vector<double> x(n);
    for (size_t i = 0; i < n; i++)
        x[i] = static_cast<double>(i) - 2000.5;
    hktest::DeviceMemory dx, dout;
    ASSERT_HK_OK(dx.allocate(n * 8));
    ASSERT_HK_OK(dout.allocate(n * 8));
    ASSERT_HK_OK(hk_memcpy_htod(dx.get(), x.data(), n * 8));
    const double two = 2.0;
    hk_array in[2] = {host_scalar(&two, HK_FLOAT64), view(dx.get(), HK_FLOAT64, {static_cast<int64_t>(n)})};
    hk_array out = view(dout.get(), HK_FLOAT64, {static_cast<int64_t>(n)});
    ASSERT_HK_OK(hk_elementwise(HK_OP_SUBTRACT, in, 2, &out, stream.get()));
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
    std::vector<double> got(n);
    ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), dout.get(), n * 8));
    for (size_t i = 0; i < n; i++)
        ASSERT_EQ(got[i], 2.0 - x[i]) << i;
}

// ------------------------------------------------------ no GPU needed

TEST(Elementwise, OpNamesAreNumpys)
{
    EXPECT_STREQ(hk_op_name(HK_OP_ADD), "add");
    EXPECT_STREQ(hk_op_name(HK_OP_FLOOR_DIVIDE), "floor_divide");
    EXPECT_STREQ(hk_op_name(HK_OP_GREATER_EQUAL), "greater_equal");
    EXPECT_STREQ(hk_op_name(HK_OP_BITWISE_INVERT), "bitwise_invert");
    EXPECT_STREQ(hk_op_name(HK_OP_ISFINITE), "isfinite");
    EXPECT_STREQ(hk_op_name(HK_OP_WHERE), "where");
    EXPECT_STREQ(hk_op_name(HK_OP_CLIP), "clip");
    EXPECT_STREQ(hk_op_name(HK_OP_COUNT), "invalid");
    EXPECT_STREQ(hk_op_name(static_cast<hk_op>(-1)), "invalid");
    std::vector<std::string> names;
    for (int op = 0; op < HK_OP_COUNT; op++) {
        std::string name = hk_op_name(static_cast<hk_op>(op));
        EXPECT_NE(name, "invalid") << op;
        EXPECT_EQ(std::count(names.begin(), names.end(), name), 0) << name << " twice";
        names.push_back(name);
    }
}

TEST(Elementwise, ArityOfEveryOp)
{
    for (int op = 0; op < HK_OP_COUNT; op++) {
        int inputs = -1;
        EXPECT_HK_OK(hk_op_arity(static_cast<hk_op>(op), &inputs));
        EXPECT_EQ(inputs, arity(static_cast<hk_op>(op))) << hk_op_name(static_cast<hk_op>(op));
    }
    int inputs = 0;
    EXPECT_HK_OK(hk_op_arity(HK_OP_NEGATIVE, &inputs));
    EXPECT_EQ(inputs, 1);
    EXPECT_HK_OK(hk_op_arity(HK_OP_BITWISE_XOR, &inputs));
    EXPECT_EQ(inputs, 2);
    EXPECT_HK_OK(hk_op_arity(HK_OP_CLIP, &inputs));
    EXPECT_EQ(inputs, 3);
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_op_arity", hk_op_arity(HK_OP_COUNT, &inputs));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_op_arity", hk_op_arity(static_cast<hk_op>(-3), &inputs));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_op_arity", hk_op_arity(HK_OP_ADD, nullptr));
}

#define EXPECT_EW_FAILS(status, phrase, expr)                                                                          \
    do {                                                                                                               \
        EXPECT_HK_FAILS(status, "hk_elementwise", expr);                                                               \
        EXPECT_TRUE(::hktest::contains_ignoring_case(hk_last_error(), phrase)) << #expr;                               \
    } while (0)

class ElementwiseArgs : public ::testing::Test
{
  protected:
    void SetUp() override { ASSERT_HK_OK(scratch.init(1 << 16)); }
    hk_array f32(size_t at, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) const
    {
        return view(scratch.at(at), HK_FLOAT32, std::move(shape), std::move(strides));
    }
    hktest::Scratch scratch;
};

TEST_F(ElementwiseArgs, RefusesBadOpAndInputCount)
{
    hk_array in[3] = {f32(0, {4}), f32(1024, {4}), f32(2048, {4})};
    hk_array out = f32(4096, {4});
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "not a hk_op", hk_elementwise(HK_OP_COUNT, in, 2, &out, nullptr));
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "not a hk_op",
                    hk_elementwise(static_cast<hk_op>(-1), in, 2, &out, nullptr));
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "n_inputs is 1", hk_elementwise(HK_OP_ADD, in, 1, &out, nullptr));
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "n_inputs is 3", hk_elementwise(HK_OP_ADD, in, 3, &out, nullptr));
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "takes 1 input", hk_elementwise(HK_OP_SQRT, in, 2, &out, nullptr));
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "takes 3 inputs", hk_elementwise(HK_OP_WHERE, in, 2, &out, nullptr));
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "inputs must not be NULL",
                    hk_elementwise(HK_OP_ADD, nullptr, 2, &out, nullptr));
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "out must not be NULL",
                    hk_elementwise(HK_OP_ADD, in, 2, nullptr, nullptr));
    hk_array scalar_out = host_scalar(scratch.at(4096), HK_FLOAT32);
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "out must be a device view",
                    hk_elementwise(HK_OP_ADD, in, 2, &scalar_out, nullptr));
}

TEST_F(ElementwiseArgs, RefusesBadViewsNamingTheOperand)
{
    const hk_array good = f32(0, {4});
    hk_array in[2] = {good, f32(1024, {4})};
    hk_array out = f32(4096, {4});
    struct Bad {
        const char *what;
        std::function<void(hk_array &)> spoil;
        const char *phrase;
    };
    const Bad bads[] = {
        {"ndim 33", [](hk_array &a) { a.ndim = HK_MAX_DIMS + 1; }, "ndim is 33"},
        {"ndim -2", [](hk_array &a) { a.ndim = -2; }, "ndim is -2"},
        {"negative extent", [](hk_array &a) { a.shape[0] = -1; }, "negative"},
        {"NULL data", [](hk_array &a) { a.data = nullptr; }, "data is NULL"},
        {"misaligned", [](hk_array &a) { a.data = static_cast<char *>(a.data) + 1; }, "aligned"},
        {"stride overflow", [](hk_array &a) { a.strides[0] = INT64_MAX / 2; }, "overflows"},
        {"dtype 42", [](hk_array &a) { a.dtype = static_cast<hk_dtype>(42); }, "not a hk_dtype"},
    };
    for (const Bad &b : bads) {
        SCOPED_TRACE(b.what);
        hk_array o = out;
        b.spoil(o);
        EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, b.phrase, hk_elementwise(HK_OP_ADD, in, 2, &o, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out")) << hk_last_error();
        hk_array i2[2] = {in[0], in[1]};
        b.spoil(i2[1]);
        EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, b.phrase, hk_elementwise(HK_OP_ADD, i2, 2, &out, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "inputs[1]")) << hk_last_error();
    }
}

TEST_F(ElementwiseArgs, RefusesBadHostScalars)
{
    const float two = 2.0f;
    hk_array in[2] = {f32(0, {4}), host_scalar(nullptr, HK_FLOAT32)};
    hk_array out = f32(4096, {4});
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "data is NULL", hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr));
    in[1] = host_scalar(&two, static_cast<hk_dtype>(HK_DTYPE_COUNT));
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "inputs[1].dtype 14", hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr));
    in[1] = host_scalar(&two, HK_FLOAT64);
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "one dtype", hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr));
}

TEST_F(ElementwiseArgs, RefusesMixedDtypesAndWrongOutputDtype)
{
    hk_array a = f32(0, {4}), b = view(scratch.at(1024), HK_FLOAT64, {4});
    hk_array out = f32(4096, {4});
    hk_array ab[2] = {a, b};
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_copy_array", hk_elementwise(HK_OP_ADD, ab, 2, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "float64")) << hk_last_error();
    hk_array aa[2] = {a, f32(1024, {4})};
    hk_array out64 = view(scratch.at(4096), HK_FLOAT64, {4});
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "gives float32", hk_elementwise(HK_OP_ADD, aa, 2, &out64, nullptr));
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "gives bool", hk_elementwise(HK_OP_LESS, aa, 2, &out, nullptr));
    hk_array one[1] = {a};
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "gives bool", hk_elementwise(HK_OP_ISNAN, one, 1, &out, nullptr));
    // where: the condition must be bool, the two values one dtype, out theirs
    hk_array cond = view(scratch.at(2048), HK_BOOL, {4});
    hk_array not_bool = view(scratch.at(2048), HK_INT8, {4});
    hk_array w1[3] = {not_bool, a, f32(1024, {4})};
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "must be bool", hk_elementwise(HK_OP_WHERE, w1, 3, &out, nullptr));
    hk_array w2[3] = {cond, a, b};
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "one dtype", hk_elementwise(HK_OP_WHERE, w2, 3, &out, nullptr));
    hk_array w3[3] = {cond, a, f32(1024, {4})};
    hk_array bool_out = view(scratch.at(4096), HK_BOOL, {4});
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "gives float32", hk_elementwise(HK_OP_WHERE, w3, 3, &bool_out, nullptr));
}

// Every op x dtype the contract leaves out: HK_ERROR_NOT_SUPPORTED, naming both.
TEST_F(ElementwiseArgs, UnsupportedCombinationsNameTheOpAndTheDtype)
{
    int refused = 0;
    for (int o = 0; o < HK_OP_COUNT; o++) {
        const hk_op op = static_cast<hk_op>(o);
        for (hk_dtype t : kDtypes) {
            if (supported(op, t))
                continue;
            std::vector<hk_array> in;
            for (int k = 0; k < arity(op); k++)
                in.push_back(view(scratch.at(static_cast<size_t>(k) * 1024), input_dtype(op, t, k), {4}));
            hk_array out = view(scratch.at(8192), output_dtype(op, t), {4});
            EXPECT_HK_FAILS(HK_ERROR_NOT_SUPPORTED, "hk_elementwise",
                            hk_elementwise(op, in.data(), arity(op), &out, nullptr));
            const std::string msg = hk_last_error();
            EXPECT_TRUE(hktest::contains_ignoring_case(msg, std::string(hk_op_name(op)) + " is not supported for " +
                                                                hk_dtype_name(t)))
                << msg;
            refused++;
        }
    }
    // subtract, negative, floor_divide, remainder, power, sign, reciprocal, square, fmod on bool; divide and
    // 25 functions on 9 non-floats; nextafter on them and float16; 4 bitwise ops on 3 floats; the 2 shifts on
    // bool and 3 floats (the real dtypes: complex numbers are test_new_dtypes.cpp's)
    EXPECT_EQ(refused, 9 + 26 * 9 + 10 + 4 * 3 + 2 * 4);
}

TEST_F(ElementwiseArgs, RefusesShapesThatDoNotBroadcast)
{
    hk_array out = f32(4096, {5, 3});
    hk_array in[2] = {f32(0, {5, 3}), f32(1024, {4})};
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "does not broadcast", hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "inputs[1]")) << hk_last_error();
    in[1] = f32(1024, {2, 5, 3});
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "more than out's", hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr));
    in[1] = f32(1024, {5, 1});
    in[0] = f32(0, {3, 3});
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "inputs[0]'s dimension 0 (3)",
                    hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr));
    hk_array empty_out = f32(4096, {0, 3});
    in[0] = f32(0, {5, 3});
    in[1] = f32(1024, {3});
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "does not broadcast",
                    hk_elementwise(HK_OP_ADD, in, 2, &empty_out, nullptr));
}

TEST_F(ElementwiseArgs, RefusesOutThatRepeatsAnElementOrIsTooLarge)
{
    hk_array in[2] = {f32(0, {3, 4}), f32(1024, {3, 4})};
    hk_array out = f32(4096, {3, 4}, {0, 1});
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "out.strides[0] is 0", hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr));
    const uint8_t one = 1;
    hk_array u[2] = {host_scalar(&one, HK_UINT8), host_scalar(&one, HK_UINT8)};
    hk_array huge = view(scratch.at(0), HK_UINT8, {int64_t{1} << 31, (int64_t{1} << 31) + 1}, {1, 1});
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "2^62", hk_elementwise(HK_OP_ADD, u, 2, &huge, nullptr));
}

TEST_F(ElementwiseArgs, RefusesOverlapOtherThanTheSameView)
{
    hk_array out = f32(4096, {16});
    hk_array shifted[2] = {f32(4096 + 4, {16}), f32(0, {16})};
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "overlaps out", hk_elementwise(HK_OP_ADD, shifted, 2, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "inputs[0]")) << hk_last_error();
    hk_array reversed[2] = {f32(0, {16}), f32(4096 + 15 * 4, {16}, {-1})};
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "inputs[1] overlaps out",
                    hk_elementwise(HK_OP_ADD, reversed, 2, &out, nullptr));
    hk_array out2 = f32(4096, {4, 4});
    hk_array row[2] = {f32(4096, {1, 4}), f32(0, {4, 4})}; // broadcast over out's own first row
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "overlaps out", hk_elementwise(HK_OP_ADD, row, 2, &out2, nullptr));
    // same data, other dtype: uint8 compared into a bool view of itself
    hk_array bytes = view(scratch.at(4096), HK_UINT8, {16});
    hk_array flags = view(scratch.at(4096), HK_BOOL, {16});
    hk_array cmp[2] = {bytes, view(scratch.at(0), HK_UINT8, {16})};
    EXPECT_EW_FAILS(HK_ERROR_INVALID_ARGUMENT, "overlaps out", hk_elementwise(HK_OP_LESS, cmp, 2, &flags, nullptr));
}

TEST_F(ElementwiseArgs, StreamIsCheckedEvenForEmptyOutputs)
{
    hk_array in[2] = {f32(0, {0}), f32(1024, {0})};
    hk_array out = f32(4096, {0});
    EXPECT_EW_FAILS(HK_ERROR_INVALID_HANDLE, "", hk_elementwise(HK_OP_ADD, in, 2, &out, hktest::bogus_stream()));
    EXPECT_HK_OK(hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr));
}

// Without a GPU: every supported combination passes validation and stops at
// the device check (so validation accepts what the contract allows), also
// with host scalars, broadcasting, 0-d arrays and out being an input.
TEST(ElementwiseWithoutGpu, AcceptsWhatTheContractAllowsThenNeedsAGpu)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    alignas(16) static char fake[1 << 14];
    for (int o = 0; o < HK_OP_COUNT; o++) {
        const hk_op op = static_cast<hk_op>(o);
        for (hk_dtype t : kDtypes) {
            if (!supported(op, t))
                continue;
            SCOPED_TRACE(std::string(hk_op_name(op)) + " on " + hk_dtype_name(t));
            std::vector<hk_array> in;
            for (int k = 0; k < arity(op); k++)
                in.push_back(view(fake + k * 2048, input_dtype(op, t, k), {5, 3}));
            hk_array out = view(fake + 8192, output_dtype(op, t), {5, 3});
            EXPECT_SAYS_NO_GPU("hk_elementwise", hk_elementwise(op, in.data(), arity(op), &out, nullptr));
            in[0] = view(fake, input_dtype(op, t, 0), {3}); // broadcast
            EXPECT_SAYS_NO_GPU("hk_elementwise", hk_elementwise(op, in.data(), arity(op), &out, nullptr));
            in[0] = view(fake, input_dtype(op, t, 0), {}); // 0-d
            EXPECT_SAYS_NO_GPU("hk_elementwise", hk_elementwise(op, in.data(), arity(op), &out, nullptr));
            in[0] = host_scalar(fake, input_dtype(op, t, 0));
            EXPECT_SAYS_NO_GPU("hk_elementwise", hk_elementwise(op, in.data(), arity(op), &out, nullptr));
            const int last = arity(op) - 1;
            if (input_dtype(op, t, last) == output_dtype(op, t)) {
                in[static_cast<size_t>(last)] = out; // in place
                EXPECT_SAYS_NO_GPU("hk_elementwise", hk_elementwise(op, in.data(), arity(op), &out, nullptr));
            }
        }
    }
    // the same view, reversed, is still the same view
    hk_array rev = view(fake + 15 * 4, HK_FLOAT32, {16}, {-1});
    hk_array two[2] = {rev, rev};
    EXPECT_SAYS_NO_GPU("hk_elementwise", hk_elementwise(HK_OP_ADD, two, 2, &rev, nullptr));
    // an out stride of 0 is fine over an extent of 1
    hk_array one = view(fake, HK_FLOAT32, {1, 4}, {0, 1});
    hk_array src[2] = {view(fake + 4096, HK_FLOAT32, {4}), view(fake + 4096, HK_FLOAT32, {4})};
    EXPECT_SAYS_NO_GPU("hk_elementwise", hk_elementwise(HK_OP_ADD, src, 2, &one, nullptr));
}

} // namespace
