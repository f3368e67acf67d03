"""Reads ref's docstrings the way they are written: plain text with reST literals.

ref's docstrings (see CONTRIBUTING.md) put formulas next to the kernels in
plain notation and use Google-style sections (``Args:``, ``Returns:``,
``Raises:``; read by ``sphinx.ext.napoleon``). Two plain-text habits mean
something else in reStructuredText, so this ``autodoc-process-docstring`` hook
(run after napoleon) translates them, and only them, in autodoc'd docstrings:

* ``|x|`` is an absolute value or a norm, never a substitution reference:
  ``|`` outside inline literals and literal blocks is escaped; so is the
  ``*`` of an in-place operator (``ref *= updates``), never an emphasis.
* a block indented under a paragraph, after a blank line, is code (a command
  line, an example), as in the README: the paragraph gets a ``::`` so the
  block is a literal block -- unless it is already one, a doctest block
  (``>>>``), or the body of a directive, list or field.

Without this the same docstrings would each need reST-specific escapes to keep
the warning-free build (``-W``) green; pages written in reST are untouched.
"""
from __future__ import annotations

import re

_BULLET = re.compile(r"^(\.\. |:|[*+-] |\d+[.)] |#\. |>>>)")
_LITERAL_SPAN = re.compile(r"(``.*?``|`[^`]*`)")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _escape_prose(line: str) -> str:
    parts = _LITERAL_SPAN.split(line)
    for i in range(0, len(parts), 2):  # even parts are outside literals/roles
        p = parts[i].replace("|", "\\|")
        parts[i] = re.sub(r"\*=", r"\\*=", p)
    return "".join(parts)


def translate(lines: list[str]) -> list[str]:
    out = list(lines)
    n = len(out)
    # 1. indented blocks under a plain paragraph become literal blocks
    i = 0
    while i < n:
        if not out[i].strip():
            i += 1
            continue
        start = i
        ind = _indent(out[i])
        while i < n and out[i].strip() and _indent(out[i]) == ind:
            i += 1
        end = i  # paragraph is out[start:end]
        if end < n and out[end].strip():  # continuation/definition list: leave alone
            i = end
            continue
        j = end
        while j < n and not out[j].strip():
            j += 1
        if end > start and j > end and j < n and _indent(out[j]) > ind:
            first = out[start].strip()
            last = out[end - 1].rstrip()
            block_first = out[j].strip()
            if not last.endswith("::") and not _BULLET.match(first) and not block_first.startswith(">>>"):
                out[end - 1] = last + " ::"
    # 2. escape |...| and *= in prose (not in literal blocks, doctests or directives' literal bodies)
    literal_indent = None
    prev_nonblank = ""
    for k, line in enumerate(out):
        if not line.strip():
            continue
        ind = _indent(line)
        if literal_indent is not None:
            if ind > literal_indent:
                prev_nonblank = line
                continue
            literal_indent = None
        stripped = line.strip()
        if stripped.startswith(">>>") or stripped.startswith("..."):
            prev_nonblank = line
            continue
        if prev_nonblank.rstrip().endswith("::") and ind > _indent(prev_nonblank):
            literal_indent = _indent(prev_nonblank)
            prev_nonblank = line
            continue
        if stripped.startswith(".. ") and stripped.rstrip().endswith("::"):
            prev_nonblank = line
            continue
        out[k] = _escape_prose(line)
        prev_nonblank = line
    return out


def _process(app, what, name, obj, options, lines):
    lines[:] = translate(lines)


def setup(app):
    # after sphinx.ext.napoleon (priority 500), which turns Args:/Returns: into fields
    app.connect("autodoc-process-docstring", _process, priority=900)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
