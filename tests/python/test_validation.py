"""Argument checks done in Python, before the library is called, on empty arrays (hk_malloc of 0
bytes takes no device memory), on the current device."""
import numpy as np
import pytest

import hipkit

SUPPORTED = "bool, int8, uint8, int32, uint32, int64, uint64, float16, float32, float64"
ALL = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32",
       "float64", "complex64", "complex128"]


@pytest.mark.parametrize("dtype", [object, "U3", np.longdouble, np.clongdouble, "M8[s]"])
def test_unsupported_dtypes_are_refused(dtype):
    if np.dtype(dtype) in (np.float64, np.complex128):  # longdouble is double on some platforms
        return
    with pytest.raises(TypeError, match=SUPPORTED):
        hipkit.empty(0, dtype)


@pytest.mark.parametrize("dtype", [object, "U3"])
def test_host_data_without_a_device_dtype_is_refused(dtype):
    with pytest.raises(TypeError):
        hipkit.asarray(np.zeros(0, dtype))


def test_host_data_of_the_fourteen_dtypes_keeps_its_dtype():
    for name in ALL:
        assert hipkit.asarray(np.zeros(3, name)).dtype == np.dtype(name)


@pytest.mark.parametrize("obj", [None, [None], "text", [1, "a"]])
def test_non_numeric_input_is_refused(obj):
    with pytest.raises(TypeError, match="cannot make a device array"):
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
    y = hipkit.asarray(x, np.float64)
    assert y is not x and y.dtype == np.float64 and y.shape == (0,)


def test_numpy_does_not_convert_implicitly(device):
    x = hipkit.empty(0)
    if device.is_gpu:  # on the CPU device, np.asarray(x) is a view of host memory (test_interop)
        with pytest.raises(TypeError, match=r"\.get\(\)"):
            np.asarray(x)
        assert not hasattr(x, "__array_interface__")
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)
    assert isinstance(hipkit.asnumpy(x), np.ndarray)


def test_len_is_the_first_dimension():
    assert len(hipkit.empty((0, 3))) == 0


# --------------------------------------------------------------- operands

def a32():
    return hipkit.empty(0, np.float32)


@pytest.mark.parametrize("op", [hipkit.add, hipkit.subtract, hipkit.multiply, hipkit.divide, hipkit.less])
def test_shapes_must_broadcast(op):
    with pytest.raises(ValueError, match="broadcast"):
        op(hipkit.empty((0, 2), np.float32), hipkit.empty((0, 3), np.float32))
    assert op(hipkit.empty((0, 1), np.float32), hipkit.empty((4, 0, 3), np.float32)).shape == (4, 0, 3)


def _numpy_dtype(dtype):
    return np.dtype(dtype)


@pytest.mark.parametrize("left", ALL)
def test_result_dtypes_follow_numpy(left):
    """Type promotion by NumPy 2's rules, for every pair of the fourteen dtypes and
    Python scalars (weak), checked on empty arrays."""
    x = hipkit.empty(0, left)
    h = np.empty(0, left)
    for right in ALL:
        y, g = hipkit.empty(0, right), np.empty(0, right)
        for name in ("add", "multiply", "maximum", "divide", "equal", "logical_and"):
            if name == "maximum" and "c" in (h.dtype.kind, g.dtype.kind):
                with pytest.raises(TypeError):  # complex numbers have no order (NumPy's is lexicographic)
                    hipkit.maximum(x, y)
                continue
            assert getattr(hipkit, name)(x, y).dtype == _numpy_dtype(getattr(np, name)(h, g).dtype), \
                (name, left, right)
    for scalar in (1, 2.5, True, 1j):
        with np.errstate(all="ignore"):
            assert (x + scalar).dtype == (h + scalar).dtype, (left, scalar)
    for name in ("sqrt", "exp", "negative", "absolute", "isnan", "logical_not"):
        try:
            expected = getattr(np, name)(h).dtype
        except TypeError:
            with pytest.raises(TypeError):
                getattr(hipkit, name)(x)
            continue
        assert getattr(hipkit, name)(x).dtype == _numpy_dtype(expected), (name, left)


def test_bool_subtract_and_negative_are_refused_as_numpy_does():
    b = hipkit.empty(0, np.bool_)
    with pytest.raises(TypeError, match="boolean subtract"):
        b - b
    with pytest.raises(TypeError, match="boolean negative"):
        -b


