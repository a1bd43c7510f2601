// scan.cpp: the CPU device's cumsum and cumprod along one axis, over the laid-out arguments of
// scan/scan.hip and with its meaning (scan/scan_ops.h): NumPy's accumulation dtype
// (hk_dt::accumulate: integers in uint64, wrapping; float16 in float32, each result rounded to half
// once), hk_ops::op_add / op_multiply, and their identities.
//
// Order of the operations (it shows only in float results; integer results are exact): a row is
// combined sequentially, r_i = op(r_{i-1}, x_i), as NumPy does, except a long row of a scan with
// few rows (fewer than FEW_GROUPS groups, below), which is cut along the axis into chunks so that
// every core works on it: chunk c's results continue sequentially from
// offset_c = op(offset_{c-1}, total_{c-1}) (offset_0 the identity), total_c being chunk c's own
// elements combined sequentially from the identity (the first pass computes the totals, the
// second the results). Whether and where a row is cut depends on the shape alone, so the bits do
// not depend on the thread count.
//
// Rows that interleave in memory (a scan along an outer axis: the innermost other dimension is
// closer in memory than the scanned one) are walked as groups of up to GROUP_WIDTH neighbouring
// rows, one position of every row of the group at a time, so the loads run along memory (and
// vectorise where the group's rows are unit-strided); each row is still combined sequentially.
#include "common/dispatch.h"
#include "cpu/cpu.h"
#include "cpu/parallel.h"
#include "scan/scan_ops.h"

