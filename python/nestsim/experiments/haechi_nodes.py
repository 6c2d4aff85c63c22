"""haechi-nodes: Haechi with several data nodes — the paper's future work (Haechi §V), NeSt's
checks rather than the paper's claims.

Ten clients on one switch with N data nodes, each node running Haechi on its own (its monitor,
global pool and capacity estimate, Ω_prof = 1570 K). A request reads a record drawn from the key
distribution — uniform, or YCSB's Zipfian (θ = 0.99) over 1 M records — and goes to the node
holding it: hashed (hot records spread) or range-partitioned (hot records on the first node).
A client splits its reservation and limit over the nodes by its expected share of requests at
each, and has one I/O thread and one budget of 64 outstanding requests for all of them.

- **scale-N** (bare, uniform keys): 1, 2 and 4 nodes: what the fabric carries.
- **uniform** (2 nodes, 90 % of 2·C_G reserved uniformly): C10 with a limit of 100 K per
  period, Haechi against the bare system; and C1, C2 under-demanding (half their reservation),
  Haechi against Basic Haechi (no conversion).
- **zipf-hash / zipf-range** (2 nodes, Zipf keys, the same reservations): Haechi against the bare
  system.
"""

from __future__ import annotations

from pathlib import Path
from statistics import mean
from typing import Dict, List

from ..claims import Claim, ablation, write_claims
from . import figures
from .framework import expect
from .haechi_common import C_L, CAPACITY, CLIENTS, client, conserved, met_every_period, per_second, run_many, spec

NAME = "haechi-nodes"
DESCRIPTION = "Haechi over several data nodes (its future work): scaling, per-node reservations and limits, key skew against admission control"
FIGURES = ["haechi-nodes"]
SOURCE = "NeSt (Haechi §V future work)"
NODES = 2
RESERVED = 0.9
LIMITED = 100_000
ZIPF = {"dist": "zipf", "theta": 0.99}


