// sort.hip: stable ascending sort along the last axis, keys and/or argsort
// indices, for the ten dtypes.
//
// Keys travel as their raw bits (uint8/16/32/64), so the output holds the
// input's exact bits (NaN payloads, the sign of zero). Ordering uses
// order_key() (sort/keys.h, shared with the CPU device's sort), a monotone
// map to unsigned integers: integers flip the sign bit; floats flip the sign
// bit of positives and every bit of negatives, with -0.0 mapped onto +0.0's
// key (equal, so they keep their order) and every NaN onto the largest key
// (last, in their original order).
//
// Short rows (N <= 4096, or 2048 for 8-byte keys): block_sort_kernel, one
// block per row (or several short rows per block) sorting (key, position)
// pairs with a bitonic network in shared memory; (key, position) pairs are
// unique, so the result is the stable order.
//
// Longer rows: an LSD radix sort, 8 bits per pass, in the "onesweep" form
// (Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort
// for GPUs", 2022): one histogram kernel reads the keys once and counts the
// digits of every pass; a one-block plan kernel scans the counts and marks the
// passes whose digit is the same for every key (skipped: they would move
// nothing); then one kernel per pass ranks each tile's keys in shared memory
// (per warp, the lanes holding each digit gathered by a shared atomic OR, in
// key order, so the ranking is stable),
// finds the tile's global offset per digit with a decoupled look-back over the
// preceding tiles (tile ids from an atomic counter), and scatters. Several rows
// sort as (row, key): the position travels with each key as a payload and the
// row's digits are the most significant passes. Passes ping-pong between two
// scratch buffers; the first reads the input view directly and the last writes
// the output views directly when they are one-strided (else through scratch).
#include <stdlib.h>
#include <string.h>

#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "common/hipkit_device.h"
#include "common/launch.h"
#include "common/lookback.h"
#include "gpu/device.h"
#include "gpu/gpu.h"
#include "sort/keys.h"
#include "sort/sort.h"

