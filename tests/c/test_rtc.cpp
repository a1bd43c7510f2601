// test_rtc.cpp: user kernels. Compilation, the compile-error path and the
// disk cache need no GPU (hiprtc and NVRTC compile for a named target);
// loading, argument checking and launching run on the current device, the
// CPU device included (tests/c/test_cpu_kernels.cpp has its own cases).
#include "common.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

namespace
{

namespace fs = std::filesystem;

#if defined(HIPKIT_TEST_EXPECT_NVIDIA)
const char *const kTarget = "sm_90";
const char *const kOtherVendorTarget = "gfx90a";
#else
const char *const kTarget = "gfx90a";
const char *const kOtherVendorTarget = "sm_90";
#endif

const char *const kSaxpy = R"(#include <hipkit_device.h>
extern "C" __global__ void saxpy(float a, const float *__restrict__ x, float *y, size_t n)
{
    for (size_t i = hk_global_index(); i < n; i += hk_grid_stride())
        y[i] = a * x[i] + y[i];
}

// A block-wide sum through the prelude, correct for 32- and 64-lane warps.
extern "C" __global__ void __launch_bounds__(1024) block_sums(const double *x, double *sums, int n)
{
    __shared__ double scratch[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = hk_block_sum(i < n ? x[i] : 0.0, scratch);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = v;
}

extern "C" __global__ void scale_ints(long long *x, int factor, unsigned char shift, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = (x[i] * factor) >> shift;
}

extern "C" __global__ void uses_dynamic_shared(float *out)
{
    extern __shared__ float buffer[];
    buffer[threadIdx.x] = (float)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buffer[blockDim.x - 1 - threadIdx.x];
}

template <typename T> __global__ void templated(T *x) { x[0] = T(1); }
template __global__ void templated<float>(float *);
)";

using hktest::CacheFolder;

struct Program {
    hk_program handle = nullptr;
    ~Program()
    {
        if (handle)
            hk_program_destroy(handle);
    }
};

int is_cached(hk_program program)
{
    int cached = -1;
    EXPECT_EQ(hk_program_is_cached(program, &cached), HK_SUCCESS) << hk_last_error();
    return cached;
}

// ------------------------------------------------------------ no GPU needed

TEST(Compile, ProducesCodeForANamedTargetWithoutAGpu)
{
    CacheFolder cache;
    Program p;
    ASSERT_HK_OK(hk_program_compile(&p.handle, kSaxpy, "saxpy.hip", nullptr, 0, kTarget));
    const void *binary = nullptr;
    size_t bytes = 0;
    ASSERT_HK_OK(hk_program_get_binary(p.handle, &binary, &bytes));
    ASSERT_GT(bytes, 4u);
    EXPECT_EQ(std::string(static_cast<const char *>(binary), 4), "\x7f"
                                                                 "ELF")
        << "a CUBIN or an AMD code object";
    const char *target = nullptr;
    ASSERT_HK_OK(hk_program_get_target(p.handle, &target));
    EXPECT_STREQ(target, kTarget);
    EXPECT_EQ(is_cached(p.handle), 0);
}

#if defined(HIPKIT_TEST_EXPECT_NVIDIA)
TEST(Compile, AVirtualNvidiaTargetGivesPtx)
{
    CacheFolder cache;
    Program p;
    ASSERT_HK_OK(hk_program_compile(&p.handle, kSaxpy, "saxpy.hip", nullptr, 0, "compute_90"));
    const void *binary = nullptr;
    size_t bytes = 0;
    ASSERT_HK_OK(hk_program_get_binary(p.handle, &binary, &bytes));
    std::string text(static_cast<const char *>(binary), bytes);
    EXPECT_NE(text.find(".entry saxpy"), std::string::npos) << "PTX naming the kernel";
}
#endif

TEST(Compile, OptionsReachTheCompiler)
{
    CacheFolder cache;
    const char *source = "#ifndef WIDTH\n#error WIDTH must be defined\n#endif\n"
                         "extern \"C\" __global__ void k(float *x) { x[0] = WIDTH; }\n";
    Program without, with;
    EXPECT_HK_FAILS(HK_ERROR_COMPILE, "hk_program_compile",
                    hk_program_compile(&without.handle, source, "width.hip", nullptr, 0, kTarget));
    const char *options[] = {"-DWIDTH=4"};
    EXPECT_HK_OK(hk_program_compile(&with.handle, source, "width.hip", options, 1, kTarget));
}

TEST(Compile, AnErrorGivesTheCompilerLogWithFileAndLine)
{
    CacheFolder cache;
    const char *source = "extern \"C\" __global__ void k(float *x)\n{\n    x[0] = undefined_thing;\n}\n";
    Program p;
    EXPECT_HK_FAILS(HK_ERROR_COMPILE, "hk_program_compile",
                    hk_program_compile(&p.handle, source, "broken_kernel.hip", nullptr, 0, kTarget));
    EXPECT_EQ(p.handle, nullptr);
    std::string log = hk_last_error();
    EXPECT_NE(log.find("undefined_thing"), std::string::npos) << log;
    // NVRTC writes "broken_kernel.hip(3): error", hiprtc "broken_kernel.hip:3:12: error".
    EXPECT_TRUE(log.find("broken_kernel.hip(3)") != std::string::npos ||
                log.find("broken_kernel.hip:3:") != std::string::npos)
        << log;
    EXPECT_TRUE(cache.entries().empty()) << "a failed compile must not be cached";
}

TEST(Compile, RefusesBadArguments)
{
    hk_program p = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_program_compile",
                    hk_program_compile(nullptr, kSaxpy, "a.hip", nullptr, 0, kTarget));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_program_compile",
                    hk_program_compile(&p, nullptr, "a.hip", nullptr, 0, kTarget));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_program_compile",
                    hk_program_compile(&p, kSaxpy, "a.hip", nullptr, 2, kTarget));
    const char *with_null[] = {"-O3", nullptr};
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_program_compile",
                    hk_program_compile(&p, kSaxpy, "a.hip", with_null, 2, kTarget));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_program_compile",
                    hk_program_compile(&p, kSaxpy, "a.hip", nullptr, 0, "pentium4"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_program_compile",
                    hk_program_compile(&p, kSaxpy, "a.hip", nullptr, 0, kOtherVendorTarget));
    EXPECT_NE(std::string(hk_last_error()).find("build"), std::string::npos)
        << "the sentence says which build compiles which targets: " << hk_last_error();
}

