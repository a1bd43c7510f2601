// test_put.cpp: hk_put (issue 5), the scatter that inverts hk_take: every argument check without a
// GPU, then on the GPU against a CPU reference on fresh random data: every dtype, each mode, along
// each axis and flat, with transposed / reversed / spread views of out, indices and values, duplicate
// indices (any one of the values aimed at an element may land, but whole), sizes of 0, 1, primes and
// more than one grid wave, and RAISE leaving out untouched.
#include "common.h"
#include "views.h"

#include <functional>

namespace
{

using hktest::C_ORDER;
using hktest::item_size;
using hktest::kAllDtypes;
using hktest::mode_names;
using hktest::numpy_index;
using hktest::Kind;
using hktest::kind_names;
using hktest::Layout;
using hktest::make_layout;
using hktest::offset_of;
using hktest::REVERSED_ROWS;
using hktest::REVERSED_TRANSPOSED;
using hktest::shape_string;
using hktest::SPREAD;
using hktest::TRANSPOSED;
using hktest::view;
using hktest::walk;

alignas(16) char fake[1 << 16]; // never dereferenced: every call below is refused before any work

// ================================================================== no GPU needed

TEST(Put, RefusesBadArguments)
{
    // out (4, 5), indices (3,), axis 1: values (4, 3)
    hk_array out = view(fake, HK_FLOAT32, {4, 5}), idx = view(fake + 4096, HK_INT64, {3});
    hk_array values = view(fake + 8192, HK_FLOAT32, {4, 3});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(nullptr, &idx, 1, &out, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "values must not be NULL"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&values, nullptr, 1, &out, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "indices must not be NULL"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&values, &idx, 1, nullptr, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out must not be NULL"));
    hk_array bad = out;
    bad.data = fake + 2; // misaligned float
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&values, &idx, 1, &bad, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out.data"));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "not aligned"));
    bad = values;
    bad.dtype = static_cast<hk_dtype>(77);
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&bad, &idx, 1, &out, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "not a hk_dtype"));
    for (hk_dtype d : {HK_INT32, HK_UINT64, HK_FLOAT64, HK_BOOL}) {
        hk_array wrong = idx;
        wrong.dtype = d;
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&values, &wrong, 1, &out, HK_TAKE_WRAP, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), std::string("indices are ") + hk_dtype_name(d)));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "int64"));
    }
    for (int axis : {2, -3, 100, HK_PUT_FLAT + 1}) {
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&values, &idx, axis, &out, HK_TAKE_CLIP, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(),
                                                   "axis " + std::to_string(axis) + " is out of range for out with 2"));
    }
    hk_array scalar = view(fake, HK_FLOAT32, {});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&values, &idx, 0, &scalar, HK_TAKE_CLIP, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "0-d"));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "HK_PUT_FLAT"));
    for (int mode : {3, -1}) {
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put",
                        hk_put(&values, &idx, 1, &out, static_cast<hk_take_mode>(mode), nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "mode " + std::to_string(mode)));
    }
    hk_array values64 = values;
    values64.dtype = HK_FLOAT64;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&values64, &idx, 1, &out, HK_TAKE_CLIP, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "values are float64 but out is float32"));
    // wrong values shapes (axis 1: (4,) + (3,) + () = (4, 3)); axis -2 needs (3, 5)
    for (const std::vector<int64_t> &wrong : std::vector<std::vector<int64_t>>{{4, 5}, {3, 4}, {4, 3, 1}, {12}, {}}) {
        hk_array v = view(fake + 8192, HK_FLOAT32, wrong);
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&v, &idx, 1, &out, HK_TAKE_RAISE, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "values have shape " + shape_string(wrong)));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "= (4, 3)"));
    }
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&values, &idx, -2, &out, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "= (3, 5)"));
    // flat: values must have the indices' shape
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put",
                    hk_put(&values, &idx, HK_PUT_FLAT, &out, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "a flat put needs indices' shape (3,)"));
    // more than HK_MAX_DIMS dimensions in values
    std::vector<int64_t> deep(HK_MAX_DIMS, 1);
    deep.back() = 2;
    hk_array out_deep = view(fake, HK_FLOAT32, deep);
    hk_array idx2 = view(fake + 4096, HK_INT64, {1, 1});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&values, &idx2, 0, &out_deep, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "33 dimensions"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_put",
                    hk_put(&values, &idx, 1, &out, HK_TAKE_RAISE, hktest::bogus_stream()));
}

