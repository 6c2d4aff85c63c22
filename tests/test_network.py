"""The packet-level network: DCTCP/QTCP/D2TCP over the fabric, lossless mode, bad input."""

import json
from pathlib import Path

import pytest

import nestsim

ROOT = Path(__file__).resolve().parent.parent


def _net(topology="dumbbell", **kw):
    n = {"topology": topology, "link_rate": "10Gbps", "link_delay": "10us"}
    n.update(kw)
    return n


def _scenario(network, flows, duration="60ms", warmup="20ms", classes=None, seed=1):
    sc = {"schema": 1, "run": {"seed": seed, "duration": duration, "warmup": warmup}, "network": network, "flow": flows}
    if classes:
        sc["class"] = classes
    return sc


def _flow(name, src, dst, transport="dctcp", cls="best_effort", **kw):
    f = {"name": name, "src": src, "dst": dst, "class": cls, "transport": transport}
    f.update(kw)
    return f


def test_dctcp_dumbbell_example_is_fair_full_and_conserved(tmp_path):
    import tomllib
    sc = tomllib.loads((ROOT / "examples" / "dctcp-dumbbell.toml").read_text())
    r = nestsim.run(sc, overrides=["run.duration=150ms", "run.warmup=50ms"], out_dir=tmp_path / "dd")
    n = r.summary["network"]
    g = [f["throughput_gbps"] for f in n["flows"].values()]
    # 1448 B payload per 1538 B Ethernet frame: 9.41 Gb/s of goodput at 10 Gb/s.
    assert 9.3 < sum(g) <= 9.42, g
    assert max(g) / min(g) < 1.15, g
    assert n["packets"]["dropped"] == 0 and n["conservation"] == "ok"
    assert r.summary["conservation"] == "ok"
    # DCTCP holds the queue near K = 65 packets: marks happen, the 4 MiB buffer is never near full.
    sw = n["switch"]["sw0"]
    assert sw["marked"] > 0 and sw["max_queue_bytes"] < 400_000
    assert (tmp_path / "dd" / "timeseries.parquet").exists()
    assert json.loads((tmp_path / "dd" / "summary.json").read_text())["network"] == n


def test_timeseries_has_flow_and_port_metrics(tmp_path):
    sc = _scenario(_net(senders=2), [_flow("a", "s0", "r0"), _flow("b", "s1", "r0")], duration="20ms", warmup="5ms")
    ts = nestsim.run(sc).timeseries.to_pydict()
    pairs = set(zip(ts["entity"], ts["metric"]))
    for m in ("cwnd_pkts", "alpha", "q_factor", "srtt_us", "throughput_gbps"):
        assert ("flow:a", m) in pairs, m
    assert ("port:sw0->r0", "queue_kib") in pairs
    gbps = [v for e, m, v in zip(ts["entity"], ts["metric"], ts["value"]) if (e, m) == ("flow:a", "throughput_gbps")]
    assert max(gbps) > 3.0


def test_qtcp_ratio_classes_on_a_dumbbell(tmp_path):
    classes = [{"name": "low", "priority": "low", "ratio": 1}, {"name": "medium", "priority": "medium", "ratio": 2},
               {"name": "high", "priority": "high", "ratio": 3}]
    flows = [_flow(f"f{c}", f"s{i}", "r0", "qtcp", c) for i, c in enumerate(["low", "medium", "high"])]
    r = nestsim.run(_scenario(_net(senders=3), flows, duration="300ms", warmup="100ms", classes=classes))
    g = {k: f["throughput_gbps"] for k, f in r.summary["network"]["flows"].items()}
    assert 1.6 < g["fmedium"] / g["flow"] < 2.4, g
    assert 2.4 < g["fhigh"] / g["flow"] < 3.6, g
    assert r.summary["network"]["classes"]["high"]["ratio"] == 3


def test_pfc_incast_is_lossless_and_counts_pauses():
    net = _net(senders=8, sample_ports="all", switch={"buffer": "1MiB", "ecn": "none", "pfc": True, "pfc_xoff": "60KiB", "pfc_xon": "40KiB"})
    flows = [_flow(f"f{i}", f"s{i}", "r0", size="400KB") for i in range(8)]
    r = nestsim.run(_scenario(net, flows, duration="30ms", warmup="0ms"))
    n = r.summary["network"]
    assert n["lossless"] and n["packets"]["dropped"] == 0
    assert n["switch"]["sw0"]["pauses_sent"] > 0 and n["host_pauses_received"] > 0
    # A sender's NIC port is paused part of the time, and the series says how much of each interval.
    ts = r.timeseries.to_pydict()
    frac = [(t, v) for t, e, m, v in zip(ts["time_s"], ts["entity"], ts["metric"], ts["value"]) if (e, m) == ("port:s0->sw0", "paused_frac")]
    assert frac and max(v for _, v in frac) > 0 and all(0 <= v <= 1 for _, v in frac)
    assert ("port:sw0->r0", "paused_frac") in set(zip(ts["entity"], ts["metric"]))
    assert all(f["finished"] and f["fct_us"] > 0 for f in n["flows"].values())
    assert n["conservation"] == "ok"
    # The same overload without PFC on a small buffer drops, and transports recover.
    net["switch"] = {"buffer": "100KiB", "ecn": "none"}
    r = nestsim.run(_scenario(net, flows, duration="30ms", warmup="0ms"))
    n = r.summary["network"]
    assert n["packets"]["dropped"] > 0 and not n["lossless"]
    assert all(f["finished"] for f in n["flows"].values())
    assert n["conservation"] == "ok"