TEST(Compile, ForTheCurrentDeviceNeedsAGpu)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    hk_program p = nullptr;
    EXPECT_SAYS_NO_GPU("hk_program_compile", hk_program_compile(&p, kSaxpy, "a.hip", nullptr, 0, nullptr));
}

TEST(Compile, StaleProgramHandlesAreRefused)
{
    CacheFolder cache;
    hk_program p = nullptr;
    ASSERT_HK_OK(hk_program_compile(&p, kSaxpy, "saxpy.hip", nullptr, 0, kTarget));
    ASSERT_HK_OK(hk_program_destroy(p));
    const void *binary;
    size_t bytes;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_program_get_binary", hk_program_get_binary(p, &binary, &bytes));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_program_destroy", hk_program_destroy(p));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_program_destroy", hk_program_destroy(nullptr));
}

TEST(Compile, ReportsTheCompilerVersion)
{
    int major = -1, minor = -1;
    ASSERT_HK_OK(hk_rtc_version(&major, &minor));
    EXPECT_GT(major, 0);
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_rtc_version", hk_rtc_version(nullptr, &minor));
}

TEST(Cache, SecondCompileIsAHitWithTheSameCode)
{
    CacheFolder cache;
    Program first, second;
    ASSERT_HK_OK(hk_program_compile(&first.handle, kSaxpy, "saxpy.hip", nullptr, 0, kTarget));
    ASSERT_HK_OK(hk_program_compile(&second.handle, kSaxpy, "saxpy.hip", nullptr, 0, kTarget));
    EXPECT_EQ(is_cached(first.handle), 0);
    EXPECT_EQ(is_cached(second.handle), 1);
    const void *a, *b;
    size_t na, nb;
    ASSERT_HK_OK(hk_program_get_binary(first.handle, &a, &na));
    ASSERT_HK_OK(hk_program_get_binary(second.handle, &b, &nb));
    ASSERT_EQ(na, nb);
    EXPECT_EQ(std::memcmp(a, b, na), 0);
    EXPECT_EQ(cache.entries().size(), 1u);
}

