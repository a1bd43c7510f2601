// test_matmul.cpp: hk_matmul (own kernel and vendor BLAS) and hk_take, against CPU references on
// fresh random data with outputs poisoned first, over awkward sizes, batches with broadcasting,
// transposed / reversed / spread views and strided outputs; plus every argument check without a GPU.
#include "common.h"
#include "views.h"

#include <atomic>
#include <cmath>
#include <functional>
#include <thread>
#include <type_traits>

namespace
{

using hktest::C_ORDER;
using hktest::item_size;
using hktest::kAllDtypes;
using hktest::mode_names;
using hktest::numpy_index;
using hktest::REVERSED_BATCH;
using hktest::REVERSED_ROWS;
using hktest::REVERSED_TRANSPOSED;
using hktest::SPREAD;
using hktest::TRANSPOSED;
using hktest::Kind;
using hktest::kind_names;
using hktest::Layout;
using hktest::make_layout;
using hktest::offset_of;
using hktest::shape_string;
using hktest::view;
using hktest::walk;

// Re-runs the current test in a child process with `assignment` (NAME=value) in its environment.
int run_this_test_with(const std::string &assignment)
{
    const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
    char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0)
        return -1;
    self[length] = '\0';
    std::string command = "env " + assignment + " '" + self + "' --gtest_brief=1 --gtest_filter=" +
                          info->test_suite_name() + "." + info->name();
    return std::system(command.c_str());
}

bool vendor_available()
{
    int available = -1;
    EXPECT_EQ(hk_matmul_vendor_available(&available), HK_SUCCESS) << hk_last_error();
    return available == 1;
}

// ================================================================== no GPU needed: matmul

alignas(16) char fake[1 << 16]; // never dereferenced: every call below is refused before any work

TEST(Matmul, RefusesNullsAndBadViews)
{
    hk_array a = view(fake, HK_FLOAT32, {4, 3}), b = view(fake + 4096, HK_FLOAT32, {3, 5});
    hk_array out = view(fake + 8192, HK_FLOAT32, {4, 5});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(nullptr, &b, &out, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "a must not be NULL"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a, nullptr, &out, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "b must not be NULL"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a, &b, nullptr, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out must not be NULL"));
    hk_array bad = a;
    bad.data = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&bad, &b, &out, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "a.data is NULL"));
    bad = out;
    bad.data = fake + 8194; // misaligned float
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a, &b, &bad, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "not aligned"));
    bad = b;
    bad.ndim = HK_MAX_DIMS + 1;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a, &bad, &out, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "b.ndim"));
    bad = a;
    bad.dtype = static_cast<hk_dtype>(77);
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&bad, &b, &out, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "not a hk_dtype"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul",
                    hk_matmul(&a, &b, &out, static_cast<hk_matmul_engine>(3), nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "engine 3"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul",
                    hk_matmul(&a, &b, &out, static_cast<hk_matmul_engine>(-1), nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_matmul",
                    hk_matmul(&a, &b, &out, HK_MATMUL_OWN, hktest::bogus_stream()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul_vendor_available", hk_matmul_vendor_available(nullptr));
}

TEST(Matmul, RefusesDtypes)
{
    hk_array a = view(fake, HK_FLOAT32, {4, 3}), b = view(fake + 4096, HK_FLOAT64, {3, 5});
    hk_array out = view(fake + 8192, HK_FLOAT32, {4, 5});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a, &b, &out, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "a is float32, b is float64 and out is float32"));
    b.dtype = HK_FLOAT32;
    out.dtype = HK_FLOAT64;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a, &b, &out, HK_MATMUL_AUTO, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "one dtype"));
    for (hk_dtype d : {HK_INT32, HK_INT64, HK_FLOAT16, HK_BOOL, HK_UINT8}) {
        a.dtype = b.dtype = out.dtype = d;
        EXPECT_HK_FAILS(HK_ERROR_NOT_SUPPORTED, "hk_matmul", hk_matmul(&a, &b, &out, HK_MATMUL_OWN, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), hk_dtype_name(d)));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "float32 and float64"));
    }
}

TEST(Matmul, RefusesShapesThatDoNotMultiply)
{
    hk_array a = view(fake, HK_FLOAT64, {4, 3}), b = view(fake + 4096, HK_FLOAT64, {3, 5});
    hk_array out = view(fake + 8192, HK_FLOAT64, {4, 5});
    hk_array vec = view(fake, HK_FLOAT64, {3});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&vec, &b, &out, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "a has 1 dimension"));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "at least 2"));
    hk_array scalar = view(fake + 4096, HK_FLOAT64, {});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a, &scalar, &out, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "b has 0 dimensions"));
    // K mismatch
    hk_array b4 = view(fake + 4096, HK_FLOAT64, {4, 5});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a, &b4, &out, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "K = 3"));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "(4, 5)"));
    // batch dimensions that do not broadcast: (2, 4, 3) @ (3, 3, 5)
    hk_array a2 = view(fake, HK_FLOAT64, {2, 4, 3}), b3 = view(fake + 4096, HK_FLOAT64, {3, 3, 5});
    hk_array o3 = view(fake + 8192, HK_FLOAT64, {3, 4, 5});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a2, &b3, &o3, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "do not broadcast"));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "2 against 3"));
    // wrong out shapes: M, N, batch, ndim
    for (const std::vector<int64_t> &wrong : std::vector<std::vector<int64_t>>{
             {5, 5}, {4, 4}, {1, 4, 5}, {4, 5, 1}, {2, 4, 5}}) {
        hk_array o = view(fake + 8192, HK_FLOAT64, wrong);
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a, &b, &o, HK_MATMUL_OWN, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out has shape " + shape_string(wrong)));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "has shape (4, 5)"));
    }
    // (2, 1, 4, 3) @ (3, 3, 5) is (2, 3, 4, 5), not (3, 2, 4, 5)
    hk_array a21 = view(fake, HK_FLOAT64, {2, 1, 4, 3});
    hk_array o32 = view(fake + 8192, HK_FLOAT64, {3, 2, 4, 5});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a21, &b3, &o32, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "(2, 3, 4, 5)"));
}

