//! Differential test against lxml (libxml2).
//!
//! Generates documents (namespaces and prefix rebinding, default namespaces,
//! mixed content, CDATA next to text, comments, PIs, internal entities with
//! and without markup, ID attributes, deep and wide trees) and thousands of
//! expressions from a seeded generator, evaluates each with vtdx and with lxml
//! (`tests/lxml_oracle.py`, run with `python3`; `scripts/test.sh` installs
//! lxml), and requires identical results: node-sets compared node by node as
//! (path, kind, string-value) in document order, numbers bit for bit,
//! strings and booleans exactly.
//!
//! Where libxml2 departs from the Recommendation vtdx follows the
//! Recommendation. Those departures are listed in `DEVIATIONS` below, each
//! with a case that shows it (checked against both engines on every run, so
//! the list stays true), and the generator does not produce the constructs
//! that trigger them, except where a mismatch can be recognised exactly:
//!
//! * D1: the entity text of the internal subset counts in libxml2's string-value
//!   of the root. Documents with entities get a twin with the references
//!   written out; a mismatch that disappears on the twin is D1.
//! * D4-D9: generator exclusions (see DEVIATIONS).
//! * D3: libxml2 writes numbers with 15 significant digits and uses exponents
//!   below 1e-5 and from 1e9; string results that are the same number to 15
//!   digits are D3. The generator keeps numbers dyadic and moderate.
//!
//! Expressions are evaluated with the document element as the context node
//! (as lxml's `ElementTree.xpath` does). lxml cannot return the root node in a node-set (it drops it), so root
//! nodes are left out of vtdx's node-sets before comparing; and lxml does not
//! say which element a namespace node belongs to, so namespace nodes are
//! compared by prefix and URI within each run of them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use vtdx_core::Document;
use vtdx_xpath::{Namespaces, Value, XNodeKind, XPath};

// ---- a small deterministic generator ---------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.below(v.len())]
    }
}

// ---- documents -----------------------------------------------------------------------------

/// Text content: dyadic numbers (exact in binary, so libxml2's 15-digit
/// formatting agrees), words, whitespace, references.
const TEXTS: &[&str] = &[
    "12",
    "-3.5",
    " 42 ",
    ".5",
    "7.",
    "0",
    "100",
    "2.25",
    "-0",
    "abc",
    "foo bar",
    "x y  z",
    "en",
    "a",
    "b c",
    "\u{e9}t\u{e9}",
    "a&amp;b",
    "&lt;tag&gt;",
    "&#65;&#x42;",
    "\n  ",
    " ",
    "1 2",
    "\u{1F600}",
    "NaN",
    "-",
    "12abc",
];
const ATTR_VALUES: &[&str] = &["1", "2", "abc", "12", "-3.5", "x y", " 5 ", "a&amp;b", "&#9;tab", "en", "en-US", "fr", "", "0.5"];
const ELEMS: &[&str] = &["a", "b", "c", "item", "a", "b", "p:a", "p:b", "q:c", "d:item"];

struct DocGen<'r> {
    rng: &'r mut Rng,
    /// With entity references (and, when `twin` is set, the same text with them written out).
    out: String,
    twin: Option<String>,
    ids: usize,
    /// Whether `xmlns=""` may appear (libxml2 then shows an empty namespace node, D9).
    undeclare: bool,
    /// Elements left to generate (keeps documents, and libxml2's quadratic
    /// axes, small enough for thousands of expressions in seconds).
    budget: usize,
}

