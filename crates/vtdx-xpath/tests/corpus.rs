//! The XPath catalogs in the shared corpus (`$VTDX_CORPUS/xpath`, see its
//! PROVENANCE.md): Jaxen and dom4j (`tests.xml`: count and string-value
//! checks) and libxml2 (expression files with result dumps).
//!
//! Every case is identified as `suite:where` (the catalog line, or the
//! expression file and line). Cases that do not pass must be listed, with a
//! reason, in `conformance/expected-failures/xpath-corpus.txt` (the format of
//! every expected-failure list, read by the conformance runner's own reader);
//! the test fails when a listed case passes or an unlisted one fails, so any
//! change shows up as a diff. The number of cases found is asserted, so a
//! moved directory fails loudly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use vtdx_core::{Document, Node};
use vtdx_xpath::{Context, Namespaces, Value, XNode, XNodeKind, XPath};

fn corpus() -> PathBuf {
    match std::env::var_os("VTDX_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("the XPath corpus is missing: {}: {e} (set VTDX_CORPUS)", p.display()))
}

/// One case's outcome: `Ok` or a description of what went wrong.
type Outcome = Result<(), String>;

#[derive(Default)]
struct Results {
    cases: BTreeMap<String, Outcome>,
    skipped_patterns: usize,
}

impl Results {
    fn add(&mut self, id: String, r: Outcome) {
        let e = self.cases.entry(id).or_insert(Ok(()));
        if e.is_ok() {
            *e = r;
        }
    }
}

const VAR_NS: &str = "https://github.com/jaxen-xpath/jaxen/test-harness/var";

fn line_of(n: &Node<'_>) -> u32 {
    n.position().0
}

fn show(v: &Value<'_>) -> String {
    match v {
        Value::NodeSet(s) => format!("node-set of {}", s.len()),
        v => format!("{} {:?}", v.type_name(), v.string()),
    }
}

// ---- Jaxen / dom4j catalogs ------------------------------------------------------------

fn run_catalog(suite: &str, base: &Path, catalog: &str, res: &mut Results) {
    let text = read(&base.join(catalog));
    let cat = Document::parse(&text).expect("catalog parses");
    for d in cat.root_element().element_children().filter(|e| e.name() == "document") {
        let url = d.attribute("url").expect("document/@url").into_owned();
        let bytes = read(&base.join(&url));
        // some catalog documents name external DTDs: read as absent (never fetched)
        let doc = Document::parse_with(&bytes, &vtdx_core::ParseOptions::new().external(vtdx_core::ExternalPolicy::Ignore));
        for c in d.element_children().filter(|e| e.name() == "context") {
            let doc = match &doc {
                Ok(doc) => doc,
                Err(e) => {
                    for t in c.descendant_elements() {
                        res.add(format!("{suite}:{}", line_of(&t)), Err(format!("{url} does not parse: {e}")));
                    }
                    continue;
                }
            };
            let mut ns: Namespaces = c.namespaces().into_iter().collect();
            if suite == "dom4j" {
                // dom4j resolves prefixes with the document's own declarations.
                ns = document_namespaces(doc, &c);
            }
            let mut ctx = Context::new(doc);
            for a in c.attributes() {
                if a.namespace_uri() == Some(VAR_NS) {
                    ctx.set_variable(a.local_name(), a.value().into_owned());
                }
            }
            let sel = c.attribute("select").expect("context/@select");
            let contexts: Vec<XNode<'_>> = match XPath::compile(&sel, &ns).and_then(|x| x.select_in(&ctx, doc.root().into())) {
                Ok(s) => s.into_vec(),
                Err(e) => {
                    for t in c.descendant_elements() {
                        res.add(format!("{suite}:{}", line_of(&t)), Err(format!("context {sel}: {e}")));
                    }
                    continue;
                }
            };
            if contexts.is_empty() {
                for t in c.descendant_elements() {
                    res.add(format!("{suite}:{}", line_of(&t)), Err(format!("context {sel} selects nothing")));
                }
            }
            for t in c.element_children() {
                if t.name() == "pattern" {
                    // XSLT match patterns: not XPath expressions.
                    res.skipped_patterns += 1;
                    continue;
                }
                for &cn in &contexts {
                    run_check(suite, &ctx, t, cn, res);
                }
            }
        }
    }
}

