//! PLMC's agent at a host: what the host knows of its allocation and enforces itself (PLMC is
//! not on the data path). It learns of a new window only when PLMC's `Close` reaches it — it
//! then closes its own window (the per-window metrics are the host's, PLMC Definitions 1–3) and
//! reports the demand it saw — and of its allocation only when the `Alloc` reaches it. Between
//! the two it has no counts, so every read is an overrun; with messages that take no time there
//! is no such gap.

use super::metrics::HostWindows;
use super::Overrun;
use crate::{Action, DtRead, Msg, MsgBody, Outbox};
use nest_core::HostId;

/// Per-host counters over the whole run.
#[derive(Clone, Debug, Default)]
pub(super) struct HostTotals {
    pub allocated: u64,
    pub used: u64,
    pub demand: u64,
    /// Reads beyond the allocation sent anyway (Send), granted on asking or refused (Ask), or
    /// sent to NDWin (Nd: counted as refused).
    pub overruns: u64,
    pub granted: u64,
    pub refused: u64,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Agent {
    /// It has had an allocation (before the first, every read is DT).
    open: bool,
    /// The window its allocation belongs to.
    window: u64,
    /// This window: counts allocated (grants included), used within them, demanded since the
    /// last `Close`.
    pub alloc: u64,
    pub used: u64,
    demand: u64,
    pub metrics: HostWindows,
    pub totals: HostTotals,
}

impl Agent {
    /// A read of `counts` DT counts (request `req`).
    pub fn read(&mut self, host: HostId, counts: u64, req: u64, overrun: Overrun, out: &mut Outbox) -> DtRead {
        self.demand += counts;
        let t = &mut self.totals;
        t.demand += counts;
        if !self.open {
            return DtRead::Dt;
        }
        if self.alloc - self.used >= counts {
            self.used += counts;
            t.used += counts;
            return DtRead::Dt;
        }
        t.overruns += 1;
        match overrun {
            Overrun::Send => DtRead::Dt,
            Overrun::Ask => {
                out.push(Action::Send(Msg { host, to_host: false, body: MsgBody::Ask { req, counts } }));
                DtRead::Asked
            }
            Overrun::Nd => {
                t.refused += 1;
                DtRead::Nd
            }
        }
    }

    /// A message from PLMC.
    pub fn on_message(&mut self, host: HostId, body: MsgBody, out: &mut Outbox) {
        match body {
            MsgBody::Close { window } => {
                if self.open {
                    self.metrics.close(self.alloc, self.used, self.demand);
                }
                out.push(Action::Send(Msg { host, to_host: false, body: MsgBody::Report { window, demand: self.demand } }));
                self.alloc = 0;
                self.used = 0;
                self.demand = 0;
            }
            MsgBody::Alloc { window, counts } => {
                if !self.open {
                    // Reads before the first allocation belong to no window.
                    self.demand = 0;
                }
                self.open = true;
                self.window = window;
                self.alloc = counts;
                self.used = 0;
                self.totals.allocated += counts;
            }
            MsgBody::Grant { req, window, counts, granted } => {
                let t = &mut self.totals;
                if granted {
                    // A grant from a window the host has since closed still places its read,
                    // but no longer counts in the host's current window.
                    if window == self.window {
                        self.alloc += counts;
                        self.used += counts;
                    }
                    t.allocated += counts;
                    t.used += counts;
                    t.granted += 1;
                } else {
                    t.refused += 1;
                }
                out.push(Action::Place { req, dt: granted });
            }
            MsgBody::Report { .. } | MsgBody::Ask { .. } => unreachable!("a message for the coordinator delivered to a host"),
        }
    }
}
