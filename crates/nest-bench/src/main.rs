//! `make bench`: engine micro-benchmarks and storage replay on the ideal device.
//!
//! Every figure is per CPU second of this process (`CLOCK_PROCESS_CPUTIME_ID`): the machine is
//! shared and wall time is noisy. Results are recorded by hand in BENCHMARKS.md with the date.

use nest_config::{load_str, resolve};
use nest_core::queue::{CalendarQueue, PendingEvents, QuadHeap, RadixHeap, StdHeap};
use nest_core::rng::RngStream;
use nest_core::SimTime;
use nest_model::Simulation;
use std::io::Write;
use std::path::PathBuf;

fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY-free alternative does not exist in std; this is the bench binary only.
    #[allow(unsafe_code)]
    unsafe {
        libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts);
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// The classic "hold" model: pop the earliest event, schedule one at now + U(1, 1 ms).
/// The hold model: `pending` events, each pop schedules one more a uniform `1..=span` ps later.
fn hold<Q: PendingEvents<u32>>(mut q: Q, pending: u64, events: u64, span: u64) -> f64 {
    let mut rng = RngStream::from_seed(1);
    for i in 0..pending {
        q.schedule(SimTime(rng.below(span)), i as u32);
    }
    let t0 = cpu_seconds();
    let mut sink = 0u64;
    for _ in 0..events {
        let (now, e) = q.pop().expect("hold keeps the queue full");
        sink = sink.wrapping_add(e as u64);
        q.schedule(SimTime(now.0 + 1 + rng.below(span)), e);
    }
    std::hint::black_box(sink);
    events as f64 / (cpu_seconds() - t0)
}

fn run_scenario(text: &str) -> (f64, u64, u64, f64) {
    let l = load_str(text, "bench.toml", PathBuf::from("."), &[], None).expect("bench scenario loads");
    let r = resolve(&l, text).expect("bench scenario resolves");
    let t0 = cpu_seconds();
    let mut sim = Simulation::new(r).expect("bench scenario builds");
    let setup = cpu_seconds() - t0;
    if setup > 0.05 {
        println!("  (set-up, incl. SSD preconditioning: {setup:.3} CPU-s, not counted below)");
    }
    let t1 = cpu_seconds();
    sim.run().expect("bench scenario runs");
    let cpu = cpu_seconds() - t1;
    sim.check_conservation().expect("conservation holds");
    (cpu, sim.events(), sim.completed(), sim.now().as_secs_f64())
}

/// CPU seconds per event of the bare event queue (the hold model: calendar queue, 1,000 pending,
/// delays ≤ 1 ms), measured once in this process: each run's cost per event is stated against it
/// (issue 64), so the ratio is of figures taken in the same minutes.
static BARE_QUEUE: std::sync::OnceLock<f64> = std::sync::OnceLock::new();

fn bare_queue() -> f64 {
    *BARE_QUEUE.get_or_init(|| {
        let n = 5_000_000;
        1.0 / hold(CalendarQueue::new(), 1_000, n, 1_000_000_000)
    })
}

/// A run's CPU time per event against the bare queue's.
fn per_event(cpu: f64, events: u64) -> String {
    format!("{:>5.1}× the bare queue per event", cpu / events.max(1) as f64 / bare_queue())
}

fn report(name: &str, cpu: f64, events: u64, ios: u64, sim_s: f64) {
    println!(
        "{name:<44} {cpu:>7.3} CPU-s  {:>7.2} M events/CPU-s  {:>7.2} M I/Os/CPU-s  {}  ({} events, {} I/Os, {:.3} s simulated)",
        events as f64 / cpu / 1e6,
        ios as f64 / cpu / 1e6,
        per_event(cpu, events),
        events,
        ios,
        sim_s
    );
}

