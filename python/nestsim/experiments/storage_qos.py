"""storage-qos: QoS differentiation at the storage end alone (thesis 4.5.2, Fig 4.9).

Three classes share one SSD behind its NVMe controller:

- Scenario 1 — QoS-agnostic protocol and device: round robin over the submission queues, FIFO
  (reads before writes) at the dies;
- Scenario 2 — NVMe urgent + WRR 3:2:1 at the submission queues, FIFO at the dies;
- Scenario 3 — WRR at the submission queues *and* per-class die queues with the same rule.

Workloads (synthetic, "SYSTOR'17-like"): read-heavy (80 % reads) VDI mixes with wide size
variation. High, Medium and Low are in decreasing order of intensity (bytes per second); High has
the largest requests (the ranges follow the thesis's class size ranges, scaled down: High 4–32,
Medium 2–16, Low 1–8 blocks of 4 KiB). The device is the E2E drive of thesis 4.5.3 as SPEC §13
item 10 reads it: MQSim's stock drive (`mqsim-default`: 8 channels × 4 chips × 2 dies × 2 planes,
MLC 75 µs / 750 µs, a 256 MiB write cache on its 100 MT/s × 1 B DRAM) with 4,096 blocks per plane,
1 TiB; 8 command slots in the controller (so commands wait in the SQs, where NVMe arbitration
acts). It is not preconditioned: filling 80 % of 1 TiB costs 16 CPU-s per run, and at the
reference load the class means came out identical with and without it (813 / 3,288 / 3,587 µs in
a 20 ms Scenario 1 run, both ways). Each scenario runs with three seeds; claims use the
seed-averaged class means.

Region map (SPEC §13.2; not in `--quick`): the sources give the classes' order of intensity but no
load, so the scenarios' latency ratios are also measured with every class's rate scaled by
1/8 … 1.5 (one seed).

The TPC-C-like case: High and Medium are light, Low is intense (thesis: "NVMe WRR alone suffices").
With the real SYSTOR'17 samples (NEST_SHARED), the two sample files play the three classes at
different time compressions (the sample holds 2 × 999 requests): the thesis' Fujitsu VDI traces
are not available, so these claims are reported as data-limited (not evaluated) with the samples'
result beside them (SPEC §13 item 10); each class replayed alone and a Scenario 3 with steeper
weights (8:2:1) say what the samples show.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from statistics import mean
from typing import Dict, List, Optional

from ..claims import Claim, ablation, write_claims
from .framework import run_all
from . import figures
from .regions import Axis, region_map

NAME = "storage-qos"
DESCRIPTION = "NVMe WRR and device-level WRR: 3 classes on one SSD, scenarios 1–3 (thesis Fig 4.9)"
#: Figures written next to claims.json, named after the source's (docs/plots.md).
FIGURES = ["thesis-fig4.9"]

SCENARIOS = {"S1": ("rr", False), "S2": ("wrr", False), "S3": ("wrr", True)}
CLASSES = ["high", "medium", "low"]
SEEDS = [1, 2, 3]
SOURCE = "thesis 4.5.2, Fig 4.9"
#: The stock drive's DRAM: 100 MT/s × 1 B bursts (MQSim's ssdconfig.xml), bytes per second.
DRAM_BYTES_PER_S = 100e6
#: The region map's load scales (every class's rate × scale); 1 is the reference.
LOAD_SCALES = [0.125, 0.25, 0.5, 0.75, 1.0, 1.5]


def _device(nvme: str, device_qos: bool) -> dict:
    return {
        "name": "ssd",
        "kind": "ssd",
        "preset": "mqsim-default",
        # 1 TiB: the stock drive's 2,048 blocks per plane doubled.
        "geometry": {"blocks_per_plane": 4096},
        "host_interface": {"queue_depth": 8},
        "nvme": {"arbitration": nvme, "weights": [3, 2, 1]},
        "scheduler": {"device_qos": device_qos, "weights": [3, 2, 1]},
    }


def _scenario(nvme: str, device_qos: bool, workloads: List[dict], seed: int, duration: str = "200ms") -> dict:
    return {
        "schema": 1,
        "name": "storage-qos",
        "run": {"seed": seed, "duration": duration, "warmup": "10%"},
        "output": {"requests": False},
        "host": [{"name": "h0", "queue_depth": 4096}],
        "device": [_device(nvme, device_qos)],
        "workload": workloads,
    }


def _synthetic(rates: Dict[str, float], sizes: Dict[str, tuple]) -> List[dict]:
    return [{
        "name": c, "device": "ssd", "class": c,
        "arrival": {"kind": "poisson", "rate_iops": rates[c]},
        "size": {"dist": "uniform_blocks", "min": sizes[c][0], "max": sizes[c][1]},
        "read_fraction": 0.8,
    } for c in CLASSES]


VDI = _synthetic({"high": 6470, "medium": 10070, "low": 11500}, {"high": (4, 32), "medium": (2, 16), "low": (1, 8)})
TPCC = _synthetic({"high": 6000, "medium": 9000, "low": 40000}, {c: (1, 4) for c in CLASSES})


def _means(out_dir: Path, tag: str, workloads: List[dict], seeds: List[int], duration: str = "200ms",
           runs_out: Optional[dict] = None) -> Dict[str, Dict[str, float]]:
    """Seed-averaged mean latency (µs) per scenario and class (the runs' summaries go to ``runs_out``)."""
    runs = run_all(out_dir, {f"{tag}-{sc}-seed{seed}": _scenario(nvme, dq, workloads, seed, duration)
                             for sc, (nvme, dq) in SCENARIOS.items() for seed in seeds})
    if runs_out is not None:
        runs_out.update(runs)
    return {sc: {c: round(mean(runs[f"{tag}-{sc}-seed{seed}"]["classes"][c]["all"]["lat_us"]["mean"] for seed in seeds), 1) for c in CLASSES}
            for sc in SCENARIOS}


def _scaled(workloads: List[dict], scale: float) -> List[dict]:
    return [{**w, "arrival": {**w["arrival"], "rate_iops": w["arrival"]["rate_iops"] * scale}} for w in workloads]


def load_map(out_dir: Path) -> dict:
    """The VDI-like mix's latency ratios per scenario against the load (every class's rate scaled)."""
    def measure(summaries: dict, _dirs: dict, _at: dict) -> dict:
        m = {sc: {c: s["classes"][c]["all"]["lat_us"]["mean"] for c in CLASSES} for sc, s in summaries.items()}
        return {"S1 High/Low": m["S1"]["high"] / m["S1"]["low"], "S2 High/Low": m["S2"]["high"] / m["S2"]["low"],
                "S3 High/Low": m["S3"]["high"] / m["S3"]["low"], "S3 Medium/Low": m["S3"]["medium"] / m["S3"]["low"]}

    return region_map(out_dir, "storage-qos-vs-load", title="Storage-end QoS against load (VDI-like mix, 1 TiB stock drive)",
                      x=Axis("scale", "offered load (× the reference rates)", LOAD_SCALES), variants=tuple(SCENARIOS),
                      build=lambda scale, sc: _scenario(*SCENARIOS[sc], _scaled(VDI, scale), 1),
                      measure=measure, ylabel="mean latency ratio to Low", reference={"scale": 1.0}, logx=True, logy=True,
                      holds=lambda c, y, p: (p["S3 High/Low"] < p["S3 Medium/Low"] < 1) if c == "S3 High/Low" else None,
                      effect="Scenario 3 orders High < Medium < Low (the vdi-s3-ordered claim)")


def _why_map(region: Optional[dict]) -> str:
    """Where on the load map Scenario 1 has High worst, and whether the scenarios differ there."""
    if not region:
        return ""
    xs = region["x"]["values"]
    c = {k["label"]: k["values"] for k in region["curves"]}
    light = [i for i, x in enumerate(xs) if c["S1 High/Low"][i] > 1]
    if not light:
        return ". On the load map High is never the worst in Scenario 1"
    gap = max(abs(c["S3 High/Low"][i] / c["S1 High/Low"][i] - 1) for i in light)
    return (f". On the load map (storage-qos-vs-load) Scenario 1 has High worst up to {xs[light[-1]]:g}× the reference load "
            f"(High/Low {min(c['S1 High/Low'][i] for i in light):.2f}–{max(c['S1 High/Low'][i] for i in light):.2f}), "
            f"but there little waits and Scenario 3's High/Low is within {100 * gap:.0f} % of Scenario 1's: the thesis' "
            "three-scenario story has no load on this drive where it appears whole")


def _why_drive(runs: dict, tag: str, workloads: List[dict], region: Optional[dict] = None) -> str:
    """Where a command's time goes on this drive (seed 1's Scenario 1 and 3), and what the writes
    ask of its DRAM: the reasons the scenarios differ, or do not."""
    s1, s3 = runs[f"{tag}-S1-seed1"], runs[f"{tag}-S3-seed1"]
    dec = s3["classes"]["high"]["all"].get("ssd_decomposition", {}).get("mean_us", {})
    util = {sc: s["devices"]["ssd"]["ssd"]["chip_utilization"]["mean"] for sc, s in (("S1", s1), ("S3", s3))}
    blocks = lambda w: (w["size"]["min"] + w["size"]["max"]) / 2 * 4096
    writes = sum(w["arrival"]["rate_iops"] * (1 - w["read_fraction"]) * blocks(w) for w in workloads)
    parts = ", ".join(f"{k} {v:.0f}" for k, v in sorted(dec.items(), key=lambda kv: -kv[1]) if v >= 1)
    return (f"the flash is not where the classes wait: mean chip utilization {util['S1']:.2f} (S1) / {util['S3']:.2f} (S3), and "
            f"High's device time in Scenario 3 is {parts} µs (per component). The writes offer "
            f"{writes / 1e6:.0f} MB/s into the write cache, whose DRAM moves {DRAM_BYTES_PER_S / 1e6:.0f} MB/s (MQSim's stock "
            f"100 MT/s × 1 B): the DRAM transfer and the mapping reads hold the controller's 8 command slots, so commands queue "
            "in the SQs, where only NVMe arbitration acts; device-level WRR orders the die queues, which stay short, so "
            "Scenario 3 changes little over Scenario 2. With the slots saturated, Scenario 1's round robin serves the SQs "
            "in equal turns of commands; High offers the fewest commands (" + " / ".join(
                f"{w['arrival']['rate_iops']:,.0f}" for w in workloads) + " per second, H/M/L) — it is the most intense by "
            "bytes, not by commands — so it waits least" + _why_map(region))


def _fmt(m: Dict[str, float]) -> str:
    return " / ".join(f"{m[c]:.1f}" for c in CLASSES) + " µs (H/M/L)"


def _vdi_claims(tag: str, m: Dict[str, Dict[str, float]], label: str, why: Optional[str] = None) -> List[Claim]:
    """The three scenario claims; `why` is given to those that do not hold."""
    return [c if c.holds is not False or why is None else replace(c, why=why) for c in _scenario_claims(tag, m, label)]


#: The thesis' workloads (Fujitsu VDI, Microsoft TPC-C traces) are not at hand: synthetic stand-ins
#: and two short samples play them, so a claim that fails is first of all data-limited.
DATA = "data unavailable"


def _scenario_claims(tag: str, m: Dict[str, Dict[str, float]], label: str) -> List[Claim]:
    s1, s2, s3 = m["S1"], m["S2"], m["S3"]
    gap1 = s1["high"] - min(s1["medium"], s1["low"])
    gap2 = s2["high"] - min(s2["medium"], s2["low"])
    return [
        Claim(f"{tag}-s1-high-worst", SOURCE, f"{label}, Scenario 1 (no QoS): High, the most intense class, has the worst mean latency "
              "(thesis: High > 85 µs, Medium < 70, Low < 40)", "High > Medium and High > Low", _fmt(s1),
              s1["high"] > s1["medium"] and s1["high"] > s1["low"], cause=DATA),
        Claim(f"{tag}-s2-narrows", SOURCE, f"{label}, Scenario 2 (NVMe WRR only): High and Medium improve, Low worsens, the gap narrows "
              "but High is still not the best", "High(S2) < High(S1), Medium(S2) < Medium(S1), Low(S2) > Low(S1), gap(S2) < gap(S1), High(S2) > min(Medium, Low)",
              f"{_fmt(s2)}; High's gap to the best class {gap1:.1f} → {gap2:.1f} µs",
              s2["high"] < s1["high"] and s2["medium"] < s1["medium"] and s2["low"] > s1["low"] and gap2 < gap1 and gap2 > 0,
              cause=DATA),
        Claim(f"{tag}-s3-ordered", SOURCE, f"{label}, Scenario 3 (NVMe WRR + device-level WRR): High < Medium < Low mean latency "
              "(thesis: High ≈ 50 µs, Medium ≈ 60 µs, Low much worse)", "High < Medium < Low", _fmt(s3),
              s3["high"] < s3["medium"] < s3["low"],
              ablation=ablation("Scenario 1: no QoS", s1["high"] < s1["medium"] < s1["low"]), cause=DATA),
    ]


def _systor_workloads(traces: Path) -> Optional[List[dict]]:
    a = traces / "snia_systor17_sample" / "systor17-traces-sample.csv"
    b = traces / "snia_systor17_sample" / "systor17-additional-sample.csv"
    if not (a.is_file() and b.is_file()):
        return None
    # Time compression sets the intensity order High > Medium > Low; Low replays sample A
    # slower and shifted to other addresses.
    spec = {"high": (a, 1 / 20, "0"), "medium": (b, 1 / 10, "0"), "low": (a, 1 / 8, "1TiB")}
    return [{
        "name": c, "device": "ssd", "class": c,
        "trace": {"path": str(p), "format": "systor17", "time_scale": scale, "offset_shift": shift},
    } for c, (p, scale, shift) in spec.items()]


def _systor_why(out_dir: Path, wl: List[dict], m: Dict[str, Dict[str, float]]) -> str:
    """Why WRR cannot order the sample replays: each class replayed alone (Scenario 1), and
    Scenario 3 with weights far above High's share of the load."""
    sc = {f"systor-alone-{c}": _scenario("rr", False, [w for w in wl if w["class"] == c], 1, "80ms") for c in CLASSES}
    steep = _scenario("wrr", True, wl, 1, "80ms")
    for k in ("nvme", "scheduler"):
        steep["device"][0][k]["weights"] = [8, 2, 1]
    sc["systor-S3-8-2-1"] = steep
    runs = run_all(out_dir, sc)
    alone = {c: runs[f"systor-alone-{c}"]["classes"][c]["all"] for c in CLASSES}
    lat = {c: alone[c]["lat_us"]["mean"] for c in CLASSES}
    die = alone["high"]["ssd_decomposition"]["mean_us"].get("die_queue", 0.0) if alone["high"].get("ssd_decomposition") else 0.0
    size_kib = {c: alone[c]["bytes"] / max(alone[c]["ios"], 1) / 1024 for c in CLASSES}
    share = alone["high"]["bytes"] / sum(a["bytes"] for a in alone.values())
    s8 = {c: runs["systor-S3-8-2-1"]["classes"][c]["all"]["lat_us"]["mean"] for c in CLASSES}
    compression = 1 / next(w["trace"]["time_scale"] for w in wl if w["class"] == "high")
    return (f"High's latency is mostly its own: replayed alone it averages {lat['high']:.0f} µs ({die:.0f} µs of it queued at "
            f"the dies behind its own pages; its requests average {size_kib['high']:.0f} KiB against Medium's "
            f"{size_kib['medium']:.0f}, and the {compression:.0f}× time compression packs the sample's bursts), more than Medium's "
            f"{m['S1']['medium']:.0f} µs with all three sharing the drive (alone: Medium {lat['medium']:.0f}, Low {lat['low']:.0f} µs), "
            "so no arbitration between the classes can put High below Medium. WRR 3:2:1 gives High half of the turns "
            f"while all three wait, barely more than its share of the load ({100 * share:.0f} % of the bytes), so it changes "
            f"little (High {m['S1']['high']:.0f} → {m['S2']['high']:.0f} µs in Scenario 2, {m['S3']['high']:.0f} in 3) and "
            f"Medium, whose turns it takes, worsens ({m['S1']['medium']:.0f} → {m['S2']['medium']:.0f} µs); weights 8:2:1 in "
            f"Scenario 3 take High to {s8['high']:.0f} µs at the others' cost ({_fmt(s8)})")


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    claims: List[Claim] = []
    runs: dict = {}
    vdi = _means(out_dir, "vdi", VDI, SEEDS, runs_out=runs)
    region = None if quick else load_map(out_dir)
    claims += _vdi_claims("vdi", vdi, "VDI-like synthetic mix", _why_drive(runs, "vdi", VDI, region))

    tpcc = _means(out_dir, "tpcc", TPCC, SEEDS)
    panels = {"VDI-like mix": vdi, "TPC-C-like mix": tpcc}
    s1, s2, s3 = tpcc["S1"], tpcc["S2"], tpcc["S3"]
    differentiated = lambda m: m["high"] <= 1.05 * m["medium"] and m["medium"] < m["low"]
    no_qos = ablation("Scenario 1: no QoS", differentiated(s1))
    vacuous_why = (f"Scenario 1 (no QoS) already gives this order ({_fmt(s1)}): with High and Medium light and Low "
                   "intense, the classes' own intensities order their latencies")
    claims.append(Claim("tpcc-s2-suffices", SOURCE, "TPC-C-like mix (light High and Medium, intense Low), Scenario 2: NVMe WRR alone "
                        "already differentiates (High ≤ Medium within 5%, both far below Low)", "High ≤ 1.05·Medium, Medium < Low",
                        _fmt(s2), differentiated(s2), why=vacuous_why if no_qos["holds"] else None, ablation=no_qos, cause="data unavailable"))
    claims.append(Claim("tpcc-s3-keeps", SOURCE, "TPC-C-like mix, Scenario 3: device-level WRR keeps the order NVMe WRR gave",
                        "High ≤ 1.05·Medium, Medium < Low", _fmt(s3), differentiated(s3), why=vacuous_why if no_qos["holds"] else None,
                        ablation=no_qos, cause="data unavailable"))

    shared = Path(os.environ.get("NEST_SHARED", "../shared")).resolve()
    wl = _systor_workloads(shared / "traces")
    if wl is None:
        for cid in ("s1-high-worst", "s2-narrows", "s3-ordered"):
            claims.append(Claim(f"systor-{cid}", SOURCE, "the same claims with the real SYSTOR'17 samples as the three classes",
                                "see the vdi-* claims", None, None, why=f"SYSTOR'17 samples not found under {shared / 'traces'} (set NEST_SHARED)"))
    else:
        m = _means(out_dir, "systor", wl, [1], duration="80ms")
        limited = ("data-limited (SPEC §13 item 10): the thesis replayed Fujitsu's VDI traces, of which only two 999-request "
                   "SYSTOR'17 samples are at hand; the samples' result is shown, not judged. ")
        claims += [replace(c, holds=None, why=limited + ("they hold on the samples" if c.holds else "on the samples: "
                                                         + _systor_why(out_dir, wl, m)))
                   for c in _scenario_claims("systor", m, "real SYSTOR'17 samples")]
        panels["SYSTOR'17 samples"] = m
    names = {"S1": "S1: no QoS", "S2": "S2: NVMe WRR", "S3": "S3: + device WRR"}
    figures.bars(out_dir, "thesis-fig4.9", {p: {names[s]: m[s] for s in names} for p, m in panels.items()}, "mean latency (µs)",
                 title="Storage-end QoS: mean latency per class (thesis Fig 4.9)")
    return write_claims(out_dir, "storage-qos", claims, regions=[region] if region else None)
