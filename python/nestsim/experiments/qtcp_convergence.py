"""qtcp-convergence: how fast QTCP reaches its targets in simulation (QTCP Fig 2–3; thesis
Fig 4.11–4.12). The analytic model's convergence is in `qtcp-model`.

Three backlogged flows of classes with ratios 1 : 2 : 3 share a 10 Gb/s bottleneck (one switch,
10 µs links, K = 65), joining at 0, 60 and 120 ms. After each join the flows present should move
to their new targets (1 alone; 1 : 2; 1 : 2 : 3). Convergence time: from the join until every
present flow's throughput (200 µs samples, 1 ms moving mean) is within 15 % of its target and
stays there for 10 ms; in RTTs of the mean smoothed RTT. The same schedule under DCTCP converges to
equal shares, for comparison (thesis Fig 4.12: QTCP converges faster than DCTCP).

QTCP gives slack back while congestion lasts (SPEC §4, `while_congested`). The same schedule
under the literal reading (`on_mark`) runs beside: its flows are measured against where that
reading settles (eq. 4.5's fixed point), not against the targets it cannot reach.
"""

from __future__ import annotations

from pathlib import Path
from statistics import mean
from typing import Dict, List, Optional

from ..claims import Claim, ablation, write_claims
from .framework import run_all, timeseries
from . import figures
from .net_common import eq45_split, flow, phase_means, scenario, star

NAME = "qtcp-convergence"
DESCRIPTION = "QTCP's Q → 1 and per-class targets after late joins, vs DCTCP convergence (QTCP Fig 2–3, thesis Fig 4.11–4.12)"
#: Figures written next to claims.json, named after the source's (docs/plots.md).
FIGURES = ["qtcp-fig3-thesis-fig4.12", "qtcp-fig2"]
SOURCE = "QTCP paper §III-C Fig 2–3; thesis Fig 4.11–4.12"
JOINS = {"f1": 0.0, "f2": 0.060, "f3": 0.120}
CLASS = {"f1": "low", "f2": "medium", "f3": "high"}
RATIO = {"f1": 1.0, "f2": 2.0, "f3": 3.0}
STEP, SMOOTH, HOLD, TOL, END = 200e-6, 5, 0.010, 0.15, 0.200
GOODPUT = 10 * 1448 / 1538
RULE = "NeSt: fixed point of thesis eq. 4.5 / QTCP eq. 6 read literally (on_mark; docs/network.md)"


def _scenario(tag: str) -> dict:
    net = star({"s1": "10us", "s2": "10us", "s3": "10us", "r": "10us"})
    net["switch"] = {"ecn": "step", "ecn_k": 65}
    net["framing"] = "ethernet"
    if tag.endswith("-on-mark"):
        net["qtcp"] = {"slack": "on_mark"}
    cc = tag.removesuffix("-on-mark")
    flows = [flow(f, f"s{f[1]}", "r", CLASS[f], cc, start=f"{t * 1e3:g}ms") for f, t in JOINS.items()]
    return scenario(net, flows, duration=f"{END * 1e3:g}ms", warmup="0ms", interval=f"{STEP * 1e6:g}us", name=f"qtcp-convergence-{tag}")


def _series(ts: dict) -> tuple:
    """Per-flow throughput series and the mean smoothed RTT of a run's time series."""
    thr: Dict[str, List[tuple]] = {}
    rtt: List[float] = []
    for e, m, v, t in zip(ts["entity"], ts["metric"], ts["value"], ts["time_s"]):
        if m == "throughput_gbps":
            thr.setdefault(e[5:], []).append((t, v))
        elif m == "srtt_us" and v > 0:
            rtt.append(v)
    return thr, mean(rtt)


def _smoothed(s: List[tuple]) -> Dict[float, float]:
    out = {}
    for i in range(len(s)):
        w = s[max(0, i - SMOOTH + 1):i + 1]
        out[round(s[i][0], 7)] = mean(v for _, v in w)
    return out


def convergence(thr: Dict[str, List[tuple]], join: float, until: float, targets: Dict[str, float]) -> Optional[float]:
    """Seconds from `join` until every flow in `targets` stays within TOL of its target for HOLD."""
    sm = {f: _smoothed(thr[f]) for f in targets}
    times = sorted(t for t in sm[next(iter(targets))] if join <= t < until)
    ok_since = None
    for t in times:
        ok = all(abs(sm[f].get(t, 0) - g) <= TOL * g for f, g in targets.items())
        if ok:
            ok_since = t if ok_since is None else ok_since
            if t - ok_since >= HOLD:
                return ok_since - join
        else:
            ok_since = None
    return None


