"""dctcp-friendliness: QTCP flows next to an unmanaged DCTCP flow (QTCP Fig 7, thesis Fig 4.17).

Three QTCP flows (ratios 1 : 2 : 3, offering 3/6/9 Gb/s) share a 10 Gb/s bottleneck (one switch,
10 µs links, K = 140) with interference adaptation on (σ = 0.05). An unmanaged DCTCP flow runs
from 1 s to 2 s. A second run adds a second high-class QTCP flow from 1 s to 2 s instead: the two
share the high class's target (thesis Fig 4.17a). Phase throughputs are means of the per-flow
time series over 0.5–1.0 s (before), 1.5–2.0 s (during) and 2.5–3.0 s (after).
"""

from __future__ import annotations

from pathlib import Path
from statistics import mean

from ..claims import Claim, write_claims
from .framework import run_all, timeseries
from . import figures
from .net_common import flow, scenario, star, within

NAME = "dctcp-friendliness"
DESCRIPTION = "QTCP flows back off for an unmanaged DCTCP flow and recover their 1:2:3 (QTCP Fig 7, thesis Fig 4.17)"
#: Figures written next to claims.json, named after the source's (docs/plots.md).
FIGURES = ["qtcp-fig7-thesis-fig4.17"]
SOURCE = "QTCP paper §IV-C, Fig 7–8; thesis Fig 4.17"
PHASES = {"before": (0.5, 1.0), "during": (1.5, 2.0), "after": (2.5, 3.0)}
QTCP = [("q3", "s3", "low", "3Gbps"), ("q6", "s6", "medium", "6Gbps"), ("q9", "s9", "high", "9Gbps")]


def _flows(extra: dict) -> list:
    return [flow(n, s, "r", c, "qtcp", rate) for n, s, c, rate in QTCP] + [extra]


def _scenario(tag: str, extra: dict) -> dict:
    net = star({"s3": "10us", "s6": "10us", "s9": "10us", "sx": "10us", "r": "10us"})
    net["qtcp"] = {"interference": True, "sigma": 0.05}
    return scenario(net, _flows(extra), duration="3000ms", warmup="500ms", name=f"dctcp-friendliness-{tag}")


def _phases(out_dir: Path, tag: str, extra: dict) -> dict:
    """Mean throughput of every flow in each phase of run `tag`."""
    flows = _flows(extra)
    ts = timeseries(out_dir / tag)
    out = {}
    for ph, (a, b) in PHASES.items():
        out[ph] = {}
        for f in [x["name"] for x in flows]:
            v = [val for e, m, val, t in zip(ts["entity"], ts["metric"], ts["value"], ts["time_s"])
                 if e == f"flow:{f}" and m == "throughput_gbps" and a <= t < b]
            out[ph][f] = round(mean(v), 2) if v else 0.0
    return out


def _ratio_ok(p: dict, high: float = None) -> tuple:
    hi = p["q9"] if high is None else high
    r6, r9 = p["q6"] / max(p["q3"], 1e-9), hi / max(p["q3"], 1e-9)
    return (round(r6, 2), round(r9, 2)), within(r6, 2, 0.2) and within(r9, 3, 0.2)


def run_experiment(out_dir: Path) -> dict:
    claims = []
    joins = {"dctcp-joins": flow("dctcp", "sx", "r", "best_effort", "dctcp", start="1000ms", stop="2000ms"),
             "second-high-flow": flow("q9b", "sx", "r", "high", "qtcp", "9Gbps", start="1000ms", stop="2000ms")}
    run_all(out_dir, {tag: _scenario(tag, extra) for tag, extra in joins.items()})
    d = _phases(out_dir, "dctcp-joins", joins["dctcp-joins"])
    fmt = lambda p: ", ".join(f"{k} {v:.2f}" for k, v in p.items())
    (rb, okb), (rd, okd), (ra, oka) = _ratio_ok(d["before"]), _ratio_ok(d["during"]), _ratio_ok(d["after"])
    q_before = sum(d["before"][f] for f, *_ in QTCP)
    q_during = sum(d["during"][f] for f, *_ in QTCP)
    q_after = sum(d["after"][f] for f, *_ in QTCP)
    claims.append(Claim("before", SOURCE, "Alone, the QTCP flows carry ≈ 1 : 2 : 3", "1 : 2 : 3 (± 20 %)",
                        f"1 : {rb[0]} : {rb[1]} ({fmt(d['before'])} Gb/s)", okb))
    claims.append(Claim("back-off", SOURCE, "When the DCTCP flow enters, the QTCP flows back off and make room for it",
                        "DCTCP flow ≥ 1.5 Gb/s and QTCP total drops by at least as much",
                        f"DCTCP {d['during']['dctcp']:.2f} Gb/s; QTCP total {q_before:.2f} → {q_during:.2f} Gb/s",
                        d["during"]["dctcp"] >= 1.5 and q_before - q_during >= 0.8 * d["during"]["dctcp"]))
    claims.append(Claim("ratios-during", SOURCE, "While the DCTCP flow is present, the QTCP flows keep ≈ 1 : 2 : 3 among themselves",
                        "1 : 2 : 3 (± 20 %)", f"1 : {rd[0]} : {rd[1]}", okd,
                        why=None if okd else "the ordering and spacing survive but the high flow ends outside the 20 % "
                        "band while the DCTCP flow is present; λ (shared by the QTCP flows) moves in σ = 5 % steps "
                        "pushed both ways by flows above and below target, and one second is short of its settling "
                        "time at these window sizes — not investigated further"))
    claims.append(Claim("recover", SOURCE, "After the DCTCP flow leaves, the QTCP flows recover their bandwidth and ratios",
                        "QTCP total within 5 % of before, 1 : 2 : 3 (± 20 %)",
                        f"QTCP total {q_after:.2f} Gb/s (before {q_before:.2f}); 1 : {ra[0]} : {ra[1]}",
                        oka and within(q_after, q_before, 0.05)))
    s = _phases(out_dir, "second-high-flow", joins["second-high-flow"])
    hi = s["during"]["q9"] + s["during"]["q9b"]
    (rs, oks) = _ratio_ok(s["during"], high=hi)
    split = s["during"]["q9b"] / max(s["during"]["q9"], 1e-9)
    claims.append(Claim("class-target-shared", "thesis Fig 4.17a", "A second flow of the high class shares the class's target: the class keeps its 3 share, split between its flows",
                        "class ratio 1 : 2 : 3 (± 20 %), the two high flows within 30 % of each other",
                        f"1 : {rs[0]} : {rs[1]}; high flows {s['during']['q9']:.2f} + {s['during']['q9b']:.2f} Gb/s",
                        oks and within(split, 1.0, 0.3)))
    figures.lines(out_dir, "qtcp-fig7-thesis-fig4.17", {
        "DCTCP flow from 1 s to 2 s (QTCP Fig 7)": figures.flow_series(out_dir / "dctcp-joins", window_s=0.02),
        "second high flow from 1 s to 2 s (thesis Fig 4.17a)": figures.flow_series(out_dir / "second-high-flow", window_s=0.02)},
        "time (s)", "throughput (Gb/s, 20 ms mean)")
    return write_claims(out_dir, "dctcp-friendliness", claims)
