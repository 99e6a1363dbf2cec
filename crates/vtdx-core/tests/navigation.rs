//! The `Node` API on hand-written documents. Expected values are worked out by
//! hand from the XML 1.0 and Namespaces in XML 1.0 specifications (node kinds,
//! decoded values, namespace scoping) and from the documented API.

use vtdx_core::{Document, ErrorKind, NodeKind, ParseOptions, Parser, SourceEncoding, XMLNS_NAMESPACE, XML_NAMESPACE};

use crate::common::*;

use NodeKind::*;

const DOC: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- top comment -->
<?top-pi some data?>
<root xmlns="urn:default" xmlns:p="urn:p" id="r1">
  <p:child p:attr="v1" plain='v"2'>text one</p:child>
  <child2/>
  <!--inner comment-->
  <?inner-pi  data with  spaces ?>
  <![CDATA[cdata <content> & stuff]]>
  mixed <b>bold</b> tail
  <q xmlns="" xmlns:p="urn:p2"><p:r/><s xml:lang="en"/></q>
</root>
<!-- trailing -->
"#;

fn t(s: &str) -> (NodeKind, String, String) {
    (Text, String::new(), s.to_string())
}

/// (line, column) of byte `off` in `s`, counted by hand: lines end at LF, columns count characters.
fn line_col(s: &str, off: usize) -> (u32, u32) {
    let before = &s[..off];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().unwrap().chars().count() as u32 + 1;
    (line, col)
}