def test_fat_tree_and_clos_route_everywhere():
    flows = [_flow(f"f{i}", f"h{i}", f"h{15 - i}", size="200KB") for i in range(16)]
    r = nestsim.run(_scenario(_net("fat_tree", k=4), flows, duration="20ms", warmup="0ms"))
    n = r.summary["network"]
    assert n["hosts"] == 16 and n["switches"] == 20
    assert all(f["finished"] for f in n["flows"].values())
    flows = [_flow("x", "h0", "h255", size="100KB")]
    r = nestsim.run(_scenario(_net("clos"), flows, duration="5ms", warmup="0ms"))
    assert r.summary["network"]["hosts"] == 256 and r.summary["network"]["flows"]["x"]["finished"]


def test_graph_topology_and_per_link_rates():
    net = {"topology": "graph", "link_rate": "10Gbps", "link_delay": "1us",
           "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}, {"name": "s", "kind": "switch"}],
           "link": [{"a": "a", "b": "s"}, {"a": "s", "b": "b", "rate": "1Gbps"}]}
    r = nestsim.run(_scenario(net, [_flow("f", "a", "b")], duration="60ms", warmup="20ms"))
    g = r.summary["network"]["flows"]["f"]["throughput_gbps"]
    assert 0.85 < g < 0.95, g  # the 1 Gb/s link is the bottleneck


def test_same_seed_same_summary():
    sc = _scenario(_net(senders=3, switch={"ecn": "red", "ecn_kmin": 20, "ecn_kmax": 200, "ecn_pmax": 0.1}),
                   [_flow(f"f{i}", f"s{i}", "r0") for i in range(3)], duration="30ms", warmup="10ms")
    a, b = nestsim.run(sc).summary, nestsim.run(sc).summary
    assert a["fingerprint"] == b["fingerprint"] and a["network"] == b["network"]


def test_d2tcp_deadlines_reported():
    flows = [_flow("near", "s0", "r0", "d2tcp", size="4MB", deadline="5ms"),
             _flow("far", "s1", "r0", "d2tcp", size="4MB", deadline="100ms")]
    r = nestsim.run(_scenario(_net(senders=2), flows, duration="40ms", warmup="0ms"))
    f = r.summary["network"]["flows"]
    assert f["near"]["fct_us"] < f["far"]["fct_us"]
    assert f["far"]["deadline_met"] is True


def test_packets_past_a_deadline_are_counted():
    # 4 MB over 10 Gb/s takes ≥ 3.4 ms: a 2 ms deadline falls inside the transfer.
    flows = [_flow("tight", "s0", "r0", size="4MB", deadline="2ms"), _flow("loose", "s0", "r0", size="1MB", deadline="50ms"),
             _flow("none", "s0", "r0", size="1MB")]
    f = nestsim.run(_scenario(_net(senders=1), flows, duration="40ms", warmup="0ms")).summary["network"]["flows"]
    assert f["tight"]["deadline_met"] is False and 0 < f["tight"]["late_bytes"] < 4_000_000, f["tight"]
    assert f["loose"]["deadline_met"] is True and f["loose"]["late_bytes"] == 0
    assert f["none"]["late_bytes"] is None


@pytest.mark.parametrize("patch,key", [
    ({"flow": [{"name": "f", "src": "nobody", "dst": "r0", "class": "high", "transport": "dctcp"}]}, "flow[0].src"),
    ({"flow": [{"name": "f", "src": "s0", "dst": "sw0", "class": "high", "transport": "dctcp"}]}, "flow[0].dst"),
    ({"flow": [{"name": "f", "src": "s0", "dst": "r0", "class": "high", "transport": "tcp-reno"}]}, "flow[0].transport"),
    ({"network": {"topology": "ring"}}, "network.topology"),
    ({"network": {"topology": "fat_tree", "k": 3}}, "network.topology"),
    ({"network": {"topology": "dumbbell", "switch": {"ecn": "red", "ecn_kmin": 10}}}, "network.switch.ecn_kmax"),
    ({"network": {"topology": "dumbbell", "link_rate": "fast"}}, "network.link_rate"),
])
def test_bad_network_input_names_the_key_and_exits_2(cli, tmp_path, patch, key):
    sc = {"schema": 1, "run": {"duration": "1ms"}, "network": {"topology": "dumbbell"},
          "flow": [{"name": "f", "src": "s0", "dst": "r0", "class": "high", "transport": "dctcp"}]}
    sc.update(patch)
    f = tmp_path / "bad.toml"
    f.write_text(_toml(sc))
    p = cli("validate", f, check=2)
    assert key in p.stderr + p.stdout, p.stderr
    assert "Traceback" not in p.stderr


def _toml(d, prefix=""):
    """A tiny TOML writer for these test scenarios (tables, arrays of tables, scalars)."""
    lines, tables = [], []
    for k, v in d.items():
        if isinstance(v, dict):
            tables.append((k, v))
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            tables.append((k, v))
        else:
            lines.append(f"{k} = {json.dumps(v)}")
    out = "\n".join(lines) + "\n"
    for k, v in tables:
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out += f"[{name}]\n" + _toml(v, name + ".")
        else:
            for item in v:
                out += f"[[{name}]]\n" + _toml(item, name + ".")
    return out
