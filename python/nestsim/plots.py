"""Figures of a run directory and of a sweep (matplotlib, Agg backend: no display needed).

`nestsim plot DIR` writes each figure as PNG, SVG and PDF into ``DIR/plots``; `nestsim report` embeds
the same figures. A figure whose data the run does not have (no network, no PFC, no GC) is
left out rather than drawn empty.

Run figures: per-class throughput over time, latency CDFs, latency percentiles, the latency
decomposition, flows' Q factor / cwnd (or rate) / throughput, switch queue lengths, PFC paused
time, and SSD garbage-collection activity. Sweep figures: each summary figure against each swept
parameter, the mean over seeds with a 95 % confidence interval (Student's t).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import matplotlib
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .stats import mean_ci, t95  # noqa: F401  (t95 re-exported for the sweep figures' users)

#: At most this many lines per panel: the busiest entities, so a fat-tree's 96 ports stay legible.
MAX_LINES = 8

Series = Dict[Tuple[str, str], Tuple["np.ndarray", "np.ndarray"]]


#: Metrics that sum or average what happened in an interval (a row only where something did);
#: every other metric samples a state once per interval (a gauge).
EVENT_METRICS = frozenset({"read_bytes", "write_bytes", "read_lat_us", "write_lat_us"})


def series_layout(path: Path) -> Tuple[str, Optional[float]]:
    """A timeseries.parquet's row policy ("interval" or "change") and interval (s), from its
    metadata (files written before the policy existed are "interval")."""
    meta = json.loads((pq.read_schema(path).metadata or {}).get(b"nestsim", b"{}"))
    return meta.get("timeseries_rows", "interval"), meta.get("interval_s")


#: The most values a forward fill produces; past it a series is returned as its rows (a run that
#: skipped a 10⁶ s idle stretch at 1 ms would otherwise fill 10⁹ values of nothing).
MAX_FILL = 10_000_000


def fill_changes(times: "np.ndarray", values: "np.ndarray", interval: float) -> Tuple["np.ndarray", "np.ndarray"]:
    """A gauge written with `timeseries_rows = "change"` (a row where its value changed, and one
    at its last sampled interval) as one value per interval, from its first row to its last
    (across an idle stretch the engine did not sample, too: nothing changed there) — unless that
    would be more than MAX_FILL values, when the rows are returned as they are."""
    if len(times) == 0:
        return times, values
    k = np.rint(times / interval).astype(np.int64)
    if k[-1] - k[0] + 1 > MAX_FILL:
        return times, values
    grid = np.arange(k[0], k[-1] + 1, dtype=np.int64)
    return grid * interval, values[np.searchsorted(k, grid, side="right") - 1]


def load_series(run_dir: Path, column: str = "value", metrics: Optional[Iterable[str]] = None, fill: bool = True) -> Series:
    """timeseries.parquet as {(entity, metric): (times, values)} (numpy arrays), optionally only
    some metrics; empty if the run wrote none. Grouped in numpy: a long run's series has millions
    of rows, too many for Python objects. A run written with ``timeseries_rows = "change"`` has
    its gauges forward-filled to one value per interval (``fill``), so either layout reads the same."""
    p = Path(run_dir) / "timeseries.parquet"
    if not p.exists():
        return {}
    rows, interval = series_layout(p)
    fill = fill and rows == "change" and bool(interval)
    t = pq.read_table(p, columns=["time_s", "entity", "metric", column], read_dictionary=["entity", "metric"],
                      filters=[("metric", "in", sorted(set(metrics)))] if metrics is not None else None)
    if t.num_rows == 0:
        return {}
    ents, ei = _codes(t["entity"])
    mets, mi = _codes(t["metric"])
    key = ei * len(mets) + mi
    order = np.argsort(key, kind="stable")  # rows are in time order; stable keeps it per series
    key, times = key[order], t["time_s"].to_numpy()[order]
    vals = t[column].to_numpy().astype(np.float64)[order]
    cuts = np.flatnonzero(np.diff(key)) + 1
    out: Series = {}
    for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(key)]):
        k = int(key[lo])
        name = (ents[k // len(mets)], mets[k % len(mets)])
        xs, ys = times[lo:hi], vals[lo:hi]
        if fill and name[1] not in EVENT_METRICS:
            xs, ys = fill_changes(xs, ys, interval)
        out[name] = (xs, ys)
    return out


def _codes(col: "pa.ChunkedArray") -> Tuple[List[str], "np.ndarray"]:
    """A dictionary-encoded column as (its values, each row's code)."""
    if not pa.types.is_dictionary(col.type):
        col = pc.dictionary_encode(col)
    col = col.unify_dictionaries()
    codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False).astype(np.int64) for c in col.chunks])
    return col.chunk(0).dictionary.to_pylist(), codes


