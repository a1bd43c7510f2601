// test_mask_select.cpp: hk_mask_count, hk_mask_select (NumPy's in[mask]) and hk_mask_positions
// (numpy.nonzero / flatnonzero) on the current device, against a CPU reference on fresh random data:
// every dtype, masks all false / all true / random, awkward sizes (0, 1, primes, around the kernels'
// 4096-element tiles, more than one tile, about 10^6), contiguous, transposed, reversed and spread
// views of in, mask and out, out poisoned first and the elements around it left untouched; and every
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


TEST_F(MaskSelectOnDevice, ComplexAndSixteenBitDtypes)
{
    HKTEST_SEEDED_RNG(rng);
    for (hk_dtype dtype : {HK_INT16, HK_UINT16, HK_COMPLEX64, HK_COMPLEX128})
        for (const std::vector<int64_t> &shape : {std::vector<int64_t>{0}, {1}, {4097}, {7, 11}})
            for (Fill fill : {NONE, ALL, RANDOM})
                check_select(shape, hktest::C_ORDER, hktest::C_ORDER, dtype, fill, rng);
    check_select({9, 6}, hktest::TRANSPOSED, hktest::SPREAD, HK_COMPLEX128, RANDOM, rng);
}

TEST_F(MaskSelectOnDevice, EveryUnitSizeAtTileBoundaries)
{
    HKTEST_SEEDED_RNG(rng);
    for (hk_dtype dtype : {HK_UINT8, HK_FLOAT16, HK_FLOAT32, HK_FLOAT64, HK_COMPLEX128})
        for (int64_t n : {int64_t{31}, int64_t{33}, int64_t{4095}, int64_t{4096}, int64_t{4097}, int64_t{8193},
                          int64_t{3 * 4096 + 1}})
            for (Fill fill : {ALL, RANDOM})
                check_select({n}, hktest::C_ORDER, hktest::C_ORDER, dtype, fill, rng);
}

// ---- hk_mask_positions

TEST(MaskPositions, RefusesBadArguments)
{
    hk_array mask = view(fake, HK_BOOL, {2, 3});
    hk_array out = view(fake + 1024, HK_INT64, {2, 4});
    auto refused = [](const hk_array *m, const hk_array *o, const char *mentions) {
        const hk_status s = hk_mask_positions(m, o, nullptr);
        const std::string message = hk_last_error();
        EXPECT_EQ(s, HK_ERROR_INVALID_ARGUMENT) << message;
        EXPECT_TRUE(hktest::starts_with_function(message, "hk_mask_positions"));
        EXPECT_TRUE(hktest::contains_ignoring_case(message, mentions));
    };
    hk_array int_mask = view(fake, HK_INT32, {2, 3});
    refused(&int_mask, &out, "bool");
    refused(nullptr, &out, "mask");
    refused(&mask, nullptr, "out");
    hk_array out_int32 = view(fake + 1024, HK_INT32, {2, 4});
    refused(&mask, &out_int32, "int64");
    hk_array out_1d = view(fake + 1024, HK_INT64, {8});
    refused(&mask, &out_1d, "2-d");
    hk_array out_3_rows = view(fake + 1024, HK_INT64, {3, 4});
    refused(&mask, &out_3_rows, "out.shape[0]");
    hk_array repeated = view(fake + 1024, HK_INT64, {2, 4}, {4, 0});
    refused(&mask, &repeated, "out.strides[1]");
    hk_array rows_on_one = view(fake + 1024, HK_INT64, {2, 4}, {0, 1});
    refused(&mask, &rows_on_one, "out.strides[0]");
    hk_array over_mask = view(fake, HK_INT64, {1, 4});
    refused(&mask, &over_mask, "overlap");
}

class MaskPositionsOnDevice : public GpuTest
{
};

