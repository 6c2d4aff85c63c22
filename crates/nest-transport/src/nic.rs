//! The host NIC as a shared resource: flows that find their NIC queue at its limit (TCP Small
//! Queues; a QP over its NIC backlog) wait in a per-host list and are woken in turn as the NIC
//! starts packets, as Linux wakes throttled sockets on TX completion.

use crate::flow::Flow;
use crate::{Scheduler, Transports};
use nest_core::SimTime;
use nest_net::Fabric;
use std::collections::VecDeque;

impl Transports {
    /// `host`'s NIC started a packet: waiting flows try again in turn until one finds the
    /// queue full again (it goes back to the end of the list) or none is left.
    pub(crate) fn wake_nic_waiters(&mut self, now: SimTime, host: u32, fabric: &mut Fabric, q: &mut impl Scheduler) {
        for _ in 0..self.nic_waiters[host as usize].len() {
            let Some(f) = self.nic_waiters[host as usize].pop_front() else { break };
            self.flows[f as usize].s.nic_wait = false;
            self.try_send(now, f, fabric, q);
            if self.flows[f as usize].s.nic_wait {
                break;
            }
        }
    }

    /// Parks flow `f` until its NIC starts another packet.
    pub(crate) fn wait_for_nic(fl: &mut Flow, f: u32, waiters: &mut [VecDeque<u32>], fabric: &mut Fabric) {
        fl.s.nic_wait = true;
        waiters[fl.spec.src as usize].push_back(f);
        fabric.watch_nic(fl.spec.src);
    }
}
