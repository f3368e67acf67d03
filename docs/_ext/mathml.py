"""Formulas rendered at build time: LaTeX -> MathML (``latex2mathml``), no JavaScript.

Sphinx's default HTML math renderer loads MathJax from a CDN, so offline the
formulas show as raw LaTeX. This renderer (``html_math_renderer = "mathml"``)
writes each ``:math:`` role and ``.. math::`` block as MathML, which browsers
draw themselves: the pages need nothing from the network. A block with
several equations separated by blank lines gives one ``<math display="block">``
each.
"""
from __future__ import annotations

from docutils import nodes
from latex2mathml.converter import convert


def to_mathml(latex: str, display: str = "inline") -> str:
    """One formula as a ``<math>`` element."""
    return convert(latex.strip(), display=display)


def _visit_inline(self, node):
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate") + to_mathml(node.astext())
                     + "</span>")
    raise nodes.SkipNode


def _visit_block(self, node):
    self.body.append(self.starttag(node, "div", CLASS="math notranslate"))
    if node.get("number"):
        self.body.append(f'<span class="eqno">({node["number"]})</span>')
    for part in node.astext().split("\n\n"):
        if part.strip():
            self.body.append(to_mathml(part, display="block"))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (_visit_inline, None), (_visit_block, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
