//! The timed SSD, a facade over its parts, each in its own file with the state it owns:
//!
//! - `host_if`: command slots, PCIe in/out, the DRAM data cache's hits and write
//!   admission, commands split into page transactions;
//! - `scheduler`: transactions through the CMT into per-die queues, a die's next multi-plane
//!   batch, suspension, what a finished transaction releases;
//! - `sched`: die scheduling policies (which queue goes next: FIFO, device-level QoS), one
//!   file each behind the `DiePolicy` trait;
//! - `txn`, `die`: the state of a transaction and of a die and a channel (leaves the others share);
//! - `flash`: dies and channels — sense/program/erase timing, the shared channel;
//! - `chip`: MQSim's chip and channel discipline (one die's command per chip, commands on an
//!   idle channel), for the compatible model;
//! - `gc`: the garbage-collection driver (soft/hard thresholds; soft GC can be held off);
//! - `precondition`: the drive filled to steady state before time 0.
//!
//! Sans-IO towards the engine: `submit` and `handle` take the current time and an [`Outbox`]
//! into which the SSD puts the events it wants scheduled (`SsdEvent`, delivered back through
//! `handle`) and the tags of host commands that completed. The outbox is reused, so the hot
//! path allocates nothing.
//!
//! A die operation: reads sense (command + tR, die busy) then move data out over the channel;
//! programs move data in over the channel then program (tPROG); erases take tBERS. Up to one
//! transaction per plane of a die runs as one multi-plane operation (same kind). The channel
//! is a FIFO resource shared by the dies on it.

use crate::cache::DataCache;
use crate::cmt::Cmt;
use crate::ftl::Ftl;
use crate::geometry::{Layout, NONE};
use crate::params::{SsdParams, MAX_PLANES_PER_DIE};
use nest_core::rng::RngStream;
use nest_core::wrr::Wrr;
use nest_core::{Pool, SimTime};
use std::collections::VecDeque;

mod admission;
mod chip;
mod cmt_warm;
pub mod decomp;
mod die;
mod die_queues;
mod flash;
mod gc;
mod gc_lock;
mod gc_postpone;
mod host_if;
mod laid_out;
mod map_pages;
mod onfi;
mod partners;
mod plm;
mod precondition;
mod sched;
mod scheduler;
mod txn;

use die::{Channel, Die, Phase};
use gc::GcJob;
use host_if::Cmd;
use txn::Txn;

use decomp::TxnTimes;
pub use decomp::{DevParts, DEV_PARTS};
pub use plm::PlmReport;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SsdEvent {
    /// A die finished its sense, program or erase.
    Die(u32),
    /// A channel finished a data transfer.
    Channel(u32),
    /// The DRAM part of a command finished.
    Dram(u32),
    /// A write command's data arrived over PCIe (`sqe_over_pcie`: the command's next NVMe message
    /// crossed the link).
    HostIn(u32),
    /// A read command's data left over PCIe: the command completes.
    HostOut(u32),
    /// An NVM set's PLM timer (its next timed window change).
    Plm(u32),
    /// A command's extra NDWin delay ended.
    Delayed(u32),
}

impl SsdEvent {
    /// A small tag for trajectory fingerprints: the kind in bits 56.., the index below 32.
    #[inline]
    pub fn tag(&self) -> u64 {
        let (k, x) = match *self {
            SsdEvent::Die(x) => (0u64, x),
            SsdEvent::Channel(x) => (1, x),
            SsdEvent::Dram(x) => (2, x),
            SsdEvent::HostIn(x) => (3, x),
            SsdEvent::HostOut(x) => (4, x),
            SsdEvent::Plm(x) => (5, x),
            SsdEvent::Delayed(x) => (6, x),
        };
        (k << 56) | x as u64
    }
}

#[derive(Default)]
pub struct Outbox {
    pub events: Vec<(SimTime, SsdEvent)>,
    /// Completed host commands.
    pub done: Vec<Done>,
    /// PLM window changes (NVM set, transition) — the log-page changes a drive advertises
    /// (asynchronous event), for the host-side pool scheduler and PLMC.
    pub plm: Vec<(u32, crate::plm::Transition)>,
}

/// A completed host command: its tag and where its time inside the device went.
#[derive(Copy, Clone, Debug)]
pub struct Done {
    pub tag: u32,
    /// Picoseconds per part of [`DEV_PARTS`]; they add up to submit-to-completion.
    pub parts: DevParts,
}

