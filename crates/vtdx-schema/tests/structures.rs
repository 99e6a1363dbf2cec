//! Schema loading, components, content models, identity constraints and error
//! reports, each case's verdict taken from XML Schema 1.0 Part 1 (the clause is
//! named in the test).

use std::path::PathBuf;

use vtdx_core::Document;
use vtdx_schema::{Schema, SchemaBuilder, SchemaErrorKind, SchemaLimits};

const XS: &str = r###"xmlns:xs="http://www.w3.org/2001/XMLSchema""###;

fn schema(body: &str) -> Schema {
    let s = format!("<xs:schema {XS}>{body}</xs:schema>");
    match Schema::from_bytes("t.xsd", s.as_bytes()) {
        Ok(s) => s,
        Err(e) => panic!("schema rejected: {e}\n{body}"),
    }
}

fn schema_err(body: &str) -> vtdx_schema::SchemaError {
    let s = format!("<xs:schema {XS}>{body}</xs:schema>");
    match Schema::from_bytes("t.xsd", s.as_bytes()) {
        Ok(_) => panic!("schema accepted but must be rejected:\n{body}"),
        Err(e) => e,
    }
}

fn errors(s: &Schema, xml: &str) -> Vec<String> {
    let doc = Document::parse(xml.as_bytes()).expect("well-formed");
    s.validate(&doc).errors().iter().map(|e| e.message.clone()).collect()
}

fn valid(s: &Schema, xml: &str) {
    let e = errors(s, xml);
    assert!(e.is_empty(), "expected valid: {xml}\n{e:#?}");
}

