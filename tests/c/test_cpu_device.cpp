// test_cpu_device.cpp: the CPU device as a device: where it is numbered, what it reports, how
// HIPKIT_DEVICE picks the default device, and its streams and events (ordering, query, timing,
// several host threads). Runs on every machine; the op families on it are tested by the family
// tests, which run on whatever the current device is.
#include <atomic>
#include <cstring>
#include <thread>
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

// Runs the body with the CPU device current, the previous device restored afterwards.
class CpuDevice : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ASSERT_HK_OK(hk_device_get(&previous_));
        ASSERT_HK_OK(hk_device_set(cpu_ordinal()));
    }
    void TearDown() override { EXPECT_EQ(hk_device_set(previous_), HK_SUCCESS) << hk_last_error(); }
    int previous_ = 0;
};

TEST(CpuDeviceModel, TheGpusComeFirstThenTheCpuDevice)
{
    int count = 0, gpus = -1;
    ASSERT_HK_OK(hk_device_count(&count));
    ASSERT_HK_OK(hk_gpu_count(&gpus));
    EXPECT_EQ(count, gpus + 1);
    for (int d = 0; d < count; d++) {
        hk_device_info info;
        ASSERT_HK_OK(hk_device_get_info(d, &info));
        EXPECT_EQ(info.device, d);
        EXPECT_EQ(info.kind, d < gpus ? HK_DEVICE_KIND_GPU : HK_DEVICE_KIND_CPU) << d;
    }
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_gpu_count", hk_gpu_count(nullptr));
}

TEST(CpuDeviceModel, DescribesTheHost)
{
    hk_device_info info;
    ASSERT_HK_OK(hk_device_get_info(cpu_ordinal(), &info));
    EXPECT_EQ(std::strncmp(info.name, "CPU: ", 5), 0) << info.name;
    EXPECT_GT(std::strlen(info.name), 5u);
    EXPECT_STREQ(info.arch, "host");
    EXPECT_EQ(info.warp_size, 32) << "user kernels on the CPU device run 32-lane warps";
    EXPECT_GE(info.multiprocessor_count, 1);
    EXPECT_GT(info.total_memory, (size_t)0);
    EXPECT_GT(info.free_memory, (size_t)0);
    EXPECT_LE(info.free_memory, info.total_memory);
    EXPECT_EQ(info.pci_bus_id, -1);
    EXPECT_EQ(info.compute_major, 0);
}

TEST(CpuDeviceModel, KindNames)
{
    EXPECT_STREQ(hk_device_kind_name(HK_DEVICE_KIND_GPU), "gpu");
    EXPECT_STREQ(hk_device_kind_name(HK_DEVICE_KIND_CPU), "cpu");
    EXPECT_STREQ(hk_device_kind_name(static_cast<hk_device_kind>(7)), "unknown");
}

TEST(CpuDeviceModel, DefaultIsTheFirstGpuElseTheCpuDevice)
{
    if (std::getenv("HIPKIT_DEVICE"))
        GTEST_SKIP() << "HIPKIT_DEVICE is set: the default is what it says (tested in child processes below)";
    int device = -1;
    std::thread([&] { EXPECT_EQ(hk_device_get(&device), HK_SUCCESS); }).join();
    EXPECT_EQ(device, 0);
}

TEST(CpuDeviceModel, HipkitDeviceCpuMakesItTheDefault)
{
    if (!std::getenv("HIPKIT_TEST_CHILD")) {
        ASSERT_EQ(hktest::run_this_test_with("HIPKIT_DEVICE=cpu"), 0) << "the child's output is above";
        return;
    }
    int device = -1, fresh = -1;
    ASSERT_HK_OK(hk_device_get(&device));
    EXPECT_EQ(device, cpu_ordinal());
    std::thread([&] { EXPECT_EQ(hk_device_get(&fresh), HK_SUCCESS); }).join();
    EXPECT_EQ(fresh, cpu_ordinal()) << "every thread starts on the default device";
    void *p = nullptr;
    ASSERT_HK_OK(hk_malloc(&p, 4096));
    EXPECT_HK_OK(hk_free(p));
}

TEST(CpuDeviceModel, HipkitDeviceOrdinal)
{
    if (!std::getenv("HIPKIT_TEST_CHILD")) {
        ASSERT_EQ(hktest::run_this_test_with("HIPKIT_DEVICE=" + std::to_string(cpu_ordinal())), 0)
            << "the child's output is above";
        return;
    }
    int device = -1;
    ASSERT_HK_OK(hk_device_get(&device));
    EXPECT_EQ(device, cpu_ordinal());
}

