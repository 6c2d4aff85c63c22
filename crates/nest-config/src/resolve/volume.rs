//! Resolution of `[[volume]]`: a logical volume a workload can target instead of a device —
//! one device, striped over several (a stripe unit each in turn), or replicated on several
//! (writes to every replica, reads from one). A replicated volume with `read = "dt-active"` is
//! an **NVM-set pool** (PLMC §II-B): its replicas are PLM sets that take turns in DTWin, one
//! at a time, and reads go to the one in DTWin. `sets` makes a member one NVM set of a drive
//! (its address range) instead of the whole drive, so a pool's replicas can be sets of one
//! drive, as PLMC's MQSim runs had them (SPEC §13.6).

use super::{Ctx, DeviceKindPlan, DevicePlan};
pub use crate::plan::volume::{Layout, PoolPlan, VolumePlan};
use crate::schema::VolumeConfig;

pub(super) fn resolve_volume(cx: &mut Ctx, i: usize, v: &VolumeConfig, devices: &[DevicePlan]) -> Option<VolumePlan> {
    let key = format!("volume[{i}]");
    let sets = match &v.sets {
        Some(s) if s.len() != v.devices.len() => {
            cx.err(&format!("{key}.sets"), format!("{} sets for {} devices: expected one NVM set per device entry", s.len(), v.devices.len()));
            return None;
        }
        Some(s) => s.clone(),
        None => vec![0; v.devices.len()],
    };
    let mut idx: Vec<usize> = Vec::new();
    for (k, name) in v.devices.iter().enumerate() {
        match devices.iter().position(|d| &d.name == name) {
            Some(d) if idx.iter().zip(&sets).any(|(&x, &s)| x == d && s == sets[k]) => {
                let what = if v.sets.is_some() { format!("device '{name}' set {} appears twice", sets[k]) } else { format!("device '{name}' appears twice") };
                cx.err(&format!("{key}.devices[{k}]"), what)
            }
            Some(d) => idx.push(d),
            None => {
                let hint = crate::suggest::hint(name, devices.iter().map(|d| d.name.as_str()));
                cx.err(&format!("{key}.devices[{k}]"), format!("no device named '{name}'{hint}"))
            }
        }
    }
    if idx.len() != v.devices.len() {
        return None;
    }
    // Each member's address range: a set's equal share of its drive's logical pages.
    let mut bases = Vec::with_capacity(idx.len());
    let mut sizes = Vec::with_capacity(idx.len());
    for (k, (&d, &s)) in idx.iter().zip(&sets).enumerate() {
        let n = match &devices[d].kind {
            DeviceKindPlan::Ssd(p) => p.params.nvm_sets.max(1),
            _ => 1,
        };
        if s >= n {
            let why = if n == 1 { "a device without NVM sets is set 0".to_string() } else { format!("expected a set below its {n} NVM sets") };
            cx.err(&format!("{key}.sets[{k}]"), format!("set {s} of '{}': {why}", devices[d].name));
            return None;
        }
        let (base, size) = match &devices[d].kind {
            DeviceKindPlan::Ssd(p) if n > 1 => {
                let per = p.params.logical_pages() / n as u64 * p.params.geometry.page_size as u64;
                (s as u64 * per, per)
            }
            _ => (0, devices[d].capacity),
        };
        bases.push(base);
        sizes.push(size);
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
    let pool = match v.read.as_deref() {
        None | Some("round-robin") => None,
        Some("dt-active") => pool_plan(cx, &key, layout, &idx, &sets, devices),
        Some(o) => {
            cx.err(&format!("{key}.read"), format!("'{o}': expected round-robin or dt-active"));
            None
        }
    };
    let smallest = sizes.iter().copied().min()?;
    let capacity = match layout {
        Layout::Stripe { unit } => smallest / unit * unit * idx.len() as u64,
        _ => smallest,
    };
    Some(VolumePlan { name: v.name.clone(), layout, devices: idx, sets, bases, capacity, pool })
}

/// A pool's replicas must be PLM sets with the same attributes, at least two: drives of one
/// NVM set, or sets named by `sets` (of one drive or several).
fn pool_plan(cx: &mut Ctx, key: &str, layout: Layout, idx: &[usize], sets: &[u32], devices: &[DevicePlan]) -> Option<PoolPlan> {
    let k = format!("{key}.read");
    if layout != Layout::Replicate {
        cx.err(&k, "dt-active reads need layout = \"replicate\" (an NVM-set pool holds copies)");
        return None;
    }
    if idx.len() < 2 {
        cx.err(&format!("{key}.devices"), "an NVM-set pool needs at least two replicas (one is always in DTWin)");
        return None;
    }
    let mut attrs = None;
    for (&d, &set) in idx.iter().zip(sets) {
        let dev = &devices[d];
        let plm = match &dev.kind {
            DeviceKindPlan::Ssd(s) => s.params.plm.as_ref(),
            _ => None,
        };
        let Some(plm) = plm else {
            cx.err(&k, format!("replica '{}' is not an SSD with [device.plm]: a pool needs PLM on every replica", dev.name));
            return None;
        };
        if !plm.sets.contains(&set) {
            cx.err(&k, format!("replica '{}' set {set} has no PLM (device.plm.sets): a pool needs PLM on every replica", dev.name));
            return None;
        }
        match attrs {
            None => attrs = Some(plm.attrs.clone()),
            Some(ref a) if *a != plm.attrs => {
                cx.err(&k, format!("replica '{}' has other PLM attributes than '{}': a pool's replicas are identical", dev.name, devices[idx[0]].name));
                return None;
            }
            Some(_) => {}
        }
    }
    let a = attrs?;
    Some(PoolPlan { t_dw: a.t_dw, c_rd: a.c_rd })
}
