// test_view_check.cpp: the exact messages of the view checks every family shares (src/view_check.c),
// including where the families differ on purpose: hk_elementwise's ndim hint, hk_reduce's int64_t
// element count, hk_matmul / hk_take's int64_t running extent product, and the broadcast messages of
// hk_copy_array and hk_elementwise. None of these cases needs a GPU.
#include "reduce_reference.h"
#include "views.h"

namespace
{

alignas(64) char fake[4096];

// hkred::make_array, with C-contiguous strides unless given.
using hktest::view; // tests/c/views.h

constexpr int64_t two_31 = int64_t{1} << 31;
constexpr int64_t two_32 = int64_t{1} << 32;

} // namespace

TEST(ViewCheck, NdimMessageHintsAtHostScalarsOnlyForElementwise)
{
    hk_array in[2] = {view(fake, HK_FLOAT32, {4}), view(fake + 64, HK_FLOAT32, {4})};
    hk_array out = view(fake + 128, HK_FLOAT32, {4});
    in[0].ndim = HK_MAX_DIMS + 1;
    EXPECT_EQ(hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(),
                 "hk_elementwise: inputs[0].ndim is 33; it must be 0..32 (or HK_HOST_SCALAR for an input)");
    in[0].ndim = 1;
    out.ndim = -3;
    EXPECT_EQ(hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_elementwise: out.ndim is -3; it must be 0..32 (or HK_HOST_SCALAR for an input)");

    hk_array src = view(fake, HK_FLOAT32, {4});
    hk_array dst = view(fake + 128, HK_FLOAT32, {4});
    src.ndim = HK_MAX_DIMS + 1;
    EXPECT_EQ(hk_copy_array(&src, &dst, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_copy_array: src.ndim is 33; it must be 0..32");
    hk_array keys = view(fake + 128, HK_FLOAT32, {4});
    EXPECT_EQ(hk_sort(&src, &keys, nullptr, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_sort: in.ndim is 33; it must be 0..32");
}

TEST(ViewCheck, UnknownDtype)
{
    hk_array in = view(fake, HK_FLOAT32, {4});
    hk_array keys = view(fake + 128, static_cast<hk_dtype>(99), {4});
    EXPECT_EQ(hk_sort(&in, &keys, nullptr, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_sort: keys_out.dtype 99 is not a hk_dtype");
    keys.dtype = static_cast<hk_dtype>(-1);
    EXPECT_EQ(hk_sort(&in, &keys, nullptr, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_sort: keys_out.dtype -1 is not a hk_dtype");
    hk_array out = view(fake + 128, HK_FLOAT32, {4});
    in.dtype = static_cast<hk_dtype>(HK_DTYPE_COUNT);
    EXPECT_EQ(hk_scan(HK_SCAN_CUMSUM, &in, 0, &out, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_scan: in.dtype 14 is not a hk_dtype");
}

TEST(ViewCheck, ElementCountsBeyondSizeT)
{
    // 2^64 elements (zero strides keep the byte range small).
    hk_array huge = view(fake, HK_FLOAT32, {two_32, two_32}, {0, 0});
    hk_array dst = view(fake + 128, HK_FLOAT32, {4});
    EXPECT_EQ(hk_copy_array(&huge, &dst, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_copy_array: src has more elements than size_t can count");
    hk_array out = view(fake + 128, HK_FLOAT32, {});
    EXPECT_EQ(hk_reduce(HK_REDUCE_SUM, &huge, 3, &out, 0, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_reduce: in has more elements than size_t can count");
    hk_array b = view(fake + 64, HK_FLOAT32, {4, 4});
    EXPECT_EQ(hk_matmul(&huge, &b, &dst, HK_MATMUL_AUTO, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_matmul: a has more elements than hipkit can count");
}

TEST(ViewCheck, ElementCountsBeyondInt64)
{
    // 2^63 elements: size_t counts them, int64_t does not.
    hk_array huge = view(fake, HK_FLOAT32, {two_32, two_31}, {0, 0});
    hk_array out = view(fake + 128, HK_FLOAT32, {});
    EXPECT_EQ(hk_reduce(HK_REDUCE_SUM, &huge, 3, &out, 0, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_reduce: in has 9223372036854775808 elements, more than int64_t counts");
    hk_array b = view(fake + 64, HK_FLOAT32, {4, 4});
    hk_array mm_out = view(fake + 128, HK_FLOAT32, {4, 4});
    EXPECT_EQ(hk_matmul(&huge, &b, &mm_out, HK_MATMUL_AUTO, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_matmul: a has more elements than hipkit can count");
    hk_array idx = view(fake + 256, HK_INT64, {2});
    EXPECT_EQ(hk_take(&huge, &idx, 0, &mm_out, HK_TAKE_CLIP, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_take: in has more elements than hipkit can count");

    // Empty, but a running product of the extents passes INT64_MAX: hk_reduce and hk_copy_array see
    // an empty view; hk_matmul and hk_take refuse it.
    hk_array empty = view(fake, HK_FLOAT32, {two_32, two_31, 0}, {0, 0, 1});
    hk_array empty_dst = view(fake + 128, HK_FLOAT32, {two_32, two_31, 0}, {0, 0, 1});
    EXPECT_EQ(hk_copy_array(&empty, &empty_dst, nullptr), HK_SUCCESS) << hk_last_error();
    EXPECT_EQ(hk_matmul(&b, &empty, &mm_out, HK_MATMUL_AUTO, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_matmul: b has more elements than hipkit can count");
}

TEST(ViewCheck, BroadcastMessages)
{
    hk_array src = view(fake, HK_FLOAT32, {3, 4});
    hk_array dst = view(fake + 128, HK_FLOAT32, {4});
    EXPECT_EQ(hk_copy_array(&src, &dst, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_copy_array: src has 2 dimensions, more than dst's 1");
    src = view(fake, HK_FLOAT32, {3});
    dst = view(fake + 128, HK_FLOAT32, {2, 4});
    EXPECT_EQ(hk_copy_array(&src, &dst, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(), "hk_copy_array: src's dimension 0 (3) does not broadcast to dst's dimension 1 (4)");

    hk_array in[2] = {view(fake, HK_FLOAT32, {2, 2}), view(fake + 64, HK_FLOAT32, {2, 2, 2})};
    hk_array out = view(fake + 256, HK_FLOAT32, {2, 2});
    EXPECT_EQ(hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(),
                 "hk_elementwise: inputs[1] has 3 dimensions, more than out's 2; inputs broadcast to out's shape");
    in[1] = view(fake + 64, HK_FLOAT32, {3});
    EXPECT_EQ(hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_last_error(),
                 "hk_elementwise: inputs[1]'s dimension 0 (3) does not broadcast to out's dimension 1 (2)");
}
