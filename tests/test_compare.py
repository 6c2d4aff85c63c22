"""`nestsim compare` / `nestsim.compare`: runs side by side (issue 23)."""

import json

import pytest

import nestsim
from nestsim.compare import compare, write


def _runs(cli, small_scenario, tmp_path):
    a, b = tmp_path / "base", tmp_path / "busier"
    cli("run", small_scenario, "-o", a, "-q", check=0)
    cli("run", small_scenario, "-o", b, "-q", "--set", "workload[0].arrival.rate_iops=40000", check=0)
    return a, b


def test_compare_gives_per_class_deltas_and_what_differs(cli, small_scenario, tmp_path):
    a, b = _runs(cli, small_scenario, tmp_path)
    cmp = nestsim.compare([a, b], labels=["base", "busier"])
    assert cmp.config_diff == {"workload[hi].arrival.rate_iops": [20000, 40000]}
    sa, sb = (json.loads((d / "summary.json").read_text()) for d in (a, b))
    rows = {(r["class"], r["op"], r["metric"]): r for r in cmp.rows}
    assert [c for c, _, _ in rows][0] == "high", "classes in priority order"
    p99 = rows[("high", "all", "p99 µs")]
    want = [sa["classes"]["high"]["all"]["lat_us"]["p99"], sb["classes"]["high"]["all"]["lat_us"]["p99"]]
    assert p99["values"] == want and p99["change"] == [None, pytest.approx(want[1] / want[0] - 1)]
    n = rows[("high", "all", "n")]["values"]
    assert n[1] > 1.5 * n[0], "twice the rate, about twice the requests"
    assert cmp.headline.startswith("high: p99 ") and "low pays: p99" in cmp.headline and "with busier vs" in cmp.headline
    assert "busier" in repr(cmp) and len(repr(cmp)) < 300, "a short repr in a notebook"

    out = write(cmp, tmp_path / "cmp")
    doc = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert doc["schema"] == 1 and doc["headline"] == cmp.headline and len(doc["rows"]) == len(cmp.rows)
    page = out.read_text()
    assert "compare-cdf.png" in page and "workload[hi].arrival.rate_iops" in page and cmp.headline.split(";")[0] in page
    assert (tmp_path / "cmp" / "compare-cdf.png").stat().st_size > 10_000


def test_compare_on_the_command_line_and_its_errors(cli, small_scenario, tmp_path):
    a, b = _runs(cli, small_scenario, tmp_path)
    p = cli("compare", a, b, "--labels", "base,busier", "-o", tmp_path / "cmp", check=0)
    assert p.stdout.splitlines()[0].startswith("high: p99 ")
    assert "what differs:" in p.stdout and "runs: base → busier" in p.stdout
    assert (tmp_path / "cmp" / "compare.html").exists()
    assert "one label" not in cli("compare", a, check=2).stderr and "at least two" in cli("compare", a, check=2).stderr
    assert "no summary.json" in cli("compare", a, tmp_path / "nowhere", check=2).stderr
    assert "3 labels for 2 runs" in cli("compare", a, b, "--labels", "x,y,z", check=2).stderr
    with pytest.raises(ValueError):
        compare([a])


def test_the_demo_shows_e2e_qos_protecting_high_and_low_paying(cli, tmp_path):
    """`make demo`'s two runs (the Makefile's own NO_QOS overrides): High's p99 clearly better
    with E2E QoS, Low pays; the urgent PM traffic is untouched either way. Both runs carry
    every tenant's load (no warning: no overload, no request left in flight)."""
    import re
    import shlex

    from conftest import ROOT

    no_qos = shlex.split(re.search(r"^NO_QOS := (.*)$", (ROOT / "Makefile").read_text(), re.M).group(1))
    demo = ROOT / "examples" / "demo.toml"
    cli("run", demo, "-o", tmp_path / "qos", "-q", check=0)
    cli("run", demo, "-o", tmp_path / "no-qos", "-q", *no_qos, check=0)
    for run in ("qos", "no-qos"):
        assert json.loads((tmp_path / run / "summary.json").read_text())["warnings"] == [], run
    cmp = compare([tmp_path / "no-qos", tmp_path / "qos"], labels=["no QoS", "E2E QoS"])
    p99 = {(r["class"], r["op"]): r["values"] for r in cmp.rows if r["metric"] == "p99 µs"}
    assert p99[("high", "all")][1] < 0.9 * p99[("high", "all")][0], p99
    assert p99[("low", "all")][1] > p99[("low", "all")][0], p99
    assert abs(p99[("urgent", "all")][1] / p99[("urgent", "all")][0] - 1) < 0.05, p99
    assert set(cmp.config_diff) == {f"qos.{layer}" for layer in ("host", "network", "transport", "nvme", "device")}
    assert cmp.headline.startswith("high: p99 ") and "low pays" in cmp.headline
    # Which layer each class's change comes from (issue 62, finding 1): the layers add up to the
    # mean on each side, and High's gain is mostly its host queue (the client serves High first).
    where = {c: (ma, mb, dict(moved)) for c, ma, mb, moved in cmp.where()}
    mean = {(r["class"]): r["values"] for r in cmp.rows if r["metric"] == "mean µs" and r["op"] == "all"}
    for c, (ma, mb, _) in where.items():
        assert ma == pytest.approx(mean[c][0], rel=1e-3) and mb == pytest.approx(mean[c][1], rel=1e-3), c
    hi = where["high"][2]
    assert hi and min(hi.values()) == hi["host queue"] < 0, hi
    out = write(cmp, tmp_path / "cmp")
    assert "Where the latency changed" in out.read_text() and "host queue" in out.read_text()
    assert json.loads((tmp_path / "cmp" / "compare.json").read_text())["layers"]["high"][0]["host_queue"] > 0
    # README.md quotes this very line (issue 62, finding 2): a model change that moves it fails here.
    quoted = _quoted_script()
    assert quoted.quoted_demo(quoted.README.read_text()) == cmp.headline, "README.md's demo line is stale: run scripts/quoted.py"


