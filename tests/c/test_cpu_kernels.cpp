// test_cpu_kernels.cpp: user kernels on the CPU device: what its prelude and block runner give
// (barriers, shared memory per block, 32-lane warps, atomics, grid-stride loops, early returns,
// asserts that stop a kernel with a sentence), how its compiler is found and refused, what it
// refuses by name, and its disk cache. Runs on every machine: the CPU device is always there.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common.h"

namespace
{

int cpu_ordinal()
{
    int count = 0;
    EXPECT_EQ(hk_device_count(&count), HK_SUCCESS);
    return count - 1;
}

hk_arg ptr(const void *p)
{
    hk_arg a{};
    a.type = HK_ARG_POINTER;
    a.value.pointer = p;
    return a;
}

hk_arg i32(int64_t v)
{
    hk_arg a{};
    a.type = HK_ARG_INT32;
    a.value.i64 = v;
    return a;
}

std::string error_text()
{
    return hk_last_error();
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

// The CPU device current; programs compiled for it, loaded, and their kernels launched.
class CpuKernels : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ASSERT_HK_OK(hk_device_get(&previous_));
        ASSERT_HK_OK(hk_device_set(cpu_ordinal()));
    }
    void TearDown() override
    {
        for (hk_module m : modules_)
            EXPECT_HK_OK(hk_module_unload(m));
        for (hk_program p : programs_)
            EXPECT_HK_OK(hk_program_destroy(p));
        EXPECT_HK_OK(hk_device_set(previous_));
    }
    // Compiled for the current device (the CPU device: target "host") and loaded.
    hk_module load(const char *source, const char *name = "test.hip")
    {
        hk_program p = nullptr;
        hk_module m = nullptr;
        EXPECT_EQ(hk_program_compile(&p, source, name, nullptr, 0, nullptr), HK_SUCCESS) << hk_last_error();
        if (!p)
            return nullptr;
        programs_.push_back(p);
        EXPECT_EQ(hk_module_load(&m, p), HK_SUCCESS) << hk_last_error();
        if (m)
            modules_.push_back(m);
        return m;
    }
    hk_kernel kernel(hk_module m, const char *name)
    {
        hk_kernel k = nullptr;
        EXPECT_EQ(hk_module_get_kernel(&k, m, name), HK_SUCCESS) << hk_last_error();
        return k;
    }
    // The launch's status, or the first failure it leaves for the next synchronisation.
    static hk_status run(hk_kernel k, hk_dim3 grid, hk_dim3 block, std::vector<hk_arg> args, size_t shared = 0)
    {
        hk_status s = hk_kernel_launch(k, grid, block, shared, nullptr, args.data(), (int)args.size());
        return s != HK_SUCCESS ? s : hk_device_synchronize();
    }
    template <typename T> static std::vector<T> read(const hktest::DeviceMemory &d, size_t n)
    {
        std::vector<T> out(n);
        EXPECT_EQ(hk_memcpy_dtoh(out.data(), d.get(), n * sizeof(T)), HK_SUCCESS) << hk_last_error();
        return out;
    }
    template <typename T> static void write(hktest::DeviceMemory &d, const std::vector<T> &v)
    {
        ASSERT_HK_OK(d.allocate(v.size() * sizeof(T) + 16));
        ASSERT_HK_OK(hk_memcpy_htod(d.get(), v.data(), v.size() * sizeof(T)));
    }
    int previous_ = 0;
    std::vector<hk_program> programs_;
    std::vector<hk_module> modules_;
};

// ------------------------------------------------------------------ barriers

const char *const kReverse = R"(
extern "C" __global__ void reverse(const int *in, int *out)
{
    __shared__ int tile[1024];
    const int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int n = blockDim.x * blockDim.y * blockDim.z;
    const int base = blockIdx.x * n;
    tile[t] = in[base + t];
    __syncthreads();
    out[base + t] = tile[n - 1 - t];
}
)";

