// test_stream_event.cpp: stream and event handles (live, destroyed, invented),
// ordering between streams with events, and event timing.
#include "common.h"

namespace
{

using hktest::bogus_event;
using hktest::bogus_stream;

// ---------------------------------------------------------- any machine

TEST(StreamHandle, CreateRefusesNullOutPointer)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_stream_create", hk_stream_create(nullptr));
}

TEST(StreamHandle, DestroyingTheDefaultStreamIsInvalidHandle)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_destroy", hk_stream_destroy(nullptr));
}

TEST(StreamHandle, GetDeviceRefusesNullOutPointer)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_stream_get_device", hk_stream_get_device(nullptr, nullptr));
}

TEST(StreamHandle, NeverCreatedHandleIsInvalidEverywhere)
{
    int device = -1;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_destroy", hk_stream_destroy(bogus_stream()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_synchronize", hk_stream_synchronize(bogus_stream()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_query", hk_stream_query(bogus_stream()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_get_device", hk_stream_get_device(bogus_stream(), &device));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_wait_event",
                    hk_stream_wait_event(bogus_stream(), bogus_event()));
}

TEST(EventHandle, CreateRefusesNullOutPointer)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_event_create", hk_event_create(nullptr));
}

TEST(EventHandle, NullEventIsInvalidHandle)
{
    float ms = 0;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_destroy", hk_event_destroy(nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_record", hk_event_record(nullptr, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_synchronize", hk_event_synchronize(nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_query", hk_event_query(nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_elapsed_ms", hk_event_elapsed_ms(&ms, nullptr, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_wait_event", hk_stream_wait_event(nullptr, nullptr));
}

TEST(EventHandle, NeverCreatedHandleIsInvalidEverywhere)
{
    float ms = 0;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_destroy", hk_event_destroy(bogus_event()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_record", hk_event_record(bogus_event(), nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_synchronize", hk_event_synchronize(bogus_event()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_query", hk_event_query(bogus_event()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_elapsed_ms",
                    hk_event_elapsed_ms(&ms, bogus_event(), bogus_event()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_wait_event", hk_stream_wait_event(nullptr, bogus_event()));
}

// ------------------------------------------------------------ with a GPU

class Streams : public GpuTest
{
};

// Enough float32 elements that a few passes over them take milliseconds.
constexpr size_t kBig = size_t{1} << 26;

TEST_F(Streams, CreatedStreamIsIdleAndBelongsToTheCurrentDevice)
{
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    ASSERT_NE(stream.get(), nullptr);
    EXPECT_HK_OK(hk_stream_query(stream.get()));
    int device = -1, current = -2;
    ASSERT_HK_OK(hk_stream_get_device(stream.get(), &device));
    ASSERT_HK_OK(hk_device_get(&current));
    EXPECT_EQ(device, current);
}

TEST_F(Streams, DefaultStreamBelongsToTheCurrentDevice)
{
    int device = -1, current = -2;
    ASSERT_HK_OK(hk_stream_get_device(nullptr, &device));
    ASSERT_HK_OK(hk_device_get(&current));
    EXPECT_EQ(device, current);
}

TEST_F(Streams, TwoStreamsHaveDistinctHandles)
{
    hktest::Stream a, b;
    ASSERT_HK_OK(a.create());
    ASSERT_HK_OK(b.create());
    EXPECT_NE(a.get(), b.get());
}

TEST_F(Streams, DestroyedStreamIsInvalidHandleEverywhere)
{
    hktest::Stream owner;
    ASSERT_HK_OK(owner.create());
    hk_stream stream = owner.release();
    ASSERT_HK_OK(hk_stream_destroy(stream));

    hktest::Event event;
    ASSERT_HK_OK(event.create());
    hktest::DeviceMemory memory;
    ASSERT_HK_OK(memory.allocate(1024));
    float host[4] = {0, 0, 0, 0};
    const float one = 1.0f;
    void *ptr = nullptr;
    int device = -1;

    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_destroy", hk_stream_destroy(stream));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_synchronize", hk_stream_synchronize(stream));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_query", hk_stream_query(stream));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_get_device", hk_stream_get_device(stream, &device));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_wait_event", hk_stream_wait_event(stream, event.get()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_record", hk_event_record(event.get(), stream));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_malloc_async", hk_malloc_async(&ptr, 256, stream));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_memcpy_htod_async",
                    hk_memcpy_htod_async(memory.get(), host, sizeof host, stream));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_memset_async", hk_memset_async(memory.get(), 0, 16, stream));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_fill", hktest::fill_floats(memory.get(), 4, one, stream));
    EXPECT_EQ(ptr, nullptr);
}

