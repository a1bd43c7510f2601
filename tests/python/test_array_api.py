"""hipkit's part of the Python array API standard, checked against array-api-strict (issue 5).

Signatures: every function of the standard's namespace that hipkit provides has a compatible
signature (positional-only and keyword parameters where the standard has them, the same defaults,
no extra required parameter), taking inspect.signature of array_api_strict's functions as the
reference; the standard names hipkit lacks are listed; __array_namespace__ checks api_version.
Deliberate deviations are listed in NOT_PROVIDED and SIGNATURE_DEVIATIONS below: any other deviation
fails, and so does a listed one that is no longer there (the lists stay true).

Values, on the current device (a GPU, or the CPU device): equal array_api_strict's on random data,
function by function, and array-array operations give the dtype of the standard's promotion table.
"""
import inspect
import math

import numpy as np
import pytest

import hipkit

xp = pytest.importorskip("array_api_strict")

P = inspect.Parameter

# array_api_strict's own helpers and the extension modules (linalg, fft), outside the namespace checked.
NOT_STANDARD = {"Device", "set_array_api_strict_flags", "get_array_api_strict_flags",
                "reset_array_api_strict_flags", "ArrayAPIStrictFlags", "__version__", "linalg", "fft"}

# Standard names hipkit does not provide, each for a reason (no kernel, no dtype, not done yet).
NOT_PROVIDED = {
    # 2025.12's set function, not implemented yet
    "isin",
}

# (function, parameter): why hipkit differs from the standard's signature there.
SIGNATURE_DEVIATIONS = {}

UNDEF = object()


def _default(p):
    """A parameter's default, with array_api_strict's "not given" marker (Undef) read as None."""
    if p.default is P.empty:
        return UNDEF
    if type(p.default).__name__ == "Undef":
        return None
    return p.default


def signature_deviations(name):
    """[(name, parameter, what)] where hipkit's function cannot be called as the standard's is."""
    ref = inspect.signature(getattr(xp, name)).parameters.values()
    ours = list(inspect.signature(getattr(hipkit, name)).parameters.values())
    positional = [q for q in ours if q.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    by_name = {q.name: q for q in ours if q.kind in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY)}
    var_positional = any(q.kind is P.VAR_POSITIONAL for q in ours)
    found, used = [], set()

    def compare_default(p, q):
        want = _default(p)
        if want is UNDEF or q is None:
            return
        got = _default(q)
        if got is UNDEF:
            found.append((name, p.name, "has no default"))
        elif not (got is want or (type(got) is type(want) and got == want) or (
                isinstance(want, float) and isinstance(got, (int, float)) and got == want)):
            found.append((name, p.name, f"default {got!r}, the standard's {want!r}"))

    for i, p in enumerate(ref):
        if p.kind is P.VAR_POSITIONAL:
            if not var_positional:
                found.append((name, "*" + p.name, "takes no variable positional arguments"))
            used.update(q.name for q in ours if q.kind is P.VAR_POSITIONAL)
            continue
        if p.kind is P.VAR_KEYWORD:
            continue
        q = None
        if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD):
            if i < len(positional):
                q = positional[i]
                used.add(q.name)
            elif not var_positional:
                found.append((name, p.name, f"cannot be passed as positional argument {i}"))
                continue
        if p.kind in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY):
            by_keyword = by_name.get(p.name)
            if by_keyword is None:
                found.append((name, p.name, "cannot be passed by keyword"))
                continue
            used.add(p.name)
            q = q if p.kind is P.POSITIONAL_OR_KEYWORD and q is not None else by_keyword
        compare_default(p, q)
    for q in ours:
        if q.name not in used and q.default is P.empty and q.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD):
            found.append((name, q.name, "is required, the standard has no such parameter"))
    return found


STANDARD = sorted(n for n in xp.__all__ if n not in NOT_STANDARD)
PROVIDED = [n for n in STANDARD if hasattr(hipkit, n)]
FUNCTIONS = [n for n in PROVIDED if inspect.isfunction(getattr(xp, n)) and n != "__array_namespace_info__"]


