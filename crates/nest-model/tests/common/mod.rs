//! Shared by the integration tests: load a scenario text, run it, return its summary.

use nest_config::{load_str, resolve};
use nest_model::Simulation;
use serde_json::Value;
use std::path::PathBuf;

#[allow(dead_code)]
pub fn run(text: &str) -> (Value, Simulation) {
    let l = load_str(text, "t.toml", PathBuf::from("."), &[], None).unwrap_or_else(|e| panic!("{e}"));
    let r = resolve(&l, text).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(r).unwrap();
    sim.run().unwrap();
    (sim.summary(), sim)
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
