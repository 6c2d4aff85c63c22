"""qtcp-bandwidth: bandwidth distribution of QTCP vs DCTCP (QTCP paper Fig 5).

Three applications offer 3, 6 and 9 Gb/s (18 Gb/s in all) to one receiver over a 10 Gb/s
bottleneck, in a k = 4 fat-tree (QTCP Fig 4; the figure itself is not in the text, so the three
senders sit in the three other pods and the receiver's edge link is the bottleneck). K = 140
packets, MTU 1500, ns-3 point-to-point framing as in the paper. QTCP's class ratios are 1 : 2 : 3,
so the targets are 1.67 / 3.33 / 5.0 Gb/s of what the link carries.

QTCP gives slack back while congestion lasts (SPEC §4, `while_congested`); "almost exactly" the
target ratio is judged within ±5 % (SPEC §13.1), DCTCP the mechanism-off ablation. The literal
reading (`on_mark`) runs beside, judged against its own fixed point (eq. 4.5).

Region map (SPEC §13.2; not in `--quick`): the paper gives one RTT and one K, so the split is
also measured over the link delay (RTT = 12 link delays plus serialization) and K.
"""

from __future__ import annotations

from pathlib import Path

from ..claims import Claim, ablation, write_claims
from . import figures
from .framework import timeseries
from .regions import Axis, region_map
from .net_common import eq45_split, fat_tree, flow, flow_gbps, phase_means, run_flows_all, scenario, split_within, within
from .net_common import why_q

NAME = "qtcp-bandwidth"
DESCRIPTION = "QTCP carries 1:2:3 where DCTCP shares equally: 3/6/9 Gb/s offered over 10 Gb/s (QTCP Fig 5)"
#: Figures written next to claims.json, named after the source's (docs/plots.md).
FIGURES = ["qtcp-fig5"]
SOURCE = "QTCP paper §IV-A, Fig 5"
RULE = "NeSt: fixed point of thesis eq. 4.5 / QTCP eq. 6 read literally (on_mark; docs/network.md)"
#: "almost exactly equal to that of the target ratio" (QTCP §IV-A): ±5 %, SPEC §13.1.
TOL = 0.05
APPS = [("app3", "h4", "low", "3Gbps"), ("app6", "h8", "medium", "6Gbps"), ("app9", "h12", "high", "9Gbps")]


def flows(transport: str) -> list:
    transport = transport.removesuffix("-on-mark")
    return [flow(name, src, "h0", cls, transport, rate) for name, src, cls, rate in APPS]


