"""Lazy mode (hipkit.lazy, hipkit/_lazy.py): elementwise expressions recorded and run as one fused kernel
when a result is needed. Checked against NumPy on fresh random data at awkward sizes; that fusion really
happened (lazy.stats(): fused kernels run, ops run eagerly); that every kind of use of a pending value or of
an input runs what is pending first (reductions, get, item, indexing, assignment, in-place operators,
out=, kernels, ptr/DLPack, synchronize); views and dropped temporaries; the background compile; the
eager path for what does not fuse; other threads; the size limit; errors raised as in eager mode."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import hipkit
from hipkit import _lazy

pytestmark = pytest.mark.user_kernels  # the fused kernels compile at run time (the CPU device: g++)

SIZES = [1, 7, 1000, 4097, 1 << 17]


def _delta(before):
    after = hipkit.lazy.stats()
    return {k: after[k] - before[k] for k in after}


def _arrays(rng, n, dtype, count):
    hosts = [rng.standard_normal(n).astype(dtype) for _ in range(count)]
    return hosts, [hipkit.asarray(h) for h in hosts]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_chain_is_one_kernel_and_matches_numpy(rng, n, dtype):
    (ha, hx, hy, hb, hc), (a, x, y, b, c) = _arrays(rng, n, dtype, 5)
    with hipkit.lazy(background=False):
        d = a * x + y * b - c
    before = hipkit.lazy.stats()
    with hipkit.lazy(background=False):  # the second time: its kernel is compiled
        d = a * x + y * b - c
    delta = _delta(before)
    assert delta["recorded"] == 4 and delta["fused"] == 1 and delta["eager"] == 0, delta
    assert d.dtype == dtype and d.shape == (n,)
    tol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(d.get(), ha * hx + hy * hb - hc, rtol=tol, atol=tol)


def test_math_scalars_and_comparisons_fuse(rng):
    (hx, hy), (x, y) = _arrays(rng, 3001, np.float32, 2)
    with hipkit.lazy(background=False):
        z = hipkit.sqrt(abs(x) + 1.0) * 2.5 - hipkit.sin(y) / (y * y + 1)
        m = (x * 2 > y) == (-y < x)
    want_z = np.sqrt(np.abs(hx) + 1.0) * np.float32(2.5) - np.sin(hy) / (hy * hy + 1)
    assert z.dtype == np.float32 and m.dtype == np.bool_
    np.testing.assert_allclose(z.get(), want_z, rtol=2e-6, atol=2e-6)
    np.testing.assert_array_equal(m.get(), (hx * 2 > hy) == (-hy < hx))


def test_scalar_values_reuse_the_kernel(rng):
    (hx,), (x,) = _arrays(rng, 999, np.float64, 1)
    with hipkit.lazy(background=False):
        y = x * 1.0 + 1.0
    compiles = hipkit.lazy.stats()["compiles"]
    for k in range(5):
        with hipkit.lazy(background=False):
            y = x * float(k) + 2.0 * k
        np.testing.assert_allclose(y.get(), hx * k + 2.0 * k, rtol=1e-14, atol=1e-14 * (abs(k) + 1))  # fma: 1 ulp
    assert hipkit.lazy.stats()["compiles"] == compiles


def test_nan_and_inf_propagate(rng):
    h = rng.standard_normal(100).astype(np.float32)
    h[[3, 50]] = np.nan
    h[7] = np.inf
    x = hipkit.asarray(h)
    with hipkit.lazy(background=False):
        y = x * 2.0 + x
        bad = hipkit.isnan(y * 1.0)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(y.get(), h * 2 + h)
    np.testing.assert_array_equal(bad.get(), np.isnan(h))


def test_values_still_held_are_written_and_dropped_ones_are_not(rng):
    (ha, hb), (a, b) = _arrays(rng, 513, np.float32, 2)
    before = hipkit.lazy.stats()
    with hipkit.lazy(background=False):
        t = a * b           # held: written
        u = (t + a) * 3.0   # t + a dropped: only inside u's kernel
    np.testing.assert_allclose(t.get(), ha * hb, rtol=1e-6)
    np.testing.assert_allclose(u.get(), (ha * hb + ha) * 3, rtol=1e-6)
    delta = _delta(before)
    assert delta["recorded"] == 3 and delta["fused"] == 1 and delta["eager"] == 1, delta  # t alone: one op


def test_a_view_of_a_pending_value_keeps_it(rng):
    (ha,), (a,) = _arrays(rng, 1000, np.float32, 1)
    with hipkit.lazy(background=False):
        v = (a * 2.0 + 1.0)[::3]  # the view holds the temporary: it is written
        w = v * 5.0
    np.testing.assert_allclose(w.get(), (ha * 2 + 1)[::3] * 5, rtol=1e-6)
    np.testing.assert_allclose(v.get(), (ha * 2 + 1)[::3], rtol=1e-6)


@pytest.mark.parametrize("use", ["sum", "get", "item", "getitem", "setitem_input", "iadd_input", "out_input",
                                 "astype", "copy", "ptr", "dlpack", "synchronize", "matmul", "sort",
                                 "concatenate", "mask"])
def test_every_use_runs_what_is_pending_first(rng, use):
    h = rng.standard_normal(64).astype(np.float32)
    with hipkit.lazy():
        a = hipkit.asarray(h)
        d = a * 2.0 + 1.0
        want = h * 2 + 1
        if use == "sum":
            got = float(hipkit.sum(d))
            assert got == pytest.approx(float(want.sum()), rel=1e-5)
        elif use == "get":
            np.testing.assert_allclose(d.get(), want, rtol=1e-6)
        elif use == "item":
            assert d[5].item() == pytest.approx(float(want[5]), rel=1e-6)
        elif use == "getitem":
            idx = hipkit.asarray(np.array([0, 63, 5]))
            np.testing.assert_allclose(d[idx].get(), want[[0, 63, 5]], rtol=1e-6)
        elif use == "setitem_input":  # writing an input of a pending op: the op reads the old values
            a[0] = 1000.0
            assert d.get()[0] == pytest.approx(float(want[0]), rel=1e-6)
            assert a.get()[0] == 1000.0
        elif use == "iadd_input":
            a += 100.0
            np.testing.assert_allclose(d.get(), want, rtol=1e-6)
        elif use == "out_input":
            hipkit.multiply(a, 0.0, out=a)
            np.testing.assert_allclose(d.get(), want, rtol=1e-6)
        elif use == "astype":
            np.testing.assert_allclose(d.astype(np.float64).get(), want, rtol=1e-6)
        elif use == "copy":
            np.testing.assert_allclose(d.copy().get(), want, rtol=1e-6)
        elif use == "ptr":
            before = hipkit.lazy.stats()["flushes"]
            assert d.ptr != 0
            assert hipkit.lazy.stats()["flushes"] == before + 1
            np.testing.assert_allclose(d.get(), want, rtol=1e-6)
        elif use == "dlpack":
            if d.device.kind != "cpu":
                pytest.skip("NumPy imports DLPack from host memory only; the GPU path is the same ptr read")
            np.testing.assert_allclose(np.from_dlpack(d), want, rtol=1e-6)
        elif use == "synchronize":
            before = hipkit.lazy.stats()["flushes"]
            hipkit.get_device().synchronize()
            assert hipkit.lazy.stats()["flushes"] == before + 1
        elif use == "matmul":
            m = d.reshape(8, 8)
            np.testing.assert_allclose((m @ m).get(), want.reshape(8, 8) @ want.reshape(8, 8), rtol=1e-4)
        elif use == "sort":
            np.testing.assert_allclose(hipkit.sort(d).get(), np.sort(want), rtol=1e-6)
        elif use == "concatenate":
            np.testing.assert_allclose(hipkit.concatenate([d, d]).get(), np.concatenate([want, want]), rtol=1e-6)
        elif use == "mask":
            np.testing.assert_allclose(d[d > 1.0].get(), want[want > 1.0], rtol=1e-6)


def test_a_kernel_argument_runs_what_is_pending_first(rng):
    k = hipkit.RawKernel(r'''
    #include <hipkit_device.h>
    extern "C" __global__ void twice(const float *x, float *y, long long n)
    {
        for (long long i = hk_global_index(); i < n; i += hk_grid_stride())
            y[i] = 2.0f * x[i];
    }''', "twice")
    h = rng.standard_normal(300).astype(np.float32)
    a = hipkit.asarray(h)
    out = hipkit.zeros(300, np.float32)
    with hipkit.lazy():
        d = a + 1.0
        k(2, 256, (d, out, 300))
    np.testing.assert_allclose(out.get(), (h + 1) * 2, rtol=1e-6)


def test_background_compile_runs_eagerly_first_then_fused(rng):
    (hx,), (x,) = _arrays(rng, 777, np.float64, 1)
    want = np.exp(hx * 0.5) - np.tanh(hx) * 3.0 + 7.25
    # an expression no other test writes: new to this process, so its kernel compiles in the background
    # while the first run goes op by op; the second run is one fused kernel
    for run, expected in enumerate([{"fused": 0, "eager": 6, "compiles": 1}, {"fused": 1, "eager": 0, "compiles": 0}]):
        before = hipkit.lazy.stats()
        with hipkit.lazy():
            y = hipkit.exp(x * 0.5) - hipkit.tanh(x) * 3.0 + 7.25
        delta = _delta(before)
        assert {k: delta[k] for k in expected} == expected, (run, delta)
        np.testing.assert_allclose(y.get(), want, rtol=1e-13)
        for thread in list(_lazy._threads):
            thread.join(timeout=300)


@pytest.mark.parametrize("case", ["int", "maximum", "broadcast", "strided", "complex", "float16", "mixed"])
def test_what_does_not_fuse_runs_eagerly_and_right(rng, case):
    h = rng.standard_normal((6, 40)).astype(np.float32)
    x = hipkit.asarray(h)
    with hipkit.lazy(background=False):
        if case == "int":
            hi = (h * 10).astype(np.int32)
            xi = hipkit.asarray(hi)
            got, want = (xi * 3 + xi // 2) % 7, (hi * 3 + hi // 2) % 7
        elif case == "maximum":
            got, want = hipkit.maximum(x * 2, 0.5) + 1, np.maximum(h * 2, 0.5) + 1
        elif case == "broadcast":
            row = hipkit.asarray(h[0])
            got, want = x * row + 1.0, h * h[0] + 1
        elif case == "strided":
            got, want = x[:, ::2] * 3.0 + 1.0, h[:, ::2] * 3 + 1
        elif case == "complex":
            got, want = x * (1 + 2j) + 1.0, h * (1 + 2j) + 1
        elif case == "float16":
            h16 = h.astype(np.float16)
            x16 = hipkit.asarray(h16)
            got, want = x16 * 2 + 1, h16 * 2 + 1
        else:  # int array with float math: int -> float64 casts inside the fused kernel
            hi = (h * 10).astype(np.int32)
            xi = hipkit.asarray(hi)
            got, want = hipkit.sqrt(abs(xi) + 0.5) * x, np.sqrt(np.abs(hi) + 0.5) * h
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got.get(), want, rtol=2e-3 if case == "float16" else 1e-6)


def test_errors_are_the_eager_ones(rng):
    x, y = hipkit.zeros(5), hipkit.zeros(6)
    with hipkit.lazy():
        with pytest.raises(ValueError):
            x + y
        with pytest.raises(TypeError):
            x + "a"
        with pytest.raises(TypeError):
            x + np.zeros(5)
        with pytest.raises(OverflowError):
            hipkit.zeros(3, np.int8) + 300


def test_the_block_runs_what_is_pending_on_an_exception(rng):
    h = rng.standard_normal(10)
    x = hipkit.asarray(h)
    with pytest.raises(RuntimeError):
        with hipkit.lazy():
            y = x * 2.0 + 1.0
            raise RuntimeError("in the block")
    assert not _lazy._pending
    np.testing.assert_allclose(y.get(), h * 2 + 1)


def test_the_size_limit_runs_long_chains(rng):
    h = rng.standard_normal(100)
    x = hipkit.asarray(h)
    before = hipkit.lazy.stats()["flushes"]
    with hipkit.lazy(background=False):
        y = x
        for _ in range(3 * _lazy._LIMIT):
            y = y * 1.0001 + 0.0001
    assert hipkit.lazy.stats()["flushes"] - before >= 3
    want = h.copy()
    for _ in range(3 * _lazy._LIMIT):
        want = want * 1.0001 + 0.0001
    np.testing.assert_allclose(y.get(), want, rtol=1e-12)


def test_other_threads_run_eagerly(rng):
    h = rng.standard_normal(50)
    x = hipkit.asarray(h)
    results = {}

    def other():
        before = hipkit.lazy.stats()["recorded"]
        with hipkit.Device(x.device.id):
            results["y"] = (x * 3.0).get()
        results["recorded"] = hipkit.lazy.stats()["recorded"] - before

    with hipkit.lazy():
        z = x * 2.0
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert results["recorded"] == 0
    np.testing.assert_allclose(results["y"], h * 3)
    np.testing.assert_allclose(z.get(), h * 2)


def test_lazy_false_inside_a_block_is_eager(rng):
    x = hipkit.asarray(rng.standard_normal(20))
    with hipkit.lazy():
        assert hipkit.lazy.enabled_here()
        with hipkit.lazy(False):
            before = hipkit.lazy.stats()["recorded"]
            y = x + 1
            assert hipkit.lazy.stats()["recorded"] == before
            assert not hipkit.lazy.enabled_here()
        assert hipkit.lazy.enabled_here()
    assert not hipkit.lazy.enabled_here()
    np.testing.assert_allclose(y.get(), x.get() + 1)


def test_hipkit_lazy_in_the_environment_records_everywhere(tmp_path):
    script = ("import numpy as np, hipkit\n"
              "x = hipkit.asarray(np.arange(8.0))\n"
              "y = x * 2.0 + 1.0\n"
              "print(hipkit.lazy.stats()['recorded'], y.get().tolist())\n")
    env = dict(os.environ, HIPKIT_LAZY="1")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    recorded, values = out.stdout.split(" ", 1)
    assert int(recorded) == 2
    assert values.strip() == str([2.0 * i + 1.0 for i in range(8)])


def test_a_thread_on_another_device_runs_the_pending_work_on_its_own_device(rng):
    """Thread B, current on another device (the CPU device beside a GPU), runs an eager op while this
    thread's graph is pending: B's op runs it first, each node on the device it was recorded on."""
    if hipkit.device_count() < 2:
        pytest.skip("needs two devices (a GPU and the CPU device)")
    h = rng.standard_normal(257)
    x = hipkit.asarray(h)  # the current device
    other = next(d for d in range(hipkit.device_count()) if d != x.device.id)
    results = {}

    def eager_elsewhere():
        with hipkit.Device(other):
            y = hipkit.asarray(h) * 3.0  # eager here: it runs the other thread's pending graph first
            results["y"] = y.get()

    with hipkit.lazy(background=False):
        z = x * 2.0 + 1.0
        thread = threading.Thread(target=eager_elsewhere)
        thread.start()
        thread.join()
        assert not _lazy._pending  # run by the other thread
    np.testing.assert_allclose(results["y"], h * 3)
    assert z.device == x.device
    np.testing.assert_allclose(z.get(), h * 2 + 1)
