"""plmc-fabric: PLMC across a congested fabric, and host hints — beyond the sources (issue 18).

PLMC's paper and the thesis run the coordinator beside the drives with messages that take no
time. Here the `plmc` experiment's pool (DS1, configuration 2: C = 1.4 × M_DC, T_DW = 100 ms,
strict priority) sits in a storage server (r0) behind a 10 Gb/s, 2 µs-per-link switch, with
High, Medium and Low on hosts s0–s2. PLMC runs at r0 and talks to the hosts on their NVMe-oF
connections (`messages = "network"`, docs/plm.md): a window's close, the hosts' demand reports,
the allocations, and — a host asking for counts beyond its allocation (PLMC §III-A) — the ask and
its grant, while the read waits. Cases, each with the same traces:

- `instant`: the messages take no time (the sources' assumption);
- `idle`: they cross the idle fabric;
- `congested`: long-lived DCTCP flows in both directions load every port PLMC's messages and the
  pool's traffic use — s3, s4 → r0 (towards PLMC: reports, asks and commands queue behind them)
  and r1 → s0, s1, s2 (towards the hosts: closes, allocations, grants and read data);
- `hints`: congested, with the hosts telling PLMC their exact next-window demand in their
  reports (HoD — host hints, PLMC's future work) instead of PLMC predicting it (CoD).

Each is run with the paper's asking hosts (`ask`) and with eq. 5's hosts that serve an uncovered
read in NDWin without asking (`nd`), whose only messages are the per-window exchange. NeSt's own
checks (the sources make no claim here) report what the fabric does to PLMC.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

from ..claims import Claim, write_claims
from . import figures
from . import plm_datasets as D
from .framework import conservation_claim, expect, run_all
from .plmc import CLASSES, RANGE, _fmt3 as _fmt, _scenario

NAME = "plmc-fabric"
DESCRIPTION = "PLMC's messages over an idle and a congested fabric, and host hints (beyond PLMC: docs/plm.md)"
FIGURES = ["plmc-fabric"]
SOURCE = "NeSt (beyond PLMC §IV: the paper's coordinator messages take no time)"
HOSTS = {"high": "s0", "medium": "s1", "low": "s2"}
CASES = ("instant", "idle", "congested", "hints")
OVERRUNS = ("ask", "nd")


def _on_fabric(sc: dict, case: str) -> dict:
    """The `plmc` scenario with its pool in storage server r0 and its hosts on s0–s2."""
    sc["network"] = {"topology": "dumbbell", "senders": 5, "receivers": 2, "link_rate": "10Gbps", "link_delay": "2us"}
    for h in sc["host"]:
        h["name"] = HOSTS[h["name"]]
    for w in sc["workload"]:
        w["host"] = HOSTS[w["host"]]
    for d in sc["device"]:
        d["server"] = "r0"
    coord = sc["coordinator"][0]
    coord["hosts"] = [HOSTS[c] for c in coord["hosts"]]
    coord["messages"] = "instant" if case == "instant" else "network"
    if case in ("congested", "hints"):
        sc["flow"] = ([{"name": f"to-r0-{s}", "src": s, "dst": "r0", "class": "low", "transport": "dctcp"} for s in ("s3", "s4")]
                      + [{"name": f"from-r1-{s}", "src": "r1", "dst": s, "class": "low", "transport": "dctcp"} for s in HOSTS.values()])
    return sc


def _plan(ds1: D.Dataset, duration: float) -> Dict[str, dict]:
    scen = {}
    for ov in OVERRUNS:
        for case in CASES:
            pred = "hod" if case == "hints" else "cod"
            tag = f"{ov}-{case}"
            scen[tag] = _on_fabric(_scenario(f"fabric-{tag}", ds1, duration, 2, pred, "sp", ov), case)
    return scen


def _ph(s: dict, c: str) -> dict:
    return s["coordinators"]["plmc"]["per_host"][HOSTS[c]]


def _p90(s: dict, c: str) -> float:
    return s["workloads"][c]["read"]["lat_us"]["p90"]


def _delay(s: dict) -> float:
    return s["coordinators"]["plmc"].get("messages", {}).get("mean_delay_us", 0.0)


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    out_dir = Path(out_dir)
    duration = 20.0 if quick else 120.0
    ds1 = D.build(out_dir / "datasets", "DS1", duration, RANGE)
    scen = _plan(ds1, duration)
    runs = run_all(out_dir, scen)
    r = {(ov, case): runs[f"{ov}-{case}"] for ov in OVERRUNS for case in CASES}
    claims: List[Claim] = []

    figures.bars(out_dir, "plmc-fabric", {
        f"read p90 over the run, hosts {'asking' if ov == 'ask' else 'serving uncovered reads in NDWin'}":
            {case: {c: _p90(r[(ov, case)], c) for c in CLASSES} for case in CASES}
        for ov in OVERRUNS}, "µs", log=True)

    delays = {case: _delay(r[("ask", case)]) for case in CASES}
    maxd = {case: r[("ask", case)]["coordinators"]["plmc"].get("messages", {}).get("max_delay_us", 0.0) for case in CASES}
    for ov in OVERRUNS:
        idle = max(abs(_p90(r[(ov, "idle")], c) / _p90(r[(ov, "instant")], c) - 1) for c in CLASSES)
        nd = {case: r[(ov, case)]["pools"]["pool"]["reads_nd"] for case in ("instant", "idle")}
        reads = sum(r[(ov, "instant")]["workloads"][c]["read"]["ios"] for c in CLASSES)
        claims.append(expect(f"idle-fabric-{ov}", SOURCE, f"On an idle fabric PLMC's messages ({delays['idle']:.1f} µs one way) "
                             f"change no class's read p90 by more than 5 % against messages that take no time ({ov} hosts; "
                             "largest deviation over the classes)", idle, at_most=0.05,
                             why=f"{100 * nd['instant'] / reads:.1f} % of the reads are served in NDWin, so the p90 sits where the "
                                 "reads served in DTWin end and those served in NDWin begin, and a few reads move it: the hosts' "
                                 f"reads between a window's close and their allocation sent {nd['idle'] - nd['instant']:.0f} more "
                                 f"reads to NDWin ({nd['instant']:.0f} → {nd['idle']:.0f}, "
                                 f"{100 * (nd['idle'] - nd['instant']) / reads:.2f} % of the reads)"))
    claims.append(expect("congestion-delays-messages", SOURCE, "Congestion on the ports PLMC's messages cross delays them "
                         "by the queues' depth: mean one-way delay congested ÷ idle", delays["congested"] / max(delays["idle"], 1e-9),
                         at_least=2.0, unit="×"))
    claims[-1].measured = (f"{claims[-1].measured}; mean {delays['idle']:.1f} → {delays['congested']:.1f} µs, "
                           f"largest {maxd['idle']:.1f} → {maxd['congested']:.1f} µs")
    for ov in OVERRUNS:
        cg, ins = r[(ov, "congested")], r[(ov, "instant")]
        unalloc = cg["coordinators"]["plmc"]["report"]["unallocated_windows"]
        claims.append(Claim(f"windows-allocated-{ov}", SOURCE, "Under congestion every window is still allocated: the "
                            f"reports reach PLMC well within a window ({ov} hosts)", "0 unallocated windows",
                            f"{unalloc:.0f} of {cg['coordinators']['plmc']['report']['windows']:.0f}", unalloc == 0))
        ratio = [_p90(cg, c) / _p90(ins, c) for c in CLASSES]
        claims.append(Claim(f"congestion-cost-{ov}", SOURCE, f"What congestion costs each class's read p90 ({ov} hosts; "
                            "congested ÷ instant, High / Medium / Low)", "reported (no source makes a claim)",
                            _fmt(ratio) + f" ({_fmt(_p90(ins, c) for c in CLASSES)} → {_fmt(_p90(cg, c) for c in CLASSES)} µs)", None,
                            "the pool's commands and read data cross the loaded ports as PLMC's messages do: a 64-byte message "
                            f"takes {_delay(cg):.0f} µs there on average ({_delay(r[(ov, 'idle')]):.1f} µs idle)"))
        u_cg = [_ph(cg, c)["utilization_p10"] for c in CLASSES]
        u_in = [_ph(ins, c)["utilization_p10"] for c in CLASSES]
        claims.append(expect(f"allocation-robust-{ov}", SOURCE, "Congestion hardly moves PLMC's allocation: the windows (≤ 100 ms) "
                             "are long against the messages' delay, so each class's utilization p10 stays within 0.05 of its "
                             f"value with messages that take no time ({ov} hosts; largest difference)",
                             max(abs(a - b) for a, b in zip(u_cg, u_in)), at_most=0.05,
                             why=f"utilization p10 H/M/L {_fmt(u_in)} → {_fmt(u_cg)}"))
    ask_cg, ask_ins = r[("ask", "congested")], r[("ask", "instant")]
    asks = {k: sum(_ph(s, c)["overruns"] for c in CLASSES) for k, s in (("instant", ask_ins), ("congested", ask_cg))}
    refused = {k: sum(_ph(s, c)["refused"] for c in CLASSES) for k, s in (("instant", ask_ins), ("congested", ask_cg))}
    claims.append(Claim("asks-under-congestion", SOURCE, "Asking hosts under congestion: asks and refusals against messages "
                        "that take no time (the hosts are without counts between a window's close and their allocation)",
                        "reported", f"asks {asks['instant']:.0f} → {asks['congested']:.0f}, refused {refused['instant']:.0f} → "
                        f"{refused['congested']:.0f}", None,
                        "no source makes a claim; PLMC refuses an ask while it waits for a window's reports, and under congestion "
                        f"that wait is longer (mean one-way delay {_delay(ask_cg):.0f} µs)"))
    for ov in OVERRUNS:
        hod, cod = r[(ov, "hints")], r[(ov, "congested")]
        u = [_ph(hod, c)["utilization_p10"] for c in CLASSES]
        claims.append(expect(f"hints-utilization-{ov}", SOURCE, "With host hints (each host's exact next-window demand in its "
                             f"report) every allocated count is used even under congestion: utilization p10, lowest class ({ov} hosts)",
                             min(u), at_least=0.99))
        hd = [_ph(hod, c)["deficiency_p90"] for c in CLASSES]
        cd = [_ph(cod, c)["deficiency_p90"] for c in CLASSES]
        claims.append(Claim(f"hints-deficiency-{ov}", SOURCE, f"Host hints against CoD under congestion: deficiency p90 per class ({ov} hosts)",
                            "reported", f"hints {_fmt(hd)}; CoD {_fmt(cd)}; High's read p90 {_p90(hod, 'high'):.0f} vs "
                            f"{_p90(cod, 'high'):.0f} µs", None,
                            "no source makes a claim; CoD's deficiency is the demand it under-predicts, whose reads are "
                            + ("asked for" if ov == "ask" else "served in NDWin") + "; the hints leave none"))
    claims.append(conservation_claim(runs=runs))
    return write_claims(out_dir, NAME, claims)
