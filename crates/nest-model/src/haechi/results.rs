//! What a Haechi run reports: its parts, per-client counts and ledgers, and its conservation
//! check (`run::HaechiRun`'s read side).

use super::run::{HaechiRun, Node};
use super::spec::HaechiSpec;
use nest_core::stats::LatencyHistogram;
use nest_core::SimTime;
use nest_qos::haechi::Ledger;
use nest_transport::verbs::Verbs;

impl HaechiRun {
    pub fn spec(&self) -> &HaechiSpec {
        &self.spec
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn period(&self) -> SimTime {
        self.period
    }

    pub fn verbs(&self) -> &Verbs {
        &self.verbs
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Each node's expected share of the requests.
    pub fn shares(&self) -> &[f64] {
        &self.placement.shares
    }

    /// Client `c`'s token ledger over its engines at every node (None: unmanaged, or bare).
    pub fn ledger(&self, c: usize) -> Option<Ledger> {
        let cl = &self.clients[c];
        cl.managed().then(|| cl.lanes.iter().filter_map(|l| l.engine.as_ref()).fold(Ledger::default(), |a, e| a.plus(&e.ledger)))
    }

    /// Client `c`'s token counts per period, over every node.
    pub fn tokens_per_period(&self, c: usize) -> Vec<Ledger> {
        let periods = self.nodes[0].tokens[c].len();
        (0..periods).map(|k| self.nodes.iter().fold(Ledger::default(), |a, n| a.plus(&n.tokens[c][k]))).collect()
    }

    /// Per client: completed I/Os per period (by completion time).
    pub fn per_period(&self, c: usize) -> &[u64] {
        &self.clients[c].per_period
    }

    /// Client `c`'s completed I/Os per period at node `j`.
    pub fn per_period_at(&self, c: usize, j: usize) -> &[u64] {
        &self.clients[c].lanes[j].per_period
    }

    /// Client `c`'s I/O latency in the measurement window: from submission, and from the post.
    pub fn latency(&self, c: usize) -> (&LatencyHistogram, &LatencyHistogram) {
        (&self.clients[c].latency, &self.clients[c].latency_from_post)
    }

    /// Alerts client `c` received from the monitors (Alg. 1's last step).
    pub fn alerts(&self, c: usize) -> u64 {
        self.clients[c].alerts
    }

    pub fn client_name(&self, c: usize) -> String {
        self.clients[c].spec.name.clone().unwrap_or_else(|| format!("C{}", c + 1))
    }

    pub fn clients(&self) -> usize {
        self.clients.len()
    }

    /// Every request submitted is completed, in flight, waiting at its client or abandoned when
    /// its client stopped; every verb posted is answered or in flight; every token accounted for.
    pub fn conservation(&self) -> Result<(), String> {
        for (i, c) in self.clients.iter().enumerate() {
            let accounted = c.completed + c.in_flight as u64 + c.waiting() as u64 + c.abandoned;
            if c.total_submitted != accounted {
                return Err(format!("client {i}: {} submitted, {accounted} completed + in flight + waiting + abandoned", c.total_submitted));
            }
            let at_nodes: u64 = c.lanes.iter().map(|l| l.per_period.iter().sum::<u64>()).sum();
            if at_nodes != c.completed {
                return Err(format!("client {i}: {} completed, {at_nodes} counted at the data nodes", c.completed));
            }
            for (j, l) in c.lanes.iter().enumerate() {
                if let Some(e) = &l.engine {
                    if !e.balanced() {
                        return Err(format!("client {i} at node {j}: its token ledger does not balance: {:?}", e.ledger));
                    }
                }
            }
        }
        let ios: u64 = self.clients.iter().map(|c| c.in_flight as u64).sum();
        if self.verbs.in_flight() < ios {
            return Err(format!("{} verbs in flight but {ios} I/Os", self.verbs.in_flight()));
        }
        if let Some(j) = self.nodes.iter().position(|n| !n.pool.balanced()) {
            return Err(format!("node {j}'s global pool does not balance: {:?}", self.nodes[j].pool));
        }
        Ok(())
    }

    /// (submitted, completed, in flight, waiting, abandoned) for client `c`.
    pub fn counts(&self, c: usize) -> (u64, u64, u64, u64, u64) {
        let cl = &self.clients[c];
        (cl.total_submitted, cl.completed, cl.in_flight as u64, cl.waiting() as u64, cl.abandoned)
    }
}
