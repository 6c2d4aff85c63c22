//! Links that fail and come back (`[[fault]] kind = "link_down"`, docs/faults.md).
//!
//! A link going down takes both its directions with it:
//! - packets on its wire are lost when they would have arrived (`lost_pkts`);
//! - packets queued for it, and those the routes still send to it until they change, are
//!   dropped at its port (`dropped`), releasing the switch buffer and the PFC account as a
//!   departure would;
//! - the routes change only when the fabric is told to re-route (`reroute`): the routing
//!   protocol's detection and convergence time is the caller's (`detect`). ECMP then spreads over
//!   the paths that remain; a host no path reaches any more gets no route, and packets for it are
//!   dropped where they are (`unroutable`).
//!
//! Transports recover what was lost by their own means (fast retransmit, RTO, go-back-N).

use super::{Fabric, NetScheduler};
use crate::packet::NPRIO;
use crate::topology::Routes;
use nest_core::SimTime;

impl Fabric {
    /// The link of `port` (both directions) goes down now.
    pub fn link_down(&mut self, now: SimTime, port: u32, q: &mut impl NetScheduler) {
        let peer = self.topo.ports[port as usize].peer;
        for p in [port, peer] {
            self.ports[p as usize].down = true;
            self.drop_queued(now, p, q);
        }
    }

    /// The link of `port` (both directions) is back up; the routes use it again after the next
    /// `reroute`.
    pub fn link_up(&mut self, now: SimTime, port: u32, q: &mut impl NetScheduler) {
        let peer = self.topo.ports[port as usize].peer;
        for p in [port, peer] {
            self.ports[p as usize].down = false;
            self.try_start(now, p, q);
        }
    }

    /// Whether `port`'s link is down.
    pub fn is_down(&self, port: u32) -> bool {
        self.ports[port as usize].down
    }

    /// Whether a packet host `src` sends now can reach host `dst`: the routes give a next hop
    /// over a link that is up at every node on the way (what a connection attempt finds).
    pub fn reachable(&self, src: u32, dst: u32) -> bool {
        let target = self.topo.hosts[dst as usize];
        let mut node = self.topo.hosts[src as usize];
        for _ in 0..self.topo.nodes.len() {
            if node == target {
                return true;
            }
            let Some(&p) = self.routes.next_hops(node, dst).iter().find(|&&p| !self.ports[p as usize].down) else { return false };
            node = self.topo.ports[p as usize].peer_node;
        }
        false
    }

    /// The routing protocol has converged: routes around every link that is down now.
    pub fn reroute(&mut self) {
        let down: Vec<bool> = self.ports.iter().map(|p| p.down).collect();
        self.routes = Routes::compute_avoiding(&self.topo, &down);
        self.paths.clear();
    }

    /// Drops every packet queued at `port`, whose link is down.
    pub(super) fn drop_queued(&mut self, now: SimTime, port: u32, q: &mut impl NetScheduler) {
        for prio in 0..NPRIO {
            while let Some(pkt) = self.ports[port as usize].queues[prio].pop_front(&self.pool) {
                let p = *self.pool.get(pkt);
                let wire = p.wire as u64;
                let rt = &mut self.ports[port as usize];
                rt.qbytes[prio] -= wire;
                rt.stats.dropped += 1;
                rt.stats.dropped_bytes += wire;
                self.totals.dropped += 1;
                self.totals.link_drops += 1;
                self.leave_switch(now, port, prio, &p, q);
                self.pool.release(pkt);
            }
        }
    }

    /// Packet `pkt` was on `port`'s wire when its link went down: it never arrives.
    pub(super) fn lose_on_wire(&mut self, port: u32, pkt: u32, wire: u64) {
        let rt = &mut self.ports[port as usize];
        rt.on_wire -= wire;
        rt.stats.lost_pkts += 1;
        rt.stats.lost_bytes += wire;
        self.totals.dropped += 1;
        self.totals.link_drops += 1;
        self.pool.release(pkt);
    }

    /// Packet `pkt` reached a switch (through its port `in_port`) that has no route left to
    /// its destination.
    pub(super) fn drop_unroutable(&mut self, in_port: u32, pkt: u32, wire: u64) {
        let rt = &mut self.ports[in_port as usize];
        rt.stats.dropped += 1;
        rt.stats.dropped_bytes += wire;
        self.totals.dropped += 1;
        self.totals.unroutable += 1;
        self.pool.release(pkt);
    }
}
