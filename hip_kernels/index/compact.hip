// compact.hip: stream compaction of a contiguous bool mask (NumPy's nonzero, flatnonzero and
// in[mask]): the true elements in order, written as their positions or as in's elements there.
//
// One pass over tiles of TILE mask bytes (BLOCK threads x ITEMS consecutive bytes, read as 16-byte
// vectors when the mask is 16-byte aligned), with a decoupled look-back over the tiles' true counts
// (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016; as in
// scan/scan.hip): a block takes the next tile id from an atomic counter (so every tile it waits for
// belongs to a block already running: no deadlock, and a grid smaller than the tile count simply
// takes tiles until none is left), counts the tile's true elements with a block scan of its
// threads' counts, publishes the count, lists the tile's true positions in shared memory (in order)
// while one warp looks back over the preceding tiles for the tile's offset, then the block writes
// its results from that offset together, so neighbouring lanes store neighbouring results
// (coalesced, whatever the density). The sink says what a result is: a flat position, C-order
// coordinates (32-bit divisions when n < 2^32), or an element of `in` moved as a 1..16-byte unit.
// A mask of one tile needs no look-back and no scratch. Results past args->count are never written.
//
// Tile states: one 64-bit word each, flag in the top two bits and the count below (n < 2^62), so a
// state is published and read with single 64-bit accesses and needs no fence.
#include <stdint.h>

#include "common/dtype_traits.h"
#include "common/hipkit_device.h"
#include "common/launch.h"
#include "common/lookback.h"
#include "gpu/device.h"
#include "gpu/gpu.h"
#include "index/compact.h"

