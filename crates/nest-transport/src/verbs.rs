//! RDMA verbs between clients and data nodes (targets) over an InfiniBand-like lossless fabric, at
//! message granularity (SPEC §10, Haechi §III-A: ten clients and a data node on one IB switch;
//! several data nodes on the same switch are the paper's future work).
//!
//! Where queues form, a FIFO server with a deterministic service time:
//! - the client's I/O thread (posting the verb, polling its completion: the software cost per
//!   I/O that caps one client at ~400 KIOPS one-sided in Haechi §III-B);
//! - the target NIC's receive pipeline (per message; a WRITE's or SEND's payload DMAed into
//!   memory; an atomic — FAA, CAS — executed by the NIC alone) and its send pipeline (a READ's
//!   data DMAed out of memory over PCIe);
//! - the target's CPU, **only for two-sided SEND/RECV**: the server thread that parses the
//!   request and posts the reply (one-sided verbs never reach it);
//! - the target's link, and the switch's egress port to each client (the data coming back).
//!
//! The fabric is lossless (credit-based IB flow control: no drop, no retransmission) and a
//! message is serialized whole on each link (store-and-forward; a 4 KiB payload is one IB packet
//! at MTU 4096). Small messages (requests, atomics, reports, acknowledgements: tens of bytes) are
//! serialized and propagated but not queued: behind data they would wait at most one packet time
//! (0.6 µs), and keeping them out of the data queues keeps every queue fed in time order.
//!
//! Sans-IO: [`Verbs::post`] returns when the request reaches the target NIC and
//! [`Verbs::at_target`] when the answer reaches the client (or when a two-sided request's reply
//! is ready); the caller orders these two points against other messages with its event queue.
//! Between them every server is fed in time order by one FIFO upstream, so its departures are
//! computed at once: two events per one-sided I/O, whatever the number of stages.

use nest_core::SimTime;

/// A FIFO server with deterministic service: it starts a job when the job arrives or when the
/// previous one leaves, whichever is later. Callers feed it in arrival order.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    free_at: SimTime,
    /// Total service time given (utilization = busy / elapsed) and jobs served.
    pub busy: SimTime,
    pub jobs: u64,
}

impl Fifo {
    #[inline]
    pub fn serve(&mut self, arrival: SimTime, service: SimTime) -> SimTime {
        let start = arrival.max(self.free_at);
        self.free_at = start + service;
        self.busy += service;
        self.jobs += 1;
        self.free_at
    }
}

/// The verbs a client posts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verb {
    /// One-sided READ of `bytes` from the target's memory: the target NIC DMAs them out.
    Read { bytes: u32 },
    /// One-sided WRITE of `bytes` into the target's memory (Haechi's 64-bit reports).
    Write { bytes: u32 },
    /// Atomic Fetch-and-Add on a 64-bit word, executed by the target NIC.
    FetchAdd,
    /// Atomic Compare-and-Swap on a 64-bit word, executed by the target NIC.
    CompareSwap,
    /// Two-sided SEND of a `bytes` request; the target's CPU answers with `reply` bytes.
    Send { bytes: u32, reply: u32 },
}

/// The fabric and the machines' costs. Defaults: Haechi's testbed (ConnectX-3 FDR InfiniBand,
/// Xeon E5-2670 v3), calibrated as docs/haechi.md explains.
#[derive(Clone, Debug, PartialEq)]
pub struct VerbsParams {
    /// Link data rate (FDR 4x: 56 Gb/s signalling, 54.55 Gb/s after 64b/66b).
    pub link_gbps: f64,
    /// Propagation of one link (a few metres of cable plus the PHY).
    pub link_delay: SimTime,
    /// The switch's forwarding latency.
    pub switch_latency: SimTime,
    /// Bytes of IB headers per packet (LRH, BTH, RETH/AETH, ICRC, VCRC) and the path MTU.
    pub header_bytes: u32,
    pub mtu: u32,
    /// The client CPU's time per one-sided verb: building the request, posting it, polling its
    /// completion (the client's single I/O thread; 2.5 µs ⇒ 400 KIOPS).
    pub client_cpu_per_verb: SimTime,
    /// Extra client CPU per two-sided request: posting a receive, copying the reply out of it.
    pub client_cpu_two_sided_extra: SimTime,
    /// Target NIC: processing per message, and its DMA rate over PCIe for payloads.
    pub target_nic_per_message: SimTime,
    pub target_dma_gbps: f64,
    /// Target NIC time for an atomic (a PCIe read-modify-write of the word).
    pub target_atomic: SimTime,
    /// Target CPU time per two-sided request, and the server threads serving them.
    pub target_cpu_per_request: SimTime,
    pub target_cpu_threads: u32,
}

