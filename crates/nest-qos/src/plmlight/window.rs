//! PLMLight's emulated windows for one SSD without PLM (thesis 3.6): the drive cannot defer its
//! own background work, so the windows are a promise the coordinator and the write-handling
//! agent keep between them. A DTWin lasts T_DW, or less when the device's write DC is spent;
//! the NDWin that follows lasts while the redirected writes are flushed to the SSD, at least
//! T_NDWL and at most T_NDWH (then the next DTWin starts and the flush waits for the next
//! NDWin). The clock only says when; `mod.rs` does what each change means.

use nest_core::SimTime;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Win {
    Dt,
    Nd,
}

/// Why an NDWin started.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NdCause {
    /// T_DW passed.
    Time,
    /// A write did not fit in what was left of the write DC.
    WriteDc,
}

#[derive(Clone, Debug)]
pub struct Clock {
    pub win: Win,
    /// When the current window started.
    pub since: SimTime,
    pub t_dw: SimTime,
    pub t_ndwl: SimTime,
    pub t_ndwh: SimTime,
    /// Windows started, NDWins the write DC forced, NDWins cut at T_NDWH with flushing left.
    pub dt_windows: u64,
    pub nd_windows: u64,
    pub nd_forced: u64,
    pub nd_capped: u64,
    /// Time spent in closed windows of each kind.
    pub dt_time: SimTime,
    pub nd_time: SimTime,
}

impl Clock {
    /// Starts in DTWin at `now`.
    pub fn new(now: SimTime, t_dw: SimTime, t_ndwl: SimTime, t_ndwh: SimTime) -> Clock {
        assert!(t_dw > SimTime::ZERO && t_ndwl > SimTime::ZERO && t_ndwl <= t_ndwh, "T_DW > 0, 0 < T_NDWL ≤ T_NDWH (checked at resolution)");
        Clock {
            win: Win::Dt,
            since: now,
            t_dw,
            t_ndwl,
            t_ndwh,
            dt_windows: 1,
            nd_windows: 0,
            nd_forced: 0,
            nd_capped: 0,
            dt_time: SimTime::ZERO,
            nd_time: SimTime::ZERO,
        }
    }

    /// The DTWin ends (T_DW passed or the write DC is spent).
    pub fn to_nd(&mut self, now: SimTime, cause: NdCause) {
        debug_assert_eq!(self.win, Win::Dt);
        self.dt_time += now - self.since;
        self.win = Win::Nd;
        self.since = now;
        self.nd_windows += 1;
        if cause == NdCause::WriteDc {
            self.nd_forced += 1;
        }
    }

    /// The NDWin ends; `flush_left`: redirected writes still to flush (it was cut at T_NDWH).
    pub fn to_dt(&mut self, now: SimTime, flush_left: bool) {
        debug_assert_eq!(self.win, Win::Nd);
        self.nd_time += now - self.since;
        self.win = Win::Dt;
        self.since = now;
        self.dt_windows += 1;
        if flush_left {
            self.nd_capped += 1;
        }
    }

    /// Whether T_DW has passed in the current DTWin.
    pub fn dt_over(&self, now: SimTime) -> bool {
        self.win == Win::Dt && now >= self.since + self.t_dw
    }

    /// Whether the current NDWin may end: its flush is done and T_NDWL has passed, or T_NDWH has.
    pub fn nd_over(&self, now: SimTime, flush_done: bool) -> bool {
        self.win == Win::Nd && (now >= self.since + self.t_ndwh || (flush_done && now >= self.since + self.t_ndwl))
    }

    /// When the clock must look again: the DTWin's end, or the NDWin's minimum (not yet passed)
    /// or maximum.
    pub fn next_check(&self, now: SimTime) -> SimTime {
        match self.win {
            Win::Dt => self.since + self.t_dw,
            Win::Nd if now < self.since + self.t_ndwl => self.since + self.t_ndwl,
            Win::Nd => self.since + self.t_ndwh,
        }
    }

    /// Time in each kind of window up to `now`, the open one included.
    pub fn times(&self, now: SimTime) -> (SimTime, SimTime) {
        let open = now - self.since;
        match self.win {
            Win::Dt => (self.dt_time + open, self.nd_time),
            Win::Nd => (self.dt_time, self.nd_time + open),
        }
    }
}
