"""Edge cases where hipkit once differed from NumPy 2 (issue 14, "correctness found while measuring"),
checked against NumPy itself, run on the same input: the values and the dtype of what it gives, or
the type of what it raises (and that hipkit's message names the value and what to do).

- comparisons and true division of an integer array with a Python int out of its dtype's range
  (int8 == 128, uint8 == -1, int8 / 128), which NumPy 2 answers exactly, while arithmetic with
  one (int8 + 300) still raises OverflowError;
- reductions of a 0-d array with axis=0 or -1, which NumPy's ufunc reductions and argmin/argmax
  take, and the axes it refuses (AxisError, TypeError);
- shapes too big for NumPy to describe even when empty (np.empty((0, 2**70))), on every way an
  array is made, views included;
- a failed hipkit.pinned_empty: a clear error, and nothing reported by its buffer's destructor.
"""
import gc
import operator
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numpy.exceptions import AxisError

import hipkit

INTEGERS = ["int8", "uint8", "int32", "uint32", "int64", "uint64"]
COMPARISONS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
COMPARISON_FUNCTIONS = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


def outcome(fn):
    """fn()'s result as a NumPy value, or the exception it raised."""
    try:
        with np.errstate(all="ignore"):
            result = fn()
    except Exception as error:  # noqa: BLE001 (NumPy's exception is what is compared)
        return error
    return result


def assert_same(got, want, exact=True):
    """hipkit's result `got` is NumPy's `want`: the same shape, dtype and values (NaN where NumPy has NaN);
    or, where NumPy raised, hipkit raised an exception of the same type."""
    if isinstance(want, Exception):
        assert isinstance(got, type(want)), f"NumPy raised {type(want).__name__}: {want}; hipkit gave {got!r}"
        return
    assert not isinstance(got, Exception), f"NumPy gave {want!r}; hipkit raised {type(got).__name__}: {got}"
    want = np.asarray(want)
    assert isinstance(got, hipkit.ndarray)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    if exact:
        np.testing.assert_array_equal(got.get(), want)
    else:
        np.testing.assert_allclose(got.get(), want, rtol=2e-3 if want.dtype == np.float16 else 1e-12)


def integer_data(dtype):
    """Every kind of element an integer dtype has: its extremes, 0, 1 (and -1 when signed)."""
    info = np.iinfo(dtype)
    return np.array(sorted({info.min, -1 if info.min else 0, 0, 1, info.max}), dtype)


def python_ints(dtype):
    """Python ints just outside `dtype`'s range and far outside, and some inside it."""
    info = np.iinfo(dtype)
    return [info.max + 1, info.min - 1, 128, 300, -1, -129, 2**63, 2**64, -2**63 - 1, 2**70, -2**70,
            0, info.max, info.min]


# ---------------------------------------------------------------- Python ints out of range

@pytest.mark.parametrize("reflected", [False, True], ids=["array-first", "int-first"])
@pytest.mark.parametrize("op", COMPARISONS, ids=lambda op: op.__name__)
@pytest.mark.parametrize("dtype", INTEGERS)
def test_comparison_with_an_out_of_range_python_int_is_exact(dtype, op, reflected):
    host = integer_data(dtype)
    x = hipkit.asarray(host)
    for value in python_ints(dtype):
        args = (value, host) if reflected else (host, value)
        want = op(*args)
        assert want.dtype == np.bool_  # NumPy 2 answers them all
        assert_same(op(*((value, x) if reflected else (x, value))), want)


@pytest.mark.parametrize("name", COMPARISON_FUNCTIONS)
@pytest.mark.parametrize("dtype", ["int8", "uint8", "uint64"])
def test_comparison_functions_out_broadcasting_and_0d(name, dtype):
    np_fn, hk_fn = getattr(np, name), getattr(hipkit, name)
    info = np.iinfo(dtype)
    column = np.array([[info.min], [info.max]], dtype)
    for value in (info.max + 1, info.min - 1, 2**70):
        assert_same(hk_fn(hipkit.asarray(column), value), np_fn(column, value))  # shape (2, 1)
        assert_same(hk_fn(value, hipkit.asarray(column)), np_fn(value, column))
        zero_d = np.asarray(np.array(1, dtype))
        assert_same(hk_fn(hipkit.asarray(zero_d), value), np_fn(zero_d, value))
        empty = np.zeros((0, 3), dtype)
        assert_same(hk_fn(hipkit.asarray(empty), value), np_fn(empty, value))
        # out= of another dtype: NumPy casts the bools into it
        np_out, hk_out = np.full(2, 7, np.int8), hipkit.full(2, 7, np.int8)
        np_fn(column[:, 0], value, out=np_out)
        assert hk_fn(hipkit.asarray(column[:, 0]), value, out=hk_out) is hk_out
        assert_same(hk_out, np_out)


