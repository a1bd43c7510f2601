// test_reduce.cpp: hk_reduce. Without a GPU: every refusal (op, views, axes,
// out dtype and shape, argmin over some axes, empty min, overlap, stream) with
// its status and the key phrase of its message. With a GPU: every op x dtype
// on contiguous, transposed, reversed, strided, broadcast, 0-d, empty, prime
// and large layouts against a CPU reference (reduce_reference.h), outputs
// poisoned and strided outputs' gaps checked; NaN placement, ties, variance
// numerics and ddof, determinism, streams.
#include "reduce_reference.h"
#include "views.h"

#include <cmath>

namespace
{

using hkred::Case;
using hkred::make_array;

using hktest::view; // tests/c/views.h

#define EXPECT_MESSAGE(phrase) EXPECT_TRUE(::hktest::contains_ignoring_case(hk_last_error(), phrase))

// ============================================================ no GPU needed

TEST(ReduceValidation, OpNames)
{
    const char *names[] = {"sum", "prod", "min", "max", "argmin", "argmax", "any", "all", "mean", "var", "std"};
    for (int op = 0; op < HK_REDUCE_COUNT; op++)
        EXPECT_STREQ(hk_reduce_op_name(static_cast<hk_reduce_op>(op)), names[op]);
    EXPECT_STREQ(hk_reduce_op_name(HK_REDUCE_COUNT), "invalid");
    EXPECT_STREQ(hk_reduce_op_name(static_cast<hk_reduce_op>(-1)), "invalid");
}

TEST(ReduceValidation, RefusesBadOpsAndViews)
{
    alignas(16) static char fake[1024];
    hk_array in = view(fake, HK_FLOAT32, {4, 8});
    hk_array out = view(fake + 512, HK_FLOAT32, {4});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce",
                    hk_reduce(static_cast<hk_reduce_op>(-1), &in, 2, &out, 0, nullptr));
    EXPECT_MESSAGE("hk_reduce_op");
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_COUNT, &in, 2, &out, 0, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, nullptr, 2, &out, 0, nullptr));
    EXPECT_MESSAGE("in must not be NULL");
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &in, 2, nullptr, 0, nullptr));
    EXPECT_MESSAGE("out must not be NULL");
    hk_array bad = in;
    bad.dtype = static_cast<hk_dtype>(42);
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &bad, 2, &out, 0, nullptr));
    EXPECT_MESSAGE("in.dtype");
    bad = in;
    bad.ndim = HK_MAX_DIMS + 1;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &bad, 2, &out, 0, nullptr));
    EXPECT_MESSAGE("in.ndim");
    bad = in;
    bad.shape[1] = -8;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &bad, 2, &out, 0, nullptr));
    EXPECT_MESSAGE("negative");
    bad = in;
    bad.data = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &bad, 2, &out, 0, nullptr));
    EXPECT_MESSAGE("in.data is NULL");
    bad = in;
    bad.data = fake + 2;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &bad, 2, &out, 0, nullptr));
    EXPECT_MESSAGE("aligned");
    bad = in;
    bad.strides[0] = INT64_MAX / 2;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &bad, 2, &out, 0, nullptr));
    EXPECT_MESSAGE("overflows");
    bad = out;
    bad.data = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &in, 2, &bad, 0, nullptr));
    EXPECT_MESSAGE("out.data is NULL");
}

TEST(ReduceValidation, RefusesAxesOutOfRange)
{
    alignas(16) static char fake[1024];
    hk_array in = view(fake, HK_FLOAT32, {4, 8});
    hk_array out = view(fake + 512, HK_FLOAT32, {4});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &in, 0x4, &out, 0, nullptr));
    EXPECT_MESSAGE("bit 2");
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce",
                    hk_reduce(HK_REDUCE_SUM, &in, 0x80000002u, &out, 0, nullptr));
    EXPECT_MESSAGE("bit 31");
    hk_array scalar = view(fake, HK_FLOAT32, {});
    hk_array scalar_out = view(fake + 512, HK_FLOAT32, {});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce",
                    hk_reduce(HK_REDUCE_MAX, &scalar, 1, &scalar_out, 0, nullptr));
    EXPECT_MESSAGE("0 dimensions");
    hk_array eight = view(fake, HK_INT8, {1, 1, 1, 1, 1, 1, 1, 2});
    hk_array eight_out = view(fake + 512, HK_INT64, {});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce",
                    hk_reduce(HK_REDUCE_SUM, &eight, 0x1FF, &eight_out, 0, nullptr));
    EXPECT_MESSAGE("bit 8");
}