// One case: a mask of `shape` laid out as mask_kind, filled by `fill`; out of shape (k, count), k being
// the mask's ndim (coordinates) or 1 (flat), laid out as out_kind in a poisoned buffer.
void check_positions(const std::vector<int64_t> &shape, Kind mask_kind, Fill fill, bool flat_positions,
                     Kind out_kind, std::mt19937_64 &rng)
{
    SCOPED_TRACE(hktest::shape_string(shape) + " mask " + kind_names[mask_kind] + ", " +
                 (fill == NONE ? "all false" : fill == ALL ? "all true" : "random") + ", " +
                 (flat_positions ? "flat positions" : "coordinates") + ", out " + kind_names[out_kind]);
    const Layout lm = make_layout(shape, mask_kind);
    std::vector<unsigned char> mask_host(lm.span, 0);
    std::vector<std::vector<int64_t>> want_coords;
    std::vector<int64_t> want_flat;
    const double density = std::uniform_real_distribution<double>(0.02, 0.98)(rng);
    std::bernoulli_distribution on_draw(density);
    int64_t position = 0;
    walk(shape, [&](const std::vector<int64_t> &index) {
        const bool on = fill == ALL || (fill == RANDOM && on_draw(rng));
        if (on) {
            mask_host[static_cast<size_t>(offset_of(lm, index))] = 1;
            want_coords.push_back(index);
            want_flat.push_back(position);
        }
        position++;
    });
    DeviceMemory mask_mem, out_mem;
    ASSERT_HK_OK(mask_mem.allocate(mask_host.size()));
    ASSERT_HK_OK(hk_memcpy_htod(mask_mem.get(), mask_host.data(), mask_host.size()));
    const hk_array mask = view(mask_mem.as<char>() + lm.offset, HK_BOOL, shape, lm.strides);
    int64_t count = -1;
    ASSERT_HK_OK(hk_mask_count(&mask, &count, nullptr));
    ASSERT_EQ(count, static_cast<int64_t>(want_flat.size()));
    const int64_t k = flat_positions ? 1 : static_cast<int64_t>(shape.size());
    const Layout lo = make_layout({k, count}, out_kind);
    const int64_t poison = 0x7F7F7F7F7F7F7F7FLL;
    std::vector<int64_t> got(lo.span + 1, poison); // one spare element past the view's span
    ASSERT_HK_OK(out_mem.allocate(got.size() * sizeof(int64_t)));
    ASSERT_HK_OK(hk_memcpy_htod(out_mem.get(), got.data(), got.size() * sizeof(int64_t)));
    const hk_array out = view(out_mem.as<int64_t>() + lo.offset, HK_INT64, {k, count}, lo.strides);
    ASSERT_HK_OK(hk_mask_positions(&mask, &out, nullptr));
    ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), out_mem.get(), got.size() * sizeof(int64_t)));
    std::vector<bool> in_view(got.size(), false);
    int wrong = 0;
    for (int64_t d = 0; d < k; d++)
        for (int64_t j = 0; j < count; j++) {
            const size_t at = static_cast<size_t>(offset_of(lo, {d, j}));
            in_view[at] = true;
            const int64_t want = flat_positions ? want_flat[static_cast<size_t>(j)]
                                                : want_coords[static_cast<size_t>(j)][static_cast<size_t>(d)];
            if (got[at] != want && wrong++ < 5) {
                ADD_FAILURE() << "out[" << d << ", " << j << "] is " << got[at] << ", not " << want;
            }
        }
    EXPECT_EQ(wrong, 0) << "positions differ";
    for (size_t b = 0; b < got.size(); b++) {
        if (!in_view[b]) {
            ASSERT_EQ(got[b], poison) << "element " << b << " of the buffer, outside out, was written";
        }
    }
}

TEST_F(MaskPositionsOnDevice, FlatPositionsAtAwkwardSizes)
{
    HKTEST_SEEDED_RNG(rng);
    for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{15}, int64_t{16}, int64_t{17}, int64_t{31},
                      int64_t{33}, int64_t{4095}, int64_t{4096}, int64_t{4097}, int64_t{8191}, int64_t{8192},
                      int64_t{8193}, int64_t{12289}, int64_t{65537}, int64_t{1000003}})
        for (Fill fill : {NONE, ALL, RANDOM})
            check_positions({n}, hktest::C_ORDER, fill, true, hktest::C_ORDER, rng);
}

TEST_F(MaskPositionsOnDevice, CoordinatesOfNdMasks)
{
    HKTEST_SEEDED_RNG(rng);
    const std::vector<std::vector<int64_t>> shapes = {{7, 11}, {3, 5, 4}, {1, 1}, {2, 0, 3}, {64, 65},
                                                      {2, 3, 1, 4, 5, 1, 2, 3}, {129, 4097}};
    for (const auto &shape : shapes)
        for (Fill fill : {NONE, ALL, RANDOM})
            for (bool flat_positions : {false, true})
                check_positions(shape, hktest::C_ORDER, fill, flat_positions, hktest::C_ORDER, rng);
}

TEST_F(MaskPositionsOnDevice, NonContiguousMasksAndOutputs)
{
    HKTEST_SEEDED_RNG(rng);
    for (Kind mask_kind : {hktest::TRANSPOSED, hktest::REVERSED_ROWS, hktest::SPREAD, hktest::REVERSED_TRANSPOSED})
        for (Kind out_kind : {hktest::C_ORDER, hktest::TRANSPOSED, hktest::SPREAD, hktest::REVERSED_TRANSPOSED})
            for (bool flat_positions : {false, true})
                check_positions({9, 601}, mask_kind, RANDOM, flat_positions, out_kind, rng);
    check_positions({3, 5, 4099}, hktest::REVERSED_BATCH, RANDOM, false, hktest::TRANSPOSED, rng);
    check_positions({100003}, hktest::C_ORDER, RANDOM, true, hktest::SPREAD, rng);
}