TEST_F(Streams, StaleHandleStaysInvalidAfterItsSlotIsReused)
{
    hk_stream first = nullptr;
    ASSERT_HK_OK(hk_stream_create(&first));
    ASSERT_HK_OK(hk_stream_destroy(first));
    hktest::Stream second;
    ASSERT_HK_OK(second.create());
    EXPECT_NE(second.get(), first);
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_synchronize", hk_stream_synchronize(first));
    EXPECT_HK_OK(hk_stream_synchronize(second.get()));
}

TEST_F(Streams, EventHandleIsNotAStreamAndViceVersa)
{
    hktest::Stream stream;
    hktest::Event event;
    ASSERT_HK_OK(stream.create());
    ASSERT_HK_OK(event.create());
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_synchronize",
                    hk_stream_synchronize(reinterpret_cast<hk_stream>(event.get())));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_synchronize",
                    hk_event_synchronize(reinterpret_cast<hk_event>(stream.get())));
}

TEST_F(Streams, KernelOnACreatedStreamIsDoneAfterSynchronize)
{
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    const size_t n = (size_t{1} << 20) + 1;
    hktest::DeviceMemory memory;
    ASSERT_HK_OK(memory.allocate(n * sizeof(float)));
    const float value = 2.5f;
    ASSERT_HK_OK(hk_memset_async(memory.get(), 0xFF, n * sizeof(float), stream.get()));
    ASSERT_HK_OK(hktest::fill_floats(memory.get(), n, value, stream.get()));
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
    EXPECT_HK_OK(hk_stream_query(stream.get()));
    std::vector<float> host(n);
    ASSERT_HK_OK(hk_memcpy_dtoh(host.data(), memory.get(), n * sizeof(float)));
    size_t wrong = 0;
    for (float x : host)
        wrong += x != value;
    EXPECT_EQ(wrong, 0u);
}

TEST_F(Streams, QueryIsNotReadyOrSuccessWhileBusyAndSuccessAfterSynchronize)
{
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    hktest::DeviceMemory memory;
    ASSERT_HK_OK(memory.allocate(kBig * sizeof(float)));
    const float value = 1.0f;
    for (int pass = 0; pass < 10; pass++)
        ASSERT_HK_OK(hktest::fill_floats(memory.get(), kBig, value, stream.get()));
    const hk_status busy = hk_stream_query(stream.get());
    EXPECT_TRUE(busy == HK_ERROR_NOT_READY || busy == HK_SUCCESS) << busy;
    if (busy == HK_ERROR_NOT_READY) {
        EXPECT_STREQ(hk_last_error(), "") << "NOT_READY from a query is not a failure";
    }
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
    EXPECT_HK_OK(hk_stream_query(stream.get()));
}

TEST_F(Streams, DestroyWaitsForPendingWork)
{
    const size_t n = kBig;
    hktest::DeviceMemory memory;
    ASSERT_HK_OK(memory.allocate(n * sizeof(float)));
    ASSERT_HK_OK(hk_memset(memory.get(), 0, n * sizeof(float)));
    hk_stream stream = nullptr;
    ASSERT_HK_OK(hk_stream_create(&stream));
    const float value = 3.0f;
    ASSERT_HK_OK(hktest::fill_floats(memory.get(), n, value, stream));
    for (int pass = 0; pass < 8; pass++)
        ASSERT_HK_OK(hktest::scale_floats(memory.get(), n, 4.0f, stream)); // x *= 4
    ASSERT_HK_OK(hk_stream_destroy(stream));
    float last = 0;
    ASSERT_HK_OK(hk_memcpy_dtoh(&last, memory.as<float>() + (n - 1), sizeof last));
    EXPECT_EQ(last, 3.0f * 65536.0f);
}

