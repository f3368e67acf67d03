"""Type information for the public API: ``py.typed``; ``ref/raw_ops.pyi``
generated from the op registry (and current); the functional optimizer API,
the golden kit and Session's basics annotated; mypy (the ``test`` extra) finds
those modules clean, accepts correct user code and rejects wrong calls."""
from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import ref
import ref.raw_ops as raw
from ref.ops import registry

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ["ref/golden", "ref/raw_ops.pyi", "ref/ops/training", "ref/session/session.py",
           "ref/graph_ops/control_flow_ops.py"]
"""The annotated modules mypy checks (their annotated functions' bodies too)."""


def _mypy(tmp_path, *paths):
    pytest.importorskip("mypy")
    cmd = [sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports",
           "--cache-dir", str(tmp_path / "mypy_cache"), "--no-error-summary", "--hide-error-context", *map(str, paths)]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_package_is_marked_typed():
    assert (ROOT / "ref" / "py.typed").is_file()
    assert '"py.typed"' in (ROOT / "pyproject.toml").read_text()


def test_raw_ops_stub_is_generated_from_the_registry():
    current = (ROOT / "ref" / "raw_ops.pyi").read_text()
    assert current == raw.stub(), "ref/raw_ops.pyi is stale: python -m ref.raw_ops > ref/raw_ops.pyi"


@pytest.mark.parametrize("name", ["ApplyAdam", "AddN", "Softmax", "ConcatV2", "RandomUniform", "Conv2D"])
def test_raw_op_signature_is_the_declaration(name):
    op = registry.get(name)
    sig = inspect.signature(getattr(raw, name))
    params = sig.parameters
    assert list(params) == [*op.inputs, *op.attrs, *(["ctx"] if op.ctx else []), "name", "device"]
    assert all(p.kind is p.KEYWORD_ONLY for p in params.values())
    for attr, default in op.attrs.items():
        expected = inspect.Parameter.empty if default is registry.REQUIRED else default
        assert params[attr].default is expected or params[attr].default == expected, attr
    for inp in op.inputs:
        assert params[inp].default is inspect.Parameter.empty
        assert params[inp].annotation == ("Sequence[ArrayLike]" if inp in op.list_inputs else "ArrayLike")


@pytest.mark.parametrize("fn", ["ref.session.session.BaseSession.run", "ref.session.session.Session.__init__",
                                "ref.graph_ops.control_flow_ops.placeholder", "ref.golden.generate",
                                "ref.golden.compare", "ref.ops.training.adam.step", "ref.ops.training.ftrl.init",
                                "ref.framework.graph.Graph.get_operations", "ref.framework.graph.Graph.get_tensor_by_name",
                                "ref.framework.graph.Graph.as_default", "ref.framework.graph.Graph.name_scope",
                                "ref.framework.graph.Graph.control_dependencies", "ref.framework.graph.Graph.device",
                                "ref.framework.graph.Graph.get_collection", "ref.framework.graph.Graph.finalize"])
def test_public_functions_are_annotated(fn):
    module, _, attr = fn.rpartition(".")
    try:
        obj = getattr(__import__(module, fromlist=["x"]), attr)
    except (ImportError, AttributeError):
        cls_module, _, cls = module.rpartition(".")
        obj = getattr(getattr(__import__(cls_module, fromlist=["x"]), cls), attr)
    sig = inspect.signature(obj)
    missing = [n for n, p in sig.parameters.items() if n != "self" and p.annotation is inspect.Parameter.empty]
    assert not missing and sig.return_annotation is not inspect.Signature.empty, (fn, missing)


@pytest.mark.parametrize("builder,words", [
    (ref.placeholder, ["Args:", "dtype", "shape", "Returns:", "InvalidArgumentError", ">>>"]),
    (ref.Variable, ["Args:", "initial_value", "trainable", "FailedPreconditionError", ">>>"]),
    (ref.Session.run, ["Args:", "fetches", "feed_dict", "Returns:", "Raises:", ">>>"]),
])
def test_core_builders_have_real_docstrings(builder, words):
    doc = inspect.getdoc(builder) or ""
    assert len(doc.splitlines()) > 15 and all(w in doc for w in words), doc


def test_annotated_modules_pass_mypy(tmp_path):
    p = _mypy(tmp_path, *CHECKED)
    assert p.returncode == 0, p.stdout + p.stderr


GOOD = '''\
import numpy as np
import ref
import ref.raw_ops as raw
from ref.golden import compare, generate
from ref.ops.training import adam

var = np.ones(3, np.float32)
new_var, m, v = raw.ApplyAdam(var=var, m=var, v=var, beta1_power=0.9, beta2_power=0.999, lr=0.1,
                              beta1=0.9, beta2=0.999, epsilon=1e-8, grad=var, use_nesterov=True)
total = raw.AddN(inputs=[var, var])
state = adam.init({"w": var})
params, state = adam.step({"w": var}, {"w": var}, state, learning_rate=0.01)
report = compare(generate("adam", steps=2), {})
ok: bool = report.ok
with ref.Session() as sess:
    out = sess.run([], feed_dict=None)
'''

BAD = [
    ("raw.ApplyAdam(var=var, m=var)", 'Missing named argument "v" for "ApplyAdam"'),
    ("raw.Softmax(logit=var)", 'Unexpected keyword argument "logit" for "Softmax"'),
    ("raw.Softmax(var)", 'Too many positional arguments for "Softmax"'),
    ("raw.ApplyAdam(var=var, m=var, v=var, beta1_power=0.9, beta2_power=0.999, lr=0.1, beta1=0.9, "
     "beta2=0.999, epsilon=1e-8, grad=var, use_nesterov='yes')", 'incompatible type "str"; expected "bool"'),
    ("adam.step({'w': var}, {'w': var}, adam.init({'w': var}), learning_rat=0.1)",
     'Unexpected keyword argument "learning_rat" for "step"'),
    ("ref.session.session.Session(graph=3)", 'incompatible type "int"; expected "Graph | None"'),
    ("x: int = generate('adam')", 'incompatible types in assignment (expression has type "Golden"'),
]


def test_mypy_accepts_correct_use_and_rejects_mistakes(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    bad = GOOD + "".join(f"{line}\n" for line, _ in BAD)
    (tmp_path / "bad.py").write_text("import ref.session.session\n" + bad)
    p = _mypy(tmp_path, tmp_path / "good.py")
    assert p.returncode == 0, p.stdout + p.stderr
    p = _mypy(tmp_path, tmp_path / "bad.py")
    errors = [line for line in p.stdout.splitlines() if ": error:" in line]
    first_bad = 1 + GOOD.count("\n") + 1
    for i, (line, message) in enumerate(BAD):
        at = [e for e in errors if e.split(":")[1] == str(first_bad + i)]
        assert any(message.lower() in e.lower() for e in at), (line, message, at, p.stdout)
