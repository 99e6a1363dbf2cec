//! `vtdx query`: output modes, the `--json` contract and exit codes.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn vtdx(args: &[&str], stdin: &[u8]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vtdx"));
    c.arg("query").args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().expect("run vtdx");
    // vtdx may exit (bad expression) before reading its input.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

const DOC: &[u8] = br#"<?xml version="1.0"?>
<po xmlns:p="urn:p" date="2026"><item n="1">Can &amp; lid</item><!--c--><?pi data?><item n="2" p:x="y"><![CDATA[a]]>b</item></po>"#;

#[test]
fn default_output_is_like_xmllint() {
    let o = vtdx(&["-", "//item"], DOC);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(out(&o), "<item n=\"1\">Can &amp; lid</item>\n<item n=\"2\" p:x=\"y\"><![CDATA[a]]>b</item>\n");
    assert_eq!(out(&vtdx(&["-", "//@n | //comment()"], DOC)), "1\nc\n2\n");
    assert_eq!(out(&vtdx(&["-", "count(//item)"], DOC)), "2\n");
    assert_eq!(out(&vtdx(&["-", "1 div 0"], DOC)), "Infinity\n");
    assert_eq!(out(&vtdx(&["-", "//item = 'ab'"], DOC)), "true\n");
    assert_eq!(out(&vtdx(&["--value", "-", "//item"], DOC)), "Can & lid\nab\n");
    assert_eq!(out(&vtdx(&["--count", "-", "//node()"], DOC)), "7\n");
}

#[test]
fn json_contract() {
    let o = vtdx(&["--json", "-", "/ | //item[2]/node() | //@* | /po/namespace::p | //comment() | //processing-instruction()"], DOC);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        out(&o),
        concat!(
            r#"{"type":"nodeset","nodes":["#,
            r#"{"path":"/","kind":"root","value":"Can & lidab"},"#,
            r#"{"path":"/*[1]/namespace::p","kind":"namespace","value":"urn:p"},"#,
            r#"{"path":"/*[1]/@date","kind":"attribute","value":"2026"},"#,
            r#"{"path":"/*[1]/*[1]/@n","kind":"attribute","value":"1"},"#,
            r#"{"path":"/*[1]/comment()[1]","kind":"comment","value":"c"},"#,
            r#"{"path":"/*[1]/processing-instruction()[1]","kind":"pi","value":"data"},"#,
            r#"{"path":"/*[1]/*[2]/@n","kind":"attribute","value":"2"},"#,
            r#"{"path":"/*[1]/*[2]/@{urn:p}x","kind":"attribute","value":"y"},"#,
            r#"{"path":"/*[1]/*[2]/text()[1]","kind":"text","value":"ab"}]}"#,
            "\n"
        )
    );
    assert_eq!(out(&vtdx(&["--json", "-", "count(//item) div 4"], DOC)), "{\"type\":\"number\",\"value\":0.5}\n");
    assert_eq!(out(&vtdx(&["--json", "-", "--", "-1 div 0"], DOC)), "{\"type\":\"number\",\"value\":\"-Infinity\"}\n");
    assert_eq!(out(&vtdx(&["--json", "-", "0 div 0"], DOC)), "{\"type\":\"number\",\"value\":\"NaN\"}\n");
    assert_eq!(
        out(&vtdx(&["--json", "-", "concat('a\"', '\\', /po/item[1])"], DOC)),
        "{\"type\":\"string\",\"value\":\"a\\\"\\\\Can & lid\"}\n"
    );
    assert_eq!(out(&vtdx(&["--json", "-", "boolean(//x)"], DOC)), "{\"type\":\"boolean\",\"value\":false}\n");
    assert_eq!(out(&vtdx(&["--json", "-", "//nothing"], DOC)), "{\"type\":\"nodeset\",\"nodes\":[]}\n");
}

#[test]
fn namespaces_and_variables() {
    let o = vtdx(&["--ns", "q=urn:p", "--var", "n=2", "-", "string(//item[@n = $n]/@q:x)"], DOC);
    assert_eq!(out(&o), "y\n");
    let o = vtdx(&["--ns", "q=urn:p", "--var", "q:v=7", "-", "$q:v + 1"], DOC);
    assert_eq!(out(&o), "8\n");
}

#[test]
fn exit_codes() {
    // Not well-formed: 1, with FILE:LINE:COL.
    let o = vtdx(&["-", "/a"], b"<a><b></a>");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("-:1:"), "{}", String::from_utf8_lossy(&o.stderr));
    // XPath syntax error: 2, with the column and a caret.
    let o = vtdx(&["-", "//item[@n"], DOC);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("at column 10") && e.contains("  //item[@n\n           ^"), "{e}");
    let o = vtdx(&["-", "nope(1)"], DOC);
    assert_eq!(o.status.code(), Some(2));
    // --json over several files: JSON Lines (tests/template.rs); the second "-" reads an empty stdin
    assert_eq!(vtdx(&["--json", "-", "-", "/"], DOC).status.code(), Some(1));
}
