"""Sphinx directives that generate reference tables from the code at build time.

``.. refapi-namespace:: ref.train``
    a table of the public names of a namespace module (``tf``, ``tf.train``,
    ...): each name, what it is, and where it is defined (linked to its
    autodoc entry), with the first line of its docstring.

``.. refapi-rawops::``
    every op in :mod:`ref.ops.registry`: inputs, attrs with their defaults, outputs,
    ref (state) inputs, and the kernel that implements it.

``.. refapi-package:: ref.checkpoint``
    ``automodule`` for the package and each of its public submodules (found by
    walking the package, so new modules appear without editing the docs).
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import types

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles


def first_line(obj) -> str:
    doc = inspect.getdoc(obj) if not isinstance(obj, (int, float, str, tuple, list, dict)) else None
    if not doc:
        return ""
    line = doc.strip().split("\n\n")[0].replace("\n", " ").strip()
    return line


def _cell(text: str) -> str:
    """One table cell: single line, no stray markup that could break the table."""
    return " ".join(str(text).split()) or " "


def list_table(header, rows, widths=None) -> list[str]:
    out = [".. list-table::", "   :header-rows: 1"]
    if widths:
        out.append("   :widths: " + " ".join(map(str, widths)))
    out.append("")
    for row in [header] + rows:
        first = True
        for c in row:
            out.append(("   * - " if first else "     - ") + _cell(c))
            first = False
    out.append("")
    return out


class _RstDirective(SphinxDirective):
    """A directive whose output is generated reStructuredText."""

    def lines(self) -> list[str]:
        raise NotImplementedError

    def run(self):
        node = nodes.section() if self.has_titles else nodes.container()
        node.document = self.state.document
        content = StringList()
        source = f"<{self.name} {' '.join(self.arguments)}>"
        for i, line in enumerate(self.lines()):
            content.append(line, source, i)
        if self.has_titles:
            nested_parse_with_titles(self.state, content, node)
        else:
            self.state.nested_parse(content, self.content_offset, node)
        return node.children

    has_titles = False


def _kind(obj) -> str:
    if isinstance(obj, types.ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return type(obj).__name__


def _qualname(name, obj):
    mod = getattr(obj, "__module__", None)
    qn = getattr(obj, "__qualname__", None)
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    if mod and qn and (inspect.isclass(obj) or inspect.isfunction(obj)):
        return f"{mod}.{qn}"
    return None


class NamespaceTable(_RstDirective):
    required_arguments = 1
    option_spec = {"prefix": directives.unchanged}

    def lines(self):
        modname = self.arguments[0]
        mod = importlib.import_module(modname)
        prefix = self.options.get("prefix", modname)
        names = sorted(n for n in dir(mod) if not n.startswith("_"))
        rows = []
        for n in names:
            obj = getattr(mod, n)
            qn = _qualname(n, obj)
            where = f":py:obj:`{qn}`" if qn and qn.startswith("ref.") else (f"``{qn}``" if qn else "")
            rows.append([f"``{prefix}.{n}``", _kind(obj), where,
                         _escape(first_line(obj)) if _kind(obj) in ("class", "function", "exception") else ""])
        return [f"``{modname}`` holds {len(rows)} public names.", ""] + list_table(
            ["Name", "Kind", "Defined as", "Summary"], rows, widths=[22, 8, 30, 40])


def _escape(text: str) -> str:
    """Plain text in a table cell (docstring summaries may hold stray ``*`` or ``|``)."""
    # keep inline literals (balanced ``), escape the rest
    pieces = text.split("``")
    if len(pieces) % 2 == 0:  # unbalanced: escape everything
        pieces = [text]
    res = []
    for i, p in enumerate(pieces):
        if i % 2:
            res.append(f"``{p}``")
        else:
            for ch in "\\*|`_[]":
                p = p.replace(ch, "\\" + ch)
            res.append(p)
    return "".join(res)


def _fmt_default(v):
    if isinstance(v, type) or v.__class__.__name__ == "DType":
        return getattr(v, "name", repr(v))
    r = repr(v)
    return r if len(r) < 30 else r[:27] + "..."


class RawOpsTable(_RstDirective):
    def lines(self):
        from ref.ops import registry

        ops = registry.registered()
        rows = []
        for name in sorted(ops):
            d = ops[name]
            ins = []
            for i in d.inputs:
                tag = i
                if i in d.list_inputs:
                    tag += "[]"
                if i in d.refs:
                    tag += " (ref)"
                ins.append(tag)
            attrs = ", ".join(f"{k}={_fmt_default(v)}" for k, v in d.attrs.items())
            kernel = d.kernel
            kname = f":py:func:`{kernel.__module__}.{kernel.__qualname__}`" if kernel is not None and \
                getattr(kernel, "__module__", "").startswith("ref.") else "--"
            rows.append([f"``{name}``", "``" + ", ".join(ins) + "``" if ins else "--",
                         "``" + ", ".join(d.outputs) + "``" if d.outputs else "--",
                         f"``{attrs}``" if attrs else "--", kname])
        head = [f"The registry holds {len(rows)} ops. Every row is callable as "
                f"``ref.raw_ops.<Op>(**inputs_and_attrs)`` on NumPy arrays; ``(ref)`` marks "
                f"state inputs (the kernel returns their new values first), ``[]`` list inputs.", ""]
        return head + list_table(["Op", "Inputs", "Outputs", "Attrs (defaults)", "Kernel"], rows,
                                 widths=[18, 26, 12, 26, 18])


class PackageModules(_RstDirective):
    required_arguments = 1
    option_spec = {"exclude": directives.unchanged, "no-members": directives.flag}

    def lines(self):
        name = self.arguments[0]
        exclude = set((self.options.get("exclude") or "").split())
        pkg = importlib.import_module(name)
        mods = [name]
        if hasattr(pkg, "__path__"):
            for info in pkgutil.iter_modules(pkg.__path__):
                sub = f"{name}.{info.name}"
                if info.name.startswith("_") or info.name in exclude or sub in exclude:
                    continue
                mods.append(sub)
        out = []
        for m in mods:
            title = f"``{m}``"
            out += [title, "-" * len(title), "", f".. automodule:: {m}"]
            if "no-members" in self.options or (m == name and len(mods) > 1):
                out.append("   :no-members:")
            out.append("")
        return out

    has_titles = True


def setup(app):
    app.add_directive("refapi-namespace", NamespaceTable)
    app.add_directive("refapi-rawops", RawOpsTable)
    app.add_directive("refapi-package", PackageModules)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
