//! Haechi runs end to end: the bare system's profile (Haechi Set 1) from the fabric's
//! parameters alone, and the protocol over the fabric. Periods of 0.1 s (the node does 157 K
//! I/Os in one) keep the debug-build tests short; the experiments run the paper's 1 s periods.

use nest_model::haechi::run_json;
use serde_json::{json, Value};

fn run(v: Value) -> Value {
    run_json(&v.to_string()).expect("the run")
}

fn burst(n: usize, extra: Value) -> Value {
    let mut c = json!({"pattern": "burst"});
    c.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    Value::Array(vec![c; n])
}

fn per_period(r: &Value, c: usize) -> Vec<u64> {
    r["clients"][c]["per_period"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect()
}

/// Node I/Os per second over the periods after the first.
fn node_rate(r: &Value) -> f64 {
    let pp: Vec<f64> = r["per_period_total"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    pp[1..].iter().sum::<f64>() / (pp.len() - 1) as f64 / r["period_s"].as_f64().unwrap()
}

fn profile(n: usize, two_sided: bool) -> Value {
    run(json!({"duration_s": 0.03, "period_s": 0.01, "qos": "none", "clients": burst(n, json!({"two_sided": two_sided}))}))
}

fn near(x: f64, target: f64, tol: f64) -> bool {
    (x / target - 1.0).abs() <= tol
}

#[test]
fn the_bare_system_saturates_where_haechi_measured_it() {
    let one = profile(1, false);
    let two = profile(1, true);
    let node_one = profile(10, false);
    let node_two = profile(2, true);
    assert!(near(node_rate(&one), 400e3, 0.01), "one client, one-sided: {}", node_rate(&one));
    assert!(near(node_rate(&two), 327e3, 0.01), "one client, two-sided: {}", node_rate(&two));
    assert!(near(node_rate(&node_one), 1570e3, 0.01), "ten clients, one-sided: {}", node_rate(&node_one));
    assert!(near(node_rate(&node_two), 427e3, 0.01), "two clients, two-sided: {}", node_rate(&node_two));
    // Ten equal clients share the node equally.
    let shares: Vec<u64> = (0..10).map(|c| per_period(&node_one, c)[1]).collect();
    assert!(shares.iter().max().unwrap() - shares.iter().min().unwrap() <= 2, "{shares:?}");
    // One-sided reads never reach the data node's CPU; two-sided requests all do.
    assert_eq!(node_one["node"]["two_sided_requests_at_cpu"], 0);
    assert!(node_one["node"]["utilization"]["cpu"].as_f64().unwrap() == 0.0);
    let sum = |k: &str| -> u64 { node_two["clients"].as_array().unwrap().iter().map(|c| c[k].as_u64().unwrap()).sum() };
    let at_cpu = node_two["node"]["two_sided_requests_at_cpu"].as_u64().unwrap();
    assert!(at_cpu >= sum("completed") && at_cpu <= sum("completed") + sum("in_flight"), "every completed two-sided request took the CPU");
    for r in [&one, &two, &node_one, &node_two] {
        assert_eq!(r["conservation"]["ok"], true, "{}", r["conservation"]);
    }
}

fn zipf(total: f64) -> Vec<u64> {
    let w: Vec<f64> = (1..=5).map(|k| 1.0 / (k as f64).powf(0.6)).collect();
    let s: f64 = w.iter().sum::<f64>() * 2.0;
    w.iter().flat_map(|x| [(total * x / s) as u64; 2]).collect()
}

/// Exp 2A scaled to 0.1 s periods: 90 % of 157 K reserved, demand = reservation + the pool.
fn exp_2a(res: &[u64], qos: &str, cap: &str) -> Value {
    let clients: Vec<Value> =
        res.iter().map(|&r| json!({"pattern": "burst", "reservation": if qos == "none" { 0 } else { r }, "demand": r + 15_700})).collect();
    run(json!({"duration_s": 0.4, "period_s": 0.1, "qos": qos, "clients": clients,
               "protocol": {"cap": cap, "capacity": 157_000, "sigma": 500.0, "eta": 500}}))
}

#[test]
fn uniform_reservations_are_met_and_every_token_is_accounted_for() {
    let res = vec![14_130u64; 10];
    let r = exp_2a(&res, "haechi", "pace");
    for c in 0..10 {
        for (k, &done) in per_period(&r, c).iter().enumerate().skip(1) {
            assert!(done >= res[c], "period {k}: C{} did {done} of {}", c + 1, res[c]);
        }
        // Reservation tokens: pushed = used + returned + expired + held (checked by the
        // engine's ledger in `conservation`); one push per period.
        let t = &r["clients"][c]["tokens"];
        assert_eq!(t["reservation_pushed"].as_u64().unwrap() % res[c], 0);
        // Per closed period: that period's push, and no more tokens used, given back or expired
        // than it had; what the whole-run ledger has beyond their sum is the open period's.
        let pp = r["clients"][c]["tokens_per_period"].as_array().unwrap();
        assert_eq!(pp.len(), 3, "three period ends in 0.4 s");
        let field = |p: &Value, k: &str| p[k].as_u64().unwrap();
        for p in pp {
            assert_eq!(field(p, "reservation_pushed"), res[c], "{p}");
            assert!(field(p, "reservation_used") + field(p, "reservation_returned") <= res[c], "{p}");
        }
        let sum = |k: &str| pp.iter().map(|p| field(p, k)).sum::<u64>();
        assert_eq!(field(t, "reservation_pushed") - sum("reservation_pushed"), res[c], "one push in the open period");
        assert!(field(t, "reservation_used") - sum("reservation_used") <= res[c], "{t}");
    }
    assert!(near(node_rate(&r), 1570e3, 0.002), "no throughput lost: {}", node_rate(&r));
    assert_eq!(r["conservation"]["ok"], true, "{}", r["conservation"]);
    // Reporting started each period (the pool fell below its initial value) and the monitor
    // converted tokens from then on, at every check interval (1 ms) to the period's end.
    let periods = r["periods"].as_array().unwrap();
    assert!(periods.len() >= 4);
    for w in periods[..4].windows(2) {
        let from = w[0]["reporting_from_s"].as_f64().expect("reporting started");
        let checks = ((w[1]["start_s"].as_f64().unwrap() - from) * 1000.0).floor() as u64;
        assert!(w[0]["conversions"].as_u64().unwrap().abs_diff(checks) <= 1, "{} checks after {from}: {}", checks, w[0]);
    }
}

#[test]
fn under_zipf_reservations_the_printed_cap_leaves_c1_at_an_equal_share() {
    // The finding haechi-qos reports (docs/haechi.md): ten backlogged clients share the node
    // equally, the δ cap as printed takes the tokens C1 falls behind on and conversion hands them
    // to every client — C1 gets the bare system's share. Sparing backlogged clients helps it.
    let res = zipf(0.9 * 157_000.0);
    let bare = exp_2a(&res, "none", "pace");
    let pace = exp_2a(&res, "haechi", "pace");
    let idle = exp_2a(&res, "haechi", "idle");
    let c1 = |r: &Value| per_period(r, 0)[1..].iter().sum::<u64>() as f64 / 3.0;
    assert!(near(c1(&bare), 15_700.0, 0.01), "bare: {}", c1(&bare));
    assert!(near(c1(&pace), c1(&bare), 0.01), "printed cap: C1 {} vs bare {}", c1(&pace), c1(&bare));
    assert!(c1(&idle) > c1(&pace) * 1.15 && c1(&idle) < res[0] as f64, "idle cap: C1 {} (reserved {})", c1(&idle), res[0]);
    for r in [&bare, &pace, &idle] {
        assert_eq!(r["conservation"]["ok"], true, "{}", r["conservation"]);
    }
}

#[test]
fn a_run_is_deterministic_and_constant_rate_demand_left_at_a_period_end_is_dropped() {
    let spec = json!({"duration_s": 0.3, "period_s": 0.1, "warmup_s": 0.1, "qos": "haechi",
        "protocol": {"capacity": 157_000},
        "clients": [{"pattern": "constant", "reservation": 30_000, "demand": 45_000},
                    {"pattern": "constant", "reservation": 8_000, "demand": 8_000},
                    {"pattern": "burst", "managed": false, "start_s": 0.05, "stop_s": 0.2, "outstanding": 8}]});
    let a = run(spec.clone());
    let b = run(spec);
    assert_eq!(a, b, "same spec, same result");
    assert_eq!(a["conservation"]["ok"], true, "{}", a["conservation"]);
    // 45 K per 0.1 s is above what one client does (40 K): what is left waiting at each period's
    // end is dropped with the period.
    let c0 = &a["clients"][0];
    assert!(c0["abandoned"].as_u64().unwrap() > 0, "{c0}");
    assert_eq!(per_period(&a, 1)[1], 8_000, "the small client gets its demand");
    // The background job bypasses the engines: no tokens; it stopped at 0.2 s, and only the 8
    // reads it had in flight then completed after it.
    assert!(a["clients"][2].get("tokens").is_none());
    assert!(per_period(&a, 2)[1] > 10_000 && per_period(&a, 2)[2] == 8, "{:?}", per_period(&a, 2));
}

#[test]
fn a_malformed_spec_is_refused_by_key() {
    let err = |v: Value| run_json(&v.to_string()).expect_err("refused");
    let base = json!({"duration_s": 1.0, "qos": "haechi", "clients": [{"pattern": "burst"}]});
    let with = |k: &str, v: Value| {
        let mut s = base.clone();
        s[k] = v;
        s
    };
    assert!(err(with("qos", json!("fast"))).contains("qos") || err(with("qos", json!("fast"))).contains("unknown variant"));
    assert!(err(with("clients", json!([{"pattern": "burst", "reservaton": 5}]))).contains("reservaton"));
    assert!(err(with("clients", json!([{"pattern": "constant"}]))).contains("clients[0].demand"));
    assert!(err(with("clients", json!([]))).contains("clients"));
    assert!(err(with("warmup_s", json!(2.0))).contains("warmup_s"));
    assert!(err(with("verbs", json!({"link_gbps": -1.0}))).contains("link_gbps"));
    assert!(err(with("protocol", json!({"batch": 0}))).contains("protocol.batch"));
    assert!(err(with("clients", json!([{"pattern": "burst", "managed": false, "reservation": 3}]))).contains("managed"));
    // Limits that keep a run within a machine: each names its key.
    assert!(err(with("duration_s", json!(1e9))).contains("duration_s"));
    assert!(err(with("protocol", json!({"delta_ms": 1e-9}))).contains("protocol.delta_ms"));
    assert!(err(with("clients", json!([{"pattern": "constant", "demand": 1_000_000_000_000u64}]))).contains("clients[0].demand"));
    assert!(err(with("clients", json!([{"pattern": "burst", "outstanding": 2_147_483_648u64}]))).contains("clients[0].outstanding"));
    assert!(err(with("clients", Value::Array(vec![json!({"pattern": "burst"}); 10_001]))).contains("clients"));
    assert!(err(with("verbs", json!({"link_gbps": 1e-12}))).contains("verbs.link_gbps"));
    assert!(err(with("verbs", json!({"client_cpu_per_verb_ns": 1e30}))).contains("verbs.client_cpu_per_verb_ns"));
    assert!(err(with("service_cv", json!(-0.1))).contains("service_cv"));
    assert!(err(with("service_cv", json!(3.0))).contains("service_cv"));
}

/// SPEC §13.9: a data node whose speed varies period to period. The saturated node's capacity
/// per period then spreads by about the stated coefficient of variation around the same mean,
/// the draws are the seed's (same seed, same periods; another seed, other periods), and
/// `service_cv` 0 is the deterministic node.
#[test]
fn a_node_with_service_variability_varies_its_capacity_per_period_by_the_stated_cv() {
    let spec = |cv: f64, seed: u64| {
        run(json!({"duration_s": 0.6, "period_s": 0.01, "qos": "none", "service_cv": cv, "seed": seed,
                   "clients": burst(10, json!({}))}))
    };
    let totals = |r: &Value| -> Vec<f64> { r["per_period_total"].as_array().unwrap()[1..].iter().map(|v| v.as_f64().unwrap()).collect() };
    let stats = |x: &[f64]| {
        let m = x.iter().sum::<f64>() / x.len() as f64;
        (m, (x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / x.len() as f64).sqrt() / m)
    };
    let flat = spec(0.0, 1);
    let (m0, cv0) = stats(&totals(&flat));
    assert!(cv0 < 1e-3, "the deterministic node: {cv0}");
    assert_eq!(flat["nodes"][0]["speed_per_period"].as_array().unwrap().len(), 0);
    let a = spec(0.05, 1);
    let (m, cv) = stats(&totals(&a));
    assert!(near(m, m0, 0.03), "the mean capacity stays: {m} vs {m0}");
    assert!(cv > 0.025 && cv < 0.08, "capacity per period spreads by about the stated 5 %: {cv}");
    let speeds = a["nodes"][0]["speed_per_period"].as_array().unwrap();
    assert_eq!(speeds.len(), 60, "one speed per period");
    assert_eq!(a, spec(0.05, 1), "same seed, same run");
    assert_ne!(totals(&a), totals(&spec(0.05, 2)), "another seed draws other speeds");
    assert_eq!(a["conservation"]["ok"], true, "{}", a["conservation"]);
}

/// Several data nodes: each node runs Haechi on its own; a client's reservation and limit are
/// split over the nodes by its expected share of requests, and its requests go where their keys
/// are. Two nodes carry twice one node's I/Os; a skewed range placement overloads one node and
/// its admission check says so.
#[test]
fn with_two_data_nodes_each_runs_haechi_on_its_share_of_the_reservations() {
    let spec = |keys: Value, limit: Value| {
        let mut cs = burst(10, json!({"reservation": 2_826, "demand": 6_000}));
        cs[9] = json!({"pattern": "burst", "reservation": 500, "demand": 6_000});
        if !limit.is_null() {
            cs[9]["limit"] = limit;
        }
        json!({"duration_s": 0.04, "period_s": 0.01, "qos": "haechi", "nodes": 2, "keys": keys, "seed": 3,
               "protocol": {"capacity": 15_700, "eta": 50, "check_ms": 0.1, "delta_ms": 0.1, "report_grace_us": 10},
               "clients": cs})
    };
    let r = run(spec(json!({}), json!(1_000)));
    assert_eq!(r["conservation"]["ok"], true, "{}", r["conservation"]);
    assert!(near(node_rate(&r), 2.0 * 1570e3, 0.02), "two nodes, uniform keys: {}", node_rate(&r));
    let nodes = r["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 2);
    for (j, n) in nodes.iter().enumerate() {
        let res: Vec<u64> = n["reservations"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        assert!((n["share"].as_f64().unwrap() - 0.5).abs() < 0.01, "hashed uniform keys halve the work");
        assert!(res[0] >= 1_380 && res[0] <= 1_446, "R_1 split by share at node {j}: {res:?}");
        assert!(n["admission"]["ok"].as_bool().unwrap(), "{}", n["admission"]);
        assert!(n["monitor_messages"].as_u64().unwrap() > 0, "each node's monitor pushes its own tokens");
        // Every client meets its share of the reservation at this node in every period after the first.
        for (c, &rij) in res.iter().enumerate() {
            let done = r["clients"][c]["per_node"][j].as_array().unwrap();
            assert!(done[1..].iter().all(|d| d.as_u64().unwrap() >= rij), "C{} at node {j}: {done:?} < {rij}", c + 1);
        }
    }
    let split: Vec<u64> = (0..2).map(|j| nodes[j]["reservations"][0].as_u64().unwrap()).collect();
    assert_eq!(split.iter().sum::<u64>(), 2_826, "the parts add up to R_1");
    // C10's limit (1 K per period) is split too and holds over both nodes.
    let c10 = per_period(&r, 9);
    assert!(c10[1..].iter().all(|&d| d <= 1_000) && c10[1] >= 900, "{c10:?}");
    // Range-partitioned Zipf keys: ~95 % of the requests go to node 0; its share of the
    // reservations exceeds its capacity and its admission check refuses it.
    let skew = run(spec(json!({"dist": "zipf", "partition": "range"}), Value::Null));
    assert_eq!(skew["conservation"]["ok"], true);
    assert!(skew["nodes"][0]["share"].as_f64().unwrap() > 0.9);
    assert_eq!(skew["nodes"][0]["admission"]["ok"], false, "{}", skew["nodes"][0]["admission"]);
    assert_eq!(skew["nodes"][1]["admission"]["ok"], true);
    assert!(node_rate(&skew) < 1.1 * 1570e3, "the hot node bounds the run: {}", node_rate(&skew));
    // The same seed gives the same run; another seed other key draws.
    assert_eq!(run(spec(json!({"dist": "zipf"}), Value::Null)), run(spec(json!({"dist": "zipf"}), Value::Null)));
}

#[test]
fn bad_node_and_key_settings_are_refused_by_name() {
    let base = |extra: Value| {
        let mut s = json!({"duration_s": 1.0, "qos": "haechi", "clients": [{"pattern": "burst", "reservation": 10}]});
        s.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        run_json(&s.to_string()).expect_err("refused")
    };
    assert!(base(json!({"nodes": 0})).contains("nodes"));
    assert!(base(json!({"nodes": 100_000})).contains("nodes"));
    assert!(base(json!({"keys": {"records": 0}})).contains("keys.records"));
    assert!(base(json!({"keys": {"dist": "zipf", "theta": -1.0}})).contains("keys.theta"));
    assert!(
        base(json!({"keys": {"partition": "round-robin"}})).contains("partition")
            || base(json!({"keys": {"partition": "round-robin"}})).contains("unknown variant")
    );
    assert!(base(json!({"clients": [{"pattern": "burst", "reservation": 10, "limit": 5}]})).contains("clients[0].limit"));
}

/// Issue 60 item 3: the monitor's pool check is a CAS its NIC executes (one per check); Alg. 1's
/// last step alerts a client under its reservation three reported periods in a row; the local
/// condition R_i − N_i(t) ≤ (T − t)·C_L is checked at every check for the clients that still
/// want I/Os, and a break recorded for its period.
#[test]
fn the_monitor_checks_by_cas_alerts_under_users_and_records_local_breaks() {
    let r = run(json!({"duration_s": 1.0, "period_s": 0.1, "qos": "haechi", "protocol": {"capacity": 157_000},
        "clients": [{"pattern": "burst", "reservation": 10_000, "demand": 5_000},
                    {"pattern": "burst", "reservation": 30_000, "start_s": 0.25},
                    {"pattern": "burst", "reservation": 30_000}]}));
    let cas = r["nodes"][0]["monitor_cas"].as_u64().unwrap();
    assert!((999..=1000).contains(&cas), "one CAS per 1 ms check over 1 s: {cas}");
    let periods = r["periods"].as_array().unwrap();
    let ids = |k: usize, key: &str| -> Vec<u64> { periods[k][key].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect() };
    let alerted: Vec<Vec<u64>> = (0..periods.len()).map(|k| ids(k, "alerted")).collect();
    assert!(alerted[..2].iter().all(|a| a.is_empty()), "not yet three periods under: {alerted:?}");
    assert!(alerted.iter().any(|a| a.contains(&0)), "C1 wants half its reservation: alerted: {alerted:?}");
    assert!(alerted.iter().all(|a| !a.contains(&2)), "C3 meets its reservation: {alerted:?}");
    assert!(r["clients"][0]["alerts"].as_u64().unwrap() >= 1, "the alert reached C1");
    assert_eq!(r["clients"][2]["alerts"], 0);
    // C2 starts 0.05 s before period 2's end: 30 K is beyond its own 400 K/s there. Before its
    // start it wants nothing; C1 has its 5 K; C3 does its 30 K in 0.075 s.
    let breaks: Vec<Vec<u64>> = (0..periods.len()).map(|k| ids(k, "local_breaks")).collect();
    assert_eq!(breaks[2], vec![1], "{breaks:?}");
    assert!(breaks[..2].iter().all(|b| b.is_empty()), "{breaks:?}");
    assert_eq!(r["conservation"]["ok"], true, "{}", r["conservation"]);
}
