use super::*;
use crate::load_str;
use std::path::PathBuf;

const GOOD: &str = r#"
schema = 1
name = "t"
[run]
seed = 7
duration = "10ms"
warmup = "10%"

[[device]]
name = "ssd0"
kind = "ideal"
servers = 4
read = { dist = "exp", mean = "80us" }
write = { dist = "fixed", value = "20us" }

[[workload]]
name = "a"
device = "ssd0"
class = "high"
arrival = { kind = "poisson", rate_iops = 10000 }
size = { dist = "uniform_blocks", min = 5, max = 30 }
read_fraction = 0.7
"#;

fn check(text: &str) -> Result<Resolved, ConfigErrors> {
    let l = load_str(text, "s.toml", PathBuf::from("."), &[], None)?;
    resolve(&l, text)
}

#[test]
fn a_good_scenario_resolves() {
    let r = check(GOOD).unwrap();
    assert_eq!(r.run.seed, 7);
    assert_eq!(r.run.warmup, SimTime::from_ms(1));
    assert_eq!(r.classes.len(), 5);
    assert_eq!(r.workloads[0].class, 1);
    let SourcePlan::Synthetic(s) = &r.workloads[0].source else { panic!() };
    assert_eq!(s.stop, Some(SimTime::from_ms(10)));
}

#[test]
fn unknown_key_names_line_and_key() {
    let text = GOOD.replace("servers = 4", "servers = 4\nserverz = 5");
    let e = check(&text).unwrap_err();
    let s = e.to_string();
    assert!(s.contains("s.toml:"), "{s}");
    assert!(s.contains("serverz"), "{s}");
    assert!(e.0[0].line > 0, "{s}");
}

#[test]
fn wrong_type_and_bad_units_are_located() {
    let e = check(&GOOD.replace("seed = 7", "seed = \"seven\"")).unwrap_err();
    assert_eq!(e.0[0].line, 5, "{e}");
    let e = check(&GOOD.replace("\"80us\"", "\"80 parsecs\"")).unwrap_err();
    assert_eq!(e.0[0].key, "device[0].read.mean");
    assert_eq!(e.0[0].line, 13, "{e}");
    assert!(e.0[0].message.contains("unknown time unit"), "{e}");
}

#[test]
fn every_parse_error_is_reported_in_one_pass_without_follow_ons() {
    // A misspelt key, a wrong type, an unknown variant (in a kind-tagged table) and a misspelt
    // nested key: four errors, each at its own line, in the order of the file.
    let text = GOOD
        .replace("seed = 7", "seed = \"seven\"")
        .replace("duration = \"10ms\"", "duraton = \"10ms\"")
        .replace("kind = \"ideal\"", "kind = \"idael\"")
        .replace("read_fraction = 0.7", "read_fractoin = 0.7");
    let e = check(&text).unwrap_err();
    let lines: Vec<usize> = e.0.iter().map(|x| x.line).collect();
    assert_eq!(lines, [5, 6, 11, 22], "{e}");
    assert!(e.0[0].message.contains("invalid type") && e.0[1].message.contains("did you mean `duration`?"), "{e}");
    assert!(e.0[2].message.contains("did you mean `ideal`?") && e.0[3].message.contains("did you mean `read_fraction`?"), "{e}");
    // Blanking a required key makes "missing field" follow-ons: they are not reported.
    let e = check(&GOOD.replace("name = \"ssd0\"", "name = 5")).unwrap_err();
    assert_eq!(e.0.len(), 1, "{e}");
    assert!(!e.to_string().contains("missing field"), "{e}");
    // A missing field is reported alone: its table's header is never blanked (that would hand
    // the table's keys to the one above and report them as unknown there).
    let e = check(&GOOD.replace("read = { dist = \"exp\", mean = \"80us\" }\n", "")).unwrap_err();
    assert_eq!(e.0.len(), 1, "{e}");
    assert!(e.0[0].message.contains("missing field `read`"), "{e}");
    // A syntax error ends the pass at once.
    let e = check(&format!("{GOOD}\n[run\nseed = 1\n")).unwrap_err();
    assert_eq!(e.0.len(), 1, "{e}");
}

