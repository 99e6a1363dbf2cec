//! Instance validation: one walk over the token index, element by element,
//! stepping each parent's compiled automaton with interned names, checking
//! simple content and attribute values through the datatypes layer on the text
//! as written (borrowed unless a reference must be decoded).

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;

use vtdx_core::tape::{RecordId, RecordKind, Tape, ELEM_END, ELEM_WORDS, KIND_SHIFT, NEXT, PAYLOAD_MASK, START};
use vtdx_core::{Document, Node, NodeKind, Sym};

use crate::automaton::{element_matches, Automaton, Matched};
use crate::counted::{CountedModel, CountedState, TooMany};
use crate::datatypes::fast::Fast;
use crate::datatypes::{DatatypeError, NsResolver, Value};
use crate::error::{Location, ValidationError, ValidationErrorKind as K};
use crate::model::*;
use crate::schema::{Schema, ValidateOptions};

mod attributes;
mod content;
mod identity;
mod text;

#[cfg(test)]
mod tests;

/// The result of validating one document: every error (up to the configured cap)
/// and the typed values of validated simple content and attributes.
#[derive(Debug)]
pub struct Validation<'d> {
    doc: &'d Document<'d>,
    errors: Vec<ValidationError>,
    typed: HashMap<u32, Value>,
    truncated: bool,
}

impl<'d> Validation<'d> {
    /// No errors?
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
    /// The errors, in document order of discovery.
    pub fn errors(&self) -> &[ValidationError] {
        &self.errors
    }
    /// Consumes the result, returning the errors.
    pub fn into_errors(self) -> Vec<ValidationError> {
        self.errors
    }
    /// Did validation stop at [`ValidateOptions::max_errors`]?
    pub fn truncated(&self) -> bool {
        self.truncated
    }
    /// The document validated.
    pub fn document(&self) -> &'d Document<'d> {
        self.doc
    }
    /// The typed value of an element with simple content or of an attribute, as its
    /// governing simple type reads it (e.g. a `Decimal` for `xs:decimal`, a `DateTime`
    /// for `xs:date`). `None` for nodes without a validated simple value, or when
    /// [`ValidateOptions::typed_values`] was off.
    pub fn typed_value(&self, node: Node<'_>) -> Option<&Value> {
        self.typed.get(&node.record()?)
    }
}

/// The in-scope namespaces of an element, for QName and NOTATION values.
struct NodeNs<'d>(Node<'d>);

impl NsResolver for NodeNs<'_> {
    fn resolve(&self, prefix: &str) -> Option<&str> {
        self.0.lookup_namespace(prefix)
    }
}

/// `sd`'s check of the value `v` of (or on) element `n`: with the element's
/// in-scope namespaces when the type needs them (QName, NOTATION), else with none.
fn check_at(sd: &SimpleDef, v: &str, n: Node<'_>) -> Result<(), DatatypeError> {
    if sd.needs_ns {
        sd.st.check(v, &NodeNs(n))
    } else {
        sd.st.check(v, &crate::datatypes::NoNamespaces)
    }
}

/// [`check_at`], keeping the value.
fn validate_at(sd: &SimpleDef, v: &str, n: Node<'_>) -> Result<Value, DatatypeError> {
    if sd.needs_ns {
        sd.st.validate(v, &NodeNs(n))
    } else {
        sd.st.validate(v, &crate::datatypes::NoNamespaces)
    }
}

/// A key/unique table: value tuple → the node that contributed it.
type Table = HashMap<Vec<Value>, u32>;

