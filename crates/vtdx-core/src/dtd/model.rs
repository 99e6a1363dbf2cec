//! The DTD model: what a document type declaration records (entity,
//! attribute-list and notation declarations) and the name lookups over it.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

/// A parsed document type declaration.
#[derive(Debug, Clone, Default)]
pub struct Dtd {
    /// The root element type from `<!DOCTYPE name ...>`.
    pub name: String,
    /// The public identifier of the external subset, with white space
    /// normalized as §4.2.2 requires before matching.
    pub public_id: Option<String>,
    /// The system identifier of the external subset. It is never fetched.
    pub system_id: Option<String>,
    /// The whole `<!DOCTYPE ... >` in the text.
    pub span: Range<usize>,
    /// The internal subset: the bytes between `[` and `]`.
    pub internal_subset: Option<Range<usize>>,
    /// General entities, in declaration order, duplicates dropped (the first
    /// binding wins, §4.2).
    pub entities: Vec<EntityDecl>,
    /// Parameter entities, in declaration order, duplicates dropped.
    pub parameter_entities: Vec<EntityDecl>,
    /// Every attribute definition; the first definition of an (element,
    /// attribute) pair wins.
    pub attributes: Vec<AttDecl>,
    /// Notation declarations, duplicates dropped.
    pub notations: Vec<NotationDecl>,
    /// True when WFC "Entity Declared" applies to the document: there is no
    /// external subset and no parameter-entity reference in the internal
    /// subset, or standalone="yes".
    pub entities_complete: bool,
    /// True when entity/attlist declarations after a reference to an unread
    /// (external) parameter entity were not processed (§5.1); callers then must
    /// not treat undeclared entities as errors.
    pub skipped_declarations: bool,
    /// Name lookup tables kept in step with the vectors above by
    /// [`parse_doctype`](super::parse_doctype). If the vectors are changed by hand the lookups fall
    /// back to linear search (or call [`Dtd::reindex`]).
    #[doc(hidden)]
    pub index: DtdIndex,
}

/// Lookup tables of a [`Dtd`] (an implementation detail).
#[derive(Clone, Default)]
pub struct DtdIndex {
    entities: HashMap<Box<str>, usize>,
    parameter_entities: HashMap<Box<str>, usize>,
    attributes: HashMap<Box<str>, Vec<usize>>,
    /// Lengths of (entities, parameter_entities, attributes) the maps describe.
    indexed: (usize, usize, usize),
}

impl fmt::Debug for DtdIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DtdIndex { .. }")
    }
}

/// An entity declaration (§4.2).
#[derive(Debug, Clone)]
pub struct EntityDecl {
    /// The entity name (without `%` for parameter entities).
    pub name: String,
    /// Its value.
    pub value: EntityValue,
    /// Offset of the `<!ENTITY` in the text (or of the parameter-entity
    /// reference whose replacement text held the declaration).
    pub decl_offset: usize,
}

/// The value of an entity.
#[derive(Debug, Clone)]
pub enum EntityValue {
    /// Replacement text (§4.5): the literal with character references and (for
    /// parameter entities) PE references replaced; general entity references
    /// left as `&name;` text (bypassed). Line ends are already normalized.
    Internal(String),
    /// An external entity; never fetched.
    External {
        /// The public identifier, if any (white space normalized).
        public_id: Option<String>,
        /// The system identifier.
        system_id: String,
        /// `Some` for an unparsed entity (`NDATA`).
        notation: Option<String>,
    },
}

/// One attribute definition from an attribute-list declaration (§3.3).
#[derive(Debug, Clone)]
pub struct AttDecl {
    /// The element type.
    pub element: String,
    /// The attribute name.
    pub name: String,
    /// The declared type.
    pub ty: AttType,
    /// The default declaration.
    pub default: AttDefault,
    /// Offset of the `<!ATTLIST` in the text (or of the parameter-entity
    /// reference whose replacement text held the declaration).
    pub decl_offset: usize,
    /// For a `#FIXED` or default value: the value normalized for the declared
    /// type (§3.3.3), which is what an attribute defaulted from this
    /// declaration reads as. Set by [`parse_doctype`](super::parse_doctype) once the whole internal
    /// subset is read; `None` for `#REQUIRED` and `#IMPLIED` (and in a
    /// declaration made by hand).
    pub value: Option<String>,
    /// Bytes that entity references in the default value produce when it is
    /// normalized: the parser charges them to the document's entity-expansion
    /// budget each time the default applies to an element.
    pub value_expansion: u64,
}

/// Attribute types (§3.3.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttType {
    /// `CDATA`: any string. Its normalized value (§3.3.3) keeps every space.
    Cdata,
    /// `ID`: a name identifying the element. The normalized value of this and
    /// every type below has leading and trailing spaces dropped and runs of
    /// spaces collapsed to one (§3.3.3).
    Id,
    /// `IDREF`: a name referring to an `ID`.
    IdRef,
    /// `IDREFS`: space-separated names referring to `ID`s.
    IdRefs,
    /// `ENTITY`: the name of an unparsed entity.
    Entity,
    /// `ENTITIES`: space-separated names of unparsed entities.
    Entities,
    /// `NMTOKEN`: one name token.
    NmToken,
    /// `NMTOKENS`: space-separated name tokens.
    NmTokens,
    /// `NOTATION (a | b)`: one of the listed notation names, in declaration
    /// order as written.
    Notation(Vec<String>),
    /// `(a | b)`: one of the listed name tokens, in declaration order as
    /// written.
    Enumeration(Vec<String>),
}

