//! One NVM set's DTWin ↔ NDWin cycle (thesis 3.2, PLMC §II-B), sans-IO: the caller reports host
//! I/O, set-feature requests, emergencies and the end of the deferred work, asks when the next
//! timed transition is due (`deadline`) and calls `poll` then. Every call returns the transition
//! it caused, if any, for the caller to act on (defer or release background work, flush the NV
//! buffer).
//!
//! - **DTWin** starts with E_RD = C_RD, E_WR = C_WR, E_T = T_DW. Host reads and writes count
//!   E_RD / E_WR down (4 KiB units, optimal-write-size units). The set leaves DTWin when the host
//!   asks (set-feature), or — forced by the set's controller — when E_RD, E_WR or E_T reaches 0,
//!   when the NV write buffer fills, or on an emergency (e.g. hard-threshold GC).
//! - **NDWin** must last at least its minimum: T_NDWL, plus (T_NDWH − T_NDWL) × the share of a
//!   full DTWin's writes the last one took (the larger of its share of C_WR and of the NV
//!   buffer): the sources tie NDWin's length to the writes of the preceding DTWin (PLMC §III-C,
//!   thesis 3.3.1). T_NDWH is what a full DTWin needs and T_NDWL what any needs (Table 3.1); in
//!   between NeSt interpolates, as the sources give only the bounds. After the minimum, it returns to DTWin once the deferred work
//!   is done (`work_done`) — at once if the host asked for DTWin meanwhile, or when the work
//!   finishes otherwise — and at T_ND_MAX whatever is left.
//! - A set in an NVM-set pool is **host-driven** ([`PlmWindow::set_host_driven`]): it leaves
//!   NDWin only when the host asked for DTWin (the pool's scheduler keeps one replica in DTWin
//!   at a time, PLMC §II-B), as soon as the minimum and the work allow, or at T_ND_MAX.

use super::attrs::PlmAttrs;
use nest_core::SimTime;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Window {
    /// Deterministic window.
    Dt,
    /// Non-deterministic window.
    Nd,
}

/// Why a window ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The host asked (set-feature).
    Host,
    /// E_T reached 0 (DTWin) or T_ND_MAX passed (NDWin).
    Time,
    /// E_RD reached 0.
    ReadBudget,
    /// E_WR reached 0.
    WriteBudget,
    /// The NV write buffer is full.
    BufferFull,
    /// An emergency management operation (hard-threshold GC).
    Emergency,
    /// NDWin's minimum passed and the deferred work is done.
    WorkDone,
}

impl Reason {
    /// In declaration order, so `reason as usize` indexes `WindowStats::ended`.
    pub const ALL: [Reason; 7] = [Reason::Host, Reason::Time, Reason::ReadBudget, Reason::WriteBudget, Reason::BufferFull, Reason::Emergency, Reason::WorkDone];

    pub fn name(self) -> &'static str {
        match self {
            Reason::Host => "host",
            Reason::Time => "time",
            Reason::ReadBudget => "read_budget",
            Reason::WriteBudget => "write_budget",
            Reason::BufferFull => "buffer_full",
            Reason::Emergency => "emergency",
            Reason::WorkDone => "work_done",
        }
    }
}

/// A change of window at `at`, into `to`, for `why`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    pub at: SimTime,
    pub to: Window,
    pub why: Reason,
}

/// What the set posts in its PLM log page (NVMe 1.4), as a host or coordinator reads it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LogPage {
    pub window: Window,
    /// E_RD: 4 KiB reads left in this DTWin (0 in NDWin).
    pub e_rd: u64,
    /// E_WR: optimal-size writes left in this DTWin (0 in NDWin).
    pub e_wr: u64,
    /// E_T: time left in this DTWin (0 in NDWin).
    pub e_t: SimTime,
    /// How long the current window has lasted.
    pub elapsed: SimTime,
    /// NDWin: the earliest time it may end (its minimum).
    pub nd_min_end: Option<SimTime>,
}

/// Per-window statistics of a set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WindowStats {
    /// Completed windows of each kind, and their total length.
    pub dt_windows: u64,
    pub nd_windows: u64,
    pub dt_time: SimTime,
    pub nd_time: SimTime,
    pub dt_longest: SimTime,
    pub nd_longest: SimTime,
    /// Host I/O counted in each window type: reads and writes (commands).
    pub reads: [u64; 2],
    pub writes: [u64; 2],
    /// Windows ended per reason (`Reason::ALL` order); all but `Host` and `WorkDone` are forced.
    pub ended: [u64; 7],
    /// Host overruns: I/O beyond a spent budget or time (it arrived in an NDWin that they
    /// forced, where the host should have held it or asked for the window change in time).
    pub overruns: u64,
}