TEST(CpuDeviceModel, UnusableHipkitDeviceIsExplainedUntilTheThreadChooses)
{
    if (!std::getenv("HIPKIT_TEST_CHILD")) {
        ASSERT_EQ(hktest::run_this_test_with("HIPKIT_DEVICE=tpu7"), 0) << "the child's output is above";
        return;
    }
    void *p = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_DEVICE, "hk_malloc", hk_malloc(&p, 64));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "HIPKIT_DEVICE=tpu7")) << hk_last_error();
    hk_stream stream = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_DEVICE, "hk_stream_create", hk_stream_create(&stream));
    // Choosing a device makes the thread usable again.
    ASSERT_HK_OK(hk_device_set(cpu_ordinal()));
    ASSERT_HK_OK(hk_malloc(&p, 64));
    EXPECT_HK_OK(hk_free(p));
}

TEST_F(CpuDevice, StreamsRunInOrderAndEventsTime)
{
    const size_t n = size_t(1) << 24; // 16 MiB: queued for the worker, not run inline
    void *a = nullptr, *b = nullptr;
    ASSERT_HK_OK(hk_malloc(&a, n));
    ASSERT_HK_OK(hk_malloc(&b, n));
    hk_stream s1 = nullptr, s2 = nullptr;
    ASSERT_HK_OK(hk_stream_create(&s1));
    ASSERT_HK_OK(hk_stream_create(&s2));
    hk_event start = nullptr, mid = nullptr, end = nullptr;
    ASSERT_HK_OK(hk_event_create(&start));
    ASSERT_HK_OK(hk_event_create(&mid));
    ASSERT_HK_OK(hk_event_create(&end));
    ASSERT_HK_OK(hk_event_record(start, s1));
    for (int round = 0; round < 8; round++) {
        ASSERT_HK_OK(hk_memset_async(a, round, n, s1));
        ASSERT_HK_OK(hk_memcpy_dtod_async(b, a, n, s1));
    }
    ASSERT_HK_OK(hk_event_record(mid, s1));
    // s2 waits for s1's work, then overwrites b.
    ASSERT_HK_OK(hk_stream_wait_event(s2, mid));
    ASSERT_HK_OK(hk_memset_async(b, 0x5a, n, s2));
    ASSERT_HK_OK(hk_event_record(end, s2));
    ASSERT_HK_OK(hk_event_synchronize(end));
    EXPECT_HK_OK(hk_event_query(end));
    EXPECT_HK_OK(hk_stream_query(s1));
    EXPECT_HK_OK(hk_stream_query(s2));
    float ms = -1.0f;
    ASSERT_HK_OK(hk_event_elapsed_ms(&ms, start, end));
    EXPECT_GT(ms, 0.0f);
    std::vector<unsigned char> host(n);
    ASSERT_HK_OK(hk_memcpy_dtoh(host.data(), b, n));
    size_t wrong = 0;
    for (unsigned char v : host)
        wrong += v != 0x5a;
    EXPECT_EQ(wrong, 0u);
    ASSERT_HK_OK(hk_memcpy_dtoh(host.data(), a, n));
    EXPECT_EQ(host[0], 7);
    EXPECT_EQ(host[n - 1], 7);
    for (hk_event e : {start, mid, end})
        EXPECT_HK_OK(hk_event_destroy(e));
    EXPECT_HK_OK(hk_stream_destroy(s1));
    EXPECT_HK_OK(hk_stream_destroy(s2));
    EXPECT_HK_OK(hk_free(a));
    EXPECT_HK_OK(hk_free(b));
}

TEST_F(CpuDevice, QueryIsNotReadyWhileWorkIsQueued)
{
    const size_t n = size_t(1) << 26;
    void *a = nullptr;
    ASSERT_HK_OK(hk_malloc(&a, n));
    hk_stream s = nullptr;
    ASSERT_HK_OK(hk_stream_create(&s));
    hk_event e = nullptr;
    ASSERT_HK_OK(hk_event_create(&e));
    // 64 memsets of 64 MiB: far longer than the calls that queue them.
    for (int i = 0; i < 64; i++)
        ASSERT_HK_OK(hk_memset_async(a, i, n, s));
    ASSERT_HK_OK(hk_event_record(e, s));
    const hk_status query = hk_event_query(e);
    EXPECT_EQ(query, HK_ERROR_NOT_READY);
    EXPECT_EQ(hk_stream_query(s), HK_ERROR_NOT_READY);
    ASSERT_HK_OK(hk_stream_synchronize(s));
    EXPECT_HK_OK(hk_event_query(e));
    EXPECT_HK_OK(hk_event_destroy(e));
    EXPECT_HK_OK(hk_stream_destroy(s));
    EXPECT_HK_OK(hk_free(a));
}

