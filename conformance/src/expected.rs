//! Expected-failure lists: the one format every conformance runner reads
//! (`conformance/expected-failures/*.txt`, described in `conformance/README.md`).
//!
//! ```text
//! # comment lines and blank lines are ignored
//! case-id  # why it fails
//! ```
//!
//! One case ID per line (no white space and no `#` in it), then `#` and the
//! reason, which may not be empty. A second word before the `#`, a missing
//! reason or an ID listed twice is an error that names the file and line.
//!
//! Besides the XML conformance runner (`src/main.rs`), the integration tests of
//! `vtdx-xpath` and `vtdx-c14n` include this file with `#[path]`, so every list
//! is read, and compared with a run, by the same code.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// A list read from a file: (ID, reason) in file order.
#[derive(Debug, Default)]
pub struct ExpectedFailures {
    /// The file it was read from (for messages).
    pub path: PathBuf,
    pub entries: Vec<(String, String)>,
}

impl ExpectedFailures {
    /// Reads the list; a missing file is an empty list.
    pub fn read(path: &Path) -> Result<ExpectedFailures, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(ExpectedFailures { path: path.to_path_buf(), entries: Vec::new() })
            }
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let mut entries = Vec::new();
        let mut seen = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let at = || format!("{}:{}", path.display(), i + 1);
            let (body, reason) = match line.find('#') {
                Some(p) => (&line[..p], Some(line[p + 1..].trim())),
                None => (line, None),
            };
            let mut words = body.split_whitespace();
            let Some(id) = words.next() else { continue };
            if let Some(extra) = words.next() {
                return Err(format!("{}: expected `ID  # reason`, found a second word `{extra}` before the `#`", at()));
            }
            match reason {
                Some(r) if !r.is_empty() => {}
                _ => return Err(format!("{}: {id} has no reason (write `{id}  # why it fails`)", at())),
            }
            if let Some(prev) = seen.insert(id.to_string(), i + 1) {
                return Err(format!("{}: {id} is already listed on line {prev}", at()));
            }
            entries.push((id.to_string(), reason.unwrap_or_default().to_string()));
        }
        Ok(ExpectedFailures { path: path.to_path_buf(), entries })
    }

    /// ID -> reason.
    pub fn reasons(&self) -> HashMap<&str, &str> {
        self.entries.iter().map(|(i, r)| (i.as_str(), r.as_str())).collect()
    }

    /// Compares a run with the list and returns one line per difference (none
    /// when the failures are exactly the listed cases):
    ///
    /// - `NEW FAILURE id: message`: a case failed that is not listed;
    /// - `NOW PASSES id`: a listed case passed (remove it from the list);
    /// - `NOT A CASE id`: a listed ID that no case of the run has.
    ///
    /// `outcomes` holds every case run, with its failure message if it failed. A
    /// case may be run more than once (e.g. once per code path): each run counts.
    #[allow(dead_code)] // used by the test runners that include this file
    pub fn compare<'a>(&self, outcomes: impl IntoIterator<Item = (&'a str, Option<&'a str>)>) -> Vec<String> {
        let listed = self.reasons();
        let file = self.path.display();
        let mut report = Vec::new();
        let mut ran = BTreeSet::new();
        for (id, failure) in outcomes {
            ran.insert(id);
            match (failure, listed.contains_key(id)) {
                (Some(m), false) => report.push(format!("NEW FAILURE {id}: {m}")),
                (None, true) => report.push(format!("NOW PASSES {id} (remove it from {file})")),
                _ => {}
            }
        }
        report.dedup();
        for (id, _) in &self.entries {
            if !ran.contains(id.as_str()) {
                report.push(format!("NOT A CASE {id} (listed in {file}, but the run has no case with this ID)"));
            }
        }
        report
    }
}

/// A suite name and its (id, reason) entries.
pub type Group = (String, Vec<(String, String)>);

/// Writes the xmlconf list: a header, then one block per group.
#[allow(dead_code)] // used by the conformance runner only
pub fn write(path: &Path, groups: &[Group]) -> Result<(), String> {
    let mut s = String::new();
    s.push_str(
        "# Tests of the W3C XML Conformance Test Suite (xmlconf) that vtdx is known to fail.\n\
         # One test ID per line, then `# reason` (format: conformance/README.md). The conformance\n\
         # runner fails when a test fails that is not listed here, and when a listed test passes\n\
         # (remove it then). Regenerate with `cargo run --release -p vtdx-conformance -- --update-expected`;\n\
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
