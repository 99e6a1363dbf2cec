//! Replays every file in `testdata/regressions/` (minimized fuzzer finds and bug
//! reproducers). None may panic; a file named `ok_*` must parse and one named
//! `err_*` must be refused.

use std::path::PathBuf;

use vtdx_core::{Document, ParseOptions};

use crate::common::walk;

fn regressions_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/regressions")
}

#[test]
fn replay_regressions() {
    let dir = regressions_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        // nothing recorded yet (git does not keep empty directories)
        return;
    };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') || name.ends_with(".md") {
            continue;
        }
        let bytes = std::fs::read(path).unwrap();
        let outcome = std::panic::catch_unwind(|| {
            let mut results = Vec::new();
            for opts in [ParseOptions::new(), ParseOptions::new().namespaces(false)] {
                let r = Document::parse_with(&bytes, &opts);
                if let Ok(d) = &r {
                    walk(d);
                    let mut out = Vec::new();
                    d.write_pretty(&mut out, 2).unwrap();
                }
                results.push(r.map(|_| ()).map_err(|e| e.to_string()));
            }
            results
        });
        match outcome {
            Err(_) => failures.push(format!("{name}: panicked")),
            Ok(results) => {
                let r = &results[0];
                if name.starts_with("ok_") && r.is_err() {
                    failures.push(format!("{name}: expected Ok, got {:?}", r));
                }
                if name.starts_with("err_") && r.is_ok() {
                    failures.push(format!("{name}: expected an error, got Ok"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "regressions failed:\n{}", failures.join("\n"));
}
