// copy.cpp: the CPU device's hk_copy_array: dst = convert(src) between any two dtypes over the
// coalesced layout, with the GPU kernel's conversions (copy/convert.h: NumPy's astype, floats
// saturating into integers). Walked in runs along the innermost dimension (cpu/walk.h): a
// contiguous run is a tight loop, a broadcast source is converted once per run.
#include "common/dispatch.h"
#include "copy/convert.h"
#include "cpu/cpu.h"
#include "cpu/walk.h"

namespace
{

constexpr int64_t grain = 1 << 15; // elements a thread takes at the least

template <hk_dtype S, hk_dtype D> int copy_typed(const void *src, void *dst, const hkk_layout *layout)
{
    typedef typename hk_copy::source<S>::stored In;
    typedef typename hk_dt::traits<D>::stored Out;
    typedef hk_copy::convert_to<D> to;
    const In *const s = static_cast<const In *>(src);
    Out *const d = static_cast<Out *>(dst);
    hkc::walk_layout<2> w; // 0: dst, 1: src
    w.ndim = layout->ndim;
    for (int k = 0; k < layout->ndim; k++) {
        w.shape[k] = layout->shape[k];
        w.strides[0][k] = layout->dst_strides[k];
        w.strides[1][k] = layout->src_strides[k];
    }
    hkc::drop_still_dimensions(w);
    const int inner = w.ndim - 1;
    const int64_t ds = w.strides[0][inner], ss = w.strides[1][inner];
    if (ds == 1 && ss == 1) {
        hkc::walk_rows(w, grain, [&](const int64_t *off, int64_t len) {
            Out *o = d + off[0];
            const In *a = s + off[1];
            for (int64_t i = 0; i < len; i++)
                o[i] = to::template from<S>(a[i]);
        });
    } else if (ss == 0) {
        hkc::walk_rows(w, grain, [&](const int64_t *off, int64_t len) {
            Out *o = d + off[0];
            const Out v = to::template from<S>(s[off[1]]);
            for (int64_t i = 0; i < len; i++)
                o[i * ds] = v;
        });
    } else {
        hkc::walk_rows(w, grain, [&](const int64_t *off, int64_t len) {
            Out *o = d + off[0];
            const In *a = s + off[1];
            for (int64_t i = 0; i < len; i++)
                o[i * ds] = to::template from<S>(a[i * ss]);
        });
    }
    return 0;
}

} // namespace

extern "C" int hkc_copy_array(hk_dtype src_dtype, hk_dtype dst_dtype, const void *src, void *dst, size_t n,
                              const hkk_layout *layout)
{
    if (n == 0)
        return 0;
    return hk_dispatch::dispatch<HK_DTYPES_ALL>(src_dtype, [&](auto s) {
        return hk_dispatch::dispatch<HK_DTYPES_ALL>(
            dst_dtype, [&](auto d) { return copy_typed<decltype(s)::value, decltype(d)::value>(src, dst, layout); });
    });
}