def _interval(series: Series) -> Optional[float]:
    steps = [float(np.diff(xs).min()) for xs, _ in series.values() if len(xs) > 1]
    steps = [s for s in steps if s > 0]
    return min(steps) if steps else None


def _busiest(series: Series, metric: str, prefix: str) -> List[Tuple[str, List[float], List[float]]]:
    """The MAX_LINES entities with the largest peak of `metric`, skipping all-zero ones."""
    rows = [(e, xs, ys) for (e, m), (xs, ys) in series.items() if m == metric and e.startswith(prefix) and np.any(ys)]
    rows.sort(key=lambda r: (-float(np.max(r[2])), r[0]))
    return rows[:MAX_LINES]


def _lines(ax, rows, prefix: str) -> None:
    for e, xs, ys in rows:
        ax.plot(xs, ys, label=e[len(prefix):], linewidth=1.0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")


def throughput_figure(series: Series):
    """Per-class throughput (Gb/s) over time: bytes completed per interval."""
    interval = _interval(series)
    per: Dict[str, Dict[float, float]] = {}
    for (ent, met), (xs, ys) in series.items():
        if ent.startswith("class:") and met.endswith("_bytes"):
            d = per.setdefault(ent[6:], {})
            for x, y in zip(xs.tolist(), ys.tolist()):
                d[x] = d.get(x, 0.0) + y
    if not per or not interval:
        return None
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for name, d in sorted(per.items()):
        xs = sorted(d)
        ax.plot(xs, [d[x] * 8 / interval / 1e9 for x in xs], label=name, linewidth=1.2)
    ax.set(xlabel="time (s)", ylabel="throughput (Gb/s)", title="Per-class throughput")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def latency_cdf_figure(run_dir: Path, window: Optional[dict] = None):
    """Per-class CDF of request latency from requests.parquet: the requests that arrived in the
    measurement window, as the summary's percentiles count them."""
    p = Path(run_dir) / "requests.parquet"
    if not p.exists():
        return None
    t = pq.read_table(p, columns=["class", "latency_us", "t_arrive_ps"]).to_pydict()
    lo, hi = (window["start_s"] * 1e12, window["end_s"] * 1e12) if window else (0, float("inf"))
    per: Dict[str, List[float]] = {}
    for c, lat, arr in zip(t["class"], t["latency_us"], t["t_arrive_ps"]):
        if lo <= arr < hi:
            per.setdefault(c, []).append(lat)
    if not per:
        return None
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for name, lats in sorted(per.items()):
        lats.sort()
        n = len(lats)
        # ≤ 2000 points per curve: evenly spaced ranks plus the maximum.
        idx = sorted({min(n - 1, round(i * (n - 1) / 1999)) for i in range(2000)}) if n > 2000 else range(n)
        ax.plot([max(lats[i], 1e-3) for i in idx], [(i + 1) / n for i in idx], label=f"{name} ({n:,})", linewidth=1.2)
    ax.set_xscale("log")
    ax.set(xlabel="latency (µs)", ylabel="fraction of requests", title="Latency CDF per class", ylim=(0, 1.01))
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return fig


def percentile_figure(summary: dict):
    names = [n for n, d in summary["classes"].items() if d["all"]["ios"]]
    if not names:
        return None
    fig, ax = plt.subplots(figsize=(7, 3.2))
    keys = ["p50", "p90", "p99", "p99_9"]
    width = 0.8 / len(keys)
    for i, k in enumerate(keys):
        ax.bar([j + i * width for j in range(len(names))], [summary["classes"][n]["all"]["lat_us"][k] for n in names], width, label=k)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(names))], names)
    ax.set(ylabel="latency (µs)", title="Latency percentiles per class")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    return fig