TEST(Put, RefusesOverlapRepeatedOutputAndEmptyAxes)
{
    hk_array out = view(fake, HK_FLOAT32, {4, 5}), idx = view(fake + 4096, HK_INT64, {3});
    hk_array on_out = view(fake + 16, HK_FLOAT32, {4, 3});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&on_out, &idx, 1, &out, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out overlaps values"));
    hk_array values = view(fake + 8192, HK_FLOAT32, {4, 3});
    hk_array idx_on_out = view(fake + 8, HK_INT64, {3});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&values, &idx_on_out, 1, &out, HK_TAKE_WRAP, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out overlaps indices"));
    hk_array repeated = view(fake, HK_FLOAT32, {4, 5}, {5, 0});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&values, &idx, 1, &repeated, HK_TAKE_WRAP, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out.strides[1] is 0"));
    // A broadcast values (stride 0) is fine to read: refused here only for want of a GPU, later.
    // Putting into an empty axis: an error in every mode when values is not empty...
    hk_array empty_axis = view(fake, HK_FLOAT32, {4, 0});
    for (hk_take_mode mode : {HK_TAKE_RAISE, HK_TAKE_WRAP, HK_TAKE_CLIP}) {
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&values, &idx, 1, &empty_axis, mode, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "non-empty put into an empty axis"));
        hk_array none_out = view(nullptr, HK_FLOAT32, {0, 3});
        hk_array flat_values = view(fake + 8192, HK_FLOAT32, {3});
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put",
                        hk_put(&flat_values, &idx, HK_PUT_FLAT, &none_out, mode, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "cannot put 3 values into an empty out"));
    }
    // ...and an empty values is success without a GPU, even in RAISE mode (nothing to write).
    hk_array none = view(nullptr, HK_INT64, {0});
    hk_array values0 = view(nullptr, HK_FLOAT32, {4, 0});
    EXPECT_HK_OK(hk_put(&values0, &none, 1, &empty_axis, HK_TAKE_RAISE, nullptr));
    EXPECT_HK_OK(hk_put(&values0, &none, -1, &out, HK_TAKE_RAISE, nullptr));
    hk_array rows0 = view(nullptr, HK_FLOAT32, {0, 5}), values00 = view(nullptr, HK_FLOAT32, {0, 3});
    EXPECT_HK_OK(hk_put(&values00, &idx, 1, &rows0, HK_TAKE_RAISE, nullptr));
    hk_array flat0 = view(nullptr, HK_FLOAT32, {0});
    EXPECT_HK_OK(hk_put(&flat0, &none, HK_PUT_FLAT, &rows0, HK_TAKE_RAISE, nullptr));
}

TEST(Put, NeedsAGpuForRealWork)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    hk_array out = view(fake, HK_FLOAT32, {4, 5}), idx = view(fake + 4096, HK_INT64, {3});
    hk_array values = view(fake + 8192, HK_FLOAT32, {4, 3}), flat_values = view(fake + 8192, HK_FLOAT32, {3});
    hk_array broadcast = view(fake + 8192, HK_FLOAT32, {4, 3}, {0, 0});
    hk_array scalar_out = view(fake, HK_FLOAT32, {}), idx0 = view(fake + 4096, HK_INT64, {});
    hk_array value0 = view(fake + 8192, HK_FLOAT32, {});
    for (hk_take_mode mode : {HK_TAKE_RAISE, HK_TAKE_WRAP, HK_TAKE_CLIP}) {
        EXPECT_SAYS_NO_GPU("hk_put", hk_put(&values, &idx, 1, &out, mode, nullptr));
        EXPECT_SAYS_NO_GPU("hk_put", hk_put(&broadcast, &idx, -1, &out, mode, nullptr));
        EXPECT_SAYS_NO_GPU("hk_put", hk_put(&flat_values, &idx, HK_PUT_FLAT, &out, mode, nullptr));
        EXPECT_SAYS_NO_GPU("hk_put", hk_put(&value0, &idx0, HK_PUT_FLAT, &scalar_out, mode, nullptr));
    }
}

// ================================================================== GPU

constexpr int FLAT = HK_PUT_FLAT;

