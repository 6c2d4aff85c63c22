//! In-process fuzzing of every Rust parser (issue 25, item 3): the scenario TOML parser and its
//! validation, `--set` overrides, units, fio job files and every trace format. Each input is a
//! seed mutated a few times — a number made huge, tiny, zero, negative, NaN or infinite, a unit
//! swapped, a line deleted, duplicated or moved, the text cut, bytes flipped, lines spliced from
//! another seed — and must end as a value or an error: never a panic, never a hang.
//!
//! ```text
//! nest-fuzz [--inputs N] [--seed S] [--keep DIR] [--slow-ms MS]
//! ```
//!
//! Millions of inputs take minutes (no process per input, unlike `scripts/mutate_cli.py`, which
//! goes through the whole CLI and runs what validates). An input is slow when it takes more than
//! `--slow-ms` of its thread's CPU time (not wall time: a shared machine would make a fast input
//! look slow). A panicking or slow input is written under `--keep` as soon as it is found, with
//! its target's name; the run exits 1 when any was found. Seeds are the
//! example scenarios and fio job file (found from the repository root) plus small samples of
//! every trace format written here, so it runs anywhere. `cargo test -p nest-bench` runs a short
//! fixed-seed run.

use nest_core::rng::RngStream;
use nest_workload::trace::{from_bytes, TraceFormat, TraceOptions};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Numbers a hostile user types (as text: a mutation writes them in place of a number).
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "-0",
    "1e308",
    "-1e308",
    "1e-300",
    "nan",
    "inf",
    "-inf",
    "NaN",
    "18446744073709551616",
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967296",
    "4294967295",
    "2147483648",
    "65536",
    "0.5",
    "1e20",
    "999999999999",
    "0x10",
    "1_000",
    "+5",
    ".5",
    "5.",
    "1e",
    "",
];
/// Units swapped in for units (sizes, times, rates and a few that are none of them).
const UNITS: &[&str] = &["ps", "ns", "us", "µs", "ms", "s", "B", "KiB", "MiB", "GiB", "TiB", "KB", "GB", "bps", "Kbps", "Gbps", "Tbps", "%", "x", ""];
/// Bytes that move TOML's and the trace formats' structure.
const SPECIAL: &[u8] = b"=[]{}\",.#\n\t \\'-+:;0123456789eE";

/// What an input is fed to.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Target {
    Scenario,
    Override,
    Units,
    Fio,
    Trace(TraceFormat),
}

impl Target {
    fn name(self) -> String {
        match self {
            Target::Scenario => "scenario".into(),
            Target::Override => "override".into(),
            Target::Units => "units".into(),
            Target::Fio => "fio".into(),
            Target::Trace(f) => format!("trace-{}", f.name()),
        }
    }
}

/// The seeds: (target, text) pairs.
struct Seeds {
    items: Vec<(Target, Vec<u8>)>,
    scenarios: Vec<String>,
    examples: PathBuf,
}