# ---------------------------------------------------------------- names and signatures

def test_the_names_not_provided_are_the_listed_ones():
    missing = {n for n in STANDARD if not hasattr(hipkit, n)}
    lost = sorted(missing - NOT_PROVIDED)
    assert not lost, f"standard names hipkit lacks that NOT_PROVIDED does not list: {lost}"
    stale = sorted(NOT_PROVIDED - missing)
    assert not stale, f"now provided, drop from NOT_PROVIDED: {stale}"


@pytest.mark.parametrize("name", FUNCTIONS)
def test_signature_is_compatible(name):
    found = signature_deviations(name)
    unexpected = [f for f in found if (f[0], f[1]) not in SIGNATURE_DEVIATIONS]
    assert not unexpected, f"{name}{inspect.signature(getattr(hipkit, name))} differs from the standard's " \
                           f"{name}{inspect.signature(getattr(xp, name))}: {unexpected}"
    stale = [key for key in SIGNATURE_DEVIATIONS if key[0] == name and key not in {(f[0], f[1]) for f in found}]
    assert not stale, f"listed in SIGNATURE_DEVIATIONS but conforming now: {stale}"


def test_constants_and_dtypes():
    for name in ("e", "inf", "nan", "pi"):
        ours, theirs = getattr(hipkit, name), getattr(xp, name)
        assert ours == theirs or (math.isnan(ours) and math.isnan(theirs)), name
    assert hipkit.newaxis is None and xp.newaxis is None
    for name in ("bool", "int8", "uint8", "int32", "uint32", "int64", "uint64", "float32", "float64"):
        assert np.dtype(getattr(hipkit, name)).name == name
    assert hipkit.__array_api_version__ in ("2021.12", "2022.12", "2023.12")


def test_array_namespace_checks_api_version():
    x = hipkit.empty((0,))
    assert x.__array_namespace__() is hipkit
    for version in ("2021.12", "2022.12", "2023.12"):
        assert x.__array_namespace__(api_version=version) is hipkit
    for bad in ("2019.01", "2025.12", "latest", ""):
        with pytest.raises(ValueError, match="does not implement array API version"):
            x.__array_namespace__(api_version=bad)
    with pytest.raises(TypeError, match="api_version must be a string"):
        x.__array_namespace__(api_version=2023.12)
    with pytest.raises(TypeError):
        x.__array_namespace__("2023.12")  # keyword-only, as the standard says


def test_data_type_functions():
    for a in ("int8", "uint8", "int32", "uint32", "int64", "uint64", "float32", "float64", "bool"):
        for b in ("int8", "uint8", "int32", "uint32", "int64", "uint64", "float32", "float64", "bool"):
            ours = hipkit.can_cast(getattr(hipkit, a), getattr(hipkit, b))
            assert ours == xp.can_cast(getattr(xp, a), getattr(xp, b)), (a, b)
        for kind in ("bool", "signed integer", "unsigned integer", "integral", "real floating", "numeric"):
            assert hipkit.isdtype(getattr(hipkit, a), kind) == xp.isdtype(getattr(xp, a), kind), (a, kind)
    assert hipkit.finfo(hipkit.float32).eps == xp.finfo(xp.float32).eps
    assert hipkit.iinfo(hipkit.int8).min == xp.iinfo(xp.int8).min
    assert hipkit.broadcast_shapes((3, 1), (1, 4)) == xp.broadcast_shapes((3, 1), (1, 4))


# ---------------------------------------------------------------- values against array-api-strict

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64",
          "complex64", "complex128"]


def _random(rng, shape, dtype, positive=False):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        low = 1 if positive else (0 if dtype.kind == "u" else -50)
        return rng.integers(low, 50, size=shape).astype(dtype)
    values = rng.standard_normal(shape) * 3
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(shape) * 3
    return (np.abs(values) + 0.1 if positive else values).astype(dtype)


