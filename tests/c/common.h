// common.h: what the C API tests share: is there a GPU (skip or fail), status
// assertions that print hk_last_error(), random seeds, and RAII owners.
#ifndef HIPKIT_TESTS_COMMON_H
#define HIPKIT_TESTS_COMMON_H

#include <hipkit/hipkit.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

// Failures print "HK_ERROR_NO_DEVICE (2)" rather than a bare number. Found by
// argument-dependent lookup: hk_status lives in the global namespace.
inline void PrintTo(hk_status status, std::ostream *os)
{
    *os << hk_status_name(status) << " (" << static_cast<int>(status) << ")";
}

namespace hktest
{

// Devices exist everywhere: the GPUs, then the CPU device.
inline bool device_available()
{
    static const bool available = [] {
        int count = 0;
        return hk_device_count(&count) == HK_SUCCESS && count > 0;
    }();
    return available;
}

inline int gpu_count()
{
    static const int count = [] {
        int n = 0;
        return hk_gpu_count(&n) == HK_SUCCESS ? n : 0;
    }();
    return count;
}

// Is the calling thread's current device a GPU? Not on a machine without one, nor with
// HIPKIT_DEVICE=cpu: the op tests then run on the CPU device.
inline bool gpu_available()
{
    int device = -1;
    hk_device_info info;
    if (hk_device_get(&device) != HK_SUCCESS || hk_device_get_info(device, &info) != HK_SUCCESS)
        return false;
    return info.kind == HK_DEVICE_KIND_GPU;
}

// HIPKIT_REQUIRE_GPU=1 turns "no GPU, skipped" into a failure (for GPU CI).
inline bool gpu_required()
{
    const char *value = std::getenv("HIPKIT_REQUIRE_GPU");
    return value != nullptr && std::strcmp(value, "1") == 0;
}

inline std::string lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

inline ::testing::AssertionResult contains_ignoring_case(const std::string &text, const std::string &part)
{
    if (lower(text).find(lower(part)) != std::string::npos)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << text << "\" does not mention \"" << part << "\"";
}

// The message starts with the function's name as a whole word, so
// "hk_malloc_async: ..." does not count as naming hk_malloc.
inline ::testing::AssertionResult starts_with_function(const std::string &message, const std::string &function)
{
    bool named =
        message.compare(0, function.size(), function) == 0 &&
        (message.size() == function.size() ||
         !(std::isalnum(static_cast<unsigned char>(message[function.size()])) || message[function.size()] == '_'));
    if (named)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "hk_last_error() is \"" << message << "\", which does not start with \""
                                         << function << "\"";
}

inline uint64_t fresh_seed()
{
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) ^ device();
}

// Element type <-> hk_dtype, and the byte that poisons an output buffer:
// 0xFF makes every float a NaN; 0x7F makes integers 0x7F7F... (unlikely data).
template <typename T> struct Dtype;
template <> struct Dtype<float> {
    static constexpr hk_dtype value = HK_FLOAT32;
    static constexpr int poison_byte = 0xFF;
};
template <> struct Dtype<double> {
    static constexpr hk_dtype value = HK_FLOAT64;
    static constexpr int poison_byte = 0xFF;
};
template <> struct Dtype<int32_t> {
    static constexpr hk_dtype value = HK_INT32;
    static constexpr int poison_byte = 0x7F;
};
template <> struct Dtype<int64_t> {
    static constexpr hk_dtype value = HK_INT64;
    static constexpr int poison_byte = 0x7F;
};

// Device memory from hk_malloc, freed on scope exit unless released.
class DeviceMemory
{
  public:
    DeviceMemory() = default;
    DeviceMemory(const DeviceMemory &) = delete;
    DeviceMemory &operator=(const DeviceMemory &) = delete;
    ~DeviceMemory()
    {
        if (ptr_)
            hk_free(ptr_);
    }
    hk_status allocate(size_t bytes)
    {
        bytes_ = bytes;
        return hk_malloc(&ptr_, bytes);
    }
    void *get() const { return ptr_; }
    template <typename T> T *as() const { return static_cast<T *>(ptr_); }
    size_t bytes() const { return bytes_; }
    void *release()
    {
        void *ptr = ptr_;
        ptr_ = nullptr;
        return ptr;
    }

