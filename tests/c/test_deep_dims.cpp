// test_deep_dims.cpp: views with more dimensions than a kernel layout holds (HKK_MAX_DIMS, 8) that do
// not merge: every op family splits them into several launches or runs them through contiguous
// stand-ins (src/ops/dense.c). Each view here is a C-contiguous block read with its axes reversed
// (a full transpose): its strides grow along the dimensions, so no two neighbours merge. Fresh random
// data, outputs poisoned first, every element checked against a loop over the strides on the host.
// Runs on the current device (a GPU, else the CPU device).
#include "common.h"
#include "views.h"

#include <cmath>
#include <numeric>

namespace
{

using hktest::DeviceMemory;
using hktest::view;

// 10 dims (7776 elements), extents 2 and 3 alternating.
const std::vector<int64_t> kShape = {2, 3, 2, 3, 2, 3, 2, 3, 2, 3};

int64_t count_of(const std::vector<int64_t> &shape)
{
    return std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<int64_t>());
}

std::vector<int64_t> c_strides(const std::vector<int64_t> &shape)
{
    std::vector<int64_t> s(shape.size());
    int64_t step = 1;
    for (size_t k = shape.size(); k-- > 0;) {
        s[k] = step;
        step *= shape[k];
    }
    return s;
}

// The transpose of a C-contiguous block of shape `base`: shape and strides reversed.
struct Transposed {
    std::vector<int64_t> shape, strides;
};
Transposed transposed(const std::vector<int64_t> &base)
{
    Transposed t{std::vector<int64_t>(base.rbegin(), base.rend()), c_strides(base)};
    std::reverse(t.strides.begin(), t.strides.end());
    return t;
}

// The offset of C-order position i over shape with strides.
int64_t offset_of(int64_t i, const std::vector<int64_t> &shape, const std::vector<int64_t> &strides)
{
    int64_t off = 0;
    for (size_t k = shape.size(); k-- > 0;) {
        off += (i % shape[k]) * strides[k];
        i /= shape[k];
    }
    return off;
}

template <typename T> std::vector<T> gather(const std::vector<T> &base, const Transposed &t)
{
    std::vector<T> out((size_t)count_of(t.shape));
    for (size_t i = 0; i < out.size(); i++)
        out[i] = base[(size_t)offset_of((int64_t)i, t.shape, t.strides)];
    return out;
}

template <typename T> void upload(DeviceMemory &m, const std::vector<T> &v)
{
    ASSERT_HK_OK(m.allocate(std::max<size_t>(1, v.size()) * sizeof(T)));
    ASSERT_HK_OK(hk_memcpy_htod(m.get(), v.data(), v.size() * sizeof(T)));
}

template <typename T> std::vector<T> download(const DeviceMemory &m, size_t n)
{
    std::vector<T> v(n);
    EXPECT_HK_OK(hk_stream_synchronize(nullptr));
    EXPECT_HK_OK(hk_memcpy_dtoh(v.data(), m.get(), n * sizeof(T)));
    return v;
}

std::vector<float> random_floats(size_t n, uint64_t seed)
{
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto &x : v)
        x = u(gen);
    return v;
}

void poison(DeviceMemory &m, size_t bytes)
{
    ASSERT_HK_OK(hk_memset(m.get(), 0xFF, bytes)); // NaN for floats, -1 for integers
}

TEST(DeepDims, CopyBothWays)
{
    const int64_t n = count_of(kShape);
    const auto host = random_floats((size_t)n, hktest::fresh_seed());
    DeviceMemory src, dst;
    upload(src, host);
    ASSERT_HK_OK(dst.allocate((size_t)n * 4));
    const Transposed t = transposed(kShape);
    // transposed source into a contiguous destination
    poison(dst, (size_t)n * 4);
    hk_array s = view(src.get(), HK_FLOAT32, t.shape, t.strides), d = view(dst.get(), HK_FLOAT32, t.shape);
    ASSERT_HK_OK(hk_copy_array(&s, &d, nullptr));
    EXPECT_EQ(download<float>(dst, (size_t)n), gather(host, t));
    // contiguous source into a transposed destination, converted to float64
    DeviceMemory wide;
    ASSERT_HK_OK(wide.allocate((size_t)n * 8));
    poison(wide, (size_t)n * 8);
    hk_array s2 = view(dst.get(), HK_FLOAT32, t.shape), d2 = view(wide.get(), HK_FLOAT64, t.shape, t.strides);
    ASSERT_HK_OK(hk_copy_array(&s2, &d2, nullptr));
    const auto got = download<double>(wide, (size_t)n);
    for (int64_t i = 0; i < n; i++)
        ASSERT_EQ(got[(size_t)i], (double)host[(size_t)i]) << i; // the transpose of the transpose
}

