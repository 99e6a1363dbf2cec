//! Vectors whose node-set is given by an XPath expression: Canonical XML 1.0
//! §3.7, Canonical XML 1.1 §3.8 and the W3C C14N 1.1 interop cases,
//! Exclusive XML Canonicalization §2.2 (third document), byte for byte; and the
//! C14N 1.1 Appendix A dot-segment table.

mod common;

use common::*;
use vtdx_c14n::xpath::XPathNodeSet;
use vtdx_c14n::{Algorithm, Canonicalizer};
use vtdx_core::Document;
use vtdx_xpath::{Namespaces, XPath};

/// Cases known not to pass, with the reason: `conformance/expected-failures/c14n-xpath-vectors.txt`.
const EXPECTED_FAILURES: &str = "c14n-xpath-vectors";

fn ns() -> Namespaces {
    Namespaces::new().with("ietf", "http://www.ietf.org").with("w3c", "http://www.w3.org")
}

fn canon(alg: Algorithm, input: &[u8], expr: &str) -> Result<Vec<u8>, String> {
    let doc = Document::parse(input).map_err(|e| format!("parse: {e}"))?;
    let xp = XPath::compile(expr, &ns()).map_err(|e| format!("xpath: {e}"))?;
    let set = xp.select(doc.root()).map_err(|e| format!("xpath: {e}"))?;
    let set = XPathNodeSet::new(&set);
    Canonicalizer::new(alg).node_set_to_vec(&doc, &set).map_err(|e| format!("canonicalize: {e}"))
}

struct Case {
    name: String,
    alg: Algorithm,
    input: std::path::PathBuf,
    expr: String,
    expected: std::path::PathBuf,
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    let c10 = c14n_dir("c14n10-spec-examples");
    let expr37 = String::from_utf8(read(&c10.join("37_subset.xpath"))).unwrap();
    // drop the leading XML comment that says how to bind the prefix
    let expr37 = expr37.split_once("-->").map_or(expr37.clone(), |(_, e)| e.to_string());
    v.push(Case {
        name: "c14n10/37".into(),
        alg: Algorithm::C14n10,
        input: c10.join("37_input.xml"),
        expr: expr37,
        expected: c10.join("37_c14n.xml"),
    });
    v.push(Case {
        name: "c14n11/38".into(),
        alg: Algorithm::C14n11,
        input: c10.join("38_input.xml"),
        expr: r#"(//. | //@* | //namespace::*)[ self::ietf:e1 or (parent::ietf:e1 and not(self::text() or self::e2)) or count(id("E3")|ancestor-or-self::node()) = count(ancestor-or-self::node()) ]"#.into(),
        expected: c10.join("38_c14n.xml"),
    });
    let exc = c14n_dir("exc-c14n-spec-examples");
    v.push(Case {
        name: "exc/2.2.3".into(),
        alg: Algorithm::ExcC14n10,
        input: exc.join("example2_2_3.xml"),
        expr: "(//. | //@* | //namespace::*)[ancestor-or-self::p]".into(),
        expected: exc.join("example2_2_3_c14nized_exclusive.xml"),
    });
    let c11 = c14n_dir("c14n11-interop");
    let mut names: Vec<String> = std::fs::read_dir(&c11)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".xpath").map(str::to_string))
        .collect();
    names.sort();
    for n in names {
        let stem = n.rsplit_once('-').map_or(n.as_str(), |(s, _)| s);
        let expected = c11.join(format!("{n}.output"));
        assert!(expected.is_file(), "{n}: no reference output");
        v.push(Case {
            name: format!("c14n11-interop/{n}"),
            alg: Algorithm::C14n11,
            input: c11.join(format!("{stem}-input.xml")),
            expr: String::from_utf8(read(&c11.join(format!("{n}.xpath")))).unwrap(),
            expected,
        });
    }
    v
}

#[test]
fn xpath_selected_vectors_byte_for_byte() {
    let cases = cases();
    assert_eq!(cases.len(), 3 + 20, "case count changed");
    let mut outcomes = Vec::new();
    let mut pass = 0;
    for c in &cases {
        let got = canon(c.alg, &read(&c.input), &c.expr);
        let want = read(&c.expected);
        let failure = match got {
            Ok(g) if g == want => None,
            Ok(g) => Some(diff(&g, &want)),
            Err(e) => Some(e),
        };
        pass += usize::from(failure.is_none());
        outcomes.push((c.name.as_str(), failure));
    }
    let failures = expected_failures(EXPECTED_FAILURES).compare(outcomes.iter().map(|(n, f)| (*n, f.as_deref())));
    eprintln!("xpath-selected vectors: {pass} of {} pass", cases.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn appendix_a_dot_segments() {
    let dir = c14n_dir("c14n11-interop").join("appendixa");
    let inputs = String::from_utf8(read(&dir.join("inputs.txt"))).unwrap();
    let outputs = String::from_utf8(read(&dir.join("outputs.txt"))).unwrap();
    let ins: Vec<&str> = inputs.lines().collect();
    let outs: Vec<&str> = outputs.lines().collect();
    assert_eq!(ins.len(), 64);
    assert_eq!(outs.len(), 64);
    for (i, o) in ins.iter().zip(&outs) {
        assert_eq!(vtdx_c14n::uri::remove_dot_segments(i), *o, "input {i:?}");
    }
}
