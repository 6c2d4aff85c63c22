//! A synthetic flow's requests drawn as MQSim 7ec40e3 draws them (compat's `mqsim_draws`): the
//! same generators (`nest_core::mqsim_rng`, MRG32k3a) seeded from the flow's `Seed` in MQSim's
//! order — request type, address, then hot address and hot/cold choice (RANDOM_HOTCOLD), size
//! (NORMAL), gaps (BANDWIDTH) — and the same arithmetic on sectors
//! (`src/host/IO_Flow_Synthetic.cpp:28-55, 74-167, 197-232`). A request's draws depend only on
//! how many came before it, never on time, so NeSt's k-th request is MQSim's k-th: a crosscheck
//! then compares the two models on one request stream, not two draws of it.
//!
//! The pages MQSim's preconditioning writes come from fresh generators of the same seeds by an
//! algorithm of their own (`src/ssd/FTL.cpp:108-320`): a hot/cold flow whose hot region is
//! smaller than what is to be written writes that region in order first, then cold pages at
//! random ([`precondition_pages`]).

use crate::address::AddressPattern;
use nest_core::mqsim_rng::MqsimRng;

/// What MQSim's flow object holds that NeSt's workload does not: its seed, its slice of the
/// device in sectors, and its size and gap parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct MqsimFlow {
    /// The flow's `<Seed>`: its generators take seed, seed + 1, … in MQSim's order.
    pub seed: i32,
    /// `start_lsa_on_device` and `end_lsa_on_device` (the working set applied), in sectors.
    pub first_sector: u64,
    pub last_sector: u64,
    /// The flow's logical pages (MQSim's `Get_logical_pages_count`, its whole slice), which its
    /// `Initial_Occupancy_Percentage` is of.
    pub logical_pages: u64,
    /// `Average_Request_Size` in sectors, and `Variance_Request_Size` when sizes are NORMAL
    /// (MQSim passes it as the standard deviation).
    pub size_sectors: u32,
    pub size_sd: Option<f64>,
    /// `Address_Alignment_Unit` in sectors when addresses are aligned (1: not aligned).
    pub align_sectors: u64,
    /// BANDWIDTH: `Average_inter_arrival_time_nano_sec` as MQSim computes it
    /// (`src/exec/Host_System.cpp:57`), integer nanoseconds.
    pub gap_ns: Option<u64>,
}

/// The request stream's state: MQSim's generators and its stream position.
#[derive(Clone, Debug)]
pub struct MqsimDraws {
    flow: MqsimFlow,
    read_ratio: f64,
    pattern: Pattern,
    op: MqsimRng,
    addr: MqsimRng,
    hot: Option<(MqsimRng, MqsimRng)>,
    size: Option<MqsimRng>,
    gap: Option<MqsimRng>,
    next_sector: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Pattern {
    Uniform,
    /// The last sector of the hot region, and the ratio MQSim compares its hot/cold draw with.
    HotCold {
        hot_end: u64,
        ratio: f64,
    },
    Streaming,
}

/// One drawn request: a read?, its first sector on the device, its sectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MqsimRequest {
    pub read: bool,
    pub sector: u64,
    pub sectors: u32,
}

fn pattern(p: &AddressPattern, first: u64, last: u64) -> Result<Pattern, String> {
    Ok(match *p {
        AddressPattern::Uniform => Pattern::Uniform,
        AddressPattern::Sequential { .. } => Pattern::Streaming,
        // MQSim's `hot_region_ratio` is the hot region's share of the space (the share of
        // requests there is 1 − it); its draw goes cold when below the ratio.
        AddressPattern::HotCold { hot_fraction, .. } => {
            Pattern::HotCold { hot_end: first + ((last - first) as f64 * hot_fraction) as u64, ratio: hot_fraction }
        }
        AddressPattern::Zipf(_) => return Err("MQSim's draws have no Zipf addresses".into()),
    })
}

impl MqsimDraws {
    /// The stream of a flow with `read_fraction` reads and addresses `address`.
    pub fn new(flow: &MqsimFlow, read_fraction: f64, address: &AddressPattern) -> Result<Self, String> {
        if flow.first_sector > flow.last_sector {
            return Err(format!("mqsim_draws: first_sector {} is past last_sector {}", flow.first_sector, flow.last_sector));
        }
        let pattern = pattern(address, flow.first_sector, flow.last_sector)?;
        let mut seed = flow.seed;
        let mut next = || {
            let s = seed;
            seed = seed.wrapping_add(1);
            MqsimRng::new(s)
        };
        let op = next();
        let mut addr = next();
        let hot = matches!(pattern, Pattern::HotCold { .. }).then(|| {
            let h = next();
            (h, next())
        });
        let size = flow.size_sd.map(|_| next());
        let gap = flow.gap_ns.map(|_| next());
        // A stream starts at a random aligned sector (`Start_simulation`, `:201-205`).
        let mut next_sector = flow.first_sector;
        if pattern == Pattern::Streaming {
            next_sector = addr.uniform_ulong(flow.first_sector, flow.last_sector);
            next_sector -= next_sector % flow.align_sectors.max(1);
        }
        // MQSim turns a read ratio of 0 into −1 so that `Uniform(0, 1) <= ratio` never holds.
        let read_ratio = if read_fraction == 0.0 { -1.0 } else { read_fraction };
        Ok(MqsimDraws { flow: flow.clone(), read_ratio, pattern, op, addr, hot, size, gap, next_sector })
    }

