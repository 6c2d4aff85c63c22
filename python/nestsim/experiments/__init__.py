"""Named reference experiments (`nestsim experiment list|NAME`).

Each experiment is a module of this package that defines ``NAME``, ``DESCRIPTION``, ``FIGURES``
(the figures it writes next to ``claims.json``, named after the source's) and
``run_experiment(out_dir) -> claims document``. Experiments are discovered, not listed: adding
one is adding its module. An experiment runs its scenarios, measures its claims from the runs'
own outputs, and writes ``claims.json`` (plus the run directories) into its output directory.
It exits 0 whether or not its claims hold: a claim that does not reproduce is a finding, not a
crash.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable, Dict, Tuple


@dataclass(frozen=True)
class Experiment:
    name: str
    description: str
    #: Figure stems written next to claims.json (PNG + SVG).
    figures: Tuple[str, ...]
    run: Callable
    module: str


def _discover() -> Dict[str, Experiment]:
    found = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        mod = importlib.import_module(f"{__name__}.{info.name}")
        if not (hasattr(mod, "NAME") and hasattr(mod, "run_experiment")):
            continue  # a helper module (scenario builders, figures)
        if mod.NAME in found:
            raise RuntimeError(f"experiment name '{mod.NAME}' defined by both {found[mod.NAME].module} and {mod.__name__}")
        found[mod.NAME] = Experiment(mod.NAME, mod.DESCRIPTION, tuple(mod.FIGURES), mod.run_experiment, mod.__name__)
    return found


#: name → Experiment, in name order.
EXPERIMENTS: Dict[str, Experiment] = _discover()

#: name → (one-line description, function(out_dir) -> claims document).
REGISTRY: Dict[str, tuple] = {n: (e.description, e.run) for n, e in EXPERIMENTS.items()}


def get(name: str) -> Callable:
    return EXPERIMENTS[name].run
