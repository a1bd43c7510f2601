// test_status.cpp: status names, hk_last_error(), version, platform and dtype
// queries. None of these needs a GPU.
#include "common.h"
#include "raw_enums.h"

#include <thread>

namespace
{

TEST(StatusName, EveryStatusHasItsConstantName)
{
    EXPECT_STREQ(hk_status_name(HK_SUCCESS), "HK_SUCCESS");
    EXPECT_STREQ(hk_status_name(HK_ERROR_INVALID_ARGUMENT), "HK_ERROR_INVALID_ARGUMENT");
    EXPECT_STREQ(hk_status_name(HK_ERROR_NO_DEVICE), "HK_ERROR_NO_DEVICE");
    EXPECT_STREQ(hk_status_name(HK_ERROR_INVALID_DEVICE), "HK_ERROR_INVALID_DEVICE");
    EXPECT_STREQ(hk_status_name(HK_ERROR_OUT_OF_MEMORY), "HK_ERROR_OUT_OF_MEMORY");
    EXPECT_STREQ(hk_status_name(HK_ERROR_INVALID_HANDLE), "HK_ERROR_INVALID_HANDLE");
    EXPECT_STREQ(hk_status_name(HK_ERROR_NOT_READY), "HK_ERROR_NOT_READY");
    EXPECT_STREQ(hk_status_name(HK_ERROR_NOT_SUPPORTED), "HK_ERROR_NOT_SUPPORTED");
    EXPECT_STREQ(hk_status_name(HK_ERROR_LAUNCH_FAILED), "HK_ERROR_LAUNCH_FAILED");
    EXPECT_STREQ(hk_status_name(HK_ERROR_RUNTIME), "HK_ERROR_RUNTIME");
    EXPECT_STREQ(hk_status_name(HK_ERROR_INTERNAL), "HK_ERROR_INTERNAL");
    EXPECT_STREQ(hk_status_name(HK_ERROR_COMPILE), "HK_ERROR_COMPILE");
}

TEST(StatusName, OutOfRangeStatusGetsANameThatIsNoRealStatus)
{
    for (int value : {-1, 12, 1000}) {
        SCOPED_TRACE("status value " + std::to_string(value));
        const char *name = hktest_status_name(value);
        ASSERT_NE(name, nullptr);
        EXPECT_STRNE(name, "");
        for (int real = HK_SUCCESS; real <= HK_ERROR_COMPILE; real++)
            EXPECT_STRNE(name, hk_status_name(static_cast<hk_status>(real)));
    }
}

TEST(LastError, IsEmptyAfterASuccessfulCall)
{
    ASSERT_EQ(hk_version(nullptr, nullptr, nullptr), HK_ERROR_INVALID_ARGUMENT);
    ASSERT_STRNE(hk_last_error(), "");
    int major = -1, minor = -1, patch = -1;
    ASSERT_HK_OK(hk_version(&major, &minor, &patch));
    EXPECT_STREQ(hk_last_error(), "");
}

TEST(LastError, StartsWithTheFailingFunctionsName)
{
    size_t bytes = 0;
    int value = 0;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_version", hk_version(nullptr, &value, &value));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_platform_get", hk_platform_get(nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_runtime_version", hk_runtime_version(nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_device_count", hk_device_count(nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_dtype_size", hktest_dtype_size(99, &bytes));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_malloc", hk_malloc(nullptr, 64));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_malloc_async", hk_malloc_async(nullptr, 64, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_pool_get_stats", hk_pool_get_stats(0, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_destroy", hk_stream_destroy(nullptr));
}

TEST(LastError, IsNeverNullOnAFreshThread)
{
    const char *seen = nullptr;
    std::thread([&] { seen = hk_last_error(); }).join();
    ASSERT_NE(seen, nullptr);
    EXPECT_STREQ(seen, "");
}

TEST(LastError, IsPerThread)
{
    ASSERT_EQ(hk_device_count(nullptr), HK_ERROR_INVALID_ARGUMENT);
    const std::string mine = hk_last_error();
    ASSERT_TRUE(hktest::starts_with_function(mine, "hk_device_count"));

    std::string other_before, other_after;
    std::thread([&] {
        other_before = hk_last_error();
        hk_platform_get(nullptr);
        other_after = hk_last_error();
    }).join();

    EXPECT_EQ(other_before, "") << "a new thread must not see this thread's error";
    EXPECT_TRUE(hktest::starts_with_function(other_after, "hk_platform_get"));
    EXPECT_EQ(std::string(hk_last_error()), mine) << "another thread's failure must not change this thread's error";
}

TEST(LastError, SuccessOnAnotherThreadLeavesThisThreadsErrorAlone)
{
    ASSERT_EQ(hk_platform_get(nullptr), HK_ERROR_INVALID_ARGUMENT);
    const std::string mine = hk_last_error();
    std::thread([] {
        int major, minor, patch;
        hk_version(&major, &minor, &patch);
    }).join();
    EXPECT_EQ(std::string(hk_last_error()), mine);
}

TEST(Version, MatchesTheHeader)
{
    int major = -1, minor = -1, patch = -1;
    ASSERT_HK_OK(hk_version(&major, &minor, &patch));
    EXPECT_EQ(major, HK_VERSION_MAJOR);
    EXPECT_EQ(minor, HK_VERSION_MINOR);
    EXPECT_EQ(patch, HK_VERSION_PATCH);
}

TEST(Version, RefusesEachNullOutPointer)
{
    int value = 0;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_version", hk_version(nullptr, &value, &value));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_version", hk_version(&value, nullptr, &value));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_version", hk_version(&value, &value, nullptr));
}

TEST(Platform, IsTheOneThisBuildTargets)
{
    hk_platform platform = static_cast<hk_platform>(0);
    ASSERT_HK_OK(hk_platform_get(&platform));
#if defined(HIPKIT_TEST_EXPECT_NVIDIA)
    EXPECT_EQ(platform, HK_PLATFORM_NVIDIA);
#elif defined(HIPKIT_TEST_EXPECT_AMD)
    EXPECT_EQ(platform, HK_PLATFORM_AMD);
#else
    EXPECT_TRUE(platform == HK_PLATFORM_AMD || platform == HK_PLATFORM_NVIDIA) << platform;
#endif
}

TEST(Platform, GetRefusesNullOutPointer)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_platform_get", hk_platform_get(nullptr));
}

TEST(PlatformName, NamesBothVendorsAndUnknownOtherwise)
{
    EXPECT_STREQ(hk_platform_name(HK_PLATFORM_AMD), "amd");
    EXPECT_STREQ(hk_platform_name(HK_PLATFORM_NVIDIA), "nvidia");
    for (int value : {0, 3, -1, 1000}) {
        const char *name = hktest_platform_name(value);
        ASSERT_NE(name, nullptr);
        EXPECT_STREQ(name, "unknown") << "platform value " << value;
    }
}

TEST(RuntimeVersion, RefusesNullOutPointer)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_runtime_version", hk_runtime_version(nullptr));
}