TEST_F(CpuKernels, BarriersOrderSharedMemoryAtEveryBlockShape)
{
    hk_kernel k = kernel(load(kReverse), "reverse");
    for (hk_dim3 block : {hk_dim3{1, 1, 1}, hk_dim3{7, 1, 1}, hk_dim3{32, 1, 1}, hk_dim3{33, 1, 1},
                          hk_dim3{256, 1, 1}, hk_dim3{1024, 1, 1}, hk_dim3{16, 8, 1}, hk_dim3{5, 3, 7}}) {
        const int n = (int)(block.x * block.y * block.z), blocks = 13;
        SCOPED_TRACE("block " + std::to_string(block.x) + "x" + std::to_string(block.y) + "x" + std::to_string(block.z));
        std::vector<int> in(n * blocks);
        for (size_t i = 0; i < in.size(); i++)
            in[i] = (int)i * 7 + 1;
        hktest::DeviceMemory din, dout;
        write(din, in);
        write(dout, std::vector<int>(in.size(), -1));
        ASSERT_HK_OK(run(k, hk_dim3{(unsigned)blocks, 1, 1}, block, {ptr(din.get()), ptr(dout.get())}));
        std::vector<int> got = read<int>(dout, in.size());
        for (int b = 0; b < blocks; b++)
            for (int t = 0; t < n; t++)
                ASSERT_EQ(got[b * n + t], in[b * n + n - 1 - t]) << "block " << b << " thread " << t;
    }
}

TEST_F(CpuKernels, SharedMemoryBelongsToItsBlock)
{
    // Many blocks at once on every core, each filling its shared array with its own number over
    // several rounds of barriers: a block that saw another's writes would say so.
    hk_module m = load(R"(
extern "C" __global__ void own(int *bad)
{
    __shared__ int mine[256];
    for (int round = 0; round < 8; round++) {
        mine[threadIdx.x] = blockIdx.x * 1000 + round;
        __syncthreads();
        if (mine[(threadIdx.x + 1) % blockDim.x] != (int)blockIdx.x * 1000 + round)
            atomicAdd(bad, 1);
        __syncthreads();
    }
}
)");
    hktest::DeviceMemory bad;
    write(bad, std::vector<int>{0});
    ASSERT_HK_OK(run(kernel(m, "own"), hk_dim3{200, 1, 1}, hk_dim3{256, 1, 1}, {ptr(bad.get())}));
    EXPECT_EQ(read<int>(bad, 1)[0], 0);
}

TEST_F(CpuKernels, DynamicSharedMemoryAtNamespaceScopeAndThroughHipsMacro)
{
    hk_module m = load(R"(
extern __shared__ double scratch[];
extern "C" __global__ void twice(double *out)
{
    HIP_DYNAMIC_SHARED(float, mine)
    scratch[threadIdx.x] = threadIdx.x;
    mine[threadIdx.x] = 2.0f;
    __syncthreads();
    out[threadIdx.x] = scratch[blockDim.x - 1 - threadIdx.x] * mine[threadIdx.x];
}
)");
    hktest::DeviceMemory out;
    ASSERT_HK_OK(out.allocate(512 * 8));
    ASSERT_HK_OK(run(kernel(m, "twice"), hk_dim3{1, 1, 1}, hk_dim3{512, 1, 1}, {ptr(out.get())}, 512 * 8));
    std::vector<double> got = read<double>(out, 512);
    for (int t = 0; t < 512; t++)
        ASSERT_EQ(got[t], 2.0 * (511 - t)) << t;
}

TEST_F(CpuKernels, SyncthreadsCountAndAndOr)
{
    hk_module m = load(R"(
extern "C" __global__ void votes(int *out)
{
    const int count = __syncthreads_count(threadIdx.x % 3 == 0);
    const int all = __syncthreads_and(threadIdx.x < 1000);
    const int any = __syncthreads_or(threadIdx.x == 77);
    const int none = __syncthreads_or(0);
    if (threadIdx.x == 5) {
        out[0] = count;
        out[1] = all;
        out[2] = any;
        out[3] = none;
    }
}
)");
    hktest::DeviceMemory out;
    write(out, std::vector<int>{-1, -1, -1, -1});
    ASSERT_HK_OK(run(kernel(m, "votes"), hk_dim3{1, 1, 1}, hk_dim3{100, 1, 1}, {ptr(out.get())}));
    EXPECT_EQ(read<int>(out, 4), (std::vector<int>{34, 1, 1, 0}));
}

TEST_F(CpuKernels, ThreadsThatReturnNoLongerCountAtBarriers)
{
    // The first five threads return before the block's first barrier (the block turns to fibers
    // at thread 5), the last ones after it; the rest meet at both barriers.
    hk_module m = load(R"(
extern "C" __global__ void early(int *out)
{
    __shared__ int seen[64];
    if (threadIdx.x < 5)
        return;
    seen[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x >= 60)
        return;
    const int other = seen[threadIdx.x == 59 ? 5 : threadIdx.x + 1];
    __syncthreads();
    out[threadIdx.x] = other;
}
)");
    hktest::DeviceMemory out;
    write(out, std::vector<int>(64, -1));
    ASSERT_HK_OK(run(kernel(m, "early"), hk_dim3{3, 1, 1}, hk_dim3{64, 1, 1}, {ptr(out.get())}));
    std::vector<int> got = read<int>(out, 64);
    for (int t = 0; t < 64; t++)
        EXPECT_EQ(got[t], t < 5 || t >= 60 ? -1 : t == 59 ? 5 : t + 1) << t;
}

