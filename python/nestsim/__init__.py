"""NeSt — a deterministic simulator of end-to-end QoS in networked storage.

Quick start::

    import nestsim
    res = nestsim.run("examples/demo.toml", seed=1)
    res.summary["classes"]["high"]["read"]["lat_us"]["p99"]
    res.requests        # pyarrow.Table, one row per request
    res.timeseries      # pyarrow.Table, long format (time_s, entity, metric, value)
"""

from ._native import ConfigError, InternalError, SimError, Stopped, __version__
from .runner import Budget, RunResult, run
from .sweep import run_sweep as sweep
from .compare import compare
from .parquet_stream import read_partial

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
