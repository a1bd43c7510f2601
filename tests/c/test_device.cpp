// test_device.cpp: device discovery, selection and information, and what
// every GPU call says on a machine without a GPU.
#include "common.h"

#include <thread>

namespace
{

int device_count()
{
    int count = -1;
    EXPECT_HK_OK(hk_device_count(&count));
    return count;
}

// ---------------------------------------------------------- any machine

TEST(DeviceCount, RefusesNullOutPointer)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_device_count", hk_device_count(nullptr));
}

TEST(DeviceCount, SucceedsWithOrWithoutAGpu)
{
    int count = -1;
    ASSERT_HK_OK(hk_device_count(&count));
    EXPECT_GE(count, 0);
    EXPECT_STREQ(hk_last_error(), "");
}

TEST(DeviceCount, IsTheSameOnEveryCallAndThread)
{
    const int first = device_count();
    EXPECT_EQ(device_count(), first);
    int other = -1;
    std::thread([&] { hk_device_count(&other); }).join();
    EXPECT_EQ(other, first);
}

TEST(DeviceGet, IsZeroOnAFreshThread)
{
    if (std::getenv("HIPKIT_DEVICE"))
        GTEST_SKIP() << "HIPKIT_DEVICE is set: a fresh thread starts on the device it names (test_cpu_device.cpp)";
    int device = -1;
    hk_status status = HK_ERROR_INTERNAL;
    std::thread([&] { status = hk_device_get(&device); }).join();
    EXPECT_EQ(status, HK_SUCCESS);
    EXPECT_EQ(device, 0);
}

TEST(DeviceGet, RefusesNullOutPointer)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_device_get", hk_device_get(nullptr));
}

TEST(DeviceGetInfo, RefusesNullOutPointer)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_device_get_info", hk_device_get_info(0, nullptr));
}

TEST(DeviceIds, NegativeIdIsAnInvalidDeviceEverywhere)
{
    hk_device_info info;
    hk_pool_stats stats;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_DEVICE, "hk_device_get_info", hk_device_get_info(-1, &info));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_DEVICE, "hk_device_set", hk_device_set(-1));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_DEVICE, "hk_pool_get_stats", hk_pool_get_stats(-1, &stats));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_DEVICE, "hk_pool_set_limit", hk_pool_set_limit(-1, 0));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_DEVICE, "hk_pool_trim", hk_pool_trim(-1, 0));
}

// With no GPU, device == count == 0 is "no device"; with GPUs, it is one past the last.
TEST(DeviceIds, IdEqualToCountIsRefusedTheSameWayEverywhere)
{
    const int count = device_count();
    const hk_status expected = count == 0 ? HK_ERROR_NO_DEVICE : HK_ERROR_INVALID_DEVICE;
    hk_device_info info;
    hk_pool_stats stats;
    EXPECT_HK_FAILS(expected, "hk_device_get_info", hk_device_get_info(count, &info));
    EXPECT_HK_FAILS(expected, "hk_device_set", hk_device_set(count));
    EXPECT_HK_FAILS(expected, "hk_pool_get_stats", hk_pool_get_stats(count, &stats));
    EXPECT_HK_FAILS(expected, "hk_pool_set_limit", hk_pool_set_limit(count, 0));
    EXPECT_HK_FAILS(expected, "hk_pool_trim", hk_pool_trim(count, 0));
}

// ------------------------------------------------- machine without a GPU

// A program that asked for a GPU (HIPKIT_DEVICE=gpu) on a machine without one is told so by every call
// that works on the current device, until it chooses a device itself; naming the CPU device works.
TEST(NoDevice, NamingTheCpuDeviceStillWorks)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    int count = 0;
    ASSERT_HK_OK(hk_device_count(&count));
    EXPECT_EQ(count, 1);
    hk_device_info info;
    ASSERT_HK_OK(hk_device_get_info(0, &info));
    EXPECT_EQ(info.kind, HK_DEVICE_KIND_CPU);
    hk_pool_stats stats;
    EXPECT_HK_OK(hk_pool_get_stats(0, &stats));
    void *ptr = nullptr;
    EXPECT_SAYS_NO_GPU("hk_malloc", hk_malloc(&ptr, 1024));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "HIPKIT_DEVICE=gpu")) << hk_last_error();
    ASSERT_HK_OK(hk_device_set(0));
    ASSERT_HK_OK(hk_malloc(&ptr, 1024));
    EXPECT_HK_OK(hk_free(ptr));
}

