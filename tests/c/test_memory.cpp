// test_memory.cpp: the device pool (allocate, free, statistics, limit, trim,
// out-of-memory), pinned host memory, copies and memset.
#include "common.h"

#include <atomic>
#include <functional>
#include <thread>

namespace
{

using hktest::bogus_stream;

constexpr size_t kMiB = size_t{1} << 20;

// ---------------------------------------------------------- any machine

TEST(Malloc, RefusesNullOutPointer)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_malloc", hk_malloc(nullptr, 1024));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_malloc_async", hk_malloc_async(nullptr, 1024, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_host_malloc", hk_host_malloc(nullptr, 1024));
}

TEST(Malloc, ZeroBytesGivesNullAndSuccess)
{
    void *ptr = reinterpret_cast<void *>(uintptr_t{0x1000});
    ASSERT_HK_OK(hk_malloc(&ptr, 0));
    EXPECT_EQ(ptr, nullptr);
    ptr = reinterpret_cast<void *>(uintptr_t{0x1000});
    ASSERT_HK_OK(hk_malloc_async(&ptr, 0, nullptr));
    EXPECT_EQ(ptr, nullptr);
}

TEST(Malloc, AsyncOnAnUnknownStreamIsInvalidHandle)
{
    void *ptr = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_malloc_async", hk_malloc_async(&ptr, 1024, bogus_stream()));
}

TEST(Free, NullIsANoOp)
{
    ASSERT_HK_OK(hk_free(nullptr));
    EXPECT_STREQ(hk_last_error(), "");
    ASSERT_HK_OK(hk_free_async(nullptr, nullptr));
    ASSERT_HK_OK(hk_host_free(nullptr));
}

TEST(Free, RefusesPointersNotFromMalloc)
{
    int on_stack = 0;
    std::vector<char> on_heap(64);
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_free", hk_free(&on_stack));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_free", hk_free(on_heap.data()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_free_async", hk_free_async(&on_stack, nullptr));
}

TEST(Free, HostFreeRefusesPointersNotFromHostMalloc)
{
    int on_stack = 0;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_host_free", hk_host_free(&on_stack));
}

TEST(PoolStats, RefusesNullOutPointer)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_pool_get_stats", hk_pool_get_stats(0, nullptr));
}

TEST(Copies, RefuseNullPointers)
{
    hktest::Scratch device;
    ASSERT_HK_OK(device.init(1024));
    alignas(16) char host[64] = {0};
    void *d = device.at();
    void *d2 = device.at(512);
    const size_t n = sizeof host;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_htod", hk_memcpy_htod(nullptr, host, n));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_htod", hk_memcpy_htod(d, nullptr, n));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_dtoh", hk_memcpy_dtoh(nullptr, d, n));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_dtoh", hk_memcpy_dtoh(host, nullptr, n));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_dtod", hk_memcpy_dtod(nullptr, d, n));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_dtod", hk_memcpy_dtod(d2, nullptr, n));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_htod_async", hk_memcpy_htod_async(nullptr, host, n, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_htod_async", hk_memcpy_htod_async(d, nullptr, n, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_dtoh_async", hk_memcpy_dtoh_async(nullptr, d, n, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_dtoh_async", hk_memcpy_dtoh_async(host, nullptr, n, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_dtod_async", hk_memcpy_dtod_async(nullptr, d, n, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_dtod_async", hk_memcpy_dtod_async(d2, nullptr, n, nullptr));
}

TEST(Memset, RefusesNullPointer)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memset", hk_memset(nullptr, 0, 64));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memset_async", hk_memset_async(nullptr, 0, 64, nullptr));
}

TEST(Copies, AsyncOnAnUnknownStreamIsInvalidHandle)
{
    hktest::Scratch device;
    ASSERT_HK_OK(device.init(1024));
    alignas(16) char host[64] = {0};
    void *d = device.at();
    void *d2 = device.at(512);
    const size_t n = sizeof host;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_memcpy_htod_async", hk_memcpy_htod_async(d, host, n, bogus_stream()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_memcpy_dtoh_async", hk_memcpy_dtoh_async(host, d, n, bogus_stream()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_memcpy_dtod_async", hk_memcpy_dtod_async(d2, d, n, bogus_stream()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_memset_async", hk_memset_async(d, 0, n, bogus_stream()));
}

