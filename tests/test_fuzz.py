"""Property tests: random and truncated bytes fed to every parser (scenario, traces, fio job
files) produce clean errors (ConfigError / SimError), never a crash."""

import re
import tempfile
import tomllib

import pytest
from pathlib import Path

import nestsim
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nestsim import _native

from conftest import SMALL

FIO = "[global]\nsize=32m\nbssplit=4k/70:16k/20:64k/10\nrandom_distribution=zipf:1.1\n[a]\nrw=randrw\nrwmixread=70\nrate_iops=2000,500\n"
TRACE_SEEDS = {
    "systor17": "Timestamp,Response,IOType,LUN,Offset,Size\n1456095145.133076000,0.000806000,R,0,899056122368,131072\n",
    "msr": "128166385295514663,hm,0,Write,9056014336,2048,2833\n",
    "tencent": "1538323199,13896880,128,0,1063\n",
    "alibaba": "0,R,126703644672,4096,1577808000000626\n",
    "blkparse": "  1,0   15        1     0.000000000 19146  C  WS 299456 + 1 [0]\n",
    "disksim": "0.5 0 8 16 1\n",
    "mqsim": "938513000 4 264719034 16 0\n",
    "flashnet": "223.412 0 3159347200 36864 1\n",
    "cloudphysics": "version,time,op,size,lbn\n1,5633898,2a,512,42932745\n",
}


def mutate(base: bytes, cut: int, edits):
    b = bytearray(base[: cut % (len(base) + 1)])
    for pos, val in edits:
        if b:
            b[pos % len(b)] = val
    return bytes(b)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut=st.integers(0, 10_000), edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=6))
def test_scenario_text_fuzz(cut, edits):
    text = mutate(SMALL.encode(), cut, edits).decode("utf-8", errors="replace")
    try:
        sim = _native.Sim(text=text, name="fuzz.toml", overrides=["run.duration=1ms"])
        sim.step(100_000)
    except (_native.ConfigError, _native.SimError):
        pass


@settings(max_examples=60, deadline=None)
@given(fmt=st.sampled_from(sorted(TRACE_SEEDS)), cut=st.integers(0, 400), edits=st.lists(st.tuples(st.integers(0, 400), st.integers(0, 255)), max_size=6), junk=st.binary(max_size=64))
def test_trace_bytes_fuzz(fmt, cut, edits, junk):
    data = mutate(TRACE_SEEDS[fmt].encode() * 3, cut, edits) + junk
    with tempfile.NamedTemporaryFile(suffix=".trace", delete=False) as f:
        f.write(data)
    try:
        _native.trace_count(f.name, fmt)
    except _native.ConfigError as e:
        assert f.name in str(e)
    finally:
        Path(f.name).unlink()


@settings(max_examples=60, deadline=None)
@given(cut=st.integers(0, 400), edits=st.lists(st.tuples(st.integers(0, 400), st.sampled_from(list(b"=:,/[]k%-0123456789xyz\n"))), max_size=6))
def test_fio_job_fuzz(cut, edits):
    job = mutate(FIO.encode(), cut, edits)
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "job.fio").write_bytes(job)
        sc = {
            "schema": 1,
            "run": {"duration": "1ms"},
            "device": [{"name": "d", "kind": "ideal", "read": {"dist": "fixed", "value": "10us"}, "write": {"dist": "fixed", "value": "10us"}}],
            "workload": [{"name": "f", "device": "d", "fio": {"path": str(Path(d) / "job.fio")}}],
        }
        try:
            nestsim.run(sc, keep_tables=False)
        except nestsim.ConfigError as e:
            assert "job.fio" in str(e) or "fio" in str(e)


