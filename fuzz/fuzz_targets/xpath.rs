//! An XPath expression (the input's first line) compiled, and when it compiles,
//! evaluated on the rest of the input parsed as a document, from the root and
//! from the document element: no panic, and every node-set in document order
//! without duplicates (namespace nodes aside). The variable `$v` and the prefix
//! `p` are bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vtdx_core::Document;
use vtdx_xpath::{Context, Namespaces, Value, XNode, XNodeKind, XPath};

fuzz_target!(|data: &[u8]| {
    let (expr, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b"<r xmlns:p='urn:p' a='1'><p:a>1</p:a><b>x<!--c--><?t d?><![CDATA[y]]></b></r>"[..]),
    };
    let Ok(expr) = std::str::from_utf8(expr) else { return };
    let ns = Namespaces::new().with("p", "urn:p");
    let Ok(xp) = XPath::compile(expr, &ns) else { return };
    let Ok(doc) = Document::parse(rest) else { return };
    let mut ctx = Context::new(&doc);
    ctx.set_variable("v", 2.0);
    for start in [doc.root(), doc.root_element()] {
        if let Ok(Value::NodeSet(s)) = xp.evaluate_in(&ctx, XNode::from_node(start)) {
            // namespace nodes share their element's key; every other node has its own
            let keys: Vec<u64> = s.iter().filter(|x| x.kind() != XNodeKind::Namespace).map(|x| x.node().order_key()).collect();
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "node-set out of document order or with duplicates: {expr}");
        }
    }
});
