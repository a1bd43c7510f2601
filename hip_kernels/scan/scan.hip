// scan.hip: inclusive cumsum / cumprod along one axis of strided N-d views.
//
// Four skeletons, generic over the element types and the op:
//  - scan_lookback_kernel: long rows (and the 1-d case). A single pass over
//    tiles with decoupled look-back (Merrill & Garland, "Single-pass Parallel
//    Prefix Scan with Decoupled Look-back", 2016): each block takes the next
//    tile id from an atomic counter (so every tile it waits for belongs to a
//    block that is already running: no deadlock), scans its tile in registers
//    and shared memory, publishes its aggregate, then one warp looks back over
//    the preceding tiles of the same row (a warp-wide window at a time) until
//    it meets an inclusive prefix, and publishes its own inclusive prefix.
//    Contiguous rows use 16-byte vector loads and stores.
//  - scan_columns_kernel: rows interleaved in memory (a scan along an outer
//    axis): a tile is 256 neighbouring rows x a chunk along them, one thread
//    per row (neighbouring threads read neighbouring elements), with a
//    decoupled look-back per row over the preceding chunks.
//  - scan_warp_rows_kernel: many medium rows; one warp per row, warp-wide
//    scans of warpSize elements carried along the row.
//  - scan_thread_rows_kernel: very short rows: one thread per row.
// Elements accumulate in NumPy's cumsum/cumprod dtype (hk_dt::accumulate):
// integers as uint64 (two's complement wrap-around gives the same bits for
// int64 and uint64 results); float16 in float32, each output rounded once;
// float32/float64 in their own type.
#include <stdlib.h>
#include <string.h>

#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "common/hipkit_device.h"
#include "common/launch.h"
#include "common/lookback.h"
#include "common/ops.h"
#include "gpu/device.h"
#include "gpu/gpu.h"
#include "scan/scan.h"
#include "scan/scan_ops.h"

