//! Events of the foundation model (source → destination):
//!
//! | event | scheduled by | handled by | meaning |
//! |---|---|---|---|
//! | `WorkloadWake(w)` | workload `w` itself | workload `w` | its next open-loop arrival or trace record is due, or a closed-loop workload may issue again after an off period |
//! | `DeviceDone(d, r)` | device `d` when it starts serving `r` | device `d`, then host and workload of `r` | request `r` finished service |
//! | `Sample` | the World | the World | sample queue lengths into the time series, once per interval |
//!
//! Zero-delay hand-offs (workload → host → device, device → host → workload) are direct calls,
//! not events: the queue only holds events where simulated time passes.

use crate::request::ReqId;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    WorkloadWake(u32),
    DeviceDone(u32, ReqId),
    Sample,
}

impl Event {
    /// A small tag for the trajectory fingerprint.
    #[inline]
    pub fn tag(&self) -> u64 {
        match *self {
            Event::WorkloadWake(w) => (1 << 60) | w as u64,
            Event::DeviceDone(d, r) => (2 << 60) | ((d as u64) << 32) | r.0 as u64,
            Event::Sample => 3 << 60,
        }
    }
}