    /// `Generate_next_request`'s draws (`IO_Flow_Synthetic.cpp:85-161`).
    pub fn next_request(&mut self) -> MqsimRequest {
        let read = self.op.uniform(0.0, 1.0) <= self.read_ratio;
        let sectors = self.draw_size();
        let (first, last) = (self.flow.first_sector, self.flow.last_sector);
        let mut sector = match self.pattern {
            Pattern::Streaming => {
                let mut s = self.next_sector;
                if s + sectors as u64 > last {
                    s = first;
                }
                self.next_sector += sectors as u64;
                if self.next_sector > last {
                    self.next_sector = first;
                }
                let a = self.flow.align_sectors.max(1);
                if !self.next_sector.is_multiple_of(a) {
                    self.next_sector += a - self.next_sector % a;
                }
                s
            }
            Pattern::HotCold { hot_end, ratio } => {
                let (h, hc) = self.hot.as_mut().expect("hot/cold generators");
                if hc.uniform(0.0, 1.0) < ratio {
                    within(h, hot_end + 1, last, sectors as u64)
                } else {
                    h.uniform_ulong(first, hot_end)
                }
            }
            Pattern::Uniform => within(&mut self.addr, first, last, sectors as u64),
        };
        sector -= sector % self.flow.align_sectors.max(1);
        MqsimRequest { read, sector, sectors }
    }

    /// The next BANDWIDTH gap, whole nanoseconds (`Execute_simulator_event`, `:220-226`).
    pub fn next_gap_ns(&mut self) -> Option<u64> {
        let mean = self.flow.gap_ns? as f64;
        Some(self.gap.as_mut()?.exponential(mean) as u64)
    }

    fn draw_size(&mut self) -> u32 {
        match (self.flow.size_sd, self.size.as_mut()) {
            (Some(sd), Some(g)) => {
                // `ceil(Normal)` cast to unsigned, 0 taken as 1; a draw at or below −1 is a
                // request of ~2³² sectors in MQSim, taken here as one sector (the importer warns).
                let s = g.normal(self.flow.size_sectors as f64, sd).ceil();
                if s < 1.0 {
                    1
                } else {
                    s as u32
                }
            }
            _ => self.flow.size_sectors,
        }
    }
}

/// A sector drawn in `lo..=hi`, taken back to `lo` when a request of `size` sectors from it would
/// pass `hi` (MQSim's guard after each uniform draw: it reads as if inside the range check's
/// error branch, but `PRINT_ERROR` is a block of its own, `src/sim/Sim_Defs.h:20`).
fn within(g: &mut MqsimRng, lo: u64, hi: u64, size: u64) -> u64 {
    let s = g.uniform_ulong(lo, hi);
    if s + size > hi {
        lo
    } else {
        s
    }
}

