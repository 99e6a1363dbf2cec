//! The Recommendation's examples (§2.1, §2.5, §4), per axis and per function,
//! and the data-model and number rules.

use std::ops::ControlFlow;

use vtdx_core::Document;
use vtdx_xpath::{CallContext, Context, ErrorKind, Functions, Namespaces, Value, XNodeKind, XPath};

fn ns() -> Namespaces {
    Namespaces::new().with("p", "urn:p").with("q", "urn:q").with("d", "urn:d")
}

/// Evaluates `expr` on `xml` from the root and renders the result: node-sets
/// as `path=value` joined by ` | `, scalars as `type:string()`.
fn ev(xml: &str, expr: &str) -> String {
    let doc = Document::parse(xml.as_bytes()).unwrap();
    ev_at(&doc, "/", expr)
}

/// Like [`ev`], with the context node selected by `context`.
fn ev_at(doc: &Document<'_>, context: &str, expr: &str) -> String {
    let c = XPath::compile(context, &ns()).unwrap().first(doc.root()).unwrap().expect("context node");
    let ctx = Context::new(doc);
    let xp = XPath::compile(expr, &ns()).unwrap_or_else(|e| panic!("{expr}: {e}"));
    render(xp.evaluate_in(&ctx, c).unwrap_or_else(|e| panic!("{expr}: {e}")))
}

fn render(v: Value<'_>) -> String {
    match v {
        Value::NodeSet(s) => s.iter().map(|n| format!("{}={}", n.path(), n.string_value())).collect::<Vec<_>>().join(" | "),
        v => format!("{}:{}", v.type_name(), v.string()),
    }
}

/// Just the paths of a node-set.
fn paths(xml: &str, expr: &str) -> String {
    let doc = Document::parse(xml.as_bytes()).unwrap();
    paths_at(&doc, "/", expr)
}

fn paths_at(doc: &Document<'_>, context: &str, expr: &str) -> String {
    let c = XPath::compile(context, &ns()).unwrap().first(doc.root()).unwrap().expect("context node");
    let ctx = Context::new(doc);
    let xp = XPath::compile(expr, &ns()).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let s = xp.select_in(&ctx, c).unwrap_or_else(|e| panic!("{expr}: {e}"));
    s.iter().map(|n| n.path()).collect::<Vec<_>>().join(" ")
}

fn num(expr: &str) -> f64 {
    let doc = Document::parse(b"<a/>").unwrap();
    match XPath::compile(expr, &ns()).unwrap().evaluate(doc.root()).unwrap() {
        Value::Number(n) => n,
        v => panic!("{expr}: {v:?}"),
    }
}

fn s(expr: &str) -> String {
    ev("<a/>", expr)
}

// A document for the §2.5 examples. Paths: doc = /*[1]; chapter 1 = /*[1]/*[1];
// appendix = /*[1]/*[2]; chapter 2 = /*[1]/*[3]; employees = /*[1]/*[4], /*[1]/*[5].
const DOC: &str = concat!(
    r#"<doc lang="en">"#,
    r#"<chapter n="1"><title>Introduction</title><para type="warning">w1</para><para>p2</para><para type="warning">w3</para>"#,
    r#"<section><para>s1</para></section></chapter>"#,
    r#"<appendix n="a"><para>ap</para></appendix>"#,
    r#"<chapter n="2"><title>Two</title><para>x</para></chapter>"#,
    r#"<employee secretary="s" assistant="a"/><employee secretary="s"/>"#,
    r#"</doc>"#
);

#[test]
fn abbreviated_syntax_examples() {
    let d = Document::parse(DOC.as_bytes()).unwrap();
    let ch1 = "/doc/chapter[1]";
    assert_eq!(paths_at(&d, ch1, "para"), "/*[1]/*[1]/*[2] /*[1]/*[1]/*[3] /*[1]/*[1]/*[4]");
    assert_eq!(paths_at(&d, ch1, "*").split(' ').count(), 5);
    assert_eq!(paths_at(&d, "/doc/chapter[1]/title", "text()"), "/*[1]/*[1]/*[1]/text()[1]");
    assert_eq!(ev_at(&d, ch1, "@n"), "/*[1]/*[1]/@n=1");
    assert_eq!(paths_at(&d, "/doc/employee[1]", "@*"), "/*[1]/*[4]/@secretary /*[1]/*[4]/@assistant");
    assert_eq!(paths_at(&d, ch1, "para[1]"), "/*[1]/*[1]/*[2]");
    assert_eq!(paths_at(&d, ch1, "para[last()]"), "/*[1]/*[1]/*[4]");
    assert_eq!(paths_at(&d, "/doc", "*/para"), "/*[1]/*[1]/*[2] /*[1]/*[1]/*[3] /*[1]/*[1]/*[4] /*[1]/*[2]/*[1] /*[1]/*[3]/*[2]");
    assert_eq!(paths(DOC, "/doc/chapter[2]/para[1]"), "/*[1]/*[3]/*[2]");
    assert_eq!(paths_at(&d, ch1, "section//para"), "/*[1]/*[1]/*[5]/*[1]");
    assert_eq!(paths(DOC, "//para").split(' ').count(), 6);
    assert_eq!(paths_at(&d, ch1, "."), "/*[1]/*[1]");
    assert_eq!(paths_at(&d, ch1, ".//para").split(' ').count(), 4);
    assert_eq!(paths_at(&d, ch1, ".."), "/*[1]");
    assert_eq!(ev_at(&d, ch1, "../@lang"), "/*[1]/@lang=en");
    assert_eq!(paths_at(&d, ch1, "para[@type=\"warning\"]"), "/*[1]/*[1]/*[2] /*[1]/*[1]/*[4]");
    assert_eq!(paths_at(&d, ch1, "para[@type=\"warning\"][2]"), "/*[1]/*[1]/*[4]");
    assert_eq!(paths_at(&d, ch1, "para[2][@type=\"warning\"]"), "");
    assert_eq!(paths_at(&d, ch1, "para[3][@type=\"warning\"]"), "/*[1]/*[1]/*[4]");
    assert_eq!(paths(DOC, "/doc/chapter[title=\"Introduction\"]"), "/*[1]/*[1]");
    assert_eq!(paths(DOC, "/doc/chapter[title]"), "/*[1]/*[1] /*[1]/*[3]");
    assert_eq!(paths(DOC, "/doc/employee[@secretary and @assistant]"), "/*[1]/*[4]");
}

