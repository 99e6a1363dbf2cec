//! Instance validation: one walk over the token index, element by element,
//! stepping each parent's compiled automaton with interned names, checking
//! simple content and attribute values through the datatypes layer on the text
//! as written (borrowed unless a reference must be decoded).

use std::borrow::Cow;
use std::collections::HashMap;

use vtdx_core::{Document, Node, NodeKind};

use crate::automaton::{element_matches, Automaton, Matched};
use crate::datatypes::{NsResolver, Value};
use crate::error::{Location, ValidationError, ValidationErrorKind as K};
use crate::model::*;
use crate::schema::{Schema, ValidateOptions};

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

/// A key/unique table: value tuple → the node that contributed it.
type Table = HashMap<Vec<Value>, u32>;

pub(crate) struct Validator<'s, 'd> {
    s: &'s Schema,
    c: &'s crate::build::Components,
    doc: &'d Document<'d>,
    opts: &'s ValidateOptions,
    errors: Vec<ValidationError>,
    truncated: bool,
    typed: HashMap<u32, Value>,
    keep_typed: bool,
    /// Per document symbol: (namespace index, name id), filled lazily.
    syms: Vec<(NsIdx, NameId)>,
    ids: HashMap<String, u32>,
    idrefs: Vec<(String, u32)>,
    depth: usize,
}

const UNSET: (NsIdx, NameId) = (u32::MAX - 1, u32::MAX - 1);