pub(crate) struct Validator<'s, 'd> {
    s: &'s Schema,
    c: &'s crate::build::Components,
    doc: &'d Document<'d>,
    tape: Tape<'d>,
    text: &'d [u8],
    /// No DTD: a written attribute's value is its bytes unless they hold a reference
    /// or a white-space character other than space.
    plain_attrs: bool,
    opts: &'s ValidateOptions,
    errors: Vec<ValidationError>,
    truncated: bool,
    typed: HashMap<u32, Value>,
    keep_typed: bool,
    /// Per document symbol: (namespace index, name id), filled lazily.
    syms: Vec<(NsIdx, NameId)>,
    /// Per document symbol: the length of its qualified name, filled with `syms`.
    qlens: Vec<u32>,
    ids: HashMap<String, u32>,
    /// IDREF values and the element or attribute that holds each.
    idrefs: Vec<(String, Node<'d>)>,
    depth: usize,
    /// States of the content models run with counters being walked (innermost last).
    counted: Vec<CountedState>,
    /// Per element declaration: how a leaf of it is checked on the short path
    /// ([`Validator::leaf`]), worked out on first use.
    leaf_plans: Vec<LeafPlan<'s>>,
    /// The last attribute value range worked out ([`Validator::attr_value_range`]): the
    /// attribute's record and the range. Its check and the end of the start tag both
    /// want the last attribute's.
    last_value: Cell<(u32, usize, usize)>,
    /// The last start tag end worked out ([`Validator::start_tag_end`]): the element's
    /// record and the offset. Its first gap and its last both start from it.
    last_stag: Cell<(u32, usize)>,
}

/// How [`Validator::leaf`] checks a leaf of one element declaration.
#[derive(Clone, Copy)]
enum LeafPlan<'s> {
    /// Not worked out yet.
    Unset,
    /// Not on the short path.
    No,
    /// Any text is a value: nothing to look at.
    Any,
    /// The type's plan, and whether it may be given text holding references and CRs.
    Check(&'s Fast, bool),
}

const UNSET: (NsIdx, NameId) = (u32::MAX - 1, u32::MAX - 1);

/// What one pass over an element's attribute records finds.
#[derive(Clone, Copy)]
struct Tag {
    /// Just past the attribute records: the first child record, or the element's *next*.
    after_attrs: RecordId,
    /// Has attributes (written or defaulted; namespace declarations aside).
    attrs: bool,
    /// Has an attribute in the xsi namespace.
    xsi: bool,
    /// The last attribute or namespace declaration written in the start tag.
    last_written: Option<RecordId>,
}

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_xml_ws(s: &[u8]) -> bool {
    // indentation is mostly a line end and a run of spaces: the spaces eight at a time
    const SPACES: u64 = u64::from_ne_bytes(*b"        ");
    let rest = match s {
        [b'\n', rest @ ..] | [b'\r', b'\n', rest @ ..] => rest,
        _ => s,
    };
    let mut chunks = rest.chunks_exact(8);
    if chunks.all(|c| u64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) == SPACES)
        && chunks.remainder().iter().all(|&b| b == b' ')
    {
        return true;
    }
    s.iter().all(|&b| is_ws(b))
}

impl<'s, 'd> Validator<'s, 'd> {
    pub(crate) fn new(s: &'s Schema, doc: &'d Document<'d>, opts: &'s ValidateOptions) -> Validator<'s, 'd> {
        Validator {
            s,
            c: &s.c,
            doc,
            tape: Tape::of(doc),
            text: doc.text(),
            plain_attrs: doc.dtd().is_none(),
            opts,
            errors: Vec::new(),
            truncated: false,
            typed: HashMap::new(),
            keep_typed: opts.typed_values || !s.c.ics.is_empty(),
            syms: vec![UNSET; doc.names().sym_count()],
            qlens: vec![0; doc.names().sym_count()],
            ids: HashMap::new(),
            idrefs: Vec::new(),
            depth: 0,
            counted: Vec::new(),
            leaf_plans: Vec::new(),
            last_value: Cell::new((u32::MAX, 0, 0)),
            last_stag: Cell::new((u32::MAX, 0)),
        }
    }