TEST(NoDevice, DeviceSynchronizeSaysNoGpu)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    EXPECT_SAYS_NO_GPU("hk_device_synchronize", hk_device_synchronize());
}

TEST(NoDevice, StreamCreateSaysNoGpu)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    hk_stream stream = nullptr;
    EXPECT_SAYS_NO_GPU("hk_stream_create", hk_stream_create(&stream));
}

TEST(NoDevice, DefaultStreamSynchronizeSaysNoGpu)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    EXPECT_SAYS_NO_GPU("hk_stream_synchronize", hk_stream_synchronize(nullptr));
}

TEST(NoDevice, EventCreateSaysNoGpu)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    hk_event event = nullptr;
    EXPECT_SAYS_NO_GPU("hk_event_create", hk_event_create(&event));
}

TEST(NoDevice, MallocSaysNoGpu)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    void *ptr = nullptr;
    EXPECT_SAYS_NO_GPU("hk_malloc", hk_malloc(&ptr, 1024));
}

TEST(NoDevice, MallocAsyncSaysNoGpu)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    void *ptr = nullptr;
    EXPECT_SAYS_NO_GPU("hk_malloc_async", hk_malloc_async(&ptr, 1024, nullptr));
}

TEST(NoDevice, HostMallocSaysNoGpu)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    void *ptr = nullptr;
    EXPECT_SAYS_NO_GPU("hk_host_malloc", hk_host_malloc(&ptr, 1024));
}

TEST(NoDevice, CopiesAndMemsetSayNoGpu)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    alignas(16) char host[64] = {0};
    hktest::Scratch device;
    ASSERT_HK_OK(device.init(64));
    EXPECT_SAYS_NO_GPU("hk_memcpy_htod", hk_memcpy_htod(device.at(), host, sizeof host));
    EXPECT_SAYS_NO_GPU("hk_memcpy_dtoh", hk_memcpy_dtoh(host, device.at(), sizeof host));
    EXPECT_SAYS_NO_GPU("hk_memset", hk_memset(device.at(), 0, sizeof host));
    EXPECT_SAYS_NO_GPU("hk_memset_async", hk_memset_async(device.at(), 0, sizeof host, nullptr));
}

// ------------------------------------------------------------ with a GPU

class Device : public GpuTest
{
};

TEST_F(Device, InfoDescribesARealDevice)
{
    SKIP_WITHOUT_GPU(); // the CPU device describes itself in test_cpu_device.cpp
    hk_device_info info;
    std::memset(&info, 0x5A, sizeof info);
    ASSERT_HK_OK(hk_device_get_info(0, &info));
    EXPECT_EQ(info.device, 0);
    EXPECT_GT(std::strlen(info.name), 0u);
    EXPECT_LT(std::strlen(info.name), sizeof info.name);
    EXPECT_GT(info.multiprocessor_count, 0);
    EXPECT_GE(info.max_threads_per_block, 64);
    EXPECT_GT(info.total_memory, 0u);
    EXPECT_GT(info.free_memory, 0u);
    EXPECT_LE(info.free_memory, info.total_memory);
    EXPECT_GT(info.shared_memory_per_block, 0u);
    EXPECT_GT(info.compute_major, 0);
    EXPECT_GE(info.pci_bus_id, 0);
}

TEST_F(Device, WarpSizeIs32Or64)
{
    SKIP_WITHOUT_GPU(); // the CPU device describes itself in test_cpu_device.cpp
    hk_device_info info;
    ASSERT_HK_OK(hk_device_get_info(0, &info));
    EXPECT_TRUE(info.warp_size == 32 || info.warp_size == 64) << info.warp_size;
    hk_platform platform;
    ASSERT_HK_OK(hk_platform_get(&platform));
    if (platform == HK_PLATFORM_NVIDIA) {
        EXPECT_EQ(info.warp_size, 32);
    }
}

