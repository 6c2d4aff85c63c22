"""Claims of reference experiments: the source's statement beside what NeSt measured.

``holds`` is computed from the run's own outputs by the experiment; ``None`` means the claim
could not be evaluated, and ``why`` says why. A claim about a mechanism carries its ``ablation``:
the same test judged on a run with the mechanism off, which must *not* hold there — else the
claim does not test the mechanism. Written as ``claims.json``:
``{"experiment": NAME, "claims": [{"id", "source", "claim", "expected", "measured", "holds",
"why"?, "ablation"?: {"off", "holds"}}]}``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, List, Optional

from .runner import write_json


@dataclass
class Claim:
    id: str
    source: str
    claim: str
    expected: Any
    measured: Any
    holds: Optional[bool]
    why: Optional[str] = None
    ablation: Optional[dict] = None
    #: For a claim that does not hold (or is not evaluated): the kind of cause its *why* names, one
    #: of CAUSES (issue 58 item 5), so docs/claims.md can count them per source.
    cause: Optional[str] = None
    #: For a claim a parameter was fitted to: which (a calibration, not a reproduction — its
    #: holding shows the fit, not the model; docs/claims.md marks it).
    calibration: Optional[str] = None


#: Cause categories of a claim that does not reproduce: NeSt's model (a mechanism behaves
#: otherwise), the experiment's set-up (a reading SPEC §13 fixes), the source silent on what
#: decides it, the source inconsistent with itself or with theory, the data it used unavailable.
CAUSES = ("model", "set-up", "source silent", "source inconsistent", "data unavailable")


def ablation(off: str, holds: bool) -> dict:
    """The claim's test judged on a run with its mechanism off (``off`` names that run)."""
    return {"off": off, "holds": bool(holds)}


def _judged(c: Claim) -> Claim:
    """A claim that also holds with its mechanism off shows nothing about the mechanism: it is
    reported as not evaluated, saying so, instead of as reproduced."""
    if c.holds is True and c.ablation and c.ablation["holds"]:
        note = (f"not evaluated: it also holds with the mechanism off ({c.ablation['off']}), so this set-up cannot "
                "show the mechanism")
        # The set-up is what cannot show the mechanism (SPEC §13.2's ablation reading).
        return replace(c, holds=None, why=f"{c.why}; {note}" if c.why else note, cause=c.cause or "set-up")
    return c


def write_claims(out_dir: Path, experiment: str, claims: List[Claim], regions: Optional[List[dict]] = None) -> dict:
    """Writes claims.json; ``regions`` are the experiment's operating-region maps
    (experiments/regions.py), kept beside the claims they map."""
    for c in claims:
        if c.cause is not None and c.cause not in CAUSES:
            raise ValueError(f"claim {c.id}: cause '{c.cause}' is not one of {', '.join(CAUSES)}")
    claims = [_judged(c) for c in claims]
    # `why` and `cause` explain a claim that does not hold (or was not evaluated); a holding claim needs neither.
    keep = lambda c, k, v: ((k not in ("why", "cause") or (v and c.holds is not True))
                            and (k not in ("ablation", "calibration") or v is not None))
    doc = {"experiment": experiment, "claims": [{k: v for k, v in asdict(c).items() if keep(c, k, v)} for c in claims]}
    if regions:
        doc["regions"] = regions
    write_json(out_dir / "claims.json", doc)
    return doc


def render_claims(doc: dict) -> str:
    lines = [f"experiment {doc['experiment']}:"]
    for c in doc["claims"]:
        mark = {True: "holds", False: "DOES NOT HOLD", None: "not evaluated"}[c["holds"]]
        lines.append(f"  [{mark}] {c['id']}: {c['claim']}")
        lines.append(f"      source: {c['source']}")
        lines.append(f"      expected: {c['expected']}   measured: {c['measured']}")
        if c.get("calibration"):
            lines.append(f"      calibration target: {c['calibration']} fitted to it (a calibration, not a reproduction)")
        if c.get("why"):
            lines.append(f"      why{' (' + c['cause'] + ')' if c.get('cause') else ''}: {c['why']}")
        if c.get("ablation"):
            a = c["ablation"]
            verdict = "also holds — this set-up cannot show the mechanism" if a["holds"] else "does not hold, as it should"
            lines.append(f"      mechanism off ({a['off']}): {verdict}")
    for r in doc.get("regions", []):
        lines += ["", f"region map {r['stem']}:", render_region(r)]
    return "\n".join(lines)


def tally_line(doc: dict) -> str:
    """The last line `nestsim experiment` prints, for scripts: `claims: H hold, N do not hold, U
    not evaluated`. The exit status stays 0 whatever the claims say (a claim that does not
    reproduce is a finding, not a failure of the run); read this line or claims.json."""
    held = [c["holds"] for c in doc["claims"]]
    return f"claims: {held.count(True)} hold, {held.count(False)} do not hold, {held.count(None)} not evaluated"


def render_region(doc: dict) -> str:
    """The map as a Markdown table: one row per curve, one column per x; a point where the effect
    exists is marked ✓, the reference column with ★."""
    xs, ref = doc["x"]["values"], doc["reference"][doc["x"]["key"]]
    head = [(x if isinstance(x, str) else f"{x:g}") + (" ★" if x == ref else "") for x in xs]
    show = lambda v: v if isinstance(v, str) else f"{v:g}"
    lines = [f"**{doc['title']}** — {doc['ylabel']} against {doc['x']['label']}; ✓ where {doc['effect']}"
             + (f"; ★ the reference ({', '.join(f'{k} = {show(v)}' for k, v in doc['reference'].items())})"),
             "", "| curve | " + " | ".join(head) + " |", "|---|" + "---|" * len(xs)]
    for c in doc["curves"]:
        cells = []
        for i, y in enumerate(c["values"]):
            mark = " ✓" if c["holds"] and c["holds"][i] else ""
            cells.append("—" if y is None else f"{y:.3g}{mark}")
        star = " ★" if doc["series"] and c["series"] == doc["reference"][doc["series"]["key"]] else ""
        lines.append(f"| {c['label']}{star} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