struct PutCase {
    std::vector<int64_t> out_shape;
    Kind out_kind;
    std::vector<int64_t> idx_shape;
    std::vector<int64_t> idx_values; // C order over idx_shape
    int axis;                        // or FLAT
    hk_take_mode mode;
    Kind idx_kind = C_ORDER, values_kind = C_ORDER;
};

std::string hex(const unsigned char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (size_t k = 0; k < n; k++) {
        s += digits[p[k] >> 4];
        s += digits[p[k] & 15];
    }
    return s;
}

std::vector<int64_t> coords_of(int64_t position, const std::vector<int64_t> &shape)
{
    std::vector<int64_t> c(shape.size(), 0);
    for (size_t d = shape.size(); d-- > 0;) {
        c[d] = position % shape[d];
        position /= shape[d];
    }
    return c;
}

// Runs one put and compares out's whole buffer with the CPU's: elements no index aims at keep their
// bytes (inside the view and outside it); an element aimed at by several indices holds one of their
// values, whole.
bool check_put(const PutCase &c, hk_dtype dtype, std::mt19937_64 &rng, hk_stream stream = nullptr)
{
    const size_t item = item_size(dtype);
    const bool flat = c.axis == FLAT;
    const int nd = static_cast<int>(c.out_shape.size());
    const int ax = flat ? 0 : c.axis < 0 ? c.axis + nd : c.axis;
    std::vector<int64_t> values_shape;
    if (flat) {
        values_shape = c.idx_shape;
    } else {
        values_shape.assign(c.out_shape.begin(), c.out_shape.begin() + ax);
        values_shape.insert(values_shape.end(), c.idx_shape.begin(), c.idx_shape.end());
        values_shape.insert(values_shape.end(), c.out_shape.begin() + ax + 1, c.out_shape.end());
    }
    const std::string what = std::string(hk_dtype_name(dtype)) + ": put into out " + shape_string(c.out_shape) +
                             " " + kind_names[c.out_kind] + (flat ? " flat" : " along axis " + std::to_string(c.axis)) +
                             ", indices " + shape_string(c.idx_shape) + " " + kind_names[c.idx_kind] + ", values " +
                             shape_string(values_shape) + " " + kind_names[c.values_kind] + ", mode " +
                             mode_names[c.mode];
    SCOPED_TRACE(what);
    const Layout lo = make_layout(c.out_shape, c.out_kind), lx = make_layout(c.idx_shape, c.idx_kind);
    const Layout lv = make_layout(values_shape, c.values_kind);
    std::vector<unsigned char> before(lo.span * item), hv(lv.span * item), got(lo.span * item);
    std::uniform_int_distribution<int> byte(0, 255);
    for (unsigned char &b : before)
        b = static_cast<unsigned char>(dtype == HK_BOOL ? byte(rng) & 1 : byte(rng));
    for (unsigned char &b : hv)
        b = static_cast<unsigned char>(dtype == HK_BOOL ? byte(rng) & 1 : byte(rng));
    std::vector<int64_t> hidx(lx.span, 0x7EEEEEEEEEEEEEEE); // outside the view: never read
    size_t next = 0;
    walk(c.idx_shape,
         [&](const std::vector<int64_t> &i) { hidx[static_cast<size_t>(offset_of(lx, i))] = c.idx_values[next++]; });
    hktest::DeviceMemory dout, didx, dvalues;
    EXPECT_HK_OK(dout.allocate(before.size()));
    EXPECT_HK_OK(didx.allocate(hidx.size() * 8));
    EXPECT_HK_OK(dvalues.allocate(hv.size()));
    if (!dout.get() || !didx.get() || !dvalues.get())
        return false;
    EXPECT_HK_OK(hk_memcpy_htod(dout.get(), before.data(), before.size()));
    EXPECT_HK_OK(hk_memcpy_htod(didx.get(), hidx.data(), hidx.size() * 8));
    EXPECT_HK_OK(hk_memcpy_htod(dvalues.get(), hv.data(), hv.size()));
    hk_array out = view(static_cast<char *>(dout.get()) + lo.offset * static_cast<int64_t>(item), dtype, lo.shape,
                        lo.strides);
    hk_array idx = view(didx.as<int64_t>() + lx.offset, HK_INT64, lx.shape, lx.strides);
    hk_array values = view(static_cast<char *>(dvalues.get()) + lv.offset * static_cast<int64_t>(item), dtype,
                           lv.shape, lv.strides);
    const hk_status status = hk_put(&values, &idx, c.axis, &out, c.mode, stream);
    EXPECT_EQ(status, HK_SUCCESS) << hk_last_error();
    if (status != HK_SUCCESS)
        return false;
    if (stream)
        EXPECT_HK_OK(hk_stream_synchronize(stream));
    EXPECT_HK_OK(hk_memcpy_dtoh(got.data(), dout.get(), got.size()));

    // The reference: for each values element, the out element (buffer offset) it goes to; the
    // candidates of each out element as a linked list of values offsets.
    const size_t idx_nd = c.idx_shape.size();
    size_t out_count = 1;
    for (int64_t e : c.out_shape)
        out_count *= static_cast<size_t>(e);
    std::vector<int64_t> head(lo.span, -1), link, source;
    struct Aim {
        std::vector<int64_t> values_at, out_at;
        int64_t index;
    };
    std::vector<Aim> aims; // kept only for messages: small cases, else the first few
    std::vector<int64_t> target;
    walk(values_shape, [&](const std::vector<int64_t> &v) {
        const std::vector<int64_t> ix(v.begin() + (flat ? 0 : ax), v.begin() + (flat ? 0 : ax) + static_cast<long>(idx_nd));
        const int64_t j = hidx[static_cast<size_t>(offset_of(lx, ix))];
        std::vector<int64_t> o;
        if (flat) {
            o = coords_of(numpy_index(j, static_cast<int64_t>(out_count), c.mode), c.out_shape);
        } else {
            o.assign(v.begin(), v.begin() + ax);
            o.push_back(numpy_index(j, c.out_shape[static_cast<size_t>(ax)], c.mode));
            o.insert(o.end(), v.begin() + ax + static_cast<long>(idx_nd), v.end());
        }
        const int64_t d = offset_of(lo, o);
        link.push_back(head[static_cast<size_t>(d)]);
        head[static_cast<size_t>(d)] = static_cast<int64_t>(source.size());
        source.push_back(offset_of(lv, v));
        target.push_back(d);
        if (aims.size() < 64)
            aims.push_back({v, o, j});
    });
    hktest::Mismatches bad;
    // Whether each out element holds one of its candidates, decided once per element (many values
    // aimed at few elements would otherwise walk the same long list once per value).
    std::vector<signed char> verdict(lo.span, -1);
    for (size_t k = 0; k < source.size(); k++) {
        const size_t d = static_cast<size_t>(target[k]);
        if (verdict[d] < 0) {
            bool found = false;
            for (int64_t m = head[d]; m >= 0 && !found; m = link[static_cast<size_t>(m)])
                found = std::memcmp(&got[d * item], &hv[static_cast<size_t>(source[static_cast<size_t>(m)]) * item],
                                    item) == 0;
            verdict[d] = found ? 1 : 0;
        }
        const bool ok = verdict[d] == 1;
        if (!ok) {
            std::string where = k < aims.size() ? "values " + shape_string(aims[k].values_at) + " (index " +
                                                      std::to_string(aims[k].index) + ") -> out " +
                                                      shape_string(aims[k].out_at)
                                                : "values element " + std::to_string(k) + " (C order)";
            bad.add(d, "bytes " + hex(&got[d * item], item) + " for " + where,
                    "bytes " + hex(&hv[static_cast<size_t>(source[k]) * item], item) +
                        (link[k] >= 0 || head[d] != static_cast<int64_t>(k) ? " or another duplicate's value" : ""));
        }
    }
    size_t changed = 0;
    std::string first_changed;
    for (size_t e = 0; e < lo.span; e++)
        if (head[e] < 0 && std::memcmp(&got[e * item], &before[e * item], item) != 0 && changed++ == 0)
            first_changed = "buffer element " + std::to_string(e) + ": got " + hex(&got[e * item], item) +
                            ", was " + hex(&before[e * item], item);
    EXPECT_EQ(bad.count, 0u) << "elements aimed at hold none of their values (buffer offset: got, expected):\n"
                             << bad.text;
    EXPECT_EQ(changed, 0u) << "elements of out no index aims at were changed, first " << first_changed;
    return bad.count == 0 && changed == 0;
}

