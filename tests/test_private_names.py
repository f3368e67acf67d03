"""Private names stay inside their folder.

A name spelt with a leading underscore (``_graph_of``, ``_text``) belongs to the
folder of ``ref`` that defines it: ``ref/ops/`` and ``ref/ops/training/`` may share
``ref.ops._jit``, but ``ref/checkpoint/`` may not reach into ``ref.framework``'s
private helpers. Whatever another folder needs gets a public spelling. The check
reads the sources with ``ast`` and catches both ways in:

* ``from ref.X.y import _name`` (or a private module: ``from ref.X._y import name``,
  ``import ref.X._y``);
* ``mod._name`` where ``mod`` was bound by ``from ref.X import mod`` or
  ``import ref.X.mod as mod``.

"Folder" is the top-level package under ``ref/`` (``ref/ops`` and its subfolders are
one folder; ``ref/*.py`` is the folder ``ref``).
"""
from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _folder_of_file(path: pathlib.Path) -> tuple:
    return path.relative_to(ROOT).parent.parts[:2]


def _folder_of_module(dotted: str) -> tuple:
    parts = tuple(dotted.split("."))
    # ref.X.y: folder ("ref", "X") when ref/X is a package, else the module sits in ref/.
    if len(parts) >= 2 and (ROOT / parts[0] / parts[1]).is_dir():
        return parts[:2]
    return parts[:1]


def _is_module(dotted: str) -> bool:
    p = ROOT.joinpath(*dotted.split("."))
    return p.is_dir() or p.with_suffix(".py").exists()


def violations(path: pathlib.Path, source: str | None = None) -> list[str]:
    """Every cross-folder use of a private ``ref`` name in one source file."""
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source, str(path))
    here = _folder_of_file(path)
    rel = path.relative_to(ROOT)
    out, bound = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and \
                node.module.split(".")[0] == "ref":
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if _is_module(full):
                    bound[a.asname or a.name] = full
                if _folder_of_module(node.module) == here:
                    continue
                if _private(a.name) or any(_private(c) for c in node.module.split(".")):
                    out.append(f"{rel}:{node.lineno}: from {node.module} import {a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] != "ref":
                    continue
                if a.asname:
                    bound[a.asname] = a.name
                if _folder_of_module(a.name) != here and any(_private(c) for c in a.name.split(".")):
                    out.append(f"{rel}:{node.lineno}: import {a.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id in bound and _private(node.attr):
            mod = bound[node.value.id]
            if _folder_of_module(mod) != here:
                out.append(f"{rel}:{node.lineno}: {mod}.{node.attr}")
    return out


SOURCES = sorted((ROOT / "ref").rglob("*.py"))


def test_no_cross_folder_private_names():
    found = [v for p in SOURCES for v in violations(p)]
    assert not found, "private names reached across folders (give them a public spelling):\n" + "\n".join(found)


# The checker itself, on small sources: (file under ref/, source, number of findings).
CHECKER_ROWS = [
    ("ref/checkpoint/x.py", "from ref.framework.graph_export import _helper\n", 1),
    ("ref/checkpoint/x.py", "from ref.framework.graph_export import helper\n", 0),
    ("ref/ops/training/x.py", "from ref.ops._jit import njit\n", 0),  # same folder: ref/ops
    ("ref/session/x.py", "from ref.ops._jit import njit\n", 1),  # a private module
    ("ref/session/x.py", "import ref.ops._jit as j\n", 1),
    ("ref/checkpoint/x.py", "from ref.ops import io as io_ops\nio_ops._text(1)\n", 1),
    ("ref/ops/x.py", "from ref.ops import io as io_ops\nio_ops._text(1)\n", 0),
    ("ref/testing.py", "from ref.golden import cases as C\nC._group(1)\n", 1),
    ("ref/checkpoint/x.py", "from ref.types import errors\nerrors.__name__\n", 0),  # dunder
]


@pytest.mark.parametrize("where,source,n", CHECKER_ROWS)
def test_checker_rows(where, source, n):
    found = violations(ROOT / where, source)
    assert len(found) == n, found