impl DocGen<'_> {
    fn push(&mut self, s: &str) {
        self.out.push_str(s);
        if let Some(t) = &mut self.twin {
            t.push_str(s);
        }
    }
    fn push2(&mut self, with_entities: &str, written_out: &str) {
        self.out.push_str(with_entities);
        if let Some(t) = &mut self.twin {
            t.push_str(written_out);
        }
    }

    fn text(&mut self) {
        if self.twin.is_some() && self.rng.chance(20) {
            if self.rng.chance(50) {
                self.push2("&e;", "ent");
            } else {
                self.push2("&m;", "<i>z</i>");
            }
            return;
        }
        let t = self.rng.pick(TEXTS).to_string();
        self.push(&t);
    }

    fn element(&mut self, depth: usize, max_depth: usize, in_default_ns: bool) {
        self.budget = self.budget.saturating_sub(1);
        let mut name = self.rng.pick(ELEMS).to_string();
        let mut decls = String::new();
        let mut default_ns = in_default_ns;
        if let Some(local) = name.strip_prefix("d:") {
            // An element in the default namespace, declared here or above.
            name = local.to_string();
            if !default_ns {
                decls.push_str(" xmlns=\"urn:d\"");
                default_ns = true;
            }
        } else if self.undeclare && default_ns && !name.contains(':') && self.rng.chance(30) {
            decls.push_str(" xmlns=\"\"");
            default_ns = false;
        } else if default_ns && !name.contains(':') {
            // stays in the default namespace
        }
        if self.rng.chance(8) {
            // Rebind a prefix for this subtree.
            decls.push_str(if self.rng.chance(50) { " xmlns:q=\"urn:p\"" } else { " xmlns:p=\"urn:p2\"" });
        }
        if self.rng.chance(5) {
            decls.push_str(" xmlns:r=\"urn:r\"");
        }
        self.push("<");
        self.push(&name);
        self.push(&decls);
        let mut used: Vec<&str> = Vec::new();
        for _ in 0..self.rng.below(4) {
            let a = self.rng.pick(&["n", "x", "p:x", "lang", "xml:lang", "q:n"]);
            if used.contains(&a) {
                continue;
            }
            used.push(a);
            let v =
                if a.ends_with("lang") { self.rng.pick(&["en", "en-US", "EN-gb", "fr", "", "en-"]) } else { self.rng.pick(ATTR_VALUES) };
            let q = if self.rng.chance(50) { '"' } else { '\'' };
            let s = format!(" {a}={q}{v}{q}");
            self.push(&s);
        }
        if name == "item" && self.rng.chance(70) {
            self.ids += 1;
            let s = if self.rng.chance(20) { format!(" id=\" i{} \"", self.ids) } else { format!(" id=\"i{}\"", self.ids) };
            self.push(&s);
        }
        let width = if self.rng.chance(5) { 20 + self.rng.below(20) } else { self.rng.below(6) };
        if width == 0 && self.rng.chance(50) {
            self.push("/>");
            return;
        }
        self.push(">");
        let deep = max_depth > 8 && self.rng.chance(30);
        for i in 0..width {
            match self.rng.below(12) {
                0..=3 => self.text(),
                4 => {
                    let c = self.rng.pick(&["cd", "1.5", " x ", "<&>", "]"]).to_string();
                    self.push(&format!("<![CDATA[{c}]]>"));
                }
                5 => {
                    let c = self.rng.pick(&["c", " comment ", "", "a-b"]).to_string();
                    self.push(&format!("<!--{c}-->"));
                }
                6 => {
                    let s = if self.rng.chance(50) { "<?t data?>" } else { "<?pi?>" };
                    self.push(s);
                }
                _ => {
                    if self.budget > 0 && depth < max_depth && (deep || i < 4 || self.rng.chance(20)) {
                        self.element(depth + 1, max_depth, default_ns);
                    } else {
                        self.text();
                    }
                }
            }
        }
        self.push("</");
        self.push(&name);
        self.push(">");
    }
}

/// A document, and its twin with entity references written out when it declares entities.
fn gen_doc(rng: &mut Rng, k: usize) -> (String, Option<String>) {
    let entities = k % 4 == 1;
    let undeclare = k % 6 == 5;
    let mut g = DocGen { rng, out: String::new(), twin: entities.then(String::new), ids: 0, undeclare, budget: 120 };
    g.push("<?xml version=\"1.0\"?>\n");
    let attlist = "<!ATTLIST item id ID #IMPLIED>";
    if entities {
        g.push2(
            &format!("<!DOCTYPE a [\n<!ENTITY e \"ent\">\n<!ENTITY m \"<i>z</i>\">\n{attlist}\n]>\n"),
            &format!("<!DOCTYPE a [\n{attlist}\n]>\n"),
        );
    } else if k % 4 == 2 {
        g.push(&format!("<!DOCTYPE a [\n{attlist}\n]>\n"));
    }
    if g.rng.chance(30) {
        g.push("<!--top--><?top x?>");
    }
    let max_depth = if k % 5 == 3 { 14 } else { 4 };
    // The document element declares p and q (and sometimes the default namespace).
    let root = if undeclare || g.rng.chance(25) { "root xmlns=\"urn:d\"" } else { "root" };
    g.push(&format!("<{root} xmlns:p=\"urn:p\" xmlns:q=\"urn:q\" n=\"1\">"));
    for _ in 0..(2 + g.rng.below(5)) {
        g.element(1, max_depth, root.contains("xmlns"));
        if g.rng.chance(50) {
            g.text();
        }
    }
    g.push("</root>");
    if g.rng.chance(30) {
        g.push("<!--end-->");
    }
    (g.out, g.twin)
}

// ---- expressions -----------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    Node,
    Attr,
    Ns,
}

struct ExprGen<'r> {
    rng: &'r mut Rng,
    depth: usize,
    /// Whether to use the namespace axis (not on documents with `xmlns=""`, D9).
    ns_axis: bool,
}

const NUMS: &[&str] = &["0", "1", "2", "3", "0.5", "-1", "2.25", "10", "100", "-0", "(1 div 0)", "(-1 div 0)", "(0 div 0)", "4.", ".25"];
const LITS: &[&str] = &["'12'", "'abc'", "\"a\"", "''", "' 42 '", "'en'", "'1'", "'x y'", "'foo bar'", "'-3.5'", "'ent'", "'z'"];