/// The catalog element's namespaces, then every prefix the document declares
/// (first declaration wins), as dom4j's harness resolves them.
fn document_namespaces(doc: &Document<'_>, t: &Node<'_>) -> Namespaces {
    let mut seen: Vec<(String, String)> = t.namespaces().into_iter().map(|(p, u)| (p.to_string(), u.to_string())).collect();
    for e in doc.root().descendant_elements() {
        for d in e.namespace_declarations() {
            let p = if d.name() == "xmlns" { "" } else { d.local_name() };
            if !seen.iter().any(|(q, _)| q == p) {
                seen.push((p.to_string(), d.value().into_owned()));
            }
        }
    }
    seen.into_iter().collect()
}

/// Runs a `test`, `valueOf` or `filter` element with context node `cn`.
fn run_check<'d>(suite: &str, ctx: &Context<'d>, t: Node<'_>, cn: XNode<'d>, res: &mut Results) {
    let id = format!("{suite}:{}", line_of(&t));
    let mut ns: Namespaces = t.namespaces().into_iter().collect();
    if suite == "dom4j" {
        ns = document_namespaces(ctx.document(), &t);
    }
    match t.name() {
        "valueOf" => {
            let sel = t.attribute("select").unwrap_or_default();
            let want = t.value();
            let r = XPath::compile(&sel, &ns).and_then(|x| x.evaluate_in(ctx, cn));
            res.add(
                id,
                match r {
                    Ok(v) if v.string() == want => Ok(()),
                    Ok(v) => Err(format!("{sel}: got {}, want {want:?}", show(&v))),
                    Err(e) => Err(format!("{sel}: {e}")),
                },
            );
        }
        "filter" => {
            let sel = t.attribute("match").unwrap_or_default();
            let r = XPath::compile(&sel, &ns).and_then(|x| x.evaluate_in(ctx, cn));
            res.add(
                id,
                match r {
                    Ok(v) if v.boolean() => Ok(()),
                    Ok(v) => Err(format!("{sel}: got {}, want true", show(&v))),
                    Err(e) => Err(format!("{sel}: {e}")),
                },
            );
        }
        "test" => {
            let sel = t.attribute("select").unwrap_or_default();
            let exception = t.attribute("exception").as_deref() == Some("true");
            let r = XPath::compile(&sel, &ns).and_then(|x| x.evaluate_in(ctx, cn));
            let (outcome, nodes) = match (r, exception) {
                (Err(_), true) => (Ok(()), Vec::new()),
                (Ok(v), true) => (Err(format!("{sel}: no error, got {}", show(&v))), Vec::new()),
                (Err(e), false) => (Err(format!("{sel}: {e}")), Vec::new()),
                (Ok(Value::NodeSet(s)), false) => {
                    let want = t.attribute("count").and_then(|c| c.parse::<usize>().ok());
                    match want {
                        Some(w) if w != s.len() => (Err(format!("{sel}: {} nodes, want {w}", s.len())), s.into_vec()),
                        _ => (Ok(()), s.into_vec()),
                    }
                }
                (Ok(v), false) => (Err(format!("{sel}: got {}, want a node-set", show(&v))), Vec::new()),
            };
            res.add(id, outcome);
            for inner in t.element_children() {
                if nodes.is_empty() {
                    res.add(format!("{suite}:{}", line_of(&inner)), Err(format!("outer test {sel} selected nothing")));
                }
                for &n in &nodes {
                    run_check(suite, ctx, inner, n, res);
                }
            }
        }
        other => panic!("{suite}: unknown catalog element <{other}>"),
    }
}

// ---- libxml2 ---------------------------------------------------------------------------

/// An expected libxml2 result.
#[derive(Debug)]
enum Expected {
    /// The number and how many significant digits libxml2 printed.
    Number(f64, i32),
    Boolean(bool),
    String(String),
    /// Node kinds and names, one per node (`ELEMENT p`, `TEXT`, ...).
    Nodes(Vec<String>),
    Null,
}

