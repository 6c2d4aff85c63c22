//! A client's Haechi QoS engine (§II-D): every I/O needs a token.
//!
//! - **Data access.** Reservation tokens first; then global tokens, taken from the data node's
//!   pool by remote FAA in batches of B. An FAA that returns no token leaves the client waiting
//!   for a token conversion or the next period.
//! - **Token management.** Every δ the counter X, which starts at R_i and falls at R_i/T, caps the
//!   reservation tokens left; the excess is given back (a client short of demand yields what it
//!   will not use).
//! - **Reporting.** Once the monitor asks, every δ: the reservation left and N_i (I/Os completed in
//!   the period).
//! - **Limits.** The client is throttled once it has issued L_i I/Os in the period.
//!
//! Readings NeSt takes where the paper is silent (docs/haechi.md):
//! - X is computed exactly as ⌊R_i·(T − elapsed)/T⌋ at each tick, not by repeated subtraction.
//! - A client whose FAA found the pool empty tries again at its next tick (it cannot see a
//!   conversion otherwise).
//! - Global tokens still held at a period's start expire with the reservation left: they were the
//!   old period's capacity.
//! - The δ cap applies only to a client with nothing waiting ([`DeltaCap::Idle`], SPEC §13.9's
//!   reading and the scenarios' default); [`DeltaCap::Pace`] applies it at every tick as printed
//!   (see `tests.rs` for why it matters).

use nest_core::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub struct EngineConfig {
    /// R_i: reservation, I/Os per period.
    pub reservation: u64,
    /// L_i: at most this many I/Os per period.
    pub limit: Option<u64>,
    pub period: SimTime,
    /// B: global tokens asked for per FAA.
    pub batch: u64,
    /// When the δ tick's cap X applies.
    pub cap: DeltaCap,
}

/// When the counter X caps the reservation left.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DeltaCap {
    /// At every tick, as printed (SPEC §10): a client behind the pace R_i/T loses the excess,
    /// whatever the reason it is behind. Selectable (`cap = "pace"`).
    Pace,
    /// Only at a tick where the client has no I/O waiting: a backlogged client is behind because
    /// the node is busy, not for lack of demand (the paper's stated purpose: "clients that do not
    /// consume their reservation tokens must yield them back"). SPEC §13.9's reading, the default.
    Idle,
}

/// What the client may do with its next I/O.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Issue {
    /// Issue it, backed by a reservation token.
    Reservation,
    /// Issue it, backed by a global token.
    Global,
    /// No token: perform an FAA of −B on the pool first, then call [`Engine::fetched`].
    Fetch,
    /// An FAA is in flight: wait for it.
    Fetching,
    /// The pool was empty: wait for the next tick (a conversion) or period.
    PoolEmpty,
    /// The limit L_i is reached for this period.
    Throttled,
}

/// Token accounting, over the whole run: pushed = used + returned + expired (reservation),
/// received = used + expired (global) — plus what is held now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    pub reservation_pushed: u64,
    pub reservation_used: u64,
    pub reservation_returned: u64,
    pub reservation_expired: u64,
    pub global_received: u64,
    pub global_used: u64,
    pub global_expired: u64,
    pub faas: u64,
    pub throttled: u64,
}

impl Ledger {
    /// Every count combined with `other`'s by `f`.
    fn zip(&self, other: &Ledger, f: impl Fn(u64, u64) -> u64) -> Ledger {
        Ledger {
            reservation_pushed: f(self.reservation_pushed, other.reservation_pushed),
            reservation_used: f(self.reservation_used, other.reservation_used),
            reservation_returned: f(self.reservation_returned, other.reservation_returned),
            reservation_expired: f(self.reservation_expired, other.reservation_expired),
            global_received: f(self.global_received, other.global_received),
            global_used: f(self.global_used, other.global_used),
            global_expired: f(self.global_expired, other.global_expired),
            faas: f(self.faas, other.faas),
            throttled: f(self.throttled, other.throttled),
        }
    }

    /// What happened since `earlier`, a snapshot of this ledger (a period's token counts).
    pub fn since(&self, earlier: &Ledger) -> Ledger {
        self.zip(earlier, |a, b| a - b)
    }

    /// This ledger and `other` together (one client's engines at several data nodes).
    pub fn plus(&self, other: &Ledger) -> Ledger {
        self.zip(other, |a, b| a + b)
    }
}

/// A report the engine writes to the data node (one-sided, a 64-bit word in the paper).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Reservation tokens left (after this tick's cap).
    pub residual: u64,
    /// N_i: I/Os completed so far in the period.
    pub completed: u64,
}