#[test]
fn every_semantic_error_is_collected() {
    let text = GOOD
        .replace("class = \"high\"", "class = \"gold\"")
        .replace("read_fraction = 0.7", "read_fraction = 1.7")
        .replace("rate_iops = 10000", "rate_iops = -1");
    let e = check(&text).unwrap_err();
    let keys: Vec<&str> = e.0.iter().map(|x| x.key.as_str()).collect();
    assert!(keys.contains(&"workload[0].class"), "{e}");
    assert!(keys.contains(&"workload[0].read_fraction"), "{e}");
    assert!(keys.contains(&"workload[0].arrival.rate_iops"), "{e}");
    assert!(e.0.iter().all(|x| x.line > 0), "{e}");
}

#[test]
fn dangling_references_and_missing_files() {
    let text = GOOD.replace("device = \"ssd0\"", "device = \"ssd9\"");
    let e = check(&text).unwrap_err().to_string();
    assert!(e.contains("no device or volume named 'ssd9'") && e.contains("did you mean `ssd0`?"), "{e}");
    // A misspelt class is named with the closest one; a name far from every other gets no guess.
    let e = check(&GOOD.replace("class = \"high\"", "class = \"hihg\"")).unwrap_err().to_string();
    assert!(e.contains("no class named 'hihg'") && e.contains("did you mean `high`?"), "{e}");
    let e = check(&GOOD.replace("device = \"ssd0\"", "device = \"tape-library\"")).unwrap_err().to_string();
    assert!(e.contains("'tape-library'") && !e.contains("did you mean"), "{e}");
    let text = GOOD.replace("arrival = { kind = \"poisson\", rate_iops = 10000 }", "trace = { path = \"/nonexistent/x.csv\", format = \"msr\" }");
    assert!(check(&text).unwrap_err().to_string().contains("does not exist"));
    let text = GOOD.replace("arrival = { kind = \"poisson\", rate_iops = 10000 }", "trace = { path = \"/nonexistent/x.csv\", format = \"csv\" }");
    assert!(check(&text).unwrap_err().to_string().contains("unknown trace format"));
}

#[test]
fn overrides_and_seed() {
    let l = load_str(GOOD, "s.toml", PathBuf::from("."), &["run.duration=\"20ms\"".into(), "workload[0].read_fraction=0.5".into()], Some(99)).unwrap();
    let r = resolve(&l, GOOD).unwrap();
    assert_eq!(r.run.seed, 99);
    assert_eq!(r.run.duration, Some(SimTime::from_ms(20)));
    let e = load_str(GOOD, "s.toml", PathBuf::from("."), &["workload[0].read_fraction=\"x\"".into()], None).unwrap_err();
    assert!(e.to_string().contains("--set workload[0].read_fraction"), "{e}");
    // Of several overrides, the one whose value the error quotes is named; else all are blamed.
    let ovs = ["run.duration=\"20ms\"".into(), "workload[0].read_fraction=\"x\"".into()];
    let e = load_str(GOOD, "s.toml", PathBuf::from("."), &ovs, None).unwrap_err();
    assert!(e.to_string().contains("--set workload[0].read_fraction"), "{e}");
    // A value the override sets that only resolution refuses names the override too, not the
    // file's line it replaced (issue 62, item 8).
    let l = load_str(GOOD, "s.toml", PathBuf::from("."), &["run.duration=abc".into()], None).unwrap();
    let e = resolve(&l, GOOD).unwrap_err().to_string();
    assert!(e.contains("--set run.duration=abc") && e.contains("run.duration: 'abc'"), "{e}");
    assert!(e.lines().next().unwrap().starts_with("s.toml: --set run.duration=abc: "), "no line of the file: {e}");
}

