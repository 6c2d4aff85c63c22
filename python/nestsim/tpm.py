"""SRC's throughput prediction model (SRC §III-B; docs/src.md): training samples from NeSt's own
SSD presets behind the separate submission queues, and the comparison of model families.

A sample is one short run of a preset with `nvme.arbitration = "ssq"` at write weight w under a
micro trace (SRC §IV-A: exponential sizes and inter-arrival times, reads and writes as two
streams): its features Ch are computed by the Rust workload monitor itself
(`_native.src_features`, so a model sees at run time exactly what it was trained on) over the
run's arrivals, and its targets are the read and write throughput the drive delivered (bytes/s).
The model families are the paper's: linear, polynomial (degree 2), k-nearest neighbours, decision
tree and random forest, compared by R² on a 60/40 split (scikit-learn, an optional dependency:
`pip install scikit-learn`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List

import numpy as np

from . import _native

#: Features in the model's input order: Ch, then w.
FEATURES = list(_native.src_feature_names()) + ["w"]
#: The range the micro traces draw from (log-uniform): mean request size (bytes) and mean gap (s).
SIZE_RANGE = (4096, 128 * 1024)
GAP_RANGE = (2e-6, 100e-6)
MAX_W = 8


@dataclass
class Samples:
    preset: str
    x: np.ndarray  # (n, len(FEATURES))
    y: np.ndarray  # (n, 2): read and write throughput, bytes/s
    params: List[dict]


def _loguniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def micro_scenario(preset: str, w: int, read_size: float, write_size: float, read_gap_s: float, write_gap_s: float,
                   duration_ms: float, seed: int) -> dict:
    """One sample's scenario: the preset behind split SQs at weight w, a Poisson read stream and
    a Poisson write stream with exponential sizes."""
    def stream(name: str, size: float, gap: float, rf: float) -> dict:
        return {"name": name, "host": "h0", "device": "ssd", "class": "high",
                "arrival": {"kind": "poisson", "rate_iops": 1.0 / gap},
                "size": {"dist": "exp", "mean": f"{int(size)}B", "align": "4KiB", "min": "4KiB", "max": "1MiB"},
                "read_fraction": rf}
    return {
        "schema": 1, "name": f"tpm-{preset}",
        "run": {"seed": seed, "duration": f"{duration_ms:g}ms", "drain": False},
        "output": {"requests": True, "timeseries": False},
        "host": [{"name": "h0", "queue_depth": 4096}],
        "device": [{"name": "ssd", "kind": "ssd", "preset": preset, "nvme": {"arbitration": "ssq", "write_weight": w}}],
        "workload": [stream("r", read_size, read_gap_s, 1.0), stream("w", write_size, write_gap_s, 0.0)],
    }


def micro_samples(preset: str, n: int, seed: int = 1, duration_ms: float = 20.0) -> Samples:
    """`n` samples of `preset` under micro traces, w uniform over 1..MAX_W."""
    from .runner import run

    rng = np.random.default_rng(seed)
    xs, ys, params = [], [], []
    for k in range(n):
        p = {"w": int(rng.integers(1, MAX_W + 1)), "read_size": _loguniform(rng, *SIZE_RANGE),
             "write_size": _loguniform(rng, *SIZE_RANGE), "read_gap_s": _loguniform(rng, *GAP_RANGE),
             "write_gap_s": _loguniform(rng, *GAP_RANGE)}
        res = run(micro_scenario(preset, duration_ms=duration_ms, seed=seed * 100_003 + k, **p))
        t = res.requests.select(["t_arrive_ps", "size", "op"]).to_pydict()
        order = np.argsort(np.asarray(t["t_arrive_ps"], dtype=np.uint64), kind="stable")
        times = [int(t["t_arrive_ps"][i]) for i in order]
        sizes = [int(t["size"][i]) for i in order]
        writes = [t["op"][i] == "write" for i in order]
        end_ps = int(duration_ms * 1e9)
        ch = _native.src_features(times, sizes, writes, end_ps, end_ps)
        s = res.summary
        secs = duration_ms / 1000
        # Delivered throughput: bytes completed in the run (reads at the host, writes at the drive).
        y = [s["workloads"]["r"]["read"]["bytes"] / secs, s["workloads"]["w"]["write"]["bytes"] / secs]
        xs.append(list(ch) + [p["w"]])
        ys.append(y)
        params.append(p)
    return Samples(preset, np.asarray(xs, dtype=float), np.asarray(ys, dtype=float), params)


def model_families(seed: int = 1) -> Dict[str, object]:
    """The paper's five regressors (multi-output: read and write throughput together)."""
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.linear_model import LinearRegression
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import PolynomialFeatures, StandardScaler
    from sklearn.tree import DecisionTreeRegressor

    return {
        "linear": make_pipeline(StandardScaler(), LinearRegression()),
        "polynomial": make_pipeline(StandardScaler(), PolynomialFeatures(2), LinearRegression()),
        "knn": make_pipeline(StandardScaler(), KNeighborsRegressor(n_neighbors=5)),
        "decision_tree": DecisionTreeRegressor(random_state=seed),
        "random_forest": RandomForestRegressor(n_estimators=100, random_state=seed),
    }


