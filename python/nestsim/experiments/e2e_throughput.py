"""e2e-throughput: per-class throughput end to end (thesis Fig 4.13–4.16, 5.5–5.7).

The thesis' E2E set-up (see `e2e_common`): one client with High/Medium/Low applications offering
90/60/30 Gb/s over a 100 Gb/s fat-tree to ten storage servers, one SSD each in Scenario-3 QoS,
NVMe-oF over QTCP or DCTCP. Write-only, reads and writes together (90 / 60 / 30 Gb/s each way) and read-only; throughput
per class at the sender side, the storage end and the response side. And the storage-bottlenecked
variant (Fig 4.13b): three servers, write-only, where the SSDs (not the network) limit — measured
after their write caches have filled (the first ~130 ms only fill DRAM), so the flash sets the pace.

Region map (SPEC §13.2; not in `--quick`): the thesis states K = 140 but no link delay (SPEC §13
item 3 reads 0.6 µs from two of its figures), so the write-only QTCP split is also measured over
the link delay and K.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

from ..claims import Claim, ablation, write_claims
from . import e2e_common as E, figures
from .framework import conservation_claim, run_all, timeseries
from .net_common import phase_means, within
from .net_common import why_q
from .regions import Axis, region_map

NAME = "e2e-throughput"
DESCRIPTION = "QTCP splits E2E storage traffic 3:2:1, DCTCP equally; storage end and response side agree (thesis Fig 4.13–4.16)"
#: Figures written next to claims.json, named after the source's (docs/plots.md).
FIGURES = ["thesis-fig4.14-4.16"]
SOURCE = "thesis 4.5.3, Fig 4.13–4.16; 5.6.2, Fig 5.5–5.7"
CLASSES = ["high", "medium", "low"]
PAPER_QTCP = {"high": 48.0, "medium": 31.0, "low": 17.0}
#: Read fraction per workload; "mixed" (None) is thesis 4.5.3's pathological mix: each application
#: pushes its 90 / 60 / 30 Gb/s of writes on the forward link *and* requests as much in reads on the
#: response link (Fig 4.15; 5.6.2: "the combination of the workloads" of the read-only and
#: write-only runs), ~49.1 / 50.9 % read / write by bytes, both directions congested.
MIXES = {"write": 0.0, "mixed": None, "read": 1.0}


def _workloads(read_fraction) -> List[dict]:
    if read_fraction is not None:
        return E.storage_workloads(read_fraction)
    both = []
    for rf, suffix in ((0.0, "write"), (1.0, "read")):
        for w in E.storage_workloads(rf):
            both.append({**w, "name": f"{w['name']}-{suffix}"})
    return both


def _scenario(tag: str, read_fraction, cc: str, servers: List[str], duration: str, warmup: str) -> dict:
    return E.e2e_scenario(f"e2e-throughput-{tag}", _workloads(read_fraction), E.ssd_devices(servers), servers,
                          duration=duration, warmup=warmup, transport=cc)


def _points(s: dict) -> dict:
    """Gb/s per class at the sender side, storage end, response side and on the back channels."""
    return {
        "sender": E.channel_gbps(s, "forward"), "storage": E.passed_gbps(s, "device"), "response": E.passed_gbps(s, "host"),
        "back": E.channel_gbps(s, "back"),
    }


def _fmt(g: Dict[str, float]) -> str:
    return " / ".join(f"{g.get(c, 0.0):.1f}" for c in CLASSES) + " Gb/s (H/M/L)"


def _why_q(run_dir: Path, warmup_s: float, end_s: float) -> str:
    """The classes' mean quality factor on the NVMe-oF channels that carry data (1 = on target)."""
    m = phase_means(timeseries(run_dir), warmup_s, end_s)
    q = {c: [v for (e, k), v in m.items() if k == "q_factor" and e.startswith("flow:nvmeof:") and e.endswith(":" + c)] for c in CLASSES}
    a = [v for (e, k), v in m.items() if k == "alpha" and e.startswith("flow:nvmeof:")]
    return why_q({c: sum(v) / len(v) for c, v in q.items() if v}, where=" of the classes on their NVMe-oF channels",
                 extra=f" at mean α {sum(a) / max(len(a), 1):.2f}")


