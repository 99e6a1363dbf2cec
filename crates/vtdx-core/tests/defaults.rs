//! Attributes defaulted by attribute-list declarations of the internal subset
//! (XML 1.0 §3.3.2, §5.1), attribute-value normalization by declared type
//! (§3.3.3), namespace declarations defaulted that way (Namespaces in XML 1.0
//! §3), and ID attributes (§3.3.1, xml:id 1.0). Expected values are worked out
//! from those clauses by hand; `python/tests/test_defaults.py` compares the same
//! behaviour with lxml.

use vtdx_core::{Document, ErrorKind, NodeKind, ParseOptions};

use crate::common::*;

/// (qualified name, value, specified) of an element's attributes and declarations, in order.
fn atts(e: vtdx_core::Node<'_>) -> Vec<(String, String, bool)> {
    e.all_attributes().map(|a| (a.name().to_string(), a.value().into_owned(), a.is_specified())).collect()
}

fn row(n: &str, v: &str, specified: bool) -> (String, String, bool) {
    (n.to_string(), v.to_string(), specified)
}

#[test]
fn a_fixed_namespace_declaration_binds_its_prefix() {
    // the issue's document: libxml2, Expat and Xerces accept it
    let doc = parse_ok(b"<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA #FIXED \"urn:p\">]><a><p:b/></a>");
    let a = doc.root_element();
    let b = a.first_element_child().unwrap();
    assert_eq!(b.name(), "p:b");
    assert_eq!(b.namespace_uri(), Some("urn:p"));
    assert_eq!(b.lookup_namespace("p"), Some("urn:p"));
    assert!(b.namespaces().contains(&("p", "urn:p")));
    let decls: Vec<_> = a.namespace_declarations().collect();
    assert_eq!(decls.len(), 1);
    assert!(decls[0].is_namespace_declaration() && !decls[0].is_specified());
    assert_eq!(decls[0].value(), "urn:p");
    assert_eq!(a.attributes().count(), 0, "a declaration is not an attribute");
}

#[test]
fn a_defaulted_default_namespace_applies_to_the_element_and_its_descendants() {
    let doc = parse_ok(b"<!DOCTYPE a [<!ATTLIST a xmlns CDATA 'urn:d'>]><a><b/><c xmlns=''><d/></c></a>");
    let a = doc.root_element();
    assert_eq!(a.namespace_uri(), Some("urn:d"));
    let kids: Vec<_> = a.element_children().collect();
    assert_eq!(kids[0].namespace_uri(), Some("urn:d"));
    assert_eq!(kids[1].namespace_uri(), None, "xmlns='' undeclares it");
    assert_eq!(kids[1].first_element_child().unwrap().namespace_uri(), None);
    // a specified declaration overrides the default on its element
    let doc = parse_ok(b"<!DOCTYPE a [<!ATTLIST a xmlns CDATA 'urn:d'>]><a xmlns='urn:mine'/>");
    assert_eq!(doc.root_element().namespace_uri(), Some("urn:mine"));
    assert_eq!(atts(doc.root_element()), vec![row("xmlns", "urn:mine", true)]);
}

#[test]
fn defaulted_attributes_follow_the_specified_ones_normalized_by_type() {
    let doc = parse_ok(
        b"<!DOCTYPE a [<!ENTITY e 'E'><!ATTLIST a c CDATA ' c  d ' t NMTOKENS '  x   y ' k (one|two) 'two' f CDATA #FIXED '1&e;2' s NMTOKENS #IMPLIED r CDATA #REQUIRED>]>\
          <a s=' p  q ' r=' r  '/>",
    );
    let a = doc.root_element();
    // §3.3.3: CDATA keeps its spaces; tokenized types are trimmed and collapsed,
    // specified or defaulted; #IMPLIED and #REQUIRED supply nothing
    assert_eq!(
        atts(a),
        vec![
            row("s", "p q", true),
            row("r", " r  ", true),
            row("c", " c  d ", false),
            row("t", "x y", false),
            row("k", "two", false),
            row("f", "1E2", false)
        ]
    );
    assert_eq!(a.attribute("t").as_deref(), Some("x y"));
    assert_eq!(a.attribute("nope"), None);
    let t = a.attribute_node("t").unwrap();
    assert_eq!(t.kind(), NodeKind::Attribute);
    assert_eq!(t.parent(), Some(a));
    assert_eq!(t.value_range(), None);
    // no bytes: the empty range at the `/>` that ends the start tag
    let slash = find(doc.text(), "/>");
    assert_eq!(t.range(), slash..slash);
    assert!(t.raw().is_empty());
    // document order: element, specified attributes, defaulted ones, distinct keys
    let keys: Vec<u64> = std::iter::once(a.order_key()).chain(a.all_attributes().map(|n| n.order_key())).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
}