#: Decomposition stages in path order (summary `decomposition_us`), so the stack reads left to right.
STAGES = ["host_queue", "fwd_network", "target_request_queue", "nvme_queue", "device", "target_response_queue", "back_network", "host_completion"]


def decomposition_figure(summary: dict):
    """Mean latency per class split into the stages of the path (stacked bars)."""
    rows = {n: d["all"].get("decomposition_us") for n, d in summary["classes"].items() if d["all"]["ios"]}
    rows = {n: d for n, d in rows.items() if d}
    if not rows:
        return None
    stages = [s for s in STAGES if any(d.get(s, 0) > 0 for d in rows.values())]
    stages += sorted({k for d in rows.values() for k, v in d.items() if v > 0} - set(stages))
    fig, ax = plt.subplots(figsize=(7, 0.9 + 0.45 * len(rows)))
    names = list(rows)
    left = [0.0] * len(names)
    for s in stages:
        vals = [rows[n].get(s, 0.0) for n in names]
        ax.barh(names, vals, left=left, label=s.replace("_", " "))
        left = [a + b for a, b in zip(left, vals)]
    ax.set(xlabel="mean latency (µs)", title="Latency decomposition per class")
    ax.legend(fontsize=7, ncol=2, loc="best")
    return fig


def ssd_decomposition_figure(summary: dict):
    """Each SSD's service time split into its parts (stacked bars): the mean request and the
    slowest ≈1 %, per op — why the tail is slow."""
    from .display import SSD_PARTS, ssd_rows
    rows = ssd_rows(summary)
    if not rows:
        return None
    labels = [f"{dev} {label}" for dev, label, _, _ in rows]
    fig, ax = plt.subplots(figsize=(7.5, 1.0 + 0.4 * len(rows)))
    left = [0.0] * len(rows)
    for key, name in SSD_PARTS:
        vals = [parts.get(key, 0.0) for _, _, parts, _ in rows]
        if any(v > 0 for v in vals):
            ax.barh(labels, vals, left=left, label=name)
            left = [a + b for a, b in zip(left, vals)]
    ax.invert_yaxis()
    ax.set(xlabel="mean device service time (µs)", title="Inside the SSDs: mean and p99 tail")
    ax.legend(fontsize=7, ncol=3, loc="best")
    return fig


def flow_figure(series: Series, summary: dict):
    """Q factor, congestion window (or rate) and throughput of each flow (per-class means when
    there are more flows than MAX_LINES)."""
    flows = sorted({e for (e, m) in series if e.startswith("flow:")})
    if not flows:
        return None
    cls = {f"flow:{k}": v.get("class", "?") for k, v in (summary.get("network") or {}).get("flows", {}).items()}
    panels = [("q_factor", "Q factor"), ("cwnd_pkts", "cwnd (packets)"), ("rate_gbps", "rate (Gb/s)"), ("throughput_gbps", "throughput (Gb/s)")]
    panels = [(m, lab) for m, lab in panels if any((f, m) in series for f in flows)]
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 2.2 * len(panels)), sharex=True, squeeze=False)
    grouped = len(flows) > MAX_LINES
    keys = sorted({f"class {cls.get(f, '?')} (mean)" if grouped else f[5:] for f in flows})
    colors = {k: f"C{i % 10}" for i, k in enumerate(keys)}  # one colour per line across panels
    for ax, (metric, label) in zip(axes[:, 0], panels):
        lines: Dict[str, Dict[float, List[float]]] = {}
        for f in flows:
            if (f, metric) not in series:
                continue
            key = f"class {cls.get(f, '?')} (mean)" if grouped else f[5:]
            d = lines.setdefault(key, {})
            xs, ys = series[(f, metric)]
            for x, y in zip(xs.tolist(), ys.tolist()):
                d.setdefault(x, []).append(y)
        for key, d in sorted(lines.items()):
            xs = sorted(d)
            ax.plot(xs, [sum(d[x]) / len(d[x]) for x in xs], label=key, color=colors[key], linewidth=1.0)
        ax.set_ylabel(label, fontsize=8)
        # Q starts far from 1 (a flow's first RTTs) and converges to 1: log keeps both in view.
        if metric == "q_factor" and all(y > 0 for d in lines.values() for ys in d.values() for y in ys):
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
    handles = [plt.Line2D([], [], color=colors[k], label=k) for k in keys]
    axes[0, 0].legend(handles=handles, fontsize=7, loc="best")
    axes[0, 0].set_title("Flows")
    axes[-1, 0].set_xlabel("time (s)")
    return fig