#[test]
fn unabbreviated_examples() {
    let d = Document::parse(DOC.as_bytes()).unwrap();
    let ch1 = "/doc/chapter[1]";
    assert_eq!(paths_at(&d, ch1, "child::para"), paths_at(&d, ch1, "para"));
    assert_eq!(paths_at(&d, ch1, "child::node()").split(' ').count(), 5);
    assert_eq!(paths_at(&d, ch1, "attribute::*"), "/*[1]/*[1]/@n");
    assert_eq!(paths_at(&d, ch1, "descendant::para").split(' ').count(), 4);
    assert_eq!(paths_at(&d, "//section/para", "ancestor::chapter"), "/*[1]/*[1]");
    assert_eq!(paths_at(&d, "//section", "ancestor-or-self::*"), "/*[1] /*[1]/*[1] /*[1]/*[1]/*[5]");
    assert_eq!(paths_at(&d, "//section", "descendant-or-self::para"), "/*[1]/*[1]/*[5]/*[1]");
    assert_eq!(paths_at(&d, ch1, "self::para"), "");
    assert_eq!(paths_at(&d, ch1, "self::chapter"), "/*[1]/*[1]");
    assert_eq!(paths(DOC, "/"), "/");
    assert_eq!(paths(DOC, "/descendant::para").split(' ').count(), 6);
    assert_eq!(paths_at(&d, ch1, "child::para[position()=last()-1]"), "/*[1]/*[1]/*[3]");
    assert_eq!(paths_at(&d, ch1, "child::para[position()>1]"), "/*[1]/*[1]/*[3] /*[1]/*[1]/*[4]");
    assert_eq!(paths_at(&d, ch1, "following-sibling::chapter[position()=1]"), "/*[1]/*[3]");
    assert_eq!(paths_at(&d, "/doc/chapter[2]", "preceding-sibling::chapter[position()=1]"), "/*[1]/*[1]");
    assert_eq!(paths(DOC, "/descendant::para[position()=5]"), "/*[1]/*[2]/*[1]");
    assert_eq!(paths(DOC, "/child::doc/child::chapter[position()=2]/child::para[position()=1]"), "/*[1]/*[3]/*[2]");
    assert_eq!(paths(DOC, "/doc/*[self::chapter or self::appendix]"), "/*[1]/*[1] /*[1]/*[2] /*[1]/*[3]");
    assert_eq!(paths(DOC, "/doc/*[self::chapter or self::appendix][position()=last()]"), "/*[1]/*[3]");
}