/// Classes of the device-level queues: 0 urgent, 1 high, 2 medium, 3 low.
pub const CLASSES: usize = 4;

/// Counters reported per device.
#[derive(Clone, Debug, Default)]
pub struct SsdCounters {
    pub commands: u64,
    pub read_pages: u64,
    pub write_pages: u64,
    pub flash_reads: u64,
    pub map_reads: u64,
    pub map_writes: u64,
    pub gc_moves: u64,
    pub gc_time_ps: u64,
    pub rmw_reads: u64,
    /// Program commands issued (each a batch of one or more planes' pages: user, GC, mapping),
    /// and those of several planes — MQSim's `Issued_Flash_Program_CMD` + `…_Multiplane_…` and
    /// `Issued_Flash_Multiplane_Program_CMD`.
    pub program_commands: u64,
    pub multiplane_program_commands: u64,
    /// Erase commands issued, of one block or several planes' (MQSim's `Issued_Flash_Erase_CMD`
    /// + `Issued_Flash_Multiplane_Erase_CMD`).
    pub erase_commands: u64,
    pub write_stalls: u64,
    /// User programs that went in a GC program's batch (`gc_user_partners`).
    pub gc_partnered_programs: u64,
    /// User reads that went in a GC read's batch (`gc_read_partners`).
    pub gc_partnered_reads: u64,
    /// GC and user reads that went in a mapping read's batch (`map_read_partners`).
    pub map_partnered_reads: u64,
    /// Transactions (GC's, and user partners) that went in GC batches of more than one (`gc_multiplane`).
    pub gc_batched: u64,
    /// Write-backs lost to a GC job's lock on their LPA (`gc_lock_loses_writebacks`).
    pub writebacks_lost: u64,
    /// User reads dropped behind a GC job's lock on their LPA (`gc_lock_hangs_reads`).
    pub reads_hung: u64,
    /// GC jobs that waited for user reads in flight on their victim (`gc_waits_for_user_reads`).
    pub gc_jobs_postponed: u64,
    pub program_suspends: u64,
    pub erase_suspends: u64,
}

pub struct Ssd {
    pub params: SsdParams,
    pub layout: Layout,
    pub ftl: Ftl,
    cmt: Option<Cmt>,
    /// Where each translation page lies (`map_page_offsets`).
    map_pages: Option<map_pages::MapPages>,
    /// MQSim's GC generator, for RGA's draws (`ModelSwitches::gc_seed`).
    mqsim_gc_rng: Option<crate::mqsim_rng::MqsimRng>,
    cache: Option<DataCache>,
    txns: Pool<Txn>,
    /// The clocks of user transactions, by transaction slot (`decomp`).
    times: Vec<TxnTimes>,
    cmds: Pool<Cmd>,
    dies: Vec<Die>,
    /// Each die's scheduling policy and its state (`sched`).
    policies: Vec<sched::Policy>,
    gc_order: sched::GcOrder,
    channels: Vec<Channel>,
    /// GC jobs by id (a transaction's owner); `gc_free` the ids not in use.
    gc_jobs: Vec<GcJob>,
    gc_free: Vec<u32>,
    /// Per plane: its `blocks_taken` when its last GC job started (the jobs running are the
    /// FTL's `gc_jobs`).
    gc_seen_blocks: Vec<u32>,
    /// The most GC jobs one plane ran at once.
    pub(crate) gc_peak: u32,
    /// Soft GC may not start (the `set_soft_gc_deferred` hook).
    soft_gc_deferred: bool,
    /// A GC storm: every plane collects whatever holds a stale page, as if its free blocks
    /// were low (the `set_gc_storm` hook).
    gc_storm: bool,
    /// Predictable Latency Mode on some NVM sets (`plm`).
    plm: Option<plm::Plm>,
    /// Writes waiting for cache slots, per class (urgent, high, medium, low). Without
    /// device-level QoS one FIFO (index 0); with it, the cache's admission is one more internal
    /// queueing point arbitrated by the rule of the chip queues (urgent first, then WRR): when
    /// writes outrun the flash, this is where they wait, so a FIFO here would undo the
    /// per-class service.
    cache_wait: [VecDeque<u32>; CLASSES],
    cache_wrr: Wrr,
    /// Bytes of cache write-backs in flight (`writeback_limit_pages`), and of those lost to a
    /// GC lock, which stay counted (`gc_lock_loses_writebacks`).
    writeback_bytes: u64,
    /// The LPAs running GC jobs have locked (`gc_lock_loses_writebacks`).
    gc_locks: gc_lock::GcLocks,
    /// User reads in flight per block and the GC jobs waiting for them (`gc_waits_for_user_reads`).
    gc_postponed: gc_postpone::Postponed,
    pcie_in_free: SimTime,
    pcie_out_free: SimTime,
    dram_free: SimTime,
    /// The cache DRAM's busy time (its accesses are served one at a time).
    dram_busy: SimTime,
    rng: RngStream,
    scratch: Vec<(u32, u32)>,
    scratch_txns: Vec<u32>,
    /// Arrival stamp of the next transaction queued at a die (`Txn::seq`).
    next_seq: u32,
    /// A step is under way whose channel offers wait for its end (`schedule_after_submit`),
    /// and how many channels have one waiting.
    submitting: bool,
    deferred_channels: u32,
    /// A transaction was queued at a die in the step under way (`walk_idle_channels`).
    queued_in_step: bool,
    /// Per chip: visits of the scheduler to it while busy whose class round-robin asks are yet to
    /// be made (`class_wrr = "mqsim"` with device QoS, else empty; `settle_visits`).
    busy_visits: Vec<u32>,
    /// Tests: make each busy visit's asks at the visit, as MQSim does (`settle_visits` must agree).
    #[cfg(test)]
    pub(crate) eager_visits: bool,
    in_flight: u32,
    pub counters: SsdCounters,
    logical_pages: u32,
}

