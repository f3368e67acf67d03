"""Optimizer pages rendered from the spec cards (``specs/*.py``) at build time.

``.. speccard-page:: adam`` renders the whole page of ``specs/adam.py``:

* the documented rule: each card's seed file, section and quote;
* the algorithm module's docstring (``ref/ops/training/adam.py``): the formula,
  TensorFlow's kernel form and the paper's form, side by side;
* the cards' notes (where TF's kernel differs from the quote, and why the ULP
  budget), defaults, budgets and input domains;
* the oracle -- the quote transcribed to float64 NumPy -- and the kernel
  source (the whole module, line-numbered), then the optimizer class's
  (``ref/optimizers/adam.py``) where there is one;
* the tests that check it: ``tests/test_specs.py`` for every card, and each test
  file (with its test functions) that names one of the page's kernels or
  classes.

Each page file under ``docs/optimizers/`` is that one directive. The build
warns -- an error under ``-W`` -- when a card module has no page or a page
names no card module, so the pages cannot drift from ``specs/``.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from plaindocstrings import translate
from refapi import list_table

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
NOT_PAGES = {"card", "optimizer_classes"}   # the card format; the classes' cards join their algorithm's page
NO_MATH = {"saver"}                          # pages without an update formula

_EXAMPLE_VALUES = {"learning_rate": "0.1", "momentum": "0.9", "global_step": "tf.train.get_or_create_global_step()"}
"""Values for a constructor's or ``step``'s required arguments in the generated usage examples."""


def card_modules() -> list[str]:
    import specs

    return sorted(m.name for m in pkgutil.iter_modules(specs.__path__)
                  if not m.name.startswith("_") and m.name not in NOT_PAGES)


def cards_of(name: str) -> list:
    mod = importlib.import_module(f"specs.{name}")
    cards = list(getattr(mod, "CARDS", []))
    if hasattr(mod, "CARD"):
        cards.insert(0, mod.CARD)
    return cards


def class_cards(source_module: str) -> list:
    mod = importlib.import_module("specs.optimizer_classes")
    return [c for c in mod.CARDS if c.target.startswith(source_module + ".")]


def class_module(name: str) -> str | None:
    """The module of the algorithm's optimizer class, ref/optimizers/<name>.py, if it declares one."""
    if (ROOT / "ref" / "optimizers" / f"{name}.py").is_file() and class_cards(f"ref.optimizers.{name}"):
        return f"ref.optimizers.{name}"
    return None


def source_module(name: str, cards) -> str:
    """The ref module a card module documents: ref/ops/training/<name>.py, else its cards' target module."""
    if (ROOT / "ref" / "ops" / "training" / f"{name}.py").is_file():
        return f"ref.ops.training.{name}"
    for c in cards:
        parts = c.target.split(".")
        for k in range(len(parts), 1, -1):
            try:
                m = importlib.import_module(".".join(parts[:k]))
            except ImportError:
                continue
            return m.__name__
    raise LookupError(f"specs/{name}.py: no ref module found (no ref/ops/training/{name}.py, no importable target)")


def esc(text: str) -> str:
    """Plain text into reST: every markup character escaped."""
    out = str(text).replace("\\", "\\\\")
    for ch in "*|`_[]":
        out = out.replace(ch, "\\" + ch)
    return " ".join(out.split())


def _unique(items):
    seen, out = set(), []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _test_mentions(names: list[str]) -> list[tuple[str, list[str]]]:
    """(test file, [test functions naming one of ``names``]) for tests/**/test_*.py naming one."""
    found = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if not any(n in text for n in names):
            continue
        funcs = []
        try:
            tree = ast.parse(text)
        except SyntaxError:
            tree = None
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                seg = ast.get_source_segment(text, node) or ""
                if any(n in seg for n in names):
                    funcs.append(node.name)
        found.append((path.relative_to(ROOT).as_posix(), sorted(set(funcs))))
    return found


def _fmt(v):
    return repr(v)


