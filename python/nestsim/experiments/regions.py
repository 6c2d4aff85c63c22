"""Operating-region maps (SPEC §13.2): a headline claim's measured value over a sweep of the one or
two parameters its set-up leaves open, so a reader sees where the effect exists and how large it
is. The reference point (the SPEC §13 reading the claim is judged at) is marked, never replaced by
the best point of the map.

    m = region_map(out_dir, "qtcp-ratio-vs-rtt", title="QTCP's split against RTT and K",
                   x=Axis("delay_us", "link delay (µs)", [2.5, 5, 10, 20]),
                   series=Axis("k", "K (packets)", [40, 140]),
                   build=lambda d, k: scenario_for(d, k),          # one scenario per point
                   measure=lambda summary, run_dir, at: {"high/low": …, "medium/low": …},
                   ylabel="ratio to low", reference={"delay_us": 10, "k": 140},
                   holds=lambda curve, y, point: abs(y - TARGET[curve]) <= 0.05 * TARGET[curve],
                   effect="within 5 % of 1 : 2 : 3")

Every point runs through ``run_all`` (all cores, into ``out_dir/regions/STEM/POINT``); the map is
written as ``STEM.region.json`` beside a figure ``STEM.png``/``.svg`` and returned as a dict that
``write_claims`` stores in claims.json and `scripts/claims_table.py` turns into docs/regions.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Union

from ..claims import render_region  # noqa: F401  (re-exported: the map's table)
from ..runner import write_json
from . import figures
from .framework import run_all

Measured = Union[float, Mapping[str, float]]


@dataclass(frozen=True)
class Axis:
    """One swept parameter: ``key`` names it in run directories and the reference point, ``label``
    on the figure and in the table."""

    key: str
    label: str
    values: Sequence[Union[float, str]]


def _show(v: Union[float, str]) -> str:
    return v if isinstance(v, str) else f"{v:g}"


def _tag(v: Union[float, str]) -> str:
    return _show(v).replace("-", "m")


def region_map(out_dir: Path, stem: str, *, title: str, x: Axis, build: Callable[..., dict],
               measure: Callable[[dict, Path, Dict[str, float]], Measured], ylabel: str, reference: Mapping[str, float],
               effect: str, series: Optional[Axis] = None,
               holds: Optional[Callable[[str, float, Dict[str, float]], bool]] = None,
               variants: Sequence[str] = (), logx: bool = False, logy: bool = False,
               runner: Callable[[Path, Mapping[str, dict]], Dict[str, dict]] = run_all) -> dict:
    """Runs ``build(x)`` (or ``build(x, s)`` with a series axis) at every point, reads
    ``measure(summary, run_dir, at)`` (one value, or one per named curve; ``at`` maps each axis's
    key to the point's value) and writes the map.

    With ``variants`` (e.g. a mechanism on and off) each point runs ``build(…, variant)`` once per
    variant and ``measure`` gets ``{variant: summary}, {variant: run_dir}, at``. ``holds(curve, value,
    point)`` says whether the effect exists at a point (``point``: every measure there), shown in
    the table; ``reference`` gives the SPEC reading's value of each axis, which must be swept.
    ``runner(dir, {name: spec})`` runs the points (default: World scenarios on the process pool;
    the Haechi maps pass their own, whose results stand where a summary would).
    """
    out_dir = Path(out_dir)
    for axis in filter(None, (x, series)):
        if reference.get(axis.key) not in axis.values:
            raise ValueError(f"region map {stem}: the reference {axis.key} = {reference.get(axis.key)} is not swept")
    ss: List[Optional[float]] = list(series.values) if series else [None]
    point_names, scenarios = [], {}
    for s in ss:
        for v in x.values:
            name = f"{x.key}={_tag(v)}" + (f",{series.key}={_tag(s)}" if series else "")
            args = (v, s) if series else (v,)
            point_names.append((name, v, s))
            for var in variants or [None]:
                scenarios[name if var is None else f"{name},{var}"] = build(*args, var) if variants else build(*args)
    base = out_dir / "regions" / stem
    summaries = runner(base, scenarios)
    # One curve per (series value, named measure), its values in x order.
    curves: Dict[tuple, List[Optional[float]]] = {}
    verdicts: Dict[tuple, List[Optional[bool]]] = {}
    for i, (name, v, s) in enumerate(point_names):
        at = {x.key: v, **({series.key: s} if series else {})}
        if variants:
            got = measure({var: summaries[f"{name},{var}"] for var in variants},
                          {var: base / f"{name},{var}" for var in variants}, at)
        else:
            got = measure(summaries[name], base / name, at)
        got = {"": float(got)} if isinstance(got, (int, float)) else {c: float(y) for c, y in got.items()}
        for c, y in got.items():
            curves.setdefault((s, c), [None] * len(x.values))[i % len(x.values)] = y
            verdicts.setdefault((s, c), [None] * len(x.values))[i % len(x.values)] = \
                _verdict(holds(c, y, got)) if holds else None
    doc = {
        "stem": stem, "title": title, "effect": effect, "ylabel": ylabel,
        "x": {"key": x.key, "label": x.label, "values": list(x.values)},
        "series": {"key": series.key, "label": series.label, "values": list(series.values)} if series else None,
        "reference": dict(reference),
        "curves": [{"label": curve_name(series, s, c) or ylabel, "series": s, "measure": c, "values": ys,
                    "holds": verdicts[(s, c)] if holds else None}
                   for (s, c), ys in curves.items()],
    }
    write_json(out_dir / f"{stem}.region.json", doc)
    figures.lines(out_dir, stem, {title: {c["label"]: (list(x.values), c["values"]) for c in doc["curves"]}},
                  x.label, ylabel, logx=logx, logy=logy, markers=True, vline=reference[x.key])
    return doc


def _verdict(v: Optional[bool]) -> Optional[bool]:
    return None if v is None else bool(v)


def curve_name(series: Optional[Axis], s: Optional[float], curve: str) -> str:
    """The label ``region_map`` gives a curve (for readers of the returned map)."""
    return " ".join(p for p in ((f"{series.label.split(' (')[0]} {_show(s)}" if series else ""), curve) if p)


def reference_value(doc: dict, measure: str = "") -> Optional[float]:
    """A measure's value at the reference point (the reference series' curve)."""
    ref = doc["reference"]
    s = ref[doc["series"]["key"]] if doc["series"] else None
    c = next(c for c in doc["curves"] if c["measure"] == measure and c["series"] == s)
    return c["values"][doc["x"]["values"].index(ref[doc["x"]["key"]])]