def _host(result):
    """A NumPy array (or a list of them) from a hipkit or array_api_strict result."""
    if isinstance(result, (tuple, list)):
        return [_host(r) for r in result]
    if isinstance(result, hipkit.ndarray):
        return result.get()
    return np.from_dlpack(result)


def _compare(name, ours, theirs, what, rtol=0.0, atol=0.0):
    ours, theirs = _host(ours), _host(theirs)
    if isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), \
            f"{what}: {len(ours)} results, expected {len(theirs)}"
        for k, (o, t) in enumerate(zip(ours, theirs)):
            _compare(name, o, t, f"{what} [result {k}]", rtol, atol)
        return
    assert ours.dtype == theirs.dtype, f"{what}: dtype {ours.dtype}, array_api_strict gives {theirs.dtype}"
    assert ours.shape == theirs.shape, f"{what}: shape {ours.shape}, array_api_strict gives {theirs.shape}"
    if ours.dtype.kind in "fc":
        close = np.isclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True) | (ours == theirs)
    else:
        close = ours == theirs
    if not close.all():
        at = [tuple(int(i) for i in w) for w in np.argwhere(~close)[:5]]
        details = ", ".join(f"{a}: got {ours[a]!r}, expected {theirs[a]!r}" for a in at)
        raise AssertionError(f"{what}: {int((~close).sum())} of {close.size} elements differ ({details})")


def _both(rng, shape, dtype, positive=False):
    a = _random(rng, shape, dtype, positive)
    return hipkit.asarray(a), xp.asarray(a)


def _tolerance(dtype, name):
    dtype = np.dtype(dtype)
    if dtype.kind not in "fc":
        return 0.0
    loose = name in ("exp", "expm1", "tan", "tanh", "sin", "cos", "log", "log1p", "log2", "pow", "mean", "var",
                     "std", "sum", "prod", "cumulative_sum", "cumulative_prod", "matmul", "divide", "sqrt")
    if dtype.kind == "c":  # complex results: a few ulp of the modulus, in every function but the exact ones
        loose = name not in ("negative", "positive", "conj", "real", "imag", "add", "subtract", "equal", "not_equal")
    return (1e-5 if dtype in (np.float32, np.complex64) else 1e-12) if loose else 0.0


UNARY = [n for n in ("abs", "bitwise_invert", "ceil", "cos", "exp", "expm1", "floor", "isfinite", "isinf", "isnan",
                     "log", "log1p", "log2", "logical_not", "negative", "positive", "round", "sin", "sqrt", "square",
                     "tan", "tanh") if n in PROVIDED]
BINARY = [n for n in ("add", "bitwise_and", "bitwise_or", "bitwise_xor", "divide", "equal", "floor_divide", "greater",
                      "greater_equal", "less", "less_equal", "logical_and", "logical_or", "logical_xor", "maximum",
                      "minimum", "multiply", "not_equal", "pow", "remainder", "subtract") if n in PROVIDED]


def _strict(fn, *args, **kwargs):
    """array_api_strict's result, or None where the standard does not define the call (TypeError)."""
    try:
        return fn(*args, **kwargs)
    except TypeError:
        return None


def _defined(name, dtype, arity):
    """Whether the standard defines `name` for `dtype` (array_api_strict raises TypeError where not):
    decided when the tests are collected, so undefined pairs are not tests at all (not skips)."""
    sample = xp.asarray(np.ones(2, dtype))
    return _strict(getattr(xp, name), *([sample] * arity)) is not None


@pytest.mark.parametrize("name, dtype", [(n, d) for n in UNARY for d in DTYPES if _defined(n, d, 1)])
def test_unary_values(rng, name, dtype):
    positive = name in ("log", "log1p", "log2", "sqrt")
    x, s = _both(rng, (7, 13), dtype, positive)
    theirs = _strict(getattr(xp, name), s)
    assert theirs is not None, f"array_api_strict refused {name}({dtype}) on the values"
    _compare(name, getattr(hipkit, name)(x), theirs, f"{name}({dtype} (7, 13))", _tolerance(dtype, name))


