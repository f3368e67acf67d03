"""docs/guarantees.rst: every promise names a test, and every test it names
exists (``tests/path.py::test_name``, or ``::test_name`` for the file last named)."""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "guarantees.rst"


def _references():
    current, refs = None, []
    for m in re.finditer(r"``(tests/[\w/]+\.py)?::(\w+)``", PAGE.read_text()):
        current = m.group(1) or current
        refs.append((current, m.group(2)))
    return refs


def test_every_named_test_exists():
    refs = _references()
    assert len(refs) >= 20
    for path, name in refs:
        assert path is not None, name
        tree = ast.parse((ROOT / path).read_text())
        names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert name in names, f"{path}::{name} named in docs/guarantees.rst does not exist"


def test_every_section_names_a_test():
    sections = re.split(r"\n[^\n]+\n-{3,}\n", PAGE.read_text())[1:]
    assert len(sections) == 6  # crash safety, corruption, untrusted input, threads, determinism, TF's bits
    for text in sections:
        for para in text.split("\n\n"):
            if para.startswith("**"):
                assert "Test" in para, para[:80]
