"""Scenario builders shared by the network experiments (QTCP paper §IV–V, thesis 4.5.3)."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional

from .framework import run_all

#: Throughput classes of the QTCP experiments: ratio 1 : 2 : 3 as low : medium : high.
RATIO_CLASSES = [
    {"name": "low", "priority": "low", "ratio": 1.0},
    {"name": "medium", "priority": "medium", "ratio": 2.0},
    {"name": "high", "priority": "high", "ratio": 3.0},
    # Unmanaged traffic (DCTCP flows are not counted in QTCP's shares).
    {"name": "best_effort", "priority": "best_effort", "ratio": 1.0},
]


def flow(name: str, src: str, dst: str, cls: str, transport: str, rate: Optional[str] = None, **extra) -> dict:
    f = {"name": name, "src": src, "dst": dst, "class": cls, "transport": transport}
    if rate:
        f["rate"] = rate
    f.update(extra)
    return f


def scenario(network: dict, flows: List[dict], duration: str, warmup: str, seed: int = 1,
             classes: Optional[List[dict]] = None, interval: str = "1ms", name: str = "net") -> dict:
    return {
        "schema": 1,
        "name": name,
        # drain = false: the run ends at `duration`; rate-limited applications have a backlog
        # (they offer more than their share) that would otherwise take long to deliver.
        "run": {"seed": seed, "duration": duration, "warmup": warmup, "interval": interval, "drain": False},
        "class": classes or RATIO_CLASSES,
        "network": network,
        "flow": flows,
    }


def fat_tree(rate: str = "10Gbps", delay: str = "10us", k_ecn: int = 140, framing: str = "ppp", mtu: int = 1500) -> dict:
    """QTCP Fig 4: a k = 4 fat-tree, every port at the same rate. ns-3 point-to-point framing
    (2 B per frame), as in the paper's simulations."""
    return {"topology": "fat_tree", "k": 4, "link_rate": rate, "link_delay": delay, "framing": framing, "mtu": mtu,
            "switch": {"ecn": "step", "ecn_k": k_ecn}}


def run_flows(out_dir: Path, tag: str, sc: dict) -> dict:
    """Runs one scenario and returns its summary's network section."""
    return run_flows_all(out_dir, {tag: sc})[tag]


def run_flows_all(out_dir: Path, scenarios: Dict[str, dict]) -> Dict[str, dict]:
    """Runs the scenarios on all cores; tag → the summary's network section (with the run's
    request conservation as `_conservation`)."""
    out = {}
    for tag, s in run_all(out_dir, scenarios).items():
        net = s["network"]
        net["_conservation"] = s["conservation"]
        out[tag] = net
    return out


def flow_gbps(net: dict) -> Dict[str, float]:
    return {name: f["throughput_gbps"] for name, f in net["flows"].items()}


def within(x: float, want: float, rel: float) -> bool:
    return abs(x - want) <= rel * abs(want)


def fat_tree_graph(k: int = 4, rate: str = "10Gbps", delay: str = "10us", access_delay: Optional[Dict[str, str]] = None,
                   k_ecn: int = 140, framing: str = "ppp") -> dict:
    """The k-ary fat-tree of the `fat_tree` builder (same names), written as a graph so single
    links can differ: ``access_delay`` maps a host to the propagation delay of its link."""
    access_delay = access_delay or {}
    half = k // 2
    nodes, links = [], []
    cores = [f"c{i}" for i in range(half * half)]
    nodes += [{"name": c, "kind": "switch"} for c in cores]
    host = 0
    for pod in range(k):
        aggs = [f"a{pod}_{i}" for i in range(half)]
        nodes += [{"name": a, "kind": "switch"} for a in aggs]
        for i in range(half):
            e = f"e{pod}_{i}"
            nodes.append({"name": e, "kind": "switch"})
            for _ in range(half):
                h = f"h{host}"
                host += 1
                nodes.append({"name": h, "kind": "host"})
                links.append({"a": h, "b": e, "delay": access_delay.get(h, delay)})
            links += [{"a": e, "b": a} for a in aggs]
        for j, a in enumerate(aggs):
            links += [{"a": a, "b": cores[j * half + c]} for c in range(half)]
    return {"topology": "graph", "link_rate": rate, "link_delay": delay, "framing": framing, "node": nodes, "link": links,
            "switch": {"ecn": "step", "ecn_k": k_ecn}}


def star(hosts: Dict[str, str], rate: str = "10Gbps", k_ecn: int = 140, framing: str = "ppp") -> dict:
    """One switch `tor` with the given hosts, each link with its own propagation delay."""
    nodes = [{"name": "tor", "kind": "switch"}] + [{"name": h, "kind": "host"} for h in hosts]
    links = [{"a": h, "b": "tor", "delay": d} for h, d in hosts.items()]
    return {"topology": "graph", "link_rate": rate, "framing": framing, "node": nodes, "link": links,
            "switch": {"ecn": "step", "ecn_k": k_ecn}}


def roce_switch(scale: int = 1, buffer: str = "16MiB", xoff: str = "400KiB", xon: str = "300KiB") -> dict:
    """The DCQCN authors' switch set-up: RED marking KMIN 40 / KMAX 1000 cells of 1030 B, PMAX 1
    (``scale`` multiplies the thresholds for faster links: ×10 at 100 Gb/s), and PFC."""
    return {"buffer": buffer, "ecn": "red", "ecn_kmin": f"{41200 * scale}B", "ecn_kmax": f"{1030000 * scale}B",
            "ecn_pmax": 1.0, "pfc": True, "pfc_xoff": xoff, "pfc_xon": xon}