def test_comparison_with_a_numpy_integer_scalar_and_an_out_of_range_python_int():
    assert_same(hipkit.equal(np.int8(1), 128), np.asarray(np.equal(np.int8(1), 128)))
    assert_same(hipkit.less(np.uint8(3), 300), np.asarray(np.less(np.uint8(3), 300)))


@pytest.mark.parametrize("op", COMPARISONS, ids=lambda op: op.__name__)
def test_comparison_that_numpy_refuses_still_raises(op):
    # A bool array compares in int64 (NumPy's default integer), which 2**63 does not fit; a float array
    # converts the int to double, which 2**1100 does not fit.
    for host, value, says in ((np.array([True, False]), 2**63, "9223372036854775808"),
                              (np.array([1.0], np.float32), 2**1100, "too large to convert to float")):
        want = outcome(lambda: op(host, value))
        assert isinstance(want, OverflowError)
        with pytest.raises(OverflowError, match=says):
            op(hipkit.asarray(host), value)


@pytest.mark.parametrize("reflected", [False, True], ids=["array-first", "int-first"])
@pytest.mark.parametrize("dtype", INTEGERS + ["bool"])
def test_true_division_by_an_out_of_range_python_int_is_float64(dtype, reflected):
    host = np.array([True, False]) if dtype == "bool" else integer_data(dtype)
    x = hipkit.asarray(host)
    values = python_ints("int8") + ([2**63 + 5, 2**64 - 1] if dtype == "bool" else [])
    for value in values:
        want = outcome(lambda: value / host if reflected else host / value)
        assert want.dtype == np.float64
        assert_same(outcome(lambda: value / x if reflected else x / value), want)
        assert_same(hipkit.divide(*((value, x) if reflected else (x, value))), want)


def test_true_division_into_out_and_of_0d_arrays():
    host = np.array([1, -128, 127], np.int8)
    np_out, hk_out = np.zeros(3, np.float32), hipkit.zeros(3, np.float32)
    np.divide(host, 300, out=np_out)
    hipkit.divide(hipkit.asarray(host), 300, out=hk_out)
    assert_same(hk_out, np_out)
    zero_d = np.asarray(np.array(1, np.int8))
    assert_same(hipkit.asarray(zero_d) / 128, np.asarray(zero_d / 128))
    assert_same(hipkit.divide(2**63, 2), np.asarray(np.divide(2**63, 2)))  # two Python ints: float64 too


def test_true_division_by_an_int_beyond_double_still_raises():
    host = np.array([1, 2], np.int8)
    assert isinstance(outcome(lambda: host / 2**1100), OverflowError)
    with pytest.raises(OverflowError, match="int too large to convert to float"):
        hipkit.asarray(host) / 2**1100


@pytest.mark.parametrize("name", ["arctan2", "hypot", "copysign", "logaddexp"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "uint64"])
def test_float_functions_of_an_out_of_range_python_int_compute_in_their_float_dtype(name, dtype):
    # NumPy checks a Python int against the dtype it is cast to: int8 and uint8 compute these in float16
    # (300 fits; 70000 is inf there), uint64 in float64 (-1 fits).
    host = integer_data(dtype)[-2:]
    for value in (300, -1, 70000):
        want = outcome(lambda: getattr(np, name)(host, value))
        assert not isinstance(want, Exception)
        assert_same(getattr(hipkit, name)(hipkit.asarray(host), value), want, exact=False)


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod,
                                operator.pow, operator.and_, operator.or_, operator.xor],
                         ids=lambda op: op.__name__)
@pytest.mark.parametrize("dtype, value", [("int8", 300), ("int8", 128), ("uint8", -1), ("uint8", 256),
                                          ("int32", 2**31), ("uint64", -1)])
def test_arithmetic_with_an_out_of_range_python_int_still_raises(op, dtype, value):
    host = np.array([1, 2], dtype)
    for args in ((host, value), (value, host)):
        want = outcome(lambda: op(*args))
        assert isinstance(want, OverflowError), f"NumPy gave {want!r}"
        x = hipkit.asarray(host)
        with pytest.raises(OverflowError, match=f"Python integer {value} out of bounds for {dtype}"):
            op(*((x, value) if args[0] is host else (value, x)))


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_with_an_out_of_range_python_int_still_raises(name):
    host = np.array([1, 2], np.int8)
    assert isinstance(outcome(lambda: getattr(np, name)(host, 300)), OverflowError)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        getattr(hipkit, name)(hipkit.asarray(host), 300)


# ---------------------------------------------------------------- reductions of 0-d arrays

REDUCTIONS = ["sum", "prod", "max", "min", "mean", "any", "all", "argmax", "argmin", "std", "var",
              "count_nonzero"]
AXES = [0, -1, (0,), (-1,), 1, -2, (1,), (0, 0), (), None]


