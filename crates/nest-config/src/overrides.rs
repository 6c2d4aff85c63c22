//! `--set key.path=value` overrides, applied to the parsed TOML table before validation.
//! The value is read as a TOML value (`3`, `"2us"`, `true`, `[1, 2]`, `{ kind = "poisson" }`);
//! anything that does not parse as one is taken as a string, so `--set run.duration=2ms` works.
//! Array elements are addressed as `workload[1].class`.

use toml::{Table, Value};

fn parse_value(raw: &str) -> Value {
    match toml::from_str::<Table>(&format!("v = {raw}")) {
        Ok(mut t) => t.remove("v").unwrap_or_else(|| Value::String(raw.into())),
        Err(_) => Value::String(raw.to_string()),
    }
}

pub fn apply(root: &mut Table, assignment: &str) -> Result<(), String> {
    let (path, raw) = assignment.split_once('=').ok_or_else(|| "expected key.path=value".to_string())?;
    let path = path.trim();
    if path.is_empty() {
        return Err("empty key path".into());
    }
    let parts: Vec<&str> = path.split('.').collect();
    let mut table = root;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let (name, index) = match part.split_once('[') {
            Some((n, rest)) => {
                let idx = rest.strip_suffix(']').and_then(|s| s.parse::<usize>().ok()).ok_or_else(|| format!("bad index in '{part}'"))?;
                (n, Some(idx))
            }
            None => (*part, None),
        };
        if name.is_empty() {
            return Err(format!("empty key in '{path}'"));
        }
        let slot: &mut Value = match index {
            None if last => {
                table.insert(name.to_string(), parse_value(raw.trim()));
                return Ok(());
            }
            None => table.entry(name.to_string()).or_insert_with(|| Value::Table(Table::new())),
            Some(idx) => {
                let arr = match table.get_mut(name) {
                    Some(Value::Array(a)) => a,
                    _ => return Err(format!("'{name}' is not an array in the scenario")),
                };
                let len = arr.len();
                let item = arr.get_mut(idx).ok_or_else(|| format!("'{name}' has {len} entries; index {idx} is out of range"))?;
                if last {
                    *item = parse_value(raw.trim());
                    return Ok(());
                }
                item
            }
        };
        table = match slot {
            Value::Table(t) => t,
            _ => return Err(format!("'{part}' is not a table, cannot set '{path}'")),
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_nested_and_indexed_keys() {
        let mut t: Table = toml::from_str("[run]\nseed = 1\n[[workload]]\nname = \"a\"\n[[workload]]\nname = \"b\"\n").unwrap();
        apply(&mut t, "run.duration=2ms").unwrap();
        apply(&mut t, "workload[1].read_fraction=0.7").unwrap();
        apply(&mut t, "output.requests=false").unwrap();
        assert_eq!(t["run"]["duration"].as_str(), Some("2ms"));
        assert_eq!(t["workload"][1]["read_fraction"].as_float(), Some(0.7));
        assert_eq!(t["output"]["requests"].as_bool(), Some(false));
        assert!(apply(&mut t, "workload[5].name=x").unwrap_err().contains("out of range"));
        assert!(apply(&mut t, "novalue").is_err());
    }
}