TEST(ReduceValidation, RefusesTheWrongOutDtypeForEveryOpAndDtype)
{
    alignas(16) static char fake[1024];
    for (hk_reduce_op op : hkred::kOps) {
        for (hk_dtype dtype : hkred::kDtypes) {
            SCOPED_TRACE(std::string(hk_reduce_op_name(op)) + " of " + hk_dtype_name(dtype));
            const hk_dtype want = hkred::out_dtype(op, dtype);
            for (hk_dtype wrong : hkred::kDtypes) {
                if (wrong == want)
                    continue;
                hk_array in = view(fake, dtype, {4, 8});
                hk_array out = view(fake + 512, wrong, {4});
                EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(op, &in, 2, &out, 0, nullptr));
                EXPECT_MESSAGE("out.dtype");
                EXPECT_MESSAGE(std::string("gives ") + hk_dtype_name(want));
            }
        }
    }
}

TEST(ReduceValidation, RefusesTheWrongOutShape)
{
    alignas(16) static char fake[4096];
    hk_array in = view(fake, HK_FLOAT32, {3, 4, 5});
    hk_array out = view(fake + 2048, HK_FLOAT32, {3, 4}); // axis 2 dropped: fine, axis 1 dropped: not
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &in, 0x2, &out, 0, nullptr));
    EXPECT_MESSAGE("out.shape is (3, 4)");
    EXPECT_MESSAGE("needs (3, 5)");
    EXPECT_MESSAGE("(3, 1, 5) with keepdims");
    out = view(fake + 2048, HK_FLOAT32, {3, 2, 5}); // keepdims with extent 2
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &in, 0x2, &out, 0, nullptr));
    EXPECT_MESSAGE("out.shape");
    out = view(fake + 2048, HK_FLOAT32, {15});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &in, 0x2, &out, 0, nullptr));
    out = view(fake + 2048, HK_FLOAT32, {3, 4, 5, 1});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &in, 0x0, &out, 0, nullptr));
    EXPECT_MESSAGE("reducing no axis");
    out = view(fake + 2048, HK_FLOAT32, {3, 1}); // all axes need () or (1, 1, 1)
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &in, 0x7, &out, 0, nullptr));
    EXPECT_MESSAGE("needs ()");
    out = view(fake + 2048, HK_FLOAT32, {3, 5}, {0, 1}); // two results on one element
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &in, 0x2, &out, 0, nullptr));
    EXPECT_MESSAGE("out.strides[0] is 0");
}

TEST(ReduceValidation, ArgminAndArgmaxNeedOneAxisOrAll)
{
    alignas(16) static char fake[4096];
    hk_array in = view(fake, HK_FLOAT32, {3, 4, 5});
    hk_array out = view(fake + 2048, HK_INT64, {5});
    for (hk_reduce_op op : {HK_REDUCE_ARGMIN, HK_REDUCE_ARGMAX}) {
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(op, &in, 0x3, &out, 0, nullptr));
        EXPECT_MESSAGE("one axis or all of them");
        hk_array same = view(fake + 2048, HK_INT64, {3, 4, 5});
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(op, &in, 0x0, &same, 0, nullptr));
        EXPECT_MESSAGE("one axis or all of them");
    }
}

