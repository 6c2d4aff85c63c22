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
use nest_core::{Conservation, HostId, SimTime};
use nest_nvme::{ArbiterConfig, Controller, PerHostLevels};
use nest_pm::PmDevice;
use nest_ssd::{Outbox, Ssd};

pub struct SsdDevice {
    pub name: String,
    pub ssd: Ssd,
    /// The NVMe controller: its SQs per host and class level, and their arbitration.
    pub ctrl: Controller<ReqId>,
    pub out: Outbox,
    pub nvme: NvmePlan,
    /// Time-series ids: GC-active planes, flash transactions queued, dirty cache slots.
    pub series: [u32; 3],
    /// Per NVM set with PLM: (set, series ids of its window — 1 DTWin, 0 NDWin —, the 4 KiB
    /// reads left in the DTWin when it has a read budget, and the NV buffer's pending bytes).
    pub plm_series: Vec<(u32, u32, Option<u32>, u32)>,
}

impl SsdDevice {
    pub fn new(name: &str, ssd: Ssd, nvme: &NvmePlan, hosts: usize) -> Result<Self, String> {
        let arb: Box<dyn nest_nvme::Arbitration<ReqId>> = match nvme.split {
            Some(w) => Box::new(nest_nvme::SplitQueues::new(hosts, nvme.sq_depth, ssd.params.host.queue_depth, w)?),
            None => Box::new(PerHostLevels::new(hosts, nvme.wrr, ArbiterConfig { weights: nvme.weights, burst: nvme.burst }, nvme.sq_depth as usize)?),
        };
        Ok(SsdDevice {
            name: name.to_string(),
            ssd,
            ctrl: Controller::new(arb),
            out: Outbox::default(),
            nvme: nvme.clone(),
            series: [0; 3],
            plm_series: Vec::new(),
        })
    }

    pub fn in_system(&self) -> u64 {
        self.ctrl.waiting() as u64 + self.ssd.in_flight() as u64
    }

    /// Samples each PLM set's window, reads left and NV-buffer fill, after bringing idle sets'
    /// windows up to `now` (which schedules nothing).
    pub fn sample_plm(&mut self, now: SimTime, sample: &mut impl FnMut(u32, f64)) {
        if self.plm_series.is_empty() {
            return;
        }
        self.ssd.plm_sync(now, &mut self.out);
        debug_assert!(self.out.events.is_empty(), "an idle PLM set scheduled work");
        let page = self.ssd.layout.page_size as u64;
        for &(set, window, reads_left, buffer) in &self.plm_series {
            let (w, _) = self.ssd.plm_window(set).expect("a PLM set");
            let log = w.log_page(now);
            sample(window, (log.window == nest_ssd::plm::Window::Dt) as u8 as f64);
            if let Some(id) = reads_left {
                sample(id, log.e_rd as f64);
            }
            sample(buffer, (self.ssd.nv_pending(set) * page) as f64);
        }
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
    pub fn can_accept(&self, h: HostId, p: Priority) -> bool {
        match self {
            DeviceRt::Ideal(d) => d.can_accept(),
            DeviceRt::Ssd(d) => d.ctrl.has_room(h, p, false),
            DeviceRt::Pm(d) => d.pm.can_accept(),
        }
    }

    /// Whether a command of host `h` at level `p` finds room in the queue it enters: the SSD's
    /// SQ (bounded); the ideal and PM devices queue without bound.
    #[inline]
    pub fn queue_has_room(&self, h: HostId, p: Priority) -> bool {
        match self {
            DeviceRt::Ssd(d) => d.ctrl.has_room(h, p, false),
            _ => true,
        }
    }

    pub fn books(&self) -> &Conservation {
        match self {
            DeviceRt::Ideal(d) => &d.books,
            DeviceRt::Ssd(d) => &d.ctrl.books,
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
            DeviceRt::Ssd(d) => (d.ctrl.waiting(), d.ssd.in_flight()),
            DeviceRt::Pm(d) => (d.pm.queue_len(), d.pm.busy()),
        }
    }
}
