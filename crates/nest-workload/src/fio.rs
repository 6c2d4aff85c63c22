//! fio job files read as workloads (SPEC §3; option semantics from fio's HOWTO, summarised in
//! traces/README.md §3.12).
//!
//! Supported: `rw`/`readwrite`, `rwmixread`/`rwmixwrite`, `bs` (per direction), `bsrange`,
//! `bssplit` (per direction, blank shares), `iodepth`, `numjobs`, `size`, `runtime`,
//! `time_based`, `startdelay`, `rate` and `rate_iops` (per direction), `rate_process`,
//! `random_distribution` (`random`, `zipf:θ`). Mapping to NeSt's model:
//! - without a rate cap a job is closed-loop with `iodepth` outstanding (what fio does with an
//!   async engine);
//! - with `rate`/`rate_iops` it is open-loop at the largest total rate that keeps every
//!   direction under its cap at the job's read/write mix; `rate_process=poisson` makes arrivals
//!   Poisson, otherwise they are evenly spaced (fio's `linear`);
//! - `size` is the address range and, unless `time_based`, the amount of I/O after which the job
//!   ends; `runtime` stops it.
//!
//! Options that change nothing in a simulation (`ioengine`, `direct`, `filename`,
//! `percentile_list`, …) are accepted; options we do not model (`thinktime`, `offset`, …) are
//! accepted and listed in [`FioJob::ignored`] so the caller can warn about them.

use crate::address::AddressPattern;
use crate::arrival::ArrivalSpec;
use crate::dist::SizeDist;
use crate::synthetic::SyntheticSpec;
use nest_core::time::PS_PER_S;
use nest_core::units::{parse_duration_with_default, parse_size};
use nest_core::SimTime;
use std::fmt;

/// Options with no effect on a simulated run.
const INERT: &[&str] = &[
    "ioengine",
    "direct",
    "buffered",
    "filename",
    "directory",
    "percentile_list",
    "clat_percentiles",
    "lat_percentiles",
    "group_reporting",
    "name",
    "description",
    "randrepeat",
    "norandommap",
    "invalidate",
    "fsync",
    "end_fsync",
    "iodepth_batch",
    "iodepth_batch_complete",
    "numa_cpu_nodes",
    "cpus_allowed",
    "log_avg_msec",
    "write_lat_log",
    "write_bw_log",
    "write_iops_log",
    "log_offset",
    "output-format",
    "kb_base",
    "unified_rw_reporting",
    "stonewall",
    "wait_for_previous",
    "thread",
    "allow_mounted_write",
    "refill_buffers",
    "zero_buffers",
    "scramble_buffers",
    "buffer_compress_percentage",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioError {
    pub path: String,
    pub line: u64,
    pub message: String,
}

impl fmt::Display for FioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path, self.line, self.message)
    }
}

impl std::error::Error for FioError {}

/// One `[job]` section, resolved against `[global]`.
#[derive(Debug, Clone, PartialEq)]
pub struct FioJob {
    pub name: String,
    pub spec: SyntheticSpec,
    pub numjobs: u32,
    pub iodepth: u32,
    /// Options accepted but not modelled, with their line numbers.
    pub ignored: Vec<(String, u64)>,
}

#[derive(Clone, Default)]
struct Section {
    name: String,
    line: u64,
    opts: Vec<(String, String, u64)>,
}

impl Section {
    fn get(&self, key: &str) -> Option<(&str, u64)> {
        self.opts.iter().rev().find(|(k, _, _)| k == key).map(|(_, v, l)| (v.as_str(), *l))
    }
}

/// `text` quoted for an error message if it reads like a fio name (letters, digits, `_-.:`, at most
/// 40 characters), else a neutral word: a file that is not a fio job (`/proc/self/environ`,
/// `/etc/shadow`) must not have its content echoed into a terminal or log (issue 63, privacy).
fn quoted_name(text: &str) -> String {
    let plain = !text.is_empty() && text.len() <= 40 && text.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | ' '));
    if plain {
        format!("'{text}'")
    } else {
        "(not shown: it does not read like a fio name)".into()
    }
}

