"""src-throughput: read, write and aggregate throughput under DCQCN with and without SRC, and the
pauses the targets receive (SRC §IV-D, Fig 7–8).

The paper's set-up (`src_common`, at SPEC §13.8's readings: NVMe over RDMA as SPDK runs it —
writes' data pulled by RDMA READ on the target's queue pair, SPDK's bounded buffer pool, queue
depth 128 per connection; "DCQCN only" the NVMe default arbitration): its Clos, one initiator and
two targets (one `ssd-a` each),
a VDI-like trace — reads 44 KB and writes 23 KB on average, ~10 µs between arrivals of each type
(the read load offered is 44 KB / 10 µs = 35.2 Gb/s), 5,000 reads and 5,000 writes per target,
run until every request completes. SRC runs on the forest shipped for `ssd-a`.

The paper's figure has bars over time; the claims read it as (NeSt's reading):
- *congested*: the 5 ms bins whose pauses reach half of the busiest bin's;
- *falls from ~5 to ~1 Gb/s*: reads while congested at most 30 % of the best 5 ms bin before
  (the paper's 1/5);
- aggregate *from 7.5 to 2.5 Gb/s* with DCQCN only: at most half of its best bin while congested;
  *only slightly* with SRC: at least 80 %;
- *clears at ~80 ms*: the last millisecond with pauses ≥ 10 % of the busiest, within ±25 %.

Full runs also repeat the DCQCN-only / SRC pair on a drive where w moves throughput (`W_ACTS`:
`src-weights`' map) with a TPM trained on that drive, to tell whether the drive was what kept
SRC's weight at 1 (claim `w-acts-src-gains`, NeSt's question; docs/src.md), and map the region
where the network does throttle the reads (`src-vs-background`: background flows into the
initiator's port × its queue depth, DCQCN-only / SRC / a fixed w = 8; claim `bg-src-gains`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np

from ..claims import Claim, ablation, write_claims
from . import figures
from . import src_common as sc
from .framework import conservation_claim, expect, run_all
from .regions import Axis, region_map

NAME = "src-throughput"
DESCRIPTION = "Read, write and aggregate throughput and pauses per ms, DCQCN-only vs DCQCN-SRC, 1 initiator and 2 ssd-a targets in SRC's Clos (SRC Fig 7–8)"
FIGURES = ["src-fig7", "src-fig8"]
SOURCE = "SRC §IV-D"
BIN_MS = 5
#: Drives a target in the flash-array runs (the paper launches "multiple SSD instances on each
#: Target" without saying how many).
ARRAY = 4


def load(quick: bool) -> sc.Load:
    return sc.Load(read_rate=100_000, write_rate=100_000, read_bytes=44_000, write_bytes=23_000, per_target=1500 if quick else 5000)


def phases(th: sc.Throughput) -> dict:
    """Best 5 ms bin before congestion and the means over the congested bins, per series."""
    p = np.asarray(sc.binned(th.pauses, BIN_MS))
    series = {k: np.asarray(sc.binned(getattr(th, k), BIN_MS)) for k in ("read", "write", "aggregate")}
    out = {"congested_bins": 0}
    if p.max() <= 0:
        return out
    hot = p >= 0.5 * p.max()
    first = int(np.nonzero(hot)[0][0])
    out["congested_bins"] = int(hot.sum())
    out["first_congested_ms"] = first * BIN_MS
    for k, v in series.items():
        before = v[: first] if first > 0 else v[:1]
        out[f"{k}_before"] = float(before.max())
        out[f"{k}_congested"] = float(v[hot].mean())
    return out


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    out_dir = Path(out_dir)
    model = sc.shipped_model(sc.PRESET)
    ld = load(quick)
    scenarios = {m: sc.scenario(f"src-throughput-{m}", ld, 1, 2, model, mode=m) for m in sc.MODES}
    # The paper's targets are flash arrays: the same load on ARRAY drives a target.
    for m in ("dcqcn", "src"):
        scenarios[f"array-{m}"] = sc.scenario(f"src-throughput-array-{m}", ld, 1, 2, model, mode=m, drives=ARRAY)
    runs = run_all(out_dir, scenarios)
    th = {k: sc.throughput(out_dir / k, 2) for k in runs}
    ph = {k: phases(v) for k, v in th.items()}
    why = sc.why_w_stays(out_dir / "src", th["src"], 2, runs["src"], model)

    figures.lines(out_dir, "src-fig7", {
        f"{label} ({BIN_MS} ms bins)": {s: ([BIN_MS * i for i in range(len(sc.binned(getattr(th[k], s), BIN_MS)))], sc.binned(getattr(th[k], s), BIN_MS))
                                         for s in ("read", "write", "aggregate")}
        for k, label in sc.MODES.items()}, "time (ms)", "Gb/s")
    figures.lines(out_dir, "src-fig8", {"pauses received by the targets": {
        label: (list(range(len(th[k].pauses))), list(th[k].pauses)) for k, label in sc.MODES.items()}},
        "time (ms)", "pauses per ms")

    claims: List[Claim] = []

    def ratio(k: str, series: str) -> Optional[float]:
        p = ph[k]
        return p[f"{series}_congested"] / p[f"{series}_before"] if p["congested_bins"] and p[f"{series}_before"] > 0 else None

    def shown(k: str, series: str) -> str:
        p = ph[k]
        if not p["congested_bins"]:
            return "no pauses"
        return f"{p[f'{series}_before']:.2f} → {p[f'{series}_congested']:.2f} Gb/s ({ratio(k, series):.0%})"

    for k, label in (("dcqcn", sc.MODES["dcqcn"]), ("src", sc.MODES["src"])):
        r = ratio(k, "read")
        ok = r is not None and r <= 0.3
        claims.append(Claim(f"reads-fall-{k}", "SRC Fig 7", f"{label}: under the congestion at the start the read throughput falls from "
                            "~5 to ~1 Gb/s", "reads while congested ≤ 30 % of the best 5 ms before", shown(k, "read"), ok,
                            None if ok else f"the reads are bound by the drives, not the network: {why}"))
    r = ratio("dcqcn", "aggregate")
    ok = r is not None and r <= 0.5
    claims.append(Claim("dcqcn-aggregate-collapses", "SRC Fig 7", "DCQCN-only: the aggregate throughput drops from 7.5 to 2.5 Gb/s",
                        "aggregate while congested ≤ 50 % of the best 5 ms before", shown("dcqcn", "aggregate"), ok,
                        None if ok else f"the reads hardly fall, and the writes go on at the drives' pace: {why}"))
    def holds_up(k: str) -> bool:
        r = ratio(k, "aggregate")
        return r is not None and r >= 0.8

    ok = holds_up("src")
    claims.append(Claim("src-aggregate-holds", "SRC Fig 7", "DCQCN-SRC: the aggregate throughput decreases only slightly",
                        "aggregate while congested ≥ 80 % of the best 5 ms before (and not so with DCQCN only)",
                        shown("src", "aggregate"), ok, None if ok else why, ablation=ablation("dcqcn", holds_up("dcqcn"))))
    agg = {k: th[k].mean("aggregate") for k in th}
    claims.append(replace(expect("src-raises-aggregate", "SRC §IV-D", "Over the run (first and last 10 % trimmed) SRC's aggregate throughput is "
                                 "above DCQCN-only's (the paper: 'just slightly decreased' against 7.5 → 2.5 Gb/s)",
                                 agg["src"] / agg["dcqcn"], at_least=1.1,
                                 why=f"aggregates {agg['src']:.2f} vs {agg['dcqcn']:.2f} Gb/s (split SQs at w = 1: {agg['ssq']:.2f}): {why}"),
                          # SRC's weight off: the split SQs alone.
                          ablation=ablation("ssq", agg["ssq"] / agg["dcqcn"] >= 1.1)))
    ends = {k: sc.congestion_end(th[k]) for k in th}
    e = ends["dcqcn"]
    claims.append(Claim("congestion-clears-80ms", "SRC §IV-D", "The congestion is relieved at around 80 ms", "last ms with pauses "
                        "≥ 10 % of the busiest: 80 ms ± 25 % (DCQCN-only)", "no pauses" if e is None else f"{e} ms (SRC: {ends['src']} ms)",
                        e is not None and abs(e - 80) <= 20,
                        None if e is not None and abs(e - 80) <= 20 else
                        f"the pauses follow the read data: they last as long as the reads arrive ({th['dcqcn'].pauses.sum():.0f} pauses, "
                        f"busiest ms {th['dcqcn'].pauses.max():.0f}), and the drives deliver the reads as they arrive"))
    reads = {k: th[k].mean("read") for k in th}
    claims.append(sc.unless_idle(expect("src-reads-follow-dcqcn", "SRC §IV-D", "SRC controls the reads to the rate DCQCN demands: the "
                                        "read throughput with SRC is DCQCN-only's", reads["src"], target=reads["dcqcn"], tol=0.15,
                                        unit=" Gb/s"), runs["src"], 2))
    # The same pair with each target a flash array of ARRAY drives under one SRC (r divided among
    # the drives by their reads, docs/src.md).
    arr = {k: th[f"array-{k}"].mean("aggregate") for k in ("dcqcn", "src")}
    arr_reads = {k: th[f"array-{k}"].mean("read") for k in ("dcqcn", "src")}
    rep = [runs["array-src"]["coordinators"][f"src{j}"]["report"] for j in range(2)]
    from .. import tpm

    cap_read = tpm.capacity(sc.PRESET)[0] * 8 / 1e9
    claims.append(sc.unless_idle(expect(
        "array-src-raises-aggregate", "SRC §IV-A, §IV-D", f"With each target a flash array ({ARRAY} ssd-a), SRC's aggregate throughput is "
        "above DCQCN-only's", arr["src"] / arr["dcqcn"], at_least=1.1,
        why=f"aggregates {arr['src']:.2f} vs {arr['dcqcn']:.2f} Gb/s (reads {arr_reads['src']:.2f} vs {arr_reads['dcqcn']:.2f}); "
            f"each drive gets a share of the demand by its reads, and the drives' mean weight stays "
            f"{', '.join(format(r['mean_w'], '.2f') for r in rep)} (max {max(r['max_w'] for r in rep):.0f}): "
            f"a drive delivers {arr_reads['src'] / (2 * ARRAY):.2f} Gb/s of reads on average against {cap_read:.1f} Gb/s backlogged, "
            "so its SQs seldom hold both types and w has little to share"),
        runs["array-src"], 2))
    claims.append(conservation_claim(runs))
    regions = None
    if not quick:
        acts, w_model = _where_w_acts(out_dir, ld)
        region, bg = _background(out_dir, ld, w_model)
        claims += [acts, bg]
        regions = [region]
    claims = sc.caused(claims, {"": sc.SOURCE_SILENT})
    return write_claims(out_dir, NAME, claims, regions=regions)


#: A drive on which w moves throughput (`src-weights`' map): ssd-a with a cache DRAM that does not
#: bind its writes (100 MT/s × 8 B) and a write cache dirty from time 0, so writes reach the
#: flash the reads use.
W_ACTS = {"cache": {"dram_rate": 100, "dram_burst": 8}, "precondition": {"occupancy": 0.0, "overwrites": 0.0, "dirty_cache": True}}


def _where_w_acts(out_dir: Path, ld: sc.Load) -> tuple:
    """The Clos again on a drive where w acts, with a TPM trained on that drive (300 + 300 samples):
    whether the drive was what kept SRC's weight at 1 (NeSt's question, SPEC §13.2). Returns the
    claim and the model (the background map runs on it too)."""
    from .. import tpm

    base = out_dir / "w-acts"
    base.mkdir(parents=True, exist_ok=True)
    s = tpm.join(tpm.samples(sc.PRESET, 300, seed=31, kind="micro", device=W_ACTS),
                 tpm.samples(sc.PRESET, 300, seed=32, kind="synthetic", device=W_ACTS))
    importance = float(tpm.compare(s).importances["w"])
    path = base / "model.json"
    tpm.export(tpm.fit(s), path, preset=sc.PRESET, samples=len(s.x), per_kind=300)
    model = sc.Model(str(path), importance)
    scenarios = {}
    for m in ("dcqcn", "src"):
        x = sc.scenario(f"src-throughput-w-acts-{m}", ld, 1, 2, model, mode=m)
        for d in x["device"]:
            d.update(W_ACTS)
        scenarios[m] = x
    runs = run_all(base, scenarios)
    th = {k: sc.throughput(base / k, 2) for k in runs}
    agg = {k: th[k].mean("aggregate") for k in th}
    max_w = max(runs["src"]["coordinators"][f"src{j}"]["report"]["max_w"] for j in range(2))
    ok = max_w > 1 and agg["src"] >= 1.1 * agg["dcqcn"]
    return Claim("w-acts-src-gains", "issue 65 (beyond the paper)",
                 "On a drive where w moves throughput (ssd-a with a 100 MT/s × 8 B DRAM and a steady-state write cache, its own "
                 "TPM), SRC moves w and raises the aggregate over DCQCN-only", "max w > 1 and aggregate ≥ 1.1× DCQCN-only's",
                 f"max w {max_w:.0f}; aggregates {agg['src']:.2f} vs {agg['dcqcn']:.2f} Gb/s", ok,
                 None if ok else sc.why_w_stays(base / "src", th["src"], 2, runs["src"], model)), model


#: The region map `src-vs-background` (NeSt's, SPEC §13.2): the paper's congestion comes from
#: traffic it does not describe, so long-lived DCQCN flows from other hosts of the initiator's ToR
#: into the initiator share its port with the read data for the first BG_MS ms (the paper's
#: congestion clears at ~80 ms), on the `W_ACTS` drive with its own TPM. Swept: how many such
#: flows, and the initiator's queue depth (SPEC §13.8's 128 per connection, or unbounded: what a
#: replayer with its own queue per stream would keep).
BACKGROUND = [0, 4, 12]
QUEUES = {"128": None, "unbounded": 1 << 16}
BG_MS = 100
#: The three runs of each point: DCQCN-only, SRC, and split SQs at a fixed w = 8 without SRC —
#: the lever SRC pulls, pulled all the way (w = 8 is the TPM's largest).
BG_RUNS = ["dcqcn", "src", "w8"]


def background_flows(n: int) -> List[dict]:
    """`n` backlogged DCQCN flows into initiator 0 from the hosts after it (its ToR), for BG_MS ms."""
    return [{"name": f"bg{k}", "src": sc.initiator(1 + k), "dst": sc.initiator(0), "class": "low", "transport": "dcqcn",
             "stop": f"{BG_MS}ms"} for k in range(n)]


def _while_background(run_dir: Path) -> Dict[str, float]:
    """Mean reads, writes and aggregate (Gb/s) from 10 ms to BG_MS ms (while the background runs,
    past the start)."""
    th = sc.throughput(run_dir, 2)
    w = slice(10, BG_MS)
    return {k: float(getattr(th, k)[w].mean()) for k in ("read", "write", "aggregate")}


def _background(out_dir: Path, ld: sc.Load, model: sc.Model) -> tuple:
    """The map and its claim at 12 flows with SPEC's queue depth."""
    found: Dict[tuple, dict] = {}

    def build(n: float, qd: str, run: str) -> dict:
        x = sc.scenario(f"src-throughput-bg{n}-{qd}-{run}", ld, 1, 2, model, mode="ssq" if run == "w8" else run)
        for d in x["device"]:
            d.update(W_ACTS)
            if run == "w8":
                d["nvme"]["write_weight"] = 8
        if run == "w8":
            x["coordinator"] = []  # no SRC: the weight stays where it was set
        if QUEUES[qd]:
            x["nvmeof"]["queue_depth"] = QUEUES[qd]
        x["flow"] = background_flows(int(n))
        return x

    def measure(s: Dict[str, dict], dirs: Dict[str, Path], at) -> Dict[str, float]:
        got = {k: _while_background(dirs[k]) for k in BG_RUNS}
        max_w = max(s["src"]["coordinators"][f"src{j}"]["report"]["max_w"] for j in range(2))
        found[(at["background"], at["queue"])] = {"agg": {k: v["aggregate"] for k, v in got.items()},
                                                   "read": got["dcqcn"]["read"], "max_w": max_w, "waits": sc.write_waits(dirs["dcqcn"]),
                                                   "qd": s["dcqcn"]["nvmeof"]["params"].get("queue_depth")}
        base = max(got["dcqcn"]["aggregate"], 1e-9)
        return {"SRC ÷ DCQCN-only": got["src"]["aggregate"] / base, "w = 8 ÷ DCQCN-only": got["w8"]["aggregate"] / base}

    doc = region_map(out_dir, "src-vs-background", title="SRC's aggregate gain against background flows into the initiator "
                     "(ssd-a where w acts, its own TPM)", x=Axis("background", "background flows into the initiator", BACKGROUND),
                     series=Axis("queue", "initiator queue depth", list(QUEUES)), variants=BG_RUNS, build=build, measure=measure,
                     ylabel="aggregate ÷ DCQCN-only's (first 100 ms)", reference={"background": 0, "queue": "128"},
                     holds=lambda curve, y, point: y >= 1.1, effect="aggregate ≥ 1.1× DCQCN-only's while the background runs")
    n = BACKGROUND[-1]
    f = found[(n, "128")]
    quiet = found[(0, "128")]["agg"]["dcqcn"]
    ok = f["max_w"] > 1 and f["agg"]["src"] >= 1.1 * f["agg"]["dcqcn"]
    unb = found[(n, "unbounded")]
    moved = f"SRC moves w (max {f['max_w']:.0f})" if f["max_w"] > 1 else "SRC keeps w = 1"
    why = (f"with {n} flows the aggregate is {f['agg']['dcqcn']:.2f} Gb/s with DCQCN only against {quiet:.2f} without them "
           f"(reads {f['read']:.2f} Gb/s) and {moved}; split SQs at a fixed w = 8 give {f['agg']['w8']:.2f} Gb/s. "
           f"Initiator queue depth {f['qd']}: {_where_writes_wait(f['waits'])}. Unbounded: {_where_writes_wait(unb['waits'])}; "
           f"aggregates {unb['agg']['dcqcn']:.2f} / {unb['agg']['src']:.2f} / {unb['agg']['w8']:.2f} Gb/s (DCQCN-only / SRC / w = 8)")
    claim = Claim("bg-src-gains", "issue 65 (beyond the paper)",
                  f"When background flows into the initiator throttle the read data ({n} flows, first {BG_MS} ms; ssd-a where w acts, "
                  "its own TPM), SRC raises the aggregate over DCQCN-only", "aggregate ≥ 1.1× DCQCN-only's while the background runs",
                  f"{f['agg']['src']:.2f} vs {f['agg']['dcqcn']:.2f} Gb/s (max w {f['max_w']:.0f})", ok, None if ok else why,
                  cause=None if ok else sc.SOURCE_SILENT)
    return doc, claim


def _where_writes_wait(w: Dict[str, float]) -> str:
    """The writes' waits (`src_common.write_waits`), saying whether the drive — where w acts —
    holds the largest share (the paper's last link: w recovers the writes waiting there)."""
    at = {"host": "at the initiator", "target": "at the target before the drive (buffer, data pull)",
          "device": "in the drive", "back": "for the completion on the way back"}
    order = sorted(at, key=lambda k: -w[k])
    told = ", ".join(f"{_t(w[k])} {at[k]}" for k in order)
    verdict = ("most of it in the drive, where w acts" if order[0] == "device" else
               "not in the drive, where w acts: the chain breaks at its last link (w recovers the writes)")
    return f"a write waits {told} — {verdict}"


def _t(us: float) -> str:
    return f"{us:.0f} µs" if us < 1000 else f"{us / 1e3:.1f} ms"