def _clients(res: int, pool: int, qos: str, limit: bool = False, short: int = 0) -> List[dict]:
    """Uniform reservations; demand = reservation + the initial pools (as haechi-qos); the first
    `short` clients want half their reservation; with `limit`, C10 reserves half of LIMITED and
    is limited to LIMITED."""
    cs = []
    for i in range(CLIENTS):
        r = LIMITED // 2 if limit and i == CLIENTS - 1 else res
        c = client("burst", reservation=0 if qos == "none" else r, demand=r // 2 if i < short else r + pool)
        if limit and i == CLIENTS - 1 and qos != "none":
            c["limit"] = LIMITED
        cs.append(c)
    return cs


def _node_totals(r: dict) -> List[float]:
    """Each node's mean completed I/Os per measured period."""
    first = int(round(r["warmup_s"] / r["period_s"]))
    return [mean(n["per_period_total"][first:]) for n in r["nodes"]]


def _met_per_node(r: dict, reserved: dict = None) -> tuple:
    """(every client met its reservation at every node in every measured period, the worst as
    text); the reservations are `reserved`'s (a Haechi run) when `r` is the bare system's."""
    first = int(round(r["warmup_s"] / r["period_s"]))
    worst, ok = (float("inf"), ""), True
    for j, n in enumerate((reserved or r)["nodes"]):
        for c, res in enumerate(n["reservations"]):
            if not res:
                continue
            low = min(r["clients"][c]["per_node"][j][first:])
            ok &= low >= res
            if low / res < worst[0]:
                worst = (low / res, f"C{c + 1} at node {j}: {low / 1e3:.1f}K/{res / 1e3:.1f}K")
    return ok, worst[1]


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    out_dir = Path(out_dir)
    periods, warm = (2, 1) if quick else (10, 2)
    res = int(RESERVED * NODES * CAPACITY / CLIENTS)
    pool = int((1 - RESERVED) * NODES * CAPACITY)
    two = {"nodes": NODES}
    specs: Dict[str, dict] = {}
    for n in (1, 2, 4):
        specs[f"scale-{n}"] = spec([client("burst") for _ in range(CLIENTS)], "none", periods, warm, nodes=n)
    for q in ("haechi", "none"):
        specs[f"uniform-limit-{q}"] = spec(_clients(res, pool, q, limit=True), q, periods, warm, **two)
    for q in ("haechi", "basic"):
        specs[f"uniform-short-{q}"] = spec(_clients(res, pool, q, short=2), q, periods, warm, **two)
    for part in ("hash", "range"):
        for q in ("haechi", "none"):
            specs[f"zipf-{part}-{q}"] = spec(_clients(res, pool, q), q, periods, warm, keys={**ZIPF, "partition": part}, **two)
    runs = run_many(out_dir, specs)
    claims: List[Claim] = []

    one, two_n, four = (per_second(runs[f"scale-{n}"]) for n in (1, 2, 4))
    claims.append(expect("scale-two-nodes", SOURCE, "Uniform keys: two data nodes carry twice what one does",
                         two_n / one, target=2.0, tol=0.02))
    claims.append(expect("scale-clients-bind", SOURCE,
                         f"Uniform keys, four nodes: the ten clients' own limit binds (10 × C_L = {CLIENTS * C_L / 1e3:.0f}K/s)",
                         four, target=CLIENTS * C_L, tol=0.02, unit=" IOPS"))

    h, b = runs["uniform-limit-haechi"], runs["uniform-limit-none"]
    lim_h, lim_b = per_second(h, CLIENTS - 1), per_second(b, CLIENTS - 1)
    held = lim_h <= LIMITED
    claims.append(Claim("limit-across-nodes", SOURCE,
                        f"A limit split over the nodes by share holds in all: C10 limited to {LIMITED / 1e3:.0f}K per period",
                        f"C10 ≤ {LIMITED / 1e3:.0f}K per period", f"{lim_h / 1e3:.1f}K (bare: {lim_b / 1e3:.1f}K)", held,
                        None if held else "the per-node limits add up to more than the client's",
                        ablation=ablation("uniform-limit-none", lim_b <= LIMITED)))
    ok, worst = _met_per_node(h)
    claims.append(Claim("uniform-reservations-per-node", SOURCE,
                        "Uniform keys, 90 % reserved: every client meets its reservation at every node in every period",
                        "every client ≥ R_ij at every node j", f"worst: {worst}", ok, None if ok else "see the worst client",
                        ablation=ablation("uniform-limit-none", _met_per_node(b, h)[0])))

    sh, sb = runs["uniform-short-haechi"], runs["uniform-short-basic"]
    gains = [t_h / t_b - 1 for t_h, t_b in zip(_node_totals(sh), _node_totals(sb))]
    claims.append(expect("conversion-at-every-node", SOURCE,
                         "C1, C2 under-demanding: each node's token conversion gives it more throughput than Basic Haechi",
                         min(gains), at_least=0.005))

    zh, zhb = runs["zipf-hash-haechi"], runs["zipf-hash-none"]
    ok_h, worst_h = _met_per_node(zh)
    claims.append(Claim("zipf-hash-reservations-met", SOURCE,
                        "Hashed Zipf keys: each node admits its share of the reservations and every client meets it at every node",
                        "admitted at both nodes; every client ≥ R_ij", f"admitted: {[n['admission']['ok'] for n in zh['nodes']]}; worst: {worst_h}",
                        ok_h and all(n["admission"]["ok"] for n in zh["nodes"]), None if ok_h else "see the worst client",
                        ablation=ablation("zipf-hash-none", _met_per_node(zhb, zh)[0])))
    totals = _node_totals(zhb)
    hot = max(range(NODES), key=lambda j: zhb["nodes"][j]["share"])
    cold = 1 - hot
    shares = [n["share"] for n in zhb["nodes"]]
    held = totals[hot] >= 0.99 * CAPACITY and totals[cold] < 0.97 * CAPACITY
    claims.append(Claim("zipf-hash-coupling", SOURCE,
                        "Hashed Zipf keys: the node with the hotter records saturates and, through each client's budget of "
                        "outstanding requests, holds the other below its capacity",
                        "hotter node ≥ 99 % of C_G, the other < 97 %",
                        f"shares {shares[0]:.3f}/{shares[1]:.3f}; nodes {totals[0] / 1e3:.0f}K/{totals[1] / 1e3:.0f}K per period "
                        f"(uniform keys: {per_second(runs['scale-2']) / 1e3:.0f}K in all)", held,
                        None if held else "the clients' budgets did not fill with the hotter node's requests"))

    zr, zrb = runs["zipf-range-haechi"], runs["zipf-range-none"]
    hot_r = zr["nodes"][0]
    # Refused at every period start (the monitor admits in the clients' order what fits).
    per_period = [len(p["refused"]) for p in hot_r["periods"]]
    refused = not hot_r["admission"]["ok"] and min(per_period, default=0) > 0
    met_h, _ = met_every_period(zr, [res] * CLIENTS)
    met_b, _ = met_every_period(zrb, [res] * CLIENTS)
    got = mean(per_second(zr, c) for c in range(CLIENTS))
    held = refused and not met_h and not met_b
    claims.append(Claim("zipf-range-admission", SOURCE,
                        "Range-partitioned Zipf keys: the hot node's share of the reservations exceeds its capacity, "
                        "admission control refuses it, and neither Haechi nor the bare system meets them",
                        "hot node refused; reservations missed with and without Haechi",
                        f"hot node share {hot_r['share']:.3f}, Σ R = {sum(hot_r['reservations']) / 1e3:.0f}K against "
                        f"C_G = {CAPACITY / 1e3:.0f}K ({'refused' if refused else 'admitted'}: {min(per_period, default=0)}–"
                        f"{max(per_period, default=0)} of {CLIENTS} clients' reservations refused per period); clients {got / 1e3:.0f}K of "
                        f"{res / 1e3:.0f}K per period", held,
                        None if held else "the hot node's reservations fit, or were met"))
    claims.append(conserved(runs))

    figures.bars(out_dir, "haechi-nodes", {
        "node throughput": {f"node {j}": {k: _node_totals(runs[r])[j] / 1e3 for k, r in
                                          (("uniform", "uniform-limit-none"), ("zipf hash", "zipf-hash-none"),
                                           ("zipf range", "zipf-range-none"))} for j in range(NODES)},
        "C1": {label: {k: per_second(runs[r], 0) / 1e3 for k, r in
                                      (("uniform", f"uniform-limit-{q}"), ("zipf hash", f"zipf-hash-{q}"),
                                       ("zipf range", f"zipf-range-{q}"))} for label, q in (("Haechi", "haechi"), ("bare", "none"))},
    }, "K I/Os per period", title=f"Haechi over {NODES} data nodes (reservation {res / 1e3:.0f}K per client)")
    return write_claims(out_dir, NAME, claims)
