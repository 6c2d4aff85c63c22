"""src-classes: does storage-side rate control compose with E2E class differentiation? (issue 19,
beyond the SRC paper; docs/src.md).

`src-incast`'s 3:1 set-up (SRC's Clos, one initiator, three `ssd-a` targets, 38 Gb/s of 44 KB
reads offered with as many 23 KB writes), with every stream split in two tenants of equal load:
class `high` and class `low`. Four runs cross the transport with the NVMe arbitration:
- `qrdma-wrr`: QRDMA (the QTCP paper's class-aware DCQCN: each class's connection cuts by its
  quality factor) and the NVMe controller's per-class WRR (3 : 1 for high : low): the E2E class
  differentiation of the thesis, no SRC;
- `qrdma-src`: QRDMA, and SRC's split read/write SQs with an `src` coordinator (the shipped
  `ssd-a` model) at each target — the split SQs replace the per-class WRR;
- `dcqcn-wrr` and `dcqcn-src`: the same with DCQCN, which treats the classes alike.

Claims (NeSt's questions, computed from the runs):
- QRDMA + WRR gives the high class more of the reads than the low class;
- with SRC's split SQs in place of the WRR, the high class keeps that share (the composition);
- split SQs let the targets deliver more reads than per-class WRR (a write-filled drive);
- SRC acts under QRDMA (it moves the weight), reported.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Dict, List

import numpy as np

from ..claims import Claim, write_claims
from . import figures
from . import src_common as sc
from .framework import conservation_claim, run_all

NAME = "src-classes"
DESCRIPTION = "SRC beside QRDMA and per-class NVMe WRR: two tenant classes at 3:1 in SRC's Clos — does storage-side rate control keep E2E class differentiation?"
FIGURES = ["src-classes"]
SOURCE = "issue 19 (beyond the SRC paper)"
READ_GBPS = 38.0
TARGETS = 3
RUNS = [(cc, arb) for cc in ("qrdma", "dcqcn") for arb in ("wrr", "src")]
CLASSES = ("high", "low")


def _scenario(cc: str, arb: str, ld: sc.Load, model: sc.Model) -> dict:
    """The 3:1 scenario with each stream split into a high and a low tenant of half its load."""
    base = sc.scenario(f"src-classes-{cc}-{arb}", ld, 1, TARGETS, model, mode="src")
    base["nvmeof"]["transport"] = cc
    workloads = []
    for w in base["workload"]:
        for c in CLASSES:
            half = copy.deepcopy(w)
            half["name"] = f"{w['name']}_{c}"
            half["class"] = c
            half["arrival"]["rate_iops"] = w["arrival"]["rate_iops"] / 2
            half["max_ios"] = w["max_ios"] // 2
            workloads.append(half)
    base["workload"] = workloads
    if arb == "wrr":
        for d in base["device"]:
            d["nvme"] = {"sq_depth": 1 << 16}
        base.pop("coordinator")
    return base


def _class_reads(run_dir: Path) -> Dict[str, dict]:
    """Per class: read Gb/s at the initiator while both classes' reads flow, and read p99 (µs)."""
    import pyarrow.parquet as pq

    t = pq.read_table(str(run_dir / "requests.parquet"), columns=["class", "op", "size", "t_complete_ps", "latency_us"]).to_pydict()
    op = np.asarray(t["op"])
    cls = np.asarray(t["class"])
    done = np.asarray(t["t_complete_ps"], dtype=float) / 1e12
    size = np.asarray(t["size"], dtype=float)
    lat = np.asarray(t["latency_us"], dtype=float)
    reads = op == "read"
    # While both flow: up to the earlier of the two classes' last read.
    end = min(done[reads & (cls == c)].max() for c in CLASSES)
    out = {}
    for c in CLASSES:
        m = reads & (cls == c)
        inside = m & (done <= end)
        out[c] = {"gbps": float(size[inside].sum() * 8 / end / 1e9), "p99_us": float(np.percentile(lat[m], 99)), "until_ms": end * 1e3}
    return out


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    out_dir = Path(out_dir)
    model = sc.shipped_model(sc.PRESET)
    rate = READ_GBPS * 1e9 / 8 / 44_000
    ld = sc.Load(read_rate=rate, write_rate=rate, read_bytes=44_000, write_bytes=23_000, per_target=1200 if quick else 4000)
    runs = run_all(out_dir, {f"{cc}-{arb}": _scenario(cc, arb, ld, model) for cc, arb in RUNS})
    cr = {k: _class_reads(out_dir / k) for k in runs}
    share = {k: v["high"]["gbps"] / (v["high"]["gbps"] + v["low"]["gbps"]) for k, v in cr.items()}

    figures.bars(out_dir, "src-classes", {
        "read throughput while both classes read (Gb/s)": {k: {c: cr[k][c]["gbps"] for c in CLASSES} for k in runs},
        "read p99 (µs)": {k: {c: cr[k][c]["p99_us"] for c in CLASSES} for k in runs},
    }, "")

    def shown(k: str) -> str:
        v = cr[k]
        return (f"high {v['high']['gbps']:.2f} / low {v['low']['gbps']:.2f} Gb/s (high's share {share[k]:.0%}), "
                f"p99 {v['high']['p99_us'] / 1e3:.1f} / {v['low']['p99_us'] / 1e3:.1f} ms")

    claims: List[Claim] = []
    ok = share["qrdma-wrr"] >= 0.55
    claims.append(Claim("qrdma-wrr-differentiates", SOURCE, "QRDMA with per-class NVMe WRR gives the high class more of the reads "
                        "than the low class (equal loads)", "high's share of the reads ≥ 55 %",
                        shown("qrdma-wrr") + f"; DCQCN + WRR: {share['dcqcn-wrr']:.0%}", ok,
                        None if ok else "the per-class WRR does not bind: the drives are not the bottleneck"))
    keep = share["qrdma-src"] >= share["qrdma-wrr"] - 0.05
    claims.append(Claim("src-keeps-classes", SOURCE, "With SRC's split SQs in place of the per-class WRR, the high class keeps its "
                        "share of the reads (within 5 points)", f"≥ {share['qrdma-wrr'] - 0.05:.0%}", shown("qrdma-src"), keep,
                        None if keep else "the split SQs put both classes' reads in one FIFO RSQ, so the drives no longer favour the "
                        f"high class; QRDMA gives high {share['qrdma-src']:.0%} against DCQCN's {share['dcqcn-src']:.0%}"))
    total = {k: v["high"]["gbps"] + v["low"]["gbps"] for k, v in cr.items()}
    gain = total["qrdma-src"] / total["qrdma-wrr"]
    claims.append(Claim("split-sqs-raise-reads", SOURCE, "Split SQs (at w = 1) let the targets deliver more reads than per-class WRR: "
                        "writes no longer fill the drive's command slots", "reads (split SQs) ≥ 1.5 × reads (WRR), QRDMA",
                        f"{total['qrdma-src']:.1f} vs {total['qrdma-wrr']:.1f} Gb/s ({gain:.1f} ×)", gain >= 1.5,
                        None if gain >= 1.5 else "the drives' slots are not what binds: "
                        + sc.initiator_pacing(out_dir / "qrdma-src", runs["qrdma-src"], TARGETS)))
    reps = [runs["qrdma-src"]["coordinators"][f"src{j}"]["report"] for j in range(TARGETS)]
    moved = max(r["max_w"] for r in reps) > 1
    claims.append(Claim("src-acts-under-qrdma", SOURCE, "Under QRDMA SRC moves the write weight on the rate changes of the targets' "
                        "channels", "reported", f"max w {max(r['max_w'] for r in reps):.0f}, "
                        f"{sum(r['rate_cuts'] for r in reps):.0f} rate cuts", None,
                        "reported, not judged: " + ("SRC acted" if moved else f"SRC kept w = 1 through "
                                                    f"{sum(r['rate_cuts'] for r in reps):.0f} rate cuts, as in the other SRC "
                                                    "experiments (docs/src.md: on NeSt's ssd-a the model's reads barely move with w)")))
    claims.append(conservation_claim(runs))
    claims = sc.caused(claims, {"src-keeps-classes": "model", "": sc.SET_UP})
    return write_claims(out_dir, NAME, claims)