TEST_F(CpuDevice, ManyThreadsQueueingAtOnce)
{
    const int threads = 8;
    const size_t n = size_t(1) << 20;
    std::atomic<int> failures{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++)
        pool.emplace_back([&, t] {
            if (hk_device_set(cpu_ordinal()) != HK_SUCCESS) {
                failures++;
                return;
            }
            void *a = nullptr;
            hk_stream s = nullptr;
            std::vector<unsigned char> host(n);
            if (hk_malloc(&a, n) != HK_SUCCESS || hk_stream_create(&s) != HK_SUCCESS) {
                failures++;
                return;
            }
            for (int round = 0; round < 20; round++) {
                const int value = (t * 31 + round) & 0xff;
                if (hk_memset_async(a, value, n, s) != HK_SUCCESS ||
                    hk_memcpy_dtoh_async(host.data(), a, n, s) != HK_SUCCESS ||
                    hk_stream_synchronize(s) != HK_SUCCESS || host[0] != value || host[n - 1] != value)
                    failures++;
            }
            if (hk_stream_destroy(s) != HK_SUCCESS || hk_free(a) != HK_SUCCESS)
                failures++;
        });
    for (auto &t : pool)
        t.join();
    EXPECT_EQ(failures.load(), 0);
}

TEST_F(CpuDevice, AnEventOfTheCpuDeviceCannotOrderAGpuStream)
{
    if (hktest::gpu_count() == 0)
        GTEST_SKIP() << "needs a GPU beside the CPU device";
    hk_event e = nullptr;
    ASSERT_HK_OK(hk_event_create(&e));
    ASSERT_HK_OK(hk_device_set(0));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_stream_wait_event", hk_stream_wait_event(nullptr, e));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "cpu device")) << hk_last_error();
    EXPECT_HK_OK(hk_event_destroy(e));
}

} // namespace

namespace
{

// The same Philox numbers on every kind of device: uniforms from one seed and offset are bit for bit
// the same on the first GPU and on the CPU device (hip_kernels/random/philox.h is the one generator).
TEST(CpuDeviceRandom, UniformsAreBitIdenticalToTheGpus)
{
    if (hktest::gpu_count() == 0)
        GTEST_SKIP() << "needs a GPU beside the CPU device";
    int previous = 0;
    ASSERT_HK_OK(hk_device_get(&previous));
    for (hk_dtype dtype : {HK_FLOAT32, HK_FLOAT64}) {
        for (size_t n : {size_t(1), size_t(7), size_t(100003), size_t(1) << 20}) {
            const uint64_t seed = 0x9e3779b97f4a7c15ull ^ n, offset = n % 5;
            const size_t bytes = n * (dtype == HK_FLOAT32 ? 4 : 8);
            std::vector<std::vector<unsigned char>> results;
            for (int device : {0, cpu_ordinal()}) {
                ASSERT_HK_OK(hk_device_set(device));
                void *d = nullptr;
                ASSERT_HK_OK(hk_malloc(&d, bytes));
                ASSERT_HK_OK(hk_memset(d, 0xA5, bytes)); // poisoned first
                ASSERT_HK_OK(hk_random_uniform(d, dtype, n, seed, offset, -3.0, 5.0, nullptr));
                std::vector<unsigned char> host(bytes);
                ASSERT_HK_OK(hk_memcpy_dtoh(host.data(), d, bytes));
                ASSERT_HK_OK(hk_free(d));
                results.push_back(std::move(host));
            }
            size_t differing = 0;
            for (size_t i = 0; i < bytes; i++)
                differing += results[0][i] != results[1][i];
            EXPECT_EQ(differing, 0u) << hk_dtype_name(dtype) << ", n " << n;
        }
    }
    ASSERT_HK_OK(hk_device_set(previous));
}

} // namespace