#[test]
fn document_level_children() {
    let d = parse_ok(DOC.as_bytes());
    let root = d.root();
    assert_eq!(root.kind(), Root);
    assert!(root.is_root());
    assert_eq!(root.parent(), None);
    assert_eq!(root.next_sibling(), None);
    assert_eq!(root.prev_sibling(), None);
    assert_eq!(root.name(), "");
    assert_eq!(root.text(), None);
    assert_eq!(root.range(), 0..DOC.len());
    assert_eq!(root.depth(), 0);
    assert_eq!(root.ancestors().count(), 0);
    // top-level whitespace is not a text node (it is not character data, §2.8)
    assert_eq!(
        kids(root),
        vec![
            (Comment, String::new(), " top comment ".to_string()),
            (ProcessingInstruction, "top-pi".to_string(), "some data".to_string()),
            (Element, "root".to_string(), root.first_element_child().unwrap().value().into_owned()),
            (Comment, String::new(), " trailing ".to_string()),
        ]
    );
    let re = d.root_element();
    assert_eq!(root.first_element_child(), Some(re));
    assert_eq!(root.element_children().count(), 1);
    assert_eq!(re.parent(), Some(root));
    assert_eq!(re.parent_element(), None);
    assert_eq!(re.next_sibling().unwrap().value(), " trailing ");
    assert_eq!(re.prev_sibling().unwrap().pi_target(), Some("top-pi"));
    assert_eq!(re.next_element_sibling(), None);
    assert_eq!(re.prev_element_sibling(), None);
    assert_eq!(root.last_child().unwrap().kind(), Comment);
    assert_eq!(re.depth(), 1);
    // the root's string-value is the document element's
    assert_eq!(root.value(), re.value());
    let decl = d.xml_declaration().unwrap();
    assert_eq!(decl.version, "1.0");
    assert_eq!(decl.encoding.as_deref(), Some("UTF-8"));
    assert_eq!(decl.standalone, None);
    assert_eq!(&DOC[decl.span.clone()], r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    assert_eq!(d.encoding(), &SourceEncoding::Utf8 { bom: false });
    assert!(d.text_is_source());
    assert_eq!(d.text(), DOC.as_bytes());
    assert_eq!(d.source(), DOC.as_bytes());
}

#[test]
fn element_children_kinds_and_values() {
    let d = parse_ok(DOC.as_bytes());
    let re = d.root_element();
    let ws = "\n  ";
    assert_eq!(
        kids(re),
        vec![
            t(ws),
            (Element, "p:child".into(), "text one".into()),
            t(ws),
            (Element, "child2".into(), "".into()),
            t(ws),
            (Comment, "".into(), "inner comment".into()),
            t(ws),
            (ProcessingInstruction, "inner-pi".into(), "data with  spaces ".into()),
            t(ws),
            (CData, "".into(), "cdata <content> & stuff".into()),
            t("\n  mixed "),
            (Element, "b".into(), "bold".into()),
            t(" tail\n  "),
            (Element, "q".into(), "".into()),
            t("\n"),
        ]
    );
    let names: Vec<_> = re.element_children().map(|e| e.name()).collect();
    assert_eq!(names, ["p:child", "child2", "b", "q"]);
    assert_eq!(re.children().count(), 15);
    // root + 15 children + text of p:child + text of b + p:r + s
    assert_eq!(re.descendants().count(), 20);
    assert_eq!(d.root().descendants().count(), 20 + 1 + 3);
    assert_eq!(re.value(), "\n  text one\n  \n  \n  \n  cdata <content> & stuff\n  mixed bold tail\n  \n");
    // an element's text() is its first child when that is text
    assert_eq!(re.text().as_deref(), Some(ws));
    assert_eq!(re.first_element_child().unwrap().text().as_deref(), Some("text one"));
    assert_eq!(re.last_child().unwrap().value(), "\n");
}

#[test]
fn sibling_links_agree_with_children() {
    let d = parse_ok(DOC.as_bytes());
    for n in d.root().descendants() {
        let kids: Vec<_> = n.children().collect();
        assert_eq!(n.first_child(), kids.first().copied());
        assert_eq!(n.last_child(), kids.last().copied());
        for (i, c) in kids.iter().enumerate() {
            assert_eq!(c.parent(), Some(n));
            assert_eq!(c.next_sibling(), kids.get(i + 1).copied());
            assert_eq!(c.prev_sibling(), i.checked_sub(1).map(|j| kids[j]));
        }
    }
    let re = d.root_element();
    let child2 = re.element_children().nth(1).unwrap();
    assert_eq!(child2.next_element_sibling().unwrap().name(), "b");
    assert_eq!(child2.prev_element_sibling().unwrap().name(), "p:child");
    assert_eq!(child2.next_sibling().unwrap().kind(), Text);
    assert_eq!(child2.next_sibling().unwrap().next_sibling().unwrap().kind(), Comment);
    // a text node's element siblings
    let mixed = re.children().nth(10).unwrap();
    assert_eq!(mixed.value(), "\n  mixed ");
    assert_eq!(mixed.next_element_sibling().unwrap().name(), "b");
    assert_eq!(mixed.prev_element_sibling().unwrap().name(), "child2");
}

#[test]
fn names_and_namespaces() {
    let d = parse_ok(DOC.as_bytes());
    let re = d.root_element();
    assert_eq!((re.name(), re.local_name(), re.prefix()), ("root", "root", ""));
    assert_eq!(re.namespace_uri(), Some("urn:default"));
    let child = re.first_element_child().unwrap();
    assert_eq!((child.name(), child.local_name(), child.prefix()), ("p:child", "child", "p"));
    assert_eq!(child.namespace_uri(), Some("urn:p"));
    let child2 = child.next_element_sibling().unwrap();
    assert_eq!(child2.namespace_uri(), Some("urn:default"));
    let b = child2.next_element_sibling().unwrap();
    assert_eq!(b.namespace_uri(), Some("urn:default"));
    let q = b.next_element_sibling().unwrap();
    // xmlns="" undeclares the default namespace (Namespaces §6.2)
    assert_eq!(q.namespace_uri(), None);
    let r = q.first_element_child().unwrap();
    assert_eq!((r.name(), r.local_name(), r.prefix()), ("p:r", "r", "p"));
    assert_eq!(r.namespace_uri(), Some("urn:p2"));
    let s = r.next_element_sibling().unwrap();
    assert_eq!(s.namespace_uri(), None);
    // the xml prefix is bound by definition
    let lang = s.attribute_node("xml:lang").unwrap();
    assert_eq!(lang.namespace_uri(), Some(XML_NAMESPACE));
    assert_eq!(lang.local_name(), "lang");
    assert_eq!(s.attribute_ns(Some(XML_NAMESPACE), "lang").as_deref(), Some("en"));

    assert_eq!(re.lookup_namespace(""), Some("urn:default"));
    assert_eq!(re.lookup_namespace("p"), Some("urn:p"));
    assert_eq!(re.lookup_namespace("xml"), Some(XML_NAMESPACE));
    assert_eq!(re.lookup_namespace("nope"), None);
    assert_eq!(q.lookup_namespace(""), None);
    assert_eq!(q.lookup_namespace("p"), Some("urn:p2"));
    assert_eq!(r.lookup_namespace("p"), Some("urn:p2"));
    assert_eq!(child.lookup_namespace("p"), Some("urn:p"));

    let mut ns = re.namespaces();
    ns.sort();
    assert_eq!(ns, vec![("", "urn:default"), ("p", "urn:p"), ("xml", XML_NAMESPACE)]);
    let mut ns = r.namespaces();
    ns.sort();
    assert_eq!(ns, vec![("p", "urn:p2"), ("xml", XML_NAMESPACE)]);
    // nearest first
    assert_eq!(r.namespaces()[0], ("p", "urn:p2"));
    // a text node sees its parent's scope
    let text = child.first_child().unwrap();
    assert_eq!(text.lookup_namespace("p"), Some("urn:p"));
}

#[test]
fn attributes_and_declarations() {
    let d = parse_ok(DOC.as_bytes());
    let re = d.root_element();
    let attrs: Vec<_> = re.attributes().map(|a| (a.name(), a.value().into_owned())).collect();
    assert_eq!(attrs, [("id", "r1".to_string())]);
    let decls: Vec<_> = re.namespace_declarations().map(|a| (a.name(), a.value().into_owned())).collect();
    assert_eq!(decls, [("xmlns", "urn:default".to_string()), ("xmlns:p", "urn:p".to_string())]);
    let all: Vec<_> = re.all_attributes().map(|a| a.name()).collect();
    assert_eq!(all, ["xmlns", "xmlns:p", "id"]);
    for a in re.namespace_declarations() {
        assert!(a.is_namespace_declaration());
        assert!(a.is_attribute());
    }
    let xp = re.all_attributes().nth(1).unwrap();
    assert_eq!(xp.namespace_uri(), Some(XMLNS_NAMESPACE));
    assert_eq!(xp.local_name(), "p");
    // unprefixed attributes are in no namespace, even with a default namespace (§6.2)
    let id = re.attribute_node("id").unwrap();
    assert!(!id.is_namespace_declaration());
    assert_eq!(id.namespace_uri(), None);
    assert_eq!(re.attribute_ns(None, "id").as_deref(), Some("r1"));
    assert_eq!(re.attribute_ns(Some("urn:default"), "id"), None);
    assert_eq!(re.attribute("xmlns"), None, "declarations are not attributes()");

    let child = re.first_element_child().unwrap();
    assert_eq!(child.attribute("p:attr").as_deref(), Some("v1"));
    assert_eq!(child.attribute_ns(Some("urn:p"), "attr").as_deref(), Some("v1"));
    assert_eq!(child.attribute_ns(None, "attr"), None);
    assert_eq!(child.attribute("plain").as_deref(), Some("v\"2"));
    assert_eq!(child.attribute("missing"), None);

    let plain = child.attribute_node("plain").unwrap();
    assert_eq!(plain.kind(), Attribute);
    assert_eq!(plain.parent(), Some(child));
    assert_eq!(plain.ancestors().next(), Some(child));
    assert_eq!(plain.raw(), b"plain='v\"2'");
    let start = find(DOC.as_bytes(), "plain='");
    assert_eq!(plain.range(), start..start + "plain='v\"2'".len());
    assert_eq!(plain.value_range(), Some(start + 7..start + 10));
    assert_eq!(plain.position(), (5, 24));
    // attributes are not children and have no siblings or children
    assert!(plain.first_child().is_none());
    assert!(plain.children().next().is_none());
    assert_eq!(plain.next_sibling(), None);
    assert_eq!(plain.prev_sibling(), None);
    assert!(child.children().all(|c| !c.is_attribute()));
    assert!(child.descendants().all(|c| !c.is_attribute()));
}

#[test]
fn ranges_raw_and_positions() {
    let d = parse_ok(DOC.as_bytes());
    let b = DOC.as_bytes();
    let re = d.root_element();
    let child = re.first_element_child().unwrap();
    let cs = find(b, "<p:child");
    let raw = r#"<p:child p:attr="v1" plain='v"2'>text one</p:child>"#;
    assert_eq!(child.range(), cs..cs + raw.len());
    assert_eq!(child.raw(), raw.as_bytes());
    assert_eq!(child.start_tag_range(), Some(cs..cs + raw.find('>').unwrap() + 1));
    let ts = find(b, "text one");
    assert_eq!(child.content_range(), Some(ts..ts + 8));
    assert!(!child.is_empty_element_tag());
    let text = child.first_child().unwrap();
    assert_eq!(text.range(), ts..ts + 8);
    assert_eq!(text.raw(), b"text one");

    for (needle, n) in [
        ("<p:child", child),
        ("text one", text),
        ("<root", re),
        ("<b>", re.element_children().nth(2).unwrap()),
        ("<s ", re.element_children().nth(3).unwrap().element_children().nth(1).unwrap()),
        ("<?inner-pi", re.children().nth(7).unwrap()),
        ("<!-- trailing", d.root().last_child().unwrap()),
    ] {
        let off = find(b, needle);
        assert_eq!(n.range().start, off, "{needle}");
        assert_eq!(n.position(), line_col(DOC, off), "{needle}");
    }
    assert_eq!(child.position(), (5, 3));
    assert_eq!(re.element_children().nth(2).unwrap().position(), (10, 9));

    let child2 = child.next_element_sibling().unwrap();
    assert!(child2.is_empty_element_tag());
    assert_eq!(child2.raw(), b"<child2/>");
    assert_eq!(child2.start_tag_range(), Some(child2.range()));
    assert!(child2.content_range().unwrap().is_empty());
    assert_eq!(child2.first_child(), None);
    assert_eq!(child2.last_child(), None);
    assert_eq!(child2.text(), None);
    assert_eq!(child2.value(), "");
    assert_eq!(child2.descendants().count(), 1);

    let comment = re.children().nth(5).unwrap();
    assert_eq!(comment.raw(), b"<!--inner comment-->");
    let pi = re.children().nth(7).unwrap();
    assert_eq!(pi.raw(), b"<?inner-pi  data with  spaces ?>");
    assert_eq!(pi.pi_target(), Some("inner-pi"));
    assert_eq!(pi.name(), "inner-pi");
    assert_eq!(comment.pi_target(), None);
    let cdata = re.children().nth(9).unwrap();
    assert_eq!(cdata.raw(), b"<![CDATA[cdata <content> & stuff]]>");
    assert_eq!(cdata.text().as_deref(), Some("cdata <content> & stuff"));

    // writing a node writes its exact bytes; the document writes its input
    let mut out = Vec::new();
    child.write_to(&mut out).unwrap();
    assert_eq!(out, raw.as_bytes());
    let mut out = Vec::new();
    d.write_to(&mut out).unwrap();
    assert_eq!(out, DOC.as_bytes());
}

#[test]
fn non_element_nodes_answer_element_questions_with_nothing() {
    let d = parse_ok(DOC.as_bytes());
    let re = d.root_element();
    for n in re.children().filter(|c| !c.is_element()) {
        assert_eq!(n.first_child(), None);
        assert_eq!(n.children().count(), 0);
        assert_eq!(n.attributes().count(), 0);
        assert_eq!(n.all_attributes().count(), 0);
        assert_eq!(n.namespace_uri(), None);
        assert_eq!(n.sym(), None);
        assert_eq!(n.content_range(), None);
        assert_eq!(n.start_tag_range(), None);
        assert_eq!(n.value_range(), None);
        assert!(!n.is_empty_element_tag());
        assert_eq!(n.descendants().count(), 1);
        assert_eq!(n.parent(), Some(re));
        assert_eq!(n.depth(), 2);
        if n.kind() != ProcessingInstruction {
            assert_eq!(n.name(), "");
            assert_eq!(n.pi_target(), None);
        }
    }
}

#[test]
fn descendants_stay_inside_the_subtree_and_ancestors_go_up() {
    let d = parse_ok(DOC.as_bytes());
    let re = d.root_element();
    let child = re.first_element_child().unwrap();
    let desc: Vec<_> = child.descendants().map(|n| n.kind()).collect();
    assert_eq!(desc, [Element, Text]);
    let q = re.element_children().nth(3).unwrap();
    let names: Vec<_> = q.descendants().map(|n| n.name()).collect();
    assert_eq!(names, ["q", "p:r", "s"]);
    let r = q.first_element_child().unwrap();
    let anc: Vec<_> = r.ancestors().map(|n| (n.kind(), n.name())).collect();
    assert_eq!(anc, [(Element, "q"), (Element, "root"), (Root, "")]);
    assert_eq!(r.depth(), 3);
    // document order
    let all: Vec<_> = d.root().descendants().collect();
    for w in all.windows(2) {
        assert_eq!(w[0].document_order(&w[1]), std::cmp::Ordering::Less);
        assert!(w[0].order_key() < w[1].order_key());
    }
    // ids round-trip
    for n in &all {
        assert_eq!(d.node(n.id()), Some(*n));
        assert_eq!(n.document().text().len(), DOC.len());
    }
}

#[test]
fn odd_but_well_formed_tags() {
    let doc = "<e  a = \"x/>\"\n b='>' >x</e\n>";
    let d = parse_ok(doc.as_bytes());
    let e = d.root_element();
    assert_eq!(e.attribute("a").as_deref(), Some("x/>"));
    assert_eq!(e.attribute("b").as_deref(), Some(">"));
    assert_eq!(e.attribute_node("a").unwrap().raw(), b"a = \"x/>\"");
    let x = doc.find(">x<").unwrap() + 1;
    assert_eq!(e.start_tag_range(), Some(0..x));
    assert_eq!(e.content_range(), Some(x..x + 1));
    assert_eq!(e.text().as_deref(), Some("x"));
    assert!(!e.is_empty_element_tag());
    assert_eq!(e.range(), 0..doc.len());

    let d = parse_ok(b"<e a='/'></e>");
    assert!(!d.root_element().is_empty_element_tag());
    assert_eq!(d.root_element().content_range(), Some(9..9));
    assert_eq!(d.root_element().first_child(), None);
    let d = parse_ok(b"<e a='/' />");
    assert!(d.root_element().is_empty_element_tag());
    assert_eq!(d.root_element().start_tag_range(), Some(0..11));
}

#[test]
fn text_value_and_mixed_content() {
    let d = parse_ok(b"<a>x<b>y</b><![CDATA[z]]><!--c-->w<?p q?></a>");
    let a = d.root_element();
    assert_eq!(a.value(), "xyzw");
    assert_eq!(a.text().as_deref(), Some("x"));
    // the leading text and CDATA children together, as lxml's `.text` gives
    let d = parse_ok(b"<a><![CDATA[first]]>then</a>");
    assert_eq!(d.root_element().text().as_deref(), Some("firstthen"));
    let d = parse_ok(b"<a><b/>tail</a>");
    assert_eq!(d.root_element().text(), None);
    assert_eq!(d.root_element().value(), "tail");
    // CDATA sections are not merged with the text around them
    let d = parse_ok(b"<a>x<![CDATA[]]>y</a>");
    assert_eq!(kids(d.root_element()), vec![t("x"), (CData, "".into(), "".into()), t("y")]);
}

// ---- entities and character references ---------------------------------------------

const ENTITIES: &str = r#"<!DOCTYPE d [
  <!ENTITY name "World">
  <!ENTITY greeting "Hello, &name;!">
  <!ENTITY mk "<b>x</b>">
  <!ENTITY example "<p>An ampersand (&#38;#38;) may be escaped numerically (&#38;#38;#38;) or with a general entity (&amp;amp;).</p>" >
]>
<d>&greeting; &#65;&#x42;&#x1D11E; &lt;&gt;&amp;&apos;&quot;&mk;tail&example;</d>"#;

