"""Named reference experiments (`nestsim experiment list|NAME`).

Each experiment runs its scenarios, measures its claims from the runs' own outputs, and writes
``claims.json`` (plus the run directories) into its output directory. An experiment exits 0
whether or not its claims hold: a claim that does not reproduce is a finding, not a crash.
"""

from __future__ import annotations

from typing import Callable, Dict

from . import (dctcp_friendliness, dctcp_validation, deadline_misses, e2e_latency, e2e_throughput, engine_validation, fussycache, fussycache_qos, nest_validation, pm_priority, qrdma_bandwidth, qtcp_bandwidth, qtcp_convergence, qtcp_model,
               rtt_fairness, storage_qos, trace_e2e, transport_coexistence, uncoordinated_qos)

#: name → (one-line description, function(out_dir) -> claims document)
REGISTRY: Dict[str, tuple] = {
    "engine-validation": (engine_validation.DESCRIPTION, engine_validation.run_experiment),
    "storage-qos": (storage_qos.DESCRIPTION, storage_qos.run_experiment),
    "qtcp-bandwidth": (qtcp_bandwidth.DESCRIPTION, qtcp_bandwidth.run_experiment),
    "qtcp-model": (qtcp_model.DESCRIPTION, qtcp_model.run_experiment),
    "qtcp-convergence": (qtcp_convergence.DESCRIPTION, qtcp_convergence.run_experiment),
    "dctcp-validation": (dctcp_validation.DESCRIPTION, dctcp_validation.run_experiment),
    "rtt-fairness": (rtt_fairness.DESCRIPTION, rtt_fairness.run_experiment),
    "dctcp-friendliness": (dctcp_friendliness.DESCRIPTION, dctcp_friendliness.run_experiment),
    "qrdma-bandwidth": (qrdma_bandwidth.DESCRIPTION, qrdma_bandwidth.run_experiment),
    "deadline-misses": (deadline_misses.DESCRIPTION, deadline_misses.run_experiment),
    "transport-coexistence": (transport_coexistence.DESCRIPTION, transport_coexistence.run_experiment),
    "fussycache": (fussycache.DESCRIPTION, fussycache.run_experiment),
    "fussycache-qos": (fussycache_qos.DESCRIPTION, fussycache_qos.run_experiment),
    "e2e-throughput": (e2e_throughput.DESCRIPTION, e2e_throughput.run_experiment),
    "e2e-latency": (e2e_latency.DESCRIPTION, e2e_latency.run_experiment),
    "uncoordinated-qos": (uncoordinated_qos.DESCRIPTION, uncoordinated_qos.run_experiment),
    "pm-priority": (pm_priority.DESCRIPTION, pm_priority.run_experiment),
    "nest-validation": (nest_validation.DESCRIPTION, nest_validation.run_experiment),
    "trace-e2e": (trace_e2e.DESCRIPTION, trace_e2e.run_experiment),
}


def get(name: str) -> Callable:
    return REGISTRY[name][1]
