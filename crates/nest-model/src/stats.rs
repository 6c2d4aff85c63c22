//! What a run measures: per class, workload and device, read and write I/O counts, bytes and
//! latency histograms over the measurement window (after warm-up, before wrap-up), plus the
//! per-interval time series. Requests are attributed by their arrival time, so trimming removes
//! whole requests from the edges of the run (SRC omits its first and last 10%).

use crate::request::Request;
use crate::ssd_decomp::DevDecomp;
use nest_core::stats::series::{Rows, SeriesColumns};
use nest_core::stats::{IntervalSeries, LatencyHistogram};
use nest_core::SimTime;

#[derive(Clone, Default)]
pub struct OpAcc {
    /// Requests that arrived in the window (and completed): the latency sample.
    pub ios: u64,
    pub bytes: u64,
    /// Requests completed in the window, whatever their arrival: what the system carried (in an
    /// overloaded open run fewer than arrived; SPEC §2's throughput).
    pub carried_ios: u64,
    pub carried_bytes: u64,
    pub latency: LatencyHistogram,
    /// Time spent waiting in the host queue (dispatch − arrival).
    pub host_wait: LatencyHistogram,
    /// Time from dispatch to the end of device service (with NVMe-oF: the forward network and
    /// the target's queues too).
    pub device_time: LatencyHistogram,
    /// Part of it spent queued before service (NVMe submission queue / device queue).
    pub device_queue: LatencyHistogram,
    /// Part of it in service (inside the SSD after fetch; on a server of the ideal device).
    pub service: LatencyHistogram,
    /// Sums of the latency parts (`request::PARTS`), in ps: their means add up to the mean
    /// latency exactly.
    pub parts_ps: [u128; 8],
    /// Inside the SSD: the parts of the device time of SSD-served requests.
    pub ssd: DevDecomp,
}

impl OpAcc {
    /// Adds another accumulator's requests (histograms merge exactly: the result is what
    /// recording them all here would have given).
    pub fn merge(&mut self, o: &OpAcc) {
        self.ios += o.ios;
        self.bytes += o.bytes;
        self.carried_ios += o.carried_ios;
        self.carried_bytes += o.carried_bytes;
        self.latency.merge(&o.latency);
        self.host_wait.merge(&o.host_wait);
        self.device_time.merge(&o.device_time);
        self.device_queue.merge(&o.device_queue);
        self.service.merge(&o.service);
        for (a, b) in self.parts_ps.iter_mut().zip(&o.parts_ps) {
            *a += b;
        }
        self.ssd.merge(&o.ssd);
    }

    #[inline]
    fn add(&mut self, r: &Request) {
        self.ios += 1;
        self.bytes += r.size as u64;
        self.latency.record((r.t_complete - r.t_arrive).0);
        self.host_wait.record((r.t_dispatch - r.t_arrive).0);
        self.device_time.record((r.t_dev_done - r.t_dispatch).0);
        self.device_queue.record((r.t_dev_start - r.t_dispatch).0);
        self.service.record((r.t_dev_done - r.t_dev_start).0);
        for (sum, p) in self.parts_ps.iter_mut().zip(r.parts()) {
            *sum += p as u128;
        }
        self.ssd.add(r);
    }
}

/// Series ids of one entity: (read bytes, read latency, write bytes, write latency).
#[derive(Clone, Copy)]
struct IoSeries([u32; 4]);

/// The finished requests of one (workload, class, device, host), accumulated once; the
/// per-class, -workload, -device and -host statistics are merged from these when the summary
/// is built. Recording each request into all four (20 histograms) was 8 % of an SSD run.
struct Stream {
    class: u32,
    /// The device that served it, when it counts in the device's statistics.
    device: Option<u32>,
    host: u32,
    acc: [OpAcc; 2],
}

/// The per-class, -workload, -device and -host statistics of a run ([`RunStats::aggregate`]).
pub struct Aggregates {
    pub per_class: Vec<[OpAcc; 2]>,
    pub per_workload: Vec<[OpAcc; 2]>,
    pub per_device: Vec<[OpAcc; 2]>,
    pub per_host: Vec<[OpAcc; 2]>,
}