// ---------------------------------------------------------------- warps

const char *const kWarps = R"(
struct pair { int a, b; };
extern "C" __global__ void lanes(int *out, int n)
{
    const int t = threadIdx.x, lane = t % warpSize;
    int *o = out + t * 12;
    o[0] = __shfl_down_sync(0xffffffffu, t, 3);
    o[1] = __shfl_up_sync(0xffffffffu, t, 5);
    o[2] = __shfl_xor_sync(0xffffffffu, t, 6);
    o[3] = __shfl_sync(0xffffffffu, t, 7);
    o[4] = __shfl_down(t, 2, 8);                            // within segments of 8 lanes
    o[5] = (int)__ballot_sync(0xffffffffu, lane % 4 == 1);
    o[6] = __any_sync(0xffffffffu, t == 36) + 2 * __all_sync(0xffffffffu, lane < 32);
    o[7] = (int)__match_any_sync(0xffffffffu, lane / 8);
    o[8] = __reduce_add_sync(0xffffffffu, lane);
    o[9] = (int)__activemask();
    const pair p = __shfl_sync(0xffffffffu, pair{t, -t}, 0);  // an 8-byte struct moves whole
    o[10] = p.a + p.b * 1000;
    const int lanes_here = min(32, n - (t - lane));               // the last warp is partial
    o[11] = __shfl_down_sync(0xffffffffu, t * 0.5, 1) == (lane + 1 < lanes_here ? t + 1 : t) * 0.5;
}
)";

TEST_F(CpuKernels, WarpsHave32LanesWithTheirShufflesVotesAndMatches)
{
    hk_kernel k = kernel(load(kWarps), "lanes");
    const int n = 40; // a full warp and a partial one of 8 lanes
    hktest::DeviceMemory out;
    write(out, std::vector<int>(n * 12, -999));
    ASSERT_HK_OK(run(k, hk_dim3{1, 1, 1}, hk_dim3{(unsigned)n, 1, 1}, {ptr(out.get()), i32(n)}));
    std::vector<int> got = read<int>(out, n * 12);
    for (int t = 0; t < n; t++) {
        const int lane = t % 32, base = t - lane, lanes = std::min(32, n - base);
        auto there = [&](int l) { return l >= 0 && l < lanes; };
        const int *o = &got[t * 12];
        SCOPED_TRACE("thread " + std::to_string(t));
        EXPECT_EQ(o[0], there(lane + 3) ? t + 3 : t);
        EXPECT_EQ(o[1], lane >= 5 ? t - 5 : t);
        EXPECT_EQ(o[2], there(lane ^ 6) ? base + (lane ^ 6) : t);
        EXPECT_EQ(o[3], base + 7);
        EXPECT_EQ(o[4], lane % 8 + 2 < 8 && there(lane + 2) ? t + 2 : t);
        unsigned ballot = 0, present = 0;
        for (int l = 0; l < lanes; l++) {
            ballot |= (l % 4 == 1 ? 1u : 0u) << l;
            present |= 1u << l;
        }
        EXPECT_EQ((unsigned)o[5], ballot);
        EXPECT_EQ(o[6], (base == 32 ? 1 : 0) + 2);
        EXPECT_EQ((unsigned)o[7], (0xffu << (lane / 8 * 8)) & present);
        EXPECT_EQ(o[8], lanes * (lanes - 1) / 2);
        EXPECT_EQ((unsigned)o[9], present);
        EXPECT_EQ(o[10], base - 1000 * base);
        EXPECT_EQ(o[11], 1);
    }
}

