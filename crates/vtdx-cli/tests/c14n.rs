//! `vtdx c14n`: the command-line contract (output bytes and exit codes).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn vtdx(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vtdx"));
    c.arg("c14n").args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    if stdin.is_some() {
        c.stdin(Stdio::piped());
    }
    let mut child = c.spawn().expect("run vtdx");
    if let Some(b) = stdin {
        // the child may exit before reading (usage errors): a broken pipe is not a failure
        let _ = child.stdin.take().unwrap().write_all(b);
    }
    child.wait_with_output().unwrap()
}

fn corpus() -> PathBuf {
    let p = match std::env::var_os("VTDX_CORPUS") {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    assert!(p.join("c14n").is_dir(), "the corpus is missing at {} (set VTDX_CORPUS)", p.display());
    p.join("c14n")
}

const SOAP: &[u8] = br#"<?xml version="1.0"?>
<soap:Envelope xmlns:soap="urn:soap" xmlns:wsu="urn:wsu" xmlns:ds="urn:ds">
 <soap:Header><ds:Signature><ds:SignedInfo/></ds:Signature><!-- c --></soap:Header>
 <soap:Body wsu:Id='b'><m:q xmlns:m="urn:m" b="2" a="1"/></soap:Body>
</soap:Envelope>"#;

#[test]
fn whole_document_from_stdin() {
    let o = vtdx(&["-"], Some(SOAP));
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        "<soap:Envelope xmlns:ds=\"urn:ds\" xmlns:soap=\"urn:soap\" xmlns:wsu=\"urn:wsu\">\n <soap:Header><ds:Signature><ds:SignedInfo></ds:SignedInfo></ds:Signature></soap:Header>\n <soap:Body wsu:Id=\"b\"><m:q xmlns:m=\"urn:m\" a=\"1\" b=\"2\"></m:q></soap:Body>\n</soap:Envelope>"
    );
}

#[test]
fn exclusive_subtree_and_comments() {
    let o = vtdx(&["--exclusive", "--subtree", "//soap:Body", "-"], Some(SOAP));
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        r#"<soap:Body xmlns:soap="urn:soap" xmlns:wsu="urn:wsu" wsu:Id="b"><m:q xmlns:m="urn:m" a="1" b="2"></m:q></soap:Body>"#
    );
    let o = vtdx(&["--exclusive", "--with-comments", "--subtree", "/*/soap:Header", "-"], Some(SOAP));
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        r#"<soap:Header xmlns:soap="urn:soap"><ds:Signature xmlns:ds="urn:ds"><ds:SignedInfo></ds:SignedInfo></ds:Signature><!-- c --></soap:Header>"#
    );
    let o = vtdx(&["--exclusive", "--inclusive-prefixes", "ds wsu", "--subtree", "//m:q", "-"], Some(SOAP));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), r#"<m:q xmlns:ds="urn:ds" xmlns:m="urn:m" xmlns:wsu="urn:wsu" a="1" b="2"></m:q>"#);
}

#[test]
fn exclude_is_the_enveloped_signature_transform() {
    let o = vtdx(&["--subtree", "/*", "--exclude", "//ds:Signature", "-"], Some(SOAP));
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(!out.contains("Signature"), "{out}");
    assert!(out.contains("<soap:Header></soap:Header>"), "{out}");
}

#[test]
fn c14n11_and_spec_vector() {
    let dir = corpus().join("c14n10-spec-examples");
    // the example names an external DTD subset (`doc.dtd`): refused unless ignored
    let input = dir.join("31_input.xml");
    let o = vtdx(&["--with-comments", input.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--external ignore"));
    let o = vtdx(&["--with-comments", "--external", "ignore", input.to_str().unwrap()], None);
    assert_eq!(o.stdout, std::fs::read(dir.join("31_c14n-comments.xml")).unwrap());
    let o = vtdx(&["--c14n11", "--subtree", "//e3", "-"], Some(br#"<r xml:base="a/"><e1 xml:base="b/"><e3 xml:base="c"/></e1></r>"#));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), r#"<e3 xml:base="a/b/c"></e3>"#);
    let dir = corpus().join("exc-c14n-spec-examples");
    let o = vtdx(&["--exclusive", "--with-comments", "--subtree", "//env:Body", dir.join("plain-soap-1.1.xml").to_str().unwrap()], None);
    assert_eq!(o.stdout, std::fs::read(dir.join("plain-soap-c14nized.xml")).unwrap());
}

#[test]
fn exit_codes() {
    // malformed document: 1
    let o = vtdx(&["-"], Some(b"<a><b></a>"));
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    // bad XPath: 2
    let o = vtdx(&["--subtree", "//*[", "-"], Some(SOAP));
    assert_eq!(o.status.code(), Some(2));
    let o = vtdx(&["--exclude", "///", "-"], Some(SOAP));
    assert_eq!(o.status.code(), Some(2));
    let o = vtdx(&["--subtree", "//nope:x", "-"], Some(SOAP));
    assert_eq!(o.status.code(), Some(2), "unbound prefix");
    let o = vtdx(&["--subtree", "//missing", "-"], Some(SOAP));
    assert_eq!(o.status.code(), Some(2), "selects no element");
    // a relative namespace URI cannot be canonicalized: 1
    let o = vtdx(&["-"], Some(br#"<a xmlns:r="rel/x"><r:b/></a>"#));
    assert_eq!(o.status.code(), Some(1));
    // usage
    let o = vtdx(&["--exclusive", "--c14n11", "-"], Some(SOAP));
    assert_eq!(o.status.code(), Some(2));
}