impl Default for VerbsParams {
    fn default() -> Self {
        VerbsParams {
            link_gbps: 54.55,
            link_delay: SimTime::from_ns(50),
            switch_latency: SimTime::from_ns(100),
            header_bytes: 30,
            mtu: 4096,
            client_cpu_per_verb: SimTime::from_ns(2500),
            client_cpu_two_sided_extra: SimTime::from_ns(560),
            target_nic_per_message: SimTime::from_ns(30),
            target_dma_gbps: 54.0,
            target_atomic: SimTime::from_ns(500),
            target_cpu_per_request: SimTime::from_ns(2342),
            target_cpu_threads: 1,
        }
    }
}

impl VerbsParams {
    pub fn validate(&self) -> Result<(), String> {
        let pos = |v: f64, k: &str| if v.is_finite() && v > 0.0 { Ok(()) } else { Err(format!("{k} must be a positive number (got {v})")) };
        pos(self.link_gbps, "link_gbps")?;
        pos(self.target_dma_gbps, "target_dma_gbps")?;
        if self.mtu < 256 || self.mtu > 4096 {
            return Err(format!("mtu must be an IB path MTU between 256 and 4096 bytes (got {})", self.mtu));
        }
        if self.target_cpu_threads == 0 {
            return Err("target_cpu_threads must be at least 1".into());
        }
        if self.client_cpu_per_verb == SimTime::ZERO {
            return Err("client_cpu_per_verb must be positive (a client posting for free would issue without bound)".into());
        }
        Ok(())
    }

    fn wire(&self, payload: u32) -> u64 {
        let packets = payload.div_ceil(self.mtu).max(1) as u64;
        payload as u64 + packets * self.header_bytes as u64
    }

    fn at_rate(bytes: u64, gbps: f64) -> SimTime {
        SimTime((bytes as f64 * 8_000.0 / gbps).round() as u64)
    }

    fn serialize(&self, payload: u32) -> SimTime {
        Self::at_rate(self.wire(payload), self.link_gbps)
    }

    fn dma(&self, bytes: u32) -> SimTime {
        Self::at_rate(bytes as u64, self.target_dma_gbps)
    }
}

/// Payload bytes of a verb's request on the wire (besides the packet headers).
pub fn request_payload(v: Verb) -> u32 {
    match v {
        // A READ request carries a RETH (16 B); atomics an AtomicETH (28 B).
        Verb::Read { .. } => 16,
        Verb::Write { bytes } => 16 + bytes,
        Verb::FetchAdd | Verb::CompareSwap => 28,
        Verb::Send { bytes, .. } => bytes,
    }
}

/// Payload bytes of a verb's answer (besides the packet headers): a READ's data, a WRITE's
/// acknowledgement (an AETH: 0 bytes of payload), an atomic's original value, a two-sided reply.
pub fn answer_payload(v: Verb) -> u32 {
    match v {
        Verb::Read { bytes } => bytes,
        Verb::Write { .. } => 0,
        Verb::FetchAdd | Verb::CompareSwap => 8,
        Verb::Send { reply, .. } => reply,
    }
}

/// The data node's NIC (or CPU) served a request: when its answer is on the NIC's port, or
/// (two-sided) when the CPU has the reply ready ([`Verbs::send_out`] then).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Served {
    Answer(SimTime),
    Cpu(SimTime),
}

