//! NeSt scenario files (TOML): schema, overrides, validation with file:line errors.
//!
//! Loading is build → validate → run (STYLE.md): [`load_str`] parses the text with
//! `deny_unknown_fields` everywhere (a misspelt key is an error, never silently ignored), applies
//! `--set key=value` overrides, then [`resolve`] converts every section into the runtime types of
//! the domain crates, collecting *every* problem rather than stopping at the first. Each
//! [`ConfigError`] names the file, the line and the key, and says what was expected.
//! The schema is documented for users in `docs/scenario.md`.
#![deny(unsafe_code)]

pub mod coordinator;
mod ctx;
pub mod error;
pub mod haechi;
pub mod overrides;
pub mod plan;
pub mod resolve;
pub mod schema;
pub mod suggest;

pub use error::{ConfigError, ConfigErrors};
pub use resolve::{resolve, Resolved};
pub use schema::Scenario;

use std::path::{Path, PathBuf};

/// The schema version this build reads.
pub const SCHEMA_VERSION: u32 = 1;

/// A scenario as loaded: the parsed schema, the effective TOML table (after overrides, for the
/// record in outputs), and where relative paths are resolved from.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub scenario: Scenario,
    pub table: toml::Table,
    pub file: String,
    pub base_dir: PathBuf,
    /// The memory a run may take (bytes): the tables a scenario implies are estimated before
    /// anything is built, and a scenario over this is refused naming the key that drives it.
    /// Defaults to 80 % of the memory available when the run starts (`--max-memory` sets it).
    pub memory_limit: Option<u64>,
    /// The `--set` overrides applied (`key.path=value`): an error at a key one of them set names
    /// the override, not the file's line it replaced.
    pub overrides: Vec<String>,
}

/// 80 % of the memory available now (Linux /proc/meminfo MemAvailable, plus this process's own
/// resident set), the default limit of a run; None when
/// it cannot be read.
pub fn default_memory_limit() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| -> Option<u64> { info.lines().find(|l| l.starts_with(name))?.split_whitespace().nth(1)?.parse().ok() };
    // What is free to take now, not the machine's size: with 13 of 24 GB free, 80 % of the total
    // (18.8 GB) let the kernel kill the run before its budget stopped it (issue 63, S6). This
    // process's own resident set counts too, since the limit is checked against it.
    let own_kib = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse::<u64>().ok())
        .unwrap_or(0);
    let kib = field("MemAvailable:").map(|a| a + own_kib).or_else(|| field("MemTotal:"))?;
    Some(kib * 1024 / 5 * 4)
}

/// A scenario file's text; a file that is not UTF-8 is named with the line and column of its
/// first bad byte.
pub fn read_scenario(path: &Path) -> Result<String, ConfigErrors> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ConfigErrors::one(ConfigError::file_level(&file, format!("cannot read scenario: {e}"))))?;
    String::from_utf8(bytes).map_err(|e| {
        let ok = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = ok.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = ok.len() - ok.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
        let bad = e.as_bytes()[ok.len()];
        ConfigErrors::one(ConfigError {
            file: file.clone(),
            line,
            column: col,
            key: String::new(),
            message: format!("byte 0x{bad:02X} is not UTF-8 (scenario files are UTF-8 text)"),
        })
    })
}

/// Most problems a scenario file has, in one pass, are worth more than one per run.
const MAX_PARSE_ERRORS: usize = 20;

/// Parses scenario text, reporting up to [`MAX_PARSE_ERRORS`] errors at once: after each error
/// tied to a few lines, those lines are blanked (spaces: every other offset and line stays) and
/// the text parsed again. Follow-on errors are not reported: a missing field in a table that
/// lost a key sets that table aside unreported; the pass ends at a syntax error, when blanking
/// breaks the syntax, and at an error inside a blanked region.
fn parse_all(text: &str, file: &str) -> Result<Scenario, ConfigErrors> {
    let mut e = match toml::from_str::<Scenario>(text) {
        Ok(s) => return Ok(s),
        Err(e) => e,
    };
    let mut errors = vec![ConfigError::from_toml(file, text, &e)];
    let mut cur = text.to_string();
    let mut blanked: Vec<std::ops::Range<usize>> = Vec::new();
    while errors.len() < MAX_PARSE_ERRORS && toml::de::DeTable::parse(&cur).is_ok() {
        // A missing field is about a whole table, and blanking a table's header would hand its
        // keys to the table above: either ends the pass.
        if e.message().starts_with("missing field") {
            break;
        }
        let Some(region) = ConfigError::retry_region(&cur, &e) else { break };
        if cur[region.clone()].lines().any(|l| l.trim_start().starts_with('[')) {
            break;
        }
        blank(&mut cur, region.clone());
        blanked.push(region);
        if toml::de::DeTable::parse(&cur).is_err() {
            break;
        }
        let mut next = match toml::from_str::<Scenario>(&cur) {
            Ok(_) => break,
            Err(next) => next,
        };
        // A missing field in a table that lost a key is a follow-on: that table is set aside
        // whole (unless it is the whole file) and the search goes on past it.
        while next.message().starts_with("missing field") {
            let Some(sp) =
                next.span().map(|sp| table_extent(&cur, sp)).filter(|sp| sp.start > 0 && blanked.iter().any(|b| sp.start <= b.start && b.end <= sp.end))
            else {
                return Err(sorted(errors));
            };
            blank(&mut cur, sp.clone());
            blanked.push(sp);
            next = match toml::from_str::<Scenario>(&cur) {
                Ok(_) => return Err(sorted(errors)),
                Err(n) => n,
            };
        }
        if next.span().is_some_and(|sp| blanked.iter().any(|b| b.start < sp.end.max(sp.start + 1) && sp.start < b.end)) {
            break;
        }
        errors.push(ConfigError::from_toml(file, &cur, &next));
        e = next;
    }
    Err(sorted(errors))
}