#[test]
fn a_specified_attribute_overrides_its_default_and_elements_get_their_own() {
    let doc = parse_ok(b"<!DOCTYPE r [<!ATTLIST i n CDATA '0' m CDATA 'm'>]><r><i n='5'/><i/><i m='x'>t</i></r>");
    let v: Vec<_> = doc.root_element().element_children().map(atts).collect();
    assert_eq!(
        v,
        vec![
            vec![row("n", "5", true), row("m", "m", false)],
            vec![row("n", "0", false), row("m", "m", false)],
            vec![row("m", "x", true), row("n", "0", false)],
        ]
    );
    // the text after a start tag with defaults starts after its `>`
    let third = doc.root_element().element_children().nth(2).unwrap();
    assert_eq!(third.text().as_deref(), Some("t"));
    assert_eq!(third.start_tag_range().map(|r| &doc.text()[r]), Some(&b"<i m='x'>"[..]));
}

#[test]
fn a_prefixed_default_is_resolved_and_checked() {
    let doc = parse_ok(b"<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA 'urn:p' p:x CDATA 'v'>]><a/>");
    let a = doc.root_element();
    assert_eq!(a.attribute_ns(Some("urn:p"), "x").as_deref(), Some("v"));
    // an unbound prefix is a namespace error, as for a written attribute (libxml2 agrees)
    let d = b"<!DOCTYPE a [<!ATTLIST a p:x CDATA '1'>]><a/>";
    assert!(matches!(parse_err(d).kind(), ErrorKind::UndeclaredPrefix { prefix } if prefix == "p"));
    // ... whether or not defaulted attributes are recorded
    assert!(matches!(parse_err_with(d, &ParseOptions::new().attribute_defaults(false)).kind(), ErrorKind::UndeclaredPrefix { .. }));
    // two attributes with one expanded name (Namespaces §6.3), one of them defaulted
    let d = b"<!DOCTYPE a [<!ATTLIST a q:x CDATA '1'>]><a xmlns:p='u' xmlns:q='u' p:x='2'/>";
    assert!(matches!(parse_err(d).kind(), ErrorKind::DuplicateAttribute { name } if name == "q:x"));
    // a defaulted declaration obeys the reserved-prefix rules
    let d = b"<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA 'http://www.w3.org/2000/xmlns/'>]><a/>";
    assert!(matches!(parse_err(d).kind(), ErrorKind::ReservedNamespace { .. }));
    // with namespaces off, `xmlns:p` is an ordinary attribute and binds nothing
    let doc = parse_ok_with(b"<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA 'urn:p'>]><a><p:b/></a>", &ParseOptions::new().namespaces(false));
    assert_eq!(atts(doc.root_element()), vec![row("xmlns:p", "urn:p", false)]);
}

#[test]
fn attribute_defaults_off_keeps_declarations_only() {
    let src = b"<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA #FIXED 'urn:p' c CDATA 'v'>]><a x='1'><p:b/></a>";
    let doc = parse_ok_with(src, &ParseOptions::new().attribute_defaults(false));
    let a = doc.root_element();
    assert_eq!(atts(a), vec![row("x", "1", true), row("xmlns:p", "urn:p", false)]);
    assert_eq!(a.attribute("c"), None);
    // the declarations still say what the default is
    assert_eq!(a.default_attribute("c").as_deref(), Some("v"));
    assert_eq!(a.first_element_child().unwrap().namespace_uri(), Some("urn:p"));
    let on = parse_ok(src);
    assert_eq!(atts(on.root_element()), vec![row("x", "1", true), row("xmlns:p", "urn:p", false), row("c", "v", false)]);
}

