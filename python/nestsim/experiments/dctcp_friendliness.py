"""dctcp-friendliness: QTCP flows next to an unmanaged DCTCP flow (QTCP Fig 7, thesis Fig 4.17).

Three QTCP flows (ratios 1 : 2 : 3, offering 3/6/9 Gb/s) share a 10 Gb/s bottleneck (one switch,
10 µs links, K = 140) with interference adaptation on (σ = 0.05). An unmanaged DCTCP flow runs
from 1 s to 2 s. A second run adds a second high-class QTCP flow from 1 s to 2 s instead: the two
share the high class's target (thesis Fig 4.17a). Phase throughputs are means of the per-flow
time series over 0.5–1.0 s (before), 1.5–2.0 s (during) and 2.5–3.0 s (after).

QTCP gives slack back while congestion lasts (SPEC §4, `while_congested`). Beside it: both runs
under the literal reading (`on_mark`), judged against that reading's fixed point (eq. 4.5), and
the DCTCP run with interference adaptation off — the ablation of the back-off and recovery
claims (SPEC §13.1). Ratio tolerance ±15 %: the paper states the split by its figure ("according
to the QoS specified ratio"), SPEC §13.1.

Region map (SPEC §13.2; not in `--quick`): the paper gives no σ for interference adaptation; the
QTCP flows' split while the DCTCP flow is present, and the DCTCP flow's throughput, are also
measured over σ (and with adaptation off).
"""

from __future__ import annotations

from pathlib import Path
from statistics import mean

from ..claims import Claim, ablation, write_claims
from .framework import run_all, timeseries
from . import figures
from .net_common import eq45_alpha_needed, eq45_split, flow, phase_means, scenario, split_within, star, within
from .net_common import q_of, why_q
from .regions import Axis, region_map

NAME = "dctcp-friendliness"
DESCRIPTION = "QTCP flows back off for an unmanaged DCTCP flow and recover their 1:2:3 (QTCP Fig 7, thesis Fig 4.17)"
#: Figures written next to claims.json, named after the source's (docs/plots.md).
FIGURES = ["qtcp-fig7-thesis-fig4.17"]
SOURCE = "QTCP paper §IV-C, Fig 7–8; thesis Fig 4.17"
PHASES = {"before": (0.5, 1.0), "during": (1.5, 2.0), "after": (2.5, 3.0)}
QTCP = [("q3", "s3", "low", "3Gbps"), ("q6", "s6", "medium", "6Gbps"), ("q9", "s9", "high", "9Gbps")]
#: Class ratio per flow (None: unmanaged), for eq. 4.5's fixed point.
RATIO = {"q3": 1.0, "q6": 2.0, "q9": 3.0, "q9b": 3.0, "dctcp": None}
#: Source of the consistency claims: the analysis in crates/nest-transport/src/equilibrium.rs.
RULE = "NeSt: fixed point of thesis eq. 4.5 / QTCP eq. 6 read literally (on_mark; docs/network.md)"
#: A split read off the paper's figure (SPEC §13.1).
TOL = 0.15


def _flows(extra: dict) -> list:
    return [flow(n, s, "r", c, "qtcp", rate) for n, s, c, rate in QTCP] + [extra]


def _scenario(tag: str, extra: dict, slack: str = "while_congested", interference: bool = True, sigma: float = 0.05) -> dict:
    net = star({"s3": "10us", "s6": "10us", "s9": "10us", "sx": "10us", "r": "10us"})
    net["qtcp"] = {"interference": interference, "sigma": sigma, "slack": slack}
    return scenario(net, _flows(extra), duration="3000ms", warmup="500ms", name=f"dctcp-friendliness-{tag}")


def _phases(out_dir: Path, tag: str, extra: dict) -> dict:
    """Per phase: every flow's mean throughput, and the series' means (for the fixed point)."""
    flows = _flows(extra)
    ts = timeseries(out_dir / tag)
    out, means = {}, {}
    for ph, (a, b) in PHASES.items():
        means[ph] = phase_means(ts, a, b)
        out[ph] = {f["name"]: round(means[ph].get((f"flow:{f['name']}", "throughput_gbps"), 0.0), 2) for f in flows}
    out["_means"] = means
    return out


def _ratio_ok(p: dict, high: float = None) -> tuple:
    hi = p["q9"] if high is None else high
    r6, r9 = p["q6"] / max(p["q3"], 1e-9), hi / max(p["q3"], 1e-9)
    return (round(r6, 2), round(r9, 2)), within(r6, 2, TOL) and within(r9, 3, TOL)