def phase_means(ts: dict, a: float, b: float) -> Dict[tuple, float]:
    """(entity, metric) → mean of the time series over [a, b) seconds."""
    acc: Dict[tuple, list] = {}
    for e, m, v, t in zip(ts["entity"], ts["metric"], ts["value"], ts["time_s"]):
        if a <= t < b and v is not None:
            acc.setdefault((e, m), []).append(v)
    return {k: sum(v) / len(v) for k, v in acc.items()}


def eq45_split(means: Dict[tuple, float], flows: List[dict], ratio: Dict[str, Optional[float]],
               alpha_scale: float = 1.0) -> Dict[str, float]:
    """Where QTCP's window rule (thesis eq. 4.5) puts these flows, at the α, RTT and λ they were
    measured with (``means`` from `phase_means`): the fixed point of
    ``nest_transport::equilibrium`` over the bottleneck's measured total. ``ratio`` maps a flow
    to its class ratio (None: unmanaged DCTCP); flows of one class share its target;
    ``alpha_scale`` scales every α (what-if). Flows that carried nothing are left out.

    The measured split beside this prediction says whether a result is the rule's own (the two
    agree) or something the rule does not describe (they differ)."""
    from .. import _native

    names = [f["name"] for f in flows]
    gbps = {n: means.get((f"flow:{n}", "throughput_gbps"), 0.0) for n in names}
    active = [n for n in names if gbps[n] > 0.01]
    managed = [n for n in active if ratio.get(n) is not None]
    lam = means.get(("qtcp", "lambda_gbps"))
    if not active or (managed and lam is None):
        return {}
    cls = {f["name"]: f["class"] for f in flows}
    per_class: Dict[str, list] = {}
    for n in managed:
        per_class.setdefault(cls[n], []).append(n)
    sum_r = sum(ratio[v[0]] for v in per_class.values())
    target = {n: (lam * 1e9 * ratio[n] / sum_r / len(per_class[cls[n]]) if n in managed else None) for n in active}
    offered = {f["name"]: (parse_gbps(f["rate"]) * 1e9 if f.get("rate") else None) for f in flows}
    fp = _native.qtcp_fixed_point(
        sum(gbps[n] for n in active) * 1e9,
        [means[(f"flow:{n}", "srtt_us")] * 1e-6 for n in active],
        [min(max(means[(f"flow:{n}", "alpha")] * alpha_scale, 1e-6), 1.0) for n in active],
        [target[n] for n in active], [offered[n] for n in active])
    return {n: x / 1e9 for n, x in zip(active, fp["throughput_bps"])}


def eq45_alpha_needed(means: Dict[tuple, float], flows: List[dict], ratio: Dict[str, Optional[float]], ok) -> Optional[float]:
    """The largest mean α at which eq. 4.5's fixed point (every flow's α scaled alike, RTTs and λ
    as measured) gives a split that ``ok(split)`` accepts; None if even α → 0 does not."""
    alphas = [means[(f"flow:{f['name']}", "alpha")] for f in flows if (f"flow:{f['name']}", "alpha") in means
              and means.get((f"flow:{f['name']}", "throughput_gbps"), 0.0) > 0.01]
    if not alphas:
        return None
    mean_alpha = sum(alphas) / len(alphas)
    def good(scale: float) -> bool:
        split = eq45_split(means, flows, ratio, scale)
        return bool(split) and ok(split)
    if good(1.0):
        return mean_alpha
    lo, hi = 1e-4, 1.0
    if not good(lo):
        return None
    for _ in range(40):
        mid = (lo * hi) ** 0.5
        lo, hi = (mid, hi) if good(mid) else (lo, mid)
    return mean_alpha * lo


def split_within(split: Dict[str, float], predicted: Dict[str, float], rel: float) -> bool:
    """Every flow of ``predicted`` carried within ``rel`` of it (and none is missing)."""
    return bool(predicted) and all(n in split and within(split[n], x, rel) for n, x in predicted.items())


def parse_gbps(rate: str) -> float:
    """'3Gbps' / '500Mbps' → Gb/s."""
    for unit, scale in (("Gbps", 1.0), ("Mbps", 1e-3), ("Kbps", 1e-6), ("bps", 1e-9)):
        if rate.endswith(unit):
            return float(rate[: -len(unit)]) * scale
    raise ValueError(f"not a rate: {rate!r}")


def q_of(means: Dict, names) -> Dict[str, float]:
    """Each named flow's mean quality factor from `phase_means` (flows without one left out)."""
    return {n: means[(f"flow:{n}", "q_factor")] for n in names if (f"flow:{n}", "q_factor") in means}


def why_q(qs: Dict[str, float], base: str = "DCTCP", where: str = "", lam: Optional[float] = None, extra: str = "",
          then: str = "cannot take bandwidth from the others") -> str:
    """The *why* of a QTCP/QRDMA split that misses its targets, read off the quality factors
    measured (Q = target / smoothed throughput: 1 on target, > 1 short of it): a flow short of its
    target cuts as its base protocol does, so the steering cannot move bandwidth to it."""
    shown = ", ".join(f"{n} {q:.2f}" for n, q in qs.items())
    return (f"the mean Q{where} is {shown} (1 = on target, > 1 short of it)" + (f" with λ {lam:.2f} Gb/s" if lam else "")
            + extra + f": a flow short of its target cuts like {base} and {then}")