def reduce_outcomes(name, host, **kwargs):
    """(hipkit's outcome, NumPy's) of the reduction `name` of a 0-d array."""
    x = hipkit.asarray(host)
    return outcome(lambda: getattr(hipkit, name)(x, **kwargs)), outcome(lambda: getattr(np, name)(host, **kwargs))


@pytest.mark.parametrize("axis", AXES, ids=repr)
@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", ["float32", "int8", "uint64", "bool"])
def test_reduction_of_a_0d_array_over_an_axis_follows_numpy(dtype, name, axis):
    host = np.asarray(np.array(3, dtype))
    got, want = reduce_outcomes(name, host, axis=axis)
    assert_same(got, want)
    if isinstance(want, AxisError):
        assert str(got) == str(want)  # "axis 1 is out of bounds for array of dimension 0"


@pytest.mark.parametrize("axis", [0, -1, ()], ids=repr)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction_of_a_0d_array_with_keepdims(name, axis):
    host = np.asarray(np.float32(-2.5))
    got, want = reduce_outcomes(name, host, axis=axis, keepdims=True)
    assert_same(got, want)


@pytest.mark.parametrize("name", ["sum", "max", "min", "prod", "any", "all", "argmax", "argmin"])
def test_method_and_out_of_a_0d_reduction_over_axis_0(name):
    host = np.asarray(np.float64(7.0))
    x = hipkit.asarray(host)
    assert_same(getattr(x, name)(axis=0), np.asarray(getattr(host, name)(axis=0)))
    want_dtype = getattr(np, name)(host, axis=0).dtype
    np_out, hk_out = np.zeros((), want_dtype), hipkit.zeros((), want_dtype)
    getattr(np, name)(host, axis=-1, out=np_out)
    assert getattr(hipkit, name)(x, axis=-1, out=hk_out) is hk_out
    assert_same(hk_out, np_out)


def test_0d_argmax_names_the_dimension_numpy_names():
    # argmin/argmax look at a 0-d array as one of 1 dimension; sum looks at it as it is
    x = hipkit.asarray(np.float32(1))
    with pytest.raises(AxisError, match="axis 1 is out of bounds for array of dimension 1"):
        hipkit.argmax(x, axis=1)
    with pytest.raises(AxisError, match="axis 1 is out of bounds for array of dimension 0"):
        hipkit.sum(x, axis=1)
    with pytest.raises(AxisError, match="axis 0 is out of bounds for array of dimension 0"):
        hipkit.mean(x, axis=0)  # NumPy's mean, var and std take no axis of a 0-d array


# ---------------------------------------------------------------- shapes too big to describe

TOO_BIG = [((0, 2**70), "uint8"), ((0, 2**63), "uint8"), ((2**64, 0), "uint8"), ((0, 2**63 - 1), "float64"),
           ((2**62, 2, 0), "uint8"), ((0, 2**62, 2**62), "uint8"), ((2**60, 8, 0), "float32"),
           ((2**62, 4), "float64"), ((2**70,), "uint8")]
FITS = [((0, 2**63 - 1), "uint8"), ((2**63 - 1, 0), "uint8"), ((2**31, 2**31, 0), "uint8"),
        ((2**60, 0), "uint8"), ((0,), "float64"), ((3, 0, 5), "int64")]
MAKERS = {
    "empty": lambda m, shape, dtype: m.empty(shape, dtype),
    "zeros": lambda m, shape, dtype: m.zeros(shape, dtype),
    "ones": lambda m, shape, dtype: m.ones(shape, dtype),
    "full": lambda m, shape, dtype: m.full(shape, 1, dtype),
    "empty_like": lambda m, shape, dtype: m.empty_like(m.zeros(1, dtype), shape=shape),
    "zeros_like": lambda m, shape, dtype: m.zeros_like(m.zeros(1, dtype), shape=shape),
    "ones_like": lambda m, shape, dtype: m.ones_like(m.zeros(1, dtype), shape=shape),
    "full_like": lambda m, shape, dtype: m.full_like(m.zeros(1, dtype), 1, shape=shape),
    "ndarray": lambda m, shape, dtype: m.ndarray(shape, dtype),
}


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("shape, dtype", TOO_BIG, ids=str)
def test_shapes_numpy_cannot_describe_are_refused(maker, shape, dtype):
    assert isinstance(outcome(lambda: MAKERS[maker](np, shape, dtype)), ValueError)
    with pytest.raises(ValueError, match="array is too big") as raised:
        MAKERS[maker](hipkit, shape, dtype)
    # the message names what is too big: the dimension, or the bytes and the shape
    big = [n for n in shape if n > 2**63 - 1]
    assert (str(big[0]) if big else f"{shape} of {dtype}") in str(raised.value)
    assert "2**63 - 1" in str(raised.value)


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("shape, dtype", FITS, ids=str)
def test_empty_shapes_numpy_describes_are_made(maker, shape, dtype):
    want = MAKERS[maker](np, shape, dtype)
    got = MAKERS[maker](hipkit, shape, dtype)
    assert (got.shape, got.dtype, got.size, got.nbytes) == (want.shape, want.dtype, 0, 0)


