//! Streaming replay of real block traces (SPEC §3; formats in `shared/traces/README.md`).
//!
//! A [`TraceSource`] reads one line at a time (never the whole file), parses it with the
//! format's [`LineParser`], passes records through a bounded reorder window (real traces are not
//! strictly sorted: SYSTOR, Tencent and FlashNet files are not), makes times relative to the
//! first record, applies time scaling and LBA remapping, and yields [`TraceRecord`]s.
//!
//! Errors name the file and line and say what was expected. Lines that are not I/Os by the
//! format's own definition (headers, blkparse trailers and non-I/O actions, SYSTOR's blank
//! IOType, trims, zero-length records) are skipped and counted in [`TraceStats`], never silently.

mod ascii;
mod blkparse;
mod csv_formats;
mod fields;
mod reorder;

use crate::request::Op;
use nest_core::SimTime;
use reorder::ReorderWindow;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The trace formats NeSt reads, by their CLI/scenario names.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    Systor17,
    Msr,
    Tencent,
    Alibaba,
    Blkparse,
    /// DiskSim ASCII: float milliseconds, hex flags (bit 0 = read).
    Disksim,
    /// MQSim's ASCII traces: DiskSim columns, integer time in nanoseconds by default.
    Mqsim,
    Flashnet,
    Cloudphysics,
}

impl TraceFormat {
    pub const ALL: [TraceFormat; 9] = [
        TraceFormat::Systor17,
        TraceFormat::Msr,
        TraceFormat::Tencent,
        TraceFormat::Alibaba,
        TraceFormat::Blkparse,
        TraceFormat::Disksim,
        TraceFormat::Mqsim,
        TraceFormat::Flashnet,
        TraceFormat::Cloudphysics,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Systor17 => "systor17",
            TraceFormat::Msr => "msr",
            TraceFormat::Tencent => "tencent",
            TraceFormat::Alibaba => "alibaba",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::Disksim => "disksim",
            TraceFormat::Mqsim => "mqsim",
            TraceFormat::Flashnet => "flashnet",
            TraceFormat::Cloudphysics => "cloudphysics",
        }
    }

    pub fn from_name(s: &str) -> Result<Self, String> {
        Self::ALL.iter().copied().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|f| f.name()).collect();
            format!("unknown trace format '{s}' (expected one of: {})", names.join(", "))
        })
    }

    /// The unit of a bare time value, in picoseconds, when the user does not override it.
    pub fn default_time_unit_ps(self) -> u64 {
        use nest_core::time::*;
        match self {
            TraceFormat::Disksim | TraceFormat::Flashnet => PS_PER_MS,
            TraceFormat::Mqsim => PS_PER_NS,
            TraceFormat::Alibaba => PS_PER_US,
            TraceFormat::Cloudphysics => PS_PER_S,
            // Formats whose timestamps carry their own unit ignore this.
            _ => PS_PER_S,
        }
    }

    /// Whether the format's clock counts from the trace's start (so time 0 means something and a
    /// repeated round begins after the last record's time on that clock, as MQSim's
    /// `Relay_Count` does) rather than being a wall clock.
    pub fn clock_from_zero(self) -> bool {
        matches!(self, TraceFormat::Disksim | TraceFormat::Mqsim | TraceFormat::Flashnet | TraceFormat::Blkparse)
    }
}