TEST(Matmul, RefusesOverlapAndRepeatedOutput)
{
    hk_array a = view(fake, HK_FLOAT32, {4, 3}), b = view(fake + 4096, HK_FLOAT32, {3, 5});
    hk_array on_a = view(fake + 8, HK_FLOAT32, {4, 5});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a, &b, &on_a, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out overlaps a"));
    hk_array on_b = view(fake + 4096 + 40, HK_FLOAT32, {4, 5});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a, &b, &on_b, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out overlaps b"));
    // a transposed view of b's memory that reaches into out only through its far end
    hk_array reversed = view(fake + 8192 + 4 * 19, HK_FLOAT32, {4, 5}, {-5, -1});
    hk_array near_out = view(fake + 8192 + 4 * 19, HK_FLOAT32, {4, 3}, {3, 1});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul",
                    hk_matmul(&near_out, &b, &reversed, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "overlaps"));
    hk_array repeated = view(fake + 8192, HK_FLOAT32, {4, 5}, {0, 1});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_matmul", hk_matmul(&a, &b, &repeated, HK_MATMUL_OWN, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out.strides[0] is 0"));
}

TEST(Matmul, EmptyProductsNeedNoGpu)
{
    // M == 0, N == 0 and an empty batch: success without touching anything (NULL data is fine).
    for (const auto &shapes : std::vector<std::vector<std::vector<int64_t>>>{
             {{0, 3}, {3, 5}, {0, 5}}, {{4, 3}, {3, 0}, {4, 0}}, {{0, 4, 3}, {3, 5}, {0, 4, 5}}}) {
        auto data_for = [](const std::vector<int64_t> &shape, char *data) -> void * {
            for (int64_t e : shape)
                if (e == 0)
                    return nullptr; // no elements: NULL data is fine
            return data;
        };
        hk_array a = view(data_for(shapes[0], fake), HK_FLOAT32, shapes[0]);
        hk_array b = view(data_for(shapes[1], fake + 4096), HK_FLOAT32, shapes[1]);
        hk_array out = view(nullptr, HK_FLOAT32, shapes[2]);
        EXPECT_HK_OK(hk_matmul(&a, &b, &out, HK_MATMUL_OWN, nullptr));
        EXPECT_HK_OK(hk_matmul(&a, &b, &out, HK_MATMUL_AUTO, nullptr));
        EXPECT_STREQ(hk_last_error(), "");
    }
}

TEST(Matmul, NeedsAGpuForRealWork)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    hk_array a = view(fake, HK_FLOAT32, {4, 3}), b = view(fake + 4096, HK_FLOAT32, {3, 5});
    hk_array out = view(fake + 8192, HK_FLOAT32, {4, 5});
    EXPECT_SAYS_NO_GPU("hk_matmul", hk_matmul(&a, &b, &out, HK_MATMUL_OWN, nullptr));
    EXPECT_SAYS_NO_GPU("hk_matmul", hk_matmul(&a, &b, &out, HK_MATMUL_AUTO, nullptr));
    hk_array k0a = view(fake, HK_FLOAT32, {4, 0}), k0b = view(fake + 4096, HK_FLOAT32, {0, 5});
    EXPECT_SAYS_NO_GPU("hk_matmul", hk_matmul(&k0a, &k0b, &out, HK_MATMUL_OWN, nullptr)); // K == 0 writes zeros
    if (vendor_available())
        EXPECT_SAYS_NO_GPU("hk_matmul", hk_matmul(&a, &b, &out, HK_MATMUL_VENDOR, nullptr));
}

// The vendor engine, when the vendor BLAS is not usable: NOT_SUPPORTED with the reason, while OWN and
// AUTO go on. Where the library is available this test re-runs itself with it turned off
// (HIPKIT_VENDOR_BLAS=0), so it runs everywhere.
TEST(Matmul, VendorEngineWithoutTheVendorLibrary)
{
    if (vendor_available()) {
        ASSERT_EQ(std::getenv("HIPKIT_VENDOR_BLAS"), nullptr)
            << "HIPKIT_VENDOR_BLAS is set, yet hk_matmul_vendor_available says 1";
        ASSERT_EQ(run_this_test_with("HIPKIT_VENDOR_BLAS=0"), 0)
            << "this test failed when re-run with HIPKIT_VENDOR_BLAS=0 (output above)";
        return;
    }
    hk_array a = view(fake, HK_FLOAT32, {4, 3}), b = view(fake + 4096, HK_FLOAT32, {3, 5});
    hk_array out = view(fake + 8192, HK_FLOAT32, {4, 5});
    EXPECT_HK_FAILS(HK_ERROR_NOT_SUPPORTED, "hk_matmul", hk_matmul(&a, &b, &out, HK_MATMUL_VENDOR, nullptr));
    const std::string message = hk_last_error();
    EXPECT_TRUE(hktest::contains_ignoring_case(message, "HK_MATMUL_VENDOR was asked for, but"));
    if (hktest::gpu_available())
        EXPECT_TRUE(hktest::contains_ignoring_case(message, "cuBLAS") ||
                    hktest::contains_ignoring_case(message, "rocBLAS"))
            << message;
    else
        EXPECT_TRUE(hktest::contains_ignoring_case(message, "the CPU device has no BLAS")) << message;
    hk_array empty = view(nullptr, HK_FLOAT32, {0, 5}), a0 = view(nullptr, HK_FLOAT32, {0, 3});
    EXPECT_HK_FAILS(HK_ERROR_NOT_SUPPORTED, "hk_matmul", hk_matmul(&a0, &b, &empty, HK_MATMUL_VENDOR, nullptr));
}

// ================================================================== no GPU needed: take