/// The text a table takes: serde spans a `[table]` or `[[array]]` item by its header only; it
/// runs to the next header.
fn table_extent(text: &str, span: std::ops::Range<usize>) -> std::ops::Range<usize> {
    if !text[span.start..].starts_with('[') {
        return span;
    }
    let mut end = text[span.end..].find('\n').map_or(text.len(), |i| span.end + i + 1);
    while end < text.len() {
        let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
        if text[end..line_end].trim_start().starts_with('[') {
            break;
        }
        end = line_end;
    }
    span.start..end
}

/// Errors in the order of the file (serde meets them in its own order).
fn sorted(mut errors: Vec<ConfigError>) -> ConfigErrors {
    errors.sort_by_key(|e| (e.line == 0, e.line, e.column));
    ConfigErrors(errors)
}

/// `text[region]` becomes spaces, newlines kept: the text stays UTF-8 (only ASCII is written)
/// and every other offset keeps its line and column.
fn blank(text: &mut String, region: std::ops::Range<usize>) {
    let mut bytes = std::mem::take(text).into_bytes();
    for b in &mut bytes[region] {
        if *b != b'\n' {
            *b = b' ';
        }
    }
    *text = String::from_utf8(bytes).expect("only ASCII spaces were written");
}

/// Reads and parses a scenario file, applying `overrides` (`key.path=value`) and `seed`.
pub fn load_file(path: &Path, overrides: &[String], seed: Option<u64>) -> Result<Loaded, ConfigErrors> {
    let file = path.display().to_string();
    let text = read_scenario(path)?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    load_str(&text, &file, base, overrides, seed)
}

/// Parses scenario text. `file` is only used in messages.
pub fn load_str(text: &str, file: &str, base_dir: PathBuf, overrides: &[String], seed: Option<u64>) -> Result<Loaded, ConfigErrors> {
    // First pass on the original text: serde errors carry spans into it.
    let scenario: Scenario = parse_all(text, file)?;
    let mut table: toml::Table = toml::from_str(text).map_err(|e| ConfigErrors::one(ConfigError::from_toml(file, text, &e)))?;
    let mut scenario = scenario;
    if !overrides.is_empty() || seed.is_some() {
        for o in overrides {
            overrides::apply(&mut table, o).map_err(|m| ConfigErrors::one(ConfigError::override_level(file, o, m)))?;
        }
        if let Some(s) = seed {
            let run = table.entry("run").or_insert_with(|| toml::Value::Table(toml::Table::new()));
            match run {
                toml::Value::Table(t) => {
                    t.insert("seed".into(), toml::Value::Integer(s as i64));
                }
                _ => return Err(ConfigErrors::one(ConfigError::file_level(file, "'run' must be a table".into()))),
            }
        }
        // Second pass on the overridden table: an error here was caused by an override.
        scenario = toml::Value::Table(table.clone()).try_into().map_err(|e: toml::de::Error| {
            let message = suggest::with_hint(e.message().trim());
            match error::override_quoted(overrides, e.message()) {
                Some(o) => ConfigErrors::one(ConfigError::override_level(file, o, message)),
                None => ConfigErrors::one(ConfigError::file_level(file, format!("after --set/--seed overrides: {message}"))),
            }
        })?;
    }
    Ok(Loaded { scenario, table, file: file.to_string(), base_dir, memory_limit: default_memory_limit(), overrides: overrides.to_vec() })
}

/// Loads and fully validates a scenario (what `nestsim validate` runs).
pub fn validate_file(path: &Path, overrides: &[String], seed: Option<u64>) -> Result<Resolved, ConfigErrors> {
    let loaded = load_file(path, overrides, seed)?;
    let text = std::fs::read_to_string(path).unwrap_or_default();
    resolve(&loaded, &text)
}