  private:
    void *ptr_ = nullptr;
    size_t bytes_ = 0;
};

// Pinned host memory from hk_host_malloc.
class PinnedMemory
{
  public:
    PinnedMemory() = default;
    PinnedMemory(const PinnedMemory &) = delete;
    PinnedMemory &operator=(const PinnedMemory &) = delete;
    ~PinnedMemory()
    {
        if (ptr_)
            hk_host_free(ptr_);
    }
    hk_status allocate(size_t bytes) { return hk_host_malloc(&ptr_, bytes); }
    void *get() const { return ptr_; }
    template <typename T> T *as() const { return static_cast<T *>(ptr_); }
    void *release()
    {
        void *ptr = ptr_;
        ptr_ = nullptr;
        return ptr;
    }

  private:
    void *ptr_ = nullptr;
};

class Stream
{
  public:
    Stream() = default;
    Stream(const Stream &) = delete;
    Stream &operator=(const Stream &) = delete;
    ~Stream()
    {
        if (stream_)
            hk_stream_destroy(stream_);
    }
    hk_status create() { return hk_stream_create(&stream_); }
    hk_stream get() const { return stream_; }
    hk_stream release()
    {
        hk_stream stream = stream_;
        stream_ = nullptr;
        return stream;
    }

  private:
    hk_stream stream_ = nullptr;
};

class Event
{
  public:
    Event() = default;
    Event(const Event &) = delete;
    Event &operator=(const Event &) = delete;
    ~Event()
    {
        if (event_)
            hk_event_destroy(event_);
    }
    hk_status create() { return hk_event_create(&event_); }
    hk_event get() const { return event_; }
    hk_event release()
    {
        hk_event event = event_;
        event_ = nullptr;
        return event;
    }

  private:
    hk_event event_ = nullptr;
};

// Work for a stream in tests of streams, events and memory: fill n floats with a value, or scale them
// in place (hk_fill and hk_elementwise over a 1-d view).
inline hk_array floats(void *data, size_t n)
{
    hk_array a{};
    a.data = data;
    a.dtype = HK_FLOAT32;
    a.ndim = 1;
    a.shape[0] = static_cast<int64_t>(n);
    a.strides[0] = 1;
    return a;
}
inline hk_status fill_floats(void *data, size_t n, float value, hk_stream stream)
{
    const hk_array out = floats(data, n);
    return hk_fill(&out, &value, stream);
}
inline hk_status scale_floats(void *data, size_t n, float factor, hk_stream stream)
{
    hk_array in[2] = {floats(data, n), {}};
    in[1].data = &factor;
    in[1].dtype = HK_FLOAT32;
    in[1].ndim = HK_HOST_SCALAR;
    return hk_elementwise(HK_OP_MULTIPLY, in, 2, &in[0], stream);
}

// Handles that hipkit never created. Handles are table-encoded integers, never
// dereferenced, so passing these is safe.
inline hk_stream bogus_stream()
{
    return reinterpret_cast<hk_stream>(static_cast<uintptr_t>(0x1234));
}
inline hk_event bogus_event()
{
    return reinterpret_cast<hk_event>(static_cast<uintptr_t>(0x1234));
}

// Memory for argument checks that must be refused before any work is queued: real memory of the
// current device, so a check the library forgets touches only memory the test owns.
class Scratch
{
  public:
    hk_status init(size_t bytes)
    {
        // Real memory where the current device can give it (a thread whose HIPKIT_DEVICE names no
        // device here cannot: it gets the address that is never dereferenced).
        if (device_available() && memory_.allocate(bytes) == HK_SUCCESS)
            return HK_SUCCESS;
        fake_ = reinterpret_cast<void *>(static_cast<uintptr_t>(0x7f0000000000ull));
        return HK_SUCCESS;
    }
    // base + offset bytes: offset 1 misaligns for every dtype but bool/int8/uint8.
    void *at(size_t offset = 0) const
    {
        char *base = static_cast<char *>(memory_.get() ? memory_.get() : fake_);
        return base + offset;
    }