impl ExprGen<'_> {
    fn num(&mut self) -> String {
        if self.depth > 3 || self.rng.chance(50) {
            return self.rng.pick(NUMS).to_string();
        }
        self.depth += 1;
        let r = match self.rng.below(9) {
            0 => format!("{} + {}", self.num(), self.num()),
            1 => format!("{} - {}", self.num(), self.num()),
            2 => format!("{} * {}", self.num(), self.num()),
            3 => format!("{} div {}", self.num(), self.rng.pick(&["2", "4", "0", "-0", "0.5", "-1"])),
            4 => format!("{} mod {}", self.num(), self.rng.pick(&["2", "3", "-2", "0", "1.5", "-0.5"])),
            5 => format!("-{}", self.num()),
            6 => format!("{}({})", self.rng.pick(&["floor", "ceiling", "round", "number"]), self.num()),
            7 => {
                let p = self.path(Ctx::Node);
                format!("{}({p})", self.rng.pick(&["count", "sum", "number", "string-length", "round"]))
            }
            _ => {
                let s = self.string();
                format!("{}({s})", self.rng.pick(&["string-length", "number"]))
            }
        };
        self.depth -= 1;
        r
    }

    fn string(&mut self) -> String {
        if self.depth > 3 || self.rng.chance(30) {
            return self.rng.pick(LITS).to_string();
        }
        self.depth += 1;
        let r = match self.rng.below(12) {
            0 => format!("string({})", self.path(Ctx::Node)),
            1 => format!("{}({})", self.rng.pick(&["name", "local-name", "namespace-uri"]), self.path(Ctx::Node)),
            2 => format!("concat({}, {}, {})", self.string(), self.string(), self.string()),
            3 => format!("substring({}, {})", self.string(), self.num()),
            4 => format!("substring({}, {}, {})", self.string(), self.num(), self.num()),
            5 => format!("{}({}, {})", self.rng.pick(&["substring-before", "substring-after"]), self.string(), self.string()),
            6 => format!("normalize-space({})", self.string()),
            7 => format!("translate({}, 'abce', 'AB')", self.string()),
            8 => format!("string({})", self.num()),
            9 => format!("string({})", self.boolean()),
            10 => self.path(Ctx::Node),
            _ => self.rng.pick(LITS).to_string(),
        };
        self.depth -= 1;
        r
    }

    fn boolean(&mut self) -> String {
        if self.depth > 3 {
            return self.rng.pick(&["true()", "false()"]).to_string();
        }
        self.depth += 1;
        let r = match self.rng.below(12) {
            0 => format!("{} {} {}", self.path(Ctx::Node), self.cmp(), self.string()),
            1 => format!("{} {} {}", self.path(Ctx::Node), self.cmp(), self.num()),
            2 => format!("{} {} {}", self.path(Ctx::Node), self.cmp(), self.path(Ctx::Node)),
            3 => format!("{} {} {}", self.num(), self.cmp(), self.num()),
            4 => format!("{} {} {}", self.string(), self.cmp(), self.string()),
            5 => format!("{} {} {}", self.boolean(), self.rng.pick(&["and", "or", "=", "!="]), self.boolean()),
            6 => format!("not({})", self.path(Ctx::Node)),
            7 => format!("boolean({})", self.path(Ctx::Node)),
            8 => format!("{}({}, {})", self.rng.pick(&["contains", "starts-with"]), self.string(), self.string()),
            9 => format!("lang({})", self.rng.pick(&["'en'", "'EN'", "'en-us'", "'fr'", "''"])),
            10 => format!("{} {} {}", self.path(Ctx::Node), self.cmp(), self.rng.pick(&["true()", "false()"])),
            _ => format!("{} = {}", self.num(), self.string()),
        };
        self.depth -= 1;
        r
    }

    fn cmp(&mut self) -> &'static str {
        self.rng.pick(&["=", "!=", "<", "<=", ">", ">="])
    }

    fn pred(&mut self, ctx: Ctx) -> String {
        if ctx == Ctx::Ns {
            // The order of namespace nodes is the implementation's (§5.4): no positions.
            let p = self.rng.pick(&[
                ". = 'urn:p'",
                "name() = 'p'",
                "contains(., 'q')",
                "string-length() > 5",
                "not(. = 'urn:q')",
                "local-name() = 'xml'",
                "../@n",
            ]);
            return format!("[{p}]");
        }
        let p = match self.rng.below(17) {
            0 => self.rng.pick(&["1", "2", "3", "last()", "last() - 1", "0", "1.5"]).to_string(),
            1 => self
                .rng
                .pick(&["position() > 1", "position() mod 2 = 0", "position() = last()", "position() < 3", "position() mod 2 = 1"])
                .to_string(),
            2 => "@n".to_string(),
            3 => format!("@x {} {}", self.cmp(), self.string()),
            4 => format!(". {} {}", self.cmp(), self.rng.pick(&["'12'", "12", "5", "'abc'", "''"])),
            5 => self.path(ctx),
            6 => format!("not({})", self.path(ctx)),
            7 => format!("count({}) {} {}", self.path(ctx), self.cmp(), self.rng.pick(&["0", "1", "2"])),
            8 => format!("name() = '{}'", self.rng.pick(&["a", "p:a", "item", "b", "p", "xml"])),
            9 => format!("local-name() = '{}'", self.rng.pick(&["a", "item", "b", "x", "p"])),
            10 => format!("string-length() {} {}", self.cmp(), self.rng.pick(&["0", "1", "3"])),
            11 => format!("contains(., '{}')", self.rng.pick(&["a", "1", " ", "ent"])),
            12 => format!("{} and {}", self.rng.pick(&["position() < 3", "@n", "text()", "*"]), self.rng.pick(&["@x", "not(b)", "true()"])),
            13 => self.boolean(),
            14 => format!("{} {} {}", self.num(), self.cmp(), "position()"),
            // a child element's number value against a number, either order
            15 => {
                let child = self.rng.pick(&["a", "b", "item", "*", "p:a", "p:*", "d:item"]);
                let n = self.rng.pick(&["12", "-3.5", "42", "0", "5", "1 div 0"]);
                if self.rng.chance(50) {
                    format!("{child} {} {n}", self.cmp())
                } else {
                    format!("{n} {} {child}", self.cmp())
                }
            }
            _ => format!("{} = {}", self.path(ctx), self.path(ctx)),
        };
        format!("[{p}]")
    }

    /// A step from a context of kind `ctx`: the step text and the kind it selects.
    fn step(&mut self, ctx: Ctx, after_dslash: bool) -> (String, Ctx) {
        // libxml2 departs from the Recommendation on the following axis of
        // attribute and namespace nodes (deviations D4, D5): not generated there.
        // After `//` only axes that stay near each node (the others are
        // quadratic in libxml2).
        let axes: &[&str] = if after_dslash {
            &["child", "child", "child", "attribute", "self", "parent", "namespace", "following-sibling"]
        } else if ctx == Ctx::Node {
            &[
                "child",
                "child",
                "child",
                "descendant",
                "descendant-or-self",
                "parent",
                "ancestor",
                "ancestor-or-self",
                "following-sibling",
                "preceding-sibling",
                "following",
                "preceding",
                "self",
                "attribute",
                "attribute",
                "namespace",
            ]
        } else if ctx == Ctx::Attr {
            &["parent", "ancestor", "ancestor-or-self", "self", "preceding", "descendant", "child", "attribute", "following-sibling"]
        } else {
            // ancestor-or-self would mix a namespace node with elements (D10).
            &["parent", "ancestor", "self", "preceding", "descendant", "child", "attribute", "following-sibling"]
        };
        let mut axis = self.rng.pick(axes);
        if axis == "namespace" && !self.ns_axis {
            axis = "attribute";
        }
        let abbreviated = self.rng.chance(40);
        let (test, kind) = match axis {
            "attribute" => (self.rng.pick(&["*", "n", "x", "p:x", "p:*", "node()", "xml:lang", "lang", "id", "q:n"]), Ctx::Attr),
            // `namespace::p:*` matches every namespace node in libxml2 (D7): not generated.
            "namespace" => (self.rng.pick(&["*", "p", "q", "xml", "r", "node()"]), Ctx::Ns),
            _ => (
                self.rng.pick(&[
                    "*",
                    "a",
                    "b",
                    "c",
                    "item",
                    "p:a",
                    "p:*",
                    "q:*",
                    "d:item",
                    "node()",
                    "text()",
                    "comment()",
                    "processing-instruction()",
                    "processing-instruction('t')",
                    "i",
                    "root",
                ]),
                if ctx == Ctx::Node || axis != "self" { Ctx::Node } else { ctx },
            ),
        };
        let mut s = match (axis, abbreviated) {
            ("child", true) => test.to_string(),
            ("attribute", true) => format!("@{test}"),
            ("parent", true) if test == "node()" => "..".to_string(),
            ("self", true) if test == "node()" => ".".to_string(),
            _ => format!("{axis}::{test}"),
        };
        if s != ".." && s != "." {
            let n = if self.depth > 2 { 0 } else { [0, 0, 0, 1, 1, 2][self.rng.below(6)] };
            self.depth += 1;
            for _ in 0..n {
                let p = self.pred(kind);
                s.push_str(&p);
            }
            self.depth -= 1;
        }
        (s, if axis == "self" { ctx } else { kind })
    }

    fn path(&mut self, ctx: Ctx) -> String {
        self.depth += 1;
        let mut cur = ctx;
        let mut s = String::new();
        // Absolute paths inside predicates make evaluation quadratic: rare there.
        let start = if self.depth > 1 && self.rng.chance(80) { 9 } else { self.rng.below(10) };
        let mut after_dslash = false;
        match start {
            0..=2 => {
                s.push('/');
                cur = Ctx::Node;
            }
            3..=4 => {
                s.push_str("//");
                cur = Ctx::Node;
                after_dslash = true;
            }
            _ => {}
        }
        let n = 1 + self.rng.below(if self.depth > 2 { 2 } else { 4 });
        for i in 0..n {
            if i > 0 {
                if cur == Ctx::Node && self.rng.chance(25) {
                    s.push_str("//");
                    after_dslash = true;
                } else {
                    s.push('/');
                }
            }
            let (st, k) = self.step(cur, after_dslash);
            after_dslash = false;
            s.push_str(&st);
            cur = k;
        }
        if s == "/" {
            s.push('*');
        }
        self.depth -= 1;
        if self.depth < 2 && self.rng.chance(10) {
            let other = self.path(ctx);
            // libxml2 does not sort namespace nodes among other nodes (D10).
            if !s.contains("namespace::") && !other.contains("namespace::") {
                return format!("{s} | {other}");
            }
        }
        // Positions over namespace nodes depend on their order, which is the
        // implementation's (§5.4): no positional filters over them.
        if self.depth < 2 && self.rng.chance(8) && !s.contains("namespace::") {
            let p = self.pred(Ctx::Node);
            return format!("({s}){p}");
        }
        s
    }

    fn top(&mut self) -> String {
        if self.rng.chance(3) {
            // Errors must be errors on both sides.
            return self
                .rng
                .pick(&["count('a')", "'a'/b", "(1)[1]", "sum(1)", "//a[", "1 +", "nope()", "$v", "name(1)", "a/@", "..[1]"])
                .to_string();
        }
        match self.rng.below(10) {
            0..=4 => self.path(Ctx::Node),
            5 => self.num(),
            6 | 7 => self.string(),
            8 => self.boolean(),
            // libxml2's id() misses a single token with spaces around it (D8): not generated.
            _ => format!("id({})", self.rng.pick(&["'i1'", "'i2 i3'", "'i4  i5'", "//item/@n", "'i1 i1'", "//@x", "//item/@id"])),
        }
    }
}