def _port_figure(series: Series, metric: str, **labels):
    """The busiest ports' `metric` over time, or None when every port's is zero."""
    rows = _busiest(series, metric, "port:")
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(7, 3.2))
    _lines(ax, rows, "port:")
    ax.set(xlabel="time (s)", **labels)
    return fig


def port_queue_figure(series: Series):
    return _port_figure(series, "queue_kib", ylabel="egress queue (KiB)", title="Switch queue length (busiest ports)")


def pfc_figure(series: Series):
    return _port_figure(series, "paused_frac", ylabel="share of interval paused", title="PFC: time ports spent paused", ylim=(0, 1.02))


def gc_figure(series: Series):
    gc = _busiest(series, "gc_active_planes", "device:")
    if not gc:
        return None
    fig, axes = plt.subplots(2, 1, figsize=(7, 4.4), sharex=True)
    _lines(axes[0], gc, "device:")
    axes[0].set_ylabel("planes in GC", fontsize=8)
    axes[0].set_title("SSD garbage collection")
    fq = [r for r in _busiest(series, "flash_queue", "device:") if any(r[0] == g[0] for g in gc)]
    _lines(axes[1], fq, "device:")
    axes[1].set_ylabel("flash transactions queued", fontsize=8)
    axes[1].set_xlabel("time (s)")
    return fig


#: The sampled metrics the run figures draw (a run's other series are not loaded).
RUN_METRICS = ("q_factor", "cwnd_pkts", "rate_gbps", "throughput_gbps", "queue_kib", "paused_frac", "gc_active_planes", "flash_queue")


def run_figures(run_dir: Path) -> List[Tuple[str, object]]:
    """(file stem, figure) for every figure the run's outputs support."""
    run_dir = Path(run_dir)
    summary = json.loads((run_dir / "summary.json").read_text())
    series = load_series(run_dir, metrics=RUN_METRICS)
    makers: List[Tuple[str, Callable[[], object]]] = [
        ("throughput", lambda: throughput_figure(load_series(run_dir, "sum", metrics=("read_bytes", "write_bytes")))),
        ("latency-cdf", lambda: latency_cdf_figure(run_dir, summary.get("window"))),
        ("latency-percentiles", lambda: percentile_figure(summary)),
        ("latency-decomposition", lambda: decomposition_figure(summary)),
        ("ssd-decomposition", lambda: ssd_decomposition_figure(summary)),
        ("flows", lambda: flow_figure(series, summary)),
        ("switch-queues", lambda: port_queue_figure(series)),
        ("pfc-pauses", lambda: pfc_figure(series)),
        ("ssd-gc", lambda: gc_figure(series)),
    ]
    return [(name, fig) for name, make in makers for fig in [make()] if fig is not None]


# ---- sweeps ---------------------------------------------------------------------------------

#: Throughput is what completed in the window (carried; a sweep from before it was recorded falls
#: back to the arrivals' Gb/s), so an overloaded point does not look flat.
SWEEP_METRICS = [("all.carried_gbps", "throughput carried (Gb/s)"), ("all.lat_mean_us", "mean latency (µs)"), ("all.lat_p99_us", "p99 latency (µs)")]
_SWEEP_FALLBACK = {"all.carried_gbps": "all.bw_gbps"}


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-")


