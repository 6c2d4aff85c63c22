//! NVMe-oF connections that time out (docs/faults.md, "A connection that times out").
//!
//! In a run with faults each host times every command it sends over the fabric, as Linux's
//! `nvme_core.io_timeout` does: a command unanswered `io_timeout` after its dispatch starts the
//! transport's error recovery, which tears the host's connection to that storage server down:
//! - every command the host has out on it is aborted — failed, or retried on a live replica as
//!   at a dead device (`nvmeof.timed_out`);
//! - the connection's channels are made anew (`Transports::reset_channel`): what they still held
//!   is dropped, so a command or completion stuck behind a failed link is not retransmitted for
//!   ever, and none of it arrives later to be taken for another request;
//! - a command the target already holds runs to its end there, but its completion is not sent
//!   (the connection it came on is gone): the request is let go then;
//! - the host fails new I/O to the server's devices at its driver (`FAIL_FAST`) until it has
//!   reconnected. It tries `reconnect_delay` after the loss and every as long after; an attempt
//!   succeeds when the fabric has a path both ways. No attempt waits as an event while the
//!   server is unreachable (it would keep a draining run's clock going): the attempts are
//!   settled when the routes change (`reroute`). After `ctrl_loss_tmo` the host removes the
//!   controller and never uses the connection again.
//!
//! Keep-alive (`[nvmeof] keep_alive`, KATO) finds a server the fabric cut off, as it finds a
//! stopped one: when a link goes down or the routes change and a connection has no path both
//! ways, the first Keep Alive its host sends at or after that goes unanswered, and KATO later the
//! host tears the connection down (`keep_alive_lost`) unless the path is back by then.
//!
//! A command at a dead device is timed by the device path instead (`hang`), which also takes
//! the device as dead; a directly attached device's commands are not timed here.

use crate::conns::{Conn, ConnEvent, Connections};
use crate::events::Event;
use crate::fault::Subject;
use crate::messages::{COMMAND, DATA_PULL, RESPONSE, WRITE_DATA};
use crate::path::fault::{next_attempt, removal_time};
use crate::request::{Kind, ReqId};
use crate::sim::Simulation;
use nest_core::queue::PendingEvents;
use nest_core::{DeviceId, HostId, SimTime};
use std::collections::BTreeSet;

impl Simulation {
    /// The timed connections (a run with faults over NVMe-oF).
    fn conns(&self) -> Option<&Connections> {
        self.faults.as_deref()?.conns.as_deref()
    }

    fn conns_mut(&mut self) -> &mut Connections {
        self.faults.as_deref_mut().and_then(|f| f.conns.as_deref_mut()).expect("connections are timed in this run")
    }

    /// At the start of a run with faults over NVMe-oF: the hosts' connections.
    pub(crate) fn connections_start(&mut self) {
        let (Some(rt), Some(f)) = (self.nvmeof.as_deref(), self.faults.as_deref_mut()) else { return };
        let mut cs = Connections::default();
        for c in &rt.plan.conns {
            let Ok(target) = rt.target_node.binary_search(&c.server) else { continue };
            let next = cs.conns.len() as u32;
            let i = *cs.index.entry((c.host, target as u32)).or_insert(next) as usize;
            if i == cs.conns.len() {
                cs.conns.push(Conn { host: c.host, target: target as u32, ..Default::default() });
            }
            cs.conns[i].flows.push((c.fwd, c.back));
        }
        f.conns = Some(Box::new(cs));
    }

    /// The connection host `h` reaches device `d` on, when connections are timed.
    fn conn_of(&self, h: HostId, d: DeviceId) -> Option<usize> {
        let cs = self.conns()?;
        let s = self.nvmeof.as_deref()?.target_of[d.ix()]?;
        cs.index.get(&(h.ix(), s)).map(|&c| c as usize)
    }

    /// The connection request `r` went out on, when connections are timed (every NVMe-oF send
    /// and completion asks: a run without faults answers before touching the request).
    fn conn_of_request(&self, r: ReqId) -> Option<usize> {
        self.conns()?;
        let req = self.pool.get(r);
        self.conn_of(req.host, req.device)
    }