  private:
    DeviceMemory memory_;
    void *fake_ = nullptr;
};

// Re-runs the current test in a child process with `environment` ("NAME=value ..."), and returns its
// exit status (0: passed). HIPKIT_TEST_CHILD=1 tells the child it is one.
inline int run_this_test_with(const std::string &environment)
{
    const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string command = "env " + environment + " HIPKIT_TEST_CHILD=1 /proc/self/exe --gtest_brief=1 --gtest_filter=";
    command += std::string(info->test_suite_name()) + "." + info->name();
    /* /proc/self/exe is resolved by the shell's own exec: point it at us. */
    char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length > 0) {
        self[length] = '\0';
        command.replace(command.find("/proc/self/exe"), 14, "'" + std::string(self) + "'");
    }
    return std::system(command.c_str());
}

inline int run_this_test_hiding_gpus()
{
    return run_this_test_with("CUDA_VISIBLE_DEVICES= HIP_VISIBLE_DEVICES= ROCR_VISIBLE_DEVICES= HIPKIT_DEVICE=gpu "
                              "HIPKIT_TEST_GPUS_HIDDEN=1");
}

// A value printed with every digit its type holds (integers as numbers, not chars).
template <typename T> std::string show(T v)
{
    std::ostringstream out;
    out << std::setprecision(std::numeric_limits<T>::max_digits10) << +v;
    return out.str();
}

// Collects the first few wrong elements for the failure message.
struct Mismatches {
    size_t count = 0;
    std::string text;
    void add(size_t i, const std::string &got, const std::string &expected)
    {
        if (count++ < 8)
            text += "  [" + std::to_string(i) + "] got " + got + ", expected " + expected + "\n";
    }
};

// A fresh disk-cache folder for one test, removed afterwards; the cache is off after it.
class CacheFolder
{
  public:
    CacheFolder()
    {
        path_ = std::filesystem::temp_directory_path() / ("hipkit-test-cache-" + std::to_string(fresh_seed()));
        EXPECT_EQ(hk_cache_set_dir(path_.c_str()), HK_SUCCESS) << hk_last_error();
    }
    ~CacheFolder()
    {
        hk_cache_set_dir(nullptr);
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    std::vector<std::filesystem::path> entries() const
    {
        std::vector<std::filesystem::path> files;
        for (const auto &entry : std::filesystem::directory_iterator(path_))
            if (entry.path().extension() == ".hkbin")
                files.push_back(entry.path());
        return files;
    }
    const std::filesystem::path &path() const { return path_; }

  private:
    std::filesystem::path path_;
};

} // namespace hktest

// Skip (or, with HIPKIT_REQUIRE_GPU=1, fail) when the current device is not a GPU: for the few tests
// that need a real one (vendor BLAS, GPU faults, user kernels). Everything else runs on whatever the
// current device is, the CPU device included. Use at the top of a test body or of a fixture's SetUp().
#define SKIP_WITHOUT_GPU()                                                                                             \
    do {                                                                                                               \
        if (!::hktest::gpu_available()) {                                                                              \
            if (::hktest::gpu_required())                                                                              \
                FAIL() << "HIPKIT_REQUIRE_GPU=1, but the current device is not a GPU";                                 \
            GTEST_SKIP() << "needs a GPU: the current device is the CPU device (no GPU here, or HIPKIT_DEVICE=cpu)";   \
        }                                                                                                              \
    } while (0)