#[test]
fn internal_entities_and_character_references_in_content() {
    let d = parse_ok(ENTITIES.as_bytes());
    let root = d.root_element();
    let k: Vec<_> = root.children().map(|c| (c.kind(), c.name().to_string())).collect();
    assert_eq!(k, [(Text, "".into()), (Element, "b".into()), (Text, "".into()), (Element, "p".into())]);
    let kids: Vec<_> = root.children().collect();
    assert_eq!(kids[0].value(), "Hello, World! AB\u{1D11E} <>&'\"");
    // an entity with markup is parsed as content: b is an element child (§4.4.2)
    let b = kids[1];
    assert_eq!(b.parent(), Some(root));
    assert_eq!(b.text().as_deref(), Some("x"));
    assert_eq!(b.raw(), b"<b>x</b>");
    assert_eq!(kids[2].value(), "tail");
    // XML 1.0 Appendix D: references in the entity value are expanded once at
    // declaration and once more when the replacement text is parsed.
    assert_eq!(kids[3].value(), "An ampersand (&) may be escaped numerically (&#38;) or with a general entity (&amp;).");
    assert_eq!(root.value(), format!("Hello, World! AB\u{1D11E} <>&'\"xtail{}", kids[3].value()));
    assert_eq!(root.descendants().filter(|n| n.is_element()).count(), 3);
}

