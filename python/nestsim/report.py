"""`nestsim report DIR`: a self-contained ``report.html`` for a run directory, an experiment
directory (``claims.json`` and run sub-directories) or a sweep directory (``sweep.parquet``):
the claims with ✓/✗ and the experiment's own figures (embedded PNG), summary tables, the figures
of `plots.py` as embedded SVG, the scenario, and the run's wall time and events/s.

The page checks itself once loaded: ``<body data-render-check="figures=N images=M broken=K width=W">``
counts figures drawn with no size and images that did not decode, and the page's width in pixels
(wider than the window: a reader scrolls sideways), so a headless browser can tell a report that
renders from one that does not (tests/test_report_browser.py)."""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path
from typing import List, Optional

import pyarrow.parquet as pq

from . import plots
from .page_check import SELF_CHECK
from .plots import plt, run_dirs


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.find("<svg"):]


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return (f"<figure><img alt='{html.escape(path.stem)}' src='data:image/png;base64,{data}'>"
            f"<figcaption>{html.escape(path.name)}</figcaption></figure>")


def _ordered(summary: dict, key: str) -> list:
    """Classes in priority order (urgent first), as the terminal summary lists them; other
    tables by name."""
    from .display import by_priority

    return by_priority(summary[key]) if key == "classes" else list(summary[key].items())


def _table(summary: dict, key: str) -> str:
    rows = []
    for name, d in _ordered(summary, key):
        for op in ("read", "write"):
            x = d[op]
            if not x["ios"]:
                continue
            lat = x["lat_us"]
            rows.append(f"<tr><td>{html.escape(name)}</td><td>{op}</td><td>{x['ios']:,}</td><td>{x.get('carried_iops', x['iops']):,.0f}</td>"
                        f"<td>{x.get('carried_gbps', x['bw_gbps']):.3f}</td><td>{lat['mean']:.1f}</td><td>{lat['p50']:.1f}</td><td>{lat['p99']:.1f}</td><td>{lat['p99_9']:.1f}</td></tr>")
    if not rows:
        return ""  # (a network-only run has no request: no empty table)
    head = "<tr><th>name</th><th>op</th><th>ios</th><th title='completed in the window'>IOPS carried</th><th title='completed in the window'>Gb/s carried</th><th>mean µs</th><th>p50 µs</th><th>p99 µs</th><th>p99.9 µs</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def _decomposition_table(summary: dict) -> str:
    """Per class and op, the mean µs in each part of the path (they add up to the mean)."""
    from .display import PARTS

    rows = []
    for name, d in _ordered(summary, "classes"):
        for op in ("read", "write"):
            a = d[op]
            if a["ios"] and a.get("decomposition_us"):
                rows.append(f"<tr><td>{html.escape(name)} {op}</td>" + "".join(f"<td>{a['decomposition_us'][k]:.2f}</td>" for k, _ in PARTS)
                            + f"<td>{a['lat_us']['mean']:.2f}</td></tr>")
    if not rows:
        return ""
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label in PARTS)
    return ("<h3>latency decomposition per class</h3><p>Mean µs per part of the path; the parts add up to the mean.</p>"
            f"<table><tr><th></th>{head}<th>= mean</th></tr>{''.join(rows)}</table>")


