//! The W3C specification examples (Canonical XML 1.0 §3, Exclusive XML
//! Canonicalization §2.2/§2.4) that need no XPath, byte for byte.
//! The ones selected by an XPath expression are in `xpath_vectors.rs`.

mod common;

use common::*;
use vtdx_c14n::{Algorithm, Canonicalizer};
use vtdx_core::{Document, Node};

/// Cases known not to pass, with the reason: `conformance/expected-failures/c14n-spec-examples.txt`.
const EXPECTED_FAILURES: &str = "c14n-spec-examples";

struct Case {
    name: &'static str,
    dir: &'static str,
    input: &'static str,
    expected: &'static str,
    alg: Algorithm,
    comments: bool,
    /// qualified name of the apex element, or None for the whole document
    apex: Option<&'static str>,
}

fn find<'d>(doc: &'d Document<'d>, qname: &str) -> Node<'d> {
    doc.root().descendants().find(|n| n.is_element() && n.name() == qname).unwrap_or_else(|| panic!("no element {qname}"))
}

fn cases() -> Vec<Case> {
    use Algorithm::*;
    let c10 =
        |name, input, expected, comments| Case { name, dir: "c14n10-spec-examples", input, expected, alg: C14n10, comments, apex: None };
    let exc = |name, input, expected, alg, apex| Case {
        name,
        dir: "exc-c14n-spec-examples",
        input,
        expected,
        alg,
        comments: true,
        apex: Some(apex),
    };
    vec![
        c10("c14n10/31", "31_input.xml", "31_c14n.xml", false),
        c10("c14n10/31-comments", "31_input.xml", "31_c14n-comments.xml", true),
        c10("c14n10/32", "32_input.xml", "32_c14n.xml", false),
        c10("c14n10/33", "33_input.xml", "33_c14n.xml", false),
        c10("c14n10/34", "34_input.xml", "34_c14n.xml", false),
        c10("c14n10/34-validating", "34_input_validatingParser.xml", "34_c14n_validatingParser.xml", false),
        c10("c14n10/35", "35_input.xml", "35_c14n.xml", false),
        c10("c14n10/36", "36_input.xml", "36_c14n.xml", false),
        Case {
            name: "c14n10/default_ns_redefinition",
            dir: "c14n10-spec-examples",
            input: "default_ns_redefinition_input.xml",
            expected: "default_ns_redefinition_c14n.xml",
            alg: C14n10,
            comments: true,
            apex: Some("dsig:Object"),
        },
        exc("exc/2.2.1-inclusive", "example2_2_1.xml", "example2_2_1_c14nized.xml", C14n10, "n1:elem2"),
        exc("exc/2.2.2-inclusive", "example2_2_2.xml", "example2_2_2_c14nized.xml", C14n10, "n1:elem2"),
        exc("exc/2.2.1-exclusive", "example2_2_1.xml", "example2_2_c14nized_exclusive.xml", ExcC14n10, "n1:elem2"),
        exc("exc/2.2.2-exclusive", "example2_2_2.xml", "example2_2_c14nized_exclusive.xml", ExcC14n10, "n1:elem2"),
        exc("exc/2.4", "example2_4.xml", "example2_4_c14nized.xml", ExcC14n10, "etsi:elem2"),
        exc("exc/soap-body", "plain-soap-1.1.xml", "plain-soap-c14nized.xml", ExcC14n10, "env:Body"),
    ]
}

fn run(case: &Case, fast: bool) -> Result<(), String> {
    let dir = c14n_dir(case.dir);
    let input = read(&dir.join(case.input));
    let want = read(&dir.join(case.expected));
    // example 3.1 names an external DTD: read as absent (never fetched), as the spec's output assumes
    let opts = vtdx_core::ParseOptions::new().external(vtdx_core::ExternalPolicy::Ignore);
    let doc = Document::parse_with(&input, &opts).map_err(|e| format!("parse: {e}"))?;
    let c = Canonicalizer::new(case.alg).with_comments(case.comments).fast_path(fast);
    let got = match case.apex {
        None => c.document_to_vec(&doc),
        Some(q) => c.subtree_to_vec(find(&doc, q)),
    }
    .map_err(|e| format!("canonicalize: {e}"))?;
    if got == want {
        Ok(())
    } else {
        Err(diff(&got, &want))
    }
}

#[test]
fn spec_examples_byte_for_byte() {
    let cases = cases();
    assert_eq!(cases.len(), 15, "case list changed");
    let mut pass = 0;
    let mut outcomes = Vec::new();
    for case in &cases {
        for fast in [true, false] {
            let r = run(case, fast).map_err(|e| format!("(fast path {fast}) {e}"));
            pass += usize::from(r.is_ok());
            outcomes.push((case.name, r.err()));
        }
    }
    let failures = expected_failures(EXPECTED_FAILURES).compare(outcomes.iter().map(|(n, r)| (*n, r.as_deref())));
    eprintln!("spec examples: {} of {} pass (each with and without the fast path)", pass / 2, cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn relative_namespace_uri_is_an_error() {
    let input = read(&c14n_dir("c14n10-spec-examples").join("relative-ns-behaviour.xml"));
    let doc = Document::parse(&input).unwrap();
    for alg in [Algorithm::C14n10, Algorithm::C14n11, Algorithm::ExcC14n10] {
        let r = Canonicalizer::new(alg).document_to_vec(&doc);
        assert!(matches!(r, Err(vtdx_c14n::C14nError::RelativeNamespaceUri { .. })), "{alg:?}: {r:?}");
    }
}

#[test]
fn utf16_input_becomes_utf8() {
    // The corpus holds the expected UTF-8 output; the UTF-16 input is that document re-encoded.
    let want = read(&c14n_dir("c14n10-spec-examples").join("testTranslationFromUTF16toUTF8.xml"));
    let text = std::str::from_utf8(&want).unwrap();
    let mut utf16 = vec![0xFF, 0xFE];
    for u in text.encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    let doc = Document::parse(&utf16).unwrap();
    let got = Canonicalizer::new(Algorithm::C14n10).document_to_vec(&doc).unwrap();
    assert_eq!(got, want, "{}", diff(&got, &want));
}
