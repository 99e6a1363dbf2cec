//! Accept/reject decisions on small documents, each justified by a production or a
//! constraint of XML 1.0 (Fifth Edition) or Namespaces in XML 1.0.

use vtdx_core::{Document, ErrorKind, ExternalPolicy, ParseOptions};

use crate::common::*;

#[track_caller]
fn accepts(docs: &[&str]) {
    for d in docs {
        if let Err(e) = Document::parse(d.as_bytes()) {
            panic!("{d:?} is well-formed but was refused: {e}");
        }
    }
}

#[track_caller]
fn refuses(docs: &[&str]) {
    for d in docs {
        if Document::parse(d.as_bytes()).is_ok() {
            panic!("{d:?} is not well-formed but was accepted");
        }
    }
}

#[test]
fn xml_declaration() {
    accepts(&[
        "<?xml version=\"1.0\"?><a/>",
        "<?xml version='1.0' ?><a/>",
        "<?xml version = '1.0' encoding = 'UTF-8' standalone = 'no' ?><a/>",
        "<?xml version='1.0' standalone='yes'?><a/>",
        "<?xml version='1.1'?><a/>",
        "<?xml version='1.0'?>\n<!-- c --><a/>",
        "\u{FEFF}<?xml version='1.0'?><a/>",
        "<?xml-stylesheet href='s.xsl'?><a/>",
        "<?xml\tversion='1.0'?><a/>",
    ]);
    refuses(&[
        "<?xml?><a/>",
        "<?xml encoding='UTF-8'?><a/>",
        "<?xml version='1.0'encoding='UTF-8'?><a/>",
        "<?xml version='1.0' standalone='yes' encoding='UTF-8'?><a/>",
        "<?xml version='1.0' standalone='maybe'?><a/>",
        "<?xml version='2.0'?><a/>",
        "<?xml version='1.'?><a/>",
        "<?xml version='1.0' version='1.0'?><a/>",
        "<?xml version='1.0' other='x'?><a/>",
        "<?xml version=1.0?><a/>",
        " <?xml version='1.0'?><a/>",
        "<a/><?xml version='1.0'?>",
        "<!-- c --><?xml version='1.0'?><a/>",
        "<?XML version='1.0'?><a/>",
        "<?xMl version='1.0'?><a/>",
        "<a><?xml version='1.0'?></a>",
        "<?xml version='1.0' encoding='1abc'?><a/>",
        "<?xml version='1.0'",
    ]);
}

#[test]
fn declared_encoding_must_match_the_bytes() {
    // §4.3.3: a UTF-8 (ASCII-compatible, no BOM) entity declaring UTF-16 is an error
    let e = parse_err(b"<?xml version='1.0' encoding='UTF-16'?><a/>");
    assert!(matches!(e.kind(), ErrorKind::Encoding { .. }), "{e}");
}

#[test]
fn comments_and_processing_instructions() {
    accepts(&[
        "<a><!----></a>",
        "<a><!-- - --></a>",
        "<a><!--<b>&amp;</b>--></a>",
        "<a><?p?></a>",
        "<a><?p ?></a>",
        "<a><?p  data ? > ?></a>",
        "<a><?pxml?></a>",
        "<a><?xml-x?></a>",
    ]);
    refuses(&[
        "<a><!-- a -- b --></a>",
        "<a><!-- x ---></a>",
        "<a><!---></a>",
        "<a><!-- x -></a>",
        "<a><!- x --></a>",
        "<a><? p?></a>",
        "<a><?p</a>",
        "<a><?xml ?></a>",
        "<a><?p:q ?></a>",
        "<a><?1p?></a>",
        "<a><?p?x?></a>",
    ]);
    // without namespaces a colon in a PI target is a name character
    assert!(Document::parse_with(b"<a><?p:q ?></a>", &ParseOptions::new().namespaces(false)).is_ok());
}

