//! A storage server's bounded I/O buffer (`[nvmeof] target_buffer`, docs/e2e.md): a command takes
//! its io units once the target has processed it; a write gives them back at its device, a read
//! once its data has reached the host; commands that find it full wait in order. (The writes
//! here carry their data in the capsule, `in_capsule_data = 64 KiB`, so that a write's device
//! time follows its buffer alone; `rdma_pull.rs` has the pulled writes.)

mod common;
use common::{f, run};

/// One client (s0) keeping 16 commands of 64 KiB outstanding to an SSD in r0, over a 10 Gb/s
/// DCQCN link; `rf` of them reads.
fn scenario(buffer: Option<&str>, rf: f64) -> String {
    let buffer = format!("target_buffer = \"{}\"\nin_capsule_data = \"64KiB\"\n", buffer.unwrap_or("unlimited"));
    format!(
        "schema = 1\n[run]\nduration = \"20ms\"\n[output]\nrequests = true\n[network]\ntopology = \"dumbbell\"\nsenders = 1\nreceivers = 1\n\
         link_rate = \"10Gbps\"\nlink_delay = \"1us\"\n[nvmeof]\ntransport = \"dcqcn\"\n{buffer}[[host]]\nname = \"s0\"\n\
         [[device]]\nname = \"d\"\nkind = \"ssd\"\npreset = \"ssd-a\"\nserver = \"r0\"\n\
         [[workload]]\nname = \"w\"\nhost = \"s0\"\ndevice = \"d\"\narrival = {{ kind = \"burst\", outstanding = 16 }}\n\
         size = {{ dist = \"fixed\", bytes = \"64KiB\" }}\nread_fraction = {rf}\n"
    )
}

/// The completed commands as (device start, device done, data at the host), by device start.
fn spans(sim: &mut nest_model::Simulation) -> Vec<(u64, u64, u64)> {
    let c = sim.drain_requests();
    let mut v: Vec<_> = (0..c.seq.len()).map(|i| (c.t_dev_start_ps[i], c.t_dev_done_ps[i], c.t_resp_arrive_ps[i])).collect();
    v.sort_unstable();
    v
}

#[test]
fn a_read_holds_its_buffer_until_its_data_reaches_the_host() {
    let (s, mut sim) = run(&scenario(Some("64KiB"), 1.0));
    sim.check_conservation().unwrap();
    let b = &s["nvmeof"]["targets"]["r0"]["buffer"];
    assert_eq!((f(b, "capacity"), f(b, "peak"), f(b, "held_at_end")), (65536.0, 65536.0, 0.0), "{b}");
    assert!(f(b, "stalls") > 10.0, "16 commands wait for one buffer: {b}");
    let v = spans(&mut sim);
    assert!(v.len() > 20, "{} reads", v.len());
    for w in v.windows(2) {
        assert!(w[1].0 >= w[0].2, "a read started at the device ({}) before the previous one's data reached the host ({})", w[1].0, w[0].2);
    }
    // Without the buffer the drive takes the next read while the last one's data is on the wire.
    let (free, mut sim) = run(&scenario(None, 1.0));
    assert!(free["nvmeof"]["targets"]["r0"].get("buffer").is_none());
    let v = spans(&mut sim);
    assert!(v.windows(2).any(|w| w[1].0 < w[0].2));
    assert!(f(&free, "workloads.w.all.ios") > 1.2 * f(&s, "workloads.w.all.ios"), "the buffer serializes the reads");
}

/// A one-buffer target serving writes: each write takes the buffer only until it has left its
/// device — the next starts then, not once the completion has reached the host.
fn assert_writes_free_the_buffer_at_the_device(text: &str) {
    let (s, mut sim) = run(text);
    sim.check_conservation().unwrap();
    assert!(f(&s, "nvmeof.targets.r0.buffer.stalls") > 10.0);
    let v = spans(&mut sim);
    assert!(v.len() > 20, "{} writes", v.len());
    for w in v.windows(2) {
        assert!(w[1].0 >= w[0].1, "a write started before the previous one left the device");
    }
    assert!(v.windows(2).any(|w| w[1].0 < w[0].2), "a write does not wait for the previous completion to reach the host");
}

#[test]
fn a_write_gives_its_buffer_back_at_its_device() {
    assert_writes_free_the_buffer_at_the_device(&scenario(Some("64KiB"), 0.0));
}

/// The same on an ideal device (and so on PM).
#[test]
fn a_write_gives_its_buffer_back_at_an_ideal_device_too() {
    let text = scenario(Some("64KiB"), 0.0).replace(
        "kind = \"ssd\"\npreset = \"ssd-a\"",
        "kind = \"ideal\"\nservers = 4\nread = { dist = \"fixed\", value = \"200us\" }\nwrite = { dist = \"fixed\", value = \"200us\" }",
    );
    assert!(text.contains("kind = \"ideal\""));
    assert_writes_free_the_buffer_at_the_device(&text);
}

#[test]
fn a_buffer_larger_than_the_commands_in_flight_changes_nothing() {
    let (a, _) = run(&scenario(Some("64MiB"), 0.5));
    let (b, _) = run(&scenario(None, 0.5));
    assert_eq!(f(&a, "workloads.w.all.ios"), f(&b, "workloads.w.all.ios"));
    assert_eq!(f(&a, "nvmeof.targets.r0.buffer.stalls"), 0.0);
    assert!(f(&a, "nvmeof.targets.r0.buffer.peak") <= 16.0 * 65536.0);
}

#[test]
fn rdma_connections_get_spdks_pool_and_queue_depth_by_default() {
    let text = scenario(None, 0.5).replace("target_buffer = \"unlimited\"\nin_capsule_data = \"64KiB\"\n", "");
    let (s, _) = run(&text);
    let p = &s["nvmeof"]["params"];
    assert_eq!((f(p, "target_buffer"), f(p, "in_capsule_data"), f(p, "queue_depth")), (4095.0 * 8192.0, 4096.0, 128.0), "{p}");
    let (t, _) = run(&text.replace("transport = \"dcqcn\"", "transport = \"dctcp\""));
    let p = &t["nvmeof"]["params"];
    assert!(p["target_buffer"].is_null() && p["queue_depth"].is_null(), "NVMe/TCP keeps no pool and no I/O queue bound by default: {p}");
}

#[test]
fn the_buffer_size_is_checked() {
    use nest_config::{load_str, resolve};
    for (v, want) in [("4KiB", "at least 8 KiB"), ("lots", "nvmeof.target_buffer")] {
        let text = scenario(Some(v), 1.0);
        let e =
            load_str(&text, "t.toml", ".".into(), &[], None).map_err(|e| e.to_string()).and_then(|l| resolve(&l, &text).map(|_| ()).map_err(|e| e.to_string()));
        let e = e.unwrap_err();
        assert!(e.contains("nvmeof.target_buffer") && e.contains(want), "{e}");
    }
}