class PutOnGpu : public GpuTest
{
};

// Every dtype (1, 2, 4 and 8-byte elements), every axis and flat, 0-d / 1-d / 2-d indices, negative
// and duplicate indices, each mode, and transposed / reversed / spread views of out, indices and values.
TEST_F(PutOnGpu, EveryDtypeAxisModeAndLayout)
{
    HKTEST_SEEDED_RNG(rng);
    const std::vector<PutCase> cases = {
        {{5, 7, 3}, C_ORDER, {5}, {0, 6, -1, -7, 3}, 1, HK_TAKE_RAISE},
        {{5, 7, 3}, C_ORDER, {2, 3}, {-5, 4, 0, -1, 2, 2}, 0, HK_TAKE_RAISE}, // duplicate 2
        {{5, 7, 3}, SPREAD, {}, {-2}, 2, HK_TAKE_RAISE},
        {{5, 7, 3}, TRANSPOSED, {}, {1}, -1, HK_TAKE_CLIP},
        {{5, 7, 3}, C_ORDER, {2, 3}, {-12, 5, 13, -1, 0, 4}, 0, HK_TAKE_WRAP},
        {{5, 7, 3}, REVERSED_ROWS, {6}, {-3, 100, 2, -1, 7, 6}, 1, HK_TAKE_CLIP},
        {{5, 7, 3}, REVERSED_TRANSPOSED, {3, 2}, {-15, 14, 8, -8, 1, 0}, -2, HK_TAKE_WRAP, SPREAD, TRANSPOSED},
        {{9}, C_ORDER, {4}, {8, -9, 0, 4}, 0, HK_TAKE_RAISE, REVERSED_ROWS, SPREAD},
        {{9}, REVERSED_ROWS, {2, 2}, {-1, 30, -30, 9}, -1, HK_TAKE_WRAP, TRANSPOSED, REVERSED_TRANSPOSED},
        {{4, 1, 6}, C_ORDER, {3}, {0, -1, 0}, 1, HK_TAKE_RAISE, C_ORDER, SPREAD},
        {{3, 4, 5, 2}, TRANSPOSED, {2, 1, 2}, {3, -4, 1, 2}, 1, HK_TAKE_RAISE, SPREAD, REVERSED_TRANSPOSED},
        {{6, 4}, C_ORDER, {0}, {}, 0, HK_TAKE_RAISE}, // empty indices: nothing written
        {{1}, C_ORDER, {1}, {0}, 0, HK_TAKE_RAISE},
        {{6, 8}, C_ORDER, {3}, {5, 0, -1}, 0, HK_TAKE_RAISE}, // whole contiguous rows: wider units
        {{6, 8}, C_ORDER, {4}, {1, 1, 1, 1}, 0, HK_TAKE_WRAP}, // rows, all duplicates
        // flat: C-order positions of out, whatever its layout
        {{5, 7}, C_ORDER, {6}, {0, 34, -1, -35, 17, 17}, FLAT, HK_TAKE_RAISE},
        {{5, 7}, TRANSPOSED, {2, 3}, {3, 8, 13, -2, 20, 33}, FLAT, HK_TAKE_RAISE, SPREAD, REVERSED_TRANSPOSED},
        {{5, 7}, REVERSED_TRANSPOSED, {5}, {-36, 35, 70, 1, -1}, FLAT, HK_TAKE_WRAP, REVERSED_ROWS},
        {{3, 4, 5}, SPREAD, {4}, {-100, 100, 59, 0}, FLAT, HK_TAKE_CLIP, C_ORDER, SPREAD},
        {{}, C_ORDER, {}, {-1}, FLAT, HK_TAKE_RAISE},    // 0-d out and index
        {{}, C_ORDER, {3}, {0, 5, -4}, FLAT, HK_TAKE_WRAP}, // 0-d out, duplicates
        {{13}, REVERSED_ROWS, {0}, {}, FLAT, HK_TAKE_RAISE},
    };
    for (hk_dtype dtype : kAllDtypes)
        for (const PutCase &c : cases)
            check_put(c, dtype, rng);
}

