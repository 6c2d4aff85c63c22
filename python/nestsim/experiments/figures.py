"""Experiment figures, written next to claims.json (PNG and SVG) and named after the source
figure they stand beside (``qtcp-fig5``, ``thesis-fig4.21``), so a reader can lay them side by
side. Built from the experiment's own runs: bars of measured figures, or time series."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .. import plots
from ..plots import plt


def bars(out_dir: Path, stem: str, panels: Dict[str, Dict[str, Dict[str, float]]], ylabel: str,
         log: bool = False, title: Optional[str] = None) -> None:
    """Grouped bars, one panel per entry of `panels` ({panel: {series: {category: value}}})."""
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), squeeze=False)
    first = list(next(iter(panels.values())))
    for ax, (name, series) in zip(axes[0], panels.items()):
        cats = list(next(iter(series.values())))
        width = 0.8 / len(series)
        for k, (label, vals) in enumerate(series.items()):
            ax.bar([i + (k - (len(series) - 1) / 2) * width for i in range(len(cats))], [vals[c] for c in cats], width, label=label)
        ax.set_xticks(range(len(cats)))
        ax.set_xticklabels(cats, fontsize=8)
        ax.set_title(name, fontsize=10)
        ax.grid(alpha=0.3, axis="y")
        if log:
            ax.set_yscale("log")
        if ax is axes[0][0] or list(series) != first:  # a legend wherever the series differ
            ax.legend(fontsize=8)
    axes[0][0].set_ylabel(ylabel)
    _finish(fig, out_dir, stem, title)


def lines(out_dir: Path, stem: str, panels: Dict[str, Dict[str, Tuple[Sequence[float], Sequence[float]]]],
          xlabel: str, ylabel: str, logx: bool = False, logy: bool = False, title: Optional[str] = None,
          markers: bool = False, vline: Optional[float] = None) -> None:
    """Line panels ({panel: {label: (xs, ys)}}); ``vline`` marks one x (a reference point) in each."""
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.4), squeeze=False)
    for ax, (name, curves) in zip(axes[0], panels.items()):
        for label, (xs, ys) in curves.items():
            ax.plot(xs, ys, label=label, linewidth=1.1, marker="o" if markers else None, markersize=3)
        if vline is not None:
            ax.axvline(vline, color="grey", linestyle=":", linewidth=1.0)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
        if logx:
            ax.set_xscale("log")
            if markers:  # few swept points: label them plainly, not in powers of ten
                ticks = sorted({x for xs, _ in curves.values() for x in xs})
                ax.set_xticks(ticks, [f"{x:g}" for x in ticks])
                ax.minorticks_off()
        if logy:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=min(0.0, ax.get_ylim()[0]))
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel(ylabel)
    _finish(fig, out_dir, stem, title)


def period_bars(out_dir: Path, stem: str, panels: Dict[str, Dict[str, Dict[str, Sequence[float]]]], ylabel: str,
                title: Optional[str] = None) -> None:
    """Grouped bars whose height is a sum over periods, drawn as one stacked block per period
    (Haechi's Fig 9–13 layout: "each small block in the bar is the I/Os done in one QoS period").
    `panels` is {panel: {series: {category: [value per period]}}}."""
    fig, axes = plt.subplots(len(panels), 1, figsize=(9.0, 3.2 * len(panels)), squeeze=False)
    for ax, (name, series) in zip(axes[:, 0], panels.items()):
        cats = list(next(iter(series.values())))
        width = 0.8 / len(series)
        for k, (label, vals) in enumerate(series.items()):
            colour = f"C{k}"
            xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(cats))]
            bottoms = [0.0] * len(cats)
            for p in range(max(len(vals[c]) for c in cats)):
                hs = [vals[c][p] if p < len(vals[c]) else 0.0 for c in cats]
                ax.bar(xs, hs, width, bottom=bottoms, color=colour, edgecolor="white", linewidth=0.3,
                       label=label if p == 0 else None)
                bottoms = [b + h for b, h in zip(bottoms, hs)]
        ax.set_xticks(range(len(cats)))
        ax.set_xticklabels(cats, fontsize=8)
        ax.set_title(name, fontsize=10)
        ax.grid(alpha=0.3, axis="y")
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8)
    _finish(fig, out_dir, stem, title)


def smooth(xs: Sequence[float], ys: Sequence[float], window_s: float) -> Tuple[List[float], List[float]]:
    """Trailing moving average over `window_s` (time-series samples are evenly spaced)."""
    if len(xs) < 2 or window_s <= 0:
        return list(xs), list(ys)
    k = max(1, round(window_s / (xs[1] - xs[0])))
    out, acc = [], 0.0
    for i, y in enumerate(ys):
        acc += y
        if i >= k:
            acc -= ys[i - k]
        out.append(acc / min(i + 1, k))
    return list(xs), out


def flow_series(run_dir: Path, metric: str = "throughput_gbps", flows: Optional[Iterable[str]] = None,
                window_s: float = 0.0) -> Dict[str, Tuple[List[float], List[float]]]:
    """{flow name: (times, values)} of one per-flow time-series metric of a run."""
    want = set(flows) if flows is not None else None
    out = {}
    for (e, m), (xs, ys) in sorted(plots.load_series(run_dir, metrics=[metric]).items()):
        if e.startswith("flow:") and (want is None or e[5:] in want):
            out[e[5:]] = smooth(xs.tolist(), ys.tolist(), window_s)
    return out


def _finish(fig, out_dir: Path, stem: str, title: Optional[str]) -> None:
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    plots.save(fig, Path(out_dir), stem)
