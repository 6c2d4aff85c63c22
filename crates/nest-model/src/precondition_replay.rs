//! `precondition.from_workloads`: a drive preconditioned with the pages its synthetic workloads
//! will draw, in their order. MQSim's preconditioning draws its addresses from each flow's own
//! seeded generators (`src/ssd/FTL.cpp:108-320`), so the pages it writes are the run's first
//! addresses: instrumented, its 4 KiB 50/50 run on a drive preconditioned to 50 % sent 97 % of
//! its accesses to written pages, where a run over the whole space finds half unwritten.

use nest_config::resolve::SourcePlan;
use nest_config::Resolved;
use nest_core::bits::Bits;
use nest_ssd::params::Replay;
use nest_ssd::SsdParams;
use nest_workload::mqsim_draws;
use nest_workload::synthetic::SyntheticWorkload;

/// Draws beyond the pages wanted after which a workload's draws stop (a narrow range or a
/// stream that wraps cannot reach its share).
const DRAWS_PER_PAGE: u64 = 64;

/// The first pages touched that are kept for the CMT's warm-up (16 MB at most).
const TOUCHES: usize = 1 << 22;

/// The pages device `device`'s preconditioning writes: for each synthetic workload that targets
/// it (in scenario order), the distinct pages its requests touch, in the order a fresh copy of
/// its generator draws them (the run's own streams: the same seed and index), until the
/// preconditioned share of its range is reached.
pub(crate) fn replay_pages(resolved: &Resolved, device: usize, params: &SsdParams, seed: u64) -> Result<Replay, String> {
    let Some(pre) = params.precondition.as_ref() else { return Ok(Replay::default()) };
    let page = params.geometry.page_size as u64;
    let logical = params.logical_pages();
    let mut seen = Bits::new(logical as usize);
    let (mut pages, mut touches) = (Vec::new(), Vec::new());
    for (index, w) in resolved.workloads.iter().enumerate() {
        let SourcePlan::Synthetic(spec) = &w.source else { continue };
        if w.device != device || w.volume.is_some() {
            continue;
        }
        if let Some(flow) = &spec.mqsim {
            // MQSim's own preconditioning draws (`mqsim_draws`): its pages, and as the pages a
            // hot/cold run touches past its hot region, the cold ones in the order drawn (MQSim's
            // CMT warm-up takes its cold entries from that list).
            let sectors = page / 512;
            let (drawn, in_order) = mqsim_draws::precondition_pages(flow, spec.read_fraction, &spec.address, pre.occupancy, sectors)
                .map_err(|e| format!("workload '{}': {e}", w.name))?;
            let base = spec.range_start / page;
            for (k, rel) in drawn.into_iter().enumerate() {
                let lpa = base + rel;
                if lpa < logical && seen.insert(lpa as usize) {
                    pages.push(lpa as u32);
                    if k >= in_order && touches.len() < TOUCHES {
                        touches.push(lpa as u32);
                    }
                }
            }
            continue;
        }
        let want = (pre.occupancy * (spec.range_bytes / page) as f64) as u64;
        let mut gen = SyntheticWorkload::new(spec.clone(), seed, index as u64).map_err(|e| format!("workload '{}': {e}", w.name))?;
        let (mut got, mut draws) = (0u64, 0u64);
        while got < want && draws < DRAWS_PER_PAGE * want.max(1) {
            draws += 1;
            let io = gen.make_io();
            for lpa in io.offset / page..(io.offset + io.size as u64).div_ceil(page).min(logical) {
                if touches.len() < TOUCHES {
                    touches.push(lpa as u32);
                }
                if got < want && seen.insert(lpa as usize) {
                    pages.push(lpa as u32);
                    got += 1;
                }
            }
        }
    }
    Ok(Replay { pages, touches })
}