TEST(ReduceValidation, EmptyExtremesHaveNoIdentity)
{
    alignas(16) static char fake[1024];
    hk_array in = view(fake, HK_FLOAT32, {3, 0});
    hk_array out = view(fake + 512, HK_FLOAT32, {3});
    hk_array index = view(fake + 512, HK_INT64, {3});
    for (hk_reduce_op op : {HK_REDUCE_MIN, HK_REDUCE_MAX, HK_REDUCE_ARGMIN, HK_REDUCE_ARGMAX}) {
        SCOPED_TRACE(hk_reduce_op_name(op));
        const hk_array &o = hkred::is_indexed(op) ? index : out;
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(op, &in, 0x2, &o, 0, nullptr));
        EXPECT_MESSAGE("zero-size");
        EXPECT_MESSAGE("no identity");
    }
    // Empty input but an empty output too: nothing to do, no GPU needed.
    hk_array rows = view(fake, HK_FLOAT32, {0, 3});
    hk_array none = view(fake + 512, HK_FLOAT32, {0});
    EXPECT_HK_OK(hk_reduce(HK_REDUCE_MIN, &rows, 0x2, &none, 0, nullptr));
    hk_array none_index = view(fake + 512, HK_INT64, {0});
    EXPECT_HK_OK(hk_reduce(HK_REDUCE_ARGMAX, &rows, 0x2, &none_index, 0, nullptr));
    hk_array sum_out = view(nullptr, HK_FLOAT32, {0, 1});
    EXPECT_HK_OK(hk_reduce(HK_REDUCE_SUM, &rows, 0x2, &sum_out, 0, nullptr));
}

TEST(ReduceValidation, RefusesOverlapAndBadStreams)
{
    alignas(16) static char fake[4096];
    hk_array in = view(fake, HK_FLOAT32, {16, 16});
    hk_array inside = view(fake + 64, HK_FLOAT32, {16});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &in, 0x1, &inside, 0, nullptr));
    EXPECT_MESSAGE("overlaps");
    hk_array last = view(fake + 1020, HK_FLOAT32, {16}); // its first element is in's last
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce", hk_reduce(HK_REDUCE_SUM, &in, 0x1, &last, 0, nullptr));
    hk_array reversed = view(fake + 1080, HK_FLOAT32, {16}, {-1}); // reaches back to in's last element
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_reduce",
                    hk_reduce(HK_REDUCE_SUM, &in, 0x1, &reversed, 0, nullptr));
    hk_array none = view(fake + 2048, HK_FLOAT32, {0});
    hk_array rows = view(fake, HK_FLOAT32, {0, 16});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_reduce",
                    hk_reduce(HK_REDUCE_SUM, &rows, 0x2, &none, 0, hktest::bogus_stream()));
}

TEST(ReduceValidation, NeedsAGpuForRealWork)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    alignas(16) static char fake[4096];
    hk_array in = view(fake, HK_INT8, {4, 8});
    for (hk_reduce_op op : hkred::kOps) {
        SCOPED_TRACE(hk_reduce_op_name(op));
        hk_array out = view(fake + 2048, hkred::out_dtype(op, HK_INT8), {4});
        EXPECT_SAYS_NO_GPU("hk_reduce", hk_reduce(op, &in, 0x2, &out, 1, nullptr));
        hk_array all = view(fake + 2048, hkred::out_dtype(op, HK_INT8), {1, 1});
        EXPECT_SAYS_NO_GPU("hk_reduce", hk_reduce(op, &in, 0x3, &all, 1, nullptr)); // keepdims, all axes
    }
    // Empty reductions with an identity still write their outputs.
    hk_array empty = view(fake, HK_FLOAT32, {4, 0});
    hk_array out = view(fake + 2048, HK_FLOAT32, {4});
    EXPECT_SAYS_NO_GPU("hk_reduce", hk_reduce(HK_REDUCE_SUM, &empty, 0x2, &out, 0, nullptr));
}

// ============================================================ with a GPU

// hk_reduce on the device: the pools are copied over, the output pool
// (poisoned by the caller) too, and brought back after the call.
struct OnGpu {
    hk_stream stream = nullptr;
    hk_status operator()(hk_reduce_op op, const std::vector<unsigned char> &in_pool, const hk_array &in_view,
                         uint32_t axes, std::vector<unsigned char> &out_pool, const hk_array &out_view, int ddof,
                         std::string &error) const
    {
        hktest::DeviceMemory din, dout;
        hk_status s = din.allocate(in_pool.size());
        if (s == HK_SUCCESS)
            s = dout.allocate(out_pool.size());
        if (s == HK_SUCCESS)
            s = hk_memcpy_htod(din.get(), in_pool.data(), in_pool.size());
        if (s == HK_SUCCESS)
            s = hk_memcpy_htod(dout.get(), out_pool.data(), out_pool.size());
        if (s != HK_SUCCESS) {
            error = std::string("test set-up: ") + hk_last_error();
            return s;
        }
        hk_array in = in_view, out = out_view;
        in.data = static_cast<char *>(din.get()) + (uintptr_t)in_view.data * hkred::dsize(in.dtype);
        out.data = static_cast<char *>(dout.get()) + (uintptr_t)out_view.data * hkred::dsize(out.dtype);
        s = hk_reduce(op, &in, axes, &out, ddof, stream);
        error = hk_last_error();
        if (s != HK_SUCCESS)
            return s;
        hk_status sync = stream ? hk_stream_synchronize(stream) : hk_device_synchronize();
        if (sync == HK_SUCCESS)
            sync = hk_memcpy_dtoh(out_pool.data(), dout.get(), out_pool.size());
        if (sync != HK_SUCCESS) {
            error = std::string("after the call: ") + hk_last_error();
            return sync;
        }
        return HK_SUCCESS;
    }
};

