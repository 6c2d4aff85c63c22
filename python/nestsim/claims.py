"""Claims of reference experiments: the source's statement beside what NeSt measured.

``holds`` is computed from the run's own outputs by the experiment; ``None`` means the claim
could not be evaluated, and ``why`` says why. Written as ``claims.json``:
``{"experiment": NAME, "claims": [{"id", "source", "claim", "expected", "measured", "holds"}]}``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
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


def write_claims(out_dir: Path, experiment: str, claims: List[Claim]) -> dict:
    # `why` explains a claim that does not hold (or was not evaluated); a holding claim needs none.
    doc = {"experiment": experiment,
           "claims": [{k: v for k, v in asdict(c).items() if k != "why" or (v and c.holds is not True)} for c in claims]}
    write_json(out_dir / "claims.json", doc)
    return doc


def render_claims(doc: dict) -> str:
    lines = [f"experiment {doc['experiment']}:"]
    for c in doc["claims"]:
        mark = {True: "holds", False: "DOES NOT HOLD", None: "not evaluated"}[c["holds"]]
        lines.append(f"  [{mark}] {c['id']}: {c['claim']}")
        lines.append(f"      source: {c['source']}")
        lines.append(f"      expected: {c['expected']}   measured: {c['measured']}")
        if c.get("why"):
            lines.append(f"      why: {c['why']}")
    return "\n".join(lines)


def tally_line(doc: dict) -> str:
    """The last line `nestsim experiment` prints, for scripts: `claims: H hold, N do not hold, U
    not evaluated`. The exit status stays 0 whatever the claims say (a claim that does not
    reproduce is a finding, not a failure of the run); read this line or claims.json."""
    held = [c["holds"] for c in doc["claims"]]
    return f"claims: {held.count(True)} hold, {held.count(False)} do not hold, {held.count(None)} not evaluated"
