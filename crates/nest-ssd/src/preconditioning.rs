//! What preconditioning a drive is asked for (`SsdParams::precondition`); the drive carries it
//! out in `ssd/precondition.rs` (and MQSim's layout in `ssd/laid_out.rs`).

/// Steady-state preconditioning before time 0: write `occupancy` of the logical space
/// (LPAs 0..occupancy·L) then overwrite `overwrites` × that many random pages among them, with
/// GC running instantly, so block valid-page counts have the distribution the GC policy
/// produces under random writes.
///
/// `dirty_cache`: the DRAM write cache starts as a write-bound drive keeps it, dirty up to
/// its flush threshold (slots − reserve), so the first write already makes a page go back to
/// flash. Without it a drive with a large write cache runs its first ~cache-size of writes at
/// DRAM speed, and a short run measures that transient (issue 62: the demo's p99 grew with
/// the run's length until the cache had filled). The dirty pages are the last ones
/// preconditioning wrote; where it writes fewer (occupancy 0) the rest are the lowest LPAs
/// not among them, held in the cache only.
///
/// `hot`: the writes' hot/cold skew, `(fraction, share)` — the first `fraction` of each
/// domain's logical pages take `share` of the overwrites (as a hot/cold workload's writes would,
/// so the blocks reach that workload's steady state). `None`: uniform.
#[derive(Clone, Debug, PartialEq)]
pub struct Precondition {
    pub occupancy: f64,
    pub overwrites: f64,
    pub dirty_cache: bool,
    pub hot: Option<(f64, f64)>,
    /// `cmt_warm`: the share of the mapping cache's capacity preconditioning fills with entries
    /// of the pages it wrote, once for every address domain or one per domain (empty: the cache
    /// starts empty). What MQSim's preconditioning does (`src/ssd/FTL.cpp:636-740`): a hot/cold
    /// flow's hot pages first, lowest first, up to `hot_fraction` of the entries, then as many
    /// other written pages as the share less twice the hot ones (MQSim's count); a random
    /// flow's, random written pages; a stream's, the highest written pages. The entries are
    /// clean: their translation pages hold them.
    pub cmt_warm: Vec<f64>,
    /// `from_workloads`: the pages written are those the drive's synthetic workloads will draw,
    /// in their order, as MQSim's preconditioning draws them from the flows' own seeded
    /// generators (`src/ssd/FTL.cpp:108-320`): a run then finds the pages it reads written, and
    /// the warm mapping entries among its next addresses. The run fills `replay` before the
    /// drive is built.
    pub from_workloads: bool,
    /// What the workloads draw, when `from_workloads` (empty: the first pages of each address
    /// domain are written).
    pub replay: Replay,
    /// MQSim's `Seed`: with it (and `from_workloads`), a random workload's warm CMT entries are
    /// those MQSim's walk over the pages picks, with MQSim's own draws (`mqsim_rng`).
    pub walk_seed: Option<i32>,
}

impl Precondition {
    /// `occupancy` written and `overwrites` × that overwritten, nothing else asked for.
    pub fn new(occupancy: f64, overwrites: f64) -> Self {
        Precondition {
            occupancy,
            overwrites,
            dirty_cache: false,
            hot: None,
            cmt_warm: Vec::new(),
            from_workloads: false,
            replay: Replay::default(),
            walk_seed: None,
        }
    }
}

/// The pages a drive's synthetic workloads draw (`Precondition::from_workloads`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Replay {
    /// The pages to write, each once, in the order first drawn.
    pub pages: Vec<u32>,
    /// The pages the workloads' first requests touch, in order (repeats kept): MQSim's warm-up
    /// of a hot/cold flow brings the cold pages its run will touch from the request as many as
    /// the hot entries on (`FTL.cpp:697-708`).
    pub touches: Vec<u32>,
}