namespace
{

using namespace hk_dev;
using namespace hk_lookback;
using namespace hk_sort_keys;

constexpr int SORT_BLOCK = 256;
constexpr int RADIX = 256; // one thread per digit in the pass kernel: SORT_BLOCK == RADIX
constexpr int MAX_WARPS = SORT_BLOCK / 32;
constexpr int MAX_PASSES = 16; // 8 key digits + 8 row digits
constexpr uint32_t STATUS_AGGREGATE = 1u << 30, STATUS_INCLUSIVE = 2u << 30, STATUS_COUNT = (1u << 30) - 1u;
constexpr uint64_t PORTION_LIMIT = 1ull << 28; // keys per pass launch, so per-digit counts fit 30 bits

enum { FROM_IN = 0, BUF_A = 1, BUF_B = 2, TO_FINAL = 3 };
enum { MODE_SKIP = 0, MODE_COPY = 1, MODE_SORT = 2 };
// The ranking's state per warp and digit (onesweep_kernel), one aligned pair
// so that one shared load reads both: the warp's count of the digit so far
// (then its exclusive prefix over the warps), and the lanes of the item being
// ranked that hold the digit.
struct alignas(2 * sizeof(lane_word)) rank_cell {
    uint32_t count;
    lane_word lanes;
};

// Written by plan_kernel, read by every pass: where each pass reads and
// writes, and whether it sorts, copies (a one-digit pass that must still move
// the data) or is skipped.
struct sort_ctrl {
    int src[MAX_PASSES];
    int dst[MAX_PASSES];
    int mode[MAX_PASSES];
};

template <typename A, typename B> struct same_type {
    static constexpr bool value = false;
};
template <typename A> struct same_type<A, A> {
    static constexpr bool value = true;
};

struct no_payload {
};
template <typename P> struct payload_of {
    static constexpr bool present = !same_type<P, no_payload>::value;
};

// ---- ordering: sort/keys.h (order_key, key_order, max_key_raw, key_kind)

template <typename T> HK_DEVICE T block_exclusive_sum(T x, T *s_warp)
{
    const int lane = hk_lane(), warp = hk_warp_index(), warps = SORT_BLOCK / HK_WARP_SIZE;
    T inclusive = x;
    for (int d = 1; d < HK_WARP_SIZE; d <<= 1) {
        const T y = shfl_up(inclusive, d);
        if (lane >= d)
            inclusive += y;
    }
    if (lane == HK_WARP_SIZE - 1)
        s_warp[warp] = inclusive;
    __syncthreads();
    T prefix = 0;
#pragma unroll 1
    for (int w = 0; w < warp && w < warps; w++)
        prefix += s_warp[w];
    __syncthreads(); // s_warp may be reused
    return prefix + inclusive - x;
}

// Offset of row r in view v (0 in, 1 keys, 2 indices).
HK_DEVICE int64_t row_offset(const hkk_rows &rows, int v, int64_t r)
{
    int64_t offset = 0;
    for (int k = rows.ndim - 1; k >= 0; k--) {
        const int64_t extent = rows.shape[k];
        offset += (r % extent) * rows.strides[v][k];
        r /= extent;
    }
    return offset;
}

// ---- short rows: bitonic sort of (key, position) in shared memory

template <typename U> struct block_sort_limits {
    static constexpr int CAP = sizeof(U) == 8 ? 2048 : 4096; // slots per block (<= 48 KiB of shared memory)
};

template <typename U>
__global__ __launch_bounds__(SORT_BLOCK) void block_sort_kernel(const U *in, U *keys, int64_t *indices, int64_t N,
                                                                int p_log2, int rows_per_block, int64_t R,
                                                                hkk_rows rows, int64_t in_last, int64_t keys_last,
                                                                int64_t indices_last, int kind)
{
    extern __shared__ uint64_t s_dynamic[];
    const int P = 1 << p_log2, cap = rows_per_block * P;
    U *s_raw = reinterpret_cast<U *>(s_dynamic);
    uint32_t *s_pos =
        reinterpret_cast<uint32_t *>(reinterpret_cast<char *>(s_dynamic) + ((size_t)cap * sizeof(U) + 15) / 16 * 16);
    const int t = (int)threadIdx.x;
    const U pad = max_key_raw<U>(kind);
    for (int64_t group = blockIdx.x; group * rows_per_block < R; group += gridDim.x) {
        const int64_t first_row = group * rows_per_block;
        for (int s = t; s < cap; s += SORT_BLOCK) {
            const int64_t row = first_row + (s >> p_log2);
            const int c = s & (P - 1);
            if (row < R && c < N) {
                s_raw[s] = in[row_offset(rows, 0, row) + (int64_t)c * in_last];
                s_pos[s] = (uint32_t)c;
            } else {
                s_raw[s] = pad;
                s_pos[s] = 0xffffffffu; // after every real position
            }
        }
        __syncthreads();
        for (int size = 2; size <= P; size <<= 1)
            for (int stride = size >> 1; stride > 0; stride >>= 1) {
                for (int s = t; s < cap / 2; s += SORT_BLOCK) {
                    const int i = 2 * s - (s & (stride - 1)), j = i + stride; // same P-segment
                    const bool ascending = ((i & (P - 1)) & size) == 0;
                    const U a = s_raw[i], b = s_raw[j];
                    const uint32_t pa = s_pos[i], pb = s_pos[j];
                    const U ka = order_key(a, kind), kb = order_key(b, kind);
                    const bool greater = ka > kb || (ka == kb && pa > pb);
                    if (greater == ascending) {
                        s_raw[i] = b;
                        s_raw[j] = a;
                        s_pos[i] = pb;
                        s_pos[j] = pa;
                    }
                }
                __syncthreads();
            }
        for (int s = t; s < cap; s += SORT_BLOCK) {
            const int64_t row = first_row + (s >> p_log2);
            const int c = s & (P - 1);
            if (row < R && c < N) {
                if (keys)
                    keys[row_offset(rows, 1, row) + (int64_t)c * keys_last] = s_raw[s];
                if (indices)
                    indices[row_offset(rows, 2, row) + (int64_t)c * indices_last] = (int64_t)s_pos[s];
            }
        }
        __syncthreads(); // the next group reuses the shared arrays
    }
}

// ---- radix sort

struct radix_params {
    const void *in; // raw key bits; element i at in[i * in_stride]
    int64_t in_stride;
    void *keys_buf[2]; // BUF_A, BUF_B
    void *vals_buf[2];
    void *final_keys; // NULL: keys not written
    int64_t final_keys_stride;
    int64_t *final_indices; // NULL: indices not written
    int64_t final_indices_stride;
    uint64_t n, N; // keys, row length
    int kind, key_passes, passes;
    unsigned lookback_ns;  // look-back pauses, packed (backoff_poll/backoff_first; HIPKIT_LOOKBACK_NS)
    uint64_t portion_keys; // a multiple of the pass kernel's tile
    const sort_ctrl *ctrl;
    const uint64_t *bases; // [portion][pass][digit]: where each digit's keys of the portion start
};

template <typename U, typename P> struct onesweep_shape {
    static constexpr bool payload = payload_of<P>::present;
    static constexpr int ITEMS = (sizeof(U) == 8 || (payload && sizeof(P) == 8)) ? 12 : 16;
    static constexpr int TILE = SORT_BLOCK * ITEMS;
    static constexpr size_t SLOT = payload && sizeof(P) > sizeof(U) ? sizeof(P) : sizeof(U);
};

// Where a pass reads and writes, resolved from the plan.
template <typename U, typename P> struct pass_io {
    const U *src_keys;
    int64_t src_stride;
    const P *src_vals; // NULL: positions are generated (reading the input)
    U *dst_keys;       // NULL: keys not written (final pass, indices only)
    int64_t dst_keys_stride;
    P *dst_vals;          // a scratch buffer, or NULL
    int64_t *dst_indices; // the final indices, or NULL
    int64_t dst_indices_stride;
    uint64_t N;
    bool one_row; // positions are the indices (no division by N)

    HK_DEVICE pass_io(const radix_params &p, int src, int dst)
    {
        N = p.N;
        one_row = p.N == p.n;
        if (src == FROM_IN) {
            src_keys = static_cast<const U *>(p.in);
            src_stride = p.in_stride;
            src_vals = nullptr;
        } else {
            src_keys = static_cast<const U *>(p.keys_buf[src - 1]);
            src_stride = 1;
            src_vals = static_cast<const P *>(p.vals_buf[src - 1]);
        }
        if (dst == TO_FINAL) {
            dst_keys = static_cast<U *>(p.final_keys);
            dst_keys_stride = p.final_keys_stride;
            dst_vals = nullptr;
            dst_indices = p.final_indices;
            dst_indices_stride = p.final_indices_stride;
        } else {
            dst_keys = static_cast<U *>(p.keys_buf[dst - 1]);
            dst_keys_stride = 1;
            dst_vals = static_cast<P *>(p.vals_buf[dst - 1]);
            dst_indices = nullptr;
            dst_indices_stride = 0;
        }
    }
    HK_DEVICE U key(uint64_t i) const { return src_keys[(int64_t)i * src_stride]; }
    HK_DEVICE P val(uint64_t i) const
    {
        if constexpr (payload_of<P>::present)
            return src_vals ? src_vals[i] : (P)i;
        else
            return P();
    }
    HK_DEVICE void put_key(uint64_t i, U k) const
    {
        if (dst_keys)
            dst_keys[(int64_t)i * dst_keys_stride] = k;
    }
    HK_DEVICE void put_val(uint64_t i, P v) const
    {
        if constexpr (payload_of<P>::present) {
            if (dst_vals)
                dst_vals[i] = v;
            if (dst_indices)
                dst_indices[(int64_t)i * dst_indices_stride] =
                    (int64_t)(one_row ? v : v % (P)N); // position within its row
        } else {
            (void)i;
            (void)v;
        }
    }
};

// Counts, per portion, the digits of every pass over the input. Key digits
// per key: with RUNS, a run of one digit in a thread's keys is counted once
// (fewer shared atomics on sorted or repetitive data, more instructions per
// key); else one shared atomic per digit and key (HIPKIT_SORT_HIST=runs or
// direct). Row digits from the rows' overlap with the block's range.
template <typename U, bool RUNS>
__global__ __launch_bounds__(SORT_BLOCK) void histogram_kernel(radix_params p, uint32_t *hist, uint64_t chunk)
{
    constexpr int KP = (int)sizeof(U);
    __shared__ uint32_t s_hist[MAX_PASSES * RADIX];
    const int t = (int)threadIdx.x;
    for (int i = t; i < p.passes * RADIX; i += SORT_BLOCK)
        s_hist[i] = 0;
    __syncthreads();
    const uint64_t portion = blockIdx.y;
    const uint64_t portion_start = portion * p.portion_keys;
    const uint64_t portion_end = p.n - portion_start < p.portion_keys ? p.n : portion_start + p.portion_keys;
    const uint64_t begin = portion_start + (uint64_t)blockIdx.x * chunk;
    const uint64_t end = portion_end - begin < chunk ? portion_end : begin + chunk;
    const U *in = static_cast<const U *>(p.in);

    uint32_t last[KP], count[KP];
#pragma unroll
    for (int k = 0; k < KP; k++) {
        last[k] = 0;
        count[k] = 0;
    }
    auto add = [&](U raw) {
        const U key = order_key(raw, p.kind);
        if constexpr (!RUNS) {
#pragma unroll
            for (int k = 0; k < KP; k++)
                atomicAdd(&s_hist[k * RADIX + ((uint32_t)(key >> (8 * k)) & 255u)], 1u);
        } else {
#pragma unroll
            for (int k = 0; k < KP; k++) {
                const uint32_t d = (uint32_t)(key >> (8 * k)) & 255u;
                if (count[k] && d == last[k]) {
                    count[k]++;
                } else {
                    if (count[k])
                        atomicAdd(&s_hist[k * RADIX + last[k]], count[k]);
                    last[k] = d;
                    count[k] = 1;
                }
            }
        }
    };
    if (begin < end) {
        constexpr int VW = 16 / KP;
        struct alignas(16) vec {
            U v[VW];
        };
        uint64_t scalar_from = begin;
        if (p.in_stride == 1 && hk_aligned16(in) && begin % VW == 0) {
            const vec *vin = reinterpret_cast<const vec *>(in);
            const uint64_t vend = end / VW;
            uint64_t i = begin / VW + t;
            for (; i + 3 * SORT_BLOCK < vend; i += 4 * SORT_BLOCK) { // four loads in flight per thread
                vec four[4];
#pragma unroll
                for (int u = 0; u < 4; u++)
                    four[u] = vin[i + (uint64_t)u * SORT_BLOCK];
#pragma unroll
                for (int u = 0; u < 4; u++)
#pragma unroll
                    for (int v = 0; v < VW; v++)
                        add(four[u].v[v]);
            }
            for (; i < vend; i += SORT_BLOCK) {
                const vec chunk_keys = vin[i];
#pragma unroll
                for (int v = 0; v < VW; v++)
                    add(chunk_keys.v[v]);
            }
            scalar_from = vend * VW > begin ? vend * VW : begin;
        }
        for (uint64_t i = scalar_from + t; i < end; i += SORT_BLOCK)
            add(in[(int64_t)i * p.in_stride]);
    }
#pragma unroll
    for (int k = 0; k < KP; k++)
        if (count[k])
            atomicAdd(&s_hist[k * RADIX + last[k]], count[k]);
    // Row digits: each row overlapping [begin, end) adds its overlap.
    if (p.passes > KP && begin < end) {
        const uint64_t first_row = begin / p.N, last_row = (end - 1) / p.N;
        for (uint64_t r = first_row + t; r <= last_row; r += SORT_BLOCK) {
            const uint64_t lo = r * p.N > begin ? r * p.N : begin;
            const uint64_t hi = (r + 1) * p.N < end ? (r + 1) * p.N : end;
            for (int k = KP; k < p.passes; k++)
                atomicAdd(&s_hist[k * RADIX + ((r >> (8 * (k - KP))) & 255u)], (uint32_t)(hi - lo));
        }
    }
    __syncthreads();
    for (int i = t; i < p.passes * RADIX; i += SORT_BLOCK)
        if (s_hist[i])
            atomicAdd(&hist[portion * (uint64_t)p.passes * RADIX + i], s_hist[i]);
}

// One block: per pass, the digit totals, whether one digit holds every key,
// where each digit starts per portion; then the route of every pass.
__global__ __launch_bounds__(SORT_BLOCK) void plan_kernel(const uint32_t *hist, uint64_t *bases, sort_ctrl *ctrl,
                                                          int passes, int portions, uint64_t n, int keep_first)
{
    __shared__ unsigned long long s_warp[MAX_WARPS];
    __shared__ int s_trivial[MAX_PASSES];
    const int d = (int)threadIdx.x;
    for (int pass = 0; pass < passes; pass++) {
        unsigned long long total = 0;
        for (int q = 0; q < portions; q++)
            total += hist[((uint64_t)q * passes + pass) * RADIX + d];
        const int trivial = __syncthreads_or(total == n);
        unsigned long long run = block_exclusive_sum(total, s_warp);
        for (int q = 0; q < portions; q++) {
            const uint64_t at = ((uint64_t)q * passes + pass) * RADIX + d;
            bases[at] = run;
            run += hist[at];
        }
        if (d == 0)
            s_trivial[pass] = trivial;
    }
    __syncthreads();
    if (d == 0) {
        int cur = FROM_IN;
        for (int pass = 0; pass < passes; pass++) {
            const bool trivial = s_trivial[pass] != 0;
            if (pass == passes - 1) {
                ctrl->src[pass] = cur;
                ctrl->dst[pass] = TO_FINAL;
                ctrl->mode[pass] = trivial ? MODE_COPY : MODE_SORT;
            } else if (trivial && !(pass == 0 && keep_first)) {
                ctrl->src[pass] = cur;
                ctrl->dst[pass] = cur;
                ctrl->mode[pass] = MODE_SKIP;
            } else {
                const int next = cur == BUF_A ? BUF_B : BUF_A;
                ctrl->src[pass] = cur;
                ctrl->dst[pass] = next;
                ctrl->mode[pass] = trivial ? MODE_COPY : MODE_SORT;
                cur = next;
            }
        }
    }
}

// A pass launch's look-back words: its tile counter and tile states, and
// those of the next launch, which it clears (two sets alternate: the next
// launch's set is the previous launch's, which has ended; only the first
// launch's set needs a memset).
struct lookback_words {
    uint32_t *counter, *status;
    uint32_t *next_counter, *next_status;
    uint32_t next_tiles; // 0: no next launch
};

// One pass over one portion: rank each tile's keys by the pass's digit,
// look back for the tile's offsets per digit, scatter.
template <typename U, typename P, int MIN_BLOCKS>
__global__ __launch_bounds__(SORT_BLOCK, MIN_BLOCKS) void onesweep_kernel(radix_params p, int pass, uint64_t portion,
                                                                          lookback_words lw)
{
    typedef onesweep_shape<U, P> shape;
    constexpr int ITEMS = shape::ITEMS;
    constexpr int TILE = shape::TILE;

    const int t = (int)threadIdx.x;
    for (uint32_t b = blockIdx.x; b < lw.next_tiles; b += gridDim.x)
        lw.next_status[(size_t)b * RADIX + t] = 0;
    if (blockIdx.x == 0 && t == 0 && lw.next_tiles)
        *lw.next_counter = 0;
    uint32_t *const counter = lw.counter, *const status = lw.status;
    // The plan's words and the tile id's atomic in flight together (a block
    // that then skips or copies leaves a counter nothing reads).
    const int mode = p.ctrl->mode[pass];
    const int src = p.ctrl->src[pass], dst = p.ctrl->dst[pass];
    uint32_t tile_id = 0;
    if (t == 0)
        tile_id = atomicAdd(counter, 1u);
    if (mode == MODE_SKIP)
        return;
    const pass_io<U, P> io(p, src, dst);
    const uint64_t portion_start = portion * p.portion_keys;
    const uint64_t portion_end = p.n - portion_start < p.portion_keys ? p.n : portion_start + p.portion_keys;

    if (mode == MODE_COPY) { // every key has the same digit: the stable order is the present one
        const uint64_t base = portion_start + (uint64_t)blockIdx.x * TILE;
        for (uint64_t i = base + t; i < base + TILE && i < portion_end; i += SORT_BLOCK) {
            io.put_key(i, io.key(i));
            io.put_val(i, io.val(i));
        }
        return;
    }
    // Where digit t of this pass starts in the portion's output: loaded now,
    // in flight with the tile id (read once it is known: a load there would
    // wait out a memory latency of its own).
    const unsigned long long digit_start = p.bases[(portion * (uint64_t)p.passes + (uint64_t)pass) * RADIX + t];

    __shared__ uint32_t s_tile;
    // Per warp and digit (sized for 32-lane warps, the most warps a block has:
    // AMD's wave32 targets have as many as NVIDIA, with 64-bit lane masks).
    __shared__ rank_cell s_rank[MAX_WARPS * RADIX];
    __shared__ uint32_t s_excl[RADIX];           // per digit: first slot in the tile's sorted order
    __shared__ unsigned long long s_dest[RADIX]; // per digit: its start, then the global position of tile slot 0
    __shared__ uint32_t s_warp_sum[MAX_WARPS];
    __shared__ uint8_t s_digit[TILE];
    __shared__ unsigned long long s_exchange[(TILE * shape::SLOT + 7) / 8]; // keys, then payloads
    U *s_keys = reinterpret_cast<U *>(s_exchange);

    const int WARP = HK_WARP_SIZE; // not constexpr: warpSize is a run-time value in newer ROCm
    const int lane = hk_lane(), warp = hk_warp_index(), warps = SORT_BLOCK / WARP;
    for (int i = t; i < warps * RADIX; i += SORT_BLOCK) {
        s_rank[i].count = 0;
        s_rank[i].lanes = 0;
    }
    if (t == 0)
        s_tile = tile_id;
    s_dest[t] = digit_start;
    __syncthreads();
    const uint64_t tile = s_tile;
    const uint64_t tile_base = portion_start + tile * TILE;
    const uint64_t left = portion_end - tile_base;
    const int valid = left < (uint64_t)TILE ? (int)left : TILE;
    const bool full = valid == TILE;

    // Warp-striped: item i of lane l of warp w is tile element (w * ITEMS + i) * WARP + l.
    // dig[i]: the item's digit, then also its rank among the warp's items of
    // that digit (bits 16+), then its slot in the tile. Items past the end of
    // the last tile take digit RADIX - 1: they rank after every key of the
    // tile, into the slots from `valid` on, which nothing writes out (their
    // counts reach only this tile's published state, which no tile reads).
    U key[ITEMS];
    P val[ITEMS];
    uint32_t dig[ITEMS];
    const int segment = warp * ITEMS * WARP;
    // Every load first, then the digits: the ITEMS loads of a thread are in
    // flight together (one memory latency per tile, not one per item).
    if (full && io.src_stride == 1) {
        const U *src = io.src_keys + tile_base + (uint64_t)(segment + lane);
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            key[i] = src[i * WARP];
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const int e = segment + i * WARP + lane;
            key[i] = e < valid ? io.key(tile_base + (uint64_t)e) : U(0);
        }
    }
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const int e = segment + i * WARP + lane;
        val[i] = full || e < valid ? io.val(tile_base + (uint64_t)e) : P();
    }
    if (pass < p.key_passes) {
        const key_order<U> order(p.kind);
        const int shift = 8 * pass;
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            dig[i] = (uint32_t)(order(key[i]) >> shift) & 255u;
    } else if constexpr (shape::payload) { // the row's digit: the position travels as the payload
        const int shift = 8 * (pass - p.key_passes);
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            dig[i] = (uint32_t)((val[i] / (P)p.N) >> shift) & 255u;
    }
    if (!full) {
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            if (segment + i * WARP + lane >= valid)
                dig[i] = RADIX - 1;
    }

    // Stable ranks within the warp's segment, per digit: item i of a lane
    // comes after the same digit in the warp's earlier items and in lower
    // lanes of item i. The lanes holding a digit ("peers") come from an
    // atomic OR of lane bits into the warp's cell for the digit; the lowest
    // peer then adds them to the cell's count and clears the lanes.
    rank_cell *my_cells = s_rank + warp * RADIX;
    const lane_word lane_bit = (lane_word)1 << lane, below = lane_bit - 1;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        rank_cell *cell = my_cells + dig[i];
        atomicOr(&cell->lanes, lane_bit);
        syncwarp();
        const rank_cell now = *cell;
        const uint32_t lower = popc_lanes(now.lanes & below);
        syncwarp(); // every peer has read the cell
        if (lower == 0) {
            cell->count = now.count + popc_lanes(now.lanes);
            cell->lanes = 0;
        }
        syncwarp();
        dig[i] |= (now.count + lower) << 16; // the rank joins the digit: fewer registers
    }
    __syncthreads();

    // Thread d: the tile's count of digit d, the warps' exclusive prefixes.
    const int d = t;
    uint32_t total = 0;
