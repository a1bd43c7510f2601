// index.cpp: the CPU device's take (numpy.take's gather), RAISE mode's index check, and put (the
// scatter), over the same laid-out arguments as index/take.hip and index/put.hip, with their
// normalisation of an index, a flat put's offset and their copy units (index/index_device.h).
//
// Duplicate indices in a put: the GPU leaves unspecified which of the values aimed at one element
// lands (hipkit.h); here the last one in the C order of values does, whatever the thread count.
// Each element of out is written by one thread only, which walks values in C order: the threads
// split a dimension of values that addresses distinct elements of out (one the indices do not
// vary along), or, when there is none worth splitting (a flat put, or an axis that is all of out),
// each thread walks every value and stores only those whose index falls in its share of the axis.
#include <atomic>

#include "cpu/cpu.h"
#include "cpu/parallel.h"
#include "index/index_device.h"

namespace
{

// Units of work one thread takes at least: copies are cheap, so enough that a fork pays.
constexpr int64_t kGrain = 1 << 15;

// Walks positions [begin, end) of the C-order nest `shape` over V views: calls run(off, len) for
// each stretch along the last dimension, off[v] being view v's offset of the stretch's first
// position (strides[v][d] per dimension d; the last one steps inside the stretch), until run
// returns false. ndim 0 is one position at the base offsets.
template <int V, typename F>
void walk(int ndim, const int64_t *shape, const int64_t *const (&strides)[V], const int64_t (&base)[V], int64_t begin,
          int64_t end, F &&run)
{
    if (ndim <= 0) {
        if (begin < end)
            run(base, (int64_t)1);
        return;
    }
    const int last = ndim - 1;
    int64_t c[HKK_MAX_DIMS], off[V];
    for (int v = 0; v < V; v++)
        off[v] = base[v];
    int64_t rest = begin;
    for (int d = last; d >= 0; d--) {
        c[d] = d > 0 ? rest % shape[d] : rest;
        rest = d > 0 ? rest / shape[d] : 0;
        for (int v = 0; v < V; v++)
            off[v] += c[d] * strides[v][d];
    }
    for (int64_t pos = begin; pos < end;) {
        const int64_t len = shape[last] - c[last] < end - pos ? shape[last] - c[last] : end - pos;
        if (!run((const int64_t *)off, len))
            break;
        pos += len;
        if (pos >= end)
            break;
        for (int v = 0; v < V; v++)
            off[v] += len * strides[v][last];
        c[last] += len;
        for (int d = last; d > 0 && c[d] == shape[d]; d--) {
            for (int v = 0; v < V; v++)
                off[v] += strides[v][d - 1] - shape[d] * strides[v][d];
            c[d] = 0;
            c[d - 1]++;
        }
    }
}

template <typename U> int take_typed(const hkk_take_args *p)
{
    const U *in = static_cast<const U *>(p->in);
    U *out = static_cast<U *>(p->out);
    const int64_t *indices = p->indices;
    const int last = p->ndim - 1;
    const int64_t n = p->axis_size, axis_stride = p->axis_stride;
    const int mode = p->mode;
    const int64_t *const strides[3] = {p->in_strides, p->idx_strides, p->out_strides};
    const int64_t base[3] = {0, 0, 0};
    const int64_t s_in = p->in_strides[last], s_idx = p->idx_strides[last], s_out = p->out_strides[last];
    hkc::parallel_for(p->count, kGrain, [&](int64_t begin, int64_t end) {
        walk<3>(p->ndim, p->shape, strides, base, begin, end, [&](const int64_t *off, int64_t len) {
            if (s_idx == 0) { // one index for the stretch: a row copy
                const U *src = in + off[0] + hk_index::normalise(indices[off[1]], n, mode) * axis_stride;
                U *dst = out + off[2];
                if (s_in == 1 && s_out == 1)
                    for (int64_t t = 0; t < len; t++)
                        dst[t] = src[t];
                else
                    for (int64_t t = 0; t < len; t++)
                        dst[t * s_out] = src[t * s_in];
            } else {
                const U *src = in + off[0];
                const int64_t *idx = indices + off[1];
                U *dst = out + off[2];
                for (int64_t t = 0; t < len; t++)
                    dst[t * s_out] = src[t * s_in + hk_index::normalise(idx[t * s_idx], n, mode) * axis_stride];
            }
            return true;
        });
    });
    return 0;
}

// The destination of a value whose index is j (already normalised), from the walk's offset.
template <bool Flat> inline int64_t put_offset(int64_t dst, int64_t j, const hkk_put_args &p)
{
    return Flat ? dst + hk_index::flat_offset(j, p) : dst + j * p.axis_stride;
}

// Walks the values of positions [begin, end) of the nest (shape, strides, base) and stores each
// whose normalised index lies in [lo, hi) (Owned), or every one.
template <typename U, bool Flat, bool Owned>
void put_walk(const hkk_put_args &p, const int64_t *shape, const int64_t (&base)[3], int64_t begin, int64_t end,
              int64_t lo, int64_t hi)
{
    const U *values = static_cast<const U *>(p.values);
    U *out = static_cast<U *>(p.out);
    const int64_t *indices = p.indices;
    const int last = p.ndim - 1;
    const int64_t n = p.axis_size;
    const int mode = p.mode;
    const int64_t *const strides[3] = {p.values_strides, p.idx_strides, p.out_strides};
    const int64_t s_val = p.values_strides[last], s_idx = p.idx_strides[last], s_out = p.out_strides[last];
    walk<3>(p.ndim, shape, strides, base, begin, end, [&](const int64_t *off, int64_t len) {
        const U *src = values + off[0];
        const int64_t *idx = indices + off[1];
        if (!Flat && s_idx == 0) { // one index for the stretch: a row store
            const int64_t j = hk_index::normalise(idx[0], n, mode);
            if (Owned && (j < lo || j >= hi))
                return true;
            U *dst = out + put_offset<Flat>(off[2], j, p);
            for (int64_t t = 0; t < len; t++)
                dst[t * s_out] = src[t * s_val];
            return true;
        }
        for (int64_t t = 0; t < len; t++) {
            const int64_t j = hk_index::normalise(idx[t * s_idx], n, mode);
            if (Owned && (j < lo || j >= hi))
                continue;
            out[put_offset<Flat>(off[2] + t * s_out, j, p)] = src[t * s_val];
        }
        return true;
    });
}

template <typename U, bool Flat> int put_with(const hkk_put_args &p)
{
    const int64_t zero[3] = {0, 0, 0};
    const int workers = hkc::workers_for(p.count, kGrain);
    if (workers == 1) {
        put_walk<U, Flat, false>(p, p.shape, zero, 0, p.count, 0, 0);
        return 0;
    }
    // The longest dimension along which out's element changes and the index does not: positions
    // that differ along it never store to one element, so it splits between threads.
    int split = -1;
    for (int d = 0; !Flat && d < p.ndim; d++)
        if (p.out_strides[d] != 0 && p.idx_strides[d] == 0 && (split < 0 || p.shape[d] > p.shape[split]))
            split = d;
    if (split >= 0 && p.shape[split] >= workers) {
        const int64_t extent = p.shape[split], per_slice = p.count / extent;
        const int64_t grain = kGrain / per_slice > 1 ? kGrain / per_slice : 1;
        hkc::parallel_for(extent, grain, [&](int64_t begin, int64_t end) {
            int64_t shape[HKK_MAX_DIMS];
            for (int d = 0; d < p.ndim; d++)
                shape[d] = p.shape[d];
            shape[split] = end - begin;
            const int64_t base[3] = {begin * p.values_strides[split], begin * p.idx_strides[split],
                                     begin * p.out_strides[split]};
            put_walk<U, Flat, false>(p, shape, base, 0, per_slice * (end - begin), 0, 0);
        });
        return 0;
    }
    // Each thread owns a share of the axis (a flat put's: all of out) and walks every value.
    const int64_t n = p.axis_size;
    const int owners = n < workers ? (int)n : workers;
    hkc::parallel_workers(owners, [&](int w, int count) {
        put_walk<U, Flat, true>(p, p.shape, zero, 0, p.count, n * w / count, n * (w + 1) / count);
    });
    return 0;
}

} // namespace

