//! Schema documents checked against the schema for schemas and the XML
//! representation constraints of XML Schema 1.0 Part 1 (second edition): each
//! case cites the clause or the Appendix A declaration that decides it, and each
//! rule has a conforming twin that must still load.

use vtdx_schema::{Schema, SchemaError, SchemaErrorKind};

const XS: &str = r###"xmlns:xs="http://www.w3.org/2001/XMLSchema""###;

fn doc(body: &str) -> String {
    format!("<xs:schema {XS}>\n{body}\n</xs:schema>")
}

fn ok(body: &str) {
    if let Err(e) = Schema::from_bytes("t.xsd", doc(body).as_bytes()) {
        panic!("schema rejected: {e}\n{body}");
    }
}

/// The schema must be rejected with a `Structure` error whose message contains `needle`,
/// at line `line` of the body (1-based; the body starts on line 2 of the document).
fn bad(body: &str, needle: &str, line: u32) -> SchemaError {
    match Schema::from_bytes("t.xsd", doc(body).as_bytes()) {
        Ok(_) => panic!("schema accepted but must be rejected:\n{body}"),
        Err(e) => {
            assert_eq!(e.kind, SchemaErrorKind::Structure, "{e}");
            assert!(e.message.contains(needle), "expected {needle:?} in: {e}");
            assert_eq!(e.location.line, line + 1, "{e}");
            assert_eq!(e.location.file, "t.xsd");
            e
        }
    }
}