/// What the target does with a message that reached its NIC.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AtTarget {
    /// Done by the NIC: the answer reaches the client at this time.
    Answered(SimTime),
    /// A two-sided request: the target CPU has the reply ready at this time; call
    /// [`Verbs::reply`] then.
    Cpu(SimTime),
}

struct ClientPorts {
    cpu: Fifo,
    /// The switch's egress port towards the client (the data it reads queues here, from every
    /// data node).
    downlink: Fifo,
}

/// A data node: its NIC's receive pipeline (requests, writes into memory, atomics) and send
/// pipeline (answers with data: DMA out of memory), its server threads, its link to the switch.
#[derive(Clone, Debug, Default)]
pub struct Target {
    pub rx: Fifo,
    pub tx: Fifo,
    /// When each server thread is free.
    cpu: Vec<SimTime>,
    pub cpu_busy: SimTime,
    pub cpu_requests: u64,
    uplink: Fifo,
    /// Messages the node itself sent (two-sided, from its CPU: Haechi's monitor).
    pub sends: u64,
    /// The node's speed relative to its nominal costs (1: as `VerbsParams` says): its NIC's
    /// pipelines, its DMA over PCIe and its CPU take `cost / speed`. Its link does not change
    /// (a physical rate). A caller that models period-to-period variability sets it.
    speed: f64,
}

/// The fabric's resources, and counts for the conservation check and the summary.
pub struct Verbs {
    pub p: VerbsParams,
    clients: Vec<ClientPorts>,
    /// The data nodes, on the same switch as the clients.
    pub targets: Vec<Target>,
    /// Verbs posted and answered (every verb is answered: lossless, no failures).
    pub posted: u64,
    pub answered: u64,
}

impl Verbs {
    /// `clients` clients and `targets` data nodes on one switch.
    pub fn new(p: VerbsParams, clients: usize, targets: usize) -> Result<Verbs, String> {
        p.validate()?;
        if targets == 0 {
            return Err("at least one data node".into());
        }
        let threads = p.target_cpu_threads as usize;
        let clients = (0..clients).map(|_| ClientPorts { cpu: Fifo::default(), downlink: Fifo::default() }).collect();
        let targets = (0..targets).map(|_| Target { cpu: vec![SimTime::ZERO; threads], speed: 1.0, ..Target::default() }).collect();
        Ok(Verbs { p, clients, targets, posted: 0, answered: 0 })
    }

    /// A small message's trip across the fabric: its serialization on two links, two cables
    /// and the switch. Requests, atomics, reports and their answers are tens of bytes; queued
    /// behind data they would wait at most one packet time (0.6 µs), so they are not queued.
    fn crossing(&self, payload: u32) -> SimTime {
        let ser = self.p.serialize(payload);
        ser + ser + self.p.link_delay + self.p.link_delay + self.p.switch_latency
    }

    /// Client `c` posts `v` at `now`: when the request reaches the target NIC (call
    /// [`Verbs::at_target`] then). `io_thread`: posted by the client's I/O thread, whose CPU
    /// time per verb is the client's limit; false for a helper thread (Haechi's reporting).
    /// The client's side does not depend on which data node the verb goes to.
    pub fn post(&mut self, now: SimTime, c: usize, v: Verb, io_thread: bool) -> SimTime {
        self.client_post(now, c, v, io_thread) + self.crossing(request_payload(v))
    }

    /// The client's side of [`Verbs::post`] alone: when the request leaves client `c` (its I/O
    /// thread's CPU time; a helper thread's post leaves at once). For a fabric that carries
    /// the request itself (the packet fabric's message channels).
    pub fn client_post(&mut self, now: SimTime, c: usize, v: Verb, io_thread: bool) -> SimTime {
        self.posted += 1;
        let cpu = match v {
            Verb::Send { .. } => self.p.client_cpu_per_verb + self.p.client_cpu_two_sided_extra,
            _ => self.p.client_cpu_per_verb,
        };
        if io_thread {
            self.clients[c].cpu.serve(now, cpu)
        } else {
            now
        }
    }