#pragma unroll 1 // unrolled, nvcc hoists every load while the keys and digits are live: 80 registers
    for (int w = 0; w < warps; w++) {
        const uint32_t c = s_rank[w * RADIX + d].count;
        s_rank[w * RADIX + d].count = total;
        total += c;
    }
    uint32_t *tile_status = status + tile * RADIX;
    store_relaxed(&tile_status[d], (tile == 0 ? STATUS_INCLUSIVE : STATUS_AGGREGATE) | total);
    const uint32_t excl = block_exclusive_sum(total, s_warp_sum); // synchronises: the prefixes visible
    s_excl[d] = excl;
    __syncthreads();

    // Keys into their sorted slots of the tile.
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const uint32_t digit = dig[i] & 0xffffu;
        const uint32_t slot = s_excl[digit] + my_cells[digit].count + (dig[i] >> 16);
        s_keys[slot] = key[i];
        s_digit[slot] = (uint8_t)digit;
        dig[i] = slot; // for the payloads' exchange
    }

    // Look back over the preceding tiles of this portion for digit d, reading
    // LOOKBACK states at once (independent loads in flight: a walk over
    // aggregates costs one memory latency per window, not per tile), then
    // adding them nearest first until an inclusive prefix. A state not yet
    // published (its block is running: it took its id before us) is re-read
    // from there.
    uint32_t prefix = 0;
    if (tile > 0) {
        backoff_first(p.lookback_ns);
        constexpr int LOOKBACK = 8;
        uint32_t j = (uint32_t)tile - 1u; // the nearest tile not yet added (a portion has < 2^31 tiles)
        for (;;) {
            uint32_t s[LOOKBACK];
            const uint32_t *at = status + (size_t)j * RADIX + d;
#pragma unroll
            for (int u = 0; u < LOOKBACK; u++) // tile 0 is inclusive, so no walk passes it
                s[u] = j >= (uint32_t)u ? load_relaxed(at - u * RADIX) : STATUS_INCLUSIVE;
            // Add the nearest states up to the first unpublished one (excluded) or
            // the first inclusive one (included), as bit masks: no branch per state.
            uint32_t published = 0, inclusive = 0;
#pragma unroll
            for (int u = 0; u < LOOKBACK; u++) {
                published |= (uint32_t)((s[u] & ~STATUS_COUNT) != 0) << u;
                inclusive |= (uint32_t)((s[u] & ~STATUS_COUNT) == STATUS_INCLUSIVE) << u;
            }
            const int gap = __ffs((int)~published) - 1; // LOOKBACK when all are published
            const int first_inclusive = inclusive ? __ffs((int)inclusive) - 1 : LOOKBACK;
            const bool found = first_inclusive < gap;
            const int used = found ? first_inclusive + 1 : gap;
#pragma unroll
            for (int u = 0; u < LOOKBACK; u++)
                prefix += u < used ? s[u] & STATUS_COUNT : 0u;
            if (found)
                break;
            j -= (uint32_t)used;
            if (used == 0)
                backoff_poll(p.lookback_ns); // the nearest tile has not published yet
        }
        store_relaxed(&tile_status[d], STATUS_INCLUSIVE | (prefix + total));
    }
    s_dest[d] = s_dest[d] + prefix - excl; // in 64 bits (prefix - excl alone may be negative)
    __syncthreads();

    if (full && io.dst_keys && io.dst_keys_stride == 1) { // the usual case: no test per key, loads interleaved
        U *out = io.dst_keys;
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            const int j = k * SORT_BLOCK + t;
            out[s_dest[s_digit[j]] + (uint64_t)j] = s_keys[j];
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            const int j = k * SORT_BLOCK + t;
            if (j < valid)
                io.put_key(s_dest[s_digit[j]] + (uint64_t)j, s_keys[j]);
        }
    }
    if constexpr (shape::payload) {
        P *s_vals = reinterpret_cast<P *>(s_exchange);
        __syncthreads(); // every key has left the exchange
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            s_vals[dig[i]] = val[i];
        __syncthreads();
        if (full && io.dst_vals && !io.dst_indices) { // between passes: as the keys' fast path
#pragma unroll
            for (int k = 0; k < ITEMS; k++) {
                const int j = k * SORT_BLOCK + t;
                io.dst_vals[s_dest[s_digit[j]] + (uint64_t)j] = s_vals[j];
            }
        } else {
#pragma unroll
            for (int k = 0; k < ITEMS; k++) {
                const int j = k * SORT_BLOCK + t;
                if (j < valid)
                    io.put_val(s_dest[s_digit[j]] + (uint64_t)j, s_vals[j]);
            }
        }
    }
}