TEST(Cache, OptionsAndTargetAreInTheKey)
{
    CacheFolder cache;
    Program plain, optimised;
    const char *options[] = {"-DUNUSED=1"};
    ASSERT_HK_OK(hk_program_compile(&plain.handle, kSaxpy, "saxpy.hip", nullptr, 0, kTarget));
    ASSERT_HK_OK(hk_program_compile(&optimised.handle, kSaxpy, "saxpy.hip", options, 1, kTarget));
    EXPECT_EQ(is_cached(optimised.handle), 0) << "other options must not hit the entry of the first compile";
    EXPECT_EQ(cache.entries().size(), 2u);
}

TEST(Cache, ADamagedEntryIsRebuiltNotLoaded)
{
    CacheFolder cache;
    Program first;
    ASSERT_HK_OK(hk_program_compile(&first.handle, kSaxpy, "saxpy.hip", nullptr, 0, kTarget));
    auto entries = cache.entries();
    ASSERT_EQ(entries.size(), 1u);
    const fs::path entry = entries[0];
    const auto size = fs::file_size(entry);

    for (int damage = 0; damage < 3; damage++) {
        SCOPED_TRACE("damage kind " + std::to_string(damage));
        if (damage == 0) {
            fs::resize_file(entry, size / 2); // truncated
        } else {
            std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
            // 1: a flipped byte in the code (checksum); 2: in the header's magic
            f.seekp(damage == 1 ? static_cast<std::streamoff>(size - 10) : 0);
            char c = 0;
            f.read(&c, 1);
            f.seekp(damage == 1 ? static_cast<std::streamoff>(size - 10) : 0);
            c = static_cast<char>(c ^ 0x5a);
            f.write(&c, 1);
        }
        Program again;
        ASSERT_HK_OK(hk_program_compile(&again.handle, kSaxpy, "saxpy.hip", nullptr, 0, kTarget));
        EXPECT_EQ(is_cached(again.handle), 0) << "a damaged entry must be compiled again";
        const void *a, *b;
        size_t na, nb;
        ASSERT_HK_OK(hk_program_get_binary(first.handle, &a, &na));
        ASSERT_HK_OK(hk_program_get_binary(again.handle, &b, &nb));
        ASSERT_EQ(na, nb);
        EXPECT_EQ(std::memcmp(a, b, na), 0);
        EXPECT_EQ(fs::file_size(entry), size) << "the entry was rewritten whole";
        Program hit;
        ASSERT_HK_OK(hk_program_compile(&hit.handle, kSaxpy, "saxpy.hip", nullptr, 0, kTarget));
        EXPECT_EQ(is_cached(hit.handle), 1);
    }
}

TEST(Cache, ThreadsWritingOneEntryAtOnceLeaveItWholeAndNoTemporaries)
{
    // Eight threads compile one new source at once: each writes the entry through its own temporary
    // file (pid and a process-wide serial in the name), so the entry is whole and none is left over.
    CacheFolder cache;
    const std::string source = "// " + std::to_string(hktest::fresh_seed()) + "\n" + kSaxpy;
    constexpr int kThreads = 8;
    std::vector<Program> programs(kThreads);
    std::vector<hk_status> status(kThreads, HK_ERROR_INTERNAL);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++)
        threads.emplace_back([&, t] {
            status[t] = hk_program_compile(&programs[t].handle, source.c_str(), "saxpy.hip", nullptr, 0, kTarget);
        });
    for (auto &thread : threads)
        thread.join();
    const void *first = nullptr;
    size_t first_size = 0;
    for (int t = 0; t < kThreads; t++) {
        ASSERT_EQ(status[t], HK_SUCCESS) << "thread " << t;
        const void *binary;
        size_t size;
        ASSERT_HK_OK(hk_program_get_binary(programs[t].handle, &binary, &size));
        if (t == 0) {
            first = binary, first_size = size;
        } else {
            ASSERT_EQ(size, first_size);
            EXPECT_EQ(std::memcmp(binary, first, size), 0) << "thread " << t;
        }
    }
    EXPECT_EQ(cache.entries().size(), 1u);
    for (const auto &entry : fs::directory_iterator(cache.path()))
        EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
    Program hit;
    ASSERT_HK_OK(hk_program_compile(&hit.handle, source.c_str(), "saxpy.hip", nullptr, 0, kTarget));
    EXPECT_EQ(is_cached(hit.handle), 1) << "the entry written by the threads is whole";
}