// More units than one grid wave (a few million), rows copied as wide units (contiguous rows of 256
// float32) and not (rows of 257), flat, on a stream; random indices with many duplicates.
TEST_F(PutOnGpu, LargeScatters)
{
    HKTEST_SEEDED_RNG(rng);
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    for (int64_t cols : {256, 257, 3}) {
        std::uniform_int_distribution<int64_t> pick(-1000, 999);
        std::vector<int64_t> values(5000);
        for (int64_t &v : values)
            v = pick(rng);
        for (hk_dtype dtype : {HK_FLOAT32, HK_FLOAT64, HK_INT8, HK_FLOAT16})
            check_put({{1000, cols}, C_ORDER, {5000}, values, 0, HK_TAKE_RAISE}, dtype, rng, stream.get());
        std::uniform_int_distribution<int64_t> wide(-5000, 5000);
        for (int64_t &v : values)
            v = wide(rng);
        check_put({{1000, cols}, C_ORDER, {50, 100}, values, 0, HK_TAKE_WRAP}, HK_UINT32, rng);
        check_put({{cols, 1000}, C_ORDER, {5000}, values, 1, HK_TAKE_CLIP, C_ORDER, TRANSPOSED}, HK_INT64, rng);
    }
    // 3000017 (prime) values: above a grid wave of the largest GPUs (hk_grid_for caps at 32 blocks per SM)
    const int64_t n = 3000017, cells = 1009 * 2973;
    std::vector<int64_t> values(static_cast<size_t>(n));
    std::uniform_int_distribution<int64_t> any_cell(-cells, cells - 1);
    for (int64_t &v : values)
        v = any_cell(rng);
    check_put({{1009, 2973}, TRANSPOSED, {n}, values, FLAT, HK_TAKE_RAISE}, HK_UINT8, rng, stream.get());
    std::uniform_int_distribution<int64_t> anywhere(-n, n - 1);
    for (int64_t &v : values)
        v = anywhere(rng);
    check_put({{n}, C_ORDER, {n}, values, 0, HK_TAKE_RAISE, REVERSED_ROWS, SPREAD}, HK_FLOAT32, rng);
}