fn invalid(s: &Schema, xml: &str) {
    assert!(!errors(s, xml).is_empty(), "expected invalid: {xml}");
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vtdx-schema-tests-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn sequence_choice_occurrences() {
    let s = schema(
        r###"<xs:element name="r"><xs:complexType><xs:sequence>
             <xs:element name="a" minOccurs="2" maxOccurs="3"/>
             <xs:choice><xs:element name="b"/><xs:element name="c" maxOccurs="unbounded"/></xs:choice>
           </xs:sequence></xs:complexType></xs:element>"###,
    );
    valid(&s, "<r><a/><a/><b/></r>");
    valid(&s, "<r><a/><a/><a/><c/><c/><c/></r>");
    invalid(&s, "<r><a/><b/></r>");
    invalid(&s, "<r><a/><a/><a/><a/><b/></r>");
    invalid(&s, "<r><a/><a/><b/><c/></r>");
    invalid(&s, "<r><a/><a/></r>");
}

#[test]
fn large_max_occurs_is_linear() {
    let s = schema(
        r###"<xs:element name="r"><xs:complexType><xs:sequence>
             <xs:element name="a" minOccurs="0" maxOccurs="5000"/><xs:element name="b" minOccurs="0"/>
           </xs:sequence></xs:complexType></xs:element>"###,
    );
    let t = std::time::Instant::now();
    let ok = format!("<r>{}<b/></r>", "<a/>".repeat(5000));
    let bad = format!("<r>{}</r>", "<a/>".repeat(5001));
    valid(&s, &ok);
    invalid(&s, &bad);
    assert!(t.elapsed().as_secs() < 5);
    // Nested ranges whose expansion would need 10^10 positions run with counters.
    let big = format!(
        "<xs:schema {XS}><xs:element name='r'><xs:complexType><xs:sequence maxOccurs='100000'><xs:sequence maxOccurs='100000'><xs:element name='a'/></xs:sequence></xs:sequence></xs:complexType></xs:element></xs:schema>"
    );
    let s = SchemaBuilder::new().source("big.xsd", big.clone().into_bytes()).limits(SchemaLimits::default()).build().unwrap();
    valid(&s, "<r><a/><a/></r>");
    invalid(&s, "<r/>");
    // With the particle limit below the model's size it is refused, not compiled.
    let e = SchemaBuilder::new()
        .source("big.xsd", big.into_bytes())
        .limits(SchemaLimits { max_positions: 2, ..SchemaLimits::default() })
        .build()
        .unwrap_err();
    assert_eq!(e.kind, SchemaErrorKind::Limit, "{e}");
}

/// A complex type may contain elements of its own type, directly or through a referenced
/// global element whose type extends it (recursion, not a circular derivation: §3.4.6
/// ct-props-correct.3 concerns only the base type chain; W3C suite ctZ003, groupB018).
#[test]
fn recursive_types() {
    let s = schema(
        r###"<xs:element name="r" type="T"/>
           <xs:complexType name="T"><xs:sequence>
             <xs:element name="e" type="T" minOccurs="0" maxOccurs="10"/>
             <xs:element ref="g" minOccurs="0"/>
           </xs:sequence></xs:complexType>
           <xs:element name="g" type="U"/>
           <xs:complexType name="U"><xs:complexContent><xs:extension base="T">
             <xs:sequence><xs:element name="tail" type="xs:int"/></xs:sequence>
           </xs:extension></xs:complexContent></xs:complexType>"###,
    );
    valid(&s, "<r><e><e/></e><g><e/><tail>1</tail></g></r>");
    invalid(&s, "<r><g><e/></g></r>");
    invalid(&s, "<r><e><x/></e></r>");
    // A type deriving from itself is still circular.
    schema_err(
        r###"<xs:complexType name="A"><xs:complexContent><xs:extension base="B"/></xs:complexContent></xs:complexType>
           <xs:complexType name="B"><xs:complexContent><xs:extension base="A"/></xs:complexContent></xs:complexType>"###,
    );
}

/// Type Derivation OK (Simple) §3.14.6 clause 2.2.4: an `xsi:type` naming a member type of
/// the declared union type (or a type derived from one) is valid (W3C suite elemT071-073).
#[test]
fn xsi_type_union_member() {
    let s = schema(
        r###"<xs:element name="v" type="U"/>
           <xs:simpleType name="A"><xs:restriction base="xs:int"><xs:maxInclusive value="9"/></xs:restriction></xs:simpleType>
           <xs:simpleType name="A2"><xs:restriction base="A"><xs:minInclusive value="5"/></xs:restriction></xs:simpleType>
           <xs:simpleType name="B"><xs:restriction base="xs:string"><xs:maxLength value="3"/></xs:restriction></xs:simpleType>
           <xs:simpleType name="U"><xs:union memberTypes="A B"/></xs:simpleType>
           <xs:simpleType name="C"><xs:restriction base="xs:int"/></xs:simpleType>"###,
    );
    let x = r#"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance""#;
    valid(&s, &format!("<v {x} xsi:type='A'>3</v>"));
    valid(&s, &format!("<v {x} xsi:type='A2'>6</v>"));
    valid(&s, &format!("<v {x} xsi:type='B'>abc</v>"));
    invalid(&s, &format!("<v {x} xsi:type='A2'>3</v>"));
    invalid(&s, &format!("<v {x} xsi:type='C'>3</v>"));
}

/// XPath tokens may be separated by white space, also around `::` (the selector and field
/// grammar of §3.11.6 is XPath's; W3C suite idI024, idJ033).
#[test]
fn identity_xpath_axis_white_space() {
    let s = schema(
        r###"<xs:element name="r"><xs:complexType><xs:sequence>
             <xs:element name="i" maxOccurs="unbounded"><xs:complexType><xs:attribute name="k"/></xs:complexType></xs:element>
           </xs:sequence></xs:complexType>
           <xs:unique name="u"><xs:selector xpath="child ::i"/><xs:field xpath="attribute :: k"/></xs:unique>
           </xs:element>"###,
    );
    valid(&s, "<r><i k='1'/><i k='2'/></r>");
    invalid(&s, "<r><i k='1'/><i k='1'/></r>");
}

/// cvc-elt.5.1.1: an empty element takes its declaration's default or fixed value, which
/// must also be valid for the actual type named by `xsi:type` (W3C suite valueconstraint005).
#[test]
fn value_constraint_and_xsi_type() {
    let s = schema(
        r###"<xs:element name="r"><xs:complexType><xs:sequence><xs:element ref="e"/></xs:sequence></xs:complexType></xs:element>
           <xs:element name="e" type="F" fixed="1.0E-3"/>
           <xs:simpleType name="F"><xs:restriction base="xs:float"/></xs:simpleType>
           <xs:simpleType name="D2"><xs:restriction base="F"><xs:pattern value="1\.0E-2"/></xs:restriction></xs:simpleType>
           <xs:simpleType name="D3"><xs:restriction base="F"><xs:pattern value="1\.0E-3"/></xs:restriction></xs:simpleType>"###,
    );
    let x = r#"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance""#;
    valid(&s, "<r><e/></r>");
    valid(&s, &format!("<r {x}><e xsi:type='D3'/></r>"));
    invalid(&s, &format!("<r {x}><e xsi:type='D2'/></r>"));
}

#[test]
fn all_group() {
    let s = schema(
        r###"<xs:element name="r"><xs:complexType><xs:all>
             <xs:element name="a"/><xs:element name="b" minOccurs="0"/><xs:element name="c"/>
           </xs:all></xs:complexType></xs:element>"###,
    );
    valid(&s, "<r><c/><a/></r>");
    valid(&s, "<r><b/><c/><a/></r>");
    invalid(&s, "<r><a/><a/><c/></r>");
    invalid(&s, "<r><a/></r>");
    // cos-all-limited: all inside a sequence.
    schema_err(r###"<xs:complexType name="t"><xs:sequence><xs:all><xs:element name="a"/></xs:all></xs:sequence></xs:complexType>"###);
}

#[test]
fn unique_particle_attribution() {
    // cos-nonambig: a? a — the first <a> could match either particle.
    let e = schema_err(
        r###"<xs:complexType name="t"><xs:sequence><xs:element name="a" minOccurs="0"/><xs:element name="a"/></xs:sequence></xs:complexType>"###,
    );
    assert!(e.message.contains("Unique Particle Attribution"), "{e}");
    // An element and a wildcard that overlap.
    schema_err(r###"<xs:complexType name="t"><xs:choice><xs:any/><xs:element name="a"/></xs:choice></xs:complexType>"###);
    // The same particle repeated is deterministic.
    schema(
        r###"<xs:complexType name="t"><xs:sequence maxOccurs="3"><xs:element name="a" minOccurs="0"/></xs:sequence></xs:complexType>"###,
    );
}

#[test]
fn mixed_and_empty_and_simple_content() {
    let s = schema(
        r###"<xs:element name="m"><xs:complexType mixed="true"><xs:sequence><xs:element name="b"/></xs:sequence></xs:complexType></xs:element>
           <xs:element name="e"><xs:complexType/></xs:element>
           <xs:element name="p"><xs:complexType><xs:simpleContent><xs:extension base="xs:decimal">
             <xs:attribute name="cur" type="xs:string" use="required"/></xs:extension></xs:simpleContent></xs:complexType></xs:element>
           <xs:element name="eo"><xs:complexType><xs:sequence><xs:element name="b"/></xs:sequence></xs:complexType></xs:element>"###,
    );
    valid(&s, "<m>text<b/>more</m>");
    valid(&s, "<e/>");
    invalid(&s, "<e>x</e>");
    invalid(&s, "<e><b/></e>");
    valid(&s, "<p cur='EUR'>9.50</p>");
    invalid(&s, "<p cur='EUR'>nine</p>");
    invalid(&s, "<p>9.50</p>");
    valid(&s, "<eo>\n  <b/>\n</eo>");
    invalid(&s, "<eo>x<b/></eo>");
}

#[test]
fn attributes_uses_and_wildcards() {
    let s = schema(
        r###"<xs:attributeGroup name="g"><xs:attribute name="g1" type="xs:int"/><xs:anyAttribute namespace="##other" processContents="skip"/></xs:attributeGroup>
           <xs:element name="r"><xs:complexType>
             <xs:attribute name="req" use="required"/>
             <xs:attribute name="fix" fixed="1" type="xs:decimal"/>
             <xs:attribute name="def" default="x"/>
             <xs:attributeGroup ref="g"/>
           </xs:complexType></xs:element>"###,
    );
    valid(&s, "<r req='a'/>");
    valid(&s, "<r req='a' fix='1.0' g1='5' xmlns:o='urn:o' o:x='y'/>");
    invalid(&s, "<r/>");
    invalid(&s, "<r req='a' fix='2'/>");
    invalid(&s, "<r req='a' g1='x'/>");
    invalid(&s, "<r req='a' other='y'/>");
}

#[test]
fn derivation_extension_and_restriction() {
    let s = schema(
        r###"<xs:complexType name="base"><xs:sequence><xs:element name="a"/><xs:element name="b" minOccurs="0"/></xs:sequence>
             <xs:attribute name="x"/></xs:complexType>
           <xs:complexType name="ext"><xs:complexContent><xs:extension base="base"><xs:sequence><xs:element name="c"/></xs:sequence>
             <xs:attribute name="y"/></xs:extension></xs:complexContent></xs:complexType>
           <xs:complexType name="res"><xs:complexContent><xs:restriction base="base"><xs:sequence><xs:element name="a"/></xs:sequence>
             </xs:restriction></xs:complexContent></xs:complexType>
           <xs:element name="r" type="base"/>"###,
    );
    valid(&s, "<r><a/></r>");
    valid(&s, r###"<r xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="ext" y="1"><a/><c/></r>"###);
    invalid(&s, r###"<r xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="ext"><a/></r>"###);
    invalid(&s, r###"<r xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="res"><a/><b/></r>"###);
    invalid(&s, r###"<r xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="xs:string">x</r>"###);
    // derivation-ok-restriction.5: a restriction that allows more than its base.
    schema_err(
        r###"<xs:complexType name="base"><xs:sequence><xs:element name="a"/></xs:sequence></xs:complexType>
           <xs:complexType name="bad"><xs:complexContent><xs:restriction base="base"><xs:sequence><xs:element name="a" maxOccurs="2"/></xs:sequence>
           </xs:restriction></xs:complexContent></xs:complexType>"###,
    );
    // block="extension" on the element refuses xsi:type by extension (cvc-elt.4.3).
    let s = schema(
        r###"<xs:complexType name="base"><xs:sequence><xs:element name="a"/></xs:sequence></xs:complexType>
           <xs:complexType name="ext"><xs:complexContent><xs:extension base="base"><xs:sequence><xs:element name="c"/></xs:sequence></xs:extension></xs:complexContent></xs:complexType>
           <xs:element name="r" type="base" block="extension"/>"###,
    );
    invalid(&s, r###"<r xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="ext"><a/><c/></r>"###);
}

#[test]
fn nil_abstract_substitution_default_fixed() {
    let s = schema(
        r###"<xs:element name="head" type="xs:string" abstract="true"/>
           <xs:element name="m1" type="xs:string" substitutionGroup="head"/>
           <xs:element name="r"><xs:complexType><xs:sequence>
             <xs:element ref="head" maxOccurs="unbounded"/>
             <xs:element name="n" type="xs:int" nillable="true" minOccurs="0"/>
             <xs:element name="f" type="xs:int" fixed="7" minOccurs="0"/>
           </xs:sequence></xs:complexType></xs:element>"###,
    );
    valid(&s, "<r><m1>x</m1></r>");
    invalid(&s, "<r><head>x</head></r>");
    valid(&s, r###"<r xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><m1/><n xsi:nil="true"/></r>"###);
    invalid(&s, r###"<r xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><m1/><n xsi:nil="true">5</n></r>"###);
    valid(&s, "<r><m1/><f>07</f></r>");
    valid(&s, "<r><m1/><f/></r>");
    invalid(&s, "<r><m1/><f>8</f></r>");
}

#[test]
fn identity_constraints() {
    let s = schema(
        r###"<xs:element name="r"><xs:complexType><xs:sequence>
             <xs:element name="item" maxOccurs="unbounded"><xs:complexType><xs:attribute name="id" type="xs:integer"/></xs:complexType></xs:element>
             <xs:element name="ref" minOccurs="0" maxOccurs="unbounded"><xs:complexType><xs:attribute name="to" type="xs:integer"/></xs:complexType></xs:element>
           </xs:sequence></xs:complexType>
           <xs:key name="k"><xs:selector xpath="item"/><xs:field xpath="@id"/></xs:key>
           <xs:keyref name="kr" refer="k"><xs:selector xpath="ref"/><xs:field xpath="@to"/></xs:keyref>
           </xs:element>"###,
    );
    valid(&s, "<r><item id='1'/><item id='2'/><ref to='02'/></r>");
    invalid(&s, "<r><item id='1'/><item id='01'/></r>");
    invalid(&s, "<r><item id='1'/><item/></r>");
    invalid(&s, "<r><item id='1'/><ref to='3'/></r>");
    // Selector outside the subset is a schema error.
    schema_err(r###"<xs:element name="r"><xs:unique name="u"><xs:selector xpath="../a"/><xs:field xpath="."/></xs:unique></xs:element>"###);
}

#[test]
fn wildcards_process_contents() {
    let s = schema(
        r###"<xs:element name="known" type="xs:int"/>
           <xs:element name="r"><xs:complexType><xs:sequence>
             <xs:any namespace="##local" processContents="strict" minOccurs="0"/>
             <xs:any namespace="urn:x" processContents="lax" minOccurs="0"/>
             <xs:any namespace="urn:y" processContents="skip" minOccurs="0"/>
           </xs:sequence></xs:complexType></xs:element>"###,
    );
    valid(&s, "<r><known>5</known></r>");
    invalid(&s, "<r><known>x</known></r>");
    invalid(&s, "<r><unknown/></r>");
    valid(&s, "<r><x:any xmlns:x='urn:x'/></r>");
    valid(&s, "<r><y:any xmlns:y='urn:y'><anything/></y:any></r>");
    invalid(&s, "<r><z:any xmlns:z='urn:z'/></r>");
}

#[test]
fn error_positions_paths_and_expected() {
    let s = schema(
        r###"<xs:element name="po"><xs:complexType><xs:sequence>
             <xs:element name="item" maxOccurs="unbounded"><xs:complexType><xs:sequence>
               <xs:element name="quantity" type="xs:positiveInteger"/>
               <xs:element name="USPrice" type="xs:decimal"/>
               <xs:element name="shipDate" type="xs:date" minOccurs="0"/>
             </xs:sequence></xs:complexType></xs:element>
           </xs:sequence></xs:complexType></xs:element>"###,
    );
    let xml = "<po>\n<item><quantity>1</quantity><USPrice>1</USPrice></item>\n<item><quantity>1</quantity><USPrice>1</USPrice></item>\n<item><quantity>0</quantity><USPrice>1</USPrice><comment/></item>\n</po>";
    let doc = Document::parse(xml.as_bytes()).unwrap();
    let v = s.validate(&doc);
    let e = v.errors();
    assert_eq!(e.len(), 2, "{e:#?}");
    assert_eq!(e[0].path, "/po/item[3]/quantity");
    assert_eq!((e[0].location.line, e[0].location.column), (4, 17));
    assert_eq!(e[1].path, "/po/item[3]/comment");
    assert_eq!(e[1].message, "unexpected element <comment>: expected <shipDate> or the end of <item> (cvc-complex-type.2.4)");
    assert_eq!(e[1].location.offset as usize, xml.find("<comment").unwrap());
}

#[test]
fn error_cap() {
    let s = schema(
        r###"<xs:element name="r"><xs:complexType><xs:sequence><xs:element name="a" type="xs:int" maxOccurs="unbounded"/></xs:sequence></xs:complexType></xs:element>"###,
    );
    let xml = format!("<r>{}</r>", "<a>x</a>".repeat(50));
    let doc = Document::parse(xml.as_bytes()).unwrap();
    let v = s.validate_with(&doc, &vtdx_schema::ValidateOptions { max_errors: 10, ..Default::default() });
    assert_eq!(v.errors().len(), 11);
    assert!(v.truncated());
}

#[test]
fn include_import_redefine_and_remote_locations() {
    let d = tmp("multi");
    std::fs::write(
        d.join("main.xsd"),
        format!(
            r###"<xs:schema {XS} targetNamespace="urn:m" xmlns:m="urn:m" xmlns:o="urn:o" elementFormDefault="qualified">
                 <xs:include schemaLocation="inc.xsd"/>
                 <xs:import namespace="urn:o" schemaLocation="sub/other.xsd"/>
                 <xs:redefine schemaLocation="red.xsd"><xs:complexType name="rt"><xs:complexContent><xs:extension base="m:rt">
                   <xs:sequence><xs:element name="more"/></xs:sequence></xs:extension></xs:complexContent></xs:complexType></xs:redefine>
                 <xs:element name="root"><xs:complexType><xs:sequence>
                   <xs:element ref="m:fromInclude"/><xs:element ref="o:other"/><xs:element name="r" type="m:rt"/>
                 </xs:sequence></xs:complexType></xs:element>
               </xs:schema>"###
        ),
    )
    .unwrap();
    // A chameleon include: no targetNamespace, adopts urn:m.
    std::fs::write(
        d.join("inc.xsd"),
        format!(r###"<xs:schema {XS}><xs:include schemaLocation="main.xsd"/><xs:element name="fromInclude" type="xs:int"/></xs:schema>"###),
    )
    .unwrap();
    std::fs::create_dir_all(d.join("sub")).unwrap();
    std::fs::write(
        d.join("sub/other.xsd"),
        format!(r###"<xs:schema {XS} targetNamespace="urn:o"><xs:element name="other" type="xs:string"/></xs:schema>"###),
    )
    .unwrap();
    std::fs::write(
        d.join("red.xsd"),
        format!(r###"<xs:schema {XS} elementFormDefault="qualified"><xs:complexType name="rt"><xs:sequence><xs:element name="x"/></xs:sequence></xs:complexType></xs:schema>"###),
    )
    .unwrap();
    let s = Schema::from_file(d.join("main.xsd")).unwrap_or_else(|e| panic!("{e}"));
    valid(
        &s,
        r###"<m:root xmlns:m="urn:m" xmlns:o="urn:o"><m:fromInclude>5</m:fromInclude><o:other/><m:r><m:x/><m:more/></m:r></m:root>"###,
    );
    invalid(&s, r###"<m:root xmlns:m="urn:m" xmlns:o="urn:o"><m:fromInclude>5</m:fromInclude><o:other/><m:r><m:x/></m:r></m:root>"###);
    // http: is refused with its position.
    std::fs::write(
        d.join("remote.xsd"),
        format!("<xs:schema {XS}>\n  <xs:include schemaLocation=\"http://example.com/x.xsd\"/></xs:schema>"),
    )
    .unwrap();
    let e = Schema::from_file(d.join("remote.xsd")).unwrap_err();
    assert_eq!(e.kind, SchemaErrorKind::RemoteLocation);
    assert_eq!((e.location.line, e.location.column), (2, 3));
    assert!(e.location.file.ends_with("remote.xsd"));
}

#[test]
fn bad_schemas_have_positions() {
    let e = schema_err("\n<xs:element name='a' type='nope'/>");
    assert_eq!(e.kind, SchemaErrorKind::Unresolved);
    assert_eq!(e.location.line, 2);
    let e = schema_err("<xs:element name='a'/><xs:element name='a'/>");
    assert_eq!(e.kind, SchemaErrorKind::Duplicate);
    let e = schema_err("<xs:complexType name='a'><xs:complexContent><xs:extension base='a'/></xs:complexContent></xs:complexType>");
    assert_eq!(e.kind, SchemaErrorKind::Constraint, "{e}");
    let e = schema_err("<xs:group name='g'><xs:sequence><xs:group ref='g'/></xs:sequence></xs:group>");
    assert_eq!(e.kind, SchemaErrorKind::Constraint, "{e}");
    let e = schema_err("<xs:element name='a' bogus='1'/>");
    assert_eq!(e.kind, SchemaErrorKind::Structure);
    let e = Schema::from_bytes("x.xsd", b"<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'><xs:element").unwrap_err();
    assert_eq!(e.kind, SchemaErrorKind::NotWellFormed);
}

#[test]
fn typed_values_and_threads() {
    let s = std::sync::Arc::new(schema(
        r###"<xs:element name="r"><xs:complexType><xs:sequence><xs:element name="d" type="xs:date"/></xs:sequence>
           <xs:attribute name="n" type="xs:integer"/></xs:complexType></xs:element>"###,
    ));
    let hs: Vec<_> = (0..4)
        .map(|i| {
            let s = s.clone();
            std::thread::spawn(move || {
                let xml = format!("<r n='+0{i}'><d>2026-11-0{}</d></r>", i + 1);
                let doc = Document::parse(xml.as_bytes()).unwrap();
                let v = s.validate(&doc);
                assert!(v.is_valid());
                let r = doc.root_element();
                let n = r.attribute_node("n").unwrap();
                assert_eq!(v.typed_value(n).unwrap().as_i128(), Some(i as i128));
                assert!(v.typed_value(r.first_element_child().unwrap()).unwrap().as_date_time().is_some());
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
}