/// Every axis from one context node, in document order, with proximity
/// positions counted backwards on reverse axes.
#[test]
fn axes() {
    let xml = "<r><a><a1/><a2/></a><b x='1' y='2'><b1>t</b1><!--c--><b2/><?pi d?></b><c><c1/></c></r>";
    let d = Document::parse(xml.as_bytes()).unwrap();
    let b = "/r/b";
    let at = |e: &str| paths_at(&d, b, e);
    assert_eq!(at("child::node()"), "/*[1]/*[2]/*[1] /*[1]/*[2]/comment()[1] /*[1]/*[2]/*[2] /*[1]/*[2]/processing-instruction()[1]");
    assert_eq!(
        at("descendant::node()"),
        "/*[1]/*[2]/*[1] /*[1]/*[2]/*[1]/text()[1] /*[1]/*[2]/comment()[1] /*[1]/*[2]/*[2] /*[1]/*[2]/processing-instruction()[1]"
    );
    assert_eq!(at("descendant-or-self::*"), "/*[1]/*[2] /*[1]/*[2]/*[1] /*[1]/*[2]/*[2]");
    assert_eq!(at("parent::node()"), "/*[1]");
    assert_eq!(at("ancestor::node()"), "/ /*[1]");
    assert_eq!(at("ancestor-or-self::node()"), "/ /*[1] /*[1]/*[2]");
    assert_eq!(at("following-sibling::*"), "/*[1]/*[3]");
    assert_eq!(at("preceding-sibling::*"), "/*[1]/*[1]");
    assert_eq!(at("following::*"), "/*[1]/*[3] /*[1]/*[3]/*[1]");
    assert_eq!(at("preceding::*"), "/*[1]/*[1] /*[1]/*[1]/*[1] /*[1]/*[1]/*[2]");
    assert_eq!(at("attribute::*"), "/*[1]/*[2]/@x /*[1]/*[2]/@y");
    assert_eq!(at("namespace::*"), "/*[1]/*[2]/namespace::xml");
    assert_eq!(at("self::*"), "/*[1]/*[2]");
    // Reverse axes number positions from the context node outwards (§2.4).
    assert_eq!(at("preceding::*[1]"), "/*[1]/*[1]/*[2]");
    assert_eq!(at("preceding::*[last()]"), "/*[1]/*[1]");
    assert_eq!(at("preceding::*[2]"), "/*[1]/*[1]/*[1]");
    assert_eq!(at("(preceding::*)[1]"), "/*[1]/*[1]");
    assert_eq!(at("ancestor::*[1]"), "/*[1]");
    assert_eq!(at("ancestor-or-self::node()[last()]"), "/");
    assert_eq!(paths_at(&d, "/r/b/b2", "preceding-sibling::node()[1]"), "/*[1]/*[2]/comment()[1]");
    assert_eq!(paths_at(&d, "/r/b/b2", "preceding-sibling::node()[position() < 3]"), "/*[1]/*[2]/*[1] /*[1]/*[2]/comment()[1]");
    // Attributes: parent is the element; no siblings, no children.
    assert_eq!(paths_at(&d, "/r/b/@y", "parent::*"), "/*[1]/*[2]");
    assert_eq!(paths_at(&d, "/r/b/@y", "following-sibling::node() | preceding-sibling::node() | child::node()"), "");
    // following of an attribute includes its element's children (they come
    // after it and are not its descendants); preceding excludes the element.
    assert_eq!(paths_at(&d, "/r/b/@x", "following::*"), "/*[1]/*[2]/*[1] /*[1]/*[2]/*[2] /*[1]/*[3] /*[1]/*[3]/*[1]");
    assert_eq!(paths_at(&d, "/r/b/@x", "preceding::*"), "/*[1]/*[1] /*[1]/*[1]/*[1] /*[1]/*[1]/*[2]");
    // The root: no parent, no siblings.
    assert_eq!(paths(xml, "/parent::node() | /following-sibling::node() | /preceding::node()"), "");
    // ancestor, descendant, following, preceding and self partition the
    // document (attributes and namespace nodes aside), §2.2.
    for c in ["/r/b", "/r/b/b1/text()", "/r/a/a2", "/r/b/comment()"] {
        let total = ev_at(&d, c, "count(/descendant-or-self::node())");
        let union = ev_at(&d, c, "count(ancestor::node() | descendant::node() | following::node() | preceding::node() | self::node())");
        let sum =
            ev_at(&d, c, "count(ancestor::node()) + count(descendant::node()) + count(following::node()) + count(preceding::node()) + 1");
        assert_eq!(total, union, "{c}");
        assert_eq!(total, sum, "{c}");
    }
}

