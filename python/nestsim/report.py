"""`nestsim report DIR`: a self-contained ``report.html`` for a run directory (or an experiment
directory holding ``claims.json`` and run sub-directories): summary tables, the claims with
✓/✗, per-class throughput over time and latency percentiles as embedded SVG, the scenario and
the run's wall time and events/s. Plots use matplotlib's Agg backend (no display needed)."""

from __future__ import annotations

import html
import io
import json
from pathlib import Path
from typing import List, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.find("<svg"):]


def throughput_figure(run_dir: Path):
    """Per-class throughput (Gb/s) over time from timeseries.parquet, or None."""
    p = run_dir / "timeseries.parquet"
    if not p.exists():
        return None
    t = pq.read_table(p).to_pydict()
    interval = None
    series = {}
    for ts, ent, met, s in zip(t["time_s"], t["entity"], t["metric"], t["sum"]):
        if ent.startswith("class:") and met.endswith("_bytes"):
            series.setdefault(ent[6:], {}).setdefault(ts, 0.0)
            series[ent[6:]][ts] += s
    times = sorted({ts for d in series.values() for ts in d})
    if len(times) < 2:
        return None
    interval = min(b - a for a, b in zip(times, times[1:]) if b > a)
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for name, d in sorted(series.items()):
        xs = sorted(d)
        ax.plot(xs, [d[x] * 8 / interval / 1e9 for x in xs], label=name, linewidth=1.2)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput (Gb/s)")
    ax.set_title("Per-class throughput")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
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
    ax.set_ylabel("latency (µs)")
    ax.set_yscale("log")
    ax.set_title("Latency percentiles per class")
    ax.legend(fontsize=8)
    return fig


def _table(summary: dict, key: str) -> str:
    rows = []
    for name, d in summary[key].items():
        for op in ("read", "write"):
            x = d[op]
            if not x["ios"]:
                continue
            lat = x["lat_us"]
            rows.append(f"<tr><td>{html.escape(name)}</td><td>{op}</td><td>{x['ios']:,}</td><td>{x['iops']:,.0f}</td>"
                        f"<td>{x['bw_gbps']:.3f}</td><td>{lat['mean']:.1f}</td><td>{lat['p50']:.1f}</td><td>{lat['p99']:.1f}</td><td>{lat['p99_9']:.1f}</td></tr>")
    head = "<tr><th>name</th><th>op</th><th>ios</th><th>IOPS</th><th>Gb/s</th><th>mean µs</th><th>p50 µs</th><th>p99 µs</th><th>p99.9 µs</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def _claims_html(doc: dict) -> str:
    rows = []
    for c in doc["claims"]:
        mark = {True: "✓", False: "✗", None: "–"}[c["holds"]]
        cls = {True: "ok", False: "bad", None: "na"}[c["holds"]]
        rows.append(f"<tr class='{cls}'><td>{mark}</td><td>{html.escape(c['id'])}</td><td>{html.escape(c['claim'])}</td>"
                    f"<td>{html.escape(str(c['expected']))}</td><td>{html.escape(str(c['measured']))}</td><td>{html.escape(c['source'])}</td></tr>")
    return ("<table><tr><th></th><th>id</th><th>claim</th><th>expected</th><th>measured</th><th>source</th></tr>"
            + "".join(rows) + "</table>")


def _run_section(run_dir: Path, title: str) -> str:
    summary = json.loads((run_dir / "summary.json").read_text())
    run_info = json.loads((run_dir / "run.json").read_text()) if (run_dir / "run.json").exists() else {}
    parts = [f"<h2>{html.escape(title)}</h2>"]
    req = summary["requests"]
    parts.append(f"<p>simulated {summary['sim_time_s']:.6g} s, {summary['events']:,} events; requests issued {req['issued']:,}, "
                 f"completed {req['completed']:,}, in flight {req['in_flight']:,}; conservation: {html.escape(str(summary['conservation']))}.")
    if run_info:
        eps = run_info.get("events_per_cpu_s") or 0
        parts.append(f" Wall {run_info['wall_s']:.2f} s, CPU {run_info['cpu_s']:.2f} s, {eps / 1e6:.2f} M events per CPU second.")
    parts.append("</p>")
    for key in ("classes", "workloads", "devices"):
        parts.append(f"<h3>per {key[:-1]}</h3>{_table(summary, key)}")
    for fig in (throughput_figure(run_dir), percentile_figure(summary)):
        if fig is not None:
            parts.append(f"<div class='fig'>{_svg(fig)}</div>")
    parts.append(f"<details><summary>scenario</summary><pre>{html.escape(json.dumps(summary.get('config', {}), indent=2))}</pre></details>")
    return "".join(parts)


CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:right}
td:first-child,th:first-child{text-align:left}tr.ok td:first-child{color:#080}tr.bad td:first-child{color:#b00}
.fig svg{max-width:100%;height:auto}pre{background:#f6f6f6;padding:1em;overflow:auto;font-size:12px}"""


def run_dirs(root: Path) -> List[Path]:
    dirs = [root] if (root / "summary.json").exists() else []
    dirs += sorted(p.parent for p in root.glob("*/summary.json"))
    return dirs


def write_report(root: Path, out: Optional[Path] = None) -> Path:
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a directory")
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>NeSt report: {html.escape(root.name)}</title>"
             f"<style>{CSS}</style></head><body><h1>NeSt report: {html.escape(root.name)}</h1>"]
    if (root / "claims.json").exists():
        doc = json.loads((root / "claims.json").read_text())
        parts.append(f"<h2>claims of experiment {html.escape(doc['experiment'])}</h2>{_claims_html(doc)}")
    dirs = run_dirs(root)
    if not dirs and not (root / "claims.json").exists():
        raise FileNotFoundError(f"{root}: no summary.json or claims.json found (is this a run directory?)")
    for d in dirs:
        parts.append(_run_section(d, d.name if d != root else "run"))
    parts.append("</body></html>")
    path = out or root / "report.html"
    tmp = path.with_name(path.name + ".partial")
    tmp.write_text("".join(parts), encoding="utf-8")
    tmp.replace(path)
    return path
