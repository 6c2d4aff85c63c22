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
        let message = e.message().trim();
        // A value inside a tagged table (`[[device]]` picks its type by `kind`) is checked after
        // serde has buffered the table, so the error's span is the whole table; the value the
        // message quotes, found inside it, gives the key and its line.
        let (offset, key) = match e.span().and_then(|s| key_path_at(text, s, message)) {
            Some((offset, key)) => (Some(offset), key),
            None => (e.span().map(|s| s.start), e.span().map(|s| key_at(text, s.start)).unwrap_or_default()),
        };
        let (line, column) = offset.map(|o| line_col(text, o)).unwrap_or((0, 0));
        ConfigError { file: file.into(), line, column, key, message: crate::suggest::with_hint(message) }
    }

    /// The lines a retry blanks to look past this serde error for the next one (see
    /// `crate::parse_all`): the line of the key it names, or the lines of its span when that is
    /// short; None when the error is not tied to a few lines (a missing field, a whole table).
    pub fn retry_region(text: &str, e: &toml::de::Error) -> Option<std::ops::Range<usize>> {
        let span = e.span()?;
        let at = key_path_at(text, span.clone(), e.message().trim()).map(|(o, _)| o).unwrap_or(span.start);
        let line_start = |o: usize| text[..o.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
        let line_end = |o: usize| text[o.min(text.len())..].find('\n').map_or(text.len(), |i| o + i);
        let start = line_start(at);
        // A short span (a value over a line or two) is blanked whole; a long one (a whole tagged
        // table, where `at` is the value inside it) only on the line of `at`.
        let span_lines = text[span.clone()].matches('\n').count();
        let end = if span_lines <= 2 && at <= span.start { line_end(span.end.saturating_sub(1).max(at)) } else { line_end(at) };
        (text[start..end].matches('\n').count() <= 4).then_some(start..end)
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

/// The key path (`device[0].servers`) of the value an error at `span` is about, and where that
/// value starts: the innermost value whose span holds the error's; when that is a table and
/// the message quotes the offending value (`integer `99999999999``, `string "four"`), the one
/// value inside the table equal to it.
fn key_path_at(text: &str, span: std::ops::Range<usize>, message: &str) -> Option<(usize, String)> {
    let holds = |s: std::ops::Range<usize>| s.start <= span.start && span.end <= s.end.max(s.start + 1);
    let root = DeTable::parse(text).ok()?;
    let mut path = String::new();
    let mut at: Option<(usize, &DeValue)> = None;
    let mut table = root.get_ref();
    'descend: loop {
        for (k, v) in table.iter() {
            if !holds(extent(v.get_ref(), v.span())) {
                continue;
            }
            push_key(&mut path, k.get_ref());
            at = Some((v.span().start, v.get_ref()));
            let mut value = v.get_ref();
            if let DeValue::Array(items) = value {
                // An array of tables is spanned by its first header only, and serde reports an
                // error anywhere in it there: then the value is looked for in every item.
                let first_header = items.len() > 1 && items.first().is_some_and(|it| it.span() == span && it.span() == v.span());
                let Some((i, item)) = items.iter().enumerate().find(|(_, it)| holds(extent(it.get_ref(), it.span()))).filter(|_| !first_header) else {
                    break 'descend;
                };
                path.push_str(&format!("[{i}]"));
                at = Some((item.span().start, item.get_ref()));
                value = item.get_ref();
            }
            if let DeValue::Table(t) = value {
                table = t;
                continue 'descend;
            }
            break 'descend;
        }
        break;
    }
    let (offset, value) = at?;
    if matches!(value, DeValue::Table(_) | DeValue::Array(_)) {
        let unknown = message.strip_prefix("unknown field `").and_then(|r| r.split_once('`')).map(|(k, _)| Want::Key(k.to_string()));
        if let Some(want) = unknown.or_else(|| quoted_value(message).map(Want::Value)) {
            let mut found = Vec::new();
            let mut sub = String::new();
            visit_value(value, offset..offset, text, &want, &mut sub, &mut found);
            if let [(sub, off)] = found.as_slice() {
                let sep = if sub.starts_with('[') { "" } else { "." };
                return Some((*off, format!("{path}{sep}{sub}")));
            }
        }
    }
    (!path.is_empty()).then_some((offset, path))
}

/// The override an error after overrides is about: the only one, or the one whose value is the
/// value the message quotes.
pub fn override_quoted<'a>(overrides: &'a [String], message: &str) -> Option<&'a String> {
    if let [only] = overrides {
        return Some(only);
    }
    let want = quoted_value(message)?;
    let mut hits = overrides.iter().filter(|o| o.split_once('=').is_some_and(|(_, v)| v.trim().trim_matches('"') == want));
    match (hits.next(), hits.next()) {
        (Some(o), None) => Some(o),
        _ => None,
    }
}

