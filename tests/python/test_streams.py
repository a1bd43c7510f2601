"""Streams and events: ordering, timing, and handles used after they are gone."""
import gc

import numpy as np
import pytest

import hipkit


def test_work_on_a_stream_is_ordered_on_that_stream(rng):
    host = rng.standard_normal(1 << 20).astype(np.float32)
    with hipkit.Stream() as stream:
        x = hipkit.asarray(host)
        y = hipkit.zeros(x.shape, np.float32)
        for _ in range(10):
            hipkit.axpy(1.0, x, y, stream=stream)  # y = 10 x, after ten queued launches
        hipkit.add(y, x, out=y, stream=stream)
        np.testing.assert_allclose(y.get(stream), 11 * host, rtol=1e-5)
        assert stream.query() is True
        assert float(hipkit.sum(x, stream=stream)) == pytest.approx(float(host.sum(dtype=np.float64)), abs=1e-2)


def test_a_stream_belongs_to_the_current_device():
    with hipkit.Stream() as stream:
        assert stream.device == hipkit.get_device()


def test_wait_event_orders_two_streams(rng):
    host = rng.standard_normal(1 << 22).astype(np.float32)
    x = hipkit.asarray(host)
    y = hipkit.zeros(x.shape, np.float32)
    with hipkit.Stream() as first, hipkit.Stream() as second, hipkit.Event() as done:
        for _ in range(20):
            hipkit.axpy(1.0, x, y, stream=first)
        done.record(first)
        second.wait_event(done)
        hipkit.multiply(y, x, out=y, stream=second)  # must see all 20 axpys
        second.synchronize()
        assert done.query() is True
        np.testing.assert_allclose(y.get(), 20 * host * host, rtol=1e-5)


def test_event_timing():
    x = hipkit.zeros(1 << 24, np.float32)
    start, end = hipkit.Event(), hipkit.Event()
    start.record()
    x.fill(1.0)
    end.record()
    end.synchronize()
    assert end.query() is True
    elapsed = start.elapsed_ms(end)
    assert isinstance(elapsed, float) and elapsed >= 0
    start.close()
    end.close()


def test_closing_twice_is_harmless():
    stream, event = hipkit.Stream(), hipkit.Event()
    stream.close()
    stream.close()
    event.close()
    event.close()


@pytest.mark.parametrize("use", [
    lambda s: s.synchronize(), lambda s: s.query(), lambda s: s.device,
    lambda s: hipkit.zeros(4, stream=s), lambda s: hipkit.Event().record(s),
    lambda s: s.wait_event(hipkit.Event().record()),
])
def test_a_destroyed_stream_used_again_raises_invalid_handle(use):
    stream = hipkit.Stream()
    stream.close()
    with pytest.raises(hipkit.InvalidHandleError, match="^hk_"):
        use(stream)


@pytest.mark.parametrize("use", [
    lambda e: e.record(), lambda e: e.synchronize(), lambda e: e.query(),
    lambda e: e.elapsed_ms(hipkit.Event().record()),
])
def test_a_destroyed_event_used_again_raises_invalid_handle(use):
    with hipkit.Event() as event:
        event.record()
    with pytest.raises(hipkit.InvalidHandleError, match="^hk_"):
        use(event)


def test_collected_streams_and_events_are_destroyed():
    for _ in range(2000):  # far more than a runtime would keep without destroying them
        hipkit.Stream()
        hipkit.Event()
    gc.collect()
    with hipkit.Stream() as stream:
        stream.synchronize()
