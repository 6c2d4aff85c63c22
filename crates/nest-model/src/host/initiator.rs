//! The NVMe-oF initiator of the hosts: which connection (a pair of message channels) a host uses
//! to reach a device for a class, and NVMe-oF flow control — a host keeps at most an SQ's depth
//! of commands outstanding per (device, SQ level), freeing a slot as each completion reports the
//! SQ head, so a command never finds its SQ full at the target.

use nest_config::resolve::e2e::NvmeofPlan;
use nest_core::{DeviceId, FlowId, HostId, Priority};

pub struct Initiator {
    classes: usize,
    /// Per host, the devices it has connections to (sorted) and their pair's index: only pairs
    /// that talk have state. Tables over every (host, device) cost ~1.4 KB per pair — 14 GB for
    /// 4,000 hosts beside 10,000 drives, nearly all of it for pairs that never talk (issue 24).
    pairs_of: Vec<Vec<(u32, u32)>>,
    /// (forward, back) channels of (pair, class) — `None` for a class without a connection.
    conn_of: Vec<Option<(FlowId, FlowId)>>,
    /// Commands outstanding per (pair, SQ level), and the limit per device.
    credits: Vec<u32>,
    depth: Vec<u32>,
}

impl Initiator {
    /// `depth[d]`: commands a host may keep outstanding per SQ level of device `d`.
    pub fn new(plan: &NvmeofPlan, hosts: usize, classes: usize, depth: Vec<u32>) -> Initiator {
        let mut devices_of_server: Vec<Vec<u32>> = Vec::new();
        for (d, s) in plan.device_server.iter().enumerate() {
            if let Some(s) = *s {
                if devices_of_server.len() <= s as usize {
                    devices_of_server.resize(s as usize + 1, Vec::new());
                }
                devices_of_server[s as usize].push(d as u32);
            }
        }
        let mut pairs_of: Vec<Vec<(u32, u32)>> = vec![Vec::new(); hosts];
        let mut conn_of = Vec::new();
        for c in &plan.conns {
            for &d in devices_of_server.get(c.server as usize).map_or(&[][..], |v| &v[..]) {
                if !plan.is_remote(c.host, d as usize) {
                    continue;
                }
                let list = &mut pairs_of[c.host];
                let pair = match list.iter().find(|&&(dev, _)| dev == d) {
                    Some(&(_, p)) => p,
                    None => {
                        let p = (conn_of.len() / classes) as u32;
                        conn_of.resize(conn_of.len() + classes, None);
                        list.push((d, p));
                        p
                    }
                };
                conn_of[pair as usize * classes + c.class] = Some((FlowId(c.fwd), FlowId(c.back)));
            }
        }
        for list in &mut pairs_of {
            list.sort_unstable();
        }
        let pairs = conn_of.len() / classes.max(1);
        Initiator { classes, pairs_of, conn_of, credits: vec![0; pairs * Priority::COUNT], depth }
    }

    /// The index of the pair (host `h`, device `d`); every remote request's pair has one.
    #[inline]
    fn pair(&self, h: HostId, d: DeviceId) -> usize {
        let list = &self.pairs_of[h.ix()];
        let i = list.binary_search_by_key(&(d.ix() as u32), |&(dev, _)| dev).expect("a remote request's host has a connection to its device");
        list[i].1 as usize
    }

    #[inline]
    fn slot(&self, h: HostId, d: DeviceId, level: Priority) -> usize {
        self.pair(h, d) * Priority::COUNT + level.index()
    }

    /// Whether host `h` may send another command for device `d` at SQ level `level`.
    #[inline]
    pub fn has_credit(&self, h: HostId, d: DeviceId, level: Priority) -> bool {
        self.credits[self.slot(h, d, level)] < self.depth[d.ix()]
    }

    /// A command goes out: it holds an SQ slot until its completion comes back.
    #[inline]
    pub fn take_credit(&mut self, h: HostId, d: DeviceId, level: Priority) {
        let s = self.slot(h, d, level);
        self.credits[s] += 1;
    }

    /// A completion came back, reporting the SQ head: the slot is free again.
    #[inline]
    pub fn return_credit(&mut self, h: HostId, d: DeviceId, level: Priority) {
        let s = self.slot(h, d, level);
        self.credits[s] -= 1;
    }

    /// The (forward, back) channels host `h` reaches device `d` on for class `class`.
    #[inline]
    pub fn channels(&self, h: HostId, d: DeviceId, class: u16) -> (FlowId, FlowId) {
        self.conn_of[self.pair(h, d) * self.classes + class as usize].expect("a remote request has a connection")
    }
}
