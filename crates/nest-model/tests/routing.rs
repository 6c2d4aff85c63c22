//! The NVMe-oF target's routing hook in the World: a router at a storage server decides where
//! commands go and starts background I/O of its own (the shape of PLMLight's write-handling
//! agent: writes to a fast device, copied to the SSD behind the host's back).

use nest_config::{load_str, resolve};
use nest_core::{DeviceId, SimTime};
use nest_model::Simulation;
use nest_nvme::{BackgroundIo, CmdInfo, Router, RouterOut};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const SCENARIO: &str = r#"schema = 1
[run]
duration = "20ms"
drain = true
[network]
topology = "dumbbell"
senders = 1
receivers = 1
link_rate = "10Gbps"
link_delay = "1us"
[[host]]
name = "s0"
[[device]]
name = "slow"
kind = "ideal"
server = "r0"
servers = 1
read = { dist = "fixed", value = "50us" }
write = { dist = "fixed", value = "200us" }
[[device]]
name = "fast"
kind = "ideal"
server = "r0"
servers = 4
read = { dist = "fixed", value = "5us" }
write = { dist = "fixed", value = "5us" }
[[workload]]
name = "w"
host = "s0"
device = "slow"
class = "high"
arrival = { kind = "poisson", rate_iops = 4000 }
size = { dist = "fixed", bytes = "4KiB" }
read_fraction = 0.0
"#;

/// Writes go to `fast`; each is copied to the device it named, in the background.
struct Stage {
    fast: DeviceId,
    started: Arc<AtomicU64>,
    done: Arc<AtomicU64>,
}

impl Router for Stage {
    fn route(&mut self, _now: SimTime, c: &CmdInfo, out: &mut RouterOut) -> Option<DeviceId> {
        if !c.write {
            return Some(c.device);
        }
        let tag = self.started.fetch_add(1, Ordering::Relaxed) as u32;
        out.background.push(BackgroundIo { host: c.host, device: c.device, write: true, offset: c.offset, bytes: c.bytes, class_id: c.class_id, tag });
        Some(self.fast)
    }

    fn background_done(&mut self, _now: SimTime, _tag: u32, _out: &mut RouterOut) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }
}

fn build() -> Simulation {
    let l = load_str(SCENARIO, "t.toml", PathBuf::from("."), &[], None).unwrap();
    Simulation::new(resolve(&l, SCENARIO).unwrap()).unwrap()
}

#[test]
fn a_router_redirects_writes_and_its_background_copies_reach_the_named_device() {
    let mut plain = build();
    plain.run().unwrap();
    let p = plain.summary();

    let mut sim = build();
    let (started, done) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    sim.set_router("r0", Box::new(Stage { fast: DeviceId(1), started: started.clone(), done: done.clone() })).unwrap();
    assert!(sim.set_router("s0", Box::new(nest_nvme::Direct)).is_err(), "s0 holds no device");
    sim.run().unwrap();
    sim.check_conservation().unwrap();
    let s = sim.summary();
    assert_eq!(s["conservation"], "ok");
    let writes = s["workloads"]["w"]["completed"].as_f64().unwrap();
    assert!(writes > 50.0);
    // Every write was staged on the fast device and copied to the slow one once.
    assert_eq!(started.load(Ordering::Relaxed) as f64, writes);
    assert_eq!(done.load(Ordering::Relaxed) as f64, writes, "every copy finished (the run drained)");
    assert_eq!(s["nvmeof"]["write_bytes"]["at_device"], p["nvmeof"]["write_bytes"]["at_device"]);
    // Both devices did every write: the fast one for the hosts, the slow one as copies.
    let ios = |v: &serde_json::Value, d: &str| v["devices"][d]["write"]["ios"].as_f64().unwrap();
    assert_eq!((ios(&p, "slow"), ios(&p, "fast")), (writes, 0.0));
    assert_eq!((ios(&s, "slow"), ios(&s, "fast")), (writes, writes));
    // The host sees the fast device: a write takes its 5 µs instead of 200 µs (plus network).
    let lat = |v: &serde_json::Value| v["classes"]["high"]["write"]["lat_us"]["mean"].as_f64().unwrap();
    assert!(lat(&p) > 200.0 && lat(&s) < 50.0, "plain {} µs, staged {} µs", lat(&p), lat(&s));
}