TEST(DeepDims, ElementwiseAndFill)
{
    const int64_t n = count_of(kShape);
    const auto a = random_floats((size_t)n, hktest::fresh_seed()), b = random_floats((size_t)n, hktest::fresh_seed());
    DeviceMemory da, db, dout;
    upload(da, a);
    upload(db, b);
    ASSERT_HK_OK(dout.allocate((size_t)n * 4));
    poison(dout, (size_t)n * 4);
    const Transposed t = transposed(kShape);
    hk_array in[2] = {view(da.get(), HK_FLOAT32, t.shape, t.strides), view(db.get(), HK_FLOAT32, t.shape)};
    hk_array out = view(dout.get(), HK_FLOAT32, t.shape);
    ASSERT_HK_OK(hk_elementwise(HK_OP_ADD, in, 2, &out, nullptr));
    const auto at = gather(a, t);
    auto got = download<float>(dout, (size_t)n);
    for (int64_t i = 0; i < n; i++)
        ASSERT_EQ(got[(size_t)i], at[(size_t)i] + b[(size_t)i]) << i;
    // out transposed, with a host scalar
    poison(dout, (size_t)n * 4);
    const float two = 2.0f;
    hk_array in2[2] = {view(db.get(), HK_FLOAT32, t.shape), view((void *)&two, HK_FLOAT32, {})};
    in2[1].ndim = HK_HOST_SCALAR;
    hk_array out_t = view(dout.get(), HK_FLOAT32, t.shape, t.strides);
    ASSERT_HK_OK(hk_elementwise(HK_OP_MULTIPLY, in2, 2, &out_t, nullptr));
    got = download<float>(dout, (size_t)n);
    const auto gt = gather(got, t); // out_t read back in its own C order
    for (int64_t i = 0; i < n; i++)
        ASSERT_EQ(gt[(size_t)i], b[(size_t)i] * 2.0f) << i;
    // fill of every other element along each of 9 dims: nothing between them is touched
    const std::vector<int64_t> base(9, 4);
    const int64_t nb = count_of(base);
    DeviceMemory dfill;
    std::vector<float> zeros((size_t)nb, 0.0f);
    upload(dfill, zeros);
    std::vector<int64_t> shape(9, 2), strides = c_strides(base);
    for (auto &s : strides)
        s *= 2;
    hk_array spread = view(dfill.get(), HK_FLOAT32, shape, strides);
    const float seven = 7.0f;
    ASSERT_HK_OK(hk_fill(&spread, &seven, nullptr));
    const auto filled = download<float>(dfill, (size_t)nb);
    std::vector<float> want((size_t)nb, 0.0f);
    for (int64_t i = 0; i < count_of(shape); i++)
        want[(size_t)offset_of(i, shape, strides)] = 7.0f;
    EXPECT_EQ(filled, want);
}

