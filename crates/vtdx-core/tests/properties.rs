//! Property tests: random well-formed documents generated together with the tree
//! they must produce (by the rules of XML 1.0 and Namespaces in XML 1.0), and
//! random damage to them, which must never panic.

use proptest::prelude::*;
use proptest::test_runner::Config;

use vtdx_core::{Document, Node, NodeKind, ParseOptions, Parser, XML_NAMESPACE};

use crate::common::{utf16, walk};

// ---- the generator's vocabulary ------------------------------------------------------

const PREFIXES: [&str; 4] = ["p", "q", "ñs", "a1"];
/// Namespace names: as written in the attribute value, and the URI that means.
const URIS: [(&str, &str); 5] = [
    ("urn:a", "urn:a"),
    ("http://example.com/ns", "http://example.com/ns"),
    ("urn:ü", "urn:ü"),
    ("urn:x&amp;y", "urn:x&y"),
    ("urn:tab&#9;z", "urn:tab\tz"),
];
/// The predefined entities (§4.6).
const PREDEF: [(&str, char); 5] = [("lt", '<'), ("gt", '>'), ("amp", '&'), ("apos", '\''), ("quot", '"')];
/// Internal entities: name, literal entity value, the characters a reference produces.
const ENTS: [(&str, &str, &str); 3] = [("e1", "entity text", "entity text"), ("e2", "a&amp;b", "a&b"), ("eñ", "&#233;t&#xE9;", "été")];

/// Char (XML 1.0 production [2]).
fn is_char(c: char) -> bool {
    matches!(c as u32, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF)
}

#[derive(Debug, Clone)]
enum Piece {
    Lit(String),
    Predef(usize),
    CharRef(char, bool),
    Ent(usize),
}

#[derive(Debug, Clone)]
struct GElem {
    local: String,
    prefix: Option<usize>,
    /// None: no `xmlns`; Some(None): `xmlns=""`; Some(Some(i)): `xmlns=URIS[i]`.
    default_ns: Option<Option<usize>>,
    decls: Vec<(usize, usize)>,
    /// (local name, prefix choice — `PREFIXES.len()` means `xml` —, value)
    attrs: Vec<(String, Option<usize>, Vec<Piece>)>,
    self_close: bool,
    children: Vec<GNode>,
}

#[derive(Debug, Clone)]
enum GNode {
    Elem(GElem),
    Text(Vec<Piece>),
    CData(String),
    Comment(String),
    Pi(String, String),
}

#[derive(Debug, Clone)]
struct GDoc {
    decl: bool,
    dtd: bool,
    prolog: Vec<GNode>,
    root: GElem,
    epilog: Vec<GNode>,
}

/// The tree a parser must report.
#[derive(Debug, Clone, PartialEq)]
enum M {
    Elem { name: String, ns: Option<String>, decls: Vec<(String, String)>, attrs: Vec<(String, Option<String>, String)>, children: Vec<M> },
    Text(String),
    CData(String),
    Comment(String),
    Pi(String, String),
}

// ---- strategies ----------------------------------------------------------------------

fn name() -> impl Strategy<Value = String> {
    "[a-zA-Z_À-Öø-ÿ一-丯][a-zA-Z0-9._·À-Ö一-丯\u{300}-\u{302}-]{0,6}"
        .prop_filter("names starting with xml are reserved", |s| !s.to_ascii_lowercase().starts_with("xml"))
}

fn piece(attr: bool) -> impl Strategy<Value = Piece> {
    let lit = if attr { "[a-zA-Z0-9 \t\n\r>'\"é中😀?-]{0,10}" } else { "[a-zA-Z0-9 \t\n\r>\\]'\"é中😀?-]{0,10}" };
    prop_oneof![
        6 => lit.prop_map(Piece::Lit),
        1 => (0..PREDEF.len()).prop_map(Piece::Predef),
        1 => (prop_oneof![Just('<'), Just('&'), Just('\r'), Just('\t'), Just(']'), any::<char>().prop_filter("Char", |c| is_char(*c))], any::<bool>())
            .prop_map(|(c, hex)| Piece::CharRef(c, hex)),
        1 => (0..ENTS.len()).prop_map(Piece::Ent),
    ]
}

fn pieces(attr: bool) -> impl Strategy<Value = Vec<Piece>> {
    prop::collection::vec(piece(attr), 0..4)
}

fn elem_head() -> impl Strategy<Value = GElem> {
    (
        name(),
        prop::option::of(0..PREFIXES.len()),
        prop::option::of(prop::option::of(0..URIS.len())),
        prop::collection::vec((0..PREFIXES.len(), 0..URIS.len()), 0..3),
        prop::collection::vec((name(), prop::option::of(0..=PREFIXES.len()), pieces(true)), 0..4),
        any::<bool>(),
    )
        .prop_map(|(local, prefix, default_ns, decls, attrs, self_close)| GElem {
            local,
            prefix,
            default_ns,
            decls,
            attrs,
            self_close,
            children: Vec::new(),
        })
}

