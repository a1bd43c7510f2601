"""The device memory pool as Python sees it: out of memory, limits, trimming,
and arrays returning their memory when collected."""
import gc

import numpy as np
import pytest

import hipkit

MiB = 1 << 20


@pytest.fixture(autouse=True)
def no_pool_limit_afterwards():
    yield
    hipkit.set_pool_limit(0)


def test_huge_allocation_raises_out_of_memory():
    with pytest.raises(hipkit.OutOfMemoryError) as raised:
        hipkit.empty(1 << 47, np.float64)  # 1 PiB
    assert isinstance(raised.value, MemoryError)
    assert str(raised.value).startswith("hk_malloc")
    assert hipkit.zeros(1000).get().sum() == 0  # and the device is still usable


def test_pool_stats_has_every_counter():
    stats = hipkit.pool_stats()
    assert set(stats) == {"bytes_in_use", "bytes_cached", "peak_bytes_in_use", "limit",
                          "allocations", "cache_hits", "vendor_allocations"}
    assert all(isinstance(value, int) and value >= 0 for value in stats.values())
    assert hipkit.pool_stats(hipkit.Device(0)).keys() == hipkit.pool_stats(0).keys()


def test_collected_arrays_return_their_memory():
    gc.collect()
    before = hipkit.pool_stats()["bytes_in_use"]
    x = hipkit.empty(MiB, np.float32)
    assert hipkit.pool_stats()["bytes_in_use"] >= before + x.nbytes
    del x
    assert hipkit.pool_stats()["bytes_in_use"] == before


def test_pool_limit_is_enforced_and_removable():
    gc.collect()
    hipkit.trim_pool(0)
    in_use = hipkit.pool_stats()["bytes_in_use"]
    limit = in_use + 16 * MiB
    hipkit.set_pool_limit(limit)
    assert hipkit.pool_stats()["limit"] == limit
    with pytest.raises(hipkit.OutOfMemoryError, match="limit"):
        hipkit.empty(8 * MiB, np.float32)  # 32 MiB
    small = hipkit.zeros(MiB, np.float32)  # 4 MiB fits
    hipkit.set_pool_limit(0)
    big = hipkit.zeros(8 * MiB, np.float32)
    assert small.size and big.size


def test_trim_gives_cached_memory_back():
    for _ in range(4):
        hipkit.empty(8 * MiB, np.float32)  # freed at once, kept cached
    hipkit.trim_pool(4 * MiB)
    assert hipkit.pool_stats()["bytes_cached"] <= 4 * MiB
    hipkit.trim_pool()
    assert hipkit.pool_stats()["bytes_cached"] == 0


def test_freed_blocks_are_reused():
    hipkit.empty(MiB, np.float32)
    hits = hipkit.pool_stats()["cache_hits"]
    hipkit.empty(MiB, np.float32)
    assert hipkit.pool_stats()["cache_hits"] > hits