def test_fio_size_below_the_block_alignment_is_a_config_error(tmp_path):
    # Found by test_fio_job_fuzz: `size=3` used to fail at run time with a SimError.
    (tmp_path / "job.fio").write_text("[j]\nrw=randread\nsize=3\n")
    sc = {
        "schema": 1,
        "run": {"duration": "1ms"},
        "device": [{"name": "d", "kind": "ideal", "read": {"dist": "fixed", "value": "10us"}, "write": {"dist": "fixed", "value": "10us"}}],
        "workload": [{"name": "f", "device": "d", "fio": {"path": str(tmp_path / "job.fio")}}],
    }
    with pytest.raises(nestsim.ConfigError, match="smaller than the block alignment"):
        nestsim.run(sc, keep_tables=False)


# The other parsers (issue 25, item 3): `--set` overrides, units, MQSim's XML files, sweep files.
ROOT = Path(__file__).resolve().parent.parent
MQSIM = ROOT / "tests" / "fixtures" / "mqsim"
KEYS = ["run.duration", "run.seed", "workload[0].arrival.rate_iops", "device[0].servers", "host[0].queue_depth",
        "workload[9].class", "run", "x", "workload[0]", "device[-1].read.value", "a.b.c.d"]
VALUES = st.one_of(st.sampled_from(["1ms", "0", "-1", "nan", "inf", "1e308", "true", "[1,2]", "{a=1}", '"x"', "", "=", "1 ms",
                                    "18446744073709551616", "3.5", "10GiB", "1ps"]),
                   st.text(max_size=12))


@settings(max_examples=80, deadline=None)
@given(key=st.one_of(st.sampled_from(KEYS), st.text(max_size=16)), value=VALUES, eq=st.booleans())
def test_set_override_fuzz(key, value, eq):
    """A `--set KEY=VALUE` of any shape is a clean error or a valid scenario, never a crash."""
    try:
        sim = _native.Sim(text=SMALL, name="fuzz.toml", overrides=[f"{key}={value}" if eq else key + value, "run.duration=1ms"])
        sim.step(10_000)
    except (_native.ConfigError, _native.SimError) as e:
        assert str(e)


@settings(max_examples=150, deadline=None)
@given(text=st.one_of(st.text(max_size=16), st.from_regex(r"-?[0-9]{0,25}(\.[0-9]{0,5})?(e-?[0-9]{1,4})? ?[a-zA-Z/%]{0,5}", fullmatch=True)))
def test_units_fuzz(text):
    """Sizes and durations: a clean error or a value, whatever the text."""
    try:
        assert _native.parse_size(text) >= 0
    except _native.ConfigError as e:
        assert str(e)
    try:
        sim = _native.Sim(text=SMALL, name="fuzz.toml", overrides=[f'run.duration="{text}"'])
        sim.step(1_000)
    except (_native.ConfigError, _native.SimError) as e:
        assert str(e)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from(["ssdconfig-small.xml", "workload-small.xml"]), cut=st.integers(0, 20_000),
       edits=st.lists(st.tuples(st.integers(0, 20_000), st.sampled_from(list(b"<>/=\"'&;0123456789-.eE xyz\n\x00\xff"))), max_size=6))
def test_mqsim_xml_fuzz(which, cut, edits):
    """MQSim's ssdconfig.xml / workload.xml, cut and edited: a clean error naming the file, or
    scenarios."""
    from nestsim import mqsim

    with tempfile.TemporaryDirectory() as d:
        files = {n: (MQSIM / n).read_bytes() for n in ("ssdconfig-small.xml", "workload-small.xml")}
        files[which] = mutate(files[which], cut, edits)
        for n, b in files.items():
            (Path(d) / n).write_bytes(b)
        try:
            scs, _ = mqsim.load(Path(d) / "ssdconfig-small.xml", Path(d) / "workload-small.xml", [MQSIM])
            assert scs
        except (mqsim.MqsimError, _native.ConfigError) as e:
            assert which in str(e) or "ssdconfig-small.xml" in str(e) or "workload-small.xml" in str(e), str(e)