// ---- canonical results ------------------------------------------------------------------------

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n").replace('\r', "\\r").replace('\t', "\\t")
}

fn canonical(r: Result<Value<'_>, vtdx_xpath::XPathError>) -> String {
    match r {
        Err(e) => format!("E:{e}"),
        Ok(Value::Number(n)) if n.is_nan() => "N:NaN".into(),
        Ok(Value::Number(n)) => format!("N:{}", n.to_bits() as i64),
        Ok(Value::String(s)) => format!("S:{s}"),
        Ok(Value::Boolean(b)) => format!("B:{b}"),
        Ok(Value::NodeSet(set)) => {
            let mut items: Vec<(String, &str, String)> = Vec::new();
            let mut run: Vec<(String, &str, String)> = Vec::new();
            for n in set.iter() {
                if n.kind() == XNodeKind::Root {
                    continue;
                }
                if n.kind() == XNodeKind::Namespace {
                    run.push((format!("namespace::{}", n.name()), "namespace", n.string_value().into_owned()));
                    continue;
                }
                run.sort();
                items.append(&mut run);
                items.push((n.path(), n.kind().name(), n.string_value().into_owned()));
            }
            run.sort();
            items.append(&mut run);
            let mut s = String::from("NS:");
            for (i, (p, k, v)) in items.iter().enumerate() {
                if i > 0 {
                    s.push('\x1f');
                }
                let _ = write!(s, "{p}\x1e{k}\x1e{v}");
            }
            s
        }
    }
}