/// `nest-bench run FILE.toml`: runs one scenario and prints its summary (for quick studies).
fn run_file(path: &str) {
    let text = std::fs::read_to_string(path).expect("scenario file readable");
    let l = load_str(&text, path, PathBuf::from(path).parent().unwrap_or(std::path::Path::new(".")).to_path_buf(), &[], None).unwrap_or_else(|e| panic!("{e}"));
    let r = resolve(&l, &text).unwrap_or_else(|e| panic!("{e}"));
    let t0 = cpu_seconds();
    let mut sim = Simulation::new(r).expect("builds");
    let t1 = cpu_seconds();
    // Steps and drains as the Python runner does (its CHUNK_EVENTS), so that outputs cost what
    // they cost in a user's run: the columns are built, then dropped here instead of written.
    let (mut requests, mut rows) = (0usize, 0usize);
    loop {
        let state = sim.step(500_000).expect("runs");
        requests += sim.drain_requests().len();
        rows += sim.drain_series().time_s.len();
        if state != nest_model::StepState::Running {
            break;
        }
    }
    let cpu = cpu_seconds() - t1;
    let t2 = cpu_seconds();
    let mut s = sim.summary();
    let t3 = cpu_seconds();
    s.as_object_mut().unwrap().remove("config");
    let text = serde_json::to_string_pretty(&s).unwrap();
    let t4 = cpu_seconds();
    println!("{text}");
    eprintln!(
        "{cpu:.3} CPU-s (set-up {:.3} more), {} events, {} I/Os; drained {requests} request rows, {rows} series rows",
        t1 - t0,
        sim.events(),
        sim.completed()
    );
    eprintln!("summary: built in {:.3} CPU-s, written as JSON text in {:.3}", t3 - t2, t4 - t3);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 3 && args[1] == "run" {
        return run_file(&args[2]);
    }
    let quick = std::env::args().any(|a| a == "--quick");
    if args.get(1).is_some_and(|a| a == "cache") {
        return host_cache(quick);
    }
    if args.get(1).is_some_and(|a| a == "haechi") {
        return haechi(quick);
    }
    if args.get(1).is_some_and(|a| a == "src") {
        return src_incast(quick);
    }
    let n: u64 = if quick { 2_000_000 } else { 20_000_000 };
    println!("== event queue, hold model ({n} events; events per CPU second) ==");
    // Delays up to 1 ms (timers, flash) and up to 2 µs (packet events on 10–100 Gb/s links).
    for (span, what) in [(1_000_000_000u64, "delays ≤ 1 ms"), (2_000_000, "delays ≤ 2 µs")] {
        for pending in [16u64, 1_000, 100_000] {
            let c = hold(CalendarQueue::new(), pending, n, span);
            // The calendar as storage-only runs size it (65 ns slots, 1.07 ms ahead).
            let w = hold(CalendarQueue::with_slot_bits(1024, nest_core::queue::STORAGE_SLOT_BITS), pending, n, span);
            let q = hold(QuadHeap::new(), pending, n, span);
            let s = hold(StdHeap::default(), pending, n, span);
            let r = hold(RadixHeap::default(), pending, n, span);
            println!("{what}, pending {pending:>7}:  calendar {:>6.1} M/s   (65 ns slots {:>6.1})   quad-heap {:>6.1} M/s   std BinaryHeap {:>6.1} M/s   radix {:>6.1} M/s", c / 1e6, w / 1e6, q / 1e6, s / 1e6, r / 1e6);
        }
    }

    println!("the bare queue each run below is set against: {:.1} ns per event (calendar queue, hold model, 1,000 pending, delays ≤ 1 ms)", bare_queue() * 1e9);

    println!("\n== storage on the ideal device (request path: workload → host → device → completion) ==");
    let ideal = |servers: u32| {
        format!(
        "[[device]]\nname = \"d\"\nkind = \"ideal\"\nservers = {servers}\nread = {{ dist = \"fixed\", value = \"10us\" }}\nwrite = {{ dist = \"fixed\", value = \"10us\" }}\n"
    )
    };
    // 1) synthetic open loop, per-request output off (engine cost only).
    let dur = if quick { "200ms" } else { "2s" };
    let text = format!(
        "schema = 1\n[run]\nduration = \"{dur}\"\n[output]\nrequests = false\ntimeseries = false\n{}\n[[workload]]\nname = \"w\"\ndevice = \"d\"\narrival = {{ kind = \"poisson\", rate_iops = 2000000 }}\nread_fraction = 0.7\n",
        ideal(64)
    );
    let (cpu, ev, ios, s) = run_scenario(&text);
    report("poisson 2M IOPS, 4 KiB 70/30, 64 servers", cpu, ev, ios, s);

    // 2) trace replay: a DiskSim-format trace written to a temp file, streamed back.
    let records: u64 = if quick { 300_000 } else { 3_000_000 };
    let path = std::env::temp_dir().join(format!("nest-bench-{}.trace", std::process::id()));
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("temp file"));
        let mut rng = RngStream::from_seed(3);
        let mut t_ns = 0u64;
        for _ in 0..records {
            t_ns += 1 + rng.below(1000); // ~2M IOPS
            writeln!(f, "{t_ns} 0 {} 8 {}", rng.below(1 << 30) * 8, rng.below(2)).expect("write");
        }
    }
    let text = format!(
        "schema = 1\n[output]\nrequests = false\ntimeseries = false\n{}\n[[workload]]\nname = \"t\"\ndevice = \"d\"\ntrace = {{ path = \"{}\", format = \"mqsim\" }}\n",
        ideal(64),
        path.display()
    );
    let (cpu, ev, ios, s) = run_scenario(&text);
    std::fs::remove_file(&path).ok();
    report(&format!("trace replay ({records} records, mqsim text)"), cpu, ev, ios, s);

    // 3) closed loop with per-request records on (what `nestsim run` does by default).
    let text = format!(
        "schema = 1\n[run]\nduration = \"{dur}\"\n{}\n[[workload]]\nname = \"w\"\ndevice = \"d\"\narrival = {{ kind = \"burst\", outstanding = 64 }}\nread_fraction = 0.7\n",
        ideal(64)
    );
    let (cpu, ev, ios, s) = run_scenario(&text);
    report("closed loop QD64, records + time series on", cpu, ev, ios, s);

    println!("\n== SSD (MQSim-class model; MQSim itself runs beside NeSt in benches/pipeline.py's anchor, same minutes) ==");
    let ssd_dur = if quick { "200ms" } else { "2s" };
    // 4) The stock MQSim drive (512 GiB raw, 8 ch × 4 chips × 2 dies × 2 planes), 4 KiB random
    //    70/30 at QD 64, no preconditioning (as MQSim's stock configuration).
    let text = format!(
        "schema = 1\n[run]\nduration = \"{ssd_dur}\"\n[output]\nrequests = false\ntimeseries = false\n[[device]]\nname = \"d\"\nkind = \"ssd\"\npreset = \"mqsim-default\"\n[[workload]]\nname = \"w\"\ndevice = \"d\"\narrival = {{ kind = \"burst\", outstanding = 64 }}\nsize = {{ dist = \"fixed\", bytes = \"4KiB\" }}\nread_fraction = 0.7\n"
    );
    let (cpu, ev, ios, s) = run_scenario(&text);
    report("mqsim-default 4 KiB 70/30 QD64", cpu, ev, ios, s);
    //    The same in the MQSim-compatible model (one command per chip, eager destage, entry CMT).
    let (cpu, ev, ios, s) = run_scenario(&text.replace("preset = \"mqsim-default\"\n", "preset = \"mqsim-default\"\ncompat = \"mqsim\"\n"));
    report("  the same, compat = \"mqsim\"", cpu, ev, ios, s);
    // 5) GC-heavy: the same drive with 256 blocks per plane (64 GiB raw), preconditioned to
    //    90 % occupancy at steady state, no cache, 4 KiB random writes at QD 64.
    let text = format!(
        "schema = 1\n[run]\nduration = \"{ssd_dur}\"\n[output]\nrequests = false\ntimeseries = false\n[[device]]\nname = \"d\"\nkind = \"ssd\"\npreset = \"mqsim-default\"\ngeometry = {{ blocks_per_plane = 256 }}\ncache = {{ mode = \"off\" }}\nprecondition = {{ occupancy = 0.9, overwrites = 1.0 }}\n[[workload]]\nname = \"w\"\ndevice = \"d\"\narrival = {{ kind = \"burst\", outstanding = 64 }}\nsize = {{ dist = \"fixed\", bytes = \"4KiB\" }}\nread_fraction = 0.0\n"
    );
    let (cpu, ev, ios, s) = run_scenario(&text);
    report("GC-heavy: preconditioned 90%, random writes QD64", cpu, ev, ios, s);
    let (cpu, ev, ios, s) = run_scenario(&text.replace("preset = \"mqsim-default\"\n", "preset = \"mqsim-default\"\ncompat = \"mqsim\"\n"));
    report("  the same, compat = \"mqsim\"", cpu, ev, ios, s);
    // 6) PLM: the GC-heavy drive split into two NVM sets with Predictable Latency Mode (10 ms
    //    DTWins; writes NV-buffered in DTWin, flushed with the deferred GC in NDWin), 70/30.
    let plm = text
        .replace("read_fraction = 0.0", "read_fraction = 0.7")
        .replace("precondition = {", "nvm_sets = 2\nplm = { t_dw = \"10ms\", t_ndwl = \"1ms\", t_ndwh = \"10ms\" }\nprecondition = {");
    let (cpu, ev, ios, s) = run_scenario(&plm);
    report("PLM: 2 NVM sets, 10 ms DTWins, 70/30 QD64", cpu, ev, ios, s);
    // 7) PLMC over an NVM-set pool: examples/plmc.toml (two replica drives taking turns in
    //    100 ms DTWins, three bursty read-mostly hosts, CoD strict priority).
    let plmc = include_str!("../../../examples/plmc.toml")
        .replace("[run]", "[output]\nrequests = false\ntimeseries = false\n[run]")
        .replace("duration = \"3s\"", if quick { "duration = \"1s\"" } else { "duration = \"20s\"" });
    let (cpu, ev, ios, s) = run_scenario(&plmc);
    report("PLMC: 2-replica NVM-set pool, 3 hosts, CoD", cpu, ev, ios, s);
    // 8) PLMLight: examples/plmlight.toml (three hosts over NVMe-oF, Workload I at 51k IOPS, 1 ms
    //    emulated windows, writes beyond the write DC parked on an Optane-class SSD and flushed).
    let plmlight = include_str!("../../../examples/plmlight.toml")
        .replace("[run]", "[output]\nrequests = false\ntimeseries = false\n[run]")
        .replace("duration = \"300ms\"", if quick { "duration = \"300ms\"" } else { "duration = \"2s\"" });
    let (cpu, ev, ios, s) = run_scenario(&plmlight);
    report("PLMLight: 3 hosts over NVMe-oF, write-handling agent", cpu, ev, ios, s);
    haechi(quick);
    network(quick);
    host_cache(quick);
    println!("peak RSS of this process: {:.0} MiB", peak_rss_mib());
}

