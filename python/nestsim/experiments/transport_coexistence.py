"""transport-coexistence: TCP-family and RoCE flows sharing a bottleneck (thesis 4.5.3,
Fig 4.22b–c and Fig 4.23).

One 100 Gb/s bottleneck (one switch, 2 µs links) with the DCQCN-friendly marking of the thesis
("optimal parameter settings" for DCQCN: the DCQCN authors' RED, KMIN 40 / KMAX 1000 cells,
PMAX 1, scaled to 100 Gb/s by ×10) and PFC. (b) one DCTCP and one DCQCN flow; (c) one QTCP and
one DCQCN flow; Fig 4.23: four QTCP flows with ratios 1 : 1.5 : 2 : 3 beside two DCQCN flows,
and four QRDMA flows with the same ratios beside two DCTCP flows. QTCP and QRDMA run with
interference adaptation on and their own bottleneck estimate λ, never set by hand (SPEC §13
item 4). Throughputs are means of the per-flow time series over the stated windows.
"""

from __future__ import annotations

from pathlib import Path
import json
from statistics import mean

from ..claims import Claim, ablation, write_claims
from .framework import run_all, timeseries
from . import figures
from .net_common import flow, phase_means, roce_switch, star, within
from .net_common import q_of, why_q

NAME = "transport-coexistence"
DESCRIPTION = "DCTCP vs DCQCN, QTCP vs DCQCN, and 1:1.5:2:3 QTCP/QRDMA beside the other family (thesis Fig 4.22b–c, 4.23)"
#: Figures written next to claims.json, named after the source's (docs/plots.md).
FIGURES = ["thesis-fig4.22-4.23"]
SOURCE = "thesis 4.5.3, Fig 4.22b–c and Fig 4.23"
CLASSES = [{"name": f"c{i}", "priority": p, "ratio": r} for i, (p, r) in
           enumerate(zip(["low", "medium", "high", "high"], [1.0, 1.5, 2.0, 3.0]), start=1)] + \
          [{"name": "other", "priority": "best_effort", "ratio": 1.0}]


def _net(n_hosts: int) -> dict:
    net = star({**{f"s{i}": "2us" for i in range(n_hosts)}, "r": "2us"}, rate="100Gbps")
    net["framing"] = "ethernet"
    net["switch"] = roce_switch(scale=10, buffer="32MiB", xoff="2MiB", xon="1536KiB")
    net["qtcp"] = {"interference": True}
    return net


def _scenario(tag: str, net: dict, flows: list, duration: str) -> dict:
    return {"schema": 1, "name": f"coexistence-{tag}", "run": {"seed": 1, "duration": duration, "interval": "100us", "drain": False},
            "class": CLASSES, "network": net, "flow": flows}


def _mixed(fam: str, other: str) -> list:
    """Four `fam` flows with ratios 1 : 1.5 : 2 : 3 beside two `other` flows."""
    flows = [flow(f"{fam}{i}", f"s{i - 1}", "r", f"c{i}", fam) for i in range(1, 5)]
    return flows + [flow(f"{other}{j}", f"s{4 + j}", "r", "other", other) for j in range(2)]


MIXED = (("fig4.23b-qtcp-with-dcqcn", "qtcp", "dcqcn"), ("fig4.23c-qrdma-with-dctcp", "qrdma", "dctcp"))


def _series(out_dir: Path, tag: str) -> dict:
    """Per-flow throughput series of run `tag`."""
    ts = timeseries(out_dir / tag)
    out: dict = {}
    for e, m, v, t in zip(ts["entity"], ts["metric"], ts["value"], ts["time_s"]):
        if m == "throughput_gbps" and e.startswith("flow:"):
            out.setdefault(e[5:], []).append((t, v))
    return out


def _avg(s: list, a: float, b: float) -> float:
    v = [x for t, x in s if a <= t < b]
    return round(mean(v), 2) if v else 0.0