fn misc() -> impl Strategy<Value = GNode> {
    prop_oneof!["[a-z \n\r\té-]{0,10}".prop_map(GNode::Comment), (name(), "[a-z \n\r?>é]{0,10}").prop_map(|(t, d)| GNode::Pi(t, d)),]
}

fn node() -> impl Strategy<Value = GNode> {
    let leaf = prop_oneof![
        4 => pieces(false).prop_map(GNode::Text),
        1 => "[a-z <>&\\]\r\né]{0,10}".prop_map(GNode::CData),
        2 => misc(),
        2 => elem_head().prop_map(GNode::Elem),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        (elem_head(), prop::collection::vec(inner, 0..6)).prop_map(|(h, children)| GNode::Elem(GElem { children, ..h }))
    })
}

fn document() -> impl Strategy<Value = GDoc> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(misc(), 0..3),
        (elem_head(), prop::collection::vec(node(), 0..6)),
        prop::collection::vec(misc(), 0..3),
    )
        .prop_map(|(decl, dtd, prolog, (h, children), epilog)| GDoc { decl, dtd, prolog, root: GElem { children, ..h }, epilog })
}

// ---- serialization, building the expected tree ----------------------------------------

/// Line-end normalization (§2.11).
fn nl(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\r', "\n")
}

struct Writer {
    out: String,
    dtd: bool,
}

#[derive(Clone, Default)]
struct Scope {
    default: Option<usize>,
    bound: Vec<(usize, usize)>,
}

impl Scope {
    fn lookup(&self, p: usize) -> Option<usize> {
        self.bound.iter().rev().find(|(q, _)| *q == p).map(|(_, u)| *u)
    }
}

impl Writer {
    /// Writes pieces of character data (or of an attribute value delimited by `"`),
    /// returning the characters they stand for.
    fn pieces(&mut self, ps: &[Piece], attr: bool) -> String {
        let mut value = String::new();
        let mut pending = String::new();
        let flush = |pending: &mut String, value: &mut String| {
            let s = nl(pending);
            if attr {
                // §3.3.3 for CDATA: each white space character becomes a space
                value.extend(s.chars().map(|c| if matches!(c, '\t' | '\n' | '\r') { ' ' } else { c }));
            } else {
                value.push_str(&s);
            }
            pending.clear();
        };
        for p in ps {
            match p {
                Piece::Lit(s) => {
                    for c in s.chars() {
                        if attr && c == '"' {
                            self.out.push_str("&quot;");
                        } else if c == '>' && self.out.ends_with("]]") {
                            // `]]>` is not allowed in character data
                            self.out.push_str("&gt;");
                        } else {
                            self.out.push(c);
                        }
                        pending.push(c);
                    }
                }
                Piece::Predef(i) => {
                    flush(&mut pending, &mut value);
                    self.out.push_str(&format!("&{};", PREDEF[*i].0));
                    value.push(PREDEF[*i].1);
                }
                Piece::CharRef(c, hex) => {
                    flush(&mut pending, &mut value);
                    if *hex {
                        self.out.push_str(&format!("&#x{:X};", *c as u32));
                    } else {
                        self.out.push_str(&format!("&#{};", *c as u32));
                    }
                    value.push(*c);
                }
                Piece::Ent(i) => {
                    flush(&mut pending, &mut value);
                    let (n, _, expanded) = ENTS[*i];
                    if self.dtd {
                        self.out.push_str(&format!("&{n};"));
                    } else {
                        for c in expanded.chars() {
                            self.out.push_str(&format!("&#x{:X};", c as u32));
                        }
                    }
                    // no white space in the replacement texts, so no normalization to do
                    value.push_str(expanded);
                }
            }
        }
        flush(&mut pending, &mut value);
        value
    }

    fn misc(&mut self, n: &GNode) -> M {
        match n {
            GNode::Comment(c) => {
                let mut c = c.clone();
                while c.contains("--") {
                    c = c.replace("--", "- -");
                }
                if c.ends_with('-') {
                    c.push(' ');
                }
                self.out.push_str(&format!("<!--{c}-->"));
                M::Comment(nl(&c))
            }
            GNode::Pi(t, d) => {
                let mut d = d.clone();
                while d.contains("?>") {
                    d = d.replace("?>", "? >");
                }
                // the white space after the target separates it from the data
                let d = d.trim_start_matches([' ', '\t', '\r', '\n']).to_string();
                if d.is_empty() {
                    self.out.push_str(&format!("<?{t}?>"));
                } else {
                    self.out.push_str(&format!("<?{t} {d}?>"));
                }
                M::Pi(t.clone(), nl(&d))
            }
            _ => unreachable!(),
        }
    }

