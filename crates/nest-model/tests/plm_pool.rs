//! NVM-set pools and PLMC end to end: two PLM replicas take turns in DTWin back to back, reads
//! go to the one in DTWin and writes to both, PLMC allocates at every DTWin, and a host whose
//! allocation does not cover a read either sends it anyway or asks and, refused, reads from the
//! replica in NDWin.

mod common;
use common::{f, run};

fn pool(coord: &str) -> String {
    let mut s = String::from("schema = 1\n[run]\nseed = 3\nduration = \"400ms\"\ndrain = true\n");
    for h in ["high", "low"] {
        s += &format!("[[host]]\nname = \"{h}\"\nqueue_depth = 32\n");
    }
    for d in ["a", "b"] {
        s += &format!(
            r#"[[device]]
name = "{d}"
kind = "ssd"
preset = "mlc"
geometry = {{ channels = 2, chips_per_channel = 2, dies_per_chip = 1, planes_per_die = 2, blocks_per_plane = 64, pages_per_block = 64, page_size = "4KiB" }}
cache = {{ mode = "off" }}
ftl = {{ cmt = "all", overprovisioning = 0.2 }}
precondition = {{ occupancy = 0.5 }}
[device.plm]
t_dw = "40ms"
c_rd = 400
nd_delay_mean = "300us"
"#
        );
    }
    s += "[[volume]]\nname = \"p\"\nlayout = \"replicate\"\ndevices = [\"a\", \"b\"]\nread = \"dt-active\"\n";
    s += coord;
    for (h, rate) in [("high", 4000), ("low", 4000)] {
        s += &format!("[[workload]]\nname = \"{h}\"\nhost = \"{h}\"\ndevice = \"p\"\nclass = \"{h}\"\narrival = {{ kind = \"poisson\", rate_iops = {rate} }}\nsize = {{ dist = \"fixed\", bytes = \"4KiB\" }}\nread_fraction = 0.9\nrange = \"20MiB\"\n");
    }
    s
}

/// The same pool as two NVM sets of one drive (`layout`: channels or shared-dies).
fn pool_in_one_drive(layout: &str) -> String {
    let p = pool("");
    let (head, rest) = p.split_once("[[device]]").unwrap();
    let tail = &rest[rest.find("[[volume]]").unwrap()..];
    let drive = r#"[[device]]
name = "a"
kind = "ssd"
preset = "mlc"
geometry = { channels = 4, chips_per_channel = 2, dies_per_chip = 1, planes_per_die = 2, blocks_per_plane = 64, pages_per_block = 64, page_size = "4KiB" }
cache = { mode = "off" }
ftl = { cmt = "all", overprovisioning = 0.2 }
precondition = { occupancy = 0.5 }
nvm_sets = 2
"#;
    let plm = "[device.plm]\nt_dw = \"40ms\"\nc_rd = 400\nnd_delay_mean = \"300us\"\n";
    let tail = tail.replace("devices = [\"a\", \"b\"]", "devices = [\"a\", \"a\"]\nsets = [0, 1]");
    format!("{head}{drive}nvm_set_layout = \"{layout}\"\n{plm}{tail}")
}

#[test]
fn a_pool_of_two_sets_of_one_drive_takes_turns_and_shares_its_dies_only_when_asked() {
    let mut programs = Vec::new();
    for layout in ["channels", "shared-dies"] {
        let (s, _) = run(&pool_in_one_drive(layout));
        assert!(f(&s, "pools.p.windows") >= 10.0, "{layout}");
        assert_eq!(f(&s, "pools.p.reads_nd") + f(&s, "pools.p.reads_gap"), 0.0, "{layout}");
        let set = |i: u32, k: &str| f(&s, &format!("devices.a.ssd.plm.sets.{i}.{k}"));
        assert_eq!(set(0, "ndwin.reads") + set(1, "ndwin.reads"), 0.0, "{layout}: reads go to the set in DTWin");
        assert_eq!(set(0, "dtwin.reads") + set(1, "dtwin.reads"), f(&s, "workloads.high.read.ios") + f(&s, "workloads.low.read.ios"));
        // Both copies take every write, each in its own address range (the drive holds two).
        assert_eq!(set(0, "dtwin.writes") + set(0, "ndwin.writes"), set(1, "dtwin.writes") + set(1, "ndwin.writes"), "{layout}");
        assert!((set(0, "dtwin.count") - set(1, "dtwin.count")).abs() <= 1.0, "{layout}");
        programs.push(set(0, "programs_in_dtwin") + set(1, "programs_in_dtwin"));
    }
    // Own channels: nothing programs on a set's dies in its DTWin (no hard GC at half full).
    // Shared dies: the other copy's NDWin flushes program on them — the contention PLMC's
    // single MQSim drive had (SPEC §13.6).
    assert_eq!(programs[0], 0.0);
    assert!(programs[1] > 100.0, "{programs:?}");
}