TEST_F(CpuKernels, AWarpSumWrittenFor32LaneWarpsIsRight)
{
    // The loop of NVIDIA-only code (16, 8, ... 1 with a full mask) and the portable one over
    // warpSize / 2 ... 1 (hk_warp_sum) give the same sums on the CPU device.
    hk_module m = load(R"(#include <hipkit_device.h>
extern "C" __global__ void sums(const float *x, float *fixed, float *portable)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    const float w = hk_warp_sum(x[i]);
    if (hk_lane() == 0) {
        fixed[i / 32] = v;
        portable[i / 32] = w;
    }
}
)");
    const int n = 4096;
    std::vector<float> x(n);
    for (int i = 0; i < n; i++)
        x[i] = (float)(i % 17) - 8.0f;
    hktest::DeviceMemory dx, fixed, portable;
    write(dx, x);
    ASSERT_HK_OK(fixed.allocate(n / 32 * 4));
    ASSERT_HK_OK(portable.allocate(n / 32 * 4));
    ASSERT_HK_OK(run(kernel(m, "sums"), hk_dim3{n / 128, 1, 1}, hk_dim3{128, 1, 1},
                     {ptr(dx.get()), ptr(fixed.get()), ptr(portable.get())}));
    std::vector<float> a = read<float>(fixed, n / 32), b = read<float>(portable, n / 32);
    for (int w = 0; w < n / 32; w++) {
        float want = 0;
        for (int l = 0; l < 32; l++)
            want += x[w * 32 + l];
        ASSERT_EQ(a[w], want) << w;
        ASSERT_EQ(b[w], want) << w;
    }
}

TEST_F(CpuKernels, AShuffleSomeLanesSkipCompletesWithTheLanesThatCame)
{
    // Lanes 0..15 shuffle among themselves (width 16) while 16..31 go straight to the barrier.
    hk_module m = load(R"(
extern "C" __global__ void half(int *out)
{
    int v = threadIdx.x;
    if (threadIdx.x % 32 < 16)
        v = __shfl_xor(v, 1, 16);
    __syncthreads();
    out[threadIdx.x] = v;
}
)");
    hktest::DeviceMemory out;
    write(out, std::vector<int>(64, -1));
    ASSERT_HK_OK(run(kernel(m, "half"), hk_dim3{1, 1, 1}, hk_dim3{64, 1, 1}, {ptr(out.get())}));
    std::vector<int> got = read<int>(out, 64);
    for (int t = 0; t < 64; t++)
        EXPECT_EQ(got[t], t % 32 < 16 ? t ^ 1 : t) << t;
}

// -------------------------------------------------------------- atomics, loops

TEST_F(CpuKernels, AtomicsFromEveryBlockAreExact)
{
    hk_module m = load(R"(
extern "C" __global__ void count(int *hist, unsigned long long *total, float *ones, double *halves, int *most,
                                 unsigned *wrap, int *cas_count, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        atomicAdd(&hist[i % 10], 1);
        atomicAdd(total, (unsigned long long)i);
        atomicAdd(ones, 1.0f);
        atomicAdd(halves, 0.5);
        atomicMax(most, i);
        atomicInc(wrap, 6u);
        int seen = *cas_count, want;
        do {
            want = seen;
            seen = atomicCAS(cas_count, want, want + 1);
        } while (seen != want);
    }
}
)");
    const int n = 100003;
    hktest::DeviceMemory hist, total, ones, halves, most, wrap, cas;
    write(hist, std::vector<int>(10, 0));
    write(total, std::vector<unsigned long long>{0});
    write(ones, std::vector<float>{0});
    write(halves, std::vector<double>{0});
    write(most, std::vector<int>{-1});
    write(wrap, std::vector<unsigned>{0});
    write(cas, std::vector<int>{0});
    ASSERT_HK_OK(run(kernel(m, "count"), hk_dim3{37, 1, 1}, hk_dim3{64, 1, 1},
                     {ptr(hist.get()), ptr(total.get()), ptr(ones.get()), ptr(halves.get()), ptr(most.get()),
                      ptr(wrap.get()), ptr(cas.get()), i32(n)}));
    std::vector<int> h = read<int>(hist, 10);
    for (int b = 0; b < 10; b++)
        EXPECT_EQ(h[b], n / 10 + (b < n % 10 ? 1 : 0)) << b;
    EXPECT_EQ(read<unsigned long long>(total, 1)[0], (unsigned long long)n * (n - 1) / 2);
    EXPECT_EQ(read<float>(ones, 1)[0], (float)n);
    EXPECT_EQ(read<double>(halves, 1)[0], n * 0.5);
    EXPECT_EQ(read<int>(most, 1)[0], n - 1);
    EXPECT_EQ(read<unsigned>(wrap, 1)[0], (unsigned)(n % 7));
    EXPECT_EQ(read<int>(cas, 1)[0], n);
}

