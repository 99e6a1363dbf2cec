//! Loading schema documents: reading files, parsing them with vtdx-core's
//! secure defaults, and following `include`, `import` and `redefine`.
//!
//! Locations are resolved only relative to the directory of the including
//! document; a location with a URI scheme (`http:`, `https:`, `ftp:`, ...) is an
//! error at the position of the attribute, except for the XML namespace's schema,
//! which is built in. A location that names no readable file is skipped, as
//! XML Schema 1.0 §4.2.1 and §4.2.3 allow (a reference to a component it would
//! have declared is then reported as unresolved). Cycles are harmless: a
//! document is loaded once per (file, effective target namespace).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use vtdx_core::{Document, Node, ParseOptions};

use crate::error::{Location, SchemaError, SchemaErrorKind};

/// The XML Schema namespace.
pub const XS: &str = "http://www.w3.org/2001/XMLSchema";
/// The XML Schema instance namespace (`xsi:type`, `xsi:nil`, ...).
pub const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";

/// A source the caller hands to the loader.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    File(PathBuf),
    Bytes { name: String, bytes: Vec<u8>, base: Option<PathBuf> },
}

/// A schema location hint of an instance document (`xsi:schemaLocation` or
/// `xsi:noNamespaceSchemaLocation`), resolved to a local path.
#[derive(Debug, Clone)]
pub(crate) struct Hint {
    /// The namespace the hint is for (`None`: no namespace).
    pub namespace: Option<String>,
    pub path: PathBuf,
    /// The hint attribute in the instance.
    pub from: Location,
}