#[test]
fn a_volume_member_set_must_exist_and_a_pool_member_set_must_have_plm() {
    let bad = pool_in_one_drive("shared-dies").replace("sets = [0, 1]", "sets = [0, 2]");
    let e = common::refused(&bad);
    assert!(e.contains("volume[0].sets[1]") && e.contains("below its 2 NVM sets"), "{e}");
    let no_plm = pool_in_one_drive("shared-dies").replace("nd_delay_mean = \"300us\"\n", "nd_delay_mean = \"300us\"\nsets = [0]\n");
    let e = common::refused(&no_plm);
    assert!(e.contains("set 1 has no PLM"), "{e}");
    let twice = pool_in_one_drive("shared-dies").replace("sets = [0, 1]", "sets = [1, 1]");
    assert!(common::refused(&twice).contains("set 1 appears twice"));
}

const PLMC: &str = "[[coordinator]]\nname = \"c\"\nkind = \"plmc\"\npool = \"p\"\nhosts = [\"high\", \"low\"]\n";

#[test]
fn replicas_take_turns_back_to_back_and_reads_follow_the_dtwin() {
    let (s, _) = run(&pool(""));
    let windows = f(&s, "pools.p.windows");
    // 400 ms of 40 ms DTWins (a read budget of 400 may end some early): at least 10 windows.
    assert!(windows >= 10.0, "{windows} windows");
    assert_eq!(f(&s, "pools.p.reads_gap"), 0.0, "NDWin minimums are short: no gap between turns");
    assert_eq!(f(&s, "pools.p.reads_nd"), 0.0, "no PLMC: every read goes to the DT-active replica");
    let sets = |d: &str, k: &str| f(&s, &format!("devices.{d}.ssd.plm.sets.0.{k}"));
    // Reads are served in DTWins only; both replicas take every write.
    assert_eq!(sets("a", "ndwin.reads") + sets("b", "ndwin.reads"), 0.0);
    assert_eq!(sets("a", "dtwin.reads") + sets("b", "dtwin.reads"), f(&s, "workloads.high.read.ios") + f(&s, "workloads.low.read.ios"));
    assert_eq!(sets("a", "dtwin.writes") + sets("a", "ndwin.writes"), sets("b", "dtwin.writes") + sets("b", "ndwin.writes"));
    // The turns alternate: the replicas' DTWin counts differ by at most one.
    assert!((sets("a", "dtwin.count") - sets("b", "dtwin.count")).abs() <= 1.0);
    assert_eq!(sets("a", "overruns") + sets("b", "overruns"), 0.0, "a pool's members never overrun");
}

#[test]
fn plmc_allocates_every_dtwin_and_reports_per_host_windows() {
    let (s, _) = run(&pool(PLMC));
    assert_eq!(f(&s, "coordinators.c.report.windows"), f(&s, "pools.p.windows"), "one allocation per DTWin");
    for h in ["high", "low"] {
        let k = |m: &str| f(&s, &format!("coordinators.c.per_host.{h}.{m}"));
        assert!(k("used") <= k("allocated") && k("used") <= k("demand"));
        assert!(k("utilization_p10") <= k("utilization_p50") && k("utilization_p50") <= k("utilization_p90"));
        assert!(k("utilization_p90") <= 1.0 && k("deficiency_p10") >= 0.0);
        assert!(k("p90_us_p50") > 10.0, "a flash read takes tens of µs");
        assert_eq!(k("refused"), 0.0, "send: nothing is refused");
    }
    assert_eq!(f(&s, "pools.p.reads_nd"), 0.0, "send: over-allocation reads go to the DT-active replica");
}

#[test]
fn asked_for_counts_come_from_the_unallocated_ones_and_refused_reads_go_to_ndwin() {
    // PLMC hands out 200 counts a window (below the demand, ~144 per host): minimums of 90
    // each and the residue by fixed ratio leave nothing free to grant, so every overrun is
    // refused and served by the replica in NDWin.
    let coord = format!("{PLMC}overrun = \"ask\"\npolicy = \"fixed-ratio\"\ncounts = 200\nc_min = [90, 90]\n");
    let (s, _) = run(&pool(&coord));
    let refused = f(&s, "coordinators.c.per_host.high.refused") + f(&s, "coordinators.c.per_host.low.refused");
    assert!(refused > 0.0);
    assert_eq!(f(&s, "coordinators.c.per_host.high.granted") + f(&s, "coordinators.c.per_host.low.granted"), 0.0);
    assert_eq!(f(&s, "pools.p.reads_nd"), refused, "each refused read is served by a replica in NDWin");
    let nd_reads = f(&s, "devices.a.ssd.plm.sets.0.ndwin.reads") + f(&s, "devices.b.ssd.plm.sets.0.ndwin.reads");
    assert_eq!(nd_reads, refused);
}

