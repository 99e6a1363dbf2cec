//! The schema components (XML Schema 1.0 Part 1 §3), held in arenas and
//! referred to by index. Names are interned `(namespace, local)` pairs.

use std::collections::HashMap;

use crate::datatypes::{SimpleType, Value};
use crate::error::Location;

/// Index of an interned namespace; 0 is "no namespace".
pub(crate) type NsIdx = u32;
/// The namespace of an instance name the schema never mentions.
pub(crate) const NS_UNKNOWN: NsIdx = u32::MAX;
/// Index of an interned (namespace, local name) pair.
pub(crate) type NameId = u32;
/// A name the schema never mentions.
pub(crate) const NAME_UNKNOWN: NameId = u32::MAX;

pub(crate) type TypeId = u32;
pub(crate) type ElemId = u32;
pub(crate) type AttrId = u32;
pub(crate) type IcId = u32;

/// `anyType`'s index.
pub(crate) const ANY_TYPE: TypeId = 0;
/// `anySimpleType`'s index.
pub(crate) const ANY_SIMPLE_TYPE: TypeId = 1;

/// Derivation methods, as a bit set (`block`, `final`, `blockDefault`, `finalDefault`).
pub(crate) mod deriv {
    pub const EXTENSION: u8 = 1;
    pub const RESTRICTION: u8 = 2;
    pub const SUBSTITUTION: u8 = 4;
    pub const LIST: u8 = 8;
    pub const UNION: u8 = 16;
}

/// Interned names and namespaces.
#[derive(Debug, Default)]
pub(crate) struct NameTable {
    pub ns: Vec<String>,
    ns_map: HashMap<String, NsIdx>,
    pub names: Vec<(NsIdx, Box<str>)>,
    map: HashMap<(NsIdx, Box<str>), NameId>,
}

impl NameTable {
    pub fn new() -> NameTable {
        let mut t = NameTable::default();
        t.ns.push(String::new());
        t
    }
    pub fn ns(&mut self, uri: Option<&str>) -> NsIdx {
        match uri {
            None | Some("") => 0,
            Some(u) => {
                if let Some(&i) = self.ns_map.get(u) {
                    return i;
                }
                let i = self.ns.len() as NsIdx;
                self.ns.push(u.to_string());
                self.ns_map.insert(u.to_string(), i);
                i
            }
        }
    }
    pub fn find_ns(&self, uri: &str) -> NsIdx {
        if uri.is_empty() {
            0
        } else {
            self.ns_map.get(uri).copied().unwrap_or(NS_UNKNOWN)
        }
    }
    pub fn name(&mut self, ns: NsIdx, local: &str) -> NameId {
        if let Some(&i) = self.map.get(&(ns, Box::from(local))) {
            return i;
        }
        let i = self.names.len() as NameId;
        self.names.push((ns, Box::from(local)));
        self.map.insert((ns, Box::from(local)), i);
        i
    }
    pub fn find(&self, ns: NsIdx, local: &str) -> NameId {
        if ns == NS_UNKNOWN {
            return NAME_UNKNOWN;
        }
        self.map.get(&(ns, Box::from(local))).copied().unwrap_or(NAME_UNKNOWN)
    }
    pub fn ns_uri(&self, ns: NsIdx) -> Option<&str> {
        if ns == 0 || ns == NS_UNKNOWN {
            None
        } else {
            Some(&self.ns[ns as usize])
        }
    }
    pub fn local(&self, n: NameId) -> &str {
        &self.names[n as usize].1
    }
    pub fn ns_of(&self, n: NameId) -> NsIdx {
        self.names[n as usize].0
    }
    /// `{uri}local` or `local`.
    pub fn display(&self, n: NameId) -> String {
        if n == NAME_UNKNOWN {
            return "?".into();
        }
        let (ns, l) = &self.names[n as usize];
        match self.ns_uri(*ns) {
            Some(u) => format!("{{{u}}}{l}"),
            None => l.to_string(),
        }
    }
}

/// A value constraint (`default` or `fixed`) with its value in the type's value space.
#[derive(Debug, Clone)]
pub(crate) struct ValueConstraint {
    pub fixed: bool,
    pub lexical: String,
    /// `None` when the governing type has mixed content (compared as strings).
    pub value: Option<Value>,
}

#[derive(Debug, Clone)]
pub(crate) struct ElementDecl {
    pub name: NameId,
    pub type_: TypeId,
    pub nillable: bool,
    pub abstract_: bool,
    pub vc: Option<ValueConstraint>,
    pub block: u8,
    pub final_: u8,
    pub subst_head: Option<ElemId>,
    pub ics: Vec<IcId>,
    pub global: bool,
    pub loc: Location,
}