/// D3: the same number written by libxml2 with 15 significant digits or an exponent.
fn same_number_text(ours: &str, theirs: &str) -> bool {
    let (Some(a), Some(b)) = (ours.strip_prefix("S:"), theirs.strip_prefix("S:")) else { return false };
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x != y && format!("{x:.14e}") == format!("{y:.14e}"),
        _ => false,
    }
}

// ---- the documented deviations ------------------------------------------------------------------

/// (id, document, expression, vtdx's result (the Recommendation's), libxml2's result, reason)
const DEVIATIONS: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "D1",
        "<!DOCTYPE a [<!ENTITY e \"E\">]><a>t&e;</a>",
        "string(/)",
        "S:tE",
        "S:EtE",
        "libxml2 counts the entity values of the internal subset in the root node's string-value (§5.1: the string-value of the root is that of the document element)",
    ),
    ("D2", "<a/>", "number('1e3')", "N:NaN", "N:4652007308841189376", "libxml2 accepts an exponent in string-to-number conversion (§4.4 number(): the string must match the Number production, which has no exponent)"),
    ("D3a", "<a/>", "string(0.1 + 0.2)", "S:0.30000000000000004", "S:0.3", "libxml2 writes 15 significant digits (§4.2 string(): as many digits as needed to distinguish the number)"),
    ("D3b", "<a/>", "string(0.000001)", "S:0.000001", "S:1e-06", "libxml2 uses an exponent below 1e-5 and from 1e9 (§4.2 string(): no exponent)"),
    (
        "D4",
        "<a x='1'><b/>t</a>",
        "count(/a/@x/following::node())",
        "N:4611686018427387904",
        "N:0",
        "libxml2's following axis of an attribute omits its element's children (§2.2: following = every node after the context node in document order, minus descendants, attributes, namespace nodes)",
    ),
    (
        "D5",
        "<a xmlns:p='urn:p'><b/>t<c/></a>",
        "count(/a/namespace::p/following::node())",
        "N:4613937818241073152",
        "N:0",
        "libxml2's following axis of a namespace node misses its element's children and following nodes (§2.2)",
    ),
    (
        "D6",
        "<a><b xml:id='k'/></a>",
        "count(id('k'))",
        "N:0",
        "N:4607182418800017408",
        "libxml2 treats xml:id attributes as IDs; XPath 1.0 id() uses attributes declared with type ID in the DTD (§4.1)",
    ),
    (
        "D7",
        "<a xmlns:p='urn:p'/>",
        "count(/a/namespace::p:*)",
        "N:0",
        "N:4611686018427387904",
        "libxml2's `namespace::p:*` matches every namespace node; a namespace node's expanded-name has a null URI, so `p:*` matches none (§5.4, §2.3)",
    ),
    (
        "D8",
        "<!DOCTYPE a [<!ATTLIST b id ID #IMPLIED>]><a><b id='k'/></a>",
        "count(id(' k '))",
        "N:4607182418800017408",
        "N:0",
        "libxml2's id() finds nothing for a single ID with whitespace around it (§4.1: the string is split into whitespace-separated tokens)",
    ),
    (
        "D9",
        "<a xmlns='urn:d'><b xmlns=''/></a>",
        "count(//*[local-name() = 'b']/namespace::*)",
        "N:4607182418800017408",
        "N:4611686018427387904",
        "libxml2 gives an element a namespace node with an empty URI for `xmlns=\"\"`; the default namespace is then not in scope and has no node (§5.4)",
    ),
    (
        "D10",
        "<a xmlns:p='urn:p'><b/></a>",
        "name((/a/b | /a/namespace::p)[1])",
        "S:p",
        "S:b",
        "libxml2 does not sort namespace nodes into document order in unions (§5: an element's namespace nodes come right after it, before its children)",
    ),
];