extern "C" int hkc_take(const hkk_take_args *p)
{
    if (p->count <= 0)
        return 0;
    return hk_index::dispatch_unit<16>(p->unit_bytes, [&](auto unit) { return take_typed<decltype(unit)>(p); });
}

extern "C" int hkc_take_check(const hkk_take_args *p, unsigned long long *first_bad)
{
    std::atomic<unsigned long long> first(UINT64_MAX);
    const int64_t n = p->axis_size;
    const int last = p->idx_ndim - 1;
    const int64_t s = last >= 0 ? p->idx_own_strides[last] : 0;
    const int64_t *const strides[1] = {p->idx_own_strides};
    const int64_t base[1] = {0};
    hkc::parallel_for(p->idx_count, kGrain, [&](int64_t begin, int64_t end) {
        int64_t pos = begin; // C-order position of the stretch's first index
        bool found = false;
        walk<1>(p->idx_ndim, p->idx_shape, strides, base, begin, end, [&](const int64_t *off, int64_t len) {
            const int64_t *idx = p->indices + off[0];
            for (int64_t t = 0; t < len; t++)
                if (idx[t * s] < -n || idx[t * s] >= n) {
                    pos += t;
                    found = true;
                    return false;
                }
            pos += len;
            return true;
        });
        if (!found)
            return;
        unsigned long long seen = first.load();
        while ((unsigned long long)pos < seen && !first.compare_exchange_weak(seen, (unsigned long long)pos)) {
        }
    });
    *first_bad = first.load();
    return 0;
}

extern "C" int hkc_put(const hkk_put_args *p)
{
    if (p->count <= 0)
        return 0;
    return hk_index::dispatch_unit<16>(p->unit_bytes, [&](auto unit) {
        typedef decltype(unit) U;
        return p->flat ? put_with<U, true>(*p) : put_with<U, false>(*p);
    });
}