TEST(Cache, OffMeansNoEntriesAndNoHits)
{
    CacheFolder cache;
    ASSERT_HK_OK(hk_cache_set_dir(nullptr));
    const char *dir = "not null";
    ASSERT_HK_OK(hk_cache_get_dir(&dir));
    EXPECT_EQ(dir, nullptr);
    Program a, b;
    ASSERT_HK_OK(hk_program_compile(&a.handle, kSaxpy, "saxpy.hip", nullptr, 0, kTarget));
    ASSERT_HK_OK(hk_program_compile(&b.handle, kSaxpy, "saxpy.hip", nullptr, 0, kTarget));
    EXPECT_EQ(is_cached(b.handle), 0);
    EXPECT_TRUE(cache.entries().empty());
}

TEST(Cache, RefusesAnEmptyFolderName)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_cache_set_dir", hk_cache_set_dir(""));
}

// ------------------------------------------------- on the current device

class UserKernel : public GpuTest
{
  protected:
    void SetUp() override
    {
        GpuTest::SetUp();
        if (HasFatalFailure())
            return;
        ASSERT_HK_OK(hk_program_compile(&program_, kSaxpy, "saxpy.hip", nullptr, 0, nullptr));
        ASSERT_HK_OK(hk_module_load(&module_, program_));
    }
    void TearDown() override
    {
        if (module_)
            EXPECT_HK_OK(hk_module_unload(module_));
        if (program_)
            EXPECT_HK_OK(hk_program_destroy(program_));
    }
    hk_kernel get(const char *name)
    {
        hk_kernel k = nullptr;
        EXPECT_EQ(hk_module_get_kernel(&k, module_, name), HK_SUCCESS) << hk_last_error();
        return k;
    }
    static hk_arg ptr(const void *p)
    {
        hk_arg a{};
        a.type = HK_ARG_POINTER;
        a.value.pointer = p;
        return a;
    }
    static hk_arg f64(double v, hk_arg_type type = HK_ARG_FLOAT32)
    {
        hk_arg a{};
        a.type = type;
        a.value.f64 = v;
        return a;
    }
    static hk_arg i64(int64_t v, hk_arg_type type = HK_ARG_INT64)
    {
        hk_arg a{};
        a.type = type;
        a.value.i64 = v;
        return a;
    }
    static hk_arg u64(uint64_t v, hk_arg_type type = HK_ARG_UINT64)
    {
        hk_arg a{};
        a.type = type;
        a.value.u64 = v;
        return a;
    }
    hk_program program_ = nullptr;
    hk_module module_ = nullptr;
};

TEST_F(UserKernel, SignaturesAreReadFromTheSource)
{
    int count = 0;
    hk_arg_type types[8];
    ASSERT_HK_OK(hk_kernel_get_params(get("saxpy"), &count, types, 8));
    ASSERT_EQ(count, 4);
    EXPECT_EQ(types[0], HK_ARG_FLOAT32);
    EXPECT_EQ(types[1], HK_ARG_POINTER);
    EXPECT_EQ(types[2], HK_ARG_POINTER);
    EXPECT_EQ(types[3], HK_ARG_UINT64);
    ASSERT_HK_OK(hk_kernel_get_params(get("block_sums"), &count, types, 8));
    ASSERT_EQ(count, 3) << "__launch_bounds__ must not confuse the reader";
    EXPECT_EQ(types[2], HK_ARG_INT32);
    ASSERT_HK_OK(hk_kernel_get_params(get("scale_ints"), &count, types, 8));
    ASSERT_EQ(count, 4);
    EXPECT_EQ(types[1], HK_ARG_INT32);
    EXPECT_EQ(types[2], HK_ARG_UINT8);
}

TEST_F(UserKernel, SaxpyMatchesTheCpuAtAwkwardSizes)
{
    HKTEST_SEEDED_RNG(rng);
    std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
    hk_kernel k = get("saxpy");
    for (size_t n : {size_t{1}, size_t{7}, size_t{1000003}}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        std::vector<float> x(n), y(n);
        for (size_t i = 0; i < n; i++) {
            x[i] = dist(rng);
            y[i] = dist(rng);
        }
        const float a = dist(rng);
        hktest::DeviceMemory dx, dy;
        ASSERT_HK_OK(dx.allocate(n * 4));
        ASSERT_HK_OK(dy.allocate(n * 4));
        ASSERT_HK_OK(hk_memcpy_htod(dx.get(), x.data(), n * 4));
        ASSERT_HK_OK(hk_memcpy_htod(dy.get(), y.data(), n * 4));
        hk_arg args[] = {f64(a), ptr(dx.get()), ptr(dy.get()), u64(n)};
        ASSERT_HK_OK(hk_kernel_launch_n(k, n, 0, nullptr, args, 4));
        std::vector<float> got(n, std::nanf(""));
        ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), dy.get(), n * 4));
        size_t wrong = 0;
        for (size_t i = 0; i < n; i++) {
            double want = static_cast<double>(a) * x[i] + y[i];
            if (!(std::fabs(got[i] - want) <= 1e-5 * (std::fabs(a * x[i]) + std::fabs(y[i]) + 1)))
                wrong++;
        }
        EXPECT_EQ(wrong, 0u);
    }
}

