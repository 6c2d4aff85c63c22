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

import json
import math
from dataclasses import dataclass
from typing import Dict, List, Optional

import numpy as np

from . import _native

#: Features in the model's input order: Ch, then w.
FEATURES = list(_native.src_feature_names()) + ["w"]
#: Mean request sizes the traces draw from (log-uniform, bytes).
SIZE_RANGE = (4096, 128 * 1024)
#: Offered load of each type as a share of what the drive delivers of that type alone
#: (log-uniform): from light to twice the drive's capacity, so that samples cover the regime
#: where the drive is saturated and w decides who gets it (SRC Fig 5: w acts under load).
LOAD_RANGE = (0.05, 2.0)
MAX_W = 8
#: Sample kinds: SRC §IV-A's micro traces (Poisson arrivals, exponential sizes) and its
#: synthetic traces (MMPP(2) arrivals, sizes of low or high variation: Table III's subsets).
KINDS = ("micro", "synthetic")


@dataclass
class Samples:
    preset: str
    x: np.ndarray  # (n, len(FEATURES))
    y: np.ndarray  # (n, 2): read and write throughput, bytes/s
    params: List[dict]


def _loguniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def _two_point(mean: float, scv: float, small: int = 4096, top: int = 1 << 20) -> dict:
    """A size distribution of two values (4 KiB and a large one, 4 KiB-aligned) with about this
    mean and SCV: the large value's probability p found by bisection (the SCV falls as p grows)."""
    mean = max(mean, small * 1.5)

    def of(p):
        big = min(top, int(math.ceil((small + (mean - small) / p) / 4096)) * 4096)
        m = (1 - p) * small + p * big
        var = (1 - p) * small ** 2 + p * big ** 2 - m * m
        return big, var / (m * m)

    lo, hi = 1e-4, 0.999
    for _ in range(60):
        mid = (lo + hi) / 2
        if of(mid)[1] > scv:
            lo = mid
        else:
            hi = mid
    big, _ = of(hi)
    return {"dist": "empirical", "values": [f"{small}B", f"{big}B"], "weights": [1 - hi, hi]}


