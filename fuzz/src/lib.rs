//! Shared checks for the fuzz targets: invariants every successfully parsed
//! document must satisfy, and a structural dump used to compare two parses.

use std::fmt::Write as _;

use vtdx_core::{line_column, Document, ErrorKind, Limits, Node, NodeKind, ParseOptions, XML_NAMESPACE};

/// Small limits, so the fuzzer reaches every limit check with short inputs.
pub fn tight_options() -> ParseOptions {
    ParseOptions::new()
        .max_depth(16)
        .max_attributes(8)
        .max_name_len(32)
        .max_document_size(1 << 16)
        .max_entity_expansion_bytes(4096)
        .max_entity_amplification(4)
        .max_entity_depth(4)
}

/// True for `LimitExceeded` errors.
pub fn is_limit(k: &ErrorKind) -> bool {
    matches!(k, ErrorKind::LimitExceeded { .. })
}

fn contains(outer: &std::ops::Range<usize>, inner: &std::ops::Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// Walks every node of `doc` and checks the navigation invariants. Panics on a violation.
pub fn check_document(doc: &Document<'_>) {
    let text = doc.text();
    let root = doc.root();
    assert_eq!(root.kind(), NodeKind::Root);
    assert_eq!(root.range(), 0..text.len());
    assert!(root.parent().is_none());
    let re = doc.root_element();
    assert!(re.is_element());
    assert_eq!(re.parent(), Some(root));

    let all: Vec<Node<'_>> = root.descendants().collect();
    assert_eq!(all[0], root);
    assert!(all.contains(&re), "root element not among the descendants");
    // document order: strictly increasing start offsets after the root node
    for w in all[1..].windows(2) {
        assert!(
            w[0].range().start < w[1].range().start,
            "descendants out of order: {:?} then {:?}",
            w[0],
            w[1]
        );
        assert_eq!(w[0].document_order(&w[1]), std::cmp::Ordering::Less);
    }
    for n in &all {
        check_node(doc, *n);
    }
    check_pretty(doc);
}

fn check_node(doc: &Document<'_>, n: Node<'_>) {
    let text = doc.text();
    let r = n.range();
    assert!(r.start <= r.end && r.end <= text.len(), "{n:?} range {r:?} outside text");
    assert_eq!(n.raw(), &text[r.clone()]);
    assert_eq!(doc.node(n.id()), Some(n));
    let (line, col) = n.position();
    assert_eq!((line, col), line_column(text, r.start));
    // reading must never panic
    let _ = n.value();
    let _ = n.text();
    let _ = n.name();
    let _ = n.local_name();
    let _ = n.prefix();
    let _ = n.namespace_uri();

    if !n.is_root() {
        assert!(!r.is_empty(), "{n:?} has an empty range");
        let p = n.parent().expect("non-root node without parent");
        assert!(contains(&p.range(), &r), "{n:?} {r:?} not inside parent {p:?} {:?}", p.range());
        if p.is_element() {
            let cr = p.content_range().unwrap();
            assert!(contains(&cr, &r), "{n:?} {r:?} not inside parent content {cr:?}");
        }
        assert!(p.children().any(|c| c == n), "{n:?} not among its parent's children");
        let anc: Vec<_> = n.ancestors().collect();
        assert_eq!(anc.last(), Some(&doc.root()));
        assert_eq!(anc.len(), n.depth());
    }

    // children: parent link, sibling links, exact tiling of element content
    let kids: Vec<Node<'_>> = n.children().collect();
    assert_eq!(n.first_child(), kids.first().copied());
    assert_eq!(n.last_child(), kids.last().copied());
    for (i, c) in kids.iter().enumerate() {
        assert_eq!(c.parent(), Some(n), "child {c:?} of {n:?} has another parent");
        assert_eq!(c.next_sibling(), kids.get(i + 1).copied());
        assert_eq!(c.prev_sibling(), if i == 0 { None } else { Some(kids[i - 1]) });
        assert!(!c.is_attribute());
        if i > 0 {
            let prev = kids[i - 1];
            assert!(prev.range().end <= c.range().start);
            assert!(!(prev.is_text() && c.is_text()), "two adjacent text nodes under {n:?}");
            if n.is_element() {
                assert_eq!(prev.range().end, c.range().start, "gap between children of {n:?}");
            }
        }
    }
    let elems: Vec<Node<'_>> = n.element_children().collect();
    let kid_elems: Vec<Node<'_>> = kids.iter().copied().filter(|c| c.is_element()).collect();
    assert_eq!(elems, kid_elems);
    assert_eq!(n.first_element_child(), elems.first().copied());
    for (i, e) in elems.iter().enumerate() {
        assert_eq!(e.next_element_sibling(), elems.get(i + 1).copied());
        assert_eq!(e.prev_element_sibling(), if i == 0 { None } else { Some(elems[i - 1]) });
    }

    match n.kind() {
        NodeKind::Root => {
            assert_eq!(elems.len(), 1, "the root must have exactly one element child");
            assert!(kids.iter().all(|c| matches!(c.kind(), NodeKind::Element | NodeKind::Comment | NodeKind::ProcessingInstruction)));
        }
        NodeKind::Element => check_element(doc, n, &kids),
        NodeKind::Text => {
            assert!(!n.raw().contains(&b'<'), "text {n:?} contains `<`");
            assert!(kids.is_empty());
        }
        NodeKind::CData => {
            assert!(n.raw().starts_with(b"<![CDATA[") && n.raw().ends_with(b"]]>"));
            assert!(kids.is_empty());
        }
        NodeKind::Comment => {
            assert!(n.raw().starts_with(b"<!--") && n.raw().ends_with(b"-->"));
            assert!(!n.value().contains("--"));
            assert!(kids.is_empty());
        }
        NodeKind::ProcessingInstruction => {
            let target = n.pi_target().expect("PI without target");
            assert!(!target.is_empty());
            assert!(!target.eq_ignore_ascii_case("xml"));
            assert!(n.raw().starts_with(format!("<?{target}").as_bytes()) && n.raw().ends_with(b"?>"));
            assert!(kids.is_empty());
        }
        NodeKind::Attribute => unreachable!("attributes are not descendants"),
    }
}

fn check_element(doc: &Document<'_>, e: Node<'_>, kids: &[Node<'_>]) {
    let name = e.name();
    assert!(!name.is_empty());
    let raw = e.raw();
    assert!(raw.starts_with(format!("<{name}").as_bytes()), "{e:?} raw does not start with its name");
    let st = e.start_tag_range().unwrap();
    let cr = e.content_range().unwrap();
    assert_eq!(st.start, e.range().start);
    assert!(st.end <= cr.start && cr.start <= cr.end && cr.end <= e.range().end);
    assert_eq!(doc.text()[st.end - 1], b'>');
    if e.is_empty_element_tag() {
        assert!(raw.ends_with(b"/>"));
        assert!(kids.is_empty());
        assert_eq!(st.end, e.range().end);
    } else {
        assert_eq!(st.end, cr.start);
        let tail = &doc.text()[cr.end..e.range().end];
        assert!(tail.starts_with(format!("</{name}").as_bytes()), "{e:?} end tag does not match");
        assert!(tail.ends_with(b">"));
        if let (Some(f), Some(l)) = (kids.first(), kids.last()) {
            assert_eq!(f.range().start, cr.start);
            assert_eq!(l.range().end, cr.end);
        } else {
            assert!(cr.is_empty());
        }
    }
    let ns_on = doc.options().namespaces;
    let scope = e.namespaces();
    assert!(scope.contains(&("xml", XML_NAMESPACE)));
    for (i, (p, _)) in scope.iter().enumerate() {
        assert!(scope[..i].iter().all(|(q, _)| q != p), "prefix {p} twice in scope of {e:?}");
    }
    if ns_on {
        assert!(name.matches(':').count() <= 1);
        let p = e.prefix();
        if p.is_empty() {
            assert_eq!(e.local_name(), name);
        } else {
            assert_eq!(format!("{p}:{}", e.local_name()), name);
        }
        assert_eq!(e.namespace_uri(), e.lookup_namespace(p), "{e:?} namespace differs from scope");
    }
    let mut seen: Vec<&str> = Vec::new();
    for a in e.all_attributes() {
        assert!(a.is_attribute());
        assert_eq!(a.kind(), NodeKind::Attribute);
        assert_eq!(a.parent(), Some(e));
        assert!(a.first_child().is_none());
        assert!(a.children().next().is_none());
        let ar = a.range();
        if a.is_specified() {
            assert!(contains(&st, &ar), "attribute {a:?} {ar:?} outside start tag {st:?}");
            assert!(a.raw().starts_with(a.name().as_bytes()));
            let vr = a.value_range().unwrap();
            assert!(contains(&ar, &vr));
            assert_eq!(vr.end + 1, ar.end);
        } else {
            // defaulted from the internal subset: not in the text (an empty range)
            assert!(ar.is_empty() && a.raw().is_empty() && a.value_range().is_none(), "defaulted attribute {a:?} has text");
        }
        let v = a.value();
        assert!(!seen.contains(&a.name()), "duplicate attribute {} on {e:?}", a.name());
        seen.push(a.name());
        assert_eq!(doc.node(a.id()), Some(a));
        let _ = a.position();
        if a.is_namespace_declaration() {
            continue;
        }
        assert_eq!(e.attribute(a.name()).as_deref(), Some(&*v));
        if ns_on {
            let p = a.prefix();
            if p.is_empty() {
                assert_eq!(a.namespace_uri(), None);
            } else {
                assert_eq!(a.namespace_uri(), e.lookup_namespace(p));
            }
            assert_eq!(e.attribute_ns(a.namespace_uri(), a.local_name()).as_deref(), Some(&*v));
        }
    }
}

/// The pretty printer's output is well-formed and has the same elements and attributes.
fn check_pretty(doc: &Document<'_>) {
    // The printer copies the (UTF-8) text, declaration included: only a UTF-8 input
    // re-reads as the same characters.
    if !matches!(doc.encoding(), vtdx_core::SourceEncoding::Utf8 { .. }) {
        return;
    }
    let mut out = Vec::new();
    doc.write_pretty(&mut out, 2).expect("write to Vec");
    match Document::parse_with(&out, &ParseOptions { limits: Limits::default(), ..doc.options().clone() }) {
        Ok(again) => assert_eq!(elements_dump(doc), elements_dump(&again), "pretty output changed the structure"),
        Err(e) if is_limit(e.kind()) => {}
        Err(e) => panic!(
            "pretty output does not re-parse: {e}\n--- output ---\n{}",
            String::from_utf8_lossy(&out)
        ),
    }
}

/// Elements with their attributes, in document order.
pub fn elements_dump(doc: &Document<'_>) -> String {
    let mut s = String::new();
    for n in doc.root().descendants().filter(|n| n.is_element()) {
        let _ = write!(s, "{}<{}|{:?}", n.depth(), n.name(), n.namespace_uri());
        for a in n.all_attributes() {
            let _ = write!(s, " {}={:?}", a.name(), a.value());
        }
        s.push('\n');
    }
    s
}

/// Every node: depth, kind, name, namespace, decoded value (texts, attributes).
pub fn full_dump(doc: &Document<'_>) -> String {
    let mut s = String::new();
    for n in doc.root().descendants() {
        let _ = write!(s, "{} {:?} {} {:?}", n.depth(), n.kind(), n.name(), n.namespace_uri());
        match n.kind() {
            NodeKind::Element => {
                for a in n.all_attributes() {
                    let _ = write!(s, " {}|{:?}={:?}", a.name(), a.namespace_uri(), a.value());
                }
            }
            NodeKind::Root => {}
            _ => {
                let _ = write!(s, " {:?}", n.value());
            }
        }
        s.push('\n');
    }
    s
}

/// A comparable summary of a parse result: the dump, or the error's kind and position.
pub fn outcome(r: &Result<Document<'_>, vtdx_core::Error>) -> String {
    match r {
        Ok(d) => full_dump(d),
        Err(e) => format!("ERR {:?} @{} {}:{}", e.kind(), e.offset(), e.line(), e.column()),
    }
}
