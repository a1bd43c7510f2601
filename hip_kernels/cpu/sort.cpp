// sort.cpp: the CPU device's stable ascending sort along the last axis (keys and/or argsort
// indices, the ten dtypes), over the laid-out arguments of sort/sort.hip and in its order:
// order_key() of sort/keys.h (NumPy's: -0.0 equal to +0.0, every NaN last), ties in their original
// order. Keys travel as their raw bits, so the output holds the input's exact bits. A stable sort
// has one result, so neither the thread count nor the path below changes a bit of it.
//
// A row of up to SMALL_ROW keys: insertion sort. Longer rows: an LSD radix sort, 8 bits of the
// order key per pass, one counting read of the row for every pass's digit totals first (a pass
// whose digit is the same for every key is skipped: it would move nothing). With several threads
// and few long rows (each at least WIDE_ROW keys), each row is sorted by all of them: the row is
// cut into one chunk per thread, and each pass counts its digit per chunk, places each chunk's
// keys of digit d after those of the chunks before it (the usual parallel LSD radix sort), and
// scatters the chunks in parallel. Otherwise the rows are spread over the threads, one row per
// thread at a time. Passes ping-pong between two scratch buffers; the first reads the input view
// and the last writes the output views, whatever their strides (an in-place sort whose only pass
// is the first goes through a buffer: the input is read while the output is written). Scatters
// into rows larger than the caches go through a line per digit, written out whole with streaming
// stores (software write-combining: one cache line and page touched per line, not per key).
#include <stdint.h>
#include <string.h>

#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "cpu/cpu.h"
#include "cpu/parallel.h"
#include "sort/keys.h"

