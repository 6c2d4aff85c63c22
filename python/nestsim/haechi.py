"""Haechi scenario files from the command line (`nestsim run|validate FILE.toml` on a file with a
`[haechi]` table; docs/haechi.md).

A Haechi run is not a World scenario: its clients and KV data node talk RDMA verbs over the
message-level fabric, and its results are per QoS period. Its run directory holds the same two
files as any run: ``summary.json`` (deterministic; the run's result under ``haechi``, with the
request counts and conservation verdict every run has) and ``run.json`` (wall and CPU time).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from . import _native
from .runner import _peak_rss_mb, write_json

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11: the same parser as a package (a dependency there)
    import tomli as tomllib  # type: ignore[no-redef]


def is_haechi_file(path) -> bool:
    """A TOML file whose top level has a `[haechi]` table and no `[network]`: a Haechi run alone
    on the verbs model's switch. With a `[network]` it is a World scenario whose Haechi clients
    and data nodes are topology hosts (docs/haechi.md, "On the packet fabric"). A file that
    does not parse is left to the scenario reader, which names the error."""
    try:
        t = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return "haechi" in t and "network" not in t


def validate(path) -> None:
    _native.haechi_file(Path(path).read_text(encoding="utf-8"), str(path), run=False)


def run_file(path, out_dir) -> tuple:
    """Runs the file into `out_dir`; returns (summary, run_info)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    w0, c0 = time.perf_counter(), time.process_time()
    r = json.loads(_native.haechi_file(Path(path).read_text(encoding="utf-8"), str(path)))
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    counts = {k: sum(c[k] for c in r["clients"]) for k in ("submitted", "completed", "in_flight", "waiting", "abandoned")}
    summary = {"kind": "haechi", "name": r.pop("name") or Path(path).stem, "events": r["events"], "sim_time_s": r["sim_time_s"],
               "conservation": "ok" if r["conservation"]["ok"] else r["conservation"]["error"],
               "requests": counts, "haechi": r}
    run_info = {"nest_version": _native.__version__, "wall_s": round(wall, 4), "cpu_s": round(cpu, 4), "events": r["events"],
                "events_per_cpu_s": round(r["events"] / cpu, 1) if cpu > 0 else None,
                "ios_per_cpu_s": round(counts["completed"] / cpu, 1) if cpu > 0 else None,
                "sim_time_s": r["sim_time_s"], "peak_rss_mb": round(_peak_rss_mb(), 1), "python": sys.version.split()[0]}
    write_json(out / "summary.json", summary)
    write_json(out / "run.json", run_info)
    return summary, run_info


def render(summary: dict, run_info: dict) -> str:
    """A readable table: per client its reservation, demand, mean and worst period after the
    warm-up, whether it met its reservation every period, and its latency."""
    r = summary["haechi"]
    lines = table_lines(r)
    lines[0] = f"{summary['name']}: {lines[0]}"
    lines.append(f"conservation: {summary['conservation']}; {run_info['cpu_s']:.2f} CPU-s for {r['sim_time_s']:g} s simulated")
    return "\n".join(lines)


def table_lines(r: dict) -> list:
    """The per-client table of a Haechi result (`summary["haechi"]`, alone or in a World run)."""
    from statistics import mean  # here: `nestsim` starts without it

    first = int(round(r["warmup_s"] / r["period_s"]))
    wire = " on the packet fabric" if r.get("wire") == "fabric" else ""
    lines = [f"Haechi run{wire}, qos = {r['qos']}, {len(r['per_period_total']) - first} measured periods of "
             f"{r['period_s']:g} s",
             f"{'client':<10} {'reserved':>9} {'demand':>9} {'mean/period':>12} {'worst':>9} {'met':>4} {'mean µs':>9} {'p99 µs':>9}"]
    for c in r["clients"]:
        pp = c["per_period"][first:] or [0]
        met = "-" if not c["reservation"] else ("yes" if min(pp) >= c["reservation"] else "no")
        demand = "∞" if c["demand"] is None else f"{c['demand']:,}"
        lat = c["latency_us"]
        lines.append(f"{c['name'] + ('' if c['managed'] else '*'):<10} {c['reservation']:>9,} {demand:>9} {mean(pp):>12,.0f} "
                     f"{min(pp):>9,} {met:>4} {lat['mean']:>9.1f} {lat['p99']:>9.1f}")
    tot = r["per_period_total"][first:] or [0]
    nodes = r.get("nodes", [])
    if len(nodes) > 1:
        lines.append(f"{len(nodes)} data nodes: {mean(tot):,.0f} I/Os per period in all")
        for j, n in enumerate(nodes):
            nt = n["per_period_total"][first:] or [0]
            adm = "admitted" if n["admission"]["ok"] else f"not admissible: {n['admission']['error']}"
            lines.append(f"  node {j}: share {n['share']:.3f}, {mean(nt):,.0f} I/Os per period, NIC "
                         f"{n['utilization']['nic_send']:.0%}; reservations {sum(n['reservations']):,} ({adm})")
    else:
        lines.append(f"node: {mean(tot):,.0f} I/Os per period; utilization NIC {r['node']['utilization']['nic_send']:.0%}, "
                     f"CPU {r['node']['utilization']['cpu']:.0%}")
    if r["periods"]:
        est = [p["capacity"] for p in r["periods"]]
        lines.append(f"{'node 0: ' if len(nodes) > 1 else ''}capacity estimate: {est[0]:,} at the start, {est[-1]:,} at the end; "
                     f"pool FAAs {r['pool']['faas']:,} ({r['pool']['empty_faas']:,} found it empty)")
    if any(not c["managed"] for c in r["clients"]):
        lines.append("* a background job outside Haechi's domain")
    return lines

