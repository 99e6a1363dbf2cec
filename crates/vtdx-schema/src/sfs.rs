//! The schema for schemas: every schema document is checked against the XML
//! representation XML Schema 1.0 Part 1 gives each schema element (§3.x "XML
//! Representation Summary", Appendix A) before any component is built, so a
//! malformed document is refused even where no component is built from it.
//!
//! Checked here, for every element in the XML Schema namespace outside
//! `appinfo` and `documentation`:
//!
//! - its children against the element's content model in its context (top-level
//!   or local declarations, the three kinds of `restriction`, the groups of a named
//!   model group), including where and how often `annotation` may stand; no
//!   foreign elements and no character data (element-only content);
//! - its attributes: which are allowed in that context, which are required, and
//!   their lexical types (NCName, QName with a declared prefix, boolean,
//!   nonNegativeInteger, `unbounded`, the enumerations, derivation sets with
//!   `#all`, namespace lists of wildcards, `xml:lang` as a language); foreign
//!   attributes are allowed (`openAttrs`), attributes in the XML Schema namespace not;
//! - `id` values unique within the document (type ID);
//! - the representation constraints that only need the element itself: src-element.1,
//!   2.1, 2.2 and 3, src-attribute.1 to 4, no-xmlns, src-simple-type.2 to 4,
//!   src-import.1, and the occurrence bounds of `all` (cos-all-limited.1.2).
//!
//! Errors are [`SchemaErrorKind::Structure`] at the offending element or attribute,
//! naming the constraint.

use std::collections::HashMap;

use vtdx_core::{Node, NodeKind};

use crate::error::{Location, SchemaError, SchemaErrorKind};
use crate::load::{SchemaDoc, XS};

/// The context a schema element stands in: it selects the content model and the
/// attributes of that element.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ctx {
    Schema,
    Annotation,
    /// `appinfo`, `documentation`: any content.
    Info,
    Include,
    Import,
    Redefine,
    Notation,
    TopElement,
    LocalElement,
    /// An element declaration inside `all` (narrowMaxMin).
    AllElement,
    TopAttribute,
    LocalAttribute,
    TopComplexType,
    LocalComplexType,
    TopSimpleType,
    LocalSimpleType,
    SimpleContent,
    ComplexContent,
    SimpleContentRestriction,
    SimpleContentExtension,
    /// `restriction` or `extension` in `complexContent`.
    ComplexContentDerivation,
    SimpleRestriction,
    List,
    Union,
    Facet,
    /// `enumeration`, `pattern`: no `fixed`.
    FacetNoFixed,
    NamedGroup,
    GroupRef,
    NamedAttributeGroup,
    AttributeGroupRef,
    /// `all` in a complex type or derivation.
    All,
    /// `all`, `choice` or `sequence` directly in a named model group.
    GroupBody,
    /// `choice` or `sequence` in a content model.
    Explicit,
    Any,
    AnyAttribute,
    Identity,
    KeyRef,
    /// `selector`, `field`.
    XPath,
}