    /// Whether host `h`'s driver fails I/O to device `d` without sending it: the device is taken
    /// as dead, or the host's connection to its server is down.
    pub(crate) fn fails_fast(&self, h: HostId, d: DeviceId) -> bool {
        let Some(f) = self.faults.as_deref() else { return false };
        f.known_dead[d.ix()] || self.conn_of(h, d).is_some_and(|c| self.conns().expect("conn_of found it").conns[c].down)
    }

    /// Remote request `r` was just sent: its host times it.
    pub(crate) fn time_command(&mut self, r: ReqId) {
        let Some(c) = self.conn_of_request(r) else { return };
        let req = self.pool.get(r);
        let due = req.t_dispatch + self.resolved.hosts[req.host.ix()].io_timeout;
        let cs = self.conns_mut();
        let g = *cs.gen_of(r);
        let conn = &mut cs.conns[c];
        conn.out.push_back((due, r, g));
        // A pending timer (due earlier) times this one too: it re-arms for its due when it fires.
        let woken = std::mem::take(&mut conn.dormant);
        let arm = !std::mem::replace(&mut conn.timer_pending, true);
        self.dormant_timers -= woken as usize;
        if arm {
            self.queue.schedule(due, Event::Conn(ConnEvent::Timer(c as u32)));
        }
    }

    /// Request `r`'s host no longer times it (its completion came, or it was given up).
    pub(crate) fn untime(&mut self, r: ReqId) {
        let Some(c) = self.conn_of_request(r) else { return };
        let cs = self.conns_mut();
        *cs.gen_of(r) += 1;
        cs.pop_stale(c);
        let conn = &mut cs.conns[c];
        if conn.timer_pending && !conn.dormant && conn.out.is_empty() {
            conn.dormant = true;
            self.dormant_timers += 1;
        }
    }

    pub(crate) fn on_conn(&mut self, e: ConnEvent) {
        match e {
            ConnEvent::Timer(c) => self.on_conn_timer(c as usize),
            ConnEvent::Reconnect(c) => self.on_conn_reconnect(c as usize),
            ConnEvent::KeepAlive(c) => self.on_conn_keep_alive(c as usize),
        }
    }

    /// A link went down or came back, or the routes changed: a host whose connection lost its
    /// path sends its next Keep Alive into it (found KATO later, `on_conn_keep_alive`).
    pub(crate) fn paths_changed(&mut self) {
        let Some(kato) = self.nvmeof.as_deref().and_then(|n| n.plan.keep_alive) else { return };
        let n = self.conns().map_or(0, |cs| cs.conns.len());
        let now = self.now;
        for c in 0..n {
            let f = self.faults.as_deref().expect("connections live in faults");
            let conn = &f.conns.as_deref().expect("connections").conns[c];
            if conn.down || conn.removed || conn.keep_alive_due || f.crashed[conn.host] || self.conn_reachable(c) {
                continue;
            }
            self.conns_mut().conns[c].keep_alive_due = true;
            // The same rule as for a stopped server.
            let at = nest_config::resolve::keep_alive_lost_at(now, kato);
            self.pending_faults += 1;
            self.queue.schedule(at, Event::Conn(ConnEvent::KeepAlive(c as u32)));
        }
    }

    /// Connection `c`'s Keep Alive sent into a dead path is due: if the path is still dead its
    /// host tears the connection down.
    fn on_conn_keep_alive(&mut self, c: usize) {
        self.pending_faults -= 1;
        let conn = &mut self.conns_mut().conns[c];
        conn.keep_alive_due = false;
        if conn.down || conn.removed || self.conn_reachable(c) {
            return;
        }
        self.tear_down(c, "keep_alive_lost");
    }

    fn on_conn_timer(&mut self, c: usize) {
        let now = self.now;
        let cs = self.conns_mut();
        cs.conns[c].timer_pending = false;
        let woken = std::mem::take(&mut cs.conns[c].dormant);
        cs.pop_stale(c);
        let front = cs.conns[c].out.front().map(|&(due, ..)| due);
        self.dormant_timers -= woken as usize;
        let Some(due) = front else { return };
        if due > now {
            self.conns_mut().conns[c].timer_pending = true;
            return self.queue.schedule(due, Event::Conn(ConnEvent::Timer(c as u32)));
        }
        self.tear_down(c, "connection_lost");
    }

