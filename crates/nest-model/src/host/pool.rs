//! An NVM-set pool on the host side (PLMC §II-B, Fig. 3): the replicas of a `dt-active` volume
//! take turns in DTWin, one at a time. The replica whose turn it is serves the reads; when it
//! leaves DTWin — T_DW spent, a count budget spent, an emergency — the turn passes to the next
//! replica, which the host asks for DTWin (set-feature) and which enters it as soon as its NDWin
//! may end. The drives say when their windows change (`nest_ssd::Outbox::plm`); the pool reacts
//! to that, so it needs no timers of its own.

/// Whether a replica's set is in DTWin, and what the pool did.
pub struct PoolRt {
    /// The replica whose turn it is (in DTWin, or asked to enter it).
    pub turn: usize,
    /// Per replica: its set is in DTWin.
    pub dt: Vec<bool>,
    /// Round robin among the replicas in NDWin, for reads the DT-active replica must not serve.
    next_nd: usize,
    /// DTWins started, turns passed on, and reads served by the DT-active replica, by one in
    /// NDWin for want of a DT allocation, and with no replica in DTWin.
    pub windows: u64,
    pub turns: u64,
    pub reads_dt: u64,
    pub reads_nd: u64,
    pub reads_gap: u64,
}

/// What the pool makes of a replica's window change.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PoolStep {
    Nothing,
    /// The turn passed to this replica: ask it for DTWin.
    AskDt(usize),
    /// The replica whose turn it is entered DTWin: a new window (PLMC allocates).
    WindowStarts,
}

impl PoolRt {
    /// At time zero every set is in DTWin; replica 0 keeps it, the others are sent to NDWin.
    pub fn new(replicas: usize) -> PoolRt {
        let mut dt = vec![false; replicas];
        dt[0] = true;
        PoolRt { turn: 0, dt, next_nd: 0, windows: 1, turns: 0, reads_dt: 0, reads_nd: 0, reads_gap: 0 }
    }

    /// Replica `r` entered DTWin (`to_dt`) or NDWin.
    pub fn changed(&mut self, r: usize, to_dt: bool) -> PoolStep {
        self.dt[r] = to_dt;
        match (to_dt, r == self.turn) {
            (false, true) => {
                self.turn = (self.turn + 1) % self.dt.len();
                self.turns += 1;
                PoolStep::AskDt(self.turn)
            }
            (true, true) => {
                self.windows += 1;
                PoolStep::WindowStarts
            }
            // Only the replica whose turn it is is asked for DTWin; another one's NDWin
            // minimum passing changes nothing.
            _ => PoolStep::Nothing,
        }
    }

    /// The replica that serves a read: the DT-active one when `dt` (or, in a gap between two
    /// DTWins, the one about to enter DTWin); one in NDWin otherwise.
    pub fn read_replica(&mut self, dt: bool) -> usize {
        if dt {
            if self.dt[self.turn] {
                self.reads_dt += 1;
            } else {
                self.reads_gap += 1;
            }
            return self.turn;
        }
        self.reads_nd += 1;
        let n = self.dt.len();
        for k in 0..n {
            let r = (self.next_nd + k) % n;
            if !self.dt[r] && r != self.turn {
                self.next_nd = r + 1;
                return r;
            }
        }
        self.turn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_turn_passes_when_the_dt_active_replica_leaves_dtwin() {
        let mut p = PoolRt::new(3);
        assert_eq!(p.read_replica(true), 0);
        assert_eq!(p.read_replica(false), 1, "a replica in NDWin");
        assert_eq!(p.read_replica(false), 2, "round robin among them");
        assert_eq!(p.changed(0, false), PoolStep::AskDt(1));
        assert_eq!(p.read_replica(true), 1, "in the gap: the replica about to enter DTWin");
        assert_eq!(p.changed(1, true), PoolStep::WindowStarts);
        assert_eq!(p.changed(2, true), PoolStep::Nothing, "not its turn");
        assert_eq!(p.read_replica(false), 0, "replica 2 is (wrongly) in DTWin, replica 0 is not");
        assert_eq!(p.changed(1, false), PoolStep::AskDt(2));
        assert_eq!(p.changed(2, false), PoolStep::AskDt(0), "a turn left at once passes on");
        assert_eq!((p.windows, p.turns, p.reads_dt, p.reads_nd, p.reads_gap), (2, 3, 1, 3, 1));
    }
}