#[test]
fn hod_allocates_exactly_what_each_window_brings() {
    // The demand (~144 reads per host per 40 ms) fits in C = 400: HoD allocates each host its
    // exact demand, so every allocated count is used and none is missing.
    let (s, _) = run(&pool(&format!("{PLMC}predictor = \"hod\"\n")));
    assert_eq!(s["coordinators"]["c"]["params"]["predictor"], "hod");
    for h in ["high", "low"] {
        let k = |m: &str| f(&s, &format!("coordinators.c.per_host.{h}.{m}"));
        assert_eq!(k("utilization_p10"), 1.0, "{h}");
        assert_eq!(k("deficiency_p90"), 0.0, "{h}");
        assert_eq!(k("overruns"), 0.0, "{h}");
    }
    // CoD on the same arrivals predicts, so it misses some windows.
    let (c, _) = run(&pool(PLMC));
    assert!(f(&c, "coordinators.c.per_host.high.utilization_p10") < 1.0);
}

/// The same pool in a storage server (r0) behind a 10 Gb/s dumbbell, the hosts as s0 and s1.
fn on_fabric(text: &str) -> String {
    text.replace("[[host]]\nname = \"high\"", "[[host]]\nname = \"s0\"")
        .replace("[[host]]\nname = \"low\"", "[[host]]\nname = \"s1\"")
        .replace("host = \"high\"", "host = \"s0\"")
        .replace("host = \"low\"", "host = \"s1\"")
        .replace("hosts = [\"high\", \"low\"]", "hosts = [\"s0\", \"s1\"]")
        .replace("preset = \"mlc\"", "preset = \"mlc\"\nserver = \"r0\"")
        .replacen("[[host]]", "[network]\ntopology = \"dumbbell\"\nsenders = 2\nreceivers = 1\nlink_rate = \"10Gbps\"\nlink_delay = \"5us\"\n[[host]]", 1)
}

#[test]
fn over_the_fabric_plmc_talks_to_its_hosts_in_messages_that_take_time() {
    let coord = format!("{PLMC}overrun = \"ask\"\n");
    let (net, sim) = run(&on_fabric(&pool(&coord)));
    sim.check_conservation().unwrap();
    let c = &net["coordinators"]["c"];
    assert_eq!((c["params"]["messages"].as_str(), c["params"]["server"].as_str()), (Some("network"), Some("r0")));
    let (sent, received) = (f(&net, "coordinators.c.messages.sent"), f(&net, "coordinators.c.messages.received"));
    // Per window: a close and a report per host, then an allocation each; plus the asks and
    // their answers.
    let windows = f(&net, "coordinators.c.report.windows");
    let asks = f(&net, "coordinators.c.per_host.s0.overruns") + f(&net, "coordinators.c.per_host.s1.overruns");
    assert!(asks > 0.0);
    assert!(
        sent >= 6.0 * (windows - 1.0) + 2.0 + 2.0 * asks - 6.0 && received <= sent && received >= sent - 6.0,
        "{sent} sent, {received} received, {windows} windows, {asks} asks"
    );
    // One way: two 5 µs links, serialisation and whatever data is queued ahead on the channel.
    let mean = f(&net, "coordinators.c.messages.mean_delay_us");
    assert!(mean > 10.0 && mean < 1000.0, "mean delay {mean} µs");
    assert!(f(&net, "coordinators.c.messages.max_delay_us") >= mean);
    // Every ask was answered: a granted read went to the DT-active replica, a refused one to
    // NDWin; nothing is left held.
    let refused = f(&net, "coordinators.c.per_host.s0.refused") + f(&net, "coordinators.c.per_host.s1.refused");
    let granted = f(&net, "coordinators.c.per_host.s0.granted") + f(&net, "coordinators.c.per_host.s1.granted");
    assert_eq!(granted + refused, asks);
    assert_eq!(f(&net, "pools.p.reads_nd"), refused);

    // The same run with messages that take no time exchanges none on the fabric, and its
    // hosts are never without counts, so fewer reads overrun.
    let (instant, sim) = run(&on_fabric(&pool(&format!("{coord}messages = \"instant\"\n"))));
    sim.check_conservation().unwrap();
    assert_eq!(instant["coordinators"]["c"]["params"]["messages"], "instant");
    assert!(instant["coordinators"]["c"].get("messages").is_none());
    assert_eq!(f(&instant, "coordinators.c.report.windows"), windows, "the pool's turns do not depend on PLMC");
    assert_eq!(f(&instant, "coordinators.c.report.unallocated_windows"), 0.0);
}

#[test]
fn plmc_on_the_network_needs_a_storage_server() {
    let text = pool(&format!("{PLMC}messages = \"network\"\n"));
    let l = nest_config::load_str(&text, "t.toml", std::path::PathBuf::from("."), &[], None).unwrap();
    let e = nest_config::resolve(&l, &text).expect_err("refused").to_string();
    assert!(e.contains("coordinator[0].messages") && e.contains("not in a storage server"), "{e}");
}