TEST(Take, RefusesBadArguments)
{
    hk_array in = view(fake, HK_FLOAT32, {4, 5}), idx = view(fake + 4096, HK_INT64, {3});
    hk_array out = view(fake + 8192, HK_FLOAT32, {4, 3});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(nullptr, &idx, 1, &out, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "in must not be NULL"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&in, nullptr, 1, &out, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "indices must not be NULL"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&in, &idx, 1, nullptr, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out must not be NULL"));
    for (hk_dtype d : {HK_INT32, HK_UINT64, HK_FLOAT64, HK_BOOL}) {
        hk_array wrong = idx;
        wrong.dtype = d;
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&in, &wrong, 1, &out, HK_TAKE_WRAP, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), std::string("indices are ") + hk_dtype_name(d)));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "int64"));
    }
    for (int axis : {2, -3, 100}) {
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&in, &idx, axis, &out, HK_TAKE_CLIP, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(),
                                                   "axis " + std::to_string(axis) + " is out of range for in with 2"));
    }
    hk_array scalar = view(fake, HK_FLOAT32, {});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&scalar, &idx, 0, &out, HK_TAKE_CLIP, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "0-d"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take",
                    hk_take(&in, &idx, 1, &out, static_cast<hk_take_mode>(3), nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "mode 3"));
    hk_array out64 = out;
    out64.dtype = HK_FLOAT64;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&in, &idx, 1, &out64, HK_TAKE_CLIP, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out is float64 but in is float32"));
    // wrong out shapes (axis 1: (4,) + (3,) + () = (4, 3)); axis -2 gives (3, 5)
    for (const std::vector<int64_t> &wrong : std::vector<std::vector<int64_t>>{{4, 5}, {3, 4}, {4, 3, 1}, {12}}) {
        hk_array o = view(fake + 8192, HK_FLOAT32, wrong);
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&in, &idx, 1, &o, HK_TAKE_RAISE, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out has shape " + shape_string(wrong)));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "= (4, 3)"));
    }
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&in, &idx, -2, &out, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "= (3, 5)"));
    // more than HK_MAX_DIMS dimensions in the result
    std::vector<int64_t> deep(HK_MAX_DIMS, 1);
    deep.back() = 2;
    hk_array in_deep = view(fake, HK_FLOAT32, deep);
    hk_array idx2 = view(fake + 4096, HK_INT64, {1, 1});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&in_deep, &idx2, 0, &out, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "33 dimensions"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_take",
                    hk_take(&in, &idx, 1, &out, HK_TAKE_RAISE, hktest::bogus_stream()));
}

TEST(Take, RefusesOverlapRepeatedOutputAndEmptyAxes)
{
    hk_array in = view(fake, HK_FLOAT32, {4, 5}), idx = view(fake + 4096, HK_INT64, {3});
    hk_array on_in = view(fake + 16, HK_FLOAT32, {4, 3});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&in, &idx, 1, &on_in, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out overlaps in"));
    hk_array on_idx = view(fake + 4096 + 8, HK_FLOAT32, {4, 3});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&in, &idx, 1, &on_idx, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out overlaps indices"));
    hk_array repeated = view(fake + 8192, HK_FLOAT32, {4, 3}, {3, 0});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&in, &idx, 1, &repeated, HK_TAKE_WRAP, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out.strides[1] is 0"));
    // Taking from an empty axis: an error in every mode when the result is not empty...
    hk_array empty_axis = view(fake, HK_FLOAT32, {4, 0});
    hk_array out = view(fake + 8192, HK_FLOAT32, {4, 3});
    for (hk_take_mode mode : {HK_TAKE_RAISE, HK_TAKE_WRAP, HK_TAKE_CLIP}) {
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take",
                        hk_take(&empty_axis, &idx, 1, &out, mode, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "non-empty take from an empty axis"));
    }
    // ...and an empty result is success without a GPU, even in RAISE mode (NumPy's rule).
    hk_array none = view(nullptr, HK_INT64, {0});
    hk_array out0 = view(nullptr, HK_FLOAT32, {4, 0});
    EXPECT_HK_OK(hk_take(&empty_axis, &none, 1, &out0, HK_TAKE_RAISE, nullptr));
    EXPECT_HK_OK(hk_take(&in, &none, -1, &out0, HK_TAKE_RAISE, nullptr));
    hk_array rows0 = view(nullptr, HK_FLOAT32, {0, 5}), out00 = view(nullptr, HK_FLOAT32, {0, 3});
    EXPECT_HK_OK(hk_take(&rows0, &idx, 1, &out00, HK_TAKE_RAISE, nullptr));
}

TEST(Take, NeedsAGpuForRealWork)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    hk_array in = view(fake, HK_FLOAT32, {4, 5}), idx = view(fake + 4096, HK_INT64, {3});
    hk_array out = view(fake + 8192, HK_FLOAT32, {4, 3});
    for (hk_take_mode mode : {HK_TAKE_RAISE, HK_TAKE_WRAP, HK_TAKE_CLIP})
        EXPECT_SAYS_NO_GPU("hk_take", hk_take(&in, &idx, 1, &out, mode, nullptr));
}

// ================================================================== GPU: matmul

struct MatmulCase {
    std::vector<int64_t> a_shape, b_shape;
    Kind a_kind = C_ORDER, b_kind = C_ORDER, out_kind = C_ORDER;
};

std::string describe(const MatmulCase &c, hk_dtype dtype, hk_matmul_engine engine)
{
    static const char *const engines[] = {"AUTO", "OWN", "VENDOR"};
    return std::string(hk_dtype_name(dtype)) + " " + engines[engine] + ": a " + shape_string(c.a_shape) + " " +
           kind_names[c.a_kind] + " @ b " + shape_string(c.b_shape) + " " + kind_names[c.b_kind] + ", out " +
           kind_names[c.out_kind];
}

std::vector<int64_t> result_shape(const MatmulCase &c)
{
    const size_t an = c.a_shape.size() - 2, bn = c.b_shape.size() - 2, nb = std::max(an, bn);
    std::vector<int64_t> shape(nb + 2);
    for (size_t d = 0; d < nb; d++) {
        const int64_t ea = d + an >= nb ? c.a_shape[d + an - nb] : 1;
        const int64_t eb = d + bn >= nb ? c.b_shape[d + bn - nb] : 1;
        shape[d] = ea == 1 ? eb : ea;
    }
    shape[nb] = c.a_shape[an];
    shape[nb + 1] = c.b_shape[bn + 1];
    return shape;
}