@pytest.mark.parametrize("name, dtype", [(n, d) for n in BINARY for d in DTYPES if _defined(n, d, 2)])
def test_binary_values(rng, name, dtype):
    positive = name in ("floor_divide", "remainder", "pow", "divide")  # no division by 0, no negative powers
    a, sa = _both(rng, (5, 1, 6), dtype)
    b, sb = _both(rng, (4, 1), dtype, positive)
    if name == "pow" and np.dtype(dtype).kind in "iu":
        host = rng.integers(0, 4, size=(4, 1)).astype(dtype)
        b, sb = hipkit.asarray(host), xp.asarray(host)
    theirs = _strict(getattr(xp, name), sa, sb)
    assert theirs is not None, f"array_api_strict refused {name}({dtype}, {dtype}) on the values"
    _compare(name, getattr(hipkit, name)(a, b), theirs, f"{name}({dtype} (5, 1, 6), {dtype} (4, 1))",
             _tolerance(dtype, name))
    # a Python scalar on one side (the standard's weak scalars)
    scalar = 3 if np.dtype(dtype).kind in "iu" else (True if dtype == "bool" else 1.5)
    theirs = _strict(getattr(xp, name), sa, scalar)
    if theirs is not None:
        _compare(name, getattr(hipkit, name)(a, scalar), theirs, f"{name}({dtype} array, {scalar!r})",
                 _tolerance(dtype, name))


# Promotion of two arrays of different dtypes where hipkit's differs from the standard's table: none.
PROMOTION_DEVIATIONS = {}


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "equal", "bitwise_or", "divide"])
def test_promotion_of_array_pairs(rng, name):
    for d1 in DTYPES:
        for d2 in DTYPES:
            a, sa = _both(rng, (3,), d1, positive=True)
            b, sb = _both(rng, (3,), d2, positive=True)
            theirs = _strict(getattr(xp, name), sa, sb)
            if theirs is None:  # mixed kinds: the standard leaves them undefined
                continue
            want = PROMOTION_DEVIATIONS.get((d1, d2), _host(theirs).dtype.name)  # str() of theirs: "array_api_strict.int8"
            if name in ("equal",):
                want = "bool"
            ours = getattr(hipkit, name)(a, b)
            assert str(ours.dtype) == want, f"{name}({d1}, {d2}): hipkit gives {ours.dtype}, expected {want}"


REDUCTIONS = [n for n in ("sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "argmax", "argmin",
                          "count_nonzero") if n in PROVIDED]


@pytest.mark.parametrize("name, dtype", [(n, d) for n in REDUCTIONS for d in DTYPES if _defined(n, d, 1)])
def test_reduction_values(rng, name, dtype):
    x, s = _both(rng, (4, 5, 6), dtype)
    # A sum's rounding error scales with its terms, not with its result (which
    # cancellation can bring near zero): an absolute bound from the largest term.
    rtol = _tolerance(dtype, name)
    atol = rtol * float(np.max(np.abs(_host(x)))) if name in ("sum", "mean") else 0.0
    for kwargs in ({}, {"axis": 0}, {"axis": -1, "keepdims": True}, {"axis": (0, 2)}):
        if name in ("argmax", "argmin") and isinstance(kwargs.get("axis"), tuple):
            continue
        theirs = _strict(getattr(xp, name), s, **kwargs)
        assert theirs is not None, f"array_api_strict refused {name}({dtype}, {kwargs})"
        _compare(name, getattr(hipkit, name)(x, **kwargs), theirs, f"{name}({dtype} (4, 5, 6), {kwargs})",
                 rtol, atol)
    if name in ("var", "std") and np.dtype(dtype).kind == "f":
        _compare(name, getattr(hipkit, name)(x, correction=1, axis=1), getattr(xp, name)(s, correction=1, axis=1),
                 f"{name}(correction=1)", _tolerance(dtype, name))