fn parse_results(text: &str) -> Vec<(String, Expected)> {
    let mut out = Vec::new();
    for block in text.split("========================\n").skip(1) {
        let mut lines = block.lines();
        let expr = lines.next().unwrap_or("").strip_prefix("Expression: ").unwrap_or("").to_string();
        let obj = lines.next().unwrap_or("");
        let e = if let Some(n) = obj.strip_prefix("Object is a number : ") {
            let digits = n.split(['e', 'E']).next().unwrap_or("").chars().filter(|c| c.is_ascii_digit()).collect::<String>();
            let sig = digits.trim_start_matches('0').len().max(1) as i32;
            Expected::Number(
                match n {
                    "NaN" => f64::NAN,
                    "Infinity" => f64::INFINITY,
                    "-Infinity" => f64::NEG_INFINITY,
                    n => n.parse().unwrap_or(f64::NAN),
                },
                sig,
            )
        } else if let Some(b) = obj.strip_prefix("Object is a Boolean : ") {
            Expected::Boolean(b == "true")
        } else if let Some(s) = obj.strip_prefix("Object is a string : ") {
            Expected::String(s.to_string())
        } else if obj.starts_with("Object is a Node Set") {
            let mut v = Vec::new();
            for l in lines {
                // Top-level entries are "N  KIND name"; details are indented.
                let t = l.trim_start_matches(|c: char| c.is_ascii_digit());
                if t.len() < l.len() && t.starts_with(' ') {
                    let mut parts = t.split_whitespace();
                    let kind = parts.next().unwrap_or("");
                    let name = decode_hex_escapes(parts.next().unwrap_or(""));
                    v.push(match kind {
                        "ELEMENT" | "ATTRIBUTE" | "namespace" => format!("{kind} {name}"),
                        "PI" => format!("PI {name}"),
                        "/" => "ROOT".to_string(),
                        "CDATA_SECTION" | "TEXT" => "TEXT".to_string(),
                        k => k.to_string(),
                    });
                }
            }
            Expected::Nodes(v)
        } else {
            Expected::Null
        };
        out.push((expr, e));
    }
    out
}