// Runs one product on the GPU and checks every element of out against a CPU reference (double for
// float32, long double for float64), within K * eps * sum |a| |b|; elements of out's buffer outside
// the view must keep their NaN poison. Returns false (with failures added) on a mismatch.
template <typename T>
bool check_matmul(const MatmulCase &c, hk_matmul_engine engine, std::mt19937_64 &rng, hk_stream stream = nullptr)
{
    typedef typename std::conditional<std::is_same<T, float>::value, double, long double>::type Acc;
    const hk_dtype dtype = hktest::Dtype<T>::value;
    SCOPED_TRACE(describe(c, dtype, engine));
    const std::vector<int64_t> out_shape = result_shape(c);
    const Layout la = make_layout(c.a_shape, c.a_kind), lb = make_layout(c.b_shape, c.b_kind);
    const Layout lo = make_layout(out_shape, c.out_kind);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<T> ha(la.span), hb(lb.span), got(lo.span);
    for (T &v : ha)
        v = static_cast<T>(dist(rng));
    for (T &v : hb)
        v = static_cast<T>(dist(rng));
    hktest::DeviceMemory da, db, dout;
    EXPECT_HK_OK(da.allocate(la.span * sizeof(T)));
    EXPECT_HK_OK(db.allocate(lb.span * sizeof(T)));
    EXPECT_HK_OK(dout.allocate(lo.span * sizeof(T)));
    if (!da.get() || !db.get() || !dout.get())
        return false;
    EXPECT_HK_OK(hk_memcpy_htod(da.get(), ha.data(), la.span * sizeof(T)));
    EXPECT_HK_OK(hk_memcpy_htod(db.get(), hb.data(), lb.span * sizeof(T)));
    EXPECT_HK_OK(hk_memset(dout.get(), 0xFF, lo.span * sizeof(T))); // NaN everywhere
    hk_array a = view(da.as<T>() + la.offset, dtype, la.shape, la.strides);
    hk_array b = view(db.as<T>() + lb.offset, dtype, lb.shape, lb.strides);
    hk_array out = view(dout.as<T>() + lo.offset, dtype, lo.shape, lo.strides);
    const hk_status status = hk_matmul(&a, &b, &out, engine, stream);
    EXPECT_EQ(status, HK_SUCCESS) << hk_last_error();
    if (status != HK_SUCCESS)
        return false;
    if (stream)
        EXPECT_HK_OK(hk_stream_synchronize(stream));
    EXPECT_HK_OK(hk_memcpy_dtoh(got.data(), dout.get(), lo.span * sizeof(T)));

    const size_t nb = out_shape.size() - 2, an = c.a_shape.size() - 2, bn = c.b_shape.size() - 2;
    const int64_t M = out_shape[nb], N = out_shape[nb + 1], K = c.a_shape[an + 1];
    const Acc eps = static_cast<Acc>(std::numeric_limits<T>::epsilon());
    std::vector<char> written(lo.span, 0);
    std::vector<Acc> A(static_cast<size_t>(M * K)), B(static_cast<size_t>(K * N)), absB(B.size());
    std::vector<Acc> ref(static_cast<size_t>(M * N)), mag(ref.size());
    hktest::Mismatches bad;
    std::vector<int64_t> batch_shape(out_shape.begin(), out_shape.begin() + static_cast<long>(nb));
    walk(batch_shape, [&](const std::vector<int64_t> &z) {
        // This batch's matrices, densified (broadcast dimensions at index 0).
        std::vector<int64_t> ia(an + 2), ib(bn + 2), io(nb + 2);
        for (size_t d = 0; d < an; d++)
            ia[d] = c.a_shape[d] == 1 ? 0 : z[d + nb - an];
        for (size_t d = 0; d < bn; d++)
            ib[d] = c.b_shape[d] == 1 ? 0 : z[d + nb - bn];
        for (size_t d = 0; d < nb; d++)
            io[d] = z[d];
        for (int64_t i = 0; i < M; i++)
            for (int64_t p = 0; p < K; p++) {
                ia[an] = i;
                ia[an + 1] = p;
                A[static_cast<size_t>(i * K + p)] = static_cast<Acc>(ha[static_cast<size_t>(offset_of(la, ia))]);
            }
        for (int64_t p = 0; p < K; p++)
            for (int64_t j = 0; j < N; j++) {
                ib[bn] = p;
                ib[bn + 1] = j;
                const Acc v = static_cast<Acc>(hb[static_cast<size_t>(offset_of(lb, ib))]);
                B[static_cast<size_t>(p * N + j)] = v;
                absB[static_cast<size_t>(p * N + j)] = v < 0 ? -v : v;
            }
        std::fill(ref.begin(), ref.end(), Acc(0));
        std::fill(mag.begin(), mag.end(), Acc(0));
        for (int64_t i = 0; i < M; i++)
            for (int64_t p = 0; p < K; p++) {
                const Acc x = A[static_cast<size_t>(i * K + p)], ax = x < 0 ? -x : x;
                Acc *r = ref.data() + i * N, *m = mag.data() + i * N;
                const Acc *brow = B.data() + p * N, *arow = absB.data() + p * N;
                for (int64_t j = 0; j < N; j++) {
                    r[j] += x * brow[j];
                    m[j] += ax * arow[j];
                }
            }
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                io[nb] = i;
                io[nb + 1] = j;
                const size_t at = static_cast<size_t>(offset_of(lo, io));
                written[at] = 1;
                const Acc expected = ref[static_cast<size_t>(i * N + j)];
                const Acc tol = static_cast<Acc>(K) * eps * mag[static_cast<size_t>(i * N + j)];
                const Acc value = static_cast<Acc>(got[at]);
                if (!(std::fabs(value - expected) <= tol)) {
                    std::string where = "batch " + shape_string(z) + " [" + std::to_string(i) + ", " +
                                        std::to_string(j) + "]";
                    bad.add(at, hktest::show(got[at]) + " at " + where,
                            hktest::show(static_cast<double>(expected)) + " (tolerance " +
                                hktest::show(static_cast<double>(tol)) + ")");
                }
            }
    });
    size_t stray = 0;
    for (size_t k = 0; k < lo.span; k++)
        if (!written[k] && !std::isnan(got[k]))
            stray++;
    EXPECT_EQ(bad.count, 0u) << "M " << M << ", N " << N << ", K " << K << "; first mismatches:\n" << bad.text;
    EXPECT_EQ(stray, 0u) << "elements of out's buffer outside the view were written";
    return bad.count == 0 && stray == 0;
}