#[test]
fn appendix_d_parameter_entity_example() {
    let doc = r#"<?xml version='1.0'?>
<!DOCTYPE test [
<!ELEMENT test (#PCDATA) >
<!ENTITY % xx '&#37;zz;'>
<!ENTITY % zz '&#60;!ENTITY tricky "error-prone" >' >
%xx;
]>
<test>This sample shows a &tricky; method.</test>"#;
    let d = parse_ok(doc.as_bytes());
    assert_eq!(d.root_element().value(), "This sample shows a error-prone method.");
}

#[test]
fn markup_entities_nest_and_mix_with_namespaces() {
    let doc = r#"<!DOCTYPE r [
  <!ENTITY inner "<i xmlns:n='urn:n'><n:j>deep</n:j></i>">
  <!ENTITY outer "<o>&inner;&inner;</o>">
]>
<r xmlns="urn:r">&outer;<!--c-->&inner;</r>"#;
    let d = parse_ok(doc.as_bytes());
    let r = d.root_element();
    let names: Vec<_> = r.descendants().filter(|n| n.is_element()).map(|n| (n.name(), n.namespace_uri())).collect();
    assert_eq!(
        names,
        [
            ("r", Some("urn:r")),
            ("o", Some("urn:r")),
            ("i", Some("urn:r")),
            ("n:j", Some("urn:n")),
            ("i", Some("urn:r")),
            ("n:j", Some("urn:n")),
            ("i", Some("urn:r")),
            ("n:j", Some("urn:n")),
        ]
    );
    assert_eq!(r.value(), "deep".repeat(3));
    assert_eq!(r.children().map(|c| c.kind()).collect::<Vec<_>>(), [Element, Comment, Element]);
    // a prefix declared nowhere is an error once the entity is expanded in place
    let bad = b"<!DOCTYPE r [<!ENTITY e '<u:x/>'>]><r>&e;</r>";
    assert!(matches!(parse_err(bad).kind(), ErrorKind::UndeclaredPrefix { .. }));
    let good = b"<!DOCTYPE r [<!ENTITY e '<u:x/>'>]><r xmlns:u='urn:u'>&e;</r>";
    assert_eq!(parse_ok(good).root_element().first_child().unwrap().namespace_uri(), Some("urn:u"));
}

