"""A readable plain-text rendering of a run's summary (what `nestsim run` prints)."""

from __future__ import annotations


PRIORITY_ORDER = ["urgent", "high", "medium", "low", "best_effort"]


def _row(name: str, d: dict) -> str:
    lat = d["lat_us"]
    return (f"  {name:<22} {d['ios']:>10,} {d['iops']:>12,.0f} {d['bw_gbps']:>9.3f} "
            f"{lat['mean']:>9.1f} {lat['p50']:>9.1f} {lat['p99']:>9.1f} {lat['p99_9']:>9.1f} {d['host_wait_us']['mean']:>9.1f}")


def render(summary: dict, run_info: dict | None = None) -> str:
    out = []
    req = summary["requests"]
    out.append(f"NeSt {summary['nest_version']}  scenario '{summary['scenario']}'  seed {summary['seed']}")
    out.append(f"simulated {summary['sim_time_s']:.6g} s ({summary['finished']}), {summary['events']:,} events; "
               f"requests issued {req['issued']:,}, completed {req['completed']:,}, in flight {req['in_flight']:,}; "
               f"measured window {summary['window']['start_s']:.6g}–{summary['window']['end_s']:.6g} s")
    if run_info:
        eps = run_info.get("events_per_cpu_s")
        out.append(f"wall {run_info['wall_s']:.2f} s, CPU {run_info['cpu_s']:.2f} s"
                   + (f", {eps / 1e6:.1f} M events per CPU second" if eps else ""))
    head = f"  {'':<22} {'ios':>10} {'IOPS':>12} {'Gb/s':>9} {'mean µs':>9} {'p50 µs':>9} {'p99 µs':>9} {'p99.9 µs':>9} {'wait µs':>9}"
    for title, key in (("per class", "classes"), ("per workload", "workloads"), ("per device", "devices")):
        out.append("")
        out.append(f"{title}:")
        out.append(head)
        items = summary[key].items()
        if key == "classes":
            items = sorted(items, key=lambda kv: PRIORITY_ORDER.index(kv[1].get("priority", "best_effort")))
        for name, d in items:
            for op in ("read", "write"):
                if d[op]["ios"]:
                    out.append(_row(f"{name} {op}", d[op]))
        if key == "devices":
            for name, d in summary[key].items():
                out.append(f"  {name}: utilisation {d['utilization'] * 100:.1f}%, mean queue {d['mean_queue_len']:.2f}")
    out.append("\n  wait µs = mean time in the host's per-class send queue (urgent first, then by priority)")
    if summary["conservation"] != "ok":
        out.append(f"\nCONSERVATION CHECK FAILED: {summary['conservation']}")
    for w in summary.get("warnings", []):
        out.append(f"warning: {w}")
    return "\n".join(out)