/// libxml2's dump writes non-ASCII bytes of names as `#XX`.
fn decode_hex_escapes(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'#' && i + 3 <= b.len() && s.is_char_boundary(i + 3) {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn describe_node(n: &XNode<'_>) -> String {
    match n.kind() {
        XNodeKind::Root => "ROOT".into(),
        XNodeKind::Element => format!("ELEMENT {}", n.name()),
        XNodeKind::Attribute => format!("ATTRIBUTE {}", n.name()),
        XNodeKind::Namespace => format!("namespace {}", n.name()),
        XNodeKind::ProcessingInstruction => format!("PI {}", n.name()),
        XNodeKind::Comment => "COMMENT".into(),
        XNodeKind::Text => "TEXT".into(),
    }
}

fn check_libxml2(v: Result<Value<'_>, vtdx_xpath::XPathError>, want: &Expected) -> Outcome {
    let v = match (v, want) {
        (Err(_), Expected::Null) => return Ok(()),
        (Err(e), _) => return Err(e.to_string()),
        (Ok(v), Expected::Null) => return Err(format!("got {}, want an error", show(&v))),
        (Ok(v), _) => v,
    };
    let ok = match (&v, want) {
        (Value::Number(a), Expected::Number(b, sig)) => {
            // libxml2's dump rounds to `sig` significant digits.
            let close = || {
                let ulp = 10f64.powi(b.abs().log10().floor() as i32 - sig + 1);
                (a - b).abs() <= 0.5 * ulp * (1.0 + 1e-9)
            };
            (a.is_nan() && b.is_nan()) || a == b || (b.is_finite() && *b != 0.0 && close())
        }
        (Value::Boolean(a), Expected::Boolean(b)) => a == b,
        (Value::String(a), Expected::String(b)) => a == b,
        (Value::NodeSet(s), Expected::Nodes(want)) => {
            let got: Vec<String> = s.iter().map(describe_node).collect();
            if &got != want {
                return Err(format!("got {got:?}, want {want:?}"));
            }
            true
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("got {}, want {want:?}", show(&v)))
    }
}

fn run_libxml2(base: &Path, res: &mut Results) -> usize {
    let mut n = 0;
    let ns = Namespaces::new();
    for set in ["base", "compare", "equality", "floats", "functions", "strings"] {
        let exprs = String::from_utf8(read(&base.join("test/XPath/expr").join(set))).unwrap();
        let results = parse_results(&String::from_utf8(read(&base.join("result/XPath/expr").join(set))).unwrap());
        // The expression tests have no meaningful context document.
        let doc = Document::parse(b"<doc/>").unwrap();
        let mut k = 0;
        for (line, e) in exprs.lines().enumerate() {
            if e.trim().is_empty() {
                continue;
            }
            let (rexpr, want) = &results[k];
            k += 1;
            assert_eq!(rexpr, e, "libxml2 expr/{set}: result blocks out of step");
            n += 1;
            let r = XPath::compile(e, &ns).and_then(|x| x.evaluate(doc.root()));
            res.add(format!("libxml2:expr/{set}:{}", line + 1), check_libxml2(r, want).map_err(|m| format!("{e}: {m}")));
        }
    }
    let mut names: Vec<String> = std::fs::read_dir(base.join("test/XPath/tests"))
        .expect("libxml2 tests dir")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let docs = ["chapters", "id", "lang", "mixed", "nodes", "ns", "simple", "str", "unicode", "usr1", "vid", "issue289"];
    for name in names {
        let docname = docs.iter().filter(|d| name.starts_with(*d)).max_by_key(|d| d.len()).expect("test names start with a document name");
        let bytes = read(&base.join("test/XPath/docs").join(docname));
        let opts = vtdx_core::ParseOptions::new().external(vtdx_core::ExternalPolicy::Ignore);
        let doc = Document::parse_with(&bytes, &opts).unwrap_or_else(|e| panic!("libxml2 docs/{docname}: {e}"));
        let exprs = String::from_utf8(read(&base.join("test/XPath/tests").join(&name))).unwrap();
        let results = parse_results(&String::from_utf8(read(&base.join("result/XPath/tests").join(&name))).unwrap());
        // `*pat` files are relative patterns evaluated from the document element.
        let context = if name.ends_with("pat") { doc.root_element() } else { doc.root() };
        let mut k = 0;
        for (line, e) in exprs.lines().enumerate() {
            if e.trim().is_empty() {
                continue;
            }
            let (rexpr, want) = &results[k];
            k += 1;
            assert_eq!(rexpr, e, "libxml2 tests/{name}: result blocks out of step");
            n += 1;
            let r = XPath::compile(e, &ns).and_then(|x| x.evaluate(context));
            res.add(format!("libxml2:tests/{name}:{}", line + 1), check_libxml2(r, want).map_err(|m| format!("{e}: {m}")));
        }
    }
    n
}

// ---- the test ---------------------------------------------------------------------------

/// The expected-failure list, read by the one reader of all the runners.
#[path = "../../../conformance/src/expected.rs"]
#[allow(dead_code)]
mod expected;

fn expected_failures() -> expected::ExpectedFailures {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).expect("crates/vtdx-xpath is two levels down");
    let path = repo.join("conformance/expected-failures/xpath-corpus.txt");
    assert!(path.is_file(), "the expected-failure list is missing: {}", path.display());
    expected::ExpectedFailures::read(&path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn xpath_corpus() {
    let root = corpus().join("xpath");
    let mut res = Results::default();
    run_catalog("jaxen", &root.join("jaxen"), "xml/test/tests.xml", &mut res);
    let jaxen = res.cases.len();
    run_catalog("dom4j", &root.join("dom4j"), "xml/test/xpath/tests.xml", &mut res);
    let dom4j = res.cases.len() - jaxen;
    let libxml2 = run_libxml2(&root.join("libxml2"), &mut res);

    let report = expected_failures().compare(res.cases.iter().map(|(id, r)| (id.as_str(), r.as_ref().err().map(String::as_str))));
    let per = |p: &str| {
        let total = res.cases.keys().filter(|k| k.starts_with(p)).count();
        let pass = res.cases.iter().filter(|(k, r)| k.starts_with(p) && r.is_ok()).count();
        format!("{p} {pass}/{total}")
    };
    eprintln!(
        "xpath corpus: {}, {}, {} passed; {} dom4j XSLT patterns skipped",
        per("jaxen:"),
        per("dom4j:"),
        per("libxml2:"),
        res.skipped_patterns
    );
    // Jaxen: 143 `test` + 153 `valueOf`; dom4j: 90 `test` + 62 `valueOf` + 9 `filter`;
    // libxml2: the expression lines of expr/ and tests/.
    assert_eq!((jaxen, dom4j, libxml2, res.skipped_patterns), (296, 161, 327, 15), "the corpus moved or changed");
    assert!(report.is_empty(), "{} differences from the expected failures:\n{}", report.len(), report.join("\n"));
}
