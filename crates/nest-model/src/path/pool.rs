//! NVM-set pools in the World (state in `crate::host::pool`): replicas made host-driven and
//! staggered at time zero, their window changes turned into set-features and PLMC windows, and
//! a PLMC host's reads labelled DT or not before the volume router places them.

use crate::device::DeviceRt;
use crate::host::pool::PoolStep;
use crate::request::{Kind, ReqId};
use crate::sim::Simulation;
use nest_core::CoordId;
use nest_qos::DtRead;
use nest_ssd::plm::{Transition, Window};
use nest_workload::Op;

impl Simulation {
    fn pool_ssd(&mut self, d: usize) -> &mut crate::device::SsdDevice {
        match &mut self.devices[d] {
            DeviceRt::Ssd(s) => s,
            _ => unreachable!("a pool replica is an SSD (checked at resolution)"),
        }
    }

    /// At time zero: every replica's set leaves NDWin only when asked; replica 0 keeps its
    /// DTWin and the others go to NDWin; each pool's PLMC allocates its first window.
    pub(crate) fn pools_start(&mut self) {
        for v in 0..self.volumes.len() {
            if self.volumes[v].pool.is_none() {
                continue;
            }
            let plan = &self.volumes[v].plan;
            let members: Vec<(usize, u32)> = plan.devices.iter().copied().zip(plan.sets.iter().copied()).collect();
            for (r, &(d, set)) in members.iter().enumerate() {
                let now = self.now;
                let dev = self.pool_ssd(d);
                dev.ssd.plm_host_driven(set);
                if r > 0 {
                    dev.ssd.plm_request(now, set, Window::Nd, &mut dev.out);
                }
                self.drain_ssd(d as u32);
            }
            self.pool_window_starts(v as u32);
        }
    }

    /// Device `d` reported window changes: a pool replica's change may pass the turn or start
    /// a window.
    pub(crate) fn plm_changed(&mut self, d: u32, changes: &[(u32, Transition)]) {
        for &(set, t) in changes {
            let Some((v, r)) = self.pool_member(d, set) else { continue };
            let pool = self.volumes[v as usize].pool.as_mut().expect("a pool");
            match pool.changed(r, t.to == Window::Dt) {
                PoolStep::Nothing => {}
                PoolStep::AskDt(next) => {
                    let plan = &self.volumes[v as usize].plan;
                    let (nd, nset) = (plan.devices[next], plan.sets[next]);
                    let now = self.now;
                    let dev = self.pool_ssd(nd);
                    dev.ssd.plm_request(now, nset, Window::Dt, &mut dev.out);
                    self.drain_ssd(nd as u32);
                }
                PoolStep::WindowStarts => self.pool_window_starts(v),
            }
        }
    }

    /// The (volume, replica) of a pool member: device `d`'s NVM set `set`.
    fn pool_member(&self, d: u32, set: u32) -> Option<(u32, usize)> {
        self.volumes.iter().enumerate().find_map(|(v, rt)| {
            rt.pool.as_ref()?;
            rt.plan.member(d as usize, set).map(|r| (v as u32, r))
        })
    }

    /// A DTWin of pool `v` started: its PLMCs allocate.
    fn pool_window_starts(&mut self, v: u32) {
        let n = self.qos.as_deref().map_or(0, |rt| rt.plans.len());
        for k in 0..n {
            let rt = self.qos.as_deref_mut().expect("coordinators");
            if rt.dt_pools[k] == Some(v) {
                let pool = rt.coords[k].as_dt_pool().expect("a plmc coordinator is a DT pool's");
                if let Some((oracle, horizon, demand)) = rt.oracles[k].as_mut() {
                    // A trace error here is met again, and reported, by the run's own copy.
                    if oracle.demand(self.now, self.now + *horizon, demand).is_ok() {
                        pool.exact_demand(demand);
                    }
                }
                pool.on_dt_window(self.now, &mut rt.out);
                self.qos_apply(CoordId(k as u32), false);
            }
        }
    }

    /// Brings pool `v`'s replicas' windows up to now (idle sets change windows without events)
    /// before a read is placed.
    pub(crate) fn pool_sync(&mut self, v: u32) {
        // Indexed, not cloned: this runs before every read of a pool.
        for r in 0..self.volumes[v as usize].plan.devices.len() {
            let d = self.volumes[v as usize].plan.devices[r];
            let now = self.now;
            let dev = self.pool_ssd(d);
            dev.ssd.plm_sync(now, &mut dev.out);
            self.drain_ssd(d as u32);
        }
    }

    /// Application read `r` of a PLMC host to its pool: whether its allocation covers it (the
    /// host decides where the request is issued). False when the read is held while the host's
    /// agent asks its coordinator (`Action::Place` lets it go on).
    pub(crate) fn dt_label(&mut self, r: ReqId) -> bool {
        let req = self.pool.get(r);
        if req.op != Op::Read {
            return true;
        }
        let Some(rt) = self.qos.as_deref_mut() else { return true };
        let Some((c, v)) = rt.dt_coord[req.host.ix()] else { return true };
        if self.workloads[req.workload as usize].volume != Some(v) {
            return true;
        }
        let counts = nest_ssd::plm::read_counts(req.size as u64);
        let dt = match rt.coords[c.ix()].as_dt_pool().and_then(|p| p.dt_read(self.now, req.host, counts, r.0 as u64, &mut rt.out)) {
            None | Some(DtRead::Dt) => true,
            Some(DtRead::Nd) => false,
            Some(DtRead::Asked) => {
                if req.kind == Kind::App {
                    rt.msgs.asking_apps += 1;
                }
                self.qos_apply(c, false);
                return false;
            }
        };
        self.pool.get_mut(r).dt = dt;
        true
    }

    /// `pools` for the summary: per pool, its windows and where its reads went.
    pub(crate) fn pools_summary(&self) -> Option<serde_json::Value> {
        let mut m = serde_json::Map::new();
        for rt in &self.volumes {
            let Some(p) = &rt.pool else { continue };
            m.insert(
                rt.plan.name.clone(),
                serde_json::json!({
                    "replicas": rt.plan.devices.len(), "sets": rt.plan.sets, "windows": p.windows, "turns": p.turns,
                    "reads_dt": p.reads_dt, "reads_nd": p.reads_nd, "reads_gap": p.reads_gap,
                }),
            );
        }
        (!m.is_empty()).then_some(serde_json::Value::Object(m))
    }
}
