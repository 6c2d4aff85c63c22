"""A readable plain-text rendering of a run's summary (what `nestsim run` prints)."""

from __future__ import annotations

from .runner import SSD_PARTS as _SSD_PART_NAMES


PRIORITY_ORDER = ["urgent", "high", "medium", "low", "best_effort"]


def by_priority(classes: dict) -> list:
    """A summary's classes as (name, stats) in priority order, urgent first."""
    rank = lambda kv: PRIORITY_ORDER.index(kv[1].get("priority", "best_effort")) if kv[1].get("priority", "best_effort") in PRIORITY_ORDER else len(PRIORITY_ORDER)  # noqa: E731
    return sorted(classes.items(), key=rank)


def _row(name: str, d: dict) -> str:
    """One line of the tables: IOPS and Gb/s are what completed in the window (carried), the
    latencies those of the requests that arrived in it (the `ios`)."""
    lat = d["lat_us"]
    return (f"  {name:<22} {d['ios']:>10,} {d.get('carried_iops', d['iops']):>12,.0f} {d.get('carried_gbps', d['bw_gbps']):>9.3f} "
            f"{lat['mean']:>9.1f} {lat['p50']:>9.1f} {lat['p99']:>9.1f} {lat['p99_9']:>9.1f} {d['host_wait_us']['mean']:>9.1f}")


def _device_line(name: str, d: dict) -> str:
    kind = d.get("kind", "ideal")
    if kind == "ssd":
        s = d["ssd"]
        cmt = "all in DRAM" if s["cmt_hit_rate"] is None else f"{s['cmt_hit_rate'] * 100:.1f}% hits"
        # Nothing programmed yet (writes still in the cache): no amplification to speak of.
        wa = f"{s['write_amplification']:.2f}" if s.get("user_page_programs") else "— (no page programmed)"
        return (f"  {name} (ssd, NVMe {s['nvme_arbitration']}, device QoS {'on' if s['device_qos'] else 'off'}): "
                f"chips busy {s['chip_utilization']['mean'] * 100:.1f}%, GC jobs {s['gc_jobs']}, "
                f"write amplification {wa}, erases {s['erases']}, CMT {cmt}, DRAM busy {s.get('dram_utilization', 0) * 100:.1f}%")
    if kind == "pm":
        return f"  {name} (pm): utilisation {d['utilization'] * 100:.1f}% of {d['units']} units"
    return f"  {name}: utilisation {d['utilization'] * 100:.1f}%, mean queue {d['mean_queue_len']:.2f}"


def _network_lines(n: dict) -> list[str]:
    out = ["", f"network: {n['hosts']} hosts, {n['switches']} switches, {n['links']} links, "
               f"{'lossless (PFC)' if n['lossless'] else 'lossy'}; packets injected {n['packets']['injected']:,}, "
               f"dropped {n['packets']['dropped']:,}, hops {n['packets']['hops']:,}"]
    w = max([14] + [len(k) for k in n["flows"]])
    out.append(f"  {'flow':<{w}} {'transport':<9} {'class':<12} {'src→dst':<14} {'Gb/s':>8} {'RTT µs':>8} {'α':>6} {'Q':>6} {'cuts':>7} {'FCT µs':>10}")
    for name, f in n["flows"].items():
        fct = "" if f["fct_us"] is None else f"{f['fct_us']:,.0f}"
        if f["deadline_met"] is not None:
            fct += " ✓" if f["deadline_met"] else " ✗"
        rtt = "" if f["mean_rtt_us"] is None else f"{f['mean_rtt_us']:.1f}"
        out.append(f"  {name:<{w}} {f['transport']:<9} {f['class']:<12} {f['src'] + '→' + f['dst']:<14} "
                   f"{f['throughput_gbps']:>8.3f} {rtt:>8} {f['alpha_end']:>6.3f} {f['q_end']:>6.2f} {f['cuts']:>7,} {fct:>10}")
    per_class = ", ".join(f"{c} {v['throughput_gbps']:.3f}" for c, v in n["classes"].items())
    out.append(f"  per class Gb/s: {per_class}; total {n['total_throughput_gbps']:.3f}")
    busiest = sorted(n["switch"].items(), key=lambda kv: -kv[1]["max_queue_bytes"])[:3]
    for name, s in busiest:
        out.append(f"  switch {name}: max queue {s['max_queue_bytes'] / 1024:.1f} KiB, ECN marks {s['marked']:,}, "
                   f"drops {s['dropped']:,}, PAUSEs sent {s['pauses_sent']:,}")
    if n["conservation"] != "ok":
        out.append(f"  NETWORK CONSERVATION FAILED: {n['conservation']}")
    return out


PARTS = [("host_queue", "host q"), ("fwd_network", "fwd net"), ("target_request_queue", "tgt req"),
         ("nvme_queue", "NVMe q"), ("device", "device"), ("target_response_queue", "tgt resp"),
         ("back_network", "back net"), ("host_completion", "host")]


def _decomposition_lines(summary: dict) -> list[str]:
    out = ["", "latency decomposition per class (mean µs; the parts add up to the mean):",
           f"  {'':<22}" + "".join(f" {label:>9}" for _, label in PARTS) + f" {'= mean':>9}"]
    items = by_priority(summary["classes"])
    for name, d in items:
        for op in ("read", "write"):
            a = d[op]
            if a["ios"]:
                parts = a["decomposition_us"]
                out.append(f"  {name + ' ' + op:<22}" + "".join(f" {parts[k]:>9.2f}" for k, _ in PARTS) + f" {a['lat_us']['mean']:>9.2f}")
    return out