namespace
{

using namespace hk_dev;
using namespace hk_lookback;

constexpr int BLOCK = 256;
constexpr int ITEMS = 32;                        // consecutive mask bytes per thread (two 16-byte loads)
constexpr int UNROLL = 4;                        // results loaded before they are stored (in[i] for values)
constexpr int VECTORS = ITEMS / 16;              // 16-byte loads per thread
constexpr int64_t TILE = (int64_t)BLOCK * ITEMS; // 8192: tile positions fit 16 bits
constexpr int MAX_WARPS = BLOCK / 32;            // warps per block on a 32-lane device (64 lanes: half)
// 8 resident blocks per multiprocessor (32 registers on NVIDIA): more tiles loading while others look
// back. H200, 2^26 random bools, flat positions: 0.113 ms, against 0.129 with no minimum and 0.23
// with 16 items a thread (CuPy's nonzero: 0.61 ms); 4-byte values 0.139 ms (0.28 with UNROLL 1).
[[maybe_unused]] constexpr int MIN_BLOCKS = 8; // AMD's launch bounds take no block count
constexpr int64_t MAX_GRID = (int64_t)1 << 20;   // blocks (AMD counts grid x block in 32 bits); they take every tile

static_assert(TILE <= 65536, "tile positions are kept as 16-bit numbers");
static_assert(ITEMS % 16 == 0 && ITEMS <= 32, "a thread's flags are one 32-bit word of 16-byte loads");

// ---- tile states

typedef unsigned long long state_word;
constexpr state_word FLAG_AGGREGATE = 1ull << 62, FLAG_INCLUSIVE = 2ull << 62, FLAGS = 3ull << 62;
constexpr int64_t MAX_N = ((int64_t)1 << 62) - 1;
// Scratch: a 16-byte tile counter, then one state per tile, all zeroed before the launch.
constexpr size_t COUNTER_BYTES = 16;

// ---- the mask's flags

struct alignas(16) bytes16 {
    uint32_t w[4];
};

// Bit 0 of each byte of w set where that byte is nonzero, every other bit clear.
HK_DEVICE uint32_t nonzero_bytes(uint32_t w)
{
    w |= w >> 4; // bits 0..3 of each byte: its own 8 bits OR-ed in pairs (higher bits are garbage)
    w |= w >> 2;
    w |= w >> 1;
    return w & 0x01010101u;
}

// Bit k (k < 4) set where byte k of w is nonzero: the four byte flags gathered by one multiply
// (x * (1 + 2^7 + 2^14 + 2^21) puts byte k's flag at bit 21 + k, no two terms meeting there).
HK_DEVICE uint32_t byte_flags(uint32_t w)
{
    return (nonzero_bytes(w) * 0x00204081u) >> 21 & 0xFu;
}

// Bit v set where tile element t * ITEMS + v is true (and inside the mask).
template <bool VEC> HK_DEVICE uint32_t load_flags(const uint8_t *mask, int64_t start, int64_t valid, int t)
{
    if (VEC && valid == TILE) {
        const bytes16 *p = reinterpret_cast<const bytes16 *>(mask + start) + (int64_t)t * VECTORS;
        uint32_t bits = 0;
#pragma unroll
        for (int r = 0; r < VECTORS; r++) {
            const bytes16 b = p[r];
#pragma unroll
            for (int q = 0; q < 4; q++)
                bits |= byte_flags(b.w[q]) << (16 * r + 4 * q);
        }
        return bits;
    }
    uint32_t bits = 0;
    const int64_t first = (int64_t)t * ITEMS;
#pragma unroll
    for (int v = 0; v < ITEMS; v++)
        if (first + v < valid && mask[start + first + v] != 0)
            bits |= 1u << v;
    return bits;
}

HK_DEVICE int warp_inclusive_sum(int x)
{
    const int lane = hk_lane();
    for (int d = 1; d < warpSize; d <<= 1) {
        const int y = shfl_up(x, d);
        if (lane >= d)
            x += y;
    }
    return x;
}

// ---- sinks: what result j, of true position i, is

// out[j * stride] = i: flat C-order positions.
struct flat_sink {
    typedef int64_t value;
    int64_t *out;
    int64_t stride;
    HK_DEVICE value load(int64_t i) const { return i; }
    HK_DEVICE void store(int64_t j, value i) const { out[j * stride] = i; }
};

// rows[d][j * strides[d]] = coordinate d of i in shape; I is the division's type (uint32_t when n
// and so every coordinate and quotient fit 32 bits: several times cheaper than 64-bit division).
template <typename I> struct coords_sink {
    typedef int64_t value;
    int ndim;
    int64_t shape[HKK_COMPACT_MAX_DIMS];
    int64_t *rows[HKK_COMPACT_MAX_DIMS];
    int64_t strides[HKK_COMPACT_MAX_DIMS];
    HK_DEVICE value load(int64_t i) const { return i; }
    HK_DEVICE void store(int64_t j, value i) const
    {
        I rest = (I)i;
        for (int d = ndim - 1; d > 0; d--) {
            const I extent = (I)shape[d];
            const I q = rest / extent;
            rows[d][j * strides[d]] = (int64_t)(rest - q * extent);
            rest = q;
        }
        rows[0][j * strides[0]] = (int64_t)rest;
    }
};

// out[j * stride] = in[i], elements moved as units of their size.
template <typename U> struct values_sink {
    typedef U value;
    const U *in;
    U *out;
    int64_t stride;
    HK_DEVICE value load(int64_t i) const { return in[i]; }
    HK_DEVICE void store(int64_t j, value v) const { out[j * stride] = v; }
};

// ---- the kernel. counter/states NULL: one tile (at offset 0), taken by the one block.

// Warp-collective (warp 0): the number of true elements before `tile`, from the states of the
// tiles before it, a warp-wide window at a time (lane 0 the nearest) until one holds an inclusive
// count. Valid in lane 0.
HK_DEVICE int64_t look_back(const state_word *states, int64_t tile, unsigned ns)
{
    const int lane = hk_lane();
    int64_t exclusive = 0;
    for (int64_t end = tile;; end -= warpSize) { // tiles [end - warpSize, end) next
        const int64_t j = end - 1 - lane;
        const bool live = j >= 0; // lanes before the first tile read as an inclusive 0
        state_word w;
        for (;;) {
            w = live ? load_relaxed(&states[j]) : FLAG_INCLUSIVE;
            if (warp_ballot((w & FLAGS) == 0) == 0)
                break;
            backoff_poll(ns);
        }
        const lanemask inclusive = warp_ballot((w & FLAGS) == FLAG_INCLUSIVE);
        const int stop = inclusive ? (int)__ffsll((unsigned long long)inclusive) - 1 : warpSize;
        exclusive += hk_warp_sum(lane <= stop ? (int64_t)(w & ~FLAGS) : (int64_t)0);
        if (inclusive)
            return exclusive;
    }
}

template <typename Sink, bool VEC>
__global__ HK_LAUNCH_BOUNDS_MIN_BLOCKS(BLOCK, MIN_BLOCKS) void compact_kernel(const uint8_t *mask, int64_t n, int64_t tiles, int64_t count,
                                                        unsigned long long *counter, state_word *states,
                                                        unsigned lookback_ns, Sink sink)
{
    __shared__ uint16_t s_local[TILE]; // the tile's true positions, in order
    __shared__ int s_warp[MAX_WARPS];
    __shared__ int64_t s_tile, s_base;
    const int t = (int)threadIdx.x, lane = hk_lane(), warp = hk_warp_index();
    const int warps = BLOCK / warpSize;
    for (;;) {
        if (t == 0)
            s_tile = counter ? (int64_t)atomicAdd(counter, 1ull) : (int64_t)blockIdx.x;
        __syncthreads(); // also: every thread is done with the previous tile's shared memory
        const int64_t tile = s_tile;
        if (tile >= tiles)
            return; // the same for every thread of the block
        const int64_t start = tile * TILE, valid = n - start < TILE ? n - start : TILE;
        uint32_t bits = load_flags<VEC>(mask, start, valid, t);
        const int c = (int)__popc(bits);
        const int inclusive = warp_inclusive_sum(c);
        if (lane == warpSize - 1)
            s_warp[warp] = inclusive;
        __syncthreads();
        int before = 0, total = 0;
        for (int w = 0; w < warps; w++) {
            if (w < warp)
                before += s_warp[w];
            total += s_warp[w];
        }
        if (t == 0 && states) // published first, so the tiles after this one can go on
            store_relaxed(&states[tile], (tile == 0 ? FLAG_INCLUSIVE : FLAG_AGGREGATE) | (state_word)total);
        int p = before + inclusive - c;
        while (bits) {
            const int v = __ffs(bits) - 1;
            bits &= bits - 1;
            s_local[p++] = (uint16_t)(t * ITEMS + v);
        }
        if (warp == 0) {
            int64_t base = 0;
            if (states && tile > 0) {
                backoff_first(lookback_ns);
                base = look_back(states, tile, lookback_ns);
                if (lane == 0)
                    store_relaxed(&states[tile], FLAG_INCLUSIVE | (state_word)(base + total));
            }
            if (lane == 0)
                s_base = base;
        }
        __syncthreads();
        const int64_t base = s_base, room = count - base;
        const int last = room < total ? (room > 0 ? (int)room : 0) : total;
        for (int k0 = t; k0 < last; k0 += BLOCK * UNROLL) { // UNROLL loads in flight before their stores
            typename Sink::value v[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                if (k0 + u * BLOCK < last)
                    v[u] = sink.load(start + s_local[k0 + u * BLOCK]);
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                if (k0 + u * BLOCK < last)
                    sink.store(base + k0 + u * BLOCK, v[u]);
        }
        if (!counter)
            return;
    }
}

int64_t tiles_of(int64_t n)
{
    return (n + TILE - 1) / TILE;
}

// Look-back pauses: HIPKIT_LOOKBACK_NS if set, else none for a small grid (a pause would only add
// latency) and the scan's 700 / 1100 ns for a large one.
unsigned compact_lookback_ns(const hkk_launch *l, int64_t tiles)
{
    if (l->tuning && l->tuning->lookback_ns_given)
        return lookback_ns_wanted(l);
    return tiles >= 500 ? 700u | 1100u << 16 : 0u;
}

template <typename Sink> int launch(const hkk_launch *l, const hkk_compact_args *a, void *scratch, const Sink &sink)
{
    const uint8_t *mask = static_cast<const uint8_t *>(a->mask);
    const int64_t tiles = tiles_of(a->n);
    unsigned long long *counter = nullptr;
    state_word *states = nullptr;
    if (tiles > 1) {
        if (!scratch)
            return (int)hipErrorInvalidValue;
        counter = static_cast<unsigned long long *>(scratch);
        states = reinterpret_cast<state_word *>(static_cast<char *>(scratch) + COUNTER_BYTES);
        const hipError_t e =
            hipMemsetAsync(scratch, 0, COUNTER_BYTES + (size_t)tiles * sizeof(state_word), hk_vendor_stream(l));
        if (e != hipSuccess)
            return (int)e;
    }
    const dim3 grid((unsigned)(tiles < MAX_GRID ? tiles : MAX_GRID));
    const unsigned ns = compact_lookback_ns(l, tiles);
    if (hk_aligned16(mask))
        return hk_launcher<compact_kernel<Sink, true>>::launch(l, grid, dim3(BLOCK), 0, mask, a->n, tiles, a->count,
                                                                counter, states, ns, sink);
    return hk_launcher<compact_kernel<Sink, false>>::launch(l, grid, dim3(BLOCK), 0, mask, a->n, tiles, a->count,
                                                             counter, states, ns, sink);
}

template <typename I> int launch_coords(const hkk_launch *l, const hkk_compact_args *a, void *scratch)
{
    coords_sink<I> sink;
    sink.ndim = a->ndim;
    for (int d = 0; d < HKK_COMPACT_MAX_DIMS; d++) {
        const bool used = d < a->ndim;
        sink.shape[d] = used ? a->shape[d] : 1;
        sink.rows[d] = used ? a->rows[d] : nullptr;
        sink.strides[d] = used ? a->row_strides[d] : 0;
    }
    return launch(l, a, scratch, sink);
}

template <typename U> int launch_values(const hkk_launch *l, const hkk_compact_args *a, void *scratch)
{
    const values_sink<U> sink = {static_cast<const U *>(a->in), static_cast<U *>(a->out), a->out_stride};
    return launch(l, a, scratch, sink);
}

} // namespace

extern "C" size_t hkk_compact_scratch_bytes(const hkk_launch *l, const hkk_compact_args *a)
{
    (void)l;
    const int64_t tiles = a->n > 0 && a->n <= MAX_N ? tiles_of(a->n) : 0;
    return tiles > 1 ? COUNTER_BYTES + (size_t)tiles * sizeof(state_word) : 0;
}

extern "C" int hkk_compact(const hkk_launch *l, const hkk_compact_args *a, void *scratch)
{
    if (a->n <= 0 || a->count <= 0)
        return (int)hipSuccess;
    if (a->n > MAX_N)
        return (int)hipErrorInvalidValue; // 2^62 mask bytes: beyond any memory
    if (a->mode == HKK_COMPACT_POSITIONS) {
        if (a->ndim == 1)
            return launch(l, a, scratch, flat_sink{a->rows[0], a->row_strides[0]});
        if (a->ndim < 1 || a->ndim > HKK_COMPACT_MAX_DIMS)
            return (int)hipErrorInvalidValue;
        return a->n <= (int64_t)UINT32_MAX ? launch_coords<uint32_t>(l, a, scratch)
                                           : launch_coords<uint64_t>(l, a, scratch);
    }
    if (a->mode != HKK_COMPACT_VALUES)
        return (int)hipErrorInvalidValue;
    switch (a->item_bytes) {
    case 1: return launch_values<hk_dt::uint_of_size<1>::type>(l, a, scratch);
    case 2: return launch_values<hk_dt::uint_of_size<2>::type>(l, a, scratch);
    case 4: return launch_values<hk_dt::uint_of_size<4>::type>(l, a, scratch);
    case 8: return launch_values<hk_dt::uint_of_size<8>::type>(l, a, scratch);
    case 16: return launch_values<hk_dt::uint_of_size<16>::type>(l, a, scratch);
    }
    return (int)hipErrorInvalidValue;
}
