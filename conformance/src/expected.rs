//! The expected-failures list: one test ID per line, `# reason` after it,
//! `#` lines and blank lines ignored.

use std::collections::HashMap;
use std::path::Path;

/// ID -> reason (the text after `#` on its line, trimmed; may be empty).
#[derive(Debug, Default)]
pub struct ExpectedFailures {
    pub entries: Vec<(String, String)>,
}

impl ExpectedFailures {
    /// Reads the list; a missing file is an empty list.
    pub fn read(path: &Path) -> Result<ExpectedFailures, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ExpectedFailures::default()),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let mut entries = Vec::new();
        let mut seen = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let (body, reason) = match line.find('#') {
                Some(p) => (&line[..p], line[p + 1..].trim()),
                None => (line, ""),
            };
            let mut words = body.split_whitespace();
            let Some(id) = words.next() else { continue };
            if let Some(extra) = words.next() {
                return Err(format!(
                    "{}:{}: expected `ID  # reason`, found a second word `{extra}` before the `#`",
                    path.display(),
                    i + 1
                ));
            }
            if let Some(prev) = seen.insert(id.to_string(), i + 1) {
                return Err(format!("{}:{}: {id} is already listed on line {prev}", path.display(), i + 1));
            }
            entries.push((id.to_string(), reason.to_string()));
        }
        Ok(ExpectedFailures { entries })
    }

    pub fn reasons(&self) -> HashMap<&str, &str> {
        self.entries.iter().map(|(i, r)| (i.as_str(), r.as_str())).collect()
    }
}

/// A suite name and its (id, reason) entries.
pub type Group = (String, Vec<(String, String)>);

/// Writes the list: a header, then one block per group.
pub fn write(path: &Path, groups: &[Group]) -> Result<(), String> {
    let mut s = String::new();
    s.push_str(
        "# Tests of the W3C XML Conformance Test Suite (xmlconf) that vtdx is known to fail.\n\
         # One test ID per line, then `# reason`. The conformance runner fails when a test\n\
         # fails that is not listed here, and when a listed test passes (remove it then).\n\
         # Regenerate with `cargo run --release -p vtdx-conformance -- --update-expected`;\n\
         # reasons of IDs already listed are kept, new IDs get `TODO: triage`.\n",
    );
    for (suite, ids) in groups {
        if ids.is_empty() {
            continue;
        }
        s.push_str(&format!("\n# {suite}\n"));
        let width = ids.iter().map(|(i, _)| i.len()).max().unwrap_or(0);
        for (id, reason) in ids {
            let reason = if reason.is_empty() { "TODO: triage" } else { reason.as_str() };
            s.push_str(&format!("{id:<width$}  # {reason}\n"));
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, s).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
