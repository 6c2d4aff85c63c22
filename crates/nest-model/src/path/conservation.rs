//! The run's built-in conservation check: every request issued is completed or in flight at
//! exactly one place, and each component's books agree with what it holds.

use crate::device::DeviceRt;
use crate::request::Kind;
use crate::sim::Simulation;

impl Simulation {
    /// Checks request conservation at every component: issued = completed + in flight, and
    /// the in-flight count each component reports equals the live requests in the pool.
    pub fn check_conservation(&self) -> Result<(), String> {
        let live = self.pool.live();
        let wl_in_flight: u64 = self.workloads.iter().map(|w| w.in_flight as u64).sum();
        for w in &self.workloads {
            w.books.check(&format!("workload '{}'", w.name), w.in_flight as u64)?;
        }
        let host_in_flight: u64 = self.hosts.iter().map(|h| h.books.in_flight()).sum();
        // Split books against the pool's own count of each kind of request.
        // Requests aborted with their connection while their target still holds them.
        let (stranded_apps, stranded_parts) = self.stranded_counts();
        let children = self.parts.in_flight() + stranded_parts;
        let background: u64 = self.caches.iter().flatten().map(|c| c.background.in_flight()).sum();
        for (kind, books, what) in [(Kind::Child, children, "device parts of split requests"), (Kind::Background, background, "cache background I/Os")] {
            if self.pool.live_of(kind) != books {
                return Err(format!("{what}: the books say {books} in flight, the request pool holds {}", self.pool.live_of(kind)));
            }
        }
        let cache_io = children + background;
        // Targets' own I/O (routers' background I/O) is neither a workload's nor a host's.
        let target_io = self.nvmeof.as_ref().map_or(0, |n| n.background_in_flight());
        if self.pool.live_of(Kind::TargetIo) != target_io {
            return Err(format!(
                "targets' background I/O: the routers' books say {target_io} in flight, the request pool holds {}",
                self.pool.live_of(Kind::TargetIo)
            ));
        }
        for d in &self.devices {
            d.books().check(&format!("device '{}'", d.name()), d.in_system())?;
            if let DeviceRt::Ssd(s) = d {
                s.ssd.check().map_err(|e| format!("device '{}': {e}", s.name))?;
            }
        }
        if let Some(net) = &self.net {
            net.fabric.check_conservation().map_err(|e| format!("network: {e}"))?;
            self.qos_check(&net.tp)?;
            if let Some(rt) = &self.nvmeof {
                rt.check(&net.tp)?;
                for (t, &node) in rt.targets.iter().zip(&rt.target_node) {
                    t.router().check().map_err(|e| format!("router at '{}': {e}", net.fabric.topo.host_name(node)))?;
                }
                // A target's buffer is held by requests in flight only, and is empty with none.
                let holders: u64 = rt.buffers.iter().map(|b| b.holders).sum();
                for (b, &node) in rt.buffers.iter().zip(&rt.target_node) {
                    if (b.holders == 0) != (b.used == 0) || (self.pool.live() == 0 && b.used > 0) {
                        return Err(format!(
                            "target buffer at '{}': {} bytes held by {} requests ({} in flight)",
                            net.fabric.topo.host_name(node),
                            b.used,
                            b.holders,
                            self.pool.live()
                        ));
                    }
                }
                if holders > self.pool.live() {
                    return Err(format!("target buffers: {holders} holders but {} requests in flight", self.pool.live()));
                }
            }
        }
        if let Some(h) = self.haechi.as_deref() {
            h.run.conservation().map_err(|e| format!("haechi: {e}"))?;
        }
        // Split application requests are the workloads' but not the hosts' (only their device
        // parts queue at the host); parts and cache I/Os are the hosts' but not the workloads'.
        let cached_apps = self.pool.live_of(Kind::Split);
        // Requests held at admission gates are the workloads' but not yet the hosts' (held
        // split requests are already among `cached_apps`).
        let mut gated = 0;
        for (h, g) in self.gates.iter().enumerate() {
            let Some(g) = g else { continue };
            g.books.check(&format!("host '{}' admission gate", self.hosts[h].name), g.held() as u64)?;
            gated += g.held_where(|r| self.pool.get(r).kind == Kind::App);
        }
        // Reads held while their hosts' agents ask a coordinator are not yet the hosts' either.
        let asking = self.qos.as_deref().map_or(0, |rt| rt.msgs.asking_apps);
        // Requests of crashed hosts still out are no workload's any more (they were lost).
        let ghosts = self.faults.as_ref().map_or(0, |f| f.ghosts);
        let stranded = stranded_apps + stranded_parts;
        if wl_in_flight + ghosts + cache_io + target_io + stranded_apps != live || host_in_flight + cached_apps + gated + asking + target_io + stranded != live
        {
            return Err(format!(
                "request pool holds {live} live requests but workloads report {wl_in_flight} (+{ghosts} of crashed hosts, +{cache_io} cache I/Os) and hosts {host_in_flight} (+{cached_apps} requests inside caches, +{gated} held at admission gates, +{asking} held while asking) in flight, targets {target_io}, {stranded} aborted but still at their targets"
            ));
        }
        Ok(())
    }
}
