"""haechi-patterns: Haechi's Set 3, request patterns under spike reservations (Haechi §III-D,
Fig 13–15).

C1–C3 reserve 285 K and C4–C10 80 K per period (90 % of C_G = 1570 K); every client wants Exp
1C's spike demand (C1–C3 340 K, C4–C10 80 K) per period, either as burst requests (64
outstanding) or at a constant rate over the period. Haechi as SPEC §10 and §13.9 read it. Each
pattern also runs on the bare system (no reservations, no engines: SPEC §13.9), and every claim
is judged there too — a claim that holds on the bare system as well is not Haechi's doing.

Latency is a request's time from its submission to the client's QoS engine to its completion,
so a constant-rate request waiting for a token counts its wait (the paper: "almost no queue
buildup at the client nodes" with constant-rate requests).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import List

from ..claims import Claim, ablation, write_claims
from . import figures
from .framework import expect
from .haechi_common import (CAPACITY, CLIENTS, SPIKE_DEMAND, SPIKE_RESERVATION, client, conserved, measured,
                            per_second, run_many, spec, totals)

NAME = "haechi-patterns"
DESCRIPTION = "Haechi Set 3: burst vs constant-rate requests under spike reservations — reservations, node throughput, latency (Haechi Fig 13–15)"
FIGURES = ["haechi-fig13", "haechi-fig14", "haechi-fig15"]
SOURCE = "Haechi §III-D"
PATTERNS = ("burst", "constant")
#: Requests a client keeps in flight, in either pattern (the paper's burst requests: 64).
OUTSTANDING = 64


def _latency(r: dict, key: str, field: str = "latency_us") -> float:
    """The clients' latency statistic, weighted by their completions (µs)."""
    w = [sum(measured(r, c)) for c in range(CLIENTS)]
    return sum(r["clients"][c][field][key] * w[c] for c in range(CLIENTS)) / max(1, sum(w))


def _why_latency(runs: dict, outstanding: int) -> str:
    """Where C1–C3's constant-rate requests wait: with at most `outstanding` requests in flight, a
    client carries `outstanding` / (time from post to completion) I/Os per second."""
    def group(r, cs, field="latency_us"):
        return sum(r["clients"][i][field]["mean"] for i in cs) / len(cs)
    small, big = range(3, CLIENTS), range(3)
    c, bare = runs["constant"], runs["constant-bare"]
    post = group(c, big, "latency_from_post_us")
    return (f"C4–C10, whose demand their reservation covers, do see lower latency with constant-rate requests "
            f"({group(c, small):.0f} vs {group(runs['burst'], small):.0f} µs mean). C1–C3 offer {SPIKE_DEMAND[0] / 1e3:.0f} K "
            f"per period at a constant rate but keep at most {outstanding} requests in flight, and a request takes "
            f"{post:.0f} µs from its post to its completion: {outstanding} / {post:.0f} µs = "
            f"{outstanding / post * 1e3:.0f} K/s, below their rate, so their requests queue at the client "
            f"({group(c, big):.0f} µs mean from submission) — on the bare system as well ({group(bare, big):.0f} µs): "
            "the client's window, not Haechi's tokens, holds them. Counted from the verb's post the claim holds: "
            + "; ".join(f"{k} {_latency(c, k, 'latency_from_post_us'):.0f} vs {_latency(runs['burst'], k, 'latency_from_post_us'):.0f} µs"
                        for k in ("mean", "p99", "p99_9")))


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    out_dir = Path(out_dir)
    periods, warm = (3, 1) if quick else (30, 3)
    specs = {}
    for p in PATTERNS:
        specs[p] = spec([client(p, reservation=r, demand=d, outstanding=OUTSTANDING) for r, d in zip(SPIKE_RESERVATION, SPIKE_DEMAND)], "haechi", periods, warm)
        specs[f"{p}-bare"] = spec([client(p, reservation=0, demand=d, outstanding=OUTSTANDING) for d in SPIKE_DEMAND], "none", periods, warm)
    runs = run_many(out_dir, specs)
    big = range(3)
    claims: List[Claim] = []

    def misses(r: dict) -> bool:
        return all(max(measured(r, i)) < 285_000 for i in big)

    def lowest(r: dict) -> float:
        return min(min(measured(r, i)) for i in big)

    def span(r: dict) -> str:
        return f"C1–C3 {lowest(r) / 1e3:.1f}K–{max(max(measured(r, i)) for i in big) / 1e3:.1f}K per period"

    b, c = runs["burst"], runs["constant"]
    claims.append(Claim("burst-c1-c3-miss", SOURCE, "Burst requests: C1–C3 (285 K reserved) miss their reservation",
                        "C1–C3 below 285 K in every period", f"{span(b)} (bare: {span(runs['burst-bare'])})", misses(b),
                        None if misses(b) else "C1–C3 finished their reservation", ablation=ablation("burst-bare", misses(runs["burst-bare"]))))
    claims.append(Claim("constant-c1-c3-exceed", SOURCE, "Constant-rate requests: C1–C3 meet and surpass their reservation",
                        "C1–C3 > 285 K in every period", f"C1–C3 ≥ {lowest(c) / 1e3:.1f}K per period (bare: ≥ "
                        f"{lowest(runs['constant-bare']) / 1e3:.1f}K)", lowest(c) > 285_000,
                        None if lowest(c) > 285_000 else "C1–C3 did not surpass 285 K", ablation=ablation("constant-bare", lowest(runs["constant-bare"]) > 285_000)))

    def drop(r: dict) -> float:
        return 1 - per_second(r) / CAPACITY

    for p, target, tol, words in (("burst", 0.129, 0.03, "Burst requests cost the node 12.9 % of its capacity"),
                                  ("constant", 0.007, 0.01, "Constant-rate requests cost it 0.7 %")):
        bare = drop(runs[f"{p}-bare"])
        claims.append(replace(expect(f"{p}-node-drop", SOURCE, words, drop(runs[p]), target=target, tol=tol, relative=False,
                                     why=f"bare system: {bare:.3f}"),
                              ablation=ablation(f"{p}-bare", abs(bare - target) <= tol)))
    lat = {p: {k: _latency(runs[p], k) for k in ("mean", "p99", "p99_9")} for p in specs}

    # Fig 15: the mean, the p99 and the p99.9, each a claim of its own.
    for k, label in (("mean", "Mean"), ("p99", "p99"), ("p99_9", "p99.9")):
        ok = lat["constant"][k] < lat["burst"][k]
        claims.append(Claim(f"constant-lower-{k.replace('_', '.')}", SOURCE, f"{label} latency is lower with constant-rate requests (Fig 15)",
                            "constant < burst", f"{lat['constant'][k]:.0f} vs {lat['burst'][k]:.0f} µs "
                            f"(bare: {lat['constant-bare'][k]:.0f} vs {lat['burst-bare'][k]:.0f} µs)",
                            ok, None if ok else _why_latency(runs, OUTSTANDING),
                            ablation=ablation("constant-bare vs burst-bare", lat["constant-bare"][k] < lat["burst-bare"][k]),
                            cause=None if ok else "set-up"))
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