namespace
{

using namespace hk_dev;
using namespace hk_lookback;
using namespace hk_scan_ops;

constexpr int SCAN_BLOCK = 256;
constexpr int MAX_WARPS = SCAN_BLOCK / 32; // warps per block on a 32-lane device (64 lanes: half)

// The element types (scan_types) and the ops with their identities (scan_op):
// scan/scan_ops.h, shared with the CPU device.

template <typename A, typename Op> HK_DEVICE A warp_inclusive_scan(A x, Op op)
{
    const int lane = hk_lane();
    for (int d = 1; d < warpSize; d <<= 1) {
        const A y = shfl_up(x, d);
        if (lane >= d)
            x = op(y, x);
    }
    return x;
}

// Every lane's value combined; the result is valid in lane 0.
template <typename A, typename Op> HK_DEVICE A warp_reduce(A x, Op op)
{
    for (int d = warpSize / 2; d > 0; d >>= 1)
        x = op(x, shfl_down(x, d));
    return x;
}

template <typename T, int N> struct alignas(16) pack {
    T v[N];
};

// Element offsets of row r in view 0 (in) and view 1 (out).
HK_DEVICE void row_offsets(const hkk_rows &rows, int64_t r, int64_t &in_offset, int64_t &out_offset)
{
    int64_t a = 0, b = 0;
    for (int k = rows.ndim - 1; k >= 0; k--) {
        const int64_t extent = rows.shape[k];
        const int64_t c = r % extent;
        r /= extent;
        a += c * rows.strides[0][k];
        b += c * rows.strides[1][k];
    }
    in_offset = a;
    out_offset = b;
}

// ---- tile states for the look-back

// The bits of a value as an unsigned integer of the same size, and back.
template <typename To, typename From> HK_DEVICE To bit_cast(From value)
{
    static_assert(sizeof(To) == sizeof(From), "bit_cast between different sizes");
    To out;
    __builtin_memcpy(&out, &value, sizeof out);
    return out;
}

constexpr uint32_t FLAG_NONE = 0, FLAG_AGGREGATE = 1, FLAG_INCLUSIVE = 2;

// 4-byte accumulators: flag and value in one 64-bit word, published and read
// with single 64-bit accesses (no fence needed).
// 8-byte accumulators: a flag array and two value arrays (aggregate,
// inclusive); the value is stored, then a fence, then the flag; readers load
// the flag, fence, then the value.
template <typename A, bool PACKED = sizeof(A) == 4> struct tile_state;

template <typename A> struct tile_state<A, true> {
    unsigned long long *words;

    static size_t bytes(size_t tiles) { return tiles * sizeof(unsigned long long); }
    static size_t zeroed_bytes(size_t tiles) { return bytes(tiles); }
    static HK_DEVICE unsigned long long word(uint32_t flag, A value)
    {
        return ((unsigned long long)flag << 32) | (unsigned long long)bit_cast<uint32_t>(value);
    }
    HK_DEVICE void publish(int64_t tile, uint32_t flag, A value) { store_relaxed(&words[tile], word(flag, value)); }
    // Warp-collective: waits until every lane with `live` sees a state, then
    // returns it; lanes without `live` report an inclusive identity.
    HK_DEVICE void read(int64_t tile, bool live, A identity, uint32_t &flag, A &value, unsigned ns) const
    {
        unsigned long long w;
        for (;;) {
            w = live ? load_relaxed(&words[tile]) : word(FLAG_INCLUSIVE, identity);
            if (warp_ballot((uint32_t)(w >> 32) == FLAG_NONE) == 0)
                break;
            backoff_poll(ns);
        }
        flag = (uint32_t)(w >> 32);
        value = bit_cast<A>((uint32_t)w);
    }
    // One lane on its own: waits until state `i` is published.
    HK_DEVICE void read_one(int64_t i, uint32_t &flag, A &value, unsigned ns) const
    {
        unsigned long long w;
        while ((uint32_t)((w = load_relaxed(&words[i])) >> 32) == FLAG_NONE)
            backoff_poll(ns);
        flag = (uint32_t)(w >> 32);
        value = bit_cast<A>((uint32_t)w);
    }
};

template <typename A> struct tile_state<A, false> {
    uint32_t *flags;
    unsigned long long *aggregates;
    unsigned long long *inclusives;

    static size_t flag_bytes(size_t tiles) { return (tiles * sizeof(uint32_t) + 15) / 16 * 16; }
    static size_t bytes(size_t tiles) { return flag_bytes(tiles) + 2 * tiles * sizeof(unsigned long long); }
    static size_t zeroed_bytes(size_t tiles) { return flag_bytes(tiles); }
    HK_DEVICE void publish(int64_t tile, uint32_t flag, A value)
    {
        unsigned long long *slot = flag == FLAG_INCLUSIVE ? &inclusives[tile] : &aggregates[tile];
        store_relaxed(slot, bit_cast<unsigned long long>(value));
        __threadfence();
        store_relaxed(&flags[tile], flag);
    }
    HK_DEVICE void read(int64_t tile, bool live, A identity, uint32_t &flag, A &value, unsigned ns) const
    {
        uint32_t f;
        for (;;) {
            f = live ? load_relaxed(&flags[tile]) : FLAG_INCLUSIVE;
            if (warp_ballot(f == FLAG_NONE) == 0)
                break;
            backoff_poll(ns);
        }
        __threadfence();
        value =
            live ? bit_cast<A>(load_relaxed(f == FLAG_INCLUSIVE ? &inclusives[tile] : &aggregates[tile])) : identity;
        flag = f;
    }
    HK_DEVICE void read_one(int64_t i, uint32_t &flag, A &value, unsigned ns) const
    {
        uint32_t f;
        while ((f = load_relaxed(&flags[i])) == FLAG_NONE)
            backoff_poll(ns);
        __threadfence();
        value = bit_cast<A>(load_relaxed(f == FLAG_INCLUSIVE ? &inclusives[i] : &aggregates[i]));
        flag = f;
    }
};

// Items per thread: V consecutive elements (one 16-byte vector of input) in
// each of R rows of the tile; 16 items for 4-byte accumulators, 8 for 8-byte.
template <typename In> struct tiling {
    typedef scan_types<In> types;
    static constexpr int V = 16 / (int)sizeof(typename types::storage);
    static constexpr int TARGET = sizeof(typename types::acc) == 4 ? 16 : 8;
    static constexpr int R = TARGET / V > 0 ? TARGET / V : 1;
    static constexpr int64_t TILE = (int64_t)SCAN_BLOCK * V * R;
};
template <typename In> int64_t tile_size()
{
    return tiling<In>::TILE;
}

// The look-back kernel comes in two register budgets: CAPPED for 8 blocks of
// SCAN_BLOCK threads per multiprocessor (32 registers on NVIDIA), so that
// more tiles load while others wait on their look-back (float32 2^28 on the
// H200: 0.69 -> 0.85 x CUB, 0.98 with the look-back pauses), and UNCAPPED.
// Default: capped for 4-byte accumulators, uncapped for 8-byte ones (capped,
// they spill); HIPKIT_SCAN_VARIANT=capped|uncapped forces one (bench knob).
// Uncapped is __launch_bounds__(SCAN_BLOCK, 0): a minimum of 1 block lets
// nvcc spend 56 registers instead of 39 on float32 (4 blocks per SM, not 6).
enum { VARIANT_CAPPED = 0, VARIANT_UNCAPPED = 1 };
template <typename In> int variant(const hkk_launch *l)
{
    if (l->tuning && l->tuning->scan_variant >= 0)
        return l->tuning->scan_variant == 0 ? (int)VARIANT_CAPPED : (int)VARIANT_UNCAPPED;
    return sizeof(typename scan_types<In>::acc) == 4 ? (int)VARIANT_CAPPED : (int)VARIANT_UNCAPPED;
}

// Look-back pauses (backoff_poll/backoff_first, packed): HIPKIT_LOOKBACK_NS
// if set, else 700 ns between polls and 1100 ns before the first (CUB's
// figures for float32 on sm_90 are 688 and 1140) when the grid is large
// enough for tiles to wait on each other; none for small grids, where a
// pause would only add latency.
unsigned scan_lookback_ns(const hkk_launch *l, int64_t tiles)
{
    if (l->tuning && l->tuning->lookback_ns_given)
        return lookback_ns_wanted(l);
    return tiles >= 500 ? 700u | 1100u << 16 : 0u;
}

// Scratch layout of the look-back: a 16-byte tile counter, then the states.
constexpr size_t COUNTER_BYTES = 16;

// ---- skeleton 1: single-pass scan with decoupled look-back

template <typename In, int OP, int VARIANT>
__global__ __launch_bounds__(SCAN_BLOCK, VARIANT == VARIANT_CAPPED ? 8 : 0) void scan_lookback_kernel(
    const typename scan_types<In>::storage *in, typename scan_types<In>::out *out, int64_t length, int64_t in_stride,
    int64_t out_stride, hkk_rows rows, int64_t tiles_per_row, uint32_t *counter,
    tile_state<typename scan_types<In>::acc> state, unsigned lookback_ns)
{
    typedef scan_types<In> types;
    typedef typename types::storage S;
    typedef typename types::acc A;
    typedef typename types::out O;
    typedef tiling<In> tl;
    constexpr int V = tl::V, R = tl::R;
    const scan_op<A, OP> op;
    const A identity = scan_op<A, OP>::identity();

    __shared__ uint32_t s_tile;
    __shared__ A s_warp[R][MAX_WARPS];
    __shared__ A s_prefix;

    const int t = (int)threadIdx.x, lane = hk_lane(), warp = hk_warp_index();
    const int warps = SCAN_BLOCK / warpSize;
    if (t == 0)
        s_tile = atomicAdd(counter, 1u);
    __syncthreads();
    const int64_t tile = (int64_t)s_tile;
    const int64_t row = tile / tiles_per_row, tile_in_row = tile - row * tiles_per_row;
    int64_t in_offset, out_offset;
    row_offsets(rows, row, in_offset, out_offset);
    const S *src = in + in_offset;
    O *dst = out + out_offset;
    const int64_t start = tile_in_row * tl::TILE;
    const int64_t valid = length - start < tl::TILE ? length - start : tl::TILE;
    const bool vector = in_stride == 1 && out_stride == 1 && valid == tl::TILE && hk_aligned16(src + start) &&
                        hk_aligned16(dst + start);

    // Element (k, v) of thread t is tile element k * SCAN_BLOCK * V + t * V + v.
    A x[R][V];
    if (vector) {
        const pack<S, V> *p = reinterpret_cast<const pack<S, V> *>(src + start);
#pragma unroll
        for (int k = 0; k < R; k++) {
            const pack<S, V> chunk = p[k * SCAN_BLOCK + t];
#pragma unroll
            for (int v = 0; v < V; v++)
                x[k][v] = types::load(chunk.v[v]);
        }
    } else {
#pragma unroll
        for (int k = 0; k < R; k++)
#pragma unroll
            for (int v = 0; v < V; v++) {
                const int64_t e = (int64_t)k * SCAN_BLOCK * V + t * V + v;
                x[k][v] = e < valid ? types::load(src[(start + e) * in_stride]) : identity;
            }
    }

    // Thread-local inclusive scans, then warp scans of the thread totals.
    A warp_exclusive[R];
#pragma unroll
    for (int k = 0; k < R; k++) {
#pragma unroll
        for (int v = 1; v < V; v++)
            x[k][v] = op(x[k][v - 1], x[k][v]);
        const A inclusive = warp_inclusive_scan(x[k][V - 1], op);
        const A before = shfl_up(inclusive, 1);
        warp_exclusive[k] = lane == 0 ? identity : before;
        if (lane == warpSize - 1)
            s_warp[k][warp] = inclusive;
    }
    __syncthreads();

    // Each thread walks the R x warps totals in tile order: its warp's prefix
    // per k, and the tile's aggregate.
    A running = identity, thread_prefix[R];
#pragma unroll
    for (int k = 0; k < R; k++) {
        thread_prefix[k] = identity;
        for (int w = 0; w < warps; w++) {
            if (w == warp)
                thread_prefix[k] = op(running, warp_exclusive[k]);
            running = op(running, s_warp[k][w]);
        }
    }
    const A aggregate = running;

    if (warp == 0) {
        A exclusive = identity;
        if (tile_in_row == 0) {
            if (lane == 0)
                state.publish(tile, FLAG_INCLUSIVE, aggregate);
        } else {
            if (lane == 0)
                state.publish(tile, FLAG_AGGREGATE, aggregate);
            backoff_first(lookback_ns);
            const int64_t row_first = tile - tile_in_row;
            int64_t end = tile; // tiles [end - warpSize, end) are examined next; lane 0 the nearest
            while (true) {
                const int64_t j = end - 1 - lane;
                const bool live = j >= row_first;
                uint32_t flag;
                A value;
                state.read(live ? j : 0, live, identity, flag, value, lookback_ns);
                const lanemask inclusive = warp_ballot(flag == FLAG_INCLUSIVE); // lanes before the row count as such
                const int stop = inclusive ? (int)__ffsll((unsigned long long)inclusive) - 1 : warpSize;
                const A window = warp_reduce(lane <= stop ? value : identity, op);
                exclusive = op(window, exclusive);
                if (inclusive)
                    break;
                end -= warpSize;
            }
            if (lane == 0)
                state.publish(tile, FLAG_INCLUSIVE, op(exclusive, aggregate));
        }
        if (lane == 0)
            s_prefix = exclusive;
    }
    __syncthreads();
    const A tile_prefix = s_prefix;

    if (vector) {
        pack<O, V> *p = reinterpret_cast<pack<O, V> *>(dst + start);
#pragma unroll
        for (int k = 0; k < R; k++) {
            const A prefix = op(tile_prefix, thread_prefix[k]);
            pack<O, V> chunk;
#pragma unroll
            for (int v = 0; v < V; v++)
                chunk.v[v] = types::store(op(prefix, x[k][v]));
            p[k * SCAN_BLOCK + t] = chunk;
        }
    } else {
#pragma unroll
        for (int k = 0; k < R; k++) {
            const A prefix = op(tile_prefix, thread_prefix[k]);
#pragma unroll
            for (int v = 0; v < V; v++) {
                const int64_t e = (int64_t)k * SCAN_BLOCK * V + t * V + v;
                if (e < valid)
                    dst[(start + e) * out_stride] = types::store(op(prefix, x[k][v]));
            }
        }
    }
}

// ---- skeleton 2: rows that interleave in memory (a scan along an outer
// axis). A tile is SCAN_BLOCK neighbouring rows x CHUNK consecutive positions
// along them: thread t scans its row's CHUNK elements (neighbouring threads
// read neighbouring elements), publishes the chunk's aggregate, looks back
// along its own row over the preceding chunks (tile ids from the counter,
// chunk-major within a group of rows, so every chunk waited for belongs to a
// running block), publishes its inclusive prefix and writes.

template <typename In> struct column_tiling {
    static constexpr int CHUNK = sizeof(typename scan_types<In>::acc) == 4 ? 32 : 16;
};

template <typename In, int OP>
__global__ __launch_bounds__(SCAN_BLOCK) void scan_columns_kernel(const typename scan_types<In>::storage *in,
                                                                  typename scan_types<In>::out *out, int64_t length,
                                                                  int64_t in_stride, int64_t out_stride, hkk_rows rows,
                                                                  int64_t row_count, int64_t chunks, uint32_t *counter,
                                                                  tile_state<typename scan_types<In>::acc> state,
                                                                  unsigned lookback_ns)
{
    typedef scan_types<In> types;
    typedef typename types::acc A;
    constexpr int CHUNK = column_tiling<In>::CHUNK;
    const scan_op<A, OP> op;
    const A identity = scan_op<A, OP>::identity();
    __shared__ uint32_t s_tile;
    const int t = (int)threadIdx.x;
    if (t == 0)
        s_tile = atomicAdd(counter, 1u);
    __syncthreads();
    const int64_t tile = (int64_t)s_tile;
    const int64_t group = tile / chunks, chunk = tile - group * chunks;
    const int64_t row = group * SCAN_BLOCK + t;
    if (row >= row_count)
        return; // no tile ever waits for this row's states
    int64_t in_offset, out_offset;
    row_offsets(rows, row, in_offset, out_offset);
    const int64_t start = chunk * CHUNK;
    const int64_t valid = length - start < CHUNK ? length - start : CHUNK;
    A x[CHUNK];
#pragma unroll
    for (int c = 0; c < CHUNK; c++)
        x[c] = c < valid ? types::load(in[in_offset + (start + c) * in_stride]) : identity;
#pragma unroll
    for (int c = 1; c < CHUNK; c++)
        x[c] = op(x[c - 1], x[c]);
    const A aggregate = x[CHUNK - 1];
    const int64_t slot = tile * SCAN_BLOCK + t; // the state of (row, chunk); (row, chunk - 1) is SCAN_BLOCK before
    A exclusive = identity;
    if (chunk == 0) {
        state.publish(slot, FLAG_INCLUSIVE, aggregate);
    } else {
        state.publish(slot, FLAG_AGGREGATE, aggregate);
        for (int64_t j = slot - SCAN_BLOCK;; j -= SCAN_BLOCK) {
            uint32_t flag;
            A value;
            state.read_one(j, flag, value, lookback_ns);
            exclusive = op(value, exclusive);
            if (flag == FLAG_INCLUSIVE)
                break;
        }
        state.publish(slot, FLAG_INCLUSIVE, op(exclusive, aggregate));
    }
#pragma unroll
    for (int c = 0; c < CHUNK; c++)
        if (c < valid)
            out[out_offset + (start + c) * out_stride] = types::store(op(exclusive, x[c]));
}

// ---- skeleton 3: one warp per row

template <typename In, int OP>
__global__ __launch_bounds__(SCAN_BLOCK) void scan_warp_rows_kernel(const typename scan_types<In>::storage *in,
                                                                    typename scan_types<In>::out *out, int64_t length,
                                                                    int64_t in_stride, int64_t out_stride,
                                                                    hkk_rows rows, int64_t row_count)
{
    typedef scan_types<In> types;
    typedef typename types::acc A;
    const scan_op<A, OP> op;
    const A identity = scan_op<A, OP>::identity();
    const int lane = hk_lane();
    const int64_t warps_per_block = SCAN_BLOCK / warpSize;
    const int64_t first = (int64_t)blockIdx.x * warps_per_block + hk_warp_index();
    const int64_t step = (int64_t)gridDim.x * warps_per_block;
    for (int64_t row = first; row < row_count; row += step) { // uniform across the warp
        int64_t in_offset, out_offset;
        row_offsets(rows, row, in_offset, out_offset);
        A carry = identity;
        for (int64_t base = 0; base < length; base += warpSize) {
            const int64_t i = base + lane;
            A x = i < length ? types::load(in[in_offset + i * in_stride]) : identity;
            x = op(carry, warp_inclusive_scan(x, op));
            if (i < length)
                out[out_offset + i * out_stride] = types::store(x);
            carry = shfl_idx(x, warpSize - 1);
        }
    }
}

// ---- skeleton 4: one thread per row, sequential (NumPy's own order)

template <typename In, int OP>
__global__ __launch_bounds__(SCAN_BLOCK) void scan_thread_rows_kernel(const typename scan_types<In>::storage *in,
                                                                      typename scan_types<In>::out *out, int64_t length,
                                                                      int64_t in_stride, int64_t out_stride,
                                                                      hkk_rows rows, int64_t row_count)
{
    typedef scan_types<In> types;
    typedef typename types::acc A;
    const scan_op<A, OP> op;
    for (int64_t row = (int64_t)hk_global_index(); row < row_count; row += (int64_t)hk_grid_stride()) {
        int64_t in_offset, out_offset;
        row_offsets(rows, row, in_offset, out_offset);
        A carry = scan_op<A, OP>::identity();
        for (int64_t i = 0; i < length; i++) {
            carry = op(carry, types::load(in[in_offset + i * in_stride]));
            out[out_offset + i * out_stride] = types::store(carry);
        }
    }
}

// ---- host side: which skeleton, how much scratch, the launches

enum scan_kind { THREAD_ROWS, WARP_ROWS, COLUMNS, LOOKBACK };

int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

// Rows interleave when the innermost other dimension is closer in memory
// than the scanned axis (a scan along an outer axis): then neighbouring
// threads, one per row, read neighbouring elements.
scan_kind choose(const hkk_scan_args *a)
{
    const int64_t L = a->length, R = a->rows;
    const hkk_rows &rows = a->rows_layout;
    const bool interleaved = rows.ndim > 0 && abs64(rows.strides[0][rows.ndim - 1]) < abs64(a->in_stride);
    if (R > 1 && L <= 16)
        return THREAD_ROWS;
    if (interleaved && R >= 128)
        return COLUMNS;
    if (L >= 2048 || R < 1024)
        return LOOKBACK;
    return WARP_ROWS;
}

// Tiles and look-back states of the two look-back skeletons.
template <typename In>
void tiles_and_states(const hkk_scan_args *a, scan_kind kind, int64_t &tiles, int64_t &per, int64_t &states)
{
    if (kind == COLUMNS) {
        const int64_t groups = (a->rows + SCAN_BLOCK - 1) / SCAN_BLOCK;
        per = (a->length + column_tiling<In>::CHUNK - 1) / column_tiling<In>::CHUNK; // chunks per group
        tiles = groups * per;
        states = tiles * SCAN_BLOCK;
    } else {
        per = (a->length + tile_size<In>() - 1) / tile_size<In>(); // tiles per row
        tiles = per * a->rows;
        states = tiles;
    }
}

template <typename In> size_t scratch_typed(const hkk_scan_args *a)
{
    const scan_kind kind = choose(a);
    if (kind != LOOKBACK && kind != COLUMNS)
        return 0;
    int64_t tiles, per, states;
    tiles_and_states<In>(a, kind, tiles, per, states);
    return COUNTER_BYTES + tile_state<typename scan_types<In>::acc>::bytes((size_t)states);
}

template <typename In, int OP> int launch_typed(const hkk_launch *l, const hkk_scan_args *a, void *scratch)
{
    typedef scan_types<In> types;
    typedef typename types::storage S;
    typedef typename types::out O;
    typedef typename types::acc A;
    const S *in = static_cast<const S *>(a->in);
    O *out = static_cast<O *>(a->out);
    hipStream_t stream = hk_vendor_stream(l);
    const scan_kind kind = choose(a);
    switch (kind) {
    case THREAD_ROWS: {
        dim3 grid = hk_grid_for(l, (size_t)a->rows, SCAN_BLOCK);
        scan_thread_rows_kernel<In, OP>
            <<<grid, SCAN_BLOCK, 0, stream>>>(in, out, a->length, a->in_stride, a->out_stride, a->rows_layout, a->rows);
        return hk_launch_error();
    }
    case WARP_ROWS: {
        // One warp per row; at most a few waves of blocks, rows grid-strided.
        const size_t warps_per_block = SCAN_BLOCK / 32; // an upper bound: more blocks than needed on 64 lanes
        size_t blocks = ((size_t)a->rows + warps_per_block - 1) / warps_per_block;
        const size_t cap = (size_t)l->multiprocessor_count * 16;
        if (blocks > cap)
            blocks = cap;
        scan_warp_rows_kernel<In, OP><<<dim3((unsigned)blocks), SCAN_BLOCK, 0, stream>>>(
            in, out, a->length, a->in_stride, a->out_stride, a->rows_layout, a->rows);
        return hk_launch_error();
    }
    case COLUMNS:
    case LOOKBACK: break;
    }
    typedef tile_state<A> state_t;
    int64_t tiles, per, states;
    tiles_and_states<In>(a, kind, tiles, per, states);
    if (tiles > 0x7fffffff)
        return (int)hipErrorInvalidValue; // 2^31 tiles of thousands of elements: beyond any device memory
    char *base = static_cast<char *>(scratch);
    uint32_t *counter = reinterpret_cast<uint32_t *>(base);
    state_t state;
    if constexpr (sizeof(A) == 4) {
        state.words = reinterpret_cast<unsigned long long *>(base + COUNTER_BYTES);
    } else {
        state.flags = reinterpret_cast<uint32_t *>(base + COUNTER_BYTES);
        state.aggregates =
            reinterpret_cast<unsigned long long *>(base + COUNTER_BYTES + state_t::flag_bytes((size_t)states));
        state.inclusives = state.aggregates + states;
    }
    hipError_t e = hipMemsetAsync(base, 0, COUNTER_BYTES + state_t::zeroed_bytes((size_t)states), stream);
    if (e != hipSuccess)
        return (int)e;
    const dim3 grid((unsigned)tiles);
    if (kind == COLUMNS) {
        // Its look-back waits are per row and short: pauses only when asked for.
        scan_columns_kernel<In, OP><<<grid, SCAN_BLOCK, 0, stream>>>(in, out, a->length, a->in_stride, a->out_stride,
                                                                     a->rows_layout, a->rows, per, counter, state,
                                                                     lookback_ns_wanted(l));
    } else if (variant<In>(l) == VARIANT_CAPPED) {
        scan_lookback_kernel<In, OP, VARIANT_CAPPED>
            <<<grid, SCAN_BLOCK, 0, stream>>>(in, out, a->length, a->in_stride, a->out_stride, a->rows_layout, per,
                                              counter, state, scan_lookback_ns(l, tiles));
    } else {
        scan_lookback_kernel<In, OP, VARIANT_UNCAPPED>
            <<<grid, SCAN_BLOCK, 0, stream>>>(in, out, a->length, a->in_stride, a->out_stride, a->rows_layout, per,
                                              counter, state, scan_lookback_ns(l, tiles));
    }
    return hk_launch_error();
}

template <typename In> int launch_op(const hkk_launch *l, const hkk_scan_args *a, void *scratch)
{
    return a->op == HK_SCAN_CUMPROD ? launch_typed<In, HK_SCAN_CUMPROD>(l, a, scratch)
                                    : launch_typed<In, HK_SCAN_CUMSUM>(l, a, scratch);
}

// Calls f(hk_dt::traits<D>()) for the dtype. int64 and uint64 share one
// instantiation: the same bits in, the same bits out.
template <typename F> int dispatch_dtype(hk_dtype dtype, F &&f)
{
    constexpr unsigned mask = HK_DTYPES_REAL & ~HK_DTYPE_BIT(HK_INT64);
    return hk_dispatch::dispatch<mask>(dtype == HK_INT64 ? HK_UINT64 : dtype,
                                       [&](auto tag) { return f(hk_dt::traits<decltype(tag)::value>()); });
}

} // namespace

extern "C" size_t hkk_scan_scratch_bytes(const hkk_launch *l, const hkk_scan_args *a)
{
    (void)l;
    size_t bytes = 0;
    dispatch_dtype(a->in_dtype, [&](auto in) {
        bytes = scratch_typed<decltype(in)>(a);
        return 0;
    });
    return bytes;
}

extern "C" int hkk_scan(const hkk_launch *l, const hkk_scan_args *a, void *scratch)
{
    return dispatch_dtype(a->in_dtype, [&](auto in) { return launch_op<decltype(in)>(l, a, scratch); });
}