#[test]
fn env_expansion() {
    std::env::set_var("NEST_TEST_DIR_X", "/a/b");
    assert_eq!(expand_env("${NEST_TEST_DIR_X}/c").unwrap(), "/a/b/c");
    assert_eq!(expand_env("${NEST_UNSET_Y:-../shared}/t").unwrap(), "../shared/t");
    assert!(expand_env("${NEST_UNSET_Y}/t").is_err());
    // Other variables are never read into a path (nor, through it, into an error message).
    std::env::set_var("SECRET_TOKEN_X", "hunter2");
    let e = expand_env("${SECRET_TOKEN_X}/t").unwrap_err();
    assert!(e.contains("SECRET_TOKEN_X") && e.contains("only NEST_*") && !e.contains("hunter2"), "{e}");
    let missing = GOOD.replace(
        "arrival = { kind = \"poisson\", rate_iops = 10000 }\nsize = { dist = \"uniform_blocks\", min = 5, max = 30 }\nread_fraction = 0.7",
        "trace = { path = \"${NEST_TEST_DIR_X}/none.csv\", format = \"mqsim\" }",
    );
    let e = check(&missing).unwrap_err().to_string();
    assert!(e.contains("'${NEST_TEST_DIR_X}/none.csv'") && !e.contains("/a/b"), "{e}");
    assert!(e.contains("NEST_TEST_DIR_X is set: check that it names the folder"), "{e}");
    // An unset variable with a default: the error says the default was used and what to set.
    let missing = missing.replace("${NEST_TEST_DIR_X}/none.csv", "${NEST_UNSET_SHARED:-../nowhere}/none.csv");
    let e = check(&missing).unwrap_err().to_string();
    assert!(e.contains("NEST_UNSET_SHARED is not set, so its default '../nowhere' was used") && e.contains("set NEST_UNSET_SHARED to the folder"), "{e}");
}

#[test]
fn random_and_truncated_text_never_panics() {
    let mut rng = nest_core::rng::RngStream::from_seed(13);
    let alphabet = b"=[]{}\",.\n #abcdefghijklmnopqrstuvwxyz0123456789_-";
    for _ in 0..2000 {
        let mut b = GOOD.as_bytes()[..rng.below(GOOD.len() as u64) as usize].to_vec();
        for _ in 0..rng.below(4) {
            if b.is_empty() {
                break;
            }
            let i = rng.below(b.len() as u64) as usize;
            b[i] = alphabet[rng.below(alphabet.len() as u64) as usize];
        }
        let text = String::from_utf8_lossy(&b).into_owned();
        if let Err(e) = check(&text) {
            assert!(!e.0.is_empty());
        }
    }
}

/// GOOD with its device in storage server r0 of a dumbbell and its host on s0.
fn e2e(extra: &str) -> String {
    GOOD.replace("kind = \"ideal\"\n", "kind = \"ideal\"\nserver = \"r0\"\n")
        + "[[host]]\nname = \"host0\"\nnode = \"s0\"\n[network]\ntopology = \"dumbbell\"\nsenders = 2\n"
        + extra
}

#[test]
fn nvmeof_connections_follow_the_workloads() {
    let r = check(&e2e("[nvmeof]\ntransport = \"qtcp\"\nclass_transport = { urgent = \"qrdma\" }\n")).unwrap();
    let p = r.nvmeof.as_ref().expect("a device in a server");
    assert_eq!(p.host_node, vec![Some(0)]);
    assert_eq!(p.device_server, vec![Some(2)]);
    assert_eq!(p.conns.len(), 1, "one host, one server, one class");
    let net = r.network.as_ref().unwrap();
    let (f, b) = (&net.flows[p.conns[0].fwd as usize], &net.flows[p.conns[0].back as usize]);
    assert!(f.messages && b.messages);
    assert_eq!((f.src, f.dst, b.src, b.dst), (0, 2, 2, 0));
    assert_eq!(f.cc, nest_transport::Cc::Qtcp);
    assert_eq!(f.target, Some(nest_transport::Target::Ratio(3.0)), "the high class's ratio");
    assert_eq!(f.name, "nvmeof:s0>r0:high");
    assert!(p.is_remote(0, 0));
}

#[test]
fn qos_layers_follow_ignore_or_remap_the_class() {
    let r = check(&e2e("[qos]\nhost = \"ignore\"\nnvme = { high = \"low\", low = \"high\" }\n")).unwrap();
    let t = &r.tagging;
    assert_eq!(t.host, vec![Priority::BestEffort; 5]);
    assert_eq!(t.nvme[1], Priority::Low);
    assert_eq!(t.nvme[3], Priority::High);
    assert_eq!(t.nvme[2], Priority::Medium, "unmapped classes follow");
    assert_eq!(t.device[1], Priority::High);
    assert!(t.network_urgent[0] && !t.network_urgent[1]);
    let r = check(&e2e("[qos]\nnetwork = \"ignore\"\ntransport = \"ignore\"\n")).unwrap();
    assert!(!r.tagging.network_urgent[0]);
    assert_eq!(r.tagging.transport, vec![None; 5]);
}