// Element i of `src` (laid out by layout.src_strides) to element i of `dst`.
template <typename W> __global__ void raw_copy_kernel(const W *src, W *dst, uint64_t n, hkk_layout layout)
{
    for (uint64_t i = hk_global_index(); i < n; i += hk_grid_stride()) {
        uint64_t rest = i;
        int64_t s = 0, d = 0;
        for (int k = layout.ndim - 1; k >= 0; k--) {
            const uint64_t extent = (uint64_t)layout.shape[k];
            const int64_t c = (int64_t)(rest % extent);
            rest /= extent;
            s += c * layout.src_strides[k];
            d += c * layout.dst_strides[k];
        }
        dst[d] = src[s];
    }
}

// ---- host side

size_t round_up(size_t bytes)
{
    return (bytes + 255) / 256 * 256;
}

// The whole array as [rows..., N], view v against a C-contiguous buffer.
hkk_layout full_layout(const hkk_sort_args *a, int v, bool view_is_src)
{
    hkk_layout out;
    const hkk_rows &rows = a->rows_layout;
    out.ndim = rows.ndim + 1;
    int64_t step = 1;
    for (int k = out.ndim - 1; k >= 0; k--) {
        const int64_t extent = k == rows.ndim ? a->length : rows.shape[k];
        const int64_t view_stride = k == rows.ndim ? a->last_stride[v] : rows.strides[v][k];
        out.shape[k] = extent;
        out.src_strides[k] = view_is_src ? view_stride : step;
        out.dst_strides[k] = view_is_src ? step : view_stride;
        step *= extent;
    }
    return out;
}

