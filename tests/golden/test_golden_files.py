"""ref.golden: generation, determinism, manifest, hex round trip, compare(), ULP helpers."""
import json

import numpy as np
import pytest

from ref.golden import ulp
from ref.golden import compare, generate, hexfloat, load
from tests.golden import impls

GENERATE_ROWS = [
    ("adam", dict(steps=3)),
    ("ftrl", dict(steps=2)),
    ("ApplyAdam", {}),
    ("SparseApplyAdagrad", {}),
    ("AddV2", {}),
    ("Sum", {}),
]


@pytest.mark.parametrize("name,kw", GENERATE_ROWS)
def test_same_seed_same_files_and_hash(name, kw, tmp_path):
    a, b = generate(name, seed=3, **kw), generate(name, seed=3, **kw)
    assert a.manifest["content_sha256"] == b.manifest["content_sha256"] == a.content_hash()
    pa, pb = a.save(tmp_path / "a"), b.save(tmp_path / "b")
    for x, y in zip(pa, pb):
        assert x.read_bytes() == y.read_bytes()
    assert generate(name, seed=4, **kw).manifest["content_sha256"] != a.manifest["content_sha256"]


@pytest.mark.parametrize("name,kw", GENERATE_ROWS)
def test_manifest_fields_and_exact_hex_round_trip(name, kw, tmp_path):
    g = generate(name, seed=1, **kw)
    npz, js = g.save(tmp_path)
    m = json.loads(js.read_text())
    for field in ("format", "kind", "name", "dtype", "seed", "steps", "ref_version", "cases", "content_sha256"):
        assert field in m, field
    back = load(npz)
    assert back.content_hash() == m["content_sha256"]
    checked = 0
    for case in m["cases"]:
        i = case["index"]
        for part, entries in (("in", case["inputs"]), ("out", case["outputs"])):
            for key, e in entries.items():
                arr = back.arrays[f"c{i}.{key}" if m["kind"] == "trajectory" and part == "in"
                                  else f"c{i}.{part}.{key}"]
                assert list(arr.shape) == e["shape"] and arr.dtype.name == e["dtype"]
                if "hex" in e:  # both exact text forms give the stored bits back
                    assert hexfloat.from_bits(e["bits"], arr.dtype, arr.shape).tobytes() == arr.tobytes()
                    from_hex = hexfloat.from_hex(e["hex"], arr.dtype, arr.shape)
                    same = (from_hex == arr) | (np.isnan(from_hex) & np.isnan(arr))
                    sign_kept = (np.signbit(from_hex) == np.signbit(arr)) | np.isnan(arr)  # hex "nan" has no sign
                    assert same.all() and sign_kept.all()
                    checked += 1
        for meta in case["outputs"].values():
            assert "ulp" in meta and meta["scale"] in ("element", "array", "update")
    assert checked


HEX_ROWS = [(np.float32, [0.1, -0.0, np.inf, -np.inf, np.nan, 1e-45], ["0x1.99999a0000000p-4", "-0x0.0p+0", "inf",
                                                                        "-inf", "nan", "0x1.0000000000000p-149"]),
            (np.float64, [0.1, 5e-324], ["0x1.999999999999ap-4", "0x0.0000000000001p-1022"])]


@pytest.mark.parametrize("dtype,values,expected", HEX_ROWS)
def test_hex_is_float_hex_of_the_exact_value(dtype, values, expected):
    assert hexfloat.to_hex(np.array(values, dtype)) == expected


def test_tampered_arrays_fail_the_content_hash(tmp_path):
    g = generate("adam", steps=2)
    g.arrays["c0.out.var"] = g.arrays["c0.out.var"] + np.float32(1)
    _, js = g.save(tmp_path)
    with pytest.raises(ValueError, match="content_sha256"):
        load(js)


