"""``python -m ref check ... --plot FILE``: the comparison as a picture.

One panel per case: for every output (the parameter and each slot), the error
in ULPs at the budget scale after each step (a kernel golden has one "step"),
the budget as a dashed line, and the first step that leaves the budget marked
with a vertical line. The y axis is ``log10(1 + ULP)`` so that 0 (bit-identical)
and 10^5 share one picture. The file type follows the name's extension (``.png``
or ``.svg``). Needs matplotlib (the ``plot`` extra): ``pip install 'ref-tf1[plot]'``.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ref.golden.compare import Report

FORMATS = ("png", "svg")
"""The file types ``--plot`` writes, chosen by the file name's extension."""


class PlotUnavailable(ImportError):
    """matplotlib is not installed."""


def pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable("--plot needs matplotlib: pip install 'ref-tf1[plot]'") from None
    matplotlib.use("Agg", force=True)
    from matplotlib import pyplot
    return pyplot


def plot_format(path: str | os.PathLike) -> str:
    """``"png"`` or ``"svg"`` from the file name; ValueError for another extension."""
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in FORMATS:
        raise ValueError(f"--plot {path}: the file name must end in .png or .svg")
    return ext


def series(report: Report) -> list:
    """``[(case index, label, [(output, steps, scaled ULPs, budgets, first over-budget step or None)])]``:
    the numbers the plot draws, one entry per case of ``report``."""
    out = []
    for case in report.cases:
        lines = []
        for name, result in case.outputs.items():
            if result.missing:
                continue
            steps = [s.step if s.step is not None else 1 for s in result.steps]
            scaled = [s.max_scaled for s in result.steps]
            budgets = [s.budget for s in result.steps]
            first = None if result.first_over is None else (result.first_over.step or 1)
            lines.append((name, steps, scaled, budgets, first))
        out.append((case.index, case.label, lines))
    return out


def _y(values):
    return np.log10(1.0 + np.nan_to_num(np.asarray(values, np.float64), nan=1e30, posinf=1e30))


def write_plot(report: Report, path: str | os.PathLike) -> Path:
    """Draws ``report`` (a :class:`ref.golden.compare.Report`) into ``path`` (.png or .svg)."""
    fmt = plot_format(path)
    plt = pyplot()
    data = series(report)
    m = report.golden.manifest
    fig, axes = plt.subplots(len(data), 1, figsize=(8, 2.4 * max(len(data), 1)), squeeze=False, sharex=True)
    for ax, (index, label, lines) in zip(axes[:, 0], data):
        for name, steps, scaled, budgets, first in lines:
            (drawn,) = ax.plot(steps, _y(scaled), marker="o", markersize=3, label=name)
            if first is not None:
                ax.axvline(first, color=drawn.get_color(), linestyle=":", linewidth=1.5)
                ax.annotate(f"{name} leaves its budget at step {first}", (first, _y(scaled)[steps.index(first)]),
                            textcoords="offset points", xytext=(4, 4), fontsize=7, color=drawn.get_color())
        if lines:
            ax.plot(lines[0][1], _y(lines[0][3]), color="black", linestyle="--", linewidth=1, label="budget")
        ax.set_title(f"case {index}: {label}", fontsize=9)
        ax.set_ylabel("log10(1 + ULP)", fontsize=8)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    axes[-1, 0].set_xlabel("step" if m["kind"] == "trajectory" else "case")
    first = report.first_divergence
    where = ("within budget everywhere" if first is None else
             f"first divergence: case {first.case}, {first.output!r}"
             + (f", step {first.step}" if first.step is not None else ""))
    fig.suptitle(f"{m['name']} {m['dtype']} seed {m['seed']} vs {report.source}\n{where}", fontsize=10)
    fig.tight_layout()
    fig.savefig(str(path), format=fmt)
    plt.close(fig)
    return Path(path)