def _manipulations(rng, dtype):
    """(description, hipkit call, array_api_strict call) over the same random data."""
    x, s = _both(rng, (3, 4, 5), dtype)
    y, t = _both(rng, (3, 4, 5), dtype)
    m, sm = _both(rng, (4,), dtype)
    idx = rng.integers(0, 4, size=6)
    cond = rng.random((3, 4, 5)) < 0.5
    hc, sc = hipkit.asarray(cond), xp.asarray(cond)
    hi, si = hipkit.asarray(idx), xp.asarray(idx)
    cases = [
        ("reshape", lambda: hipkit.reshape(x, (12, 5)), lambda: xp.reshape(s, (12, 5))),
        ("permute_dims", lambda: hipkit.permute_dims(x, (2, 0, 1)), lambda: xp.permute_dims(s, (2, 0, 1))),
        ("matrix_transpose", lambda: hipkit.matrix_transpose(x), lambda: xp.matrix_transpose(s)),
        ("expand_dims", lambda: hipkit.expand_dims(x, axis=1), lambda: xp.expand_dims(s, axis=1)),
        ("squeeze", lambda: hipkit.squeeze(hipkit.expand_dims(x, axis=0), axis=0),
         lambda: xp.squeeze(xp.expand_dims(s, axis=0), axis=0)),
        ("flip", lambda: hipkit.flip(x), lambda: xp.flip(s)),
        ("flip axis", lambda: hipkit.flip(x, axis=(0, 2)), lambda: xp.flip(s, axis=(0, 2))),
        ("moveaxis", lambda: hipkit.moveaxis(x, 0, -1), lambda: xp.moveaxis(s, 0, -1)),
        ("broadcast_to", lambda: hipkit.broadcast_to(m, (2, 4)), lambda: xp.broadcast_to(sm, (2, 4))),
        ("broadcast_arrays", lambda: list(hipkit.broadcast_arrays(hipkit.reshape(m, (4, 1)), x)),
         lambda: list(xp.broadcast_arrays(xp.reshape(sm, (4, 1)), s))),
        ("concat", lambda: hipkit.concat([x, y], axis=1), lambda: xp.concat([s, t], axis=1)),
        ("concat None", lambda: hipkit.concat([x, y], axis=None), lambda: xp.concat([s, t], axis=None)),
        ("stack", lambda: hipkit.stack([x, y], axis=-1), lambda: xp.stack([s, t], axis=-1)),
        ("unstack", lambda: list(hipkit.unstack(x, axis=1)), lambda: list(xp.unstack(s, axis=1))),
        ("take", lambda: hipkit.take(x, hi, axis=1), lambda: xp.take(s, si, axis=1)),
        ("where", lambda: hipkit.where(hc, x, y), lambda: xp.where(sc, s, t)),
        ("nonzero", lambda: list(hipkit.nonzero(hc)), lambda: list(xp.nonzero(sc))),
        ("astype float64", lambda: hipkit.astype(x, hipkit.float64), lambda: xp.astype(s, xp.float64)),
        ("astype int32", lambda: hipkit.astype(x, hipkit.int32), lambda: xp.astype(s, xp.int32)),
    ]
    if dtype != "bool":
        cases += [
            ("sort", lambda: hipkit.sort(x, axis=1), lambda: xp.sort(s, axis=1)),
            ("sort descending", lambda: hipkit.sort(x, axis=0, descending=True),
             lambda: xp.sort(s, axis=0, descending=True)),
            ("argsort", lambda: hipkit.argsort(x), lambda: xp.argsort(s)),
            ("argsort descending", lambda: hipkit.argsort(x, axis=1, descending=True),
             lambda: xp.argsort(s, axis=1, descending=True)),
            ("clip", lambda: hipkit.clip(x, min=m[0].item() if dtype != "bool" else None),
             lambda: xp.clip(s, min=sm[0].__index__() if np.dtype(dtype).kind in "iu" else float(sm[0]))),
            ("cumulative_sum", lambda: hipkit.cumulative_sum(x, axis=1), lambda: xp.cumulative_sum(s, axis=1)),
            ("cumulative_sum initial", lambda: hipkit.cumulative_sum(m, include_initial=True),
             lambda: xp.cumulative_sum(sm, include_initial=True)),
            ("cumulative_prod", lambda: hipkit.cumulative_prod(x, axis=-1), lambda: xp.cumulative_prod(s, axis=-1)),
        ]
    if dtype in ("float32", "float64"):
        cases += [("matmul", lambda: hipkit.matmul(x, hipkit.matrix_transpose(y)),
                   lambda: xp.matmul(s, xp.matrix_transpose(t)))]
    return cases