def sweep_figures(table: Dict[str, list]) -> List[Tuple[str, object]]:
    """One figure per swept parameter: each summary figure against it, a line per class (and per
    value of the other parameters), mean over seeds with a 95 % confidence band."""
    params = [k for k in table if k.startswith("param.")]
    n = len(table.get("run_id", []))
    classes = sorted({k.split(".")[0] for k in table if k.endswith(".all.ios")}, key=str)
    classes = [c for c in classes if any(table[f"{c}.all.ios"])]
    figs = []
    for axis in params:
        others = [p for p in params if p != axis]
        xs_order: List[str] = []
        for v in table[axis]:
            if v not in xs_order:
                xs_order.append(v)
        values = [json.loads(v) for v in xs_order]
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
        pos = {v: (values[i] if numeric else i) for i, v in enumerate(xs_order)}
        fig, axes = plt.subplots(1, len(SWEEP_METRICS), figsize=(4.6 * len(SWEEP_METRICS), 3.4), squeeze=False)
        styles = ["-", "--", ":", "-."]
        for ax, (metric, label) in zip(axes[0], SWEEP_METRICS):
            for ci, c in enumerate(classes):
                col = table.get(f"{c}.{metric}")
                if col is None and metric in _SWEEP_FALLBACK:
                    col = table.get(f"{c}.{_SWEEP_FALLBACK[metric]}")
                if col is None:
                    continue
                groups: Dict[Tuple, Dict[str, List[float]]] = {}
                for i in range(n):
                    key = tuple(table[o][i] for o in others)
                    groups.setdefault(key, {}).setdefault(table[axis][i], []).append(col[i])
                # A colour per class, a line style per value of the other parameters.
                for gi, (key, by_x) in enumerate(groups.items()):
                    xs = [x for x in xs_order if x in by_x]
                    stats = [mean_ci(by_x[x]) for x in xs]
                    px = [pos[x] for x in xs]
                    name = c + "".join(f", {o[6:]}={json.loads(k)}" for o, k in zip(others, key))
                    color = f"C{ci % 10}"
                    ax.plot(px, [m for m, _ in stats], styles[gi % len(styles)], color=color, marker="o", markersize=3, linewidth=1.2, label=name)
                    ax.fill_between(px, [m - h for m, h in stats], [m + h for m, h in stats], color=color, alpha=0.15)
            ax.set_ylabel(label)
            if "lat" in metric:
                ax.set_yscale("log")
            ax.set_xlabel(axis[6:])
            if not numeric:
                ax.set_xticks(range(len(xs_order)), [str(v) for v in values])
            elif len(values) <= 10:
                ax.set_xticks(sorted(values))
            ax.grid(alpha=0.3)
        seeds = len(set(table["seed"]))
        fig.suptitle(f"against {axis[6:]}: mean over {seeds} seed(s), 95 % CI", fontsize=10)
        fig.tight_layout()
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(4, max(1, len(labels))))
        figs.append((f"sweep-{_slug(axis[6:])}", fig))
    return figs


# ---- writing --------------------------------------------------------------------------------

def save(fig, out_dir: Path, stem: str) -> List[Path]:
    """Writes `stem`.png, `stem`.svg and `stem`.pdf (for papers; each via a temporary name, so no
    half-written file) and closes the figure."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("png", "svg", "pdf"):
        path = out_dir / f"{stem}.{ext}"
        tmp = out_dir / f".{stem}.partial.{ext}"
        fig.savefig(tmp, dpi=110, bbox_inches="tight")
        tmp.replace(path)
        paths.append(path)
    plt.close(fig)
    return paths


def run_dirs(root: Path) -> List[Path]:
    """The run directories under `root`: itself when it is one, and its subdirectories that are."""
    dirs = [root] if (root / "summary.json").exists() else []
    dirs += sorted(p.parent for p in root.glob("*/summary.json"))
    return dirs


def write_sweep_plots(sweep_dir: Path) -> List[Path]:
    table = pq.read_table(Path(sweep_dir) / "sweep.parquet").to_pydict()
    return [p for stem, fig in sweep_figures(table) for p in save(fig, Path(sweep_dir) / "plots", stem)]


def write_plots(root: Path) -> List[Path]:
    """Plots for a run directory, a sweep directory, or each run of an experiment directory."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a directory")
    written: List[Path] = []
    if (root / "sweep.parquet").exists():
        written += write_sweep_plots(root)
    for d in run_dirs(root):
        for stem, fig in run_figures(d):
            written += save(fig, d / "plots", stem)
    if not written and not (root / "sweep.parquet").exists() and not run_dirs(root):
        from .parquet_stream import unfinished
        raise FileNotFoundError(f"{root}: no summary.json or sweep.parquet found (is this a run directory?){unfinished(root)}")
    return written