    /// Client `c`'s request reached data node `t`'s NIC.
    pub fn at_target(&mut self, now: SimTime, t: usize, c: usize, v: Verb) -> AtTarget {
        match (v, self.serve(now, t, v)) {
            (_, Served::Cpu(t)) => AtTarget::Cpu(t),
            // The READ's data leaves the NIC's send pipeline and queues on the way to the client.
            (Verb::Read { bytes }, Served::Answer(out)) => AtTarget::Answered(self.carry(out, t, c, bytes)),
            (_, Served::Answer(out)) => AtTarget::Answered(out + self.crossing(answer_payload(v))),
        }
    }

    /// Data node `t` runs at `speed` times its nominal costs' rate from now on (its NIC, DMA
    /// and CPU; see [`Target`]). Work already started keeps the time it was given.
    pub fn set_speed(&mut self, t: usize, speed: f64) {
        assert!(speed.is_finite() && speed > 0.0, "a data node's speed must be positive");
        self.targets[t].speed = speed;
    }

    pub fn speed(&self, t: usize) -> f64 {
        self.targets[t].speed
    }

    /// A cost of data node `t` at its current speed.
    #[inline]
    fn at_speed(&self, t: usize, cost: SimTime) -> SimTime {
        let s = self.targets[t].speed;
        if s == 1.0 {
            cost
        } else {
            SimTime((cost.0 as f64 / s).round() as u64)
        }
    }

    /// The data node's side of [`Verbs::at_target`] alone: its NIC (and, two-sided, its CPU)
    /// serving a request that reached it at `now`. For a fabric that carries the answer itself.
    pub fn serve(&mut self, now: SimTime, t: usize, v: Verb) -> Served {
        let nic = self.at_speed(t, self.p.target_nic_per_message);
        match v {
            Verb::Read { bytes } => {
                let received = self.targets[t].rx.serve(now, nic);
                Served::Answer(self.send_out(received, t, bytes))
            }
            Verb::Write { bytes } => {
                let dma = self.at_speed(t, self.p.dma(bytes));
                Served::Answer(self.targets[t].rx.serve(now, nic + dma))
            }
            Verb::FetchAdd | Verb::CompareSwap => {
                let atomic = self.at_speed(t, self.p.target_atomic);
                Served::Answer(self.targets[t].rx.serve(now, nic + atomic))
            }
            Verb::Send { bytes, .. } => {
                // The NIC places the request in a posted receive buffer; a server thread takes it.
                let dma = self.at_speed(t, self.p.dma(bytes));
                let cost = self.at_speed(t, self.p.target_cpu_per_request);
                let n = &mut self.targets[t];
                let received = n.rx.serve(now, nic + dma);
                let (i, free) = n.cpu.iter().copied().enumerate().min_by_key(|&(_, t)| t).expect("at least one thread");
                let start = received.max(free);
                n.cpu[i] = start + cost;
                n.cpu_busy += cost;
                n.cpu_requests += 1;
                Served::Cpu(start + cost)
            }
        }
    }

    /// `bytes` of data leave data node `t`'s memory through its NIC's send pipeline from
    /// `from`: when they are on the NIC's port.
    pub fn send_out(&mut self, from: SimTime, t: usize, bytes: u32) -> SimTime {
        let dma = self.at_speed(t, self.p.target_nic_per_message + self.p.dma(bytes));
        self.targets[t].tx.serve(from, dma)
    }

    /// A small message data node `t` originates (Haechi's monitor signals; two-sided, from a
    /// thread of its own): when it reaches the client.
    pub fn target_send(&mut self, now: SimTime, t: usize, bytes: u32) -> SimTime {
        self.target_signal(now, t) + self.crossing(bytes)
    }

    /// The node's side of [`Verbs::target_send`] alone: when the message is on its NIC's port.
    pub fn target_signal(&mut self, now: SimTime, t: usize) -> SimTime {
        self.targets[t].sends += 1;
        now + self.at_speed(t, self.p.target_nic_per_message)
    }

    /// The client got the answer to one of its verbs.
    pub fn answered(&mut self) {
        self.answered += 1;
    }