#[derive(Clone, Debug)]
pub struct Engine {
    cfg: EngineConfig,
    period_start: SimTime,
    /// ξ_reservation and the global tokens held.
    reservation: u64,
    global: u64,
    /// I/Os issued and completed (N_i) in the period.
    issued: u64,
    completed: u64,
    reporting: bool,
    fetching: bool,
    pool_empty: bool,
    pub ledger: Ledger,
}

impl Engine {
    pub fn new(cfg: EngineConfig) -> Engine {
        assert!(cfg.period > SimTime::ZERO && cfg.batch >= 1, "T > 0 and B ≥ 1 (checked at resolution)");
        Engine {
            cfg,
            period_start: SimTime::ZERO,
            reservation: 0,
            global: 0,
            issued: 0,
            completed: 0,
            reporting: false,
            fetching: false,
            pool_empty: false,
            ledger: Ledger::default(),
        }
    }

    /// The monitor's period-start message with `tokens` reservation tokens (R_i): they replace
    /// what was left, and the global tokens held expire.
    pub fn period_start(&mut self, now: SimTime, tokens: u64) {
        self.ledger.reservation_expired += self.reservation;
        self.ledger.global_expired += self.global;
        self.ledger.reservation_pushed += tokens;
        self.reservation = tokens;
        self.global = 0;
        self.period_start = now;
        self.issued = 0;
        self.completed = 0;
        self.reporting = false;
        self.pool_empty = false;
    }

    /// The client has an I/O to issue.
    pub fn issue(&mut self) -> Issue {
        if self.cfg.limit.is_some_and(|l| self.issued >= l) {
            self.ledger.throttled += 1;
            return Issue::Throttled;
        }
        if self.reservation > 0 {
            self.reservation -= 1;
            self.issued += 1;
            self.ledger.reservation_used += 1;
            return Issue::Reservation;
        }
        if self.global > 0 {
            self.global -= 1;
            self.issued += 1;
            self.ledger.global_used += 1;
            return Issue::Global;
        }
        if self.fetching {
            return Issue::Fetching;
        }
        if self.pool_empty {
            return Issue::PoolEmpty;
        }
        self.fetching = true;
        self.ledger.faas += 1;
        Issue::Fetch
    }

    /// The FAA's result: `got` = min(B, max(0, returned)) tokens.
    pub fn fetched(&mut self, got: u64) {
        debug_assert!(self.fetching, "a result without an FAA");
        self.fetching = false;
        self.global += got;
        self.ledger.global_received += got;
        self.pool_empty = got == 0;
    }

    /// An I/O it issued completed.
    pub fn completed(&mut self) {
        self.completed += 1;
    }

    /// The monitor asked for reports.
    pub fn start_reporting(&mut self) {
        self.reporting = true;
    }

    /// The δ tick (`backlogged`: the client has I/Os waiting): X caps the reservation left (the
    /// excess is given back); a client whose pool was empty may try again; the report, when
    /// reporting.
    pub fn tick(&mut self, now: SimTime, backlogged: bool) -> Option<Report> {
        let t = self.cfg.period.0 as u128;
        let elapsed = (now.0.saturating_sub(self.period_start.0) as u128).min(t);
        let x = (self.cfg.reservation as u128 * (t - elapsed) / t) as u64;
        let applies = self.cfg.cap == DeltaCap::Pace || !backlogged;
        if applies && self.reservation > x {
            self.ledger.reservation_returned += self.reservation - x;
            self.reservation = x;
        }
        self.pool_empty = false;
        self.reporting.then_some(Report { residual: self.reservation, completed: self.completed })
    }

    /// Reservation and global tokens held now.
    pub fn held(&self) -> (u64, u64) {
        (self.reservation, self.global)
    }

    /// N_i: I/Os completed in the current period.
    pub fn completed_in_period(&self) -> u64 {
        self.completed
    }

    pub fn issued_in_period(&self) -> u64 {
        self.issued
    }

