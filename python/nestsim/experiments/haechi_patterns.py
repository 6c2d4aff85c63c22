"""haechi-patterns: Haechi's Set 3, request patterns under spike reservations (Haechi §III-D,
Fig 13–15).

C1–C3 reserve 285 K and C4–C10 80 K per period (90 % of C_G = 1570 K); every client wants Exp
1C's spike demand (C1–C3 340 K, C4–C10 80 K) per period, either as burst requests (64
outstanding) or at a constant rate over the period. Haechi as printed (SPEC §10).

Latency is a request's time from its submission to the client's QoS engine to its completion,
so a constant-rate request waiting for a token counts its wait (the paper: "almost no queue
buildup at the client nodes" with constant-rate requests).
"""

from __future__ import annotations

from pathlib import Path
from typing import List

from ..claims import Claim, write_claims
from . import figures
from .framework import expect
from .haechi_common import (CAPACITY, CLIENTS, SPIKE_DEMAND, SPIKE_RESERVATION, client, conserved, measured,
                            per_second, run_many, spec, totals)

NAME = "haechi-patterns"
DESCRIPTION = "Haechi Set 3: burst vs constant-rate requests under spike reservations — reservations, node throughput, latency (Haechi Fig 13–15)"
FIGURES = ["haechi-fig13", "haechi-fig14", "haechi-fig15"]
SOURCE = "Haechi §III-D"
PATTERNS = ("burst", "constant")


def _latency(r: dict, key: str, field: str = "latency_us") -> float:
    """The clients' latency statistic, weighted by their completions (µs)."""
    w = [sum(measured(r, c)) for c in range(CLIENTS)]
    return sum(r["clients"][c][field][key] * w[c] for c in range(CLIENTS)) / max(1, sum(w))


def _why_latency(runs: dict) -> str:
    def group(p, cs):
        r = runs[p]
        return sum(r["clients"][i]["latency_us"]["mean"] for i in cs) / len(cs)
    small, big = range(3, CLIENTS), range(3)
    return (f"C4–C10, whose demand their reservation covers, do see lower latency with constant-rate requests "
            f"({group('constant', small):.0f} vs {group('burst', small):.0f} µs mean); C1–C3 offer 340 K per period at a "
            f"constant rate against 285 K reserved plus their share of the global pool, and their requests beyond their "
            f"tokens wait at their engines for a conversion ({group('constant', big):.0f} µs mean). NeSt counts a request's "
            "latency from its submission to the engine; counted from the verb's post (leaving the token wait out) the "
            "claim holds: " + "; ".join(f"{k} {_latency(runs['constant'], k, 'latency_from_post_us'):.0f} vs "
                                       f"{_latency(runs['burst'], k, 'latency_from_post_us'):.0f} µs" for k in ("mean", "p99", "p99_9")))


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    out_dir = Path(out_dir)
    periods, warm = (3, 1) if quick else (30, 3)
    runs = run_many(out_dir, {p: spec([client(p, reservation=r, demand=d) for r, d in zip(SPIKE_RESERVATION, SPIKE_DEMAND)],
                                      "haechi", periods, warm) for p in PATTERNS})
    b, c = runs["burst"], runs["constant"]
    big = range(3)
    claims: List[Claim] = []
    claims.append(Claim("burst-c1-c3-miss", SOURCE, "Burst requests: C1–C3 (285 K reserved) miss their reservation",
                        "C1–C3 below 285 K in every period", f"C1–C3 {min(min(measured(b, i)) for i in big) / 1e3:.1f}K–"
                        f"{max(max(measured(b, i)) for i in big) / 1e3:.1f}K per period", all(max(measured(b, i)) < 285_000 for i in big),
                        "C1–C3 finished their reservation"))
    c_low = min(min(measured(c, i)) for i in big)
    claims.append(Claim("constant-c1-c3-exceed", SOURCE, "Constant-rate requests: C1–C3 meet and surpass their reservation",
                        "C1–C3 > 285 K in every period", f"C1–C3 ≥ {c_low / 1e3:.1f}K per period", c_low > 285_000,
                        "C1–C3 did not surpass 285 K"))
    claims += [
        expect("burst-node-drop", SOURCE, "Burst requests cost the node 12.9 % of its capacity",
               1 - per_second(b) / CAPACITY, target=0.129, tol=0.03, relative=False),
        expect("constant-node-drop", SOURCE, "Constant-rate requests cost it 0.7 %", 1 - per_second(c) / CAPACITY,
               target=0.007, tol=0.01, relative=False),
    ]
    lat = {p: {k: _latency(runs[p], k) for k in ("mean", "p99", "p99_9")} for p in PATTERNS}
    lower = all(lat["constant"][k] < lat["burst"][k] for k in ("mean", "p99", "p99_9"))
    claims.append(Claim("constant-lower-latency", SOURCE, "Mean, p99 and p99.9 latency are all lower with constant-rate requests",
                        "constant < burst for mean, p99 and p99.9",
                        "; ".join(f"{k} {lat['constant'][k]:.0f} vs {lat['burst'][k]:.0f} µs" for k in ("mean", "p99", "p99_9")),
                        lower, None if lower else _why_latency(runs)))
    claims.append(conserved(runs))

    names = [f"C{i + 1}" for i in range(CLIENTS)]
    n = periods
    figures.period_bars(out_dir, "haechi-fig13", {f"completed I/Os, {n} periods (one block per period)": {
        "reservation": {nm: [SPIKE_RESERVATION[i] / 1e6] * n for i, nm in enumerate(names)},
        **{p: {nm: [x / 1e6 for x in measured(runs[p], i)] for i, nm in enumerate(names)} for p in PATTERNS}}}, "M I/Os")
    figures.lines(out_dir, "haechi-fig14", {"node throughput per period": {
        **{p: (list(range(1, n + 1)), [x / 1e3 for x in totals(runs[p])]) for p in PATTERNS},
        "C_G": (list(range(1, n + 1)), [CAPACITY / 1e3] * n)}}, "period", "K I/Os", markers=True)
    figures.bars(out_dir, "haechi-fig15", {"read latency (Fig 15)": {
        p: {k: lat[p][k] for k in ("mean", "p99", "p99_9")} for p in PATTERNS}}, "µs", log=True)
    return write_claims(out_dir, NAME, claims)