    /// `bytes` of data out of data node `t`'s memory to client `c` from `from` (a READ's answer,
    /// or a two-sided reply the node's CPU has ready): the NIC's DMA, the node's link, the
    /// switch's port to the client, the client's cable. Fed in time order, so every stage is
    /// computed at once. When it reaches the client.
    pub fn reply(&mut self, from: SimTime, t: usize, c: usize, bytes: u32) -> SimTime {
        let out = self.send_out(from, t, bytes);
        self.carry(out, t, c, bytes)
    }

    /// Data on data node `t`'s port at `out` to client `c`: the node's link, the switch's port
    /// to the client, the client's cable.
    fn carry(&mut self, out: SimTime, t: usize, c: usize, bytes: u32) -> SimTime {
        let ser = self.p.serialize(bytes);
        let at_switch = self.targets[t].uplink.serve(out, ser) + self.p.link_delay + self.p.switch_latency;
        self.clients[c].downlink.serve(at_switch, ser) + self.p.link_delay
    }

    /// Verbs posted whose answer has not arrived.
    pub fn in_flight(&self) -> u64 {
        self.posted - self.answered
    }

    /// Busy fractions of data node `t` over `elapsed`: its NIC's send pipeline, its CPU
    /// (threads together), its link.
    pub fn utilization(&self, t: usize, elapsed: SimTime) -> [f64; 3] {
        let e = elapsed.0.max(1) as f64;
        let n = &self.targets[t];
        let cpu = n.cpu_busy.0 as f64 / (e * n.cpu.len() as f64);
        [n.tx.busy.0 as f64 / e, cpu, n.uplink.busy.0 as f64 / e]
    }