    pub(crate) fn run(mut self) -> Validation<'d> {
        let root = self.doc.root_element();
        let (_, name) = self.name_of(root);
        let rr = root.record().unwrap_or(0);
        match self.c.global_elements.get(&name) {
            Some(&e) => {
                self.element(rr, e);
            }
            None => {
                if let Some(t) = self.xsi_type_of(root) {
                    if let Some(t) = t {
                        let tag = self.tag(rr);
                        self.typed_element(rr, tag, t, None, false);
                    }
                } else {
                    self.error(root, K::Content, format!("no declaration for the root element <{}> (cvc-elt.1)", root.name()));
                }
            }
        }
        for (r, n) in std::mem::take(&mut self.idrefs) {
            if !self.ids.contains_key(&r) {
                self.error(n, K::Identity, format!("IDREF {r:?} matches no ID in the document (cvc-id.1)"));
            }
        }
        Validation { doc: self.doc, errors: self.errors, typed: self.typed, truncated: self.truncated }
    }

    // ---- names and errors -----------------------------------------------------------

    #[inline]
    fn name_of(&mut self, n: Node<'d>) -> (NsIdx, NameId) {
        let Some(sym) = n.sym() else { return (0, NAME_UNKNOWN) };
        self.sym_name(sym)
    }

    /// The schema's (namespace, name) of a document symbol, looked up once per symbol.
    #[inline]
    fn sym_name(&mut self, sym: Sym) -> (NsIdx, NameId) {
        match self.syms.get(sym.index()) {
            Some(&v) if v != UNSET => v,
            _ => self.sym_name_first(sym),
        }
    }

    #[cold]
    #[inline(never)]
    fn sym_name_first(&mut self, sym: Sym) -> (NsIdx, NameId) {
        let i = sym.index();
        let names = self.doc.names();
        let ns = self.c.names.find_ns(names.ns_uri(sym));
        let id = self.c.names.find(ns, names.local(sym));
        if i >= self.syms.len() {
            self.syms.resize(i + 1, UNSET);
            self.qlens.resize(i + 1, 0);
        }
        self.syms[i] = (ns, id);
        self.qlens[i] = names.qname_len(sym) as u32;
        (ns, id)
    }

    fn stopped(&self) -> bool {
        self.truncated
    }

    fn error(&mut self, n: Node<'d>, kind: K, message: String) {
        let off = n.range().start;
        self.error_at(n, off, kind, message);
    }

    fn error_at(&mut self, n: Node<'d>, offset: usize, kind: K, message: String) {
        if self.truncated {
            return;
        }
        if self.errors.len() >= self.opts.max_errors {
            self.truncated = true;
            let (line, column) = self.doc.line_column(offset);
            self.errors.push(ValidationError {
                kind: K::Limit,
                message: format!("too many errors: stopped after {}", self.opts.max_errors),
                location: Location { file: self.opts.file.clone(), line, column, offset: offset as u64 },
                path: String::new(),
            });
            return;
        }
        let (line, column) = self.doc.line_column(offset);
        self.errors.push(ValidationError {
            kind,
            message,
            location: Location { file: self.opts.file.clone(), line, column, offset: offset as u64 },
            path: path_of(n),
        });
    }

    fn tname(&self, t: TypeId) -> String {
        match self.c.types[t as usize].name {
            Some(n) => {
                let l = self.c.names.local(n);
                if self.c.names.ns_uri(self.c.names.ns_of(n)) == Some(crate::load::XS) {
                    format!("xs:{l}")
                } else {
                    l.to_string()
                }
            }
            None => "(anonymous type)".into(),
        }
    }

    // ---- elements --------------------------------------------------------------------

    /// xsi:type of `n`: `None` when absent, `Some(None)` when present but bad (reported).
    fn xsi_type_of(&mut self, n: Node<'d>) -> Option<Option<TypeId>> {
        for a in n.attributes() {
            let (ns, id) = self.name_of(a);
            if ns == self.c.xsi_ns && id == self.c.xsi_type {
                let v = a.value();
                let v = v.trim();
                let (p, l) = v.split_once(':').unwrap_or(("", v));
                let uri = if p == "xml" { Some(vtdx_core::XML_NAMESPACE) } else { n.lookup_namespace(p) };
                if !p.is_empty() && uri.is_none() {
                    self.error(a, K::Type, format!("xsi:type {v:?}: prefix {p:?} is not declared"));
                    return Some(None);
                }
                let ns = self.c.names.find_ns(uri.unwrap_or(""));
                let name = self.c.names.find(ns, l);
                return match self.c.global_types.get(&name) {
                    Some(&t) => Some(Some(t)),
                    None => {
                        self.error(a, K::Type, format!("xsi:type {v:?} names no type definition (cvc-elt.4.2)"));
                        Some(None)
                    }
                };
            }
        }
        None
    }

    fn element(&mut self, r: u32, e: ElemId) -> Option<Vec<(IcId, Table)>> {
        if self.stopped() {
            return None;
        }
        let c = self.c;
        let decl = &c.elements[e as usize];
        if decl.abstract_ {
            let n = self.node(r);
            self.error(n, K::Type, format!("element <{}> is abstract; use a member of its substitution group (cvc-elt.2)", n.name()));
        }
        let mut ty = decl.type_;
        let tag = self.tag(r);
        if tag.xsi {
            let n = self.node(r);
            if let Some(Some(t)) = self.xsi_type_of(n) {
                let blocked = (decl.block | self.c.types[decl.type_ as usize].block) & (deriv::EXTENSION | deriv::RESTRICTION);
                if !self.xsi_type_derives(t, decl.type_, blocked, 0) {
                    self.error(
                        n,
                        K::Type,
                        format!(
                            "xsi:type {} is not validly derived from {} (or the derivation is blocked) (cvc-elt.4.3)",
                            self.tname(t),
                            self.tname(decl.type_)
                        ),
                    );
                } else {
                    ty = t;
                }
            }
        }
        let tables = self.typed_element(r, tag, ty, decl.vc.as_ref(), decl.nillable);
        if decl.ics.is_empty() && tables.is_empty() {
            return None;
        }
        let n = self.node(r);
        Some(self.identity(n, &decl.ics, tables))
    }

    /// The short path for a child element `r` of declaration `e` that is a leaf as
    /// written: no attribute, namespace declaration or child record, its start tag
    /// `<qname>` or `<qname/>`, its end tag `</qname>`. True when its text is certainly
    /// a value of the declaration's simple type and nothing else applies to it (no
    /// `xsi:*`, value constraint, identity constraint, ID or abstract type; see
    /// [`Validator::leaf_plan`]); false sends it down the general path, which finds the
    /// same verdict the long way and reports any error.
    #[inline]
    fn leaf(&mut self, r: RecordId, rec: &[u32; ELEM_WORDS as usize], e: ElemId) -> bool {
        // no attribute or child record: the element's next is just past its own record
        let (next, s, end) = (rec[NEXT as usize], rec[START as usize] as usize, rec[ELEM_END as usize] as usize);
        if self.keep_typed || next != r.word() + ELEM_WORDS || self.depth >= self.opts.max_depth {
            return false;
        }
        let plan = match self.leaf_plans.get(e as usize) {
            Some(&p) if !matches!(p, LeafPlan::Unset) => p,
            _ => self.leaf_plan(e),
        };
        let (fast, raw_safe) = match plan {
            LeafPlan::Check(f, raw_safe) => (f, raw_safe),
            // any character data is a value: how the tags are written does not matter
            LeafPlan::Any => return true,
            LeafPlan::No | LeafPlan::Unset => return false,
        };
        let t = self.text;
        let q = self.qlen(Sym::new(rec[0] & PAYLOAD_MASK));
        let (cs, ce) = match t.get(s + 1 + q) {
            Some(b'>') => {
                let ce = end.wrapping_sub(q + 3);
                if ce < s + q + 2 || t.get(ce..ce + 2) != Some(b"</") {
                    return false;
                }
                (s + q + 2, ce)
            }
            Some(b'/') if end == s + q + 3 => (end, end),
            _ => return false,
        };
        let raw = &t[cs..ce];
        if !raw_safe && raw.iter().any(|&c| c == b'&' || c == b'\r') {
            return false;
        }
        fast.accepts(raw)
    }

    /// Works out (once per validation) what [`Validator::leaf`] needs of declaration `e`.
    #[cold]
    #[inline(never)]
    fn leaf_plan(&mut self, e: ElemId) -> LeafPlan<'s> {
        if self.leaf_plans.is_empty() {
            self.leaf_plans = vec![LeafPlan::Unset; self.c.elements.len()];
        }
        let c = self.c;
        let decl = &c.elements[e as usize];
        let td = &c.types[decl.type_ as usize];
        let st = if decl.abstract_ || !decl.ics.is_empty() || decl.vc.is_some() || td.abstract_ {
            None
        } else {
            match &td.body {
                TypeBody::Simple(_) => Some(decl.type_),
                // no attribute is there, so none may be required
                TypeBody::Complex(cd) if !cd.attrs.iter().any(|u| u.required) => match cd.content {
                    Content::Simple(st) => Some(st),
                    _ => None,
                },
                _ => None,
            }
        };
        let plan = match st.and_then(|st| c.types[st as usize].simple()) {
            Some(sd) if sd.id_kind == IdKind::None => match sd.st.fast() {
                Fast::None => LeafPlan::No,
                f if f.accepts_anything() => LeafPlan::Any,
                f => LeafPlan::Check(f, f.raw_safe()),
            },
            _ => LeafPlan::No,
        };
        if let Some(slot) = self.leaf_plans.get_mut(e as usize) {
            *slot = plan;
        }
        plan
    }

    /// Type Derivation OK for an `xsi:type` `t` against the declared `base` (cvc-elt.4.3):
    /// along the base chain with no step's method in `blocked` (the element's `block` and
    /// the declared type's; §3.4.6 asks nothing of the types in between), or (§3.14.6,
    /// 2.2.4) validly derived from a member type of a union `base`.
    fn xsi_type_derives(&self, t: TypeId, base: TypeId, blocked: u8, depth: u32) -> bool {
        if crate::build::derives(&self.c.types, t, base, blocked) {
            return true;
        }
        let TypeBody::Simple(sd) = &self.c.types[base as usize].body else { return false };
        depth < 32 && sd.members.iter().any(|&m| m != base && self.xsi_type_derives(t, m, blocked, depth + 1))
    }

    /// Validates element record `r` against type `ty`; returns the key tables bubbling up
    /// from its subtree. `tag`: what its attribute records say.
    fn typed_element(&mut self, r: u32, tag: Tag, ty: TypeId, vc: Option<&'s ValueConstraint>, nillable: bool) -> Vec<(IcId, Table)> {
        self.depth += 1;
        if self.depth > self.opts.max_depth {
            let n = self.node(r);
            self.error(n, K::Limit, format!("limit exceeded: elements nested deeper than {}", self.opts.max_depth));
            self.depth -= 1;
            return Vec::new();
        }
        let c = self.c;
        let td = &c.types[ty as usize];
        if td.abstract_ {
            let n = self.node(r);
            self.error(n, K::Type, format!("type {} is abstract; name a derived type with xsi:type (cvc-type.2)", self.tname(ty)));
        }
        // xsi:nil
        let mut nilled = false;
        if tag.xsi {
            let n = self.node(r);
            for a in n.attributes() {
                let (ns, id) = self.name_of(a);
                if ns == self.c.xsi_ns && id == self.c.xsi_nil {
                    let v = a.value();
                    let b = match v.trim() {
                        "true" | "1" => true,
                        "false" | "0" => false,
                        other => {
                            self.error(a, K::Value, format!("xsi:nil must be a boolean; found {other:?}"));
                            false
                        }
                    };
                    if !nillable {
                        self.error(a, K::Type, format!("element <{}> is not nillable (cvc-elt.3.1)", n.name()));
                    } else if b {
                        nilled = true;
                        if vc.is_some_and(|v| v.fixed) {
                            self.error(a, K::Type, format!("element <{}> has a fixed value and cannot be nil (cvc-elt.3.2.2)", n.name()));
                        }
                    }
                }
            }
        }
        let mut tables = Vec::new();
        match &td.body {
            TypeBody::Simple(_) => {
                if tag.attrs {
                    self.attributes_simple(r);
                }
                if nilled {
                    self.nil_content(self.node(r));
                } else {
                    self.simple_content(r, tag, ty, vc);
                }
            }
            TypeBody::Complex(cd) => {
                self.attributes(r, tag, cd);
                if nilled {
                    self.nil_content(self.node(r));
                } else {
                    match &cd.content {
                        Content::Empty => {
                            let nothing = tag.after_attrs >= self.tape.next(RecordId::new(r)) && {
                                let (cs, ce) = self.content_bounds(r, tag);
                                cs >= ce
                            };
                            let n = self.node(r);
                            if !nothing {
                                for ch in n.children() {
                                    match ch.kind() {
                                        NodeKind::Element => {
                                            self.error(
                                                ch,
                                                K::Content,
                                                format!(
                                                    "element <{}> must be empty; found <{}> (cvc-complex-type.2.1)",
                                                    n.name(),
                                                    ch.name()
                                                ),
                                            );
                                            break;
                                        }
                                        // an empty CDATA section holds no character
                                        // information item (Infoset §2.6)
                                        NodeKind::Text | NodeKind::CData if !ch.value().is_empty() => {
                                            self.error(
                                                ch,
                                                K::Content,
                                                format!(
                                                    "element <{}> must be empty; found character data (cvc-complex-type.2.1)",
                                                    n.name()
                                                ),
                                            );
                                            break;
                                        }
                                        _ => {}
                                    }
                                }
                            }
                            if let Some(v) = vc.filter(|v| v.fixed) {
                                if !v.lexical.is_empty() {
                                    self.error(n, K::Value, format!("element <{}> must have the fixed value {:?}", n.name(), v.lexical));
                                }
                            }
                        }
                        Content::Simple(st) => {
                            self.simple_content(r, tag, *st, vc);
                        }
                        Content::Elements { mixed, automaton, .. } => {
                            tables = self.element_content(r, tag, *automaton, *mixed);
                            if let Some(v) = vc {
                                self.mixed_value(self.node(r), v);
                            }
                        }
                    }
                }
            }
            TypeBody::Pending => {}
        }
        self.depth -= 1;
        tables
    }
}