fn repo_root() -> PathBuf {
    // crates/nest-bench → the repository root.
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Small samples of every trace format, in each format's own shape (docs/traces.md).
fn trace_sample(f: TraceFormat) -> String {
    let n = 40;
    let mut s = String::new();
    for i in 0..n {
        let rw = i % 2;
        let line = match f {
            TraceFormat::Systor17 => {
                if i == 0 {
                    s += "Timestamp,Response,IOType,LUN,Offset,Size\n";
                }
                format!("1456095145.{:09},0.000806000,{},0,{},{}", 133_076_000 + 911 * i, ["R", "W"][rw], 899_056_122_368u64 + 4096 * i as u64, 4096 << (i % 4))
            }
            TraceFormat::Msr => format!(
                "{},hm,0,{},{},{},2833",
                128_166_385_295_514_663u64 + 10_000 * i as u64,
                ["Read", "Write"][rw],
                9_056_014_336u64 + 8192 * i as u64,
                4096 * (1 + i % 3)
            ),
            TraceFormat::Tencent => format!("{},{},{},{},1063", 1_538_323_199 + i / 8, 13_896_880 + 16 * i, 8 << (i % 3), rw),
            TraceFormat::Alibaba => {
                format!("{},{},{},4096,{}", i % 3, ["R", "W"][rw], 126_703_644_672u64 + 4096 * i as u64, 1_577_808_000_000_626u64 + 137 * i as u64)
            }
            TraceFormat::Blkparse => {
                format!("  8,0    1   {:6}     {:.9}  1914  C  {} {} + 8 [0]", i + 1, 0.000137 * i as f64, ["R", "WS"][rw], 299_456 + 8 * i)
            }
            TraceFormat::Disksim => format!("{:.3} 0 {} 16 {}", 0.5 * i as f64, 8 * i, rw),
            TraceFormat::Mqsim => format!("{} 4 {} 16 {}", 938_513_000u64 + 70_000 * i as u64, 264_719_034 + 8 * i, rw),
            TraceFormat::Flashnet => format!("{:.3} 0 {} {} {}", 0.211 * i as f64, 3_159_347_200u64 + 4096 * i as u64, 4096 * (1 + i % 8), rw),
            TraceFormat::Cloudphysics => {
                if i == 0 {
                    s += "version,time,op,size,lbn\n";
                }
                format!("1,{},{},4096,{}", 5_633_898 + 311 * i, ["28", "2a"][rw], 42_932_745 + 8 * i)
            }
        };
        s += &line;
        s.push('\n');
    }
    s
}

impl Seeds {
    fn load() -> Seeds {
        let examples = repo_root().join("examples");
        let mut items = Vec::new();
        let mut scenarios = Vec::new();
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&examples).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
        paths.sort();
        for p in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "toml")) {
            if let Ok(text) = std::fs::read_to_string(p) {
                items.push((Target::Scenario, text.clone().into_bytes()));
                scenarios.push(text);
            }
        }
        let fio = examples.join("fio/tenants.fio");
        let fio_text = std::fs::read_to_string(&fio).unwrap_or_else(|_| "[global]\nioengine=libaio\nbs=4k\n[job]\nrw=randread\niodepth=8\nsize=1g\n".into());
        items.push((Target::Fio, fio_text.into_bytes()));
        for f in TraceFormat::ALL {
            items.push((Target::Trace(f), trace_sample(f).into_bytes()));
        }
        for u in ["10us", "4KiB", "25Gbps", "1.5ms", "0.5s", "512B", "100Gbps", "3 ms", "2TiB"] {
            items.push((Target::Units, u.as_bytes().to_vec()));
        }
        for o in ["run.duration=10ms", "network.link_rate=25Gbps", "workload[0].arrival.rate_iops=1000", "device[0].servers=4", "run.seed=7"] {
            items.push((Target::Override, o.as_bytes().to_vec()));
        }
        Seeds { items, scenarios, examples }
    }
}

/// Byte ranges of the number tokens in `t` (digits with an optional fraction and exponent).
fn numbers(t: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if t[i].is_ascii_digit() && (i == 0 || !t[i - 1].is_ascii_alphanumeric()) {
            let start = i;
            while i < t.len()
                && (t[i].is_ascii_digit() || t[i] == b'.' || t[i] == b'_' || ((t[i] == b'e' || t[i] == b'E') && i + 1 < t.len() && t[i + 1].is_ascii_digit()))
            {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

/// Byte ranges of the unit suffixes right after a number (`10us`, `"4KiB"`).
fn units(t: &[u8]) -> Vec<(usize, usize)> {
    numbers(t)
        .into_iter()
        .filter_map(|(_, e)| {
            let mut j = e;
            while j < t.len() && (t[j].is_ascii_alphabetic() || t[j] == 0xC2 || t[j] == 0xB5) {
                j += 1;
            }
            (j > e).then_some((e, j))
        })
        .collect()
}

fn line_starts(t: &[u8]) -> Vec<usize> {
    std::iter::once(0).chain(t.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1)).filter(|&i| i < t.len()).collect()
}

fn line_at(t: &[u8], start: usize) -> (usize, usize) {
    let end = t[start..].iter().position(|&b| b == b'\n').map_or(t.len(), |p| start + p + 1);
    (start, end)
}

fn pick<'a, T>(rng: &mut RngStream, xs: &'a [T]) -> Option<&'a T> {
    (!xs.is_empty()).then(|| &xs[rng.below(xs.len() as u64) as usize])
}

