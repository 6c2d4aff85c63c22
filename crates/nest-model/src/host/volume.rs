//! The volume router on the host side: where an extent of a volume lives (stripes across
//! devices, replicas: writes to all, reads round robin). The resolved `VolumePlan` says what a
//! volume is; this is what runs. Requests are split along it in `path/split.rs`.

use super::pool::PoolRt;
use nest_config::resolve::volume::{Layout, VolumePlan};
use nest_core::DeviceId;

pub struct VolumeRt {
    pub plan: VolumePlan,
    /// Replica for the next read (round robin).
    next_read: usize,
    /// `read = "dt-active"`: the NVM-set pool's turns.
    pub pool: Option<PoolRt>,
}

impl VolumeRt {
    pub fn new(plan: &VolumePlan) -> Self {
        VolumeRt { plan: plan.clone(), next_read: 0, pool: plan.pool.as_ref().map(|_| PoolRt::new(plan.devices.len())) }
    }
}

/// Where an extent of a workload's target lives: its volume's parts, or its device as it is.
/// `dt`: a pool's read goes to the DT-active replica (else to one in NDWin).
/// `dead`: devices the hosts take as dead (faults): a replicated volume's reads skip them and
/// its writes leave them out, while a replica lives.
#[allow(clippy::too_many_arguments)]
pub(crate) fn map_target(
    volumes: &mut [VolumeRt],
    volume: Option<u32>,
    device: DeviceId,
    write: bool,
    dt: bool,
    offset: u64,
    size: u64,
    dead: Option<&[bool]>,
    out: &mut Vec<(usize, u64, u64)>,
) {
    match volume {
        None => out.push((device.ix(), offset, size)),
        Some(v) => {
            let rt = &mut volumes[v as usize];
            let mut pick = match rt.pool.as_mut() {
                Some(pool) if !write => pool.read_replica(dt),
                _ => rt.next_read,
            };
            if !write {
                rt.next_read = rt.next_read.wrapping_add(1);
            }
            let from = out.len();
            if let Some(dead) = dead.filter(|_| matches!(rt.plan.layout, Layout::Replicate)) {
                let n = rt.plan.devices.len();
                if let Some(k) = (0..n).find(|k| !dead[rt.plan.devices[(pick + k) % n]]) {
                    pick += k;
                }
                map_extent(&rt.plan, write, offset, size, pick, out);
                if out[from..].iter().any(|&(d, _, _)| !dead[d]) {
                    let mut i = from;
                    while i < out.len() {
                        if dead[out[i].0] {
                            out.remove(i);
                        } else {
                            i += 1;
                        }
                    }
                }
                return;
            }
            map_extent(&rt.plan, write, offset, size, pick, out);
        }
    }
}

/// Where an extent of a volume lives: (device index, device offset, bytes) parts, appended to
/// `out` (a member that is an NVM set adds its range's start). A write to a replicated volume goes to every replica; a read to replica `pick`.
pub fn map_extent(v: &VolumePlan, write: bool, offset: u64, size: u64, pick: usize, out: &mut Vec<(usize, u64, u64)>) {
    match v.layout {
        Layout::Single => out.push((v.devices[0], v.bases[0] + offset, size)),
        Layout::Replicate if write => out.extend(v.devices.iter().zip(&v.bases).map(|(&d, &b)| (d, b + offset, size))),
        Layout::Replicate => {
            let k = pick % v.devices.len();
            out.push((v.devices[k], v.bases[k] + offset, size))
        }
        Layout::Stripe { unit } => {
            let n = v.devices.len() as u64;
            let (mut at, end) = (offset, offset + size);
            while at < end {
                let stripe = at / unit;
                let within = at % unit;
                let len = (unit - within).min(end - at);
                let k = (stripe % n) as usize;
                let (d, dev_off) = (v.devices[k], v.bases[k] + (stripe / n) * unit + within);
                // Consecutive pieces on one device (a one-device stripe) merge into one I/O.
                match out.last_mut() {
                    Some(last) if last.0 == d && last.1 + last.2 == dev_off => last.2 += len,
                    _ => out.push((d, dev_off, len)),
                }
                at += len;
            }
        }
    }
}