// ------------------------------------------------------------ with a GPU

class Memory : public GpuTest
{
};

hk_pool_stats pool_stats()
{
    hk_pool_stats stats;
    std::memset(&stats, 0, sizeof stats);
    int device = 0;
    EXPECT_HK_OK(hk_device_get(&device));
    EXPECT_HK_OK(hk_pool_get_stats(device, &stats));
    return stats;
}

// Restores "no limit" however the test ends.
struct PoolLimitReset {
    ~PoolLimitReset() { hk_pool_set_limit(0, 0); }
};

std::vector<unsigned char> random_bytes(std::mt19937_64 &rng, size_t n)
{
    std::vector<unsigned char> bytes(n);
    for (auto &b : bytes)
        b = static_cast<unsigned char>(rng());
    return bytes;
}

TEST_F(Memory, MallocGivesDistinctBlocksAlignedForEveryDtype)
{
    const size_t sizes[] = {1, 7, 256, kMiB + 3, 64 * kMiB};
    hktest::DeviceMemory blocks[5];
    for (size_t i = 0; i < 5; i++) {
        ASSERT_HK_OK(blocks[i].allocate(sizes[i]));
        ASSERT_NE(blocks[i].get(), nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(blocks[i].get()) % 8, 0u) << sizes[i] << " bytes";
    }
    for (size_t i = 0; i < 5; i++)
        for (size_t j = i + 1; j < 5; j++) {
            const uintptr_t a = reinterpret_cast<uintptr_t>(blocks[i].get());
            const uintptr_t b = reinterpret_cast<uintptr_t>(blocks[j].get());
            EXPECT_TRUE(a + sizes[i] <= b || b + sizes[j] <= a) << "blocks " << i << " and " << j << " overlap";
        }
}

TEST_F(Memory, HostToDeviceToHostRoundTripKeepsEveryByte)
{
    HKTEST_SEEDED_RNG(rng);
    for (size_t n : {size_t{1}, size_t{7}, kMiB + 3}) {
        SCOPED_TRACE("bytes " + std::to_string(n));
        const auto sent = random_bytes(rng, n);
        hktest::DeviceMemory device;
        ASSERT_HK_OK(device.allocate(n));
        ASSERT_HK_OK(hk_memcpy_htod(device.get(), sent.data(), n));
        std::vector<unsigned char> back(n, 0);
        ASSERT_HK_OK(hk_memcpy_dtoh(back.data(), device.get(), n));
        EXPECT_TRUE(back == sent);
    }
}

TEST_F(Memory, LargePageableCopiesAreStagedWithoutLosingAByte)
{
    // Above 32 MiB, pageable copies go through pinned buffers and host threads;
    // odd sizes and a host pointer off by one byte reach every edge of that path.
    HKTEST_SEEDED_RNG(rng);
    for (size_t n : {32 * kMiB, 100 * kMiB + 3}) {
        SCOPED_TRACE("bytes " + std::to_string(n));
        auto sent = random_bytes(rng, n + 1);
        hktest::DeviceMemory device;
        ASSERT_HK_OK(device.allocate(n + 64));
        ASSERT_HK_OK(hk_memset(device.get(), 0x7F, n + 64));
        ASSERT_HK_OK(hk_memcpy_htod(device.as<char>() + 16, sent.data() + 1, n));
        std::vector<unsigned char> back(n + 2, 0xA5);
        ASSERT_HK_OK(hk_memcpy_dtoh(back.data() + 1, device.as<char>() + 16, n));
        EXPECT_TRUE(std::equal(sent.begin() + 1, sent.end(), back.begin() + 1)) << "payload differs";
        EXPECT_EQ(back[0], 0xA5) << "byte before the destination was written";
        EXPECT_EQ(back[n + 1], 0xA5) << "byte after the destination was written";
        unsigned char edges[16];
        ASSERT_HK_OK(hk_memcpy_dtoh(edges, device.get(), 16));
        EXPECT_EQ(std::count(edges, edges + 16, 0x7F), 16) << "device bytes before the range were written";
    }
}