class MatmulOnGpu : public GpuTest
{
  protected:
    // The engines a test runs: OWN always, VENDOR when the vendor BLAS is there.
    std::vector<hk_matmul_engine> engines()
    {
        std::vector<hk_matmul_engine> list = {HK_MATMUL_OWN};
        if (vendor_available())
            list.push_back(HK_MATMUL_VENDOR);
        return list;
    }
};

// Skips the calling test when the vendor BLAS is not usable here.
#define SKIP_WITHOUT_VENDOR()                                                                                          \
    do {                                                                                                               \
        if (!vendor_available())                                                                                       \
            GTEST_SKIP() << "hk_matmul_vendor_available says 0: no vendor BLAS (cuBLAS / rocBLAS) here";              \
    } while (0)

const int64_t kSizes[] = {1, 2, 17, 64, 127, 129, 300};

// Every (M, N, K) of the size list, contiguous, and again with the layouts rotating.
template <typename T> void size_grid(hk_matmul_engine engine, std::mt19937_64 &rng)
{
    int failures = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t im = 0; im < 7; im++)
            for (size_t in = 0; in < 7; in++)
                for (size_t ik = 0; ik < 7 && failures < 5; ik++) {
                    MatmulCase c{{kSizes[im], kSizes[ik]}, {kSizes[ik], kSizes[in]}};
                    if (pass == 1) {
                        c.a_kind = static_cast<Kind>((im + 2 * ik) % 5);
                        c.b_kind = static_cast<Kind>((ik + 3 * in + 1) % 5);
                        c.out_kind = static_cast<Kind>((im + in + 2) % 5);
                    }
                    if (!check_matmul<T>(c, engine, rng))
                        failures++;
                }
}

TEST_F(MatmulOnGpu, OwnKernelFloat32EverySizeMixture)
{
    HKTEST_SEEDED_RNG(rng);
    size_grid<float>(HK_MATMUL_OWN, rng);
}

TEST_F(MatmulOnGpu, OwnKernelFloat64EverySizeMixture)
{
    HKTEST_SEEDED_RNG(rng);
    size_grid<double>(HK_MATMUL_OWN, rng);
}

TEST_F(MatmulOnGpu, VendorFloat32EverySizeMixture)
{
    SKIP_WITHOUT_VENDOR();
    HKTEST_SEEDED_RNG(rng);
    size_grid<float>(HK_MATMUL_VENDOR, rng);
}

TEST_F(MatmulOnGpu, VendorFloat64EverySizeMixture)
{
    SKIP_WITHOUT_VENDOR();
    HKTEST_SEEDED_RNG(rng);
    size_grid<double>(HK_MATMUL_VENDOR, rng);
}

// K == 0 gives zeros over the NaN poison; M or N == 0 and empty batches write nothing.
TEST_F(MatmulOnGpu, EmptyExtents)
{
    HKTEST_SEEDED_RNG(rng);
    const std::vector<MatmulCase> cases = {
        {{5, 0}, {0, 7}},        {{1, 0}, {0, 1}},         {{3, 130, 0}, {0, 129}, SPREAD, C_ORDER, TRANSPOSED},
        {{0, 5}, {5, 7}},        {{5, 5}, {5, 0}},         {{0, 0}, {0, 0}},
        {{0, 4, 3}, {3, 5}},     {{2, 0, 4, 3}, {3, 5}},   {{2, 1, 4, 0}, {3, 0, 5}, TRANSPOSED, SPREAD, SPREAD},
    };
    for (hk_matmul_engine engine : engines()) {
        for (const MatmulCase &c : cases) {
            check_matmul<float>(c, engine, rng);
            check_matmul<double>(c, engine, rng);
        }
    }
}

// Batches: broadcasting (2, 1, M, K) @ (3, K, N), 3-d and 4-d, a batch folded into M, reversed batches
// (both directions at once, and mixed), and more batches than one grid dimension holds.
template <typename T> void batched_cases(hk_matmul_engine engine, std::mt19937_64 &rng)
{
    const std::vector<MatmulCase> cases = {
        {{2, 1, 33, 17}, {3, 17, 65}},
        {{2, 1, 33, 17}, {3, 17, 65}, TRANSPOSED, REVERSED_ROWS, SPREAD},
        {{4, 31, 9}, {9, 13}},                         // b repeats: folded into one 124 x 9 product
        {{4, 31, 9}, {9, 13}, SPREAD, C_ORDER, C_ORDER}, // not foldable
        {{6, 1, 40}, {40, 3}},                         // M == 1 fold
        {{29, 12}, {5, 12, 7}},                        // a repeats
        {{1, 29, 12}, {3, 12, 7}, C_ORDER, TRANSPOSED, REVERSED_TRANSPOSED},
        {{2, 3, 19, 8}, {2, 3, 8, 21}},
        {{3, 1, 19, 8}, {1, 4, 8, 21}, REVERSED_TRANSPOSED, SPREAD, TRANSPOSED},
        {{2, 1, 3, 1, 5, 6}, {4, 1, 2, 6, 7}, SPREAD, TRANSPOSED, C_ORDER},
        {{3, 19, 8}, {3, 8, 21}, REVERSED_BATCH, REVERSED_BATCH, REVERSED_BATCH}, // all batches backwards
        {{3, 19, 8}, {3, 8, 21}, REVERSED_BATCH, C_ORDER, C_ORDER},               // mixed directions
        {{5, 2, 70, 3}, {5, 1, 3, 66}, C_ORDER, REVERSED_BATCH, SPREAD},
        {{70001, 2, 3}, {70001, 3, 2}}, // more batches than gridDim.z
    };
    for (const MatmulCase &c : cases)
        check_matmul<T>(c, engine, rng);
}