// Many writers of one element: each element ends up holding one of its values whole (8-byte
// elements, and rows of 4-byte elements moved as 8-byte units).
TEST_F(PutOnGpu, DuplicatesLandWhole)
{
    HKTEST_SEEDED_RNG(rng);
    std::uniform_int_distribution<int64_t> three(0, 2);
    std::vector<int64_t> values(100000);
    for (int64_t &v : values)
        v = three(rng);
    check_put({{3}, C_ORDER, {100000}, values, 0, HK_TAKE_RAISE}, HK_FLOAT64, rng);
    check_put({{3}, C_ORDER, {100000}, values, FLAT, HK_TAKE_RAISE}, HK_UINT64, rng);
    check_put({{3, 64}, C_ORDER, {100000}, values, 0, HK_TAKE_RAISE}, HK_FLOAT32, rng);
    check_put({{3, 64}, C_ORDER, {100000}, values, 0, HK_TAKE_RAISE}, HK_FLOAT16, rng);
}

// A broadcast values (strides 0): every element aimed at gets the one value.
TEST_F(PutOnGpu, BroadcastValues)
{
    hktest::DeviceMemory dout, didx, dvalue;
    ASSERT_HK_OK(dout.allocate(4 * 5 * 8));
    ASSERT_HK_OK(didx.allocate(3 * 8));
    ASSERT_HK_OK(dvalue.allocate(8));
    const int64_t hidx[3] = {4, -5, 2};
    const double one = 2.5;
    std::vector<double> host(20, -1.0);
    ASSERT_HK_OK(hk_memcpy_htod(dout.get(), host.data(), 20 * 8));
    ASSERT_HK_OK(hk_memcpy_htod(didx.get(), hidx, sizeof hidx));
    ASSERT_HK_OK(hk_memcpy_htod(dvalue.get(), &one, 8));
    hk_array out = view(dout.get(), HK_FLOAT64, {4, 5}), idx = view(didx.get(), HK_INT64, {3});
    hk_array values = view(dvalue.get(), HK_FLOAT64, {4, 3}, {0, 0});
    ASSERT_HK_OK(hk_put(&values, &idx, 1, &out, HK_TAKE_RAISE, nullptr));
    ASSERT_HK_OK(hk_memcpy_dtoh(host.data(), dout.get(), 20 * 8));
    for (int r = 0; r < 4; r++)
        for (int col = 0; col < 5; col++)
            EXPECT_EQ(host[static_cast<size_t>(r * 5 + col)], col == 0 || col == 2 || col == 4 ? 2.5 : -1.0)
                << "out[" << r << ", " << col << "]";
}

