//! FussyCache (thesis ch. 2): [`core::FussyCore`] plus the warm-up that tunes it.
//!
//! Warm-up (thesis 2.5.4): the first `warmup` accesses run the mechanism in Fussy mode with an
//! unbounded DMC, recording the accesses. At the end of warm-up `freq_threshold` and
//! `access_threshold` (those not fixed by the user) are tuned by alternating binary searches
//! over replays of the recorded window ([`tuning`]); the DC is pre-populated with the DMC's
//! most-counted blocks (background fetches); and the DMC's size becomes its occupancy then
//! (thesis: "approximately half the size of the DC"), clamped to [DC/4, 4·DC].

pub mod core;
pub mod tuning;

use self::core::{CoreParams, FussyCore, Mode};
use crate::{Effects, Outcome, Policy};

#[derive(Clone, Debug)]
pub struct FussyParams {
    /// Popular = accessed more than this many times; `None`: tuned during warm-up.
    pub freq_threshold: Option<u32>,
    /// Accesses between checks; `None`: tuned during warm-up.
    pub access_threshold: Option<u32>,
    /// Consecutive hit-rate declines before switching to LRU (doubles on every switch).
    pub hr_count: u32,
    /// Accesses of the warm-up phase (0: none — the fixed or default parameters apply at once).
    pub warmup: u32,
    /// DMC entries; `None`: measured at the end of warm-up.
    pub dmc_size: Option<usize>,
    /// The "do no harm" switch to LRU.
    pub lru_fallback: bool,
    pub allocate: bool,
}

/// Used when a parameter is neither given nor tuned (no warm-up); the thesis reports tuned
/// `freq_threshold` values of about 3–4.
pub const DEFAULT_FREQ_THRESHOLD: u32 = 3;
pub const DEFAULT_ACCESS_THRESHOLD: u32 = 512;

impl Default for FussyParams {
    fn default() -> Self {
        FussyParams { freq_threshold: None, access_threshold: None, hr_count: 5, warmup: 2000, dmc_size: None, lru_fallback: true, allocate: false }
    }
}

pub struct FussyCache {
    pub core: FussyCore,
    params: FussyParams,
    /// Accesses recorded during warm-up (emptied when it ends).
    window: Vec<(u64, bool)>,
    warming: bool,
    pub tuned: Option<tuning::Tuned>,
}

impl FussyCache {
    pub fn new(cap: usize, p: &FussyParams) -> Result<Self, String> {
        if p.hr_count == 0 {
            return Err("hr_count must be at least 1".into());
        }
        if p.freq_threshold == Some(0) || p.access_threshold == Some(0) {
            return Err("freq_threshold and access_threshold must be at least 1".into());
        }
        let warming = p.warmup > 0;
        let default_dmc = (cap / 2).max(16);
        let core = FussyCore::new(
            cap,
            CoreParams {
                freq_threshold: p.freq_threshold.unwrap_or(DEFAULT_FREQ_THRESHOLD),
                access_threshold: p.access_threshold.unwrap_or(DEFAULT_ACCESS_THRESHOLD),
                hr_count: p.hr_count,
                lru_fallback: p.lru_fallback,
                dmc_size: if warming { usize::MAX } else { p.dmc_size.unwrap_or(default_dmc) },
                allocate: p.allocate,
            },
        );
        Ok(FussyCache { core, params: p.clone(), window: Vec::with_capacity(p.warmup as usize), warming, tuned: None })
    }

    fn end_warmup(&mut self, fx: &mut Effects) {
        self.warming = false;
        let window = std::mem::take(&mut self.window);
        let tuned = tuning::tune(&window, self.core.cap, &self.params, self.core.p.freq_threshold, self.core.p.access_threshold);
        self.core.p.freq_threshold = tuned.freq_threshold;
        self.core.p.access_threshold = tuned.access_threshold;
        self.core.prefill(fx);
        let cap = self.core.cap;
        let measured = self.core.dmc_len().clamp((cap / 4).max(16), 4 * cap.max(4));
        self.core.set_dmc_size(self.params.dmc_size.unwrap_or(measured));
        self.tuned = Some(tuned);
    }

    pub fn core_dmc_has(&self, block: u64) -> bool {
        self.core.dmc_has(block)
    }

    pub fn set_capacity(&mut self, cap: usize, fx: &mut Effects) {
        self.core.set_capacity(cap, fx);
    }
}

impl Policy for FussyCache {
    #[inline]
    fn access(&mut self, block: u64, write: bool, _class: u8, fx: &mut Effects) -> Outcome {
        let o = self.core.access(block, write, fx);
        if self.warming {
            self.window.push((block, write));
            if self.window.len() >= self.params.warmup as usize {
                self.end_warmup(fx);
            }
        }
        o
    }
    fn len(&self) -> usize {
        self.core.dc_len()
    }
    fn capacity(&self) -> usize {
        self.core.cap
    }
    fn lookup(&self, block: u64) -> Option<bool> {
        self.core.lookup(block)
    }
    fn dirty(&self) -> usize {
        self.core.dirty()
    }
    fn extra(&self) -> Vec<(&'static str, f64)> {
        let c = &self.core;
        vec![
            ("freq_threshold", c.p.freq_threshold as f64),
            ("access_threshold", c.p.access_threshold as f64),
            ("dmc_size", c.p.dmc_size.min(u32::MAX as usize) as f64),
            ("dmc_len", c.dmc_len() as f64),
            ("hr_count", c.p.hr_count as f64),
            ("mode_switches", c.switches as f64),
            ("lru_mode", (c.mode == Mode::Lru) as u8 as f64),
            ("promoted", c.promoted as f64),
            ("checks", c.checks as f64),
        ]
    }
}
