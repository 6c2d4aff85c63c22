"""SRC's throughput prediction model pipeline (nestsim.tpm, docs/src.md): the features the Rust
workload monitor computes, training samples from NeSt's own presets, the model comparison."""

import math

import numpy as np
import pytest

from nestsim import _native, tpm


def _reference(times, sizes, writes, delta, now):
    """SRC's Ch by its definition (docs/src.md), independently of the Rust monitor."""
    keep = [(t, b, w) for t, b, w in zip(times, sizes, writes) if t >= now - delta]
    n = [sum(1 for _, _, w in keep if w == x) for x in (False, True)]

    def scv(v):
        v = np.asarray(v, dtype=float)
        return 0.0 if len(v) < 2 or v.sum() <= 0 else float(v.var() / v.mean() ** 2)

    out = [n[0] / max(1, n[0] + n[1])]
    out += [scv([b for _, b, w in keep if w == x]) for x in (False, True)]
    out += [scv(np.diff([t for t, _, w in keep if w == x])) for x in (False, True)]
    out += [sum(b for _, b, w in keep if w == x) / (delta / 1e12) for x in (False, True)]
    return out


def test_the_monitor_features_follow_their_definition():
    rng = np.random.default_rng(3)
    times = np.cumsum(rng.exponential(5e6, 2000)).astype(np.uint64).tolist()  # ~5 µs gaps, in ps
    sizes = (rng.integers(1, 33, 2000) * 4096).tolist()
    writes = (rng.random(2000) < 0.3).tolist()
    delta, now = 2_000_000_000, times[-1]  # the last 2 ms
    got = _native.src_features(times, sizes, writes, delta, now)
    want = _reference(times, sizes, writes, delta, now)
    assert got == pytest.approx(want, rel=1e-9)
    assert list(_native.src_feature_names()) == tpm.FEATURES[:-1] and tpm.FEATURES[-1] == "w"
    with pytest.raises(ValueError):
        _native.src_features([2, 1], [4096, 4096], [False, True], 10, 10)


def test_micro_samples_record_what_the_drive_delivered():
    s = tpm.micro_samples("ssd-a", 6, seed=2, duration_ms=10)
    assert s.x.shape == (6, len(tpm.FEATURES)) and s.y.shape == (6, 2)
    w = s.x[:, -1]
    assert ((1 <= w) & (w <= tpm.MAX_W)).all()
    speed = s.x[:, tpm.FEATURES.index("speed_read")], s.x[:, tpm.FEATURES.index("speed_write")]
    for k in range(2):
        # A drive delivers at most what arrived (the run does not drain), and something.
        assert (s.y[:, k] <= speed[k] * (1 + 1e-9)).all() and (s.y[:, k] > 0).all()
    assert all(math.isfinite(v) for v in s.x.ravel())


def test_every_model_family_is_compared_on_a_held_out_share():
    s = tpm.micro_samples("ssd-a", 40, seed=4, duration_ms=10)
    c = tpm.compare(s)
    assert set(c.r2) == {"linear", "polynomial", "knn", "decision_tree", "random_forest"}
    assert all(math.isfinite(v) and v <= 1.0 for v in c.r2.values())
    assert (c.n_train, c.n_test) == (24, 16)
    assert sum(c.importances.values()) == pytest.approx(1.0) and set(c.importances) == set(tpm.FEATURES)


@pytest.mark.parametrize("family", ["random_forest", "decision_tree"])
def test_nest_evaluates_an_exported_model_exactly_as_scikit_learn(tmp_path, family):
    # Features spread over many magnitudes (shares, SCVs, bytes/s, w), so float32 thresholds matter.
    rng = np.random.default_rng(7)
    n = 400
    x = np.column_stack([rng.random(n), rng.exponential(1, n), rng.exponential(1, n), rng.exponential(2, n),
                         rng.exponential(2, n), rng.exponential(3e8, n), rng.exponential(1e8, n), rng.integers(1, 9, n)])
    y = np.column_stack([x[:, 5] / x[:, 7] + rng.normal(0, 1e6, n), x[:, 6] * np.minimum(1, x[:, 7] / 4)])
    samples = tpm.Samples("synthetic", x, y, [])
    model = tpm.fit(samples, family, seed=3)
    path = tmp_path / "m.json"
    doc = tpm.export(model, path, preset="synthetic", n=n)
    assert doc["model"] == family and doc["trained_on"] == {"preset": "synthetic", "n": n}
    fresh = np.column_stack([rng.random(300), rng.exponential(1, 300), rng.exponential(1, 300), rng.exponential(2, 300),
                             rng.exponential(2, 300), rng.exponential(3e8, 300), rng.exponential(1e8, 300), rng.integers(1, 9, 300)])
    both = np.vstack([x, fresh])
    assert np.array_equal(tpm.predict(path, both), model.predict(both)), "bit for bit"
    with pytest.raises(ValueError, match="8"):
        tpm.predict(path, [[1.0, 2.0]])
    with pytest.raises(TypeError):
        tpm.export(object(), path)
