//! A deterministic generator of documents full of canonicalization edge
//! cases: namespaces declared, redeclared (same and different URI), unused,
//! undeclared (`xmlns=""`); prefixed and `xml:*` attributes in every order;
//! references, CR, tabs and newlines in attribute values and text; CDATA;
//! comments and PIs inside and outside the document element; empty-element
//! tags; odd spacing and quoting; an internal DTD with attribute defaults,
//! a non-CDATA attribute type and an entity.

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        // xorshift64*
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    /// True with probability `pct` percent.
    pub fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// URIs as written in the document (entity-escaped) and as they read.
const URIS: &[&str] = &["http://a.example/ns", "urn:b", "urn:c:d", "http://e.example/x?y=1#z", "http://www.w3.org/2000/09/xmldsig#"];
const PREFIXES: &[&str] = &["p", "q", "ds", "soap"];
const LOCALS: &[&str] = &["a", "b", "item", "x"];
const ATTR_LOCALS: &[&str] = &["a", "b", "id", "attr", "z"];

fn decode(uri: &str) -> String {
    uri.replace("&#x3A;", ":").replace("&amp;", "&")
}

pub struct Gen {
    pub rng: Rng,
    out: String,
    /// in-scope bindings, nearest last: (prefix, decoded uri); "" is the default
    scope: Vec<(String, String)>,
    depth: usize,
    max_depth: usize,
    elements: usize,
    dtd: bool,
}

impl Gen {
    pub fn new(seed: u64) -> Gen {
        Gen { rng: Rng::new(seed), out: String::new(), scope: Vec::new(), depth: 0, max_depth: 4, elements: 0, dtd: false }
    }

    fn lookup(&self, p: &str) -> Option<&str> {
        self.scope.iter().rev().find(|(q, _)| q == p).map(|(_, u)| u.as_str())
    }