EDGE_ROWS = [
    ("SparseApplyAdagrad", "duplicate indices only", lambda g, i: np.array_equal(g.arrays[f"c{i}.in.indices"],
                                                                                [2, 2, 2])),
    ("SparseApplyMomentum", "empty indices", lambda g, i: g.arrays[f"c{i}.in.indices"].size == 0),
    ("ApplyAdam", "inf, -inf, nan, -0.0 in gradient",
     lambda g, i: np.isnan(g.arrays[f"c{i}.in.grad"]).any() and np.isinf(g.arrays[f"c{i}.out.m"]).any()),
    ("ApplyAdam", "0-d array hyperparameters", lambda g, i: g.cases[i]["inputs"]["lr"]["form"] == "array"),
    ("ApplyAdam", "random", lambda g, i: g.cases[i]["inputs"]["lr"]["form"] == "python scalar"),
    ("ApplyAdam", "tiny gradient (subnormal)",
     lambda g, i: (np.abs(g.arrays[f"c{i}.in.grad"]) < np.finfo(np.float32).tiny).any()),
    ("ApplyMomentum", "use_nesterov=True", lambda g, i: g.cases[i]["attrs"] == {"use_nesterov": True}),
    ("Log", "inf, -inf, nan, -0.0", lambda g, i: np.isnan(g.arrays[f"c{i}.out.y"]).any()),
    ("AddV2", "broadcast", lambda g, i: g.arrays[f"c{i}.out.z"].shape == (2, 3)),
]


@pytest.mark.parametrize("name,label,check", EDGE_ROWS)
def test_edge_cases_are_present(name, label, check):
    g = generate(name)
    [i] = [c["index"] for c in g.cases if c["label"] == label]
    assert check(g, i)


def test_kernel_outputs_follow_the_tf_formula():
    g = generate("ApplyAdam", dtype=np.float64)
    for case in g.cases:
        kw = g.kernel_kwargs(case["index"])
        for name, exp in zip(("var", "m", "v"), impls.tf_apply_adam(**{k: (np.asarray(v) if k in ("var", "m", "v", "grad")
                                                                           else v) for k, v in kw.items()})):
            got = g.expected(case["index"])[name]
            assert ((got == exp) | (np.isnan(got) & np.isnan(exp))).all(), (case["label"], name)


def test_adam_trajectory_is_tfs_float32_arithmetic():
    g = generate("adam", steps=4)
    for case in g.cases:
        ins = g.trajectory_inputs(case["index"])
        h = {k: float(v) for k, v in ins["hyper"].items()}
        exp = impls.tf_adam(ins["var"], ins["grads"], **h)
        np.testing.assert_array_equal(g.arrays[f"c{case['index']}.out.var"], exp)


def test_schedule_and_clip_run_inside_the_loop():
    lrs = [0.1, 0.05, 0.025]
    g = generate("gradient_descent", steps=3, schedule=lambda t: lrs[t], clip=lambda x: np.clip(x, -0.5, 0.5),
                 loop_description={"schedule": "halving", "clip": "clip to [-0.5, 0.5]"})
    for case in g.cases:
        p = f"c{case['index']}."
        grads = np.clip(g.arrays[p + "raw_grad"], -0.5, 0.5)
        np.testing.assert_array_equal(g.arrays[p + "grad"], grads)
        var = g.arrays[p + "init.var"]
        for t in range(3):
            var = var - np.float32(lrs[t]) * grads[t]
            np.testing.assert_array_equal(g.arrays[p + "out.var"][t], var)
    assert g.manifest["loop"]["schedule"] == "halving"


def test_clip_by_global_norm_is_tfs_formula():
    from ref.golden.trajectory import clip_by_global_norm

    g = np.array([3.0, 4.0], np.float32)
    np.testing.assert_allclose(clip_by_global_norm(1.0)(g), [0.6, 0.8], rtol=1e-7)
    np.testing.assert_array_equal(clip_by_global_norm(10.0)(g), g)
    np.testing.assert_array_equal(clip_by_global_norm(1.0)(np.zeros(2, np.float32)), [0, 0])