#[test]
fn namespace_axis_and_nodes() {
    let xml = r#"<a xmlns="urn:d" xmlns:p="urn:p"><b xmlns:q="urn:q"><c xmlns:p="urn:p2" xmlns=""/></b></a>"#;
    let d = Document::parse(xml.as_bytes()).unwrap();
    assert_eq!(ev(xml, "count(/d:a/namespace::*)"), "number:3");
    assert_eq!(
        ev_at(&d, "/d:a/d:b", "namespace::node()"),
        "/*[1]/*[1]/namespace::xml=http://www.w3.org/XML/1998/namespace | /*[1]/*[1]/namespace::=urn:d | /*[1]/*[1]/namespace::p=urn:p | /*[1]/*[1]/namespace::q=urn:q"
    );
    // Redeclared p, undeclared default.
    assert_eq!(ev(xml, "//c/namespace::p"), "/*[1]/*[1]/*[1]/namespace::p=urn:p2");
    assert_eq!(ev(xml, "count(//c/namespace::*)"), "number:3");
    // Name tests on the namespace axis match the prefix; namespace nodes have no namespace URI.
    assert_eq!(ev(xml, "name(/d:a/namespace::p)"), "string:p");
    assert_eq!(ev(xml, "local-name(/d:a/namespace::p)"), "string:p");
    assert_eq!(ev(xml, "namespace-uri(/d:a/namespace::p)"), "string:");
    assert_eq!(ev(xml, "count(/d:a/namespace::p:*)"), "number:0");
    // A namespace node's parent is its element; namespace nodes come before attributes.
    assert_eq!(paths(xml, "/d:a/namespace::p/.."), "/*[1]");
    assert_eq!(paths(r#"<a x="1" xmlns:p="urn:p"/>"#, "/a/@x | /a/namespace::p | /a"), "/*[1] /*[1]/namespace::p /*[1]/@x");
    // Each element has its own copies.
    assert_eq!(ev(xml, "count(//namespace::xml)"), "number:3");
    // xmlns declarations are not attributes.
    assert_eq!(ev(xml, "count(//@*)"), "number:0");
}

#[test]
fn name_tests_use_namespace_uris() {
    let xml = r#"<a xmlns="urn:d" xmlns:x="urn:p"><x:b/><b/><c xmlns="">1</c></a>"#;
    // Unprefixed names are in no namespace, whatever the document's default (§2.3).
    assert_eq!(paths(xml, "/a"), "");
    assert_eq!(paths(xml, "/d:a/p:b"), "/*[1]/*[1]");
    assert_eq!(paths(xml, "/d:a/d:b"), "/*[1]/*[2]");
    assert_eq!(paths(xml, "/d:a/c"), "/*[1]/*[3]");
    assert_eq!(paths(xml, "/*/p:*"), "/*[1]/*[1]");
    assert_eq!(paths(xml, "/*/d:*"), "/*[1]/*[2]");
    assert_eq!(ev(xml, "name(/*/*[1])"), "string:x:b");
    assert_eq!(ev(xml, "namespace-uri(/*/*[1])"), "string:urn:p");
    assert_eq!(ev(xml, "local-name(/*/*[1])"), "string:b");
    let attrs = r#"<a xmlns:p="urn:p" p:x="1" x="2"/>"#;
    assert_eq!(ev(attrs, "/a/@p:x"), "/*[1]/@{urn:p}x=1");
    assert_eq!(ev(attrs, "/a/@x"), "/*[1]/@x=2");
    assert_eq!(ev(attrs, "count(/a/@p:*)"), "number:1");
    let e = XPath::compile("/z:a", &ns()).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::UnboundPrefix("z".into()));
}

#[test]
fn text_nodes_merge_text_and_cdata() {
    let xml = "<a>x<![CDATA[<y>]]>z<b/><![CDATA[]]><c/>w<![CDATA[]]></a>";
    assert_eq!(ev(xml, "/a/text()"), "/*[1]/text()[1]=x<y>z | /*[1]/text()[2]=w");
    assert_eq!(ev(xml, "count(/a/node())"), "number:4");
    assert_eq!(ev(xml, "string(/a/text()[1])"), "string:x<y>z");
    assert_eq!(ev(xml, "/a/b/following-sibling::node()[1]"), "/*[1]/*[2]=");
    assert_eq!(ev(xml, "count(//text())"), "number:2");
    // Entities are expanded; character references resolved.
    let xml = "<!DOCTYPE a [<!ENTITY e 'E'><!ENTITY m '<i>z</i>'>]><a>1&e;2&#51;&m;4</a>";
    assert_eq!(ev(xml, "/a/text()"), "/*[1]/text()[1]=1E23 | /*[1]/text()[2]=4");
    assert_eq!(ev(xml, "string(/a)"), "string:1E23z4");
    assert_eq!(ev(xml, "/a/i"), "/*[1]/*[1]=z");
}

#[test]
fn root_and_document_element_are_distinct() {
    let xml = "<!--a--><r>t</r><?p x?>";
    assert_eq!(paths(xml, "/node()"), "/comment()[1] /*[1] /processing-instruction()[1]");
    assert_eq!(paths(xml, "/r/.."), "/");
    assert_eq!(ev(xml, "string(/)"), "string:t");
    assert_eq!(ev(xml, "name(/)"), "string:");
    assert_eq!(ev(xml, "count(/self::node())"), "number:1");
    assert_eq!(ev(xml, "count(/*)"), "number:1");
}

#[test]
fn attribute_values_are_normalized() {
    let xml = "<!DOCTYPE a [<!ATTLIST a t NMTOKENS #IMPLIED>]><a t='  x   y ' c='a&#10;b\tc'/>";
    assert_eq!(ev(xml, "string(/a/@t)"), "string:x y");
    assert_eq!(ev(xml, "string(/a/@c)"), "string:a\nb c");
}

#[test]
fn unions_are_in_document_order_without_duplicates() {
    let xml = "<a><b/><c/><d/></a>";
    assert_eq!(paths(xml, "//d | //b | //c | //b"), "/*[1]/*[1] /*[1]/*[2] /*[1]/*[3]");
    assert_eq!(paths(xml, "(//d | //b)[1]"), "/*[1]/*[1]");
    assert_eq!(paths(xml, "(//d | //b)[last()]"), "/*[1]/*[3]");
    assert_eq!(paths(xml, "//*/.. | /a"), "/ /*[1]");
    assert!(XPath::compile("1 | //a", &ns()).unwrap().evaluate(Document::parse(b"<a/>").unwrap().root()).is_err());
}

#[test]
fn predicates_nested_and_positional() {
    let xml = "<a><b><c/><c/><c/></b><b><c/></b><b/></a>";
    assert_eq!(paths(xml, "/a/b[c[3]]"), "/*[1]/*[1]");
    assert_eq!(paths(xml, "/a/b[count(c) = 1]"), "/*[1]/*[2]");
    assert_eq!(paths(xml, "//c[1]"), "/*[1]/*[1]/*[1] /*[1]/*[2]/*[1]");
    assert_eq!(paths(xml, "(//c)[1]"), "/*[1]/*[1]/*[1]");
    assert_eq!(paths(xml, "(//c)[last()]"), "/*[1]/*[2]/*[1]");
    assert_eq!(paths(xml, "//c[last()]"), "/*[1]/*[1]/*[3] /*[1]/*[2]/*[1]");
    assert_eq!(paths(xml, "/a/b[last()][1]"), "/*[1]/*[3]");
    assert_eq!(paths(xml, "/a/b[position() = last() - 1]"), "/*[1]/*[2]");
    assert_eq!(paths(xml, "/a/b/c[position() mod 2 = 1]"), "/*[1]/*[1]/*[1] /*[1]/*[1]/*[3] /*[1]/*[2]/*[1]");
    assert_eq!(paths(xml, "/a/b[c][2]"), "/*[1]/*[2]");
    assert_eq!(paths(xml, "/a/b[2][c]"), "/*[1]/*[2]");
    assert_eq!(paths(xml, "/a/b[0]"), "");
    assert_eq!(paths(xml, "/a/b[1.5]"), "");
    assert_eq!(paths(xml, "/a/b[0 div 0]"), "");
    assert_eq!(paths(xml, "/a/b['']"), "");
    assert_eq!(paths(xml, "/a/b['x']").split(' ').count(), 3);
    assert_eq!(paths(xml, "/a/*[last()][position() = 1]"), "/*[1]/*[3]");
    assert_eq!(paths(xml, "//c[../../b[1]/c[2]]").split(' ').count(), 4);
    // A predicate number compares with the position (§2.4).
    assert_eq!(paths(xml, "/a/b[count(../b)]"), "/*[1]/*[3]");
    assert_eq!(paths(xml, "/a/b[true()][last()]"), "/*[1]/*[3]");
}

#[test]
fn core_functions() {
    let xml = r#"<!DOCTYPE a [<!ATTLIST b id ID #IMPLIED>]><a xml:lang="en-GB"><b id="x1">1</b><b id=" x2 ">2.5</b><c xml:lang="fr">f<d/></c></a>"#;
    let d = Document::parse(xml.as_bytes()).unwrap();
    // Node-set functions.
    assert_eq!(ev(xml, "count(//b)"), "number:2");
    assert_eq!(ev_at(&d, "//b[2]", "position()"), "number:1");
    assert_eq!(ev(xml, "/a/b[last()]/@id"), "/*[1]/*[2]/@id=x2");
    assert_eq!(ev(xml, "id('x2')"), "/*[1]/*[2]=2.5");
    assert_eq!(ev(xml, "id('x2 nothing x1')"), "/*[1]/*[1]=1 | /*[1]/*[2]=2.5");
    assert_eq!(ev(xml, "id(//b/@id)"), "/*[1]/*[1]=1 | /*[1]/*[2]=2.5");
    assert_eq!(ev(xml, "count(id('b'))"), "number:0");
    assert_eq!(ev(xml, "local-name(//c)"), "string:c");
    assert_eq!(ev(xml, "name(//nothing)"), "string:");
    assert_eq!(ev_at(&d, "//c", "name()"), "string:c");
    assert_eq!(ev(xml, "namespace-uri(//@xml:lang)"), "string:http://www.w3.org/XML/1998/namespace");
    assert_eq!(ev(xml, "name(//@xml:lang)"), "string:xml:lang");
    // String functions.
    assert_eq!(ev(xml, "string(//b)"), "string:1");
    assert_eq!(ev_at(&d, "//c", "string()"), "string:f");
    assert_eq!(s("concat('a', 1, true())"), "string:a1true");
    assert_eq!(s("starts-with('abc', 'ab')"), "boolean:true");
    assert_eq!(s("starts-with('abc', '')"), "boolean:true");
    assert_eq!(s("contains('abc', 'bc')"), "boolean:true");
    assert_eq!(s("contains('abc', 'd')"), "boolean:false");
    assert_eq!(s("substring-before('1999/04/01', '/')"), "string:1999");
    assert_eq!(s("substring-after('1999/04/01', '/')"), "string:04/01");
    assert_eq!(s("substring-after('1999/04/01', '19')"), "string:99/04/01");
    assert_eq!(s("substring-after('abc', '')"), "string:abc");
    assert_eq!(s("substring-before('abc', '')"), "string:");
    assert_eq!(s("substring('12345', 2, 3)"), "string:234");
    assert_eq!(s("substring('12345', 2)"), "string:2345");
    assert_eq!(s("substring('12345', 1.5, 2.6)"), "string:234");
    assert_eq!(s("substring('12345', 0, 3)"), "string:12");
    assert_eq!(s("substring('12345', 0 div 0, 3)"), "string:");
    assert_eq!(s("substring('12345', 1, 0 div 0)"), "string:");
    assert_eq!(s("substring('12345', -42, 1 div 0)"), "string:12345");
    assert_eq!(s("substring('12345', -1 div 0, 1 div 0)"), "string:");
    assert_eq!(s("string-length('ab\u{1F600}')"), "number:3");
    assert_eq!(ev_at(&d, "//b[2]", "string-length()"), "number:3");
    assert_eq!(s("normalize-space('  a \t\n b  ')"), "string:a b");
    assert_eq!(s("translate('bar', 'abc', 'ABC')"), "string:BAr");
    assert_eq!(s("translate('--aaa--', 'abc-', 'ABC')"), "string:AAA");
    // Boolean functions.
    assert_eq!(s("boolean(0)"), "boolean:false");
    assert_eq!(s("boolean(0 div 0)"), "boolean:false");
    assert_eq!(s("boolean('0')"), "boolean:true");
    assert_eq!(s("boolean(/a)"), "boolean:true");
    assert_eq!(s("not(/nothing)"), "boolean:true");
    assert_eq!(s("true() and not(false())"), "boolean:true");
    assert_eq!(ev_at(&d, "//b[1]", "lang('en')"), "boolean:true");
    assert_eq!(ev_at(&d, "//b[1]", "lang('EN-gb')"), "boolean:true");
    assert_eq!(ev_at(&d, "//b[1]", "lang('en-US')"), "boolean:false");
    assert_eq!(ev_at(&d, "//d", "lang('fr')"), "boolean:true");
    assert_eq!(ev_at(&d, "//d", "lang('en')"), "boolean:false");
    assert_eq!(ev_at(&d, "//c/@xml:lang", "lang('fr')"), "boolean:true");
    // Number functions.
    assert_eq!(ev(xml, "sum(//b)"), "number:3.5");
    assert_eq!(ev(xml, "sum(//nothing)"), "number:0");
    assert_eq!(ev(xml, "number(//b[2])"), "number:2.5");
    assert_eq!(ev_at(&d, "//b[1]", "number()"), "number:1");
    assert_eq!(s("number('  -1.5 ')"), "number:-1.5");
    assert_eq!(s("number('1e3')"), "number:NaN");
    assert_eq!(s("number(true())"), "number:1");
    assert_eq!(s("floor(-1.5)"), "number:-2");
    assert_eq!(s("ceiling(-1.5)"), "number:-1");
    assert_eq!(s("round(2.5)"), "number:3");
    assert_eq!(s("round(-2.5)"), "number:-2");
    assert!(num("round(-0.5)").is_sign_negative() && num("round(-0.5)") == 0.0);
    assert!(num("round(-0.2)").is_sign_negative());
    assert!(num("ceiling(-0.5)").is_sign_negative());
    assert!(num("round(0 div 0)").is_nan());
    // Type errors name the function.
    let e = XPath::compile("count(1)", &ns()).unwrap().evaluate(d.root()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::NotANodeSet(m) if m.contains("count")), "{e}");
}

