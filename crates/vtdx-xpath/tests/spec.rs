//! What the engine-independent cases of `testdata/xpath` (run by `shared.rs`
//! and by the Python suite) cannot say: variables bound to node-sets and
//! namespaced names, extension functions, the evaluation API (laziness, reuse,
//! threads, node kinds and names), error kinds, the orders the Recommendation
//! leaves to the implementation, and parse options.

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

/// Variables bound to node-sets and with namespaced names (strings, numbers
/// and booleans are in `testdata/xpath/variables.toml`).
#[test]
fn variables() {
    let doc = Document::parse(b"<a><b n='1'/><b n='2'/></a>").unwrap();
    let mut ctx = Context::new(&doc);
    ctx.set_variable("k", 1.0);
    let nodes = XPath::compile("//b", &ns()).unwrap().select(doc.root()).unwrap();
    ctx.set_variable("set", nodes);
    ctx.set_variable_ns("urn:p", "v", true);
    let ev = |e: &str| render(XPath::compile(e, &ns()).unwrap().evaluate_in(&ctx, doc.root().into()).unwrap());
    assert_eq!(ev("$set[$k]/@n"), "/*[1]/*[1]/@n=1");
    assert_eq!(ev("count($set/..)"), "number:1");
    assert_eq!(ev("$p:v"), "boolean:true");
    let e = XPath::compile("$nope", &ns()).unwrap().evaluate_in(&ctx, doc.root().into()).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::UnboundVariable("nope".into()));
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
}

#[test]
fn select_rejects_scalars() {
    let doc = Document::parse(b"<a/>").unwrap();
    let e = XPath::compile("1 + 1", &ns()).unwrap().select(doc.root()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::NotANodeSet(_)));
}

/// vtdx's orders where the Recommendation leaves them to the implementation
/// (§5): namespace nodes with `xml` first, then the declarations in scope from
/// the outermost; attributes as written, then those defaulted by the internal
/// subset in declaration order. The engine-independent cases, which compare
/// these as sets, are in `testdata/xpath`.
#[test]
fn implementation_defined_orders() {
    let xml = r#"<a xmlns="urn:d" xmlns:p="urn:p"><b xmlns:q="urn:q"><c xmlns:p="urn:p2" xmlns=""/></b></a>"#;
    let d = Document::parse(xml.as_bytes()).unwrap();
    assert_eq!(
        ev_at(&d, "/d:a/d:b", "namespace::node()"),
        "/*[1]/*[1]/namespace::xml=http://www.w3.org/XML/1998/namespace | /*[1]/*[1]/namespace::=urn:d | /*[1]/*[1]/namespace::p=urn:p | /*[1]/*[1]/namespace::q=urn:q"
    );
    let xml = "<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA #FIXED 'urn:p' c CDATA 'v' t NMTOKENS ' x  y '>]><a k='1'><p:b/></a>";
    assert_eq!(ev(xml, "concat(name(/a/@*[1]), name(/a/@*[2]), name(/a/@*[3]), /a/@*[2])"), "string:kctv");
    assert_eq!(ev(xml, "name(/a/@*[last()])"), "string:t");
}

/// Without attribute defaults (an option of the Rust API) a defaulted namespace
/// declaration still binds, and the defaulted attributes are gone.
#[test]
fn attribute_defaults_off() {
    let xml = "<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA #FIXED 'urn:p' c CDATA 'v' t NMTOKENS ' x  y '>]><a k='1'><p:b/></a>";
    let doc = Document::parse_with(xml.as_bytes(), &vtdx_core::ParseOptions::new().attribute_defaults(false)).unwrap();
    assert_eq!(ev_at(&doc, "/", "count(/a/@*)"), "number:1");
    assert_eq!(ev_at(&doc, "/", "count(/a/p:b/namespace::p)"), "number:1");
}

/// Error kinds (the shared cases only tell compile errors from evaluation errors).
#[test]
fn error_kinds() {
    let e = XPath::compile("/z:a", &ns()).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::UnboundPrefix("z".into()));
    let doc = Document::parse(b"<a/>").unwrap();
    // type errors name the function
    let e = XPath::compile("count(1)", &ns()).unwrap().evaluate(doc.root()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::NotANodeSet(m) if m.contains("count")), "{e}");
}

/// `text()` as the last step of an element path (the level-at-a-time walk takes it
/// directly for elements without child records): a text node is never empty
/// (XPath 1.0 §5.7), so content made only of a reference to an entity that expands
/// to nothing, an empty element and an empty CDATA section have no text child;
/// CDATA next to text is one text node; the start tag's end is found past an
/// attribute value holding `>` and past whitespace in the tag.
#[test]
fn text_children_at_the_end_of_an_element_path() {
    let xml = "<!DOCTYPE r [<!ENTITY e ''><!ENTITY f 'F'>]>\
        <r><a>&e;</a><a>x</a><a/><a></a><a><![CDATA[]]></a><a>&f;</a><a v='>' >y</a ><a>1<![CDATA[2]]>3</a><a><b/>z</a></r>";
    let want = "/r/a[2]/text()[1]=x | /r/a[6]/text()[1]=F | /r/a[7]/text()[1]=y | /r/a[8]/text()[1]=123 | /r/a[9]/text()[1]=z";
    for expr in ["/r/a/text()", "/r/a/text()[true()]", "/*/*/text()", "//a/text()"] {
        let got = ev(xml, expr);
        assert_eq!(got.replace("/*[1]/*[", "/r/a["), want, "{expr}");
    }
    assert_eq!(ev(xml, "count(/r/a/text())"), "number:5");
}
