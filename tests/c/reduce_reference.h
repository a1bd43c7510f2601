// reduce_reference.h: what the hk_reduce tests share (test_reduce.cpp on the
// GPU, test_reduce_emulated.cpp on the host): views over a pool of elements,
// data made for each op (exact where the result can be exact), a CPU
// reference in long double or exact 64-bit integer arithmetic, and the
// comparison of every output element, poisoned first, with the unwritten
// gaps of a strided output checked too.
#ifndef HIPKIT_TESTS_REDUCE_REFERENCE_H
#define HIPKIT_TESTS_REDUCE_REFERENCE_H

#include "common.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace hkred
{

// The real dtypes (complex sums: tests/c/test_new_dtypes.cpp and the Python tests).
constexpr hk_dtype kDtypes[] = {HK_BOOL,   HK_INT8,  HK_UINT8,  HK_INT16,   HK_UINT16,  HK_INT32,
                                HK_UINT32, HK_INT64, HK_UINT64, HK_FLOAT16, HK_FLOAT32, HK_FLOAT64};
constexpr hk_reduce_op kOps[] = {HK_REDUCE_SUM,    HK_REDUCE_PROD,   HK_REDUCE_MIN, HK_REDUCE_MAX,
                                 HK_REDUCE_ARGMIN, HK_REDUCE_ARGMAX, HK_REDUCE_ANY, HK_REDUCE_ALL,
                                 HK_REDUCE_MEAN,   HK_REDUCE_VAR,    HK_REDUCE_STD};

inline size_t dsize(hk_dtype d)
{
    size_t s = 0;
    hk_dtype_size(d, &s);
    return s;
}
inline bool is_float(hk_dtype d)
{
    return d == HK_FLOAT16 || d == HK_FLOAT32 || d == HK_FLOAT64;
}
inline bool is_signed(hk_dtype d)
{
    return d == HK_INT8 || d == HK_INT16 || d == HK_INT32 || d == HK_INT64;
}
inline bool is_indexed(hk_reduce_op op)
{
    return op == HK_REDUCE_ARGMIN || op == HK_REDUCE_ARGMAX;
}
inline bool needs_identity(hk_reduce_op op)
{
    return op == HK_REDUCE_MIN || op == HK_REDUCE_MAX || is_indexed(op);
}

// The documented output dtype, written out again here (not taken from the library).
inline hk_dtype out_dtype(hk_reduce_op op, hk_dtype in)
{
    switch (op) {
    case HK_REDUCE_SUM:
    case HK_REDUCE_PROD:
        if (in == HK_UINT8 || in == HK_UINT16 || in == HK_UINT32 || in == HK_UINT64)
            return HK_UINT64;
        return is_float(in) ? in : HK_INT64;
    case HK_REDUCE_MIN:
    case HK_REDUCE_MAX: return in;
    case HK_REDUCE_ARGMIN:
    case HK_REDUCE_ARGMAX: return HK_INT64;
    case HK_REDUCE_ANY:
    case HK_REDUCE_ALL: return HK_BOOL;
    default: return is_float(in) ? in : HK_FLOAT64;
    }
}

// One element: its 64-bit integer pattern (sign-extended for signed types;
// bool as stored when raw, else 0/1) and its value.
struct Value {
    uint64_t bits = 0;
    long double f = 0;
};

inline Value read(const unsigned char *base, hk_dtype d, int64_t i, bool raw = false)
{
    Value v;
    const unsigned char *p = base + i * (int64_t)dsize(d);
    switch (d) {
    case HK_BOOL:
        v.bits = raw ? *p : (*p != 0);
        v.f = (long double)v.bits;
        break;
#define HKRED_INT(D, T)                                                                                                \
    case D: {                                                                                                          \
        T x;                                                                                                           \
        std::memcpy(&x, p, sizeof x);                                                                                  \
        v.bits = std::is_signed<T>::value ? (uint64_t)(int64_t)x : (uint64_t)x;                                        \
        v.f = (long double)x;                                                                                          \
        break;                                                                                                         \
    }
        HKRED_INT(HK_INT8, int8_t)
        HKRED_INT(HK_UINT8, uint8_t)
        HKRED_INT(HK_INT16, int16_t)
        HKRED_INT(HK_UINT16, uint16_t)
        HKRED_INT(HK_INT32, int32_t)
        HKRED_INT(HK_UINT32, uint32_t)
        HKRED_INT(HK_INT64, int64_t)
        HKRED_INT(HK_UINT64, uint64_t)
#undef HKRED_INT
    case HK_FLOAT16: {
        _Float16 x;
        std::memcpy(&x, p, 2);
        v.f = (long double)(float)x;
        break;
    }
    case HK_FLOAT32: {
        float x;
        std::memcpy(&x, p, 4);
        v.f = x;
        break;
    }
    case HK_FLOAT64: {
        double x;
        std::memcpy(&x, p, 8);
        v.f = x;
        break;
    }
    case HK_COMPLEX64:
    case HK_COMPLEX128: break; // not in kDtypes
    }
    return v;
}

// Store an integer pattern (integer dtypes, bool: nonzero is 1) or a value (floats).
inline void write(unsigned char *base, hk_dtype d, int64_t i, uint64_t bits, long double f)
{
    unsigned char *p = base + i * (int64_t)dsize(d);
    switch (d) {
    case HK_BOOL: *p = bits != 0; break;
    case HK_INT8:
    case HK_UINT8: *p = (unsigned char)bits; break;
    case HK_INT16:
    case HK_UINT16: {
        uint16_t x = (uint16_t)bits;
        std::memcpy(p, &x, 2);
        break;
    }
    case HK_INT32:
    case HK_UINT32: {
        uint32_t x = (uint32_t)bits;
        std::memcpy(p, &x, 4);
        break;
    }
    case HK_INT64:
    case HK_UINT64: std::memcpy(p, &bits, 8); break;
    case HK_FLOAT16: {
        _Float16 x = (_Float16)(float)f;
        std::memcpy(p, &x, 2);
        break;
    }
    case HK_FLOAT32: {
        float x = (float)f;
        std::memcpy(p, &x, 4);
        break;
    }
    case HK_FLOAT64: {
        double x = (double)f;
        std::memcpy(p, &x, 8);
        break;
    }
    case HK_COMPLEX64:
    case HK_COMPLEX128: break; // not in kDtypes
    }
}

// ------------------------------------------------------------------ data

enum class Data {
    Sum,     // integers: full 64-bit patterns (wrap-around); floats: k/8, |k| <= 64 (exact sums)
    Mean,    // small integers (exact in float64); floats as Sum
    Prod,    // integers: mostly odd; floats: +-1 and at most 12 of +-2, +-0.5 (exact products)
    Ties,    // few distinct values: ties everywhere
    Wide,    // full integer range; floats spread over +-1000 with some infinities
    AnyAll,  // zero with probability `zero_p` (floats: +0.0 or -0.0), else nonzero (NaN, inf too)
    Moments, // small integers; floats: uniform in [-4, 4] (not exact)
};

inline bool exact_data(Data d)
{
    return d != Data::Moments && d != Data::Wide;
}

// Fill elements [0, n) of pool (dtype d).
// powers: Prod's few +-2 and +-0.5 in floats; off for views that repeat
// elements (a stride of 0), where one thread's partial product may hold many
// copies of the same 2 and overflow (legitimately) in the dtype.
inline void fill(std::vector<unsigned char> &pool, hk_dtype d, int64_t n, Data kind, std::mt19937_64 &rng,
                 double zero_p = 0.5, bool powers = true)
{
    pool.assign((size_t)n * dsize(d), 0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    auto small_int = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const bool flt = is_float(d), sgn = is_signed(d);
    const bool narrow = d == HK_INT8 || d == HK_UINT8;
    for (int64_t i = 0; i < n; i++) {
        uint64_t bits = 0;
        long double f = 0;
        switch (kind) {
        case Data::Sum:
            bits = d == HK_BOOL ? rng() & 1 : rng();
            f = small_int(-64, 64) / 8.0L;
            break;
        case Data::Mean:
        case Data::Moments:
            if (narrow || d == HK_BOOL)
                bits = d == HK_BOOL ? rng() & 1 : rng();
            else
                bits = sgn ? (uint64_t)(int64_t)small_int(-1000, 1000) : (uint64_t)small_int(0, 2000);
            f = kind == Data::Mean ? small_int(-64, 64) / 8.0L : (long double)(unit(rng) * 8.0 - 4.0);
            break;
        case Data::Prod:
            bits = d == HK_BOOL ? (unit(rng) >= zero_p) : (rng() | (unit(rng) < 0.9 ? 1u : 0u));
            f = unit(rng) < 0.5 ? -1.0L : 1.0L;
            break;
        case Data::Ties:
            bits = d == HK_BOOL ? rng() & 1 : sgn ? (uint64_t)(int64_t)small_int(-3, 3) : (uint64_t)small_int(0, 6);
            f = small_int(-6, 6) / 2.0L;
            if (f == 0 && unit(rng) < 0.5)
                f = -0.0L;
            break;
        case Data::Wide:
            bits = d == HK_BOOL ? rng() & 1 : rng();
            f = unit(rng) < 0.01 ? (unit(rng) < 0.5 ? -INFINITY : INFINITY) : (long double)(unit(rng) * 2000 - 1000);
            break;
        case Data::AnyAll: {
            const bool zero = unit(rng) < zero_p;
            bits = zero ? 0 : (rng() | 1);
            static const long double nonzero[] = {0.5L, -3.0L, 1e-3L, NAN, INFINITY, -INFINITY, 7.0L};
            f = zero ? (unit(rng) < 0.5 ? 0.0L : -0.0L) : nonzero[small_int(0, 6)];
            break;
        }
        }
        write(pool.data(), d, i, bits, flt ? f : 0);
    }
    if (kind == Data::Prod && flt && powers) { // a few +-2 and +-0.5: every partial product within 2^+-12
        for (int k = 0; k < 12 && n > 0; k++) {
            const int64_t i = (int64_t)(rng() % (uint64_t)n);
            const long double v = (k % 2 ? 2.0L : 0.5L) * (unit(rng) < 0.5 ? -1 : 1);
            write(pool.data(), d, i, 0, v);
        }
    }
}

// ---------------------------------------------------------------- reference

// What one output element must be: an exact integer pattern, or a value
// within tol (NaN must be NaN, infinities must match).
struct Expect {
    bool exact = true;
    uint64_t bits = 0;
    long double value = 0;
    long double tol = 0;
    bool slack = true; // allow one unit in the last place of the output dtype
};

inline long double acc_eps(hk_dtype in)
{
    return in == HK_FLOAT16 || in == HK_FLOAT32 ? (long double)FLT_EPSILON : (long double)DBL_EPSILON;
}

// xs: the reduced elements of one output in C order over the reduced axes.
inline Expect reference(hk_reduce_op op, hk_dtype in, const std::vector<Value> &xs, int ddof, bool exact)
{
    Expect e;
    const int64_t n = (int64_t)xs.size();
    const bool flt = is_float(in);
    const long double eps = acc_eps(in);
    const long double chain = std::sqrt((long double)n) + 16; // error growth allowed for inexact data
    bool any_nan = false, any_inf = false;
    long double sum = 0, abs_sum = 0;
    for (const Value &x : xs) {
        any_nan = any_nan || std::isnan(x.f);
        any_inf = any_inf || std::isinf(x.f);
        sum += x.f;
        abs_sum += std::fabs(x.f);
    }
    switch (op) {
    case HK_REDUCE_SUM:
    case HK_REDUCE_PROD:
        if (!flt) {
            uint64_t acc = op == HK_REDUCE_SUM ? 0 : 1;
            for (const Value &x : xs)
                acc = op == HK_REDUCE_SUM ? acc + x.bits : acc * x.bits;
            e.bits = acc;
            return e;
        }
        e.exact = false;
        if (op == HK_REDUCE_SUM) {
            e.value = sum;
            e.tol = exact ? 0 : eps * abs_sum * chain;
        } else {
            long double p = 1;
            for (const Value &x : xs)
                p *= x.f;
            e.value = p;
        }
        return e;
    case HK_REDUCE_MIN:
    case HK_REDUCE_MAX:
    case HK_REDUCE_ARGMIN:
    case HK_REDUCE_ARGMAX: {
        const bool want_max = op == HK_REDUCE_MAX || op == HK_REDUCE_ARGMAX;
        int64_t best = 0;
        for (int64_t j = 1; j < n && !std::isnan(xs[best].f); j++) {
            const Value &x = xs[j], &b = xs[best];
            bool better;
            if (std::isnan(x.f))
                better = true;
            else if (flt)
                better = want_max ? x.f > b.f : x.f < b.f;
            else if (is_signed(in))
                better = want_max ? (int64_t)x.bits > (int64_t)b.bits : (int64_t)x.bits < (int64_t)b.bits;
            else
                better = want_max ? x.bits > b.bits : x.bits < b.bits;
            if (better)
                best = j;
        }
        if (is_indexed(op)) {
            e.bits = (uint64_t)best;
        } else if (flt) {
            e.exact = false;
            e.value = xs[best].f;
            e.slack = false;
        } else {
            e.bits = xs[best].bits;
        }
        return e;
    }
    case HK_REDUCE_ANY:
    case HK_REDUCE_ALL: {
        bool any = false, all = true;
        for (const Value &x : xs) {
            const bool t = flt ? (x.f != 0 || std::isnan(x.f)) : x.bits != 0;
            any = any || t;
            all = all && t;
        }
        e.bits = op == HK_REDUCE_ANY ? any : all;
        return e;
    }
    case HK_REDUCE_MEAN:
        e.exact = false;
        e.value = n ? sum / n : NAN;
        e.tol = n && !exact ? eps * abs_sum * chain / n : 0;
        return e;
    default: { // VAR, STD
        e.exact = false;
        if (n == 0 || any_nan || any_inf) {
            e.value = NAN;
            return e;
        }
        const long double mean = sum / n;
        long double m2 = 0, spread = 0;
        for (const Value &x : xs) {
            m2 += (x.f - mean) * (x.f - mean);
            spread += std::fabs(x.f - mean);
        }
        const int64_t dof = n - ddof;
        if (dof <= 0) {
            e.value = m2 == 0 ? NAN : INFINITY;
            return e;
        }
        const long double var = m2 / dof;
        const long double tol = 8 * eps * chain * (m2 + std::fabs(mean) * spread) / dof;
        if (op == HK_REDUCE_VAR) {
            e.value = var;
            e.tol = tol;
        } else {
            e.value = std::sqrt(var);
            e.tol = tol < var / 4 && var > 0 ? tol / (2 * std::sqrt(var) * 0.8L) : std::sqrt(tol);
        }
        return e;
    }
    }
}

// One unit in the last place of `out` at magnitude v (plus its smallest subnormal).
inline long double ulp(hk_dtype out, long double v)
{
    v = std::fabs(v);
    if (out == HK_FLOAT16)
        return v * 0x1p-10L + 0x1p-24L;
    if (out == HK_FLOAT32)
        return v * 0x1p-23L + 0x1p-149L;
    return v * 0x1p-52L + 0x1p-1074L;
}

inline long double round_to(hk_dtype out, long double v)
{
    if (out == HK_FLOAT16)
        return (long double)(float)(_Float16)v;
    if (out == HK_FLOAT32)
        return (long double)(float)v;
    return (long double)(double)v;
}

inline std::string show_value(long double v)
{
    std::ostringstream s;
    s << std::setprecision(21) << v;
    return s.str();
}

// Empty when got matches e, else what was wrong.
inline std::string mismatch(const Expect &e, hk_dtype out, const Value &got)
{
    if (e.exact) {
        if (got.bits == e.bits)
            return "";
        std::ostringstream s;
        if (out == HK_BOOL || out == HK_UINT8 || out == HK_UINT16 || out == HK_UINT32 || out == HK_UINT64)
            s << "got " << got.bits << ", expected " << e.bits;
        else
            s << "got " << (int64_t)got.bits << ", expected " << (int64_t)e.bits;
        return s.str();
    }
    const long double want = round_to(out, e.value);
    bool ok;
    if (std::isnan(e.value))
        ok = std::isnan(got.f);
    else if (std::isinf(want))
        ok = got.f == want;
    else
        ok = !std::isnan(got.f) && std::fabs(got.f - want) <= e.tol + (e.slack ? ulp(out, want) : 0);
    if (ok)
        return "";
    return "got " + show_value(got.f) + ", expected " + show_value(e.value) + " (tolerance " + show_value(e.tol) + ")";
}

// ------------------------------------------------------------------ cases

// A view of the input pool, the axes and the output form.
struct Case {
    std::string name;
    std::vector<int64_t> shape;
    std::vector<int64_t> strides; // empty: C-contiguous
    uint32_t axes = 0;
    bool keepdims = false;
    int out_form = 0;     // 0: contiguous; 1: every other element, first dim reversed (gaps stay poisoned)
    int64_t shift = 0;    // extra elements before the view (misaligns it)
    bool inexact = false; // the data was replaced by values whose sums round
    int64_t origin = 0;   // computed: element offset of index (0, ..., 0) in the pool
    int64_t pool = 0;     // computed: elements in the pool
};

inline std::vector<int64_t> c_strides(const std::vector<int64_t> &shape)
{
    std::vector<int64_t> s(shape.size());
    int64_t step = 1;
    for (size_t k = shape.size(); k-- > 0;) {
        s[k] = step;
        step *= shape[k] > 0 ? shape[k] : 1;
    }
    return s;
}

// Strides, origin and pool size of a case (negative strides start at the far end).
inline void place(Case &c)
{
    if (c.strides.empty())
        c.strides = c_strides(c.shape);
    int64_t low = 0, high = 0, total = 1;
    for (size_t k = 0; k < c.shape.size(); k++) {
        total *= c.shape[k];
        if (c.shape[k] > 0) {
            const int64_t reach = c.strides[k] * (c.shape[k] - 1);
            (reach < 0 ? low : high) += reach;
        }
    }
    c.origin = c.shift - low;
    c.pool = total ? c.origin + high + 1 : c.shift + 1;
}

inline int64_t count_of(const std::vector<int64_t> &shape)
{
    int64_t n = 1;
    for (int64_t e : shape)
        n *= e;
    return n;
}

// The output shape and its element strides for a case.
inline void out_view(const Case &c, std::vector<int64_t> &shape, std::vector<int64_t> &strides, int64_t &origin,
                     int64_t &pool)
{
    shape.clear();
    for (size_t k = 0; k < c.shape.size(); k++) {
        if (!(c.axes >> k & 1u))
            shape.push_back(c.shape[k]);
        else if (c.keepdims)
            shape.push_back(1);
    }
    strides = c_strides(shape);
    origin = 0;
    pool = std::max<int64_t>(count_of(shape), 1);
    if (c.out_form == 1 && !shape.empty()) {
        for (int64_t &s : strides)
            s *= 2;
        if (shape[0] > 1) {
            origin = strides[0] * (shape[0] - 1);
            strides[0] = -strides[0];
        }
        pool = 2 * pool + 1;
    }
}

inline hk_array make_array(void *data, hk_dtype dtype, const std::vector<int64_t> &shape,
                           const std::vector<int64_t> &strides)
{
    hk_array a{};
    a.data = data;
    a.dtype = dtype;
    a.ndim = (int)shape.size();
    for (size_t k = 0; k < shape.size(); k++) {
        a.shape[k] = shape[k];
        a.strides[k] = strides[k];
    }
    return a;
}

// Runs hk_reduce (or its emulation) on copies of the host pools: the views'
// data fields hold the element offset of their origin in the pool, not an
// address. Fills out_pool (poisoned by the caller); returns the status and
// sets error.
typedef std::function<hk_status(hk_reduce_op op, const std::vector<unsigned char> &in_pool, const hk_array &in,
                                uint32_t axes, std::vector<unsigned char> &out_pool, const hk_array &out, int ddof,
                                std::string &error)>
    Executor;

// The data regime each op is checked with (variant alternates for min/max).
inline Data data_for(hk_reduce_op op, int variant)
{
    switch (op) {
    case HK_REDUCE_SUM: return Data::Sum;
    case HK_REDUCE_PROD: return Data::Prod;
    case HK_REDUCE_MIN:
    case HK_REDUCE_MAX:
    case HK_REDUCE_ARGMIN:
    case HK_REDUCE_ARGMAX: return variant % 2 ? Data::Wide : Data::Ties;
    case HK_REDUCE_ANY:
    case HK_REDUCE_ALL: return Data::AnyAll;
    case HK_REDUCE_MEAN: return Data::Mean;
    default: return Data::Moments;
    }
}

// Probability of a zero that makes about half the outputs of ANY / ALL (or
// bool PROD) true, given the reduced count.
inline double zero_probability(hk_reduce_op op, int64_t count)
{
    const double half = count > 0 ? std::pow(0.5, 1.0 / (double)count) : 0.5;
    return op == HK_REDUCE_ANY ? half : 1.0 - half;
}

struct Outcome {
    size_t wrong = 0, checked = 0;
    std::string text;
};

// Run one case for (op, dtype) and compare every output element with the
// reference; `pool_override` (if non-empty) replaces the generated data.
// Returns failures as text (empty: all good).
inline std::string check_case(const Executor &run, hk_reduce_op op, hk_dtype dtype, Case c, std::mt19937_64 &rng,
                              int variant = 0, int ddof = 0,
                              const std::function<void(std::vector<unsigned char> &, const Case &)> &edit = nullptr)
{
    place(c);
    const hk_dtype od = out_dtype(op, dtype);
    std::vector<int64_t> oshape, ostrides;
    int64_t oorigin, opool;
    out_view(c, oshape, ostrides, oorigin, opool);
    int64_t count = 1;
    std::vector<int64_t> red_axes, kept_axes;
    for (size_t k = 0; k < c.shape.size(); k++) {
        if (c.axes >> k & 1u) {
            count *= c.shape[k];
            red_axes.push_back((int64_t)k);
        } else {
            kept_axes.push_back((int64_t)k);
        }
    }
    const Data kind = data_for(op, variant);
    std::vector<unsigned char> in_pool;
    const bool repeats = std::find(c.strides.begin(), c.strides.end(), (int64_t)0) != c.strides.end();
    fill(in_pool, dtype, c.pool, kind, rng,
         kind == Data::AnyAll || kind == Data::Prod ? zero_probability(op == HK_REDUCE_PROD ? HK_REDUCE_ALL : op, count)
                                                    : 0.5,
         !repeats);
    if (edit)
        edit(in_pool, c);
    std::vector<unsigned char> out_pool((size_t)opool * dsize(od), 0xFF);
    hk_array in = make_array(reinterpret_cast<void *>((uintptr_t)c.origin), dtype, c.shape, c.strides);
    hk_array out = make_array(reinterpret_cast<void *>((uintptr_t)oorigin), od, oshape, ostrides);
    std::string error;
    const int64_t outputs = count_of(oshape);
    const bool refused = (is_indexed(op) && red_axes.size() != 1 && red_axes.size() != c.shape.size()) ||
                         (needs_identity(op) && count == 0 && outputs > 0);
    hk_status s = run(op, in_pool, in, c.axes, out_pool, out, ddof, error);
    std::ostringstream report;
    const std::string where = std::string(hk_reduce_op_name(op)) + " of " + hk_dtype_name(dtype) + ", case \"" +
                              c.name + "\", ddof " + std::to_string(ddof) + ": ";
    if (refused) {
        if (s != HK_ERROR_INVALID_ARGUMENT)
            return where + "expected HK_ERROR_INVALID_ARGUMENT, got " + hk_status_name(s) + " (" + error + ")\n";
        for (unsigned char b : out_pool)
            if (b != 0xFF)
                return where + "refused, yet it wrote to out\n";
        return "";
    }
    if (s != HK_SUCCESS)
        return where + "failed with " + hk_status_name(s) + ": " + error + "\n";
    // Walk the outputs in C order over the kept axes, the reduced elements in C
    // order over the reduced axes.
    std::vector<char> written(out_pool.size() / dsize(od), 0);
    std::vector<int64_t> kidx(kept_axes.size(), 0), ridx(red_axes.size(), 0);
    std::vector<Value> xs;
    xs.reserve((size_t)count);
    size_t wrong = 0;
    for (int64_t o = 0; o < outputs; o++) {
        int64_t rest = o, base = c.origin, obase = oorigin;
        for (size_t k = kept_axes.size(); k-- > 0;) {
            const int64_t e = c.shape[(size_t)kept_axes[k]];
            kidx[k] = rest % e;
            rest /= e;
            base += kidx[k] * c.strides[(size_t)kept_axes[k]];
        }
        // the out index: kept axes in order, reduced ones 0 (keepdims) or absent
        size_t ok = 0;
        for (size_t k = 0, j = 0; k < c.shape.size(); k++) {
            if (c.axes >> k & 1u) {
                if (c.keepdims)
                    ok++;
            } else {
                obase += kidx[j++] * ostrides[ok++];
            }
        }
        xs.clear();
        for (int64_t j = 0; j < count; j++) {
            int64_t r = j, off = base;
            for (size_t k = red_axes.size(); k-- > 0;) {
                const int64_t e = c.shape[(size_t)red_axes[k]];
                off += (r % e) * c.strides[(size_t)red_axes[k]];
                r /= e;
            }
            xs.push_back(read(in_pool.data(), dtype, off));
        }
        const Expect e = reference(op, dtype, xs, ddof, exact_data(kind) && !c.inexact);
        const Value got = read(out_pool.data(), od, obase, true);
        written[(size_t)obase] = 1;
        const std::string m = mismatch(e, od, got);
        if (!m.empty() && wrong++ < 6) {
            report << "  output " << o << " (kept index";
            for (int64_t v : kidx)
                report << " " << v;
            report << "): " << m << "\n";
        }
    }
    size_t stray = 0;
    for (size_t i = 0; i < written.size(); i++) {
        if (written[i])
            continue;
        for (size_t b = 0; b < dsize(od); b++)
            if (out_pool[i * dsize(od) + b] != 0xFF)
                stray++;
    }
    if (wrong == 0 && stray == 0)
        return "";
    std::ostringstream head;
    head << where << wrong << " of " << outputs << " outputs wrong";
    if (stray)
        head << ", " << stray << " bytes outside the output view written";
    head << " (reduced count " << count << ")\n";
    return head.str() + report.str();
}

} // namespace hkred

#endif