template <typename W>
int raw_copy(const hkk_launch *l, const void *src, void *dst, uint64_t n, const hkk_layout &layout)
{
    dim3 grid = hk_grid_for(l, (size_t)n, SORT_BLOCK);
    raw_copy_kernel<W>
        <<<grid, SORT_BLOCK, 0, hk_vendor_stream(l)>>>(static_cast<const W *>(src), static_cast<W *>(dst), n, layout);
    return hk_launch_error();
}

template <typename U> int block_sort(const hkk_launch *l, const hkk_sort_args *a)
{
    int p_log2 = 0;
    while ((int64_t)1 << p_log2 < a->length)
        p_log2++;
    const int P = 1 << p_log2;
    int64_t rows_per_block = block_sort_limits<U>::CAP / P;
    if (rows_per_block > a->rows)
        rows_per_block = a->rows;
    const size_t cap = (size_t)rows_per_block * (size_t)P;
    const size_t shared = (cap * sizeof(U) + 15) / 16 * 16 + cap * sizeof(uint32_t);
    int64_t groups = (a->rows + rows_per_block - 1) / rows_per_block;
    const int64_t most = (int64_t)l->multiprocessor_count * 32;
    if (groups > most)
        groups = most;
    block_sort_kernel<U><<<dim3((unsigned)groups), SORT_BLOCK, shared, hk_vendor_stream(l)>>>(
        static_cast<const U *>(a->in), static_cast<U *>(a->keys), a->indices, a->length, p_log2, (int)rows_per_block,
        a->rows, a->rows_layout, a->last_stride[0], a->last_stride[1], a->last_stride[2], key_kind(a->dtype));
    return hk_launch_error();
}