    /// Every token accounted for.
    pub fn balanced(&self) -> bool {
        let l = &self.ledger;
        l.reservation_pushed == l.reservation_used + l.reservation_returned + l.reservation_expired + self.reservation
            && l.global_received == l.global_used + l.global_expired + self.global
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(reservation: u64, limit: Option<u64>) -> Engine {
        Engine::new(EngineConfig { reservation, limit, period: SimTime::from_ms(1000), batch: 1000, cap: DeltaCap::Pace })
    }

    #[test]
    fn reservation_tokens_first_then_global_tokens_by_faa_batches() {
        let mut e = engine(2, None);
        e.period_start(SimTime::ZERO, 2);
        assert_eq!((e.issue(), e.issue()), (Issue::Reservation, Issue::Reservation));
        assert_eq!(e.issue(), Issue::Fetch);
        assert_eq!(e.issue(), Issue::Fetching, "one FAA at a time");
        e.fetched(1000);
        for _ in 0..1000 {
            assert_eq!(e.issue(), Issue::Global);
        }
        assert_eq!(e.issue(), Issue::Fetch);
        e.fetched(300); // the pool had 300 left (returned 300 < B)
        assert_eq!(e.held(), (0, 300));
        for _ in 0..300 {
            e.issue();
        }
        assert_eq!(e.issue(), Issue::Fetch);
        e.fetched(0); // the pool was at or below zero
        assert_eq!(e.issue(), Issue::PoolEmpty, "waits for a conversion or the next period");
        e.tick(SimTime::from_ms(1), true);
        assert_eq!(e.issue(), Issue::Fetch, "tries again at its next tick");
        e.fetched(0);
        assert_eq!((e.ledger.faas, e.ledger.global_received, e.ledger.global_used, e.issued_in_period()), (4, 1300, 1300, 1302));
        assert!(e.balanced());
    }

    #[test]
    fn the_delta_tick_caps_unused_reservation_at_x_and_gives_the_excess_back() {
        let mut e = engine(1000, None);
        e.period_start(SimTime::ZERO, 1000);
        for _ in 0..100 {
            e.issue();
        }
        // At 100 ms X = 900: 900 left, nothing to give back.
        assert_eq!(e.tick(SimTime::from_ms(100), false), None, "no report before the monitor asks");
        assert_eq!((e.held().0, e.ledger.reservation_returned), (900, 0));
        // At 500 ms X = 500: a client that did nothing since gives 400 back.
        e.start_reporting();
        e.completed();
        assert_eq!(e.tick(SimTime::from_ms(500), true), Some(Report { residual: 500, completed: 1 }));
        assert_eq!(e.ledger.reservation_returned, 400);
        // X at 999.5 ms is ⌊1000 × 0.5 / 1000⌋ = 0: all given back by the period's end.
        e.tick(SimTime(999_500_000_000), false);
        assert_eq!((e.held().0, e.ledger.reservation_returned), (0, 900));
        assert!(e.balanced());
    }

    #[test]
    fn a_new_period_replaces_the_reservation_and_expires_global_tokens() {
        let mut e = engine(10, None);
        e.period_start(SimTime::ZERO, 10);
        for _ in 0..11 {
            e.issue();
        }
        e.fetched(1000);
        e.issue();
        e.start_reporting();
        e.period_start(SimTime::from_ms(1000), 10);
        assert_eq!(e.held(), (10, 0));
        assert_eq!((e.ledger.global_expired, e.ledger.reservation_expired, e.issued_in_period()), (999, 0, 0));
        assert_eq!(e.tick(SimTime::from_ms(1001), false), None, "reporting restarts only when asked, each period");
        assert!(e.balanced());
    }

    #[test]
    fn a_limit_throttles_the_client_for_the_rest_of_the_period() {
        let mut e = engine(5, Some(3));
        e.period_start(SimTime::ZERO, 5);
        assert_eq!([e.issue(), e.issue(), e.issue(), e.issue()], [Issue::Reservation, Issue::Reservation, Issue::Reservation, Issue::Throttled]);
        assert_eq!(e.ledger.throttled, 1);
        e.period_start(SimTime::from_ms(1000), 5);
        assert_eq!(e.issue(), Issue::Reservation, "a new period lifts it");
        assert_eq!(e.ledger.reservation_expired, 2);
        assert!(e.balanced());
    }

    #[test]
    fn the_idle_cap_spares_a_backlogged_client() {
        let mut e = Engine::new(EngineConfig { reservation: 1000, limit: None, period: SimTime::from_ms(1000), batch: 1000, cap: DeltaCap::Idle });
        e.period_start(SimTime::ZERO, 1000);
        e.tick(SimTime::from_ms(500), true);
        assert_eq!(e.held().0, 1000, "behind the pace but backlogged: kept");
        e.tick(SimTime::from_ms(600), false);
        assert_eq!((e.held().0, e.ledger.reservation_returned), (400, 600), "nothing waiting: capped at X");
        assert!(e.balanced());
    }
}