def run_experiment(out_dir: Path) -> dict:
    claims = []
    scenarios = {
        "b-dctcp-dcqcn": _scenario("b-dctcp-dcqcn", _net(2), [flow("dctcp", "s0", "r", "other", "dctcp"),
                                                             flow("dcqcn", "s1", "r", "other", "dcqcn")], "200ms"),
        "c-qtcp-dcqcn": _scenario("c-qtcp-dcqcn", _net(2),
                                  [flow("qtcp", "s0", "r", "c1", "qtcp"), flow("dcqcn", "s1", "r", "other", "dcqcn")], "200ms"),
    }
    scenarios.update({tag: _scenario(tag, _net(6), _mixed(fam, other), "200ms") for tag, fam, other in MIXED})
    run_all(out_dir, scenarios)
    s = _series(out_dir, "b-dctcp-dcqcn")
    # "Initially": the first sampled interval (100 µs ≈ 10 base RTTs, DCTCP still in slow start);
    # the crossover is the first interval in which DCTCP carries more.
    early = (s["dctcp"][0][1], s["dcqcn"][0][1])
    cross = next((t for (t, a), (_, b) in zip(s["dctcp"], s["dcqcn"]) if a > b), None)
    late = (_avg(s["dctcp"], 0.1, 0.2), _avg(s["dcqcn"], 0.1, 0.2))
    plain_late = late
    claims.append(Claim("dcqcn-first-dctcp-later", SOURCE + " (Fig 4.22b)",
                        "DCQCN grabs most of the link while DCTCP is in slow start; DCTCP ends up with most of it",
                        "first interval: DCQCN > DCTCP; 100–200 ms: DCTCP > DCQCN",
                        f"first 100 µs DCTCP {early[0]:.1f} / DCQCN {early[1]:.1f} Gb/s; DCTCP ahead from {cross * 1e3 if cross is not None else float('nan'):.1f} ms; "
                        f"100–200 ms DCTCP {late[0]:.1f} / DCQCN {late[1]:.1f} Gb/s",
                        early[1] > early[0] and late[0] > late[1]))
    s = _series(out_dir, "c-qtcp-dcqcn")
    late = (_avg(s["qtcp"], 0.1, 0.2), _avg(s["dcqcn"], 0.1, 0.2))
    claims.append(Claim("qtcp-dcqcn-equal", SOURCE + " (Fig 4.22c)",
                        "With the quality factor, QTCP and DCQCN get equal bandwidth",
                        "within 20 % of each other", f"QTCP {late[0]:.1f} / DCQCN {late[1]:.1f} Gb/s (100–200 ms)",
                        within(late[0], late[1], 0.2),
                        ablation=ablation("DCTCP in QTCP's place (Fig 4.22b's run)", within(plain_late[0], plain_late[1], 0.2)),
                        why=None if within(late[0], late[1], 0.2) else _why(out_dir, "c-qtcp-dcqcn", ["qtcp"], ["dcqcn"]), cause="model"))
    for tag, fam, other in MIXED:
        s = _series(out_dir, tag)
        g = [_avg(s[f"{fam}{i}"], 0.1, 0.2) for i in range(1, 5)]
        o = [_avg(s[f"{other}{j}"], 0.1, 0.2) for j in range(2)]
        r = [round(x / g[0], 2) if g[0] else 0.0 for x in g]
        ordered = all(a < b for a, b in zip(g, g[1:]))
        on_target = all(within(x, t, 0.25) for x, t in zip(r, [1, 1.5, 2, 3]))
        claims.append(Claim(f"{fam}-ratios-beside-{other}", SOURCE + (" (Fig 4.23b)" if fam == "qtcp" else " (Fig 4.23c)"),
                            f"{fam.upper()} flows with ratios 1 : 1.5 : 2 : 3 stay differentiated while leaving room for {other.upper()} flows"
                            + (" (thesis: respecting the target is difficult with DCQCN's marking)" if fam == "qtcp" else " (thesis: ≈ the target ratio)"),
                            "ordered, and " + ("each ratio within 25 % of target" if fam == "qrdma" else "the other family keeps ≥ 10 % of the link"),
                            f"{fam.upper()} {' / '.join(f'{x:.1f}' for x in g)} Gb/s (1 : {' : '.join(str(x) for x in r[1:])}); "
                            f"{other.upper()} {' / '.join(f'{x:.1f}' for x in o)} Gb/s",
                            ordered and (on_target if fam == "qrdma" else sum(o) >= 9.0),
                            why=_why(out_dir, tag, [f"{fam}{i}" for i in range(1, 5)], [f"{other}{j}" for j in range(2)])))
    figures.lines(out_dir, "thesis-fig4.22-4.23", {tag: figures.flow_series(out_dir / tag, window_s=0.002) for tag in
                                                    ("b-dctcp-dcqcn", "c-qtcp-dcqcn", "fig4.23b-qtcp-with-dcqcn", "fig4.23c-qrdma-with-dctcp")},
                  "time (s)", "throughput (Gb/s, 2 ms mean)", title="Transports sharing 100 Gb/s (thesis Fig 4.22b–c, 4.23b–c)")
    return write_claims(out_dir, "transport-coexistence", claims)


def _why(out_dir: Path, tag: str, managed: list, others: list) -> str:
    """What the run measured of the managed flows' steering and the other family's congestion."""
    m = phase_means(timeseries(out_dir / tag), 0.1, 0.2)
    f = json.loads((out_dir / tag / "summary.json").read_text())["network"]["flows"]
    cut = ", ".join(f"{n} {f[n]['cuts']} cuts" for n in others)
    return why_q(q_of(m, managed), base="its base protocol", where=" of the managed flows over 100–200 ms",
                 lam=m.get(("qtcp", "lambda_gbps")), extra=f"; the other family's flows took {cut}",
                 then="the split is the two families' own reaction to the shared marking")