pub struct RunStats {
    pub window_start: SimTime,
    pub window_end: Option<SimTime>,
    /// Per workload, its streams (indexes into `streams`; usually one).
    streams_of: Vec<Vec<u32>>,
    streams: Vec<Stream>,
    /// The SSD decomposition with its tail, per class and per device (the tail is kept only
    /// for these: ~90 KB each).
    class_ssd: Vec<[DevDecomp; 2]>,
    device_ssd: Vec<[DevDecomp; 2]>,
    /// I/Os a host cache sent to a device (they count for the device only).
    device_io: Vec<[OpAcc; 2]>,
    classes: usize,
    hosts: usize,
    /// Bytes per class a device finished during the window, whatever their arrival time
    /// `[read, write]`. In an overloaded open run (the sources' E2E throughput set-ups) this is
    /// the carried rate at the storage end, where per-arrival counts would miss the backlog still
    /// in flight; the response side's is each stream's `carried_bytes`.
    pub passed_device: Vec<[u64; 2]>,
    pub completed: u64,
    pub measured: u64,
    pub last_completion: SimTime,
    pub series: IntervalSeries,
    class_series: Vec<IoSeries>,
    workload_series: Vec<IoSeries>,
    /// (queue length, busy servers) series per device.
    pub device_series: Vec<[u32; 2]>,
    /// (waiting, outstanding) series per host.
    pub host_series: Vec<[u32; 2]>,
    record_series: bool,
}

/// A read and a write accumulator that keep the SSD tail decomposition.
fn with_tail() -> [OpAcc; 2] {
    let mut a = OpAcc::default();
    a.ssd.keep_tail = true;
    [a.clone(), a]
}

/// A read and a write SSD decomposition with its tail.
fn tail_decomp() -> [DevDecomp; 2] {
    let mut d = DevDecomp::default();
    d.keep_tail = true;
    [d.clone(), d]
}

fn io_series(s: &mut IntervalSeries, entity: &str) -> IoSeries {
    IoSeries([s.register(entity, "read_bytes"), s.register(entity, "read_lat_us"), s.register(entity, "write_bytes"), s.register(entity, "write_lat_us")])
}

