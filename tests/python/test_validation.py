"""Argument checks done in Python, before the library is called. None of these
needs a GPU: empty arrays take no device memory (hk_malloc of 0 bytes)."""
import numpy as np
import pytest

import hipkit

SUPPORTED = "float32, float64, int32 and int64"


@pytest.mark.parametrize("dtype", [np.float16, np.bool_, np.uint8, np.int8, np.uint32,
                                   np.uint64, np.complex64, object, "U3"])
def test_unsupported_dtypes_are_refused(dtype):
    with pytest.raises(TypeError, match=SUPPORTED):
        hipkit.empty(0, dtype)
    with pytest.raises(TypeError, match=SUPPORTED):
        hipkit.asarray(np.zeros(0, dtype))


@pytest.mark.parametrize("obj", [None, [None], "text", [1, "a"]])
def test_non_numeric_input_is_refused(obj):
    with pytest.raises(TypeError, match=SUPPORTED):
        hipkit.asarray(obj)


@pytest.mark.parametrize("shape", [-1, (2, -3)])
def test_negative_shapes_are_refused(shape):
    with pytest.raises(ValueError, match="negative"):
        hipkit.empty(shape)


@pytest.mark.parametrize("shape", [2.5, "3", True, None, (2, 1.0)])
def test_non_integer_shapes_are_refused(shape):
    with pytest.raises(TypeError):
        hipkit.empty(shape)


def test_too_big_is_refused_before_allocating():
    with pytest.raises(ValueError, match="too big"):
        hipkit.empty((2**62, 4), np.float64)


@pytest.mark.parametrize("shape", [0, (0,), (3, 0), (0, 5, 2), np.int64(0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_empty_arrays_need_no_device_memory(shape, dtype):
    x = hipkit.empty(shape, dtype)
    expected = np.empty(shape, dtype)
    assert (x.shape, x.dtype, x.size, x.nbytes, x.ndim) == \
           (expected.shape, expected.dtype, 0, 0, expected.ndim)
    assert x.ptr == 0
    assert x.get().shape == expected.shape and x.get().dtype == expected.dtype
    assert x.copy().shape == expected.shape


def read_only(array):
    array.flags.writeable = False
    return array


@pytest.mark.parametrize("out", [np.zeros(1, np.float32), np.zeros(0, np.float64), [],
                                 np.zeros((0, 1), np.float32), read_only(np.zeros(0, np.float32))])
def test_get_out_must_match(out):
    with pytest.raises(ValueError, match="out must be"):
        hipkit.empty(0, np.float32).get(out=out)


def test_get_into_out_returns_out():
    out = np.zeros((0, 3), np.int64)
    assert hipkit.empty((0, 3), np.int64).get(out=out) is out


def test_asarray_defaults_follow_numpy():
    assert hipkit.asarray([]).dtype == np.float64
    assert hipkit.asarray(np.zeros((0, 2), np.int32)).shape == (0, 2)
    assert hipkit.asarray([], dtype=np.int32).dtype == np.int32


def test_asarray_of_a_hipkit_array_returns_it():
    x = hipkit.empty(0, np.float32)
    assert hipkit.asarray(x) is x and hipkit.asarray(x, np.float32) is x
    with pytest.raises(TypeError, match="not supported yet"):
        hipkit.asarray(x, np.float64)


def test_numpy_does_not_convert_implicitly():
    x = hipkit.empty(0)
    with pytest.raises(TypeError, match=r"\.get\(\)"):
        np.asarray(x)
    with pytest.raises(TypeError, match=r"\.get\(\)"):
        bool(x)
    assert isinstance(hipkit.asnumpy(x), np.ndarray)


def test_len_is_the_first_dimension():
    assert len(hipkit.empty((0, 3))) == 0


# --------------------------------------------------------------- operands

def a32():
    return hipkit.empty(0, np.float32)


@pytest.mark.parametrize("op", [hipkit.add, hipkit.subtract, hipkit.multiply, hipkit.divide])
def test_shapes_must_match(op):
    with pytest.raises(ValueError, match="broadcasting"):
        op(a32(), hipkit.empty((0, 3), np.float32))


@pytest.mark.parametrize("op", [hipkit.add, hipkit.subtract, hipkit.multiply, hipkit.divide])
def test_dtypes_must_match(op):
    with pytest.raises(TypeError, match="type promotion"):
        op(a32(), hipkit.empty(0, np.float64))


@pytest.mark.parametrize("other", [1, 2.0, np.float32(1), np.zeros(0, np.float32), [1.0]])
def test_scalars_and_host_arrays_are_refused_in_either_order(other):
    x = a32()
    for expression in (lambda: x + other, lambda: other + x, lambda: x * other,
                       lambda: other - x, lambda: x / other, lambda: hipkit.add(x, other)):
        with pytest.raises(TypeError, match="hipkit.ndarray"):
            expression()


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_divide_of_integers_points_to_floor_divide(dtype):
    x = hipkit.empty(0, dtype)
    with pytest.raises(TypeError, match="floor_divide"):
        x / x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_floor_divide_of_floats_is_refused(dtype):
    x = hipkit.empty(0, dtype)
    with pytest.raises(TypeError, match="int32 and int64"):
        x // x


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_sum_of_integers_is_refused(dtype):
    with pytest.raises(TypeError, match="float32 and float64"):
        hipkit.sum(hipkit.empty(0, dtype))


@pytest.mark.parametrize("out", [hipkit.empty((0, 1), np.float32), hipkit.empty(0, np.float64),
                                 np.zeros(0, np.float32), "out"])
def test_out_must_match_the_operands(out):
    with pytest.raises(ValueError, match="out must be"):
        hipkit.add(a32(), a32(), out=out)


def test_axpy_operands_must_match():
    with pytest.raises(ValueError, match="broadcasting"):
        hipkit.axpy(2.0, a32(), hipkit.empty((0, 2), np.float32))
    with pytest.raises(TypeError, match="hipkit.ndarray"):
        hipkit.axpy(2.0, a32(), np.zeros(0, np.float32))


def test_stream_must_be_a_stream():
    with pytest.raises(TypeError, match="hipkit.Stream"):
        hipkit.add(a32(), a32(), stream="default")


def test_arange_step_zero_is_refused():
    with pytest.raises(ValueError, match="step"):
        hipkit.arange(0, 10, 0)


def test_fill_value_out_of_range_for_the_dtype_is_refused():
    with pytest.raises(OverflowError):
        hipkit.empty(0, np.int32).fill(2**40)


@pytest.mark.parametrize("call", [
    lambda: hipkit.Device("0"), lambda: hipkit.Device(1.0), lambda: hipkit.Device(True),
    lambda: hipkit.pool_stats(device="0"), lambda: hipkit.set_pool_limit(1.5),
])
def test_integer_arguments_must_be_integers(call):
    with pytest.raises(TypeError, match="integer"):
        call()


def test_pool_sizes_must_not_be_negative():
    with pytest.raises(ValueError, match="negative"):
        hipkit.set_pool_limit(-1)
    with pytest.raises(ValueError, match="negative"):
        hipkit.trim_pool(-1)
