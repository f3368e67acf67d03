"""The documentation builds warning-free and its examples run.

* ``sphinx-build -W -b html``: every page, autodoc of every module, the spec-card
  pages and generated tables, with warnings as errors -- with the network
  unreachable (every socket connection refused), and the pages it writes need
  none either: formulas are MathML (no MathJax, no script or stylesheet from
  another host), code wraps, ``golden.md`` is in the build, seeds are cited by
  their TF documents' titles;
* ``sphinx-build -W -b doctest``: the pages' ``>>>`` examples and the docstring
  examples autodoc pulls in (``ref.raw_ops``, ``ref.golden``, ...), checked
  against their printed output;
* the tutorial's TF 1.x script prints the same lines under ``import ref as tf``
  and under TensorFlow (when installed);
* the docs' own translators (Markdown -> reST, plain docstrings -> reST) on a
  table of inputs with hand-written expected reST.

Skipped when Sphinx (the ``docs`` extra) is not installed.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("latex2mathml", reason="the docs render formulas with latex2mathml (the docs extra)")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import mdinclude  # noqa: E402
import plaindocstrings  # noqa: E402
import speccards  # noqa: E402


OFFLINE = '''\
import socket

def _unreachable(*args, **kwargs):
    raise OSError(101, "Network is unreachable (tests/test_docs.py builds offline)")

socket.socket.connect = socket.socket.connect_ex = _unreachable
socket.create_connection = socket.getaddrinfo = _unreachable
'''


def _sphinx(builder, out, doctrees, fresh, offline_dir=None):
    path = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    if offline_dir is not None:  # sitecustomize.py: no socket can connect in the build
        offline_dir.mkdir(exist_ok=True)
        (offline_dir / "sitecustomize.py").write_text(OFFLINE)
        path.insert(0, str(offline_dir))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in path if p))
    args = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", builder, "-d", str(doctrees)]
    proc = subprocess.run(args + (["-E"] if fresh else []) + [str(DOCS), str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    report = proc.stdout[-6000:] + proc.stderr[-6000:]
    if (out / "output.txt").exists():  # the doctest builder's report
        report += (out / "output.txt").read_text()[-6000:]
    return proc.returncode, report


def test_docs_build_without_warnings_and_doctests_pass(tmp_path):
    # html reads every page (autodoc, generated pages) with -W; doctest reuses
    # that environment (same doctree dir) and runs the examples.
    doctrees = tmp_path / "doctrees"
    rc, report = _sphinx("html", tmp_path / "html", doctrees, fresh=True, offline_dir=tmp_path / "offline")
    assert rc == 0, report
    for page in ["index", "getting_started", "tutorial", "session_run", "golden", "api/raw_ops",
                 "optimizers/adam"]:
        assert (tmp_path / "html" / f"{page}.html").is_file(), page
    _check_offline_pages(tmp_path / "html")
    _check_optimizer_pages(tmp_path / "html")
    rc, report = _sphinx("doctest", tmp_path / "doctest", doctrees, fresh=False)
    assert rc == 0, report
    assert " 0 failures in tests" in (tmp_path / "doctest" / "output.txt").read_text()


MATH_PAGES = ["optimizers/adam", "optimizers/momentum", "optimizers/rmsprop", "optimizers/ftrl"]


def _check_offline_pages(html):
    pages = {p: p.read_text(encoding="utf-8") for p in html.rglob("*.html")}
    for path, text in pages.items():
        assert "mathjax" not in text.lower(), f"{path}: loads MathJax"
        external = re.findall(r'<(?:script|link)[^>]+(?:src|href)="(?:https?:)?//[^"]*"', text)
        assert not external, (path, external)
        assert not re.search(r"\d{3}_[0-9a-f]{16}\.txt", text), f"{path}: cites a seed by file name"
    for page in MATH_PAGES:
        text = pages[html / f"{page}.html"]
        blocks = re.findall(r'<div class="math[^"]*"[^>]*>(.*?)</div>', text, re.S)
        assert blocks and all('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in b
                              for b in blocks), page
        assert not any(re.search(r"\\[a-zA-Z]+", b) for b in blocks), page  # no raw LaTeX command left
        assert "<msub>" in text or "<msubsup>" in text, page
        # the quote is cited by its document's title (Sphinx's smart quotes), not a seed file name
        assert re.search(r"TensorFlow\u2019s documentation, \u201c[^\u201d]+\u201d \(TensorFlow", text), page
    assert "<mfrac>" in pages[html / "optimizers/adam.html"] and "<msqrt>" in pages[html / "optimizers/adam.html"]
    assert "scroll.css" in pages[html / "optimizers/adam.html"]
    css = (html / "_static" / "scroll.css").read_text()
    assert re.search(r"div\.body div\.highlight pre, div\.body pre \{[^}]*white-space: pre-wrap", css)
    assert re.search(r"span\.pre \{[^}]*overflow-wrap: anywhere", css)
    assert (html / "golden.md").read_text() == (DOCS / "golden.md").read_text()
    assert "Check an implementation" in pages[html / "golden.html"]


@pytest.mark.parametrize("latex, parts", [
    (r"\frac{a}{b}", ["<mfrac>", "<mi>a</mi>", "<mi>b</mi>"]),
    (r"\sqrt{v_t} + \hat\epsilon", ["<msqrt>", "<msub>", "<mover accent=\"true\">"]),
    (r"\beta_1^t", ["<msubsup>", "&#x003B2;"]),
])
def test_formulas_become_mathml(latex, parts):
    import mathml
    out = mathml.to_mathml(latex, display="block")
    assert out.startswith('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">')
    assert all(p in out for p in parts), out


TF_IMPORT = "import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()"


def _run_script(text, tmp_path, name):
    script = tmp_path / f"{name}.py"
    script.write_text(text)
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / f"{name}_logs")], cwd=ROOT,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3",
                                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout.splitlines()


def test_tutorial_script_prints_what_tensorflow_prints(tmp_path):
    pytest.importorskip("tensorflow")
    source = (DOCS / "examples" / "mlp_tf1.py").read_text()
    assert source.count("\nimport ref as tf\n") == 1
    ported = _run_script(source, tmp_path, "with_ref")
    original = _run_script(source.replace("\nimport ref as tf\n", f"\n{TF_IMPORT}\n"), tmp_path, "with_tf")
    assert ported == original
    assert ported[-2].startswith("test accuracy")


@pytest.mark.parametrize("markdown, rest", [
    ("# Title\n\nSome `code`s here.",
     ["Title", "=====", "", "Some ``code``\\ s here.", ""]),
    ("## Sub\n\n```python\nx = 1\n```",
     ["Sub", "---", "", ".. code-block:: python", "", "   x = 1", ""]),
    ("| a | b |\n| --- | --- |\n| `x` | y_ |",
     [".. list-table::", "   :header-rows: 1", "", "   * - a", "     - b", "   * - ``x``", "     - y\\_", ""]),
    ("- one\n- two [link](https://example.org)\n",
     ["- one", "- two `link <https://example.org>`__"]),
    ("a * b and |x|", ["a \\* b and \\|x\\|", ""]),
])
def test_markdown_translation(markdown, rest):
    assert mdinclude.translate(markdown) == rest


@pytest.mark.parametrize("doc, rest", [
    (["z = |x|, the absolute value."], ["z = \\|x\\|, the absolute value."]),
    (["ref[i] *= updates[i]."], ["ref[i] \\*= updates[i]."]),
    (["Run::", "", "    |x| stays", ""], ["Run::", "", "    |x| stays", ""]),
    (["Usage:", "", "    python -m ref demo", ""], ["Usage: ::", "", "    python -m ref demo", ""]),
    ([">>> abs(-1)", "1"], [">>> abs(-1)", "1"]),
    (["* item", "", "    nested", ""], ["* item", "", "    nested", ""]),
    (["``|x|`` literal"], ["``|x|`` literal"]),
])
def test_plain_docstring_translation(doc, rest):
    assert plaindocstrings.translate(doc) == rest


@pytest.mark.parametrize("name", speccards.card_modules())
def test_speccard_page_holds_quote_and_source(name):
    lines = speccards.page_lines(name)
    text = "\n".join(lines)
    cards = speccards.cards_of(name)
    for card in cards:
        for quoted in card.quote.splitlines():
            if quoted.strip() and card.seed:
                assert "   " + quoted.strip() in text or quoted.strip() in text, (card.name, quoted)
        assert f"``{card.name}``" in text
    module = speccards.source_module(name, cards)
    assert f".. literalinclude:: /../{module.replace('.', '/')}.py" in text
    assert (DOCS / "optimizers" / f"{name}.rst").read_text().strip() == f".. speccard-page:: {name}"


def _check_optimizer_pages(html):
    """MathML on every optimizer, schedule, clipping and EMA page; the Adam page's
    formula, and a usage example before the verification material."""
    adam = (html / "optimizers" / "adam.html").read_text()
    assert 'class="math' in adam and "<msqrt>" in adam and "<mover accent=\"true\">" in adam  # sqrt(v_t) + eps hat
    usage, rule = adam.index("<h2>Usage"), adam.index("<h2>The documented rule")
    assert adam.index("<h2>The update") < usage < rule
    assert "AdamOptimizer" in adam[usage:rule] and "ApplyAdam" in adam[usage:rule]
    for page in speccards.card_modules():
        if page in speccards.NO_MATH:
            continue
        text = (html / "optimizers" / f"{page}.html").read_text()
        assert 'class="math' in text and "<math " in text, page