TEST_F(MatmulOnGpu, BatchedAndBroadcast)
{
    HKTEST_SEEDED_RNG(rng);
    for (hk_matmul_engine engine : engines()) {
        batched_cases<float>(engine, rng);
        batched_cases<double>(engine, rng);
    }
}

// Larger products: the tiled kernel's interior (vector loads, both buffers, many k-steps), with each
// operand row- or column-major and a misaligned view.
template <typename T> void large_cases(hk_matmul_engine engine, std::mt19937_64 &rng)
{
    const std::vector<MatmulCase> cases = {
        {{1024, 513}, {513, 777}},
        {{512, 256}, {256, 384}, TRANSPOSED, TRANSPOSED, C_ORDER},
        {{384, 300}, {300, 260}, C_ORDER, TRANSPOSED, TRANSPOSED},
        {{257, 511}, {511, 263}, REVERSED_ROWS, SPREAD, REVERSED_TRANSPOSED},
    };
    for (const MatmulCase &c : cases)
        check_matmul<T>(c, engine, rng);
}

TEST_F(MatmulOnGpu, LargeProducts)
{
    HKTEST_SEEDED_RNG(rng);
    for (hk_matmul_engine engine : engines()) {
        large_cases<float>(engine, rng);
        large_cases<double>(engine, rng);
    }
}

// Views whose first element is not 16-byte aligned (vector loads must not be used) and views that start
// mid-row, for both engines.
TEST_F(MatmulOnGpu, MisalignedViews)
{
    HKTEST_SEEDED_RNG(rng);
    for (hk_matmul_engine engine : engines()) {
        // Views starting 1..3 elements into their allocations: every row is misaligned for 16-byte loads.
        for (int64_t shift = 1; shift <= 3; shift++) {
            const int64_t M = 133, N = 131, K = 70;
            std::uniform_real_distribution<double> dist(-1, 1);
            std::vector<float> ha(static_cast<size_t>(M * K + shift)), hb(static_cast<size_t>(K * N + shift));
            for (float &v : ha)
                v = static_cast<float>(dist(rng));
            for (float &v : hb)
                v = static_cast<float>(dist(rng));
            hktest::DeviceMemory da, db, dout;
            ASSERT_HK_OK(da.allocate(ha.size() * 4));
            ASSERT_HK_OK(db.allocate(hb.size() * 4));
            ASSERT_HK_OK(dout.allocate(static_cast<size_t>(M * N + shift) * 4));
            ASSERT_HK_OK(hk_memcpy_htod(da.get(), ha.data(), ha.size() * 4));
            ASSERT_HK_OK(hk_memcpy_htod(db.get(), hb.data(), hb.size() * 4));
            ASSERT_HK_OK(hk_memset(dout.get(), 0xFF, static_cast<size_t>(M * N + shift) * 4));
            hk_array a = view(da.as<float>() + shift, HK_FLOAT32, {M, K});
            hk_array b = view(db.as<float>() + shift, HK_FLOAT32, {K, N});
            hk_array out = view(dout.as<float>() + shift, HK_FLOAT32, {M, N});
            ASSERT_HK_OK(hk_matmul(&a, &b, &out, engine, nullptr));
            std::vector<float> got(static_cast<size_t>(M * N + shift));
            ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), dout.get(), got.size() * 4));
            hktest::Mismatches bad;
            for (int64_t s = 0; s < shift; s++)
                if (!std::isnan(got[static_cast<size_t>(s)]))
                    bad.add(static_cast<size_t>(s), hktest::show(got[static_cast<size_t>(s)]), "NaN (before the view)");
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    double ref = 0, mag = 0;
                    for (int64_t p = 0; p < K; p++) {
                        const double x = ha[static_cast<size_t>(shift + i * K + p)];
                        const double y = hb[static_cast<size_t>(shift + p * N + j)];
                        ref += x * y;
                        mag += std::fabs(x * y);
                    }
                    const float v = got[static_cast<size_t>(shift + i * N + j)];
                    if (!(std::fabs(v - ref) <= K * 1.2e-7 * mag))
                        bad.add(static_cast<size_t>(i * N + j), hktest::show(v), hktest::show(ref));
                }
            EXPECT_EQ(bad.count, 0u) << "shift " << shift << " elements, engine " << engine << ":\n" << bad.text;
        }
    }
}

// AUTO on a stream of its own, and the vendor path from several threads at once (one handle per
// device, shared under a lock).
TEST_F(MatmulOnGpu, AutoEngineOnAStream)
{
    HKTEST_SEEDED_RNG(rng);
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    check_matmul<float>({{2, 1, 65, 33}, {3, 33, 67}, TRANSPOSED, C_ORDER, SPREAD}, HK_MATMUL_AUTO, rng, stream.get());
    check_matmul<double>({{130, 129}, {129, 131}}, HK_MATMUL_AUTO, rng, stream.get());
    check_matmul<float>({{130, 129}, {129, 131}}, HK_MATMUL_OWN, rng, stream.get());
}

TEST_F(MatmulOnGpu, VendorFromSeveralThreads)
{
    SKIP_WITHOUT_VENDOR();
    const uint64_t seed = hktest::fresh_seed();
    SCOPED_TRACE("random seed " + std::to_string(seed));
    std::atomic<int> failed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back([&, t] {
            std::mt19937_64 rng(seed + static_cast<uint64_t>(t));
            hktest::Stream stream;
            if (stream.create() != HK_SUCCESS) {
                failed++;
                return;
            }
            for (int round = 0; round < 3; round++)
                if (!check_matmul<float>({{3, 97, 65}, {3, 65, 101}}, HK_MATMUL_VENDOR, rng, stream.get()))
                    failed++;
        });
    for (std::thread &t : threads)
        t.join();
    EXPECT_EQ(failed.load(), 0);
}