TEST_F(CpuKernels, GridStrideLoopsCoverEveryElementOnce)
{
    hk_module m = load(R"(#include <hipkit_device.h>
extern "C" __global__ void add_one(int *x, long long n)
{
    for (long long i = (long long)hk_global_index(); i < n; i += (long long)hk_grid_stride())
        x[i] += 1;
}
)");
    hk_kernel k = kernel(m, "add_one");
    for (long long n : {1LL, 7LL, 1000003LL}) {
        hktest::DeviceMemory x;
        write(x, std::vector<int>((size_t)n, 41));
        hk_arg args[] = {ptr(x.get()), {HK_ARG_INT64, {.i64 = n}}};
        ASSERT_HK_OK(hk_kernel_launch(k, hk_dim3{3, 1, 1}, hk_dim3{96, 1, 1}, 0, nullptr, args, 2)); // 288 threads
        ASSERT_HK_OK(hk_kernel_launch_n(k, (size_t)n, 0, nullptr, args, 2));
        ASSERT_HK_OK(hk_device_synchronize());
        std::vector<int> got = read<int>(x, (size_t)n);
        EXPECT_EQ(std::count(got.begin(), got.end(), 43), n) << "n = " << n;
    }
}

TEST_F(CpuKernels, EveryBlockAndThreadOfA3dLaunchRunsOnce)
{
    hk_module m = load(R"(
extern "C" __global__ void ids(int *hits)
{
    const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    atomicAdd(&hits[block * blockDim.x * blockDim.y * blockDim.z + thread], 1);
}
)");
    const hk_dim3 grid{3, 4, 5}, block{4, 3, 2};
    const size_t n = 60 * 24;
    hktest::DeviceMemory hits;
    write(hits, std::vector<int>(n, 0));
    ASSERT_HK_OK(run(kernel(m, "ids"), grid, block, {ptr(hits.get())}));
    std::vector<int> got = read<int>(hits, n);
    EXPECT_EQ(std::count(got.begin(), got.end(), 1), (long)n);
}

// ---------------------------------------------------------- kernels stopping

TEST_F(CpuKernels, AFailedAssertStopsTheKernelWithItsPlace)
{
    hk_module m = load(R"(
extern "C" __global__ void checked(int *x, int limit)
{
    if (threadIdx.x == 0)
        __syncthreads_count(1);          // the second kernel: thread 5 asserts as a fiber
    assert(threadIdx.x + blockIdx.x < (unsigned)limit);
    x[threadIdx.x] = 1;
}
extern "C" __global__ void plain(int *x, int limit)
{
    assert(threadIdx.x != (unsigned)limit);
    x[threadIdx.x] = 2;
}
)", "asserts.hip");
    hktest::DeviceMemory x;
    write(x, std::vector<int>(64, 0));
    for (const char *name : {"plain", "checked"}) {
        SCOPED_TRACE(name);
        const hk_status s = run(kernel(m, name), hk_dim3{1, 1, 1}, hk_dim3{64, 1, 1}, {ptr(x.get()), i32(5)});
        const std::string message = error_text();
        EXPECT_EQ(s, HK_ERROR_LAUNCH_FAILED) << message;
        EXPECT_TRUE(contains(message, std::string("kernel ") + name)) << message;
        EXPECT_TRUE(contains(message, "thread (5, 0, 0)")) << message;
        EXPECT_TRUE(contains(message, "assertion `")) << message;
        EXPECT_TRUE(contains(message, "asserts.hip:")) << message;
    }
    // Nothing sticky: the device runs the next launch.
    ASSERT_HK_OK(run(kernel(m, "plain"), hk_dim3{1, 1, 1}, hk_dim3{64, 1, 1}, {ptr(x.get()), i32(1000)}));
    EXPECT_EQ(read<int>(x, 64), std::vector<int>(64, 2));
}

TEST_F(CpuKernels, TrapStopsTheKernel)
{
    hk_module m = load(R"(extern "C" __global__ void stop(int *x) { if (blockIdx.x == 2) __trap(); x[blockIdx.x] = 1; })");
    hktest::DeviceMemory x;
    write(x, std::vector<int>(4, 0));
    EXPECT_EQ(run(kernel(m, "stop"), hk_dim3{4, 1, 1}, hk_dim3{1, 1, 1}, {ptr(x.get())}), HK_ERROR_LAUNCH_FAILED);
    EXPECT_TRUE(contains(error_text(), "__trap() was called")) << error_text();
    EXPECT_TRUE(contains(error_text(), "block (2, 0, 0)")) << error_text();
}

// ----------------------------------------------------- finding the kernels

