//! The devices of a run behind one interface: the ideal k-server device, the SSD behind its
//! NVMe controller, and persistent memory.
//!
//! The SSD's controller owns one submission queue per (host, class level) — NVMe gives each
//! host its own SQs — and fetches from them by the configured arbitration whenever the SSD has a
//! free command slot. Waiting in an SQ is the "NVMe queueing" stage of a request
//! (t_dispatch → t_dev_start); the SSD itself is sans-IO and hands back events and completions
//! through its outbox.

use crate::ideal_device::IdealDevice;
use crate::request::ReqId;
use nest_config::resolve::{NvmePlan, Priority};
use nest_core::Conservation;
use nest_nvme::{Arbiter, ArbiterConfig, Level, SqId};
use nest_pm::PmDevice;
use nest_ssd::{Outbox, Ssd};

pub struct SsdDevice {
    pub name: String,
    pub ssd: Ssd,
    pub arb: Arbiter<ReqId>,
    /// SQ per host and priority (urgent, high, medium, low, best effort).
    pub sqs: Vec<[SqId; Priority::COUNT]>,
    pub out: Outbox,
    pub books: Conservation,
    pub nvme: NvmePlan,
    /// Time-series ids: GC-active planes, flash transactions queued, dirty cache slots.
    pub series: [u32; 3],
}

impl SsdDevice {
    pub fn new(name: &str, ssd: Ssd, nvme: &NvmePlan, hosts: usize) -> Result<Self, String> {
        let mut arb = Arbiter::new(ArbiterConfig { weights: nvme.weights, burst: nvme.burst })?;
        let depth = nvme.sq_depth as usize;
        let sqs = (0..hosts)
            .map(|_| {
                let mut row = [SqId(0); Priority::COUNT];
                for (p, slot) in row.iter_mut().enumerate() {
                    // Round robin (no QoS) puts every SQ on one level; WRR maps classes to levels.
                    let level = if !nvme.wrr {
                        Level::Medium
                    } else {
                        match p {
                            0 => Level::Urgent,
                            1 => Level::High,
                            2 => Level::Medium,
                            _ => Level::Low,
                        }
                    };
                    *slot = arb.add_sq(level, depth);
                }
                row
            })
            .collect();
        Ok(SsdDevice { name: name.to_string(), ssd, arb, sqs, out: Outbox::default(), books: Conservation::default(), nvme: nvme.clone(), series: [0; 3] })
    }

    pub fn in_system(&self) -> u64 {
        self.arb.len() as u64 + self.ssd.in_flight() as u64
    }
}

pub struct PmRt {
    pub name: String,
    pub pm: PmDevice,
}

pub enum DeviceRt {
    Ideal(IdealDevice),
    Ssd(Box<SsdDevice>),
    Pm(PmRt),
}

impl DeviceRt {
    pub fn name(&self) -> &str {
        match self {
            DeviceRt::Ideal(d) => &d.name,
            DeviceRt::Ssd(d) => &d.name,
            DeviceRt::Pm(d) => &d.name,
        }
    }

    /// Whether host `h` can hand over a request of priority `p` now.
    #[inline]
    pub fn can_accept(&self, h: u32, p: Priority) -> bool {
        match self {
            DeviceRt::Ideal(d) => d.can_accept(),
            DeviceRt::Ssd(d) => d.arb.has_room(d.sqs[h as usize][p as usize]),
            DeviceRt::Pm(d) => d.pm.can_accept(),
        }
    }

    pub fn books(&self) -> &Conservation {
        match self {
            DeviceRt::Ideal(d) => &d.books,
            DeviceRt::Ssd(d) => &d.books,
            DeviceRt::Pm(d) => &d.pm.books,
        }
    }

    pub fn in_system(&self) -> u64 {
        match self {
            DeviceRt::Ideal(d) => d.in_system(),
            DeviceRt::Ssd(d) => d.in_system(),
            DeviceRt::Pm(d) => d.pm.in_system(),
        }
    }

    /// (waiting, in service) for the time series.
    pub fn occupancy(&self) -> (usize, u32) {
        match self {
            DeviceRt::Ideal(d) => (d.queue_len(), d.busy()),
            DeviceRt::Ssd(d) => (d.arb.len(), d.ssd.in_flight()),
            DeviceRt::Pm(d) => (d.pm.queue_len(), d.pm.busy()),
        }
    }
}