TEST(DeepDims, Reductions)
{
    const int64_t n = count_of(kShape);
    const auto host = random_floats((size_t)n, hktest::fresh_seed());
    DeviceMemory din, dout;
    upload(din, host);
    ASSERT_HK_OK(dout.allocate((size_t)n * 8));
    const Transposed t = transposed(kShape);
    const auto x = gather(host, t); // the view's elements in C order
    hk_array in = view(din.get(), HK_FLOAT32, t.shape, t.strides);
    // sum over axis 0: 9 kept dims whose strides in and out run opposite ways
    const int64_t e0 = t.shape[0], rest = n / e0;
    std::vector<int64_t> kept_shape(t.shape.begin() + 1, t.shape.end());
    poison(dout, (size_t)n * 8);
    hk_array out = view(dout.get(), HK_FLOAT32, kept_shape);
    ASSERT_HK_OK(hk_reduce(HK_REDUCE_SUM, &in, 1u, &out, 0, nullptr));
    auto got = download<float>(dout, (size_t)rest);
    for (int64_t j = 0; j < rest; j++) {
        double want = 0;
        for (int64_t i = 0; i < e0; i++)
            want += x[(size_t)(i * rest + j)];
        ASSERT_NEAR(got[(size_t)j], want, 1e-5) << j;
    }
    // var over axis 0 with ddof 1, keepdims, into a transposed out
    std::vector<int64_t> keep_shape = t.shape;
    keep_shape[0] = 1;
    const Transposed ot = transposed(std::vector<int64_t>(keep_shape.rbegin(), keep_shape.rend()));
    poison(dout, (size_t)n * 8);
    hk_array out_k = view(dout.get(), HK_FLOAT32, ot.shape, ot.strides);
    ASSERT_HK_OK(hk_reduce(HK_REDUCE_VAR, &in, 1u, &out_k, 1, nullptr));
    got = download<float>(dout, (size_t)rest);
    const auto gv = gather(got, ot);
    for (int64_t j = 0; j < rest; j++) {
        double mean = 0, ss = 0;
        for (int64_t i = 0; i < e0; i++)
            mean += x[(size_t)(i * rest + j)];
        mean /= (double)e0;
        for (int64_t i = 0; i < e0; i++)
            ss += std::pow(x[(size_t)(i * rest + j)] - mean, 2);
        ASSERT_NEAR(gv[(size_t)j], ss / (double)(e0 - 1), 1e-5) << j;
    }
    // argmax over all axes: C order over 10 unmerged reduced dims
    poison(dout, 8);
    hk_array scalar = view(dout.get(), HK_INT64, {});
    ASSERT_HK_OK(hk_reduce(HK_REDUCE_ARGMAX, &in, (1u << t.shape.size()) - 1, &scalar, 0, nullptr));
    const auto best = download<int64_t>(dout, 1);
    EXPECT_EQ(best[0], std::max_element(x.begin(), x.end()) - x.begin());
    // argmin over axis 0
    poison(dout, (size_t)rest * 8);
    hk_array idx_out = view(dout.get(), HK_INT64, kept_shape);
    ASSERT_HK_OK(hk_reduce(HK_REDUCE_ARGMIN, &in, 1u, &idx_out, 0, nullptr));
    const auto am = download<int64_t>(dout, (size_t)rest);
    for (int64_t j = 0; j < rest; j++) {
        int64_t bi = 0;
        for (int64_t i = 1; i < e0; i++)
            if (x[(size_t)(i * rest + j)] < x[(size_t)(bi * rest + j)])
                bi = i;
        ASSERT_EQ(am[(size_t)j], bi) << j;
    }
}

TEST(DeepDims, ScanAndSort)
{
    const int64_t n = count_of(kShape);
    const auto host = random_floats((size_t)n, hktest::fresh_seed());
    DeviceMemory din, dout, didx;
    upload(din, host);
    ASSERT_HK_OK(dout.allocate((size_t)n * 4));
    ASSERT_HK_OK(didx.allocate((size_t)n * 8));
    const Transposed t = transposed(kShape);
    const auto x = gather(host, t);
    hk_array in = view(din.get(), HK_FLOAT32, t.shape, t.strides);
    // cumsum along axis 0: 9 row dims, unmerged
    poison(dout, (size_t)n * 4);
    hk_array out = view(dout.get(), HK_FLOAT32, t.shape);
    ASSERT_HK_OK(hk_scan(HK_SCAN_CUMSUM, &in, 0, &out, nullptr));
    auto got = download<float>(dout, (size_t)n);
    const int64_t e0 = t.shape[0], rest = n / e0;
    for (int64_t j = 0; j < rest; j++) {
        double acc = 0;
        for (int64_t i = 0; i < e0; i++) {
            acc += x[(size_t)(i * rest + j)];
            ASSERT_NEAR(got[(size_t)(i * rest + j)], acc, 1e-5) << i << ", " << j;
        }
    }
    // sort and argsort along the last axis
    poison(dout, (size_t)n * 4);
    poison(didx, (size_t)n * 8);
    hk_array idx = view(didx.get(), HK_INT64, t.shape);
    ASSERT_HK_OK(hk_sort(&in, &out, &idx, nullptr));
    got = download<float>(dout, (size_t)n);
    const auto gi = download<int64_t>(didx, (size_t)n);
    const int64_t len = t.shape.back();
    for (int64_t r = 0; r < n / len; r++) {
        std::vector<float> row(x.begin() + r * len, x.begin() + (r + 1) * len);
        std::vector<float> sorted = row;
        std::stable_sort(sorted.begin(), sorted.end());
        for (int64_t j = 0; j < len; j++) {
            ASSERT_EQ(got[(size_t)(r * len + j)], sorted[(size_t)j]) << r;
            ASSERT_EQ(row[(size_t)gi[(size_t)(r * len + j)]], sorted[(size_t)j]) << r;
        }
    }
}

