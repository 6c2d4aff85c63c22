//! Requests split into device parts: by a host cache (the runs of blocks it misses) and/or by a
//! volume (stripes across devices, replicas). Each part is a `Child` request queued at the host
//! like any request; the parent completes when its last part has (plus any cache CPU time), and
//! its dispatch and device times are that last part's.

use nest_config::resolve::volume::{map_extent, VolumePlan};

pub struct VolumeRt {
    pub plan: VolumePlan,
    /// Replica for the next read (round robin).
    next_read: usize,
}

impl VolumeRt {
    pub fn new(plan: &VolumePlan) -> Self {
        VolumeRt { plan: plan.clone(), next_read: 0 }
    }
}

/// Where an extent of a workload's target lives: its volume's parts, or its device as it is.
pub(crate) fn map_target(volumes: &mut [VolumeRt], volume: Option<u32>, device: u32, write: bool, offset: u64, size: u64, out: &mut Vec<(usize, u64, u64)>) {
    match volume {
        None => out.push((device as usize, offset, size)),
        Some(v) => {
            let rt = &mut volumes[v as usize];
            let pick = rt.next_read;
            if !write {
                rt.next_read = rt.next_read.wrapping_add(1);
            }
            map_extent(&rt.plan, write, offset, size, pick, out);
        }
    }
}