def _size(rng: np.random.Generator, kind: str, mean: float, high_var: bool = False) -> dict:
    if kind == "micro":
        return {"dist": "exp", "mean": f"{int(mean)}B", "align": "4KiB", "min": "4KiB", "max": "1MiB"}
    if not high_var:
        # Low variation: uniform over 4 KiB blocks around the mean (SCV ≤ 1/3).
        blocks = max(1, int(round(mean / 4096)))
        return {"dist": "uniform_blocks", "min": max(1, blocks // 2), "max": max(1, blocks + blocks // 2), "block": "4KiB"}
    return _two_point(mean, _loguniform(rng, 2.0, 8.0))


def _arrival(rng: np.random.Generator, kind: str, gap_s: float, high_var: bool = False) -> dict:
    if kind == "micro" or not high_var:
        return {"kind": "poisson", "rate_iops": 1.0 / gap_s}
    # Bursty: an MMPP(2) fitted to an SCV of 3–20 (skewness as a gamma law's, 2·CV; lag-1 0.1–0.3).
    scv = _loguniform(rng, 3.0, 20.0)
    return {"kind": "mmpp_fit", "mean_gap": f"{gap_s * 1e9:.1f}ns", "scv": scv, "skewness": 2 * math.sqrt(scv),
            "lag1": float(rng.uniform(0.1, 0.3))}


def _scenario(preset: str, w: int, streams: List[dict], duration_ms: float, warmup_ms: float, seed: int,
              device: Optional[dict] = None) -> dict:
    return {
        "schema": 1, "name": f"tpm-{preset}",
        # Drained: arrivals stop at `duration` and every request completes, so the requests table
        # holds every arrival of the measured window (Ch) even when the drive is overloaded.
        "run": {"seed": seed, "duration": f"{duration_ms:g}ms", "warmup": f"{warmup_ms:g}ms", "drain": True},
        "output": {"requests": True, "timeseries": False},
        "host": [{"name": "h0", "queue_depth": 1 << 20}],
        "device": [{"name": "ssd", "kind": "ssd", "preset": preset, **(device or {}),
                    "nvme": {"arbitration": "ssq", "write_weight": w, "sq_depth": 1 << 16}}],
        "workload": [dict(s, host="h0", device="ssd", **{"class": "high"}) for s in streams],
    }


def micro_scenario(preset: str, w: int, read_size: float, write_size: float, read_gap_s: float, write_gap_s: float,
                   duration_ms: float, seed: int, warmup_ms: float = 0.0) -> dict:
    """A micro-trace run: the preset behind split SQs at weight w, a Poisson read stream and a
    Poisson write stream with exponential sizes."""
    rng = np.random.default_rng(0)
    streams = [{"name": "r", "arrival": _arrival(rng, "micro", read_gap_s), "size": _size(rng, "micro", read_size), "read_fraction": 1.0},
               {"name": "w", "arrival": _arrival(rng, "micro", write_gap_s), "size": _size(rng, "micro", write_size), "read_fraction": 0.0}]
    return _scenario(preset, w, streams, duration_ms, warmup_ms, seed)


_CAPACITY: Dict[str, tuple] = {}


def capacity(preset: str, device: Optional[dict] = None) -> tuple:
    """What the drive delivers (bytes/s) of reads alone and of writes alone, backlogged (256
    commands outstanding, exponential sizes of 44 KB and 23 KB as SRC's workload), over 20 ms after
    10 ms: the scale the samples' offered loads are drawn on."""
    key = preset + json.dumps(device or {}, sort_keys=True)
    if key not in _CAPACITY:
        from .runner import run

        out = []
        for name, mean, rf in (("r", 44_000, 1.0), ("w", 23_000, 0.0)):
            stream = {"name": name, "arrival": {"kind": "burst", "outstanding": 256},
                      "size": _size(np.random.default_rng(0), "micro", mean), "read_fraction": rf}
            res = run(_scenario(preset, 1, [stream], 30, 10, 1, device))
            out.append(_delivered(res, 10e-3, 30e-3)[0 if rf == 1.0 else 1])
        _CAPACITY[key] = tuple(out)
    return _CAPACITY[key]


def _delivered(res, t0: float, t1: float) -> List[float]:
    """Read and write bytes completed in [t0, t1) (seconds), per second."""
    t = res.requests.select(["t_complete_ps", "size", "op"]).to_pydict()
    done = np.asarray(t["t_complete_ps"], dtype=float) / 1e12
    size = np.asarray(t["size"], dtype=float)
    write = np.asarray([o == "write" for o in t["op"]])
    inside = (done >= t0) & (done < t1)
    return [float(size[inside & ~write].sum() / (t1 - t0)), float(size[inside & write].sum() / (t1 - t0))]


def samples(preset: str, n: int, seed: int = 1, kind: str = "micro", duration_ms: float = 30.0,
            warmup_ms: float = 10.0, load=LOAD_RANGE, device: Optional[dict] = None) -> Samples:
    """`n` samples of `preset`, each a run at a random w (1..MAX_W) with a read and a write stream
    offered at `load` × the drive's capacity for that type. Ch is computed by the Rust monitor
    (the run-time code) over the arrivals of the measured window [warm-up, end), and the targets
    are the read and write bytes the drive completed in that window per second — a drive in steady
    state, as the controller sees it, not one filling from empty."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: expected one of {KINDS}")
    cap = capacity(preset, device)
    rng = np.random.default_rng(seed)
    t0, t1 = warmup_ms / 1e3, duration_ms / 1e3
    # The samples' parameters are drawn first, in order, from one stream; the runs are then
    # independent and go to a process pool (`NEST_JOBS`, else every core) — the same samples
    # whatever the number of workers.
    runs, params, weights = [], [], []
    for k in range(n):
        w = int(rng.integers(1, MAX_W + 1))
        # A synthetic sample's Table III subset: low or high variation of size and of gaps
        # (both streams alike); micro traces are exponential in both.
        size_var, gap_var = (bool(rng.random() < 0.5), bool(rng.random() < 0.5)) if kind == "synthetic" else (False, False)
        # (The write stream's parameters are p["w"], the read stream's p["r"]; the weight is
        # p["weight"].)
        p = {"weight": w, "kind": kind, "subset": None if kind == "micro" else
             f"{'high' if size_var else 'low'} size SCV + {'high' if gap_var else 'low'} inter-arrival SCV"}
        streams = []
        for name, rf, c in (("r", 1.0, cap[0]), ("w", 0.0, cap[1])):
            size = _loguniform(rng, *SIZE_RANGE)
            speed = _loguniform(rng, *load) * c
            gap = size / speed
            sd, ad = _size(rng, kind, size, size_var), _arrival(rng, kind, gap, gap_var)
            p[name] = {"mean_size": size, "load": speed / c, "size": sd, "arrival": ad}
            streams.append({"name": name, "arrival": ad, "size": sd, "read_fraction": rf})
        runs.append(_scenario(preset, w, streams, duration_ms, warmup_ms, seed * 100_003 + k, device))
        params.append(p)
        weights.append(w)
    out = _map(_sample_run, [(sc, t0, t1) for sc in runs])
    xs = [list(ch) + [w] for (ch, _), w in zip(out, weights)]
    ys = [y for _, y in out]
    return Samples(preset, np.asarray(xs, dtype=float), np.asarray(ys, dtype=float), params)


def _sample_run(job) -> tuple:
    """One sample's run: Ch of the arrivals in [t0, t1) (the run-time monitor's), and the read
    and write bytes per second the drive completed there."""
    from .runner import run

    scenario, t0, t1 = job
    res = run(scenario)
    t = res.requests.select(["t_arrive_ps", "size", "op"]).to_pydict()
    arrive = np.asarray(t["t_arrive_ps"], dtype=np.uint64)
    order = np.argsort(arrive, kind="stable")
    inside = [i for i in order if t0 * 1e12 <= arrive[i] < t1 * 1e12]
    ch = _native.src_features([int(arrive[i]) for i in inside], [int(t["size"][i]) for i in inside],
                              [t["op"][i] == "write" for i in inside], int((t1 - t0) * 1e12), int(t1 * 1e12))
    return list(ch), _delivered(res, t0, t1)


def _map(fn, jobs: list) -> list:
    """`fn` over `jobs`, in order, on a process pool when there is more than one core to use."""
    from concurrent.futures import ProcessPoolExecutor

    from .runner import jobs as workers_wanted

    workers = min(workers_wanted(), len(jobs))
    if workers <= 1:
        return [fn(j) for j in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, jobs, chunksize=max(1, len(jobs) // (4 * workers))))


def micro_samples(preset: str, n: int, seed: int = 1, duration_ms: float = 30.0, warmup_ms: float = 10.0) -> Samples:
    """`samples` of micro traces."""
    return samples(preset, n, seed, "micro", duration_ms, warmup_ms)


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


#: Table III's four subsets of synthetic samples.
SUBSETS = [f"{a} size SCV + {b} inter-arrival SCV" for a in ("low", "high") for b in ("low", "high")]


def join(*parts: Samples) -> Samples:
    """One sample set of several (of the same preset)."""
    return Samples(parts[0].preset, np.vstack([p.x for p in parts]), np.vstack([p.y for p in parts]),
                   [q for p in parts for q in p.params])


def cross_validate(samples: Samples, seed: int = 1) -> Dict[str, float]:
    """Table III: for each subset of synthetic samples, the R² of a random forest trained on every
    other sample (the micro traces and the other subsets) and validated on that subset."""
    from sklearn.metrics import r2_score

    subset = np.asarray([p.get("subset") or "" for p in samples.params])
    out = {}
    for name in SUBSETS:
        test = subset == name
        if test.sum() < 2:
            continue
        model = model_families(seed)["random_forest"].fit(samples.x[~test], samples.y[~test])
        out[name] = float(r2_score(samples.y[test], model.predict(samples.x[test])))
    return out


#: The exported model file (read by `nest_qos::rate_control::TreeEnsemble`).
FORMAT, VERSION = "nestsim-tpm", 1


def fit(samples: Samples, family: str = "random_forest", seed: int = 1, **params):
    """One of the tree families fitted on every sample (what a run's SRC controller uses);
    `params` are scikit-learn's (e.g. `n_estimators`, `min_samples_leaf`)."""
    if family not in ("random_forest", "decision_tree"):
        raise ValueError(f"family {family!r}: only random_forest and decision_tree can be exported")
    model = model_families(seed)[family]
    model.set_params(**params)
    model.fit(samples.x, samples.y)
    return model


#: The models shipped for the presets (`model = "shipped:ssd-a"`): a compact forest, 30 trees
#: with at least 3 samples a leaf (~0.6 MB; 100 unpruned trees are ~7 MB), whose held-out R²
#: is within ~0.02 of the full forest's on the same samples (docs/src.md).
SHIPPED_PRESETS = ("ssd-a", "ssd-b", "ssd-c")
SHIPPED_FOREST = {"n_estimators": 30, "min_samples_leaf": 3}
SHIPPED_SAMPLES, SHIPPED_SEED = 500, 21


def ship(preset: str, path, n: int = SHIPPED_SAMPLES, seed: int = SHIPPED_SEED) -> dict:
    """Trains `preset`'s shipped model from scratch (n micro + n synthetic samples) and writes it
    to `path`: `scripts/ship_tpm_models.py` runs it for every preset into the package."""
    s = join(samples(preset, n, seed=seed, kind="micro"), samples(preset, n, seed=seed + 1, kind="synthetic"))
    model = fit(s, **SHIPPED_FOREST)
    imp = dict(zip(FEATURES, (round(float(v), 6) for v in model.feature_importances_)))
    return export(model, path, preset=preset, samples=len(s.x), seed=seed, forest=SHIPPED_FOREST, importances=imp)


def shipped(preset: str) -> dict:
    """The model shipped for `preset` as its file holds it (what `trained_on` says included)."""
    return json.loads(_native.tpm_shipped(preset))


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
    """NeSt's own evaluator's predictions (read, write throughput) for rows `x` of an exported
    model (a path, or "shipped:PRESET")."""
    return np.asarray(_native.tpm_predict(str(path), np.asarray(x, dtype=float).tolist()), dtype=float)


__all__ = ["FEATURES", "FORMAT", "VERSION", "KINDS", "SUBSETS", "Samples", "Comparison", "capacity", "samples", "micro_samples",
           "micro_scenario", "model_families", "compare", "cross_validate", "join", "fit", "export", "predict",
           "SHIPPED_PRESETS", "SHIPPED_FOREST", "ship", "shipped"]