class ReduceOnGpu : public GpuTest
{
};

// The layouts of the every-op-and-dtype sweep: each kernel path of the
// planner (rows by lanes, warps and blocks, split rows, columns vectorised
// and not, split columns, strided fallback), awkward sizes, and views.
std::vector<Case> sweep_cases()
{
    std::vector<Case> v;
    v.push_back({"0-d", {}, {}, 0});
    v.push_back({"one element", {1}, {}, 1});
    v.push_back({"prime, all", {13}, {}, 1});
    v.push_back({"3,000,017 contiguous, all (several grid waves)", {3000017}, {}, 1});
    v.push_back({"100,003 reversed, all", {100003}, {-1}, 1});
    v.push_back({"every third, all", {1001}, {3}, 1});
    v.push_back({"misaligned by one element, all", {1000}, {}, 1, false, 0, 1});
    v.push_back({"37x53 axis 0", {37, 53}, {}, 1});
    v.push_back({"37x53 axis 1, keepdims", {37, 53}, {}, 2, true});
    v.push_back({"37x53 all, strided out", {37, 53}, {}, 3, true, 1});
    v.push_back({"37x53 no axis", {37, 53}, {}, 0, false, 1});
    v.push_back({"transposed 53x37 axis 0", {53, 37}, {1, 53}, 1});
    v.push_back({"transposed 53x37 axis 1", {53, 37}, {1, 53}, 2, false, 1});
    v.push_back({"transposed 53x37 all", {53, 37}, {1, 53}, 3});
    v.push_back({"1x1000 axis 1", {1, 1000}, {}, 2});
    v.push_back({"1000x1 axis 0, keepdims", {1000, 1}, {}, 1, true});
    v.push_back({"257x1031 axis 1 (rows)", {257, 1031}, {}, 2});
    v.push_back({"257x1031 axis 0 (columns)", {257, 1031}, {}, 1, false, 1});
    v.push_back({"61x40009 axis 1 (few long rows: split)", {61, 40009}, {}, 2});
    v.push_back({"40009x61 axis 0 (few columns: split)", {40009, 61}, {}, 1});
    v.push_back({"3x1000003 axis 1", {3, 1000003}, {}, 2, true, 1});
    v.push_back({"1000003x3 axis 0", {1000003, 3}, {}, 1});
    v.push_back({"1024x2048 axis 0 (vector columns)", {1024, 2048}, {}, 1});
    v.push_back({"1024x2048 axis 1 (block rows)", {1024, 2048}, {}, 2});
    v.push_back({"200003x3 axis 1 (outputs beyond the grid)", {200003, 3}, {}, 2});
    v.push_back({"3x200003 axis 0 (columns beyond the grid)", {3, 200003}, {}, 1, false, 1});
    v.push_back({"rows reversed, axis 0", {300, 200}, {-200, 1}, 1});
    v.push_back({"rows reversed, axis 1", {300, 200}, {-200, 1}, 2});
    v.push_back({"columns reversed, axis 0", {300, 200}, {200, -1}, 1, true});
    v.push_back({"columns reversed, axis 1", {300, 200}, {200, -1}, 2});
    v.push_back({"broadcast rows (stride 0), axis 0", {64, 100}, {0, 1}, 1});
    v.push_back({"broadcast rows (stride 0), axis 1", {64, 100}, {0, 1}, 2});
    v.push_back({"broadcast rows (stride 0), all", {64, 100}, {0, 1}, 3});
    v.push_back({"broadcast columns (stride 0), axis 0", {100, 64}, {1, 0}, 1});
    v.push_back({"broadcast columns (stride 0), axis 1", {100, 64}, {1, 0}, 2, false, 1});
    for (uint32_t axes : {1u, 2u, 4u, 3u, 5u, 6u, 7u}) {
        v.push_back({"5x6x7 axes 0x" + std::to_string(axes), {5, 6, 7}, {}, axes, axes % 2 == 1, (int)(axes % 3 == 0)});
        v.push_back({"17x31x129 every other in the last dim, axes 0x" + std::to_string(axes),
                     {17, 31, 129},
                     {31 * 258, 258, 2},
                     axes,
                     axes == 5});
    }
    for (uint32_t axes : {5u, 10u, 9u, 6u, 15u, 7u, 8u})
        v.push_back({"3x4x5x6 permuted strides, axes 0x" + std::to_string(axes),
                     {3, 4, 5, 6},
                     {1, 90, 3, 15},
                     axes,
                     axes == 9,
                     (int)(axes == 6)});
    for (uint32_t axes : {0x55u, 0xAAu, 0xFFu, 0x80u})
        v.push_back({"8-d, axes 0x" + std::to_string(axes), {2, 3, 2, 3, 2, 3, 2, 2}, {}, axes, axes == 0xAA});
    v.push_back({"empty along axis 0 (5 outputs)", {0, 5}, {}, 1});
    v.push_back({"empty along axis 1 (5 outputs), keepdims", {5, 0}, {}, 2, true});
    v.push_back({"empty output", {0, 5}, {}, 2});
    v.push_back({"empty 1-d, all", {0}, {}, 1});
    return v;
}