#[test]
fn cdata_sections_and_character_data() {
    accepts(&[
        "<a><![CDATA[]]></a>",
        "<a><![CDATA[<&>]]]></a>",
        "<a><![CDATA[]]]]><![CDATA[>]]></a>",
        "<a>]]&gt;</a>",
        "<a>]] ></a>",
        "<a>]></a>",
        "<a>></a>",
    ]);
    refuses(&[
        "<a>]]></a>",
        "<a><![CDATA[x]]]]></a>>",
        "<a><![CDATA[x]></a>",
        "<a><![cdata[x]]></a>",
        "<a><![CDATA x]]></a>",
        "<![CDATA[x]]><a/>",
        "<a/><![CDATA[x]]>",
        "<a>x & y</a>",
        "<a>&</a>",
        "<a>&amp</a>",
        "<a>& amp;</a>",
        "<a>&#X41;</a>",
        "<a>&#x;</a>",
        "<a>&#;</a>",
        "<a>&#x41 ;</a>",
        "<a>&#65a;</a>",
        "<a><</a>",
        "<a>< b/></a>",
    ]);
    // `]]` from an entity followed by `>` is not the literal `]]>` (§2.4 is about the document text)
    let d = parse_ok(b"<!DOCTYPE a [<!ENTITY e ']]'>]><a>&e;></a>");
    assert_eq!(d.root_element().value(), "]]>");
}

#[test]
fn start_tags_end_tags_and_attributes() {
    accepts(&[
        "<a></a >",
        "<a\n></a\n>",
        "<a b='1' c=\"2\"/>",
        "<a b = '1'\n\tc\n=\n\"2\" />",
        "<a b=''/>",
        "<a b='>'/>",
        "<_a-b.c9/>",
        "<a><b/><b/></a>",
    ]);
    refuses(&[
        "<a>",
        "<a></b>",
        "<abc></ab>",
        "<ab></abc>",
        "<a></a b>",
        "<a></ a>",
        "< a/>",
        "<a/ >",
        "<a b/>",
        "<a b=1/>",
        "<a b='1'c='2'/>",
        "<a b='1' b='2'/>",
        "<a b='<'/>",
        "<a b='&'/>",
        "<a b='x/>",
        "<a b=\"x'/>",
        "</a>",
        "<a/></a>",
        "<a/><b/>",
        "<a/>text",
        "text<a/>",
        "<a></a>&amp;",
        "<1a/>",
        "<a><b></a></b>",
    ]);
}

#[test]
fn document_type_declarations() {
    accepts(&[
        "<!DOCTYPE a><a/>",
        "<!DOCTYPE a [ ]><a/>",
        "<!-- c --><!DOCTYPE a [<!-- in --><?pi in?>]><!-- after --><a/>",
        "<!DOCTYPE a [<!ELEMENT a (#PCDATA|b)*><!ELEMENT b EMPTY><!ATTLIST a x CDATA #IMPLIED>]><a/>",
        "<!DOCTYPE a [<!NOTATION n PUBLIC 'n'>]><a/>",
        "<!DOCTYPE a [<!ENTITY % p '<!ENTITY e \"v\">'> %p;]><a>&e;</a>",
        "<!DOCTYPE b><a/>",
    ]);
    refuses(&[
        "<!DOCTYPE a><!DOCTYPE a><a/>",
        "<a/><!DOCTYPE a>",
        "<!DOCTYPE><a/>",
        "<!DOCTYPE a [<![INCLUDE[ <!ELEMENT a ANY> ]]>]><a/>",
        "<!DOCTYPE a [<!ENTITY % t 'CDATA'><!ATTLIST a x %t; #IMPLIED>]><a/>",
        "<!DOCTYPE a [<!ENTITY e 'x' >",
        "<!DOCTYPE a [<!ENTITY e '&undeclared-pe-like%;'>]><a/>",
        "<!DOCTYPE a [<!ELEMENT a (#PCDATA>]><a/>",
        "<!DOCTYPE a [<!ENTITY e \"<\">]><a x='&e;'/>",
        "<!DOCTYPE a [<!ENTITY e 'a'>]><a>&e</a>",
        "<!DOCTYPE a SYSTEM><a/>",
        "<!DOCTYPE a PUBLIC 'x'><a/>",
        "<!doctype a><a/>",
    ]);
}

