"""NeSt — a deterministic simulator of end-to-end QoS in networked storage.

Quick start::

    import nestsim
    res = nestsim.run("examples/demo.toml", seed=1)
    res.summary["classes"]["high"]["read"]["lat_us"]["p99"]
    res.requests        # pyarrow.Table, one row per request
    res.timeseries      # pyarrow.Table, long format (time_s, entity, metric, value)
"""

import sys as _sys
import types as _types

from ._native import ConfigError, InternalError, SimError, Stopped, __version__

# The runner and its neighbours import numpy and pyarrow; they load on first use (PEP 562), so
# that `nestsim.cli` can configure numpy before it loads (see cli.py) and a bare `import nestsim`
# stays light.
_LAZY = {
    "run": ("runner", "run"),
    "Budget": ("runner", "Budget"),
    "RunResult": ("runner", "RunResult"),
    "sweep": ("sweep", "run_sweep"),
    "compare": ("compare", "compare"),
    "read_partial": ("parquet_stream", "read_partial"),
}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'nestsim' has no attribute {name!r}")
    import importlib

    module, attr = _LAZY[name]
    value = getattr(importlib.import_module(f".{module}", __name__), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


class _Package(_types.ModuleType):
    """``nestsim.compare`` and ``nestsim.sweep`` are functions named like their modules: loading
    the module must not rebind the name to it (the import system sets a submodule as its
    package's attribute), so that setting is refused and the function loads on first use."""

    def __setattr__(self, name, value):
        if name in _LAZY and isinstance(value, _types.ModuleType):
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package

__all__ = ["run", "sweep", "compare", "plot", "read_partial", "Budget", "RunResult", "ConfigError", "SimError", "InternalError", "Stopped",
           "__version__"]


def plot(run, out_dir=None):
    """Writes the figures of a run as `nestsim plot` does (PNG, SVG and PDF into ``DIR/plots``) and
    returns their paths. ``run`` is a :class:`RunResult` written to disk (``out_dir=`` given to
    :func:`run`) or a run, experiment or sweep directory. Figures are drawn from the written
    outputs, so an in-memory result cannot be plotted: run it with ``out_dir``."""
    from pathlib import Path

    from . import plots

    root = getattr(run, "out_dir", run)
    if root is None:
        raise ValueError("this result was not written to disk: run it with nestsim.run(..., out_dir=DIR) to plot it")
    return plots.write_plots(Path(root))
