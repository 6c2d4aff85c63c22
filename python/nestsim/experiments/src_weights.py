"""src-weights: SRC's actuator — read and write throughput against the write weight w (SRC §III-B,
Fig 5; SPEC §13 item 8).

The paper runs MQSim behind its split SQs (RSQ, WSQ; token WRR with read weight 1 and write weight
w) with a read and a write stream of the same characteristics and reads off three observations:
at w = 1 reads and writes get the same throughput ("they share the same internal resources");
under moderate or heavy load reads fall and writes rise as w grows; under light load w changes
nothing (the SQs are rarely both backlogged). SPEC §13.8 makes Fig 5 a claim per drive "for
drives with a write cache".

Set-up (NeSt's reading of the figure's grid, whose axes are ranges): each of SRC Table II's drives
as shipped (`ssd-a`, `ssd-b`, `ssd-c`; `--quick`: `ssd-a`), the TPM's micro streams (Poisson
arrivals, exponential sizes of mean 32 KiB — inside the figure's size columns), one read and one
write stream of equal rate at three loads: light 100 MB/s per stream (320 µs gaps), moderate
500 MB/s (64 µs) and heavy 2 GB/s (16 µs, the figure's top row of 10–25 µs gaps); w = 1, 2, 4, 8.
A run lasts 60 ms, measured from 20 ms; throughput is what the drive completed in that window.

Claims per drive: equal at w = 1 under heavy load (write/read within 0.8–1.25); under heavy load
reads fall and writes rise by ≥ 10 % from w = 1 to 8; under light load neither moves by more than
5 %. Where one does not hold the why is computed from the runs (the cache DRAM's busy share, the
reads' occupancy of the drive against the share of its queue depth the split leaves them).

Region map `src-weights-vs-dram` (full runs): on `ssd-a` under heavy load, the w = 8 / w = 1 ratio
of reads and of writes against the cache DRAM's rate (MQSim's stock 100 MT/s × 1 B, the shipped
presets' reading; 100 × 8 B; 1866 × 8 B, a present-day drive's) and the write cache's state at
time 0 (empty, as the TPM samples and the SRC experiments run; dirty to its flush threshold, the
state a write-bound drive keeps, `precondition.dirty_cache`) — and, as a third curve, the drive as
MQSim 7ec40e3 models it (`compat = "mqsim"`, empty cache), the simulator the paper ran: its cold
writes go to the flash at once (eager destage) behind MQSim's back-pressure, and its DRAM row
formula makes a write above a row nearly free (docs/mqsim.md), so the writes meet the reads at the
dies and channels.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List, Optional

from ..claims import Claim, write_claims
from .. import tpm
from . import figures
from .framework import conservation_claim, run_all
from .regions import Axis, region_map

NAME = "src-weights"
DESCRIPTION = "SRC's actuator on each drive: read and write throughput against the write weight w at light, moderate and heavy load (SRC Fig 5)"
FIGURES = ["src-fig5"]
SOURCE = "SRC §III-B, Fig 5"
SIZE = 32 * 1024
#: Per-stream offered bytes/s (reads and writes alike).
LOADS = {"light": 100e6, "moderate": 500e6, "heavy": 2e9}
WEIGHTS = (1, 2, 4, 8)
DURATION_MS, WARMUP_MS = 60.0, 20.0
#: Device queue depths of SRC Table II's drives (the presets mirror the table).
TABLE2_QD = {"ssd-a": 128, "ssd-b": 512, "ssd-c": 512}
#: Cache DRAMs of the region map: label → (MT/s, bytes per transfer).
DRAMS = {"100x1": (100, 1), "100x8": (100, 8), "1866x8": (1866, 8)}
#: The region map's curves: the write cache at time 0, and (``mqsim``) MQSim's model of the drive
#: with an empty cache.
CACHES = ["empty", "dirty", "mqsim"]


def scenario(preset: str, load: str, w: int, device: Optional[dict] = None, seed: int = 1) -> dict:
    gap = SIZE / LOADS[load]
    s = tpm.micro_scenario(preset, w, SIZE, SIZE, gap, gap, DURATION_MS, seed, warmup_ms=WARMUP_MS)
    s["output"] = {"requests": False, "timeseries": False}
    s["device"][0].update(device or {})
    return s


def delivered(summary: dict) -> Dict[str, float]:
    """MB/s of reads and of writes the drive completed in the window."""
    wl = summary["workloads"]
    return {"read": wl["r"]["all"]["carried_gbps"] * 1e3 / 8, "write": wl["w"]["all"]["carried_gbps"] * 1e3 / 8}


def _inside(s: dict, k: str) -> float:
    """Commands of stream ``k`` inside the drive on average (Little: IOPS × time in the drive,
    which is the device time less the SQ wait)."""
    a = s["workloads"][k]["all"]
    return a["carried_iops"] * (a["device_us"]["mean"] - a["device_queue_us"]["mean"]) / 1e6


def _dram_bound(s: dict) -> Optional[str]:
    dram = s["devices"]["ssd"]["ssd"]["dram_utilization"]
    return f"the writes are bound by the cache DRAM (busy {100 * dram:.0f} % of the window; reads do not use it)" if dram >= 0.9 else None


def _why_unequal(s: dict, elsewhere: str) -> str:
    d = delivered(s)
    bound = _dram_bound(s) or "the resource that binds the writes is not the one that binds the reads"
    return f"at w = 1 reads {d['read']:.0f} MB/s, writes {d['write']:.0f} MB/s: {bound}, so each type runs at its own bottleneck; {elsewhere}"


def _why_no_shift(preset: str, lo: dict, hi: dict, elsewhere: str) -> str:
    a, b = delivered(lo), delivered(hi)
    parts = [f"from w = 1 to 8 reads {a['read']:.0f} → {b['read']:.0f} MB/s, writes {a['write']:.0f} → {b['write']:.0f} MB/s"]
    bound = _dram_bound(hi)
    if bound:
        parts.append(bound + " at every w: the fetches w gives them cannot raise them")
    qd = TABLE2_QD.get(preset)
    if qd:
        r1, r8 = (x["workloads"]["r"]["all"]["device_queue_us"]["mean"] for x in (lo, hi))
        text = (f"the reads hold {_inside(lo, 'r'):.0f} → {_inside(hi, 'r'):.0f} commands in the drive (Little), the split's "
                f"⌈QD / (1 + w)⌉ = {math.ceil(qd / 2)} → {math.ceil(qd / 9)} of its {qd}")
        if b["read"] > 0.9 * a["read"]:
            text += (f"; {math.ceil(qd / 9)} already keep the flash as busy as the reads can make it, so their wait moves from "
                     f"the drive to the RSQ ({r1:.0f} → {r8:.0f} µs) without slowing them")
        parts.append(text)
    return "; ".join(parts) + "; " + elsewhere


def _claims(preset: str, runs: Dict[str, dict], weights, elsewhere: Dict[str, str]) -> List[Claim]:
    at = lambda load, w: runs[f"{preset}/{load}/w{w}"]  # noqa: E731
    out = []
    d1 = delivered(at("heavy", 1))
    ratio = d1["write"] / max(d1["read"], 1e-9)
    ok = 0.8 <= ratio <= 1.25
    out.append(Claim(f"{preset}-equal-at-w1", "SRC Fig 5", f"{preset}: at w = 1 reads and writes get the same throughput "
                     "(heavy load)", "write / read 0.8–1.25", f"{ratio:.2f} ({d1['read']:.0f} / {d1['write']:.0f} MB/s)",
                     ok, None if ok else _why_unequal(at("heavy", 1), elsewhere["equal"]), cause=None if ok else "set-up"))
    top = max(weights)
    d8 = delivered(at("heavy", top))
    rf, wr = d8["read"] / max(d1["read"], 1e-9), d8["write"] / max(d1["write"], 1e-9)
    ok = rf <= 0.9 and wr >= 1.1
    out.append(Claim(f"{preset}-heavy-shifts", "SRC Fig 5", f"{preset}: under heavy load reads fall and writes rise as w grows",
                     f"w = {top} against w = 1: reads ≤ 0.9×, writes ≥ 1.1×", f"reads {rf:.2f}×, writes {wr:.2f}×", ok,
                     None if ok else _why_no_shift(preset, at("heavy", 1), at("heavy", top), elsewhere["shift"]),
                     cause=None if ok else "set-up"))
    light = [delivered(at("light", w)) for w in weights]
    spread = max(max(x[k] for x in light) / max(min(x[k] for x in light), 1e-9) for k in ("read", "write")) - 1
    ok = spread <= 0.05
    out.append(Claim(f"{preset}-light-flat", "SRC Fig 5", f"{preset}: under light load w changes nothing", "≤ 5 % across w",
                     f"{100 * spread:.1f} %", ok, None if ok else "the SQs are both backlogged even at 100 MB/s per stream",
                     cause=None if ok else "model"))
    return out


def _region(out_dir: Path, found: Dict[tuple, dict]) -> dict:
    """The map; ``found`` collects each point's (dram, cache) → {w1, w8: delivered}."""
    def build(dram: str, cache: str, w: str) -> dict:
        mts, burst = DRAMS[dram]
        dev = {"cache": {"dram_rate": mts, "dram_burst": burst}}
        if cache == "dirty":
            dev["precondition"] = {"occupancy": 0.0, "overwrites": 0.0, "dirty_cache": True}
        elif cache == "mqsim":
            dev["compat"] = "mqsim"
        return scenario("ssd-a", "heavy", int(w[1:]), dev)

    def measure(s: Dict[str, dict], _dirs, at) -> Dict[str, float]:
        a, b = delivered(s["w1"]), delivered(s["w8"])
        found[(at["dram"], at["cache"])] = {"w1": a, "w8": b}
        return {"reads w8/w1": b["read"] / max(a["read"], 1e-9), "writes w8/w1": b["write"] / max(a["write"], 1e-9)}

    return region_map(out_dir, "src-weights-vs-dram", title="SRC Fig 5's shift on ssd-a (heavy load) against the cache DRAM and its state",
                      x=Axis("dram", "cache DRAM (MT/s × bytes)", list(DRAMS)), series=Axis("cache", "write cache at time 0 (mqsim: empty, MQSim's model)", CACHES),
                      variants=["w1", "w8"], build=build, measure=measure, ylabel="w = 8 / w = 1",
                      reference={"dram": "100x1", "cache": "empty"},
                      holds=lambda curve, y, point: point["reads w8/w1"] <= 0.9 and point["writes w8/w1"] >= 1.1,
                      effect="reads ≤ 0.9× and writes ≥ 1.1× from w = 1 to 8")


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    out_dir = Path(out_dir)
    presets = ["ssd-a"] if quick else list(TABLE2_QD)
    weights = (1, 8) if quick else WEIGHTS
    scenarios = {f"{p}/{load}/w{w}": scenario(p, load, w) for p in presets for load in LOADS for w in weights}
    runs = run_all(out_dir / "runs", scenarios)
    panels: Dict[str, dict] = {p: {} for p in presets}
    for p in presets:
        for load in LOADS:
            d = [delivered(runs[f"{p}/{load}/w{w}"]) for w in weights]
            for k in ("read", "write"):
                panels[p][f"{load} {k}"] = (list(weights), [x[k] for x in d])
    figures.lines(out_dir, "src-fig5", panels, "w (write weight; read weight 1)", "MB/s completed", logy=True, markers=True,
                  title="Read and write throughput against w at three loads (SRC Fig 5)")
    found: Dict[tuple, dict] = {}
    regions = None if quick else [_region(out_dir, found)]
    claims: List[Claim] = []
    for p in presets:
        claims.extend(_claims(p, runs, weights, _elsewhere(found)))
    claims.append(conservation_claim(runs))
    return write_claims(out_dir, NAME, claims, regions=regions)


