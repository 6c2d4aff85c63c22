//! Whole small simulations checked against queueing theory, determinism and conservation.

mod common;
use common::run;

fn mm1(service: &str, rate: f64, duration: &str, seed: u64) -> String {
    format!(
        r#"
schema = 1
[run]
seed = {seed}
duration = "{duration}"
warmup = "5%"
[[device]]
name = "d"
kind = "ideal"
servers = 1
read = {service}
write = {service}
[[workload]]
name = "w"
device = "d"
class = "high"
arrival = {{ kind = "poisson", rate_iops = {rate} }}
"#
    )
}

#[test]
fn mm1_mean_latency_matches_theory() {
    // λ = 8k/s, μ = 10k/s (mean 100 µs): W = 1/(μ−λ) = 500 µs; ρ = 0.8.
    let (s, sim) = run(&mm1("{ dist = \"exp\", mean = \"100us\" }", 8000.0, "20s", 3));
    let mean = s["classes"]["high"]["read"]["lat_us"]["mean"].as_f64().unwrap();
    assert!((mean - 500.0).abs() / 500.0 < 0.06, "M/M/1 mean {mean} µs, theory 500");
    let util = s["devices"]["d"]["utilization"].as_f64().unwrap();
    assert!((util - 0.8).abs() < 0.02, "utilisation {util}");
    // p90 of M/M/1 sojourn time is exponential with rate μ−λ: ln(10)·500 µs.
    let p90 = s["classes"]["high"]["read"]["lat_us"]["p90"].as_f64().unwrap();
    assert!((p90 - 1151.3).abs() / 1151.3 < 0.08, "p90 {p90}");
    assert_eq!(s["conservation"], "ok");
    sim.check_conservation().unwrap();
}

#[test]
fn md1_mean_wait_matches_pollaczek_khinchine() {
    // M/D/1: Wq = ρ S / (2(1−ρ)); S = 100 µs, ρ = 0.5 → Wq = 50 µs, W = 150 µs.
    let (s, _) = run(&mm1("{ dist = \"fixed\", value = \"100us\" }", 5000.0, "20s", 4));
    let mean = s["classes"]["high"]["all"]["lat_us"]["mean"].as_f64().unwrap();
    assert!((mean - 150.0).abs() / 150.0 < 0.04, "M/D/1 mean {mean} µs, theory 150");
}

#[test]
fn closed_loop_obeys_littles_law() {
    // 16 outstanding on 4 servers of fixed 50 µs: throughput = 4/50µs = 80k IOPS, latency 200 µs.
    let text = r#"
schema = 1
[run]
duration = "200ms"
[[device]]
name = "d"
kind = "ideal"
servers = 4
read = { dist = "fixed", value = "50us" }
write = { dist = "fixed", value = "50us" }
[[workload]]
name = "w"
device = "d"
arrival = { kind = "burst", outstanding = 16 }
"#;
    let (s, _) = run(text);
    let all = &s["workloads"]["w"]["all"];
    let iops = all["iops"].as_f64().unwrap();
    assert!((iops - 80_000.0).abs() / 80_000.0 < 0.01, "{iops}");
    let lat = all["lat_us"]["mean"].as_f64().unwrap();
    assert!((lat - 200.0).abs() < 1.0, "{lat}");
}

#[test]
fn host_serves_urgent_before_low_when_saturated() {
    let text = r#"
schema = 1
[run]
duration = "500ms"
[[host]]
name = "h"
queue_depth = 1
[[device]]
name = "d"
kind = "ideal"
read = { dist = "exp", mean = "50us" }
write = { dist = "exp", mean = "50us" }
[[workload]]
name = "u"
device = "d"
host = "h"
class = "urgent"
arrival = { kind = "poisson", rate_iops = 8000 }
[[workload]]
name = "l"
device = "d"
host = "h"
class = "low"
arrival = { kind = "poisson", rate_iops = 8000 }
"#;
    let (s, _) = run(text);
    let u = s["classes"]["urgent"]["all"]["lat_us"]["mean"].as_f64().unwrap();
    let l = s["classes"]["low"]["all"]["lat_us"]["mean"].as_f64().unwrap();
    assert!(u * 3.0 < l, "urgent {u} µs should be far below low {l} µs at 80% load");
}

#[test]
fn same_seed_same_summary_different_seed_different_trajectory() {
    let text = mm1("{ dist = \"lognormal\", mean = \"60us\", cv = 0.7 }", 9000.0, "200ms", 11);
    let (a, _) = run(&text);
    let (b, _) = run(&text);
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    let (c, _) = run(&text.replace("seed = 11", "seed = 12"));
    assert_ne!(a["fingerprint"], c["fingerprint"]);
}

#[test]
fn in_flight_requests_are_reported_when_the_run_stops_early() {
    let text = mm1("{ dist = \"fixed\", value = \"1ms\" }", 5000.0, "50ms", 1).replace("warmup = \"5%\"", "drain = false");
    let (s, sim) = run(&text);
    let req = &s["requests"];
    let (issued, completed, in_flight) = (req["issued"].as_u64().unwrap(), req["completed"].as_u64().unwrap(), req["in_flight"].as_u64().unwrap());
    assert!(in_flight > 100, "overloaded device leaves work in flight: {in_flight}");
    assert_eq!(issued, completed + in_flight);
    assert_eq!(s["finished"], "time_limit");
    sim.check_conservation().unwrap();
}

/// Issue 63: a drain is bounded by default (100 × the duration, at least 10 s) and by
/// `run.drain_limit`; a run stopped there says so, with its requests in flight.
#[test]
fn a_drain_stops_at_its_limit_with_requests_in_flight_and_says_so() {
    // 5,000/s at a 1 ms server for 50 ms leaves ~200 requests: 200 ms of drain.
    let base = mm1("{ dist = \"fixed\", value = \"1ms\" }", 5000.0, "50ms", 1);
    let (s, _) = run(&base);
    assert_eq!(s["finished"], "drained");
    assert_eq!(s["limits"]["drain_limit_s"], 300.0, "the default: at least 10 s and 10 × the hosts' 30 s I/O timeout");
    let (s, sim) = run(&base.replace("warmup = \"5%\"", "warmup = \"5%\"\ndrain_limit = \"20ms\""));
    assert_eq!(s["finished"], "drain_limit");
    assert_eq!(s["limits"]["drain_limit_s"], 0.02);
    assert_eq!(s["sim_time_s"], 0.07, "stopped at the duration + the limit");
    let in_flight = s["requests"]["in_flight"].as_u64().unwrap();
    assert!(in_flight > 100, "{in_flight}");
    assert!(s["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().starts_with("the drain did not end")), "{}", s["warnings"]);
    sim.check_conservation().unwrap();
    // "none" lifts it; without a drain there is none to bound.
    let (s, _) = run(&base.replace("warmup = \"5%\"", "warmup = \"5%\"\ndrain_limit = \"none\""));
    assert_eq!((s["finished"].as_str(), s["limits"]["drain_limit_s"].is_null()), (Some("drained"), true));
}