def _network_table(summary: dict) -> str:
    """Per flow: transport, class, endpoints, throughput, RTT, congestion signals, completion."""
    flows = summary.get("network", {}).get("flows") or {}
    if not flows:
        return ""
    cell = lambda v, f: "" if v is None else format(v, f)  # noqa: E731
    rows = "".join(
        f"<tr><td>{html.escape(n)}</td><td>{html.escape(str(f.get('transport')))}</td><td>{html.escape(str(f.get('class')))}</td>"
        f"<td>{html.escape(str(f.get('src')))}→{html.escape(str(f.get('dst')))}</td><td>{cell(f.get('throughput_gbps'), '.3f')}</td>"
        f"<td>{cell(f.get('mean_rtt_us'), '.1f')}</td><td>{f.get('cuts', 0):,}</td><td>{f.get('timeouts', 0):,}</td>"
        f"<td>{cell(f.get('fct_us'), ',.1f')}</td></tr>" for n, f in sorted(flows.items()))
    net = summary["network"]
    pk = net.get("packets", {})
    return (f"<h3>network</h3><p>{net.get('hosts', '?')} hosts; packets injected {pk.get('injected', 0):,}, dropped "
            f"{pk.get('dropped', 0):,}; {'lossless (PFC)' if net.get('lossless') else 'lossy'}.</p>"
            "<table><tr><th>flow</th><th>transport</th><th>class</th><th>path</th><th>Gb/s</th><th>RTT µs</th><th>cuts</th>"
            f"<th>timeouts</th><th>FCT µs</th></tr>{rows}</table>")


def to_toml(d: dict) -> str:
    """A scenario (summary.json's `config`) as TOML, as a user would write it: each table's plain
    keys first (flat tables inline), then its sub-tables and arrays of tables. Reading it back
    gives the same document (tested)."""
    import json as _json

    def key(k: str) -> str:
        return k if k and k.replace("_", "").replace("-", "").isalnum() else _json.dumps(k)

    def value(v) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return repr(v) if v == v and abs(v) != float("inf") else ("nan" if v != v else ("inf" if v > 0 else "-inf"))
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }"
        return _json.dumps(str(v), ensure_ascii=False)

    def is_array_of_tables(v) -> bool:
        return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)

    def table(t: dict, path: str, out: list, top: bool) -> None:
        # At the top every table gets a header ([run]); deeper, only tables that hold tables.
        subs = [k for k, v in t.items() if isinstance(v, dict) and (top or any(isinstance(x, dict) or is_array_of_tables(x) for x in v.values()))]
        arrays = [k for k, v in t.items() if is_array_of_tables(v) and k not in subs]
        for k, v in t.items():
            if k not in subs and k not in arrays:
                out.append(f"{key(k)} = {value(v)}")
        for k in subs:
            out.append(f"\n[{path}{key(k)}]")
            table(t[k], f"{path}{key(k)}.", out, False)
        for k in arrays:
            for item in t[k]:
                out.append(f"\n[[{path}{key(k)}]]")
                table(item, f"{path}{key(k)}.", out, False)

    out: list = []
    table(d, "", out, True)
    return "\n".join(out).lstrip("\n") + "\n"


def _ssd_table(summary: dict) -> str:
    """Each SSD's service time by part: the mean request and the slowest 1 %."""
    from .display import ssd_columns, ssd_rows
    rows = ssd_rows(summary)
    if not rows:
        return ""
    cols = ssd_columns(rows)
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label in cols)
    body = "".join(f"<tr><td>{html.escape(dev + ' ' + label)}</td>" + "".join(f"<td>{p[k]:.1f}</td>" for k, _ in cols)
                   + f"<td>{sum(p.values()):.1f}</td><td>{n:,}</td></tr>" for dev, label, p, n in rows)
    return ("<h3>inside the SSDs</h3><p>Mean µs per part of device service time, for the mean request and the "
            "slowest 1 % (docs/outputs.md).</p>"
            f"<table><tr><th></th>{head}<th>= µs</th><th>ios</th></tr>{body}</table>")