impl WindowStats {
    /// Transitions the set's controller forced (not asked for by the host, not the normal end
    /// of an NDWin).
    pub fn forced(&self) -> u64 {
        Reason::ALL.iter().zip(&self.ended).filter(|(r, _)| !matches!(r, Reason::Host | Reason::WorkDone)).map(|(_, n)| n).sum()
    }
}

#[derive(Clone, Debug)]
pub struct PlmWindow {
    pub attrs: PlmAttrs,
    window: Window,
    started: SimTime,
    e_rd: u64,
    e_wr: u64,
    /// Bytes of DTWin writes in the NV buffer, until the caller reports them flushed.
    buffered: u64,
    /// NDWin: its minimum end, whether the deferred work is done, whether the host asked for
    /// DTWin, and whether a budget forced it (I/O in it is an overrun).
    nd_min_end: SimTime,
    work_done: bool,
    host_wants_dt: bool,
    budget_forced: bool,
    /// NDWin ends only on the host's request (a pool member).
    host_driven: bool,
    pub stats: WindowStats,
}

impl PlmWindow {
    /// A set entering DTWin at `now`.
    pub fn new(attrs: PlmAttrs, now: SimTime) -> Self {
        let mut w = PlmWindow {
            window: Window::Dt,
            started: now,
            e_rd: attrs.c_rd,
            e_wr: attrs.c_wr,
            buffered: 0,
            nd_min_end: now,
            work_done: true,
            host_wants_dt: false,
            budget_forced: false,
            host_driven: false,
            stats: WindowStats::default(),
            attrs,
        };
        w.enter_dt(now);
        w
    }

    pub fn window(&self) -> Window {
        self.window
    }

    /// Makes NDWin end only on the host's request (a member of an NVM-set pool).
    pub fn set_host_driven(&mut self, on: bool) {
        self.host_driven = on;
    }

    /// Whether the host asked for DTWin and NDWin ends only on such requests (a pool member
    /// waiting for its turn to begin).
    pub fn pool_turn_waiting(&self) -> bool {
        self.host_driven && self.host_wants_dt && self.window == Window::Nd
    }

    /// NDWin may end now that its conditions hold (autonomously, or the host asked).
    #[inline]
    fn may_leave_nd(&self) -> bool {
        !self.host_driven || self.host_wants_dt
    }

    pub fn log_page(&self, now: SimTime) -> LogPage {
        let dt = self.window == Window::Dt;
        LogPage {
            window: self.window,
            e_rd: if dt { self.e_rd } else { 0 },
            e_wr: if dt { self.e_wr } else { 0 },
            e_t: if dt { (self.started + self.attrs.t_dw).saturating_sub(now) } else { SimTime::ZERO },
            elapsed: now - self.started,
            nd_min_end: (!dt).then_some(self.nd_min_end),
        }
    }

    /// Bytes of DTWin writes waiting in the NV buffer.
    pub fn buffered(&self) -> u64 {
        self.buffered
    }

    /// The caller moved `bytes` of buffered writes to flash.
    pub fn flushed(&mut self, bytes: u64) {
        debug_assert!(bytes <= self.buffered, "flushed {bytes} of {} buffered", self.buffered);
        self.buffered -= bytes.min(self.buffered);
    }

    /// When the next timed transition is due: the end of DTWin's time, or NDWin's maximum
    /// (its minimum too, when the work is done and the host asked for DTWin).
    pub fn deadline(&self) -> SimTime {
        match self.window {
            Window::Dt => self.started + self.attrs.t_dw,
            Window::Nd if !self.may_leave_nd() => SimTime::MAX,
            Window::Nd if self.work_done => self.nd_min_end,
            Window::Nd => self.started + self.attrs.t_nd_max,
        }
    }

    /// Timed transitions due at `now`.
    pub fn poll(&mut self, now: SimTime) -> Option<Transition> {
        match self.window {
            Window::Dt if now >= self.started + self.attrs.t_dw => Some(self.enter_nd(now, Reason::Time)),
            Window::Nd if !self.may_leave_nd() => None,
            Window::Nd if self.work_done && now >= self.nd_min_end => {
                Some(self.enter_dt_for(now, if self.host_wants_dt { Reason::Host } else { Reason::WorkDone }))
            }
            Window::Nd if now >= self.started + self.attrs.t_nd_max => Some(self.enter_dt_for(now, Reason::Time)),
            _ => None,
        }
    }

