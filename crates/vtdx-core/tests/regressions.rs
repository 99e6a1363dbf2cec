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
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
    files.sort();
    assert!(files.iter().any(|p| p.extension().is_some_and(|x| x == "xml")), "no regression files in {}", dir.display());
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

/// `Document::parse` reuses one parser per thread: documents kept alive side by side
/// (sharing, then copying, the name tables), many distinct names, and documents
/// from other threads must each keep their own names.
#[test]
fn thread_parser_keeps_documents_apart() {
    let a = Document::parse(b"<a x='1'><b/></a>").unwrap();
    let b = Document::parse(b"<x><y z='2'/><b/></x>").unwrap();
    let names = |d: &Document<'_>| d.root().descendants().filter(|n| n.is_element()).map(|n| n.name().to_string()).collect::<Vec<_>>();
    assert_eq!(names(&a), ["a", "b"]);
    assert_eq!(names(&b), ["x", "y", "b"]);
    assert_eq!(a.root_element().attribute("x").as_deref(), Some("1"));
    assert_eq!(b.root_element().first_element_child().unwrap().attribute("z").as_deref(), Some("2"));
    // past the size at which shared tables are no longer copied
    let many: String = (0..600).map(|i| format!("<n{i}/>")).collect();
    let big = format!("<r>{many}</r>");
    let c = Document::parse(big.as_bytes()).unwrap();
    let d = Document::parse(b"<q/>").unwrap();
    assert_eq!(c.root_element().element_children().count(), 600);
    assert_eq!(c.root_element().element_children().nth(599).unwrap().name(), "n599");
    assert_eq!(d.root_element().name(), "q");
    assert_eq!(names(&a), ["a", "b"]);
    // a failed parse leaves the thread's parser usable
    assert!(Document::parse(b"<a><b></a>").is_err());
    assert_eq!(Document::parse(b"<ok/>").unwrap().root_element().name(), "ok");
    // other threads have parsers of their own
    let handles: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let src = format!("<t{i}><u{i}/></t{i}>");
                let doc = Document::parse(src.as_bytes()).unwrap();
                doc.root_element().first_element_child().unwrap().name().to_string()
            })
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        assert_eq!(h.join().unwrap(), format!("u{i}"));
    }
}