TEST_F(UserKernel, BlockSumsUseTheDevicesWarpSize)
{
    HKTEST_SEEDED_RNG(rng);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    const int n = 1000003, block = 256, blocks = (n + block - 1) / block;
    std::vector<double> x(n);
    for (double &v : x)
        v = dist(rng);
    hktest::DeviceMemory dx, dsums;
    ASSERT_HK_OK(dx.allocate(n * 8));
    ASSERT_HK_OK(dsums.allocate(blocks * 8));
    ASSERT_HK_OK(hk_memcpy_htod(dx.get(), x.data(), n * 8));
    ASSERT_HK_OK(hk_memset(dsums.get(), 0xFF, blocks * 8)); // NaN poison
    hk_arg args[] = {ptr(dx.get()), ptr(dsums.get()), i64(n, HK_ARG_INT32)};
    ASSERT_HK_OK(hk_kernel_launch(get("block_sums"), hk_dim3{(unsigned)blocks, 1, 1}, hk_dim3{block, 1, 1}, 0, nullptr,
                                  args, 3));
    std::vector<double> sums(blocks);
    ASSERT_HK_OK(hk_memcpy_dtoh(sums.data(), dsums.get(), blocks * 8));
    for (int b = 0; b < blocks; b++) {
        double want = 0;
        for (int i = b * block; i < std::min(n, (b + 1) * block); i++)
            want += x[i];
        ASSERT_NEAR(sums[b], want, 1e-9) << "block " << b;
    }
}

TEST_F(UserKernel, PackedArgumentsLaunchLikeTypedOnes)
{
    const int n = 1000;
    std::vector<long long> x(n);
    for (int i = 0; i < n; i++)
        x[i] = i - 500;
    hktest::DeviceMemory dx;
    ASSERT_HK_OK(dx.allocate(n * 8));
    ASSERT_HK_OK(hk_memcpy_htod(dx.get(), x.data(), n * 8));
    // struct { long long *x; int factor; unsigned char shift; /* pad */ int n; }
    struct {
        void *x;
        int32_t factor;
        uint8_t shift;
        int32_t n;
    } packed = {dx.get(), 6, 1, n};
    ASSERT_HK_OK(hk_kernel_launch_packed(get("scale_ints"), hk_dim3{4, 1, 1}, hk_dim3{256, 1, 1}, 0, nullptr, &packed,
                                         sizeof packed));
    std::vector<long long> got(n);
    ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), dx.get(), n * 8));
    for (int i = 0; i < n; i++)
        ASSERT_EQ(got[i], (x[i] * 6) >> 1) << i;
    // Without the struct's 4 bytes of tail padding (20 bytes) is accepted too
    // (n = 0: the launch touches nothing); other sizes are refused.
    auto idle = packed;
    idle.n = 0;
    EXPECT_HK_OK(hk_kernel_launch_packed(get("scale_ints"), hk_dim3{1, 1, 1}, hk_dim3{1, 1, 1}, 0, nullptr, &idle,
                                         sizeof idle - 4));
    for (size_t wrong : {sizeof packed - 8, sizeof packed + 4})
        EXPECT_HK_FAILS(
            HK_ERROR_INVALID_ARGUMENT, "hk_kernel_launch_packed",
            hk_kernel_launch_packed(get("scale_ints"), hk_dim3{1, 1, 1}, hk_dim3{1, 1, 1}, 0, nullptr, &packed, wrong));
    ASSERT_HK_OK(hk_device_synchronize());
}

