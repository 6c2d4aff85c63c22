//! blkparse's default text output (`%D %2c %8s %5T.%9t %5p %2a %3d` then action-specific text).
//!
//! Which events are I/Os: one action is chosen — the first of Q (queued), D (issued) or C
//! (completed) that appears — and only lines of that action are replayed, so a full trace
//! (Q, G, I, D, C per request) replays each request once at its arrival, while a
//! completions-only capture (like the LevelDB sample) still replays. RWBS with R → read, W →
//! write; discards and flushes are counted and skipped. Trailer and summary lines are not
//! events and are skipped.
//!
//! Unrebased CPU clocks: blktrace rebases each CPU's clock to the trace start, but real files
//! contain CPUs that were not (the sample has a CPU at 1266874889 s among ones at 0–30 s).
//! When a CPU first appears more than [`MAX_CLOCK_SKEW_S`] away from the trace's running time,
//! that CPU's clock is shifted onto the running time and the shift is counted.

use super::fields::{decimal_ps, sectors, uint};
use super::{LineParser, Parsed, RawRecord, Skip};
use crate::request::Op;
use nest_core::time::PS_PER_S;

pub const MAX_CLOCK_SKEW_S: i128 = 3600;

#[derive(Default)]
pub struct Blkparse {
    action: Option<char>,
    cpu_offsets: Vec<Option<i128>>,
    running: Option<i128>,
    rebased: u64,
}

impl Blkparse {
    fn rebase(&mut self, cpu: usize, t: i128) -> i128 {
        if cpu >= self.cpu_offsets.len() {
            self.cpu_offsets.resize(cpu + 1, None);
        }
        let off = match self.cpu_offsets[cpu] {
            Some(o) => o,
            None => {
                let o = match self.running {
                    Some(run) if (t - run).abs() > MAX_CLOCK_SKEW_S * PS_PER_S as i128 => {
                        self.rebased += 1;
                        run - t
                    }
                    _ => 0,
                };
                self.cpu_offsets[cpu] = Some(o);
                o
            }
        };
        let t = t + off;
        self.running = Some(self.running.map_or(t, |r| r.max(t)));
        t
    }
}

impl LineParser for Blkparse {
    fn parse(&mut self, line: &str, _first: bool) -> Result<Parsed, String> {
        let f: Vec<&str> = line.split_ascii_whitespace().collect();
        // An event line starts with "maj,min"; anything else (trailer, summaries) is not an event.
        let is_event = f.len() >= 7
            && f[0]
                .split_once(',')
                .is_some_and(|(a, b)| a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit()) && !a.is_empty() && !b.is_empty());
        if !is_event {
            return Ok(Parsed::Skip(Skip::NotIo));
        }
        let action = f[5];
        let act = match action {
            "Q" | "D" | "C" => action.chars().next().expect("non-empty"),
            _ => return Ok(Parsed::Skip(Skip::NotIo)),
        };
        match self.action {
            None => self.action = Some(act),
            Some(a) if a != act => return Ok(Parsed::Skip(Skip::NotIo)),
            _ => {}
        }
        let cpu = uint(f[1], "cpu")?;
        if cpu > 65_535 {
            return Err(format!("field 'cpu' is {cpu}, expected a CPU number below 65536"));
        }
        let t = decimal_ps(f[3], PS_PER_S, "time")?;
        let rwbs = f[6];
        // "sector + nblocks" follows the RWBS field.
        if f.len() < 10 || f[8] != "+" {
            return Ok(Parsed::Skip(Skip::NotIo)); // e.g. a flush with no sector range
        }
        let sector = uint(f[7], "sector")?;
        let nblocks = uint(f[9], "nblocks")?;
        let op = if rwbs.contains('D') {
            return Ok(Parsed::Skip(Skip::OtherOp));
        } else if rwbs.contains('R') {
            Op::Read
        } else if rwbs.contains('W') {
            Op::Write
        } else {
            return Ok(Parsed::Skip(Skip::OtherOp));
        };
        let t = self.rebase(cpu as usize, t);
        let size = sectors(nblocks, "nblocks")?;
        if size == 0 {
            return Ok(Parsed::Skip(Skip::ZeroSize));
        }
        Ok(Parsed::Record(RawRecord { time_ps: t, op, offset: sectors(sector, "sector")?, size, device: 0 }))
    }

    fn rebased_clocks(&self) -> u64 {
        self.rebased
    }
}
