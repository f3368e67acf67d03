"""A TF1 name ``ref`` does not provide fails clearly: an AttributeError that
names it and points to docs/coverage.rst, which lists every such name."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import ref
import ref as tf
from ref import _coverage

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "coverage.rst").read_text()


@pytest.mark.parametrize("name", sorted(_coverage.NOT_PROVIDED))
def test_deliberate_omission_says_so(name):
    for ns in (ref, ref.compat.v1):
        with pytest.raises(AttributeError, match=rf"deliberately does not provide tf\.{name} .*docs/coverage\.rst"):
            getattr(ns, name)
        assert not hasattr(ns, name)


@pytest.mark.parametrize("name", sorted(_coverage.NOT_PROVIDED))
def test_coverage_page_lists_each_omission(name):
    assert f"``tf.{name}``" in PAGE


@pytest.mark.parametrize("path", ["nn.quantized_conv2d", "train.ProximalAdagradDAOptimizer", "metrics.no_such_metric",
                                  "losses.no_such_loss", "math.sobol_sample", "random.stateless_binomial", "io.decode_proto",
                                  "linalg.eigh_tridiagonal", "no_such_function"])
def test_missing_name_in_a_covered_namespace_points_to_the_page(path):
    *parents, name = path.split(".")
    obj = tf
    for p in parents:
        obj = getattr(obj, p)
    namespace = ".".join(["tf"] + parents)
    with pytest.raises(AttributeError, match=rf"has no attribute '{name}': ref does not implement "
                                             rf"{re.escape(namespace)}\.{name}\. See docs/coverage\.rst"):
        getattr(obj, name)


def test_dunder_lookups_stay_plain():
    with pytest.raises(AttributeError) as e:
        tf.nn.__wrapped__
    assert "coverage" not in str(e.value)


def test_omissions_are_tensorflow_1_names():
    t = pytest.importorskip("tensorflow").compat.v1
    removed_from_tf2 = {"contrib", "estimator"}  # TF1 names that TF 2.21's compat.v1 no longer has either
    assert {n for n in _coverage.NOT_PROVIDED if not hasattr(t, n)} == removed_from_tf2