// One test per dtype (the CPU references take minutes in all; split, test
// shards run them in parallel).
class ReduceSweepOnGpu : public ::testing::TestWithParam<hk_dtype>
{
  protected:
    void SetUp() override { ASSERT_TRUE(::hktest::device_available()); }
};

TEST_P(ReduceSweepOnGpu, EveryOpOnEveryLayout)
{
    HKTEST_SEEDED_RNG(rng);
    OnGpu gpu;
    hkred::Executor exec = std::cref(gpu);
    const hk_dtype dtype = GetParam();
    int variant = 0;
    size_t failures = 0;
    for (const Case &c : sweep_cases()) {
        for (hk_reduce_op op : hkred::kOps) {
            const std::string failure = hkred::check_case(exec, op, dtype, c, rng, variant++);
            if (!failure.empty() && failures++ < 20)
                ADD_FAILURE() << failure;
        }
    }
    EXPECT_EQ(failures, 0u) << "(at most 20 reported above)";
}

INSTANTIATE_TEST_SUITE_P(EveryDtype, ReduceSweepOnGpu, ::testing::ValuesIn(hkred::kDtypes),
                         [](const ::testing::TestParamInfo<hk_dtype> &info) {
                             return std::string(hk_dtype_name(info.param));
                         });

// Sets the element at logical index `idx` (in the case's shape) to v.
void poke(std::vector<unsigned char> &pool, const Case &c, hk_dtype dtype, const std::vector<int64_t> &idx,
          long double v)
{
    int64_t off = c.origin;
    for (size_t k = 0; k < idx.size(); k++)
        off += idx[k] * c.strides[k];
    hkred::write(pool.data(), dtype, off, 0, v);
}