/// 9) Haechi: ten clients, Zipf(0.6) reservations at 90 % of 1570 K, burst requests, 30 periods
///    of 1 s (the issue's "10-client 30 s Haechi run"; 3 with --quick).
fn haechi(quick: bool) {
    let periods = if quick { 3.0 } else { 30.0 };
    let w: Vec<f64> = (1..=5).map(|k| 1.0 / (k as f64).powf(0.6)).collect();
    let norm: f64 = w.iter().sum::<f64>() * 2.0;
    let clients: Vec<serde_json::Value> = w
        .iter()
        .flat_map(|x| {
            let r = (0.9 * 1_570_000.0 * x / norm) as u64;
            let c = serde_json::json!({"pattern": "burst", "reservation": r, "demand": r + 157_000});
            [c.clone(), c]
        })
        .collect();
    let spec = nest_model::haechi::HaechiSpec::from_json(&serde_json::json!({"duration_s": periods, "qos": "haechi", "clients": clients}).to_string())
        .expect("a valid spec");
    let mut run = nest_model::haechi::HaechiRun::new(spec).expect("a valid run");
    let t0 = cpu_seconds();
    run.run();
    let cpu = cpu_seconds() - t0;
    let ios: u64 = (0..run.clients()).map(|c| run.per_period(c).iter().sum::<u64>()).sum();
    report("Haechi: 10 clients, Zipf 90 %, burst", cpu, run.events, ios, run.now().as_secs_f64());
}