    fn element(&mut self, e: &GElem, parent: &Scope) -> M {
        let mut scope = parent.clone();
        let mut decls = Vec::new();
        let mut decl_text = String::new();
        if let Some(d) = e.default_ns {
            scope.default = d;
            let (written, uri) = d.map_or(("", ""), |i| URIS[i]);
            decl_text.push_str(&format!(" xmlns=\"{written}\""));
            decls.push(("xmlns".to_string(), uri.to_string()));
        }
        let mut declared: Vec<usize> = Vec::new();
        for &(p, u) in &e.decls {
            if declared.contains(&p) {
                continue;
            }
            declared.push(p);
            scope.bound.push((p, u));
            decl_text.push_str(&format!(" xmlns:{}=\"{}\"", PREFIXES[p], URIS[u].0));
            decls.push((format!("xmlns:{}", PREFIXES[p]), URIS[u].1.to_string()));
        }
        let (qname, ns) = match e.prefix.and_then(|p| scope.lookup(p).map(|u| (p, u))) {
            Some((p, u)) => (format!("{}:{}", PREFIXES[p], e.local), Some(URIS[u].1.to_string())),
            None => (e.local.clone(), scope.default.map(|u| URIS[u].1.to_string())),
        };
        self.out.push('<');
        self.out.push_str(&qname);
        self.out.push_str(&decl_text);
        let mut attrs: Vec<(String, Option<String>, String)> = Vec::new();
        let mut expanded: Vec<(Option<String>, String)> = Vec::new();
        for (local, p, value) in &e.attrs {
            let (aq, ans) = match p {
                Some(p) if *p == PREFIXES.len() => (format!("xml:{local}"), Some(XML_NAMESPACE.to_string())),
                Some(p) => match scope.lookup(*p) {
                    Some(u) => (format!("{}:{local}", PREFIXES[*p]), Some(URIS[u].1.to_string())),
                    None => (local.clone(), None),
                },
                None => (local.clone(), None),
            };
            // Unique Att Spec, and unique expanded names (Namespaces §6.3)
            let x = (ans.clone(), local.clone());
            if attrs.iter().any(|a| a.0 == aq) || (ans.is_some() && expanded.contains(&x)) {
                continue;
            }
            expanded.push(x);
            self.out.push_str(&format!(" {aq}=\""));
            let v = self.pieces(value, true);
            self.out.push('"');
            attrs.push((aq, ans, v));
        }
        let mut children = Vec::new();
        if e.children.is_empty() && e.self_close {
            self.out.push_str("/>");
        } else {
            self.out.push('>');
            let mut run: Vec<Piece> = Vec::new();
            let flush_text = |w: &mut Writer, run: &mut Vec<Piece>, children: &mut Vec<M>| {
                let v = w.pieces(run, false);
                if !v.is_empty() {
                    children.push(M::Text(v));
                }
                run.clear();
            };
            for c in &e.children {
                match c {
                    // adjacent text is one text node
                    GNode::Text(ps) => run.extend(ps.iter().cloned()),
                    other => {
                        flush_text(self, &mut run, &mut children);
                        children.push(match other {
                            GNode::Elem(ce) => self.element(ce, &scope),
                            GNode::CData(s) => {
                                let mut s = s.clone();
                                while s.contains("]]>") {
                                    s = s.replace("]]>", "]] >");
                                }
                                self.out.push_str(&format!("<![CDATA[{s}]]>"));
                                M::CData(nl(&s))
                            }
                            m => self.misc(m),
                        });
                    }
                }
            }
            flush_text(self, &mut run, &mut children);
            self.out.push_str(&format!("</{qname}>"));
        }
        M::Elem { name: qname, ns, decls, attrs, children }
    }
}

/// The document text and the children of its root node.
fn serialize(d: &GDoc) -> (String, Vec<M>) {
    let mut w = Writer { out: String::new(), dtd: d.dtd };
    if d.decl {
        w.out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    }
    if d.dtd {
        w.out.push_str("<!DOCTYPE doc [\n");
        for (n, v, _) in ENTS {
            w.out.push_str(&format!("  <!ENTITY {n} \"{v}\">\n"));
        }
        w.out.push_str("]>\n");
    }
    let mut top = Vec::new();
    for m in &d.prolog {
        top.push(w.misc(m));
        w.out.push('\n');
    }
    top.push(w.element(&d.root, &Scope::default()));
    for m in &d.epilog {
        w.out.push_str(" \r\n");
        top.push(w.misc(m));
    }
    (w.out, top)
}