_SSD_LABELS = {"host_interface": "host if", "write_cache_wait": "wcache", "dram": "DRAM", "mapping": "CMT miss",
               "die_queue": "die q", "gc": "GC", "suspended": "susp", "channel_wait": "chan q", "channel": "chan",
               "nd_delay": "NDWin"}
#: The parts of an SSD's service time in the engine's order (nest_ssd::DEV_PARTS), with short labels.
SSD_PARTS = [(p, _SSD_LABELS.get(p, p)) for p in _SSD_PART_NAMES]
#: Parts only some drives have (PLM's NDWin delay): shown only when a row has them.
_SSD_OPTIONAL = {"nd_delay"}


def ssd_columns(rows) -> list[tuple[str, str]]:
    """The parts to show for `ssd_rows` rows: every part, but optional ones only when used."""
    return [(k, label) for k, label in SSD_PARTS
            if k not in _SSD_OPTIONAL or any(parts.get(k, 0) > 0 for _, _, parts, _ in rows)]


def ssd_rows(summary: dict) -> list[tuple[str, str, dict, int]]:
    """(device, row label, parts in µs, requests) for each SSD and op: the mean, then the p99 tail."""
    rows = []
    for name, d in summary.get("devices", {}).items():
        for op in ("read", "write"):
            s = d[op].get("ssd_decomposition")
            if not s:
                continue
            rows.append((name, f"{op} mean", s["mean_us"], s["ios"]))
            t = s.get("p99_tail")
            if t:
                rows.append((name, f"{op} ≥{t['from_us']:,.0f} µs", t["mean_us"], t["ios"]))
    return rows


def _ssd_lines(summary: dict) -> list[str]:
    rows = ssd_rows(summary)
    if not rows:
        return []
    cols = ssd_columns(rows)
    out = ["", "inside the SSDs (mean µs per part of device service, for the mean request and the slowest 1 %):",
           f"  {'':<30}" + "".join(f" {label:>8}" for _, label in cols) + f" {'= µs':>8} {'ios':>8}"]
    for dev, label, parts, n in rows:
        total = sum(parts.values())
        out.append(f"  {dev + ' ' + label:<30}" + "".join(f" {parts[k]:>8.1f}" for k, _ in cols) + f" {total:>8.1f} {n:>8,}")
    return out


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
    storage = bool(summary["workloads"])
    head = f"  {'':<22} {'ios':>10} {'IOPS':>12} {'Gb/s':>9} {'mean µs':>9} {'p50 µs':>9} {'p99 µs':>9} {'p99.9 µs':>9} {'wait µs':>9}"
    for title, key in (("per class", "classes"), ("per workload", "workloads"), ("per device", "devices")):
        if not storage:
            break
        out.append("")
        out.append(f"{title}:")
        out.append(head)
        items = summary[key].items()
        if key == "classes":
            items = by_priority(summary[key])
        for name, d in items:
            for op in ("read", "write"):
                if d[op]["ios"]:
                    out.append(_row(f"{name} {op}", d[op]))
        if key == "classes":
            offered = [f"{name} {d['offered_gbps']:.3f} (carried {d['all'].get('carried_gbps', 0):.3f})"
                       for name, d in by_priority(summary[key]) if d.get("offered_gbps") is not None]
            if offered:
                out.append(f"  offered Gb/s (open-loop workloads): {', '.join(offered)}")
        if key == "devices":
            for name, d in summary[key].items():
                out.append(_device_line(name, d))
    for name, h in summary.get("hosts", {}).items():
        c = h.get("cache")
        if c:
            st = c["algorithm_state"]
            mode = f", {st['mode_switches']:.0f} switches to/from LRU" if "mode_switches" in st else ""
            out.append(f"\nhost {name} cache {c['algorithm']} ({c['capacity_blocks']:,} blocks of 4 KiB): hit rate "
                       f"{100 * c['hit_rate']:.1f} % (read {100 * c['read_hit_rate']:.1f} %, write {100 * c['write_hit_rate']:.1f} %); "
                       f"admitted {c['admitted']:,}, metadata-only {c['tracked']:,}, evicted {c['evictions']:,}, "
                       f"write-backs {c['writebacks']:,}, background fetches {c['fetched']:,}{mode}")
    if storage:
        out.append("\n  IOPS, Gb/s = completed in the measurement window (carried); ios and latencies = requests that arrived in it"
                   "\n  wait µs = mean time in the host's per-class send queue (urgent first, then by priority)")
    if storage and "nvmeof" in summary:
        out.extend(_decomposition_lines(summary))
    if storage:
        out.extend(_ssd_lines(summary))
    if "haechi" in summary:
        from .haechi import table_lines
        out.append("")
        out.extend(table_lines(summary["haechi"]))
    if "network" in summary:
        out.extend(_network_lines(summary["network"]))
    if summary["conservation"] != "ok":
        out.append(f"\nCONSERVATION CHECK FAILED: {summary['conservation']}")
    for w in summary.get("warnings", []):
        out.append(f"warning: {w}")
    return "\n".join(out)