#[derive(Debug, Clone)]
pub(crate) struct AttributeDecl {
    pub name: NameId,
    pub type_: TypeId,
    pub vc: Option<ValueConstraint>,
    #[allow(dead_code)] // where the declaration stands, for diagnostics
    pub loc: Location,
}

#[derive(Debug, Clone)]
pub(crate) struct AttrUse {
    pub decl: AttrId,
    pub required: bool,
    pub vc: Option<ValueConstraint>,
}

/// A namespace constraint of a wildcard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NsCons {
    Any,
    /// Any namespace-qualified name except this namespace (0: no exception but still
    /// qualified); `##other`.
    Not(NsIdx),
    /// One of these (0: unqualified).
    Set(Vec<NsIdx>),
}

impl NsCons {
    pub fn allows(&self, ns: NsIdx) -> bool {
        match self {
            NsCons::Any => true,
            NsCons::Not(x) => ns != 0 && ns != *x,
            NsCons::Set(v) => v.contains(&ns),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Process {
    Strict,
    Lax,
    Skip,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wildcard {
    pub ns: NsCons,
    pub process: Process,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compositor {
    Sequence,
    Choice,
    All,
}

#[derive(Debug, Clone)]
pub(crate) enum Term {
    Element(ElemId),
    Wildcard(Box<Wildcard>),
    Group(Compositor, Vec<Particle>),
}

/// `max == u32::MAX` is `unbounded`.
#[derive(Debug, Clone)]
pub(crate) struct Particle {
    pub min: u32,
    pub max: u32,
    pub term: Term,
    /// The schema particle this came from (a group referenced twice shares its inner
    /// particles' ids): positions of one source particle may compete (UPA).
    pub id: u32,
}

pub(crate) const UNBOUNDED: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub(crate) enum Content {
    Empty,
    Simple(TypeId),
    /// A content model (its automaton's index) and whether it is mixed.
    Elements {
        particle: Particle,
        mixed: bool,
        automaton: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Derivation {
    Restriction,
    Extension,
    List,
    Union,
}

/// Which built-in ID-family type governs a simple value (`cvc-id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdKind {
    None,
    Id,
    IdRef,
    IdRefs,
    /// A union (or a restriction of one) with a member of the ID family: the member
    /// that validates the value decides (§3.15.5 looks at the actual member type).
    Union,
}

#[derive(Debug, Clone)]
pub(crate) struct SimpleDef {
    pub st: SimpleType,
    pub id_kind: IdKind,
    /// The type is or derives from `QName` or `NOTATION` (values need the element's
    /// namespace context), or is a union/list with such a member.
    pub needs_ns: bool,
    #[allow(dead_code)] // NOTATION values are checked by the enumeration the type must carry
    pub is_notation: bool,
    /// A union's member type definitions (inherited by its restrictions); empty otherwise.
    pub members: Vec<TypeId>,
}

#[derive(Debug, Clone)]
pub(crate) struct ComplexDef {
    pub attrs: Vec<AttrUse>,
    pub attr_wildcard: Option<Wildcard>,
    pub content: Content,
}

#[derive(Debug, Clone)]
pub(crate) enum TypeBody {
    Simple(SimpleDef),
    Complex(ComplexDef),
    /// Not built yet (or failed).
    Pending,
}

#[derive(Debug, Clone)]
pub(crate) struct TypeDef {
    pub name: Option<NameId>,
    pub base: TypeId,
    pub derivation: Derivation,
    pub abstract_: bool,
    pub final_: u8,
    pub block: u8,
    pub body: TypeBody,
    pub loc: Location,
}

impl TypeDef {
    pub fn is_simple(&self) -> bool {
        matches!(self.body, TypeBody::Simple(_))
    }
    pub fn simple(&self) -> Option<&SimpleDef> {
        match &self.body {
            TypeBody::Simple(s) => Some(s),
            _ => None,
        }
    }
    pub fn complex(&self) -> Option<&ComplexDef> {
        match &self.body {
            TypeBody::Complex(c) => Some(c),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IcKind {
    Unique,
    Key,
    KeyRef(IcId),
}

/// One step of a selector or field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NameTest {
    Any,
    /// `p:*`
    Ns(NsIdx),
    Name(NameId),
}

/// A path of the §3.11.6 subset: `(.//)? step (/ step)* (/@attr)?`.
#[derive(Debug, Clone)]
pub(crate) struct IcPath {
    pub descendant: bool,
    /// `None` is `.`.
    pub steps: Vec<Option<NameTest>>,
    pub attribute: Option<NameTest>,
}

#[derive(Debug, Clone)]
pub(crate) struct IdentityConstraint {
    pub name: NameId,
    pub kind: IcKind,
    pub selector: Vec<IcPath>,
    pub fields: Vec<Vec<IcPath>>,
    #[allow(dead_code)] // where the constraint stands, for diagnostics
    pub loc: Location,
}
