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
pub mod coordinator_src;
pub mod error;
pub mod overrides;
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
    /// Defaults to 80 % of this machine's memory (`--max-memory` sets it).
    pub memory_limit: Option<u64>,
}

/// 80 % of this machine's memory (Linux /proc/meminfo), the default limit of a run; None when
/// it cannot be read.
pub fn default_memory_limit() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = info.lines().find(|l| l.starts_with("MemTotal:"))?.split_whitespace().nth(1)?.parse().ok()?;
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
        ConfigErrors::one(ConfigError { file: file.clone(), line, column: col, key: String::new(), message: format!("byte 0x{bad:02X} is not UTF-8 (scenario files are UTF-8 text)") })
    })
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
    let scenario: Scenario = toml::from_str(text).map_err(|e| ConfigErrors::one(ConfigError::from_toml(file, text, &e)))?;
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
    Ok(Loaded { scenario, table, file: file.to_string(), base_dir, memory_limit: default_memory_limit() })
}

/// Loads and fully validates a scenario (what `nestsim validate` runs).
pub fn validate_file(path: &Path, overrides: &[String], seed: Option<u64>) -> Result<Resolved, ConfigErrors> {
    let loaded = load_file(path, overrides, seed)?;
    let text = std::fs::read_to_string(path).unwrap_or_default();
    resolve(&loaded, &text)
}