impl Ssd {
    pub fn new(params: SsdParams, seed: u64, index: u64) -> Result<Self, String> {
        if let Some((k, m)) = params.validate().into_iter().next() {
            return Err(format!("{k}: {m}"));
        }
        let logical = params.logical_pages();
        let layout = Layout::new(&params.geometry, &params.ftl.allocation)
            .with_sets(params.nvm_sets, logical, params.nvm_sets_share_dies)
            .with_domains(&params.model.domains, logical);
        let plm = params.plm.as_ref().map(|p| plm::Plm::new(&layout, &p.sets, &p.attrs, seed, index));
        let mut ftl = Ftl::new(layout.clone(), logical, &params.ftl, params.soft_free_blocks(), params.hard_free_blocks());
        ftl.rga_mqsim = params.model.rga_sampling == crate::switches::RgaSampling::Mqsim;
        ftl.write_floor = params.model.gc_floor_blocks;
        ftl.open_frontiers = params.model.open_frontiers;
        ftl.wl_block_ids = params.model.static_wl_block_ids;
        let m = &params.model;
        // MQSim's flows' address domains (`mapping_domains`) as their first LPAs, rising: the CMT
        // files entries by them, and with `stream_frontiers` each writes to frontiers of its own.
        let mut domain_starts: Vec<u32> = m.mapping_domains.iter().map(|&b| (b / params.geometry.page_size as u64).min(logical) as u32).collect();
        domain_starts.sort_unstable();
        domain_starts.dedup();
        if m.stream_frontiers && domain_starts.len() > 1 {
            ftl.set_streams(&domain_starts);
        }
        let cmt = params.ftl.cmt_bytes.map(|b| {
            let mut cmt = Cmt::new(
                logical,
                params.geometry.page_size,
                b,
                params.geometry.page_size / m.map_entry_bytes,
                m.cmt_granularity,
                m.cmt_entry_bytes,
                m.mapping_writes,
                m.evicted_entry_misfiled,
                m.merge_read,
            );
            cmt.set_domains(domain_starts.clone(), m.cmt_per_domain);
            if m.writeback_refreshes_siblings {
                cmt.refresh_siblings_on_write_back();
            }
            cmt
        });
        let cache = (params.cache.mode != crate::params::CacheMode::Off).then(|| {
            let eager = (m.destage == crate::switches::Destage::Eager).then_some(m.hot_window.0);
            let mut c = DataCache::new(params.cache_slots(), params.cache.flush_reserve, params.geometry.page_size, eager);
            if m.hot_reset == crate::switches::HotReset::AfterWrite {
                c.reset_hot_window_after_writes();
            }
            c
        });
        let dies = (0..layout.dies)
            .map(|_| Die {
                phase: Phase::Idle,
                batch: [NONE; MAX_PLANES_PER_DIE as usize],
                n: 0,
                xfer_bytes: 0,
                out_next: 0,
                started: SimTime::ZERO,
                busy_ps: 0,
                q: Default::default(),
                next_plane: 0,
                end: SimTime::ZERO,
                op_suspends: 0,
                suspended: None,
                batch_page: None,
                stale: Vec::new(),
                gc_ps: 0,
                gc_since: None,
            })
            .collect();
        let channels =
            (0..params.geometry.channels).map(|_| Channel { busy: false, die: NONE, waiting: VecDeque::new(), busy_ps: 0, rr: 0, deferred: false }).collect();
        let mut ssd = Ssd {
            gc_jobs: Vec::new(),
            gc_free: Vec::new(),
            gc_seen_blocks: vec![0; layout.planes as usize],
            gc_peak: 0,
            policies: (0..layout.dies).map(|_| sched::Policy::for_params(&params.sched, params.model.class_wrr == crate::switches::ClassWrr::Mqsim)).collect(),
            gc_order: sched::GcOrder::new(layout.dies, params.ftl.gc_preemptible, params.model.gc_precedence),
            layout,
            ftl,
            cmt,
            map_pages: None,
            mqsim_gc_rng: params.model.gc_seed.map(crate::mqsim_rng::MqsimRng::new),
            cache,
            txns: Pool::with_capacity(1024),
            times: Vec::new(),
            cmds: Pool::with_capacity(params.host.queue_depth as usize),
            dies,
            channels,
            soft_gc_deferred: false,
            gc_storm: false,
            plm,
            cache_wait: Default::default(),
            cache_wrr: Wrr::new(params.sched.weights),
            writeback_bytes: 0,
            gc_locks: gc_lock::GcLocks::new(params.model.gc_lock_loses_writebacks || params.model.gc_lock_hangs_reads, logical),
            gc_postponed: gc_postpone::Postponed::new(params.model.gc_waits_for_user_reads, params.geometry.blocks()),
            pcie_in_free: SimTime::ZERO,
            pcie_out_free: SimTime::ZERO,
            dram_free: SimTime::ZERO,
            dram_busy: SimTime::ZERO,
            rng: RngStream::derive(seed, "ssd", index, "gc"),
            scratch: Vec::new(),
            scratch_txns: Vec::new(),
            next_seq: 0,
            submitting: false,
            deferred_channels: 0,
            queued_in_step: false,
            // Counted only where they ask something: MQSim's round-robin over device QoS classes.
            busy_visits: if params.model.class_wrr == crate::switches::ClassWrr::Mqsim && params.sched.device_qos {
                vec![0; (params.geometry.channels * params.geometry.chips_per_channel) as usize]
            } else {
                Vec::new()
            },
            #[cfg(test)]
            eager_visits: false,
            in_flight: 0,
            counters: SsdCounters::default(),
            logical_pages: logical as u32,
            params,
        };
        let pinned = ssd.params.model.mapping_writes == crate::switches::MappingWrites::Pinned;
        if ssd.params.model.open_frontiers {
            ssd.ftl.open_frontiers_at_build(pinned);
        }
        if let Some(pages) = ssd.cmt.as_ref().filter(|_| pinned).map(Cmt::translation_pages) {
            // The table written when the drive is built takes its pages (`MappingWrites::Pinned`).
            for tp in 0..pages {
                ssd.ftl.pin_translation_page(ssd.map_plane(tp));
            }
            (ssd.ftl.counters.pinned_blocks, ssd.ftl.counters.pinned_unplaced) = (0, 0);
        }
        if let Some(p) = ssd.params.precondition.clone() {
            ssd.precondition(&p, seed, index)?;
            // The workloads' pages were needed only to write them.
            ssd.params.precondition.as_mut().map(|q| std::mem::take(&mut q.replay));
            if ssd.params.model.precondition_closes_frontiers {
                ssd.ftl.close_partial_frontiers();
            }
        }
        if ssd.params.model.open_frontiers {
            ssd.ftl.open_all_frontiers();
        }
        if ssd.params.model.gc_at_block_takes {
            // The blocks the build took were taken without a GC check (MQSim's too).
            ssd.gc_seen_blocks = ssd.ftl.planes.iter().map(|p| p.blocks_taken).collect();
        }
        if let Some(pages) = ssd.cmt.as_ref().filter(|_| ssd.params.model.map_page_offsets).map(Cmt::translation_pages) {
            let m = map_pages::MapPages::new(pages, ssd.layout.planes, ssd.layout.pages_per_block, |tp| ssd.map_plane(tp));
            ssd.map_pages = Some(m);
        }
        Ok(ssd)
    }

