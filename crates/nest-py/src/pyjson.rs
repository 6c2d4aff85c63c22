//! JSON text exactly as Python's `json.dumps(obj, indent=2, sort_keys=True)` writes it, from Rust.
//!
//! summary.json has always been written by Python in that form. With an indent Python's json
//! falls back to its pure-Python encoder: 5.8 CPU-s for the 10,000-drive run's 127 MB summary,
//! half that run's CLI time (issue 64). Writing the same bytes here keeps every summary.json
//! byte-identical while costing a fraction of it. What Python does and this copies:
//! - keys sorted by code point (Rust's `str` order: UTF-8 bytes sort as code points);
//! - floats as `repr`: the shortest digits that round-trip, fixed notation when the decimal
//!   point falls within 16 places left of the digits' end and not more than 4 zeros after it
//!   (`0.0001`, `1e-05`, `1000000000000000.0`, `1e+16`), `.0` on whole numbers;
//! - strings with `ensure_ascii`: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, every other
//!   character outside space…`~` as `\uXXXX` (lowercase; UTF-16 surrogate pairs beyond the BMP);
//! - `{}` / `[]` for empty containers, `": "` between key and value, two spaces per level.

use serde_json::Value;
use std::fmt::Write;

/// `json.dumps(v, indent=2, sort_keys=True)` of `v`, without the trailing newline.
pub fn dumps(v: &Value) -> String {
    let mut out = String::with_capacity(1 << 16);
    write_value(v, 0, &mut out);
    out
}

fn indent(level: usize, out: &mut String) {
    out.push('\n');
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_value(v: &Value, level: usize, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => write!(out, "{u}").expect("writing to a String"),
            (None, Some(i), _) => write!(out, "{i}").expect("writing to a String"),
            (None, None, Some(f)) => write_float(f, out),
            _ => out.push_str(&n.to_string()),
        },
        Value::String(s) => write_string(s, out),
        Value::Array(a) if a.is_empty() => out.push_str("[]"),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(level + 1, out);
                write_value(x, level + 1, out);
            }
            indent(level, out);
            out.push(']');
        }
        Value::Object(m) if m.is_empty() => out.push_str("{}"),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_unstable();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(level + 1, out);
                write_string(k, out);
                out.push_str(": ");
                write_value(&m[k.as_str()], level + 1, out);
            }
            indent(level, out);
            out.push('}');
        }
    }
}

/// Python's `repr(float)` of a finite `f` (JSON holds no NaN or infinity).
fn write_float(f: f64, out: &mut String) {
    // Rust's `{:e}` gives the shortest round-trip digits, as `d.ddde±x`.
    let e = format!("{f:e}");
    let (mantissa, exp) = e.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e}'s exponent is an integer");
    let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    // The decimal point sits `decpt` digits into `digits` (Python's float_repr_style 'short').
    let decpt = exp + 1;
    out.push_str(sign);
    if decpt > -4 && decpt <= 16 {
        let n = digits.len() as i32;
        if decpt <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-decpt) as usize));
            out.push_str(&digits);
        } else if decpt >= n {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', (decpt - n) as usize));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..decpt as usize]);
            out.push('.');
            out.push_str(&digits[decpt as usize..]);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let x = decpt - 1;
        write!(out, "e{}{:02}", if x < 0 { '-' } else { '+' }, x.abs()).expect("writing to a String");
    }
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    write!(out, "\\u{u:04x}").expect("writing to a String");
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn float(f: f64) -> String {
        let mut s = String::new();
        write_float(f, &mut s);
        s
    }

    #[test]
    fn floats_as_python_repr() {
        // Each pair checked against CPython 3.11's repr.
        for (f, py) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (123456.789, "123456.789"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.2345e16, "1.2345e+16"),
            (-2.5e-300, "-2.5e-300"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (0.30000000000000004, "0.30000000000000004"),
            (1234567890123456.8, "1234567890123456.8"),
        ] {
            assert_eq!(float(f), py, "{f:e}");
        }
    }

    #[test]
    fn layout_keys_and_strings_as_json_dumps_indent_2_sort_keys() {
        let v = json!({"b": [1, 2.5, {"z": null, "a": true}], "a": {}, "c": [], "µs \"q\"\n\u{7f}😀": -3});
        // json.dumps(v, indent=2, sort_keys=True) in CPython 3.11.
        let py = "{\n  \"a\": {},\n  \"b\": [\n    1,\n    2.5,\n    {\n      \"a\": true,\n      \"z\": null\n    }\n  ],\n  \"c\": [],\n  \"\\u00b5s \\\"q\\\"\\n\\u007f\\ud83d\\ude00\": -3\n}";
        assert_eq!(dumps(&v), py);
    }
}
