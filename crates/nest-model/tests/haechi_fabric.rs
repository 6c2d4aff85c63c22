//! Haechi on the World's packet fabric (`[haechi]` in a scenario with a `[network]`): the same
//! run as on the verbs model's switch when nothing else is on the fabric, the data node's CPU
//! on a two-sided request's path only, determinism, and bad sections refused by key.

use nest_config::{load_str, resolve};
use nest_model::haechi::run_json;
use serde_json::{json, Value};
use std::path::PathBuf;

/// Four clients on s0–s3 reading from data node r0 on one 56 Gb/s switch, 10 ms periods.
fn scenario(haechi_extra: &str, client_extra: &str) -> String {
    let clients: String = (0..4).map(|i| format!("[[haechi.clients]]\nhost = \"s{i}\"\npattern = \"burst\"\nreservation = 3_500\n{client_extra}\n")).collect();
    format!(
        "schema = 1\n[run]\nduration = \"40ms\"\nwarmup = \"10ms\"\ndrain = false\n\
         [network]\ntopology = \"dumbbell\"\nsenders = 4\nreceivers = 1\nlink_rate = \"56Gbps\"\nlink_delay = \"50ns\"\nmtu = 9000\n\
         [haechi]\nqos = \"haechi\"\nperiod_s = 0.01\ndata_nodes = [\"r0\"]\n{haechi_extra}\n\
         [haechi.protocol]\ncapacity = 15_700\neta = 50\n{clients}"
    )
}

fn world(text: &str) -> Value {
    let l = load_str(text, "t.toml", PathBuf::from("."), &[], None).unwrap();
    let mut sim = nest_model::Simulation::new(resolve(&l, text).unwrap()).unwrap();
    sim.run().unwrap();
    sim.check_conservation().unwrap();
    sim.summary()
}

fn refused(text: &str) -> String {
    match load_str(text, "t.toml", PathBuf::from("."), &[], None).and_then(|l| resolve(&l, text)) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn totals(r: &Value) -> Vec<u64> {
    r["per_period_total"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect()
}

#[test]
fn alone_on_the_packet_fabric_haechi_carries_what_the_verbs_model_does() {
    let s = world(&scenario("", ""));
    let h = &s["haechi"];
    assert_eq!(h["wire"], "fabric");
    assert_eq!(s["conservation"], "ok");
    assert_eq!(h["conservation"]["ok"], true);
    let spec = json!({"duration_s": 0.04, "warmup_s": 0.01, "period_s": 0.01, "qos": "haechi",
        "protocol": {"capacity": 15_700, "eta": 50},
        "clients": vec![json!({"pattern": "burst", "reservation": 3_500}); 4]});
    let v = run_json(&spec.to_string()).unwrap();
    let (f, b) = (totals(h), totals(&v));
    assert_eq!(f.len(), 4);
    for (k, (x, y)) in f.iter().zip(&b).enumerate() {
        assert!((*x as f64 / *y as f64 - 1.0).abs() < 0.02, "period {k}: fabric {x} vs verbs {y}");
    }
    // The node's NIC is the bottleneck on both: ~15.7 K per period at the start.
    assert!(f[0] > 15_000, "{f:?}");
    for c in h["clients"].as_array().unwrap() {
        let pp: Vec<u64> = c["per_period"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        assert!(pp[1..].iter().all(|&n| n >= 3_500), "{}: {pp:?}", c["name"]);
    }
    // The verbs crossed the fabric: the answers' bytes are the node's link's.
    let flows = s["network"]["flows"].as_object().unwrap();
    let answers: f64 = flows.iter().filter(|(n, _)| n.starts_with("haechi:r0>")).map(|(_, f)| f["throughput_gbps"].as_f64().unwrap()).sum();
    assert!(answers > 40.0 && answers < 56.0, "{answers} Gb/s of answers");
}

#[test]
fn on_the_fabric_a_two_sided_request_occupies_the_data_nodes_cpu_and_a_read_does_not() {
    let one = world(&scenario("", ""));
    let two = world(&scenario("", "two_sided = true"));
    assert_eq!(one["haechi"]["node"]["two_sided_requests_at_cpu"], 0);
    let at_cpu = two["haechi"]["node"]["two_sided_requests_at_cpu"].as_u64().unwrap();
    let done: u64 = two["haechi"]["clients"].as_array().unwrap().iter().map(|c| c["completed"].as_u64().unwrap()).sum();
    assert!(at_cpu >= done && done > 0, "{at_cpu} at the CPU, {done} completed");
    // One server thread (2.342 µs a request) bounds the node at ~427 K/s: 4.27 K per period.
    let t = totals(&two["haechi"]);
    assert!(t[1..].iter().all(|&n| n < 4_400), "{t:?}");
}

#[test]
fn the_same_scenario_runs_the_same() {
    let a = world(&scenario("", ""));
    let b = world(&scenario("", ""));
    assert_eq!(a["fingerprint"], b["fingerprint"]);
    assert_eq!(a["haechi"], b["haechi"]);
}

#[test]
fn bad_haechi_sections_are_refused_by_key() {
    let base = scenario("", "");
    let cases: [(String, &str); 8] = [
        (base.replace("host = \"s1\"", "host = \"s9\""), "haechi.clients[1].host"),
        (base.replace("host = \"s2\"", "host = \"r0\""), "haechi.clients[2].host"),
        (base.replace("period_s = 0.01", "period_s = 0.01\nduration_s = 1.0"), "haechi.duration_s"),
        (base.replace("[haechi.protocol]", "[haechi.verbs]\nlink_gbps = 10.0\n[haechi.protocol]"), "haechi.verbs.link_gbps"),
        (base.replace("duration = \"40ms\"\n", ""), "run.duration"),
        (base.replace("data_nodes = [\"r0\"]", "data_nodes = [\"r0\"]\nclass = \"gold\""), "haechi.class"),
        (base.replace("data_nodes = [\"r0\"]", "data_nodes = [\"r0\"]\ntransport = \"tcp\""), "haechi.transport"),
        (scenario("", "outstanding = 0"), "haechi.clients[0].outstanding"),
    ];
    for (text, key) in cases {
        let e = refused(&text);
        assert!(e.contains(key), "expected an error naming {key}, got: {e}");
    }
    let e = refused(
        &base.replace("[network]\ntopology = \"dumbbell\"\nsenders = 4\nreceivers = 1\nlink_rate = \"56Gbps\"\nlink_delay = \"50ns\"\nmtu = 9000\n", ""),
    );
    assert!(e.contains("[network]"), "{e}");
    // Alone, the World's keys are refused by name.
    let alone = json!({"duration_s": 0.02, "qos": "none", "clients": [{"pattern": "burst", "host": "s0"}]});
    assert!(run_json(&alone.to_string()).unwrap_err().contains("clients[0].host"));
    let alone = json!({"duration_s": 0.02, "qos": "none", "data_nodes": ["r0"], "clients": [{"pattern": "burst"}]});
    assert!(run_json(&alone.to_string()).unwrap_err().contains("data_nodes"));
}