/// How a trace is replayed.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceOptions {
    /// Multiply inter-arrival times by this (0.5 replays twice as fast).
    pub time_scale: f64,
    /// Unit of bare time values for formats where it varies (disksim, mqsim, flashnet…).
    pub time_unit_ps: Option<u64>,
    /// Added to every offset (bytes), before `range` wrapping.
    pub offset_shift: u64,
    /// An offset past this (bytes) is first taken modulo it, before `range` wrapping: MQSim's
    /// trace flow keeps an address up to its slice's `end − start` and takes a larger one modulo
    /// that (`src/host/IO_Flow_Trace_Based.cpp:49-57`) — a modulus that does not depend on the
    /// request's size, where `range` wrapping keeps the whole request inside.
    pub wrap_at: Option<u64>,
    /// Offsets are wrapped into [0, range) (keeping `align` alignment) when set.
    pub range: Option<u64>,
    /// Added to every offset after wrapping: where the trace's slice of the device starts (the
    /// workload's `range_start`; MQSim puts each trace flow in a slice of its own).
    pub base: u64,
    pub align: u32,
    /// Only records of this device/volume/LUN (None: all).
    pub device: Option<u64>,
    /// Records that fall more than this many records out of order are clamped, not sorted.
    pub reorder_window: usize,
    /// Skip (and count) malformed lines instead of failing.
    pub skip_invalid: bool,
    /// Stop after this many I/O records.
    pub max_records: Option<u64>,
    /// When the trace's first record is replayed: every time is shifted by this (the workload's
    /// `start`; PLMC's DS4 shifts two of DS1's traces by 200 and 400 ms).
    pub start: SimTime,
    /// Records at or after this simulated time end the replay (the workload's `stop`).
    pub stop: Option<SimTime>,
    /// Times the whole trace is replayed (MQSim's `Relay_Count`): round k + 1 begins where round
    /// k's last record arrived — every record of it shifted by that record's time on the trace's
    /// clock (`clock_from_zero` formats; MQSim's rule, `IO_Flow_Trace_Based.cpp:145-162`) or by
    /// the span from the first record to the last (wall-clock formats, whose zero means nothing).
    /// `max_records` counts over every round.
    pub repeat: u32,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            time_scale: 1.0,
            time_unit_ps: None,
            offset_shift: 0,
            wrap_at: None,
            range: None,
            base: 0,
            align: 512,
            device: None,
            reorder_window: 65_536,
            skip_invalid: false,
            max_records: None,
            start: SimTime::ZERO,
            stop: None,
            repeat: 1,
        }
    }
}

/// One I/O of a trace, ready to replay: time relative to the trace start.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    pub time: SimTime,
    pub op: Op,
    pub offset: u64,
    pub size: u32,
    pub device: u64,
}

/// A record as parsed: absolute time in picoseconds (the trace's own epoch).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RawRecord {
    pub time_ps: i128,
    pub op: Op,
    pub offset: u64,
    pub size: u64,
    pub device: u64,
}

/// Why a line yielded no record.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    Header,
    /// Not an I/O by the format's definition (blkparse actions, trailers, comments, blank lines).
    NotIo,
    /// An I/O whose operation is neither read nor write (trim, flush, unknown).
    OtherOp,
    ZeroSize,
}

pub enum Parsed {
    Record(RawRecord),
    Skip(Skip),
}

