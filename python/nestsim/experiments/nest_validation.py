"""nest-validation: local vs end-to-end access, the thesis' comparison with a real system (5.6.1, 5.6.3).

A client and one storage server on one switch, 100 Gb/s links (1 µs each), NVMe-oF over a
TCP-like transport (DCTCP). The SSD is the `consumer-nvme` preset (970 EVO Plus-like); 4 KiB
random requests, 70 % reads, closed loop at queue depth 1–32 — once attached to the client
(local), once in the server (E2E). Then PM: 128 B accesses to a PM device, native vs remote; and
4 KiB "SCM in storage mode" accesses (Poisson) to the PM device and to the Optane-class SSD
preset, remote. NVMe-oF software overheads are left at their default (0): NeSt models the
network and the queues, not the host/target software stacks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

from ..claims import Claim, write_claims
from .framework import conservation_claim, run_all
from . import figures
from .net_common import star

NAME = "nest-validation"
DESCRIPTION = "Local vs E2E latency over one switch at 100 Gb/s: SSD by queue depth, PM native vs remote, 4 KiB SCM (thesis 5.6.1)"
#: Figures written next to claims.json, named after the source's (docs/plots.md).
FIGURES = ["thesis-fig5.4"]
SOURCE = "thesis 5.6.1, Fig 5.4"
QDS = [1, 2, 4, 8, 16, 32]


def _scenario(remote: bool, device: dict, workload: dict) -> dict:
    dev = dict(device)
    s = {"schema": 1, "name": "nest-validation", "run": {"seed": 1, "duration": "50ms", "warmup": "5ms"},
         "host": [{"name": "h0"}], "device": [dev],
         "workload": [{"name": "w", "host": "h0", "device": dev["name"], "class": "high", "range": "8GiB", **workload}],
         "output": {"requests": False}}
    if remote:
        dev["server"] = "h1"
        s["network"] = star({"h0": "1us", "h1": "1us"}, rate="100Gbps")
        s["nvmeof"] = {"transport": "dctcp"}
    return s


def _lat(s: dict) -> Dict[str, float]:
    a = s["classes"]["high"]["all"]
    return {"mean": a["lat_us"]["mean"], "p50": a["lat_us"]["p50"], "p99": a["lat_us"]["p99"]}


def run_experiment(out_dir: Path) -> dict:
    ssd = {"name": "ssd", "kind": "ssd", "preset": "consumer-nvme"}
    mixed = {"size": {"dist": "fixed", "bytes": "4KiB"}, "read_fraction": 0.7}
    pm = {"name": "pmem", "kind": "pm"}
    pm_small = {"size": {"dist": "fixed", "bytes": "128B"}, "read_fraction": 0.5, "arrival": {"kind": "burst", "outstanding": 1}}
    scm_load = {"size": {"dist": "fixed", "bytes": "4KiB"}, "read_fraction": 0.5, "arrival": {"kind": "poisson", "rate_iops": 50000}}
    scenarios = {}
    for qd in QDS:
        wl = {**mixed, "arrival": {"kind": "burst", "outstanding": qd}}
        scenarios[f"ssd-local-qd{qd}"] = _scenario(False, ssd, wl)
        scenarios[f"ssd-e2e-qd{qd}"] = _scenario(True, ssd, wl)
    scenarios["pm-native"] = _scenario(False, pm, pm_small)
    scenarios["pm-remote"] = _scenario(True, pm, pm_small)
    scenarios["scm-pm-remote"] = _scenario(True, pm, scm_load)
    scenarios["scm-optane-remote"] = _scenario(True, {"name": "ssd", "kind": "ssd", "preset": "optane"}, scm_load)
    runs = run_all(out_dir, scenarios)
    local = {qd: _lat(runs[f"ssd-local-qd{qd}"]) for qd in QDS}
    e2e = {qd: _lat(runs[f"ssd-e2e-qd{qd}"]) for qd in QDS}
    pm_native, pm_remote, scm_pm, scm_ssd = (_lat(runs[t]) for t in ("pm-native", "pm-remote", "scm-pm-remote", "scm-optane-remote"))

    def fmt(d: dict) -> str:
        return ", ".join(f"QD{qd} {d[qd]['mean']:.0f}" for qd in QDS) + " µs (mean)"
    lo, hi = min(v["mean"] for v in local.values()), max(v["mean"] for v in local.values())
    elo, ehi = min(v["mean"] for v in e2e.values()), max(v["mean"] for v in e2e.values())
    added = [e2e[qd]["mean"] - local[qd]["mean"] for qd in QDS]
    claims: List[Claim] = [
        Claim("local-ssd", SOURCE, "Local access to the 970 EVO Plus-like SSD takes 40–90 µs over the queue depths (real device and MQSim alike)",
              "mean latency within 40–90 µs (± 10 %) at every QD", fmt(local), lo >= 36.0 and hi <= 99.0),
        Claim("e2e-ssd", SOURCE, "E2E access through one switch at 100 Gb/s over TCP takes 120–190 µs (real system and NeSt)",
              "mean latency within 120–190 µs (± 10 %) at every QD", f"{fmt(e2e)}; the network adds {min(added):.1f}–{max(added):.1f} µs",
              elo >= 108.0 and ehi <= 209.0,
              why="NeSt's E2E path adds the network (two 1 µs links each way, serialisation, DCTCP's ACK clocking: ~4 µs) and "
                  "the NVMe-oF software overheads, which default to 0; the real system's +80–100 µs is the NVMe/TCP software "
                  "path (SPDK/kernel TCP processing on both ends), which the thesis also names as the gap. It can be "
                  "represented with [nvmeof] target_overhead / response_overhead / host_overhead, not measured here"),
        Claim("pm-native", "thesis 5.6.1", "Native PM access takes < 900 ns", "mean < 0.9 µs",
              f"{pm_native['mean'] * 1e3:.0f} ns mean, p99 {pm_native['p99'] * 1e3:.0f} ns", pm_native["mean"] < 0.9),
        Claim("pm-remote", "thesis 5.6.1, 4.5.4", "Remote PM access takes 3–4 µs", "mean within 3–5 µs (the path's propagation alone is 4 × 1 µs here)",
              f"{pm_remote['mean']:.2f} µs mean, p99 {pm_remote['p99']:.2f} µs", 3.0 <= pm_remote["mean"] <= 5.0),
        Claim("scm-4k", "thesis 5.6.3", "4 KiB SCM storage accesses end to end take ~35–40 µs",
              "mean within 35–40 µs (± 10 %)", f"PM device {scm_pm['mean']:.1f} µs; Optane-class SSD {scm_ssd['mean']:.1f} µs",
              any(31.5 <= x["mean"] <= 44.0 for x in (scm_pm, scm_ssd)),
              why="a 4 KiB access to the PM device costs its media latency plus the transfer (~1 µs) and the Optane-class "
                  "preset serves 4 KiB in 10–20 µs; with ~4 µs of network neither reaches 35–40 µs — as for the SSD, the "
                  "missing part is host/target software, which NeSt does not model by default"),
        conservation_claim(runs, "SPEC §5"),
    ]
    figures.lines(out_dir, "thesis-fig5.4", {"970 EVO Plus-like SSD, 4 KiB 70 % reads": {
        "local": (QDS, [local[qd]["mean"] for qd in QDS]), "end to end (NeSt)": (QDS, [e2e[qd]["mean"] for qd in QDS]),
        "thesis: local 40–90": ([QDS[0], QDS[-1]], [40, 90]), "thesis: E2E 120–190": ([QDS[0], QDS[-1]], [120, 190])}},
        "queue depth", "mean latency (µs)", logx=True, markers=True, title="Validation against the real system (thesis Fig 5.4)")
    return write_claims(out_dir, "nest-validation", claims)