def sigma_map(out_dir: Path, joining: dict) -> dict:
    """While the DCTCP flow is present: the QTCP split and the DCTCP flow's Gb/s against σ (0: adaptation off)."""
    def measure(_summary: dict, run_dir: Path, _at: dict) -> dict:
        m = phase_means(timeseries(run_dir), *PHASES["during"])
        g = {n: m.get((f"flow:{n}", "throughput_gbps"), 0.0) for n in ("q3", "q6", "q9", "dctcp")}
        return {"medium/low": g["q6"] / max(g["q3"], 1e-9), "high/low": g["q9"] / max(g["q3"], 1e-9),
                "DCTCP flow Gb/s": g["dctcp"]}

    want = {"medium/low": 2.0, "high/low": 3.0}
    return region_map(out_dir, "dctcp-friendliness-vs-sigma", title="QTCP beside a DCTCP flow, against σ (0: adaptation off)",
                      x=Axis("sigma", "σ (interference adaptation step)", [0.0, 0.01, 0.02, 0.05, 0.1, 0.2]),
                      build=lambda sg: _scenario(f"map-sigma{sg:g}", joining, interference=sg > 0, sigma=sg or 0.05),
                      measure=measure, ylabel="ratio to low; DCTCP flow (Gb/s)", reference={"sigma": 0.05},
                      holds=lambda c, y, _: within(y, want[c], TOL) if c in want else None,
                      effect=f"the QTCP split within {TOL:.0%} of 1 : 2 : 3 while the DCTCP flow is present")


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    claims = []
    joins = {"dctcp-joins": flow("dctcp", "sx", "r", "best_effort", "dctcp", start="1000ms", stop="2000ms"),
             "second-high-flow": flow("q9b", "sx", "r", "high", "qtcp", "9Gbps", start="1000ms", stop="2000ms")}
    scenarios = {tag: _scenario(tag, extra) for tag, extra in joins.items()}
    for tag, extra in joins.items():
        scenarios[f"{tag}-on-mark"] = _scenario(f"{tag}-on-mark", extra, "on_mark")
    scenarios["dctcp-joins-no-interference"] = _scenario("dctcp-joins-no-interference", joins["dctcp-joins"], interference=False)
    run_all(out_dir, scenarios)
    d = _phases(out_dir, "dctcp-joins", joins["dctcp-joins"])
    off = _phases(out_dir, "dctcp-joins-no-interference", joins["dctcp-joins"])
    fmt = lambda p: ", ".join(f"{k} {v:.2f}" for k, v in p.items())
    (rb, okb), (rd, okd), (ra, oka) = _ratio_ok(d["before"]), _ratio_ok(d["during"]), _ratio_ok(d["after"])
    m = _phases(out_dir, "dctcp-joins-on-mark", joins["dctcp-joins"])
    rm = {ph: _ratio_ok(m[ph])[0] for ph in PHASES}
    qsum = lambda p, ph: sum(p[ph][f] for f, *_ in QTCP)
    backs_off = lambda p: p["during"]["dctcp"] >= 1.5 and qsum(p, "before") - qsum(p, "during") >= 0.8 * p["during"]["dctcp"]
    recovers = lambda p: _ratio_ok(p["after"])[1] and within(qsum(p, "after"), qsum(p, "before"), 0.05)
    claims.append(Claim("before", SOURCE, "Alone, the QTCP flows carry ≈ 1 : 2 : 3", f"1 : 2 : 3 (± {TOL:.0%})",
                        f"1 : {rb[0]} : {rb[1]} ({fmt(d['before'])} Gb/s); on_mark 1 : {rm['before'][0]} : {rm['before'][1]}", okb,
                        why=None if okb else _why_q(d, "before")))
    claims.append(Claim("back-off", SOURCE, "When the DCTCP flow enters, the QTCP flows back off and make room for it",
                        "DCTCP flow ≥ 1.5 Gb/s and QTCP total drops by at least as much",
                        f"DCTCP {d['during']['dctcp']:.2f} Gb/s; QTCP total {qsum(d, 'before'):.2f} → {qsum(d, 'during'):.2f} Gb/s",
                        backs_off(d), ablation=ablation("interference adaptation off", backs_off(off)), cause="set-up"))
    claims.append(Claim("ratios-during", SOURCE, "While the DCTCP flow is present, the QTCP flows keep ≈ 1 : 2 : 3 among themselves",
                        f"1 : 2 : 3 (± {TOL:.0%})", f"1 : {rd[0]} : {rd[1]}; on_mark 1 : {rm['during'][0]} : {rm['during'][1]}", okd,
                        why=None if okd else _why_q(d, "during")))
    claims.append(Claim("recover", SOURCE, "After the DCTCP flow leaves, the QTCP flows recover their bandwidth and ratios",
                        f"QTCP total within 5 % of before, 1 : 2 : 3 (± {TOL:.0%})",
                        f"QTCP total {qsum(d, 'after'):.2f} Gb/s (before {qsum(d, 'before'):.2f}); 1 : {ra[0]} : {ra[1]}",
                        recovers(d), ablation=ablation("interference adaptation off", recovers(off)), cause="set-up"))
    claims.append(_rule_claim(m, joins["dctcp-joins"]))
    if not _ratio_ok(m["during"])[1]:
        claims.append(Claim("on-mark-during", RULE, "Under the literal reading (on_mark) the QTCP flows beside the DCTCP flow "
                            "fall short of 1 : 2 : 3, as eq. 4.5's fixed point predicts", "the fixed point misses it too",
                            f"1 : {rm['during'][0]} : {rm['during'][1]}",
                            not _ratio_ok(eq45_split(m["_means"]["during"], _flows(joins["dctcp-joins"]), RATIO))[1],
                            why=_why_during(m, joins["dctcp-joins"])))
    s = _phases(out_dir, "second-high-flow", joins["second-high-flow"])
    hi = s["during"]["q9"] + s["during"]["q9b"]
    (rs, oks) = _ratio_ok(s["during"], high=hi)
    split = s["during"]["q9b"] / max(s["during"]["q9"], 1e-9)
    claims.append(Claim("class-target-shared", "thesis Fig 4.17a", "A second flow of the high class shares the class's target: the class keeps its 3 share, split between its flows",
                        f"class ratio 1 : 2 : 3 (± {TOL:.0%}), the two high flows within 30 % of each other",
                        f"1 : {rs[0]} : {rs[1]}; high flows {s['during']['q9']:.2f} + {s['during']['q9b']:.2f} Gb/s",
                        oks and within(split, 1.0, 0.3)))
    claims.append(_rule_claim(_phases(out_dir, "second-high-flow-on-mark", joins["second-high-flow"]), joins["second-high-flow"],
                              tag="rule-fixed-point-second-flow"))
    figures.lines(out_dir, "qtcp-fig7-thesis-fig4.17", {
        "DCTCP flow from 1 s to 2 s (QTCP Fig 7)": figures.flow_series(out_dir / "dctcp-joins", window_s=0.02),
        "second high flow from 1 s to 2 s (thesis Fig 4.17a)": figures.flow_series(out_dir / "second-high-flow", window_s=0.02)},
        "time (s)", "throughput (Gb/s, 20 ms mean)")
    return write_claims(out_dir, "dctcp-friendliness", claims,
                        regions=None if quick else [sigma_map(out_dir, joins["dctcp-joins"])])


