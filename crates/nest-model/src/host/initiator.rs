//! The NVMe-oF initiator of the hosts: which connection (a pair of message channels) a host uses
//! to reach a device for a class, and NVMe-oF flow control — a host keeps at most an SQ's depth
//! of commands outstanding per (device, SQ level), freeing a slot as each completion reports the
//! SQ head, so a command never finds its SQ full at the target.

use nest_config::resolve::e2e::NvmeofPlan;
use nest_core::{DeviceId, FlowId, HostId, Priority};

pub struct Initiator {
    devices: usize,
    classes: usize,
    /// (forward, back) channels of (host, device, class) — `None` when the pair is local.
    conn_of: Vec<Option<(FlowId, FlowId)>>,
    /// Commands outstanding per (host, device, SQ level), and the limit per device.
    credits: Vec<u32>,
    depth: Vec<u32>,
}

impl Initiator {
    /// `depth[d]`: commands a host may keep outstanding per SQ level of device `d`.
    pub fn new(plan: &NvmeofPlan, hosts: usize, classes: usize, depth: Vec<u32>) -> Initiator {
        let devices = plan.device_server.len();
        let mut conn_of = vec![None; hosts * devices * classes];
        for c in &plan.conns {
            for d in 0..devices {
                if plan.device_server[d] == Some(c.server) && plan.is_remote(c.host, d) {
                    conn_of[(c.host * devices + d) * classes + c.class] = Some((FlowId(c.fwd), FlowId(c.back)));
                }
            }
        }
        Initiator { devices, classes, conn_of, credits: vec![0; hosts * devices * Priority::COUNT], depth }
    }

    #[inline]
    fn slot(&self, h: HostId, d: DeviceId, level: Priority) -> usize {
        (h.ix() * self.devices + d.ix()) * Priority::COUNT + level.index()
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
        self.conn_of[(h.ix() * self.devices + d.ix()) * self.classes + class as usize].expect("a remote request has a connection")
    }
}
