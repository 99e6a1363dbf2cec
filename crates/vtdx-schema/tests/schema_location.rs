//! Opt-in schema location hints (XML Schema 1.0 §4.3.2: `xsi:schemaLocation` and
//! `xsi:noNamespaceSchemaLocation`): local paths relative to the instance only,
//! never a URL; the caller's schemas take precedence for the namespaces they cover.

use std::path::{Path, PathBuf};

use vtdx_core::Document;
use vtdx_schema::{HintScope, Schema, SchemaBuilder, SchemaErrorKind};

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let p = std::env::temp_dir().join(format!("vtdx-hints-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(p.join("inst")).unwrap();
        std::fs::create_dir_all(p.join("xsd")).unwrap();
        Dir(p)
    }
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const A: &str = r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:a" xmlns:a="urn:a" elementFormDefault="qualified">
  <xs:element name="root"><xs:complexType><xs:sequence>
    <xs:element name="n" type="xs:int"/>
    <xs:any namespace="urn:b" processContents="strict"/>
  </xs:sequence></xs:complexType></xs:element>
</xs:schema>"#;
const B: &str = r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:b">
  <xs:element name="x" type="xs:boolean"/>
</xs:schema>"#;

fn instance(hints: &str, n: &str, x: &str) -> String {
    format!(
        "<a:root xmlns:a='urn:a' xmlns:b='urn:b' xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance'\n  xsi:schemaLocation='{hints}'>\n<a:n>{n}</a:n><b:x>{x}</b:x></a:root>"
    )
}

fn verdict(schema: &Schema, path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap();
    let doc = Document::parse(&bytes).unwrap();
    schema.validate(&doc).errors().iter().map(|e| format!("{}:{}: {}", e.location.line, e.location.column, e.message)).collect()
}

#[test]
fn two_namespaces_from_hints() {
    let d = Dir::new("two");
    d.write("xsd/a.xsd", A);
    d.write("xsd/b.xsd", B);
    // `../` leaves the instance's directory: a relative path, allowed like an include's.
    let good = d.write("inst/good.xml", &instance("urn:a ../xsd/a.xsd  urn:b ../xsd/b.xsd", "1", "true"));
    let s = Schema::from_instance_hints(&good).unwrap();
    assert_eq!(verdict(&s, &good), Vec::<String>::new());
    let bad = d.write("inst/bad.xml", &instance("urn:a ../xsd/a.xsd urn:b ../xsd/b.xsd", "1", "maybe"));
    let s = Schema::from_instance_hints(&bad).unwrap();
    let errs = verdict(&s, &bad);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].starts_with("3:18: ") && errs[0].contains("boolean"), "{errs:?}");
    // Without the hint for urn:b the strict wildcard finds no declaration.
    let half = d.write("inst/half.xml", &instance("urn:a ../xsd/a.xsd", "1", "true"));
    let s = Schema::from_instance_hints(&half).unwrap();
    let errs = verdict(&s, &half);
    assert!(errs.len() == 1 && errs[0].contains("no global declaration"), "{errs:?}");
    // A caller-given base instead of the instance's directory.
    let bytes = std::fs::read(&good).unwrap();
    let doc = Document::parse(&bytes).unwrap();
    let s = SchemaBuilder::new()
        .schema_location_hints(&doc, "good.xml", d.0.join("inst"), HintScope::DocumentElement)
        .unwrap()
        .build()
        .unwrap();
    assert!(s.has_element(Some("urn:b"), "x"));
}

#[test]
fn urls_are_refused_with_the_hint_position() {
    let d = Dir::new("url");
    for url in ["http://example.com/a.xsd", "https://example.com/a.xsd", "ftp://example.com/a.xsd"] {
        let p = d.write("inst/r.xml", &instance(&format!("urn:a {url}"), "1", "true"));
        let e = Schema::from_instance_hints(&p).unwrap_err();
        assert_eq!(e.kind, SchemaErrorKind::RemoteLocation, "{e}");
        assert!(e.message.contains(url) && e.message.contains("nothing is fetched"), "{e}");
        assert_eq!((e.location.line, e.location.column), (2, 3), "{e}");
        assert!(e.location.file.ends_with("r.xml"), "{e}");
    }
    // Odd token count: not namespace/location pairs.
    let p = d.write("inst/odd.xml", &instance("urn:a", "1", "true"));
    let e = Schema::from_instance_hints(&p).unwrap_err();
    assert_eq!(e.kind, SchemaErrorKind::Structure, "{e}");
    assert!(e.message.contains("namespace and location pairs"), "{e}");
    // A hint to a missing file, or to a document of another namespace.
    let p = d.write("inst/missing.xml", &instance("urn:a nope.xsd", "1", "true"));
    assert_eq!(Schema::from_instance_hints(&p).unwrap_err().kind, SchemaErrorKind::Io);
    d.write("xsd/b.xsd", B);
    let p = d.write("inst/wrong.xml", &instance("urn:a ../xsd/b.xsd", "1", "true"));
    let e = Schema::from_instance_hints(&p).unwrap_err();
    assert!(e.message.contains("the schema location hint names it for \"urn:a\""), "{e}");
}