/// The text a value covers: its own span joined with its keys' and values' (a table from an
/// array of tables is spanned by its header only).
fn extent(v: &DeValue, span: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let join = |a: std::ops::Range<usize>, b: std::ops::Range<usize>| a.start.min(b.start)..a.end.max(b.end);
    match v {
        DeValue::Table(t) => t.iter().fold(span, |acc, (k, x)| join(join(acc, k.span()), extent(x.get_ref(), x.span()))),
        DeValue::Array(items) => items.iter().fold(span, |acc, x| join(acc, extent(x.get_ref(), x.span()))),
        _ => span,
    }
}

fn push_key(path: &mut String, k: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(k);
}

/// The value serde's message quotes: `string "four"` → four, ``integer `7` `` → 7, and so on.
fn quoted_value(message: &str) -> Option<String> {
    if let Some(rest) = message.split_once("string \"").map(|(_, r)| r) {
        return rest.split_once('"').map(|(v, _)| v.to_string());
    }
    for kind in ["integer `", "floating point `", "boolean `"] {
        if let Some((_, rest)) = message.split_once(kind) {
            return rest.split_once('`').map(|(v, _)| v.to_string());
        }
    }
    None
}

/// What an error is about: a value it quotes, or a key it names (`unknown field`).
enum Want {
    Value(String),
    Key(String),
}

/// Every scalar under `t` whose value reads as `want` (or every key named so), with its key
/// path and offset.
fn find_scalar(t: &DeTable, text: &str, want: &Want, path: &mut String, found: &mut Vec<(String, usize)>) {
    for (k, v) in t.iter() {
        let len = path.len();
        push_key(path, k.get_ref());
        if matches!(want, Want::Key(name) if name.as_str() == k.get_ref().as_ref()) {
            found.push((path.clone(), k.span().start));
        }
        visit_value(v.get_ref(), v.span(), text, want, path, found);
        path.truncate(len);
    }
}

fn visit_value(v: &DeValue, span: std::ops::Range<usize>, text: &str, want: &Want, path: &mut String, found: &mut Vec<(String, usize)>) {
    let same = match (v, want) {
        (DeValue::Table(t), _) => {
            find_scalar(t, text, want, path, found);
            false
        }
        (DeValue::Array(items), _) => {
            for (i, it) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                visit_value(it.get_ref(), it.span(), text, want, path, found);
                path.truncate(len);
            }
            false
        }
        (_, Want::Key(_)) => false,
        (DeValue::String(s), Want::Value(w)) => s.as_ref() == w,
        (DeValue::Integer(_) | DeValue::Float(_), Want::Value(w)) => {
            let raw = text.get(span.clone()).unwrap_or("").replace('_', "");
            raw == *w || matches!((raw.parse::<f64>(), w.parse::<f64>()), (Ok(a), Ok(b)) if a == b)
        }
        (DeValue::Boolean(b), Want::Value(w)) => b.to_string() == *w,
        (DeValue::Datetime(_), _) => false,
    };
    if same {
        found.push((path.clone(), span.start));
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

    /// A type error inside a `kind`-tagged table used to point at the table's header with no
    /// key; it now names the key and its line.
    #[test]
    fn type_errors_in_tagged_tables_name_the_key() {
        let text = "schema = 1\n[[device]]\nname = \"a\"\nkind = \"pm\"\n\n[[device]]\nname = \"d\"\nkind = \"ideal\"\nservers = \"four\"\n";
        let e = crate::load_str(text, "t.toml", std::path::PathBuf::new(), &[], None).unwrap_err();
        let e = e.0.iter().find(|e| e.message.contains("four")).expect("the servers error");
        assert_eq!((e.key.as_str(), e.line), ("device[1].servers", 9), "{e}");
        let text = "schema = 1\n[[device]]\nname = \"d\"\nkind = \"ideal\"\nservers = 99999999999\n";
        let e = crate::load_str(text, "t.toml", std::path::PathBuf::new(), &[], None).unwrap_err();
        assert_eq!((e.0[0].key.as_str(), e.0[0].line), ("device[0].servers", 5), "{}", e.0[0]);
        assert_eq!(quoted_value("invalid type: floating point `0.5`, expected u32").as_deref(), Some("0.5"));
        // An unknown key inside an array of tables gets its whole path.
        let text = "schema = 1\n[[host]]\nname = \"a\"\n[[host]]\nname = \"b\"\ncache = { algorithm = \"lru\", capacity = \"8MiB\" }\n";
        let e = crate::load_str(text, "t.toml", std::path::PathBuf::new(), &[], None).unwrap_err();
        assert_eq!((e.0[0].key.as_str(), e.0[0].line), ("host[1].cache.capacity", 6), "{}", e.0[0]);
        let ovs = vec!["run.seed=3".to_string(), "host[0].queue_depth=0.5".to_string()];
        assert_eq!(override_quoted(&ovs, "invalid type: floating point `0.5`, expected u32"), Some(&ovs[1]));
    }
}