#[test]
fn malformed_entity_replacement_text_is_an_error() {
    // §4.3.2: the replacement text of an entity referenced in content must match `content`
    for doc in [
        &b"<!DOCTYPE r [<!ENTITY e '<a>'>]><r>&e;</r>"[..],
        b"<!DOCTYPE r [<!ENTITY e '</a>'>]><r><a>&e;</r>",
        b"<!DOCTYPE r [<!ENTITY e 'x]]>y'>]><r>&e;</r>",
    ] {
        Document::parse(doc).expect_err(&String::from_utf8_lossy(doc));
    }
    // but an unreferenced one is harmless
    parse_ok(b"<!DOCTYPE r [<!ENTITY e '<a>'>]><r/>");
}

#[test]
fn line_ends_are_normalized() {
    // §2.11: CR LF and lone CR become LF before parsing; character references keep CR
    let d = parse_ok(b"<a>x\r\ny\rz\n&#13;&#xD;&#10;<![CDATA[c\r\nd\re]]><!--m\r\nn--><?p q\r\nr?></a>");
    let a = d.root_element();
    let k = kids(a);
    assert_eq!(k[0].2, "x\ny\nz\n\r\r\n");
    assert_eq!(k[1], (CData, "".into(), "c\nd\ne".into()));
    assert_eq!(k[2], (Comment, "".into(), "m\nn".into()));
    assert_eq!(k[3], (ProcessingInstruction, "p".into(), "q\nr".into()));
    // entity values: CR from a character reference stays, a literal CR LF is normalized
    let d = parse_ok(b"<!DOCTYPE a [<!ENTITY cr 'a&#13;b'><!ENTITY crlf 'c\r\nd'>]><a>&cr;|&crlf;</a>");
    assert_eq!(d.root_element().value(), "a\rb|c\nd");
}

#[test]
fn attribute_value_normalization_by_type() {
    // The examples of XML 1.0 §3.3.3, with `a` declared CDATA on c and NMTOKENS on n.
    let doc = "<!DOCTYPE r [
<!ENTITY d \"&#xD;\">
<!ENTITY a \"&#xA;\">
<!ENTITY da \"&#xD;&#xA;\">
<!ATTLIST c a CDATA #IMPLIED>
<!ATTLIST n a NMTOKENS #IMPLIED>
]>
<r>
<c a=\"\n\nxyz\"/><n a=\"\n\nxyz\"/>
<c a=\"&d;&d;A&a;&#x20;&a;B&da;\"/><n a=\"&d;&d;A&a;&#x20;&a;B&da;\"/>
<c a=\"&#xd;&#xd;A&#xa;&#xa;B&#xd;&#xa;\"/><n a=\"&#xd;&#xd;A&#xa;&#xa;B&#xd;&#xa;\"/>
</r>";
    let d = parse_ok(doc.as_bytes());
    let vals: Vec<(String, String)> =
        d.root_element().element_children().map(|e| (e.name().to_string(), e.attribute("a").unwrap().into_owned())).collect();
    let expect = [("c", "  xyz"), ("n", "xyz"), ("c", "  A   B  "), ("n", "A B"), ("c", "\r\rA\n\nB\r\n"), ("n", "\r\rA\n\nB\r\n")];
    assert_eq!(vals, expect.map(|(e, v)| (e.to_string(), v.to_string())));
}

#[test]
fn attribute_value_normalization_more() {
    let doc = "<!DOCTYPE d [
  <!ENTITY sp \"&#32;\">
  <!ATTLIST d tokens NMTOKENS #IMPLIED plain CDATA #IMPLIED id ID #IMPLIED en (x|y) #IMPLIED>
]>
<d tokens=\"  a   b&#32;&#32;c&sp;  \" plain=\"  a \t b\r\n c  \" id=\" x1 \" en=\" y\" undeclared=\" u  v \"/>";
    let d = parse_ok(doc.as_bytes());
    let e = d.root_element();
    assert_eq!(e.attribute("tokens").as_deref(), Some("a b c"));
    // CDATA: each whitespace character becomes one space; CR LF is one line end
    assert_eq!(e.attribute("plain").as_deref(), Some("  a   b  c  "));
    assert_eq!(e.attribute("id").as_deref(), Some("x1"));
    assert_eq!(e.attribute("en").as_deref(), Some("y"));
    // undeclared attributes are treated as CDATA
    assert_eq!(e.attribute("undeclared").as_deref(), Some(" u  v "));
    // without a DTD everything is CDATA
    let d = parse_ok(b"<d a='\tx\ny&#9;&#10;&amp;&lt;&#60;'/>");
    assert_eq!(d.root_element().attribute("a").as_deref(), Some(" x y\t\n&<<"));
}