#[test]
fn bad_e2e_settings_name_their_key() {
    let cases = [
        (e2e("").replace("server = \"r0\"", "server = \"sw0\""), "device[0].server", "that is a switch"),
        (e2e("").replace("node = \"s0\"", "node = \"nowhere\""), "host[0].node", "no host named 'nowhere'"),
        (e2e("[nvmeof]\ntransport = \"tcp\"\n"), "nvmeof.transport", "not a transport"),
        (e2e("[qos]\nnvme = { gold = \"low\" }\n"), "qos.nvme.gold", "no class named 'gold'"),
        (e2e("[qos]\ndevice = \"sometimes\"\n"), "qos.device", "expected \"follow\""),
        (GOOD.replace("kind = \"ideal\"\n", "kind = \"ideal\"\nserver = \"r0\"\n"), "device[0].server", "needs a [network]"),
        (
            e2e("")
                .replace("node = \"s0\"\n", "")
                .replace("name = \"host0\"", "name = \"laptop\"")
                .replace("[[workload]]\n", "[[workload]]\nhost = \"laptop\"\n"),
            "workload[0].host",
            "not on the network",
        ),
    ];
    for (text, key, msg) in cases {
        let e = check(&text).expect_err(key);
        assert!(e.0.iter().any(|x| x.key == key && x.message.contains(msg)), "{key}: {e}");
    }
}

#[test]
fn split_queues_take_a_write_weight_and_nothing_of_wrr() {
    let ssd = |nvme: &str| {
        GOOD.replace(
            "kind = \"ideal\"\nservers = 4\nread = { dist = \"exp\", mean = \"80us\" }\nwrite = { dist = \"fixed\", value = \"20us\" }",
            &format!("kind = \"ssd\"\npreset = \"mlc\"\nnvme = {{ {nvme} }}"),
        )
    };
    let r = check(&ssd("arbitration = \"ssq\", write_weight = 4")).unwrap();
    let DeviceKindPlan::Ssd(p) = &r.devices[0].kind else { panic!() };
    assert_eq!(p.nvme.split, Some(4));
    let DeviceKindPlan::Ssd(p) = &check(&ssd("arbitration = \"ssq\"")).unwrap().devices[0].kind.clone() else { panic!() };
    assert_eq!(p.nvme.split, Some(1), "w defaults to 1");
    for (nvme, key) in [
        ("arbitration = \"ssq\", write_weight = 0", "write_weight"),
        ("arbitration = \"ssq\", weights = [3, 2, 1]", "weights"),
        ("arbitration = \"wrr\", write_weight = 2", "write_weight"),
        ("arbitration = \"fifo\"", "arbitration"),
    ] {
        let e = check(&ssd(nvme)).unwrap_err().to_string();
        assert!(e.contains(&format!("nvme.{key}")), "{nvme}: {e}");
    }
}

