//! Resolution of `[[volume]]`: a logical volume a workload can target instead of a device —
//! one device, striped over several (a stripe unit each in turn), or replicated on several
//! (writes to every replica, reads from one).

use super::{Ctx, DevicePlan};
use crate::schema::VolumeConfig;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Single,
    /// Bytes per device before the next.
    Stripe { unit: u64 },
    Replicate,
}

#[derive(Debug, Clone)]
pub struct VolumePlan {
    pub name: String,
    pub layout: Layout,
    /// Device indices, in stripe / replica order.
    pub devices: Vec<usize>,
    /// Usable bytes: the smallest device times the stripe width (stripe), or the smallest
    /// device (single, replicate).
    pub capacity: u64,
}

pub(super) fn resolve_volume(cx: &mut Ctx, i: usize, v: &VolumeConfig, devices: &[DevicePlan]) -> Option<VolumePlan> {
    let key = format!("volume[{i}]");
    let mut idx = Vec::new();
    for (k, name) in v.devices.iter().enumerate() {
        match devices.iter().position(|d| &d.name == name) {
            Some(d) if idx.contains(&d) => cx.err(&format!("{key}.devices[{k}]"), format!("device '{name}' appears twice")),
            Some(d) => idx.push(d),
            None => cx.err(&format!("{key}.devices[{k}]"), format!("no device named '{name}'")),
        }
    }
    if idx.len() != v.devices.len() {
        return None;
    }
    let layout = match v.layout.as_str() {
        "single" => Layout::Single,
        "replicate" => Layout::Replicate,
        "stripe" => {
            let unit = match &v.stripe_unit {
                Some(u) => cx.size(&format!("{key}.stripe_unit"), u)?,
                None => 64 * 1024,
            };
            if unit == 0 || unit % 4096 != 0 {
                cx.err(&format!("{key}.stripe_unit"), format!("{unit} B: must be a positive multiple of 4 KiB"));
                return None;
            }
            Layout::Stripe { unit }
        }
        o => {
            cx.err(&format!("{key}.layout"), format!("'{o}': expected single, stripe or replicate"));
            return None;
        }
    };
    if v.stripe_unit.is_some() && !matches!(layout, Layout::Stripe { .. }) {
        cx.err(&format!("{key}.stripe_unit"), "only a stripe layout has a stripe unit");
    }
    match (layout, idx.len()) {
        (_, 0) => cx.err(&format!("{key}.devices"), "a volume needs at least one device"),
        (Layout::Single, n) if n != 1 => cx.err(&format!("{key}.devices"), format!("a single volume has exactly one device, got {n}")),
        _ => {}
    }
    let smallest = idx.iter().map(|&d| devices[d].capacity).min()?;
    let capacity = match layout {
        Layout::Stripe { unit } => smallest / unit * unit * idx.len() as u64,
        _ => smallest,
    };
    Some(VolumePlan { name: v.name.clone(), layout, devices: idx, capacity })
}