// Everything the radix path decides before launching: passes, portions and
// the scratch layout (hkk_sort_scratch_bytes and hkk_sort must agree).
struct radix_plan {
    int key_passes, passes;
    uint64_t n, tile, portion_keys, portions, status_tiles;
    bool gather, keys_via_scratch, indices_via_scratch, keep_first;
    size_t ctrl, hist, bases, lookback, keys_a, keys_b, vals_a, vals_b, gathered, final_keys, final_indices, total;
};

template <typename U, typename P> radix_plan make_plan(const hkk_sort_args *a)
{
    typedef onesweep_shape<U, P> shape;
    radix_plan pl;
    pl.n = (uint64_t)a->length * (uint64_t)a->rows;
    pl.key_passes = (int)sizeof(U);
    int row_bits = 0;
    while (row_bits < 64 && ((uint64_t)1 << row_bits) < (uint64_t)a->rows)
        row_bits++;
    pl.passes = pl.key_passes + (row_bits + 7) / 8;
    pl.tile = (uint64_t)shape::TILE;
    pl.portion_keys = PORTION_LIMIT / pl.tile * pl.tile;
    pl.portions = (pl.n + pl.portion_keys - 1) / pl.portion_keys;
    const uint64_t tiles = (pl.n + pl.tile - 1) / pl.tile;
    pl.status_tiles = tiles < pl.portion_keys / pl.tile ? tiles : pl.portion_keys / pl.tile;
    pl.gather = !a->flat[0];
    pl.keep_first = a->in_place && a->flat[0]; // the input is the output: the last pass must not read it
    pl.keys_via_scratch = a->keys && (!a->flat[1] || (pl.keep_first && pl.passes == 1));
    pl.indices_via_scratch = a->indices && !a->flat[2];
    const bool payload = payload_of<P>::present;
    size_t at = 0;
    auto take = [&](size_t bytes) {
        const size_t here = at;
        at += round_up(bytes);
        return here;
    };
    pl.ctrl = take(sizeof(sort_ctrl));
    pl.hist = take((size_t)pl.portions * pl.passes * RADIX * sizeof(uint32_t));
    pl.bases = take((size_t)pl.portions * pl.passes * RADIX * sizeof(uint64_t));
    // Two sets of look-back words (lookback_words): two counters, 16 bytes apart, then two areas of tile states.
    pl.lookback = take(32 + 2 * (size_t)pl.status_tiles * RADIX * sizeof(uint32_t));
    pl.keys_a = take((size_t)pl.n * sizeof(U));
    pl.keys_b = take((size_t)pl.n * sizeof(U));
    pl.vals_a = payload ? take((size_t)pl.n * sizeof(P)) : 0;
    pl.vals_b = payload ? take((size_t)pl.n * sizeof(P)) : 0;
    pl.gathered = pl.gather ? take((size_t)pl.n * sizeof(U)) : 0;
    pl.final_keys = pl.keys_via_scratch ? take((size_t)pl.n * sizeof(U)) : 0;
    pl.final_indices = pl.indices_via_scratch ? take((size_t)pl.n * sizeof(int64_t)) : 0;
    pl.total = at;
    return pl;
}