/// One mutation of `t`. `binary`: bytes need not stay text (traces).
fn mutate_once(t: &mut Vec<u8>, rng: &mut RngStream, donor: &[u8], binary: bool) {
    match rng.below(10) {
        0..=2 => {
            if let Some(&(s, e)) = pick(rng, &numbers(t)) {
                let n = pick(rng, NUMBERS).expect("numbers").as_bytes();
                t.splice(s..e, n.iter().copied());
            }
        }
        3 => {
            if let Some(&(s, e)) = pick(rng, &units(t)) {
                let u = pick(rng, UNITS).expect("units").as_bytes();
                t.splice(s..e, u.iter().copied());
            }
        }
        4 => {
            // A line deleted or duplicated.
            if let Some(&s) = pick(rng, &line_starts(t)) {
                let (s, e) = line_at(t, s);
                if rng.bernoulli(0.5) {
                    t.drain(s..e);
                } else {
                    let l: Vec<u8> = t[s..e].to_vec();
                    t.splice(s..s, l);
                }
            }
        }
        5 => {
            // The text cut short (a truncated file).
            let at = rng.below(t.len() as u64 + 1) as usize;
            t.truncate(at);
        }
        6 => {
            // A line from another seed spliced in.
            if let (Some(&s), Some(&d)) = (pick(rng, &line_starts(t)).or(Some(&0)), pick(rng, &line_starts(donor))) {
                let (ds, de) = line_at(donor, d);
                let l = donor[ds..de].to_vec();
                let s = s.min(t.len());
                t.splice(s..s, l);
            }
        }
        7 => {
            // A structural byte inserted or replacing one.
            let b = *pick(rng, SPECIAL).expect("special");
            let at = rng.below(t.len() as u64 + 1) as usize;
            if at < t.len() && rng.bernoulli(0.5) {
                t[at] = b;
            } else {
                t.insert(at, b);
            }
        }
        8 => {
            // A byte flipped: any byte for binary targets, printable ASCII for text.
            if !t.is_empty() {
                let at = rng.below(t.len() as u64) as usize;
                t[at] = if binary { rng.below(256) as u8 } else { 0x20 + rng.below(95) as u8 };
            }
        }
        _ => {
            // A digit run made long: a number of hundreds of digits.
            if let Some(&(s, _)) = pick(rng, &numbers(t)) {
                let n = 1 + rng.below(400) as usize;
                t.splice(s..s, std::iter::repeat_n(b'9', n));
            }
        }
    }
}

/// How an input ended.
#[derive(Debug, PartialEq)]
enum Outcome {
    Accepted,
    Rejected,
    Panicked(String),
}

/// Feeds `input` to `target`; panics are caught and returned.
fn feed(target: Target, input: &[u8], seeds: &Seeds, rng: &mut RngStream) -> Outcome {
    let base = seeds.scenarios.get(rng.below(seeds.scenarios.len().max(1) as u64) as usize).cloned().unwrap_or_default();
    let examples = seeds.examples.clone();
    let r = catch_unwind(AssertUnwindSafe(|| -> bool {
        match target {
            Target::Scenario => {
                let Ok(text) = std::str::from_utf8(input) else { return false };
                match nest_config::load_str(text, "fuzz.toml", examples, &[], None) {
                    Ok(l) => nest_config::resolve(&l, text).is_ok(),
                    Err(_) => false,
                }
            }
            Target::Override => {
                let o = String::from_utf8_lossy(input).into_owned();
                match nest_config::load_str(&base, "fuzz.toml", examples, &[o], None) {
                    Ok(l) => nest_config::resolve(&l, &base).is_ok(),
                    Err(_) => false,
                }
            }
            Target::Units => {
                let s = String::from_utf8_lossy(input);
                let a = nest_core::units::parse_duration(&s).is_ok();
                let b = nest_core::units::parse_size(&s).is_ok();
                let c = nest_core::units::parse_rate_bps(&s).is_ok();
                a || b || c
            }
            Target::Fio => {
                let s = String::from_utf8_lossy(input);
                nest_workload::fio::parse_job_file(&s, "fuzz.fio").is_ok()
            }
            Target::Trace(f) => {
                let opts = TraceOptions { skip_invalid: input.len().is_multiple_of(2), reorder_window: [0, 16, 1024][input.len() % 3], ..Default::default() };
                let Ok(mut src) = from_bytes("fuzz.trace", input.to_vec(), f, opts) else { return false };
                for _ in 0..100_000 {
                    match src.next_record() {
                        Ok(Some(_)) => {}
                        Ok(None) => return true,
                        Err(_) => return false,
                    }
                }
                true
            }
        }
    }));
    match r {
        Ok(true) => Outcome::Accepted,
        Ok(false) => Outcome::Rejected,
        Err(e) => Outcome::Panicked(e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()),
    }
}