// ================================================================== GPU: take

// Data avoids the all-0xFF pattern so a poisoned (unwritten) element never passes as a copied one.
struct TakeCase {
    std::vector<int64_t> in_shape;
    Kind in_kind;
    std::vector<int64_t> idx_shape;
    std::vector<int64_t> idx_values; // C order over idx_shape
    int axis;
    hk_take_mode mode;
    Kind idx_kind = C_ORDER, out_kind = C_ORDER;
};

// Runs one take and compares out byte for byte with the CPU's numpy.take.
bool check_take(const TakeCase &c, hk_dtype dtype, std::mt19937_64 &rng, hk_stream stream = nullptr)
{
    const size_t item = item_size(dtype);
    const int nd = static_cast<int>(c.in_shape.size());
    const int ax = c.axis < 0 ? c.axis + nd : c.axis;
    std::vector<int64_t> out_shape(c.in_shape.begin(), c.in_shape.begin() + ax);
    out_shape.insert(out_shape.end(), c.idx_shape.begin(), c.idx_shape.end());
    out_shape.insert(out_shape.end(), c.in_shape.begin() + ax + 1, c.in_shape.end());
    SCOPED_TRACE(std::string(hk_dtype_name(dtype)) + ": take from " + shape_string(c.in_shape) + " " +
                 kind_names[c.in_kind] + " along axis " + std::to_string(c.axis) + ", indices " +
                 shape_string(c.idx_shape) + " " + kind_names[c.idx_kind] + ", out " + shape_string(out_shape) +
                 " " + kind_names[c.out_kind] + ", mode " + mode_names[c.mode]);
    const Layout li = make_layout(c.in_shape, c.in_kind), lx = make_layout(c.idx_shape, c.idx_kind);
    const Layout lo = make_layout(out_shape, c.out_kind);
    std::vector<unsigned char> hin(li.span * item), got(lo.span * item);
    std::uniform_int_distribution<int> byte(0, 254);
    for (size_t e = 0; e < li.span; e++)
        for (size_t k = 0; k < item; k++)
            hin[e * item + k] = static_cast<unsigned char>(dtype == HK_BOOL ? byte(rng) & 1 : byte(rng));
    std::vector<int64_t> hidx(lx.span, 0x7EEEEEEEEEEEEEEE); // outside the view: never read
    size_t next = 0;
    walk(c.idx_shape,
         [&](const std::vector<int64_t> &i) { hidx[static_cast<size_t>(offset_of(lx, i))] = c.idx_values[next++]; });
    hktest::DeviceMemory din, didx, dout;
    EXPECT_HK_OK(din.allocate(hin.size()));
    EXPECT_HK_OK(didx.allocate(hidx.size() * 8));
    EXPECT_HK_OK(dout.allocate(got.size()));
    if (!din.get() || !didx.get() || !dout.get())
        return false;
    EXPECT_HK_OK(hk_memcpy_htod(din.get(), hin.data(), hin.size()));
    EXPECT_HK_OK(hk_memcpy_htod(didx.get(), hidx.data(), hidx.size() * 8));
    EXPECT_HK_OK(hk_memset(dout.get(), 0xFF, got.size()));
    hk_array in = view(static_cast<char *>(din.get()) + li.offset * static_cast<int64_t>(item), dtype, li.shape,
                       li.strides);
    hk_array idx = view(didx.as<int64_t>() + lx.offset, HK_INT64, lx.shape, lx.strides);
    hk_array out = view(static_cast<char *>(dout.get()) + lo.offset * static_cast<int64_t>(item), dtype, lo.shape,
                        lo.strides);
    const hk_status status = hk_take(&in, &idx, c.axis, &out, c.mode, stream);
    EXPECT_EQ(status, HK_SUCCESS) << hk_last_error();
    if (status != HK_SUCCESS)
        return false;
    if (stream)
        EXPECT_HK_OK(hk_stream_synchronize(stream));
    EXPECT_HK_OK(hk_memcpy_dtoh(got.data(), dout.get(), got.size()));
    std::vector<char> written(lo.span, 0);
    hktest::Mismatches bad;
    const size_t idx_nd = c.idx_shape.size();
    walk(out_shape, [&](const std::vector<int64_t> &o) {
        std::vector<int64_t> src(o.begin(), o.begin() + ax), ix(o.begin() + ax, o.begin() + ax + static_cast<long>(idx_nd));
        const int64_t j = hidx[static_cast<size_t>(offset_of(lx, ix))];
        src.push_back(numpy_index(j, c.in_shape[static_cast<size_t>(ax)], c.mode));
        src.insert(src.end(), o.begin() + ax + static_cast<long>(idx_nd), o.end());
        const size_t s = static_cast<size_t>(offset_of(li, src)), d = static_cast<size_t>(offset_of(lo, o));
        written[d] = 1;
        if (std::memcmp(&hin[s * item], &got[d * item], item) != 0) {
            std::ostringstream g, e;
            for (size_t k = 0; k < item; k++) {
                g << std::hex << std::setw(2) << std::setfill('0') << int(got[d * item + k]);
                e << std::hex << std::setw(2) << std::setfill('0') << int(hin[s * item + k]);
            }
            bad.add(d, "bytes " + g.str() + " at out " + shape_string(o),
                    "bytes " + e.str() + " (index " + std::to_string(j) + ")");
        }
    });
    size_t stray = 0;
    for (size_t e = 0; e < lo.span; e++)
        if (!written[e])
            for (size_t k = 0; k < item; k++)
                if (got[e * item + k] != 0xFF) {
                    stray++;
                    break;
                }
    EXPECT_EQ(bad.count, 0u) << bad.text;
    EXPECT_EQ(stray, 0u) << "elements of out's buffer outside the view were written";
    return bad.count == 0 && stray == 0;
}