fn is_xml_ws(s: &[u8]) -> bool {
    s.iter().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

impl<'s, 'd> Validator<'s, 'd> {
    pub(crate) fn new(s: &'s Schema, doc: &'d Document<'d>, opts: &'s ValidateOptions) -> Validator<'s, 'd> {
        Validator {
            s,
            c: &s.c,
            doc,
            opts,
            errors: Vec::new(),
            truncated: false,
            typed: HashMap::new(),
            keep_typed: opts.typed_values || !s.c.ics.is_empty(),
            syms: vec![UNSET; doc.names().sym_count()],
            ids: HashMap::new(),
            idrefs: Vec::new(),
            depth: 0,
        }
    }

    pub(crate) fn run(mut self) -> Validation<'d> {
        let root = self.doc.root_element();
        let (_, name) = self.name_of(root);
        match self.c.global_elements.get(&name) {
            Some(&e) => {
                self.element(root, e);
            }
            None => {
                if let Some(t) = self.xsi_type_of(root) {
                    if let Some(t) = t {
                        self.typed_element(root, t, None, false);
                    }
                } else {
                    self.error(root, K::Content, format!("no declaration for the root element <{}> (cvc-elt.1)", root.name()));
                }
            }
        }
        for (r, rec) in std::mem::take(&mut self.idrefs) {
            if !self.ids.contains_key(&r) {
                if let Some(n) = self.doc.node_at_record(rec) {
                    self.error(n, K::Identity, format!("IDREF {r:?} matches no ID in the document (cvc-id.1)"));
                }
            }
        }
        Validation { doc: self.doc, errors: self.errors, typed: self.typed, truncated: self.truncated }
    }

    // ---- names and errors -----------------------------------------------------------

    #[inline]
    fn name_of(&mut self, n: Node<'d>) -> (NsIdx, NameId) {
        let Some(sym) = n.sym() else { return (0, NAME_UNKNOWN) };
        let i = sym.index();
        if let Some(v) = self.syms.get(i) {
            if *v != UNSET {
                return *v;
            }
        }
        let names = self.doc.names();
        let ns = self.c.names.find_ns(names.ns_uri(sym));
        let id = self.c.names.find(ns, names.local(sym));
        if i >= self.syms.len() {
            self.syms.resize(i + 1, UNSET);
        }
        self.syms[i] = (ns, id);
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

    fn element(&mut self, n: Node<'d>, e: ElemId) -> Option<Vec<(IcId, Table)>> {
        if self.stopped() {
            return None;
        }
        let decl = &self.c.elements[e as usize];
        if decl.abstract_ {
            self.error(n, K::Type, format!("element <{}> is abstract; use a member of its substitution group (cvc-elt.2)", n.name()));
        }
        let mut ty = decl.type_;
        if let Some(Some(t)) = self.xsi_type_of(n) {
            {
                {
                    let blocked = (decl.block | self.c.types[decl.type_ as usize].block) & (deriv::EXTENSION | deriv::RESTRICTION);
                    if !crate::build::derives(&self.c.types, t, decl.type_, blocked) || !self.no_blocked_on_path(t, decl.type_) {
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
        }
        let vc = decl.vc.clone();
        let nillable = decl.nillable;
        let ics = decl.ics.clone();
        let tables = self.typed_element(n, ty, vc.as_ref(), nillable);
        if ics.is_empty() && tables.is_empty() {
            return None;
        }
        Some(self.identity(n, &ics, tables))
    }

    /// The `block` of every type on the derivation path from `t` to `base` (cvc-elt.4.3:
    /// {prohibited substitutions} of the types in between).
    fn no_blocked_on_path(&self, t: TypeId, base: TypeId) -> bool {
        let mut cur = t;
        let mut n = 0;
        while cur != base && n < self.c.types.len() {
            let td = &self.c.types[cur as usize];
            let parent = td.base;
            let m = if td.derivation == Derivation::Extension { deriv::EXTENSION } else { deriv::RESTRICTION };
            if self.c.types[parent as usize].block & m != 0 {
                return false;
            }
            if parent == cur {
                break;
            }
            cur = parent;
            n += 1;
        }
        true
    }

    /// Validates `n` against type `ty`; returns the key tables bubbling up from its subtree.
    fn typed_element(&mut self, n: Node<'d>, ty: TypeId, vc: Option<&ValueConstraint>, nillable: bool) -> Vec<(IcId, Table)> {
        self.depth += 1;
        if self.depth > self.opts.max_depth {
            self.error(n, K::Limit, format!("limit exceeded: elements nested deeper than {}", self.opts.max_depth));
            self.depth -= 1;
            return Vec::new();
        }
        let td = &self.c.types[ty as usize];
        if td.abstract_ {
            self.error(n, K::Type, format!("type {} is abstract; name a derived type with xsi:type (cvc-type.2)", self.tname(ty)));
        }
        // xsi:nil
        let mut nilled = false;
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
        let mut tables = Vec::new();
        match &td.body {
            TypeBody::Simple(_) => {
                self.attributes_simple(n);
                if nilled {
                    self.nil_content(n);
                } else {
                    self.simple_content(n, ty, vc);
                }
            }
            TypeBody::Complex(cd) => {
                self.attributes(n, cd);
                if nilled {
                    self.nil_content(n);
                } else {
                    match &cd.content {
                        Content::Empty => {
                            for ch in n.children() {
                                match ch.kind() {
                                    NodeKind::Element => {
                                        self.error(
                                            ch,
                                            K::Content,
                                            format!("element <{}> must be empty; found <{}> (cvc-complex-type.2.1)", n.name(), ch.name()),
                                        );
                                        break;
                                    }
                                    NodeKind::Text | NodeKind::CData => {
                                        self.error(
                                            ch,
                                            K::Content,
                                            format!("element <{}> must be empty; found character data (cvc-complex-type.2.1)", n.name()),
                                        );
                                        break;
                                    }
                                    _ => {}
                                }
                            }
                            if let Some(v) = vc.filter(|v| v.fixed) {
                                if !v.lexical.is_empty() {
                                    self.error(n, K::Value, format!("element <{}> must have the fixed value {:?}", n.name(), v.lexical));
                                }
                            }
                        }
                        Content::Simple(st) => {
                            self.simple_content(n, *st, vc);
                        }
                        Content::Elements { mixed, automaton, .. } => {
                            tables = self.element_content(n, *automaton, *mixed);
                            if let Some(v) = vc {
                                self.mixed_value(n, v);
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

    fn nil_content(&mut self, n: Node<'d>) {
        for ch in n.children() {
            if matches!(ch.kind(), NodeKind::Element | NodeKind::Text | NodeKind::CData) {
                self.error(ch, K::Content, format!("element <{}> is nil (xsi:nil=\"true\") and must be empty (cvc-elt.3.2.1)", n.name()));
                break;
            }
        }
    }

    /// The element's character data when it has no element children: borrowed when the
    /// bytes are the text.
    fn text_content(&mut self, n: Node<'d>) -> Option<Cow<'d, str>> {
        if let Some(b) = n.plain_content() {
            return Some(Cow::Borrowed(std::str::from_utf8(b).unwrap_or("")));
        }
        let mut s: Option<Cow<'d, str>> = None;
        let mut bad = None;
        for ch in n.children() {
            match ch.kind() {
                NodeKind::Text | NodeKind::CData => {
                    let v = ch.value();
                    match &mut s {
                        None => s = Some(v),
                        Some(o) => o.to_mut().push_str(&v),
                    }
                }
                NodeKind::Element if bad.is_none() => bad = Some(ch),
                _ => {}
            }
        }
        if let Some(ch) = bad {
            self.error(
                ch,
                K::Content,
                format!("element <{}> has simple content; found child element <{}> (cvc-complex-type.2.2)", n.name(), ch.name()),
            );
            return None;
        }
        Some(s.unwrap_or(Cow::Borrowed("")))
    }

    fn simple_content(&mut self, n: Node<'d>, st: TypeId, vc: Option<&ValueConstraint>) {
        let Some(text) = self.text_content(n) else { return };
        let Some(sd) = self.c.types[st as usize].simple() else { return };
        // An empty element takes its default (or fixed) value (cvc-elt.5.1.2).
        let empty = text.is_empty() && !n.children().any(|c| matches!(c.kind(), NodeKind::Text | NodeKind::CData));
        if empty {
            if let Some(v) = vc {
                if let (Some(val), Some(rec)) = (&v.value, n.record()) {
                    if self.keep_typed {
                        self.typed.insert(rec, val.clone());
                    }
                }
                return;
            }
        }
        if !self.keep_typed && !vc.is_some_and(|v| v.fixed) {
            // no typed value kept and no fixed value to compare: the check alone, which
            // builds no value
            let res = if sd.needs_ns { sd.st.check(&text, &NodeNs(n)) } else { sd.st.check(&text, &crate::datatypes::NoNamespaces) };
            match res {
                Ok(()) => self.id_check(n, sd.id_kind, &text),
                Err(m) => {
                    let off = n.content_range().map_or(n.range().start, |r| r.start);
                    self.error_at(n, off, K::Value, format!("element <{}>: {m}", n.name()));
                }
            }
            return;
        }
        let res = if sd.needs_ns { sd.st.validate(&text, &NodeNs(n)) } else { sd.st.validate(&text, &crate::datatypes::NoNamespaces) };
        match res {
            Ok(v) => {
                if let Some(vcx) = vc.filter(|v| v.fixed) {
                    if vcx.value.as_ref().is_some_and(|f| *f != v) {
                        self.error(
                            n,
                            K::Value,
                            format!(
                                "element <{}> must have the fixed value {:?}; found {:?} (cvc-elt.5.2.2.2.2)",
                                n.name(),
                                vcx.lexical,
                                text.trim()
                            ),
                        );
                    }
                }
                self.id_check(n, sd.id_kind, &text);
                if let (true, Some(rec)) = (self.keep_typed, n.record()) {
                    self.typed.insert(rec, v);
                }
            }
            Err(m) => {
                let off = n.content_range().map_or(n.range().start, |r| r.start);
                self.error_at(n, off, K::Value, format!("element <{}>: {m}", n.name()));
            }
        }
    }

    fn mixed_value(&mut self, n: Node<'d>, v: &ValueConstraint) {
        let has_elem = n.element_children().next().is_some();
        if has_elem {
            if v.fixed {
                self.error(n, K::Value, format!("element <{}> has a fixed value and may not contain elements (cvc-elt.5.2.2.1)", n.name()));
            }
            return;
        }
        if v.fixed {
            let t = n.value();
            if !t.is_empty() && t != v.lexical {
                self.error(
                    n,
                    K::Value,
                    format!("element <{}> must have the fixed value {:?}; found {:?} (cvc-elt.5.2.2.2.1)", n.name(), v.lexical, t),
                );
            }
        }
    }

    fn id_check(&mut self, n: Node<'d>, k: IdKind, text: &str) {
        match k {
            IdKind::None => {}
            IdKind::Id => {
                let v = text.trim().to_string();
                let rec = n.record().unwrap_or(0);
                if self.ids.insert(v.clone(), rec).is_some() {
                    self.error(n, K::Identity, format!("ID {v:?} is not unique in the document (cvc-id.2)"));
                }
            }
            IdKind::IdRef => self.idrefs.push((text.trim().to_string(), n.record().unwrap_or(0))),
            IdKind::IdRefs => {
                for t in text.split_ascii_whitespace() {
                    self.idrefs.push((t.to_string(), n.record().unwrap_or(0)));
                }
            }
        }
    }

    // ---- attributes ------------------------------------------------------------------

    fn xsi_attr(&self, ns: NsIdx, id: NameId) -> bool {
        ns == self.c.xsi_ns
            && (id == self.c.xsi_type || id == self.c.xsi_nil || id == self.c.xsi_schema_location || id == self.c.xsi_no_ns_schema_location)
    }

    fn attributes_simple(&mut self, n: Node<'d>) {
        for a in n.attributes() {
            let (ns, id) = self.name_of(a);
            if !self.xsi_attr(ns, id) {
                self.error(
                    a,
                    K::Attribute,
                    format!("attribute {} is not allowed: element <{}> has a simple type (cvc-type.3.1.1)", a.name(), n.name()),
                );
            }
        }
    }

    fn attributes(&mut self, n: Node<'d>, cd: &'s ComplexDef) {
        let mut seen = [0u64; 2];
        let mut seen_big: Vec<bool> = Vec::new();
        if cd.attrs.len() > 128 {
            seen_big = vec![false; cd.attrs.len()];
        }
        for a in n.attributes() {
            let (ns, id) = self.name_of(a);
            if self.xsi_attr(ns, id) {
                continue;
            }
            let found = if id == NAME_UNKNOWN { None } else { cd.attrs.iter().position(|u| self.c.attributes[u.decl as usize].name == id) };
            match found {
                Some(i) => {
                    if seen_big.is_empty() {
                        seen[i / 64] |= 1 << (i % 64);
                    } else {
                        seen_big[i] = true;
                    }
                    let u = &cd.attrs[i];
                    let decl = &self.c.attributes[u.decl as usize];
                    let vc = u.vc.as_ref().or(decl.vc.as_ref());
                    self.attribute_value(n, a, decl.type_, vc);
                }
                None => match &cd.attr_wildcard {
                    Some(w) if w.ns.allows(ns) => match w.process {
                        Process::Skip => {}
                        p => match self.c.global_attributes.get(&id) {
                            Some(&g) => {
                                let decl = &self.c.attributes[g as usize];
                                self.attribute_value(n, a, decl.type_, decl.vc.as_ref());
                            }
                            None if p == Process::Strict => {
                                self.error(
                                    a,
                                    K::Attribute,
                                    format!("attribute {} has no global declaration (strict wildcard, cvc-wildcard)", a.name()),
                                );
                            }
                            None => {}
                        },
                    },
                    _ => {
                        self.error(
                            a,
                            K::Attribute,
                            format!("attribute {} is not allowed on element <{}> (cvc-complex-type.3.2)", a.name(), n.name()),
                        );
                    }
                },
            }
        }
        for (i, u) in cd.attrs.iter().enumerate() {
            let s = if seen_big.is_empty() { seen[i / 64] & (1 << (i % 64)) != 0 } else { seen_big[i] };
            if u.required && !s {
                let nm = self.c.attributes[u.decl as usize].name;
                let shown = self.c.names.local(nm).to_string();
                self.error(n, K::Attribute, format!("element <{}> is missing required attribute {shown} (cvc-complex-type.4)", n.name()));
            }
        }
    }

    fn attribute_value(&mut self, n: Node<'d>, a: Node<'d>, t: TypeId, vc: Option<&ValueConstraint>) {
        let Some(sd) = self.c.types[t as usize].simple() else { return };
        let v = a.value();
        if !self.keep_typed && !vc.is_some_and(|f| f.fixed) {
            // the check alone: no value to keep or compare
            let res = if sd.needs_ns { sd.st.check(&v, &NodeNs(n)) } else { sd.st.check(&v, &crate::datatypes::NoNamespaces) };
            match res {
                Ok(()) => self.id_check(a, sd.id_kind, &v),
                Err(m) => self.error(a, K::Value, format!("attribute {}: {m}", a.name())),
            }
            return;
        }
        let res = if sd.needs_ns { sd.st.validate(&v, &NodeNs(n)) } else { sd.st.validate(&v, &crate::datatypes::NoNamespaces) };
        match res {
            Ok(val) => {
                if let Some(f) = vc.filter(|f| f.fixed) {
                    if f.value.as_ref().is_some_and(|fv| *fv != val) {
                        self.error(
                            a,
                            K::Attribute,
                            format!("attribute {} must have the fixed value {:?}; found {:?} (cvc-au)", a.name(), f.lexical, v),
                        );
                    }
                }
                self.id_check(a, sd.id_kind, &v);
                if let (true, Some(rec)) = (self.keep_typed, a.record()) {
                    self.typed.insert(rec, val);
                }
            }
            Err(m) => self.error(a, K::Value, format!("attribute {}: {m}", a.name())),
        }
    }

    // ---- content models --------------------------------------------------------------

    fn expected(&self, aut: &Automaton, state: u32, all_seen: Option<&[bool]>, parent: &str) -> String {
        let mut v: Vec<String> = Vec::new();
        match aut {
            Automaton::Dfa { states, wildcards } => {
                let s = &states[state as usize];
                for (n, _, _) in &s.names {
                    v.push(format!("<{}>", self.c.names.local(*n)));
                }
                for (w, _) in &s.wild {
                    v.push(match &wildcards[*w as usize].ns {
                        NsCons::Any => "any element".to_string(),
                        NsCons::Not(x) => match self.c.names.ns_uri(*x) {
                            Some(u) => format!("any element not in {u}"),
                            None => "any namespace-qualified element".to_string(),
                        },
                        NsCons::Set(s) => format!(
                            "any element in {}",
                            s.iter()
                                .map(|x| self.c.names.ns_uri(*x).unwrap_or("no namespace").to_string())
                                .collect::<Vec<_>>()
                                .join(" or ")
                        ),
                    });
                }
            }
            Automaton::All(m) => {
                for (n, _, slot) in &m.entries {
                    if !all_seen.is_some_and(|s| s[*slot as usize]) {
                        v.push(format!("<{}>", self.c.names.local(*n)));
                    }
                }
            }
        }
        v.sort();
        v.dedup();
        let can_end = match aut {
            Automaton::Dfa { states, .. } => states[state as usize].final_,
            Automaton::All(_) => false,
        };
        let list = match v.len() {
            0 => return format!("the end of <{parent}>"),
            1 => v.remove(0),
            _ => format!("one of {}", v.join(", ")),
        };
        if can_end {
            format!("{list} or the end of <{parent}>")
        } else {
            list
        }
    }

    fn element_content(&mut self, n: Node<'d>, automaton: u32, mixed: bool) -> Vec<(IcId, Table)> {
        let aut: &'s Automaton = &self.s.automata[automaton as usize];
        let mut state = 0u32;
        let mut all_seen: Vec<bool> = match aut {
            Automaton::All(m) => vec![false; m.required.len()],
            _ => Vec::new(),
        };
        let mut any_child = false;
        let mut tables: Vec<(IcId, Table)> = Vec::new();
        let mut text_reported = false;
        for ch in n.children() {
            if self.stopped() {
                break;
            }
            match ch.kind() {
                NodeKind::Element => {
                    any_child = true;
                    let (ns, id) = self.name_of(ch);
                    let step = match aut {
                        Automaton::Dfa { .. } => aut.step(state, id, ns),
                        Automaton::All(m) => match m.entries.binary_search_by_key(&id, |x| x.0) {
                            Ok(i) if id != NAME_UNKNOWN => {
                                let slot = m.entries[i].2 as usize;
                                if all_seen[slot] {
                                    None
                                } else {
                                    all_seen[slot] = true;
                                    Some((0, Matched::Element(m.entries[i].1)))
                                }
                            }
                            _ => None,
                        },
                    };
                    let sub = match step {
                        Some((next, m)) => {
                            state = next;
                            match m {
                                Matched::Element(e) => self.element(ch, e),
                                Matched::Wildcard(w) => self.wildcard_element(ch, w.process),
                            }
                        }
                        None => {
                            let exp = self.expected(aut, state, Some(&all_seen), n.name());
                            self.error(
                                ch,
                                K::Content,
                                format!("unexpected element <{}>: expected {exp} (cvc-complex-type.2.4)", ch.name()),
                            );
                            // Go on with the element's own declaration, if it has one.
                            match self.c.global_elements.get(&id) {
                                Some(&e) => self.element(ch, e),
                                None => self.lax(ch),
                            }
                        }
                    };
                    if let Some(t) = sub {
                        merge_tables(&mut tables, t);
                    }
                }
                NodeKind::Text | NodeKind::CData if !mixed && !text_reported => {
                    let raw = ch.raw();
                    let ws =
                        if ch.kind() == NodeKind::Text && !raw.contains(&b'&') { is_xml_ws(raw) } else { is_xml_ws(ch.value().as_bytes()) };
                    if !ws {
                        text_reported = true;
                        self.error(
                            ch,
                            K::Content,
                            format!("element <{}> has element-only content; found character data (cvc-complex-type.2.3)", n.name()),
                        );
                    }
                }
                _ => {}
            }
        }
        let _ = any_child;
        let complete = match aut {
            Automaton::Dfa { states, .. } => states[state as usize].final_,
            Automaton::All(m) => {
                let none = !all_seen.iter().any(|x| *x);
                (none && m.emptiable) || m.required.iter().zip(&all_seen).all(|(r, s)| !*r || *s)
            }
        };
        if !complete && !self.stopped() {
            let exp = self.expected(aut, state, Some(&all_seen), n.name());
            let off = n.content_range().map_or(n.range().start, |r| r.end);
            self.error_at(
                n,
                off,
                K::Missing,
                format!("element <{}> is incomplete: expected {exp} before its end (cvc-complex-type.2.4)", n.name()),
            );
        }
        tables
    }

    fn wildcard_element(&mut self, ch: Node<'d>, p: Process) -> Option<Vec<(IcId, Table)>> {
        match p {
            Process::Skip => None,
            _ => {
                let (_, id) = self.name_of(ch);
                if let Some(&e) = self.c.global_elements.get(&id) {
                    return self.element(ch, e);
                }
                if let Some(t) = self.xsi_type_of(ch) {
                    if let Some(t) = t {
                        let tb = self.typed_element(ch, t, None, false);
                        return (!tb.is_empty()).then_some(tb);
                    }
                    return None;
                }
                if p == Process::Strict {
                    self.error(
                        ch,
                        K::Content,
                        format!("element <{}> has no global declaration (strict wildcard, cvc-complex-type.2.4)", ch.name()),
                    );
                    None
                } else {
                    self.lax(ch)
                }
            }
        }
    }

    /// Lax assessment of an undeclared element: its children are validated where they
    /// have declarations.
    fn lax(&mut self, n: Node<'d>) -> Option<Vec<(IcId, Table)>> {
        self.depth += 1;
        if self.depth > self.opts.max_depth {
            self.depth -= 1;
            return None;
        }
        let mut tables = Vec::new();
        for a in n.attributes() {
            let (ns, id) = self.name_of(a);
            if self.xsi_attr(ns, id) {
                continue;
            }
            if let Some(&g) = self.c.global_attributes.get(&id) {
                let decl = &self.c.attributes[g as usize];
                self.attribute_value(n, a, decl.type_, decl.vc.as_ref());
            }
        }
        for ch in n.element_children() {
            let r = self.wildcard_element(ch, Process::Lax);
            if let Some(t) = r {
                merge_tables(&mut tables, t);
            }
        }
        self.depth -= 1;
        (!tables.is_empty()).then_some(tables)
    }

    // ---- identity constraints --------------------------------------------------------

    fn identity(&mut self, n: Node<'d>, ics: &[IcId], mut below: Vec<(IcId, Table)>) -> Vec<(IcId, Table)> {
        // Keys and uniques first, then keyrefs against them (this element's and those below).
        let mut order: Vec<IcId> = ics.iter().copied().filter(|i| !matches!(self.c.ics[*i as usize].kind, IcKind::KeyRef(_))).collect();
        order.extend(ics.iter().copied().filter(|i| matches!(self.c.ics[*i as usize].kind, IcKind::KeyRef(_))));
        for ic in order {
            let def = &self.c.ics[ic as usize];
            let targets = self.select(n, &def.selector);
            let mut table: Table = HashMap::new();
            let mut refs: Vec<(Vec<Value>, Node<'d>)> = Vec::new();
            let icname = self.c.names.local(def.name).to_string();
            for t in targets {
                let mut row = Vec::with_capacity(def.fields.len());
                let mut complete = true;
                for f in &def.fields {
                    let nodes = self.select_field(t, f);
                    match nodes.as_slice() {
                        [] => {
                            complete = false;
                        }
                        [x] => match x.record().and_then(|r| self.typed.get(&r)) {
                            Some(v) => row.push(v.clone()),
                            None => {
                                if x.is_element() && self.element_is_complex_nonsimple(*x) {
                                    self.error(*x, K::Identity, format!("a field of {icname:?} selects element <{}> which has no simple value (cvc-identity-constraint.3)", x.name()));
                                }
                                complete = false;
                            }
                        },
                        _ => {
                            self.error(
                                t,
                                K::Identity,
                                format!("a field of {icname:?} selects more than one node (cvc-identity-constraint.3)"),
                            );
                            complete = false;
                        }
                    }
                }
                if !complete {
                    if def.kind == IcKind::Key {
                        self.error(
                            t,
                            K::Identity,
                            format!("key {icname:?}: element <{}> lacks a value for every field (cvc-identity-constraint.4.2.1)", t.name()),
                        );
                    }
                    continue;
                }
                match def.kind {
                    IcKind::KeyRef(_) => refs.push((row, t)),
                    _ => {
                        if table.len() >= self.opts.max_identity_rows {
                            self.error(
                                t,
                                K::Limit,
                                format!(
                                    "limit exceeded: identity constraint {icname:?} has more than {} rows",
                                    self.opts.max_identity_rows
                                ),
                            );
                            break;
                        }
                        let rec = t.record().unwrap_or(0);
                        if table.insert(row.clone(), rec).is_some() {
                            let shown = row.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ");
                            let what = if def.kind == IcKind::Key { "key" } else { "unique" };
                            self.error(
                                t,
                                K::Identity,
                                format!("duplicate {what} value ({shown}) for {icname:?} (cvc-identity-constraint.4.1)"),
                            );
                        }
                    }
                }
            }
            match def.kind {
                IcKind::KeyRef(target) => {
                    let empty: Table = HashMap::new();
                    let avail: Vec<&Table> = below.iter().filter(|(i, _)| *i == target).map(|(_, t)| t).collect();
                    for (row, t) in refs {
                        let found = avail.iter().any(|tb| tb.contains_key(&row)) || (avail.is_empty() && empty.contains_key(&row));
                        if !found {
                            let shown = row.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ");
                            self.error(
                                t,
                                K::Identity,
                                format!("keyref {icname:?}: no key matches ({shown}) (cvc-identity-constraint.4.3)"),
                            );
                        }
                    }
                }
                _ => {
                    if self.s.referenced.contains(&ic) {
                        below.push((ic, table));
                    }
                }
            }
        }
        below
    }

    fn element_is_complex_nonsimple(&mut self, _x: Node<'d>) -> bool {
        true
    }

    fn test(&mut self, n: Node<'d>, t: &NameTest) -> bool {
        let (ns, id) = self.name_of(n);
        match t {
            NameTest::Any => true,
            NameTest::Ns(x) => ns == *x,
            NameTest::Name(x) => id == *x,
        }
    }

    fn select(&mut self, n: Node<'d>, paths: &[IcPath]) -> Vec<Node<'d>> {
        let mut out: Vec<Node<'d>> = Vec::new();
        for p in paths {
            let mut cur: Vec<Node<'d>> = if p.descendant { std::iter::once(n).chain(n.descendant_elements()).collect() } else { vec![n] };
            for s in &p.steps {
                match s {
                    None => {}
                    Some(t) => {
                        let mut next = Vec::new();
                        for c in &cur {
                            for ch in c.element_children() {
                                if self.test(ch, t) {
                                    next.push(ch);
                                }
                            }
                        }
                        cur = next;
                    }
                }
            }
            out.extend(cur);
        }
        if paths.len() > 1 || paths.iter().any(|p| p.descendant) {
            out.sort_by_key(|x| x.record());
            out.dedup();
        }
        out
    }

    fn select_field(&mut self, n: Node<'d>, paths: &[IcPath]) -> Vec<Node<'d>> {
        let mut out = Vec::new();
        for p in paths {
            let plain = IcPath { descendant: p.descendant, steps: p.steps.clone(), attribute: None };
            let els = self.select(n, std::slice::from_ref(&plain));
            match &p.attribute {
                None => out.extend(els),
                Some(t) => {
                    for e in els {
                        for a in e.attributes() {
                            if self.test(a, t) {
                                out.push(a);
                            }
                        }
                    }
                }
            }
        }
        out.sort_by_key(|x| x.record());
        out.dedup();
        out
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
        let mut idx = 1;
        let mut p = e.prev_element_sibling();
        while let Some(s) = p {
            if s.sym() == sym {
                idx += 1;
            }
            p = s.prev_element_sibling();
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