// Bench-only knob: HIPKIT_SORT_HIST=runs counts runs of one digit once in the
// histogram kernel; default (direct): one shared atomic per digit.
static bool hist_runs_wanted(const hkk_launch *l)
{
    return l->tuning && l->tuning->sort_hist_runs;
}

// Bench-only knob: HIPKIT_SORT_MIN_BLOCKS=0 or 5 (see radix_sort; -1: unset,
// the default).
static int sort_min_blocks_wanted(const hkk_launch *l)
{
    return l->tuning ? l->tuning->sort_min_blocks : -1;
}

template <typename U, typename P> int radix_sort(const hkk_launch *l, const hkk_sort_args *a, void *scratch)
{
    const radix_plan pl = make_plan<U, P>(a);
    char *base = static_cast<char *>(scratch);
    hipStream_t stream = hk_vendor_stream(l);
    int e;

    radix_params p;
    p.in = a->in;
    p.in_stride = a->flat_stride[0];
    if (pl.gather) {
        if ((e = raw_copy<U>(l, a->in, base + pl.gathered, pl.n, full_layout(a, 0, true))) != 0)
            return e;
        p.in = base + pl.gathered;
        p.in_stride = 1;
    }
    p.keys_buf[0] = base + pl.keys_a;
    p.keys_buf[1] = base + pl.keys_b;
    p.vals_buf[0] = payload_of<P>::present ? base + pl.vals_a : nullptr;
    p.vals_buf[1] = payload_of<P>::present ? base + pl.vals_b : nullptr;
    p.final_keys = a->keys;
    p.final_keys_stride = a->flat_stride[1];
    if (pl.keys_via_scratch) {
        p.final_keys = base + pl.final_keys;
        p.final_keys_stride = 1;
    }
    p.final_indices = a->indices;
    p.final_indices_stride = a->flat_stride[2];
    if (pl.indices_via_scratch) {
        p.final_indices = reinterpret_cast<int64_t *>(base + pl.final_indices);
        p.final_indices_stride = 1;
    }
    p.n = pl.n;
    p.N = (uint64_t)a->length;
    p.kind = key_kind(a->dtype);
    p.lookback_ns = lookback_ns_wanted(l);
    p.key_passes = pl.key_passes;
    p.passes = pl.passes;
    p.portion_keys = pl.portion_keys;
    p.ctrl = reinterpret_cast<const sort_ctrl *>(base + pl.ctrl);
    p.bases = reinterpret_cast<const uint64_t *>(base + pl.bases);
    uint32_t *hist = reinterpret_cast<uint32_t *>(base + pl.hist);

    // Histograms of every pass.
    hipError_t he = hipMemsetAsync(hist, 0, (size_t)pl.portions * pl.passes * RADIX * sizeof(uint32_t), stream);
    if (he != hipSuccess)
        return (int)he;
    uint64_t blocks_per_portion = (uint64_t)l->multiprocessor_count * 4 / pl.portions;
    if (blocks_per_portion == 0)
        blocks_per_portion = 1;
    const uint64_t portion_len = pl.n < pl.portion_keys ? pl.n : pl.portion_keys;
    uint64_t chunk = (portion_len + blocks_per_portion - 1) / blocks_per_portion;
    chunk = (chunk + pl.tile - 1) / pl.tile * pl.tile;
    blocks_per_portion = (portion_len + chunk - 1) / chunk;
    const dim3 hist_grid((unsigned)blocks_per_portion, (unsigned)pl.portions);
    if (hist_runs_wanted(l))
        histogram_kernel<U, true><<<hist_grid, SORT_BLOCK, 0, stream>>>(p, hist, chunk);
    else
        histogram_kernel<U, false><<<hist_grid, SORT_BLOCK, 0, stream>>>(p, hist, chunk);
    if ((e = hk_launch_error()) != 0)
        return e;
    plan_kernel<<<1, SORT_BLOCK, 0, stream>>>(hist, reinterpret_cast<uint64_t *>(base + pl.bases),
                                              reinterpret_cast<sort_ctrl *>(base + pl.ctrl), pl.passes,
                                              (int)pl.portions, pl.n, pl.keep_first ? 1 : 0);
    if ((e = hk_launch_error()) != 0)
        return e;

    uint32_t *words = reinterpret_cast<uint32_t *>(base + pl.lookback);
    const size_t states = (size_t)pl.status_tiles * RADIX;
    he = hipMemsetAsync(words, 0, 32 + states * sizeof(uint32_t), stream); // both counters, the first set's states
    if (he != hipSuccess)
        return (int)he;
    auto tiles_of = [&](uint64_t portion) {
        const uint64_t len =
            pl.n - portion * pl.portion_keys < pl.portion_keys ? pl.n - portion * pl.portion_keys : pl.portion_keys;
        return (len + pl.tile - 1) / pl.tile;
    };
    uint64_t launch = 0;
    for (int pass = 0; pass < pl.passes; pass++)
        for (uint64_t portion = 0; portion < pl.portions; portion++, launch++) {
            const uint64_t tiles = tiles_of(portion);
            const bool last = pass == pl.passes - 1 && portion == pl.portions - 1;
            const int set = (int)(launch & 1);
            lookback_words lw;
            lw.counter = words + 4 * set;
            lw.status = words + 8 + states * set;
            lw.next_counter = words + 4 * (1 - set);
            lw.next_status = words + 8 + states * (1 - set);
            lw.next_tiles = last ? 0u : (uint32_t)tiles_of(portion + 1 < pl.portions ? portion + 1 : 0);
            const dim3 grid((unsigned)tiles);
            // Without payload the kernel is capped at 64 registers: 4 blocks per SM
            // instead of 3 (float32 2^26 on the H200: 31.5 -> 34.5 Gkeys/s); with a
            // payload at 80 (3 blocks; uncapped it takes 87-112), but for 8-byte keys
            // with 8-byte positions (which would spill 60 bytes there: 2 blocks).
            // HIPKIT_SORT_MIN_BLOCKS=0 or 5 (bench knob, 4-byte keys alone):
            // uncapped, or capped for 5 blocks.
            constexpr int MIN_BLOCKS = !payload_of<P>::present ? 4 : sizeof(U) == 8 && sizeof(P) == 8 ? 0 : 3;
            const int wanted = sizeof(U) == 4 && !payload_of<P>::present ? sort_min_blocks_wanted(l) : MIN_BLOCKS;
            if constexpr (sizeof(U) == 4 && !payload_of<P>::present) {
                if (wanted == 0)
                    onesweep_kernel<U, P, 0><<<grid, SORT_BLOCK, 0, stream>>>(p, pass, portion, lw);
                else if (wanted == 5)
                    onesweep_kernel<U, P, 5><<<grid, SORT_BLOCK, 0, stream>>>(p, pass, portion, lw);
                else
                    onesweep_kernel<U, P, MIN_BLOCKS><<<grid, SORT_BLOCK, 0, stream>>>(p, pass, portion, lw);
            } else {
                (void)wanted;
                onesweep_kernel<U, P, MIN_BLOCKS><<<grid, SORT_BLOCK, 0, stream>>>(p, pass, portion, lw);
            }
            if ((e = hk_launch_error()) != 0)
                return e;
        }

    if (pl.keys_via_scratch && (e = raw_copy<U>(l, p.final_keys, a->keys, pl.n, full_layout(a, 1, false))) != 0)
        return e;
    if (pl.indices_via_scratch &&
        (e = raw_copy<uint64_t>(l, p.final_indices, a->indices, pl.n, full_layout(a, 2, false))) != 0)
        return e;
    return 0;
}

