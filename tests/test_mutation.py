"""Issue 25: the mutation test of the command line (scripts/mutate_cli.py) — a short run in
`make test`; the long run (--inputs 100000) is documented in docs/robustness.md — and the
corpus of inputs that once failed, rerun as they are."""

import importlib.util
import sys
from pathlib import Path

import pytest

from conftest import ROOT

spec = importlib.util.spec_from_file_location("mutate_cli", ROOT / "scripts" / "mutate_cli.py")
mutate_cli = importlib.util.module_from_spec(spec)
sys.modules["mutate_cli"] = mutate_cli
spec.loader.exec_module(mutate_cli)

CORPUS = sorted((ROOT / "tests" / "fixtures" / "mutation").iterdir())


#: Corpus inputs that now end by themselves, within the run's budget, and why (issue 63: each
#: input's expectation is its own, so a budget stop cannot hide a run that should end).
ENDS_ON_ITS_OWN = {
    "scenario--demo.toml--2s-target-overhead-series-blowup": "its drain stops at run.drain_limit",
}


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_inputs_that_once_failed_now_end_cleanly(path):
    seed = mutate_cli.corpus_seed(path)
    outcome, err, cmd = mutate_cli.run_one(seed, seed.text)
    assert outcome not in mutate_cli.FAILURES, f"{outcome}: {' '.join(cmd)}\n{err}"
    if path.name in ENDS_ON_ITS_OWN:
        assert outcome == "ran", f"{outcome}: expected to end by itself ({ENDS_ON_ITS_OWN[path.name]}): {err}"
        return
    # Each was a memory blow-up, a hang or a panic: it is now refused naming the file, or
    # stopped at its budget.
    assert outcome in ("rejected", "stopped"), f"{outcome}: {err}"


def test_short_mutation_run_has_no_failures(capsys):
    status = mutate_cli.main(["--inputs", "120", "--seed", "25", "--jobs", "2"])
    out = capsys.readouterr().out
    assert status == 0, out
    tally = out.strip().splitlines()[-1]
    assert tally.startswith("120 inputs:"), out
    # The mutants reach both outcomes that matter: clean rejections and runs.
    assert "rejected" in tally and ("ran" in tally or "stopped" in tally), tally


def test_the_classifier_tells_the_outcomes_apart():
    c = mutate_cli.classify
    assert c(2, "nestsim: error: /tmp/x/a.toml:3:1: bad", "a.toml") == "rejected"
    assert c(2, "nestsim: error: bad", "a.toml") == "rejected-unnamed"
    assert c(None, "", "a.toml") == "hang"
    assert c(-6, "memory allocation of 8589934592 bytes failed", "a.toml") == "memory"
    assert c(-11, "", "a.toml") == "crash"
    assert c(1, "Traceback (most recent call last):\n  ...\nKeyError: 1", "a.toml") == "traceback"
    assert c(70, "nestsim: internal error", "a.toml") == "internal"
    assert c(4, "stopped", "a.toml") == "stopped"
    rng = mutate_cli.random.Random(1)
    texts = {mutate_cli.mutate('duration = "10ms"\nrate = 5\n', rng) for _ in range(50)}
    assert len(texts) > 20


def test_fork_mode_judges_each_input_as_a_fresh_interpreter_does():
    """--fork (a child forked from a process that imported nestsim once, for the long run) gives
    the outcome a fresh `python -m nestsim` gives, input by input."""
    rng = mutate_cli.random.Random(11)
    base = mutate_cli.seeds()
    picks = [base[i] for i in range(0, len(base), max(1, len(base) // 12))][:12]
    for s in picks:
        text = mutate_cli.mutate(s.text, rng)
        fresh = mutate_cli.run_one(s, text)
        forked = mutate_cli.run_one(s, text, fork=True)
        if {fresh[0], forked[0]} == {"ran", "stopped"} and "of wall time (--max-wall)" in fresh[1] + forked[1]:
            continue  # an input that runs about as long as the wall budget: which side stops is the machine's load
        assert forked[0] == fresh[0], f"{s.kind} {s.name}: fresh {fresh[0]}, forked {forked[0]}\n{fresh[1]}\n{forked[1]}"
