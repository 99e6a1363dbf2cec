//! Small schema/instance pairs, each judged in the test by an independent validator:
//! Python `xmlschema` or `xmllint --schema` (libxml2), whichever follows XSD 1.0 on the
//! case (the clause is named beside it; each validator's known gaps are noted where the
//! other one is used). The verdict of vtdx must equal the oracle's.
//!
//! Needs a python with xmlschema (`VTDX_PYTHON`, `target/py/bin/python` or `python3`) and
//! `xmllint`; without one the cases it judges print a note and pass unless
//! `VTDX_REQUIRE_XMLSCHEMA=1`.

use std::path::Path;
use std::process::Command;

use vtdx_core::Document;
use vtdx_schema::SchemaBuilder;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Oracle {
    XmlSchema,
}

struct Case {
    name: &'static str,
    oracle: Oracle,
    schema: &'static str,
    instances: &'static [&'static str],
}

const CASES: &[Case] = &[
    // cvc-id.1 (§3.15.5 Validation Root Valid (ID/IDREF)): every IDREF, in an attribute as in
    // element content, through restrictions, lists and union members, must match an ID.
    // xmllint does not check IDREFs against the schema's types, so xmlschema judges.
    Case {
        name: "idref-attributes",
        oracle: Oracle::XmlSchema,
        schema: r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:simpleType name="R"><xs:restriction base="xs:IDREF"><xs:maxLength value="9"/></xs:restriction></xs:simpleType>
  <xs:simpleType name="L"><xs:list itemType="xs:IDREF"/></xs:simpleType>
  <xs:simpleType name="U"><xs:union memberTypes="xs:integer xs:IDREF"/></xs:simpleType>
  <xs:simpleType name="UR"><xs:restriction base="U"><xs:pattern value="[a-z0-9]{1,9}"/></xs:restriction></xs:simpleType>
  <xs:element name="r">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="i" minOccurs="0" maxOccurs="unbounded">
          <xs:complexType><xs:attribute name="id" type="xs:ID"/></xs:complexType>
        </xs:element>
        <xs:element name="ref" type="xs:IDREF" minOccurs="0" maxOccurs="unbounded"/>
        <xs:element name="uref" type="U" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence>
      <xs:attribute name="a" type="xs:IDREF"/>
      <xs:attribute name="as" type="xs:IDREFS"/>
      <xs:attribute name="ar" type="R"/>
      <xs:attribute name="al" type="L"/>
      <xs:attribute name="au" type="U"/>
      <xs:attribute name="aur" type="UR"/>
    </xs:complexType>
  </xs:element>
</xs:schema>"#,
        instances: &[
            r#"<r a="x" as="x y" ar="y" al="y x" au="x" aur="7"><i id="x"/><i id="y"/><ref>x</ref><uref>12</uref><uref>y</uref></r>"#,
            r#"<r a="nope"><i id="x"/></r>"#,
            r#"<r as="x nope"><i id="x"/></r>"#,
            r#"<r ar="nope"><i id="x"/></r>"#,
            r#"<r al="x nope"><i id="x"/></r>"#,
            r#"<r au="nope"><i id="x"/></r>"#,
            r#"<r au="12"><i id="x"/></r>"#,
            r#"<r aur="nope"><i id="x"/></r>"#,
            r#"<r><i id="x"/><ref>nope</ref></r>"#,
            r#"<r><i id="x"/><uref>nope</uref></r>"#,
            r#"<r><i id="x"/><i id="x"/></r>"#,
        ],
    },
    // cvc-complex-type.2.1: empty content forbids character information items; an empty
    // CDATA section contributes none (Infoset §2.6). xmllint rejects the first two, so
    // xmlschema judges.
    Case {
        name: "empty-cdata",
        oracle: Oracle::XmlSchema,
        schema: r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="e"><xs:complexType/></xs:element>
</xs:schema>"#,
        instances: &[
            "<e><![CDATA[]]></e>",
            "<e><![CDATA[]]><!--x--><![CDATA[]]></e>",
            "<e><!--x--></e>",
            "<e><![CDATA[ ]]></e>",
            "<e><![CDATA[]]>x</e>",
            "<e><![CDATA[]]><e/></e>",
        ],
    },
];

const XMLSCHEMA_ORACLE: &str = r#"
import sys, xmlschema
s = xmlschema.XMLSchema10(sys.argv[1])
print(''.join('1' if s.is_valid(p) else '0' for p in sys.argv[2:]))
"#;

fn oracle_verdicts(oracle: Oracle, dir: &Path, n: usize) -> Option<String> {
    let xsd = dir.join("s.xsd");
    let docs: Vec<_> = (0..n).map(|i| dir.join(format!("{i}.xml"))).collect();
    match oracle {
        Oracle::XmlSchema => {
            let py = crate::datatypes::xmlschema_python("oracle_cases (xmlschema)")?;
            let out = Command::new(py).args(["-c", XMLSCHEMA_ORACLE]).arg(&xsd).args(&docs).output().expect("python runs");
            assert!(out.status.success(), "xmlschema failed: {}", String::from_utf8_lossy(&out.stderr));
            Some(String::from_utf8(out.stdout).unwrap().trim().to_string())
        }
    }
}

fn run(name: &str) {
    let case = CASES.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no case {name}"));
    let dir = std::env::temp_dir().join(format!("vtdx-oracle-{}-{}", case.name, std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("s.xsd"), case.schema).unwrap();
    for (i, d) in case.instances.iter().enumerate() {
        std::fs::write(dir.join(format!("{i}.xml")), d).unwrap();
    }
    let want = oracle_verdicts(case.oracle, &dir, case.instances.len());
    let _ = std::fs::remove_dir_all(&dir);
    let Some(want) = want else { return };
    assert_eq!(want.len(), case.instances.len(), "{}: oracle gave {want:?}", case.name);
    let s = SchemaBuilder::new().source("s.xsd", case.schema.as_bytes().to_vec()).build().unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let got: String = case
        .instances
        .iter()
        .map(|d| if s.validate(&Document::parse(d.as_bytes()).expect("well-formed")).is_valid() { '1' } else { '0' })
        .collect();
    assert_eq!(got, want, "{}: vtdx {got}, {:?} {want} (instance i is character i)", case.name, case.oracle);
}

#[test]
fn idref_attributes() {
    run("idref-attributes");
}

#[test]
fn empty_cdata() {
    run("empty-cdata");
}