def test_bitwise_of_floats_is_refused():
    with pytest.raises(TypeError, match="bitwise_and"):
        a32() & a32()


def test_python_integers_out_of_range_are_refused():
    with pytest.raises(OverflowError, match="300"):
        hipkit.empty(0, np.uint8) + 300


@pytest.mark.parametrize("other", [np.zeros(0, np.float32), [1.0], "x", None, b"x"])
def test_host_arrays_and_other_objects_are_refused_in_either_order(other):
    x = a32()
    for expression in (lambda: hipkit.add(x, other), lambda: hipkit.multiply(other, x)):
        with pytest.raises(TypeError):
            expression()
    with pytest.raises(TypeError):
        x + other
    with pytest.raises(TypeError):
        other - x


def test_host_arrays_name_asarray():
    with pytest.raises(TypeError, match="hipkit.asarray"):
        hipkit.add(a32(), np.zeros(0, np.float32))


@pytest.mark.parametrize("out", [np.zeros(0, np.float32), "out"])
def test_out_must_be_a_hipkit_array(out):
    with pytest.raises(TypeError, match="out must be"):
        hipkit.add(a32(), hipkit.empty((0,), np.float64), out=out)


def test_out_must_hold_the_result():
    with pytest.raises(ValueError, match="broadcast"):
        hipkit.add(hipkit.empty((0, 3), np.float32), 1.0, out=hipkit.empty((0, 2), np.float32))
    with pytest.raises(TypeError, match="same_kind"):
        hipkit.add(a32(), a32(), out=hipkit.empty((0,), np.int32))
    out = hipkit.empty((0,), np.float64)  # float32 into float64: allowed, as NumPy
    assert hipkit.add(a32(), a32(), out=out) is out


def test_axpy_operands_must_match():
    with pytest.raises(ValueError, match="one shape"):
        hipkit.axpy(2.0, a32(), hipkit.empty((0, 2), np.float32))
    with pytest.raises(TypeError, match="asarray"):
        hipkit.axpy(2.0, a32(), np.zeros(0, np.float32))


def test_reduction_arguments():
    x = hipkit.empty((0, 3), np.float32)
    with pytest.raises(np.exceptions.AxisError):
        hipkit.sum(x, axis=2)
    with pytest.raises(ValueError, match="repeated"):
        hipkit.sum(x, axis=(1, -1))
    with pytest.raises(ValueError, match="identity"):
        hipkit.max(x)
    with pytest.raises(ValueError, match="empty"):
        hipkit.argmin(x)
    assert hipkit.sum(x, axis=1).shape == (0,)
    assert hipkit.sum(x, axis=1, keepdims=True).shape == (0, 1)
    assert hipkit.sum(hipkit.empty((0, 3), np.int32), axis=1).dtype == np.int64
    assert hipkit.mean(hipkit.empty((0, 3), np.int8), axis=1).dtype == np.float64


def test_views_of_empty_arrays():
    x = hipkit.empty((0, 4, 6), np.float32)
    assert x.T.shape == (6, 4, 0) and x.T.strides == (4, 24, 96)
    assert x[:, 1:3, ::-2].shape == (0, 2, 3)
    assert x.reshape(4, 0, 6).shape == (4, 0, 6)
    assert x[None, ..., 1].shape == (1, 0, 4)
    assert hipkit.expand_dims(x, -1).shape == (0, 4, 6, 1)
    with pytest.raises(IndexError):
        x[0, 4]
    with pytest.raises(ValueError, match="cannot reshape"):
        x.reshape(5, 3)


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
    lambda: hipkit.Device(1.0), lambda: hipkit.Device(True), lambda: hipkit.Device(None),
    lambda: hipkit.pool_stats(device=0.0), lambda: hipkit.set_pool_limit(1.5),
])
def test_integer_arguments_must_be_integers(call):
    with pytest.raises(TypeError, match="integer"):
        call()


def test_pool_sizes_must_not_be_negative():
    with pytest.raises(ValueError, match="negative"):
        hipkit.set_pool_limit(-1)
    with pytest.raises(ValueError, match="negative"):
        hipkit.trim_pool(-1)