TEST_F(UserKernel, WrongArgumentsAreRefusedBeforeLaunch)
{
    hktest::DeviceMemory d;
    ASSERT_HK_OK(d.allocate(64));
    hk_kernel k = get("scale_ints");
    hk_dim3 one{1, 1, 1};
    hk_arg three[] = {ptr(d.get()), i64(2, HK_ARG_INT32), u64(1, HK_ARG_UINT8)};
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_kernel_launch", hk_kernel_launch(k, one, one, 0, nullptr, three, 3));
    EXPECT_NE(std::string(hk_last_error()).find("takes 4 arguments"), std::string::npos) << hk_last_error();

    hk_arg float_for_int[] = {ptr(d.get()), f64(2.5), u64(1, HK_ARG_UINT8), i64(8, HK_ARG_INT32)};
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_kernel_launch",
                    hk_kernel_launch(k, one, one, 0, nullptr, float_for_int, 4));
    hk_arg too_big[] = {ptr(d.get()), i64(int64_t{1} << 40), u64(1, HK_ARG_UINT8), i64(8, HK_ARG_INT32)};
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_kernel_launch",
                    hk_kernel_launch(k, one, one, 0, nullptr, too_big, 4));
    EXPECT_NE(std::string(hk_last_error()).find("int32"), std::string::npos) << hk_last_error();
    hk_arg negative_unsigned[] = {ptr(d.get()), i64(2), i64(-1), i64(8)};
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_kernel_launch",
                    hk_kernel_launch(k, one, one, 0, nullptr, negative_unsigned, 4));
    hk_arg scalar_for_pointer[] = {i64(1234), i64(2), u64(1, HK_ARG_UINT8), i64(8)};
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_kernel_launch",
                    hk_kernel_launch(k, one, one, 0, nullptr, scalar_for_pointer, 4));
}

TEST_F(UserKernel, BadLaunchShapesAreRefusedWithTheLimit)
{
    hktest::DeviceMemory d;
    ASSERT_HK_OK(d.allocate(4096 * 4));
    hk_kernel k = get("uses_dynamic_shared");
    hk_arg args[] = {ptr(d.get())};
    EXPECT_HK_FAILS(HK_ERROR_LAUNCH_FAILED, "hk_kernel_launch",
                    hk_kernel_launch(k, hk_dim3{1, 1, 1}, hk_dim3{2048, 1, 1}, 2048 * 4, nullptr, args, 1));
    EXPECT_NE(std::string(hk_last_error()).find("threads"), std::string::npos) << hk_last_error();
    hk_kernel_attributes attributes;
    ASSERT_HK_OK(hk_kernel_get_attributes(k, &attributes));
    EXPECT_HK_FAILS(HK_ERROR_LAUNCH_FAILED, "hk_kernel_launch",
                    hk_kernel_launch(k, hk_dim3{1, 1, 1}, hk_dim3{32, 1, 1}, attributes.max_dynamic_shared_bytes + 1,
                                     nullptr, args, 1));
    EXPECT_NE(std::string(hk_last_error()).find("shared memory"), std::string::npos) << hk_last_error();
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_kernel_launch",
                    hk_kernel_launch(k, hk_dim3{0, 1, 1}, hk_dim3{32, 1, 1}, 0, nullptr, args, 1));
    // After the refusals the kernel still runs: nothing sticky was left behind.
    ASSERT_HK_OK(hk_kernel_launch(k, hk_dim3{1, 1, 1}, hk_dim3{256, 1, 1}, 256 * 4, nullptr, args, 1));
    std::vector<float> got(256);
    ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), d.get(), 256 * 4));
    for (int i = 0; i < 256; i++)
        ASSERT_EQ(got[i], 255 - i);
}

TEST_F(UserKernel, LargeDynamicSharedMemoryIsAllowedUpToTheLimit)
{
    hk_kernel k = get("uses_dynamic_shared");
    hk_kernel_attributes attributes;
    ASSERT_HK_OK(hk_kernel_get_attributes(k, &attributes));
    hktest::DeviceMemory d;
    ASSERT_HK_OK(d.allocate(1024 * 4));
    hk_arg args[] = {ptr(d.get())};
    ASSERT_HK_OK(hk_kernel_launch(k, hk_dim3{1, 1, 1}, hk_dim3{1024, 1, 1}, attributes.max_dynamic_shared_bytes,
                                  nullptr, args, 1));
    ASSERT_HK_OK(hk_device_synchronize());
}

