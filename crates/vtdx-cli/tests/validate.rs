//! `vtdx validate`: output and exit statuses (0 valid, 1 invalid or not
//! well-formed, 2 bad schema / usage / I/O). Expected lines are written by hand
//! from the inputs and XML Schema 1.0's rules.

mod common;

use common::{code, run_vtdx, stderr, stdout, TempDir};

const XSD: &[u8] = br#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="order">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="item" maxOccurs="unbounded">
          <xs:complexType>
            <xs:sequence><xs:element name="qty" type="xs:positiveInteger"/></xs:sequence>
            <xs:attribute name="sku" type="xs:string" use="required"/>
          </xs:complexType>
        </xs:element>
      </xs:sequence>
    </xs:complexType>
  </xs:element>
</xs:schema>
"#;

const GOOD: &[u8] = b"<order><item sku='a'><qty>1</qty></item></order>\n";
const BAD: &[u8] = b"<order>\n<item sku='a'><qty>1</qty></item>\n<item><qty>0</qty></item>\n</order>\n";

#[test]
fn valid_files_exit_0_silently() {
    let d = TempDir::new("v-good");
    d.file("s.xsd", XSD).file("good.xml", GOOD);
    let o = run_vtdx(d.path(), &["validate", "--schema", "s.xsd", "good.xml", "good.xml"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    assert_eq!(stderr(&o), "");
}

#[test]
fn invalid_file_reports_every_error_and_exits_1() {
    let d = TempDir::new("v-bad");
    d.file("s.xsd", XSD).file("good.xml", GOOD).file("bad.xml", BAD);
    let o = run_vtdx(d.path(), &["validate", "--schema", "s.xsd", "good.xml", "bad.xml"], None);
    assert_eq!(code(&o), 1);
    assert_eq!(
        stderr(&o),
        "bad.xml:3:1: element <item> is missing required attribute sku (cvc-complex-type.4) (at /order/item[2])\n\
         bad.xml:3:12: element <qty>: \"0\" is not a valid value of type positiveInteger (at /order/item[2]/qty)\n"
            .replace("\"0\" is not a valid value of type positiveInteger", &qty_message())
    );
}

/// The datatypes layer's message for `0` as a positiveInteger (its own wording).
fn qty_message() -> String {
    use vtdx_schema::datatypes::{Builtin, NoNamespaces, SimpleType};
    SimpleType::builtin(Builtin::PositiveInteger).check("0", &NoNamespaces).unwrap_err().to_string()
}

#[test]
fn json_output() {
    let d = TempDir::new("v-json");
    d.file("s.xsd", XSD).file("bad.xml", b"<order><thing/></order>");
    let o = run_vtdx(d.path(), &["validate", "--json", "--schema", "s.xsd", "bad.xml"], None);
    assert_eq!(code(&o), 1);
    assert_eq!(
        stdout(&o),
        "{\"valid\":false,\"files\":[{\"file\":\"bad.xml\",\"valid\":false,\"errors\":[\
         {\"file\":\"bad.xml\",\"line\":1,\"column\":8,\"offset\":7,\"path\":\"/order/thing\",\
         \"message\":\"unexpected element <thing>: expected <item> (cvc-complex-type.2.4)\"},\
         {\"file\":\"bad.xml\",\"line\":1,\"column\":16,\"offset\":15,\"path\":\"/order\",\
         \"message\":\"element <order> is incomplete: expected <item> before its end (cvc-complex-type.2.4)\"}]}]}\n"
    );
}

#[test]
fn not_well_formed_exits_1() {
    let d = TempDir::new("v-nwf");
    d.file("s.xsd", XSD).file("nwf.xml", b"<order>\n<item></order>");
    let o = run_vtdx(d.path(), &["validate", "--schema", "s.xsd", "nwf.xml"], None);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("nwf.xml:2:"), "{}", stderr(&o));
}

#[test]
fn bad_schema_missing_schema_and_usage_exit_2() {
    let d = TempDir::new("v-schema");
    d.file("bad.xsd", b"<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'>\n<xs:element name='a' type='nope'/></xs:schema>")
        .file("remote.xsd", b"<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'><xs:import namespace='urn:x' schemaLocation='https://example.com/x.xsd'/></xs:schema>")
        .file("good.xml", GOOD);
    let o = run_vtdx(d.path(), &["validate", "--schema", "bad.xsd", "good.xml"], None);
    assert_eq!(code(&o), 2);
    assert_eq!(stderr(&o), "bad.xsd:2:1: invalid schema: no type definition named \"nope\"\n");
    let o = run_vtdx(d.path(), &["validate", "--schema", "remote.xsd", "good.xml"], None);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("nothing is fetched"), "{}", stderr(&o));
    let o = run_vtdx(d.path(), &["validate", "--schema", "missing.xsd", "good.xml"], None);
    assert_eq!(code(&o), 2);
    let o = run_vtdx(d.path(), &["validate", "good.xml"], None);
    assert_eq!(code(&o), 2);
    let o = run_vtdx(d.path(), &["validate", "--schema", "bad.xsd"], None);
    assert_eq!(code(&o), 2);
    d.file("s.xsd", XSD);
    let o = run_vtdx(d.path(), &["validate", "--schema", "s.xsd", "nosuch.xml"], None);
    assert_eq!(code(&o), 2);
}