def test_the_demos_answer_does_not_move_with_its_length(cli, tmp_path):
    """The demo measures a steady state (issue 62, finding 1): at twice its duration High's and
    Low's p99 with E2E QoS stay within 10 % (from an empty write cache High's grew 740 → 1397 µs
    from 0.3 to 2 s)."""
    from conftest import ROOT

    demo = ROOT / "examples" / "demo.toml"
    p99 = {}
    for d in ("500ms", "1s"):
        cli("run", demo, "-o", tmp_path / d, "-q", "--set", f"run.duration={d}", check=0)
        s = json.loads((tmp_path / d / "summary.json").read_text())
        p99[d] = {c: s["classes"][c]["all"]["lat_us"]["p99"] for c in ("high", "low")}
    for c in ("high", "low"):
        assert p99["1s"][c] == pytest.approx(p99["500ms"][c], rel=0.1), p99


def _quoted_script():
    import importlib.util

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location("quoted", ROOT / "scripts" / "quoted.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_docs_python_md_quotes_the_run_it_shows():
    """docs/python.md's first example prints the RunResult it quotes (issue 62, finding 2)."""
    quoted = _quoted_script()
    assert quoted.quoted_repr(quoted.PYTHON_MD.read_text()) == quoted.python_repr(), "stale: run scripts/quoted.py"


def _seeds(cli, small_scenario, root, sets=(), seeds=(1, 2, 3)):
    for s in seeds:
        cli("run", small_scenario, "-o", root / f"seed{s}", "-q", "--seed", s, *[a for kv in sets for a in ("--set", kv)], check=0)
    return root


def test_compare_over_seeds_gives_intervals_and_says_whether_a_change_is_real(cli, small_scenario, tmp_path):
    """A directory of seeds of one configuration is one run: each metric is the mean with its 95 %
    CI, and a change is called significant (Welch) only when the seeds' noise cannot explain it."""
    from nestsim.stats import mean_ci, welch_significant

    base = _seeds(cli, small_scenario, tmp_path / "base")
    busier = _seeds(cli, small_scenario, tmp_path / "busier", sets=["workload[0].arrival.rate_iops=40000"])
    same = _seeds(cli, small_scenario, tmp_path / "same", seeds=(4, 5, 6))
    cmp = nestsim.compare([base, busier, same], labels=["base", "busier", "same"])
    assert cmp.seeds == [3, 3, 3]
    assert cmp.config_diff == {"workload[hi].arrival.rate_iops": [20000, 40000, 20000]}, "seeds are not a difference"
    rows = {(r["class"], r["op"], r["metric"]): r for r in cmp.rows}
    n = rows[("high", "all", "n")]
    per_seed = [json.loads((base / f"seed{s}" / "summary.json").read_text())["classes"]["high"]["all"]["ios"] for s in (1, 2, 3)]
    m, h = mean_ci([float(x) for x in per_seed])
    assert n["values"][0] == pytest.approx(m) and n["ci95"][0] == pytest.approx(h, rel=1e-3)
    # Twice the rate is a real change in the number of requests; other seeds of the same
    # configuration are not. Runs on the same seeds are compared seed by seed (issue 62, finding
    # 6: an unpaired test called a change every seed showed noise).
    assert n["significant"] == [None, True, False], n
    assert n["test"] == [None, "paired", "welch"] and n["seeds_agree"][1] == "3/3", n
    assert "3 / 3 seeds" in cmp.headline
    text = cmp.render()
    assert "(3 seeds)" in text and "±" in text and "95 % CI" in text
    write(cmp, tmp_path / "cmp")
    assert (tmp_path / "cmp" / "compare-cdf.png").stat().st_size > 10_000, "seeds pooled in the CDFs"
    # The paired test: three seeds that all improve by about the same ratio are a real change
    # (finding 6's p99s, as log ratios), where Welch on the same numbers is not.
    from nestsim.stats import paired_significant
    assert paired_significant([1000.0, 2093.0, 2877.0], [837.0, 686.0, 803.0]) is False  # n = 3, spread too wide
    assert paired_significant([10.0, 20.0, 30.0], [9.0, 19.1, 28.9]) is True
    assert welch_significant([10.0, 20.0, 30.0], [9.0, 19.1, 28.9]) is False
    assert paired_significant([1.0], [2.0]) is None
    # Welch's test itself.
    assert welch_significant([1.0, 1.1, 0.9], [2.0, 2.1, 1.9]) is True
    assert welch_significant([1.0, 1.5, 0.5], [1.1, 1.6, 0.6]) is False
    assert welch_significant([1.0], [2.0, 2.1]) is None


def test_compare_refuses_a_directory_that_mixes_configurations(cli, small_scenario, tmp_path):
    mixed = tmp_path / "mixed"
    _seeds(cli, small_scenario, mixed, seeds=(1,))
    cli("run", small_scenario, "-o", mixed / "other", "-q", "--set", "workload[0].arrival.rate_iops=40000", check=0)
    p = cli("compare", mixed, mixed / "other", check=2)
    assert "differ in more than the seed" in p.stderr and "rate_iops" in p.stderr