#[test]
fn caller_schemas_take_precedence() {
    let d = Dir::new("prec");
    let a = d.write("xsd/a.xsd", A);
    d.write("xsd/b.xsd", B);
    // A stricter urn:b given by the caller: the hint's b.xsd is not used.
    let b2 = d.write("xsd/b2.xsd", &B.replace("xs:boolean", "xs:int"));
    let p = d.write("inst/i.xml", &instance("urn:a ../xsd/missing-a.xsd urn:b ../xsd/b.xsd", "1", "true"));
    let bytes = std::fs::read(&p).unwrap();
    let doc = Document::parse(&bytes).unwrap();
    let s = SchemaBuilder::new()
        .file(&a)
        .file(&b2)
        .schema_location_hints(&doc, "i.xml", d.0.join("inst"), HintScope::DocumentElement)
        .unwrap()
        .build()
        .unwrap();
    let errs = verdict(&s, &p);
    assert!(errs.len() == 1 && errs[0].contains("int"), "{errs:?}");
}

#[test]
fn hints_on_descendants_only_with_all_elements() {
    let d = Dir::new("desc");
    d.write("xsd/a.xsd", A);
    d.write("xsd/b.xsd", B);
    let p = d.write(
        "inst/i.xml",
        "<a:root xmlns:a='urn:a' xmlns:b='urn:b' xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance' xsi:schemaLocation='urn:a ../xsd/a.xsd'>\
         <a:n>1</a:n><b:x xsi:schemaLocation='urn:b ../xsd/b.xsd'>true</b:x></a:root>",
    );
    let bytes = std::fs::read(&p).unwrap();
    let doc = Document::parse(&bytes).unwrap();
    let base = d.0.join("inst");
    let top = SchemaBuilder::new().schema_location_hints(&doc, "i.xml", &base, HintScope::DocumentElement).unwrap().build().unwrap();
    assert!(!top.has_element(Some("urn:b"), "x"));
    let all = SchemaBuilder::new().schema_location_hints(&doc, "i.xml", &base, HintScope::AllElements).unwrap().build().unwrap();
    assert!(all.has_element(Some("urn:b"), "x"));
    assert_eq!(verdict(&all, &p), Vec::<String>::new());
}

/// XSD 1.0 §4.3.2: a hint for a namespace must come before the first element or attribute in
/// that namespace (the W3C suite's addB156-addB164 cases are invalid in 1.0 for this). A hint
/// on the element that first uses the namespace is in time.
#[test]
fn hint_after_first_use_of_its_namespace() {
    let d = Dir::new("late");
    d.write("xsd/a.xsd", A);
    d.write("xsd/b.xsd", B);
    let base = d.0.join("inst");
    let hints = |text: &str| {
        let doc = Document::parse(text.as_bytes()).unwrap();
        SchemaBuilder::new().schema_location_hints(&doc, "i.xml", &base, HintScope::AllElements).map(|_| ())
    };
    // urn:b first used by <b:x>, whose own hint names it: in time.
    let ok = "<a:root xmlns:a='urn:a' xmlns:b='urn:b' xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance' xsi:schemaLocation='urn:a ../xsd/a.xsd'><a:n>1</a:n><b:x xsi:schemaLocation='urn:b ../xsd/b.xsd'>true</b:x></a:root>";
    assert!(hints(ok).is_ok());
    // the same document named again for urn:a on a child: harmless (suite case addB163).
    let again = "<a:root xmlns:a='urn:a' xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance' xsi:schemaLocation='urn:a ../xsd/a.xsd'><a:n xsi:schemaLocation='urn:a ../xsd/a.xsd'>1</a:n></a:root>";
    assert!(hints(again).is_ok());
    // another document for urn:a on a child of the urn:a root: too late.
    d.write("xsd/a2.xsd", A);
    let late = "<a:root xmlns:a='urn:a' xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance' xsi:schemaLocation='urn:a ../xsd/a.xsd'><a:n xsi:schemaLocation='urn:a ../xsd/a2.xsd'>1</a:n></a:root>";
    let e = hints(late).unwrap_err();
    assert_eq!(e.kind, SchemaErrorKind::Constraint, "{e}");
    assert!(e.message.contains("namespace urn:a"), "{e}");
    // a hint for urn:b after a urn:b attribute was met: too late.
    let late_attr = "<a:root xmlns:a='urn:a' xmlns:b='urn:b' b:flag='1' xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance'><a:n xsi:schemaLocation='urn:b ../xsd/b.xsd'>1</a:n></a:root>";
    assert_eq!(hints(late_attr).unwrap_err().kind, SchemaErrorKind::Constraint);
    // with hints read from the document element only, later hints are not looked at.
    let doc = Document::parse(late.as_bytes()).unwrap();
    assert!(SchemaBuilder::new().schema_location_hints(&doc, "i.xml", &base, HintScope::DocumentElement).is_ok());
}