TEST_F(CpuKernels, KernelsAreFoundInNamespacesAndExternCBlocks)
{
    hk_module m = load(R"(
namespace outer { namespace inner {
extern "C" __global__ void nested(int *x) { x[0] = 1; }
} }
extern "C" {
__global__ void __launch_bounds__(64) in_block(int *x) { x[1] = 2; }
}
extern "C" __global__ void declared_first(int *x);
extern "C" __global__ void declared_first(int *x) { x[2] = 3; }
__global__ void cplusplus(int *x) { x[3] = 4; }
)");
    hktest::DeviceMemory x;
    write(x, std::vector<int>(4, 0));
    for (const char *name : {"nested", "in_block", "declared_first"})
        ASSERT_HK_OK(run(kernel(m, name), hk_dim3{1, 1, 1}, hk_dim3{1, 1, 1}, {ptr(x.get())}));
    EXPECT_EQ(read<int>(x, 4), (std::vector<int>{1, 2, 3, 0}));
    hk_kernel k = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_module_get_kernel", hk_module_get_kernel(&k, m, "cplusplus"));
    EXPECT_TRUE(contains(error_text(), "extern \"C\"")) << error_text();
}

TEST_F(CpuKernels, EachLoadIsItsOwnModule)
{
    // A global of the module counts its launches: two loads of one program count apart, and
    // programs loaded one after another never see each other's kernels.
    const char *source = R"(
__device__ int launches;
extern "C" __global__ void tick(int *out) { out[0] = ++launches; }
)";
    hk_module a = load(source), b = load(source);
    hktest::DeviceMemory out;
    write(out, std::vector<int>{0});
    for (int i = 0; i < 3; i++)
        ASSERT_HK_OK(run(kernel(a, "tick"), hk_dim3{1, 1, 1}, hk_dim3{1, 1, 1}, {ptr(out.get())}));
    ASSERT_HK_OK(run(kernel(b, "tick"), hk_dim3{1, 1, 1}, hk_dim3{1, 1, 1}, {ptr(out.get())}));
    EXPECT_EQ(read<int>(out, 1)[0], 1);
    for (int round = 0; round < 4; round++) {
        std::string text = "extern \"C\" __global__ void k" + std::to_string(round) + "(int *x) { x[0] = " +
                           std::to_string(round) + "; }";
        hk_program p = nullptr;
        hk_module mod = nullptr;
        hk_kernel k = nullptr;
        ASSERT_HK_OK(hk_program_compile(&p, text.c_str(), "k.hip", nullptr, 0, nullptr));
        ASSERT_HK_OK(hk_module_load(&mod, p));
        ASSERT_HK_OK(hk_module_get_kernel(&k, mod, ("k" + std::to_string(round)).c_str()));
        ASSERT_HK_OK(run(k, hk_dim3{1, 1, 1}, hk_dim3{1, 1, 1}, {ptr(out.get())}));
        EXPECT_EQ(read<int>(out, 1)[0], round);
        ASSERT_HK_OK(hk_module_unload(mod));
        ASSERT_HK_OK(hk_program_destroy(p));
    }
}

TEST_F(CpuKernels, LaunchesQueuedBeforeAnUnloadStillRun)
{
    hk_program p = nullptr;
    hk_module m = nullptr;
    hk_kernel k = nullptr;
    ASSERT_HK_OK(hk_program_compile(&p, R"(#include <hipkit_device.h>
extern "C" __global__ void fill(float *x, size_t n) { for (size_t i = hk_global_index(); i < n; i += hk_grid_stride()) x[i] = 3.0f; }
)", "fill.hip", nullptr, 0, nullptr));
    ASSERT_HK_OK(hk_module_load(&m, p));
    ASSERT_HK_OK(hk_module_get_kernel(&k, m, "fill"));
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    const size_t n = 1 << 22; // large enough to be queued, not run on the caller
    hktest::DeviceMemory x;
    ASSERT_HK_OK(x.allocate(n * 4));
    hk_arg args[] = {ptr(x.get()), {HK_ARG_UINT64, {.u64 = n}}};
    ASSERT_HK_OK(hk_kernel_launch_n(k, n, 0, stream.get(), args, 2));
    ASSERT_HK_OK(hk_module_unload(m));
    ASSERT_HK_OK(hk_program_destroy(p));
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
    std::vector<float> got = read<float>(x, n);
    EXPECT_EQ(std::count(got.begin(), got.end(), 3.0f), (long)n);
}

// ------------------------------------------------------ compiling, refusing

TEST_F(CpuKernels, ACompileErrorGivesTheLogWithFileAndLine)
{
    hk_program p = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_COMPILE, "hk_program_compile",
                    hk_program_compile(&p, "extern \"C\" __global__ void k(float *x)\n{\n    x[0] = undefined_thing;\n}\n",
                                       "broken_kernel.hip", nullptr, 0, "host"));
    const std::string log = error_text();
    EXPECT_TRUE(contains(log, "broken_kernel.hip:3:")) << log;
    EXPECT_TRUE(contains(log, "undefined_thing")) << log;
    EXPECT_TRUE(contains(log, "for the CPU device")) << log;
    EXPECT_EQ(p, nullptr);
}