#[test]
fn content_models_of_schema_elements() {
    // §3.12.2: <notation> contains (annotation?) only.
    let e = bad(
        r###"<xs:notation name="n" public="p">
  <xs:all/>
</xs:notation>"###,
        "<xs:all> is not allowed here in <xs:notation>: its content must be (annotation?)",
        2,
    );
    assert_eq!(e.location.column, 3);
    ok(r###"<xs:notation name="n" public="p"><xs:annotation/></xs:notation>"###);
    // §3.13.2: annotation contains (appinfo | documentation)*, not another annotation.
    bad("<xs:annotation><xs:annotation/></xs:annotation>", "<xs:annotation> is not allowed here in <xs:annotation>", 1);
    // §3.4.2: a complex type's annotation comes first, at most once.
    bad(
        r###"<xs:complexType name="t"><xs:annotation/><xs:annotation/></xs:complexType>"###,
        "<xs:annotation> is not allowed here in <xs:complexType>",
        1,
    );
    bad(
        r###"<xs:complexType name="t"><xs:simpleContent><xs:extension base="xs:string"/></xs:simpleContent><xs:annotation/></xs:complexType>"###,
        "<xs:annotation> is not allowed here in <xs:complexType>",
        1,
    );
    ok(
        r###"<xs:complexType name="t"><xs:annotation/><xs:simpleContent><xs:extension base="xs:string"/></xs:simpleContent></xs:complexType>"###,
    );
    // §3.8.2: sequence is (annotation?, (element | group | choice | sequence | any)*).
    bad(
        r###"<xs:complexType name="t"><xs:sequence><xs:element name="a"/><xs:annotation/></xs:sequence></xs:complexType>"###,
        "<xs:annotation> is not allowed here in <xs:sequence>",
        1,
    );
    // §3.11.2: unique is (annotation?, (selector, field+)).
    bad(
        r###"<xs:element name="r"><xs:unique name="u"><xs:selector xpath="a"/></xs:unique></xs:element>"###,
        "<xs:unique> is incomplete: its content must be (annotation?, selector, field+)",
        1,
    );
    // §3.11.2: selector is (annotation?).
    bad(
        r###"<xs:element name="r"><xs:key name="k"><xs:selector xpath="a"><xs:selector xpath="a"/></xs:selector><xs:field xpath="@b"/></xs:key></xs:element>"###,
        "<xs:selector> is not allowed here in <xs:selector>",
        1,
    );
    // §3.14.2: simpleType's annotation precedes its restriction, list or union.
    bad(r###"<xs:simpleType name="s"><xs:list itemType="xs:int"/><xs:annotation/></xs:simpleType>"###, "in <xs:simpleType>", 1);
    // §3.4.2: a complexContent derivation has its annotation first.
    bad(
        r###"<xs:complexType name="b"/><xs:complexType name="t"><xs:complexContent><xs:extension base="b"><xs:sequence/><xs:annotation/></xs:extension></xs:complexContent></xs:complexType>"###,
        "in <xs:extension>",
        1,
    );
    // Appendix A: the schema element's prolog (include, import, redefine, annotation) comes first.
    ok(r###"<xs:annotation/><xs:element name="a"/><xs:annotation/><xs:annotation/>"###);
}

#[test]
fn element_only_content_and_foreign_elements() {
    // Appendix A: schema elements have element-only content; foreign elements only in appinfo
    // and documentation.
    bad(
        r###"<xs:notation name="n" public="p">some text</xs:notation>"###,
        "character data \"some text\" is not allowed in <xs:notation>",
        1,
    );
    bad(r###"<xs:notation name="n" public="p"><a/></xs:notation>"###, "element <a> is not allowed in <xs:notation>", 1);
    bad(r###"<xs:element name="e"><xs:bogus/></xs:element>"###, "<xs:bogus> is not an element of the XML Schema language", 1);
    ok(r###"<xs:annotation><xs:appinfo><a>text <b/></a></xs:appinfo><xs:documentation>free text</xs:documentation></xs:annotation>"###);
    ok("<!-- comments --><?pi and processing instructions?><xs:element name=\"e\"/>");
}

#[test]
fn attributes_allowed_required_and_typed() {
    // §3.3.2: a top-level element has no minOccurs (topLevelElement prohibits it) and needs a name.
    bad(r###"<xs:element name="e" minOccurs="0"/>"###, "attribute `minOccurs` is not allowed on a top-level <xs:element>", 1);
    bad(r###"<xs:element type="xs:int"/>"###, "a top-level <xs:element> needs a `name` attribute", 1);
    // localElement prohibits abstract, final and substitutionGroup.
    bad(
        r###"<xs:complexType name="t"><xs:sequence><xs:element name="a" abstract="true"/></xs:sequence></xs:complexType>"###,
        "attribute `abstract` is not allowed on a local <xs:element>",
        1,
    );
    // Lexical types: boolean, nonNegativeInteger, the enumerations.
    bad(r###"<xs:element name="e" nillable="yes"/>"###, "attribute `nillable` of <xs:element> must be a boolean", 1);
    bad(
        r###"<xs:complexType name="t"><xs:sequence minOccurs="-1"/></xs:complexType>"###,
        "attribute `minOccurs` of <xs:sequence> must be a non-negative integer",
        1,
    );
    bad(
        r###"<xs:complexType name="t"><xs:sequence maxOccurs="many"/></xs:complexType>"###,
        "must be a non-negative integer or `unbounded`",
        1,
    );
    bad(
        r###"<xs:complexType name="t"><xs:attribute name="a" use="sometimes"/></xs:complexType>"###,
        "one of prohibited, optional, required",
        1,
    );
    // derivationSet: #all or a list of extension/restriction; #all may not be combined.
    bad(r###"<xs:complexType name="t" final="#all extension"/>"###, "#all or a list of extension, restriction", 1);
    bad(r###"<xs:complexType name="t" block="list"/>"###, "#all or a list of extension, restriction", 1);
    ok(
        r###"<xs:complexType name="t" final="extension restriction" block="#all"/><xs:simpleType name="s" final="list union"><xs:restriction base="xs:int"/></xs:simpleType>"###,
    );
    // NCName and QName (with a declared prefix).
    bad(
        r###"<xs:simpleType name="a:b"><xs:restriction base="xs:int"/></xs:simpleType>"###,
        "attribute `name` of <xs:simpleType> must be an NCName",
        1,
    );
    bad(r###"<xs:element name="e" type="q:int"/>"###, "the prefix \"q\" of \"q:int\" is not declared", 1);
    // namespaceList: ##any, ##other, or a list of URIs, ##targetNamespace and ##local.
    bad(
        r###"<xs:complexType name="t"><xs:anyAttribute namespace="##anyAttribute"/></xs:complexType>"###,
        "attribute `namespace` of <xs:anyAttribute> must be ##any, ##other",
        1,
    );
    bad(r###"<xs:complexType name="t"><xs:anyAttribute namespace="##any ##local"/></xs:complexType>"###, "must be ##any, ##other", 1);
    ok(r###"<xs:complexType name="t"><xs:anyAttribute namespace="##local ##targetNamespace urn:x"/></xs:complexType>"###);
    // openAttrs: foreign attributes are fine, attributes in the XML Schema namespace are not.
    ok(r###"<xs:element xmlns:f="urn:f" f:note="x" name="e"/>"###);
    bad(r###"<xs:element name="e" xs:type="xs:int"/>"###, "attribute xs:type in the XML Schema namespace is not allowed", 1);
    // documentation's xml:lang is an xs:language.
    bad(r###"<xs:annotation><xs:documentation xml:lang=""/></xs:annotation>"###, "xml:lang must be a language tag", 1);
    ok(r###"<xs:annotation><xs:documentation xml:lang="en-GB"/></xs:annotation>"###);
    // whiteSpace's value is preserve, replace or collapse.
    bad(
        r###"<xs:simpleType name="s"><xs:restriction base="xs:string"><xs:whiteSpace value="trim"/></xs:restriction></xs:simpleType>"###,
        "one of preserve, replace, collapse",
        1,
    );
}

#[test]
fn ids_are_unique_within_a_document() {
    // Appendix A: `id` is of type ID, so its values are unique within the schema document.
    let e = bad(
        r###"<xs:attribute id="x1" name="a"/>
<xs:simpleType name="s"><xs:list id="x1" itemType="xs:string"/></xs:simpleType>"###,
        "duplicate id \"x1\" (first used at t.xsd:2:15)",
        2,
    );
    assert_eq!(e.location.column, 34);
    bad(r###"<xs:annotation id=""/>"###, "attribute `id` of <xs:annotation> must be an NCName", 1);
    ok(r###"<xs:attribute id="x1" name="a"/><xs:attribute id="x2" name="b"/>"###);
}

#[test]
fn element_representation_constraints() {
    // src-element.1: not both default and fixed.
    bad(r###"<xs:element name="e" default="a" fixed="a"/>"###, "(src-element.1)", 1);
    // src-element.2.1: a local element has exactly one of name and ref.
    bad(r###"<xs:complexType name="t"><xs:sequence><xs:element minOccurs="0"/></xs:sequence></xs:complexType>"###, "(src-element.2.1)", 1);
    // src-element.2.2: a reference has none of type, nillable, default, fixed, form, block, and no anonymous type.
    bad(
        r###"<xs:element name="g"/><xs:complexType name="t"><xs:sequence><xs:element ref="g" nillable="true"/></xs:sequence></xs:complexType>"###,
        "an element reference may not have a `nillable` attribute (src-element.2.2)",
        1,
    );
    bad(
        r###"<xs:element name="g"/><xs:complexType name="t"><xs:sequence><xs:element ref="g"><xs:complexType/></xs:element></xs:sequence></xs:complexType>"###,
        "(src-element.2.2)",
        1,
    );
    // src-element.3: not both a type attribute and an anonymous type.
    bad(
        r###"<xs:element name="e" type="xs:int"><xs:simpleType><xs:restriction base="xs:int"/></xs:simpleType></xs:element>"###,
        "(src-element.3)",
        1,
    );
    ok(
        r###"<xs:element name="g"/><xs:complexType name="t"><xs:sequence><xs:element ref="g" minOccurs="0"/></xs:sequence></xs:complexType>"###,
    );
}

#[test]
fn attribute_representation_constraints() {
    bad(r###"<xs:attribute name="a" default="1" fixed="1"/>"###, "(src-attribute.1)", 1);
    bad(r###"<xs:complexType name="t"><xs:attribute name="a" default="1" use="required"/></xs:complexType>"###, "(src-attribute.2)", 1);
    bad(r###"<xs:complexType name="t"><xs:attribute name="a" ref="b"/></xs:complexType>"###, "(src-attribute.3.1)", 1);
    bad(
        r###"<xs:attribute name="b"/><xs:complexType name="t"><xs:attribute ref="b" type="xs:int"/></xs:complexType>"###,
        "(src-attribute.3.2)",
        1,
    );
    bad(
        r###"<xs:attribute name="a" type="xs:int"><xs:simpleType><xs:restriction base="xs:int"/></xs:simpleType></xs:attribute>"###,
        "(src-attribute.4)",
        1,
    );
    bad(r###"<xs:attribute name="xmlns"/>"###, "(no-xmlns)", 1);
    ok(r###"<xs:complexType name="t"><xs:attribute name="a" default="1" use="optional"/></xs:complexType>"###);
}

#[test]
fn simple_type_representation_constraints() {
    bad(
        r###"<xs:simpleType name="s"><xs:restriction base="xs:int"><xs:simpleType><xs:restriction base="xs:int"/></xs:simpleType></xs:restriction></xs:simpleType>"###,
        "(src-simple-type.2)",
        1,
    );
    bad(r###"<xs:simpleType name="s"><xs:restriction/></xs:simpleType>"###, "(src-simple-type.2)", 1);
    bad(r###"<xs:simpleType name="s"><xs:list/></xs:simpleType>"###, "(src-simple-type.3)", 1);
    bad(r###"<xs:simpleType name="s"><xs:union memberTypes=" "/></xs:simpleType>"###, "(src-simple-type.4)", 1);
    ok(
        r###"<xs:simpleType name="s"><xs:union><xs:simpleType><xs:restriction base="xs:int"/></xs:simpleType></xs:union></xs:simpleType>"###,
    );
}

#[test]
fn all_groups_and_named_groups() {
    // cos-all-limited.1.2 / Appendix A narrowMaxMin: elements in `all` have maxOccurs 0 or 1,
    // `all` itself maxOccurs 1.
    bad(
        r###"<xs:complexType name="t"><xs:all><xs:element name="a" maxOccurs="2"/></xs:all></xs:complexType>"###,
        "must be 0 or 1 inside <xs:all> (cos-all-limited.1.2)",
        1,
    );
    bad(r###"<xs:complexType name="t"><xs:all maxOccurs="2"/></xs:complexType>"###, "must be 1 on <xs:all>", 1);
    ok(
        r###"<xs:complexType name="t"><xs:all minOccurs="0"><xs:element name="a" minOccurs="0" maxOccurs="1"/></xs:all></xs:complexType>"###,
    );
    // §3.7.2: the model group of a named group has no occurrence attributes.
    bad(
        r###"<xs:group name="g"><xs:sequence maxOccurs="2"/></xs:group>"###,
        "attribute `maxOccurs` is not allowed on the model group of a named group: <xs:sequence>",
        1,
    );
    // A group reference needs `ref` and contains at most an annotation.
    bad(
        r###"<xs:group name="g"><xs:sequence/></xs:group><xs:complexType name="t"><xs:group name="h"/></xs:complexType>"###,
        "attribute `name` is not allowed on a reference <xs:group>",
        1,
    );
}

#[test]
fn imports() {
    // src-import.1.1: a document does not import its own target namespace.
    let s =
        r###"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:a"><xs:import namespace="urn:a"/></xs:schema>"###;
    let Err(e) = Schema::from_bytes("t.xsd", s.as_bytes()) else { panic!("accepted") };
    assert!(e.message.contains("(src-import.1.1)"), "{e}");
    // src-import.1.2: a document without a target namespace must name the one it imports.
    let s = r###"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:import/></xs:schema>"###;
    let Err(e) = Schema::from_bytes("t.xsd", s.as_bytes()) else { panic!("accepted") };
    assert!(e.message.contains("(src-import.1.2)"), "{e}");
}

#[test]
fn redefine_self_references() {
    let dir = std::env::temp_dir().join(format!("vtdx-sfs-redefine-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("base.xsd"),
        format!(
            r#"<xs:schema {XS}><xs:group name="g"><xs:sequence><xs:element name="a"/></xs:sequence></xs:group>
<xs:attributeGroup name="ag"><xs:attribute name="x"/></xs:attributeGroup></xs:schema>"#
        ),
    )
    .unwrap();
    let load = |body: &str| {
        let p = dir.join("main.xsd");
        std::fs::write(&p, doc(&format!(r#"<xs:redefine schemaLocation="base.xsd">{body}</xs:redefine>"#))).unwrap();
        Schema::from_file(&p)
    };
    // src-redefine.6.1.2: the one self-reference has minOccurs = maxOccurs = 1.
    let Err(e) =
        load(r#"<xs:group name="g"><xs:sequence><xs:group ref="g" minOccurs="0"/><xs:element name="b"/></xs:sequence></xs:group>"#)
    else {
        panic!("accepted")
    };
    assert!(e.message.contains("(src-redefine.6.1.2)"), "{e}");
    // src-redefine.6.1.1: exactly one self-reference.
    let Err(e) = load(r#"<xs:group name="g"><xs:sequence><xs:group ref="g"/><xs:group ref="g"/></xs:sequence></xs:group>"#) else {
        panic!("accepted")
    };
    assert!(e.message.contains("refers to itself more than once (src-redefine.6.1.1)"), "{e}");
    // src-redefine.7.1: an attribute group refers to itself at most once.
    let Err(e) = load(r#"<xs:attributeGroup name="ag"><xs:attributeGroup ref="ag"/><xs:attributeGroup ref="ag"/></xs:attributeGroup>"#)
    else {
        panic!("accepted")
    };
    assert!(e.message.contains("(src-redefine.7.1)"), "{e}");
    // A conforming extension of both.
    if let Err(e) = load(
        r#"<xs:group name="g"><xs:sequence><xs:group ref="g"/><xs:element name="b"/></xs:sequence></xs:group>
<xs:attributeGroup name="ag"><xs:attributeGroup ref="ag"/><xs:attribute name="y"/></xs:attributeGroup>"#,
    ) {
        panic!("rejected: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Structures §4.2.2, Schema Representation Constraint: Individual Component
/// Redefinition, clauses 6.2 and 7.2: a model group or attribute group redefined
/// without referring to itself must exist in the redefined schema (6.2.1, 7.2.1) and
/// be a valid restriction of the original (6.2.2 by Particle Valid (Restriction),
/// §3.9.6; 7.2.2 by clauses 2 to 4 of derivation-ok-restriction, §3.4.6).
#[test]
fn redefine_without_self_reference_restricts() {
    let dir = std::env::temp_dir().join(format!("vtdx-sfs-redefine-restrict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("base.xsd"),
        format!(
            r#"<xs:schema {XS}><xs:group name="g"><xs:sequence><xs:element name="a" type="xs:int" maxOccurs="3"/><xs:element name="b" type="xs:int" minOccurs="0"/></xs:sequence></xs:group>
<xs:attributeGroup name="ag"><xs:attribute name="x" type="xs:boolean"/><xs:attribute name="y" fixed="abc"/><xs:attribute name="z" use="required"/></xs:attributeGroup></xs:schema>"#
        ),
    )
    .unwrap();
    let load = |body: &str| {
        let p = dir.join("main.xsd");
        std::fs::write(&p, doc(&format!(r#"<xs:redefine schemaLocation="base.xsd">{body}</xs:redefine>"#))).unwrap();
        Schema::from_file(&p)
    };
    let rejected = |body: &str, needle: &str| {
        let Err(e) = load(body) else { panic!("accepted but must be rejected: {body}") };
        assert_eq!(e.kind, SchemaErrorKind::Constraint, "{e}");
        assert!(e.message.contains(needle), "expected {needle:?} in: {e}");
        assert!(e.location.file.ends_with("main.xsd") && e.location.line == 2, "{e}");
    };
    // 6.2.2: more occurrences than the original allows.
    rejected(
        r#"<xs:group name="g"><xs:sequence><xs:element name="a" type="xs:int" maxOccurs="4"/></xs:sequence></xs:group>"#,
        "the redefined model group \"g\" is not a valid restriction of the original (src-redefine.6.2.2)",
    );
    // 6.2.2: a sequence's members reordered.
    rejected(
        r#"<xs:group name="g"><xs:sequence><xs:element name="b" type="xs:int"/><xs:element name="a" type="xs:int"/></xs:sequence></xs:group>"#,
        "(src-redefine.6.2.2)",
    );
    // 6.2.2: a type that does not derive from the original's.
    rejected(r#"<xs:group name="g"><xs:sequence><xs:element name="a" type="xs:string"/></xs:sequence></xs:group>"#, "(src-redefine.6.2.2)");
    // 6.2.1 / 7.2.1: nothing of that name in the redefined schema.
    rejected(
        r#"<xs:group name="nope"><xs:sequence><xs:element name="a"/></xs:sequence></xs:group>"#,
        "the redefined schema has no model group named \"nope\" to redefine (src-redefine.6.2.1)",
    );
    rejected(
        r#"<xs:attributeGroup name="nope"><xs:attribute name="z"/></xs:attributeGroup>"#,
        "the redefined schema has no attribute group named \"nope\" to redefine (src-redefine.7.2.1)",
    );
    // 7.2.2: a type that does not derive from the original's.
    rejected(
        r#"<xs:attributeGroup name="ag"><xs:attribute name="x" type="xs:int"/><xs:attribute name="z" use="required"/></xs:attributeGroup>"#,
        "(src-redefine.7.2.2): the type of attribute \"x\" does not derive from its type in the original attribute group",
    );
    // 7.2.2: a fixed value turned into a default.
    rejected(
        r#"<xs:attributeGroup name="ag"><xs:attribute name="y" default="abc"/><xs:attribute name="z" use="required"/></xs:attributeGroup>"#,
        "(derivation-ok-restriction.2.1.3)",
    );
    // 7.2.2: a required attribute dropped, an attribute added.
    rejected(
        r#"<xs:attributeGroup name="ag"><xs:attribute name="x" type="xs:boolean"/></xs:attributeGroup>"#,
        "(derivation-ok-restriction.3)",
    );
    rejected(
        r#"<xs:attributeGroup name="ag"><xs:attribute name="w"/><xs:attribute name="z" use="required"/></xs:attributeGroup>"#,
        "(derivation-ok-restriction.2.2)",
    );
    // Valid restrictions of both load.
    if let Err(e) = load(
        r#"<xs:group name="g"><xs:sequence><xs:element name="a" type="xs:int" maxOccurs="2"/></xs:sequence></xs:group>
<xs:attributeGroup name="ag"><xs:attribute name="y" fixed="abc"/><xs:attribute name="z" type="xs:token" use="required"/></xs:attributeGroup>"#,
    ) {
        panic!("rejected: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