TEST_F(MaskPositionsOnDevice, ZeroDimensionalMask)
{
    alignas(16) static const unsigned char values[2] = {0, 1};
    for (int on = 0; on < 2; on++) {
        DeviceMemory mask_mem, out_mem;
        ASSERT_HK_OK(mask_mem.allocate(1));
        ASSERT_HK_OK(hk_memcpy_htod(mask_mem.get(), &values[on], 1));
        const hk_array mask = view(mask_mem.get(), HK_BOOL, {});
        int64_t count = -1;
        ASSERT_HK_OK(hk_mask_count(&mask, &count, nullptr));
        ASSERT_EQ(count, on);
        int64_t got[2] = {-1, -1};
        ASSERT_HK_OK(out_mem.allocate(sizeof got));
        ASSERT_HK_OK(hk_memcpy_htod(out_mem.get(), got, sizeof got));
        const hk_array out = view(out_mem.get(), HK_INT64, {1, count});
        ASSERT_HK_OK(hk_mask_positions(&mask, &out, nullptr));
        const hk_array no_rows = view(out_mem.get(), HK_INT64, {0, count}); // k == mask.ndim == 0: nothing to write
        ASSERT_HK_OK(hk_mask_positions(&mask, &no_rows, nullptr));
        ASSERT_HK_OK(hk_memcpy_dtoh(got, out_mem.get(), sizeof got));
        EXPECT_EQ(got[0], on ? 0 : -1);
        EXPECT_EQ(got[1], -1);
    }
}

TEST_F(MaskPositionsOnDevice, OnAStream)
{
    HKTEST_SEEDED_RNG(rng);
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    const int64_t n = 50000;
    std::vector<unsigned char> mask_host(n);
    std::vector<int64_t> want;
    for (int64_t i = 0; i < n; i++) {
        mask_host[static_cast<size_t>(i)] = rng() % 5 == 0;
        if (mask_host[static_cast<size_t>(i)])
            want.push_back(i);
    }
    DeviceMemory mask_mem, out_mem;
    ASSERT_HK_OK(mask_mem.allocate(n));
    ASSERT_HK_OK(hk_memcpy_htod(mask_mem.get(), mask_host.data(), n));
    const hk_array mask = view(mask_mem.get(), HK_BOOL, {n});
    int64_t count = -1;
    ASSERT_HK_OK(hk_mask_count(&mask, &count, stream.get()));
    ASSERT_EQ(count, static_cast<int64_t>(want.size()));
    ASSERT_HK_OK(out_mem.allocate(static_cast<size_t>(count) * sizeof(int64_t)));
    const hk_array out = view(out_mem.get(), HK_INT64, {1, count});
    ASSERT_HK_OK(hk_mask_positions(&mask, &out, stream.get()));
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
    std::vector<int64_t> got(static_cast<size_t>(count));
    ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), out_mem.get(), got.size() * sizeof(int64_t)));
    EXPECT_EQ(got, want);
}

TEST_F(MaskPositionsOnDevice, ShortCountWritesNothingPastOut)
{
    // A count below hk_mask_count's: out's contents are unspecified, but nothing past it is written.
    const int64_t n = 3 * 4096 + 5, count = 1000;
    std::vector<unsigned char> ones(n, 1);
    DeviceMemory mask_mem, out_mem;
    ASSERT_HK_OK(mask_mem.allocate(n));
    ASSERT_HK_OK(hk_memcpy_htod(mask_mem.get(), ones.data(), n));
    std::vector<int64_t> got(count + 64, -1);
    ASSERT_HK_OK(out_mem.allocate(got.size() * sizeof(int64_t)));
    ASSERT_HK_OK(hk_memcpy_htod(out_mem.get(), got.data(), got.size() * sizeof(int64_t)));
    const hk_array mask = view(mask_mem.get(), HK_BOOL, {n}), out = view(out_mem.get(), HK_INT64, {1, count});
    ASSERT_HK_OK(hk_mask_positions(&mask, &out, nullptr));
    ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), out_mem.get(), got.size() * sizeof(int64_t)));
    for (size_t j = static_cast<size_t>(count); j < got.size(); j++)
        ASSERT_EQ(got[j], -1) << "element " << j << ", past out, was written";
}

} // namespace