TEST_F(Memory, DeviceToDeviceCopiesExactlyTheRange)
{
    HKTEST_SEEDED_RNG(rng);
    const size_t n = kMiB + 3, guard = 64;
    const auto data = random_bytes(rng, n);
    hktest::DeviceMemory src, dst;
    ASSERT_HK_OK(src.allocate(n));
    ASSERT_HK_OK(dst.allocate(n + 2 * guard));
    ASSERT_HK_OK(hk_memcpy_htod(src.get(), data.data(), n));
    ASSERT_HK_OK(hk_memset(dst.get(), 0x7F, n + 2 * guard));
    ASSERT_HK_OK(hk_memcpy_dtod(dst.as<char>() + guard, src.get(), n));
    std::vector<unsigned char> back(n + 2 * guard);
    ASSERT_HK_OK(hk_memcpy_dtoh(back.data(), dst.get(), back.size()));
    EXPECT_TRUE(std::equal(data.begin(), data.end(), back.begin() + guard));
    for (size_t i = 0; i < guard; i++) {
        EXPECT_EQ(back[i], 0x7F) << "byte before the range, at " << i;
        EXPECT_EQ(back[guard + n + i], 0x7F) << "byte after the range, at " << i;
    }
}

TEST_F(Memory, AsyncCopiesWithPinnedMemoryRoundTrip)
{
    HKTEST_SEEDED_RNG(rng);
    const size_t n = 4 * kMiB + 5;
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    hktest::PinnedMemory in, out;
    ASSERT_HK_OK(in.allocate(n));
    ASSERT_HK_OK(out.allocate(n));
    const auto data = random_bytes(rng, n);
    std::memcpy(in.get(), data.data(), n);
    std::memset(out.get(), 0, n);
    hktest::DeviceMemory a, b;
    ASSERT_HK_OK(a.allocate(n));
    ASSERT_HK_OK(b.allocate(n));
    ASSERT_HK_OK(hk_memcpy_htod_async(a.get(), in.get(), n, stream.get()));
    ASSERT_HK_OK(hk_memcpy_dtod_async(b.get(), a.get(), n, stream.get()));
    ASSERT_HK_OK(hk_memcpy_dtoh_async(out.get(), b.get(), n, stream.get()));
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
    EXPECT_EQ(std::memcmp(out.get(), data.data(), n), 0);
}

TEST_F(Memory, AsyncCopiesWithPageableMemoryRoundTrip)
{
    HKTEST_SEEDED_RNG(rng);
    const size_t n = 4 * kMiB + 5;
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    const auto data = random_bytes(rng, n);
    std::vector<unsigned char> out(n, 0);
    hktest::DeviceMemory device;
    ASSERT_HK_OK(device.allocate(n));
    ASSERT_HK_OK(hk_memcpy_htod_async(device.get(), data.data(), n, stream.get()));
    ASSERT_HK_OK(hk_memcpy_dtoh_async(out.data(), device.get(), n, stream.get()));
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
    EXPECT_TRUE(out == data);
}

TEST_F(Memory, CopiesOfZeroBytesSucceed)
{
    hktest::DeviceMemory a, b;
    ASSERT_HK_OK(a.allocate(64));
    ASSERT_HK_OK(b.allocate(64));
    char host[64];
    EXPECT_HK_OK(hk_memcpy_htod(a.get(), host, 0));
    EXPECT_HK_OK(hk_memcpy_dtoh(host, a.get(), 0));
    EXPECT_HK_OK(hk_memcpy_dtod(b.get(), a.get(), 0));
    EXPECT_HK_OK(hk_memcpy_htod_async(a.get(), host, 0, nullptr));
    EXPECT_HK_OK(hk_memcpy_dtoh_async(host, a.get(), 0, nullptr));
    EXPECT_HK_OK(hk_memcpy_dtod_async(b.get(), a.get(), 0, nullptr));
    EXPECT_HK_OK(hk_memset(a.get(), 0, 0));
    EXPECT_HK_OK(hk_memset_async(a.get(), 0, 0, nullptr));
}

TEST_F(Memory, OverlappingDeviceToDeviceCopyIsRefused)
{
    hktest::DeviceMemory block;
    ASSERT_HK_OK(block.allocate(1024));
    char *p = block.as<char>();
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_dtod", hk_memcpy_dtod(p + 16, p, 256));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_dtod", hk_memcpy_dtod(p, p + 16, 256));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_dtod_async", hk_memcpy_dtod_async(p + 255, p, 256, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_memcpy_dtod_async", hk_memcpy_dtod_async(p, p + 255, 256, nullptr));
}