/// `--use-schema-location`: the schema comes from the instance's `xsi:schemaLocation` /
/// `xsi:noNamespaceSchemaLocation` (XML Schema 1.0 §4.3.2), local paths only.
#[test]
fn use_schema_location_follows_local_hints_only() {
    let d = TempDir::new("v-hints");
    std::fs::create_dir_all(d.path().join("xsd")).unwrap();
    std::fs::create_dir_all(d.path().join("sub")).unwrap();
    d.file("xsd/s.xsd", XSD);
    let hinted = |body: &str| {
        format!("<order xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance' xsi:noNamespaceSchemaLocation='{body}'>\n<item sku='a'><qty>0</qty></item>\n</order>\n")
    };
    d.file("good.xml", b"<order xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance' xsi:noNamespaceSchemaLocation='xsd/s.xsd'><item sku='a'><qty>1</qty></item></order>")
        .file("bad.xml", hinted("xsd/s.xsd").as_bytes())
        .file("sub/up.xml", hinted("../xsd/s.xsd").as_bytes())
        .file("remote.xml", hinted("http://example.com/s.xsd").as_bytes())
        .file("missing.xml", hinted("nope.xsd").as_bytes());
    let o = run_vtdx(d.path(), &["validate", "--use-schema-location", "good.xml"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // Without the flag and without --schema: a usage error.
    let o = run_vtdx(d.path(), &["validate", "good.xml"], None);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let o = run_vtdx(d.path(), &["validate", "--use-schema-location", "bad.xml"], None);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).starts_with("bad.xml:2:"), "{}", stderr(&o));
    // A relative path may leave the instance's directory.
    let o = run_vtdx(d.path(), &["validate", "--use-schema-location", "sub/up.xml"], None);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).starts_with("sub/up.xml:2:"), "{}", stderr(&o));
    // A URL is refused, at the hint attribute; nothing is fetched.
    let o = run_vtdx(d.path(), &["validate", "--use-schema-location", "remote.xml"], None);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "remote.xml:1:62: invalid schema: schemaLocation \"http://example.com/s.xsd\" names a remote resource; nothing is fetched (expected a local path relative to the instance)\n"
    );
    let o = run_vtdx(d.path(), &["validate", "--use-schema-location", "missing.xml"], None);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot read schema document nope.xsd"), "{}", stderr(&o));
    // --schema takes precedence for the namespace it covers (no namespace here): the
    // hint to a missing file is then not read.
    let o = run_vtdx(d.path(), &["validate", "--use-schema-location", "--schema", "xsd/s.xsd", "missing.xml"], None);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
}

/// A schema document naming an include that cannot be read is skipped (XML Schema 1.0
/// §4.2.1 allows it), with a warning at the `<xs:include>`; the exit status is the
/// instance's. `-q` prints nothing.
#[test]
fn missing_include_is_a_warning() {
    let d = TempDir::new("v-warn");
    d.file(
        "s.xsd",
        b"<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\">\n  <xs:include schemaLocation=\"missing.xsd\"/>\n  <xs:element name=\"e\"/>\n</xs:schema>\n",
    )
    .file("i.xml", b"<e/>")
    .file("bad.xml", b"<f/>");
    let o = run_vtdx(d.path(), &["validate", "--schema", "s.xsd", "i.xml"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].starts_with("s.xsd:2:3: warning: "), "{err}");
    assert!(lines[0].contains("missing.xsd"), "{err}");
    let o = run_vtdx(d.path(), &["validate", "--schema", "s.xsd", "bad.xml"], None);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("s.xsd:2:3: warning: "), "{}", stderr(&o));
    let o = run_vtdx(d.path(), &["validate", "-q", "--schema", "s.xsd", "i.xml"], None);
    assert_eq!((code(&o), stderr(&o).as_str()), (0, ""));
}

/// A keyref whose `refer` resolves to nothing is a schema error (src-resolve) located at
/// the `<xs:keyref>`, like every other schema error.
#[test]
fn unresolved_keyref_refer_has_a_position() {
    let d = TempDir::new("v-keyref");
    d.file(
        "s.xsd",
        b"<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\" targetNamespace=\"urn:t\" xmlns=\"urn:t\">\n<xs:element name=\"a\"><xs:keyref name=\"r\" refer=\"nope\"><xs:selector xpath=\".\"/><xs:field xpath=\"@x\"/></xs:keyref></xs:element>\n</xs:schema>\n",
    )
    .file("i.xml", b"<a xmlns='urn:t'/>");
    let o = run_vtdx(d.path(), &["validate", "--schema", "s.xsd", "i.xml"], None);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(err.starts_with("s.xsd:2:22: invalid schema: "), "{err}");
    assert!(err.contains("{urn:t}nope"), "{err}");
}

/// Content-model errors name elements in a namespace as `{uri}local` on both sides: an
/// unqualified `<bl>` where `{urn:b}bl` is expected (elementFormDefault="qualified"), and
/// a `<bl>` in another namespace.
#[test]
fn content_errors_show_namespaces() {
    let d = TempDir::new("v-ns");
    d.file(
        "s.xsd",
        b"<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\" targetNamespace=\"urn:b\" xmlns=\"urn:b\" elementFormDefault=\"qualified\">\n  <xs:element name=\"be\"><xs:complexType><xs:sequence><xs:element name=\"bl\" type=\"xs:string\"/></xs:sequence></xs:complexType></xs:element>\n</xs:schema>\n",
    )
    .file("i.xml", b"<b:be xmlns:b=\"urn:b\"><bl>x</bl></b:be>")
    .file("i2.xml", b"<be xmlns=\"urn:b\"><bl xmlns=\"urn:other\">x</bl></be>");
    let o = run_vtdx(d.path(), &["validate", "--schema", "s.xsd", "i.xml", "i2.xml"], None);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(err.contains("i.xml:1:23: unexpected element <bl>: expected <{urn:b}bl> (cvc-complex-type.2.4)"), "{err}");
    assert!(err.contains("i2.xml:1:19: unexpected element <{urn:other}bl>: expected <{urn:b}bl> (cvc-complex-type.2.4)"), "{err}");
}
