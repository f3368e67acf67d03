"""The vectorised candidate samplers (``values``/``probabilities`` over a whole
stream of Philox words, ``_expected_counts``) against the samplers' one-draw-at-a-time
forms (``sample``/``probability`` on ``SimplePhilox``, ``_expected``), which
tests/graph_ops/test_candidate_sampling.py checks against TensorFlow draw for draw."""
import math

import numpy as np
import pytest

from ref.ops import candidate_sampling as cs
from ref.ops import philox

KEY, COUNTER = 0x1234_5678_9ABC_DEF0, (7 << 64) | 99

SAMPLERS = [  # (sampler, draws)
    (cs.LogUniformSampler(50000), 20000),
    (cs.LogUniformSampler(1), 500),
    (cs.LogUniformSampler(65), 5000),
    (cs.UniformSampler(70), 5000),
    (cs.UniformSampler(16), 500),  # power of two: masked
    (cs.UniformSampler(1 << 40), 500),
    (cs.UniformSampler((1 << 63) + 12345), 5000),  # rejects ~half of the draws
]


def _one_at_a_time(sampler, draws):
    rnd = cs.SimplePhilox(KEY, COUNTER)
    return [sampler.sample(rnd) for _ in range(draws)], rnd


def _words(count):
    return philox.words(KEY, COUNTER, 0, (count + 3) // 4).reshape(-1)[:count]


@pytest.mark.parametrize("sampler,draws", SAMPLERS, ids=lambda v: getattr(v, "range", v))
@pytest.mark.parametrize("near", [cs._NEAR, 1e-3], ids=["numpy", "c-decides"])
def test_values_are_the_draws_in_order(sampler, draws, near, monkeypatch):
    # near=1e-3 sends a large share of the draws through C's exp / log (the path
    # taken where NumPy's might round across a boundary)
    monkeypatch.setattr(cs, "_NEAR", near)
    want, rnd = _one_at_a_time(sampler, draws)
    got = sampler.values(_words(4 * draws))
    assert got.dtype == np.int64
    assert got[:draws].tolist() == want
    probs = sampler.probabilities(got[:draws])
    assert probs.dtype == np.float32
    assert probs.tolist() == [sampler.probability(v) for v in want]


@pytest.mark.parametrize("sampler,num_sampled", [(cs.LogUniformSampler(50000), 64), (cs.LogUniformSampler(65), 64),
                                                 (cs.UniformSampler(70), 64), (cs.UniformSampler(10), 10),
                                                 (cs.UniformSampler(1 << 40), 3)], ids=str)
@pytest.mark.parametrize("unique", [True, False])
def test_draw_all_is_draw_each(sampler, num_sampled, unique):
    want, tries = cs._draw_each(sampler, cs.SimplePhilox(KEY, COUNTER), num_sampled, unique)
    got, got_tries = cs._draw_all(sampler, KEY, COUNTER, num_sampled, unique)
    assert got.tolist() == want and got_tries == tries


P = np.array([1.0, 0.5, 1e-3, 0.12345, 2.0 ** -24, 1e-30, 1e-40, 0.0, np.float32(1) - np.float32(2.0 ** -24)]
             + np.random.RandomState(0).uniform(0, 0.2, 300).tolist(), np.float32)


@pytest.mark.parametrize("batch,tries", [(64, 64), (64, 65), (64, 300), (1, 2), (8192, 9000)])
@pytest.mark.parametrize("form", ["numpy", "numba"])
def test_expected_counts_are_the_per_class_formula(batch, tries, form, monkeypatch):
    if form == "numba":
        pytest.importorskip("numba")
        monkeypatch.setattr(cs._jit, "numpy_tier", lambda kernel, size: False)
    else:
        monkeypatch.setattr(cs._jit, "numpy_tier", lambda kernel, size: True)
    got = cs._expected_counts(P, batch, tries)
    assert got.dtype == np.float32
    want = np.array([cs._expected(float(p), batch, tries) for p in P.tolist()], np.float32)
    assert got.tobytes() == want.tobytes()
    if tries == batch:
        np.testing.assert_array_equal(got, (P.astype(np.float64) * batch).astype(np.float32))
    else:  # the formula in doubles, within a float32 ULP or two
        with np.errstate(divide="ignore"):  # p = 1: log1p(-1) = -inf, a count of 1
            ref64 = -np.expm1(tries * np.log1p(-P.astype(np.float64)))
        np.testing.assert_allclose(got, ref64, rtol=3e-7, atol=1e-45)
    assert math.isfinite(float(got.sum()))