@pytest.mark.parametrize("dtype", DTYPES)
def test_manipulation_and_search_values(rng, dtype):
    for what, ours, theirs in _manipulations(rng, dtype):
        expected = _strict(theirs)
        if expected is None:
            continue
        name = what.split()[0]
        _compare(name, ours(), expected, f"{what} of {dtype}", _tolerance(dtype, name))


def test_creation_values(rng):
    for dtype in ("int32", "float32", "float64", "uint8", "bool"):
        hd, sd = getattr(hipkit, dtype), getattr(xp, dtype)
        _compare("zeros", hipkit.zeros((2, 3), dtype=hd), xp.zeros((2, 3), dtype=sd), f"zeros {dtype}")
        _compare("ones", hipkit.ones(4, dtype=hd), xp.ones(4, dtype=sd), f"ones {dtype}")
        fill = True if dtype == "bool" else 1.5 if dtype.startswith("float") else 7
        _compare("full", hipkit.full((3,), fill, dtype=hd), xp.full((3,), fill, dtype=sd), f"full {dtype}")
    _compare("zeros", hipkit.zeros(3), xp.zeros(3), "zeros default dtype")
    _compare("arange", hipkit.arange(2, 20, 3), xp.arange(2, 20, 3), "arange ints")
    _compare("arange", hipkit.arange(0.5, 3.0, 0.25), xp.arange(0.5, 3.0, 0.25), "arange floats")
    _compare("linspace", hipkit.linspace(0, 1, 7), xp.linspace(0, 1, 7), "linspace", 1e-15)
    _compare("linspace", hipkit.linspace(0, 1, 7, endpoint=False), xp.linspace(0, 1, 7, endpoint=False),
             "linspace endpoint=False", 1e-15)
    a = _random(rng, (3, 4), "float32")
    x, s = hipkit.asarray(a), xp.asarray(a)
    _compare("asarray", hipkit.asarray(x, copy=True), s, "asarray copy=True")
    assert hipkit.asarray(x, copy=False) is x
    if hipkit.get_device().is_gpu:
        with pytest.raises(ValueError, match="copy=False"):
            hipkit.asarray(a, copy=False)  # host data for a GPU
    else:
        assert hipkit.asarray(a, copy=False).ptr == a.ctypes.data  # the CPU device shares host memory
    with pytest.raises(ValueError, match="copy=False"):
        hipkit.asarray(a, dtype=hipkit.float64, copy=False)
    _compare("full_like", hipkit.full_like(x, 2.5), xp.full_like(s, 2.5), "full_like")
    _compare("zeros_like", hipkit.zeros_like(x, dtype=hipkit.int64), xp.zeros_like(s, dtype=xp.int64), "zeros_like")
    assert hipkit.reshape(x.T, (12,), copy=True).shape == (12,)
    with pytest.raises(ValueError, match="copy=False"):
        hipkit.reshape(x.T, (12,), copy=False)
    assert hipkit.empty_like(x).shape == (3, 4) and hipkit.empty((2,)).dtype == np.float64