/// Totals of a run.
#[derive(Default, Debug)]
struct Tally {
    inputs: u64,
    accepted: u64,
    rejected: u64,
    panics: Vec<(String, Vec<u8>, String)>,
    slow: Vec<(String, Vec<u8>, f64)>,
    slowest_ms: f64,
    /// Per target: (inputs, accepted).
    by_target: std::collections::BTreeMap<String, (u64, u64)>,
}

/// This thread's CPU time in seconds.
fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Runs `inputs` mutated inputs from `seed`; an input taking more than `slow_ms` of CPU is a
/// failure. Each failure is written under `keep` as it is found.
fn run(inputs: u64, seed: u64, slow_ms: f64, progress: bool, keep_dir: Option<&Path>) -> Tally {
    let seeds = Seeds::load();
    let mut rng = RngStream::from_seed(seed);
    let mut t = Tally::default();
    let started = Instant::now();
    for i in 0..inputs {
        let (target, text) = &seeds.items[rng.below(seeds.items.len() as u64) as usize];
        let donor = &seeds.items[rng.below(seeds.items.len() as u64) as usize].1;
        let mut input = text.clone();
        let binary = matches!(target, Target::Trace(_));
        for _ in 0..1 + rng.below(4) {
            mutate_once(&mut input, &mut rng, donor, binary);
        }
        let t0 = thread_cpu_seconds();
        let out = feed(*target, &input, &seeds, &mut rng);
        let ms = (thread_cpu_seconds() - t0) * 1e3;
        t.inputs += 1;
        t.slowest_ms = t.slowest_ms.max(ms);
        let per = t.by_target.entry(target.name()).or_default();
        per.0 += 1;
        per.1 += (out == Outcome::Accepted) as u64;
        match out {
            Outcome::Accepted => t.accepted += 1,
            Outcome::Rejected => t.rejected += 1,
            Outcome::Panicked(m) => {
                if let Some(d) = keep_dir {
                    keep(d, "panic", t.panics.len(), &target.name(), &input, &m);
                }
                t.panics.push((target.name(), input.clone(), m));
            }
        }
        if ms > slow_ms {
            if let Some(d) = keep_dir {
                keep(d, "slow", t.slow.len(), &target.name(), &input, &format!("{ms:.0} ms of CPU"));
            }
            t.slow.push((target.name(), input, ms));
        }
        if progress && (i + 1) % 1_000_000 == 0 {
            eprintln!("{} inputs, {:.0} s, {} panics, {} slow", i + 1, started.elapsed().as_secs_f64(), t.panics.len(), t.slow.len());
        }
    }
    t
}

