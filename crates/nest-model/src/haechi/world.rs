//! Haechi on the World's packet fabric (`[haechi]` in a scenario with a `[network]`; issue 20):
//! the run's rules and endpoints are [`HaechiRun`]'s, on [`Wire::Fabric`]; `path/haechi.rs`
//! moves its events through the World's queue (`Event::Haechi`) and its verbs over the message
//! channels `nest_config::resolve::haechi` opened for each (client, data node) pair. A
//! request is a message on the pair's request channel and its answer one on the answer
//! channel, tagged with the op's id; the transports carry them as they carry NVMe-oF capsules.

use super::run::{HaechiRun, Wire};
use nest_config::resolve::haechi::HaechiPlan;
use nest_core::SimTime;

pub struct HaechiRt {
    pub run: HaechiRun,
    /// Per (client c, node j), at `c * nodes + j`: the request and answer channels.
    pub channels: Vec<(u32, u32)>,
    pub nodes: usize,
    pub end: SimTime,
}

impl HaechiRt {
    pub fn new(plan: &HaechiPlan) -> Result<HaechiRt, String> {
        let run = HaechiRun::on(plan.spec.clone(), Wire::Fabric).map_err(|e| format!("haechi: {e}"))?;
        let end = run.end();
        Ok(HaechiRt { run, channels: plan.channels.clone(), nodes: plan.data_nodes.len(), end })
    }
}