class TakeOnGpu : public GpuTest
{
};

// Every dtype (1, 2, 4 and 8-byte elements), every axis, 0-d / 1-d / 2-d indices, negative indices,
// each mode, and transposed / reversed / spread views of in, indices and out.
TEST_F(TakeOnGpu, EveryDtypeAxisModeAndLayout)
{
    HKTEST_SEEDED_RNG(rng);
    const std::vector<TakeCase> cases = {
        {{5, 7, 3}, C_ORDER, {5}, {0, 6, -1, -7, 3}, 1, HK_TAKE_RAISE},
        {{5, 7, 3}, C_ORDER, {2, 3}, {-5, 4, 0, -1, 2, 2}, 0, HK_TAKE_RAISE},
        {{5, 7, 3}, SPREAD, {}, {-2}, 2, HK_TAKE_RAISE},
        {{5, 7, 3}, TRANSPOSED, {}, {1}, -1, HK_TAKE_CLIP},
        {{5, 7, 3}, C_ORDER, {2, 3}, {-12, 5, 13, -1, 0, 4}, 0, HK_TAKE_WRAP},
        {{5, 7, 3}, REVERSED_ROWS, {6}, {-3, 100, 2, -1, 7, 6}, 1, HK_TAKE_CLIP},
        {{5, 7, 3}, REVERSED_TRANSPOSED, {3, 2}, {-15, 14, 8, -8, 1, 0}, -2, HK_TAKE_WRAP, SPREAD, TRANSPOSED},
        {{9}, C_ORDER, {4}, {8, -9, 0, 4}, 0, HK_TAKE_RAISE, REVERSED_ROWS, SPREAD},
        {{9}, REVERSED_ROWS, {2, 2}, {-1, 30, -30, 9}, -1, HK_TAKE_WRAP, TRANSPOSED, REVERSED_TRANSPOSED},
        {{4, 1, 6}, C_ORDER, {3}, {0, -1, 0}, 1, HK_TAKE_RAISE, C_ORDER, SPREAD},
        {{3, 4, 5, 2}, TRANSPOSED, {2, 1, 2}, {3, -4, 1, 2}, 1, HK_TAKE_RAISE, SPREAD, REVERSED_TRANSPOSED},
        {{6, 4}, C_ORDER, {0}, {}, 0, HK_TAKE_RAISE}, // empty indices: empty out
    };
    for (hk_dtype dtype : kAllDtypes)
        for (const TakeCase &c : cases)
            check_take(c, dtype, rng);
}

// Enough work for a grid-stride loop, with whole rows copied as wide units (contiguous rows of 256
// float32 or 128 float64) and without (rows of 257), on a stream.
TEST_F(TakeOnGpu, LargeRowGathers)
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
            check_take({{1000, cols}, C_ORDER, {5000}, values, 0, HK_TAKE_RAISE}, dtype, rng, stream.get());
        std::uniform_int_distribution<int64_t> wide(-5000, 5000);
        for (int64_t &v : values)
            v = wide(rng);
        check_take({{1000, cols}, C_ORDER, {50, 100}, values, 0, HK_TAKE_WRAP}, HK_UINT32, rng);
        check_take({{cols, 1000}, C_ORDER, {5000}, values, 1, HK_TAKE_CLIP}, HK_INT64, rng);
    }
}

// RAISE with an index out of range: INVALID_ARGUMENT naming the first bad index (C order of indices),
// the axis and its size, and out left as it was.
TEST_F(TakeOnGpu, RaiseReportsTheFirstBadIndex)
{
    struct Bad {
        std::vector<int64_t> in_shape;
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
        const int nd = static_cast<int>(c.in_shape.size()), ax = c.axis < 0 ? c.axis + nd : c.axis;
        std::vector<int64_t> out_shape(c.in_shape.begin(), c.in_shape.begin() + ax);
        out_shape.insert(out_shape.end(), c.idx_shape.begin(), c.idx_shape.end());
        out_shape.insert(out_shape.end(), c.in_shape.begin() + ax + 1, c.in_shape.end());
        size_t in_n = 1, out_n = 1;
        for (int64_t e : c.in_shape)
            in_n *= static_cast<size_t>(e);
        for (int64_t e : out_shape)
            out_n *= static_cast<size_t>(e);
        hktest::DeviceMemory din, didx, dout;
        ASSERT_HK_OK(din.allocate(in_n * 4));
        ASSERT_HK_OK(didx.allocate(hidx.size() * 8));
        ASSERT_HK_OK(dout.allocate(out_n * 4));
        ASSERT_HK_OK(hk_memset(din.get(), 0, in_n * 4));
        ASSERT_HK_OK(hk_memcpy_htod(didx.get(), hidx.data(), hidx.size() * 8));
        ASSERT_HK_OK(hk_memset(dout.get(), 0xFF, out_n * 4));
        hk_array in = view(din.get(), HK_FLOAT32, c.in_shape);
        hk_array idx = view(didx.as<int64_t>() + lx.offset, HK_INT64, lx.shape, lx.strides);
        hk_array out = view(dout.get(), HK_FLOAT32, out_shape);
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&in, &idx, c.axis, &out, HK_TAKE_RAISE, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), c.phrase));
        std::vector<uint32_t> got(out_n);
        ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), dout.get(), out_n * 4));
        size_t touched = 0;
        for (uint32_t v : got)
            touched += v != 0xFFFFFFFFu;
        EXPECT_EQ(touched, 0u) << "out was written although an index was out of range";
        // The same indices wrap and clip without complaint.
        EXPECT_HK_OK(hk_take(&in, &idx, c.axis, &out, HK_TAKE_WRAP, nullptr));
        EXPECT_HK_OK(hk_take(&in, &idx, c.axis, &out, HK_TAKE_CLIP, nullptr));
        EXPECT_HK_OK(hk_device_synchronize());
    }
}

} // namespace