TEST_F(Device, ArchNamesTheVendorsFamily)
{
    SKIP_WITHOUT_GPU(); // the CPU device describes itself in test_cpu_device.cpp
    hk_device_info info;
    ASSERT_HK_OK(hk_device_get_info(0, &info));
    const std::string arch = info.arch;
    hk_platform platform;
    ASSERT_HK_OK(hk_platform_get(&platform));
    if (platform == HK_PLATFORM_NVIDIA) {
        // Compute capability 9.0 is sm_90 (possibly with a suffix such as sm_90a).
        const std::string expected = "sm_" + std::to_string(info.compute_major) + std::to_string(info.compute_minor);
        EXPECT_EQ(arch.compare(0, expected.size(), expected), 0) << arch << " vs " << expected;
    } else {
        EXPECT_EQ(arch.compare(0, 3, "gfx"), 0) << arch;
    }
}

TEST_F(Device, EveryDeviceReportsItsOwnOrdinal)
{
    const int count = device_count();
    for (int d = 0; d < count; d++) {
        hk_device_info info;
        ASSERT_HK_OK(hk_device_get_info(d, &info));
        EXPECT_EQ(info.device, d);
    }
}

TEST_F(Device, SetOutOfRangeIsInvalidDeviceAndKeepsTheCurrentOne)
{
    ASSERT_HK_OK(hk_device_set(0));
    const int count = device_count();
    EXPECT_HK_FAILS(HK_ERROR_INVALID_DEVICE, "hk_device_set", hk_device_set(count));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_DEVICE, "hk_device_set", hk_device_set(count + 100));
    int current = -1;
    ASSERT_HK_OK(hk_device_get(&current));
    EXPECT_EQ(current, 0);
}

TEST_F(Device, SetThenGetReturnsIt)
{
    const int count = device_count();
    for (int d = count - 1; d >= 0; d--) {
        ASSERT_HK_OK(hk_device_set(d));
        int current = -1;
        ASSERT_HK_OK(hk_device_get(&current));
        EXPECT_EQ(current, d);
    }
}

TEST_F(Device, SelectionIsPerHostThread)
{
    ASSERT_HK_OK(hk_device_set(0));
    const int last = device_count() - 1;
    hk_status set_status = HK_ERROR_INTERNAL;
    int seen_there = -1;
    std::thread([&] {
        set_status = hk_device_set(last);
        hk_device_get(&seen_there);
    }).join();
    EXPECT_EQ(set_status, HK_SUCCESS);
    EXPECT_EQ(seen_there, last);
    int current = -1;
    ASSERT_HK_OK(hk_device_get(&current));
    EXPECT_EQ(current, 0);
}

TEST_F(Device, SynchronizeSucceeds)
{
    ASSERT_HK_OK(hk_device_synchronize());
    EXPECT_STREQ(hk_last_error(), "");
}

TEST_F(Device, RuntimeVersionIsPositive)
{
    int version = 0;
    ASSERT_HK_OK(hk_runtime_version(&version));
    EXPECT_GT(version, 0);
}

} // namespace

TEST(DriverVersion, AndTheNoGpuSentence)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_driver_version", hk_driver_version(nullptr));
    int driver = -1, gpus = -1;
    ASSERT_HK_OK(hk_driver_version(&driver));
    EXPECT_GE(driver, 0);
    ASSERT_HK_OK(hk_gpu_count(&gpus));
    const char *reason = hk_no_gpu_reason();
    ASSERT_NE(reason, nullptr);
    if (gpus > 0) {
        EXPECT_STREQ(reason, "");
        EXPECT_GT(driver, 0); // a GPU needs a driver
    } else {
        EXPECT_GT(strlen(reason), 10u) << "no GPU, and no sentence saying why";
    }
}
