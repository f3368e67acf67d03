"""tests/ mirrors ref/: a test module sits in the tests/ folder of the ``ref``
package it tests (tests/ops/training <-> ref/ops/training), or in the one folder
for cross-layer programs (``tests/programs``), or at the top of tests/ (ref's
top-level modules: the namespaces, the CLI, and checks of the repository as a
whole). A module under tests/X imports something from ref.X, so where a test
lives says what it tests."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
CROSS_LAYER = "programs"


def _test_modules():
    return sorted(p for p in TESTS.rglob("test_*.py") if p.parent != TESTS)


def _folder(path):
    return path.parent.relative_to(TESTS).as_posix()


def _imported(path):
    """Every ``ref`` module a test module names in an import, anywhere in it."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return {n for n in names if n == "ref" or n.startswith("ref.")}


@pytest.mark.parametrize("folder", sorted({_folder(p) for p in _test_modules()}))
def test_every_test_folder_mirrors_a_ref_package(folder):
    top = folder.split("/")[0]
    assert top == CROSS_LAYER or (ROOT / "ref" / folder / "__init__.py").is_file(), (
        f"tests/{folder}/ holds tests but ref/{folder}/ is not a package: move them under the tests/ folder of "
        f"the ref package they test, or to tests/{CROSS_LAYER}/ for cross-layer programs")


@pytest.mark.parametrize("path", [p for p in _test_modules() if not _folder(p).startswith(CROSS_LAYER)],
                         ids=lambda p: p.relative_to(TESTS).as_posix())
def test_a_module_under_tests_x_imports_from_ref_x(path):
    package = "ref." + _folder(path).replace("/", ".")
    got = _imported(path)
    assert any(n == package or n.startswith(package + ".") for n in got), (
        f"{path.relative_to(ROOT)} imports nothing from {package} (it imports {sorted(got)}): "
        f"move it to the tests/ folder of what it tests, or import the module under test")


def test_basenames_are_unique():
    """pytest's default import mode loads test modules by file name."""
    seen = {}
    for p in _test_modules() + sorted(TESTS.glob("test_*.py")):
        assert p.name not in seen, f"{p} and {seen[p.name]} share a file name"
        seen[p.name] = p
