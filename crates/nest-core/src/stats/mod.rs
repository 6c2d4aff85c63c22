//! Statistics kept during a run: latency histograms with bounded relative error
//! ([`histogram`]) and fixed-interval time series ([`series`]).

pub mod histogram;
pub mod series;

pub use histogram::{LatencyHistogram, LatencySummary};
pub use series::IntervalSeries;