TEST_F(Memory, AdjacentDeviceToDeviceRangesAreNotAnOverlap)
{
    hktest::DeviceMemory block;
    ASSERT_HK_OK(block.allocate(1024));
    char *p = block.as<char>();
    ASSERT_HK_OK(hk_memset(p, 0x11, 256));
    EXPECT_HK_OK(hk_memcpy_dtod(p + 256, p, 256));
    EXPECT_HK_OK(hk_memcpy_dtod_async(p + 512, p + 256, 256, nullptr));
    ASSERT_HK_OK(hk_stream_synchronize(nullptr));
    unsigned char last = 0;
    ASSERT_HK_OK(hk_memcpy_dtoh(&last, p + 767, 1));
    EXPECT_EQ(last, 0x11);
}

TEST_F(Memory, MemsetWritesTheLowByteOfValueToExactlyTheRange)
{
    const size_t n = kMiB + 3, guard = 64;
    hktest::DeviceMemory block;
    ASSERT_HK_OK(block.allocate(n + 2 * guard));
    ASSERT_HK_OK(hk_memset(block.get(), 0x7F, n + 2 * guard));
    ASSERT_HK_OK(hk_memset(block.as<char>() + guard, 0x1AB, n));
    std::vector<unsigned char> back(n + 2 * guard);
    ASSERT_HK_OK(hk_memcpy_dtoh(back.data(), block.get(), back.size()));
    size_t wrong = 0;
    for (size_t i = 0; i < back.size(); i++) {
        const bool inside = i >= guard && i < guard + n;
        wrong += back[i] != (inside ? 0xAB : 0x7F);
    }
    EXPECT_EQ(wrong, 0u);
}

TEST_F(Memory, MemsetAsyncOnAStreamIsDoneAfterSynchronize)
{
    const size_t n = 16 * kMiB;
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    hktest::DeviceMemory block;
    ASSERT_HK_OK(block.allocate(n));
    ASSERT_HK_OK(hk_memset_async(block.get(), 0x5C, n, stream.get()));
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
    std::vector<unsigned char> back(n);
    ASSERT_HK_OK(hk_memcpy_dtoh(back.data(), block.get(), n));
    EXPECT_EQ(std::count(back.begin(), back.end(), 0x5C), static_cast<std::ptrdiff_t>(n));
}

TEST_F(Memory, PinnedHostMemoryIsWritableAndFreeable)
{
    void *ptr = nullptr;
    ASSERT_HK_OK(hk_host_malloc(&ptr, kMiB));
    ASSERT_NE(ptr, nullptr);
    std::memset(ptr, 0x3C, kMiB);
    EXPECT_EQ(static_cast<unsigned char *>(ptr)[kMiB - 1], 0x3C);
    EXPECT_HK_OK(hk_host_free(ptr));
}