@settings(max_examples=60, deadline=None)
@given(cut=st.integers(0, 2_000), edits=st.lists(st.tuples(st.integers(0, 2_000), st.sampled_from(list(b"[]=,\"'.0123456789-e{}#\n\x00\xff"))), max_size=6))
def test_sweep_file_fuzz(cut, edits):
    """A sweep file, cut and edited: loaded, or a clean error naming it."""
    from nestsim.sweep import load_sweep

    base = (ROOT / "examples" / "sweeps" / "demo-load.toml").read_bytes().replace(
        b"../storage-classes.toml", str(ROOT / "examples" / "storage-classes.toml").encode())
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "sweep.toml"
        f.write_bytes(mutate(base, cut, edits))
        try:
            load_sweep(f)
        except (_native.ConfigError, ValueError) as e:
            assert "sweep.toml" in str(e), str(e)


EXTREMES = ["1e308", "-1e308", "1e-308", "0", "-1", "18446744073709551616", "9223372036854775807", "4294967296", "nan",
            "inf", "0.5"]


def test_every_mqsim_number_at_its_extremes_is_a_clean_error_or_a_run(tmp_path):
    """Every number of MQSim's two files, one at a time, set to each extreme (the long mutation
    run found a NORMAL size variance of 1e308 overflowing to infinity in the importer): the import
    and a few thousand events end in a value, a clean error naming the file, or a budget stop."""
    from nestsim import mqsim

    ran = 0
    for which in ("ssdconfig-small.xml", "workload-small.xml"):
        text = (MQSIM / which).read_text()
        for m in re.finditer(r">(-?[0-9][0-9.eE+-]*)<", text):
            tag = text[:m.start()].rsplit("<", 1)[-1]
            for v in EXTREMES:
                for n in ("ssdconfig-small.xml", "workload-small.xml"):
                    (tmp_path / n).write_text(text[:m.start(1)] + v + text[m.end(1):] if n == which else (MQSIM / n).read_text())
                try:
                    scs, _ = mqsim.load(tmp_path / "ssdconfig-small.xml", tmp_path / "workload-small.xml", [MQSIM])
                    nestsim.run(scs[0], keep_tables=False, origin=which,
                                budget=nestsim.Budget(events=3000, wall_s=5, memory_bytes=800 << 20))
                    ran += 1
                except (mqsim.MqsimError, _native.ConfigError) as e:
                    assert which in str(e), f"{tag} = {v}: {e}"
                except _native.SimError as e:
                    assert str(e), f"{tag} = {v}"
    assert ran > 50  # the extremes that are legal values still run


@pytest.mark.parametrize("example", ["demo.toml", "ssd-smoke.toml"])
def test_every_scenario_number_at_its_extremes_is_a_clean_error_or_a_run(example, monkeypatch):
    """The same sweep over an example scenario's numbers (bare or before a unit). Run over every
    example once (3,872 inputs): 712 ran, the rest were refused, none failed or took over 5 s."""
    monkeypatch.chdir(ROOT / "examples")
    text = (ROOT / "examples" / example).read_text()
    ran = 0
    number = r"(?<![\w.\[])(-?[0-9]+(?:\.[0-9]+)?(?:e-?[0-9]+)?)(?=\s*(?:[a-zA-Z%/]*\"|,|\s*\}|\s*\]|\s*$|\s*#))"
    for m in re.finditer(number, text, re.M):
        for v in EXTREMES:
            try:
                sc = tomllib.loads(text[:m.start(1)] + v + text[m.end(1):])
            except tomllib.TOMLDecodeError:
                continue  # not TOML any more (nan in a string's place): the TOML fuzz's business
            try:
                nestsim.run(sc, keep_tables=False, origin=example,
                            budget=nestsim.Budget(events=20_000, wall_s=5, memory_bytes=1500 << 20))
                ran += 1
            except (_native.ConfigError, _native.SimError) as e:
                assert str(e)
    assert ran > 10  # the extremes that are legal values still run