TEST(RuntimeVersion, IsPositiveOrSaysThereIsNoDevice)
{
    int version = -1;
    const hk_status status = hk_runtime_version(&version);
    const std::string message = hk_last_error();
    if (hktest::gpu_available() || status == HK_SUCCESS) {
        ASSERT_EQ(status, HK_SUCCESS) << message;
        EXPECT_GT(version, 0);
    } else {
        // Without a driver some runtimes cannot report their version.
        EXPECT_EQ(status, HK_ERROR_NO_DEVICE) << message;
    }
}

TEST(DtypeName, NamesEveryDtype)
{
    EXPECT_STREQ(hk_dtype_name(HK_BOOL), "bool");
    EXPECT_STREQ(hk_dtype_name(HK_INT8), "int8");
    EXPECT_STREQ(hk_dtype_name(HK_UINT8), "uint8");
    EXPECT_STREQ(hk_dtype_name(HK_INT32), "int32");
    EXPECT_STREQ(hk_dtype_name(HK_UINT32), "uint32");
    EXPECT_STREQ(hk_dtype_name(HK_INT64), "int64");
    EXPECT_STREQ(hk_dtype_name(HK_UINT64), "uint64");
    EXPECT_STREQ(hk_dtype_name(HK_FLOAT16), "float16");
    EXPECT_STREQ(hk_dtype_name(HK_FLOAT32), "float32");
    EXPECT_STREQ(hk_dtype_name(HK_FLOAT64), "float64");
}

TEST(DtypeName, OutOfRangeIsInvalid)
{
    for (int value : {-1, HK_DTYPE_COUNT, 1000}) {
        const char *name = hktest_dtype_name(value);
        ASSERT_NE(name, nullptr);
        EXPECT_STREQ(name, "invalid") << "dtype value " << value;
    }
}

TEST(DtypeSize, GivesBytesPerElement)
{
    const struct {
        hk_dtype dtype;
        size_t bytes;
    } expected[] = {{HK_BOOL, 1},  {HK_INT8, 1},   {HK_UINT8, 1},     {HK_INT32, 4},      {HK_UINT32, 4},
                    {HK_INT64, 8}, {HK_UINT64, 8}, {HK_FLOAT16, 2},   {HK_FLOAT32, 4},    {HK_FLOAT64, 8},
                    {HK_INT16, 2}, {HK_UINT16, 2}, {HK_COMPLEX64, 8}, {HK_COMPLEX128, 16}};
    for (const auto &e : expected) {
        size_t bytes = 0;
        ASSERT_HK_OK(hk_dtype_size(e.dtype, &bytes));
        EXPECT_EQ(bytes, e.bytes) << hk_dtype_name(e.dtype);
    }
}

TEST(DtypeSize, RefusesOutOfRangeDtype)
{
    size_t bytes = 0;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_dtype_size", hktest_dtype_size(-1, &bytes));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_dtype_size", hktest_dtype_size(HK_DTYPE_COUNT, &bytes));
}

TEST(DtypeSize, RefusesNullOutPointer)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_dtype_size", hk_dtype_size(HK_FLOAT32, nullptr));
}

} // namespace
