//! Configuration errors that name the file, the line and the key, and say what was expected.

use std::fmt;
use toml::de::{DeTable, DeValue};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub file: String,
    /// 1-based line and column; 0 when the error is not tied to a place in the file.
    pub line: usize,
    pub column: usize,
    /// Dotted key path (`workload[1].arrival.rate_iops`), empty when unknown.
    pub key: String,
    pub message: String,
}

impl ConfigError {
    pub fn file_level(file: &str, message: String) -> Self {
        ConfigError { file: file.into(), line: 0, column: 0, key: String::new(), message }
    }

    pub fn override_level(file: &str, ov: &str, message: String) -> Self {
        ConfigError { file: file.into(), line: 0, column: 0, key: format!("--set {ov}"), message }
    }

    pub fn from_toml(file: &str, text: &str, e: &toml::de::Error) -> Self {
        let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((0, 0));
        let key = e.span().map(|s| key_at(text, s.start)).unwrap_or_default();
        ConfigError { file: file.into(), line, column, key, message: crate::suggest::with_hint(e.message().trim()) }
    }

    /// An error about `key`, located by looking the key path up in the source text.
    pub fn at_key(file: &str, text: &str, key: &str, message: String) -> Self {
        let (line, column) = locate(text, key).unwrap_or((0, 0));
        ConfigError { file: file.into(), line, column, key: key.into(), message }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if !self.key.is_empty() {
            write!(f, ": {}", self.key)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// One or more configuration errors (validation collects them all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl ConfigErrors {
    pub fn one(e: ConfigError) -> Self {
        ConfigErrors(vec![e])
    }
}

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = offset - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
    (line, col)
}

/// The bare key written on the line of `offset`, if the line is `key = ...` (a hint for serde
/// errors that carry a span but no key).
fn key_at(text: &str, offset: usize) -> String {
    let start = text[..offset.min(text.len())].rfind('\n').map_or(0, |p| p + 1);
    let line = text[start..].lines().next().unwrap_or("");
    match line.split_once('=') {
        Some((k, _)) if !k.trim().is_empty() && !k.contains('{') => k.trim().to_string(),
        _ => String::new(),
    }
}

/// Finds the line and column of a key path such as `workload[1].arrival.rate_iops`; falls back
/// to the deepest part of the path that exists.
pub fn locate(text: &str, path: &str) -> Option<(usize, usize)> {
    let root = DeTable::parse(text).ok()?;
    let mut best = None;
    let mut table: Option<&DeTable> = Some(root.get_ref());
    let mut value: Option<&DeValue> = None;
    for part in path.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((n, rest)) => (n, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        let t = match (table, value) {
            (Some(t), _) => t,
            (None, Some(DeValue::Table(t))) => t,
            _ => break,
        };
        let Some((k, v)) = t.iter().find(|(k, _)| k.get_ref().as_ref() == name) else { break };
        best = Some(line_col(text, k.span().start));
        table = None;
        value = Some(v.get_ref());
        if let Some(i) = index {
            match v.get_ref() {
                DeValue::Array(a) => match a.get(i) {
                    Some(item) => {
                        best = Some(line_col(text, item.span().start));
                        value = Some(item.get_ref());
                    }
                    None => break,
                },
                _ => break,
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_nested_keys_in_arrays_of_tables() {
        let text = "schema = 1\n[[workload]]\nname = \"a\"\n\n[[workload]]\nname = \"b\"\narrival = { kind = \"poisson\", rate_iops = 5 }\n";
        assert_eq!(locate(text, "workload[1].arrival.rate_iops").map(|p| p.0), Some(7));
        assert_eq!(locate(text, "workload[1].name").map(|p| p.0), Some(6));
        assert_eq!(locate(text, "workload[0].missing").map(|p| p.0), Some(2));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
    }
}
