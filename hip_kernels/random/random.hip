// random.hip: Philox4x32-10 counter-based random numbers, uniform and normal,
// float32 and float64. hipkit.h (hk_random_uniform) defines which bits each
// element gets; here one thread computes one Philox block per loop step and
// writes the E = 16 / sizeof(T) elements made from it.
#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "common/hipkit_device.h"
#include "common/launch.h"
#include "gpu/gpu.h"
#include "random/random.h"

namespace
{

// Philox4x32 multipliers and Weyl key increments (Random123).
constexpr uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;
// 2^-24 and 2^-53, written exactly.
constexpr float kTwoToMinus24 = 5.9604644775390625e-08f;
constexpr double kTwoToMinus53 = 1.1102230246251565404236316680908203125e-16;

// Ten rounds on the counter c, in place.
HK_DEVICE void philox4x32_10(uint32_t c[4], uint32_t k0, uint32_t k1)
{
#pragma unroll
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k0 += kPhiloxW0;
            k1 += kPhiloxW1;
        }
        const uint64_t p0 = (uint64_t)kPhiloxM0 * c[0];
        const uint64_t p1 = (uint64_t)kPhiloxM1 * c[2];
        const uint32_t next0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0;
        const uint32_t next2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
        c[0] = next0;
        c[1] = (uint32_t)p1;
        c[2] = next2;
        c[3] = (uint32_t)p0;
    }
}

HK_DEVICE float uniform24(uint32_t w)
{
    return (float)(w >> 8) * kTwoToMinus24;
}

HK_DEVICE uint64_t bits53(uint32_t lo, uint32_t hi)
{
    return (((uint64_t)hi << 32) | lo) >> 11;
}

// The E numbers of one block: a = low, b = high - low (uniform), or a = mean,
// b = stddev (normal), already in T.
template <typename T, bool Normal> struct block_values;

template <> struct block_values<float, false> {
    HK_DEVICE static void make(const uint32_t w[4], float a, float b, float out[4])
    {
#pragma unroll
        for (int k = 0; k < 4; k++)
            out[k] = fmaf(b, uniform24(w[k]), a);
    }
};

template <> struct block_values<double, false> {
    HK_DEVICE static void make(const uint32_t w[4], double a, double b, double out[2])
    {
#pragma unroll
        for (int k = 0; k < 2; k++)
            out[k] = fma(b, (double)bits53(w[2 * k], w[2 * k + 1]) * kTwoToMinus53, a);
    }
};

template <> struct block_values<float, true> {
    HK_DEVICE static void make(const uint32_t w[4], float a, float b, float out[4])
    {
#pragma unroll
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

template <typename T> struct alignas(16) block_of {
    T v[16 / sizeof(T)];
};

// Element e of the call is number (e + head) % E of block first_block +
// (e + head) / E; thread j makes block j of the call. With Vector, blocks the
// call covers whole are stored with one 16-byte store (dst - head is aligned).
template <typename T, bool Normal, bool Vector>
__global__ void random_kernel(T *dst, size_t n, size_t blocks, uint64_t first_block, unsigned head, uint32_t key0,
                              uint32_t key1, uint32_t substream, T a, T b)
{
    constexpr unsigned E = 16 / sizeof(T);
    for (size_t j = hk_global_index(); j < blocks; j += hk_grid_stride()) {
        const uint64_t block = first_block + j;
        uint32_t w[4] = {(uint32_t)block, (uint32_t)(block >> 32), substream, 0u};
        philox4x32_10(w, key0, key1);
        block_of<T> values;
        block_values<T, Normal>::make(w, a, b, values.v);
        const size_t start = j * E; // element index + head of number 0
        if (Vector && start >= head && start - head + E <= n) {
            *reinterpret_cast<block_of<T> *>(dst + (start - head)) = values;
        } else {
#pragma unroll
            for (unsigned k = 0; k < E; k++) {
                const size_t e = start + k;
                if (e >= head && e - head < n)
                    dst[e - head] = values.v[k];
            }
        }
    }
}

template <typename T, bool Normal>
int launch_random(const hkk_launch *l, T *dst, size_t n, uint64_t seed, uint64_t offset, T a, T b)
{
    constexpr unsigned E = 16 / sizeof(T);
    const unsigned head = (unsigned)(offset % E);
    // n * sizeof(T) fits the address space, so head + n cannot overflow.
    const size_t blocks = (head + n + E - 1) / E;
    const uint32_t substream = (Normal ? 2u : 0u) + (sizeof(T) == 8 ? 1u : 0u);
    const uint32_t key0 = (uint32_t)seed, key1 = (uint32_t)(seed >> 32);
    const bool vector = (((uintptr_t)dst - head * sizeof(T)) & 15u) == 0;
    const dim3 grid = hk_grid_for(l, blocks, HK_BLOCK);
    if (vector)
        random_kernel<T, Normal, true>
            <<<grid, HK_BLOCK, 0, hk_vendor_stream(l)>>>(dst, n, blocks, offset / E, head, key0, key1, substream, a, b);
    else
        random_kernel<T, Normal, false>
            <<<grid, HK_BLOCK, 0, hk_vendor_stream(l)>>>(dst, n, blocks, offset / E, head, key0, key1, substream, a, b);
    return hk_launch_error();
}

template <typename T>
int random_typed(const hkk_launch *l, int normal, void *dst, size_t n, uint64_t seed, uint64_t offset, double a,
                 double b)
{
    T *out = static_cast<T *>(dst);
    if (normal)
        return launch_random<T, true>(l, out, n, seed, offset, (T)a, (T)b);
    // high - low is subtracted in T, as hipkit.h specifies.
    return launch_random<T, false>(l, out, n, seed, offset, (T)a, (T)b - (T)a);
}

} // namespace

extern "C" int hkk_random(const hkk_launch *l, hk_dtype dtype, int normal, void *dst, size_t n, uint64_t seed,
                          uint64_t offset, double a, double b)
{
    return hk_dispatch::dispatch<HK_DTYPE_BIT(HK_FLOAT32) | HK_DTYPE_BIT(HK_FLOAT64)>(dtype, [&](auto tag) {
        return random_typed<typename hk_dt::traits<decltype(tag)::value>::compute>(l, normal, dst, n, seed, offset, a,
                                                                                   b);
    });
}
