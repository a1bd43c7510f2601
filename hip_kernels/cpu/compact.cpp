// compact.cpp: the CPU device's stream compaction (index/compact.h: nonzero's positions and
// in[mask]'s values), over the same arguments as index/compact.hip. The mask is cut into at most
// MAX_CHUNKS chunks of at least GRAIN bytes; the threads count each chunk's true bytes, the chunk
// offsets are summed in order, then each chunk writes its results from its offset. The mask is
// read 8 bytes at a time, a word of false bytes skipped at once. Results past args->count are
// never written.
#include <string.h>

#include "common/dtype_traits.h"
#include "cpu/cpu.h"
#include "cpu/parallel.h"

namespace
{

constexpr int64_t GRAIN = 1 << 16;   // mask bytes worth a thread
constexpr int64_t MAX_CHUNKS = 1024; // chunk offsets live on the stack

inline uint64_t load_word(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

// True bytes among the 8 of w (any nonzero byte is true).
inline int true_bytes(uint64_t w)
{
    w |= w >> 4;
    w |= w >> 2;
    w |= w >> 1;
    return __builtin_popcountll(w & 0x0101010101010101ull);
}

int64_t count_true(const uint8_t *mask, int64_t begin, int64_t end)
{
    int64_t count = 0, i = begin;
    for (; i + 8 <= end; i += 8)
        count += true_bytes(load_word(mask + i));
    for (; i < end; i++)
        count += mask[i] != 0;
    return count;
}

// Calls emit(i) for each true position i in [begin, end), in order, until emit returns false;
// skip(k) first for each run of k false positions passed over (sinks that follow i step by step).
template <typename Emit, typename Skip> void for_true(const uint8_t *mask, int64_t begin, int64_t end, Emit &&emit,
                                                      Skip &&skip)
{
    int64_t i = begin;
    for (; i + 8 <= end; i += 8) {
        if (load_word(mask + i) == 0) {
            skip(8);
            continue;
        }
        for (int b = 0; b < 8; b++) {
            if (mask[i + b] != 0) {
                if (!emit(i + b))
                    return;
            } else {
                skip(1);
            }
        }
    }
    for (; i < end; i++) {
        if (mask[i] != 0) {
            if (!emit(i))
                return;
        } else {
            skip(1);
        }
    }
}

// C-order coordinates of a position that moves forwards through the mask.
struct odometer {
    int ndim;
    const int64_t *shape;
    int64_t c[HKK_COMPACT_MAX_DIMS];

    odometer(int nd, const int64_t *s, int64_t i) : ndim(nd), shape(s)
    {
        for (int d = ndim - 1; d > 0; d--) {
            c[d] = i % shape[d];
            i /= shape[d];
        }
        c[0] = i;
    }
    void advance(int64_t k)
    {
        for (int d = ndim - 1; d > 0 && k > 0; d--) {
            const int64_t v = c[d] + k;
            if (v < shape[d]) {
                c[d] = v;
                return;
            }
            c[d] = v % shape[d];
            k = v / shape[d];
        }
        c[0] += k;
    }
};

// Writes the results of chunk [begin, end) from result j.
template <typename U> void write_values(const hkk_compact_args *a, int64_t begin, int64_t end, int64_t j)
{
    const uint8_t *mask = static_cast<const uint8_t *>(a->mask);
    const U *in = static_cast<const U *>(a->in);
    U *out = static_cast<U *>(a->out);
    const int64_t stride = a->out_stride, count = a->count;
    for_true(
        mask, begin, end,
        [&](int64_t i) {
            if (j >= count)
                return false;
            out[j++ * stride] = in[i];
            return true;
        },
        [](int64_t) {});
}

void write_positions(const hkk_compact_args *a, int64_t begin, int64_t end, int64_t j)
{
    const uint8_t *mask = static_cast<const uint8_t *>(a->mask);
    const int64_t count = a->count;
    if (a->ndim == 1) {
        int64_t *out = a->rows[0];
        const int64_t stride = a->row_strides[0];
        for_true(
            mask, begin, end,
            [&](int64_t i) {
                if (j >= count)
                    return false;
                out[j++ * stride] = i;
                return true;
            },
            [](int64_t) {});
        return;
    }
    odometer at(a->ndim, a->shape, begin); // at the next position not yet passed
    for_true(
        mask, begin, end,
        [&](int64_t) {
            if (j >= count)
                return false;
            for (int d = 0; d < a->ndim; d++)
                a->rows[d][j * a->row_strides[d]] = at.c[d];
            j++;
            at.advance(1);
            return true;
        },
        [&](int64_t k) { at.advance(k); });
}

// The mode and unit size were checked by hkc_compact.
void write_chunk(const hkk_compact_args *a, int64_t begin, int64_t end, int64_t j)
{
    if (a->mode == HKK_COMPACT_POSITIONS) {
        write_positions(a, begin, end, j);
        return;
    }
    switch (a->item_bytes) {
    case 1: write_values<hk_dt::uint_of_size<1>::type>(a, begin, end, j); return;
    case 2: write_values<hk_dt::uint_of_size<2>::type>(a, begin, end, j); return;
    case 4: write_values<hk_dt::uint_of_size<4>::type>(a, begin, end, j); return;
    case 8: write_values<hk_dt::uint_of_size<8>::type>(a, begin, end, j); return;
    case 16: write_values<hk_dt::uint_of_size<16>::type>(a, begin, end, j); return;
    }
}

} // namespace

extern "C" size_t hkc_compact_scratch_bytes(const hkk_compact_args *args)
{
    (void)args;
    return 0;
}

extern "C" int hkc_compact(const hkk_compact_args *a, void *scratch)
{
    (void)scratch;
    if (a->n <= 0 || a->count <= 0)
        return 0;
    if (a->mode == HKK_COMPACT_POSITIONS ? a->ndim < 1 || a->ndim > HKK_COMPACT_MAX_DIMS
                                         : a->mode != HKK_COMPACT_VALUES ||
                                               (a->item_bytes != 1 && a->item_bytes != 2 && a->item_bytes != 4 &&
                                                a->item_bytes != 8 && a->item_bytes != 16))
        return 1;
    const uint8_t *mask = static_cast<const uint8_t *>(a->mask);
    const int64_t n = a->n;
    int64_t chunks = (n + GRAIN - 1) / GRAIN;
    if (chunks > MAX_CHUNKS)
        chunks = MAX_CHUNKS;
    const int64_t length = (n + chunks - 1) / chunks; // chunk c: [c * length, min(n, (c + 1) * length))
    if (chunks == 1) {
        write_chunk(a, 0, n, 0);
        return 0;
    }
    int64_t offsets[MAX_CHUNKS];
    hkc::parallel_for(chunks, 1, [&](int64_t first, int64_t last) {
        for (int64_t c = first; c < last; c++) {
            const int64_t begin = c * length, end = begin + length < n ? begin + length : n;
            offsets[c] = begin < end ? count_true(mask, begin, end) : 0;
        }
    });
    int64_t run = 0;
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t k = offsets[c];
        offsets[c] = run;
        run += k;
    }
    hkc::parallel_for(chunks, 1, [&](int64_t first, int64_t last) {
        for (int64_t c = first; c < last; c++) {
            const int64_t begin = c * length, end = begin + length < n ? begin + length : n;
            if (begin < end && offsets[c] < a->count)
                write_chunk(a, begin, end, offsets[c]);
        }
    });
    return 0;
}
