//! NVMe Predictable Latency Mode (SPEC §8; thesis ch. 3; PLMC §II-B): an NVM set's DTWin
//! attributes ([`attrs`]) and its deterministic / non-deterministic window cycle ([`window`]).

pub mod attrs;
pub mod window;

pub use attrs::{read_counts, PlmAttrs};
pub use window::{LogPage, PlmWindow, Reason, Transition, Window, WindowStats};

#[cfg(test)]
mod tests;