#[test]
fn defaults_after_an_unread_parameter_entity_are_not_applied() {
    // §5.1: declarations after a reference to an unread external parameter entity are not processed
    let src = b"<!DOCTYPE a [<!ENTITY % x SYSTEM 'x.ent'>%x;<!ATTLIST a c CDATA 'v'>]><a/>";
    let doc = parse_ok_with(src, &ParseOptions::new().external(vtdx_core::ExternalPolicy::Ignore));
    assert!(atts(doc.root_element()).is_empty());
}

#[test]
fn ids_from_declarations_and_xml_id() {
    let doc = parse_ok(
        b"<!DOCTYPE r [<!ATTLIST e k ID #IMPLIED n CDATA #IMPLIED><!ATTLIST f k ID 'dflt'>]>\
          <r><e k='  b ' n='c'/><e n='b2'/><g xml:id='c'/><f/><g k='z'/></r>",
    );
    let name_and_pos = |id: &str| doc.element_by_id(id).map(|e| (e.name().to_string(), e.range().start));
    assert_eq!(name_and_pos("b"), Some(("e".to_string(), find(doc.text(), "<e k="))));
    assert_eq!(name_and_pos("c"), Some(("g".to_string(), find(doc.text(), "<g xml:id"))));
    assert_eq!(name_and_pos("dflt"), Some(("f".to_string(), find(doc.text(), "<f/>"))), "a defaulted ID counts");
    assert_eq!(name_and_pos("z"), None, "k is an ID only on e and f");
    assert_eq!(name_and_pos("b2"), None, "n is CDATA");
    let e = doc.root_element().first_element_child().unwrap();
    assert!(e.attribute_node("k").unwrap().is_id());
    assert!(!e.attribute_node("n").unwrap().is_id());
    assert_eq!(parse_ok(b"<r id='x'/>").element_by_id("x"), None, "an undeclared `id` is not an ID");
}

#[test]
fn defaulted_attributes_cannot_be_removed_but_can_be_set() {
    let doc = parse_ok(b"<!DOCTYPE a [<!ATTLIST a c CDATA 'v'>]><a x='1'/>");
    let a = doc.root_element();
    let c = a.attribute_node("c").unwrap();
    let mut ed = vtdx_core::Editor::new(&doc);
    assert!(matches!(ed.remove(c), Err(vtdx_core::EditError::NotSpecified(n)) if n == "c"));
    assert!(matches!(ed.rename(c, "d"), Err(vtdx_core::EditError::NotSpecified(_))));
    ed.set_value(c, "w").unwrap();
    let out = String::from_utf8(ed.to_vec().unwrap()).unwrap();
    assert!(out.ends_with("<a x='1' c=\"w\"/>"), "{out}");
    let again = Document::parse(out.as_bytes()).unwrap();
    assert_eq!(atts(again.root_element()), vec![row("x", "1", true), row("c", "w", true)]);
}

#[test]
fn order_keys_follow_document_order_over_every_node() {
    // elements, their attributes (written and defaulted), text before and after
    // child records, comments, PIs, CDATA, empty-element tags: strictly increasing
    let docs: [&[u8]; 4] = [
        b"<!DOCTYPE r [<!ATTLIST i d CDATA 'x' e CDATA 'y'>]><r a='1'>t0<i/>t1<i k='2'>t2</i><!--c-->t3<?p?><![CDATA[z]]>t4<j>  </j></r>",
        b"<r><a>x</a><b>y<c/>z</b>w</r>",
        b"<!DOCTYPE r [<!ATTLIST r xmlns:p CDATA 'urn:p' q CDATA 'v'>]><r>text</r>",
        b"<r xmlns='urn:d' x='1'>\n  <s/>\n</r>",
    ];
    for src in docs {
        let doc = parse_ok(src);
        let mut keys = vec![doc.root().order_key()];
        for n in doc.root().descendants().filter(|n| !n.is_root()) {
            keys.push(n.order_key());
            if n.is_element() {
                keys.extend(n.all_attributes().map(|a| a.order_key()));
            }
        }
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{}: {keys:?}", String::from_utf8_lossy(src));
    }
}
