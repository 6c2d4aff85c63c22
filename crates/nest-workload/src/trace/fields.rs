//! Field parsing shared by the trace formats: exact decimal timestamps and named-field errors.

/// Parses a non-negative decimal number of `unit_ps` picoseconds exactly (no float rounding:
/// SYSTOR's epoch seconds with nine fraction digits need 19 significant digits). Falls back to
/// a float parse for exponent notation.
pub fn decimal_ps(field: &str, unit_ps: u64, what: &str) -> Result<i128, String> {
    let s = field.trim();
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if digits(int) && (frac.is_empty() || digits(frac)) && int.len() <= 24 {
        let i: i128 = int.parse().map_err(|_| bad(what, s, "a number"))?;
        let mut v = i.checked_mul(unit_ps as i128).ok_or_else(|| bad(what, s, "a smaller number"))?;
        // Fraction digits beyond picosecond resolution are dropped.
        let mut scale = unit_ps as i128;
        for b in frac.bytes().take(30) {
            if scale == 0 {
                break;
            }
            v += (b - b'0') as i128 * scale / 10;
            scale /= 10;
        }
        return Ok(v);
    }
    let f: f64 = s.parse().map_err(|_| bad(what, s, "a non-negative number"))?;
    if !f.is_finite() || f < 0.0 || f * unit_ps as f64 > 1e36 {
        return Err(bad(what, s, "a non-negative finite number"));
    }
    Ok((f * unit_ps as f64).round() as i128)
}

pub fn uint(field: &str, what: &str) -> Result<u64, String> {
    // The common case, plain digits that fit, without the general parser's checks per digit.
    let b = field.as_bytes();
    if !b.is_empty() && b.len() <= 19 && b.iter().all(u8::is_ascii_digit) {
        return Ok(b.iter().fold(0u64, |v, &d| v * 10 + (d - b'0') as u64));
    }
    field.trim().parse::<u64>().map_err(|_| bad(what, field.trim(), "a non-negative integer"))
}

pub fn hex(field: &str, what: &str) -> Result<u64, String> {
    let t = field.trim();
    let t = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
    u64::from_str_radix(t, 16).map_err(|_| bad(what, field.trim(), "a hexadecimal integer"))
}

pub fn bad(what: &str, got: &str, expected: &str) -> String {
    let shown: String = got.chars().take(40).collect();
    format!("field '{what}' is '{shown}', expected {expected}")
}

/// Splits a CSV line (no quoting in any supported format) into exactly `N` fields, on the stack
/// (a `Vec` per line was an allocation and a free for every record of a replay).
pub fn csv<'a, const N: usize>(line: &'a str, columns: &str) -> Result<[&'a str; N], String> {
    let mut f = [""; N];
    let mut found = 0;
    for (i, field) in line.split(',').enumerate() {
        if i < N {
            f[i] = field;
        }
        found = i + 1;
    }
    if found != N {
        return Err(format!("expected {N} comma-separated fields ({columns}), found {found}"));
    }
    Ok(f)
}

/// Multiplies a count of 512-byte sectors into bytes, refusing overflow.
pub fn sectors(n: u64, what: &str) -> Result<u64, String> {
    n.checked_mul(512).ok_or_else(|| bad(what, &n.to_string(), "a sector count small enough to express in bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_integers() {
        assert_eq!(uint("0", "n"), Ok(0));
        assert_eq!(uint(" 42 ", "n"), Ok(42));
        assert_eq!(uint("9999999999999999999", "n"), Ok(9_999_999_999_999_999_999));
        assert_eq!(uint("18446744073709551615", "n"), Ok(u64::MAX));
        assert!(uint("18446744073709551616", "n").unwrap_err().contains("non-negative integer"));
        assert!(uint("-1", "n").is_err());
        assert!(uint("", "n").is_err());
        assert!(uint("1x", "n").is_err());
    }

    #[test]
    fn csv_fields_on_the_stack() {
        assert_eq!(csv::<3>("a,b,c", "x,y,z"), Ok(["a", "b", "c"]));
        assert_eq!(csv::<3>("a,,", "x,y,z"), Ok(["a", "", ""]));
        assert!(csv::<3>("a,b", "x,y,z").unwrap_err().contains("found 2"));
        assert!(csv::<3>("a,b,c,d", "x,y,z").unwrap_err().contains("found 4"));
    }

    #[test]
    fn decimal_timestamps_are_exact() {
        assert_eq!(decimal_ps("1456095145.133076000", 1_000_000_000_000, "t").unwrap(), 1_456_095_145_133_076_000_000);
        assert_eq!(decimal_ps("223.412", 1_000_000_000, "t").unwrap(), 223_412_000_000);
        assert_eq!(decimal_ps("1.5e3", 1_000, "t").unwrap(), 1_500_000);
        assert!(decimal_ps("-1", 1, "t").is_err());
        assert!(decimal_ps("abc", 1, "t").unwrap_err().contains("field 't'"));
    }
}