/// Runs a network scenario; returns (CPU-s, events, packet-hops, simulated s).
fn run_net(text: &str) -> (f64, u64, u64, f64) {
    let l = load_str(text, "bench.toml", PathBuf::from("."), &[], None).expect("bench scenario loads");
    let r = resolve(&l, text).expect("bench scenario resolves");
    let t0 = cpu_seconds();
    let mut sim = Simulation::new(r).expect("bench scenario builds");
    sim.run().expect("bench scenario runs");
    let cpu = cpu_seconds() - t0;
    sim.check_conservation().expect("conservation holds");
    (cpu, sim.events(), sim.packet_hops(), sim.now().as_secs_f64())
}

fn report_net(name: &str, (cpu, events, hops, sim_s): (f64, u64, u64, f64)) {
    println!(
        "{name:<44} {cpu:>7.3} CPU-s  {:>6.2} M events/CPU-s  {:>6.2} M packet-hops/CPU-s  {:>6.3} sim-s/CPU-s  {}  ({events} events, {hops} hops, {sim_s:.3} s simulated)",
        events as f64 / cpu / 1e6,
        hops as f64 / cpu / 1e6,
        sim_s / cpu,
        per_event(cpu, events)
    );
}

fn network(quick: bool) {
    println!("\n== network (ns-3 and htsim beside it: BENCHMARKS.md, runs made in the same minutes) ==");
    // The yardstick, exactly as examples/dctcp-dumbbell.toml (0.5 s simulated).
    let text = include_str!("../../../examples/dctcp-dumbbell.toml").replace("[run]", "[output]\nrequests = false\ntimeseries = false\n[run]");
    report_net("dctcp-dumbbell (3 flows, 10 Gb/s, 0.5 s)", run_net(&text));
    let dur = if quick { "20ms" } else { "100ms" };
    // Saturated 100 Gb/s dumbbell, jumbo frames.
    let flows: String = (0..4).map(|i| format!("[[flow]]\nname = \"f{i}\"\nsrc = \"s{i}\"\ndst = \"r0\"\nclass = \"high\"\ntransport = \"dctcp\"\n")).collect();
    let text = format!("schema = 1\n[output]\nrequests = false\ntimeseries = false\n[run]\nduration = \"{dur}\"\n[network]\ntopology = \"dumbbell\"\nsenders = 4\nlink_rate = \"100Gbps\"\nlink_delay = \"2us\"\nmtu = 9000\n[network.switch]\necn_k = 65\n{flows}");
    report_net(&format!("100 Gb/s dumbbell, MTU 9000, 4 DCTCP ({dur})"), run_net(&text));
    // k = 4 fat-tree all-to-all: every host sends to every other (240 long-lived flows).
    let mut flows = String::new();
    for s in 0..16 {
        for d in 0..16 {
            if s != d {
                flows += &format!("[[flow]]\nname = \"f{s}_{d}\"\nsrc = \"h{s}\"\ndst = \"h{d}\"\nclass = \"high\"\ntransport = \"dctcp\"\n");
            }
        }
    }
    let text = format!("schema = 1\n[output]\nrequests = false\ntimeseries = false\n[run]\nduration = \"{dur}\"\n[network]\ntopology = \"fat_tree\"\nk = 4\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n{flows}");
    report_net(&format!("fat-tree k=4 all-to-all, 240 DCTCP ({dur})"), run_net(&text));
    // qtcp-bandwidth (QTCP Fig 5): 3/6/9 Gb/s QTCP over a 10 Gb/s bottleneck in a k=4 fat-tree.
    let qdur = if quick { "100ms" } else { "1500ms" };
    let apps = [("app3", "h4", "low", "3Gbps"), ("app6", "h8", "medium", "6Gbps"), ("app9", "h12", "high", "9Gbps")];
    let flows: String = apps
        .iter()
        .map(|(n, s, c, r)| format!("[[flow]]\nname = \"{n}\"\nsrc = \"{s}\"\ndst = \"h0\"\nclass = \"{c}\"\ntransport = \"qtcp\"\nrate = \"{r}\"\n"))
        .collect();
    let text = format!("schema = 1\n[output]\nrequests = false\ntimeseries = false\n[run]\nduration = \"{qdur}\"\ndrain = false\n[[class]]\nname = \"low\"\npriority = \"low\"\n[[class]]\nname = \"medium\"\npriority = \"medium\"\n[[class]]\nname = \"high\"\npriority = \"high\"\n[network]\ntopology = \"fat_tree\"\nk = 4\nlink_rate = \"10Gbps\"\nlink_delay = \"10us\"\nframing = \"ppp\"\n[network.switch]\necn_k = 140\n{flows}");
    report_net(&format!("qtcp-bandwidth (fat-tree, {qdur})"), run_net(&text));
    // e2e-throughput (thesis Fig 4.13–4.16), write-only QTCP: NVMe-oF over a 100 Gb/s fat-tree to
    // ten SSD servers, exactly as examples/e2e-throughput.toml (100 ms simulated).
    let text = include_str!("../../../examples/e2e-throughput.toml").replace("[output]\nrequests = false", "[output]\nrequests = false\ntimeseries = false");
    let text = if quick { text.replace("duration = \"100ms\"", "duration = \"40ms\"") } else { text };
    report_net(&format!("e2e-throughput (NVMe-oF, 10 SSDs, {})", if quick { "40 ms" } else { "100 ms" }), run_net(&text));
    src_incast(quick);
}