def _targets(present: List[str], qtcp: bool) -> Dict[str, float]:
    if not qtcp:
        return {f: GOODPUT / len(present) for f in present}
    tot = sum(RATIO[f] for f in present)
    return {f: GOODPUT * RATIO[f] / tot for f in present}


def run_experiment(out_dir: Path) -> dict:
    res = {}
    run_all(out_dir, {cc: _scenario(cc) for cc in ("qtcp", "dctcp", "qtcp-on-mark")})
    series = {cc: timeseries(out_dir / cc) for cc in ("qtcp", "dctcp", "qtcp-on-mark")}
    for cc in ("qtcp", "dctcp"):
        thr, rtt = _series(series[cc])
        per = []
        for i, (f, t) in enumerate(JOINS.items()):
            present = list(JOINS)[:i + 1]
            until = list(JOINS.values())[i + 1] if i + 1 < len(JOINS) else END
            if i == 0:
                continue  # a lone flow's slow start is not a convergence
            c = convergence(thr, t, until, _targets(present, cc == "qtcp"))
            per.append((f, c))
        res[cc] = (per, rtt)
        res[f"{cc}_thr"] = thr
    fmt = lambda per, rtt: "; ".join(f"after {f} joins: " + ("not within the phase" if c is None else f"{c * 1e3:.1f} ms = {c * 1e6 / rtt:.0f} RTTs")
                                     for f, c in per)
    q, qrtt = res["qtcp"]
    d, drtt = res["dctcp"]
    # Where the QTCP flows sat in the second half of the last phase, against their targets.
    thr_q = res["qtcp_thr"]
    tail = {f: mean(v for t, v in thr_q[f] if (END + JOINS["f3"]) / 2 <= t < END) for f in JOINS}
    tg = _targets(list(JOINS), True)
    tail_txt = ", ".join(f"{f} {tail[f]:.2f} (target {tg[f]:.2f})" for f in JOINS)
    # Where the literal reading goes in each phase (eq. 4.5's fixed point at the α, RTT and λ of
    # the phase's second half), and how fast its flows get there.
    ts = series["qtcp-on-mark"]
    thr_m, mrtt = _series(ts)
    flows = _scenario("qtcp-on-mark")["flow"]
    starts = list(JOINS.values()) + [END]
    fp_conv, fp_last = [], {}
    for i in range(1, len(JOINS)):
        join, until = starts[i], starts[i + 1]
        present = list(JOINS)[:i + 1]
        fp = eq45_split(phase_means(ts, (join + until) / 2, until), [f for f in flows if f["name"] in present], RATIO)
        fp_last = fp
        fp_conv.append((list(JOINS)[i], convergence(thr_m, join, until, fp) if len(fp) == len(present) else None))
    fp_ok = all(c is not None and c * 1e6 / mrtt <= 100 for _, c in fp_conv)
    lo_t = (END + JOINS["f3"]) / 2
    q_of = lambda tsx: {f: mean(v for e, m, v, t in zip(tsx["entity"], tsx["metric"], tsx["value"], tsx["time_s"])
                                if e == f"flow:{f}" and m == "q_factor" and lo_t <= t < END) for f in JOINS}
    qtail = q_of(series["qtcp"])
    q_ok = all(c is not None and c * 1e6 / qrtt <= 100 for _, c in q)
    claims = [Claim("qtcp-converges", SOURCE, "After each late join, QTCP's flows reach their class targets (Q ≈ 1) within tens of RTTs",
                    "≤ 100 RTTs to within 15 % of target (held 10 ms)", f"{fmt(q, qrtt)} (mean RTT {qrtt:.0f} µs); "
                    f"last phase, second half: {tail_txt} Gb/s", q_ok,
                    why=None if q_ok else "in the last phase's second half the flows' mean Q is "
                    + ", ".join(f"{f} {qtail[f]:.2f}" for f in JOINS) + " (1 = on target, > 1 short of it)"),
              Claim("rule-convergence", RULE, "Under the literal reading (on_mark), QTCP's flows reach the split that reading "
                    "settles at (eq. 4.5's fixed point at the phase's own α, RTT and λ) within ~100 RTTs of each late join",
                    "≤ 100 RTTs to within 15 % of the fixed point (held 10 ms)", fmt(fp_conv, mrtt) + f" (mean RTT "
                    f"{mrtt:.0f} µs); last phase's fixed point "
                    + ", ".join(f"{f} {x:.2f}" for f, x in fp_last.items()) + " Gb/s", fp_ok,
                    why=None if fp_ok else "the flows take longer than 100 RTTs to settle even at the rule's own fixed point: "
                    "QTCP moves a flow only through its cuts on ECN (one per window) and steers by a smoothed throughput "
                    "(γ = 15/16 per window)")]
    # Q itself once all three have joined (QTCP §III-C, §IV-C: "Q_i quickly converges to close to 1").
    q_fp = {f: tg[f] / fp_last[f] for f in JOINS if fp_last.get(f)}
    q_mark = q_of(ts)
    q_near = all(0.95 <= x <= 1.05 for x in qtail.values())
    claims.append(Claim("q-near-one", "QTCP paper §III-C, §IV-C; thesis Fig 4.11",
                        "Once the flows have converged, every class's Q stays close to 1", "mean Q of the last phase's second "
                        "half within 0.95–1.05 for each flow", ", ".join(f"{f} {qtail[f]:.2f}" for f in JOINS), q_near,
                        why=None if q_near else "Q = target / smoothed throughput, so Q ≈ 1 only where the flows sit at their "
                        "targets (qtcp-converges)",
                        ablation=ablation("on_mark: " + ", ".join(f"{f} {q_mark[f]:.2f}" for f in JOINS) + "; at its fixed point "
                                          "Q would be " + ", ".join(f"{f} {x:.2f}" for f, x in q_fp.items()),
                                          all(0.95 <= x <= 1.05 for x in q_mark.values()))))
    # Thesis 4.5.3 (Fig 4.11): "after converging, Q_i remained fairly stable within 0.95 to 1 for each
    # class" — the spread of the samples over time, not their mean: 5th–95th percentile in the band.
    def band(tsx) -> Dict[str, tuple]:
        out = {}
        for f in JOINS:
            v = sorted(v for e, m, v, t in zip(tsx["entity"], tsx["metric"], tsx["value"], tsx["time_s"])
                       if e == f"flow:{f}" and m == "q_factor" and lo_t <= t < END)
            out[f] = (v[int(0.05 * (len(v) - 1))], v[int(0.95 * (len(v) - 1))]) if v else (float("nan"), float("nan"))
        return out
    in_band = lambda b: all(0.95 <= lo and hi <= 1.0 for lo, hi in b.values())
    bq, bm = band(series["qtcp"]), band(ts)
    show = lambda b: ", ".join(f"{f} {lo:.3f}–{hi:.3f}" for f, (lo, hi) in b.items())
    claims.append(Claim("q-band", "thesis 4.5.3, Fig 4.11", "After converging, every class's Q stays within 0.95 to 1",
                        "5th–95th percentile of each flow's Q samples (last phase, second half) within 0.95–1",
                        f"{show(bq)}; on_mark {show(bm)}", in_band(bq),
                        why=None if in_band(bq) else
                        "Q is the target over the smoothed throughput; a flow whose samples leave 0.95–1 is above its "
                        "target at times (Q < 0.95: it holds slack it gives back only while α > ε) or below it (Q > 1: short "
                        "of its target, it cuts like DCTCP); the band's edges per flow are measured above", cause="model"))
    qs = [c for _, c in q]
    ds = [c for _, c in d]
    faster = all(a is not None and (b is None or a <= b) for a, b in zip(qs, ds))
    claims.append(Claim("qtcp-faster-than-dctcp", "thesis Fig 4.12", "QTCP converges to its targets faster than DCTCP converges to equal shares",
                        "QTCP's time ≤ DCTCP's after every join", f"QTCP: {fmt(q, qrtt)}; DCTCP: {fmt(d, drtt)}", faster,
                        why=None if faster else "measured to each rule's own settling point — DCTCP's equal shares, QTCP's "
                        "targets — QTCP takes longer after some join; under on_mark, to its eq. 4.5 split, it takes "
                        + fmt(fp_conv, mrtt)))
    w = SMOOTH * STEP
    figures.lines(out_dir, "qtcp-fig3-thesis-fig4.12", {f"{cc.upper()}: flows join at {', '.join(f'{t * 1e3:g}' for t in JOINS.values())} ms":
                                                        figures.flow_series(out_dir / cc, window_s=w) for cc in ("qtcp", "dctcp")},
                  "time (s)", f"throughput (Gb/s, {w * 1e3:g} ms mean)", title="Late joiners: QTCP vs DCTCP (QTCP Fig 3, thesis Fig 4.12)")
    figures.lines(out_dir, "qtcp-fig2", {"QTCP": figures.flow_series(out_dir / "qtcp", "q_factor")}, "time (s)", "Q factor",
                  logy=True, title="Quality factor → 1 (QTCP Fig 2)")
    return write_claims(out_dir, "qtcp-convergence", claims)