fn split_ini(text: &str, path: &str) -> Result<Vec<Section>, FioError> {
    let mut sections: Vec<Section> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest.strip_suffix(']').ok_or_else(|| FioError {
                path: path.into(),
                line: line_no,
                message: format!("section header {} has no closing ']'", quoted_name(line.trim_start_matches('['))),
            })?;
            if name.trim().is_empty() {
                return Err(FioError { path: path.into(), line: line_no, message: "empty section name".into() });
            }
            sections.push(Section { name: name.trim().to_string(), line: line_no, opts: Vec::new() });
            continue;
        }
        let Some(sec) = sections.last_mut() else {
            // Only the option's name, never its value.
            let key = line.split_once('=').map_or(line, |(k, _)| k).trim();
            let message = format!("option {} appears before any [section]", quoted_name(key));
            return Err(FioError { path: path.into(), line: line_no, message });
        };
        let (k, v) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (line, ""),
        };
        sec.opts.push((k.to_ascii_lowercase(), v.to_string(), line_no));
    }
    Ok(sections)
}

struct JobBuilder<'a> {
    path: &'a str,
    global: &'a Section,
    job: &'a Section,
}

impl JobBuilder<'_> {
    fn get(&self, key: &str) -> Option<(&str, u64)> {
        self.job.get(key).or_else(|| self.global.get(key))
    }
    fn err(&self, line: u64, message: String) -> FioError {
        FioError { path: self.path.into(), line, message }
    }
    fn size(&self, v: &str, line: u64, key: &str) -> Result<u64, FioError> {
        parse_size(v).map_err(|e| self.err(line, format!("option '{key}': {e}")))
    }
    fn num<T: std::str::FromStr>(&self, key: &str, default: T) -> Result<T, FioError> {
        match self.get(key) {
            None => Ok(default),
            Some((v, l)) => v.parse().map_err(|_| self.err(l, format!("option '{key}' is '{v}', expected a whole number"))),
        }
    }
    /// Splits `a,b,c` per direction (read, write); a missing write value repeats the read one,
    /// an empty one means "no value" for that direction.
    fn per_dir<'v>(&self, v: &'v str) -> (&'v str, &'v str) {
        let mut it = v.split(',');
        let r = it.next().unwrap_or("");
        let w = it.next().unwrap_or(r);
        (r, w)
    }

    fn sizes(&self) -> Result<(SizeDist, SizeDist), FioError> {
        if let Some((v, l)) = self.get("bssplit") {
            let (r, w) = self.per_dir(v);
            return Ok((self.bssplit(r, l)?, self.bssplit(w, l)?));
        }
        if let Some((v, l)) = self.get("bsrange").or_else(|| self.get("blocksize_range")) {
            let (r, w) = self.per_dir(v);
            let one = |s: &str| -> Result<SizeDist, FioError> {
                let (lo, hi) = s.split_once('-').ok_or_else(|| self.err(l, format!("bsrange '{s}' should look like 1k-4k")))?;
                let (lo, hi) = (self.size(lo, l, "bsrange")?, self.size(hi, l, "bsrange")?);
                if lo == 0 || hi < lo || lo % 512 != 0 || hi % 512 != 0 {
                    return Err(self.err(l, format!("bsrange '{s}' needs 0 < min ≤ max, multiples of 512")));
                }
                // fio issues multiples of the minimum when it is a power of two (its
                // get_next_buflen masks the length with ~(min − 1)) unless `bs_unaligned` is set;
                // otherwise any 512 B multiple in the range.
                let unaligned = self.get("bs_unaligned").is_some_and(|(v, _)| v.trim() != "0");
                if !unaligned && lo.is_power_of_two() {
                    return Ok(SizeDist::UniformBlocks { min_blocks: 1, max_blocks: (hi / lo) as u32, block: lo as u32 });
                }
                Ok(SizeDist::UniformBlocks { min_blocks: (lo / 512) as u32, max_blocks: (hi / 512) as u32, block: 512 })
            };
            return Ok((one(r)?, one(w)?));
        }
        let (v, l) = self.get("bs").or_else(|| self.get("blocksize")).unwrap_or(("4k", self.job.line));
        let (r, w) = self.per_dir(v);
        let fixed = |s: &str| -> Result<SizeDist, FioError> {
            let b = self.size(if s.is_empty() { "4k" } else { s }, l, "bs")?;
            if b == 0 || b > u32::MAX as u64 {
                return Err(self.err(l, format!("bs '{s}' must be between 1 B and 4 GiB")));
            }
            Ok(SizeDist::Fixed(b as u32))
        };
        Ok((fixed(r)?, fixed(w)?))
    }

    fn bssplit(&self, list: &str, line: u64) -> Result<SizeDist, FioError> {
        let mut values = Vec::new();
        let mut weights: Vec<Option<f64>> = Vec::new();
        for part in list.split(':').filter(|p| !p.trim().is_empty()) {
            let (s, pct) = match part.split_once('/') {
                Some((s, p)) => (s, p.trim()),
                None => (part, ""),
            };
            let b = self.size(s, line, "bssplit")?;
            if b == 0 || b > u32::MAX as u64 {
                return Err(self.err(line, format!("bssplit size '{s}' must be between 1 B and 4 GiB")));
            }
            values.push(b as u32);
            weights.push(if pct.is_empty() {
                None
            } else {
                Some(
                    pct.parse::<f64>()
                        .ok()
                        .filter(|p| p.is_finite() && *p >= 0.0)
                        .ok_or_else(|| self.err(line, format!("bssplit percentage '{pct}' is not a number")))?,
                )
            });
        }
        if values.is_empty() || values.len() > 64 {
            return Err(self.err(line, "bssplit needs 1 to 64 size/percentage entries".into()));
        }
        let given: f64 = weights.iter().flatten().sum();
        let blanks = weights.iter().filter(|w| w.is_none()).count();
        let share = if blanks > 0 { ((100.0 - given) / blanks as f64).max(0.0) } else { 0.0 };
        let w: Vec<f64> = weights.iter().map(|w| w.unwrap_or(share)).collect();
        SizeDist::empirical(values, &w).map_err(|e| self.err(line, format!("bssplit: {e}")))
    }

    fn build(&self) -> Result<FioJob, FioError> {
        let (rw, rw_line) = self.get("rw").or_else(|| self.get("readwrite")).unwrap_or(("read", self.job.line));
        let rw_base = rw.split(':').next().unwrap_or(rw);
        let (mixed, random, pure_read) = match rw_base {
            "read" => (false, false, true),
            "write" => (false, false, false),
            "randread" => (false, true, true),
            "randwrite" => (false, true, false),
            "rw" | "readwrite" => (true, false, false),
            "randrw" => (true, true, false),
            other => {
                const RW: [&str; 7] = ["read", "write", "randread", "randwrite", "rw", "readwrite", "randrw"];
                let hint = nest_core::suggest::hint(other, RW);
                return Err(
                    self.err(rw_line, format!("rw='{other}' is not supported (expected read, write, randread, randwrite, rw, readwrite or randrw){hint}"))
                );
            }
        };
        let read_fraction = if mixed {
            match (self.get("rwmixread"), self.get("rwmixwrite")) {
                (Some((v, l)), _) => pct(v).ok_or_else(|| self.err(l, format!("rwmixread '{v}' must be 0–100")))? / 100.0,
                (None, Some((v, l))) => 1.0 - pct(v).ok_or_else(|| self.err(l, format!("rwmixwrite '{v}' must be 0–100")))? / 100.0,
                _ => 0.5,
            }
        } else if pure_read {
            1.0
        } else {
            0.0
        };
        let (read_size, write_size) = self.sizes()?;
        let iodepth: u32 = self.num("iodepth", 1)?;
        let numjobs: u32 = self.num("numjobs", 1)?;
        if iodepth == 0 || numjobs == 0 {
            return Err(self.err(self.job.line, "iodepth and numjobs must be at least 1".into()));
        }
        let range = match self.get("size").or_else(|| self.get("filesize")) {
            Some((v, l)) if v.ends_with('%') => return Err(self.err(l, format!("size='{v}': a percentage of a device is not supported; give bytes"))),
            Some((v, l)) => Some(self.size(v, l, "size")?),
            None => None,
        };
        let time_based = self.get("time_based").is_some_and(|(v, _)| v.is_empty() || v == "1");
        let dur = |key: &str, default_unit: u64| -> Result<Option<SimTime>, FioError> {
            match self.get(key) {
                None => Ok(None),
                Some((v, l)) => parse_duration_with_default(v, default_unit).map(Some).map_err(|e| self.err(l, format!("option '{key}': {e}"))),
            }
        };
        let runtime = dur("runtime", PS_PER_S)?;
        let start = dur("startdelay", PS_PER_S)?.unwrap_or(SimTime::ZERO);
        let address = match self.get("random_distribution") {
            _ if !random => AddressPattern::Sequential { random_start: false },
            None => AddressPattern::Uniform,
            Some((v, l)) => {
                let mut parts = v.split(':');
                match (parts.next(), parts.next()) {
                    (Some("random"), _) => AddressPattern::Uniform,
                    (Some("zipf"), Some(theta)) => AddressPattern::Zipf(
                        theta
                            .parse()
                            .ok()
                            .filter(|t: &f64| *t > 0.0 && t.is_finite())
                            .ok_or_else(|| self.err(l, format!("zipf parameter '{theta}' must be a positive number")))?,
                    ),
                    _ => return Err(self.err(l, format!("random_distribution='{v}' is not supported (expected random or zipf:θ)"))),
                }
            }
        };
        let arrival = self.arrival(read_fraction, &read_size, &write_size, iodepth)?;
        let range_bytes = range.unwrap_or(1 << 30);
        let mean_size = read_fraction * read_size.mean() + (1.0 - read_fraction) * write_size.mean();
        let max_ios = match (range, time_based) {
            (Some(r), false) => Some(((r as f64 / mean_size).ceil() as u64).max(1)),
            _ => None,
        };
        let mut ignored = Vec::new();
        for sec in [self.global, self.job] {
            for (k, _, l) in &sec.opts {
                if !KNOWN.contains(&k.as_str()) && !INERT.contains(&k.as_str()) && !ignored.iter().any(|(i, _)| i == k) {
                    ignored.push((k.clone(), *l));
                }
            }
        }
        Ok(FioJob {
            name: self.job.name.clone(),
            spec: SyntheticSpec {
                arrival,
                read_fraction,
                read_size,
                write_size,
                address,
                range_bytes,
                range_start: 0,
                align: 512,
                start,
                stop: runtime.map(|r| start + r),
                on_off: None,
                max_ios,
                mqsim: None,
            },
            numjobs,
            iodepth,
            ignored,
        })
    }

    fn arrival(&self, rf: f64, rs: &SizeDist, ws: &SizeDist, iodepth: u32) -> Result<ArrivalSpec, FioError> {
        // Each direction's cap in I/Os per second (None = uncapped).
        let mut caps = [None, None];
        if let Some((v, l)) = self.get("rate_iops") {
            let (r, w) = self.per_dir(v);
            for (i, s) in [r, w].iter().enumerate() {
                if !s.is_empty() {
                    caps[i] =
                        Some(s.parse::<f64>().ok().filter(|x| *x > 0.0).ok_or_else(|| self.err(l, format!("rate_iops '{s}' must be a positive number")))?);
                }
            }
        }
        if let Some((v, l)) = self.get("rate") {
            let (r, w) = self.per_dir(v);
            for (i, (s, d)) in [(r, rs), (w, ws)].iter().enumerate() {
                if !s.is_empty() {
                    let bytes_per_s = self.size(s, l, "rate")? as f64;
                    if bytes_per_s <= 0.0 {
                        return Err(self.err(l, "rate must be positive".into()));
                    }
                    let iops = bytes_per_s / d.mean();
                    caps[i] = Some(caps[i].map_or(iops, |c: f64| c.min(iops)));
                }
            }
        }
        let share = [rf, 1.0 - rf];
        let total =
            (0..2).filter_map(|i| caps[i].filter(|_| share[i] > 0.0).map(|c| c / share[i])).fold(None, |acc: Option<f64>, x| Some(acc.map_or(x, |a| a.min(x))));
        Ok(match total {
            None => ArrivalSpec::Burst { outstanding: iodepth },
            Some(rate) => match self.get("rate_process") {
                Some(("poisson", _)) => ArrivalSpec::Poisson { rate },
                Some(("linear", _)) | None => ArrivalSpec::Constant { rate },
                Some((v, l)) => return Err(self.err(l, format!("rate_process='{v}' is not supported (expected linear or poisson)"))),
            },
        })
    }
}