def _rule_claim(d: dict, extra: dict, tag: str = "rule-fixed-point") -> Claim:
    """Each phase's split beside eq. 4.5's fixed point at the phase's measured α, RTTs and λ."""
    flows = _flows(extra)
    parts, ok = [], True
    for ph in PHASES:
        pred = eq45_split(d["_means"][ph], flows, RATIO)
        ok = ok and split_within(d[ph], pred, 0.1)
        parts.append(f"{ph}: " + ", ".join(f"{n} {d[ph][n]:.2f} ({x:.2f})" for n, x in pred.items()))
    return Claim(tag, RULE, "Under the literal reading (on_mark) every phase's split is the rule's own: each flow within 10 % "
                 "of eq. 4.5's fixed point at the α, RTTs and λ measured in the phase",
                 "each flow within 10 % of the fixed point", "Gb/s, measured (fixed point) — " + "; ".join(parts), ok,
                 why=None if ok else "the simulated windows do not settle where eq. 4.5 puts them: marking episodes are not "
                 "shared by the flows, or a flow is limited by something the rule does not model")


def _why_q(d: dict, ph: str) -> str:
    """Why a while_congested phase misses 1 : 2 : 3: which flows sit off target, by their Q."""
    m = d["_means"][ph]
    return why_q(q_of(m, [n for n, *_ in QTCP]), where=" of the QTCP flows in the phase", lam=m[("qtcp", "lambda_gbps")])


def _why_during(d: dict, extra: dict) -> str:
    flows = _flows(extra)
    m = d["_means"]["during"]
    pred = eq45_split(m, flows, RATIO)
    alpha = sum(m[(f"flow:{n}", "alpha")] for n in pred) / len(pred)
    ratio_ok = lambda tol: lambda p: "q3" in p and within(p["q6"] / p["q3"], 2, tol) and within(p["q9"] / p["q3"], 3, tol)
    need = eq45_alpha_needed(m, flows, RATIO, ratio_ok(0.1))
    return (f"this is where QTCP's rule goes: eq. 4.5's fixed point at the measured α ({alpha:.2f}), RTTs and λ "
            f"({m[('qtcp', 'lambda_gbps')]:.2f} Gb/s) gives 1 : {pred['q6'] / pred['q3']:.2f} : {pred['q9'] / pred['q3']:.2f}, "
            f"outside the {TOL:.0%} band. The high class is short of its target (Q {m[('flow:q9', 'q_factor')]:.2f}), and a class "
            f"in deficit cuts like DCTCP, so it ends at the unmanaged flow's share ({d['during']['q9']:.2f} vs "
            f"{d['during']['dctcp']:.2f} Gb/s); a class with slack must sit above its target by ≈ r·α/2 to stay r times "
            f"below it. "
            + (f"The rule gives 1 : 2 : 3 within 10 % only while α ≤ {need:.3f}" if need is not None else
               "No α gives 1 : 2 : 3 within 10 % here")
            + " — DCTCP's marking at this bottleneck (K = 140, ~200 µs RTT) holds α higher")