namespace
{

using namespace hk_scan_ops;

constexpr int64_t GROUP_WIDTH = 256;        // neighbouring rows walked together
constexpr int64_t CHUNK_ELEMENTS = 1 << 16; // elements (positions x group width) per chunk of a cut row
constexpr int64_t FEW_GROUPS = 64;          // groups below which long rows are cut along the axis
constexpr int64_t GRAIN = 1 << 15;          // elements worth a thread

int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

// How the rows are grouped and cut; from the shape and strides alone (no thread count).
struct scan_plan {
    bool columns;      // groups of neighbouring rows along the innermost row dimension
    int64_t inner;     // columns: that dimension's extent
    int64_t blocks;    // columns: groups per run of the innermost dimension
    int64_t width;     // rows per group at most (1 for single rows)
    int64_t groups;    // groups in all
    int64_t chunk_len; // positions along the axis per chunk
    int64_t chunks;    // chunks per group (1: rows not cut)
};

scan_plan make_plan(const hkk_scan_args *a)
{
    scan_plan p;
    const hkk_rows &rows = a->rows_layout;
    const int last = rows.ndim - 1;
    p.columns =
        rows.ndim > 0 && a->length > 1 && rows.shape[last] >= 4 && abs64(rows.strides[0][last]) < abs64(a->in_stride);
    if (p.columns) {
        p.inner = rows.shape[last];
        p.width = p.inner < GROUP_WIDTH ? p.inner : GROUP_WIDTH;
        p.blocks = (p.inner + p.width - 1) / p.width;
        p.groups = a->rows / p.inner * p.blocks;
    } else {
        p.inner = 1;
        p.width = 1;
        p.blocks = 1;
        p.groups = a->rows;
    }
    p.chunk_len = CHUNK_ELEMENTS / p.width;
    p.chunks = 1;
    if (p.groups < FEW_GROUPS && a->length >= 2 * p.chunk_len)
        p.chunks = (a->length + p.chunk_len - 1) / p.chunk_len;
    else
        p.chunk_len = a->length;
    return p;
}

// Element offsets of row r in view 0 (in) and view 1 (out).
void row_offsets(const hkk_rows &rows, int64_t r, int64_t &in_offset, int64_t &out_offset)
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

template <typename In, int OP> struct scanner {
    typedef scan_types<In> types;
    typedef typename types::storage S;
    typedef typename types::acc A;
    typedef typename types::out O;

    const hkk_scan_args *a;
    scan_plan p;

    // Group g: its first row's offsets and its rows (1 for single rows).
    void group(int64_t g, int64_t &in_offset, int64_t &out_offset, int64_t &rows) const
    {
        int64_t first = g;
        rows = 1;
        if (p.columns) {
            const int64_t outer = g / p.blocks, block = g - outer * p.blocks;
            first = outer * p.inner + block * p.width;
            rows = p.inner - block * p.width < p.width ? p.inner - block * p.width : p.width;
        }
        row_offsets(a->rows_layout, first, in_offset, out_offset);
    }

    // Positions [begin, end) of group g, continuing from carry[0 .. rows); results written when
    // WRITE (else only the carries advance: a chunk's totals).
    template <bool WRITE> void run(int64_t g, int64_t begin, int64_t end, A *carry) const
    {
        const scan_op<A, OP> op;
        int64_t in_offset, out_offset, rows;
        group(g, in_offset, out_offset, rows);
        const S *in = static_cast<const S *>(a->in) + in_offset;
        O *out = static_cast<O *>(a->out) + out_offset;
        const int64_t is = a->in_stride, os = a->out_stride;
        if (!p.columns) {
            A acc = carry[0];
            if (is == 1 && os == 1) {
                for (int64_t i = begin; i < end; i++) {
                    acc = op(acc, types::load(in[i]));
                    if (WRITE)
                        out[i] = types::store(acc);
                }
            } else {
                for (int64_t i = begin; i < end; i++) {
                    acc = op(acc, types::load(in[i * is]));
                    if (WRITE)
                        out[i * os] = types::store(acc);
                }
            }
            carry[0] = acc;
            return;
        }
        const int last = a->rows_layout.ndim - 1;
        const int64_t ris = a->rows_layout.strides[0][last], ros = a->rows_layout.strides[1][last];
        for (int64_t i = begin; i < end; i++) {
            const S *src = in + i * is;
            O *dst = out + i * os;
            if (ris == 1 && (ros == 1 || !WRITE)) {
                for (int64_t j = 0; j < rows; j++) {
                    carry[j] = op(carry[j], types::load(src[j]));
                    if (WRITE)
                        dst[j] = types::store(carry[j]);
                }
            } else {
                for (int64_t j = 0; j < rows; j++) {
                    carry[j] = op(carry[j], types::load(src[j * ris]));
                    if (WRITE)
                        dst[j * ros] = types::store(carry[j]);
                }
            }
        }
    }

    void scan(void *scratch) const
    {
        const A identity = scan_op<A, OP>::identity();
        const int64_t L = a->length, per_group = L * p.width;
        if (p.chunks == 1) {
            const int64_t grain = per_group >= GRAIN ? 1 : GRAIN / per_group;
            hkc::parallel_for(p.groups, grain, [&](int64_t begin, int64_t end) {
                A carry[GROUP_WIDTH];
                for (int64_t g = begin; g < end; g++) {
                    for (int64_t j = 0; j < p.width; j++)
                        carry[j] = identity;
                    run<true>(g, 0, L, carry);
                }
            });
            return;
        }
        // Pass 1: the totals of every chunk but each group's last; then, per group, turned into
        // the offsets of the chunks after them: slot c holds offset_{c+1}.
        A *totals = static_cast<A *>(scratch);
        const int64_t cuts = p.chunks - 1, W = p.width;
        hkc::parallel_for(p.groups * cuts, 1, [&](int64_t begin, int64_t end) {
            for (int64_t item = begin; item < end; item++) {
                const int64_t g = item / cuts, c = item - g * cuts;
                A *t = totals + item * W;
                for (int64_t j = 0; j < W; j++)
                    t[j] = identity;
                run<false>(g, c * p.chunk_len, (c + 1) * p.chunk_len, t);
            }
        });
        const scan_op<A, OP> op;
        for (int64_t g = 0; g < p.groups; g++)
            for (int64_t c = 1; c < cuts; c++) {
                const A *before = totals + (g * cuts + c - 1) * W;
                A *t = totals + (g * cuts + c) * W;
                for (int64_t j = 0; j < W; j++)
                    t[j] = op(before[j], t[j]);
            }
        // Pass 2: every chunk from its offset.
        hkc::parallel_for(p.groups * p.chunks, 1, [&](int64_t begin, int64_t end) {
            A carry[GROUP_WIDTH];
            for (int64_t item = begin; item < end; item++) {
                const int64_t g = item / p.chunks, c = item - g * p.chunks;
                for (int64_t j = 0; j < W; j++)
                    carry[j] = c == 0 ? identity : totals[(g * cuts + c - 1) * W + j];
                const int64_t start = c * p.chunk_len, stop = start + p.chunk_len < L ? start + p.chunk_len : L;
                run<true>(g, start, stop, carry);
            }
        });
    }
};

size_t scratch_bytes(const scan_plan &p, size_t acc_bytes)
{
    return p.chunks > 1 ? (size_t)p.groups * (size_t)(p.chunks - 1) * (size_t)p.width * acc_bytes : 0;
}

// Calls f(hk_dt::traits<D>()) for the dtype; int64 and uint64 share one instantiation (the same
// bits in, the same bits out), as in scan.hip.
template <typename F> int dispatch_dtype(hk_dtype dtype, F &&f)
{
    constexpr unsigned mask = HK_DTYPES_REAL & ~HK_DTYPE_BIT(HK_INT64);
    return hk_dispatch::dispatch<mask>(dtype == HK_INT64 ? HK_UINT64 : dtype,
                                       [&](auto tag) { return f(hk_dt::traits<decltype(tag)::value>()); });
}

} // namespace

extern "C" size_t hkc_scan_scratch_bytes(const hkk_scan_args *a)
{
    size_t bytes = 0;
    dispatch_dtype(a->in_dtype, [&](auto in) {
        bytes = scratch_bytes(make_plan(a), sizeof(typename scan_types<decltype(in)>::acc));
        return 0;
    });
    return bytes;
}

extern "C" int hkc_scan(const hkk_scan_args *a, void *scratch)
{
    if (a->length <= 0 || a->rows <= 0)
        return 0;
    const scan_plan p = make_plan(a);
    return dispatch_dtype(a->in_dtype, [&](auto in) {
        typedef decltype(in) In;
        if (a->op == HK_SCAN_CUMPROD)
            scanner<In, HK_SCAN_CUMPROD>{a, p}.scan(scratch);
        else if (a->op == HK_SCAN_CUMSUM)
            scanner<In, HK_SCAN_CUMSUM>{a, p}.scan(scratch);
        else
            return 1;
        return 0;
    });
}