fn merge_tables(into: &mut Vec<(IcId, Table)>, from: Vec<(IcId, Table)>) {
    for (ic, t) in from {
        match into.iter_mut().find(|(i, _)| *i == ic) {
            Some((_, existing)) => existing.extend(t),
            None => into.push((ic, t)),
        }
    }
}

/// `/po:purchaseOrder/items/item[3]/quantity` (`/@name` for an attribute): the names as
/// written, with a position among same-named siblings where there are several.
pub(crate) fn path_of(n: Node<'_>) -> String {
    let mut parts: Vec<String> = Vec::new();
    let (mut cur, attr) = if n.is_attribute() {
        (n.parent_element(), Some(format!("@{}", n.name())))
    } else if n.is_element() {
        (Some(n), None)
    } else {
        (n.parent_element(), None)
    };
    while let Some(e) = cur {
        let sym = e.sym();
        // counted forward from the first sibling (going backwards is not constant-time)
        let mut idx = 1;
        let mut p = e.parent().and_then(|p| p.first_element_child());
        while let Some(s) = p {
            if s == e {
                break;
            }
            if s.sym() == sym {
                idx += 1;
            }
            p = s.next_element_sibling();
        }
        let mut more = idx > 1;
        if !more {
            let mut q = e.next_element_sibling();
            while let Some(s) = q {
                if s.sym() == sym {
                    more = true;
                    break;
                }
                q = s.next_element_sibling();
            }
        }
        parts.push(if more { format!("{}[{idx}]", e.name()) } else { e.name().to_string() });
        cur = e.parent_element();
    }
    parts.reverse();
    let mut s = String::new();
    for p in parts {
        s.push('/');
        s.push_str(&p);
    }
    if let Some(a) = attr {
        s.push('/');
        s.push_str(&a);
    }
    s
}

#[allow(dead_code)]
fn unused(c: &crate::build::Components, e: ElemId) -> usize {
    element_matches(c, e).len()
}