TEST_F(CpuKernels, WhatTheCpuDeviceCannotRunIsNamed)
{
    const struct {
        const char *source, *named;
    } cases[] = {
        {"extern \"C\" __global__ void k(unsigned *x) { unsigned lane; asm volatile(\"mov.u32 %0, %%laneid;\" : "
         "\"=r\"(lane)); x[0] = lane; }",
         "inline assembly (asm)"},
        {"extern \"C\" __global__ void k(float *x, unsigned long long t) { x[0] = tex1Dfetch<float>(t, 0); }",
         "tex1Dfetch"},
        {"struct big { double a, b; };\nextern \"C\" __global__ void k(big *x) { x[0] = __shfl_sync(0xffffffffu, "
         "x[0], 0); }",
         "warp shuffles and matches on the CPU device take values of up to 8 bytes"},
        {"extern \"C\" __global__ void child(int *x) {}\nextern \"C\" __global__ void k(int *x) { child<<<1, 1>>>(x); }",
         "launches a kernel from a kernel"},
    };
    for (const auto &c : cases) {
        hk_program p = nullptr;
        EXPECT_HK_FAILS(HK_ERROR_COMPILE, "hk_program_compile",
                        hk_program_compile(&p, c.source, "gpu_only.hip", nullptr, 0, "host"));
        EXPECT_TRUE(contains(error_text(), c.named)) << error_text();
    }
}

TEST_F(CpuKernels, GpuOnlyOptionsAreIgnoredOthersRefusedByName)
{
    const char *source = "#ifndef WIDTH\n#error WIDTH must be defined\n#endif\n"
                         "extern \"C\" __global__ void k(float *x) { x[0] = WIDTH; }\n";
    hk_program p = nullptr;
    const char *fine[] = {"-DWIDTH=4", "-lineinfo", "--use_fast_math", "--gpu-architecture=sm_90", "-O3", "--std=c++17"};
    ASSERT_HK_OK(hk_program_compile(&p, source, "width.hip", fine, 6, "host"));
    ASSERT_HK_OK(hk_program_destroy(p));
    p = nullptr;
    const char *strange[] = {"-DWIDTH=4", "--frobnicate"};
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_program_compile",
                    hk_program_compile(&p, source, "width.hip", strange, 2, "host"));
    EXPECT_TRUE(contains(error_text(), "\"--frobnicate\"")) << error_text();
    const char *old[] = {"-std=c++11"};
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_program_compile",
                    hk_program_compile(&p, source, "width.hip", old, 1, "host"));
    EXPECT_TRUE(contains(error_text(), "C++14")) << error_text();
}

TEST_F(CpuKernels, AProgramForTheCpuDeviceIsASharedObjectOnlyItLoads)
{
    hk_program p = nullptr;
    ASSERT_HK_OK(hk_program_compile(&p, kReverse, "reverse.hip", nullptr, 0, "host"));
    programs_.push_back(p);
    const void *binary = nullptr;
    size_t bytes = 0;
    ASSERT_HK_OK(hk_program_get_binary(p, &binary, &bytes));
    ASSERT_GT(bytes, 64u);
    EXPECT_EQ(std::memcmp(binary, "\x7f" "ELF", 4), 0);
    const char *target = nullptr;
    ASSERT_HK_OK(hk_program_get_target(p, &target));
    EXPECT_STREQ(target, "host");
    int gpus = 0;
    ASSERT_HK_OK(hk_gpu_count(&gpus));
    if (gpus > 0) { // on a GPU, the CPU device's shared object is refused with a sentence
        ASSERT_HK_OK(hk_device_set(0));
        hk_module m = nullptr;
        EXPECT_NE(hk_module_load(&m, p), HK_SUCCESS);
        ASSERT_HK_OK(hk_device_set(cpu_ordinal()));
    }
}