@dataclass
class Comparison:
    r2: Dict[str, float]
    importances: Dict[str, float]
    n_train: int
    n_test: int


def compare(samples: Samples, seed: int = 1, test_share: float = 0.4) -> Comparison:
    """R² of each family on a held-out `test_share` (the paper's 60/40 split), averaged over the
    read and write outputs, and the random forest's feature importances (Breiman's)."""
    from sklearn.metrics import r2_score
    from sklearn.model_selection import train_test_split

    xtr, xte, ytr, yte = train_test_split(samples.x, samples.y, test_size=test_share, random_state=seed)
    r2 = {}
    forest = None
    for name, model in model_families(seed).items():
        model.fit(xtr, ytr)
        r2[name] = float(r2_score(yte, model.predict(xte)))
        if name == "random_forest":
            forest = model
    imp = dict(zip(FEATURES, (float(v) for v in forest.feature_importances_)))
    return Comparison(r2, imp, len(xtr), len(xte))


#: The exported model file (read by `nest_qos::rate_control::TreeEnsemble`).
FORMAT, VERSION = "nestsim-tpm", 1


def fit(samples: Samples, family: str = "random_forest", seed: int = 1):
    """One of the tree families fitted on every sample (what a run's SRC controller uses)."""
    if family not in ("random_forest", "decision_tree"):
        raise ValueError(f"family {family!r}: only random_forest and decision_tree can be exported")
    model = model_families(seed)[family]
    model.fit(samples.x, samples.y)
    return model


def export(model, path, w_max: int = MAX_W, **trained_on) -> dict:
    """Writes a fitted random forest or decision tree (scikit-learn, two outputs, `FEATURES` as
    input) to `path` as NeSt's model file; `[[coordinator]] kind = "src"` reads it as `model`.
    `trained_on` is kept in the file for the reader (preset, samples, seed...). Floats are
    written in their shortest round-trip form and NeSt reads them back bit for bit, so its
    predictions are scikit-learn's exactly."""
    import json

    from sklearn.ensemble import RandomForestRegressor
    from sklearn.tree import DecisionTreeRegressor

    if isinstance(model, RandomForestRegressor):
        kind, trees = "random_forest", model.estimators_
    elif isinstance(model, DecisionTreeRegressor):
        kind, trees = "decision_tree", [model]
    else:
        raise TypeError(f"{type(model).__name__}: only a RandomForestRegressor or a DecisionTreeRegressor can be exported")
    if model.n_features_in_ != len(FEATURES) or model.n_outputs_ != 2:
        raise ValueError(f"the model takes {model.n_features_in_} features and gives {model.n_outputs_} outputs: "
                         f"expected {len(FEATURES)} ({', '.join(FEATURES)}) and 2 (read, write throughput)")

    def tree(t) -> dict:
        tt = t.tree_
        return {"feature": tt.feature.tolist(), "threshold": tt.threshold.tolist(),
                "left": tt.children_left.tolist(), "right": tt.children_right.tolist(),
                "value": tt.value[:, :, 0].tolist()}

    doc = {"format": FORMAT, "version": VERSION, "model": kind, "features": FEATURES,
           "outputs": ["read_Bps", "write_Bps"], "w_max": int(w_max), "trained_on": trained_on,
           "trees": [tree(t) for t in trees]}
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    return doc


def predict(path, x) -> np.ndarray:
    """NeSt's own evaluator's predictions (read, write throughput) for rows `x` of an exported model."""
    return np.asarray(_native.tpm_predict(str(path), np.asarray(x, dtype=float).tolist()), dtype=float)


__all__ = ["FEATURES", "FORMAT", "VERSION", "Samples", "Comparison", "micro_samples", "micro_scenario", "model_families",
           "compare", "fit", "export", "predict"]