// RAISE with an index out of range: INVALID_ARGUMENT naming the first bad index (C order of indices),
// the axis and its size, and out left as it was.
TEST_F(PutOnGpu, RaiseReportsTheFirstBadIndexAndWritesNothing)
{
    struct Bad {
        std::vector<int64_t> out_shape;
        int axis;
        std::vector<int64_t> idx_shape;
        Kind idx_kind;
        std::vector<int64_t> values;
        std::string phrase;
    };
    const std::vector<Bad> cases = {
        {{4, 5}, 1, {4}, C_ORDER, {1, 7, -9, 2}, "index 7 is out of bounds for axis 1 with size 5"},
        {{4, 5}, 1, {3}, C_ORDER, {1, -9, 7}, "index -9 is out of bounds for axis 1 with size 5"},
        {{4, 5}, -2, {2, 3}, TRANSPOSED, {0, 1, 2, 3, 4, -5}, "index 4 is out of bounds for axis 0 with size 4"},
        {{4, 5}, 0, {}, C_ORDER, {-5}, "index -5 is out of bounds for axis 0 with size 4"},
        {{4, 5}, FLAT, {3}, C_ORDER, {19, -20, 20}, "index 20 is out of bounds for axis 0 with size 20"},
        {{1000}, 0, {3000}, REVERSED_ROWS, {}, "index 1000 is out of bounds for axis 0 with size 1000"},
    };
    for (Bad c : cases) {
        if (c.values.empty()) { // large: valid everywhere except near the end (C order)
            c.values.assign(3000, -1000);
            c.values[2990] = 1000;
            c.values[2995] = -1001;
        }
        SCOPED_TRACE(c.phrase);
        const Layout lx = make_layout(c.idx_shape, c.idx_kind);
        std::vector<int64_t> hidx(lx.span, 0);
        size_t next = 0;
        walk(c.idx_shape,
             [&](const std::vector<int64_t> &i) { hidx[static_cast<size_t>(offset_of(lx, i))] = c.values[next++]; });
        const int nd = static_cast<int>(c.out_shape.size());
        std::vector<int64_t> values_shape = c.idx_shape;
        if (c.axis != FLAT) {
            const int ax = c.axis < 0 ? c.axis + nd : c.axis;
            values_shape.assign(c.out_shape.begin(), c.out_shape.begin() + ax);
            values_shape.insert(values_shape.end(), c.idx_shape.begin(), c.idx_shape.end());
            values_shape.insert(values_shape.end(), c.out_shape.begin() + ax + 1, c.out_shape.end());
        }
        size_t out_n = 1, values_n = 1;
        for (int64_t e : c.out_shape)
            out_n *= static_cast<size_t>(e);
        for (int64_t e : values_shape)
            values_n *= static_cast<size_t>(e);
        hktest::DeviceMemory dout, didx, dvalues;
        ASSERT_HK_OK(dout.allocate(out_n * 4));
        ASSERT_HK_OK(didx.allocate(hidx.size() * 8));
        ASSERT_HK_OK(dvalues.allocate(values_n * 4));
        ASSERT_HK_OK(hk_memset(dout.get(), 0xFF, out_n * 4));
        ASSERT_HK_OK(hk_memcpy_htod(didx.get(), hidx.data(), hidx.size() * 8));
        ASSERT_HK_OK(hk_memset(dvalues.get(), 0, values_n * 4));
        hk_array out = view(dout.get(), HK_FLOAT32, c.out_shape);
        hk_array idx = view(didx.as<int64_t>() + lx.offset, HK_INT64, lx.shape, lx.strides);
        hk_array values = view(dvalues.get(), HK_FLOAT32, values_shape);
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_put", hk_put(&values, &idx, c.axis, &out, HK_TAKE_RAISE, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), c.phrase));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out was not written"));
        std::vector<uint32_t> got(out_n);
        ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), dout.get(), out_n * 4));
        size_t touched = 0;
        for (uint32_t v : got)
            touched += v != 0xFFFFFFFFu;
        EXPECT_EQ(touched, 0u) << "out was written although an index was out of range";
        // The same indices wrap and clip without complaint.
        EXPECT_HK_OK(hk_put(&values, &idx, c.axis, &out, HK_TAKE_WRAP, nullptr));
        EXPECT_HK_OK(hk_put(&values, &idx, c.axis, &out, HK_TAKE_CLIP, nullptr));
        EXPECT_HK_OK(hk_device_synchronize());
    }
}

} // namespace