def test_unknown_inputs_ask_for_cases():
    with pytest.raises(LookupError, match="cases="):
        generate("Reshape")
    g = generate("Reshape", cases=[{"tensor": np.arange(6, dtype=np.float32), "shape": np.array([2, 3], np.int32)}])
    assert g.expected(0)["output"].shape == (2, 3)


# -- compare() -------------------------------------------------------------------------------

def _actual(g):
    return {k: v.copy() for k, v in g.arrays.items() if ".out." in k}


def _bump(x, ulps):
    return (x.view(np.int32) + np.int32(ulps)).view(np.float32) if x.dtype == np.float32 else x


def test_compare_exact_is_ok_with_zero_errors():
    g = generate("adam", steps=3)
    r = compare(g, _actual(g))
    assert r.ok and r.first_divergence is None and r.first_difference is None
    for c in r.cases:
        for o in c.outputs.values():
            assert o.worst("max_abs") == 0 and o.worst("max_ulp") == 0
    assert "PASSED" in r.format()


PERTURB_ROWS = [  # (ULPs added to var at step 3, element 2 of case 1; expect ok)
    (3, True),     # within 8 ULP * 3 steps
    (1000, False),
]


@pytest.mark.parametrize("ulps,ok", PERTURB_ROWS)
def test_compare_perturbed_trajectory(ulps, ok):
    g = generate("adam", steps=4)
    act = _actual(g)
    x = act["c1.out.var"]
    x[2, 2] = _bump(np.array(x[2, 2]), ulps)
    r = compare(g, act)
    assert r.ok is ok
    out = r.cases[1].outputs["var"]
    assert out.steps[2].max_ulp == ulps and out.steps[2].max_abs == abs(float(x[2, 2]) - float(g.arrays["c1.out.var"][2, 2]))
    assert r.first_difference.step == 3 and r.first_difference.element == (2,)
    if not ok:
        d = r.first_divergence
        assert (d.case, d.step, d.output, d.element) == (1, 3, "var", (2,))
        assert "first divergence: case 1" in r.format()


def test_compare_kernel_and_missing_required_output():
    g = generate("Softmax")
    act = _actual(g)
    assert compare(g, act).ok
    act["c0.out.softmax"] = act["c0.out.softmax"] * np.float32(1.001)
    r = compare(g, act)
    assert not r.ok and r.first_divergence.case == 0
    del act["c1.out.softmax"]
    assert r.cases[1].ok and compare(g, act).cases[1].outputs["softmax"].missing


# -- ref.golden.ulp ----------------------------------------------------------------------------------

ULP_ROWS = [
    (np.float32, 1.0, np.nextafter(np.float32(1), np.float32(2)), 1),
    (np.float32, -0.0, 0.0, 0),
    (np.float32, -1e-45, 1e-45, 2),
    (np.float32, np.float32(3.4028235e38), np.inf, 1),
    (np.float32, np.nan, np.nan, 0),
    (np.float32, np.nan, 1.0, ulp.NAN_MISMATCH),
    (np.float64, 1.0, 1.0 + 2 ** -52 * 5, 5),
    (np.float16, 1.0, 1.0 + 2 ** -10 * 3, 3),
]


@pytest.mark.parametrize("dtype,a,b,expected", ULP_ROWS)
def test_ulp_distance(dtype, a, b, expected):
    assert int(ulp.ulp_distance(np.array(a, dtype), np.array(b, dtype))) == expected


def test_ulp_scaled_measures_at_the_given_scale():
    a, e = np.float32([1e-7]), np.float32([0.0])
    assert ulp.ulp_scaled(a, e, np.float32([1.0]))[0] == pytest.approx(1e-7 / 2 ** -23)
    assert ulp.ulp_scaled(np.float32([np.nan]), np.float32([1]))[0] == np.inf