    /// Whether the controller has a free command slot.
    #[inline]
    pub fn can_accept(&self) -> bool {
        self.in_flight < self.params.host.queue_depth
    }

    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    pub fn capacity(&self) -> u64 {
        self.params.capacity()
    }

    pub fn handle(&mut self, now: SimTime, ev: SsdEvent, out: &mut Outbox) {
        let opened = self.open_submission();
        match ev {
            SsdEvent::Die(d) => self.on_die(now, d, out),
            SsdEvent::Channel(c) => self.on_channel(now, c, out),
            SsdEvent::Dram(c) => self.cmd_part_done(now, c, None, out),
            SsdEvent::HostIn(c) => self.host_in(now, c, out),
            SsdEvent::HostOut(c) => self.host_out(now, c, out),
            SsdEvent::Plm(s) => self.plm_timer(now, s, out),
            SsdEvent::Delayed(c) => self.plm_delayed(now, c, out),
        }
        self.schedule(opened, now, out);
    }

    /// The name of the dies' scheduling policy (`sched`).
    pub fn die_policy(&self) -> &'static str {
        self.policies[0].name()
    }

    /// Gives every die the registered policy `name` (a fresh state), for tests of policies the
    /// parameters cannot name.
    #[cfg(test)]
    pub(crate) fn set_die_policy(&mut self, name: &str) {
        let p = sched::Policy::from_name(name, &self.params.sched).expect("a registered policy");
        self.policies.iter_mut().for_each(|q| *q = p.clone());
    }

    /// Planes with a GC or wear-levelling job in progress.
    pub fn gc_active(&self) -> u32 {
        self.ftl.planes.iter().filter(|p| p.gc_jobs > 0).count() as u32
    }

    /// Transactions queued at dies (all kinds).
    pub fn queued_txns(&self) -> usize {
        self.dies.iter().map(|d| d.q.iter().map(|q| q.len()).sum::<usize>()).sum()
    }

    pub fn cmt_hit_rate(&self) -> Option<f64> {
        self.cmt.as_ref().map(|c| c.hit_rate())
    }

    /// CMT misses served without a flash read (`MappingWrites::Never`).
    pub fn cmt_free_misses(&self) -> u64 {
        self.cmt.as_ref().map_or(0, |c| c.free_misses)
    }

    pub fn cache(&self) -> Option<&DataCache> {
        self.cache.as_ref()
    }

    /// Write amplification: flash page programs (user + GC) per user page program.
    pub fn write_amplification(&self) -> f64 {
        let c = &self.ftl.counters;
        if c.user_programs == 0 {
            return 0.0;
        }
        (c.user_programs + c.gc_programs) as f64 / c.user_programs as f64
    }

    /// Busy time of every chip (mean over its dies) and channel.
    /// The cache DRAM's busy fraction over `now` (0 without accesses).
    pub fn dram_utilisation(&self, now: SimTime) -> f64 {
        self.dram_busy.0 as f64 / now.0.max(1) as f64
    }

    pub fn utilisation(&self, now: SimTime) -> (Vec<f64>, Vec<f64>) {
        let span = now.0.max(1) as f64;
        let dpc = self.layout.dims[2] as usize;
        let chips = self
            .dies
            .chunks(dpc)
            .map(|ds| {
                ds.iter().map(|d| d.busy_ps as f64 + if d.phase != Phase::Idle { (now - d.started).0 as f64 } else { 0.0 }).sum::<f64>() / (dpc as f64 * span)
            })
            .collect();
        let chans = self.channels.iter().map(|c| c.busy_ps as f64 / span).collect();
        (chips, chans)
    }

    /// Internal consistency: FTL books, transaction and command slots.
    pub fn check(&self) -> Result<(), String> {
        self.ftl.check()?;
        let live_cmds = self.cmds.live();
        if live_cmds != self.in_flight as u64 {
            return Err(format!("{} live command slots but {} in flight", live_cmds, self.in_flight));
        }
        self.plm_check()
    }
}