const KNOWN: &[&str] = &[
    "rw",
    "readwrite",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "blocksize",
    "bsrange",
    "blocksize_range",
    "bs_unaligned",
    "bssplit",
    "iodepth",
    "numjobs",
    "size",
    "filesize",
    "runtime",
    "time_based",
    "startdelay",
    "rate",
    "rate_iops",
    "rate_process",
    "random_distribution",
];

fn pct(v: &str) -> Option<f64> {
    v.parse::<f64>().ok().filter(|p| (0.0..=100.0).contains(p))
}

/// Parses a fio job file; returns one [`FioJob`] per job section.
pub fn parse_job_file(text: &str, path: &str) -> Result<Vec<FioJob>, FioError> {
    let sections = split_ini(text, path)?;
    let empty = Section::default();
    let global = sections.iter().find(|s| s.name == "global").unwrap_or(&empty);
    let jobs: Vec<&Section> = sections.iter().filter(|s| s.name != "global").collect();
    if jobs.is_empty() {
        return Err(FioError { path: path.into(), line: 0, message: "the job file has no job sections (only [global] or nothing)".into() });
    }
    // fio would run both; NeSt names each job's workload after its section, so two would clash.
    for (i, job) in jobs.iter().enumerate() {
        if let Some(first) = jobs[..i].iter().find(|j| j.name == job.name) {
            return Err(FioError {
                path: path.into(),
                line: job.line,
                message: format!("job [{}] appears twice (first at line {}): give each job section its own name", job.name, first.line),
            });
        }
    }
    jobs.into_iter().map(|job| JobBuilder { path, global, job }.build()).collect()
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_file_that_is_not_a_job_file_has_no_content_echoed() {
        // Issue 63: `/proc/self/environ` printed the environment, `/etc/shadow` its first line.
        let e = parse_job_file("SECRET_TOKEN=hunter2\0PATH=/usr/bin\n", "environ").unwrap_err().to_string();
        assert!(!e.contains("hunter2") && !e.contains("/usr/bin"), "{e}");
        let e = parse_job_file("root:$6$abc:19000:0:99999:7:::\n", "shadow").unwrap_err().to_string();
        assert!(!e.contains("$6$abc") && e.contains("before any [section]") && e.contains("shadow:1"), "{e}");
        let e = parse_job_file("[secret=abc$def\n", "x").unwrap_err().to_string();
        assert!(!e.contains("abc$def") && e.contains("no closing"), "{e}");
        // A real job file's mistake still names the option.
        let e = parse_job_file("bs=4k\n[j]\n", "j.fio").unwrap_err().to_string();
        assert!(e.contains("option 'bs' appears before any [section]") && !e.contains("4k"), "{e}");
    }
    use super::*;

    const JOB: &str = "[global]\nfilename=/tmp/fiorun/testfile\nsize=32m\nioengine=psync\ntime_based=1\nruntime=3\n\
        bssplit=4k/70:16k/20:64k/10\nrandom_distribution=zipf:1.1\npercentile_list=50:90:99\n\n\
        [tenant-a]\nrw=randrw\nrwmixread=70\nrate_iops=2000,500\nthinktime=50\n\n[tenant-b]\nrw=randread\nbs=4k\nnumjobs=1\n";

    #[test]
    fn the_two_job_example_maps_as_documented() {
        let jobs = parse_job_file(JOB, "job.fio").unwrap();
        assert_eq!(jobs.len(), 2);
        let a = &jobs[0];
        assert_eq!(a.name, "tenant-a");
        assert!((a.spec.read_fraction - 0.7).abs() < 1e-12);
        // caps 2000 reads/s at 70% and 500 writes/s at 30% → total min(2857, 1667)
        match a.spec.arrival {
            ArrivalSpec::Constant { rate } => assert!((rate - 500.0 / 0.3).abs() < 1e-6, "{rate}"),
            ref other => panic!("{other:?}"),
        }
        assert_eq!(a.spec.address, AddressPattern::Zipf(1.1));
        assert_eq!(a.spec.range_bytes, 32 << 20);
        assert_eq!(a.spec.stop, Some(SimTime::from_ms(3000)));
        assert_eq!(a.spec.max_ios, None, "time_based loops");
        assert!((a.spec.read_size.mean() - (0.7 * 4096.0 + 0.2 * 16384.0 + 0.1 * 65536.0)).abs() < 1e-6);
        assert_eq!(a.ignored, vec![("thinktime".to_string(), 15)]);
        let b = &jobs[1];
        assert_eq!(b.spec.read_fraction, 1.0);
        assert_eq!(b.spec.arrival, ArrivalSpec::Burst { outstanding: 1 });
        // Real fio (shared/traces/fio_format_examples/job_output.json) applies the global
        // bssplit to tenant-b despite its own bs=4k: its mean read is 12.7 KB, not 4 KB.
        assert_eq!(b.spec.read_size, a.spec.read_size);
        let own = parse_job_file("[j]\nbs=8k,16k\n", "x").unwrap();
        assert_eq!((own[0].spec.read_size.clone(), own[0].spec.write_size.clone()), (SizeDist::Fixed(8192), SizeDist::Fixed(16384)));
    }

    #[test]
    fn bsrange_issues_multiples_of_its_minimum_as_fio_does_unless_unaligned() {
        let sizes = |text: &str| parse_job_file(text, "x").unwrap()[0].spec.read_size.clone();
        assert_eq!(sizes("[j]\nbsrange=4k-16k\n"), SizeDist::UniformBlocks { min_blocks: 1, max_blocks: 4, block: 4096 });
        assert_eq!(sizes("[j]\nbsrange=4k-16k\nbs_unaligned\n"), SizeDist::UniformBlocks { min_blocks: 8, max_blocks: 32, block: 512 });
        // fio masks only a power-of-two minimum.
        assert_eq!(sizes("[j]\nbsrange=3k-12k\n"), SizeDist::UniformBlocks { min_blocks: 6, max_blocks: 24, block: 512 });
    }

    #[test]
    fn size_without_time_based_bounds_the_io_count() {
        let jobs = parse_job_file("[j]\nrw=write\nbs=64k\nsize=1m\niodepth=8\n", "x").unwrap();
        assert_eq!(jobs[0].spec.max_ios, Some(16));
        assert_eq!(jobs[0].spec.arrival, ArrivalSpec::Burst { outstanding: 8 });
        assert_eq!(jobs[0].spec.address, AddressPattern::Sequential { random_start: false });
    }

    #[test]
    fn errors_name_file_line_and_option() {
        let e = parse_job_file("[j]\nrw=sideways\n", "bad.fio").unwrap_err();
        assert_eq!((e.line, e.path.as_str()), (2, "bad.fio"));
        assert!(e.message.contains("rw='sideways'") && !e.message.contains("did you mean"), "{}", e.message);
        let e = parse_job_file("[j]\nrw=randwirte\n", "bad.fio").unwrap_err();
        assert!(e.message.ends_with("did you mean `randwrite`?"), "{}", e.message);
        let e = parse_job_file("[j]\nbs=4furlongs\n", "bad.fio").unwrap_err();
        assert!(e.to_string().starts_with("bad.fio:2: option 'bs'"), "{e}");
        assert!(parse_job_file("rw=read\n", "x").unwrap_err().message.contains("before any [section]"));
        assert!(parse_job_file("[global]\nbs=4k\n", "x").unwrap_err().message.contains("no job sections"));
        let e = parse_job_file("[j]\nrw=read\n[j]\nrw=write\n", "dup.fio").unwrap_err();
        assert!(e.to_string().starts_with("dup.fio:3: job [j] appears twice (first at line 1)"), "{e}");
        let e = parse_job_file("[j]\nrw=randread\nrandom_distribution=pareto:0.2\n", "x").unwrap_err();
        assert!(e.message.contains("pareto"));
        // Found by the mutation test: zipf:inf passed here and failed later without the line.
        for theta in ["inf", "nan", "0", "-1"] {
            let e = parse_job_file(&format!("[j]\nrw=randread\nrandom_distribution=zipf:{theta}\n"), "z.fio").unwrap_err();
            assert!(e.to_string().starts_with("z.fio:3:") && e.message.contains("must be a positive number"), "{theta}: {e}");
        }
    }

    #[test]
    fn random_bytes_give_clean_errors() {
        let mut rng = nest_core::rng::RngStream::from_seed(5);
        for _ in 0..3000 {
            let mut b = JOB.as_bytes()[..rng.below(JOB.len() as u64) as usize].to_vec();
            for _ in 0..rng.below(5) {
                if b.is_empty() {
                    break;
                }
                let i = rng.below(b.len() as u64) as usize;
                b[i] = b"=:,/[]k%-0123456789abcxyz\n"[rng.below(26) as usize];
            }
            let text = String::from_utf8_lossy(&b);
            let _ = parse_job_file(&text, "fuzz.fio");
        }
    }
}