#[test]
fn numbers_follow_ieee_754() {
    assert_eq!(num("1 div 0"), f64::INFINITY);
    assert_eq!(num("-1 div 0"), f64::NEG_INFINITY);
    assert!(num("0 div 0").is_nan());
    assert_eq!(num("1 div -0"), f64::NEG_INFINITY);
    assert_eq!(num("5 mod 2"), 1.0);
    assert_eq!(num("5 mod -2"), 1.0);
    assert_eq!(num("-5 mod 2"), -1.0);
    assert_eq!(num("-5 mod -2"), -1.0);
    assert_eq!(num("5.5 mod 2"), 1.5);
    assert!(num("1 mod 0").is_nan());
    assert_eq!(num("3 - 2 - 1"), 0.0);
    assert_eq!(num("8 div 4 div 2"), 1.0);
    assert_eq!(num("- - 2"), 2.0);
    assert_eq!(num("2 * 3 + 4 * 5"), 26.0);
    for (e, want) in [
        ("string(1 div 0)", "Infinity"),
        ("string(-1 div 0)", "-Infinity"),
        ("string(0 div 0)", "NaN"),
        ("string(-0)", "0"),
        ("string(1.0)", "1"),
        ("string(-2.50)", "-2.5"),
        ("string(0.1 + 0.2)", "0.30000000000000004"),
        ("string(1 div 3)", "0.3333333333333333"),
        ("string(0.000001)", "0.000001"),
        ("string(123456789012)", "123456789012"),
        ("string(100000000000000000000000)", "100000000000000000000000"),
    ] {
        assert_eq!(s(e), format!("string:{want}"), "{e}");
    }
}

