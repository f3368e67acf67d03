"""Sphinx configuration for ref's documentation.

Build: ``python -m sphinx -W -b html docs docs/_build/html``; doctests (the
pages' examples and the docstrings autodoc pulls in):
``python -m sphinx -W -b doctest docs docs/_build/doctest``. tests/test_docs.py
runs both. Pages that depend on code are generated from it at build time by the
extensions in ``docs/_ext``: the optimizer pages from the spec cards
(``speccards.py``), the raw-op table and namespace tables from the registry and
the modules (``refapi.py``).
"""
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))          # ref/ and specs/ from this checkout
sys.path.insert(0, str(DOCS / "_ext"))

import ref  # noqa: E402

project = "ref"
author = "the ref authors"
copyright = "the ref authors; Apache-2.0"
version = release = ref.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.napoleon",
    "plaindocstrings",
    "refapi",
    "speccards",
    "mdinclude",
    "mathml",                       # the update formulas (optimizer, schedule, clipping, EMA pages) as MathML
]
html_math_renderer = "mathml"       # rendered at build time: the pages need no network (no MathJax CDN)

exclude_patterns = ["_build", "golden.md"]  # golden.rst renders it; html_extra_path copies the source
html_extra_path = ["golden.md"]     # the guide's Markdown, as README.md links it, beside golden.html
root_doc = "index"
html_theme = "alabaster"
html_static_path = ["_static"]
html_css_files = ["scroll.css"]      # wide tables and code scroll instead of overflowing
templates_path = []

# autodoc: document what each module defines (namespace modules get tables from
# refapi instead, so no object is described twice).
autodoc_default_options = {"members": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "none"      # signatures as written; several modules use `from __future__ import annotations`
autodoc_inherit_docstrings = False
napoleon_google_docstring = True
napoleon_numpy_docstring = False   # "Returns" headings in prose must not become sections

# doctest: every page's `>>>` blocks and the docstrings autodoc includes.
doctest_global_setup = """
import numpy as np
np.set_printoptions(legacy=False)
"""
doctest_default_flags = (__import__("doctest").ELLIPSIS | __import__("doctest").NORMALIZE_WHITESPACE
                         | __import__("doctest").DONT_ACCEPT_TRUE_FOR_1)
