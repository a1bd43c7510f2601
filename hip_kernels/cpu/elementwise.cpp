// elementwise.cpp: the CPU device's hk_elementwise and hk_fill (the map skeleton, cpu/elementwise.h),
// routing each call to the part that instantiates its op, and hk_iota; part 0's ops are here too.
#include "cpu/elementwise.h"
#include "elementwise/iota.h"

int hkc::ew_part_0(const hkk_ew_call *call)
{
    return ew::part<0>(call);
}

extern "C" int hkc_elementwise(const hkk_ew_call *call)
{
    static int (*const parts[HKC_EW_PARTS])(const hkk_ew_call *) = {hkc::ew_part_0, hkc::ew_part_1, hkc::ew_part_2,
                                                                    hkc::ew_part_3};
    if (call->op == HKK_EW_FILL)
        return hkc::ew::run_row<hk_ew::fill_row>(call);
    if (call->op < 0 || call->op >= HK_OP_COUNT)
        return 1;
    return parts[call->op % HKC_EW_PARTS](call);
}

extern "C" int hkc_iota(hk_dtype dtype, void *out, int64_t stride, size_t n, const void *start, const void *step)
{
    return hk_dispatch::dispatch<hk_ew::iota_dtypes>(dtype, [&](auto tag) {
        typedef typename hk_dt::traits<decltype(tag)::value>::stored T;
        T *const o = static_cast<T *>(out);
        const T first = *static_cast<const T *>(start), by = *static_cast<const T *>(step);
        hkc::parallel_for((int64_t)n, hkc::ew::grain, [&](int64_t begin, int64_t end) {
            if (stride == 1) {
                for (int64_t i = begin; i < end; i++)
                    o[i] = hk_ew::iota_value(first, by, (size_t)i);
            } else {
                for (int64_t i = begin; i < end; i++)
                    o[i * stride] = hk_ew::iota_value(first, by, (size_t)i);
            }
        });
        return 0;
    });
}
