//! The resolution context: the scenario file's name and text (so an error names its line),
//! errors and warnings gathered in one pass, the memory check, and the parsers every section
//! uses (durations, sizes, rates, paths). A leaf: every resolver and coordinator kind uses it.

use crate::error::ConfigError;
use nest_core::units::{parse_duration, parse_rate_bps, parse_size};
use nest_core::SimTime;
use std::path::{Path, PathBuf};

/// `bytes` in the largest binary unit that keeps it above 1 (`12.3 GiB`).
pub(crate) fn human_bytes(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

pub(crate) struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
    base: &'a Path,
    pub(crate) errors: Vec<ConfigError>,
    pub(crate) warnings: Vec<String>,
    /// The run's memory limit, and what the scenario's large tables need: (key, bytes, what).
    memory_limit: Option<u64>,
    memory: Vec<(String, u64, String)>,
    /// `--set` overrides: an error at a key one of them set (or under it) is the override's.
    overrides: &'a [String],
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(file: &'a str, text: &'a str, base: &'a Path, memory_limit: Option<u64>) -> Self {
        Ctx { file, text, base, errors: Vec::new(), warnings: Vec::new(), memory_limit, memory: Vec::new(), overrides: &[] }
    }

    pub(crate) fn with_overrides(mut self, overrides: &'a [String]) -> Self {
        self.overrides = overrides;
        self
    }

    /// The override that set `key` or a table above it (the last one given wins, as applied).
    fn override_of(&self, key: &str) -> Option<&'a String> {
        self.overrides.iter().rev().find(|o| {
            let path = o.split_once('=').map_or(o.as_str(), |(p, _)| p).trim();
            key == path || key.strip_prefix(path).is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
        })
    }

    /// Records that the structure `key` configures takes `bytes` when built; refuses it at once
    /// (returning false, so the caller does not build it) when it alone is over the limit.
    pub(crate) fn memory(&mut self, key: &str, bytes: u64, what: String) -> bool {
        if let Some(limit) = self.memory_limit.filter(|&l| bytes > l) {
            self.err(
                key,
                format!("{what} need about {}, over the memory limit of {} (80 % of this machine, or --max-memory)", human_bytes(bytes), human_bytes(limit)),
            );
            return false;
        }
        self.memory.push((key.to_string(), bytes, what));
        true
    }

    /// Refuses a scenario whose large tables together are over the memory limit, naming the
    /// largest.
    pub(crate) fn check_memory_total(&mut self) {
        let total: u64 = self.memory.iter().map(|m| m.1).sum();
        let Some(limit) = self.memory_limit.filter(|&l| total > l) else { return };
        let Some((key, bytes, what)) = self.memory.iter().max_by_key(|m| m.1).cloned() else { return };
        self.err(
            &key,
            format!(
                "the scenario's tables need about {} in all, over the memory limit of {} (80 % of this machine, or --max-memory); the largest: {what}, {}",
                human_bytes(total),
                human_bytes(limit),
                human_bytes(bytes)
            ),
        );
    }

    pub(crate) fn err(&mut self, key: &str, msg: impl Into<String>) {
        let e = match self.override_of(key) {
            // The file's line holds the value the override replaced: point at the override.
            Some(o) => ConfigError::override_level(self.file, o, format!("{key}: {}", msg.into())),
            None => ConfigError::at_key(self.file, self.text, key, msg.into()),
        };
        self.errors.push(e);
    }
    pub(crate) fn dur(&mut self, key: &str, s: &str) -> Option<SimTime> {
        parse_duration(s).map_err(|e| self.err(key, e)).ok()
    }
    pub(crate) fn size(&mut self, key: &str, s: &str) -> Option<u64> {
        parse_size(s).map_err(|e| self.err(key, e)).ok()
    }
    pub(crate) fn size32(&mut self, key: &str, s: &str) -> Option<u32> {
        let b = self.size(key, s)?;
        if b == 0 || b > u32::MAX as u64 {
            self.err(key, format!("'{s}' must be between 1 B and 4 GiB"));
            return None;
        }
        Some(b as u32)
    }
    pub(crate) fn rate(&mut self, key: &str, s: &str) -> Option<f64> {
        match parse_rate_bps(s) {
            Ok(r) if r > 0.0 => Some(r),
            Ok(_) => {
                self.err(key, format!("'{s}' must be a positive rate"));
                None
            }
            Err(e) => {
                self.err(key, e);
                None
            }
        }
    }
    /// Resolves a user path: `${VAR}` / `${VAR:-default}` expanded, relative to the scenario.
    pub(crate) fn path(&mut self, key: &str, p: &str) -> Option<PathBuf> {
        let expanded = expand_env(p).map_err(|e| self.err(key, e)).ok()?;
        let pb = PathBuf::from(&expanded);
        let full = if pb.is_absolute() { pb } else { self.base.join(pb) };
        if !full.is_file() {
            // The path as written when it names a variable: its value stays out of the message.
            let shown = if expanded != p { format!("'{p}'") } else { format!("'{}'", full.display()) };
            self.err(key, format!("file {shown} does not exist{}", variables_hint(p)));
            return None;
        }
        Some(full)
    }
}

/// What a missing file's path took from the environment: for each variable it names, whether it
/// was set (its value stays out of the message) or its default was used, relative to what.
fn variables_hint(p: &str) -> String {
    let mut notes = Vec::new();
    let mut rest = p;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        let Some(end) = after.find('}') else { break };
        let (name, default) = after[..end].split_once(":-").map_or((&after[..end], None), |(n, d)| (n, Some(d)));
        notes.push(match (std::env::var(name).ok().filter(|v| !v.is_empty()), default) {
            (Some(_), _) => format!("{name} is set: check that it names the folder that holds this file"),
            (None, Some(d)) => {
                format!("{name} is not set, so its default '{d}' was used (relative to the scenario's folder): set {name} to the folder that holds this file")
            }
            (None, None) => format!("{name} is not set"),
        });
        rest = &after[end + 1..];
    }
    if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join("; "))
    }
}

/// The variables a path may name besides `NEST_*`: ones that hold directories.
const PATH_VARS: [&str; 3] = ["HOME", "TMPDIR", "PWD"];

/// Expands `${VAR}` and `${VAR:-default}` for `NEST_*` variables and [`PATH_VARS`] only: a
/// scenario (perhaps someone else's) must not read arbitrary environment values into paths and
/// from there into error messages (issue 63, privacy).
pub fn expand_env(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find('}').ok_or_else(|| format!("unclosed '${{' in '{s}'"))?;
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        if !(name.starts_with("NEST_") || PATH_VARS.contains(&name)) {
            return Err(format!("environment variable '{name}' is not expanded in paths: only NEST_* ones and {} are", PATH_VARS.join(", ")));
        }
        match (std::env::var(name), default) {
            (Ok(v), _) if !v.is_empty() => out.push_str(&v),
            (_, Some(d)) => out.push_str(d),
            _ => return Err(format!("environment variable '{name}' is not set (used in '{s}')")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