/// The pages MQSim's preconditioning writes for a synthetic flow with `read_fraction` reads and
/// addresses `address`, in the order first drawn (`FTL.cpp:108-320`): `occupancy` of its
/// logical pages, each page of `page_sectors` sectors numbered from the flow's first sector.
/// Fresh generators of the flow's seeds; its working set bounds the addresses
/// (`Min_LHA`..`Max_LHA − 1`, the first rounded up to the alignment). Also how many of them its
/// hot region written in order gave (0 when it draws hot pages at random).
pub fn precondition_pages(
    flow: &MqsimFlow,
    read_fraction: f64,
    address: &AddressPattern,
    occupancy: f64,
    page_sectors: u64,
) -> Result<(Vec<u64>, usize), String> {
    let want = (occupancy * flow.logical_pages as f64) as u64;
    let mut d = MqsimDraws::new(flow, read_fraction, address)?;
    let a = flow.align_sectors.max(1);
    let mut min = flow.first_sector;
    let mut max = flow.last_sector.saturating_sub(1);
    if a > 1 {
        if !min.is_multiple_of(a) {
            min += a - min % a;
        }
        // MQSim subtracts the *first* sector's remainder here (`FTL.cpp:84-85`).
        if !max.is_multiple_of(a) {
            max -= min % a;
        }
    }
    let lpa = |sector: u64| (sector - min) / page_sectors;
    let pattern = pattern(address, min, max)?;
    // The hot region written in order first when it holds fewer pages than are wanted
    // (`fully_include_hot_addresses`, `:127-135, 231-251`).
    let (mut hot_next, mut hot_done) = (min, false);
    let full_hot = matches!(pattern, Pattern::HotCold { hot_end, .. } if (hot_end / page_sectors).saturating_sub(1).saturating_sub(min / page_sectors) < want);
    // A stream starts at a random sector of the range (`:150-151`), the first draw of a fresh
    // address generator (the flow's seed + 1; `MqsimDraws::new` drew the run's start from its own).
    let mut stream = if pattern == Pattern::Streaming { MqsimRng::new(flow.seed.wrapping_add(1)).uniform_ulong(min, max) } else { 0 };
    let mut seen = std::collections::HashSet::with_capacity(want as usize);
    let mut pages = Vec::with_capacity(want as usize);
    let mut draws = 0u64;
    let mut hot_pages = 0;
    while (pages.len() as u64) < want {
        draws += 1;
        if draws > 64 * want.max(1) + 1024 {
            break; // a range too small for the occupancy (MQSim adjusts and warns)
        }
        let _read = d.op.uniform(0.0, 1.0) <= d.read_ratio;
        let size = d.draw_size() as u64;
        // Whether this request is of the hot region written in order (MQSim counts the one
        // that passes its end in too).
        let mut in_order = false;
        let mut start = match pattern {
            Pattern::Streaming => {
                let s = if stream + size > max { min } else { stream };
                stream += size;
                if stream > max {
                    stream = min;
                }
                if !stream.is_multiple_of(a) {
                    stream += a - stream % a;
                }
                s
            }
            Pattern::HotCold { hot_end, ratio } => {
                let (h, hc) = d.hot.as_mut().expect("hot/cold generators");
                if full_hot && !hot_done {
                    let s = hot_next;
                    hot_next += size;
                    if s > hot_end {
                        hot_done = true;
                    }
                    in_order = true;
                    s
                } else if full_hot || hc.uniform(0.0, 1.0) < ratio {
                    within(h, hot_end + 1, max, size)
                } else {
                    h.uniform_ulong(min, hot_end)
                }
            }
            Pattern::Uniform => within(&mut d.addr, min, max, size),
        };
        start -= start % a;
        let mut sector = start;
        while sector < start + size {
            let p = lpa(sector);
            if seen.insert(p) {
                pages.push(p);
                if pages.len() as u64 == want {
                    break;
                }
            }
            sector = (sector / page_sectors + 1) * page_sectors;
        }
        if in_order {
            hot_pages = pages.len();
        }
    }
    Ok((pages, hot_pages))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow() -> MqsimFlow {
        MqsimFlow {
            seed: 12357,
            first_sector: 0,
            last_sector: 15_602_783,
            logical_pages: 1_950_348,
            size_sectors: 32,
            size_sd: None,
            align_sectors: 32,
            gap_ns: None,
        }
    }

    /// The first requests MQSim 7ec40e3 generated (instrumented) for a hot/cold flow — 70 %
    /// reads, 20 % hot region, 16 KiB aligned requests, seed 12357 — on a drive of 15,602,784
    /// sectors.
    #[test]
    fn a_hot_cold_flow_draws_what_mqsim_drew() {
        let hot = AddressPattern::HotCold { hot_fraction: 0.2, hot_share: 0.8 };
        let mut d = MqsimDraws::new(&flow(), 0.7, &hot).unwrap();
        let got: Vec<(bool, u64)> = (0..MQSIM_HOTCOLD.len()).map(|_| d.next_request()).map(|r| (r.read, r.sector)).collect();
        assert_eq!(got, MQSIM_HOTCOLD);
    }

    /// A uniform flow: 70 % reads, 16 KiB aligned, seed 12345.
    #[test]
    fn a_uniform_flow_draws_what_mqsim_drew() {
        let f = MqsimFlow { seed: 12345, ..flow() };
        let mut d = MqsimDraws::new(&f, 0.7, &AddressPattern::Uniform).unwrap();
        let got: Vec<(bool, u64)> = (0..MQSIM_UNIFORM.len()).map(|_| d.next_request()).map(|r| (r.read, r.sector)).collect();
        assert_eq!(got, MQSIM_UNIFORM);
    }

    /// Preconditioning writes a small hot region first and in order, then cold pages, each
    /// page once, as many as the occupancy asks.
    #[test]
    fn preconditioning_writes_the_hot_region_first_then_cold_pages() {
        let f = MqsimFlow { last_sector: 8 * 10_000 - 1, logical_pages: 10_000, size_sectors: 8, align_sectors: 8, ..flow() };
        let hot = AddressPattern::HotCold { hot_fraction: 0.2, hot_share: 0.8 };
        let (pages, in_order) = precondition_pages(&f, 0.7, &hot, 0.6, 8).unwrap();
        assert_eq!(pages.len(), 6_000);
        assert_eq!(in_order, 2_001, "the hot region's 2,000 pages and the one its last request passes into");
        assert!(pages[..1_999].iter().enumerate().all(|(i, &p)| p == i as u64), "the hot region in order");
        assert!(pages[2_001..].iter().all(|p| (2_000..10_000).contains(p)), "then cold pages");
        let mut sorted = pages.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), pages.len(), "each page once");
    }

    /// NORMAL sizes and BANDWIDTH gaps come from generators of their own, later in the seed
    /// order; sizes are whole sectors, at least one, gaps whole nanoseconds around the mean.
    #[test]
    fn sizes_and_gaps_draw_from_their_own_generators() {
        let f = MqsimFlow { size_sd: Some(4.0), gap_ns: Some(10_000), ..flow() };
        let mut d = MqsimDraws::new(&f, 0.5, &AddressPattern::Uniform).unwrap();
        let mut plain = MqsimDraws::new(&flow(), 0.5, &AddressPattern::Uniform).unwrap();
        let (mut sum, mut gaps) = (0u64, 0u64);
        for _ in 0..10_000 {
            let (r, p) = (d.next_request(), plain.next_request());
            assert_eq!(r.read, p.read, "the type stream is the same");
            assert!(r.sectors >= 1);
            sum += r.sectors as u64;
            gaps += d.next_gap_ns().unwrap();
        }
        assert!((sum as f64 / 10_000.0 - 32.5).abs() < 0.5, "mean size {}", sum as f64 / 10_000.0);
        assert!((gaps as f64 / 10_000.0 - 10_000.0).abs() < 500.0, "mean gap {}", gaps as f64 / 10_000.0);
        assert_eq!(plain.next_gap_ns(), None);
    }

    /// Every request ends inside the flow: MQSim's guards move a uniform or cold draw that would
    /// run past its last sector back to the start of its region.
    #[test]
    fn requests_end_inside_the_flow() {
        let f = MqsimFlow { last_sector: 8 * 64 - 1, logical_pages: 64, size_sectors: 16, align_sectors: 8, ..flow() };
        for address in [AddressPattern::Uniform, AddressPattern::HotCold { hot_fraction: 0.2, hot_share: 0.8 }] {
            let mut d = MqsimDraws::new(&f, 0.5, &address).unwrap();
            for _ in 0..10_000 {
                let r = d.next_request();
                assert!(r.sector + r.sectors as u64 <= f.last_sector + 1 && r.sector.is_multiple_of(8), "{address:?}: {r:?}");
            }
        }
    }

    /// A stream's preconditioning starts at the first draw of a fresh address generator over
    /// the range less its last sector (aligned down for the first request, up for the next), and
    /// goes on in order.
    #[test]
    fn a_streams_preconditioning_starts_where_a_fresh_generator_says() {
        let f = MqsimFlow { last_sector: 8 * 10_000 - 1, logical_pages: 10_000, size_sectors: 8, align_sectors: 8, ..flow() };
        let (pages, _) = precondition_pages(&f, 0.0, &AddressPattern::Sequential { random_start: true }, 0.1, 8).unwrap();
        let start = MqsimRng::new(f.seed + 1).uniform_ulong(0, f.last_sector - 1);
        assert_eq!(pages[0], start / 8);
        assert!(pages.windows(2).take(100).all(|w| w[1] > w[0] && w[1] <= w[0] + 2), "in order: {:?}", &pages[..10]);
    }

    const MQSIM_HOTCOLD: [(bool, u64); 12] = [
        (false, 2914848),
        (false, 426816),
        (true, 2972736),
        (true, 628352),
        (true, 439776),
        (false, 1770144),
        (false, 4442496),
        (false, 1662816),
        (true, 1995360),
        (true, 4064032),
        (true, 2258816),
        (false, 3105984),
    ];
    const MQSIM_UNIFORM: [(bool, u64); 12] = [
        (true, 8381920),
        (false, 2984896),
        (false, 6749408),
        (true, 14232704),
        (true, 13407488),
        (true, 3689600),
        (true, 4149216),
        (false, 11953440),
        (true, 10030432),
        (true, 12622848),
        (true, 3672736),
        (false, 12362912),
    ];
}