    /// Connection `c` is lost (`why`: its oldest command timed out, `connection_lost`, or a Keep
    /// Alive went unanswered, `keep_alive_lost`): its host tears it down and aborts everything
    /// it had out on it.
    fn tear_down(&mut self, c: usize, why: &'static str) {
        let now = self.now;
        let f = self.faults.as_deref_mut().expect("faults");
        let crashed = f.crashed[f.conns.as_deref().expect("connections").conns[c].host];
        let cs = f.conns.as_deref_mut().expect("connections");
        let out = cs.take_out(c);
        cs.teardowns += 1;
        // Besides the command that timed out (a keep-alive loss aborts every command).
        cs.aborted += out.len().saturating_sub((why == "connection_lost") as usize) as u64;
        for &r in &out {
            *cs.gen_of(r) += 1;
        }
        let conn = &mut cs.conns[c];
        conn.down = true;
        conn.lost_at = now;
        let (host, target, flows) = (conn.host, conn.target, conn.flows.clone());
        // A crashed host times nothing out: its connection goes only so that nothing of it is
        // retransmitted for ever (its target would find it gone by keep-alive).
        if !crashed {
            f.timeouts += (why == "connection_lost") as u64;
            f.happened.push((now, why, Subject::Conn(host, target)));
        }
        // What the channels still held never arrives: commands never reached the target, and
        // completions (with any read data) never reach the host.
        let net = self.net.as_deref_mut().expect("NVMe-oF has a network");
        let mut gone: BTreeSet<u32> = BTreeSet::new();
        let mut pulling: Vec<ReqId> = Vec::new();
        let rt = self.nvmeof.as_deref_mut().expect("NVMe-oF");
        for (fwd, back) in flows {
            for flow in [fwd, back] {
                for m in net.tp.reset_channel(flow) {
                    match m.kind {
                        COMMAND => rt.books.commands_dropped += 1,
                        RESPONSE => rt.books.responses_dropped += 1,
                        DATA_PULL => rt.books.pulls_dropped += 1,
                        WRITE_DATA => rt.books.data_dropped += 1,
                        k => unreachable!("an NVMe-oF channel carried a message of kind {k:?}"),
                    }
                    if m.kind == DATA_PULL || m.kind == WRITE_DATA {
                        // The target gives the write up: the data it was pulling never come.
                        pulling.push(ReqId(m.tag));
                    }
                    gone.insert(m.tag);
                }
            }
        }
        for r in pulling {
            self.buffer_release(r);
        }
        // (A command at a dead device is not among them: the device path times it, `hang`.)
        for r in out {
            self.abort(r, !gone.contains(&r.0));
        }
        self.plan_conn_reconnect(c);
    }

    /// The host aborts request `r` with its connection (`stranded`: its target still holds it).
    fn abort(&mut self, r: ReqId, stranded: bool) {
        let crashed = self.host_crashed(self.pool.get(r).host);
        if stranded {
            self.conns_mut().stranded.insert(r.0, crashed);
        }
        self.host_gives_up(r, crashed, true, stranded);
    }

    /// The target finished request `r`, whose host aborted it with its connection: nobody waits
    /// for its completion. Whether it was such a request (then it is let go).
    pub(crate) fn let_go_stranded(&mut self, r: ReqId) -> bool {
        let Some(cs) = self.faults.as_deref_mut().and_then(|f| f.conns.as_deref_mut()) else { return false };
        let Some(ghost) = cs.stranded.remove(&r.0) else { return false };
        self.buffer_release(r);
        if ghost {
            self.ghost_ends(r);
        } else {
            self.pool.release(r);
        }
        true
    }

    /// Stranded requests by kind: (application requests of live hosts, device parts).
    pub(crate) fn stranded_counts(&self) -> (u64, u64) {
        let Some(cs) = self.conns() else { return (0, 0) };
        let mut n = (0, 0);
        for (&r, &ghost) in &cs.stranded {
            match self.pool.get(ReqId(r)).kind {
                Kind::App if !ghost => n.0 += 1,
                Kind::Child => n.1 += 1,
                _ => {}
            }
        }
        n
    }