/// A content model over the local names of schema elements.
enum M {
    E(&'static str),
    Seq(&'static [M]),
    Alt(&'static [M]),
    Opt(&'static M),
    Star(&'static M),
    Plus(&'static M),
}

use M::*;

const ANN: M = Opt(&E("annotation"));
const ATTR_DECLS: M = Seq(&[Star(&Alt(&[E("attribute"), E("attributeGroup")])), Opt(&E("anyAttribute"))]);
const PARTICLE: M = Alt(&[E("group"), E("all"), E("choice"), E("sequence")]);
const FACETS: M = Alt(&[
    E("minExclusive"),
    E("minInclusive"),
    E("maxExclusive"),
    E("maxInclusive"),
    E("totalDigits"),
    E("fractionDigits"),
    E("length"),
    E("minLength"),
    E("maxLength"),
    E("enumeration"),
    E("whiteSpace"),
    E("pattern"),
]);
const ONLY_ANN: M = ANN;

const SCHEMA: M = Seq(&[
    Star(&Alt(&[E("include"), E("import"), E("redefine"), E("annotation")])),
    Star(&Seq(&[
        Alt(&[E("simpleType"), E("complexType"), E("group"), E("attributeGroup"), E("element"), E("attribute"), E("notation")]),
        Star(&E("annotation")),
    ])),
]);
const ANNOTATION: M = Star(&Alt(&[E("appinfo"), E("documentation")]));
const REDEFINE: M = Star(&Alt(&[E("annotation"), E("simpleType"), E("complexType"), E("group"), E("attributeGroup")]));
const ELEMENT: M = Seq(&[ANN, Opt(&Alt(&[E("simpleType"), E("complexType")])), Star(&Alt(&[E("unique"), E("key"), E("keyref")]))]);
const ATTRIBUTE: M = Seq(&[ANN, Opt(&E("simpleType"))]);
const COMPLEX_TYPE: M = Seq(&[ANN, Alt(&[E("simpleContent"), E("complexContent"), Seq(&[Opt(&PARTICLE), ATTR_DECLS])])]);
const CONTENT: M = Seq(&[ANN, Alt(&[E("restriction"), E("extension")])]);
const SC_RESTRICTION: M = Seq(&[ANN, Opt(&E("simpleType")), Star(&FACETS), ATTR_DECLS]);
const SC_EXTENSION: M = Seq(&[ANN, ATTR_DECLS]);
const CC_DERIVATION: M = Seq(&[ANN, Opt(&PARTICLE), ATTR_DECLS]);
const SIMPLE_TYPE: M = Seq(&[ANN, Alt(&[E("restriction"), E("list"), E("union")])]);
const SIMPLE_RESTRICTION: M = Seq(&[ANN, Opt(&E("simpleType")), Star(&FACETS)]);
const LIST: M = Seq(&[ANN, Opt(&E("simpleType"))]);
const UNION: M = Seq(&[ANN, Star(&E("simpleType"))]);
const NAMED_GROUP: M = Seq(&[ANN, Alt(&[E("all"), E("choice"), E("sequence")])]);
const NAMED_ATTRIBUTE_GROUP: M = Seq(&[ANN, ATTR_DECLS]);
const ALL: M = Seq(&[ANN, Star(&E("element"))]);
const EXPLICIT: M = Seq(&[ANN, Star(&Alt(&[E("element"), E("group"), E("choice"), E("sequence"), E("any")]))]);
const IDENTITY: M = Seq(&[ANN, E("selector"), Plus(&E("field"))]);

/// The lexical type of an attribute of a schema element.
#[derive(Clone, Copy)]
enum T {
    /// Anything (strings, values checked later against their types, URIs).
    Str,
    NcName,
    QName,
    QNames,
    Bool,
    NonNegInt,
    /// nonNegativeInteger or `unbounded`.
    MaxOccurs,
    /// `0` or `1`.
    ZeroOne,
    /// `1` only (maxOccurs of `all`).
    One,
    /// A token among these.
    Enum(&'static [&'static str]),
    /// `#all` or a list of these.
    DerivSet(&'static [&'static str]),
    /// A wildcard's namespace constraint.
    Namespace,
    Token,
}

const FORM: T = T::Enum(&["qualified", "unqualified"]);
const EXT_RES: T = T::DerivSet(&["extension", "restriction"]);

/// (name, type, required)
type Attrs = &'static [(&'static str, T, bool)];

const NOTHING: Attrs = &[];

fn model_of(ctx: Ctx) -> &'static M {
    match ctx {
        Ctx::Schema => &SCHEMA,
        Ctx::Annotation => &ANNOTATION,
        Ctx::Info => &ONLY_ANN, // not used: any content
        Ctx::Redefine => &REDEFINE,
        Ctx::TopElement | Ctx::LocalElement | Ctx::AllElement => &ELEMENT,
        Ctx::TopAttribute | Ctx::LocalAttribute => &ATTRIBUTE,
        Ctx::TopComplexType | Ctx::LocalComplexType => &COMPLEX_TYPE,
        Ctx::SimpleContent | Ctx::ComplexContent => &CONTENT,
        Ctx::SimpleContentRestriction => &SC_RESTRICTION,
        Ctx::SimpleContentExtension => &SC_EXTENSION,
        Ctx::ComplexContentDerivation => &CC_DERIVATION,
        Ctx::TopSimpleType | Ctx::LocalSimpleType => &SIMPLE_TYPE,
        Ctx::SimpleRestriction => &SIMPLE_RESTRICTION,
        Ctx::List => &LIST,
        Ctx::Union => &UNION,
        Ctx::NamedGroup => &NAMED_GROUP,
        Ctx::NamedAttributeGroup => &NAMED_ATTRIBUTE_GROUP,
        Ctx::All => &ALL,
        Ctx::GroupBody | Ctx::Explicit => &EXPLICIT,
        Ctx::Identity | Ctx::KeyRef => &IDENTITY,
        Ctx::Include
        | Ctx::Import
        | Ctx::Notation
        | Ctx::Facet
        | Ctx::FacetNoFixed
        | Ctx::GroupRef
        | Ctx::AttributeGroupRef
        | Ctx::Any
        | Ctx::AnyAttribute
        | Ctx::XPath => &ONLY_ANN,
    }
}

fn attrs_of(ctx: Ctx, local: &str) -> Attrs {
    match ctx {
        Ctx::Schema => &[
            ("targetNamespace", T::Str, false),
            ("version", T::Token, false),
            ("finalDefault", T::DerivSet(&["extension", "restriction", "list", "union"]), false),
            ("blockDefault", T::DerivSet(&["extension", "restriction", "substitution"]), false),
            ("attributeFormDefault", FORM, false),
            ("elementFormDefault", FORM, false),
        ],
        Ctx::Annotation => NOTHING,
        Ctx::Info => &[("source", T::Str, false)],
        Ctx::Include | Ctx::Redefine => &[("schemaLocation", T::Str, true)],
        Ctx::Import => &[("namespace", T::Str, false), ("schemaLocation", T::Str, false)],
        Ctx::Notation => &[("name", T::NcName, true), ("public", T::Token, false), ("system", T::Str, false)],
        Ctx::TopElement => &[
            ("name", T::NcName, true),
            ("type", T::QName, false),
            ("substitutionGroup", T::QName, false),
            ("default", T::Str, false),
            ("fixed", T::Str, false),
            ("nillable", T::Bool, false),
            ("abstract", T::Bool, false),
            ("final", EXT_RES, false),
            ("block", T::DerivSet(&["extension", "restriction", "substitution"]), false),
        ],
        Ctx::LocalElement => &[
            ("name", T::NcName, false),
            ("ref", T::QName, false),
            ("type", T::QName, false),
            ("minOccurs", T::NonNegInt, false),
            ("maxOccurs", T::MaxOccurs, false),
            ("default", T::Str, false),
            ("fixed", T::Str, false),
            ("nillable", T::Bool, false),
            ("block", T::DerivSet(&["extension", "restriction", "substitution"]), false),
            ("form", FORM, false),
        ],
        Ctx::AllElement => &[
            ("name", T::NcName, false),
            ("ref", T::QName, false),
            ("type", T::QName, false),
            ("minOccurs", T::ZeroOne, false),
            ("maxOccurs", T::ZeroOne, false),
            ("default", T::Str, false),
            ("fixed", T::Str, false),
            ("nillable", T::Bool, false),
            ("block", T::DerivSet(&["extension", "restriction", "substitution"]), false),
            ("form", FORM, false),
        ],
        Ctx::TopAttribute => &[("name", T::NcName, true), ("type", T::QName, false), ("default", T::Str, false), ("fixed", T::Str, false)],
        Ctx::LocalAttribute => &[
            ("name", T::NcName, false),
            ("ref", T::QName, false),
            ("type", T::QName, false),
            ("use", T::Enum(&["prohibited", "optional", "required"]), false),
            ("default", T::Str, false),
            ("fixed", T::Str, false),
            ("form", FORM, false),
        ],
        Ctx::TopComplexType => &[
            ("name", T::NcName, true),
            ("mixed", T::Bool, false),
            ("abstract", T::Bool, false),
            ("final", EXT_RES, false),
            ("block", EXT_RES, false),
        ],
        Ctx::LocalComplexType => &[("mixed", T::Bool, false)],
        Ctx::TopSimpleType => &[("name", T::NcName, true), ("final", T::DerivSet(&["list", "union", "restriction"]), false)],
        Ctx::LocalSimpleType => NOTHING,
        Ctx::SimpleContent => NOTHING,
        Ctx::ComplexContent => &[("mixed", T::Bool, false)],
        Ctx::SimpleContentRestriction | Ctx::SimpleContentExtension | Ctx::ComplexContentDerivation => &[("base", T::QName, true)],
        Ctx::SimpleRestriction => &[("base", T::QName, false)],
        Ctx::List => &[("itemType", T::QName, false)],
        Ctx::Union => &[("memberTypes", T::QNames, false)],
        Ctx::Facet => match local {
            "whiteSpace" => &[("value", T::Enum(&["preserve", "replace", "collapse"]), true), ("fixed", T::Bool, false)],
            _ => &[("value", T::Str, true), ("fixed", T::Bool, false)],
        },
        Ctx::FacetNoFixed => &[("value", T::Str, true)],
        Ctx::NamedGroup | Ctx::NamedAttributeGroup => &[("name", T::NcName, true)],
        Ctx::GroupRef => &[("ref", T::QName, true), ("minOccurs", T::NonNegInt, false), ("maxOccurs", T::MaxOccurs, false)],
        Ctx::AttributeGroupRef => &[("ref", T::QName, true)],
        Ctx::All => &[("minOccurs", T::ZeroOne, false), ("maxOccurs", T::One, false)],
        Ctx::GroupBody => NOTHING,
        Ctx::Explicit => &[("minOccurs", T::NonNegInt, false), ("maxOccurs", T::MaxOccurs, false)],
        Ctx::Any => &[
            ("namespace", T::Namespace, false),
            ("processContents", T::Enum(&["skip", "lax", "strict"]), false),
            ("minOccurs", T::NonNegInt, false),
            ("maxOccurs", T::MaxOccurs, false),
        ],
        Ctx::AnyAttribute => &[("namespace", T::Namespace, false), ("processContents", T::Enum(&["skip", "lax", "strict"]), false)],
        Ctx::Identity => &[("name", T::NcName, true)],
        Ctx::KeyRef => &[("name", T::NcName, true), ("refer", T::QName, true)],
        Ctx::XPath => &[("xpath", T::Token, true)],
    }
}

/// The context of `child` (a schema element named `local`) inside an element of context `parent`.
fn child_ctx(parent: Ctx, local: &str) -> Option<Ctx> {
    let top = matches!(parent, Ctx::Schema | Ctx::Redefine);
    Some(match local {
        "annotation" => Ctx::Annotation,
        "appinfo" | "documentation" => Ctx::Info,
        "include" => Ctx::Include,
        "import" => Ctx::Import,
        "redefine" => Ctx::Redefine,
        "notation" => Ctx::Notation,
        "element" if top => Ctx::TopElement,
        "element" if parent == Ctx::All => Ctx::AllElement,
        "element" => Ctx::LocalElement,
        "attribute" if top => Ctx::TopAttribute,
        "attribute" => Ctx::LocalAttribute,
        "complexType" if top => Ctx::TopComplexType,
        "complexType" => Ctx::LocalComplexType,
        "simpleType" if top => Ctx::TopSimpleType,
        "simpleType" => Ctx::LocalSimpleType,
        "simpleContent" => Ctx::SimpleContent,
        "complexContent" => Ctx::ComplexContent,
        "restriction" => match parent {
            Ctx::SimpleContent => Ctx::SimpleContentRestriction,
            Ctx::ComplexContent => Ctx::ComplexContentDerivation,
            _ => Ctx::SimpleRestriction,
        },
        "extension" => match parent {
            Ctx::SimpleContent => Ctx::SimpleContentExtension,
            _ => Ctx::ComplexContentDerivation,
        },
        "list" => Ctx::List,
        "union" => Ctx::Union,
        "minExclusive" | "minInclusive" | "maxExclusive" | "maxInclusive" | "totalDigits" | "fractionDigits" | "length" | "minLength"
        | "maxLength" | "whiteSpace" => Ctx::Facet,
        "enumeration" | "pattern" => Ctx::FacetNoFixed,
        "group" if top => Ctx::NamedGroup,
        "group" => Ctx::GroupRef,
        "attributeGroup" if top => Ctx::NamedAttributeGroup,
        "attributeGroup" => Ctx::AttributeGroupRef,
        "all" | "choice" | "sequence" if parent == Ctx::NamedGroup => Ctx::GroupBody,
        "all" => Ctx::All,
        "choice" | "sequence" => Ctx::Explicit,
        "any" => Ctx::Any,
        "anyAttribute" => Ctx::AnyAttribute,
        "unique" | "key" => Ctx::Identity,
        "keyref" => Ctx::KeyRef,
        "selector" | "field" => Ctx::XPath,
        _ => return None,
    })
}

// ---- content models ---------------------------------------------------------------

/// The positions after matching `m` from any of `starts` over `names`; `reach` records the
/// furthest position any element test got to.
fn step(m: &M, names: &[&str], starts: &[bool], reach: &mut usize) -> Vec<bool> {
    let n = names.len();
    match m {
        E(want) => {
            let mut out = vec![false; n + 1];
            for (i, &s) in starts.iter().enumerate() {
                if s && i < n && names[i] == *want {
                    out[i + 1] = true;
                    *reach = (*reach).max(i + 1);
                }
            }
            out
        }
        Seq(ms) => {
            let mut cur = starts.to_vec();
            for m in ms.iter() {
                cur = step(m, names, &cur, reach);
            }
            cur
        }
        Alt(ms) => {
            let mut out = vec![false; n + 1];
            for m in ms.iter() {
                for (o, x) in out.iter_mut().zip(step(m, names, starts, reach)) {
                    *o |= x;
                }
            }
            out
        }
        Opt(m) => {
            let mut out = step(m, names, starts, reach);
            for (o, &s) in out.iter_mut().zip(starts) {
                *o |= s;
            }
            out
        }
        Star(m) => {
            let mut all = starts.to_vec();
            let mut frontier = starts.to_vec();
            while frontier.iter().any(|&b| b) {
                let next = step(m, names, &frontier, reach);
                frontier = vec![false; n + 1];
                for i in 0..=n {
                    if next[i] && !all[i] {
                        all[i] = true;
                        frontier[i] = true;
                    }
                }
            }
            all
        }
        Plus(m) => {
            let once = step(m, names, starts, reach);
            step(&Star(m), names, &once, reach)
        }
    }
}

fn render(m: &M, out: &mut String) {
    let list = |ms: &[M], sep: &str, out: &mut String| {
        out.push('(');
        for (i, m) in ms.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            render(m, out);
        }
        out.push(')');
    };
    match m {
        E(name) => out.push_str(name),
        Seq(ms) => list(ms, ", ", out),
        Alt(ms) => list(ms, " | ", out),
        Opt(m) => {
            render(m, out);
            out.push('?');
        }
        Star(m) => {
            render(m, out);
            out.push('*');
        }
        Plus(m) => {
            render(m, out);
            out.push('+');
        }
    }
}