enum payload_choice { NONE, U32, U64 };

payload_choice choose_payload(const hkk_sort_args *a)
{
    if (!a->indices && a->rows == 1)
        return NONE;
    const uint64_t n = (uint64_t)a->length * (uint64_t)a->rows;
    return n <= 0xffffffffull ? U32 : U64;
}

template <typename U> bool use_block_sort(const hkk_sort_args *a)
{
    return a->length <= block_sort_limits<U>::CAP;
}

template <typename U> size_t scratch_for(const hkk_sort_args *a)
{
    if (use_block_sort<U>(a))
        return 0;
    switch (choose_payload(a)) {
    case NONE: return make_plan<U, no_payload>(a).total;
    case U32: return make_plan<U, uint32_t>(a).total;
    case U64: return make_plan<U, uint64_t>(a).total;
    }
    return 0;
}

template <typename U> int sort_typed(const hkk_launch *l, const hkk_sort_args *a, void *scratch)
{
    if (use_block_sort<U>(a))
        return block_sort<U>(l, a);
    switch (choose_payload(a)) {
    case NONE: return radix_sort<U, no_payload>(l, a, scratch);
    case U32: return radix_sort<U, uint32_t>(l, a, scratch);
    case U64: return radix_sort<U, uint64_t>(l, a, scratch);
    }
    return (int)hipErrorInvalidValue;
}

// Keys travel as their raw bits: one instantiation per width (hk_dt::bits_of).
template <typename F> int dispatch_width(hk_dtype dtype, F &&f)
{
    return hk_dispatch::dispatch<HK_DTYPES_REAL>(
        dtype, [&](auto tag) { return f(typename hk_dt::bits_of<decltype(tag)::value>::type()); });
}

} // namespace

extern "C" size_t hkk_sort_scratch_bytes(const hkk_launch *l, const hkk_sort_args *a)
{
    (void)l;
    size_t bytes = 0;
    dispatch_width(a->dtype, [&](auto bits) {
        bytes = scratch_for<decltype(bits)>(a);
        return 0;
    });
    return bytes;
}

extern "C" int hkk_sort(const hkk_launch *l, const hkk_sort_args *a, void *scratch)
{
    return dispatch_width(a->dtype, [&](auto bits) { return sort_typed<decltype(bits)>(l, a, scratch); });
}
