"""engine-validation: the engine and the ideal device against closed-form queueing results.

Before any model of the papers is trusted, the engine must reproduce textbook queues:
- M/M/1 (Kleinrock, Queueing Systems vol. 1, §3.2): mean sojourn W = 1/(μ−λ) and the sojourn
  time is exponential, so p90 = ln(10)·W;
- M/D/1 (Pollaczek–Khinchine): W = S + ρS/(2(1−ρ));
- M/M/c (Erlang C): W = C(c, a)/(cμ − λ) + 1/μ;
- a closed loop of N requests on c deterministic servers (Little's law): X = c/S, R = N·S/c.
Each claim is measured from the run's own summary and compared within a stated tolerance.
"""

from __future__ import annotations

import math
from pathlib import Path

from ..claims import Claim, write_claims
from .framework import run_all, timeseries
from . import figures

NAME = "engine-validation"
DESCRIPTION = "engine + ideal device vs M/M/1, M/D/1, M/M/c (Erlang C) and Little's law"
#: Figures written next to claims.json, named after the source's (docs/plots.md).
FIGURES = ["queueing-theory"]


def _scenario(service: dict, servers: int, arrival: dict, duration: str) -> dict:
    return {
        "schema": 1,
        "name": "engine-validation",
        "run": {"seed": 1, "duration": duration, "warmup": "5%"},
        "device": [{"name": "d", "kind": "ideal", "servers": servers, "read": service, "write": service}],
        "workload": [{"name": "w", "device": "d", "class": "high", "arrival": arrival}],
    }


def _erlang_c(c: int, a: float) -> float:
    s = sum(a ** k / math.factorial(k) for k in range(c))
    top = a ** c / math.factorial(c) * c / (c - a)
    return top / (s + top)


def _within(measured: float, expected: float, tol: float) -> bool:
    return abs(measured - expected) / expected <= tol


def run_experiment(out_dir: Path) -> dict:
    claims = []
    src = "queueing theory (Kleinrock 1975)"

    lam, mean_s = 8000.0, 100e-6
    c, lam_c = 4, 32000.0
    runs = run_all(out_dir, {
        "mm1": _scenario({"dist": "exp", "mean": "100us"}, 1, {"kind": "poisson", "rate_iops": lam}, "20s"),
        "md1": _scenario({"dist": "fixed", "value": "100us"}, 1, {"kind": "poisson", "rate_iops": 5000.0}, "20s"),
        "mmc": _scenario({"dist": "exp", "mean": "100us"}, c, {"kind": "poisson", "rate_iops": lam_c}, "10s"),
        "closed": _scenario({"dist": "fixed", "value": "50us"}, 4, {"kind": "burst", "outstanding": 16}, "200ms"),
    })
    lat = runs["mm1"]["classes"]["high"]["read"]["lat_us"]
    w = 1e6 / (1 / mean_s - lam)
    claims.append(Claim("mm1-mean", src, "M/M/1 at ρ=0.8: mean sojourn time = 1/(μ−λ) within 5%",
                        round(w, 1), lat["mean"], _within(lat["mean"], w, 0.05)))
    claims.append(Claim("mm1-p90", src, "M/M/1 at ρ=0.8: p90 sojourn time = ln(10)/(μ−λ) within 8%",
                        round(w * math.log(10), 1), lat["p90"], _within(lat["p90"], w * math.log(10), 0.08)))

    m = runs["md1"]["classes"]["high"]["read"]["lat_us"]["mean"]
    w = 100 + 0.5 * 100 / (2 * 0.5)
    claims.append(Claim("md1-mean", "Pollaczek–Khinchine formula", "M/D/1 at ρ=0.5: W = S + ρS/(2(1−ρ)) within 4%",
                        w, m, _within(m, w, 0.04)))

    lam = lam_c
    m = runs["mmc"]["classes"]["high"]["read"]["lat_us"]["mean"]
    a = lam * mean_s
    w = 1e6 * (_erlang_c(c, a) / (c / mean_s - lam) + mean_s)
    claims.append(Claim("mmc-mean", "Erlang C formula", "M/M/4 at ρ=0.8: mean sojourn time within 5%",
                        round(w, 1), m, _within(m, w, 0.05)))

    d = runs["closed"]["classes"]["high"]["read"]
    claims.append(Claim("little-throughput", "Little's law", "16 outstanding on 4 servers of 50 µs: X = c/S = 80,000 IOPS within 1%",
                        80000, d["iops"], _within(d["iops"], 80000, 0.01)))
    claims.append(Claim("little-latency", "Little's law", "… and R = N·S/c = 200 µs within 1%",
                        200.0, d["lat_us"]["mean"], _within(d["lat_us"]["mean"], 200.0, 0.01)))
    # Little's law on a stochastic system, from two independent records: L as the time average
    # of the device's sampled occupancy (time series), λ·W from the per-request latencies.
    ts = timeseries(out_dir / "mm1")
    occ = {}
    for e, m, v, t in zip(ts["entity"], ts["metric"], ts["value"], ts["time_s"]):
        if e == "device:d" and m in ("queue_len", "busy_servers") and t >= 1.0:
            occ.setdefault(t, 0.0)
            occ[t] += v
    l_avg = sum(occ.values()) / max(len(occ), 1)
    mm1 = runs["mm1"]["classes"]["high"]["read"]
    lw = mm1["iops"] * mm1["lat_us"]["mean"] * 1e-6
    claims.append(Claim("little-mm1", "Little's law", "M/M/1 at ρ=0.8: the time-averaged number in the device (sampled "
                        "occupancy) equals throughput × mean sojourn time (per-request records) within 3%",
                        round(lw, 3), round(l_avg, 3), _within(l_avg, lw, 0.03)))
    lat = [c for c in claims if c.id not in ("little-throughput", "little-mm1")]
    figures.bars(out_dir, "queueing-theory", {"mean / p90 sojourn time": {
        "theory": {c.id: c.expected for c in lat}, "NeSt": {c.id: c.measured for c in lat}}}, "µs",
        title="The engine against queueing theory")
    return write_claims(out_dir, "engine-validation", claims)