TEST(DeepDims, TakeAndPut)
{
    const int64_t n = count_of(kShape);
    const auto host = random_floats((size_t)n, hktest::fresh_seed());
    DeviceMemory din, dout, dind;
    upload(din, host);
    const Transposed t = transposed(kShape);
    const auto x = gather(host, t);
    // take along axis 1 (extent 2) with 3 indices, one negative
    const std::vector<int64_t> picks = {1, 0, -1};
    upload(dind, picks);
    std::vector<int64_t> out_shape = t.shape;
    out_shape[1] = 3;
    const int64_t n_out = count_of(out_shape);
    ASSERT_HK_OK(dout.allocate((size_t)n_out * 4));
    poison(dout, (size_t)n_out * 4);
    hk_array in = view(din.get(), HK_FLOAT32, t.shape, t.strides);
    hk_array ind = view(dind.get(), HK_INT64, {3});
    const Transposed ot = transposed(std::vector<int64_t>(out_shape.rbegin(), out_shape.rend()));
    hk_array out = view(dout.get(), HK_FLOAT32, ot.shape, ot.strides); // out deep too
    ASSERT_HK_OK(hk_take(&in, &ind, 1, &out, HK_TAKE_RAISE, nullptr));
    const auto got = gather(download<float>(dout, (size_t)n_out), ot);
    const std::vector<int64_t> xs = c_strides(t.shape), os = c_strides(out_shape);
    for (int64_t i = 0; i < n_out; i++) {
        int64_t rem = i, src = 0;
        for (size_t k = 0; k < out_shape.size(); k++) {
            int64_t c = rem / os[k];
            rem %= os[k];
            if (k == 1)
                c = picks[(size_t)c] < 0 ? picks[(size_t)c] + t.shape[1] : picks[(size_t)c];
            src += c * xs[k];
        }
        ASSERT_EQ(got[(size_t)i], x[(size_t)src]) << i;
    }
    // RAISE still names a bad index
    const std::vector<int64_t> bad = {0, 5, 1};
    DeviceMemory dbad;
    upload(dbad, bad);
    hk_array bad_ind = view(dbad.get(), HK_INT64, {3});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_take", hk_take(&in, &bad_ind, 1, &out, HK_TAKE_RAISE, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "index 5 is out of bounds"));
    // put the taken values back along axis 1 of a zeroed transposed copy (indices 1, 0 only)
    const std::vector<int64_t> two = {1, 0};
    DeviceMemory dtwo, dvals, dtarget;
    upload(dtwo, two);
    std::vector<float> zeros((size_t)n, 0.0f);
    upload(dtarget, zeros);
    hk_array target = view(dtarget.get(), HK_FLOAT32, t.shape, t.strides);
    hk_array two_ind = view(dtwo.get(), HK_INT64, {2});
    std::vector<int64_t> v_shape = t.shape; // values: the view's elements with axis 1 swapped
    std::vector<float> vals((size_t)n);
    for (int64_t i = 0; i < n; i++) {
        int64_t rem = i, src = 0;
        for (size_t k = 0; k < v_shape.size(); k++) {
            int64_t c = rem / xs[k];
            rem %= xs[k];
            if (k == 1)
                c = 1 - c;
            src += c * xs[k];
        }
        vals[(size_t)i] = x[(size_t)src];
    }
    const Transposed vt = transposed(std::vector<int64_t>(v_shape.rbegin(), v_shape.rend()));
    std::vector<float> vals_mem((size_t)n);
    for (int64_t i = 0; i < n; i++)
        vals_mem[(size_t)offset_of(i, vt.shape, vt.strides)] = vals[(size_t)i];
    upload(dvals, vals_mem);
    hk_array values = view(dvals.get(), HK_FLOAT32, vt.shape, vt.strides);
    ASSERT_HK_OK(hk_put(&values, &two_ind, 1, &target, HK_TAKE_RAISE, nullptr));
    EXPECT_EQ(gather(download<float>(dtarget, (size_t)n), t), x);
}

