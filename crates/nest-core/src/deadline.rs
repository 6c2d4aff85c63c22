//! A wall-clock deadline for the work done before a run's first event (preconditioning a large
//! drive can take minutes). The caller sets it around building a simulation; long loops check
//! it now and then and give up with an error, so `--max-wall` holds from the start and not only
//! between engine steps. It never changes a result: a build either finishes, identical, or stops.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Nanoseconds after `epoch()` at which the deadline passes; 0 = none.
static DEADLINE_NS: AtomicU64 = AtomicU64::new(0);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Sets the deadline `after` from now (None clears it).
pub fn set(after: Option<Duration>) {
    let ns = after.map_or(0, |d| (epoch().elapsed() + d).as_nanos().clamp(1, u64::MAX as u128) as u64);
    DEADLINE_NS.store(ns, Ordering::Relaxed);
}

/// Whether the deadline has passed.
pub fn passed() -> bool {
    let d = DEADLINE_NS.load(Ordering::Relaxed);
    d != 0 && epoch().elapsed().as_nanos() as u64 >= d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_only_once_set_and_reached() {
        set(None);
        assert!(!passed());
        set(Some(Duration::from_secs(3600)));
        assert!(!passed());
        set(Some(Duration::ZERO));
        assert!(passed());
        set(None);
        assert!(!passed());
    }
}
