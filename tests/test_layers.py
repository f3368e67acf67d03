"""The import structure: layers that only import downward, and no circles.

``LAYERS`` is the layer table of CONTRIBUTING.md and docs/architecture.rst,
bottom up. A module belongs to the first layer with a folder that contains it;
a module may import its own layer and the layers below, never above. On top of
that no two modules and no two folders may import each other, even through
others (a circle), and no module imports a ``ref`` module inside a function
(the old way of dodging circles): function-level imports are kept for optional
heavy third-party packages only. The checks read the sources with ``ast``, so
they see imports whether or not they run.
"""
from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# (layer, folders) bottom up -- the same table as CONTRIBUTING.md.
LAYERS = (
    ("protos", ("ref/protos",)),
    ("values", ("ref/types", "ref/platform")),
    ("formats", ("ref/formats",)),
    ("kernels", ("ref/ops",)),
    ("graph", ("ref/framework",)),
    ("builders and session", ("ref/graph_ops", "ref/session", "ref/data")),
    ("gradients", ("ref/grad",)),
    ("training", ("ref/optimizers", "ref/events", "ref/checkpoint", "ref/training", "ref/distributed",
                  "ref/keras", "ref/feature_column")),
    ("namespaces and tools", ("ref",)),  # ref/__init__.py, ref/train.py, ..., ref/golden/, ref/compat/
)

# Third-party packages that may be imported inside a function: optional or heavy
# (loaded on first use so that ``import ref`` and ``import ref.raw_ops`` stay light).
LAZY_THIRD_PARTY = ("numba", "llvmlite", "tensorflow", "grpc", "hypothesis", "threadpoolctl",
                    "PIL", "simplejpeg",  # the image codecs: ref/ops/image.py
                    "matplotlib",  # the plot extra: python -m ref check --plot
                    "cryptography")  # the distributed extra: ref/distributed/certs.py (a local CA)

# What ``import ref.raw_ops`` may load: value types, formats, kernels.
PURE = ("ref", "ref.raw_ops", "ref.compat", "ref.protos", "ref.types", "ref.formats", "ref.ops")


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def read_sources(root=ROOT) -> dict[str, str]:
    """``{module name: source}`` of every hand-written module of ``ref``."""
    return {module_name(p): p.read_text() for p in sorted((root / "ref").rglob("*.py"))
            if not p.name.endswith("_pb2.py")}


def layer_of(module: str) -> int:
    path = module.replace(".", "/")
    for i, (_, folders) in enumerate(LAYERS[:-1]):
        if any(path == f or path.startswith(f + "/") for f in folders):
            return i
    return len(LAYERS) - 1


def folder_of(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 or module in _PACKAGES else "ref"


_PACKAGES: set[str] = set()


def imports_of(module: str, source: str, modules) -> list[tuple[str, int, bool]]:
    """``(imported ref module, line, inside a function)`` for every import statement."""
    tree = ast.parse(source)
    in_function = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            in_function.update(id(n) for n in ast.walk(node) if n is not node)
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # ``from ref.x import y`` imports the module ref.x.y when there is one
            names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                     for a in node.names]
        for name in names:
            if name == "ref" or name.startswith("ref."):
                while name not in modules and "." in name:
                    name = name.rsplit(".", 1)[0]
                found.append((name, node.lineno, id(node) in in_function))
    return found


