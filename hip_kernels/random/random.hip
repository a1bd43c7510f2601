// random.hip: Philox4x32-10 counter-based random numbers, uniform and normal,
// float32 and float64. hipkit.h (hk_random_uniform) defines which bits each
// element gets and random/philox.h computes them; here one thread computes one
// Philox block per loop step and writes the E = 16 / sizeof(T) elements made
// from it.
#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "common/hipkit_device.h"
#include "common/launch.h"
#include "gpu/gpu.h"
#include "random/philox.h"
#include "random/random.h"

namespace
{

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
    constexpr unsigned E = hk_philox::per_block<T>();
    const hk_philox::stream_key key = {key0, key1, substream};
    for (size_t j = hk_global_index(); j < blocks; j += hk_grid_stride()) {
        block_of<T> values;
        hk_philox::make_block<T, Normal>(first_block + j, key, a, b, values.v);
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
    constexpr unsigned E = hk_philox::per_block<T>();
    const unsigned head = (unsigned)(offset % E);
    // n * sizeof(T) fits the address space, so head + n cannot overflow.
    const size_t blocks = (head + n + E - 1) / E;
    const hk_philox::stream_key key = hk_philox::key_of<T, Normal>(seed);
    const bool vector = (((uintptr_t)dst - head * sizeof(T)) & 15u) == 0;
    const dim3 grid = hk_grid_for(l, blocks, HK_BLOCK);
    if (vector)
        random_kernel<T, Normal, true><<<grid, HK_BLOCK, 0, hk_vendor_stream(l)>>>(
            dst, n, blocks, offset / E, head, key.key0, key.key1, key.substream, a, b);
    else
        random_kernel<T, Normal, false><<<grid, HK_BLOCK, 0, hk_vendor_stream(l)>>>(
            dst, n, blocks, offset / E, head, key.key0, key.key1, key.substream, a, b);
    return hk_launch_error();
}

template <typename T>
int random_typed(const hkk_launch *l, int normal, void *dst, size_t n, uint64_t seed, uint64_t offset, double a,
                 double b)
{
    T *out = static_cast<T *>(dst);
    T ta, tb;
    hk_philox::draw_parameters<T>(normal, a, b, &ta, &tb);
    return normal ? launch_random<T, true>(l, out, n, seed, offset, ta, tb)
                  : launch_random<T, false>(l, out, n, seed, offset, ta, tb);
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