    /// The busiest client CPU's busy fraction over `elapsed`.
    pub fn busiest_client_cpu(&self, elapsed: SimTime) -> f64 {
        self.clients.iter().map(|c| c.cpu.busy.0).max().unwrap_or(0) as f64 / elapsed.0.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs one verb alone through the fabric: (time at the client, whether the target CPU ran).
    fn alone(v: Verb) -> (SimTime, u64) {
        let mut f = Verbs::new(VerbsParams::default(), 1, 1).unwrap();
        let nic = f.post(SimTime::ZERO, 0, v, true);
        let t = match f.at_target(nic, 0, 0, v) {
            AtTarget::Answered(t) => t,
            AtTarget::Cpu(ready) => f.reply(
                ready,
                0,
                0,
                match v {
                    Verb::Send { reply, .. } => reply,
                    _ => 0,
                },
            ),
        };
        f.answered();
        assert_eq!(f.in_flight(), 0);
        (t, f.targets[0].cpu_requests)
    }

    #[test]
    fn a_slower_node_takes_longer_in_its_nic_but_not_on_its_link() {
        let mut f = Verbs::new(VerbsParams::default(), 1, 2).unwrap();
        f.set_speed(1, 0.5);
        let nominal = f.send_out(SimTime::ZERO, 0, 4096);
        let slow = f.send_out(SimTime::ZERO, 1, 4096);
        assert_eq!(slow.0, 2 * nominal.0, "at half speed the NIC's DMA takes twice as long");
        assert_eq!(f.carry(slow, 1, 0, 4096) - slow, f.carry(SimTime::from_ms(1000), 0, 0, 4096) - SimTime::from_ms(1000), "the link's rate is physical");
        f.set_speed(1, 1.0);
        assert_eq!(f.send_out(SimTime::from_ms(2000), 1, 4096) - SimTime::from_ms(2000), nominal, "back at nominal speed");
    }

    #[test]
    fn a_one_sided_read_never_occupies_the_target_cpu_while_a_two_sided_send_does() {
        let (read, cpu_read) = alone(Verb::Read { bytes: 4096 });
        let (send, cpu_send) = alone(Verb::Send { bytes: 64, reply: 4096 });
        let (faa, cpu_faa) = alone(Verb::FetchAdd);
        assert_eq!((cpu_read, cpu_faa), (0, 0), "one-sided verbs and atomics are the NIC's alone");
        assert_eq!(cpu_send, 1);
        // READ: 2.5 µs CPU + the request (46 B) on two links + NIC 0.64 µs + the answer (4126 B)
        // on two links, 0.6 µs each + 4 × 50 ns cable + 2 × 100 ns switch ≈ 4.76 µs.
        assert!(read > SimTime::from_ns(4600) && read < SimTime::from_ns(4900), "{read:?}");
        assert!(send > read + SimTime::from_ns(2342), "the CPU stage is on a two-sided request's path: {send:?}");
        assert!(faa < read, "an atomic moves 8 B, not 4 KiB");
    }

    #[test]
    fn data_nodes_serve_in_parallel_and_share_only_the_clients_ports() {
        // Back-to-back READs from one client to one node, then spread over two nodes: the
        // client's CPU (2.5 µs a verb) is the bound either way; with two clients per node the
        // nodes' NICs are, and two nodes carry twice what one does.
        let run = |nodes: usize, clients: usize| {
            let mut f = Verbs::new(VerbsParams::default(), clients, nodes).unwrap();
            let mut last = SimTime::ZERO;
            for i in 0..20_000u64 {
                let c = (i % clients as u64) as usize;
                let t = (i / clients as u64 % nodes as u64) as usize;
                let at = f.post(SimTime::ZERO, c, Verb::Read { bytes: 4096 }, false);
                if let AtTarget::Answered(done) = f.at_target(at, t, c, Verb::Read { bytes: 4096 }) {
                    last = last.max(done);
                }
            }
            20_000.0 / last.as_secs_f64()
        };
        let one = run(1, 8);
        let two = run(2, 8);
        assert!((one - 1_570_000.0).abs() < 20_000.0, "one node: its NIC's DMA bounds it: {one}");
        assert!((two / one - 2.0).abs() < 0.05, "two nodes: twice one: {two} vs {one}");
        assert!(Verbs::new(VerbsParams::default(), 1, 0).is_err(), "no data node is refused");
    }

    #[test]
    fn a_fifo_serves_in_arrival_order_and_counts_its_busy_time() {
        let mut q = Fifo::default();
        assert_eq!(q.serve(SimTime(10), SimTime(5)), SimTime(15));
        assert_eq!(q.serve(SimTime(12), SimTime(5)), SimTime(20), "waits behind the first");
        assert_eq!(q.serve(SimTime(30), SimTime(5)), SimTime(35), "idle in between");
        assert_eq!((q.busy, q.jobs), (SimTime(15), 3));
    }

    #[test]
    fn saturation_rates_follow_from_the_parameters() {
        let p = VerbsParams::default();
        // The target NIC per 4 KiB READ: 30 ns + 4096 B at 54 Gb/s = 636.8 ns ⇒ 1570 K/s.
        let nic = p.target_nic_per_message + p.dma(4096);
        assert!((1e12 / nic.0 as f64 - 1_570_000.0).abs() < 5_000.0, "{nic:?}");
        // The target link per READ answer: 4126 B at 54.55 Gb/s = 605 ns ⇒ 1650 K/s: not the bottleneck.
        assert!(p.serialize(4096) < nic);
        // Two-sided: the server thread, 2.342 µs ⇒ 427 K/s; one client: 3.06 µs ⇒ 327 K/s.
        assert!((1e12 / p.target_cpu_per_request.0 as f64 - 427_000.0).abs() < 1_000.0);
        let client2 = p.client_cpu_per_verb + p.client_cpu_two_sided_extra;
        assert!((1e12 / client2.0 as f64 - 327_000.0).abs() < 1_000.0);
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        let bad = |f: &dyn Fn(&mut VerbsParams)| {
            let mut p = VerbsParams::default();
            f(&mut p);
            Verbs::new(p, 1, 1).err().expect("refused")
        };
        assert!(bad(&|p| p.link_gbps = 0.0).contains("link_gbps"));
        assert!(bad(&|p| p.target_dma_gbps = f64::NAN).contains("target_dma_gbps"));
        assert!(bad(&|p| p.mtu = 9000).contains("mtu"));
        assert!(bad(&|p| p.target_cpu_threads = 0).contains("target_cpu_threads"));
        assert!(bad(&|p| p.client_cpu_per_verb = SimTime::ZERO).contains("client_cpu_per_verb"));
    }
}