fn describe(m: &M) -> String {
    let mut s = String::new();
    render(m, &mut s);
    if !s.starts_with('(') {
        s = format!("({s})");
    }
    s
}

// ---- lexical types ---------------------------------------------------------------

fn is_ncname(s: &str) -> bool {
    !s.is_empty() && !s.contains(':') && vtdx_core::is_name(s.as_bytes())
}

fn is_nonneg_int(s: &str) -> bool {
    let digits = s.strip_prefix('+').unwrap_or(s);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    // `-0` is a nonNegativeInteger too.
    s.strip_prefix('-').is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b == b'0'))
}

/// The value of a nonNegativeInteger literal, saturating.
fn int_value(s: &str) -> u64 {
    s.trim_start_matches(['+', '-']).bytes().fold(0u64, |acc, b| acc.saturating_mul(10).saturating_add(u64::from(b - b'0')))
}

fn is_zero_one(s: &str) -> bool {
    is_nonneg_int(s) && int_value(s) <= 1
}

fn is_one(s: &str) -> bool {
    is_nonneg_int(s) && int_value(s) == 1
}

/// `xs:language`: `[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*`.
fn is_language(s: &str) -> bool {
    s.split('-').enumerate().all(|(i, part)| {
        (1..=8).contains(&part.len()) && part.bytes().all(|b| if i == 0 { b.is_ascii_alphabetic() } else { b.is_ascii_alphanumeric() })
    })
}