def _elsewhere(found: Dict[tuple, dict]) -> Dict[str, str]:
    """Where the map found Fig 5's behaviour on ssd-a (for the whys)."""
    if not found:
        return {"equal": "the region map src-weights-vs-dram (full runs) shows where it exists",
                "shift": "the region map src-weights-vs-dram (full runs) shows where it exists"}
    cells = []
    for (dram, cache), d in found.items():
        a, b = d["w1"], d["w8"]
        cells.append((dram, cache, a["write"] / max(a["read"], 1e-9), b["read"] / max(a["read"], 1e-9), b["write"] / max(a["write"], 1e-9)))
    shift = [c for c in cells if c[3] <= 0.9 and c[4] >= 1.1]
    state = lambda c: "MQSim's model, empty cache" if c[1] == "mqsim" else f"{c[1]} cache"  # noqa: E731
    show = lambda c: f"DRAM {c[0]}, {state(c)}: reads {c[3]:.2f}×, writes {c[4]:.2f}×, write/read at w = 1 {c[2]:.2f}"  # noqa: E731
    how = []
    if any(c[1] == "dirty" for c in shift):
        how.append("a write cache dirty at time 0 behind a DRAM that does not bind them")
    if any(c[1] == "mqsim" for c in shift):
        how.append("the drive as MQSim models it (compat: cold writes destaged at once, its DRAM row formula)")
    where = ("on ssd-a the shift appears only where the writes reach flash, which the reads share: " + " or ".join(how) + " ("
             + "; ".join(map(show, shift)) + ")") if shift else "the map finds no DRAM rate and cache state of ssd-a where it appears"
    return {"equal": where + " (region map src-weights-vs-dram)", "shift": where + " (region map src-weights-vs-dram)"}
