//! Parsing of quantities with units as users write them in scenarios and fio job files:
//! durations ("2us", "1.5 ms", "100ns"), sizes ("4KiB", "4k", "1MB", "4096"), and rates
//! ("100Gbps", "3.2GB/s", "25 Gb/s").
//!
//! Conventions: sizes follow fio's default `kb_base=1024` for the short suffixes (`k`, `m`, `g`,
//! `KiB`…) and are decimal only for the explicit SI forms `KB`, `MB`, `GB` (as storage vendors
//! write them); rates in bits (`bps`, `b/s`) are decimal like every network datasheet.
//! Every parser returns a message saying what was expected, so config errors can quote it.

use crate::time::{SimTime, PS_PER_MS, PS_PER_NS, PS_PER_S, PS_PER_US};

fn split_number(s: &str) -> Result<(f64, &str), String> {
    let s = s.trim();
    let end =
        s.char_indices().find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')).map(|(i, _)| i).unwrap_or(s.len());
    // An 'e' directly followed by a letter is a unit, not an exponent ("1e" is not a number).
    let (mut num, mut unit) = (&s[..end], s[end..].trim());
    while num.ends_with(['e', 'E', '+', '-']) && !num.is_empty() {
        let cut = num.len() - 1;
        unit = s[cut..].trim();
        num = &num[..cut];
    }
    let value: f64 = num.parse().map_err(|_| format!("'{s}' does not start with a number"))?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("'{s}' must be a finite, non-negative number"));
    }
    Ok((value, unit))
}

/// A duration; a bare number is taken in `default_unit_ps` (fio: seconds or µs by option).
pub fn parse_duration_with_default(s: &str, default_unit_ps: u64) -> Result<SimTime, String> {
    let (v, unit) = split_number(s)?;
    let mult = match unit.to_ascii_lowercase().as_str() {
        "" => default_unit_ps as f64,
        "ps" => 1.0,
        "ns" | "nsec" => PS_PER_NS as f64,
        "us" | "usec" | "µs" => PS_PER_US as f64,
        "ms" | "msec" => PS_PER_MS as f64,
        "s" | "sec" => PS_PER_S as f64,
        "m" | "min" => 60.0 * PS_PER_S as f64,
        "h" => 3600.0 * PS_PER_S as f64,
        "d" => 86400.0 * PS_PER_S as f64,
        other => return Err(format!("unknown time unit '{other}' in '{s}' (expected ps, ns, us, ms, s)")),
    };
    let ps = v * mult;
    if ps >= u64::MAX as f64 {
        return Err(format!("duration '{s}' is too long (at most ~213 days)"));
    }
    Ok(SimTime(ps.round() as u64))
}

/// A duration that must carry a unit ("2us"); scenarios never guess the unit of a time.
pub fn parse_duration(s: &str) -> Result<SimTime, String> {
    let (_, unit) = split_number(s)?;
    if unit.is_empty() {
        return Err(format!("duration '{s}' needs a unit (ps, ns, us, ms or s)"));
    }
    parse_duration_with_default(s, 1)
}

/// A size in bytes. Bare numbers are bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let (v, unit) = split_number(s)?;
    let mult: f64 = match unit {
        "" | "b" | "B" => 1.0,
        "k" | "K" | "KiB" | "kib" | "kB" | "Ki" => 1024.0,
        "m" | "M" | "MiB" | "mib" | "Mi" => 1024.0 * 1024.0,
        "g" | "G" | "GiB" | "gib" | "Gi" => 1024.0 * 1024.0 * 1024.0,
        "t" | "T" | "TiB" | "tib" | "Ti" => 1024f64.powi(4),
        "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        other => return Err(format!("unknown size unit '{other}' in '{s}' (expected B, KiB, MiB, GiB, KB, MB, GB, k, m, g)")),
    };
    let b = v * mult;
    if b >= u64::MAX as f64 {
        return Err(format!("size '{s}' is too large"));
    }
    Ok(b.round() as u64)
}

/// A rate in bits per second. `Gbps`, `Gb/s` are bits; `GB/s`, `MiB/s` are bytes.
pub fn parse_rate_bps(s: &str) -> Result<f64, String> {
    let (v, unit) = split_number(s)?;
    let u = unit.replace(' ', "");
    let mult = match u.as_str() {
        "bps" | "b/s" => 1.0,
        "Kbps" | "kbps" | "Kb/s" | "kb/s" => 1e3,
        "Mbps" | "Mb/s" => 1e6,
        "Gbps" | "Gb/s" => 1e9,
        "Tbps" | "Tb/s" => 1e12,
        "B/s" | "Bps" => 8.0,
        "KB/s" | "kB/s" => 8e3,
        "MB/s" => 8e6,
        "GB/s" => 8e9,
        "KiB/s" => 8.0 * 1024.0,
        "MiB/s" => 8.0 * 1024.0 * 1024.0,
        "GiB/s" => 8.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return Err(format!("unknown rate unit '{unit}' in '{s}' (expected e.g. 100Gbps, 25Gb/s, 3.2GB/s, 500MiB/s)")),
    };
    Ok(v * mult)
}

/// Time to move `bytes` at `bps` bits per second, rounded up to a whole picosecond.
#[inline]
pub fn transfer_time(bytes: u64, bps: f64) -> SimTime {
    if bps <= 0.0 {
        return SimTime::ZERO;
    }
    SimTime(((bytes as f64 * 8.0) * PS_PER_S as f64 / bps).ceil() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("2us").unwrap(), SimTime::from_us(2));
        assert_eq!(parse_duration("1.5 ms").unwrap(), SimTime::from_us(1500));
        assert_eq!(parse_duration("100ns").unwrap(), SimTime::from_ns(100));
        assert!(parse_duration("100").unwrap_err().contains("needs a unit"));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("-3us").is_err());
        assert_eq!(parse_duration_with_default("50", PS_PER_US).unwrap(), SimTime::from_us(50));
    }

    #[test]
    fn sizes_and_rates() {
        assert_eq!(parse_size("4KiB").unwrap(), 4096);
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("1MB").unwrap(), 1_000_000);
        assert_eq!(parse_size("512").unwrap(), 512);
        assert!(parse_size("4 furlongs").is_err());
        assert_eq!(parse_rate_bps("100Gbps").unwrap(), 100e9);
        assert_eq!(parse_rate_bps("3.2GB/s").unwrap(), 25.6e9);
        assert_eq!(transfer_time(1500, 10e9), SimTime::from_ns(1200));
    }
}
