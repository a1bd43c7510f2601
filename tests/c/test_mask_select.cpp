// test_mask_select.cpp: hk_mask_count and hk_mask_select (NumPy's in[mask]) on the current device,
// against a CPU reference on fresh random data: every dtype, masks all false / all true / random,
// awkward sizes (0, 1, primes, more than one block's worth), contiguous, transposed, reversed and spread
// views of in and mask, out poisoned first and a spare element past its end left untouched; and every
// argument check.
#include "common.h"
#include "views.h"

#include <cstring>

namespace
{

using hktest::DeviceMemory;
using hktest::item_size;
using hktest::kAllDtypes;
using hktest::kind_names;
using hktest::Kind;
using hktest::Layout;
using hktest::make_layout;
using hktest::offset_of;
using hktest::view;
using hktest::walk;

alignas(16) char fake[1 << 12]; // never dereferenced: every call below is refused before any work

TEST(MaskSelect, RefusesBadArguments)
{
    hk_array mask = view(fake, HK_BOOL, {4}), in = view(fake + 512, HK_FLOAT32, {4});
    hk_array out = view(fake + 1024, HK_FLOAT32, {2});
    int64_t count = -1;
    hk_array int_mask = view(fake, HK_INT32, {4});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_mask_count", hk_mask_count(&int_mask, &count, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_mask_count", hk_mask_count(&mask, nullptr, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_mask_select", hk_mask_select(&in, &int_mask, &out, nullptr));
    hk_array other_shape = view(fake, HK_BOOL, {2, 2});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_mask_select", hk_mask_select(&in, &other_shape, &out, nullptr));
    hk_array out_2d = view(fake + 1024, HK_FLOAT32, {1, 2}), out_int = view(fake + 1024, HK_INT32, {2});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_mask_select", hk_mask_select(&in, &mask, &out_2d, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_mask_select", hk_mask_select(&in, &mask, &out_int, nullptr));
    hk_array overlapping = view(fake + 512, HK_FLOAT32, {2});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_mask_select",
                    hk_mask_select(&in, &mask, &overlapping, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_mask_select", hk_mask_select(nullptr, &mask, &out, nullptr));
}

class MaskSelectOnDevice : public GpuTest
{
};

enum Fill { NONE, ALL, RANDOM };

// One case: in and mask of `shape` in layouts in_kind / mask_kind, dtype, a mask of `fill`.
void check_select(const std::vector<int64_t> &shape, Kind in_kind, Kind mask_kind, hk_dtype dtype, Fill fill,
                  std::mt19937_64 &rng)
{
    SCOPED_TRACE(std::string(hk_dtype_name(dtype)) + " " + hktest::shape_string(shape) + " in " +
                 kind_names[in_kind] + ", mask " + kind_names[mask_kind] + ", mask " +
                 (fill == NONE ? "all false" : fill == ALL ? "all true" : "random"));
    const size_t item = item_size(dtype);
    const Layout li = make_layout(shape, in_kind), lm = make_layout(shape, mask_kind);
    std::vector<unsigned char> in_host(li.span * item), mask_host(lm.span, 0);
    for (auto &b : in_host)
        b = static_cast<unsigned char>(rng());
    if (dtype == HK_BOOL)
        for (auto &b : in_host)
            b &= 1;
    std::vector<unsigned char> want;
    walk(shape, [&](const std::vector<int64_t> &index) {
        const bool on = fill == ALL || (fill == RANDOM && rng() % 3 == 0);
        mask_host[static_cast<size_t>(offset_of(lm, index))] = on;
        if (on) {
            const unsigned char *e = &in_host[static_cast<size_t>(offset_of(li, index)) * item];
            want.insert(want.end(), e, e + item);
        }
    });
    DeviceMemory in_mem, mask_mem, out_mem;
    ASSERT_HK_OK(in_mem.allocate(in_host.size()));
    ASSERT_HK_OK(mask_mem.allocate(mask_host.size()));
    ASSERT_HK_OK(hk_memcpy_htod(in_mem.get(), in_host.data(), in_host.size()));
    ASSERT_HK_OK(hk_memcpy_htod(mask_mem.get(), mask_host.data(), mask_host.size()));
    const hk_array in = view(in_mem.as<char>() + li.offset * static_cast<int64_t>(item), dtype, shape, li.strides);
    const hk_array mask = view(mask_mem.as<char>() + lm.offset, HK_BOOL, shape, lm.strides);
    int64_t count = -1;
    ASSERT_HK_OK(hk_mask_count(&mask, &count, nullptr));
    const int64_t expected = static_cast<int64_t>(want.size() / item);
    ASSERT_EQ(count, expected);
    // out poisoned, with one spare element after it that must stay poisoned.
    std::vector<unsigned char> got((static_cast<size_t>(count) + 1) * item, 0xA5);
    ASSERT_HK_OK(out_mem.allocate(got.size()));
    ASSERT_HK_OK(hk_memcpy_htod(out_mem.get(), got.data(), got.size()));
    const hk_array out = view(out_mem.get(), dtype, {count});
    ASSERT_HK_OK(hk_mask_select(&in, &mask, &out, nullptr));
    ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), out_mem.get(), got.size()));
    if (!want.empty()) { // memcmp takes no NULL, which an empty vector's data() may be
        EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size()), 0) << "selected elements differ";
    }
    for (size_t b = want.size(); b < got.size(); b++)
        ASSERT_EQ(got[b], 0xA5) << "the element after out was written";
}

TEST_F(MaskSelectOnDevice, EveryDtypeLayoutAndMask)
{
    HKTEST_SEEDED_RNG(rng);
    const std::vector<std::vector<int64_t>> shapes = {{0}, {1}, {13}, {7, 11}, {3, 5, 4}, {1, 1}, {2, 0, 3}};
    for (hk_dtype dtype : kAllDtypes)
        for (const auto &shape : shapes)
            for (Fill fill : {NONE, ALL, RANDOM})
                check_select(shape, hktest::C_ORDER, hktest::C_ORDER, dtype, fill, rng);
    for (Kind in_kind : {hktest::TRANSPOSED, hktest::REVERSED_ROWS, hktest::SPREAD, hktest::REVERSED_TRANSPOSED})
        for (Kind mask_kind : {hktest::C_ORDER, hktest::TRANSPOSED, hktest::SPREAD})
            for (hk_dtype dtype : {HK_INT8, HK_FLOAT32, HK_FLOAT64})
                check_select({9, 6}, in_kind, mask_kind, dtype, RANDOM, rng);
}

TEST_F(MaskSelectOnDevice, LargeMasks)
{
    HKTEST_SEEDED_RNG(rng);
    for (int64_t n : {int64_t{65537}, int64_t{1} << 20})
        check_select({n}, hktest::C_ORDER, hktest::C_ORDER, HK_FLOAT32, RANDOM, rng);
    check_select({1001, 997}, hktest::SPREAD, hktest::TRANSPOSED, HK_INT64, RANDOM, rng);
}

} // namespace