def _wire_gbps(summary: dict, seconds: float) -> tuple:
    """Bytes on the wire (headers and framing included) of the client's link over the run, Gb/s:
    up = what its edge switch forwards towards the aggregation layer (only the client talks
    across pods here), down = what the edge switch sends to the client."""
    ports = summary["network"]["switch"]["e0_0"]["ports"]
    up = sum(v["tx_bytes"] for k, v in ports.items() if k.startswith("e0_0->a"))
    return up * 8 / seconds / 1e9, ports[f"e0_0->{E.CLIENT}"]["tx_bytes"] * 8 / seconds / 1e9


def _ordered(g: Dict[str, float]) -> bool:
    return g["high"] > g["medium"] > g["low"]


#: Each class within 10 % of the paper's QTCP split (issue 58's reading of "≈ 48 / 31 / 17").
TOL = 0.10


def split_ok(g: Dict[str, float]) -> bool:
    """Ordered, each class within TOL of the paper's QTCP split."""
    return _ordered(g) and all(within(g[c], PAPER_QTCP[c], TOL) for c in CLASSES)


def split_map(out_dir: Path) -> dict:
    """Write-only QTCP: each class's Gb/s at the sender side against the link delay, one set per K."""
    def build(delay_us: float, k: float) -> dict:
        sc = _scenario(f"map-{delay_us:g}us-k{k:g}", 0.0, "qtcp", E.SERVERS, "100ms", "30ms")
        sc["network"] = E.network(delay=f"{delay_us:g}us", k_ecn=int(k))
        return sc

    return region_map(out_dir, "e2e-write-split-vs-delay-k", title="E2E write-only QTCP split against link delay and K",
                      x=Axis("delay_us", "link delay (µs)", [0.1, 0.3, 0.6, 1.0, 2.0, 5.0]),
                      series=Axis("k", "K (packets)", [40, 140, 400]), build=build,
                      measure=lambda s, _d, _at: {c: E.channel_gbps(s, "forward").get(c, 0.0) for c in CLASSES},
                      ylabel="sender-side Gb/s", reference={"delay_us": float(E.LINK_DELAY.removesuffix("us")), "k": 140},
                      holds=lambda c, y, _: within(y, PAPER_QTCP[c], TOL), logx=True,
                      effect=f"a class within {TOL:.0%} of the paper's 48 / 31 / 17 Gb/s")


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    mixes = {"write": 0.0} if quick else MIXES
    scenarios = {f"{mix}-{cc}": _scenario(f"{mix}-{cc}", rf, cc, E.SERVERS, "100ms", "30ms") for mix, rf in mixes.items() for cc in ("qtcp", "dctcp")}
    if not quick:
        # Storage-bottlenecked variant: three servers; the SSDs' flash limits after their caches fill.
        scenarios.update({f"storage3-{cc}": _scenario(f"storage3-{cc}", 0.0, cc, E.SERVERS[:3], "250ms", "130ms") for cc in ("dctcp", "qtcp")})
    runs = run_all(out_dir, scenarios)
    res = {tuple(tag.split("-")): _points(s) for tag, s in runs.items()}
    claims: List[Claim] = []
    # Write-only: the client's uplink is the bottleneck (marked at its NIC).
    q, d = res[("write", "qtcp")], res[("write", "dctcp")]
    qs = q["sender"]
    claims.append(Claim(
        "write-qtcp-split", SOURCE, "Write-only, QTCP: the sender side carries High/Medium/Low in the order of their 3 : 2 : 1 "
        "ratios, near the paper's ≈ 48 / 31 / 17 Gb/s", f"ordered, each class within {TOL:.0%} of 48 / 31 / 17",
        f"{_fmt(qs)}, High : Low = {qs['high'] / qs['low']:.2f} (paper 2.8)",
        split_ok(qs), ablation=ablation("DCTCP, write-only", split_ok(d["sender"])),
        why=None if split_ok(qs) else _why_q(out_dir / "write-qtcp", 0.03, 0.1)))
    ds = d["sender"]
    claims.append(Claim(
        "write-dctcp-equal", SOURCE, "Write-only, DCTCP: about equal shares (≈ 33 Gb/s each), Low getting (nearly) its 30 Gb/s",
        "High and Medium within 10 % of each other, Low ≥ 27 Gb/s", _fmt(ds),
        within(ds["high"], ds["medium"], 0.10) and ds["low"] >= 27.0))
    agree = all(within(q[p][c], qs[c], 0.05) for p in ("storage", "response") for c in CLASSES)
    claims.append(Claim(
        "write-three-points", SOURCE, "The split set at the sender side holds at the storage end and the response side "
        "(10 servers: the network is the bottleneck)", "storage end and response side within 5 % of the sender side per class",
        f"sender {_fmt(qs)}; storage {_fmt(q['storage'])}; response {_fmt(q['response'])}", agree))
    if not quick:
        rq, rd = res[("read", "qtcp")]["response"], res[("read", "dctcp")]["response"]
        claims.append(Claim(
            "read-qtcp-split", "thesis 5.6.2, Fig 5.7", "Read-only, QTCP: the response side (the client's downlink, marked at "
            "its edge switch) splits in the ratio order, as for writes", f"ordered, each class within {TOL:.0%} of 48 / 31 / 17",
            _fmt(rq), split_ok(rq), ablation=ablation("DCTCP, read-only", split_ok(rd)),
            why=None if split_ok(rq) else _why_q(out_dir / "read-qtcp", 0.03, 0.1)))
        claims.append(Claim(
            "read-dctcp-equal", "thesis 5.6.2, Fig 5.7", "Read-only, DCTCP: about equal shares on the response side",
            "High and Medium within 10 % of each other, Low ≥ 27 Gb/s", _fmt(rd),
            within(rd["high"], rd["medium"], 0.10) and rd["low"] >= 27.0))
        mq, md = res[("mixed", "qtcp")], res[("mixed", "dctcp")]
        total = {c: mq["response"][c] for c in CLASSES}
        ratio = [round(total[c] / total["low"], 2) for c in CLASSES]
        dratio = md["response"]["high"] / max(md["response"]["low"], 1e-9)
        ok_mix = within(ratio[0], 3.0, 0.1) and within(ratio[1], 2.0, 0.1)
        claims.append(Claim(
            "mixed-split", "thesis 4.5.3 Fig 4.15; 5.6.2", "Reads and writes at 90 / 60 / 30 Gb/s each way (both directions "
            "congested): QTCP completes the classes in ratio 3 : 2 : 1 end to end, where DCTCP does not",
            "QTCP response side 3 : 2 : 1 (each within 10 %); DCTCP High : Low < 1.5",
            f"QTCP {_fmt(total)} = {ratio[0]} : {ratio[1]} : 1; DCTCP {_fmt(md['response'])} (High : Low {dratio:.2f})",
            ok_mix and dratio < 1.5,
            why=None if ok_mix and dratio < 1.5 else
            ("DCTCP splits 3 : 2 : 1 too: a direction is not congested" if dratio >= 1.5 else
             _why_q(out_dir / "mixed-qtcp", 0.03, 0.1)), cause="model"))
        up, down = _wire_gbps(runs["mixed-qtcp"], 0.1)
        claims.append(Claim(
            "mixed-both-congested", "thesis 4.5.3 (Fig 4.15)", "In the mixed run both directions of the client's link are congested",
            "each direction of the client's 100 Gb/s link ≥ 95 % busy (bytes on the wire over the run)",
            f"uplink {up:.1f} Gb/s, downlink {down:.1f} Gb/s on the wire; payload sender side {sum(mq['sender'].values()):.1f}, "
            f"response data {sum(mq['back'].values()):.1f} Gb/s (the rest: headers, commands, completions and the other "
            f"direction's ACKs); completed {_fmt(total)} of 180 / 120 / 60 offered (reads + writes)",
            up >= 95.0 and down >= 95.0,
            why="a direction carries less than the link: its congestion is not what limits the classes"))
        s3 = res[("storage3", "dctcp")]
        st = s3["storage"]
        claims.append(Claim(
            "storage-bottleneck-dctcp", "thesis 4.5.3, Fig 4.13b", "With three servers the storage end is the bottleneck; under "
            "DCTCP the storage end (Scenario-3 QoS) still differentiates the classes", "storage end High > Medium > Low, High ≥ 2 × Low",
            f"storage end {_fmt(st)} (total {sum(st.values()):.1f} Gb/s); sender side {_fmt(s3['sender'])}",
            _ordered(st) and st["high"] >= 2 * st["low"]))
    # Figures beside the thesis': per mix, throughput per class at the three points, QTCP and DCTCP.
    figures.bars(out_dir, "thesis-fig4.14-4.16", {
        f"{mix}-only {cc.upper()}" if mix != "mixed" else f"49/51 mix {cc.upper()}":
            {p: {c: res[(mix, cc)][p][c] for c in CLASSES} for p in ("sender", "storage", "response")}
        for mix in mixes for cc in ("qtcp", "dctcp")}, "Gb/s")
    claims.append(conservation_claim(runs, "SPEC §5"))
    return write_claims(out_dir, "e2e-throughput", claims, regions=None if quick else [split_map(out_dir)])