namespace
{

using namespace hk_sort_keys;

constexpr int RADIX = 256;
constexpr int64_t SMALL_ROW = 32;       // insertion sort up to here
constexpr int64_t WIDE_ROW = 1 << 16;   // rows this long may be sorted by every thread together
constexpr int64_t WIDE_CHUNK = 1 << 15; // keys per thread at least in such a sort
constexpr int64_t ROW_GRAIN = 1 << 14;  // keys worth a thread when the rows are spread
constexpr size_t ALIGN = 64;
constexpr uint64_t STREAM_BYTES = 1 << 21; // rows of keys this large scatter through lines

size_t round_up(size_t bytes)
{
    return (bytes + ALIGN - 1) / ALIGN * ALIGN;
}

struct no_payload {
};

// One row's views; keys NULL: keys not wanted; indices NULL: indices not wanted.
template <typename U> struct row_views {
    const U *in;
    int64_t in_stride;
    U *keys;
    int64_t keys_stride;
    int64_t *indices;
    int64_t indices_stride;
};

// Stores a line of `bytes` (a multiple of 16) from the 16-byte aligned `line` to `dst`, past the
// caches (a scatter's destination is far larger than them, and read only by the next pass) where
// dst is 16-byte aligned too.
inline __attribute__((always_inline)) void stream_line(void *dst, const void *line, size_t bytes)
{
#if defined(__SSE2__)
    if (((uintptr_t)dst & 15) == 0) {
        for (size_t q = 0; q < bytes / 16; q++)
            _mm_stream_si128(static_cast<__m128i *>(dst) + q, _mm_load_si128(static_cast<const __m128i *>(line) + q));
        return;
    }
#endif
    memcpy(dst, line, bytes);
}

// Orders the streamed stores before whatever the thread stores next (the end of a pass).
inline void stream_fence()
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

// One row's sort, for keys of U bits ordered by kind KIND, with payload P (the positions, when
// indices are wanted), over C chunks (C == 1: on the calling thread alone).
//
// Between passes the buffers hold the keys' order keys where order_key is one-to-one on the row
// (KEYED: integers always, floats without -0.0 and NaN, found by the first count), so that only
// the first pass maps and the last one maps back; else their raw bits, mapped in every pass.
template <typename U, int KIND, typename P> struct row_sorter {
    static constexpr int KP = (int)sizeof(U); // key passes
    static constexpr bool payload = !std::is_same<P, no_payload>::value;
    // The output's values: the indices, as int64, when the payload is there.
    typedef typename std::conditional<payload, int64_t, no_payload>::type index_type;
    // Elements per line of a line-buffered scatter (64 bytes of 4- or 8-byte keys).
    static constexpr int LINE = sizeof(U) == 8 ? 8 : 16;
    static constexpr size_t LINE_BYTES = (size_t)RADIX * LINE * (sizeof(U) + 8);

    static U key(U raw) { return key_order<U>(KIND)(raw); }
    static U raw_of(U k) { return raw_of_key<U>(k, KIND); }
    // The digit of an element as a pass sees it (KEYED: an order key; else raw bits).
    template <bool KEYED> static unsigned digit(U x, int shift)
    {
        return (unsigned)((KEYED ? x : key(x)) >> shift) & (RADIX - 1u);
    }

    // Where a pass reads: the input view (the payload is the position), or a buffer.
    template <bool KEYED> struct from_input {
        const U *keys;
        int64_t stride;
        U key(int64_t i) const { return KEYED ? row_sorter::key(keys[i * stride]) : keys[i * stride]; }
        P val(int64_t i) const
        {
            if constexpr (payload)
                return (P)i;
            else
                return (void)i, P();
        }
    };
    struct from_buffer {
        const U *keys;
        const P *vals;
        U key(int64_t i) const { return keys[i]; }
        P val(int64_t i) const
        {
            if constexpr (payload)
                return vals[i];
            else
                return (void)i, P();
        }
    };
    // Where a pass writes: keys (when KEYS; mapped back to raw bits when DECODE) and values of
    // type V (the payload into a buffer, the indices as int64 into the output view; no_payload:
    // none), with their strides.
    template <typename V, bool KEYS, bool DECODE> struct destination {
        static constexpr bool values = !std::is_same<V, no_payload>::value;
        U *keys;
        int64_t keys_stride;
        V *vals;
        int64_t vals_stride;
        static U out(U x) { return DECODE ? raw_of(x) : x; }
        void put(uint64_t pos, U x, P v) const
        {
            if constexpr (KEYS)
                keys[(int64_t)pos * keys_stride] = out(x);
            if constexpr (values)
                vals[(int64_t)pos * vals_stride] = (V)v;
            (void)x;
            (void)v;
        }
        // Can lines be written whole (unit strides)?
        bool lines() const { return (!KEYS || keys_stride == 1) && (!values || vals_stride == 1); }
    };

    // Does a scatter into N keys go through lines? Where the keys outgrow the caches.
    static bool streamed(int64_t N) { return (uint64_t)N * sizeof(U) >= STREAM_BYTES; }

    // Scratch of a row of N keys over C chunks: every pass's counts per chunk, one pass's counts
    // and offsets per chunk, the totals, the specials per chunk, the scatter's lines per chunk,
    // two key buffers and two payload buffers.
    static size_t bytes(int64_t N, int64_t C)
    {
        const size_t counts = sizeof(uint64_t) * RADIX;
        return round_up(counts * KP * (size_t)C) + 2 * round_up(counts * (size_t)C) + round_up(counts * KP) +
               round_up(sizeof(uint64_t) * (size_t)C) + (streamed(N) ? round_up(LINE_BYTES) * (size_t)C : 0) +
               2 * round_up((size_t)N * sizeof(U)) + (payload ? 2 * round_up((size_t)N * sizeof(P)) : 0);
    }

    static void small(const row_views<U> &v, int64_t N)
    {
        U raw[SMALL_ROW], keys[SMALL_ROW];
        uint32_t pos[SMALL_ROW];
        for (int64_t i = 0; i < N; i++) {
            raw[i] = v.in[i * v.in_stride];
            keys[i] = key(raw[i]);
            pos[i] = (uint32_t)i;
        }
        for (int64_t i = 1; i < N; i++) {
            const U r = raw[i], k = keys[i];
            const uint32_t p = pos[i];
            int64_t j = i;
            for (; j > 0 && keys[j - 1] > k; j--) {
                raw[j] = raw[j - 1];
                keys[j] = keys[j - 1];
                pos[j] = pos[j - 1];
            }
            raw[j] = r;
            keys[j] = k;
            pos[j] = p;
        }
        if (v.keys)
            for (int64_t i = 0; i < N; i++)
                v.keys[i * v.keys_stride] = raw[i];
        if (v.indices)
            for (int64_t i = 0; i < N; i++)
                v.indices[i * v.indices_stride] = (int64_t)pos[i];
    }

    // (The loops below work on local copies of their arguments and counters: nothing they store
    // can alias those, so they stay in registers.)

    // Counting spreads over WAYS interleaved tables of 32-bit counters (key i into table i % WAYS,
    // over blocks of at most COUNT_BLOCK keys), so that a run of one digit (sorted or skewed data)
    // does not wait on one counter from key to key.
    static constexpr int WAYS = 4;
    static constexpr int64_t COUNT_BLOCK = (int64_t)1 << 30;

    // Every pass's digit counts of the input's keys [begin, end), and how many of them order_key
    // does not map one-to-one (-0.0, NaN).
    static uint64_t count_all(const from_input<false> &source, int64_t begin, int64_t end, uint64_t *counts)
    {
        const from_input<false> src = source;
        uint64_t specials = 0;
        uint32_t local[WAYS][KP][RADIX];
        memset(counts, 0, sizeof(uint64_t) * RADIX * KP);
        for (int64_t block = begin; block < end; block += COUNT_BLOCK) {
            const int64_t stop = end - block < COUNT_BLOCK ? end : block + COUNT_BLOCK;
            memset(local, 0, sizeof local);
            // The keys of a group first (a loop that vectorises), then their counts.
            constexpr int GROUP = 64;
            U keys[GROUP];
            for (int64_t i = block; i < stop; i += GROUP) {
                const int n = stop - i < GROUP ? (int)(stop - i) : GROUP;
                unsigned odd = 0;
                for (int j = 0; j < n; j++) {
                    const U raw = src.key(i + j), k = key(raw);
                    keys[j] = k;
                    if constexpr (KIND == KIND_FLOAT)
                        odd += raw_of(k) != raw;
                }
                specials += odd;
                int j = 0;
                for (; j + WAYS <= n; j += WAYS)
                    for (int w = 0; w < WAYS; w++)
                        for (int p = 0; p < KP; p++)
                            local[w][p][(unsigned)(keys[j + w] >> (8 * p)) & (RADIX - 1u)]++;
                for (; j < n; j++)
                    for (int p = 0; p < KP; p++)
                        local[0][p][(unsigned)(keys[j] >> (8 * p)) & (RADIX - 1u)]++;
            }
            for (int w = 0; w < WAYS; w++)
                for (int p = 0; p < KP; p++)
                    for (int d = 0; d < RADIX; d++)
                        counts[p * RADIX + d] += local[w][p][d];
        }
        return specials;
    }

    template <bool KEYED, class Src>
    static void count(const Src &source, int64_t begin, int64_t end, int shift, uint64_t *counts)
    {
        const Src src = source;
        uint32_t local[WAYS][RADIX];
        memset(counts, 0, sizeof(uint64_t) * RADIX);
        for (int64_t block = begin; block < end; block += COUNT_BLOCK) {
            const int64_t stop = end - block < COUNT_BLOCK ? end : block + COUNT_BLOCK;
            memset(local, 0, sizeof local);
            int64_t i = block;
            for (; i + WAYS <= stop; i += WAYS)
                for (int w = 0; w < WAYS; w++)
                    local[w][digit<KEYED>(src.key(i + w), shift)]++;
            for (; i < stop; i++)
                local[0][digit<KEYED>(src.key(i), shift)]++;
            for (int w = 0; w < WAYS; w++)
                for (int d = 0; d < RADIX; d++)
                    counts[d] += local[w][d];
        }
    }

    // Elements [begin, end) of src to dst, each after the elements of its digit placed before it
    // (offsets[d]: where the first one of digit d goes).
    template <bool KEYED, class Src, class Dst>
    static void scatter(const Src &source, const Dst &destination_, int64_t begin, int64_t end, int shift,
                        const uint64_t *offsets)
    {
        const Src src = source;
        const Dst dst = destination_;
        uint64_t next[RADIX];
        memcpy(next, offsets, sizeof next);
        for (int64_t i = begin; i < end; i++) {
            const U x = src.key(i);
            dst.put(next[digit<KEYED>(x, shift)]++, x, src.val(i));
        }
    }

    // The same through a line per digit (software write-combining): an element (and its value)
    // goes to its digit's line, and a line full of this chunk's elements goes out whole with
    // streaming stores; lines shared with the neighbouring ranges are written element by
    // element, so that nothing outside this chunk's ranges is touched. `lines`: LINE_BYTES.
    template <bool KEYED, class Src, typename V, bool KEYS, bool DECODE>
    static void scatter_lines(const Src &source, const destination<V, KEYS, DECODE> &destination_, int64_t begin,
                              int64_t end, int shift, const uint64_t *offsets, void *lines)
    {
        typedef destination<V, KEYS, DECODE> Dst;
        const Src src = source;
        const Dst dst = destination_;
        uint64_t next[RADIX], first[RADIX];
        memcpy(next, offsets, sizeof next);
        memcpy(first, offsets, sizeof first);
        U *key_lines = static_cast<U *>(lines);
        V *val_lines = reinterpret_cast<V *>(static_cast<char *>(lines) + (size_t)RADIX * LINE * sizeof(U));
        // Lines follow the destination's addresses (a line of keys is then 16-byte aligned).
        const uint64_t phase = KEYS          ? (uint64_t)((uintptr_t)dst.keys / sizeof(U)) % LINE
                               : Dst::values ? (uint64_t)((uintptr_t)dst.vals / sizeof(V)) % LINE
                                             : 0;
        auto part = [&](unsigned d, uint64_t from, uint64_t to) { // [from, to) within one line
            const uint64_t slot = (from + phase) % LINE;
            if constexpr (KEYS)
                memcpy(dst.keys + from, key_lines + d * LINE + slot, (size_t)(to - from) * sizeof(U));
            if constexpr (Dst::values)
                memcpy(dst.vals + from, val_lines + d * LINE + slot, (size_t)(to - from) * sizeof(V));
        };
        for (int64_t i = begin; i < end; i++) {
            const U x = src.key(i);
            const unsigned d = digit<KEYED>(x, shift);
            const uint64_t p = next[d]++;
            const unsigned slot = (unsigned)((p + phase) % LINE);
            if constexpr (KEYS)
                key_lines[d * LINE + slot] = Dst::out(x);
            if constexpr (Dst::values)
                val_lines[d * LINE + slot] = (V)src.val(i);
            if (slot == LINE - 1) {
                if (p >= LINE - 1 && p + 1 - LINE >= first[d]) { // the whole line is ours
                    if constexpr (KEYS)
                        stream_line(dst.keys + (p + 1 - LINE), key_lines + d * LINE, LINE * sizeof(U));
                    if constexpr (Dst::values)
                        stream_line(dst.vals + (p + 1 - LINE), val_lines + d * LINE, LINE * sizeof(V));
                } else {
                    part(d, first[d], p + 1);
                }
            }
        }
        for (unsigned d = 0; d < RADIX; d++) { // the lines not yet full
            const uint64_t stop = next[d], in_line = (stop + phase) % LINE;
            const uint64_t from = stop >= in_line && stop - in_line > first[d] ? stop - in_line : first[d];
            if (from < stop)
                part(d, from, stop);
        }
        stream_fence();
    }

    template <class Src, class Dst> static void copy(const Src &src, const Dst &dst, int64_t begin, int64_t end)
    {
        for (int64_t i = begin; i < end; i++)
            dst.put((uint64_t)i, src.key(i), src.val(i));
    }

    // Calls f(destination) for the output views (keys wanted or not), mapping order keys back to
    // raw bits when DECODE.
    template <bool DECODE, class F> static void to_outputs(const row_views<U> &v, F &&f)
    {
        index_type *indices = reinterpret_cast<index_type *>(v.indices);
        if (v.keys)
            f(destination<index_type, true, DECODE>{v.keys, v.keys_stride, indices, v.indices_stride});
        else
            f(destination<index_type, false, DECODE>{v.keys, v.keys_stride, indices, v.indices_stride});
    }

    // The row's scratch, laid out.
    struct work {
        uint64_t *chunk_counts, *pass_counts, *offsets, *totals, *specials;
        char *lines;
        U *buf_keys[2];
        P *buf_vals[2];
        int64_t N, C;
        int64_t bound(int64_t c) const { return (int64_t)((unsigned __int128)N * (uint64_t)c / (uint64_t)C); }
        // Runs body(begin, end, c) for every chunk c, in parallel.
        template <class F> void chunks(F &&body) const
        {
            hkc::parallel_for(C, 1, [&](int64_t first, int64_t last) {
                for (int64_t c = first; c < last; c++)
                    body(bound(c), bound(c + 1), c);
            });
        }
    };

    static void sort(const row_views<U> &v, int64_t N, bool in_place, void *scratch, int64_t C)
    {
        char *at = static_cast<char *>(scratch);
        auto take = [&](size_t bytes) {
            char *here = at;
            at += round_up(bytes);
            return here;
        };
        work w;
        w.N = N;
        w.C = C;
        w.chunk_counts = reinterpret_cast<uint64_t *>(take(sizeof(uint64_t) * RADIX * KP * (size_t)C));
        w.pass_counts = reinterpret_cast<uint64_t *>(take(sizeof(uint64_t) * RADIX * (size_t)C));
        w.offsets = reinterpret_cast<uint64_t *>(take(sizeof(uint64_t) * RADIX * (size_t)C));
        w.totals = reinterpret_cast<uint64_t *>(take(sizeof(uint64_t) * RADIX * KP));
        w.specials = reinterpret_cast<uint64_t *>(take(sizeof(uint64_t) * (size_t)C));
        w.lines = streamed(N) ? take(round_up(LINE_BYTES) * (size_t)C) : nullptr;
        w.buf_keys[0] = reinterpret_cast<U *>(take((size_t)N * sizeof(U)));
        w.buf_keys[1] = reinterpret_cast<U *>(take((size_t)N * sizeof(U)));
        w.buf_vals[0] = w.buf_vals[1] = nullptr;
        if constexpr (payload) {
            w.buf_vals[0] = reinterpret_cast<P *>(take((size_t)N * sizeof(P)));
            w.buf_vals[1] = reinterpret_cast<P *>(take((size_t)N * sizeof(P)));
        }
        const from_input<false> input{v.in, v.in_stride};
        w.chunks([&](int64_t b, int64_t e, int64_t c) {
            w.specials[c] = count_all(input, b, e, w.chunk_counts + c * RADIX * KP);
        });
        uint64_t specials = 0;
        memset(w.totals, 0, sizeof(uint64_t) * RADIX * KP);
        for (int64_t c = 0; c < C; c++) {
            specials += w.specials[c];
            for (int i = 0; i < RADIX * KP; i++)
                w.totals[i] += w.chunk_counts[c * RADIX * KP + i];
        }
        int passes[KP], m = 0;
        for (int p = 0; p < KP; p++) {
            bool trivial = false;
            for (int d = 0; d < RADIX && !trivial; d++)
                trivial = w.totals[p * RADIX + d] == (uint64_t)N;
            if (!trivial)
                passes[m++] = p;
        }
        if (m == 0) {                    // every key the same: the present order
            if (in_place && v.indices) { // the keys are in place already
                w.chunks([&](int64_t b, int64_t e, int64_t) {
                    for (int64_t i = b; i < e; i++)
                        v.indices[i * v.indices_stride] = i;
                });
            } else if (!in_place) {
                to_outputs<false>(v, [&](const auto &out) {
                    w.chunks([&](int64_t b, int64_t e, int64_t) { copy(input, out, b, e); });
                });
            }
            return;
        }
        if (specials == 0)
            run<true>(v, w, in_place, passes, m);
        else
            run<false>(v, w, in_place, passes, m);
    }

    // The m passes passes[0 .. m) over the row, from the input to the outputs.
    template <bool KEYED> static void run(const row_views<U> &v, const work &w, bool in_place, const int *passes, int m)
    {
        const int64_t C = w.C;
        bool final_written = false;
        for (int k = 0; k < m; k++) {
            const int p = passes[k], shift = 8 * p;
            const uint64_t *counts = w.chunk_counts + p * RADIX; // chunk c's at counts + c * stride
            int64_t stride = RADIX * KP;
            if (k > 0 && C > 1) { // per chunk of this pass's input (one chunk: the row's totals)
                const from_buffer src{w.buf_keys[(k - 1) & 1], w.buf_vals[(k - 1) & 1]};
                w.chunks([&](int64_t b, int64_t e, int64_t c) {
                    count<KEYED>(src, b, e, shift, w.pass_counts + c * RADIX);
                });
                counts = w.pass_counts;
                stride = RADIX;
            }
            uint64_t start = 0;
            for (int d = 0; d < RADIX; d++) {
                uint64_t next = start;
                for (int64_t c = 0; c < C; c++) {
                    w.offsets[c * RADIX + d] = next;
                    next += counts[c * stride + d];
                }
                start += w.totals[p * RADIX + d];
            }
            const bool to_final = k == m - 1 && !(in_place && k == 0);
            auto pass = [&](const auto &src) {
                auto into = [&](const auto &dst) {
                    const bool by_lines = w.lines && dst.lines();
                    w.chunks([&](int64_t b, int64_t e, int64_t c) {
                        if (by_lines)
                            scatter_lines<KEYED>(src, dst, b, e, shift, w.offsets + c * RADIX,
                                                 w.lines + c * round_up(LINE_BYTES));
                        else
                            scatter<KEYED>(src, dst, b, e, shift, w.offsets + c * RADIX);
                    });
                };
                if (to_final)
                    to_outputs<KEYED>(v, into);
                else
                    into(destination<P, true, false>{w.buf_keys[k & 1], 1, w.buf_vals[k & 1], 1});
            };
            if (k == 0)
                pass(from_input<KEYED>{v.in, v.in_stride});
            else
                pass(from_buffer{w.buf_keys[(k - 1) & 1], w.buf_vals[(k - 1) & 1]});
            final_written = to_final;
        }
        if (!final_written) {
            const from_buffer src{w.buf_keys[(m - 1) & 1], w.buf_vals[(m - 1) & 1]};
            to_outputs<KEYED>(
                v, [&](const auto &out) { w.chunks([&](int64_t b, int64_t e, int64_t) { copy(src, out, b, e); }); });
        }
    }
};

// Offset of row r in view v (0 in, 1 keys, 2 indices).
int64_t row_offset(const hkk_rows &rows, int v, int64_t r)
{
    int64_t offset = 0;
    for (int k = rows.ndim - 1; k >= 0; k--) {
        const int64_t extent = rows.shape[k];
        offset += (r % extent) * rows.strides[v][k];
        r /= extent;
    }
    return offset;
}

// How the rows are spread: `wide`, each row by `chunks` threads in turn; else `workers` threads
// take rows, each with its own scratch of `per_worker` bytes.
struct sort_plan {
    bool wide;
    int64_t chunks, workers;
    size_t per_worker, total;
};

template <typename Sorter> sort_plan make_plan(const hkk_sort_args *a)
{
    sort_plan pl;
    const int64_t N = a->length, R = a->rows, T = hkc::threads();
    pl.wide = T > 1 && N >= WIDE_ROW && R < 2 * T;
    if (pl.wide) {
        pl.chunks = N / WIDE_CHUNK < T ? N / WIDE_CHUNK : T;
        pl.workers = 1;
    } else {
        pl.chunks = 1;
        pl.workers = N > SMALL_ROW ? hkc::workers_for(R, N >= ROW_GRAIN ? 1 : ROW_GRAIN / N) : 0;
    }
    pl.per_worker = N > SMALL_ROW ? round_up(Sorter::bytes(N, pl.chunks)) : 0;
    pl.total = pl.per_worker ? pl.per_worker * (size_t)pl.workers + ALIGN : 0;
    return pl;
}

template <typename Sorter, typename U> int sort_rows(const hkk_sort_args *a, void *scratch)
{
    const sort_plan pl = make_plan<Sorter>(a);
    const int64_t N = a->length, R = a->rows;
    char *base = static_cast<char *>(scratch);
    if (pl.total) {
        if (!base)
            return 1;
        base += (ALIGN - (uintptr_t)base % ALIGN) % ALIGN;
    }
    auto views_of = [&](int64_t r) {
        row_views<U> v;
        v.in = static_cast<const U *>(a->in) + row_offset(a->rows_layout, 0, r);
        v.in_stride = a->last_stride[0];
        v.keys = a->keys ? static_cast<U *>(a->keys) + row_offset(a->rows_layout, 1, r) : nullptr;
        v.keys_stride = a->last_stride[1];
        v.indices = a->indices ? a->indices + row_offset(a->rows_layout, 2, r) : nullptr;
        v.indices_stride = a->last_stride[2];
        return v;
    };
    const bool in_place = a->in_place != 0;
    if (pl.wide) {
        for (int64_t r = 0; r < R; r++)
            Sorter::sort(views_of(r), N, in_place, base, pl.chunks);
        return 0;
    }
    if (N <= SMALL_ROW) {
        hkc::parallel_for(R, ROW_GRAIN / N, [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; r++)
                Sorter::small(views_of(r), N);
        });
        return 0;
    }
    hkc::parallel_workers((int)pl.workers, [&](int w, int count) {
        const int64_t begin = R * w / count, end = R * (w + 1) / count;
        for (int64_t r = begin; r < end; r++)
            Sorter::sort(views_of(r), N, in_place, base + (size_t)w * pl.per_worker, 1);
    });
    return 0;
}