    /// Counts a host command in the current window's statistics; whether the set is in DTWin
    /// (in NDWin, a command after a forced end of DTWin is an overrun).
    fn count_command(&mut self, write: bool) -> bool {
        let w = self.window as usize;
        let counter = if write { &mut self.stats.writes } else { &mut self.stats.reads };
        counter[w] += 1;
        if self.window == Window::Nd {
            // A pool sends writes to every replica and may send reads to one in NDWin on
            // purpose: its members do not overrun.
            self.stats.overruns += (self.budget_forced && !self.host_driven) as u64;
            return false;
        }
        true
    }

    /// A host read of `bytes` at `now`.
    pub fn on_read(&mut self, now: SimTime, bytes: u64) -> Option<Transition> {
        if !self.count_command(false) {
            return None;
        }
        self.e_rd = self.e_rd.saturating_sub(self.attrs.read_counts(bytes));
        (self.e_rd == 0).then(|| self.enter_nd(now, Reason::ReadBudget))
    }

    /// A host write of `bytes` at `now`, taking `buffer_bytes` of the NV buffer (whole pages).
    /// In DTWin it goes to the NV buffer (the caller holds it there until NDWin).
    pub fn on_write(&mut self, now: SimTime, bytes: u64, buffer_bytes: u64) -> Option<Transition> {
        if !self.count_command(true) {
            return None;
        }
        self.e_wr = self.e_wr.saturating_sub(self.attrs.write_counts(bytes));
        self.buffered += buffer_bytes;
        if self.buffered >= self.attrs.nv_buffer_bytes {
            return Some(self.enter_nd(now, Reason::BufferFull));
        }
        (self.e_wr == 0).then(|| self.enter_nd(now, Reason::WriteBudget))
    }

    /// Host set-feature: enter NDWin now (from DTWin), or DTWin as soon as NDWin may end.
    pub fn host_request(&mut self, now: SimTime, to: Window) -> Option<Transition> {
        match (self.window, to) {
            (Window::Dt, Window::Nd) => Some(self.enter_nd(now, Reason::Host)),
            (Window::Nd, Window::Dt) => {
                self.host_wants_dt = true;
                self.poll(now)
            }
            _ => None,
        }
    }

    /// An emergency management operation: a DTWin ends now.
    pub fn emergency(&mut self, now: SimTime) -> Option<Transition> {
        (self.window == Window::Dt).then(|| self.enter_nd(now, Reason::Emergency))
    }

    /// The caller finished the deferred work (NV buffer flushed, postponed GC done). Without a
    /// host request the set returns to DTWin once NDWin's minimum has passed.
    pub fn work_done(&mut self, now: SimTime) -> Option<Transition> {
        if self.window != Window::Nd {
            return None;
        }
        self.work_done = true;
        self.poll(now)
    }

    fn enter_nd(&mut self, now: SimTime, why: Reason) -> Transition {
        let len = now - self.started;
        self.close(Window::Dt, len, why);
        // The writes this DTWin took, as a share of a full one's, decide how much NDWin it
        // needs (reads leave no background work behind).
        let write_share = (self.attrs.c_wr - self.e_wr) as f64 / self.attrs.c_wr as f64;
        let buffer_share = self.buffered as f64 / self.attrs.nv_buffer_bytes as f64;
        let used = write_share.max(buffer_share).min(1.0);
        let (lo, hi) = (self.attrs.t_ndwl.0, self.attrs.t_ndwh.0);
        self.nd_min_end = now + SimTime(lo + ((hi - lo) as f64 * used).round() as u64);
        self.window = Window::Nd;
        self.started = now;
        self.work_done = false;
        self.host_wants_dt = false;
        self.budget_forced = matches!(why, Reason::Time | Reason::ReadBudget | Reason::WriteBudget);
        Transition { at: now, to: Window::Nd, why }
    }

    fn enter_dt_for(&mut self, now: SimTime, why: Reason) -> Transition {
        self.close(Window::Nd, now - self.started, why);
        self.enter_dt(now);
        Transition { at: now, to: Window::Dt, why }
    }

    fn enter_dt(&mut self, now: SimTime) {
        self.window = Window::Dt;
        self.started = now;
        self.e_rd = self.attrs.c_rd;
        self.e_wr = self.attrs.c_wr;
        self.budget_forced = false;
    }

    fn close(&mut self, w: Window, len: SimTime, why: Reason) {
        let s = &mut self.stats;
        match w {
            Window::Dt => {
                s.dt_windows += 1;
                s.dt_time += len;
                s.dt_longest = s.dt_longest.max(len);
            }
            Window::Nd => {
                s.nd_windows += 1;
                s.nd_time += len;
                s.nd_longest = s.nd_longest.max(len);
            }
        }
        s.ended[why as usize] += 1;
    }
}
