// philox.h: the random numbers themselves, written once for random.hip and the CPU device's
// cpu/random.cpp: Philox4x32-10, the counter and key each Philox block gets, and the block's
// words turned into E = 16 / sizeof(T) numbers, as hipkit.h (hk_random_uniform) specifies them.
// Compiled by the device compilers, and by the host compiler with HKC_HOST, where the device
// math's sincospi is given by double arithmetic (the only function the host library lacks).
#ifndef HIPKIT_RANDOM_PHILOX_H
#define HIPKIT_RANDOM_PHILOX_H

#include <stdint.h>

#if defined(HKC_HOST)
#include <math.h>

#include "cpu/host.h"
#define HK_PHILOX_UNROLL _Pragma("GCC unroll 16")
#else
#include "common/hipkit_device.h"
#define HK_PHILOX_UNROLL _Pragma("unroll")
#endif

namespace hk_philox
{

// Philox4x32 multipliers and Weyl key increments (Random123).
constexpr uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;
// 2^-24 and 2^-53, written exactly.
constexpr float kTwoToMinus24 = 5.9604644775390625e-08f;
constexpr double kTwoToMinus53 = 1.1102230246251565404236316680908203125e-16;

// One round on the counter (c0, c1, c2, c3) with the round's key (k0, k1).
HK_DEVICE void philox_round(uint32_t &c0, uint32_t &c1, uint32_t &c2, uint32_t &c3, uint32_t k0, uint32_t k1)
{
    const uint64_t p0 = (uint64_t)kPhiloxM0 * c0;
    const uint64_t p1 = (uint64_t)kPhiloxM1 * c2;
    const uint32_t next0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
    const uint32_t next2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c0 = next0;
    c1 = (uint32_t)p1;
    c2 = next2;
    c3 = (uint32_t)p0;
}

// The key of round `round` (0 .. 9): the Weyl sequence from the seed's key.
HK_DEVICE uint32_t round_key0(uint32_t k0, int round)
{
    return k0 + (uint32_t)round * kPhiloxW0;
}
HK_DEVICE uint32_t round_key1(uint32_t k1, int round)
{
    return k1 + (uint32_t)round * kPhiloxW1;
}

// Ten rounds on the counter c, in place.
HK_DEVICE void philox4x32_10(uint32_t c[4], uint32_t k0, uint32_t k1)
{
    HK_PHILOX_UNROLL
    for (int round = 0; round < 10; round++)
        philox_round(c[0], c[1], c[2], c[3], round_key0(k0, round), round_key1(k1, round));
}

HK_DEVICE float uniform24(uint32_t w)
{
    return (float)(w >> 8) * kTwoToMinus24;
}

HK_DEVICE uint64_t bits53(uint32_t lo, uint32_t hi)
{
    return (((uint64_t)hi << 32) | lo) >> 11;
}

#if defined(HKC_HOST)
// sin(pi x) and cos(pi x) for the host: x reduced exactly by quarter turns (x = n / 2 + r, |r| <=
// 1/4), pi r with pi split in two so the product is good to an ulp of the result, then the
// quadrant's signs and swap. Within an ulp or so of the device functions.
inline void sincospi(double x, double *s, double *c)
{
    const double kPiHi = 3.141592653589793116, kPiLo = 1.224646799147353207e-16;
    const double n = nearbyint(2.0 * x);
    const double r = x - 0.5 * n; // exact
    const double t = fma(kPiHi, r, kPiLo * r);
    const double st = sin(t), ct = cos(t);
    switch ((int64_t)n & 3) { // 0.0 - v: +0, not -0, at whole quarter turns, as the device gives
    case 0: *s = st, *c = ct; break;
    case 1: *s = ct, *c = 0.0 - st; break;
    case 2: *s = 0.0 - st, *c = 0.0 - ct; break;
    default: *s = 0.0 - ct, *c = st; break;
    }
}
// float: in double, then rounded once (closer than the device's float function).
inline void sincospif(float x, float *s, float *c)
{
    double sd, cd;
    sincospi((double)x, &sd, &cd);
    *s = (float)sd;
    *c = (float)cd;
}
#endif

// The E numbers of one block: a = low, b = high - low (uniform), or a = mean,
// b = stddev (normal), already in T (draw_parameters).
template <typename T, bool Normal> struct block_values;

template <> struct block_values<float, false> {
    HK_DEVICE static void make(const uint32_t w[4], float a, float b, float out[4])
    {
        HK_PHILOX_UNROLL
        for (int k = 0; k < 4; k++)
            out[k] = fmaf(b, uniform24(w[k]), a);
    }
};

template <> struct block_values<double, false> {
    HK_DEVICE static void make(const uint32_t w[4], double a, double b, double out[2])
    {
        HK_PHILOX_UNROLL
        for (int k = 0; k < 2; k++)
            out[k] = fma(b, (double)bits53(w[2 * k], w[2 * k + 1]) * kTwoToMinus53, a);
    }
};

template <> struct block_values<float, true> {
    HK_DEVICE static void make(const uint32_t w[4], float a, float b, float out[4])
    {
        HK_PHILOX_UNROLL
        for (int m = 0; m < 2; m++) {
            const float u1 = (float)((w[2 * m] >> 8) + 1) * kTwoToMinus24; // (0, 1]
            const float u2 = uniform24(w[2 * m + 1]);
            const float r = sqrtf(-2.0f * logf(u1));
            float s, c;
            sincospif(2.0f * u2, &s, &c);
            out[2 * m] = fmaf(b, r * c, a);
            out[2 * m + 1] = fmaf(b, r * s, a);
        }
    }
};

template <> struct block_values<double, true> {
    HK_DEVICE static void make(const uint32_t w[4], double a, double b, double out[2])
    {
        const double u1 = (double)(bits53(w[0], w[1]) + 1) * kTwoToMinus53; // (0, 1]
        const double u2 = (double)bits53(w[2], w[3]) * kTwoToMinus53;
        const double r = sqrt(-2.0 * log(u1));
        double s, c;
        sincospi(2.0 * u2, &s, &c);
        out[0] = fma(b, r * c, a);
        out[1] = fma(b, r * s, a);
    }
};

// Numbers per Philox block.
template <typename T> constexpr unsigned per_block()
{
    return 16 / sizeof(T);
}

// Which key and counter each block gets (hipkit.h): key (seed low, seed high), counter (block low,
// block high, sub-stream, 0), the sub-stream telling the four kinds of draw apart.
struct stream_key {
    uint32_t key0, key1, substream;
};
template <typename T, bool Normal> inline stream_key key_of(uint64_t seed)
{
    return stream_key{(uint32_t)seed, (uint32_t)(seed >> 32), (Normal ? 2u : 0u) + (sizeof(T) == 8 ? 1u : 0u)};
}

// Block `block`'s counter.
HK_DEVICE void counter_of(uint64_t block, const stream_key &key, uint32_t c[4])
{
    c[0] = (uint32_t)block;
    c[1] = (uint32_t)(block >> 32);
    c[2] = key.substream;
    c[3] = 0u;
}

// Block `block`'s E numbers of the draw (key, a, b) into out.
template <typename T, bool Normal>
HK_DEVICE void make_block(uint64_t block, const stream_key &key, T a, T b, T out[16 / sizeof(T)])
{
    uint32_t w[4];
    counter_of(block, key, w);
    philox4x32_10(w, key.key0, key.key1);
    block_values<T, Normal>::make(w, a, b, out);
}

// The call's (a, b) as block_values takes them, in T: (mean, stddev), or (low, high - low) with
// high - low subtracted in T, as hipkit.h specifies.
template <typename T> inline void draw_parameters(int normal, double a, double b, T *ta, T *tb)
{
    *ta = (T)a;
    *tb = normal ? (T)b : (T)b - (T)a;
}

} // namespace hk_philox

#endif
