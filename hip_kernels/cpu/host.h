// host.h: the host half of the vendor seam (src/gpu/device.h is the device
// half), for the CPU device's skeletons (hip_kernels/cpu/*.cpp), which are
// compiled by the system C++ compiler with HKC_HOST defined. It gives the
// shared headers (common/ops.h, common/dtype_traits.h, common/dispatch.h)
// what they take from a device compiler: HK_DEVICE, the bit casts, and
// hk_dev's half-precision conversions, so each op's meaning is the same code
// on the CPU device as on the GPUs.
#ifndef HIPKIT_CPU_HOST_H
#define HIPKIT_CPU_HOST_H

#include <stdint.h>
#include <string.h>

#if !defined(HKC_HOST)
#error "cpu/host.h is for the CPU device's skeletons, compiled with HKC_HOST"
#endif

#define HK_DEVICE inline

// The device compilers' bit casts, as memcpy (which compilers turn into a move).
inline float __int_as_float(int v)
{
    float f;
    memcpy(&f, &v, sizeof f);
    return f;
}
inline unsigned int __float_as_uint(float v)
{
    unsigned int u;
    memcpy(&u, &v, sizeof u);
    return u;
}
inline double __longlong_as_double(long long v)
{
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}
inline long long __double_as_longlong(double v)
{
    long long u;
    memcpy(&u, &v, sizeof u);
    return u;
}

namespace hk_dev
{

// IEEE half <-> float through the half's 16 bits, as the device's
// __half2float and __float2half_rn: exact widening, and narrowing rounded to
// nearest even with overflow to infinity, subnormals kept, NaN kept quiet
// (sign and top payload bits).
inline float half_bits_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    uint32_t bits;
    if (exponent == 0x1f) { // inf or NaN
        bits = sign | 0x7f800000u | (mantissa << 13) | (mantissa ? 0x400000u : 0u);
    } else if (exponent != 0) { // normal
        bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else if (mantissa == 0) { // zero
        bits = sign;
    } else { // subnormal: normalise
        int e = -1;
        do {
            e++;
            mantissa <<= 1;
        } while ((mantissa & 0x400u) == 0);
        bits = sign | ((uint32_t)(112 - e) << 23) | ((mantissa & 0x3ffu) << 13);
    }
    return __int_as_float((int)bits);
}

inline uint16_t float_to_half_bits(float f)
{
    const uint32_t x = __float_as_uint(f);
    const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    const uint32_t abs = x & 0x7fffffffu;
    if (abs > 0x7f800000u) // NaN: quiet, top payload bits kept
        return (uint16_t)(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
    if (abs >= 0x477ff000u) // rounds to 65520 or more: infinity
        return (uint16_t)(sign | 0x7c00u);
    if (abs >= 0x38800000u) { // normal half (2^-14 and up)
        uint32_t mant = abs & 0x7fffffu;
        uint32_t exp = (abs >> 23) - 112u;
        uint32_t half = (exp << 10) | (mant >> 13);
        const uint32_t rest = mant & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
            half++; // may carry into the exponent, correctly
        return (uint16_t)(sign | half);
    }
    if (abs < 0x33000000u) // below half the smallest subnormal (2^-25): zero
        return sign;
    // subnormal half: value = mant * 2^-24
    const uint32_t exp = abs >> 23;          // 102 .. 112
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - exp;       // 14 .. 24
    uint32_t half = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (half & 1u)))
        half++;
    return (uint16_t)(sign | half);
}

// The high half of a full-width product (magic-number division).
inline uint32_t mulhi(uint32_t a, uint32_t b)
{
    return (uint32_t)(((uint64_t)a * b) >> 32);
}
inline uint64_t mulhi(uint64_t a, uint64_t b)
{
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

} // namespace hk_dev

#endif