#[test]
fn comparisons() {
    let xml = "<a><b>1</b><b>2</b><c>2</c><c>3</c><e/></a>";
    // Node-set with node-set: some pair compares true.
    assert_eq!(ev(xml, "//b = //c"), "boolean:true");
    assert_eq!(ev(xml, "//b != //c"), "boolean:true");
    assert_eq!(ev(xml, "//b < //c"), "boolean:true");
    assert_eq!(ev(xml, "//b > //c"), "boolean:false");
    assert_eq!(ev(xml, "//b >= //c"), "boolean:true");
    assert_eq!(ev(xml, "//nothing = //nothing"), "boolean:false");
    assert_eq!(ev(xml, "//nothing != //nothing"), "boolean:false");
    // Node-set with number, string, boolean.
    assert_eq!(ev(xml, "//b = 2"), "boolean:true");
    assert_eq!(ev(xml, "//b != 2"), "boolean:true");
    assert_eq!(ev(xml, "2 > //b"), "boolean:true");
    assert_eq!(ev(xml, "//b = '2'"), "boolean:true");
    assert_eq!(ev(xml, "//b < '2'"), "boolean:true");
    assert_eq!(ev(xml, "//e = ''"), "boolean:true");
    assert_eq!(ev(xml, "//b = true()"), "boolean:true");
    assert_eq!(ev(xml, "//nothing = false()"), "boolean:true");
    assert_eq!(ev(xml, "//nothing < 1"), "boolean:false");
    // Scalars: booleans first, then numbers, then strings (§3.4).
    assert_eq!(s("1 = '1.0'"), "boolean:true");
    assert_eq!(s("'1' = '1.0'"), "boolean:false");
    assert_eq!(s("true() = 'false'"), "boolean:true");
    assert_eq!(s("true() = 2"), "boolean:true");
    assert_eq!(s("'a' < 'b'"), "boolean:false");
    assert_eq!(s("0 div 0 = 0 div 0"), "boolean:false");
    assert_eq!(s("0 div 0 != 0 div 0"), "boolean:true");
    assert_eq!(s("1 = 2 = 2"), "boolean:false");
    assert_eq!(s("3 > 2 > 1"), "boolean:false");
    assert_eq!(s("true() > false()"), "boolean:true");
}