/// The tree as the parser reports it.
fn actual(n: Node<'_>, ns_on: bool) -> M {
    match n.kind() {
        NodeKind::Element => M::Elem {
            name: n.name().to_string(),
            ns: n.namespace_uri().map(str::to_string),
            decls: if ns_on {
                n.namespace_declarations().map(|a| (a.name().to_string(), a.value().into_owned())).collect()
            } else {
                Vec::new()
            },
            attrs: n.attributes().map(|a| (a.name().to_string(), a.namespace_uri().map(str::to_string), a.value().into_owned())).collect(),
            children: n.children().map(|c| actual(c, ns_on)).collect(),
        },
        NodeKind::Text => M::Text(n.value().into_owned()),
        NodeKind::CData => M::CData(n.value().into_owned()),
        NodeKind::Comment => M::Comment(n.value().into_owned()),
        NodeKind::ProcessingInstruction => M::Pi(n.pi_target().unwrap().to_string(), n.value().into_owned()),
        k => panic!("unexpected {k:?} among children"),
    }
}

/// The expected tree without namespace processing: no URIs, declarations are attributes.
fn without_namespaces(m: &M) -> M {
    match m {
        M::Elem { name, decls, attrs, children, .. } => M::Elem {
            name: name.clone(),
            ns: None,
            decls: Vec::new(),
            attrs: decls
                .iter()
                .map(|(n, v)| (n.clone(), None, v.clone()))
                .chain(attrs.iter().map(|(n, _, v)| (n.clone(), None, v.clone())))
                .collect(),
            children: children.iter().map(without_namespaces).collect(),
        },
        other => other.clone(),
    }
}

/// A parser kept between cases, with the last document it produced and that document's tree.
type Reused = (Parser, Option<(Document<'static>, Vec<M>)>);

thread_local! {
    static REUSED: std::cell::RefCell<Reused> =
        std::cell::RefCell::new((Parser::new(), None));
}

fn children_of(doc: &Document<'_>, ns_on: bool) -> Vec<M> {
    doc.root().children().map(|c| actual(c, ns_on)).collect()
}

proptest! {
    #![proptest_config(Config { cases: 256, max_shrink_iters: 2000, ..Config::default() })]

    #[test]
    fn generated_documents_parse_to_the_generated_tree(d in document()) {
        let (text, expected) = serialize(&d);
        let doc = match Document::parse(text.as_bytes()) {
            Ok(doc) => doc,
            Err(e) => panic!("generated document refused: {e}\n{text}"),
        };
        prop_assert_eq!(&children_of(&doc, true), &expected, "\n{}", text);
        walk(&doc);

        // the same characters in UTF-16
        let t16 = text.replacen("encoding=\"UTF-8\"", "encoding=\"UTF-16\"", 1);
        let b16 = utf16(&t16, true, true);
        let doc16 = Document::parse(&b16).unwrap();
        prop_assert_eq!(&children_of(&doc16, true), &expected);

        // through one parser reused for every case, while the previous case's
        // document is still alive (it shares the parser's name tables)
        REUSED.with(|cell| {
            let mut guard = cell.borrow_mut();
            let (parser, kept) = &mut *guard;
            let again = parser.parse_owned(text.clone().into_bytes()).unwrap();
            assert_eq!(children_of(&again, true), expected, "reused parser\n{text}");
            if let Some((old, old_expected)) = kept.take() {
                assert_eq!(&children_of(&old, true), &old_expected, "a kept document changed");
                parser.recycle(old);
            }
            *kept = Some((again, expected.clone()));
        });

        // without namespace processing
        let plain = Document::parse_with(text.as_bytes(), &ParseOptions::new().namespaces(false)).unwrap();
        let expected_plain: Vec<M> = expected.iter().map(without_namespaces).collect();
        prop_assert_eq!(&children_of(&plain, false), &expected_plain);
    }

    #[test]
    fn mutated_documents_never_panic(
        d in document(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, prop::sample::select(b"<>&;#x'\"/!?[]-=: \r\n\x00\xC3\xA9\xFF".to_vec())), 1..6),
    ) {
        let (text, _) = serialize(&d);
        let mut v = text.into_bytes();
        for (at, op, b) in edits {
            if v.is_empty() {
                break;
            }
            let i = at.index(v.len());
            match op {
                0 => v[i] = b,
                1 => { v.remove(i); }
                2 => v.insert(i, b),
                _ => {
                    // duplicate a slice
                    let j = (i + 1 + at.index(8)).min(v.len());
                    let s = v[i..j].to_vec();
                    v.splice(i..i, s);
                }
            }
        }
        let r = std::panic::catch_unwind(|| {
            for opts in [ParseOptions::new(), ParseOptions::new().namespaces(false), ParseOptions::new().max_depth(3).max_attributes(2)] {
                if let Ok(doc) = Document::parse_with(&v, &opts) {
                    walk(&doc);
                }
            }
        });
        prop_assert!(r.is_ok(), "panic on {:?}", String::from_utf8_lossy(&v));
    }
}