def third_party_lazy_imports(source: str) -> list[tuple[str, int]]:
    tree = ast.parse(source)
    found = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    found += [(a.name, node.lineno) for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    found.append((node.module, node.lineno))
    return [(m, line) for m, line in found if not (m == "ref" or m.startswith("ref."))]


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one member (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def check(sources: dict[str, str]) -> list[str]:
    """Every violation of the layer rules in ``sources``, one line each."""
    modules = set(sources)
    _PACKAGES.update(m for m in modules if m.count(".") == 1 and any(o.startswith(m + ".") for o in modules))
    problems = []
    edges: dict[str, set[str]] = {m: set() for m in modules}
    folder_edges: dict[str, set[str]] = {}
    for module, source in sources.items():
        for target, line, lazy in imports_of(module, source, modules):
            if target == module or target not in modules:
                continue
            where = f"{module.replace('.', '/')}.py:{line}"
            if lazy:
                problems.append(f"{where}: imports {target} inside a function")
            if layer_of(target) > layer_of(module):
                problems.append(f"{where}: imports {target} upward "
                                f"({LAYERS[layer_of(module)][0]} -> {LAYERS[layer_of(target)][0]})")
            edges[module].add(target)
            a, b = folder_of(module), folder_of(target)
            if a != b and a != "ref" and b != "ref":
                folder_edges.setdefault(a, set()).add(b)
        for name, line in third_party_lazy_imports(source):
            if name.split(".")[0] not in LAZY_THIRD_PARTY:
                problems.append(f"{module.replace('.', '/')}.py:{line}: imports {name} inside a function "
                                f"(only {', '.join(LAZY_THIRD_PARTY)} may load on use)")
    problems += [f"import circle: {' <-> '.join(c)}" for c in cycles(edges)]
    problems += [f"folder circle: {' <-> '.join(c)}" for c in cycles(folder_edges)]
    return problems


def test_the_package_follows_the_layer_table():
    assert check(read_sources()) == []


def test_every_folder_of_ref_is_in_the_table():
    listed = {f for _, folders in LAYERS for f in folders}
    folders = {str(p.relative_to(ROOT)) for p in (ROOT / "ref").iterdir()
               if p.is_dir() and (p / "__init__.py").exists()}
    tools = {"ref/golden", "ref/compat"}  # the top layer: namespaces and tools
    assert folders - listed - tools == set()


# The checker itself: each rule fails on a deliberately broken package.
BROKEN = [
    ("upward import", {"ref.ops.math": "from ref.framework.graph import Graph\n"},
     "ref/ops/math.py:1: imports ref.framework.graph upward (kernels -> graph)"),
    ("namespace face imported from below", {"ref.optimizers.adam": "import ref.train\n"},
     "ref/optimizers/adam.py:1: imports ref.train upward (training -> namespaces and tools)"),
    ("import inside a function", {"ref.graph_ops.math_ops": "def f():\n    from ref.types import dtypes\n"},
     "ref/graph_ops/math_ops.py:2: imports ref.types.dtypes inside a function"),
    ("protobuf inside a function", {"ref.checkpoint.saver": "def f():\n    from google.protobuf import text_format\n"},
     "ref/checkpoint/saver.py:2: imports google.protobuf inside a function"),
    ("circle inside a layer", {"ref.graph_ops.math_ops": "from ref.graph_ops import array_ops\n",
                               "ref.graph_ops.array_ops": "from ref.graph_ops.math_ops import add\n"},
     "import circle: ref.graph_ops.array_ops <-> ref.graph_ops.math_ops"),
    ("circle between folders", {"ref.checkpoint.saver": "from ref.training import hooks\n",
                                "ref.training.hooks": "from ref.checkpoint import meta_graph\n"},
     # (training -> events -> checkpoint already: the circle goes through all three)
     "folder circle: ref.checkpoint <-> ref.events <-> ref.training"),
]


@pytest.mark.parametrize("name, changes, expected", BROKEN, ids=[b[0] for b in BROKEN])
def test_the_check_fails_on_a_broken_package(name, changes, expected):
    sources = read_sources()
    for module, source in changes.items():
        sources[module] = source + sources.get(module, "")
    problems = check(sources)
    assert any(p.startswith(expected) for p in problems), problems


def _loaded_by(statement: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", f"{statement}\nimport sys\n"
                          "print('\\n'.join(sorted(m for m in sys.modules if m.startswith(('ref', 'google.protobuf')))))"],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    return out.split()


@pytest.mark.parametrize("statement", [
    "import ref.raw_ops",
    "import ref.raw_ops as raw; import numpy as np; raw.ApplyAdam; dir(raw)",  # every kernel family loaded
])
def test_raw_ops_is_the_pure_library(statement):
    loaded = _loaded_by(statement)
    impure = [m for m in loaded if not any(m == p or m.startswith(p + ".") for p in PURE)]
    assert impure == [], f"{statement!r} loads {impure}"
    assert not any(m.startswith("ref.protos.") for m in loaded)


def test_import_ref_serves_the_whole_namespace():
    loaded = _loaded_by("import ref as tf; tf.Session; tf.train.AdamOptimizer")
    for m in ("ref.framework.graph", "ref.session.session", "ref.optimizers.adam", "ref.training.monitored"):
        assert m in loaded
