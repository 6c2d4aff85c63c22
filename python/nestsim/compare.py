"""Runs side by side (`nestsim compare A B [C …]`, `nestsim.compare(...)`): the question NeSt
exists to answer — "what changes if I turn X on here?".

Each run is a directory `nestsim run` wrote. The first is the baseline that the others are
compared against. For each class (priority order) and operation, the comparison gives n,
throughput and latency mean/p50/p99/p99.9, and each run's change from the baseline. It also
lists the scenario keys whose values differ between the runs (the `config` each summary
records, overrides included): the differences that explain the deltas.

The headline says in one line what happened to the most and least important classes, e.g.
"high: p99 2.66 ms with QoS vs 4.78 ms with no QoS (−44 %); low pays: …".

A run may also be a directory of several runs of one configuration that differ only in their
seed: immediate subdirectories holding a `summary.json`, or a sweep's `runs/*`. Each metric is
then the mean over the seeds with its 95 % confidence interval (Student's t), and a change from
the baseline says whether it is significant (Welch's t test, 95 %) or within the seeds' noise —
one seed per side can show a difference, not that it is real. A directory whose runs differ in
anything but the seed is refused, naming the key.

`write(cmp, out_dir)` writes `compare.json`, the figure `compare-cdf` (each class's latency CDF,
the runs overlaid, measured window only, seeds pooled) and `compare.html`.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .stats import mean_ci, paired_significant, welch_significant

#: Classes in priority order (other names follow, alphabetically).
CLASS_ORDER = ["urgent", "high", "medium", "low", "best_effort"]
OPS = ["all", "read", "write"]
#: (label, summary key under `lat_us`, or a key of the op's own table)
METRICS = [("n", "ios"), ("Gb/s", "carried_gbps"), ("mean µs", "mean"), ("p50 µs", "p50"), ("p99 µs", "p99"), ("p99.9 µs", "p99_9")]
#: The parts of a request's latency along the path (summary `decomposition_us`; they add up to
#: the mean), with the layer each belongs to.
LAYERS = [("host_queue", "host queue"), ("fwd_network", "network (to target)"), ("target_request_queue", "target queue"),
          ("nvme_queue", "NVMe queue"), ("device", "device"), ("target_response_queue", "target response"),
          ("back_network", "network (back)"), ("host_completion", "host completion")]


@dataclass
class Comparison:
    labels: List[str]
    dirs: List[str]
    #: One row per (class, op, metric): values per run (the mean over its seeds), change from the
    #: baseline (None for it), and with several seeds the 95 % CI half-widths (`ci95`) and
    #: whether each change is significant (`significant`: None where a side has one seed).
    rows: List[Dict[str, Any]] = field(default_factory=list)
    #: Seeds behind each run (1 for a single run directory).
    seeds: List[int] = field(default_factory=list)
    #: The run directories behind each run (one, or its seeds').
    members: List[List[str]] = field(default_factory=list)
    #: Scenario keys whose values differ: {key: [value per run]}.
    config_diff: Dict[str, List[Any]] = field(default_factory=dict)
    #: Per class: each run's mean latency split by layer (`LAYERS`, µs; mean over seeds), so a
    #: change in the mean can be traced to the layer it comes from.
    layers: Dict[str, List[Optional[Dict[str, float]]]] = field(default_factory=dict)
    headline: str = ""

    def to_dict(self) -> dict:
        return {"schema": 1, "labels": self.labels, "dirs": self.dirs, "seeds": self.seeds, "headline": self.headline,
                "config_diff": self.config_diff, "rows": self.rows, "layers": self.layers}

    def where(self, run: int = -1) -> List[Tuple[str, float, float, List[Tuple[str, float]]]]:
        """Per class: (class, baseline mean, this run's mean, [(layer, change µs)] largest first,
        the layers that moved by at least 1 % of the larger mean)."""
        out = []
        for c, per_run in self.layers.items():
            a, b = per_run[0], per_run[run]
            if not a or not b:
                continue
            ma, mb = sum(a.values()), sum(b.values())
            moved = [(label, b[k] - a[k]) for k, label in LAYERS if k in a and k in b]
            moved = sorted((m for m in moved if abs(m[1]) >= 0.01 * max(ma, mb, 1e-9)), key=lambda m: -abs(m[1]))
            out.append((c, ma, mb, moved))
        return out

    def render(self) -> str:
        """The terminal table: one line per class and operation, each metric's values across the
        runs ("a → b"), and the last run's change from the baseline."""
        lines = [self.headline, ""]
        if self.config_diff:
            lines.append("what differs:")
            for k, vals in self.config_diff.items():
                lines.append(f"  {k}: " + " | ".join(f"{lab} = {_short(v)}" for lab, v in zip(self.labels, vals)))
            lines.append("")
        where = self.where()
        if where:
            lines.append(f"where each class's mean latency changed ({self.labels[-1]} against {self.labels[0]}; the layers of its path, µs):")
            for c, ma, mb, moved in where:
                parts = ", ".join(f"{label} {d:+,.0f}" for label, d in moved) or "no layer moved by 1 %"
                lines.append(f"  {c}: {ma:,.0f} → {mb:,.0f} µs: {parts}")
            lines.append("")
        lines.append("runs: " + " → ".join(lab + (f" ({n} seeds)" if n > 1 else "") for lab, n in zip(self.labels, self.seeds or [1] * len(self.labels))))
        if any(n > 1 for n in self.seeds):
            lines.append("values: mean ± 95 % CI over the seeds; * the change is significant at 95 % (paired by seed where the runs "
                         "share their seeds, else Welch); otherwise how many seeds move the way the mean does (3/3 …), or (noise)")
        by: Dict[tuple, Dict[str, Dict[str, Any]]] = {}
        for r in self.rows:
            by.setdefault((r["class"], r["op"]), {})[r["metric"]] = r
        names = [m for m, _ in METRICS]
        cells = [["class", "op"] + names]
        for (c, op), ms in by.items():
            row = [c, op]
            for m in names:
                r = ms.get(m)
                if r is None:
                    row.append("")
                    continue
                cis = r.get("ci95") or [None] * len(r["values"])
                txt = " → ".join("—" if v is None else _num(v) + (f"±{_num(h)}" if h else "") for v, h in zip(r["values"], cis))
                d = r["change"][-1]
                if d is not None and m != "n":
                    txt += f" {d:+.0%}"
                    sig = (r.get("significant") or [None])[-1]
                    agree = (r.get("seeds_agree") or [None])[-1]
                    if sig is not None:
                        n_agree, n = map(int, agree.split("/")) if agree else (0, 0)
                        txt += "*" if sig else f" ({agree} seeds)" if n and n_agree == n else " (noise)"
                row.append(txt)
            cells.append(row)
        widths = [max(len(r[k]) for r in cells) for k in range(len(cells[0]))]
        for i, r in enumerate(cells):
            lines.append("  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip())
            if i == 0:
                lines.append("-" * (sum(widths) + 2 * (len(widths) - 1)))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Comparison({', '.join(self.labels)}: {self.headline})"


def _num(v: float) -> str:
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.3g}"