/// Parses one line of one format.
pub trait LineParser {
    /// `first` is true for the first non-empty line (headers live there).
    fn parse(&mut self, line: &str, first: bool) -> Result<Parsed, String>;
    /// Clocks the parser had to rebase (blkparse CPUs); 0 for other formats.
    fn rebased_clocks(&self) -> u64 {
        0
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceStats {
    pub lines: u64,
    pub records: u64,
    pub headers: u64,
    pub not_io: u64,
    pub other_ops: u64,
    pub zero_size: u64,
    pub invalid: u64,
    pub filtered_device: u64,
    /// Records that arrived later than the reorder window could fix; replayed at the window's time.
    pub late: u64,
    /// blkparse CPUs whose clock was not rebased and had to be shifted.
    pub rebased_clocks: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    pub path: String,
    pub line: u64,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: {}", self.path, self.line, self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for TraceError {}

/// Opens the trace again from its first line, for another round of `repeat`.
type Rewind = Box<dyn FnMut() -> std::io::Result<Box<dyn BufRead + Send + Sync>> + Send + Sync>;

/// A streaming, reordering, rescaling trace reader.
pub struct TraceSource {
    path: String,
    rewind: Option<Rewind>,
    /// Rounds of `repeat` begun (1 in the first), and what the current round adds to every raw
    /// time.
    round: u32,
    round_shift: i128,
    /// The latest raw time the current round emitted (before its shift).
    round_last: i128,
    /// blkparse clocks rebased in the rounds before this one.
    rebased_before: u64,
    format: TraceFormat,
    reader: Box<dyn BufRead + Send + Sync>,
    parser: Box<dyn LineParser + Send + Sync>,
    opts: TraceOptions,
    buf: Vec<u8>,
    lineno: u64,
    seen_first: bool,
    eof: bool,
    /// A record reached `opts.stop`: the replay is over.
    stopped: bool,
    window: ReorderWindow,
    t0: Option<i128>,
    last_emitted: i128,
    emitted: u64,
    stats: TraceStats,
}

impl TraceSource {
    pub fn open(path: &Path, format: TraceFormat, opts: TraceOptions) -> Result<Self, TraceError> {
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| TraceError { path: name.clone(), line: 0, message: format!("cannot open trace: {e}") })?;
        let mut src = Self::from_reader(name, Box::new(BufReader::with_capacity(1 << 16, file)), format, opts)?;
        let again = path.to_path_buf();
        src.rewind = Some(Box::new(move || Ok(Box::new(BufReader::with_capacity(1 << 16, File::open(&again)?)))));
        Ok(src)
    }

    fn parser(format: TraceFormat, unit: u64) -> Box<dyn LineParser + Send + Sync> {
        match format {
            TraceFormat::Systor17 => Box::new(csv_formats::Systor17),
            TraceFormat::Msr => Box::new(csv_formats::Msr),
            TraceFormat::Tencent => Box::new(csv_formats::Tencent),
            TraceFormat::Alibaba => Box::new(csv_formats::Alibaba { unit_ps: unit }),
            TraceFormat::Cloudphysics => Box::new(csv_formats::CloudPhysics { unit_ps: unit }),
            TraceFormat::Blkparse => Box::new(blkparse::Blkparse::default()),
            TraceFormat::Disksim => Box::new(ascii::DiskSim { unit_ps: unit, mqsim_types: false }),
            TraceFormat::Mqsim => Box::new(ascii::DiskSim { unit_ps: unit, mqsim_types: true }),
            TraceFormat::Flashnet => Box::new(ascii::FlashNet { unit_ps: unit }),
        }
    }

    pub fn from_reader(path: String, reader: Box<dyn BufRead + Send + Sync>, format: TraceFormat, opts: TraceOptions) -> Result<Self, TraceError> {
        if !(opts.time_scale > 0.0 && opts.time_scale.is_finite()) {
            return Err(TraceError { path, line: 0, message: format!("time_scale must be positive, got {}", opts.time_scale) });
        }
        if opts.repeat == 0 {
            return Err(TraceError { path, line: 0, message: "repeat must be at least 1".into() });
        }
        let parser = Self::parser(format, opts.time_unit_ps.unwrap_or(format.default_time_unit_ps()));
        let window = ReorderWindow::new(opts.reorder_window.max(1));
        Ok(TraceSource {
            path,
            rewind: None,
            round: 1,
            round_shift: 0,
            round_last: i128::MIN,
            rebased_before: 0,
            format,
            reader,
            parser,
            opts,
            buf: Vec::with_capacity(256),
            lineno: 0,
            seen_first: false,
            eof: false,
            stopped: false,
            window,
            t0: None,
            last_emitted: i128::MIN,
            emitted: 0,
            stats: TraceStats::default(),
        })
    }

    pub fn format(&self) -> TraceFormat {
        self.format
    }
    pub fn stats(&self) -> TraceStats {
        self.stats
    }

    fn err(&self, message: String) -> TraceError {
        TraceError { path: self.path.clone(), line: self.lineno, message }
    }

    /// Reads lines until one yields a record (Ok(Some)) or the file ends (Ok(None)).
    fn read_raw(&mut self) -> Result<Option<RawRecord>, TraceError> {
        loop {
            self.buf.clear();
            let n = self.reader.read_until(b'\n', &mut self.buf).map_err(|e| self.err(format!("read error: {e}")))?;
            if n == 0 {
                return Ok(None);
            }
            self.lineno += 1;
            self.stats.lines += 1;
            let line = match std::str::from_utf8(&self.buf) {
                Ok(s) => s.trim(),
                Err(_) => {
                    if self.opts.skip_invalid {
                        self.stats.invalid += 1;
                        continue;
                    }
                    return Err(self.err(format!("line is not valid UTF-8 text (is this a {} trace?)", self.format.name())));
                }
            };
            if line.is_empty() {
                self.stats.not_io += 1;
                continue;
            }
            let first = !self.seen_first;
            self.seen_first = true;
            match self.parser.parse(line, first) {
                Ok(Parsed::Record(r)) => {
                    if self.opts.device.is_some_and(|d| d != r.device) {
                        self.stats.filtered_device += 1;
                        continue;
                    }
                    return Ok(Some(r));
                }
                Ok(Parsed::Skip(s)) => match s {
                    Skip::Header => self.stats.headers += 1,
                    Skip::NotIo => self.stats.not_io += 1,
                    Skip::OtherOp => self.stats.other_ops += 1,
                    Skip::ZeroSize => self.stats.zero_size += 1,
                },
                Err(msg) => {
                    if self.opts.skip_invalid {
                        self.stats.invalid += 1;
                        continue;
                    }
                    return Err(self.err(format!("{msg} (format {})", self.format.name())));
                }
            }
        }
    }

    /// The next record in time order, or `None` at the end of the trace.
    pub fn next_record(&mut self) -> Result<Option<TraceRecord>, TraceError> {
        if self.stopped || self.opts.max_records.is_some_and(|m| self.emitted >= m) {
            return Ok(None);
        }
        while !self.eof && !self.window.is_full() {
            match self.read_raw()? {
                Some(r) => self.window.push(r),
                None => self.eof = true,
            }
        }
        self.stats.rebased_clocks = self.rebased_before + self.parser.rebased_clocks();
        let Some(mut r) = self.window.pop() else {
            return if self.next_round()? { self.next_record() } else { Ok(None) };
        };
        self.round_last = self.round_last.max(r.time_ps);
        r.time_ps += self.round_shift;
        if r.time_ps < self.last_emitted {
            self.stats.late += 1;
            r.time_ps = self.last_emitted;
        }
        self.last_emitted = r.time_ps;
        let t0 = *self.t0.get_or_insert(r.time_ps);
        let rel = (r.time_ps - t0) as f64 * self.opts.time_scale;
        if rel >= u64::MAX as f64 {
            return Err(self.err("trace spans more than ~213 days of simulated time after scaling".into()));
        }
        let time = self.opts.start + SimTime(rel.round() as u64);
        if self.opts.stop.is_some_and(|stop| time >= stop) {
            self.stopped = true;
            return Ok(None);
        }
        let size: u32 = r.size.try_into().map_err(|_| self.err(format!("request size {} B exceeds 4 GiB", r.size)))?;
        let mut offset = r.offset.wrapping_add(self.opts.offset_shift);
        if let Some(m) = self.opts.wrap_at.filter(|&m| offset > m) {
            offset %= m;
        }
        if let Some(range) = self.opts.range {
            let align = self.opts.align.max(1) as u64;
            let slots = (range.saturating_sub(size as u64) / align).max(1);
            offset = (offset / align % slots) * align;
        }
        offset = offset.wrapping_add(self.opts.base);
        self.emitted += 1;
        self.stats.records += 1;
        Ok(Some(TraceRecord { time, op: r.op, offset, size, device: r.device }))
    }
}

impl TraceSource {
    /// The trace ended: begins the next round of `repeat`, if one is left (false otherwise).
    fn next_round(&mut self) -> Result<bool, TraceError> {
        if self.round >= self.opts.repeat || self.round_last == i128::MIN {
            return Ok(false);
        }
        let Some(rewind) = self.rewind.as_mut() else {
            return Err(self.err("repeat needs a trace that can be read again from its start (a file)".into()));
        };
        let reader = rewind().map_err(|e| TraceError { path: self.path.clone(), line: 0, message: format!("cannot open trace again: {e}") })?;
        let origin = if self.format.clock_from_zero() { 0 } else { self.t0.unwrap_or(0) };
        // MQSim: the next round's offset is the simulated time of this round's last arrival.
        self.round_shift += self.round_last - origin;
        self.round += 1;
        self.round_last = i128::MIN;
        self.rebased_before += self.parser.rebased_clocks();
        self.parser = Self::parser(self.format, self.opts.time_unit_ps.unwrap_or(self.format.default_time_unit_ps()));
        self.reader = reader;
        (self.lineno, self.seen_first, self.eof) = (0, false, false);
        Ok(true)
    }
}

/// Opens a trace from bytes in memory (tests, fuzzing).
pub fn from_bytes(name: &str, bytes: Vec<u8>, format: TraceFormat, opts: TraceOptions) -> Result<TraceSource, TraceError> {
    let bytes = std::sync::Arc::new(bytes);
    let mut src = TraceSource::from_reader(name.to_string(), Box::new(std::io::Cursor::new(bytes.to_vec())), format, opts)?;
    src.rewind = Some(Box::new(move || Ok(Box::new(std::io::Cursor::new(bytes.to_vec())))));
    Ok(src)
}

/// Counts the I/O records of a whole trace (streaming) — used by tests and `nestsim replay`.
pub fn count_records(path: &Path, format: TraceFormat, opts: TraceOptions) -> Result<(u64, TraceStats), TraceError> {
    let mut src = TraceSource::open(path, format, opts)?;
    let mut n = 0;
    while src.next_record()?.is_some() {
        n += 1;
    }
    Ok((n, src.stats()))
}

#[cfg(test)]
mod tests;