def math_lines(name: str) -> list[str]:
    """The card module's ``MATH`` (LaTeX) as a ``.. math::`` block (MathML in HTML: docs/_ext/mathml.py)."""
    math = getattr(importlib.import_module(f"specs.{name}"), "MATH", None)
    if math is None:
        if name not in NO_MATH:
            raise LookupError(f"specs/{name}.py has no MATH (the update in LaTeX)")
        return []
    return ["The update", "----------", "", ".. math::", ""] + [
        "   " + line if line.strip() else "" for line in textwrap.dedent(math).strip().splitlines()] + [""]


def _required(fn, skip) -> list[str]:
    params = inspect.signature(fn).parameters.values()
    return [p.name for p in params if p.name not in skip and p.default is inspect.Parameter.empty
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _raw_op_call(op) -> str:
    from ref.golden.cases import HYPERS, NONNEGATIVE_SLOTS

    args = []
    for n in op.inputs:
        if n == "var":
            value = "np.array([1.0, -2.0], np.float32)"
        elif n in op.refs:
            value = "np.full(2, 0.1, np.float32)" if n in NONNEGATIVE_SLOTS else "np.zeros(2, np.float32)"
        elif n in ("grad", "delta"):
            value = "np.array([0.5, -0.5], np.float32)"
        elif n == "global_step":
            value = "np.int64(1)"
        else:
            value = repr(HYPERS[n])
        args.append(f"{n}={value}")
    return f"tf.raw_ops.{op.name}(" + ", ".join(args) + ")"


def usage_lines(name: str, modname: str, clsmod: str | None, classes: list[str], ops: list[str],
                kernels=()) -> list[str]:
    """A runnable usage example (``.. testcode::``, run by the doctest build):
    the TF1 class, the functional ``init``/``step``, the raw op."""
    from ref.ops import registry

    code = ["import numpy as np", "import ref as tf", ""]
    if classes and clsmod:
        cls = getattr(importlib.import_module(clsmod), classes[0])
        args = ", ".join(f"{a}={_EXAMPLE_VALUES[a]}" for a in _required(cls.__init__, {"self"}))
        code += ["# 1. the TF1 class, in a graph",
                 "with tf.Graph().as_default():",
                 "    w = tf.Variable([1.0, -2.0])",
                 "    loss = tf.reduce_sum(w * w)",
                 f"    train_op = tf.train.{classes[0]}({args}).minimize(loss)",
                 "    with tf.Session() as sess:",
                 "        sess.run(tf.global_variables_initializer())",
                 "        sess.run(train_op)",
                 "        w_class = sess.run(w)", ""]
    mod = importlib.import_module(modname)
    if hasattr(mod, "init") and hasattr(mod, "step"):
        kw = ", ".join(f"{a}={_EXAMPLE_VALUES[a]}" for a in _required(mod.step, {"params", "grads", "state"}))
        short = modname.rsplit(".", 1)[1]
        code += ["# 2. the pure functional form: parameter trees of NumPy arrays",
                 f"from {modname.rsplit('.', 1)[0]} import {short}",
                 "params = {'w': np.array([1.0, -2.0], np.float32)}",
                 "grads = {'w': 2 * params['w']}",
                 f"state = {short}.init(params{', ' + kw if kw else ''})",
                 f"params, state = {short}.step(params, grads, state{', ' + kw if kw else ''})", ""]
        if classes and clsmod:
            code += ["# the class and the functional form run the same kernel: the same bits",
                     "assert np.array_equal(w_class, params['w'])", ""]
    dense = [k for k in kernels if k.startswith("Apply")] + [o for o in ops if o.startswith("Apply")]
    if dense:
        code += ["# 3. the kernel on NumPy arrays: returns the new var and slots",
                 "new_var, *new_slots = " + _raw_op_call(registry.get(dense[0])), ""]
    if len(code) == 3:
        return []
    return ["Usage", "-----", "", ".. testcode::", ""] + ["   " + c if c else "" for c in code] + [""]


def page_lines(name: str) -> list[str]:
    from ref.ops import registry

    cards = cards_of(name)
    if not cards:
        raise LookupError(f"specs/{name}.py defines no CARD/CARDS")
    modname = source_module(name, cards)
    mod = importlib.import_module(modname)
    path = Path(inspect.getsourcefile(mod)).resolve().relative_to(ROOT).as_posix()
    clsmod = class_module(name)
    ccards = class_cards(clsmod or modname)
    doc = inspect.getdoc(mod) or ""
    lead = doc.split("\n\n")[0].replace("\n", " ")
    title = lead.split(":")[0].split("(")[0].strip() if lead else name
    ops = sorted(n for n, d in registry.registered().items()
                 if d.kernel is not None and getattr(d.kernel, "__module__", "") == modname)
    classes = [c.name for c in ccards]
    out = [title, "=" * max(len(title), 3), ""]
    out += [translate([lead])[0], ""]
    out += [f":Spec cards: ``specs/{name}.py`` ({len(cards) + len(ccards)} cards)",
            f":Module: :mod:`{modname}` (``{path}``)"]
    if classes:
        out.append(":Class: " + ", ".join(f":class:`{clsmod or modname}.{c}` (``tf.train.{c}``)" for c in classes))
    if ops:
        out.append(":Raw ops: " + ", ".join(f"``{o}``" for o in ops))
    out.append("")
    out += math_lines(name)
    out += usage_lines(name, modname, clsmod, classes, ops, [c.kernel for c in cards if c.kernel])

    # 1. the documented rule
    out += ["The documented rule", "-------------------", ""]
    quoted = _unique((c.seed, c.section, c.quote, c.citation) for c in ccards + cards)
    any_seed = False
    for seed, section, quote, citation in quoted:
        users = [c.name for c in ccards + cards if (c.seed, c.section, c.quote) == (seed, section, quote)]
        if not seed or not quote:
            continue
        any_seed = True
        out += [f"TensorFlow's documentation, {esc(citation)}, section \"{esc(section)}\" "
                f"(cards: {', '.join(f'``{u}``' for u in users)}):",
                "", ".. code-block:: text", ""]
        out += ["   " + line for line in textwrap.dedent(quote).splitlines()] + [""]
    unquoted = [c.name for c in cards if not c.seed or not c.quote]
    if unquoted or not any_seed:
        out += [f"Not stated in the seeds: {', '.join(f'``{u}``' for u in unquoted or [c.name for c in cards])} "
                "-- the formula below is the paper's or TensorFlow's, as the module docstring says.", ""]

    # 2. the module docstring: formula, TF's kernel form, the paper's form
    out += ["Formula, TensorFlow's kernel and the paper", "------------------------------------------", "",
            f"From the docstring of :mod:`{modname}`:", ""]
    rest = doc.split("\n\n", 1)[1] if "\n\n" in doc else ""
    out += translate(rest.splitlines()) + [""]

    # 3. notes
    notes = _unique(c.notes for c in ccards + cards if c.notes)
    if notes:
        out += ["Notes from the cards", "--------------------", ""]
        for n in notes:
            users = [c.name for c in ccards + cards if c.notes == n]
            out += [f"* {', '.join(f'``{u}``' for u in users)}: {esc(n)}", ""]

    # 4. the cards
    out += ["The cards", "---------", "",
            "``tests/test_specs.py`` checks each row: the quote occurs in the seed, the defaults equal "
            f"``target``'s, and (for a card with a kernel) hypothesis draws inputs in the domain and the "
            "kernel matches the oracle within the budget (units in the last place at the update's scale).",
            ""]
    rows = []
    for c in ccards + cards:
        defaults = ", ".join(f"{k}={_fmt(v)}" for k, v in c.defaults.items())
        budget = f"{c.ulp} / {c.ulp64}" if c.oracle is not None else "--"
        domain = "; ".join(c.constraints)
        errs = "; ".join(c.errors)
        rows.append([f"``{c.name}``", f"``{c.target}``" if c.target else "--",
                     f"``{c.kernel}``" if c.kernel else "--",
                     f"``{defaults}``" if defaults else "--", budget,
                     (f"``{domain}``" if domain else "--") + (f"; raises: {esc(errs)}" if errs else "")])
    out += list_table(["Card", "Defaults of", "Kernel", "Defaults", "ULP f32 / f64", "Domain"], rows,
                      widths=[14, 20, 12, 20, 8, 26])

    # 5. the oracle
    oracles = _unique(c.oracle for c in cards if c.oracle is not None)
    if oracles:
        out += ["The oracle", "----------", "",
                f"The quote transcribed to float64 NumPy (``ref.numpy_reference``, which users may import "
                "too), the independent expectation "
                "the kernels are tested against:", ""]
        for fn in oracles:
            out += [".. code-block:: python", ""]
            out += ["   " + line if line.strip() else "" for line in
                    textwrap.dedent(inspect.getsource(fn)).rstrip().splitlines()] + [""]

    # 6. the kernel source
    out += ["The kernel source", "-----------------", "",
            f"``{path}``, whole (the scalar update, the dense and sparse kernels, their registration "
            "and the pure ``init``/``step`` where the module has them):", "",
            f".. literalinclude:: /../{path}", "   :language: python", "   :linenos:", ""]
    if clsmod:
        clspath = Path(inspect.getsourcefile(importlib.import_module(clsmod))).resolve().relative_to(ROOT).as_posix()
        out += [f"The optimizer class, ``{clspath}`` (its lifecycle is the base class's, "
                ":mod:`ref.optimizers.optimizer`):", "",
                f".. literalinclude:: /../{clspath}", "   :language: python", "   :linenos:", ""]

    # 7. the tests
    names = _unique([c.kernel for c in cards if c.kernel] + ops + classes
                    + [f"specs.{name}", f"specs/{name}", modname] + ([clsmod] if clsmod else []))
    out += ["Its tests", "---------", "",
            f"* ``tests/test_specs.py`` -- every card above (quote, defaults, oracle property test)."]
    for f, funcs in _test_mentions(names):
        if f == "tests/test_specs.py":
            continue
        what = ", ".join(f"``{fn}``" for fn in funcs) if funcs else "tables of cases"
        out.append(f"* ``{f}`` -- {what}")
    out.append("")
    return out


class SpecCardPage(SphinxDirective):
    required_arguments = 1

    def run(self):
        name = self.arguments[0]
        self.env.note_dependency(str(ROOT / "specs" / f"{name}.py"))
        try:
            lines = page_lines(name)
        except Exception as e:  # report with the page's location, fail the -W build
            logger.warning(f"speccard-page {name}: {type(e).__name__}: {e}", location=self.get_location())
            return []
        node = nodes.section()
        node.document = self.state.document
        content = StringList()
        for i, line in enumerate(lines):
            content.append(line, f"<speccard-page {name}>", i)
        nested_parse_with_titles(self.state, content, node)
        self.env.metadata[self.env.docname]["speccard"] = name
        return node.children


def _check_coverage(app, env):
    """Every card module has a page under optimizers/, and every page a card module."""
    pages = {Path(d).name for d in env.found_docs if d.startswith("optimizers/") and not d.endswith("index")}
    mods = set(card_modules())
    for m in sorted(mods - pages):
        logger.warning(f"specs/{m}.py has no page: add docs/optimizers/{m}.rst holding '.. speccard-page:: {m}'")
    for p in sorted(pages - mods):
        logger.warning(f"docs/optimizers/{p}.rst names no spec card module specs/{p}.py")
    for d in env.found_docs:
        if d.startswith("optimizers/") and not d.endswith("index"):
            got = env.metadata.get(d, {}).get("speccard")
            if got is not None and got != Path(d).name:
                logger.warning(f"docs/{d}.rst renders specs/{got}.py; name it optimizers/{got}.rst",
                               location=d)


def setup(app):
    app.add_directive("speccard-page", SpecCardPage)
    app.connect("env-check-consistency", _check_coverage)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