TEST_F(UserKernel, LaunchesOnAStreamAreOrderedWithEvents)
{
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    const size_t n = 1 << 20;
    hktest::DeviceMemory dx, dy;
    ASSERT_HK_OK(dx.allocate(n * 4));
    ASSERT_HK_OK(dy.allocate(n * 4));
    const float one = 1, two = 2;
    ASSERT_HK_OK(hktest::fill_floats(dx.get(), n, one, stream.get()));
    ASSERT_HK_OK(hktest::fill_floats(dy.get(), n, two, stream.get()));
    hk_arg args[] = {f64(3.0), ptr(dx.get()), ptr(dy.get()), u64(n)};
    hk_event done = nullptr;
    ASSERT_HK_OK(hk_event_create(&done));
    for (int i = 0; i < 10; i++)
        ASSERT_HK_OK(hk_kernel_launch_n(get("saxpy"), n, 0, stream.get(), args, 4));
    ASSERT_HK_OK(hk_event_record(done, stream.get()));
    ASSERT_HK_OK(hk_event_synchronize(done));
    ASSERT_HK_OK(hk_event_destroy(done));
    std::vector<float> got(n);
    ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), dy.get(), n * 4));
    EXPECT_EQ(std::count(got.begin(), got.end(), 32.0f), static_cast<std::ptrdiff_t>(n));
}

TEST_F(UserKernel, UnknownNamesAndUnloadedModulesAreRefused)
{
    hk_kernel k = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_module_get_kernel", hk_module_get_kernel(&k, module_, "nope"));
    EXPECT_NE(std::string(hk_last_error()).find("extern \"C\""), std::string::npos) << hk_last_error();
    hk_kernel saxpy = get("saxpy");
    ASSERT_HK_OK(hk_module_unload(module_));
    hk_module unloaded = module_;
    module_ = nullptr;
    hk_arg args[] = {f64(1), ptr(nullptr), ptr(nullptr), u64(0)};
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_kernel_launch",
                    hk_kernel_launch(saxpy, hk_dim3{1, 1, 1}, hk_dim3{1, 1, 1}, 0, nullptr, args, 4));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_module_unload", hk_module_unload(unloaded));
}

TEST_F(UserKernel, TemplatesNeedTheirParametersDeclared)
{
    // A template's instantiation has a mangled name; a C++ name is not found
    // by its source name, and the lookup says why.
    hk_kernel k = nullptr;
    EXPECT_HK_STATUS(HK_ERROR_INVALID_ARGUMENT, hk_module_get_kernel(&k, module_, "templated"));
    int count = 0;
    hk_kernel saxpy = get("saxpy");
    const hk_arg_type types[] = {HK_ARG_FLOAT32, HK_ARG_POINTER, HK_ARG_POINTER, HK_ARG_UINT64};
    ASSERT_HK_OK(hk_kernel_set_params(saxpy, types, 4));
    ASSERT_HK_OK(hk_kernel_get_params(saxpy, &count, nullptr, 0));
    EXPECT_EQ(count, 4);
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_kernel_set_params", hk_kernel_set_params(saxpy, types, -1));
}

TEST_F(UserKernel, ACachedProgramLoadsAndRuns)
{
    CacheFolder cache;
    Program first, second;
    ASSERT_HK_OK(hk_program_compile(&first.handle, kSaxpy, "saxpy.hip", nullptr, 0, nullptr));
    ASSERT_HK_OK(hk_program_compile(&second.handle, kSaxpy, "saxpy.hip", nullptr, 0, nullptr));
    ASSERT_EQ(is_cached(second.handle), 1);
    hk_module m = nullptr;
    ASSERT_HK_OK(hk_module_load(&m, second.handle));
    hk_kernel k = nullptr;
    ASSERT_HK_OK(hk_module_get_kernel(&k, m, "saxpy"));
    hktest::DeviceMemory dx, dy;
    ASSERT_HK_OK(dx.allocate(4 * 4));
    ASSERT_HK_OK(dy.allocate(4 * 4));
    const float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
    ASSERT_HK_OK(hk_memcpy_htod(dx.get(), x, 16));
    ASSERT_HK_OK(hk_memcpy_htod(dy.get(), y, 16));
    hk_arg args[] = {f64(2.0), ptr(dx.get()), ptr(dy.get()), u64(4)};
    ASSERT_HK_OK(hk_kernel_launch_n(k, 4, 0, nullptr, args, 4));
    float got[4];
    ASSERT_HK_OK(hk_memcpy_dtoh(got, dy.get(), 16));
    EXPECT_EQ(got[3], 48.0f);
    ASSERT_HK_OK(hk_module_unload(m));
}

} // namespace