#[test]
fn external_identifiers_are_well_formed_but_refused_by_default() {
    let ignore = ParseOptions::new().external(ExternalPolicy::Ignore);
    for d in ["<!DOCTYPE a SYSTEM 'a.dtd'><a/>", "<!DOCTYPE a PUBLIC '-//A//DTD A//EN' 'a.dtd'><a/>"] {
        if let Err(e) = Document::parse_with(d.as_bytes(), &ignore) {
            panic!("{d:?} is well-formed but was refused: {e}");
        }
        let e = Document::parse(d.as_bytes()).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::ExternalReference { .. }), "{d:?}: {e}");
        assert_eq!(e.offset(), 12, "{d:?}: {e}");
    }
}

#[test]
fn first_attribute_list_declaration_wins() {
    // §3.3: when more than one definition is provided for the same attribute, the first is binding
    let d = parse_ok(b"<!DOCTYPE e [<!ATTLIST e a NMTOKENS #IMPLIED><!ATTLIST e a CDATA #IMPLIED>]><e a=' x  y '/>");
    assert_eq!(d.root_element().attribute("a").as_deref(), Some("x y"));
    let d = parse_ok(b"<!DOCTYPE e [<!ATTLIST e a CDATA #IMPLIED a NMTOKENS #IMPLIED>]><e a=' x  y '/>");
    assert_eq!(d.root_element().attribute("a").as_deref(), Some(" x  y "));
    // and the first entity declaration (§4.2)
    let d = parse_ok(b"<!DOCTYPE e [<!ENTITY x 'first'><!ENTITY x 'second'>]><e>&x;</e>");
    assert_eq!(d.root_element().value(), "first");
}

#[test]
fn declarations_after_an_unread_parameter_entity_are_not_processed() {
    // §5.1: a non-validating processor that does not read an external parameter entity
    // must not process entity or attribute-list declarations that follow its reference
    // (the entity might have declared them first).
    let doc = b"<!DOCTYPE r [
<!ENTITY % ext SYSTEM 'ext.ent'>
%ext;
<!ATTLIST r a NMTOKENS #IMPLIED>
]>
<r a=' x  y '/>";
    let d = Document::parse_with(doc, &ParseOptions::new().external(ExternalPolicy::Ignore)).unwrap();
    assert_eq!(d.root_element().attribute("a").as_deref(), Some(" x  y "));
}

#[test]
fn qualified_names() {
    refuses(&["<:a/>", "<a:/>", "<a:b:c xmlns:a='u'/>", "<a :b='1'/>", "<p:a xmlns:p='u' p:='1'/>", "<p:1a xmlns:p='u'/>"]);
    let off = ParseOptions::new().namespaces(false);
    for d in ["<:a/>", "<a:/>", "<a:b:c/>", "<p:1a/>"] {
        assert!(Document::parse_with(d.as_bytes(), &off).is_ok(), "{d} is a well-formed Name without namespaces");
    }
}

#[test]
fn reserved_prefixes_and_names() {
    refuses(&[
        "<xmlns:a/>",
        "<a xmlns:xmlns='http://www.w3.org/2000/xmlns/'/>",
        "<a xmlns='http://www.w3.org/2000/xmlns/'/>",
        "<a xmlns='http://www.w3.org/XML/1998/namespace'/>",
        "<a xmlns:p='http://www.w3.org/2000/xmlns/'/>",
    ]);
    accepts(&[
        "<xml:a/>",
        "<a xml:lang='en' xml:space='preserve'/>",
        "<a xmlns=''/>",
        "<a xmlns='urn:x'><b xmlns=''/></a>",
        // names beginning with `xml` are reserved, not forbidden
        "<xmlfoo xmlbar='1'/>",
    ]);
}