TEST_F(ReduceOnGpu, NanAndInfinityPlacement)
{
    HKTEST_SEEDED_RNG(rng);
    OnGpu gpu;
    hkred::Executor exec = std::cref(gpu);
    // Row r of 8 (or column r): 0 none, 1 first, 2 last, 3 middle, 4 two NaNs,
    // 5 NaN and +inf, 6 all NaN, 7 -inf only.
    auto nan_rows = [](int64_t length, bool rows_are_axis0, hk_dtype dtype) {
        return [=](std::vector<unsigned char> &pool, const Case &c) {
            auto at = [&](int64_t r, int64_t j, long double v) {
                poke(pool, c, dtype, rows_are_axis0 ? std::vector<int64_t>{r, j} : std::vector<int64_t>{j, r}, v);
            };
            at(1, 0, NAN);
            at(2, length - 1, NAN);
            at(3, length / 2, NAN);
            at(4, length / 3, NAN);
            at(4, 2 * length / 3, NAN);
            at(5, 7, INFINITY);
            at(5, 11, NAN);
            for (int64_t j = 0; j < length; j++)
                at(6, j, NAN);
            at(7, length / 4, -INFINITY);
        };
    };
    const int64_t L = 5003;
    const Case rows{"8 rows with NaN placements, axis 1", {8, L}, {}, 2};
    const Case cols{"8 columns with NaN placements, axis 0", {L, 8}, {}, 1};
    const Case trans{"8 transposed rows with NaN placements, axis 1", {8, L}, {1, 8}, 2};
    const Case big{"3,000,017 with NaNs at 1,500,000 and 2,999,999, all", {3000017}, {}, 1};
    int variant = 0;
    for (hk_dtype dtype : {HK_FLOAT16, HK_FLOAT32, HK_FLOAT64}) {
        for (hk_reduce_op op : hkred::kOps) {
            EXPECT_EQ(hkred::check_case(exec, op, dtype, rows, rng, variant++, 0, nan_rows(L, true, dtype)), "");
            EXPECT_EQ(hkred::check_case(exec, op, dtype, cols, rng, variant++, 0, nan_rows(L, false, dtype)), "");
            EXPECT_EQ(hkred::check_case(exec, op, dtype, trans, rng, variant++, 0, nan_rows(L, true, dtype)), "");
            EXPECT_EQ(hkred::check_case(exec, op, dtype, big, rng, variant++, 0,
                                        [dtype](std::vector<unsigned char> &pool, const Case &c) {
                                            poke(pool, c, dtype, {2999999}, NAN);
                                            poke(pool, c, dtype, {1500000}, NAN);
                                        }),
                      "");
        }
    }
}

// The same extreme in several places: the first index wins, across the
// chunks of a split reduction too; -0.0 and 0.0 tie.
TEST_F(ReduceOnGpu, TiesGiveTheFirstIndex)
{
    HKTEST_SEEDED_RNG(rng);
    OnGpu gpu;
    hkred::Executor exec = std::cref(gpu);
    const Case big{"3,000,017 ones, zeros at 5, 1,000,000, 2,999,999, threes at 77, 2,000,000", {3000017}, {}, 1};
    const Case rows{"6 rows of 40,009, axis 1", {6, 40009}, {}, 2};
    const Case cols{"40,009 x 6, axis 0", {40009, 6}, {}, 1};
    for (hk_dtype dtype : hkred::kDtypes) {
        auto constant = [dtype](std::vector<unsigned char> &pool, const Case &c) {
            for (int64_t i = 0; i < c.pool; i++)
                hkred::write(pool.data(), dtype, i, 1, 1.0L);
        };
        for (hk_reduce_op op : {HK_REDUCE_ARGMIN, HK_REDUCE_ARGMAX, HK_REDUCE_MIN, HK_REDUCE_MAX}) {
            EXPECT_EQ(hkred::check_case(exec, op, dtype, big, rng, 0, 0,
                                        [&](std::vector<unsigned char> &pool, const Case &c) {
                                            constant(pool, c);
                                            for (int64_t i : {5, 1000000, 2999999})
                                                hkred::write(pool.data(), dtype, i, 0, 0.0L);
                                            for (int64_t i : {77, 2000000})
                                                hkred::write(pool.data(), dtype, i, 3, 3.0L);
                                        }),
                      "");
            EXPECT_EQ(hkred::check_case(exec, op, dtype, rows, rng, 0, 0, constant), "");
            EXPECT_EQ(hkred::check_case(exec, op, dtype, cols, rng, 0, 0, constant), "");
        }
    }
    // -0.0 first, then 0.0: argmin and argmax both say 0 (they compare equal).
    for (hk_dtype dtype : {HK_FLOAT16, HK_FLOAT32, HK_FLOAT64}) {
        const Case zeros{"-0.0 then 0.0 (all)", {100003}, {}, 1};
        for (hk_reduce_op op : {HK_REDUCE_ARGMIN, HK_REDUCE_ARGMAX})
            EXPECT_EQ(hkred::check_case(exec, op, dtype, zeros, rng, 0, 0,
                                        [dtype](std::vector<unsigned char> &pool, const Case &c) {
                                            for (int64_t i = 0; i < c.pool; i++)
                                                hkred::write(pool.data(), dtype, i, 0, i == 0 ? -0.0L : 0.0L);
                                        }),
                      "");
    }
}