    fn ws(&mut self) -> &'static str {
        self.rng.pick::<&str>(&[" ", " ", " ", "  ", "\n ", "\t", "\r\n  "])
    }

    fn misc(&mut self) {
        match self.rng.below(4) {
            0 => self.out.push_str("<!-- a comment -->"),
            1 => self.out.push_str("<!--x\r\ny-->"),
            2 => self.out.push_str("<?pi data  here?>"),
            _ => self.out.push_str("<?pi-nodata   ?>"),
        }
    }

    fn text(&mut self) {
        let n = 1 + self.rng.below(4);
        for _ in 0..n {
            let piece = match self.rng.below(22) {
                0 => "word",
                1 => " ",
                2 => "\n   ",
                3 => "\r\n",
                4 => "\r",
                5 => "&amp;",
                6 => "&lt;",
                7 => "&gt;",
                8 => ">",
                9 => "&#13;",
                10 => "&#x9;",
                11 => "&#xE9;",
                12 => "é€𝄞",
                13 => "\t",
                14 => "&quot;'\"",
                15 => "&apos;",
                16 => "<![CDATA[a<b&c>d]]]]>",
                17 => "<![CDATA[]]>",
                18 => "<![CDATA[x\r\ny]]>",
                19 if self.dtd => "&ent;",
                _ => "text",
            };
            self.out.push_str(piece);
        }
    }

    fn attr_value(&mut self, quote: char) -> String {
        let mut v = String::new();
        for _ in 0..self.rng.below(4) {
            let piece = match self.rng.below(16) {
                0 => "v",
                1 => " ",
                2 => "&amp;",
                3 => "&lt;",
                4 => ">",
                5 => "&#9;",
                6 => "&#10;",
                7 => "&#13;",
                8 => "\t",
                9 => "\n",
                10 => "\r\n",
                11 => "&quot;",
                12 => "&apos;",
                13 => {
                    if quote == '"' {
                        "'"
                    } else {
                        "\""
                    }
                }
                14 if self.dtd => "&ent;",
                _ => "val",
            };
            v.push_str(piece);
        }
        v
    }

    fn element(&mut self) {
        self.elements += 1;
        let mark = self.scope.len();
        // namespace declarations
        let mut decls: Vec<(String, String)> = Vec::new(); // (attr name, raw uri)
                                                           // now and then a single declaration of the element's own prefix (the shape of
                                                           // `<m:GetQuote xmlns:m="...">`): new, redundant, or with a reference in the URI
        let own = if self.depth > 0 && self.rng.chance(15) { Some(*self.rng.pick(PREFIXES)) } else { None };
        if let Some(p) = own {
            let raw = match self.rng.below(4) {
                0 => self.lookup(p).map(|u| u.replace('&', "&amp;")).unwrap_or_else(|| "urn&#x3A;b".into()),
                1 => "urn&#x3A;b".into(),
                _ => self.rng.pick(URIS).to_string(),
            };
            decls.push((format!("xmlns:{p}"), raw));
        }
        for &p in PREFIXES.iter().filter(|_| own.is_none()) {
            if self.rng.chance(if self.depth == 0 { 45 } else { 15 }) {
                let raw = if self.rng.chance(30) {
                    // redeclare with the URI in scope (redundant), if any
                    match self.lookup(p) {
                        Some(u) => u.replace('&', "&amp;"),
                        None => self.rng.pick(URIS).to_string(),
                    }
                } else {
                    self.rng.pick(URIS).to_string()
                };
                decls.push((format!("xmlns:{p}"), raw));
            }
        }
        if self.rng.chance(15) {
            decls.push(("xmlns".into(), self.rng.pick(URIS).to_string()));
        } else if self.rng.chance(10) {
            decls.push(("xmlns".into(), String::new()));
        }
        for (n, raw) in &decls {
            let p = n.strip_prefix("xmlns:").unwrap_or("");
            self.scope.push((p.to_string(), decode(raw)));
        }
        // the element name
        let declared: Vec<String> =
            PREFIXES.iter().filter(|p| self.lookup(p).is_some_and(|u| !u.is_empty())).map(|p| p.to_string()).collect();
        let local = *self.rng.pick(LOCALS);
        let name = if let Some(p) = own {
            format!("{p}:{local}")
        } else if !declared.is_empty() && self.rng.chance(50) {
            format!("{}:{local}", self.rng.pick(&declared))
        } else {
            local.to_string()
        };
        // attributes, unique by qualified and by expanded name
        let mut attrs: Vec<(String, String)> = Vec::new();
        let mut expanded: Vec<(String, String)> = Vec::new();
        for _ in 0..self.rng.below(5) {
            let (qn, uri, l) = if !declared.is_empty() && self.rng.chance(40) {
                let p = self.rng.pick(&declared).clone();
                let l = *self.rng.pick(&["a", "b", "x"]);
                let u = self.lookup(&p).unwrap_or("").to_string();
                (format!("{p}:{l}"), u, l.to_string())
            } else {
                let l = *self.rng.pick(ATTR_LOCALS);
                (l.to_string(), String::new(), l.to_string())
            };
            if attrs.iter().any(|(n, _)| *n == qn) || expanded.iter().any(|(u, x)| *u == uri && *x == l) {
                continue;
            }
            expanded.push((uri, l));
            attrs.push((qn, String::new()));
        }
        for x in ["xml:lang", "xml:space", "xml:base"] {
            if self.rng.chance(8) {
                attrs.push((x.to_string(), String::new()));
            }
        }
        if self.dtd && local == "item" && self.rng.chance(30) {
            attrs.push(("tok".into(), "  t1   t2 ".into()));
        }
        // write the start tag, declarations and attributes interleaved in random
        // order; or, for a third of the elements, tidy: in canonical order, single
        // spaced, double quoted, with plain values (what the fast paths copy, when
        // the namespace rules let them)
        let tidy = self.rng.chance(35);
        let mut all: Vec<(String, Option<String>)> = decls
            .iter()
            .map(|(n, v)| (n.clone(), Some(v.clone())))
            .chain(attrs.into_iter().map(|(n, v)| (n, if v.is_empty() { None } else { Some(v) })))
            .collect();
        if tidy {
            let key = |n: &str| -> (u8, String, String) {
                if n == "xmlns" {
                    (0, String::new(), String::new())
                } else if let Some(p) = n.strip_prefix("xmlns:") {
                    (0, p.to_string(), String::new())
                } else if let Some((p, l)) = n.split_once(':') {
                    let uri = if p == "xml" {
                        "http://www.w3.org/XML/1998/namespace".to_string()
                    } else {
                        self.lookup(p).unwrap_or("").to_string()
                    };
                    (1, uri, l.to_string())
                } else {
                    (1, String::new(), n.to_string())
                }
            };
            all.sort_by_key(|(n, _)| key(n));
        } else {
            for i in (1..all.len()).rev() {
                let j = self.rng.below(i + 1);
                all.swap(i, j);
            }
        }
        self.out.push('<');
        self.out.push_str(&name);
        for (n, v) in all {
            let quote = if !tidy && self.rng.chance(30) { '\'' } else { '"' };
            let v = match v {
                Some(v) => v,
                None => match n.as_str() {
                    "xml:lang" => self.rng.pick(&["en", "fr-CA", ""]).to_string(),
                    "xml:space" => self.rng.pick(&["preserve", "default"]).to_string(),
                    "xml:base" => self.rng.pick(&["base/", "../up/x", "http://h.example/d/"]).to_string(),
                    _ if tidy => self.rng.pick(&["v", "val", "a b", "x>y", ""]).to_string(),
                    _ => self.attr_value(quote),
                },
            };
            let ws = if tidy { " " } else { self.ws() };
            self.out.push_str(ws);
            self.out.push_str(&n);
            if !tidy && self.rng.chance(10) {
                self.out.push_str(" = ");
            } else {
                self.out.push('=');
            }
            self.out.push(quote);
            self.out.push_str(&v);
            self.out.push(quote);
        }
        if !tidy && self.rng.chance(15) {
            let ws = self.ws();
            self.out.push_str(ws);
        }
        let children = if self.depth >= self.max_depth { 0 } else { self.rng.below(5) };
        if children == 0 && self.rng.chance(50) {
            self.out.push_str("/>");
        } else {
            self.out.push('>');
            self.depth += 1;
            for _ in 0..children {
                match self.rng.below(6) {
                    0..=2 => self.element(),
                    3 => self.text(),
                    4 => self.misc(),
                    _ => self.out.push_str("\n  "),
                }
            }
            if self.rng.chance(40) {
                self.text();
            }
            self.depth -= 1;
            self.out.push_str("</");
            self.out.push_str(&name);
            if self.rng.chance(10) {
                self.out.push_str("  ");
            }
            self.out.push('>');
        }
        self.scope.truncate(mark);
    }

    /// A whole document.
    pub fn document(mut self) -> String {
        if self.rng.chance(50) {
            self.out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        }
        self.dtd = self.rng.chance(30);
        if self.dtd {
            self.out.push_str(
                "<!DOCTYPE root [\n<!ATTLIST item def CDATA \"d&amp;v\" tok NMTOKENS #IMPLIED>\n<!ATTLIST b xml:space (default|preserve) 'preserve'>\n<!ENTITY ent \"E&#38;amp;x&#38;#60;\">\n]>\n",
            );
        }
        for _ in 0..self.rng.below(3) {
            self.misc();
            self.out.push_str(if self.rng.chance(50) { "\n" } else { "\r\n\n" });
        }
        self.element();
        for _ in 0..self.rng.below(3) {
            self.out.push_str(if self.rng.chance(50) { "\n" } else { " \r\n" });
            self.misc();
        }
        if self.rng.chance(50) {
            self.out.push('\n');
        }
        self.out
    }
}
