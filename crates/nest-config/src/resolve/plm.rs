//! `nvm_sets` and `[device.plm]` of an SSD: the NVM sets and Predictable Latency Mode's
//! attributes, with NeSt's defaults where the sources give none (docs/plm.md).

use super::Ctx;
use crate::schema::SsdDeviceConfig;
use nest_core::SimTime;
use nest_ssd::params::PlmParams;
use nest_ssd::plm::PlmAttrs;
use nest_ssd::SsdParams;

/// The attributes when `[device.plm]` leaves them out, for a DTWin of `t_dw` (100 ms, PLMC
/// configurations 1–2, when that is left out too): no count budgets; NDWin at least T_DW / 10,
/// T_DW after a full DTWin (so two replicas alternate back to back, as in PLMC's runs), at most
/// 2 × T_NDWH; the optimal write size is one multi-plane program (a page on every plane of a
/// die); a 64 MiB NV buffer; no extra delay. No source gives these (docs/plm.md).
fn default_attrs(p: &SsdParams, t_dw: SimTime) -> PlmAttrs {
    PlmAttrs {
        c_rd: u64::MAX,
        c_wr: u64::MAX,
        t_dw,
        t_ndwh: t_dw,
        t_ndwl: SimTime(t_dw.0 / 10),
        t_nd_max: SimTime(t_dw.0 * 2),
        optimal_write_bytes: p.geometry.page_size as u64 * p.geometry.planes_per_die as u64,
        nv_buffer_bytes: 64 << 20,
        nd_delay_mean: SimTime::ZERO,
    }
}

pub(super) fn nvm_sets_and_plm(cx: &mut Ctx, key: &str, c: &SsdDeviceConfig, p: &mut SsdParams) {
    p.nvm_sets = c.nvm_sets.unwrap_or(1);
    p.nvm_sets_share_dies = match c.nvm_set_layout.as_deref() {
        None | Some("channels") => false,
        Some("shared-dies") => true,
        Some(o) => {
            cx.err(&format!("{key}.nvm_set_layout"), format!("'{o}': expected channels or shared-dies"));
            false
        }
    };
    let Some(m) = &c.plm else { return };
    let k = |f: &str| format!("{key}.plm.{f}");
    let t_dw = m.t_dw.as_ref().and_then(|s| cx.dur(&k("t_dw"), s)).unwrap_or(SimTime::from_ms(100));
    let mut a = default_attrs(p, t_dw);
    a.c_rd = m.c_rd.unwrap_or(a.c_rd);
    a.c_wr = m.c_wr.unwrap_or(a.c_wr);
    for (v, slot, f) in [(&m.t_ndwh, &mut a.t_ndwh, "t_ndwh"), (&m.t_ndwl, &mut a.t_ndwl, "t_ndwl"), (&m.nd_delay_mean, &mut a.nd_delay_mean, "nd_delay_mean")]
    {
        if let Some(s) = v {
            *slot = cx.dur(&k(f), s).unwrap_or(*slot);
        }
    }
    a.t_nd_max = SimTime(a.t_ndwh.0 * 2);
    if let Some(s) = &m.t_nd_max {
        a.t_nd_max = cx.dur(&k("t_nd_max"), s).unwrap_or(a.t_nd_max);
    }
    for (v, slot, f) in [(&m.optimal_write_size, &mut a.optimal_write_bytes, "optimal_write_size"), (&m.nv_buffer, &mut a.nv_buffer_bytes, "nv_buffer")] {
        if let Some(s) = v {
            *slot = cx.size(&k(f), s).unwrap_or(*slot);
        }
    }
    // A set is a group of whole channels, or one of at most 64 address ranges (`nvm_sets` is
    // checked later): never more sets than that, so a typo of 2^31 sets does not build an 8 GB
    // list of them first (found by nest-fuzz).
    let most = if p.nvm_sets_share_dies { nest_ssd::params::MAX_SHARED_SETS } else { p.geometry.channels };
    let sets = m.sets.clone().unwrap_or_else(|| if p.nvm_sets <= most { (0..p.nvm_sets).collect() } else { Vec::new() });
    p.plm = Some(PlmParams { sets, attrs: a });
}