// ddof: 0, 1, n - 1, n (division by zero: inf, or nan for constant rows), n + 2, -3.
TEST_F(ReduceOnGpu, VarianceAndStdDdof)
{
    HKTEST_SEEDED_RNG(rng);
    OnGpu gpu;
    hkred::Executor exec = std::cref(gpu);
    const Case rows{"9 rows of 7, axis 1", {9, 7}, {}, 2};
    const Case cols{"7 x 9, axis 0", {7, 9}, {}, 1};
    const Case all{"100,003, all", {100003}, {}, 1};
    for (hk_dtype dtype : hkred::kDtypes) {
        for (hk_reduce_op op : {HK_REDUCE_VAR, HK_REDUCE_STD}) {
            for (int ddof : {0, 1, 6, 7, 9, -3}) {
                EXPECT_EQ(hkred::check_case(exec, op, dtype, rows, rng, 0, ddof), "");
                EXPECT_EQ(hkred::check_case(exec, op, dtype, cols, rng, 0, ddof), "");
                // a constant row: 0 / 0 with ddof 7
                EXPECT_EQ(hkred::check_case(exec, op, dtype, rows, rng, 0, ddof,
                                            [dtype](std::vector<unsigned char> &pool, const Case &c) {
                                                for (int64_t j = 0; j < 7; j++)
                                                    hkred::write(pool.data(), dtype, c.origin + 3 * 7 + j, 3, 3.0L);
                                            }),
                          "");
            }
            for (int ddof : {0, 1, 100003, 100004})
                EXPECT_EQ(hkred::check_case(exec, op, dtype, all, rng, 0, ddof), "");
        }
    }
}

// Values far from zero: a one-pass sum of squares would lose the variance.
TEST_F(ReduceOnGpu, VarianceIsNumericallySound)
{
    HKTEST_SEEDED_RNG(rng);
    std::uniform_real_distribution<float> noise(-1.0f, 1.0f);
    for (int64_t n : {int64_t{100003}, int64_t{3000017}}) {
        std::vector<float> x((size_t)n);
        long double sum = 0;
        for (float &v : x) {
            v = 1000.0f + noise(rng);
            sum += v;
        }
        const long double mean = sum / n;
        long double m2 = 0;
        for (float v : x)
            m2 += (v - mean) * (v - mean);
        hktest::DeviceMemory dx, dout;
        ASSERT_HK_OK(dx.allocate(x.size() * 4));
        ASSERT_HK_OK(dout.allocate(8));
        ASSERT_HK_OK(hk_memcpy_htod(dx.get(), x.data(), x.size() * 4));
        for (int layout = 0; layout < 3; layout++) {
            // all; rows of 1000 (axis 1, then combined on the host); columns of 1000
            SCOPED_TRACE("n " + std::to_string(n) + ", layout " + std::to_string(layout));
            hk_array in = view(dx.get(), HK_FLOAT32, {n});
            hk_array out = view(dout.get(), HK_FLOAT32, {});
            if (layout == 0) {
                ASSERT_HK_OK(hk_reduce(HK_REDUCE_VAR, &in, 1, &out, 0, nullptr));
                float got = 0;
                ASSERT_HK_OK(hk_memcpy_dtoh(&got, dout.get(), 4));
                EXPECT_NEAR(got, (double)(m2 / n), 2e-3 * (double)(m2 / n)) << "mean " << (double)mean;
            } else {
                const int64_t rows = n / 1000; // the first rows * 1000 elements
                hktest::DeviceMemory dvar;
                ASSERT_HK_OK(dvar.allocate((size_t)rows * 4));
                hk_array matrix = layout == 1 ? view(dx.get(), HK_FLOAT32, {rows, 1000})
                                              : view(dx.get(), HK_FLOAT32, {1000, rows}, {1, 1000});
                hk_array vars = view(dvar.get(), HK_FLOAT32, {rows});
                ASSERT_HK_OK(hk_reduce(HK_REDUCE_VAR, &matrix, layout == 1 ? 2 : 1, &vars, 0, nullptr));
                std::vector<float> got((size_t)rows);
                ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), dvar.get(), got.size() * 4));
                for (int64_t r = 0; r < rows; r += rows / 7 + 1) {
                    long double s = 0, q = 0;
                    for (int64_t j = 0; j < 1000; j++)
                        s += x[(size_t)(r * 1000 + j)];
                    for (int64_t j = 0; j < 1000; j++)
                        q += (x[(size_t)(r * 1000 + j)] - s / 1000) * (x[(size_t)(r * 1000 + j)] - s / 1000);
                    EXPECT_NEAR(got[(size_t)r], (double)(q / 1000), 2e-3 * (double)(q / 1000)) << "row " << r;
                }
            }
        }
        // A constant array has variance exactly 0 (and std 0), whatever the order of merges.
        std::vector<float> c((size_t)n, 3.7f);
        ASSERT_HK_OK(hk_memcpy_htod(dx.get(), c.data(), c.size() * 4));
        hk_array in = view(dx.get(), HK_FLOAT32, {n});
        hk_array out = view(dout.get(), HK_FLOAT32, {});
        for (hk_reduce_op op : {HK_REDUCE_VAR, HK_REDUCE_STD}) {
            float got = -1;
            ASSERT_HK_OK(hk_reduce(op, &in, 1, &out, 0, nullptr));
            ASSERT_HK_OK(hk_memcpy_dtoh(&got, dout.get(), 4));
            EXPECT_EQ(got, 0.0f) << hk_reduce_op_name(op) << " of a constant array";
        }
    }
}

