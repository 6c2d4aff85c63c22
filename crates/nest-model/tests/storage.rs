//! The storage end in the World: SSD behind the NVMe controller, PM, arbitration and
//! device-level QoS, GC visible in the outputs.

use nest_config::{load_str, resolve};
use nest_model::Simulation;
use serde_json::Value;
use std::path::PathBuf;

fn run(text: &str) -> (Value, Simulation) {
    let l = load_str(text, "t.toml", PathBuf::from("."), &[], None).unwrap_or_else(|e| panic!("{e}"));
    let r = resolve(&l, text).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(r).unwrap();
    sim.run().unwrap();
    (sim.summary(), sim)
}

fn f(v: &Value, path: &str) -> f64 {
    let mut x = v;
    for k in path.split('.') {
        x = &x[k];
    }
    x.as_f64().unwrap_or_else(|| panic!("{path} is not a number: {x}"))
}

#[test]
fn ssd_closed_loop_smoke() {
    let (s, sim) = run(include_str!("../../../examples/ssd-smoke.toml"));
    println!("{}", serde_json::to_string_pretty(&s["devices"]).unwrap());
    assert_eq!(s["conservation"], "ok");
    assert!(f(&s, "classes.high.all.ios") > 1000.0);
    sim.check_conservation().unwrap();
}