TEST_F(CpuKernels, TheDiskCacheKeepsHostCodeApartFromGpuCode)
{
    hktest::CacheFolder cache;
    hk_program first = nullptr, second = nullptr;
    ASSERT_HK_OK(hk_program_compile(&first, kReverse, "reverse.hip", nullptr, 0, "host"));
    programs_.push_back(first);
    ASSERT_HK_OK(hk_program_compile(&second, kReverse, "reverse.hip", nullptr, 0, nullptr)); // the CPU device's
    programs_.push_back(second);
    int cached = -1;
    ASSERT_HK_OK(hk_program_is_cached(first, &cached));
    EXPECT_EQ(cached, 0);
    ASSERT_HK_OK(hk_program_is_cached(second, &cached));
    EXPECT_EQ(cached, 1) << "a second compile for the host is a hit";
    const void *a, *b;
    size_t na, nb;
    ASSERT_HK_OK(hk_program_get_binary(first, &a, &na));
    ASSERT_HK_OK(hk_program_get_binary(second, &b, &nb));
    ASSERT_EQ(na, nb);
    EXPECT_EQ(std::memcmp(a, b, na), 0);
    EXPECT_EQ(cache.entries().size(), 1u);
    hk_module m = nullptr;
    ASSERT_HK_OK(hk_module_load(&m, second));
    modules_.push_back(m);
    hktest::DeviceMemory in, out;
    write(in, std::vector<int>{1, 2, 3});
    write(out, std::vector<int>{0, 0, 0});
    ASSERT_HK_OK(run(kernel(m, "reverse"), hk_dim3{1, 1, 1}, hk_dim3{3, 1, 1}, {ptr(in.get()), ptr(out.get())}));
    EXPECT_EQ(read<int>(out, 3), (std::vector<int>{3, 2, 1}));
#if defined(HIPKIT_TEST_EXPECT_NVIDIA) || defined(HIPKIT_TEST_EXPECT_AMD)
    const char *gpu_target =
#if defined(HIPKIT_TEST_EXPECT_NVIDIA)
        "sm_90";
#else
        "gfx90a";
#endif
    hk_program gpu = nullptr;
    if (hk_program_compile(&gpu, kReverse, "reverse.hip", nullptr, 0, gpu_target) == HK_SUCCESS) {
        programs_.push_back(gpu);
        ASSERT_HK_OK(hk_program_is_cached(gpu, &cached));
        EXPECT_EQ(cached, 0) << "the GPU's code is not the host's entry";
        EXPECT_EQ(cache.entries().size(), 2u);
    }
#endif
}

// In a child process whose environment names the compiler (the library reads CXX once).
#define RUN_WITH_ENVIRONMENT(environment)                                                                              \
    do {                                                                                                               \
        if (!std::getenv("HIPKIT_TEST_CHILD")) {                                                                       \
            if (std::getenv("HIPKIT_TEST_NO_REEXEC"))                                                                  \
                GTEST_SKIP() << "HIPKIT_TEST_NO_REEXEC is set (under a sanitizer): not re-run with " environment;      \
            ASSERT_EQ(::hktest::run_this_test_with(environment), 0) << "the child run with " environment " failed";    \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

TEST_F(CpuKernels, AMissingCompilerIsNamedWithWhatToDo)
{
    RUN_WITH_ENVIRONMENT("CXX=/nonexistent/c++ HIPKIT_CACHE_DISABLE=1");
    hk_program p = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_NOT_SUPPORTED, "hk_program_compile",
                    hk_program_compile(&p, kReverse, "reverse.hip", nullptr, 0, nullptr));
    const std::string message = error_text();
    EXPECT_TRUE(contains(message, "CXX is \"/nonexistent/c++\"")) << message;
    EXPECT_TRUE(contains(message, "does not exist")) << message;
    EXPECT_TRUE(contains(message, "set CXX")) << message;
}

TEST_F(CpuKernels, ACompilerThatFailsSilentlyIsNamed)
{
    RUN_WITH_ENVIRONMENT("CXX=false HIPKIT_CACHE_DISABLE=1");
    hk_program p = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_COMPILE, "hk_program_compile",
                    hk_program_compile(&p, kReverse, "reverse.hip", nullptr, 0, nullptr));
    const std::string message = error_text();
    EXPECT_TRUE(contains(message, "with false (")) << message;
    EXPECT_TRUE(contains(message, "exit status 1")) << message;
    EXPECT_TRUE(contains(message, "the compiler gave no log")) << message;
}

} // namespace