#[test]
fn variables() {
    let doc = Document::parse(b"<a><b n='1'/><b n='2'/></a>").unwrap();
    let mut ctx = Context::new(&doc);
    ctx.set_variable("n", "2");
    ctx.set_variable("k", 1.0);
    let nodes = XPath::compile("//b", &ns()).unwrap().select(doc.root()).unwrap();
    ctx.set_variable("set", nodes);
    ctx.set_variable_ns("urn:p", "v", true);
    let ev = |e: &str| render(XPath::compile(e, &ns()).unwrap().evaluate_in(&ctx, doc.root().into()).unwrap());
    assert_eq!(ev("//b[@n = $n]"), "/*[1]/*[2]=");
    assert_eq!(ev("$set[$k]/@n"), "/*[1]/*[1]/@n=1");
    assert_eq!(ev("count($set/..)"), "number:1");
    assert_eq!(ev("$p:v"), "boolean:true");
    let e = XPath::compile("$nope", &ns()).unwrap().evaluate_in(&ctx, doc.root().into()).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::UnboundVariable("nope".into()));
    assert!(XPath::compile("$n/a", &ns()).unwrap().evaluate_in(&ctx, doc.root().into()).is_err());
}

#[test]
fn extension_functions() {
    fn twice<'d>(_: &CallContext<'_, 'd>, args: Vec<Value<'d>>) -> Result<Value<'d>, String> {
        match args.as_slice() {
            [v] => Ok(Value::Number(v.number() * 2.0)),
            _ => Err("twice() takes one argument".into()),
        }
    }
    fn ctx_name<'d>(cx: &CallContext<'_, 'd>, _: Vec<Value<'d>>) -> Result<Value<'d>, String> {
        Ok(Value::String(format!("{}@{}/{}", cx.node().name(), cx.position(), cx.size()).into()))
    }
    let mut f = Functions::new();
    f.insert_ns("urn:p", "twice", twice);
    f.insert("where", ctx_name);
    let doc = Document::parse(b"<a><b>3</b><b>4</b></a>").unwrap();
    let run = |e: &str| render(XPath::compile_with(e, &ns(), &f).unwrap().evaluate(doc.root()).unwrap());
    assert_eq!(run("p:twice(//b[2])"), "number:8");
    assert_eq!(run("sum(//b[p:twice(.) > 7])"), "number:4");
    assert_eq!(run("string(//b[where() = 'b@2/2'])"), "string:4");
    let e = XPath::compile_with("p:twice()", &ns(), &f).unwrap().evaluate(doc.root()).unwrap_err();
    assert!(e.to_string().contains("twice() takes one argument"), "{e}");
    assert_eq!(XPath::compile("p:nope(1)", &ns()).unwrap_err().kind(), &ErrorKind::UnknownFunction("p:nope".into()));
}

