//! Shared by the integration tests: load a scenario text, run it, return its summary.

use nest_config::{load_str, resolve};
use nest_model::Simulation;
use serde_json::Value;
use std::path::PathBuf;

#[allow(dead_code)]
pub fn run(text: &str) -> (Value, Simulation) {
    let mut sim = build(text);
    sim.run().unwrap();
    (sim.summary(), sim)
}

/// The simulation of a scenario text, built and not yet run.
#[allow(dead_code)]
pub fn build(text: &str) -> Simulation {
    let l = load_str(text, "t.toml", PathBuf::from("."), &[], None).unwrap_or_else(|e| panic!("{e}"));
    let r = resolve(&l, text).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(r).unwrap()
}

/// The error a scenario text that does not resolve gives (panics if it resolves).
#[allow(dead_code)] // not every test file uses it
pub fn refused(text: &str) -> String {
    let l = load_str(text, "t.toml", PathBuf::from("."), &[], None).unwrap_or_else(|e| panic!("{e}"));
    resolve(&l, text).expect_err("refused").to_string()
}

/// A number at a dotted path of a summary ("classes.high.read.ios").
#[allow(dead_code)] // not every test file uses it
pub fn f(v: &Value, path: &str) -> f64 {
    let mut x = v;
    for k in path.split('.') {
        x = match k.parse::<usize>() {
            Ok(i) if x.is_array() => &x[i],
            _ => &x[k],
        };
    }
    x.as_f64().unwrap_or_else(|| panic!("{path} is not a number: {x}"))
}

/// One client (s0) on a 10 Gb/s DCQCN dumbbell with three storage servers r0–r2 (RED marking,
/// PFC), each holding what `per_server(r)` gives (its device and the workload s0 runs on it),
/// then `coord`: the incast the congestion-driven coordinators are tested on.
#[allow(dead_code)]
pub fn dcqcn_incast(per_server: impl Fn(&str) -> String, coord: &str) -> String {
    let mut s = String::from(
        r#"schema = 1
[run]
duration = "20ms"
[network]
topology = "dumbbell"
senders = 1
receivers = 3
link_rate = "10Gbps"
link_delay = "1us"
switch = { ecn = "red", ecn_kmin = "41200B", ecn_kmax = "1030000B", ecn_pmax = 1.0, pfc = true, buffer = "16MiB", pfc_xoff = "400KiB", pfc_xon = "300KiB" }
[nvmeof]
transport = "dcqcn"
[[host]]
name = "s0"
"#,
    );
    for r in ["r0", "r1", "r2"] {
        s += &per_server(r);
    }
    s + coord
}
