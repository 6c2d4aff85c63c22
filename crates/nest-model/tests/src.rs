//! SRC at a storage target (docs/src.md): the controller acts on the DCQCN rate changes of the
//! target's channels and sets the write weight of its SSD's split SQs; nothing is lost; its
//! configuration is checked.

mod common;
use common::{f, run};
use std::path::PathBuf;

/// A model of the read throughput falling with w (1.2, 0.6, 0.4, 0.3 GB/s at w = 1, 2, 3, ≥ 4),
/// whatever Ch: a tree splitting on w only.
const MODEL: &str = r#"{"format":"nestsim-tpm","version":1,"model":"decision_tree","features":["read_share","scv_size_read","scv_size_write","scv_gap_read","scv_gap_write","speed_read","speed_write","w"],"outputs":["read_Bps","write_Bps"],"w_max":8,"trees":[{"feature":[7,-2,7,-2,7,-2,-2],"threshold":[1.5,-2,2.5,-2,3.5,-2,-2],"left":[1,-1,3,-1,5,-1,-1],"right":[2,-1,4,-1,6,-1,-1],"value":[[0,0],[1.2e9,1e8],[0,0],[0.6e9,2e8],[0,0],[0.4e9,3e8],[0.3e9,4e8]]}]}"#;

/// A model file of its own for each call: tests run on threads of one process, and a shared
/// file was rewritten by one test while another read it (a flaky "EOF while parsing"). In
/// cargo's scratch directory for integration tests, not the system's: each run left a dozen
/// directories in /tmp.
fn model_file(name: &str, text: &str) -> PathBuf {
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("nest-src-test-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// One initiator (s0) reading and writing 64 KiB over DCQCN on three storage servers, each an
/// SSD behind split SQs, at more than its 10 Gb/s link carries back: the read data converges on
/// the initiator's port, which marks, so CNPs reach the servers' channels.
fn incast(coord: &str) -> String {
    common::dcqcn_incast(
        |r| {
            format!("[[device]]\nname = \"d{r}\"\nkind = \"ssd\"\npreset = \"ssd-a\"\nserver = \"{r}\"\nnvme = {{ arbitration = \"ssq\" }}\n")
                + &format!("[[workload]]\nname = \"w{r}\"\nhost = \"s0\"\ndevice = \"d{r}\"\nclass = \"high\"\narrival = {{ kind = \"poisson\", bandwidth = \"6Gbps\" }}\nsize = {{ dist = \"fixed\", bytes = \"64KiB\" }}\nread_fraction = 0.7\n")
        },
        coord,
    )
}

fn src(extra: &str) -> String {
    let m = model_file("model.json", MODEL);
    format!("[[coordinator]]\nname = \"src\"\nkind = \"src\"\ndevice = \"dr0\"\nmodel = \"{}\"\n{extra}", m.display())
}

#[test]
fn the_controller_sets_the_weight_algorithm_1_picks_on_each_rate_change() {
    let (s, sim) = run(&incast(&src("")));
    sim.check_conservation().unwrap();
    let c = &s["coordinators"]["src"];
    let r = &c["report"];
    assert_eq!((c["params"]["w_max"].as_f64(), c["params"]["watched_channels"].as_f64()), (Some(8.0), Some(1.0)), "the model's w_max; one connection");
    // Only dr0's commands are monitored.
    assert_eq!(f(r, "commands_seen"), f(&s, "workloads.wr0.all.ios"));
    // Every CNP on r0's channel back to s0 is a rate cut and a pause.
    let cnps: f64 = s["network"]["flows"].as_object().unwrap().values().filter(|fl| fl["src"] == "r0" && fl["dst"] == "s0").map(|fl| f(fl, "cnps")).sum();
    assert!(cnps > 10.0, "the incast marks: {cnps} CNPs");
    assert_eq!((f(r, "rate_cuts"), f(r, "pauses")), (cnps, cnps + f(r, "pfc_pauses")));
    assert_eq!(f(r, "rate_events"), f(r, "rate_cuts") + f(r, "rate_raises"));
    // Cut below 9.6 Gb/s the model's reads at w = 1 are above the demand: w rises; raised back
    // to line rate it returns to 1.
    assert!(f(r, "weight_changes") >= 2.0 && f(r, "max_w") >= 3.0, "cuts reach 0.4 GB/s (w = 3) at least: {r}");
    assert!(f(r, "mean_w") > 1.0 && f(r, "mean_w") <= f(r, "max_w"));
    assert_eq!(f(&s, "devices.dr0.ssd.ssq_write_weight"), f(r, "final_w"), "the device runs at the weight last set");
    assert_eq!(f(&s, "devices.dr1.ssd.ssq_write_weight"), 1.0, "other devices keep theirs");
    let names = sim.series_names();
    for m in nest_qos::rate_control::controller::SERIES {
        assert!(names.iter().any(|(e, n)| e == "router:r0" && n == m), "router:r0 {m} in {names:?}");
    }
    // Without the controller the same run keeps w = 1 throughout.
    let (plain, _) = run(&incast(""));
    assert_eq!(f(&plain, "devices.dr0.ssd.ssq_write_weight"), 1.0);
    assert!(plain.get("coordinators").is_none());
}

#[test]
fn a_demand_no_weight_reaches_keeps_the_search_within_w_max() {
    let (s, _) = run(&incast(&src("w_max = 2\ntau = 0.5\ndelta = \"5ms\"\n")));
    let r = &s["coordinators"]["src"]["report"];
    assert_eq!(f(r, "max_w"), 2.0, "{r}");
    assert_eq!(s["coordinators"]["src"]["params"]["delta_ms"].as_f64(), Some(5.0));
}

#[test]
fn synthetic_events_run_algorithm_1_at_their_times() {
    // Demands of 2 and 40 Gb/s at 5 and 15 ms: the model's reads at w = 1 (9.6 Gb/s) are above
    // the first (w = 4: 2.4 Gb/s is closest) and below the second (w = 1).
    let (s, _) = run(&incast(&src("events = [[\"5ms\", \"2Gbps\"], [\"15ms\", \"40Gbps\"]]\n")));
    let c = &s["coordinators"]["src"];
    assert_eq!(c["params"]["events_ms_gbps"], serde_json::json!([[5.0, 2.0], [15.0, 40.0]]));
    assert_eq!(f(&c["report"], "synthetic_events"), 2.0);
    assert!(f(&c["report"], "max_w") >= 4.0, "{}", c["report"]);
}

#[test]
fn an_observing_src_counts_on_the_default_arbitration_and_sets_no_weight() {
    // The paper's DCQCN-only baseline: the drives keep the NVMe default arbitration.
    let text = incast(&src("observe = true\n")).replace("nvme = { arbitration = \"ssq\" }\n", "");
    let (s, sim) = run(&text);
    sim.check_conservation().unwrap();
    let c = &s["coordinators"]["src"];
    let r = &c["report"];
    assert!(f(r, "pauses") > 10.0, "it counts the congestion: {r}");
    assert_eq!((f(r, "weight_changes"), f(r, "max_w"), f(&c["params"], "w_max")), (0.0, 1.0, 1.0), "{r}");
    let e = common::refused(&incast(&src("observe = true\nw_max = 4\n")));
    assert!(e.contains("coordinator[0].w_max") && e.contains("sets no weight"), "{e}");
}

#[test]
fn src_sections_are_checked() {
    use nest_config::{load_str, resolve};
    let err = |text: &str| load_str(text, "t.toml", ".".into(), &[], None).and_then(|l| resolve(&l, text)).map(|_| ()).unwrap_err().to_string();
    // A key of another kind is refused as the file is read, naming it.
    let e = err(&incast("[[coordinator]]\nname = \"src\"\nkind = \"src\"\ndevice = \"x\"\ntau = 2.0\ncounts = 3\n"));
    assert!(e.contains("coordinator[0].counts") && e.contains("unknown field `counts`"), "{e}");
    let e = err(&incast("[[coordinator]]\nname = \"src\"\nkind = \"src\"\ndevice = \"x\"\ntau = 2.0\n"));
    assert!(e.contains("coordinator[0].device") && e.contains("no device named 'x'"), "{e}");
    let e = err(&incast("[[coordinator]]\nname = \"src\"\nkind = \"src\"\ndevice = \"dr0\"\ntau = 2.0\n"));
    assert!(e.contains("coordinator[0].model") && e.contains("src needs model"), "{e}");
    assert!(e.contains("coordinator[0].tau") && e.contains("(0, 1)"), "{e}");
    // A bad model file is a configuration error naming the file and what is wrong.
    let bad = model_file("bad.json", &MODEL.replace("\"version\":1", "\"version\":9"));
    let e = err(&incast(&format!("[[coordinator]]\nname = \"src\"\nkind = \"src\"\ndevice = \"dr0\"\nmodel = \"{}\"\n", bad.display())));
    assert!(e.contains("coordinator[0].model") && e.contains("bad.json") && e.contains("version 9"), "{e}");
    // A device without split SQs has no write weight to set.
    let e = err(&incast(&src("")).replacen("nvme = { arbitration = \"ssq\" }\n", "", 1));
    assert!(e.contains("coordinator[0].device") && e.contains("does not arbitrate by split SQs"), "{e}");
    // Synthetic events: in time order, positive rates.
    let e = err(&incast(&src("events = [[\"5ms\", \"2Gbps\"], [\"1ms\", \"2Gbps\"], [\"6ms\", \"0Gbps\"], [\"7ms\", \"fast\"]]\n")));
    assert!(e.contains("coordinator[0].events[1][0]") && e.contains("time order"), "{e}");
    assert!(e.contains("coordinator[0].events[2][1]") && e.contains("positive"), "{e}");
    assert!(e.contains("coordinator[0].events[3][1]"), "{e}");
    // One agent per storage server.
    let twice = incast(&(src("") + &src("").replace("name = \"src\"", "name = \"src2\"")));
    let e = err(&twice);
    assert!(e.contains("coordinator[1].device") && e.contains("one plmlight or src per server"), "{e}");
}

/// The incast with a second SSD in r0 (`dr0b`, read-light): r0 is a target with an array.
fn array_incast(coord: &str) -> String {
    common::dcqcn_incast(
        |r| {
            let one = |d: &str, rf: f64| {
                format!("[[device]]\nname = \"{d}\"\nkind = \"ssd\"\npreset = \"ssd-a\"\nserver = \"{r}\"\nnvme = {{ arbitration = \"ssq\" }}\n")
                    + &format!("[[workload]]\nname = \"w{d}\"\nhost = \"s0\"\ndevice = \"{d}\"\nclass = \"high\"\narrival = {{ kind = \"poisson\", bandwidth = \"6Gbps\" }}\nsize = {{ dist = \"fixed\", bytes = \"64KiB\" }}\nread_fraction = {rf}\n")
            };
            let mut t = one(&format!("d{r}"), 0.7);
            if r == "r0" {
                t += &one("dr0b", 0.3);
            }
            t
        },
        coord,
    )
}

#[test]
fn an_array_at_one_target_gets_a_weight_per_drive() {
    let m = model_file("model.json", MODEL);
    let coord = format!("[[coordinator]]\nname = \"src\"\nkind = \"src\"\ndevices = [\"dr0\", \"dr0b\"]\nmodel = \"{}\"\n", m.display());
    let (s, sim) = run(&array_incast(&coord));
    sim.check_conservation().unwrap();
    let c = &s["coordinators"]["src"];
    let r = &c["report"];
    assert_eq!(c["params"]["devices"], serde_json::json!(["dr0", "dr0b"]));
    assert_eq!(f(r, "devices"), 2.0);
    assert_eq!(f(r, "commands_seen"), f(&s, "workloads.wdr0.all.ios") + f(&s, "workloads.wdr0b.all.ios"), "both drives' commands are monitored");
    assert!(f(r, "rate_cuts") > 10.0 && f(r, "weight_changes") >= 2.0, "{r}");
    let (w0, w1) = (f(&s, "devices.dr0.ssd.ssq_write_weight"), f(&s, "devices.dr0b.ssd.ssq_write_weight"));
    assert_eq!((w0 + w1) / 2.0, f(r, "final_w"), "final_w is the drives' mean");
    assert!(f(r, "max_w") >= w0.max(w1));
    assert_eq!(f(&s, "devices.dr1.ssd.ssq_write_weight"), 1.0, "another target's drive keeps its weight");
}

#[test]
fn an_array_is_checked() {
    use nest_config::{load_str, resolve};
    let err = |text: &str| load_str(text, "t.toml", ".".into(), &[], None).and_then(|l| resolve(&l, text)).map(|_| ()).unwrap_err().to_string();
    let m = model_file("model.json", MODEL);
    let c = |keys: &str| format!("[[coordinator]]\nname = \"src\"\nkind = \"src\"\nmodel = \"{}\"\n{keys}", m.display());
    let e = err(&array_incast(&c("devices = [\"dr0\", \"dr1\"]\n")));
    assert!(e.contains("coordinator[0].devices[1]") && e.contains("another storage server"), "{e}");
    let e = err(&array_incast(&c("devices = [\"dr0\", \"dr0\", \"nope\"]\n")));
    assert!(e.contains("coordinator[0].devices[1]") && e.contains("listed twice"), "{e}");
    assert!(e.contains("coordinator[0].devices[2]") && e.contains("no device named 'nope'"), "{e}");
    let e = err(&array_incast(&c("device = \"dr0\"\ndevices = [\"dr0b\"]\n")));
    assert!(e.contains("coordinator[0].devices") && e.contains("not both"), "{e}");
    let e = err(&array_incast("[[coordinator]]\nname = \"b\"\nkind = \"fixed-budget\"\nperiod = \"1ms\"\nios = 4\ndevices = [\"dr0\"]\n"));
    assert!(e.contains("coordinator[0].devices") && e.contains("unknown field `devices`"), "{e}");
}

#[test]
fn a_shipped_model_is_named_by_its_preset() {
    let coord = |m: &str| format!("[[coordinator]]\nname = \"src\"\nkind = \"src\"\ndevice = \"dr0\"\nmodel = \"{m}\"\n");
    let (s, sim) = run(&incast(&coord("shipped:ssd-a")));
    sim.check_conservation().unwrap();
    let p = &s["coordinators"]["src"]["params"];
    assert_eq!((p["model"].as_str(), p["model_kind"].as_str()), (Some("shipped:ssd-a"), Some("random_forest")));
    assert!(f(p, "model_trees") >= 10.0, "{p}");
    use nest_config::{load_str, resolve};
    let text = incast(&coord("shipped:ssd-z"));
    let l = load_str(&text, "t.toml", ".".into(), &[], None).unwrap();
    let e = resolve(&l, &text).unwrap_err().to_string();
    assert!(e.contains("coordinator[0].model") && e.contains("no model is shipped for 'ssd-z'") && e.contains("ssd-a"), "{e}");
}