#[test]
fn laziness_and_reuse() {
    let doc = Document::parse(b"<a><item>1</item><item>2</item><item>3</item></a>").unwrap();
    let xp = XPath::compile("//item", &ns()).unwrap();
    assert_eq!(xp.first(doc.root()).unwrap().unwrap().string_value(), "1");
    let ctx = Context::new(&doc);
    let mut seen = Vec::new();
    xp.for_each_in(&ctx, doc.root().into(), |n| {
        seen.push(n.string_value().into_owned());
        if seen.len() == 2 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .unwrap();
    assert_eq!(seen, ["1", "2"]);
    // The same compiled expression on other documents and threads.
    let xp = std::sync::Arc::new(XPath::compile("count(//item)", &ns()).unwrap());
    let handles: Vec<_> = (1..4)
        .map(|n| {
            let xp = xp.clone();
            std::thread::spawn(move || {
                let xml = format!("<a>{}</a>", "<item/>".repeat(n));
                let doc = Document::parse(xml.as_bytes()).unwrap();
                xp.evaluate(doc.root()).unwrap().number()
            })
        })
        .collect();
    let counts: Vec<f64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(counts, [1.0, 2.0, 3.0]);
    // A reused context builds per-name lists; results are the same.
    let doc = Document::parse(b"<a><b><c/></b><c/><b><c/><c/></b></a>").unwrap();
    let ctx = Context::new(&doc);
    for e in ["//c", "//b//c", "/a/b[2]//c", "count(//c)", "//c", "//b//c"] {
        let x = XPath::compile(e, &ns()).unwrap();
        assert_eq!(render(x.evaluate_in(&ctx, doc.root().into()).unwrap()), render(x.evaluate(doc.root()).unwrap()), "{e}");
    }
}

#[test]
fn node_kinds_and_names() {
    let xml = "<a x='1'><!--c--><?t d?>text</a>";
    let doc = Document::parse(xml.as_bytes()).unwrap();
    let v = XPath::compile("/ | /a | /a/@x | /a/namespace::* | /a/node()", &ns()).unwrap().select(doc.root()).unwrap();
    let kinds: Vec<&str> = v.iter().map(|n| n.kind().name()).collect();
    assert_eq!(kinds, ["root", "element", "namespace", "attribute", "comment", "pi", "text"]);
    assert_eq!(v.iter().map(|n| n.name()).collect::<Vec<_>>(), ["", "a", "xml", "x", "", "t", ""]);
    assert_eq!(v.as_slice()[5].string_value(), "d");
    assert!(v.iter().all(|n| n.kind() == XNodeKind::Root || n.parent().is_some()));
    assert_eq!(ev(xml, "/a/processing-instruction('t')"), "/*[1]/processing-instruction()[1]=d");
    assert_eq!(ev(xml, "count(/a/processing-instruction('u'))"), "number:0");
}

#[test]
fn select_rejects_scalars() {
    let doc = Document::parse(b"<a/>").unwrap();
    let e = XPath::compile("1 + 1", &ns()).unwrap().select(doc.root()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::NotANodeSet(_)));
}

/// Attributes and namespace declarations defaulted by the internal subset are
/// on the attribute and namespace axes (XML 1.0 §3.3.2: they are part of the
/// data model a processor reports; XPath §5.3, §5.4).
#[test]
fn defaulted_attributes_and_namespaces_are_on_their_axes() {
    let xml = "<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA #FIXED 'urn:p' c CDATA 'v' t NMTOKENS ' x  y '>]><a k='1'><p:b/></a>";
    assert_eq!(ev(xml, "count(/a/@*)"), "number:3");
    assert_eq!(ev(xml, "string(/a/@t)"), "string:x y");
    assert_eq!(ev(xml, "concat(name(/a/@*[1]), name(/a/@*[2]), name(/a/@*[3]), /a/@*[2])"), "string:kctv");
    assert_eq!(ev(xml, "name(/a/@*[last()])"), "string:t");
    assert_eq!(ev(xml, "string(/a/p:b/namespace::p)"), "string:urn:p");
    assert_eq!(ev(xml, "count(/a/namespace::*)"), "number:2"); // p and xml
    assert_eq!(ev(xml, "namespace-uri(//p:b)"), "string:urn:p");
    // without attribute defaults the declaration still binds; the attributes are gone
    let doc = Document::parse_with(xml.as_bytes(), &vtdx_core::ParseOptions::new().attribute_defaults(false)).unwrap();
    assert_eq!(ev_at(&doc, "/", "count(/a/@*)"), "number:1");
    assert_eq!(ev_at(&doc, "/", "count(/a/p:b/namespace::p)"), "number:1");
    // id() finds defaulted and declared IDs, normalized
    let xml = "<!DOCTYPE r [<!ATTLIST e k ID 'd'><!ATTLIST f k ID #IMPLIED>]><r><e/><f k=' s '/></r>";
    assert_eq!(ev(xml, "count(id('d s'))"), "number:2");
    assert_eq!(ev(xml, "concat(name(id('d')), name(id(' s')))"), "string:ef");
}