/// The hints of `doc` (named `name` in errors), document element first, then (with
/// `descendants`) every other element in document order. Locations resolve against
/// `base`; one with a URI scheme other than `file:` is a [`SchemaErrorKind::RemoteLocation`]
/// error, and an odd number of tokens in `xsi:schemaLocation` a
/// [`SchemaErrorKind::Structure`] error, at the attribute.
pub(crate) fn instance_hints(doc: &Document<'_>, name: &str, base: &Path, descendants: bool) -> Result<Vec<Hint>, SchemaError> {
    let root = doc.root_element();
    let mut out = Vec::new();
    let elements = std::iter::once(root).chain(root.descendant_elements().filter(|n| *n != root).take_while(|_| descendants));
    // Namespaces of the elements and attributes met so far in document order: a hint that
    // names a new document for one of them comes too late (XSD 1.0 §4.3.2: the components
    // for a namespace must be known before the first item in it is assessed; the W3C
    // suite's addB156-addB164). Naming an already hinted document again is harmless.
    let mut used: std::collections::HashSet<Option<String>> = std::collections::HashSet::new();
    for el in elements {
        for a in el.attributes() {
            if a.namespace_uri() != Some(XSI) {
                continue;
            }
            let (line, column) = a.position();
            let from = Location { file: name.to_string(), line, column, offset: a.range().start as u64 };
            let value = a.value();
            let pairs: Vec<(Option<String>, &str)> = match a.local_name() {
                "schemaLocation" => {
                    let toks: Vec<&str> = value.split_ascii_whitespace().collect();
                    if toks.len() % 2 != 0 {
                        return Err(err(
                            SchemaErrorKind::Structure,
                            format!("xsi:schemaLocation must list namespace and location pairs; found {} tokens", toks.len()),
                            from,
                        ));
                    }
                    toks.chunks(2).map(|p| (Some(p[0].to_string()), p[1])).collect()
                }
                "noNamespaceSchemaLocation" => vec![(None, value.trim())],
                _ => continue,
            };
            for (namespace, location) in pairs {
                let path = resolve_local(location, Some(base), "the instance", &from)?;
                // the same document named again adds nothing
                if out.iter().any(|h: &Hint| h.namespace == namespace && h.path == path) {
                    continue;
                }
                if used.contains(&namespace) {
                    return Err(err(
                        SchemaErrorKind::Constraint,
                        format!(
                            "{} hint for {} comes after an element or attribute in that namespace (a schema location must precede the namespace's first use, XSD 1.0 §4.3.2)",
                            a.name(),
                            namespace.as_deref().map_or("no namespace".to_string(), |n| format!("namespace {n}"))
                        ),
                        from,
                    ));
                }
                out.push(Hint { namespace, path, from: from.clone() });
            }
        }
        if descendants {
            used.insert(el.namespace_uri().map(str::to_string));
            for a in el.attributes() {
                if let Some(ns) = a.namespace_uri() {
                    if ns != XSI && ns != "http://www.w3.org/2000/xmlns/" {
                        used.insert(Some(ns.to_string()));
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Resolves a schema location: a relative path or `file:` URI against `dir`; any other
/// URI scheme is refused (`what` says what it would be relative to).
fn resolve_local(location: &str, dir: Option<&Path>, what: &str, from: &Location) -> Result<PathBuf, SchemaError> {
    if has_scheme(location) && !location.starts_with("file:") {
        return Err(err(
            SchemaErrorKind::RemoteLocation,
            format!("schemaLocation {location:?} names a remote resource; nothing is fetched (expected a local path relative to {what})"),
            from.clone(),
        ));
    }
    let rel = percent_decode(location.strip_prefix("file://").or(location.strip_prefix("file:")).unwrap_or(location));
    Ok(match dir {
        Some(d) if Path::new(&rel).is_relative() => d.join(&rel),
        _ => PathBuf::from(&rel),
    })
}

/// Which kind of global component a name belongs to (the symbol spaces of §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Type,
    Element,
    Attribute,
    Group,
    AttributeGroup,
    Notation,
    Identity,
}

/// One loaded schema document.
pub(crate) struct SchemaDoc {
    /// Display name (as named by the caller or as resolved).
    pub file: String,
    /// Directory that relative locations resolve against.
    #[allow(dead_code)] // kept for tools that report where a document came from
    pub dir: Option<PathBuf>,
    pub doc: Document<'static>,
    /// The effective target namespace ("" never: `None` is absent).
    pub target_ns: Option<String>,
    /// The document has no `targetNamespace` of its own and was included into one.
    pub chameleon: bool,
    pub element_qualified: bool,
    pub attribute_qualified: bool,
    pub block_default: String,
    pub final_default: String,
    /// Components of this document that a `redefine` replaces: (kind, local name).
    pub redefined: HashSet<(Kind, String)>,
}

impl SchemaDoc {
    pub(crate) fn location(&self, offset: usize) -> Location {
        let (line, column) = self.doc.line_column(offset);
        Location { file: self.file.clone(), line, column, offset: offset as u64 }
    }
    pub(crate) fn node_location(&self, n: Node<'_>) -> Location {
        self.location(n.range().start)
    }
    pub(crate) fn root(&self) -> Node<'_> {
        self.doc.root_element()
    }
}

/// Loader limits.
#[derive(Debug, Clone)]
pub(crate) struct LoadLimits {
    pub max_documents: usize,
    pub parse: ParseOptions,
}

/// Every document of a schema set, in load order.
pub(crate) struct Loaded {
    pub docs: Vec<SchemaDoc>,
    pub warnings: Vec<SchemaError>,
}

fn err(kind: SchemaErrorKind, message: impl Into<String>, location: Location) -> SchemaError {
    SchemaError { kind, message: message.into(), location }
}

/// Is `s` a URI with a scheme (`scheme:...`, the scheme at least two characters so that
/// `C:\dir` stays a path)?
pub(crate) fn has_scheme(s: &str) -> bool {
    let Some(colon) = s.find(':') else { return false };
    colon >= 2
        && s.as_bytes()[0].is_ascii_alphabetic()
        && s[..colon].bytes().all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let h = std::str::from_utf8(&b[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(v) = h {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

struct Pending {
    path: PathBuf,
    /// Namespace to adopt when the document has none (include/redefine into a namespace).
    chameleon_ns: Option<String>,
    /// For an import: the namespace the document must have.
    expect: Expect,
    redefined: HashSet<(Kind, String)>,
    from: Option<Location>,
}

#[derive(Clone)]
enum Expect {
    /// Top-level document: any target namespace.
    Any,
    /// include/redefine: the includer's namespace, or none (chameleon).
    SameOrNone(Option<String>),
    /// import: exactly this namespace.
    Exactly(Option<String>),
    /// A schema location hint of an instance: exactly this namespace.
    Hint(Option<String>),
}

/// Reads `sources` and everything they include, import or redefine; then, one at a
/// time, each hint whose namespace no document loaded so far has as its target
/// namespace (the caller's schemas and earlier hints take precedence), with what it
/// includes, imports or redefines.
pub(crate) fn load(sources: &[Source], hints: &[Hint], limits: &LoadLimits) -> Result<Loaded, SchemaError> {
    let mut docs: Vec<SchemaDoc> = Vec::new();
    let mut warnings = Vec::new();
    let mut seen: HashMap<(PathBuf, Option<String>), usize> = HashMap::new();
    let mut queue: Vec<(Document<'static>, String, Option<PathBuf>, Pending)> = Vec::new();
    for s in sources {
        match s {
            Source::File(p) => {
                let doc = read(p, &limits.parse, None)?;
                let key = canonical(p);
                let dir = p.parent().map(Path::to_path_buf);
                queue.push((
                    doc,
                    p.display().to_string(),
                    dir,
                    Pending { path: key, chameleon_ns: None, expect: Expect::Any, redefined: HashSet::new(), from: None },
                ));
            }
            Source::Bytes { name, bytes, base } => {
                let doc = parse_bytes(bytes.clone(), &limits.parse).map_err(|e| parse_err(name, &e))?;
                let key = base.clone().unwrap_or_default().join(format!("\u{0}mem:{name}"));
                queue.push((
                    doc,
                    name.clone(),
                    base.clone(),
                    Pending { path: key, chameleon_ns: None, expect: Expect::Any, redefined: HashSet::new(), from: None },
                ));
            }
        }
    }
    // Breadth-first over a work list, top-level documents in the order given.
    queue.reverse();
    let mut hints = hints.iter();
    loop {
        let Some((doc, file, dir, pend)) = queue.pop() else {
            // Everything so far is loaded: the next hint for a namespace not yet covered.
            let Some(h) = hints.find(|h| !docs.iter().any(|d| d.target_ns == h.namespace)) else { break };
            let doc = match read(&h.path, &limits.parse, Some(&h.from)) {
                Ok(d) => d,
                Err(mut e) => {
                    e.message = format!("{} (named by a schema location hint)", e.message);
                    return Err(e);
                }
            };
            let pend = Pending {
                path: canonical(&h.path),
                chameleon_ns: None,
                expect: Expect::Hint(h.namespace.clone()),
                redefined: HashSet::new(),
                from: Some(h.from.clone()),
            };
            queue.push((doc, h.path.display().to_string(), h.path.parent().map(Path::to_path_buf), pend));
            continue;
        };
        if docs.len() >= limits.max_documents {
            return Err(err(
                SchemaErrorKind::Limit,
                format!("limit exceeded: more than {} schema documents", limits.max_documents),
                pend.from.unwrap_or_default(),
            ));
        }
        let root = doc.root_element();
        let loc_of = |n: Node<'_>| {
            let (line, column) = n.position();
            Location { file: file.clone(), line, column, offset: n.range().start as u64 }
        };
        if root.local_name() != "schema" || root.namespace_uri() != Some(XS) {
            let l = loc_of(root);
            return Err(err(SchemaErrorKind::Structure, format!("expected <xs:schema> in namespace {XS}; found <{}>", root.name()), l));
        }
        let own_tns = root.attribute("targetNamespace").map(|s| s.into_owned());
        if own_tns.as_deref() == Some("") {
            return Err(err(SchemaErrorKind::Structure, "targetNamespace must not be empty (leave it out for no namespace)", loc_of(root)));
        }
        let (tns, chameleon) = match (&pend.expect, &own_tns) {
            (Expect::Any, t) => (t.clone(), false),
            (Expect::SameOrNone(inc), None) => (inc.clone(), inc.is_some()),
            (Expect::SameOrNone(inc), Some(t)) => {
                if inc.as_deref() != Some(t.as_str()) {
                    return Err(err(
                        SchemaErrorKind::Constraint,
                        format!(
                            "included or redefined schema has targetNamespace {t:?}; expected {} (src-include.2)",
                            inc.as_deref().map_or("none".to_string(), |s| format!("{s:?}"))
                        ),
                        pend.from.clone().unwrap_or_else(|| loc_of(root)),
                    ));
                }
                (own_tns.clone(), false)
            }
            (Expect::Exactly(ns), t) => {
                if ns != t {
                    return Err(err(
                        SchemaErrorKind::Constraint,
                        format!(
                            "imported schema has targetNamespace {}; the import names {} (src-import.3)",
                            t.as_deref().map_or("none".to_string(), |s| format!("{s:?}")),
                            ns.as_deref().map_or("none".to_string(), |s| format!("{s:?}"))
                        ),
                        pend.from.clone().unwrap_or_else(|| loc_of(root)),
                    ));
                }
                (t.clone(), false)
            }
            (Expect::Hint(ns), t) => {
                if ns != t {
                    return Err(err(
                        SchemaErrorKind::Constraint,
                        format!(
                            "schema document {file} has targetNamespace {}; the schema location hint names it for {}",
                            t.as_deref().map_or("none".to_string(), |s| format!("{s:?}")),
                            ns.as_deref().map_or("no namespace".to_string(), |s| format!("{s:?}"))
                        ),
                        pend.from.clone().unwrap_or_else(|| loc_of(root)),
                    ));
                }
                (t.clone(), false)
            }
        };
        let _ = pend.chameleon_ns;
        let key = (pend.path.clone(), tns.clone());
        if seen.contains_key(&key) {
            // Already loaded: merge the set of redefined names (a redefine of a document that
            // was also included elsewhere).
            let i = seen[&key];
            docs[i].redefined.extend(pend.redefined);
            continue;
        }
        // Read the form and block/final defaults.
        let attr = |n: &str| root.attribute(n).map(|s| s.trim().to_string());
        let form = |n: &str| -> Result<bool, SchemaError> {
            match attr(n).as_deref() {
                None | Some("unqualified") => Ok(false),
                Some("qualified") => Ok(true),
                Some(v) => {
                    Err(err(SchemaErrorKind::Structure, format!("{n} must be `qualified` or `unqualified`; found {v:?}"), loc_of(root)))
                }
            }
        };
        let element_qualified = form("elementFormDefault")?;
        let attribute_qualified = form("attributeFormDefault")?;
        // Follow include / import / redefine.
        let mut children = Vec::new();
        for c in root.element_children() {
            if c.namespace_uri() != Some(XS) {
                continue;
            }
            let what = c.local_name();
            if !matches!(what, "include" | "import" | "redefine") {
                continue;
            }
            let loc_attr = c.attribute("schemaLocation").map(|s| s.trim().to_string());
            let ns_attr = c.attribute("namespace").map(|s| s.into_owned());
            if what == "import" {
                if ns_attr.is_some() && ns_attr == tns {
                    return Err(err(
                        SchemaErrorKind::Constraint,
                        "an import must name a namespace other than the importing schema's target namespace (src-import.1.1)",
                        loc_of(c),
                    ));
                }
                if ns_attr.is_none() && tns.is_none() {
                    return Err(err(
                        SchemaErrorKind::Constraint,
                        "an import without `namespace` is not allowed in a schema without targetNamespace (src-import.1.2)",
                        loc_of(c),
                    ));
                }
                // The XML namespace and the schema namespace are built in.
                if matches!(ns_attr.as_deref(), Some(vtdx_core::XML_NAMESPACE) | Some(XS)) {
                    continue;
                }
            }
            let Some(location) = loc_attr else {
                if what != "import" {
                    return Err(err(SchemaErrorKind::Structure, format!("<xs:{what}> needs a schemaLocation attribute"), loc_of(c)));
                }
                continue;
            };
            let path = resolve_local(&location, dir.as_deref(), "the schema", &loc_of(c))?;
            let mut redefined = HashSet::new();
            if what == "redefine" {
                for r in c.element_children() {
                    let k = match r.local_name() {
                        "simpleType" | "complexType" => Kind::Type,
                        "group" => Kind::Group,
                        "attributeGroup" => Kind::AttributeGroup,
                        _ => continue,
                    };
                    if let Some(n) = r.attribute("name") {
                        redefined.insert((k, n.trim().to_string()));
                    }
                }
            }
            let expect = match what {
                "import" => Expect::Exactly(ns_attr.clone()),
                _ => Expect::SameOrNone(tns.clone()),
            };
            children.push((path, loc_of(c), expect, redefined, what == "redefine"));
        }
        let idx = docs.len();
        seen.insert(key, idx);
        docs.push(SchemaDoc {
            file: file.clone(),
            dir: dir.clone(),
            block_default: attr("blockDefault").unwrap_or_default(),
            final_default: attr("finalDefault").unwrap_or_default(),
            doc,
            target_ns: tns.clone(),
            chameleon,
            element_qualified,
            attribute_qualified,
            redefined: pend.redefined,
        });
        // Newly found documents are processed after those already queued (push to the
        // front of the stack's order = bottom): keep it simple and process them next, in
        // document order.
        let mut next = Vec::new();
        for (path, from, expect, redefined, is_redefine) in children {
            let key = canonical(&path);
            let display = path.display().to_string();
            match read(&path, &limits.parse, Some(&from)) {
                Ok(d) => {
                    let cdir = path.parent().map(Path::to_path_buf);
                    next.push((d, display, cdir, Pending { path: key, chameleon_ns: tns.clone(), expect, redefined, from: Some(from) }));
                }
                Err(e) if e.kind == SchemaErrorKind::Io => {
                    if is_redefine {
                        return Err(e);
                    }
                    warnings.push(e);
                }
                Err(e) => return Err(e),
            }
        }
        next.reverse();
        queue.extend(next);
    }
    Ok(Loaded { docs, warnings })
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn parse_err(file: &str, e: &vtdx_core::Error) -> SchemaError {
    err(
        SchemaErrorKind::NotWellFormed,
        format!("schema document is not well-formed: {}", e.kind()),
        Location { file: file.to_string(), line: e.line(), column: e.column(), offset: e.offset() },
    )
}

fn read(p: &Path, opts: &ParseOptions, from: Option<&Location>) -> Result<Document<'static>, SchemaError> {
    let bytes = std::fs::read(p).map_err(|e| {
        err(
            SchemaErrorKind::Io,
            format!("cannot read schema document {}: {e}", p.display()),
            from.cloned().unwrap_or(Location { file: p.display().to_string(), ..Location::default() }),
        )
    })?;
    parse_bytes(bytes, opts).map_err(|e| parse_err(&p.display().to_string(), &e))
}

fn parse_bytes(bytes: Vec<u8>, opts: &ParseOptions) -> Result<Document<'static>, vtdx_core::Error> {
    if *opts == ParseOptions::default() {
        Document::parse_owned(bytes)
    } else {
        vtdx_core::Parser::with_options(opts.clone()).parse_owned(bytes)
    }
}
