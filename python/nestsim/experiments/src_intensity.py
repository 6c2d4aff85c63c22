"""src-intensity: SRC under light, moderate and heavy workloads (SRC §IV-F1, Fig 10).

The set-up of `src-throughput` (`src_common`: SRC's Clos, one initiator, two `ssd-a` targets) with
three micro workloads (exponential sizes, Poisson arrivals): light 22 KB at 60 requests/ms,
moderate 32 KB at 80/ms and heavy 44 KB at 100/ms. NeSt's reading of the paper's "average request
size and average arrival rate": both the reads and the writes have that mean size, and each type
arrives at that rate (summed over the two targets), as in the main run where reads and writes each
arrive every ~10 µs. Each target processes 5,000 reads and 5,000 writes.

Claims (NeSt's reading of Fig 10):
- light: "no visible difference" — SRC's aggregate within 5 % of DCQCN-only's;
- moderate and heavy congest at ~14 and ~7 ms — the first millisecond whose pauses reach 10 % of
  the run's busiest, within ±50 %;
- moderate and heavy: SRC raises the write throughput at the targets — by ≥ 10 % over the
  trimmed run;
- the reads with SRC stay with DCQCN-only's (within 15 %).
"""

from __future__ import annotations

from pathlib import Path
from typing import List

from ..claims import Claim, write_claims
from . import figures
from . import src_common as sc
from .framework import conservation_claim, expect, run_all

NAME = "src-intensity"
DESCRIPTION = "Light, moderate and heavy micro workloads under DCQCN-only and DCQCN-SRC: when congestion starts and whether SRC raises the writes (SRC Fig 10)"
FIGURES = ["src-fig10"]
SOURCE = "SRC §IV-F1"
#: name → (mean size B, requests per ms of each type, the ms the paper's congestion starts).
LOADS = {"light": (22_000, 60, None), "moderate": (32_000, 80, 14), "heavy": (44_000, 100, 7)}


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    out_dir = Path(out_dir)
    model = sc.shipped_model(sc.PRESET)
    per_target = 1500 if quick else 5000
    scenarios = {}
    for name, (size, per_ms, _) in LOADS.items():
        ld = sc.Load(read_rate=per_ms * 1e3, write_rate=per_ms * 1e3, read_bytes=size, write_bytes=size, per_target=per_target)
        for mode in ("dcqcn", "src"):
            scenarios[f"{name}-{mode}"] = sc.scenario(f"src-intensity-{name}-{mode}", ld, 1, 2, model, mode=mode)
    runs = run_all(out_dir, scenarios)
    th = {k: sc.throughput(out_dir / k, 2) for k in runs}

    figures.lines(out_dir, "src-fig10", {
        name: {f"{s} {mode}": (list(range(len(getattr(th[f'{name}-{mode}'], s)))), list(getattr(th[f"{name}-{mode}"], s)))
               for mode in ("dcqcn", "src") for s in ("read", "write")}
        for name in LOADS}, "time (ms)", "Gb/s (1 ms)")

    claims: List[Claim] = []
    a = {k: v.mean("aggregate") for k, v in th.items()}
    w = {k: v.mean("write") for k, v in th.items()}
    r = {k: v.mean("read") for k, v in th.items()}
    light_why = sc.why_w_stays(out_dir / "light-src", th["light-src"], 2, runs["light-src"], model)
    claims.append(sc.unless_idle(expect("light-no-difference", "SRC Fig 10-a", "Light workload: no visible difference between DCQCN-SRC "
                                        "and DCQCN-only", a["light-src"] / a["light-dcqcn"], target=1.0, tol=0.05,
                                        why=light_why), runs["light-src"], 2))
    for name in ("moderate", "heavy"):
        size, per_ms, onset_paper = LOADS[name]
        why = sc.why_w_stays(out_dir / f"{name}-src", th[f"{name}-src"], 2, runs[f"{name}-src"], model)
        onset = sc.congestion_onset(th[f"{name}-dcqcn"])
        ok = onset is not None and abs(onset - onset_paper) <= 0.5 * onset_paper
        claims.append(Claim(f"{name}-congests-at-{onset_paper}ms", "SRC Fig 10", f"{name.capitalize()} workload ({size // 1000} KB at "
                            f"{per_ms}/ms): congestion happens at about {onset_paper} ms", f"first ms with pauses ≥ 10 % of the busiest: "
                            f"{onset_paper} ms ± 50 %", "no pauses" if onset is None else f"{onset} ms", ok,
                            None if ok else f"pauses from the first read data on ({th[f'{name}-dcqcn'].pauses.sum():.0f} in all, busiest ms "
                            f"{th[f'{name}-dcqcn'].pauses.max():.0f}): the targets' read bursts mark at the initiator's ToR as soon as both "
                            "send; " + why))
        claims.append(expect(f"{name}-src-raises-writes", "SRC Fig 10", f"{name.capitalize()} workload: DCQCN-SRC obtains a significant "
                             "increase in write throughput over DCQCN-only", w[f"{name}-src"] / w[f"{name}-dcqcn"], at_least=1.1,
                             why=f"writes {w[f'{name}-src']:.2f} vs {w[f'{name}-dcqcn']:.2f} Gb/s: " + why))
        claims.append(sc.unless_idle(expect(f"{name}-reads-align", "SRC Fig 10", f"{name.capitalize()} workload: the read throughput under "
                                            "DCQCN-SRC aligns with DCQCN-only's", r[f"{name}-src"], target=r[f"{name}-dcqcn"], tol=0.15,
                                            unit=" Gb/s"), runs[f"{name}-src"], 2))
    claims.append(conservation_claim(runs))
    claims = sc.caused(claims, {"": sc.SOURCE_SILENT})
    return write_claims(out_dir, NAME, claims)