TEST_F(Memory, PinnedHostDoubleFreeIsInvalidArgument)
{
    void *ptr = nullptr;
    ASSERT_HK_OK(hk_host_malloc(&ptr, 4096));
    ASSERT_HK_OK(hk_host_free(ptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_host_free", hk_host_free(ptr));
}

TEST_F(Memory, PinnedHostBlocksAreReusedUntilTheCacheIsTrimmed)
{
    void *first = nullptr, *second = nullptr;
    ASSERT_HK_OK(hk_host_malloc(&first, 3 * kMiB));
    ASSERT_HK_OK(hk_host_free(first));
    ASSERT_HK_OK(hk_host_malloc(&second, 3 * kMiB));
    EXPECT_EQ(second, first) << "a freed pinned block of the same size should come back from the cache";
    ASSERT_HK_OK(hk_host_free(second));
    ASSERT_HK_OK(hk_host_pool_trim());
    ASSERT_HK_OK(hk_host_pool_trim()); // an empty cache trims to nothing, successfully
}

TEST(HostPool, TrimWithNothingCachedSucceedsEvenWithoutAGpu)
{
    EXPECT_EQ(hk_host_pool_trim(), HK_SUCCESS) << hk_last_error();
    EXPECT_STREQ(hk_last_error(), "");
}

class Pool : public GpuTest
{
};

TEST_F(Pool, StatsFollowAllocateAndFree)
{
    ASSERT_HK_OK(hk_pool_trim(0, 0));
    const hk_pool_stats before = pool_stats();
    EXPECT_EQ(before.bytes_cached, 0u);

    void *ptr = nullptr;
    ASSERT_HK_OK(hk_malloc(&ptr, kMiB));
    const hk_pool_stats during = pool_stats();
    EXPECT_GE(during.bytes_in_use, before.bytes_in_use + kMiB);
    EXPECT_GE(during.peak_bytes_in_use, during.bytes_in_use);
    EXPECT_EQ(during.allocations, before.allocations + 1);

    ASSERT_HK_OK(hk_free(ptr));
    const hk_pool_stats after = pool_stats();
    EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
    EXPECT_GE(after.bytes_cached, kMiB) << "a freed block stays in the pool";
    EXPECT_EQ(after.bytes_in_use + after.bytes_cached, during.bytes_in_use + during.bytes_cached)
        << "hk_free returns nothing to the vendor";
    EXPECT_EQ(after.peak_bytes_in_use, during.peak_bytes_in_use);
}

TEST_F(Pool, PeakIsTheHighWaterMark)
{
    const hk_pool_stats before = pool_stats();
    void *ptr = nullptr;
    ASSERT_HK_OK(hk_malloc(&ptr, 64 * kMiB));
    ASSERT_HK_OK(hk_free(ptr));
    const hk_pool_stats after = pool_stats();
    EXPECT_GE(after.peak_bytes_in_use, before.bytes_in_use + 64 * kMiB);
    EXPECT_GE(after.peak_bytes_in_use, before.peak_bytes_in_use);
}

TEST_F(Pool, FreedBlockIsReused)
{
    void *first = nullptr, *second = nullptr;
    ASSERT_HK_OK(hk_malloc(&first, kMiB));
    ASSERT_HK_OK(hk_free(first));
    const hk_pool_stats before = pool_stats();
    ASSERT_HK_OK(hk_malloc(&second, kMiB));
    const hk_pool_stats after = pool_stats();
    EXPECT_EQ(after.cache_hits, before.cache_hits + 1);
    EXPECT_EQ(after.vendor_allocations, before.vendor_allocations);
    EXPECT_HK_OK(hk_free(second));
}

TEST_F(Pool, AsyncFreedBlockIsReusedAtOnceOnTheSameStream)
{
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    void *first = nullptr, *second = nullptr;
    ASSERT_HK_OK(hk_malloc_async(&first, kMiB, stream.get()));
    ASSERT_HK_OK(hk_memset_async(first, 0, kMiB, stream.get()));
    ASSERT_HK_OK(hk_free_async(first, stream.get()));
    const hk_pool_stats before = pool_stats();
    ASSERT_HK_OK(hk_malloc_async(&second, kMiB, stream.get()));
    const hk_pool_stats after = pool_stats();
    EXPECT_EQ(after.cache_hits, before.cache_hits + 1);
    EXPECT_EQ(after.vendor_allocations, before.vendor_allocations);
    ASSERT_HK_OK(hk_free_async(second, stream.get()));
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
}

TEST_F(Pool, FreeAsyncOnAnotherStreamSucceeds)
{
    hktest::Stream s1, s2;
    ASSERT_HK_OK(s1.create());
    ASSERT_HK_OK(s2.create());
    void *ptr = nullptr;
    ASSERT_HK_OK(hk_malloc_async(&ptr, kMiB, s1.get()));
    ASSERT_HK_OK(hk_memset_async(ptr, 0x21, kMiB, s1.get()));
    ASSERT_HK_OK(hk_stream_synchronize(s1.get()));
    const hk_pool_stats before = pool_stats();
    ASSERT_HK_OK(hk_free_async(ptr, s2.get()));
    ASSERT_HK_OK(hk_stream_synchronize(s2.get()));
    const hk_pool_stats after = pool_stats();
    EXPECT_LE(after.bytes_in_use + kMiB, before.bytes_in_use);
}

TEST_F(Pool, FreeAsyncOfABlockFromMallocSucceeds)
{
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    void *ptr = nullptr;
    ASSERT_HK_OK(hk_malloc(&ptr, kMiB));
    EXPECT_HK_OK(hk_free_async(ptr, stream.get()));
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
}

TEST_F(Pool, DoubleFreeIsInvalidArgument)
{
    void *ptr = nullptr;
    ASSERT_HK_OK(hk_malloc(&ptr, kMiB));
    ASSERT_HK_OK(hk_free(ptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_free", hk_free(ptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_free_async", hk_free_async(ptr, nullptr));
}

TEST_F(Pool, FreeOfAPointerInsideABlockIsRefused)
{
    hktest::DeviceMemory block;
    ASSERT_HK_OK(block.allocate(kMiB));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_free", hk_free(block.as<char>() + 256));
}

TEST_F(Pool, AllocationOverTheLimitIsOutOfMemoryNamingTheLimit)
{
    PoolLimitReset reset;
    ASSERT_HK_OK(hk_pool_trim(0, 0));
    const hk_pool_stats before = pool_stats();
    const size_t limit = before.bytes_in_use + 16 * kMiB;
    ASSERT_HK_OK(hk_pool_set_limit(0, limit));
    EXPECT_EQ(pool_stats().limit, limit);

    void *ptr = nullptr;
    const hk_status status = hk_malloc(&ptr, 32 * kMiB);
    const std::string message = hk_last_error();
    EXPECT_EQ(status, HK_ERROR_OUT_OF_MEMORY) << message;
    EXPECT_TRUE(hktest::starts_with_function(message, "hk_malloc"));
    EXPECT_TRUE(hktest::contains_ignoring_case(message, "limit"));
    if (status == HK_SUCCESS)
        hk_free(ptr);

    // Below the limit allocation still works.
    hktest::DeviceMemory small;
    EXPECT_HK_OK(small.allocate(4 * kMiB));
}

TEST_F(Pool, LimitZeroRemovesTheLimit)
{
    PoolLimitReset reset;
    ASSERT_HK_OK(hk_pool_trim(0, 0));
    ASSERT_HK_OK(hk_pool_set_limit(0, pool_stats().bytes_in_use + kMiB));
    ASSERT_HK_OK(hk_pool_set_limit(0, 0));
    EXPECT_EQ(pool_stats().limit, 0u);
    hktest::DeviceMemory block;
    EXPECT_HK_OK(block.allocate(32 * kMiB));
}

TEST_F(Pool, TrimToZeroEmptiesTheCache)
{
    for (size_t size : {kMiB, 3 * kMiB, 17 * kMiB}) {
        void *ptr = nullptr;
        ASSERT_HK_OK(hk_malloc(&ptr, size));
        ASSERT_HK_OK(hk_free(ptr));
    }
    ASSERT_GT(pool_stats().bytes_cached, 0u);
    ASSERT_HK_OK(hk_pool_trim(0, 0));
    EXPECT_EQ(pool_stats().bytes_cached, 0u);
}

TEST_F(Pool, TrimKeepsAtMostKeepBytes)
{
    for (size_t size : {kMiB, 3 * kMiB, 17 * kMiB}) {
        void *ptr = nullptr;
        ASSERT_HK_OK(hk_malloc(&ptr, size));
        ASSERT_HK_OK(hk_free(ptr));
    }
    ASSERT_HK_OK(hk_pool_trim(0, 4 * kMiB));
    EXPECT_LE(pool_stats().bytes_cached, 4 * kMiB);
}

TEST_F(Pool, HugeAllocationIsOutOfMemoryNamingTheDeviceAndFreeMemory)
{
    hk_device_info info;
    ASSERT_HK_OK(hk_device_get_info(0, &info));
    void *ptr = nullptr;
    const hk_status status = hk_malloc(&ptr, size_t{1} << 50);
    const std::string message = hk_last_error();
    EXPECT_EQ(status, HK_ERROR_OUT_OF_MEMORY) << message;
    EXPECT_TRUE(hktest::starts_with_function(message, "hk_malloc"));
    EXPECT_TRUE(hktest::contains_ignoring_case(message, info.name));
    EXPECT_TRUE(hktest::contains_ignoring_case(message, "free"));
    if (status == HK_SUCCESS)
        hk_free(ptr);
}

TEST_F(Pool, StillWorksAfterAnOutOfMemory)
{
    void *ptr = nullptr;
    ASSERT_EQ(hk_malloc(&ptr, size_t{1} << 50), HK_ERROR_OUT_OF_MEMORY);
    hktest::DeviceMemory block;
    ASSERT_HK_OK(block.allocate(kMiB));
    ASSERT_HK_OK(hk_memset(block.get(), 1, kMiB));
    // A launch after the failed allocation must not report the old vendor error.
    const float value = 2.0f;
    ASSERT_HK_OK(hktest::fill_floats(block.get(), kMiB / sizeof(float), value, nullptr));
    ASSERT_HK_OK(hk_stream_synchronize(nullptr));
}

// Many host threads share one pool: each allocates, writes, checks and frees.
void churn(int id, bool stream_ordered, std::atomic<int> &failures, std::string &failure)
{
    std::mt19937_64 rng(static_cast<uint64_t>(id) * 7919u + 1);
    hk_stream stream = nullptr;
    if (stream_ordered && hk_stream_create(&stream) != HK_SUCCESS) {
        failures++;
        failure = hk_last_error();
        return;
    }
    for (int i = 0; i < 300; i++) {
        const size_t bytes = 1 + rng() % (2 * kMiB);
        const unsigned char mark = static_cast<unsigned char>(id * 16 + i);
        void *ptr = nullptr;
        unsigned char ends[2] = {0, 0};
        hk_status s = stream_ordered ? hk_malloc_async(&ptr, bytes, stream) : hk_malloc(&ptr, bytes);
        if (s == HK_SUCCESS)
            s = hk_memset_async(ptr, mark, bytes, stream);
        if (s == HK_SUCCESS)
            s = hk_memcpy_dtoh_async(&ends[0], ptr, 1, stream);
        if (s == HK_SUCCESS)
            s = hk_memcpy_dtoh_async(&ends[1], static_cast<char *>(ptr) + bytes - 1, 1, stream);
        if (s == HK_SUCCESS)
            s = stream_ordered ? hk_free_async(ptr, stream) : hk_free(ptr);
        if (s == HK_SUCCESS)
            s = hk_stream_synchronize(stream);
        if (s != HK_SUCCESS || ends[0] != mark || ends[1] != mark) {
            failures++;
            failure = "thread " + std::to_string(id) + ", round " + std::to_string(i) + ": " + hk_status_name(s) +
                      ": " + hk_last_error();
            break;
        }
    }
    if (stream)
        hk_stream_destroy(stream);
}

void run_threads(bool stream_ordered)
{
    const hk_pool_stats before = pool_stats();
    std::atomic<int> failures{0};
    std::vector<std::string> messages(8);
    std::vector<std::thread> threads;
    for (int id = 0; id < 8; id++)
        threads.emplace_back(churn, id, stream_ordered, std::ref(failures), std::ref(messages[id]));
    for (auto &t : threads)
        t.join();
    EXPECT_EQ(failures.load(), 0) << [&] {
        std::string all;
        for (const auto &m : messages)
            if (!m.empty())
                all += m + "\n";
        return all;
    }();
    ASSERT_HK_OK(hk_device_synchronize());
    EXPECT_EQ(pool_stats().bytes_in_use, before.bytes_in_use);
}

TEST_F(Pool, ManyThreadsAllocateAndFreeConcurrently)
{
    run_threads(false);
}

TEST_F(Pool, ManyThreadsAllocateAndFreeOnTheirOwnStreamsConcurrently)
{
    run_threads(true);
}

} // namespace

namespace
{
// Give the pools' cached blocks back at the end, so that compute-sanitizer's
// leak check (and valgrind) reports only memory the tests really leaked.
class ReleasePoolCachesAtExit : public ::testing::Environment
{
  public:
    void TearDown() override
    {
        int count = 0;
        if (hk_device_count(&count) != HK_SUCCESS || count == 0)
            return;
        EXPECT_EQ(hk_host_pool_trim(), HK_SUCCESS) << hk_last_error();
        for (int device = 0; device < count; device++) {
            EXPECT_EQ(hk_pool_trim(device, 0), HK_SUCCESS) << hk_last_error();
        }
    }
};
[[maybe_unused]] ::testing::Environment *const release_pool_caches =
    ::testing::AddGlobalTestEnvironment(new ReleasePoolCachesAtExit);
} // namespace
