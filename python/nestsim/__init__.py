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

__all__ = ["run", "sweep", "compare", "Budget", "RunResult", "ConfigError", "SimError", "InternalError", "Stopped", "__version__"]