// Calls f(row_sorter<...>, U) for the dtype's width and order and the payload the call needs.
template <typename F> int dispatch_sorter(const hkk_sort_args *a, F &&f)
{
    return hk_dispatch::dispatch<HK_DTYPES_REAL>(a->dtype, [&](auto tag) {
        constexpr hk_dtype D = decltype(tag)::value;
        typedef typename hk_dt::bits_of<D>::type U;
        constexpr int K = kind_of<D>();
        if (!a->indices)
            return f(row_sorter<U, K, no_payload>(), U());
        if ((uint64_t)a->length <= 0xffffffffull)
            return f(row_sorter<U, K, uint32_t>(), U());
        return f(row_sorter<U, K, uint64_t>(), U());
    });
}

} // namespace

extern "C" size_t hkc_sort_scratch_bytes(const hkk_sort_args *a)
{
    size_t bytes = 0;
    dispatch_sorter(a, [&](auto sorter, auto) {
        bytes = make_plan<decltype(sorter)>(a).total;
        return 0;
    });
    return bytes;
}

extern "C" int hkc_sort(const hkk_sort_args *a, void *scratch)
{
    if (a->length <= 0 || a->rows <= 0)
        return 0;
    return dispatch_sorter(
        a, [&](auto sorter, auto bits) { return sort_rows<decltype(sorter), decltype(bits)>(a, scratch); });
}