#[test]
fn a_fio_jobs_runtime_ends_no_later_than_the_run() {
    // Issue 63, S5: `runtime = 2147483648ms` hung a 10 ms run; the stock job simulated 100 ms of a
    // 5 ms one. The earliest end wins.
    let dir = std::env::temp_dir().join(format!("nest-fio-runtime-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let job = dir.join("long.fio");
    std::fs::write(&job, "[long]\nrw=randread\nbs=4k\niodepth=4\ntime_based=1\nruntime=2147483648ms\n").unwrap();
    let text = GOOD.replace(
        "arrival = { kind = \"poisson\", rate_iops = 10000 }\nsize = { dist = \"uniform_blocks\", min = 5, max = 30 }\nread_fraction = 0.7",
        &format!("fio = {{ path = \"{}\" }}", job.display()),
    );
    let r = check(&text).unwrap();
    let SourcePlan::Synthetic(spec) = &r.workloads[0].source else { panic!("a fio job is a synthetic source") };
    assert_eq!(spec.stop, Some(SimTime::from_ms(10)), "the run's 10 ms, not the job's 24.9 days");
    std::fs::write(&job, "[short]\nrw=randread\nbs=4k\ntime_based=1\nruntime=3ms\n").unwrap();
    let r = check(&text).unwrap();
    let SourcePlan::Synthetic(spec) = &r.workloads[0].source else { panic!() };
    assert_eq!(spec.stop, Some(SimTime::from_ms(3)), "a runtime shorter than the run ends the job");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_trace_or_fio_workload_refuses_the_synthetic_keys_it_would_ignore() {
    let text = GOOD.replace(
        "arrival = { kind = \"poisson\", rate_iops = 10000 }\nsize = { dist = \"uniform_blocks\", min = 5, max = 30 }\nread_fraction = 0.7",
        "trace = { path = \"t.csv\", format = \"mqsim\" }\nread_fraction = 0.7\nmax_ios = 5",
    );
    let e = check(&text).unwrap_err().to_string();
    assert!(e.contains("workload[0].read_fraction") && e.contains("a trace workload takes its requests from the trace"), "{e}");
    assert!(e.contains("workload[0].max_ios"), "{e}");
    assert!(!e.contains("workload[0].size"), "{e}");
}

#[test]
fn a_run_of_zero_seconds_is_refused() {
    let e = check(&GOOD.replace("duration = \"10ms\"", "duration = \"0s\"")).unwrap_err().to_string();
    assert!(e.contains("run.duration") && e.contains("must be positive"), "{e}");
    let e = check(&GOOD.replace("duration = \"10ms\"", "duration = \"10ms\"\nmax_time = \"0ms\"")).unwrap_err().to_string();
    assert!(e.contains("run.max_time"), "{e}");
    // The clock's horizon: 100 days by default and at most.
    assert_eq!(check(GOOD).unwrap().run.max_time, HORIZON);
    let e = check(&GOOD.replace("duration = \"10ms\"", "duration = \"10ms\"\nmax_time = \"200d\"")).unwrap_err().to_string();
    assert!(e.contains("run.max_time") && e.contains("100 days"), "{e}");
}

#[test]
fn a_switch_without_buffer_is_refused() {
    let net = "[network]\ntopology = \"dumbbell\"\nsenders = 1\nreceivers = 1\nlink_rate = \"10Gbps\"\n[network.switch]\nbuffer = \"0B\"\n";
    let e = check(&format!("{GOOD}{net}")).unwrap_err().to_string();
    assert!(e.contains("network.switch.buffer") && e.contains("at least one packet"), "{e}");
}

#[test]
fn a_switch_buffer_below_one_frame_and_a_link_below_1mbps_are_refused() {
    // Issue 63, S4 and S10: accepted before, each a near-livelock.
    let net = |v: &str| format!("{GOOD}[network]\ntopology = \"dumbbell\"\nsenders = 1\nreceivers = 1\n{v}\n");
    let e = check(&net("[network.switch]\nbuffer = \"1B\"")).unwrap_err().to_string();
    assert!(e.contains("network.switch.buffer") && e.contains("1538 B") && e.contains("got 1 B"), "{e}");
    assert!(check(&net("[network.switch]\nbuffer = \"1538B\"")).is_ok());
    let e = check(&net("link_rate = \"1bps\"")).unwrap_err().to_string();
    assert!(e.contains("network.link_rate") && e.contains("at least 1 Mbps"), "{e}");
    assert!(check(&net("link_rate = \"1Mbps\"")).is_ok());
}

#[test]
fn arrival_and_mmpp_rates_above_one_per_ns_are_refused() {
    // Issue 63, S6 and S7: a source beyond 1e9 per second only fills memory, and an MMPP that
    // switches faster loops inside one event.
    let with = |arrival: &str| GOOD.replace("arrival = { kind = \"poisson\", rate_iops = 10000 }", arrival);
    let e = check(&with("arrival = { kind = \"poisson\", rate_iops = 1e15 }")).unwrap_err().to_string();
    assert!(e.contains("workload[0].arrival.rate_iops") && e.contains("1e9 per second"), "{e}");
    assert!(check(&with("arrival = { kind = \"poisson\", rate_iops = 1e9 }")).is_ok());
    let e = check(&with("arrival = { kind = \"mmpp\", rates = [100.0, 200.0], switch = [1e15, 1e15] }")).unwrap_err().to_string();
    assert!(e.contains("workload[0].arrival.switch"), "{e}");
    let e = check(&with("arrival = { kind = \"mmpp\", rates = [1.0, 1.0], switch = [1e9, 1e9] }")).unwrap_err().to_string();
    assert!(e.contains("workload[0].arrival.switch") && e.contains("per arrival"), "{e}");
    assert!(check(&with("arrival = { kind = \"mmpp\", rates = [1000.0, 9000.0], switch = [50.0, 200.0] }")).is_ok());
    let e = check(&with("arrival = { kind = \"constant\", bandwidth = \"1000Tbps\" }")).unwrap_err().to_string();
    assert!(e.contains("workload[0].arrival.bandwidth"), "{e}");
}

#[test]
fn an_ideal_device_faster_than_1_pbps_is_refused() {
    // Issue 63, S9: a zero service time with a 1e30 GB/s bandwidth hardly let time pass.
    let dev = |bw: &str| {
        GOOD.replace("write = { dist = \"fixed\", value = \"20us\" }", &format!("write = {{ dist = \"fixed\", value = \"0us\" }}\nwrite_bandwidth = \"{bw}\""))
    };
    let e = check(&dev("1e30GB/s")).unwrap_err().to_string();
    assert!(e.contains("device[0].write_bandwidth") && e.contains("at most 1 Pbps"), "{e}");
    assert!(check(&dev("100Gbps")).is_ok());
}

#[test]
fn a_fixed_budget_of_zero_or_a_sub_microsecond_period_is_refused() {
    // Issue 63, S8: neither ever drains.
    let fb = |v: &str| format!("{GOOD}[[coordinator]]\nname = \"cap\"\nkind = \"fixed-budget\"\n{v}\n");
    let e = check(&fb("period = \"1ms\"\nios = 0")).unwrap_err().to_string();
    assert!(e.contains("coordinator[0].ios") && e.contains("at least 1"), "{e}");
    let e = check(&fb("period = \"1ps\"\nios = 2")).unwrap_err().to_string();
    assert!(e.contains("coordinator[0].period") && e.contains("at least 1us"), "{e}");
    assert!(check(&fb("period = \"1us\"\nios = 1")).is_ok());
}

#[test]
fn qtcps_slack_rule_is_named_or_refused() {
    let net = |v: &str| format!("{GOOD}[network]\ntopology = \"dumbbell\"\nsenders = 1\nreceivers = 1\n[network.qtcp]\n{v}\n");
    // SPEC §4: while_congested and a scaled recovery target unless told otherwise.
    let q = check(&net("")).unwrap().network.unwrap().qtcp;
    assert_eq!((q.slack, q.recovery_target, q.epsilon), (nest_transport::Slack::WhileCongested, nest_transport::RecoveryTarget::Scaled, 1e-3));
    let q = check(&net("slack = \"on_mark\"\nrecovery_target = \"kept\"\nepsilon = 0.01")).unwrap().network.unwrap().qtcp;
    assert_eq!((q.slack, q.recovery_target, q.epsilon), (nest_transport::Slack::OnMark, nest_transport::RecoveryTarget::Kept, 0.01));
    let e = check(&net("slack = \"always\"")).unwrap_err().to_string();
    assert!(e.contains("network.qtcp.slack") && e.contains("on_mark or while_congested"), "{e}");
    let e = check(&net("recovery_target = \"pre-cut\"")).unwrap_err().to_string();
    assert!(e.contains("network.qtcp.recovery_target") && e.contains("scaled or kept"), "{e}");
    let e = check(&net("epsilon = 1.5")).unwrap_err().to_string();
    assert!(e.contains("network.qtcp.epsilon"), "{e}");
}

#[test]
fn a_scenario_that_is_not_utf8_is_named_with_the_line_and_column_of_the_bad_byte() {
    let path = std::env::temp_dir().join(format!("nest-nonutf8-{}.toml", std::process::id()));
    std::fs::write(&path, b"schema = 1\n[run]\n# caf\xe9\n").unwrap();
    let e = crate::load_file(&path, &[], None).map(|_| ()).unwrap_err().to_string();
    std::fs::remove_file(&path).ok();
    assert!(e.contains(":3:6:") && e.contains("0xE9") && e.contains("not UTF-8"), "{e}");
}

#[test]
fn scenarios_that_would_hang_are_refused() {
    // A device that serves in zero time: a closed loop on it livelocks at one instant.
    let e = check(&GOOD.replace("write = { dist = \"fixed\", value = \"20us\" }", "write = { dist = \"fixed\", value = \"0us\" }")).unwrap_err().to_string();
    assert!(e.contains("device[0].write") && e.contains("takes no time"), "{e}");
    assert!(
        check(&GOOD.replace("write = { dist = \"fixed\", value = \"20us\" }", "write = { dist = \"fixed\", value = \"0us\" }\nwrite_bandwidth = \"1GB/s\""))
            .is_ok(),
        "a bandwidth bounds it"
    );
    // A sampling interval that would give billions of samples.
    let e = check(&GOOD.replace("warmup = \"10%\"", "warmup = \"10%\"\ninterval = \"1ps\"")).unwrap_err().to_string();
    assert!(e.contains("run.interval") && e.contains("samples per series"), "{e}");
}

/// Found by the mutation test: a 4 GB request on a 512 MiB drive ran off the end of its mapping
/// table (a panic); requests larger than the workload's range are refused at validation.
#[test]
fn requests_larger_than_the_range_are_refused() {
    let text =
        GOOD.replace("size = { dist = \"uniform_blocks\", min = 5, max = 30 }", "size = { dist = \"uniform_blocks\", min = 5, max = 30 }\nrange = \"64KiB\"");
    let e = check(&text).unwrap_err().to_string();
    assert!(e.contains("workload[0].size") && e.contains("do not fit in the workload's range of 65536 B"), "{e}");
    let ok =
        GOOD.replace("size = { dist = \"uniform_blocks\", min = 5, max = 30 }", "size = { dist = \"uniform_blocks\", min = 5, max = 30 }\nrange = \"120KiB\"");
    check(&ok).unwrap();
}

/// A drive whose tables would not fit in the memory limit is refused before it is built, at
/// the key that sizes it. A drive that is not preconditioned is charged what it holds before
/// it is written (its tables grow with the pages written, watched by the run's budget); a
/// preconditioned one what preconditioning fills.
#[test]
fn the_memory_limit_refuses_a_drive_too_large() {
    let text = GOOD.replace(
        "kind = \"ideal\"\nservers = 4\nread = { dist = \"exp\", mean = \"80us\" }\nwrite = { dist = \"fixed\", value = \"20us\" }",
        "kind = \"ssd\"\npreset = \"mlc\"",
    );
    let mut l = load_str(&text, "s.toml", PathBuf::from("."), &[], None).unwrap();
    let (need, full) = match &resolve(&l, &text).unwrap().devices[0].kind {
        crate::resolve::DeviceKindPlan::Ssd(p) => (p.params.memory_bytes_at_start(), p.params.memory_bytes()),
        _ => unreachable!(),
    };
    assert!(need > 1 << 16, "an idle MLC drive's tables take {need} B");
    assert!(need * 100 < full, "idle {need} B vs written {full} B");
    l.memory_limit = Some(need - 1);
    let e = resolve(&l, &text).unwrap_err().to_string();
    // Idle, the DRAM cache's slots are most of it: the key named is the cache's.
    assert!(e.contains("device[0].cache") && e.contains("over the memory limit"), "{e}");
    l.memory_limit = Some(need);
    resolve(&l, &text).unwrap();
    // Preconditioned, the same drive is charged its written tables.
    let pre = text.replace("preset = \"mlc\"", "preset = \"mlc\"\nprecondition = { occupancy = 0.5 }");
    let mut l = load_str(&pre, "s.toml", PathBuf::from("."), &[], None).unwrap();
    l.memory_limit = Some(full - 1);
    let e = resolve(&l, &pre).unwrap_err().to_string();
    assert!(e.contains("device[0].geometry") && e.contains("preconditioned"), "{e}");
}

#[test]
fn drain_limit_defaults_and_checks() {
    let r = check(GOOD).unwrap();
    assert_eq!(r.run.drain_limit, Some(SimTime::from_ms(300_000)), "100 × 10 ms is below the floor: 10 × the 30 s I/O timeout");
    let with = |v: &str| GOOD.replace("duration = \"10ms\"", &format!("duration = \"10ms\"\n{v}"));
    assert_eq!(check(&with("drain_limit = \"3ms\"")).unwrap().run.drain_limit, Some(SimTime::from_ms(3)));
    assert_eq!(check(&with("drain_limit = \"none\"")).unwrap().run.drain_limit, None);
    assert!(check(&with("drain_limit = \"0s\"")).unwrap_err().to_string().contains("run.drain_limit"));
    let e = check(&with("drain = false\ndrain_limit = \"3ms\"")).unwrap_err().to_string();
    assert!(e.contains("run.drain_limit") && e.contains("only with run.drain = true"), "{e}");
}
