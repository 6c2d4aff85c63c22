//! Events of the foundation model (source → destination):
//!
//! | event | scheduled by | handled by | meaning |
//! |---|---|---|---|
//! | `WorkloadWake(w)` | workload `w` itself | workload `w` | its next open-loop arrival or trace record is due, or a closed-loop workload may issue again after an off period |
//! | `DeviceDone(d, r)` | device `d` when it starts serving `r` | device `d`, then host and workload of `r` | request `r` finished service |
//! | `Ssd(d, e)` | SSD `d` (through its outbox) | SSD `d` | a die, channel, DRAM or PCIe step inside the SSD finished (`nest_ssd::SsdEvent`) |
//! | `Net(e)` | the fabric | the fabric, then the destination host's transport | a packet arrives at a node, a port finishes serialising, a PFC frame lands (`nest_net::NetEvent`) |
//! | `Tp(e)` | a transport | that transport | a flow starts, an application produces data, an RTO or delayed-ACK timer fires (`nest_transport::TpEvent`) |
//! | `PartsDone(r)` | the last device part of split request `r` (or its host cache, when every block hit) | `r`'s workload | `r`'s parts are all back and the cache's CPU work for it (lookups, insertions, copies) is done |
//! | `Nvmeof(e)` | an NVMe-oF target or initiator | the same | a target finished a command at the head of its FIFO request queue or a completion at the head of its response queue; a host finished a completion (`nvmeof::NvmeofEvent`) |
//! | `Qos(e)` | a coordinator (through the QoS seam's outbox) | that coordinator | a wake-up it asked for: a period starts, a window ends (`qos::QosEvent`) |
//! | `Fault(i)` | the run's start | the World | fault `i` of `[[fault]]` happens (a device stops answering) |
//! | `IoTimeout(r, sent)` | a dead device holding `r`, or (`sent` false) a host's driver failing `r` to a device it took as dead without sending it | `r`'s host | the host gives up on `r` (`io_timeout`), and on its device |
//! | `Reconnect(d)` | device `d` coming back while its hosts took it as lost over NVMe-oF | the World | the hosts' reconnect attempt: they use `d` again |
//! | `Conn(e)` | a host's NVMe-oF connection, in a run with faults | the World | its oldest command may be due (`io_timeout`: the host tears the connection down), or a reconnect attempt (`conns::ConnEvent`) |
//! | `Haechi(e)` | the Haechi run on the fabric (`haechi::world`) | that run | a client's arrival, period or δ tick, the monitor's check or period end, a verb leaving its client or its answer leaving the data node's NIC (`haechi::run::Ev`) |
//! | `Sample` | the World | the World | sample queue lengths into the time series, once per interval |
//!
//! Zero-delay hand-offs (workload → host → device, device → host → workload) are direct calls,
//! not events: the queue only holds events where simulated time passes.

use crate::request::ReqId;
use nest_net::NetEvent;
use nest_ssd::SsdEvent;
use nest_transport::TpEvent;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    WorkloadWake(u32),
    DeviceDone(u32, ReqId),
    Ssd(u32, SsdEvent),
    Net(NetEvent),
    Tp(TpEvent),
    PartsDone(ReqId),
    Nvmeof(crate::nvmeof::NvmeofEvent),
    Qos(crate::qos::QosEvent),
    Fault(u32),
    /// The request, and whether its command went out (false: failed at the host's driver).
    IoTimeout(ReqId, bool),
    Reconnect(u32),
    Conn(crate::conns::ConnEvent),
    Haechi(crate::haechi::run::Ev),
    Sample,
}

impl Event {
    /// A small tag for the trajectory fingerprint.
    #[inline]
    pub fn tag(&self) -> u64 {
        match *self {
            Event::WorkloadWake(w) => (1 << 60) | w as u64,
            Event::DeviceDone(d, r) => (2 << 60) | ((d as u64) << 32) | r.0 as u64,
            Event::Ssd(d, e) => (4 << 60) | ((d as u64) << 32) | e.tag(),
            Event::Net(e) => (5 << 60) ^ e.tag(),
            Event::Tp(e) => (6 << 60) ^ e.tag(),
            Event::PartsDone(r) => (7 << 60) | r.0 as u64,
            Event::Nvmeof(e) => (8 << 60) ^ e.tag(),
            Event::Qos(e) => (9 << 60) ^ e.tag(),
            Event::Fault(i) => (10 << 60) | i as u64,
            Event::IoTimeout(r, sent) => (11 << 60) | ((!sent as u64) << 40) | r.0 as u64,
            Event::Reconnect(d) => (12 << 60) | d as u64,
            Event::Conn(e) => (13 << 60) ^ e.tag(),
            Event::Haechi(e) => (14 << 60) ^ e.tag(),
            Event::Sample => 3 << 60,
        }
    }
}