TEST(DeepDims, BatchedMatmul)
{
    // batch of 8 dims (2 each, transposed in memory) of 3 x 4 @ 4 x 5
    const std::vector<int64_t> batch(8, 2);
    const int64_t nb = count_of(batch), m = 3, k = 4, nn = 5;
    std::vector<int64_t> b_shape = batch, o_shape = batch;
    const auto a_host = random_floats((size_t)(nb * m * k), hktest::fresh_seed());
    const auto b_host = random_floats((size_t)(nb * k * nn), hktest::fresh_seed());
    DeviceMemory da, db, dout;
    upload(da, a_host);
    upload(db, b_host);
    ASSERT_HK_OK(dout.allocate((size_t)(nb * m * nn) * 4));
    poison(dout, (size_t)(nb * m * nn) * 4);
    // a: the transpose of a C-contiguous (k, m, b7, ..., b0) block, i.e. shape (b0..b7, m, k)
    std::vector<int64_t> full_a = {k, m};
    full_a.insert(full_a.end(), batch.begin(), batch.end());
    const Transposed at = transposed(full_a);
    b_shape.insert(b_shape.end(), {k, nn});
    o_shape.insert(o_shape.end(), {m, nn});
    hk_array a = view(da.get(), HK_FLOAT32, at.shape, at.strides);
    hk_array b = view(db.get(), HK_FLOAT32, b_shape), out = view(dout.get(), HK_FLOAT32, o_shape);
    ASSERT_HK_OK(hk_matmul(&a, &b, &out, HK_MATMUL_OWN, nullptr));
    const auto ag = gather(a_host, at);
    const auto got = download<float>(dout, (size_t)(nb * m * nn));
    for (int64_t z = 0; z < nb; z++)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < nn; j++) {
                double want = 0;
                for (int64_t p = 0; p < k; p++)
                    want += (double)ag[(size_t)((z * m + i) * k + p)] * b_host[(size_t)((z * k + p) * nn + j)];
                ASSERT_NEAR(got[(size_t)((z * m + i) * nn + j)], want, 1e-4) << z << " " << i << " " << j;
            }
}

TEST(DeepDims, MaskSelect)
{
    const int64_t n = count_of(kShape);
    const auto host = random_floats((size_t)n, hktest::fresh_seed());
    std::vector<uint8_t> mask_host((size_t)n);
    for (int64_t i = 0; i < n; i++)
        mask_host[(size_t)i] = host[(size_t)((i * 7919) % n)] > 0.0f;
    DeviceMemory din, dmask, dout;
    upload(din, host);
    upload(dmask, mask_host);
    const Transposed t = transposed(kShape);
    hk_array in = view(din.get(), HK_FLOAT32, t.shape, t.strides), mask = view(dmask.get(), HK_BOOL, t.shape, t.strides);
    int64_t count = -1;
    ASSERT_HK_OK(hk_mask_count(&mask, &count, nullptr));
    const auto x = gather(host, t);
    const auto mk = gather(mask_host, t);
    std::vector<float> want;
    for (int64_t i = 0; i < n; i++)
        if (mk[(size_t)i])
            want.push_back(x[(size_t)i]);
    ASSERT_EQ(count, (int64_t)want.size());
    ASSERT_HK_OK(dout.allocate((size_t)count * 4 + 4));
    poison(dout, (size_t)count * 4 + 4);
    hk_array out = view(dout.get(), HK_FLOAT32, {count});
    ASSERT_HK_OK(hk_mask_select(&in, &mask, &out, nullptr));
    EXPECT_EQ(download<float>(dout, (size_t)count), want);
}

TEST(DeepDims, MoreThanHkMaxDimsIsRefused)
{
    DeviceMemory m;
    ASSERT_HK_OK(m.allocate(64));
    std::vector<int64_t> shape(HK_MAX_DIMS, 1);
    hk_array a = view(m.get(), HK_FLOAT32, shape), b = a;
    ASSERT_HK_OK(hk_copy_array(&a, &b, nullptr)); // 32 dims are fine
    a.ndim = HK_MAX_DIMS + 1;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_copy_array", hk_copy_array(&a, &b, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "0..32"));
}

} // namespace