impl RunStats {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        window: (SimTime, Option<SimTime>),
        interval: SimTime,
        classes: &[String],
        workloads: &[String],
        devices: &[String],
        hosts: &[String],
        record_series: bool,
        rows: Rows,
    ) -> Self {
        let mut series = IntervalSeries::new(interval).with_rows(rows);
        let class_series = classes.iter().map(|c| io_series(&mut series, &format!("class:{c}"))).collect();
        let workload_series = workloads.iter().map(|w| io_series(&mut series, &format!("workload:{w}"))).collect();
        let device_series = devices
            .iter()
            .map(|d| {
                let e = format!("device:{d}");
                [series.register_gauge(&e, "queue_len"), series.register_gauge(&e, "busy_servers")]
            })
            .collect();
        let host_series = hosts
            .iter()
            .map(|h| {
                let e = format!("host:{h}");
                [series.register_gauge(&e, "waiting"), series.register_gauge(&e, "outstanding")]
            })
            .collect();
        RunStats {
            window_start: window.0,
            window_end: window.1,
            streams_of: vec![Vec::new(); workloads.len()],
            streams: Vec::new(),
            class_ssd: vec![tail_decomp(); classes.len()],
            device_ssd: vec![tail_decomp(); devices.len()],
            device_io: vec![with_tail(); devices.len()],
            classes: classes.len(),
            hosts: hosts.len(),
            passed_device: vec![[0; 2]; classes.len()],
            completed: 0,
            measured: 0,
            last_completion: SimTime::ZERO,
            series,
            class_series,
            workload_series,
            device_series,
            host_series,
            record_series,
        }
    }

    #[inline]
    pub fn in_window(&self, t: SimTime) -> bool {
        t >= self.window_start && self.window_end.is_none_or(|e| t < e)
    }

    /// Records a finished application request; `at_device` says whether it went to its device
    /// as it is (without a host cache) and so counts in the device's statistics too.
    #[inline]
    pub fn record(&mut self, r: &Request, at_device: bool) {
        self.completed += 1;
        self.last_completion = r.t_complete;
        let op = r.op.index();
        if self.record_series {
            let lat_us = (r.t_complete - r.t_arrive).as_us_f64();
            for ids in [self.class_series[r.class as usize], self.workload_series[r.workload as usize]] {
                self.series.add(r.t_complete, ids.0[op * 2], r.size as f64);
                self.series.add(r.t_complete, ids.0[op * 2 + 1], lat_us);
            }
        }
        let completed_in = self.in_window(r.t_complete);
        let arrived_in = self.in_window(r.t_arrive);
        if !(completed_in || arrived_in) {
            return;
        }
        let device = at_device.then(|| r.served.ix() as u32);
        let s = self.stream(r.workload as usize, r.class as u32, device, r.host.ix() as u32);
        if completed_in {
            let acc = &mut self.streams[s].acc[op];
            acc.carried_ios += 1;
            acc.carried_bytes += r.size as u64;
        }
        if !arrived_in {
            return;
        }
        self.measured += 1;
        self.streams[s].acc[op].add(r);
        self.class_ssd[r.class as usize][op].add(r);
        if let Some(d) = device {
            self.device_ssd[d as usize][op].add(r);
        }
    }

    /// The stream of workload `w`'s requests of `class`, served by `device`, from `host`.
    #[inline]
    fn stream(&mut self, w: usize, class: u32, device: Option<u32>, host: u32) -> usize {
        let streams = &self.streams;
        if let Some(&s) = self.streams_of[w].iter().find(|&&s| {
            let st = &streams[s as usize];
            st.class == class && st.device == device && st.host == host
        }) {
            return s as usize;
        }
        self.streams.push(Stream { class, device, host, acc: Default::default() });
        self.streams_of[w].push(self.streams.len() as u32 - 1);
        self.streams.len() - 1
    }

    /// The per-class, -workload, -device and -host statistics, merged from the streams.
    pub fn aggregate(&self) -> Aggregates {
        let mut a = Aggregates {
            per_class: vec![Default::default(); self.classes],
            per_workload: vec![Default::default(); self.streams_of.len()],
            per_device: self.device_io.clone(),
            per_host: vec![Default::default(); self.hosts],
        };
        for (w, list) in self.streams_of.iter().enumerate() {
            for &s in list {
                let st = &self.streams[s as usize];
                for op in 0..2 {
                    a.per_class[st.class as usize][op].merge(&st.acc[op]);
                    a.per_workload[w][op].merge(&st.acc[op]);
                    a.per_host[st.host as usize][op].merge(&st.acc[op]);
                    if let Some(d) = st.device {
                        a.per_device[d as usize][op].merge(&st.acc[op]);
                    }
                }
            }
        }
        // Classes and devices carry the decomposition recorded with its tail.
        for (acc, ssd) in a.per_class.iter_mut().zip(&self.class_ssd) {
            for op in 0..2 {
                acc[op].ssd = ssd[op].clone();
            }
        }
        for ((acc, ssd), io) in a.per_device.iter_mut().zip(&self.device_ssd).zip(&self.device_io) {
            for op in 0..2 {
                acc[op].ssd = ssd[op].clone();
                acc[op].ssd.merge(&io[op].ssd);
            }
        }
        a
    }

    /// Records that a device finished `r` (an application request, a volume part or a cache's
    /// I/O) at `r.t_dev_done`.
    #[inline]
    pub fn record_device_done(&mut self, r: &Request) {
        if self.in_window(r.t_dev_done) {
            self.passed_device[r.class as usize][r.op.index()] += r.size as u64;
        }
    }

    /// Records an I/O a host cache sent to a device (a miss's child, a write-back, a fetch).
    #[inline]
    pub fn record_device_io(&mut self, r: &Request) {
        if self.in_window(r.t_arrive) {
            self.device_io[r.served.ix()][r.op.index()].add(r);
        }
    }

    /// Whether time series are kept (`output.timeseries`).
    #[inline]
    pub fn records_series(&self) -> bool {
        self.record_series
    }

    #[inline]
    pub fn sample(&mut self, at: SimTime, series: u32, value: f64) {
        if self.record_series {
            self.series.add(at, series, value);
        }
    }

    pub fn drain_series(&mut self, until: Option<SimTime>, out: &mut SeriesColumns) {
        self.series.drain_until(until, out);
    }

    /// Length of the measurement window in seconds, given when the run ended.
    pub fn window_seconds(&self, end: SimTime) -> f64 {
        let stop = self.window_end.map_or(end, |e| e.min(end)).max(self.window_start);
        (stop - self.window_start).as_secs_f64()
    }
}

/// Mean and percentiles of a latency histogram in µs, as every latency in `summary.json`.
pub(crate) fn lat_json(h: &LatencyHistogram) -> serde_json::Value {
    let s = h.summary_us();
    serde_json::json!({
        "mean": r6(s.mean_us), "p50": r6(s.p50_us), "p90": r6(s.p90_us),
        "p99": r6(s.p99_us), "p99_9": r6(s.p99_9_us), "max": r6(s.max_us),
    })
}

/// Rounds to 6 significant decimals past the point so summaries stay readable.
pub(crate) fn r6(x: f64) -> f64 {
    if x.is_finite() {
        (x * 1e6).round() / 1e6
    } else {
        0.0
    }
}