def ratio_map(out_dir: Path) -> dict:
    """QTCP's split (medium : low and high : low) against the link delay, one curve per K."""
    def measure(summary: dict, _run_dir: Path, _at: dict) -> dict:
        g = flow_gbps(summary["network"])
        return {"medium/low": g["app6"] / g["app3"], "high/low": g["app9"] / g["app3"]}

    want = {"medium/low": 2.0, "high/low": 3.0}
    return region_map(out_dir, "qtcp-ratio-vs-rtt-k", title="QTCP's 1 : 2 : 3 against link delay and K",
                      x=Axis("delay_us", "link delay (µs; RTT ≈ 12×)", [2.5, 5, 10, 20, 40]),
                      series=Axis("k", "K (packets)", [20, 65, 140]),
                      build=lambda d, k: scenario(fat_tree(delay=f"{d}us", k_ecn=int(k)), flows("qtcp"), duration="1500ms",
                                                  warmup="500ms", name=f"qtcp-map-{d}us-k{k:g}"),
                      measure=measure, ylabel="throughput ratio to the low class", reference={"delay_us": 10, "k": 140},
                      holds=lambda c, y, _: within(y, want[c], TOL), effect=f"within {TOL:.0%} of 2 (medium) or 3 (high)",
                      logx=True)


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    nets = {"qtcp": fat_tree(), "dctcp": fat_tree(), "qtcp-on-mark": {**fat_tree(), "qtcp": {"slack": "on_mark"}}}
    res = run_flows_all(out_dir, {cc: scenario(net, flows(cc), duration="1500ms", warmup="500ms", name=f"qtcp-bandwidth-{cc}")
                                  for cc, net in nets.items()})
    m = flow_gbps(res["qtcp-on-mark"])
    q, d = flow_gbps(res["qtcp"]), flow_gbps(res["dctcp"])
    qr = [round(q[a] / q["app3"], 2) for a in ("app3", "app6", "app9")]
    dr = [round(d[a] / d["app3"], 2) for a in ("app3", "app6", "app9")]
    qt, dt = res["qtcp"]["total_throughput_gbps"], res["dctcp"]["total_throughput_gbps"]
    fmt = lambda g: " / ".join(f"{g[a]:.2f}" for a in ("app3", "app6", "app9")) + " Gb/s"
    mr = [round(m[a] / m["app3"], 2) for a in ("app3", "app6", "app9")]
    ratio_ok = lambda r: within(r[1], 2.0, TOL) and within(r[2], 3.0, TOL)
    # Where each run's rule (eq. 4.5; DCTCP: Q never applies) puts the flows at the measured α and RTTs.
    ratios = {"qtcp-on-mark": {"app3": 1.0, "app6": 2.0, "app9": 3.0}, "dctcp": dict.fromkeys(("app3", "app6", "app9"))}
    means = {cc: phase_means(timeseries(out_dir / cc), 0.5, 1.5) for cc in ratios}
    pred = {cc: eq45_split(means[cc], flows(cc), ratios[cc]) for cc in ratios}
    rtt = {a: means["dctcp"].get((f"flow:{a}", "srtt_us"), 0.0) for a in ("app3", "app6", "app9")}
    alpha = {a: means["dctcp"].get((f"flow:{a}", "alpha"), 0.0) for a in ("app3", "app6", "app9")}
    dflows = res["dctcp"]["flows"]
    marks_per_cut = lambda a: dflows[a]["ece_acks"] / max(dflows[a]["cuts"], 1)
    pr = pred["dctcp"]
    claims = [
        Claim("qtcp-ratio", SOURCE, "QTCP carries the 3/6/9 Gb/s applications in ratio ≈ 1 : 2 : 3 (1.67/3.33/5.0 Gb/s)",
              f"1 : 2 : 3 (each within {TOL:.0%})", f"1 : {qr[1]} : {qr[2]} ({fmt(q)}); on_mark 1 : {mr[1]} : {mr[2]}",
              ratio_ok(qr), ablation=ablation("DCTCP: no quality factor", ratio_ok(dr)),
              why=None if ratio_ok(qr) else why_q({a: res["qtcp"]["flows"][a]["q_end"] for a in ("app3", "app6", "app9")},
                                                  where=" at the end")),
        Claim("dctcp-equal", SOURCE, "DCTCP shares the bottleneck about equally (paper: 1 : 1.1 : 1.1)",
              "every ratio within 1 ± 0.25", f"1 : {dr[1]} : {dr[2]} ({fmt(d)})",
              all(within(x, 1.0, 0.25) for x in dr),
              why=None if all(within(x, 1.0, 0.25) for x in dr) else
              f"a backlogged DCTCP flow's share goes as 1/(α·RTT²): at equal RTTs (app3 / app6 / app9: "
              f"{rtt['app3']:.0f} / {rtt['app6']:.0f} / {rtt['app9']:.0f} µs) the two backlogged flows settled at "
              f"different α ({alpha['app6']:.3f} vs {alpha['app9']:.3f}, time means), and DCTCP's fixed point at the "
              f"measured α and RTTs is 1 : {pr.get('app6', 0) / max(pr.get('app3', 1e-9), 1e-9):.2f} : "
              f"{pr.get('app9', 0) / max(pr.get('app3', 1e-9), 1e-9):.2f}, as measured (app3 is held by its 3 Gb/s "
              f"offer). Their α stay apart because the marks are not proportional to rate: per marking episode (a cut) "
              f"each flow gets about the same number of marked ACKs ({marks_per_cut('app6'):.1f} vs "
              f"{marks_per_cut('app9'):.1f}), so the faster flow's marked fraction, α and cut are smaller in proportion "
              f"— every flow loses about the same absolute window per episode and gains the same +1 per RTT, so any split "
              f"between the two backlogged flows is an equilibrium and it drifts instead of returning to equal", cause="model"),
        Claim("rule-fixed-point", RULE, "Under the literal reading (on_mark) each run's split is its rule's own: each flow "
              "within 10 % of eq. 4.5's fixed point (DCTCP: Q never applies) at the α, RTTs and λ measured",
              "each flow within 10 % of the fixed point", "Gb/s, measured (fixed point) — " + "; ".join(
                  f"{cc}: " + ", ".join(f"{a} {g[a]:.2f} ({pred[cc].get(a, 0.0):.2f})" for a in ("app3", "app6", "app9"))
                  for cc, g in (("qtcp-on-mark", m), ("dctcp", d))),
              all(split_within(g, pred[cc], 0.1) for cc, g in (("qtcp-on-mark", m), ("dctcp", d))),
              why="the simulated windows do not settle where the rule puts them: the flows' marking episodes differ "
              "(ECMP paths with different queues), or a flow is application-limited in part"),
        Claim("totals", SOURCE, "Both carry about the same total (paper: QTCP 9.63, DCTCP 9.57 Gb/s)",
              "≈ 9.6 Gb/s each (± 0.3)", f"QTCP {qt:.2f}, DCTCP {dt:.2f} Gb/s",
              within(qt, 9.6, 0.03) and within(dt, 9.6, 0.03)),
        Claim("lossless", "SPEC §4", "No packet is dropped and packets are conserved on every link and switch",
              "0 drops, conservation ok",
              f"drops {res['qtcp']['packets']['dropped']} / {res['dctcp']['packets']['dropped']}, "
              f"{res['qtcp']['conservation']} / {res['dctcp']['conservation']}",
              all(r["packets"]["dropped"] == 0 and r["conservation"] == "ok" for r in (res["qtcp"], res["dctcp"]))),
    ]
    figures.lines(out_dir, "qtcp-fig5", {cc.upper(): figures.flow_series(out_dir / cc, window_s=0.02) for cc in ("qtcp", "dctcp")},
                  "time (s)", "throughput (Gb/s, 20 ms mean)", title="3/6/9 Gb/s offered over 10 Gb/s (QTCP Fig 5)")
    return write_claims(out_dir, "qtcp-bandwidth", claims, regions=None if quick else [ratio_map(out_dir)])