def _claims_html(doc: dict) -> str:
    """The claims, each with what the experiment says about it: the why (and its cause) of one
    that does not hold or is not evaluated, the run with its mechanism off, a calibration mark."""
    rows = []
    for c in doc["claims"]:
        mark = {True: "✓", False: "✗", None: "–"}[c["holds"]]
        cls = {True: "ok", False: "bad", None: "na"}[c["holds"]]
        notes = []
        if c.get("why"):
            notes.append(f"<b>why{' (' + html.escape(c['cause']) + ')' if c.get('cause') else ''}:</b> {html.escape(c['why'])}")
        if c.get("ablation"):
            a = c["ablation"]
            notes.append(f"<b>mechanism off</b> ({html.escape(a['off'])}): " + ("also holds" if a["holds"] else "does not hold, as it should"))
        if c.get("calibration"):
            notes.append(f"<b>calibration target:</b> {html.escape(c['calibration'])} fitted to it")
        rows.append(f"<tr class='{cls}'><td>{mark}</td><td>{html.escape(c['id'])}</td><td>{html.escape(c['claim'])}</td>"
                    f"<td>{html.escape(str(c['expected']))}</td><td>{html.escape(str(c['measured']))}</td><td>{html.escape(c['source'])}</td>"
                    f"<td>{'<br>'.join(notes)}</td></tr>")
    return ("<table><tr><th></th><th>id</th><th>claim</th><th>expected</th><th>measured</th><th>source</th><th>why / notes</th></tr>"
            + "".join(rows) + "</table>")


def headline(summary: dict) -> str:
    """One line a reader takes in at a glance: each class's p99 (and sample count) in priority
    order, and whatever went wrong (requests still in flight or failed, a broken check)."""
    from .compare import _us as fmt_us

    parts = []
    for name, d in _ordered(summary, "classes"):
        a = d["all"]
        if a["ios"]:
            parts.append(f"{name} p99 {fmt_us(a['lat_us']['p99'])} (n = {a['ios']:,})")
    req = summary["requests"]
    tail = []
    if req.get("in_flight"):
        tail.append(f"{req['in_flight']:,} still in flight")
    if req.get("failed"):
        tail.append(f"{req['failed']:,} failed")
    if summary.get("conservation") != "ok":
        tail.append("conservation check FAILED")
    return " · ".join(parts) + ("; " + ", ".join(tail) if tail else "")


def _headline_html(summary: dict) -> str:
    """The scenario's question (its description) and the headline."""
    question = summary.get("config", {}).get("description")
    q = f"<p class='question'>{html.escape(str(question))}</p>" if question else ""
    return q + f"<p class='headline'><b>{html.escape(headline(summary))}</b></p>"


def _provenance_html(p: Optional[dict]) -> str:
    """Where the run came from (run.json's provenance): NeSt's version and commit, the scenario,
    seed, command and start time."""
    if not p:
        return "<p class='prov'>provenance: not recorded (run.json from an older NeSt)</p>"
    rows = [("NeSt", f"{p.get('nest_version')} (commit {p.get('git_commit')})"), ("scenario", p.get("scenario")),
            ("seed", p.get("seed")), ("command", p.get("command") or "Python API (nestsim.run)"), ("started (UTC)", p.get("started_utc"))]
    return "<table class='prov'>" + "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>" for k, v in rows) + "</table>"


def _run_section(run_dir: Path, title: str) -> str:
    summary = json.loads((run_dir / "summary.json").read_text())
    run_info = json.loads((run_dir / "run.json").read_text()) if (run_dir / "run.json").exists() else {}
    parts = [f"<h2>{html.escape(title)}</h2>"]
    if summary.get("kind") == "haechi":
        # A Haechi run (docs/haechi.md) has per-period results, not the World's tables: its
        # per-client table as `nestsim run` prints it.
        from .haechi import render as render_haechi
        return parts[0] + f"<pre>{html.escape(render_haechi(summary, run_info))}</pre>"
    req = summary["requests"]
    parts.append(_headline_html(summary))
    parts.append(f"<p>simulated {summary['sim_time_s']:.6g} s, {summary['events']:,} events; requests issued {req['issued']:,}, "
                 f"completed {req['completed']:,}, in flight {req['in_flight']:,}; conservation: {html.escape(str(summary['conservation']))}.")
    if run_info:
        eps = run_info.get("events_per_cpu_s") or 0
        parts.append(f" Wall {run_info['wall_s']:.2f} s, CPU {run_info['cpu_s']:.2f} s, {eps / 1e6:.2f} M events per CPU second.")
    parts.append("</p>")
    parts.append(_provenance_html(run_info.get("provenance")))
    # The classes' table, then the figures, then the details (issue 62, finding 10: the figures
    # came after every table); a table with no row is left out.
    tables = {key: _table(summary, key) for key in ("classes", "workloads", "devices")}
    if tables["classes"]:
        parts.append(f"<h3>per class</h3>{tables['classes']}")
    for _, fig in plots.run_figures(run_dir):
        parts.append(f"<div class='fig'>{_svg(fig)}</div>")
    for key in ("workloads", "devices"):
        if tables[key]:
            parts.append(f"<h3>per {key[:-1]}</h3>{tables[key]}")
    parts.append(_decomposition_table(summary))
    parts.append(_ssd_table(summary))
    parts.append(_network_table(summary))
    parts.append(f"<details><summary>scenario (TOML)</summary><pre>{html.escape(to_toml(summary.get('config', {})))}</pre></details>")
    return "".join(parts)


CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:right}
td:first-child,th:first-child{text-align:left}tr.ok td:first-child{color:#080}tr.bad td:first-child{color:#b00}
.fig svg{max-width:100%;height:auto}pre{background:#f6f6f6;padding:1em;overflow:auto;font-size:12px}
figure{margin:1em 0}figure img{max-width:100%}figcaption{font-size:12px;color:#555}"""


def _sweep_section(root: Path) -> str:
    t = pq.read_table(root / "sweep.parquet").to_pydict()
    params = [k for k in t if k.startswith("param.")]
    classes = sorted({k.split(".")[0] for k in t if k.endswith(".all.ios") and any(t[k])})
    bw = lambda c: "carried_gbps" if f"{c}.all.carried_gbps" in t else "bw_gbps"  # noqa: E731  (older sweeps)
    cols = ["run_id", "seed"] + params + [f"{c}.all.{m}" for c in classes for m in (bw(c), "lat_mean_us", "lat_p99_us")]
    head = "".join(f"<th>{html.escape(c.replace('param.', ''))}</th>" for c in cols)
    fmt = lambda v: f"{v:.4g}" if isinstance(v, float) else html.escape(str(v))  # noqa: E731
    rows = "".join("<tr>" + "".join(f"<td>{fmt(t[c][i])}</td>" for c in cols) + "</tr>" for i in range(len(t["run_id"])))
    figs = "".join(f"<div class='fig'>{_svg(fig)}</div>" for _, fig in plots.sweep_figures(t))
    return f"<h2>sweep: {len(t['run_id'])} runs</h2>{figs}<details><summary>every run</summary><table><tr>{head}</tr>{rows}</table></details>"



def write_report(root: Path, out: Optional[Path] = None) -> Path:
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a directory")
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>NeSt report: {html.escape(root.name)}</title>"
             f"<style>{CSS}</style></head><body><h1>NeSt report: {html.escape(root.name)}</h1>"]
    if (root / "claims.json").exists():
        doc = json.loads((root / "claims.json").read_text())
        parts.append(f"<h2>claims of experiment {html.escape(doc['experiment'])}</h2>{_claims_html(doc)}")
    # Figures an experiment wrote, named after the source's (e.g. qtcp-fig5.png).
    parts += [_img(p) for p in sorted(root.glob("*.png"))]
    if (root / "sweep.parquet").exists():
        parts.append(_sweep_section(root))
    dirs = run_dirs(root)
    if not dirs and not (root / "claims.json").exists() and not (root / "sweep.parquet").exists():
        from .parquet_stream import unfinished
        raise FileNotFoundError(f"{root}: no summary.json, claims.json or sweep.parquet found (is this a run directory?)"
                                f"{unfinished(root)}")
    for d in dirs:
        parts.append(_run_section(d, d.name if d != root else "run"))
    parts.append(SELF_CHECK + "</body></html>")
    path = out or root / "report.html"
    tmp = path.with_name(path.name + ".partial")
    tmp.write_text("".join(parts), encoding="utf-8")
    tmp.replace(path)
    return path
