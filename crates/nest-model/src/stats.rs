//! What a run measures: per class, workload and device, read and write I/O counts, bytes and
//! latency histograms over the measurement window (after warm-up, before wrap-up), plus the
//! per-interval time series. Requests are attributed by their arrival time, so trimming removes
//! whole requests from the edges of the run (SRC omits its first and last 10%).

use crate::request::Request;
use crate::ssd_decomp::DevDecomp;
use nest_core::stats::series::SeriesColumns;
use nest_core::stats::{IntervalSeries, LatencyHistogram};
use nest_core::SimTime;

#[derive(Clone, Default)]
pub struct OpAcc {
    pub ios: u64,
    pub bytes: u64,
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

pub struct RunStats {
    pub window_start: SimTime,
    pub window_end: Option<SimTime>,
    pub per_class: Vec<[OpAcc; 2]>,
    pub per_workload: Vec<[OpAcc; 2]>,
    pub per_device: Vec<[OpAcc; 2]>,
    pub per_host: Vec<[OpAcc; 2]>,
    /// Bytes per class that passed a point during the window, whatever their arrival time:
    /// `[device finished, completed at the host][read, write]`. In an overloaded open run
    /// (the sources' E2E throughput set-ups) this is the carried rate at the storage end and the
    /// response side, where per-arrival counts would miss the backlog still in flight.
    pub passed: Vec<[[u64; 2]; 2]>,
    /// Bytes per workload completed at the host during the window, whatever their arrival time
    /// (what the system carried for it: the overload warning compares it with the offered load).
    pub passed_workload: Vec<u64>,
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

fn io_series(s: &mut IntervalSeries, entity: &str) -> IoSeries {
    IoSeries([
        s.register(entity, "read_bytes"),
        s.register(entity, "read_lat_us"),
        s.register(entity, "write_bytes"),
        s.register(entity, "write_lat_us"),
    ])
}

impl RunStats {
    pub fn new(window: (SimTime, Option<SimTime>), interval: SimTime, classes: &[String], workloads: &[String], devices: &[String], hosts: &[String], record_series: bool) -> Self {
        let mut series = IntervalSeries::new(interval);
        let class_series = classes.iter().map(|c| io_series(&mut series, &format!("class:{c}"))).collect();
        let workload_series = workloads.iter().map(|w| io_series(&mut series, &format!("workload:{w}"))).collect();
        let device_series = devices.iter().map(|d| {
            let e = format!("device:{d}");
            [series.register(&e, "queue_len"), series.register(&e, "busy_servers")]
        }).collect();
        let host_series = hosts.iter().map(|h| {
            let e = format!("host:{h}");
            [series.register(&e, "waiting"), series.register(&e, "outstanding")]
        }).collect();
        RunStats {
            window_start: window.0,
            window_end: window.1,
            per_class: vec![with_tail(); classes.len()],
            per_workload: vec![Default::default(); workloads.len()],
            per_device: vec![with_tail(); devices.len()],
            per_host: vec![Default::default(); hosts.len()],
            passed: vec![[[0; 2]; 2]; classes.len()],
            passed_workload: vec![0; workloads.len()],
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
        if self.in_window(r.t_complete) {
            self.passed[r.class as usize][1][op] += r.size as u64;
            self.passed_workload[r.workload as usize] += r.size as u64;
        }
        if self.record_series {
            let lat_us = (r.t_complete - r.t_arrive).as_us_f64();
            for ids in [self.class_series[r.class as usize], self.workload_series[r.workload as usize]] {
                self.series.add(r.t_complete, ids.0[op * 2], r.size as f64);
                self.series.add(r.t_complete, ids.0[op * 2 + 1], lat_us);
            }
        }
        if !self.in_window(r.t_arrive) {
            return;
        }
        self.measured += 1;
        self.per_class[r.class as usize][op].add(r);
        self.per_workload[r.workload as usize][op].add(r);
        if at_device {
            self.per_device[r.served.ix()][op].add(r);
        }
        self.per_host[r.host.ix()][op].add(r);
    }

    /// Records that a device finished `r` (an application request, a volume part or a cache's
    /// I/O) at `r.t_dev_done`.
    #[inline]
    pub fn record_device_done(&mut self, r: &Request) {
        if self.in_window(r.t_dev_done) {
            self.passed[r.class as usize][0][r.op.index()] += r.size as u64;
        }
    }

    /// Records an I/O a host cache sent to a device (a miss's child, a write-back, a fetch).
    #[inline]
    pub fn record_device_io(&mut self, r: &Request) {
        if self.in_window(r.t_arrive) {
            self.per_device[r.served.ix()][r.op.index()].add(r);
        }
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
    if x.is_finite() { (x * 1e6).round() / 1e6 } else { 0.0 }
}