// ---- the test ----------------------------------------------------------------------------------

fn python() -> String {
    std::env::var("VTDX_PYTHON").unwrap_or_else(|_| "python3".into())
}

fn work_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("vtdx-xpath-differential-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_oracle(dir: &Path) -> Vec<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lxml_oracle.py");
    let out =
        Command::new(python()).arg(&script).arg(dir).output().unwrap_or_else(|e| panic!("cannot run {} (set VTDX_PYTHON): {e}", python()));
    assert!(
        out.status.success(),
        "lxml oracle failed (is lxml installed? `python3 -m pip install lxml`; scripts/test.sh does it):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(dir.join("results.txt")).unwrap().lines().map(str::to_string).collect()
}

const DOCS: usize = 64;

/// Fixed cases on nested elements of the same name, where steps after `//`
/// and `..` reach nodes out of document order or twice (sorting and
/// deduplication between steps), compared with lxml like the generated ones.
const NESTED_DOC: &str =
    r#"<r><a n="1"><b>1</b><a n="2"><b>2</b><c><a n="3"><b>3</b><b>7</b></a></c></a><b>4</b></a><c><b>5</b><a n="4"/><b>6</b></c></r>"#;
const NESTED_EXPRS: &[&str] = &[
    "//a/../*/*",
    "//a/..//b",
    "//a/../b",
    "//a/../*/b",
    "//b/../..",
    "//b/../../*",
    "//*/..",
    "//a/*[1]",
    "//a/*[last()]",
    "//a//b",
    "//a/../*[2]/*",
    "//a[b > 1]/..",
    "//a[b < 3]",
    "//a[2 > b]/b",
    "//a[b = 7]",
    "//c/a/..",
    "/r//a/../*[position() mod 2 = 0]",
    "//a/parent::a/b",
    "//a/self::a/../b",
    "a/../c/b",
    ".//a/..",
    "*/a/../b",
    "//a/descendant-or-self::a/b",
    "//a/descendant::b/..",
    "//c//a/../*",
    "//a[@n > 1]/../*",
    "//b[. > 2]/../..",
    "//a/b[2]/..",
    "(//a/..)/*",
];
const EXPRS_PER_DOC: usize = 100;

