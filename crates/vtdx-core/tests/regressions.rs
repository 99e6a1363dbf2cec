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

/// Everything observable of a parse, by names rather than symbol numbers (which
/// depend on the tables a parser has built up): each node's kind, name, namespace,
/// byte range and text, each attribute, the namespaces in scope; or the error.
fn observed(r: Result<vtdx_core::Document<'_>, vtdx_core::Error>) -> Result<Vec<String>, String> {
    let doc = r.map_err(|e| format!("{:?} at {} ({}:{})", e.kind(), e.offset(), e.line(), e.column()))?;
    let mut out = vec![format!("root {:?}", doc.root_element().range())];
    for n in doc.root().descendants() {
        out.push(format!("{:?} {} {:?} {:?} {:?}", n.kind(), n.name(), n.namespace_uri(), n.range(), n.text()));
        if n.is_element() {
            for a in n.all_attributes() {
                out.push(format!("  @{} {:?} {:?} {:?}", a.name(), a.namespace_uri(), a.value(), a.range()));
            }
            out.push(format!("  ns {:?}", n.namespaces()));
        }
    }
    Ok(out)
}

/// A reused parser takes a document element's start tag whole when it has the bytes
/// of the last document's (the Envelope of SOAP messages): every document parses as
/// it does with a parser of its own, whatever came before it, with namespaces on or
/// off and under limits the earlier tag would break.
#[test]
fn a_repeated_document_element_start_tag_parses_as_alone() {
    let roots = [
        "<s:E xmlns:s='urn:s' xmlns:w=\"urn:w\" w:a='1'>",
        "<s:E xmlns:s='urn:s' xmlns:w=\"urn:w\" w:a='2'>",
        "<s:E xmlns:s='urn:s'>",
        "<s:E xmlns:s='urn:other' >",
        "<s:E\n  xmlns:s='urn:s'\n  s:enc='x &amp; y'>",
        "<E xmlns='urn:d' a='1' b='2'>",
        "<E>",
        "<E a='>'>",
    ];
    let bodies = ["", "text", "<s:b/>", "<w:x w:y='1'>t</w:x>", "<b xmlns='urn:b'><c/></b>", "<s:b></s:c>"];
    let mut docs: Vec<String> = Vec::new();
    for r in roots {
        let name = &r[1..r.find(|c: char| c.is_whitespace() || c == '>').unwrap()];
        for b in bodies {
            docs.push(format!("<?xml version='1.0'?>\n{r}{b}</{name}>"));
        }
        // the same tag as an empty element, and with something before it
        docs.push(format!("{}/>", &r[..r.len() - 1]));
        docs.push(format!("<!--c-->{r}</{name}>"));
    }
    let limits = [ParseOptions::default(), ParseOptions::default().namespaces(false), {
        let mut o = ParseOptions::default();
        o.limits.max_attributes = 2;
        o
    }];
    // every document after every other, with one reused parser per options, and
    // parsers of other options made and dropped in between (they share tables)
    for (i, a) in docs.iter().enumerate() {
        for (j, b) in docs.iter().enumerate() {
            let opts = &limits[(i + j) % limits.len()];
            let mut p = vtdx_core::Parser::with_options(opts.clone());
            for d in [a, b, b] {
                let got = observed(p.parse(d.as_bytes()));
                let want = observed(vtdx_core::Parser::isolated(opts.clone()).parse(d.as_bytes()));
                assert_eq!(got, want, "{d:?} after {a:?}, options {opts:?}");
            }
        }
    }
}