// Float sums of random reals (not exact): within the error bound, and
// bitwise identical when repeated (no atomics), on a user stream too.
TEST_F(ReduceOnGpu, RandomRealsAreAccurateAndDeterministic)
{
    HKTEST_SEEDED_RNG(rng);
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    const int64_t R = 2048, C = 2048;
    std::vector<float> x((size_t)(R * C));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float &v : x)
        v = dist(rng);
    hktest::DeviceMemory dx, d1, d2;
    ASSERT_HK_OK(dx.allocate(x.size() * 4));
    ASSERT_HK_OK(d1.allocate((size_t)C * 8));
    ASSERT_HK_OK(d2.allocate((size_t)C * 8));
    ASSERT_HK_OK(hk_memcpy_htod(dx.get(), x.data(), x.size() * 4));
    hk_array in = view(dx.get(), HK_FLOAT32, {R, C});
    struct Shape {
        uint32_t axes;
        int64_t outputs;
    };
    for (Shape sh : {Shape{3, 1}, Shape{1, C}, Shape{2, R}}) {
        for (hk_reduce_op op : {HK_REDUCE_SUM, HK_REDUCE_MEAN, HK_REDUCE_VAR}) {
            SCOPED_TRACE(std::string(hk_reduce_op_name(op)) + " axes " + std::to_string(sh.axes));
            hk_array o1 = sh.outputs == 1 ? view(d1.get(), HK_FLOAT32, {}) : view(d1.get(), HK_FLOAT32, {sh.outputs});
            hk_array o2 = o1;
            o2.data = d2.get();
            ASSERT_HK_OK(hk_reduce(op, &in, sh.axes, &o1, 0, stream.get()));
            ASSERT_HK_OK(hk_reduce(op, &in, sh.axes, &o2, 0, stream.get()));
            ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
            std::vector<float> g1((size_t)sh.outputs), g2((size_t)sh.outputs);
            ASSERT_HK_OK(hk_memcpy_dtoh(g1.data(), d1.get(), g1.size() * 4));
            ASSERT_HK_OK(hk_memcpy_dtoh(g2.data(), d2.get(), g2.size() * 4));
            EXPECT_EQ(std::memcmp(g1.data(), g2.data(), g1.size() * 4), 0) << "two runs differ";
            OnGpu gpu{stream.get()};
            Case c{"2048x2048 random reals", {R, C}, {}, sh.axes};
            c.inexact = true;
            hkred::Executor exec = std::cref(gpu);
            EXPECT_EQ(hkred::check_case(exec, op, HK_FLOAT32, c, rng, 0, 0,
                                        [&](std::vector<unsigned char> &pool, const Case &) {
                                            std::memcpy(pool.data(), x.data(), x.size() * 4);
                                        }),
                      "");
        }
    }
}

} // namespace