fn keep(dir: &Path, kind: &str, n: usize, target: &str, input: &[u8], why: &str) {
    let _ = std::fs::create_dir_all(dir);
    let p = dir.join(format!("{kind}-{n}-{target}"));
    let _ = std::fs::write(&p, input);
    let _ = std::fs::write(p.with_extension("why"), why);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let inputs: u64 = arg("--inputs").and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let seed: u64 = arg("--seed").and_then(|v| v.parse().ok()).unwrap_or(1);
    let slow_ms: f64 = arg("--slow-ms").and_then(|v| v.parse().ok()).unwrap_or(2000.0);
    let keep_dir = PathBuf::from(arg("--keep").unwrap_or_else(|| "fuzz-failures".into()));
    // Panics are caught and reported once each below; the default hook would print every one.
    std::panic::set_hook(Box::new(|_| {}));
    let cpu0 = cpu_seconds();
    let t = run(inputs, seed, slow_ms, true, Some(&keep_dir));
    let cpu = cpu_seconds() - cpu0;
    for (target, _, m) in &t.panics {
        println!("PANIC {target}: {m}");
    }
    for (target, _, ms) in &t.slow {
        println!("SLOW {target}: {ms:.0} ms of CPU");
    }
    let per: Vec<String> = t.by_target.iter().map(|(k, (n, a))| format!("{k} {a}/{n}")).collect();
    println!("accepted / inputs per target: {}", per.join(", "));
    println!(
        "{} inputs (seed {seed}): accepted {}, rejected {}, panics {}, slow (> {slow_ms} ms of CPU) {}; slowest {:.1} ms; {:.1} CPU-s, peak RSS {} MB",
        t.inputs,
        t.accepted,
        t.rejected,
        t.panics.len(),
        t.slow.len(),
        t.slowest_ms,
        cpu,
        peak_rss_mb()
    );
    std::process::exit(if t.panics.is_empty() && t.slow.is_empty() { 0 } else { 1 });
}

fn cpu_seconds() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    (u.ru_utime.tv_sec + u.ru_stime.tv_sec) as f64 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) as f64 * 1e-6
}

fn peak_rss_mb() -> i64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    u.ru_maxrss / 1024
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mutations_change_numbers_units_and_lines() {
        let t = b"duration = \"10us\"\nrate = 5000\n".to_vec();
        assert_eq!(numbers(&t), vec![(12, 14), (25, 29)]);
        assert_eq!(units(&t), vec![(14, 16)]);
        let mut rng = RngStream::from_seed(4);
        let changed = (0..50)
            .filter(|_| {
                let mut m = t.clone();
                mutate_once(&mut m, &mut rng, b"x = 1\n", false);
                m != t
            })
            .count();
        assert!(changed > 35, "most mutations change the text: {changed}/50");
    }

    #[test]
    fn a_panic_in_a_parser_is_caught_and_reported() {
        std::panic::set_hook(Box::new(|_| {}));
        let r = catch_unwind(|| -> bool { panic!("boom") });
        assert!(r.is_err());
        let seeds = Seeds::load();
        assert!(seeds.scenarios.len() >= 10, "the example scenarios are the seeds");
        assert!(TraceFormat::ALL.iter().all(|f| seeds.items.iter().any(|(t, _)| *t == Target::Trace(*f))));
        // Every trace seed parses as it is: the mutations start from valid inputs.
        let mut rng = RngStream::from_seed(1);
        for (t, text) in seeds.items.iter().filter(|(t, _)| matches!(t, Target::Trace(_) | Target::Fio)) {
            assert_eq!(feed(*t, text, &seeds, &mut rng), Outcome::Accepted, "{t:?}");
        }
    }

    /// The short run of `make test` (the long one is documented in docs/robustness.md).
    #[test]
    fn a_short_fixed_seed_run_finds_no_panic_and_no_hang() {
        std::panic::set_hook(Box::new(|_| {}));
        let t = run(3_000, 7, 10_000.0, false, None);
        assert_eq!(t.inputs, 3_000);
        assert!(t.rejected > 300 && t.accepted > 300, "both outcomes are reached: {t:?}");
        let panics: Vec<_> = t.panics.iter().map(|(k, i, m)| format!("{k}: {m}: {}", String::from_utf8_lossy(&i[..i.len().min(200)]))).collect();
        assert!(panics.is_empty(), "{panics:#?}");
        assert!(t.slow.is_empty(), "{:?}", t.slow.iter().map(|s| (&s.0, s.2)).collect::<Vec<_>>());
    }
}