#[test]
fn lxml_differential() {
    if std::env::var_os("VTDX_SKIP_LXML").is_some() {
        eprintln!("VTDX_SKIP_LXML set: differential test skipped");
        return;
    }
    let dir = work_dir();
    // VTDX_DIFF_SEED explores other seeds; the suite runs the fixed one.
    let seed = std::env::var("VTDX_DIFF_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5EED_0004);
    let mut rng = Rng(seed);
    let mut docs: Vec<(String, Option<String>)> = Vec::new();
    let mut exprs: Vec<(usize, String)> = Vec::new();
    for k in 0..DOCS {
        let (d, twin) = gen_doc(&mut rng, k);
        std::fs::write(dir.join(format!("doc{k}.xml")), &d).unwrap();
        if let Some(t) = &twin {
            std::fs::write(dir.join(format!("doc{k}.noent.xml")), t).unwrap();
        }
        docs.push((d, twin));
        let mut g = ExprGen { rng: &mut rng, depth: 0, ns_axis: k % 6 != 5 };
        for _ in 0..EXPRS_PER_DOC {
            exprs.push((k, g.top()));
        }
    }
    // The deviation cases, as documents of their own.
    for (i, (_, doc, expr, ..)) in DEVIATIONS.iter().enumerate() {
        let k = DOCS + i;
        std::fs::write(dir.join(format!("doc{k}.xml")), doc).unwrap();
        docs.push((doc.to_string(), None));
        exprs.push((k, expr.to_string()));
    }
    let nested = docs.len();
    std::fs::write(dir.join(format!("doc{nested}.xml")), NESTED_DOC).unwrap();
    docs.push((NESTED_DOC.to_string(), None));
    exprs.extend(NESTED_EXPRS.iter().map(|e| (nested, e.to_string())));
    let mut lines = String::new();
    for (k, e) in &exprs {
        let _ = writeln!(lines, "{k}\t{e}");
    }
    std::fs::write(dir.join("exprs.txt"), lines).unwrap();
    let t0 = std::time::Instant::now();
    let theirs = run_oracle(&dir);
    let lxml_time = t0.elapsed();
    assert_eq!(theirs.len(), exprs.len(), "oracle output out of step");

    let ns = Namespaces::new().with("p", "urn:p").with("q", "urn:q").with("d", "urn:d");
    let parsed: Vec<(Document<'_>, Option<Document<'_>>)> = docs
        .iter()
        .map(|(d, t)| {
            (
                Document::parse(d.as_bytes()).expect("generated documents are well-formed"),
                t.as_ref().map(|t| Document::parse(t.as_bytes()).unwrap()),
            )
        })
        .collect();

    let t0 = std::time::Instant::now();
    let mut mismatches = Vec::new();
    let (mut same, mut d1, mut d3, mut errors) = (0, 0, 0, 0);
    for (i, ((k, e), their_line)) in exprs.iter().zip(&theirs).enumerate() {
        let (doc, twin) = &parsed[*k];
        let xp = XPath::compile(e, &ns);
        // lxml evaluates with the document element as the context node.
        let run = |d: &Document<'_>| esc(&canonical(xp.clone().and_then(|x| x.evaluate(d.root_element()))));
        let ours = run(doc);
        let mut parts = their_line.splitn(2, '\t');
        let theirs_main = parts.next().unwrap_or("");
        let theirs_twin = parts.next();
        if (DOCS..nested).contains(k) {
            let (id, _, _, want_ours, want_theirs, reason) = DEVIATIONS[*k - DOCS];
            if ours != want_ours {
                mismatches.push(format!("deviation {id} ({reason}): vtdx gives {ours}, want {want_ours}"));
            }
            if theirs_main != want_theirs {
                mismatches
                    .push(format!("deviation {id} ({reason}): libxml2 gives {theirs_main}, documented {want_theirs} (update DEVIATIONS)"));
            }
            continue;
        }
        if let Some(t) = twin {
            // Entity expansion must not change vtdx's answer.
            assert_eq!(ours, run(t), "vtdx differs between doc{k} and its entity-free twin on {e}");
        }
        if ours.starts_with("E:") && theirs_main.starts_with("E:") {
            errors += 1;
            same += 1;
        } else if ours == theirs_main {
            same += 1;
        } else if theirs_twin == Some(ours.as_str()) {
            d1 += 1;
        } else if same_number_text(&ours, theirs_main) {
            d3 += 1;
        } else {
            mismatches.push(format!("#{i} doc{k}: {e}\n  vtdx: {ours}\n  lxml: {theirs_main}"));
        }
    }
    let ours_time = t0.elapsed();
    eprintln!(
        "differential: {} documents x {} expressions + {} fixed nested cases = {} cases: {same} identical ({errors} errors on both sides), {d1} D1, {d3} D3, {} mismatches; lxml {:.2}s, vtdx {:.2}s",
        DOCS,
        EXPRS_PER_DOC,
        NESTED_EXPRS.len(),
        DOCS * EXPRS_PER_DOC + NESTED_EXPRS.len(),
        mismatches.len(),
        lxml_time.as_secs_f64(),
        ours_time.as_secs_f64()
    );
    if mismatches.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches (inputs kept in {}):\n{}",
        mismatches.len(),
        dir.display(),
        mismatches.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
    assert!(errors > 0 && errors * 10 < DOCS * EXPRS_PER_DOC, "expressions failing on both sides: {errors} (the generator is broken)");
}

/// A document large enough for [`vtdx_xpath::Context::set_parallel`] to cut
/// its work in two (over 8,192 nodes in a predicate or a child or `text()`
/// step; a tape of over 2^18 words for `//name`): items of several shapes —
/// bare leaves, leaves with white space, attributes, comments, references
/// and CDATA in their content, nested items (so a step's output needs
/// sorting) — and a second group of another name.
fn large_doc(rng: &mut Rng) -> String {
    let mut d = String::from("<r><items>");
    for i in 0..14_000 {
        let _ = write!(d, "<item n=\"{i}\">");
        let q = rng.below(100);
        match rng.below(6) {
            0 => {
                let _ = write!(d, "<q> {q} </q>");
            }
            1 => {
                let _ = write!(d, "<q a=\"1\">{q}</q>");
            }
            2 => {
                let _ = write!(d, "<q>{q}<!--c--></q>");
            }
            3 => {
                let _ = write!(d, "<q>&#{};{}</q>", 48 + q % 10, q / 10);
            }
            4 => {
                let _ = write!(d, "<q><![CDATA[{q}]]></q>");
            }
            _ => {
                let _ = write!(d, "<q>{q}</q>");
            }
        }
        let _ = write!(d, "<price>{}.{}</price>", rng.below(200), rng.below(100));
        if rng.chance(40) {
            d.push_str("<c>note</c>");
        }
        if rng.chance(10) {
            d.push_str("<item><q>5</q><c/></item>");
        }
        if rng.chance(5) {
            d.push_str("<q></q>");
        }
        d.push_str("</item>");
    }
    d.push_str("</items><other>");
    for i in 0..9_000 {
        let _ = write!(d, "<o><q>{}</q></o>", i % 50);
    }
    d.push_str("</other></r>");
    d
}

/// Expressions on [`large_doc`]; lxml is asked for `count(E)` of each
/// node-set (its path of every node costs time in the number of preceding
/// siblings, so whole results only where they are small: the `true` ones).
const LARGE_EXPRS: &[(&str, bool)] = &[
    ("/r/items/item[price < 50]", false),
    ("/r/items/item[price >= 150]/q", false),
    ("/r/items/item[q = 7]", true),
    ("/r/items/item[q > 90][price < 10]", true),
    ("/*/*/*[position() mod 3 = 1]", false),
    ("/*/*/*[last()]", true),
    ("/*/*/*/q", false),
    ("/*/*/*/q/text()", false),
    ("/*/*/*/price/text()", false),
    ("/*/*/*/c/text()", false),
    ("//item/c", false),
    ("//item/c/../q", false),
    ("//item/q/text()", false),
    ("//q[. > 98]", false),
    ("//o/q[. = 3]/..", false),
    ("count(//item/price)", true),
    ("sum(/r/other/o/q)", true),
    ("sum(/r/items/item[price < 20]/q)", true),
    ("/r/items/item[@n > 13990]/price", true),
    ("/r/items/item[position() > 13995]", true),
    ("/r/items/item[q = $missing]", true),
];

/// [`vtdx_xpath::Context::set_parallel`]: on a large document the evaluation
/// cut in two gives the nodes of the evaluation in one thread, in the same
/// order (and the same errors), and lxml's counts and values.
#[test]
fn parallel_evaluation_agrees_with_lxml() {
    if std::env::var_os("VTDX_SKIP_LXML").is_some() {
        eprintln!("VTDX_SKIP_LXML set: parallel differential test skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("vtdx-xpath-parallel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let d = large_doc(&mut Rng(0x5EED_0005));
    std::fs::write(dir.join("doc0.xml"), &d).unwrap();
    let asked: Vec<String> = LARGE_EXPRS
        .iter()
        .flat_map(|(e, full)| {
            let count = if e.starts_with("count(") || e.starts_with("sum(") { None } else { Some(format!("count({e})")) };
            count.into_iter().chain(full.then(|| e.to_string()))
        })
        .collect();
    let mut lines = String::new();
    for e in &asked {
        let _ = writeln!(lines, "0\t{e}");
    }
    std::fs::write(dir.join("exprs.txt"), lines).unwrap();
    let theirs = run_oracle(&dir);
    assert_eq!(theirs.len(), asked.len(), "oracle output out of step");
    let doc = Document::parse(d.as_bytes()).unwrap();
    let mut one = vtdx_xpath::Context::new(&doc);
    one.set_parallel(false);
    let mut two = vtdx_xpath::Context::new(&doc);
    two.set_parallel(true);
    let at = vtdx_xpath::XNode::from(doc.root_element());
    let mut mismatches = Vec::new();
    for (e, their_line) in asked.iter().zip(&theirs) {
        let ours = esc(&canonical(XPath::compile(e, &Namespaces::new()).unwrap().evaluate_in(&two, at)));
        let same = if ours.starts_with("E:") { their_line.starts_with("E:") } else { &ours == their_line };
        if !same {
            mismatches.push(format!("{e}: vtdx {} / lxml {}", &ours[..ours.len().min(200)], &their_line[..their_line.len().min(200)]));
        }
    }
    for (e, _) in LARGE_EXPRS {
        let xp = XPath::compile(e, &Namespaces::new()).unwrap();
        let (p, s) = (xp.evaluate_in(&two, at), xp.evaluate_in(&one, at));
        let same = match (&p, &s) {
            (Ok(Value::NodeSet(a)), Ok(Value::NodeSet(b))) => a.iter().eq(b.iter()),
            (Ok(a), Ok(b)) => esc(&canonical(Ok(a.clone()))) == esc(&canonical(Ok(b.clone()))),
            (Err(a), Err(b)) => a.to_string() == b.to_string(),
            _ => false,
        };
        if !same {
            mismatches.push(format!("{e}: the parallel and the sequential evaluation differ"));
        }
    }
    if mismatches.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(mismatches.is_empty(), "inputs kept in {}:\n{}", dir.display(), mismatches.join("\n"));
}