def _short(v: Any) -> str:
    if v is None:
        return "(default)"
    s = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v
    return s if len(s) <= 60 else s[:57] + "..."


def _ordered(classes: Sequence[str]) -> List[str]:
    known = [c for c in CLASS_ORDER if c in classes]
    return known + sorted(c for c in classes if c not in CLASS_ORDER)


def _flatten(v: Any, prefix: str = "", out: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    out = {} if out is None else out
    if isinstance(v, dict):
        for k, x in v.items():
            _flatten(x, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        for i, x in enumerate(v):
            name = x.get("name") if isinstance(x.get("name"), str) else str(i)
            _flatten(x, f"{prefix}[{name}]", out)
    else:
        out[prefix] = v
    return out


def _metric(op_table: dict, key: str) -> Optional[float]:
    if key == "carried_gbps" and key not in op_table:
        key = "bw_gbps"  # a run from before the carried rate was recorded
    if key in ("ios", "bw_gbps", "carried_gbps"):
        v = op_table.get(key)
    else:
        v = (op_table.get("lat_us") or {}).get(key)
    return None if v is None else float(v)


def compare(runs: Sequence, labels: Optional[Sequence[str]] = None) -> Comparison:
    """Compares run directories (or their summary dicts); the first is the baseline."""
    if len(runs) < 2:
        raise ValueError("compare needs at least two runs")
    groups: List[List[dict]] = []
    dirs, members = [], []
    for r in runs:
        if isinstance(r, dict):
            groups.append([r])
            dirs.append("")
            members.append([])
            continue
        found = _group(Path(r))
        groups.append([s for s, _ in found])
        dirs.append(str(r))
        members.append([d for _, d in found])
    labels = list(labels) if labels else [Path(d).name or f"run{k}" for k, d in enumerate(dirs)]
    if len(labels) != len(groups):
        raise ValueError(f"{len(labels)} labels for {len(groups)} runs")
    cmp = Comparison(labels, dirs, seeds=[len(g) for g in groups], members=members)
    summaries = [g[0] for g in groups]

    flat = [_unseeded(_flatten(s.get("config", {}))) for s in summaries]
    for k in sorted(set().union(*flat)):
        vals = [f.get(k) for f in flat]
        if any(v != vals[0] for v in vals[1:]):
            cmp.config_diff[k] = vals

    classes = _ordered(sorted(set().union(*(s.get("classes", {}) for s in summaries))))
    for c in classes:
        for op in OPS:
            tables = [[s.get("classes", {}).get(c, {}).get(op) for s in g] for g in groups]
            if not any(t and t.get("ios") for g in tables for t in g):
                continue
            for label, key in METRICS:
                # Per run, {seed: value}: runs that share seeds are compared seed by seed.
                by_seed = [{s.get("seed"): x for s, x in ((s, None if not t else _metric(t, key)) for s, t in zip(g, tg))
                            if x is not None} for g, tg in zip(groups, tables)]
                samples = [list(b.values()) for b in by_seed]
                stats = [mean_ci(xs) if xs else (None, None) for xs in samples]
                vals = [m for m, _ in stats]
                base = vals[0]
                change = [None] + [None if v is None or not base else v / base - 1 for v in vals[1:]]
                row = {"class": c, "op": op, "metric": label, "values": vals, "change": change}
                if any(len(xs) > 1 for xs in samples):
                    # Four significant digits: compare.json's CIs are read, not recomputed.
                    row["ci95"] = [None if h is None else float(f"{h:.4g}") for _, h in stats]
                    sig, test, agree = [None], [None], [None]
                    for b in by_seed[1:]:
                        common = sorted(set(by_seed[0]) & set(b), key=str)
                        if len(common) >= 2 and len(common) == len(b) == len(by_seed[0]):
                            x, y = [by_seed[0][k] for k in common], [b[k] for k in common]
                            sig.append(paired_significant(x, y))
                            test.append("paired")
                            # How many seeds move the same way as the mean does.
                            sign = (sum(y) > sum(x)) - (sum(y) < sum(x))
                            agree.append(f"{sum(1 for u, v in zip(x, y) if ((v > u) - (v < u)) == sign and sign)}/{len(common)}")
                        else:
                            sig.append(welch_significant(samples[0], list(b.values())))
                            test.append("welch")
                            agree.append(None)
                    row["significant"], row["test"], row["seeds_agree"] = sig, test, agree
                cmp.rows.append(row)
    for c in classes:
        per_run = []
        for g in groups:
            parts = [s.get("classes", {}).get(c, {}).get("all", {}).get("decomposition_us") for s in g]
            parts = [p for p in parts if p]
            per_run.append({k: sum(p.get(k, 0.0) for p in parts) / len(parts) for k, _ in LAYERS} if parts else None)
        if any(per_run):
            cmp.layers[c] = per_run
    cmp.headline = _headline(cmp, classes)
    return cmp


def _group(p: Path) -> List[Tuple[dict, str]]:
    """The run behind `p`: its own summary, or the summaries of the runs in it (immediate
    subdirectories, or a sweep's `runs/*`), which must differ only in their seed."""
    if p.is_file() or (p / "summary.json").is_file():
        f = p if p.is_file() else p / "summary.json"
        s = json.loads(f.read_text())
        if s.get("kind") == "haechi":
            raise ValueError(f"{p}: a Haechi run (per-period results; docs/haechi.md) — compare reads the runs of World "
                             "scenarios; the haechi-* experiments compare Haechi with the bare system and Basic Haechi")
        return [(s, str(p))]
    subs = sorted(d for base in (p, p / "runs") if base.is_dir() for d in base.iterdir() if (d / "summary.json").is_file())
    if not subs:
        raise FileNotFoundError(f"{p}: no summary.json, nor runs holding one (expected a directory `nestsim run` wrote, "
                                "or a directory of such runs, one per seed)")
    found = [(json.loads((d / "summary.json").read_text()), str(d)) for d in subs]
    first = _unseeded(_flatten(found[0][0].get("config", {})))
    for s, d in found[1:]:
        other = _unseeded(_flatten(s.get("config", {})))
        diff = sorted(k for k in set(first) | set(other) if first.get(k) != other.get(k))
        if diff:
            raise ValueError(f"{p}: its runs differ in more than the seed ({d}: {', '.join(diff[:3])}); "
                             "compare the runs of one configuration, or each run on its own")
    return found


def _unseeded(flat: Dict[str, Any]) -> Dict[str, Any]:
    """A flattened config without its seed (seeds are what a run's replicates differ in)."""
    return {k: v for k, v in flat.items() if k not in ("run.seed", "seed")}


def _p99(cmp: Comparison, c: str) -> Optional[List[Optional[float]]]:
    for r in cmp.rows:
        if r["class"] == c and r["op"] == "all" and r["metric"] == "p99 µs":
            return r["values"]
    return None


def _us(v: Optional[float]) -> str:
    if v is None:
        return "—"
    return f"{v / 1000:.3g} ms" if v >= 1000 else f"{v:.3g} µs"


def _headline(cmp: Comparison, classes: List[str]) -> str:
    """The most important non-urgent class's p99 in the second run against the baseline, and what
    the least important class pays (urgent traffic has its own line when present)."""
    ranked = [c for c in classes if c != "urgent" and _p99(cmp, c)]
    if not ranked:
        return "no class completed requests in every run"
    a, b = cmp.labels[1], cmp.labels[0]

    def part(c: str, pays: bool = False) -> str:
        v = _p99(cmp, c)
        head = f"{c}{' pays' if pays else ''}: p99 {_us(v[1])} with {a} vs {_us(v[0])} with {b}"
        return head if v[0] is None or v[1] is None or not v[0] else f"{head} ({v[1] / v[0] - 1:+.0%})"

    out = part(ranked[0])
    if len(ranked) > 1:
        out += "; " + part(ranked[-1], pays=True)
    if any(n > 1 for n in cmp.seeds):
        row = next((r for r in cmp.rows if r["class"] == ranked[0] and r["op"] == "all" and r["metric"] == "p99 µs"), {})
        sig = (row.get("significant") or [None, None])[1]
        agree = (row.get("seeds_agree") or [None, None])[1]
        n_agree, n = map(int, agree.split("/")) if agree else (0, 0)
        seeds = " / ".join(str(k) for k in cmp.seeds[:2])
        out += (f" [{seeds} seeds; {ranked[0]}'s p99 change is " +
                ("significant at 95 %]" if sig else
                 f"not significant at 95 % with {n} seeds, though every seed moves the same way ({agree})]" if sig is False and n and n_agree == n
                 else "within the seeds' noise]" if sig is False else "untested: one seed on a side]"))
    return out


def _cdf_figure(cmp: Comparison, out_dir: Path) -> Optional[str]:
    """Each class's latency CDF with the runs overlaid (the measured window only)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    import numpy as np
    import pyarrow.parquet as pq

    data = []  # per run: {class: sorted latencies of its measured requests, seeds pooled}
    for run_dirs in cmp.members or [[d] for d in cmp.dirs]:
        files = [Path(d) / "requests.parquet" for d in run_dirs]
        if not files or not all(f.exists() for f in files):
            return None
        cls_parts, lat_parts = [], []
        for f in files:
            t = pq.read_table(str(f), columns=["class", "latency_us", "in_window"])
            t = t.filter(t["in_window"])
            cls_parts.append(np.asarray(t["class"].to_numpy(zero_copy_only=False), dtype=object))
            lat_parts.append(t["latency_us"].to_numpy())
        cls, lat = np.concatenate(cls_parts), np.concatenate(lat_parts)
        data.append({c: np.sort(lat[cls == c]) for c in set(cls)})
    classes = _ordered(sorted({c for per_class in data for c in per_class}))
    if not classes:
        return None
    # Two panels a row at most: four classes side by side were 1,584 px wide, the last cut off
    # on a laptop's page (issue 62, finding 10).
    cols = min(2, len(classes))
    nrows = -(-len(classes) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(3.6 * cols, 3.0 * nrows), squeeze=False)
    for ax in axes.flat[len(classes):]:
        ax.set_visible(False)
    for ax, c in zip(axes.flat, classes):
        for label, per_class in zip(cmp.labels, data):
            v = per_class.get(c, np.empty(0))
            if len(v):
                ax.plot(v, np.arange(1, len(v) + 1) / len(v), label=f"{label} (n={len(v)})")
        ax.set_xscale("log")
        lo, hi = ax.get_xlim()
        # Within one decade a log axis has no major tick: label the minor ones then.
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter() if hi / max(lo, 1e-12) >= 10 else matplotlib.ticker.FormatStrFormatter("%g"))
        ax.set_title(c, fontsize=10)
        ax.set_xlabel("latency (µs)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for row in axes:
        row[0].set_ylabel("CDF")
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(out_dir / f"compare-cdf.{ext}", dpi=110)
    plt.close(fig)
    return "compare-cdf.png"


def _per_class_table(cmp: Comparison) -> str:
    """One row per class and op, a column per metric, each cell the runs' values in order with
    the last run's change (a row per metric was ~60 rows for the demo; issue 62, finding 10)."""
    e = html.escape
    metrics: List[str] = []
    cells: Dict[tuple, Dict[str, str]] = {}
    for r in cmp.rows:
        if r["metric"] not in metrics:
            metrics.append(r["metric"])
        cis = r.get("ci95") or [None] * len(r["values"])
        sigs = r.get("significant") or [None] * len(r["values"])
        shown = " → ".join("—" if v is None else _num(v) + (f" ± {_num(h)}" if h else "") for v, h in zip(r["values"], cis))
        d, sig = r["change"][-1], sigs[-1]
        css = ""
        if d is not None:
            # Lower latency is better, higher throughput is better.
            good = d < 0 if "µs" in r["metric"] else d > 0
            css = "" if abs(d) < 0.02 or r["metric"] == "n" or sig is False else (" class='better'" if good else " class='worse'")
            shown += f" <small>({d:+.0%}{'' if sig is None else ', significant' if sig else ', noise'})</small>"
        cells.setdefault((r["class"], r["op"]), {})[r["metric"]] = f"<td{css}>{shown}</td>"
    head = "".join(f"<th>{e(m)}</th>" for m in metrics)
    rows = "".join(f"<tr><td>{e(c)}</td><td>{e(op)}</td>" + "".join(v.get(m, "<td></td>") for m in metrics) + "</tr>"
                   for (c, op), v in cells.items())
    return (f"<h2>Per class</h2><p>{e(' → '.join(cmp.labels))}; in brackets the change of the last against the first.</p>"
            f"<table><tr><th>class</th><th>op</th>{head}</tr>{rows}</table>")


def write(cmp: Comparison, out_dir) -> Path:
    """compare.json, compare-cdf.png/.svg and compare.html in `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "compare.json").write_text(json.dumps(cmp.to_dict(), indent=2, ensure_ascii=False) + "\n")
    fig = _cdf_figure(cmp, out)
    e = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>NeSt comparison</title>",
             "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;text-align:right}"
             "td:nth-child(-n+2),th:nth-child(-n+2){text-align:left}.better{color:#070}.worse{color:#a00}img{max-width:100%}"
             "td small{color:#555}</style></head><body>",
             f"<h1>{e(' vs '.join(cmp.labels))}</h1><p><b>{e(cmp.headline)}</b></p>"]
    parts.append("<h2>Runs</h2><ul>" + "".join(f"<li>{e(lab)}: <code>{e(d)}</code>{f' ({n} seeds: mean ± 95 % CI)' if n > 1 else ''}</li>"
                                               for lab, d, n in zip(cmp.labels, cmp.dirs, cmp.seeds or [1] * len(cmp.labels))) + "</ul>")
    if cmp.config_diff:
        parts.append("<h2>What differs</h2><table><tr><th>key</th>" + "".join(f"<th>{e(lab)}</th>" for lab in cmp.labels) + "</tr>")
        for k, vals in cmp.config_diff.items():
            parts.append(f"<tr><td>{e(k)}</td>" + "".join(f"<td>{e(_short(v))}</td>" for v in vals) + "</tr>")
        parts.append("</table>")
    where = cmp.where()
    if where:
        parts.append(f"<h2>Where the latency changed</h2><p>Each class's mean latency split by the layers of its path "
                     f"(µs), {e(cmp.labels[0])} → {e(cmp.labels[-1])}: the layers that moved by at least 1 %, largest first.</p>"
                     "<table><tr><th>class</th><th>mean</th><th>layers</th></tr>")
        for c, ma, mb, moved in where:
            txt = ", ".join(f"{label} {d:+,.0f}" for label, d in moved) or "no layer moved by 1 %"
            parts.append(f"<tr><td>{e(c)}</td><td>{ma:,.0f} → {mb:,.0f}</td><td style='text-align:left'>{e(txt)}</td></tr>")
        parts.append("</table>")
    if fig:
        parts.append(f"<h2>Latency CDFs</h2><img src='{fig}' alt='latency CDFs per class'>")
    parts.append(_per_class_table(cmp))
    from .page_check import SELF_CHECK

    parts.append(SELF_CHECK + "</body></html>")
    (out / "compare.html").write_text("\n".join(parts))
    return out / "compare.html"


__all__ = ["Comparison", "compare", "write", "CLASS_ORDER"]