// For tests of what a program that asks for a GPU (HIPKIT_DEVICE=gpu) is told on a machine without
// one. The test re-runs itself in a child process whose GPUs are hidden from the vendor runtime
// (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES empty) and whose environment says HIPKIT_DEVICE=gpu;
// the body runs in that child, on every machine.
#define RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR()                                                                           \
    do {                                                                                                               \
        if (!std::getenv("HIPKIT_TEST_GPUS_HIDDEN")) {                                                                 \
            if (std::getenv("HIPKIT_TEST_NO_REEXEC"))                                                                  \
                GTEST_SKIP() << "HIPKIT_TEST_NO_REEXEC is set (under a sanitizer): not re-run with the GPUs hidden";   \
            ASSERT_EQ(::hktest::run_this_test_hiding_gpus(), 0)                                                        \
                << "this no-GPU test failed when re-run with the GPUs hidden (output above)";                          \
            return;                                                                                                    \
        }                                                                                                              \
        ASSERT_EQ(::hktest::gpu_count(), 0) << "the GPUs were hidden from the runtime, yet hk_gpu_count() > 0";       \
    } while (0)

#define HKTEST_CHECK_OK_(assertion, expr)                                                                              \
    do {                                                                                                               \
        const hk_status hktest_status_ = (expr);                                                                       \
        const std::string hktest_message_ = hk_last_error();                                                           \
        assertion(hktest_status_, HK_SUCCESS) << #expr << "\n  hk_last_error(): " << hktest_message_;                  \
    } while (0)

// The call succeeds; otherwise print the status name and hk_last_error().
#define ASSERT_HK_OK(expr) HKTEST_CHECK_OK_(ASSERT_EQ, expr)
#define EXPECT_HK_OK(expr) HKTEST_CHECK_OK_(EXPECT_EQ, expr)

// The call returns `expected` (no check of the message).
#define EXPECT_HK_STATUS(expected, expr)                                                                               \
    do {                                                                                                               \
        const hk_status hktest_status_ = (expr);                                                                       \
        const std::string hktest_message_ = hk_last_error();                                                           \
        EXPECT_EQ(hktest_status_, (expected)) << #expr << "\n  hk_last_error(): " << hktest_message_;                  \
    } while (0)

// The call fails with `expected` and hk_last_error() starts with `function`.
#define EXPECT_HK_FAILS(expected, function, expr)                                                                      \
    do {                                                                                                               \
        const hk_status hktest_status_ = (expr);                                                                       \
        const std::string hktest_message_ = hk_last_error();                                                           \
        EXPECT_EQ(hktest_status_, (expected)) << #expr << "\n  hk_last_error(): " << hktest_message_;                  \
        EXPECT_TRUE(::hktest::starts_with_function(hktest_message_, (function))) << #expr;                             \
    } while (0)

// Without a GPU the call fails with HK_ERROR_NO_DEVICE, and its message names
// the function and says "no GPU".
#define EXPECT_SAYS_NO_GPU(function, expr)                                                                             \
    do {                                                                                                               \
        const hk_status hktest_status_ = (expr);                                                                       \
        const std::string hktest_message_ = hk_last_error();                                                           \
        EXPECT_EQ(hktest_status_, HK_ERROR_NO_DEVICE) << #expr << "\n  hk_last_error(): " << hktest_message_;          \
        EXPECT_TRUE(::hktest::starts_with_function(hktest_message_, (function))) << #expr;                             \
        EXPECT_TRUE(::hktest::contains_ignoring_case(hktest_message_, "no GPU")) << #expr;                             \
    } while (0)

// A fresh random seed, printed with every failure in the enclosing scope.
#define HKTEST_SEEDED_RNG(rng)                                                                                         \
    const uint64_t rng##_seed = ::hktest::fresh_seed();                                                                \
    SCOPED_TRACE("random seed " + std::to_string(rng##_seed));                                                         \
    std::mt19937_64 rng(rng##_seed)

// Fixture for tests that run on the current device, GPU or CPU (every device has one: the CPU
// device is always there).
class GpuTest : public ::testing::Test
{
  protected:
    void SetUp() override { ASSERT_TRUE(::hktest::device_available()) << hk_last_error(); }
};

#endif
