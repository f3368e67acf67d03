"""``.. markdown-include:: golden.md``: a Markdown page rendered without a Markdown parser.

docs/golden.md is written in Markdown (it also reads well on GitHub). Rather
than depend on myst-parser, this directive translates the subset such guides
use -- ATX headings, paragraphs, fenced code blocks, pipe tables, bullet and
numbered lists, block quotes, inline code, bold/italic and links -- into
reStructuredText and parses that in place. Anything else is kept as text; a
construct the translation gets wrong shows up as a build warning (an error
under ``-W``), never silently.
"""
from __future__ import annotations

import re
from pathlib import Path

from docutils.statemachine import StringList
from docutils import nodes
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

_UNDERLINES = "=-~^\"'"
_CODE = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def _inline(text: str) -> str:
    """Markdown inline markup -> reST (code spans kept verbatim, prose escaped)."""
    out = []
    pos = 0
    for m in _CODE.finditer(text):
        out.append(_prose(text[pos:m.start()]))
        code = m.group(1)
        before = text[m.start() - 1] if m.start() > 0 else " "
        after = text[m.end()] if m.end() < len(text) else " "
        lit = f"``{code}``" if "``" not in code and not code.startswith(" ") and not code.endswith(" ") \
            else ":literal:`" + code.replace("`", "\\`") + "`"
        out.append(("\\ " if before.isalnum() else "") + lit + ("\\ " if after.isalnum() else ""))
        pos = m.end()
    out.append(_prose(text[pos:]))
    return "".join(out)


def _prose(text: str) -> str:
    text = text.replace("\\", "\\\\").replace("|", "\\|")
    text = re.sub(r"(\w)_(?=\W|$)", r"\1\\_", text)            # foo_ is a reference in reST
    text = re.sub(r"(?<![\w*])\*(?=\s)", r"\\*", text)          # a lone * (a product), not emphasis
    return _LINK.sub(lambda m: f"`{m.group(1)} <{m.group(2)}>`__", text)


def _table(rows: list[str]) -> list[str]:
    cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
    header, body = cells[0], [r for r in cells[2:]]
    out = [".. list-table::", "   :header-rows: 1", ""]
    for row in [header] + body:
        row = (row + [""] * len(header))[:len(header)]
        for i, c in enumerate(row):
            out.append(("   * - " if i == 0 else "     - ") + (_inline(c) or " "))
    return out + [""]


def translate(md: str) -> list[str]:
    lines = md.splitlines()
    out: list[str] = []
    i = 0
    para: list[str] = []

    def flush():
        if para:
            out.extend(_inline(p) for p in para)
            out.append("")
            para.clear()

    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if s.startswith("```"):
            flush()
            lang = s[3:].strip() or "text"
            lang = {"sh": "bash", "shell": "bash", "json": "javascript"}.get(lang, lang)  # json examples elide with ...
            body = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                body.append(lines[i])
                i += 1
            i += 1
            out += [f".. code-block:: {lang}", ""] + ["   " + b if b.strip() else "" for b in body] + [""]
            continue
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        if m:
            flush()
            title = _inline(m.group(2).strip())
            out += [title, _UNDERLINES[len(m.group(1)) - 1] * max(len(title), 3), ""]
            i += 1
            continue
        if s.startswith("|") and i + 1 < len(lines) and re.match(r"^\s*\|?\s*:?-{3,}", lines[i + 1]):
            flush()
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(lines[i])
                i += 1
            out += _table(rows)
            continue
        if not s:
            flush()
            i += 1
            continue
        lm = re.match(r"^(\s*)([-*+]|\d+[.)])\s+(.*)$", line)
        if lm:
            flush()
            indent = len(lm.group(1))
            bullet = "-" if lm.group(2) in "-*+" else "#."
            item = [lm.group(3).strip()]
            i += 1
            while i < len(lines) and lines[i].strip() and not re.match(r"^\s*([-*+]|\d+[.)])\s+", lines[i]) \
                    and not lines[i].strip().startswith("```"):
                item.append(lines[i].strip())
                i += 1
            pad = " " * indent
            text = _inline(" ".join(item))
            out += [f"{pad}{bullet} {text}"]
            if i < len(lines) and not lines[i].strip():
                out.append("")
            continue
        if s.startswith(">"):
            flush()
            quote = []
            while i < len(lines) and lines[i].strip().startswith(">"):
                quote.append(lines[i].strip()[1:].strip())
                i += 1
            out += ["   " + _inline(" ".join(quote)), ""]
            continue
        para.append(s)
        i += 1
    flush()
    return out


class MarkdownInclude(SphinxDirective):
    required_arguments = 1

    def run(self):
        rel, path = self.env.relfn2path(self.arguments[0])
        self.env.note_dependency(rel)
        md = Path(path).read_text(encoding="utf-8")
        content = StringList()
        for k, line in enumerate(translate(md)):
            content.append(line, path, k)
        node = nodes.section()
        node.document = self.state.document
        nested_parse_with_titles(self.state, content, node)
        return node.children


def setup(app):
    app.add_directive("markdown-include", MarkdownInclude)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