/// A throughput model whose read throughput falls with w (a tree on w only): SRC's Algorithm 1
/// then moves the weight on DCQCN's cuts, so the bench pays for the controller as well.
const SRC_MODEL: &str = r#"{"format":"nestsim-tpm","version":1,"model":"decision_tree","features":["read_share","scv_size_read","scv_size_write","scv_gap_read","scv_gap_write","speed_read","speed_write","w"],"outputs":["read_Bps","write_Bps"],"w_max":8,"trees":[{"feature":[7,-2,7,-2,7,-2,-2],"threshold":[1.5,-2,2.5,-2,3.5,-2,-2],"left":[1,-1,3,-1,5,-1,-1],"right":[2,-1,4,-1,6,-1,-1],"value":[[0,0],[1.2e9,1e8],[0,0],[0.6e9,2e8],[0,0],[0.4e9,3e8],[0.3e9,4e8]]}]}"#;

/// 10) SRC: the `src-incast` 4:1 set-up (SRC's Clos of 256 hosts, 40 Gb/s, DCQCN with PFC; one
///     initiator reading 44 KB and writing 23 KB on four ssd-a targets behind split SQs, each
///     with an SRC coordinator), 38 Gb/s of reads offered, every request to completion.
fn src_incast(quick: bool) {
    let model = std::env::temp_dir().join(format!("nest-bench-src-{}.json", std::process::id()));
    std::fs::write(&model, SRC_MODEL).expect("temp model");
    let per_target = if quick { 1_000 } else { 5_000 };
    let rate = 38e9 / 8.0 / 44_000.0 / 4.0;
    let mut text = String::from("schema = 1\n[output]\nrequests = false\ntimeseries = false\n[run]\nseed = 1\n[network]\ntopology = \"clos\"\nlink_rate = \"40Gbps\"\nlink_delay = \"1us\"\nsample_ports = \"none\"\n[network.switch]\nbuffer = \"16MiB\"\necn = \"red\"\necn_kmin = \"41200B\"\necn_kmax = \"1030000B\"\necn_pmax = 1.0\npfc = true\npfc_xoff = \"400KiB\"\npfc_xon = \"300KiB\"\n[nvmeof]\ntransport = \"dcqcn\"\n[[host]]\nname = \"h0\"\nqueue_depth = 1048576\n");
    for (j, server) in ["h64", "h128", "h192", "h65"].iter().enumerate() {
        text += &format!(
            "[[device]]\nname = \"ssd{j}\"\nkind = \"ssd\"\npreset = \"ssd-a\"\nserver = \"{server}\"\nnvme = {{ arbitration = \"ssq\", sq_depth = 65536 }}\n"
        );
        text += &format!("[[coordinator]]\nname = \"src{j}\"\nkind = \"src\"\ndevice = \"ssd{j}\"\nmodel = \"{}\"\n", model.display());
        for (op, mean, rf) in [("r", 44_000, 1.0), ("w", 23_000, 0.0)] {
            text += &format!("[[workload]]\nname = \"{op}{j}\"\nhost = \"h0\"\ndevice = \"ssd{j}\"\nclass = \"high\"\narrival = {{ kind = \"poisson\", rate_iops = {rate} }}\nsize = {{ dist = \"exp\", mean = \"{mean}B\", align = \"4KiB\", min = \"4KiB\", max = \"1MiB\" }}\nread_fraction = {rf}\nmax_ios = {per_target}\n");
        }
    }
    let r = run_net(&text);
    std::fs::remove_file(&model).ok();
    report_net(&format!("SRC incast 4:1 (Clos, DCQCN, 4 ssd-a, {per_target}+{per_target} each)"), r);
}