/// Attribute defaults (§3.3.2). The string is the raw literal content between
/// the quotes, not normalized; normalize it with [`normalize_attribute_value`](super::normalize_attribute_value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttDefault {
    /// `#REQUIRED`: the attribute must be given; there is no default.
    Required,
    /// `#IMPLIED`: no default; an element without the attribute has none.
    Implied,
    /// `#FIXED "v"`: the attribute always has this value, given or not.
    Fixed(String),
    /// `"v"`: the value when the attribute is not given.
    Default(String),
}

/// A notation declaration (§4.7).
#[derive(Debug, Clone)]
pub struct NotationDecl {
    /// The notation name.
    pub name: String,
    /// The public identifier, if any, with white space normalized (§4.2.2).
    pub public_id: Option<String>,
    /// The system identifier, if any: a notation declared `PUBLIC` may omit it
    /// (production \[83\] `PublicID`). Never fetched.
    pub system_id: Option<String>,
}

fn find_decl<'a>(list: &'a [EntityDecl], map: &HashMap<Box<str>, usize>, indexed: usize, name: &str) -> Option<&'a EntityDecl> {
    if indexed == list.len() {
        match map.get(name) {
            None => return None,
            Some(&i) => {
                if let Some(d) = list.get(i) {
                    if d.name == name {
                        return Some(d);
                    }
                }
            }
        }
    }
    list.iter().find(|d| d.name == name)
}

impl Dtd {
    /// The general entity `name`, if declared (and processed).
    pub fn entity(&self, name: &str) -> Option<&EntityDecl> {
        find_decl(&self.entities, &self.index.entities, self.index.indexed.0, name)
    }

    /// The parameter entity `name` (without `%`), if declared (and processed).
    pub fn parameter_entity(&self, name: &str) -> Option<&EntityDecl> {
        find_decl(&self.parameter_entities, &self.index.parameter_entities, self.index.indexed.1, name)
    }

    /// The definition of attribute `attr` of element type `element`.
    pub fn attribute(&self, element: &str, attr: &str) -> Option<&AttDecl> {
        let matches = |a: &&AttDecl| a.element == element && a.name == attr;
        if self.index.indexed.2 == self.attributes.len() {
            let list = self.index.attributes.get(element)?;
            if let Some(a) = list.iter().filter_map(|&i| self.attributes.get(i)).find(matches) {
                return Some(a);
            }
            // an entry changed in place; fall through to the linear search
            if list.iter().all(|&i| self.attributes.get(i).is_some_and(|a| a.element == element)) {
                return None;
            }
        }
        self.attributes.iter().find(matches)
    }

    /// All attribute definitions of element type `element`, in declaration order.
    pub fn attributes_of<'a>(&'a self, element: &'a str) -> impl Iterator<Item = &'a AttDecl> + 'a {
        let none: &'a [usize] = &[];
        let no_atts: &'a [AttDecl] = &[];
        let (indexed, linear) = if self.index.indexed.2 == self.attributes.len() {
            let v = self.index.attributes.get(element).map_or(none, |v| v.as_slice());
            (v, no_atts)
        } else {
            (none, self.attributes.as_slice())
        };
        indexed.iter().filter_map(move |&i| self.attributes.get(i)).chain(linear.iter()).filter(move |a| a.element == element)
    }

    /// Whether an undeclared general entity reference is a well-formedness error.
    pub fn undeclared_is_error(&self) -> bool {
        self.entities_complete
    }

    /// Rebuilds the lookup tables after the public vectors were changed by hand.
    pub fn reindex(&mut self) {
        let mut index = DtdIndex::default();
        for (i, d) in self.entities.iter().enumerate() {
            index.entities.entry(d.name.as_str().into()).or_insert(i);
        }
        for (i, d) in self.parameter_entities.iter().enumerate() {
            index.parameter_entities.entry(d.name.as_str().into()).or_insert(i);
        }
        for (i, a) in self.attributes.iter().enumerate() {
            index.attributes.entry(a.element.as_str().into()).or_default().push(i);
        }
        index.indexed = (self.entities.len(), self.parameter_entities.len(), self.attributes.len());
        self.index = index;
    }

    /// Records a general entity unless one of that name exists (first binding wins).
    pub(super) fn add_entity(&mut self, decl: EntityDecl) {
        if self.index.entities.contains_key(decl.name.as_str()) {
            return;
        }
        self.index.entities.insert(decl.name.as_str().into(), self.entities.len());
        self.entities.push(decl);
        self.index.indexed.0 = self.entities.len();
    }

    pub(super) fn add_parameter_entity(&mut self, decl: EntityDecl) {
        if self.index.parameter_entities.contains_key(decl.name.as_str()) {
            return;
        }
        self.index.parameter_entities.insert(decl.name.as_str().into(), self.parameter_entities.len());
        self.parameter_entities.push(decl);
        self.index.indexed.1 = self.parameter_entities.len();
    }

    pub(super) fn add_attribute(&mut self, decl: AttDecl) {
        self.index.attributes.entry(decl.element.as_str().into()).or_default().push(self.attributes.len());
        self.attributes.push(decl);
        self.index.indexed.2 = self.attributes.len();
    }
}