    /// Whether connection `c` has a path both ways now.
    fn conn_reachable(&self, c: usize) -> bool {
        let cs = self.conns().expect("connections are timed in this run");
        let net = self.net.as_deref().expect("NVMe-oF has a network");
        let &(fwd, _) = cs.conns[c].flows.first().expect("a connection has channels");
        let spec = &net.tp.flows[fwd as usize].spec;
        net.fabric.reachable(spec.src, spec.dst) && net.fabric.reachable(spec.dst, spec.src)
    }

    /// Connection `c` is down: if its server can be reached now, the host's next attempt
    /// succeeds — unless its attempts ran out first (then it removes the controller).
    fn plan_conn_reconnect(&mut self, c: usize) {
        let now = self.now;
        if !self.conn_reachable(c) {
            return; // settled at the next change of routes
        }
        let plan = &self.nvmeof.as_deref().expect("NVMe-oF").plan;
        let (delay, tmo) = (plan.reconnect_delay, plan.ctrl_loss_tmo);
        let duration = self.resolved.run.duration;
        let f = self.faults.as_deref_mut().expect("faults");
        let conn = &f.conns.as_deref().expect("connections").conns[c];
        if conn.removed || !conn.down {
            return;
        }
        let at = delay.map_or(now, |delay| next_attempt(conn.lost_at, now, delay));
        let (host, target) = (conn.host, conn.target);
        if let Some(r) = removal_time(conn.lost_at, tmo, delay) {
            if at > r {
                f.conns.as_deref_mut().expect("connections").conns[c].removed = true;
                f.happened.push((r, "controller_removed", Subject::Conn(host, target)));
                return;
            }
        }
        // After the run's duration nothing new is sent: a later attempt would only stretch a
        // draining run's clock.
        if duration.is_none_or(|end| at <= end) {
            self.queue.schedule(at, Event::Conn(ConnEvent::Reconnect(c as u32)));
        }
    }

    fn on_conn_reconnect(&mut self, c: usize) {
        let now = self.now;
        if !self.conn_reachable(c) {
            return; // the path failed again: settled at the next change of routes
        }
        let f = self.faults.as_deref_mut().expect("faults");
        let conn = &mut f.conns.as_deref_mut().expect("connections").conns[c];
        if conn.down && !conn.removed {
            conn.down = false;
            let (host, target) = (conn.host, conn.target);
            f.happened.push((now, "reconnect", Subject::Conn(host, target)));
            self.try_dispatch(HostId(host as u32));
        }
    }

    /// Connections still down whose host's attempts ran out during the run (their server never
    /// became reachable again): removed then.
    pub(crate) fn conn_removals(&self) -> Vec<(SimTime, &'static str, Subject)> {
        let (Some(cs), Some(rt)) = (self.conns(), self.nvmeof.as_deref()) else { return Vec::new() };
        cs.conns
            .iter()
            .filter(|c| c.down && !c.removed)
            .filter_map(|c| {
                let at = removal_time(c.lost_at, rt.plan.ctrl_loss_tmo, rt.plan.reconnect_delay)?;
                (at <= self.now).then_some((at, "controller_removed", Subject::Conn(c.host, c.target)))
            })
            .collect()
    }

    /// The network name of target `s`'s storage server.
    pub(crate) fn server_name(&self, s: u32) -> String {
        let node = self.nvmeof.as_deref().expect("NVMe-oF").target_node[s as usize];
        self.net.as_deref().expect("NVMe-oF has a network").fabric.topo.host_name(node).to_string()
    }

    /// The routes changed: hosts whose connections are down may reach their servers again.
    pub(crate) fn routes_changed(&mut self) {
        let n = self.conns().map_or(0, |cs| cs.conns.len());
        for c in 0..n {
            let conn = &self.conns().expect("connections are timed in this run").conns[c];
            if conn.down && !conn.removed {
                self.plan_conn_reconnect(c);
            }
        }
        self.paths_changed();
    }
}