// s1 does slow work, s2 waits for an event recorded after it and then copies
// the result: without the wait the copy would see earlier values.
TEST_F(Streams, WaitEventOrdersWorkAcrossStreams)
{
    const size_t n = kBig;
    hktest::Stream s1, s2;
    hktest::Event done;
    ASSERT_HK_OK(s1.create());
    ASSERT_HK_OK(s2.create());
    ASSERT_HK_OK(done.create());
    hktest::DeviceMemory x, y;
    ASSERT_HK_OK(x.allocate(n * sizeof(float)));
    ASSERT_HK_OK(y.allocate(n * sizeof(float)));
    ASSERT_HK_OK(hk_memset(y.get(), 0, n * sizeof(float)));
    ASSERT_HK_OK(hk_device_synchronize());

    const float one = 1.0f;
    ASSERT_HK_OK(hktest::fill_floats(x.get(), n, one, s1.get()));
    for (int pass = 0; pass < 20; pass++)
        ASSERT_HK_OK(hktest::scale_floats(x.get(), n, 2.0f, s1.get())); // x *= 2
    ASSERT_HK_OK(hk_event_record(done.get(), s1.get()));
    ASSERT_HK_OK(hk_stream_wait_event(s2.get(), done.get()));
    ASSERT_HK_OK(hk_memcpy_dtod_async(y.get(), x.get(), n * sizeof(float), s2.get()));
    ASSERT_HK_OK(hk_stream_synchronize(s2.get()));

    std::vector<float> host(n);
    ASSERT_HK_OK(hk_memcpy_dtoh(host.data(), y.get(), n * sizeof(float)));
    const float expected = 1048576.0f; // 2^20
    size_t wrong = 0;
    for (float v : host)
        wrong += v != expected;
    EXPECT_EQ(wrong, 0u) << "first element " << host[0] << ", last " << host[n - 1];
}

class Events : public GpuTest
{
};

TEST_F(Events, RecordedEventCompletes)
{
    hktest::Event event;
    ASSERT_HK_OK(event.create());
    ASSERT_HK_OK(hk_event_record(event.get(), nullptr));
    ASSERT_HK_OK(hk_event_synchronize(event.get()));
    EXPECT_HK_OK(hk_event_query(event.get()));
}

TEST_F(Events, RecordOnACreatedStreamAndWaitOnTheDefaultStream)
{
    hktest::Stream stream;
    hktest::Event event;
    ASSERT_HK_OK(stream.create());
    ASSERT_HK_OK(event.create());
    ASSERT_HK_OK(hk_event_record(event.get(), stream.get()));
    ASSERT_HK_OK(hk_stream_wait_event(nullptr, event.get()));
    ASSERT_HK_OK(hk_stream_synchronize(nullptr));
    EXPECT_HK_OK(hk_event_query(event.get()));
}

TEST_F(Events, ElapsedTimeAroundWorkIsPositive)
{
    hktest::Stream stream;
    hktest::Event start, end;
    ASSERT_HK_OK(stream.create());
    ASSERT_HK_OK(start.create());
    ASSERT_HK_OK(end.create());
    hktest::DeviceMemory memory;
    ASSERT_HK_OK(memory.allocate(kBig * sizeof(float)));
    const float value = 1.0f;
    ASSERT_HK_OK(hk_event_record(start.get(), stream.get()));
    for (int pass = 0; pass < 4; pass++)
        ASSERT_HK_OK(hktest::fill_floats(memory.get(), kBig, value, stream.get()));
    ASSERT_HK_OK(hk_event_record(end.get(), stream.get()));
    ASSERT_HK_OK(hk_event_synchronize(end.get()));
    float ms = -1.0f;
    ASSERT_HK_OK(hk_event_elapsed_ms(&ms, start.get(), end.get()));
    EXPECT_GT(ms, 0.0f);
    EXPECT_LT(ms, 10000.0f);
}

TEST_F(Events, ElapsedTimeRefusesNullOutPointer)
{
    hktest::Event start, end;
    ASSERT_HK_OK(start.create());
    ASSERT_HK_OK(end.create());
    ASSERT_HK_OK(hk_event_record(start.get(), nullptr));
    ASSERT_HK_OK(hk_event_record(end.get(), nullptr));
    ASSERT_HK_OK(hk_event_synchronize(end.get()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_event_elapsed_ms",
                    hk_event_elapsed_ms(nullptr, start.get(), end.get()));
}

TEST_F(Events, DestroyedEventIsInvalidHandleEverywhere)
{
    hk_event event = nullptr;
    ASSERT_HK_OK(hk_event_create(&event));
    hktest::Event other;
    ASSERT_HK_OK(other.create());
    ASSERT_HK_OK(hk_event_record(other.get(), nullptr));
    ASSERT_HK_OK(hk_event_synchronize(other.get()));
    ASSERT_HK_OK(hk_event_destroy(event));
    float ms = 0;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_destroy", hk_event_destroy(event));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_record", hk_event_record(event, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_synchronize", hk_event_synchronize(event));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_query", hk_event_query(event));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_elapsed_ms", hk_event_elapsed_ms(&ms, event, other.get()));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_event_elapsed_ms", hk_event_elapsed_ms(&ms, other.get(), event));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_stream_wait_event", hk_stream_wait_event(nullptr, event));
}

} // namespace