fn collapse(s: &str) -> String {
    s.split_ascii_whitespace().collect::<Vec<_>>().join(" ")
}

// ---- the walk --------------------------------------------------------------------

struct Checker<'a> {
    doc: &'a SchemaDoc,
    ids: HashMap<String, Location>,
    depth: u32,
    max_depth: u32,
}

fn structure(message: String, location: Location) -> SchemaError {
    SchemaError { kind: SchemaErrorKind::Structure, message, location }
}

/// Checks one schema document against the schema for schemas; `max_depth` bounds the
/// nesting of schema elements.
pub(crate) fn check_document(doc: &SchemaDoc, max_depth: u32) -> Result<(), SchemaError> {
    let root = doc.root();
    if root.namespace_uri() != Some(XS) || root.local_name() != "schema" {
        // The loader reports documents that are not schemas.
        return Ok(());
    }
    let mut c = Checker { doc, ids: HashMap::new(), depth: 0, max_depth };
    c.element(root, Ctx::Schema)
}

impl Checker<'_> {
    fn loc(&self, n: Node<'_>) -> Location {
        self.doc.node_location(n)
    }

    fn element(&mut self, n: Node<'_>, ctx: Ctx) -> Result<(), SchemaError> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(SchemaError {
                kind: SchemaErrorKind::Limit,
                message: format!("limit exceeded: schema elements nested deeper than {}", self.max_depth),
                location: self.loc(n),
            });
        }
        self.attributes(n, ctx)?;
        if ctx != Ctx::Info {
            let kids = self.content(n, ctx)?;
            self.representation(n, ctx)?;
            for (k, kc) in kids {
                self.element(k, kc)?;
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// Checks the children of `n` against its content model; returns them with their contexts.
    fn content<'d>(&self, n: Node<'d>, ctx: Ctx) -> Result<Vec<(Node<'d>, Ctx)>, SchemaError> {
        let local = n.local_name();
        let mut kids = Vec::new();
        for k in n.children() {
            match k.kind() {
                NodeKind::Element => {
                    if k.namespace_uri() != Some(XS) {
                        return Err(structure(
                            format!("element <{}> is not allowed in <xs:{local}>: only schema elements may appear here", k.name()),
                            self.loc(k),
                        ));
                    }
                    let Some(kc) = child_ctx(ctx, k.local_name()) else {
                        return Err(structure(
                            format!("<xs:{}> is not an element of the XML Schema language (in <xs:{local}>)", k.local_name()),
                            self.loc(k),
                        ));
                    };
                    kids.push((k, kc));
                }
                NodeKind::Text | NodeKind::CData => {
                    let v = k.value();
                    if !v.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
                        return Err(structure(
                            format!(
                                "character data {:?} is not allowed in <xs:{local}>: its content is element-only",
                                v.trim().chars().take(40).collect::<String>()
                            ),
                            self.loc(k),
                        ));
                    }
                }
                _ => {}
            }
        }
        let names: Vec<&str> = kids.iter().map(|(k, _)| k.local_name()).collect();
        let m = model_of(ctx);
        let mut starts = vec![false; names.len() + 1];
        starts[0] = true;
        let mut reach = 0;
        let ends = step(m, &names, &starts, &mut reach);
        if !ends[names.len()] {
            let model = describe(m);
            return Err(match kids.get(reach) {
                Some((k, _)) => structure(
                    format!("<xs:{}> is not allowed here in <xs:{local}>: its content must be {model} (schema for schemas)", names[reach]),
                    self.loc(*k),
                ),
                None => structure(format!("<xs:{local}> is incomplete: its content must be {model} (schema for schemas)"), self.loc(n)),
            });
        }
        Ok(kids)
    }

    fn attributes(&mut self, n: Node<'_>, ctx: Ctx) -> Result<(), SchemaError> {
        let local = n.local_name();
        let allowed = attrs_of(ctx, local);
        for a in n.attributes() {
            match a.namespace_uri() {
                Some(XS) => {
                    return Err(structure(
                        format!("attribute {} in the XML Schema namespace is not allowed on <xs:{local}>", a.name()),
                        self.loc(a),
                    ))
                }
                Some(crate::datatypes::XML_NAMESPACE) if a.local_name() == "lang" => {
                    let v = collapse(&a.value());
                    if !is_language(&v) {
                        return Err(structure(format!("xml:lang must be a language tag; found {v:?}"), self.loc(a)));
                    }
                    continue;
                }
                Some(_) => continue,
                None => {}
            }
            let an = a.local_name();
            if an == "id" {
                let v = collapse(&a.value());
                if !is_ncname(&v) {
                    return Err(structure(format!("attribute `id` of <xs:{local}> must be an NCName; found {v:?}"), self.loc(a)));
                }
                if let Some(first) = self.ids.get(&v) {
                    return Err(structure(
                        format!("duplicate id {v:?} (first used at {first}): ids must be unique within a schema document"),
                        self.loc(a),
                    ));
                }
                self.ids.insert(v, self.loc(a));
                continue;
            }
            let Some(&(_, t, _)) = allowed.iter().find(|(name, _, _)| *name == an) else {
                return Err(structure(
                    format!("attribute `{an}` is not allowed on {} (schema for schemas)", what(local, ctx)),
                    self.loc(a),
                ));
            };
            self.lexical(n, a, t)?;
        }
        for (name, _, required) in allowed {
            if *required && n.attribute(name).is_none() {
                return Err(structure(format!("{} needs a `{name}` attribute (schema for schemas)", what(local, ctx)), self.loc(n)));
            }
        }
        Ok(())
    }

    fn lexical(&self, n: Node<'_>, a: Node<'_>, t: T) -> Result<(), SchemaError> {
        let an = a.local_name();
        let raw = a.value();
        let v = collapse(&raw);
        let bad = |expected: &str| {
            Err(structure(format!("attribute `{an}` of <xs:{}> must be {expected}; found {:?}", n.local_name(), raw), self.loc(a)))
        };
        match t {
            T::Str | T::Token => Ok(()),
            T::NcName => {
                if is_ncname(&v) {
                    Ok(())
                } else {
                    bad("an NCName")
                }
            }
            T::QName => self.qname(n, a, &v),
            T::QNames => {
                for q in v.split(' ').filter(|q| !q.is_empty()) {
                    self.qname(n, a, q)?;
                }
                Ok(())
            }
            T::Bool => {
                if matches!(v.as_str(), "true" | "false" | "1" | "0") {
                    Ok(())
                } else {
                    bad("a boolean (true, false, 1 or 0)")
                }
            }
            T::NonNegInt => {
                if is_nonneg_int(&v) {
                    Ok(())
                } else {
                    bad("a non-negative integer")
                }
            }
            T::MaxOccurs => {
                if v == "unbounded" || is_nonneg_int(&v) {
                    Ok(())
                } else {
                    bad("a non-negative integer or `unbounded`")
                }
            }
            T::ZeroOne => {
                if is_zero_one(&v) {
                    Ok(())
                } else {
                    bad("0 or 1 inside <xs:all> (cos-all-limited.1.2)")
                }
            }
            T::One => {
                if is_one(&v) {
                    Ok(())
                } else {
                    bad("1 on <xs:all> (cos-all-limited.1.2)")
                }
            }
            T::Enum(words) => {
                if words.contains(&v.as_str()) {
                    Ok(())
                } else {
                    bad(&format!("one of {}", words.join(", ")))
                }
            }
            T::DerivSet(words) => {
                if v == "#all" || v.split(' ').filter(|w| !w.is_empty()).all(|w| words.contains(&w)) {
                    Ok(())
                } else {
                    bad(&format!("#all or a list of {}", words.join(", ")))
                }
            }
            T::Namespace => {
                if v == "##any" || v == "##other" {
                    return Ok(());
                }
                for tok in v.split(' ').filter(|w| !w.is_empty()) {
                    if tok.starts_with("##") && tok != "##targetNamespace" && tok != "##local" {
                        return bad("##any, ##other, or a list of URIs, ##targetNamespace and ##local");
                    }
                }
                Ok(())
            }
        }
    }

    fn qname(&self, n: Node<'_>, a: Node<'_>, v: &str) -> Result<(), SchemaError> {
        let an = a.local_name();
        let (prefix, local) = match v.split_once(':') {
            Some((p, l)) => (Some(p), l),
            None => (None, v),
        };
        if !is_ncname(local) || prefix.is_some_and(|p| !is_ncname(p)) {
            return Err(structure(format!("attribute `{an}` of <xs:{}> must be a QName; found {v:?}", n.local_name()), self.loc(a)));
        }
        if let Some(p) = prefix {
            if p != "xml" && n.lookup_namespace(p).is_none() {
                return Err(structure(
                    format!("attribute `{an}` of <xs:{}>: the prefix {p:?} of {v:?} is not declared", n.local_name()),
                    self.loc(a),
                ));
            }
        }
        Ok(())
    }

    /// The representation constraints that depend on combinations of attributes and children.
    fn representation(&self, n: Node<'_>, ctx: Ctx) -> Result<(), SchemaError> {
        let has = |a: &str| n.attribute(a).is_some();
        let child = |l: &str| n.element_children().find(|k| k.namespace_uri() == Some(XS) && k.local_name() == l);
        let fail = |msg: String| Err(structure(msg, self.loc(n)));
        match ctx {
            Ctx::TopElement | Ctx::LocalElement | Ctx::AllElement => {
                if has("default") && has("fixed") {
                    return fail("an element declaration may not have both `default` and `fixed` (src-element.1)".into());
                }
                if ctx != Ctx::TopElement {
                    if has("ref") == has("name") {
                        return fail("a local element declaration needs exactly one of `name` and `ref` (src-element.2.1)".into());
                    }
                    if has("ref") {
                        for a in ["nillable", "default", "fixed", "form", "block", "type"] {
                            if has(a) {
                                return fail(format!("an element reference may not have a `{a}` attribute (src-element.2.2)"));
                            }
                        }
                        if let Some(k) = n.element_children().find(|k| k.local_name() != "annotation") {
                            return Err(structure(
                                format!(
                                    "an element reference may contain only an annotation; found <xs:{}> (src-element.2.2)",
                                    k.local_name()
                                ),
                                self.loc(k),
                            ));
                        }
                    }
                }
                if has("type") && (child("simpleType").is_some() || child("complexType").is_some()) {
                    return fail(
                        "an element declaration may not have both a `type` attribute and an anonymous type (src-element.3)".into(),
                    );
                }
            }
            Ctx::TopAttribute | Ctx::LocalAttribute => {
                if has("default") && has("fixed") {
                    return fail("an attribute declaration may not have both `default` and `fixed` (src-attribute.1)".into());
                }
                if has("default") && n.attribute("use").is_some_and(|u| u.trim() != "optional") {
                    return fail("an attribute with a `default` must have use=\"optional\" (src-attribute.2)".into());
                }
                if ctx == Ctx::LocalAttribute {
                    if has("ref") == has("name") {
                        return fail("a local attribute declaration needs exactly one of `name` and `ref` (src-attribute.3.1)".into());
                    }
                    if has("ref") && (has("form") || has("type") || child("simpleType").is_some()) {
                        return fail("an attribute reference may not have `form`, `type` or an anonymous type (src-attribute.3.2)".into());
                    }
                }
                if has("type") && child("simpleType").is_some() {
                    return fail(
                        "an attribute declaration may not have both a `type` attribute and an anonymous type (src-attribute.4)".into(),
                    );
                }
                if n.attribute("name").is_some_and(|v| v.trim() == "xmlns") {
                    return fail("an attribute may not be named `xmlns` (no-xmlns)".into());
                }
            }
            Ctx::SimpleRestriction if has("base") == child("simpleType").is_some() => {
                return fail(
                    "a simple type restriction needs either a `base` attribute or a <xs:simpleType> child, not both (src-simple-type.2)"
                        .into(),
                );
            }
            Ctx::List if has("itemType") == child("simpleType").is_some() => {
                return fail("a list needs either an `itemType` attribute or a <xs:simpleType> child, not both (src-simple-type.3)".into());
            }
            Ctx::Union => {
                let members = n.attribute("memberTypes").is_some_and(|v| !v.trim().is_empty());
                if !members && child("simpleType").is_none() {
                    return fail(
                        "a union needs a non-empty `memberTypes` attribute or <xs:simpleType> children (src-simple-type.4)".into(),
                    );
                }
            }
            Ctx::Redefine => self.redefine_self_references(n)?,
            Ctx::Import => {
                let ns = n.attribute("namespace").map(|v| v.to_string());
                let own = n.document().root_element().attribute("targetNamespace").map(|v| v.to_string());
                match (&ns, &own) {
                    (Some(a), Some(b)) if a == b => {
                        return fail(format!("a document may not import its own target namespace {a:?} (src-import.1.1)"));
                    }
                    (None, None) => {
                        return fail("a document without a target namespace may not import the absent namespace (src-import.1.2)".into());
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        Ok(())
    }
}

impl Checker<'_> {
    /// src-redefine.6.1 and 7.1: a group redefined in terms of itself refers to itself exactly
    /// once, and that reference has minOccurs = maxOccurs = 1; an attribute group at most once.
    fn redefine_self_references(&self, n: Node<'_>) -> Result<(), SchemaError> {
        let own_tns = n.document().root_element().attribute("targetNamespace").map(|v| v.to_string()).filter(|v| !v.is_empty());
        for c in n.element_children() {
            let kind = c.local_name();
            if c.namespace_uri() != Some(XS) || !matches!(kind, "group" | "attributeGroup") {
                continue;
            }
            let Some(name) = c.attribute("name").map(|v| collapse(&v)) else { continue };
            let refs: Vec<Node<'_>> = c
                .descendant_elements()
                .filter(|r| r.namespace_uri() == Some(XS) && r.local_name() == kind)
                .filter(|r| {
                    let Some(v) = r.attribute("ref").map(|v| collapse(&v)) else { return false };
                    let (prefix, local) = v.split_once(':').unwrap_or(("", &v));
                    let ns = r.lookup_namespace(prefix).filter(|u| !u.is_empty());
                    local == name && ns == own_tns.as_deref()
                })
                .collect();
            if refs.len() > 1 {
                let (what, clause) = if kind == "group" { ("model group", "6.1.1") } else { ("attribute group", "7.1") };
                return Err(structure(
                    format!("the redefined {what} {name:?} refers to itself more than once (src-redefine.{clause})"),
                    self.loc(refs[1]),
                ));
            }
            if let (Some(r), "group") = (refs.first(), kind) {
                let one = |a: &str| r.attribute(a).is_none_or(|v| is_nonneg_int(&collapse(&v)) && int_value(&collapse(&v)) == 1);
                if !one("minOccurs") || !one("maxOccurs") {
                    return Err(structure(
                        format!("the self-reference of the redefined model group {name:?} must have minOccurs and maxOccurs 1 (src-redefine.6.1.2)"),
                        self.loc(*r),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// How to name a schema element in its context in a message.
fn what(local: &str, ctx: Ctx) -> String {
    let kind = match ctx {
        Ctx::TopElement | Ctx::TopAttribute | Ctx::TopComplexType | Ctx::TopSimpleType | Ctx::NamedGroup | Ctx::NamedAttributeGroup => {
            "a top-level "
        }
        Ctx::LocalElement | Ctx::LocalAttribute | Ctx::LocalComplexType | Ctx::LocalSimpleType => "a local ",
        Ctx::AllElement => "an element declaration inside <xs:all>: ",
        Ctx::GroupRef | Ctx::AttributeGroupRef => "a reference ",
        Ctx::GroupBody => "the model group of a named group: ",
        _ => "",
    };
    format!("{kind}<xs:{local}>")
}
