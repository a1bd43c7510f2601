// random.cpp: the CPU device's Philox random numbers, the same as random.hip's: both take the
// block's counter, key and numbers from random/philox.h, and number e of the call is number
// (head + e) % E of block offset / E + (head + e) / E, head = offset % E, as there. Uniforms are
// the GPU's bits; normals differ only where the host math library's log, sqrt, sin and cos round
// otherwise than the device's. Blocks are split between threads in contiguous chunks.
#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "cpu/cpu.h"
#include "cpu/parallel.h"
#include "random/philox.h"

namespace
{

// Philox blocks one thread makes at least (a block costs some tens of cycles).
constexpr int64_t kGrainBlocks = 1 << 12;
// Blocks made together, so the compiler can run their rounds side by side in vector registers.
constexpr int kBatch = 16;

// The call's blocks [begin, end) (of `head + n` numbers from block first_block on) into dst.
template <typename T, bool Normal> struct chunk {
    T *dst;
    size_t n;
    uint64_t first_block;
    unsigned head;
    hk_philox::stream_key key;
    T a, b;

    __attribute__((always_inline)) inline void run(int64_t begin, int64_t end) const
    {
        constexpr unsigned E = hk_philox::per_block<T>();
        T values[kBatch][E];
        for (int64_t j0 = begin; j0 < end; j0 += kBatch) {
            const int count = end - j0 < kBatch ? (int)(end - j0) : kBatch;
            // make_block for kBatch blocks at once, its counters as four rows.
            uint32_t w[4][kBatch];
            for (int t = 0; t < kBatch; t++) {
                uint32_t c[4];
                hk_philox::counter_of(first_block + (uint64_t)(j0 + t), key, c);
                for (int r = 0; r < 4; r++)
                    w[r][t] = c[r];
            }
            for (int round = 0; round < 10; round++) {
                const uint32_t k0 = hk_philox::round_key0(key.key0, round), k1 = hk_philox::round_key1(key.key1, round);
#pragma GCC unroll 1 // kept a loop, which the vectoriser takes (it leaves a fully unrolled one scalar)
                for (int t = 0; t < kBatch; t++)
                    hk_philox::philox_round(w[0][t], w[1][t], w[2][t], w[3][t], k0, k1);
            }
            for (int t = 0; t < count; t++) {
                const uint32_t words[4] = {w[0][t], w[1][t], w[2][t], w[3][t]};
                hk_philox::block_values<T, Normal>::make(words, a, b, values[t]);
            }
            // Numbers start * E + k, less head, are the call's elements 0 .. n-1.
            const size_t start = (size_t)j0 * E;
            if (start >= head && start - head + (size_t)count * E <= n) {
                T *out = dst + (start - head);
                for (int t = 0; t < count; t++)
                    for (unsigned k = 0; k < E; k++)
                        out[t * E + k] = values[t][k];
            } else {
                for (int t = 0; t < count; t++)
                    for (unsigned k = 0; k < E; k++) {
                        const size_t e = start + (size_t)t * E + k;
                        if (e >= head && e - head < n)
                            dst[e - head] = values[t][k];
                    }
            }
        }
    }
};

template <typename T, bool Normal> void run_baseline(const chunk<T, Normal> &c, int64_t begin, int64_t end)
{
    c.run(begin, end);
}
#if defined(__x86_64__)
// The same code for CPUs with AVX2 and FMA: the rounds in 8 lanes, fmaf one instruction (the
// results are the same bits: fma rounds once either way).
template <typename T, bool Normal>
__attribute__((target("avx2,fma"))) void run_avx2(const chunk<T, Normal> &c, int64_t begin, int64_t end)
{
    c.run(begin, end);
}
#endif

template <typename T, bool Normal>
void draw(T *dst, size_t n, uint64_t first_block, unsigned head, const hk_philox::stream_key &key, T a, T b)
{
    constexpr unsigned E = hk_philox::per_block<T>();
    const int64_t blocks = (int64_t)((head + n + E - 1) / E);
    const chunk<T, Normal> c = {dst, n, first_block, head, key, a, b};
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        hkc::parallel_for(blocks, kGrainBlocks, [&](int64_t begin, int64_t end) { run_avx2(c, begin, end); });
        return;
    }
#endif
    hkc::parallel_for(blocks, kGrainBlocks, [&](int64_t begin, int64_t end) { run_baseline(c, begin, end); });
}

template <typename T>
int random_typed(int normal, void *dst, size_t n, uint64_t seed, uint64_t offset, double a, double b)
{
    constexpr unsigned E = hk_philox::per_block<T>();
    T ta, tb;
    hk_philox::draw_parameters<T>(normal, a, b, &ta, &tb);
    T *out = static_cast<T *>(dst);
    const unsigned head = (unsigned)(offset % E);
    if (normal)
        draw<T, true>(out, n, offset / E, head, hk_philox::key_of<T, true>(seed), ta, tb);
    else
        draw<T, false>(out, n, offset / E, head, hk_philox::key_of<T, false>(seed), ta, tb);
    return 0;
}

} // namespace

extern "C" int hkc_random(hk_dtype dtype, int normal, void *dst, size_t n, uint64_t seed, uint64_t offset, double a,
                          double b)
{
    if (n == 0)
        return 0;
    return hk_dispatch::dispatch<HK_DTYPE_BIT(HK_FLOAT32) | HK_DTYPE_BIT(HK_FLOAT64)>(dtype, [&](auto tag) {
        return random_typed<typename hk_dt::traits<decltype(tag)::value>::compute>(normal, dst, n, seed, offset, a, b);
    });
}