fn peak_rss_mib() -> f64 {
    #[allow(unsafe_code)]
    // SAFETY: rusage is plain old data (all-zero is valid) and getrusage only writes into it.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    };
    ru.ru_maxrss as f64 / 1024.0
}

/// Host cache operations per CPU second, and the per-operation costs measured for the cost
/// model beside the defaults compiled in (`nest_cache::cost`).
fn host_cache(quick: bool) {
    use nest_cache::{Algorithm, Cache, CacheParams, CostModel, Effects};
    println!("\n== host cache (16 Ki-block cache, 64 Ki blocks, 80/20 skew, 30 % writes) ==");
    let n: usize = if quick { 300_000 } else { 3_000_000 };
    for a in [Algorithm::Lru, Algorithm::Arc, Algorithm::Sarc, Algorithm::Fussy, Algorithm::FussyQos] {
        let mut p = CacheParams::new(a, 16 * 1024);
        p.fussy.warmup = 2000;
        let mut c = Cache::new(&p).expect("valid");
        let mut rng = RngStream::from_seed(11);
        let ops: Vec<(u64, bool, u8)> = (0..n)
            .map(|_| {
                let hot = rng.below(10) < 8;
                let b = if hot { rng.below(13 * 1024) } else { 13 * 1024 + rng.below(51 * 1024) };
                (b, rng.below(10) < 3, (rng.below(4)) as u8)
            })
            .collect();
        let mut fx = Effects::default();
        let t0 = cpu_seconds();
        for &(b, w, class) in &ops {
            c.access(b, w, class, &mut fx);
            fx.clear();
        }
        let cpu = cpu_seconds() - t0;
        let m = nest_cache::cost::measure(a, n / 3);
        let d = CostModel::default_for(a);
        println!(
            "{:<10} {:>6.1} M ops/CPU-s  hit {:>5.1} %   measured lookup {:>5.0} dm {:>5.0} mdm {:>5.0} copy {:>5.0} ns   (defaults {:.0}/{:.0}/{:.0}/{:.0})",
            a.name(),
            n as f64 / cpu / 1e6,
            100.0 * c.hit_rate(),
            m.lookup_ns,
            m.dm_ns,
            m.mdm_ns,
            m.copy_ns,
            d.lookup_ns,
            d.dm_ns,
            d.mdm_ns,
            d.copy_ns
        );
        if matches!(a, Algorithm::Fussy) {
            println!("           {:?}", c.extra());
        }
    }
}