@pytest.mark.parametrize("make", [
    lambda m: m.zeros(0, np.float64).reshape(0, 2**70),
    lambda m: m.zeros(0, np.float64).reshape(0, 2**62),
    lambda m: m.broadcast_to(m.zeros(0, np.float64), (2**70, 0)),
    lambda m: m.broadcast_to(m.zeros(1, np.float64), (2**62,)),
    lambda m: m.broadcast_to(m.zeros(1, np.float64)[None], (2**62, 2, 1)),
], ids=["reshape-dimension", "reshape-bytes", "broadcast-dimension", "broadcast-bytes", "broadcast-3d"])
def test_views_numpy_cannot_describe_are_refused(make):
    assert isinstance(outcome(lambda: make(np)), ValueError)
    with pytest.raises(ValueError, match="array is too big"):
        make(hipkit)


def test_views_numpy_describes_are_made():
    for make in (lambda m: m.zeros(0, np.uint8).reshape(0, 2**63 - 1),
                 lambda m: m.broadcast_to(m.zeros(1, np.uint8), (2**62,))):
        want, got = make(np), make(hipkit)
        assert (got.shape, got.strides, got.dtype) == (want.shape, want.strides, want.dtype)


# ---------------------------------------------------------------- a failed pinned_empty

BAD_PINNED = [(-1, "float64"), ((2, -3), "float32"), ((2**62,), "float64"), (2**70, "uint8"),
              ((2**40, 2**40), "float64"), ((3, "a"), "float64"), (2.5, "float64"), (None, "float64"),
              ((2.0,), "float64")]


def pinned_failure(monkeypatch, shape, dtype):
    """(the exception hipkit.pinned_empty(shape, dtype) raised, what was reported as unraisable while its
    leftovers were collected), the exception kept only as its type and message so that no frame of the
    failed call stays alive."""
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    try:
        hipkit.pinned_empty(shape, dtype)
    except Exception as error:  # noqa: BLE001 (checked by the caller)
        raised = (type(error), str(error))
    else:
        raised = None
    gc.collect()
    return raised, [f"{r.exc_type.__name__}: {r.exc_value} in {r.object!r}" for r in reported]


@pytest.mark.parametrize("shape, dtype", BAD_PINNED, ids=str)
def test_failed_pinned_empty_raises_what_numpy_raises_and_its_destructor_stays_quiet(monkeypatch, shape, dtype):
    want = outcome(lambda: np.empty(shape, dtype))
    assert isinstance(want, (TypeError, ValueError))
    raised, reported = pinned_failure(monkeypatch, shape, dtype)
    assert reported == []
    assert raised is not None and issubclass(raised[0], type(want)), (raised, want)
    # the message says what is wrong with the shape
    assert any(word in raised[1] for word in ("negative", "too big", "must be an int")), raised[1]


def test_pinned_empty_out_of_memory_and_object_dtypes(monkeypatch):
    raised, reported = pinned_failure(monkeypatch, 2**60, np.uint8)  # 1 EiB: no host has it
    assert reported == []
    # OutOfMemoryError (a MemoryError) with the library's sentence, on the CPU device; a GPU runtime
    # may word its refusal otherwise
    assert issubclass(raised[0], hipkit.HipkitError) and "hk_host_malloc" in raised[1], raised
    raised, reported = pinned_failure(monkeypatch, 3, object)
    assert reported == []
    assert raised[0] is TypeError and "numeric dtype" in raised[1]


def test_pinned_empty_takes_what_numpy_takes():
    for shape in (np.int64(3), (2, np.uint8(3)), (0, 4), ()):
        want, got = np.empty(shape, np.float32), hipkit.pinned_empty(shape, np.float32)
        assert (got.shape, got.dtype) == (want.shape, want.dtype)


def test_failed_pinned_empty_prints_nothing_in_a_fresh_process():
    # the whole interpreter's life, its exit included: nothing on stderr but what the script prints
    script = textwrap.dedent("""
        import gc, sys
        import numpy as np
        import hipkit
        for shape in (-1, (2, -3), (2**62,), (3, "a"), 2**60):
            try:
                hipkit.pinned_empty(shape, np.uint8 if shape == 2**60 else np.float64)
            except hipkit.HipkitError:
                print("HipkitError")  # 2**60 bytes: out of memory
            except (TypeError, ValueError) as error:
                print(type(error).__name__)
        gc.collect()
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=os.environ,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ValueError", "ValueError", "ValueError", "TypeError", "HipkitError"]
    assert done.stderr == ""