#[test]

fn default_attribute_values_are_supplied() {
    // §5.1: a non-validating processor must use the internal subset to supply default
    // attribute values.
    let doc = b"<!DOCTYPE r [<!ATTLIST r def CDATA 'dflt' fixed CDATA #FIXED 'fx' set CDATA 'no'>]><r set='yes'/>";
    let d = parse_ok(doc);
    let r = d.root_element();
    assert_eq!(r.attribute("def").as_deref(), Some("dflt"));
    assert_eq!(r.attribute("fixed").as_deref(), Some("fx"));
    assert_eq!(r.attribute("set").as_deref(), Some("yes"));
}

#[test]
fn predefined_entities_and_char_refs_in_attribute_values() {
    let d = parse_ok(b"<a v='&lt;&gt;&amp;&apos;&quot;&#x263A;&#9786;' w=\"'\" x='\"'/>");
    let a = d.root_element();
    assert_eq!(a.attribute("v").as_deref(), Some("<>&'\"\u{263A}\u{263A}"));
    assert_eq!(a.attribute("w").as_deref(), Some("'"));
    assert_eq!(a.attribute("x").as_deref(), Some("\""));
    // `<` in a replacement text used in an attribute value is an error (WFC: No < in Attribute Values)
    let e = parse_err(b"<!DOCTYPE a [<!ENTITY lt2 '<'>]><a v='&lt2;'/>");
    assert!(!matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
    // but `&#60;` in the entity value is expanded to `<` only at declaration when written
    // as `&#38;#60;` ... which yields the reference `&#60;`, legal in the attribute
    let d = parse_ok(b"<!DOCTYPE a [<!ENTITY lt3 '&#38;#60;'>]><a v='&lt3;'/>");
    assert_eq!(d.root_element().attribute("v").as_deref(), Some("<"));
}

// ---- namespaces --------------------------------------------------------------------

/// A document and the test its parse error's kind must pass.
type ErrorCase = (&'static [u8], fn(&ErrorKind) -> bool);

#[test]
fn namespace_errors() {
    let cases: [ErrorCase; 8] = [
        (b"<p:a/>", |k| matches!(k, ErrorKind::UndeclaredPrefix { prefix } if prefix == "p")),
        (b"<a p:x='1'/>", |k| matches!(k, ErrorKind::UndeclaredPrefix { .. })),
        (b"<a xmlns:p=''/>", |k| matches!(k, ErrorKind::ReservedNamespace { .. })),
        (b"<a xmlns:xml='urn:other'/>", |k| matches!(k, ErrorKind::ReservedNamespace { .. })),
        (b"<a xmlns:x='http://www.w3.org/XML/1998/namespace'/>", |k| matches!(k, ErrorKind::ReservedNamespace { .. })),
        (b"<a xmlns:xmlns='urn:x'/>", |k| matches!(k, ErrorKind::ReservedNamespace { .. })),
        (b"<a:b:c xmlns:a='urn:a'/>", |k| matches!(k, ErrorKind::InvalidName { .. })),
        (b"<a xmlns:p='u' xmlns:q='u' p:x='' q:x=''/>", |k| matches!(k, ErrorKind::DuplicateAttribute { .. })),
    ];
    for (doc, ok) in cases {
        let e = parse_err(doc);
        assert!(ok(e.kind()), "{}: {e}", String::from_utf8_lossy(doc));
    }
    // a prefix goes out of scope with its element
    Document::parse(b"<a><b xmlns:p='u'/><p:c/></a>").expect_err("p out of scope");
    // binding xml to its own namespace is allowed
    parse_ok(b"<a xmlns:xml='http://www.w3.org/XML/1998/namespace'/>");
    // the same prefix re-declared with another URI on a child is fine
    let d = parse_ok(b"<p:a xmlns:p='u1'><p:b xmlns:p='u2'/></p:a>");
    let a = d.root_element();
    assert_eq!(a.namespace_uri(), Some("u1"));
    assert_eq!(a.first_element_child().unwrap().namespace_uri(), Some("u2"));
}

#[test]
fn namespaces_off_treats_colons_as_name_characters() {
    let opts = ParseOptions::new().namespaces(false);
    let d = parse_ok_with(b"<a:b:c xmlns:a='urn:a' d:e='1'><p:q/></a:b:c>", &opts);
    let r = d.root_element();
    assert_eq!(r.name(), "a:b:c");
    assert_eq!(r.namespace_uri(), None);
    assert_eq!(r.attribute("xmlns:a").as_deref(), Some("urn:a"));
    assert_eq!(r.attribute("d:e").as_deref(), Some("1"));
    assert_eq!(r.first_element_child().unwrap().name(), "p:q");
    assert_eq!(r.first_element_child().unwrap().namespace_uri(), None);
}

#[test]
fn non_ascii_names() {
    let doc = "<café xmlns:ñ='urn:ñ'><ñ:über ñ:ä='1' ·x='2'/><中文>字</中文><a\u{300}\u{B7}-.9/></café>";
    // `·x` is not a name: U+00B7 is a NameChar but not a NameStartChar
    Document::parse(doc.as_bytes()).expect_err("U+00B7 cannot start a name");
    let doc = doc.replace("·x", "x·");
    let d = parse_ok(doc.as_bytes());
    let r = d.root_element();
    assert_eq!(r.name(), "café");
    let names: Vec<_> = r.element_children().map(|e| e.name()).collect();
    assert_eq!(names, ["ñ:über", "中文", "a\u{300}\u{B7}-.9"]);
    let u = r.first_element_child().unwrap();
    assert_eq!(u.local_name(), "über");
    assert_eq!(u.namespace_uri(), Some("urn:ñ"));
    assert_eq!(u.attribute_ns(Some("urn:ñ"), "ä").as_deref(), Some("1"));
    assert_eq!(u.attribute("x·").as_deref(), Some("2"));
    // columns count characters: `<ñ:über` starts at column 23 of line 1
    assert_eq!(u.position(), (1, 23));
    // digits, `-` and `.` cannot start a name; combining characters cannot either
    for bad in ["<1a/>", "<-a/>", "<.a/>", "<\u{300}a/>", "<a b\u{2000}='1'/>"] {
        Document::parse(bad.as_bytes()).expect_err(bad);
    }
}

// ---- encodings ---------------------------------------------------------------------

const MULTI: &str =
    "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<r xmlns:m=\"urn:m\" a=\"ä\">\r\n<m:é>\u{1D11E} &amp; 中</m:é><!--ç--></r>";

fn check_multi(d: &Document<'_>) {
    let r = d.root_element();
    assert_eq!(r.name(), "r");
    assert_eq!(r.attribute("a").as_deref(), Some("ä"));
    assert_eq!(r.position(), (2, 1));
    let e = r.first_element_child().unwrap();
    assert_eq!(e.name(), "m:é");
    assert_eq!(e.namespace_uri(), Some("urn:m"));
    assert_eq!(e.text().as_deref(), Some("\u{1D11E} & 中"));
    assert_eq!(e.position(), (3, 1));
    assert_eq!(kids(r), vec![t("\n"), (Element, "m:é".into(), "\u{1D11E} & 中".into()), (Comment, "".into(), "ç".into())]);
    assert_eq!(e.raw(), "<m:é>\u{1D11E} &amp; 中</m:é>".as_bytes());
}

#[test]
fn utf16_documents_navigate_like_utf8() {
    for (le, bom) in [(true, true), (false, true)] {
        let bytes = utf16(MULTI, le, bom);
        let d = parse_ok(&bytes);
        assert_eq!(d.encoding(), &if le { SourceEncoding::Utf16Le { bom: true } } else { SourceEncoding::Utf16Be { bom: true } });
        assert!(!d.text_is_source());
        assert_eq!(d.source(), &bytes[..]);
        assert_eq!(d.bom_len(), 2);
        // the index describes UTF-8 text
        assert!(std::str::from_utf8(d.text()).is_ok());
        check_multi(&d);
    }
    // a BOM and no declaration
    let no_decl = &MULTI[MULTI.find('\n').unwrap() + 1..];
    let bytes = utf16(no_decl, true, true);
    let d = parse_ok(&bytes);
    assert_eq!(d.root_element().attribute("a").as_deref(), Some("ä"));
    assert_eq!(d.root_element().first_element_child().unwrap().text().as_deref(), Some("\u{1D11E} & 中"));
}

#[test]
fn utf8_with_bom() {
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(MULTI.replace("UTF-16", "UTF-8").as_bytes());
    let d = parse_ok(&bytes);
    assert_eq!(d.encoding(), &SourceEncoding::Utf8 { bom: true });
    assert_eq!(d.bom_len(), 3);
    assert!(d.text_is_source());
    assert_eq!(d.text(), &bytes[3..]);
    check_multi(&d);
    let d = parse_ok(b"\xEF\xBB\xBF<a>x</a>");
    assert_eq!(d.root_element().range(), 0..8);
    assert_eq!(d.root_element().raw(), b"<a>x</a>");
}

#[test]
fn iso_8859_1_documents() {
    let bytes = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<\xE9l\xE8ve nom=\"Ren\xE9e\">caf\xE9 \x80\xFF\xA0</\xE9l\xE8ve>";
    let d = parse_ok(bytes);
    assert!(matches!(d.encoding(), SourceEncoding::Other { .. }));
    assert!(!d.text_is_source());
    assert_eq!(d.source(), &bytes[..]);
    let r = d.root_element();
    assert_eq!(r.name(), "élève");
    assert_eq!(r.attribute("nom").as_deref(), Some("Renée"));
    // ISO-8859-1 maps every byte to the code point of the same value (0x80 is U+0080,
    // not the euro sign of windows-1252)
    assert_eq!(r.text().as_deref(), Some("café \u{80}\u{FF}\u{A0}"));
    assert_eq!(r.position(), (2, 1));
    let w = b"<?xml version=\"1.0\" encoding=\"windows-1252\"?><a>\x80</a>";
    assert_eq!(parse_ok(w).root_element().text().as_deref(), Some("\u{20AC}"));
}

// ---- other entry points ------------------------------------------------------------

#[test]
fn owned_mapped_and_reused_parsing() {
    let d = Document::parse_owned(DOC.as_bytes().to_vec()).unwrap();
    assert_eq!(d.root_element().descendants().count(), 20);

    let path = std::env::temp_dir().join(format!("vtdx-nav-{}.xml", std::process::id()));
    std::fs::write(&path, DOC).unwrap();
    // SAFETY: this test is the only writer of the file and does not touch it while `d` lives
    #[allow(unsafe_code)]
    let d = unsafe { Document::from_file_mmap(&path) }.unwrap().unwrap();
    assert_eq!(d.root_element().attribute("id").as_deref(), Some("r1"));
    drop(d);
    let d = Document::from_file(&path).unwrap().unwrap();
    assert_eq!(d.root_element().attribute("id").as_deref(), Some("r1"));
    drop(d);
    std::fs::write(&path, b"").unwrap();
    #[allow(unsafe_code)]
    // SAFETY: as above
    let r = unsafe { Document::from_file_mmap(&path) }.unwrap();
    assert!(r.is_err());
    assert!(Document::from_file(&path).unwrap().is_err());
    assert!(Document::from_file(path.with_extension("missing")).is_err());
    std::fs::remove_file(&path).unwrap();

    let mut p = Parser::new();
    for doc in [DOC, ENTITIES, "<x/>", DOC] {
        let fresh = Document::parse(doc.as_bytes()).unwrap();
        let reused = p.parse(doc.as_bytes()).unwrap();
        let a: Vec<_> = fresh.root().descendants().map(|n| (n.kind(), n.name().to_string(), n.value().into_owned())).collect();
        let b: Vec<_> = reused.root().descendants().map(|n| (n.kind(), n.name().to_string(), n.value().into_owned())).collect();
        assert_eq!(a, b);
        p.recycle(reused);
    }
    // an error in between does not leave state behind
    assert!(p.parse(b"<a><b></a>").is_err());
    assert_eq!(p.parse(b"<a><b/></a>").unwrap().root_element().first_element_child().unwrap().name(), "b");
}

#[test]
fn error_positions() {
    // errors carry the line and column (in characters) of the offending byte
    let doc = "<a>\n  é\u{1}</a>";
    let e = parse_err(doc.as_bytes());
    assert_eq!(e.offset() as usize, doc.find('\u{1}').unwrap());
    assert_eq!((e.line(), e.column()), (2, 4));
    let e = parse_err(b"<a>\r\n<b>");
    assert!(matches!(e.kind(), ErrorKind::UnclosedElement { .. } | ErrorKind::UnexpectedEof { .. }), "{e}");
    assert_eq!((e.line(), e.column()), (2, 4));
    assert_eq!(e.offset(), 8);
    // with a BOM, offsets are input offsets
    let e = parse_err(b"\xEF\xBB\xBF<a>\x01</a>");
    assert_eq!(e.offset(), 6);
}

#[test]

fn markup_entities_keep_carriage_returns_from_character_references() {
    // The replacement text of `e` holds a real CR (from `&#13;`). End-of-line handling
    // applies to the input (§2.11), not to replacement text, so the CR survives, as it
    // does for an entity without markup.
    let plain = parse_ok(b"<!DOCTYPE r [<!ENTITY e 'a&#13;b'>]><r>&e;</r>");
    assert_eq!(plain.root_element().value(), "a\rb");
    let d = parse_ok(b"<!DOCTYPE r [<!ENTITY e 'a&#13;b<x/>'>]><r>&e;</r>");
    assert_eq!(d.root_element().text().as_deref(), Some("a\rb"));
    let d = parse_ok(b"<!DOCTYPE r [<!ENTITY e 'a&#13;&#10;b<x/>'>]><r>&e;</r>");
    assert_eq!(d.root_element().text().as_deref(), Some("a\r\nb"));
    let d = parse_ok(b"<!DOCTYPE r [<!ENTITY e '<![CDATA[a&#13;b]]>'>]><r>&e;</r>");
    assert_eq!(d.root_element().value(), "a\rb");
    // in an attribute value of the replacement text, CR and LF are two white space
    // characters: two spaces (§3.3.3)
    let d = parse_ok(b"<!DOCTYPE r [<!ENTITY e \"<x a='&#13;&#10;'/>\">]><r>&e;</r>");
    assert_eq!(d.root_element().first_element_child().unwrap().attribute("a").as_deref(), Some("  "));
}

#[test]

fn errors_inside_markup_entities_point_into_the_input() {
    // Error offsets of a UTF-8 input are input offsets (error.rs); an error found in
    // the replacement text of `bad` belongs at the reference `&bad;`.
    let doc = format!("<!DOCTYPE r [<!ENTITY big '<b>{}</b>'><!ENTITY bad '<u:x/>'>]><r>&big;&bad;</r>", "x".repeat(50));
    let e = parse_err(doc.as_bytes());
    assert!(matches!(e.kind(), ErrorKind::UndeclaredPrefix { .. }), "{e}");
    let at = find(doc.as_bytes(), "&bad;");
    assert!((at..at + 5).contains(&(e.offset() as usize)), "error at byte {} of a {}-byte input, expected {at}", e.offset(), doc.len());
}

#[test]
fn plain_content_is_the_text_only_when_it_stands_as_written() {
    let doc = Document::parse(
        b"<r><a>9.5</a><b/><c></c><d x='1' y=\"2\" >text with > and ]</d><e>x&amp;y</e><f>x<g/></f>\
          <h><!--c--></h><i>line\r\nbreak</i><j><![CDATA[z]]></j><k>  spaced  </k></r>",
    )
    .unwrap();
    let got: Vec<(String, Option<Vec<u8>>)> =
        doc.root_element().element_children().map(|e| (e.name().to_string(), e.plain_content().map(<[u8]>::to_vec))).collect();
    let want: Vec<(String, Option<Vec<u8>>)> = [
        ("a", Some(&b"9.5"[..])),
        ("b", Some(b"")),
        ("c", Some(b"")),
        ("d", Some(b"text with > and ]")),
        ("e", None), // a reference: the text is not the bytes
        ("f", None), // a child element
        ("h", None), // a comment
        ("i", None), // a CR: the text reads LF
        ("j", None), // CDATA
        ("k", Some(b"  spaced  ")),
    ]
    .into_iter()
    .map(|(n, v)| (n.to_string(), v.map(<[u8]>::to_vec)))
    .collect();
    assert_eq!(got, want);
    // each plain content is the element's string value
    for e in doc.root_element().element_children() {
        if let Some(raw) = e.plain_content() {
            assert_eq!(std::str::from_utf8(raw).unwrap(), e.value(), "{}", e.name());
        }
    }
    // not an element
    assert_eq!(doc.root().plain_content(), None);
    let attr = doc.root_element().element_children().nth(3).unwrap().attributes().next().unwrap();
    assert_eq!(attr.plain_content(), None);
}
