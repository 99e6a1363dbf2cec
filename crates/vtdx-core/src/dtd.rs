//! The document type declaration: `<!DOCTYPE ...>` and its internal subset
//! (XML 1.0 Fifth Edition §2.8, §3.2–§3.4, §4.1–§4.7), and attribute-value
//! normalization (§3.3.3).
//!
//! The internal subset is checked against the full grammar of markup
//! declarations (element type, attribute-list, entity and notation
//! declarations, processing instructions and comments) and the
//! well-formedness constraints that apply to it. Content models are checked
//! but not recorded. Entity, attribute-list and notation declarations are
//! recorded in a [`Dtd`].
//!
//! An external subset or external parameter entity is never fetched. Following
//! §5.1, once a reference to a parameter entity that is not read (external or
//! undeclared) has been seen, later entity and attribute-list declarations are
//! still checked but no longer recorded (unless the document is standalone),
//! and [`Dtd::skipped_declarations`] is set.
//!
//! Replacement texts ([`EntityValue::Internal`]) are stored with line ends
//! already normalized (§2.11): a literal CR LF pair or lone CR in the entity
//! value becomes one LF, while a CR produced by a character reference such as
//! `&#13;` is kept as CR. Consumers must therefore not normalize line ends in
//! replacement text again.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::ops::Range;

use crate::chars::{is_ws, is_xml_char, scan_name, scan_nmtoken, skip_ws};
use crate::error::{describe_at, Error, ErrorKind, LimitKind};
use crate::options::{ExternalPolicy, ParseOptions};

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
    /// [`parse_doctype`]. If the vectors are changed by hand the lookups fall
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
    /// declaration reads as. Set by [`parse_doctype`] once the whole internal
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
    Cdata,
    Id,
    IdRef,
    IdRefs,
    Entity,
    Entities,
    NmToken,
    NmTokens,
    Notation(Vec<String>),
    Enumeration(Vec<String>),
}

/// Attribute defaults (§3.3.2). The string is the raw literal content between
/// the quotes, not normalized; normalize it with [`normalize_attribute_value`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttDefault {
    Required,
    Implied,
    Fixed(String),
    Default(String),
}

/// A notation declaration (§4.7).
#[derive(Debug, Clone)]
pub struct NotationDecl {
    pub name: String,
    pub public_id: Option<String>,
    pub system_id: Option<String>,
}

fn find_decl<'a>(
    list: &'a [EntityDecl],
    map: &HashMap<Box<str>, usize>,
    indexed: usize,
    name: &str,
) -> Option<&'a EntityDecl> {
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
        find_decl(
            &self.parameter_entities,
            &self.index.parameter_entities,
            self.index.indexed.1,
            name,
        )
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
        indexed
            .iter()
            .filter_map(move |&i| self.attributes.get(i))
            .chain(linear.iter())
            .filter(move |a| a.element == element)
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
    fn add_entity(&mut self, decl: EntityDecl) {
        if self.index.entities.contains_key(decl.name.as_str()) {
            return;
        }
        self.index.entities.insert(decl.name.as_str().into(), self.entities.len());
        self.entities.push(decl);
        self.index.indexed.0 = self.entities.len();
    }

    fn add_parameter_entity(&mut self, decl: EntityDecl) {
        if self.index.parameter_entities.contains_key(decl.name.as_str()) {
            return;
        }
        self.index
            .parameter_entities
            .insert(decl.name.as_str().into(), self.parameter_entities.len());
        self.parameter_entities.push(decl);
        self.index.indexed.1 = self.parameter_entities.len();
    }

    fn add_attribute(&mut self, decl: AttDecl) {
        self.index
            .attributes
            .entry(decl.element.as_str().into())
            .or_default()
            .push(self.attributes.len());
        self.attributes.push(decl);
        self.index.indexed.2 = self.attributes.len();
    }
}

/// Counts bytes produced by entity expansion against the limits, for one document.
#[derive(Debug, Clone)]
pub struct ExpansionBudget {
    /// Bytes charged so far.
    pub used: u64,
    /// [`crate::Limits::max_entity_expansion_bytes`].
    pub max_bytes: u64,
    /// [`crate::Limits::max_entity_amplification`].
    pub max_amplification: u32,
    /// Length of the document, the base of the amplification ratio.
    pub doc_len: u64,
    /// [`crate::Limits::max_entity_depth`].
    pub max_depth: u32,
}

/// Expansion below this many bytes is never refused for amplification.
const AMPLIFICATION_THRESHOLD: u64 = 65_536;

impl ExpansionBudget {
    /// A fresh budget for a document of `doc_len` bytes.
    pub fn new(opts: &ParseOptions, doc_len: usize) -> Self {
        ExpansionBudget {
            used: 0,
            max_bytes: opts.limits.max_entity_expansion_bytes,
            max_amplification: opts.limits.max_entity_amplification,
            doc_len: doc_len as u64,
            max_depth: opts.limits.max_entity_depth,
        }
    }

    /// Adds `n` expanded bytes; `Err(LimitExceeded EntityExpansionBytes or
    /// EntityAmplification)` past the limits. Amplification (used /
    /// max(doc_len, 1)) is only checked once used > 65,536. The error is
    /// reported at `offset` in `text`.
    pub fn charge(&mut self, n: usize, text: &[u8], offset: usize) -> Result<(), Error> {
        self.used = self.used.saturating_add(n as u64);
        if self.used > self.max_bytes {
            return Err(Error::at(
                ErrorKind::LimitExceeded {
                    limit: LimitKind::EntityExpansionBytes,
                    value: self.used,
                    max: self.max_bytes,
                },
                text,
                offset,
            ));
        }
        if self.used > AMPLIFICATION_THRESHOLD {
            let base = self.doc_len.max(1);
            if self.used / base > self.max_amplification as u64 {
                return Err(Error::at(
                    ErrorKind::LimitExceeded {
                        limit: LimitKind::EntityAmplification,
                        value: self.used / base,
                        max: self.max_amplification as u64,
                    },
                    text,
                    offset,
                ));
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Shared lexical helpers

/// The predefined entities (XML 1.0 §4.6) and their characters.
pub(crate) const PREDEFINED: [(&str, char); 5] =
    [("amp", '&'), ("lt", '<'), ("gt", '>'), ("apos", '\''), ("quot", '"')];

fn predefined(name: &str) -> Option<char> {
    PREDEFINED.iter().find(|(n, _)| *n == name).map(|&(_, c)| c)
}

/// Parses a character reference; `b[i..]` starts with `&#`. Returns the
/// character and the offset after `;`, or the offset and kind of the error.
fn parse_char_ref(b: &[u8], i: usize) -> Result<(char, usize), (usize, ErrorKind)> {
    let mut j = i + 2;
    let hex = b.get(j) == Some(&b'x');
    if hex {
        j += 1;
    }
    let digits = j;
    let mut v: u32 = 0;
    while let Some(&c) = b.get(j) {
        let d = if hex { (c as char).to_digit(16) } else { (c as char).to_digit(10) };
        match d {
            Some(d) => {
                v = v.saturating_mul(if hex { 16 } else { 10 }).saturating_add(d);
                j += 1;
            }
            None => break,
        }
    }
    if j == digits {
        let expected = if hex {
            "hexadecimal digits after `&#x` in the character reference"
        } else {
            "decimal digits or `x` after `&#` in the character reference"
        };
        return Err((j, ErrorKind::Unexpected { expected, found: describe_at(b, j) }));
    }
    if b.get(j) != Some(&b';') {
        return Err((
            j,
            ErrorKind::Unexpected {
                expected: "`;` to end the character reference",
                found: describe_at(b, j),
            },
        ));
    }
    match char::from_u32(v).filter(|c| is_xml_char(*c as u32)) {
        Some(c) => Ok((c, j + 1)),
        None => Err((
            i,
            ErrorKind::InvalidCharRef { text: String::from_utf8_lossy(&b[i..=j]).into_owned() },
        )),
    }
}

/// Scans `&Name;` where `b[i] == b'&'` and `b[i + 1] != b'#'`. Returns the end
/// of the name (the offset of `;`).
fn scan_entity_ref(b: &[u8], i: usize) -> Result<usize, (usize, ErrorKind)> {
    let Some(e) = scan_name(b, i + 1) else {
        return Err((
            i + 1,
            ErrorKind::Unexpected {
                expected: "an entity name or `#` after `&`",
                found: describe_at(b, i + 1),
            },
        ));
    };
    if b.get(e) != Some(&b';') {
        return Err((
            e,
            ErrorKind::Unexpected {
                expected: "`;` to end the entity reference",
                found: describe_at(b, e),
            },
        ));
    }
    Ok(e)
}

fn lossy(b: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(b)
}

fn is_pubid_char(b: u8) -> bool {
    b == b' '
        || b == b'\r'
        || b == b'\n'
        || b.is_ascii_alphanumeric()
        || b"-'()+,./:=?;!*#@$_%".contains(&b)
}

// ---------------------------------------------------------------------------
// Attribute-value normalization

/// Attribute-value normalization (§3.3.3) of a raw attribute value (the bytes
/// between the quotes, from the document or a default literal).
///
/// Character references become the character; references to declared internal
/// general entities become their replacement text, normalized recursively; the
/// five predefined entities always work. A literal white space character
/// becomes a space, where a CR LF pair or lone CR in `raw` counts as one line
/// end. When `cdata` is false, leading and trailing spaces are then dropped and
/// runs of spaces collapsed to one.
///
/// Errors: a literal `<` (Unexpected); an entity whose replacement text
/// contains `<` (WFC: No < in Attribute Values); an external or unparsed entity
/// (ForbiddenEntityReference); an undeclared entity when
/// `dtd.map_or(true, |d| d.entities_complete)` (otherwise the reference is
/// dropped); recursion (RecursiveEntity); the expansion budget and entity
/// depth. `raw_offset` is the offset of `raw[0]` in `text`; errors inside
/// replacement text are reported at the outermost reference. `depth` is the
/// entity nesting depth the value itself occurs at.
///
/// Returns `Cow::Borrowed` when nothing changed.
pub fn normalize_attribute_value<'r>(
    raw: &'r str,
    text: &[u8],
    raw_offset: usize,
    dtd: Option<&Dtd>,
    cdata: bool,
    budget: &mut ExpansionBudget,
    depth: u32,
) -> Result<Cow<'r, str>, Error> {
    let b = raw.as_bytes();
    let mut needs_expansion = false;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'<' => return Err(less_than_error(text, raw_offset + i)),
            b'&' | b'\t' | b'\n' | b'\r' => {
                needs_expansion = true;
                break;
            }
            _ => {}
        }
    }
    if !needs_expansion {
        if cdata || !needs_collapse(raw) {
            return Ok(Cow::Borrowed(raw));
        }
        return Ok(Cow::Owned(collapse_spaces(raw)));
    }
    let mut out = String::with_capacity(raw.len());
    let mut n = Normalizer {
        text,
        raw_offset,
        dtd,
        complete: dtd.is_none_or(|d| d.entities_complete),
        budget,
        depth,
        stack: Vec::new(),
    };
    n.expand(raw, None, &mut out)?;
    if !cdata && needs_collapse(&out) {
        out = collapse_spaces(&out);
    }
    Ok(Cow::Owned(out))
}

fn less_than_error(text: &[u8], offset: usize) -> Error {
    Error::at(
        ErrorKind::Unexpected {
            expected: "an attribute value character (`<` must be written `&lt;`)",
            found: "`<`".to_string(),
        },
        text,
        offset,
    )
}

fn needs_collapse(s: &str) -> bool {
    s.starts_with(' ') || s.ends_with(' ') || s.contains("  ")
}

fn collapse_spaces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for part in s.split(' ').filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

struct Normalizer<'d, 'b> {
    text: &'d [u8],
    raw_offset: usize,
    dtd: Option<&'d Dtd>,
    complete: bool,
    budget: &'b mut ExpansionBudget,
    depth: u32,
    stack: Vec<&'d str>,
}

impl<'d> Normalizer<'d, '_> {
    /// Appends the normalized form of `s` to `out`. `at` is `None` for the raw
    /// value (offsets relative to `raw_offset`, line ends not yet normalized)
    /// and `Some(offset of the outermost reference)` inside replacement text.
    fn expand(&mut self, s: &str, at: Option<usize>, out: &mut String) -> Result<(), Error> {
        let b = s.as_bytes();
        let mut i = 0;
        let mut run = 0;
        while i < b.len() {
            match b[i] {
                b'<' => {
                    return Err(match (at, self.stack.last()) {
                        (Some(off), Some(name)) => Error::at(
                            ErrorKind::ForbiddenEntityReference {
                                name: name.to_string(),
                                reason: "its replacement text contains `<`, which an attribute value must not (wfc: no < in attribute values)",
                            },
                            self.text,
                            off,
                        ),
                        _ => less_than_error(self.text, self.pos(at, i)),
                    });
                }
                b'\t' | b'\n' | b'\r' => {
                    out.push_str(&s[run..i]);
                    out.push(' ');
                    if b[i] == b'\r' && at.is_none() && b.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    i += 1;
                    run = i;
                }
                b'&' => {
                    out.push_str(&s[run..i]);
                    i = self.reference(s, i, at, out)?;
                    run = i;
                }
                _ => i += 1,
            }
        }
        out.push_str(&s[run..]);
        Ok(())
    }

    fn pos(&self, at: Option<usize>, i: usize) -> usize {
        at.unwrap_or(self.raw_offset + i)
    }

    fn reference(
        &mut self,
        s: &str,
        i: usize,
        at: Option<usize>,
        out: &mut String,
    ) -> Result<usize, Error> {
        let b = s.as_bytes();
        if b.get(i + 1) == Some(&b'#') {
            return match parse_char_ref(b, i) {
                Ok((c, end)) => {
                    out.push(c);
                    Ok(end)
                }
                Err((j, kind)) => Err(Error::at(kind, self.text, self.pos(at, j))),
            };
        }
        let e = scan_entity_ref(b, i)
            .map_err(|(j, kind)| Error::at(kind, self.text, self.pos(at, j)))?;
        let name = &s[i + 1..e];
        if let Some(c) = predefined(name) {
            out.push(c);
            return Ok(e + 1);
        }
        let ref_pos = self.pos(at, i);
        let dtd = self.dtd;
        let Some(decl) = dtd.and_then(|d| d.entity(name)) else {
            if self.complete {
                return Err(Error::at(
                    ErrorKind::UndeclaredEntity { name: name.to_string() },
                    self.text,
                    ref_pos,
                ));
            }
            return Ok(e + 1);
        };
        match &decl.value {
            EntityValue::External { notation: Some(_), .. } => Err(Error::at(
                ErrorKind::ForbiddenEntityReference {
                    name: name.to_string(),
                    reason: "unparsed entity in attribute value (wfc: parsed entity)",
                },
                self.text,
                ref_pos,
            )),
            EntityValue::External { .. } => Err(Error::at(
                ErrorKind::ForbiddenEntityReference {
                    name: name.to_string(),
                    reason:
                        "external entity in attribute value (wfc: no external entity references)",
                },
                self.text,
                ref_pos,
            )),
            EntityValue::Internal(replacement) => {
                if self.stack.contains(&decl.name.as_str()) {
                    return Err(Error::at(
                        ErrorKind::RecursiveEntity { name: name.to_string() },
                        self.text,
                        ref_pos,
                    ));
                }
                let level = self.depth as u64 + self.stack.len() as u64 + 1;
                if level > self.budget.max_depth as u64 {
                    return Err(Error::at(
                        ErrorKind::LimitExceeded {
                            limit: LimitKind::EntityDepth,
                            value: level,
                            max: self.budget.max_depth as u64,
                        },
                        self.text,
                        ref_pos,
                    ));
                }
                self.budget.charge(replacement.len(), self.text, ref_pos)?;
                self.stack.push(decl.name.as_str());
                self.expand(replacement, Some(ref_pos), out)?;
                self.stack.pop();
                Ok(e + 1)
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The DOCTYPE parser

/// Parses the document type declaration starting at `start` (`text[start..]`
/// begins with `<!DOCTYPE`). `standalone` is the XML declaration's
/// standalone="yes". Returns the Dtd and the offset just after the closing `>`.
pub fn parse_doctype(
    text: &[u8],
    start: usize,
    standalone: bool,
    opts: &ParseOptions,
    budget: &mut ExpansionBudget,
) -> Result<(Dtd, usize), Error> {
    let mut p = DtdParser {
        text,
        opts,
        budget,
        standalone,
        dtd: Dtd::default(),
        skipping: false,
        pe_stack: Vec::new(),
        att_seen: HashSet::new(),
        notation_seen: HashSet::new(),
    };
    let end = p.doctype(start)?;
    let mut dtd = p.dtd;
    dtd.span = start..end;
    normalize_defaults(&mut dtd, text, opts)?;
    Ok((dtd, end))
}

/// Fills [`AttDecl::value`] and [`AttDecl::value_expansion`] of every
/// declaration with a default, once all entities are known. The bytes entity
/// expansion produces were charged to the document's budget when the
/// declaration was read; the parser charges them again for every element the
/// default applies to.
fn normalize_defaults(dtd: &mut Dtd, text: &[u8], opts: &ParseOptions) -> Result<(), Error> {
    let mut values = Vec::new();
    for (i, a) in dtd.attributes.iter().enumerate() {
        let raw = match &a.default {
            AttDefault::Default(v) | AttDefault::Fixed(v) => v.as_str(),
            _ => continue,
        };
        let cdata = a.ty == AttType::Cdata;
        let mut scratch = ExpansionBudget::new(opts, text.len());
        let value = normalize_attribute_value(raw, text, a.decl_offset, Some(dtd), cdata, &mut scratch, 0)?.into_owned();
        let expansion = scratch.used;
        values.push((i, value, expansion));
    }
    for (i, v, x) in values {
        dtd.attributes[i].value = Some(v);
        dtd.attributes[i].value_expansion = x;
    }
    Ok(())
}

/// The bytes being parsed: the document, or the replacement text of an
/// internal parameter entity referenced in the internal subset.
#[derive(Clone, Copy)]
struct Src<'s> {
    b: &'s [u8],
    /// For replacement text: the offset in the document of the outermost
    /// parameter-entity reference, where all errors are reported. Replacement
    /// text has normalized line ends.
    ref_off: Option<usize>,
    /// For replacement text: the name of that outermost parameter entity.
    pe_name: &'s str,
}

struct DtdParser<'t, 'b> {
    text: &'t [u8],
    opts: &'t ParseOptions,
    budget: &'b mut ExpansionBudget,
    standalone: bool,
    dtd: Dtd,
    /// After a reference to a parameter entity that was not read (§5.1).
    skipping: bool,
    /// Parameter entities being expanded (recursion check).
    pe_stack: Vec<String>,
    att_seen: HashSet<(String, String)>,
    notation_seen: HashSet<String>,
}

fn token(b: &[u8], pos: usize) -> Option<(&str, usize)> {
    let end = scan_name(b, pos)?;
    std::str::from_utf8(&b[pos..end]).ok().map(|s| (s, end))
}

impl<'t> DtdParser<'t, '_> {
    // ---- errors

    fn err(&self, src: &Src, pos: usize, kind: ErrorKind) -> Error {
        match src.ref_off {
            None => Error::at(kind, self.text, pos),
            Some(r) => {
                let kind = match kind {
                    ErrorKind::UnexpectedEof { expected } => ErrorKind::Dtd {
                        detail: format!(
                            "the replacement text of parameter entity `%{};` ends inside a markup declaration: expected {expected}",
                            src.pe_name
                        ),
                    },
                    ErrorKind::Dtd { detail } => ErrorKind::Dtd {
                        detail: format!(
                            "in the replacement text of parameter entity `%{};`: {detail}",
                            src.pe_name
                        ),
                    },
                    k => k,
                };
                Error::at(kind, self.text, r)
            }
        }
    }

    fn dtd_err(&self, src: &Src, pos: usize, detail: String) -> Error {
        self.err(src, pos, ErrorKind::Dtd { detail })
    }

    /// "expected `what`" at `pos`: end of input, a misplaced parameter-entity
    /// reference, or some other character.
    fn expected(&self, src: &Src, pos: usize, what: &'static str) -> Error {
        let kind = match src.b.get(pos) {
            None => ErrorKind::UnexpectedEof { expected: what },
            Some(b'%') => ErrorKind::Dtd {
                detail: format!(
                    "expected {what}, found a parameter-entity reference; in the internal subset they may occur only between markup declarations (wfc: pes in internal subset)"
                ),
            },
            Some(_) => ErrorKind::Dtd {
                detail: format!("expected {what}, found {}", describe_at(src.b, pos)),
            },
        };
        self.err(src, pos, kind)
    }

    /// Re-homes an error computed against `src.b` (by attribute-value
    /// normalization) into the document.
    fn remap(&self, src: &Src, e: Error) -> Error {
        match src.ref_off {
            None => e,
            Some(_) => self.err(src, 0, e.kind().clone()),
        }
    }

    fn decl_offset(src: &Src, pos: usize) -> usize {
        src.ref_off.unwrap_or(pos)
    }

    // ---- lexical pieces

    /// Requires at least one white space character at `pos`; returns the
    /// offset after the white space.
    fn req_ws(&self, src: &Src, pos: usize, what: &'static str) -> Result<usize, Error> {
        match src.b.get(pos) {
            Some(&c) if is_ws(c) => Ok(skip_ws(src.b, pos)),
            _ => Err(self.expected(src, pos, what)),
        }
    }

    fn name<'s>(
        &self,
        src: &Src<'s>,
        pos: usize,
        what: &'static str,
    ) -> Result<(&'s str, usize), Error> {
        let Some(end) = scan_name(src.b, pos) else {
            return Err(self.expected(src, pos, what));
        };
        self.check_len(src, pos, end)?;
        match std::str::from_utf8(&src.b[pos..end]) {
            Ok(s) => Ok((s, end)),
            Err(_) => Err(self.err(src, pos, ErrorKind::InvalidUtf8)),
        }
    }

    fn check_len(&self, src: &Src, pos: usize, end: usize) -> Result<(), Error> {
        let max = self.opts.limits.max_name_len as u64;
        let len = (end - pos) as u64;
        if len > max {
            return Err(self.err(
                src,
                pos,
                ErrorKind::LimitExceeded { limit: LimitKind::NameLength, value: len, max },
            ));
        }
        Ok(())
    }

    /// Namespaces in XML 1.0 §7: entity names, PI targets and notation names
    /// contain no colon.
    fn check_no_colon(&self, src: &Src, pos: usize, name: &str) -> Result<(), Error> {
        if self.opts.namespaces && name.contains(':') {
            return Err(self.err(src, pos, ErrorKind::InvalidName { name: name.to_string() }));
        }
        Ok(())
    }

    /// A quoted literal at `pos`; returns the content range and the offset
    /// after the closing quote.
    fn literal(
        &self,
        src: &Src,
        pos: usize,
        what: &'static str,
    ) -> Result<(Range<usize>, usize), Error> {
        let q = match src.b.get(pos) {
            Some(&q @ (b'"' | b'\'')) => q,
            _ => return Err(self.expected(src, pos, what)),
        };
        match memchr::memchr(q, &src.b[pos + 1..]) {
            Some(k) => Ok((pos + 1..pos + 1 + k, pos + 2 + k)),
            None => Err(self.err(
                src,
                src.b.len(),
                ErrorKind::UnexpectedEof { expected: "the closing quote of a literal" },
            )),
        }
    }

    fn system_literal(&self, src: &Src, pos: usize) -> Result<(String, usize), Error> {
        let (r, end) = self.literal(src, pos, "a quoted system literal")?;
        Ok((lossy(&src.b[r]).into_owned(), end))
    }

    fn pubid_literal(&self, src: &Src, pos: usize) -> Result<(String, usize), Error> {
        let (r, end) = self.literal(src, pos, "a quoted public identifier")?;
        for i in r.clone() {
            let c = src.b[i];
            if !is_pubid_char(c) {
                return Err(self.dtd_err(
                    src,
                    i,
                    format!("{} is not allowed in a public identifier", describe_at(src.b, i)),
                ));
            }
        }
        // §4.2.2: white space normalized before matching
        let raw = lossy(&src.b[r]);
        let norm: Vec<&str> = raw.split([' ', '\r', '\n']).filter(|p| !p.is_empty()).collect();
        Ok((norm.join(" "), end))
    }

    /// ExternalID (or, for notations, PublicID) at `pos`, which starts with
    /// `SYSTEM` or `PUBLIC`.
    fn external_id(
        &self,
        src: &Src,
        pos: usize,
        notation: bool,
    ) -> Result<(Option<String>, Option<String>, usize), Error> {
        let (kw, p) = token(src.b, pos).unwrap_or(("", pos));
        match kw {
            "SYSTEM" => {
                let p = self.req_ws(src, p, "whitespace after `SYSTEM`")?;
                let (sys, p) = self.system_literal(src, p)?;
                Ok((None, Some(sys), p))
            }
            "PUBLIC" => {
                let p = self.req_ws(src, p, "whitespace after `PUBLIC`")?;
                let (public, p) = self.pubid_literal(src, p)?;
                if notation {
                    let q = skip_ws(src.b, p);
                    if q > p && matches!(src.b.get(q), Some(b'"' | b'\'')) {
                        let (sys, q) = self.system_literal(src, q)?;
                        return Ok((Some(public), Some(sys), q));
                    }
                    return Ok((Some(public), None, p));
                }
                let p = self.req_ws(
                    src,
                    p,
                    "whitespace and a system literal after the public identifier",
                )?;
                let (sys, p) = self.system_literal(src, p)?;
                Ok((Some(public), Some(sys), p))
            }
            _ => Err(self.expected_keyword(src, pos, "`SYSTEM` or `PUBLIC`")),
        }
    }

    /// With [`ExternalPolicy::Forbid`], the error for the external identifier at
    /// `from..to` of the declaration `what` names.
    fn refuse_external(&self, src: &Src, from: usize, to: usize, what: impl FnOnce() -> String) -> Result<(), Error> {
        if self.opts.external != ExternalPolicy::Forbid {
            return Ok(());
        }
        let identifier = String::from_utf8_lossy(&src.b[from..to.min(src.b.len())]).into_owned();
        let kind = ErrorKind::ExternalReference { what: what(), identifier };
        Err(self.err(src, from, kind))
    }

    /// Like [`Self::expected`], quoting the whole word when a name is found.
    fn expected_keyword(&self, src: &Src, pos: usize, what: &'static str) -> Error {
        match token(src.b, pos) {
            Some((word, _)) => self.dtd_err(src, pos, format!("expected {what}, found `{word}`")),
            None => self.expected(src, pos, what),
        }
    }

    // ---- the declaration

    fn doctype(&mut self, start: usize) -> Result<usize, Error> {
        let text = self.text;
        let src = Src { b: text, ref_off: None, pe_name: "" };
        if !text.get(start..).is_some_and(|t| t.starts_with(b"<!DOCTYPE")) {
            return Err(self.expected(&src, start.min(text.len()), "`<!DOCTYPE`"));
        }
        let mut pos = self.req_ws(&src, start + 9, "whitespace after `<!DOCTYPE`")?;
        let (name, end) = self.name(&src, pos, "the root element type name after `<!DOCTYPE`")?;
        self.dtd.name = name.to_string();
        pos = skip_ws(text, end);
        if let Some((kw, _)) = token(text, pos) {
            if kw != "SYSTEM" && kw != "PUBLIC" {
                return Err(self.dtd_err(
                    &src,
                    pos,
                    format!(
                        "expected `SYSTEM`, `PUBLIC`, `[` or `>` after the document type name, found `{kw}`"
                    ),
                ));
            }
            if pos == end {
                return Err(self.expected(&src, pos, "whitespace before the external identifier"));
            }
            let (public, system, p) = self.external_id(&src, pos, false)?;
            self.refuse_external(&src, pos, p, || "the external DTD subset".to_string())?;
            self.dtd.public_id = public;
            self.dtd.system_id = system;
            pos = skip_ws(text, p);
        }
        self.dtd.entities_complete = self.dtd.system_id.is_none() || self.standalone;
        if text.get(pos) == Some(&b'[') {
            let sub_start = pos + 1;
            let sub_end = self.subset(&src, sub_start, true)?;
            self.dtd.internal_subset = Some(sub_start..sub_end);
            pos = skip_ws(text, sub_end + 1);
            if text.get(pos) != Some(&b'>') {
                return Err(self.expected(&src, pos, "`>` after the internal subset"));
            }
        } else if text.get(pos) != Some(&b'>') {
            return Err(self.expected(
                &src,
                pos,
                "an external identifier, `[` or `>` in the document type declaration",
            ));
        }
        Ok(pos + 1)
    }

    /// `(markupdecl | DeclSep)*` from `pos`. In the document (`in_doc`) it
    /// ends at `]` (returned offset); in replacement text at its end.
    fn subset(&mut self, src: &Src, mut pos: usize, in_doc: bool) -> Result<usize, Error> {
        let b = src.b;
        loop {
            pos = skip_ws(b, pos);
            match b.get(pos) {
                None if in_doc => {
                    return Err(self.expected(src, pos, "`]` to end the internal subset"))
                }
                None => return Ok(pos),
                Some(b']') if in_doc => return Ok(pos),
                Some(b'%') => pos = self.pe_reference(src, pos)?,
                Some(b'<') => pos = self.markup_decl(src, pos)?,
                Some(_) => return Err(self.dtd_err(
                    src,
                    pos,
                    format!(
                        "expected a markup declaration, a parameter-entity reference{}, found {}",
                        if in_doc { " or `]`" } else { "" },
                        describe_at(b, pos)
                    ),
                )),
            }
        }
    }

    fn markup_decl(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let rest = &src.b[pos..];
        if rest.starts_with(b"<?") {
            return self.pi(src, pos);
        }
        if rest.starts_with(b"<!--") {
            return self.comment(src, pos);
        }
        if rest.starts_with(b"<![") {
            return Err(self.dtd_err(
                src,
                pos,
                "conditional sections (`<![INCLUDE[`, `<![IGNORE[`) are allowed only in the external subset, not in the internal subset".to_string(),
            ));
        }
        if rest.starts_with(b"<!") {
            // a keyword run together with what follows (`<!ENTITYx`) is
            // reported by the declaration as missing white space
            let keyword = token(src.b, pos + 2).map(|(kw, _)| {
                ["ELEMENT", "ATTLIST", "ENTITY", "NOTATION"]
                    .into_iter()
                    .find(|k| kw.starts_with(k))
                    .unwrap_or(kw)
            });
            return match keyword {
                Some("ELEMENT") => self.element_decl(src, pos),
                Some("ATTLIST") => self.attlist_decl(src, pos),
                Some("ENTITY") => self.entity_decl(src, pos),
                Some("NOTATION") => self.notation_decl(src, pos),
                Some(other) => Err(self.dtd_err(
                    src,
                    pos,
                    format!(
                        "unknown markup declaration `<!{other}`; expected `<!ELEMENT`, `<!ATTLIST`, `<!ENTITY`, `<!NOTATION` or `<!--`"
                    ),
                )),
                None => Err(self.expected(
                    src,
                    pos + 2,
                    "`ELEMENT`, `ATTLIST`, `ENTITY`, `NOTATION` or `--` after `<!`",
                )),
            };
        }
        Err(self.expected(src, pos + 1, "`!` or `?` after `<` in the internal subset"))
    }

    fn pi(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let (target, p) = self.name(src, pos + 2, "a processing instruction target after `<?`")?;
        if target.eq_ignore_ascii_case("xml") {
            return Err(self.dtd_err(
                src,
                pos + 2,
                format!(
                    "processing instruction target `{target}` is reserved (an xml declaration may appear only at the very start of the document)"
                ),
            ));
        }
        self.check_no_colon(src, pos + 2, target)?;
        if b[p..].starts_with(b"?>") {
            return Ok(p + 2);
        }
        let p =
            self.req_ws(src, p, "whitespace or `?>` after the processing instruction target")?;
        match memchr::memmem::find(&b[p..], b"?>") {
            Some(k) => Ok(p + k + 2),
            None => Err(self.err(
                src,
                b.len(),
                ErrorKind::UnexpectedEof { expected: "`?>` to end the processing instruction" },
            )),
        }
    }

    fn comment(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let from = pos + 4;
        match memchr::memmem::find(&b[from..], b"--") {
            None => Err(self.err(
                src,
                b.len(),
                ErrorKind::UnexpectedEof { expected: "`-->` to end the comment" },
            )),
            Some(k) => {
                let q = from + k;
                match b.get(q + 2) {
                    Some(b'>') => Ok(q + 3),
                    None => Err(self.err(
                        src,
                        b.len(),
                        ErrorKind::UnexpectedEof { expected: "`>` to end the comment" },
                    )),
                    Some(_) => Err(self.dtd_err(
                        src,
                        q,
                        "`--` is not allowed inside a comment".to_string(),
                    )),
                }
            }
        }
    }

    // ---- <!ELEMENT

    fn element_decl(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let p = self.req_ws(src, pos + 9, "whitespace after `<!ELEMENT`")?;
        let (_, p) = self.name(src, p, "an element type name after `<!ELEMENT`")?;
        let p = self.req_ws(src, p, "whitespace after the element type name in `<!ELEMENT`")?;
        let p = if b.get(p) == Some(&b'(') {
            self.content_model(src, p)?
        } else {
            match token(b, p) {
                Some(("EMPTY" | "ANY", e)) => e,
                Some((other, _)) => {
                    return Err(self.dtd_err(
                        src,
                        p,
                        format!(
                            "unknown content specification `{other}`; expected `EMPTY`, `ANY` or a content model in parentheses"
                        ),
                    ))
                }
                None => {
                    return Err(self.expected(
                        src,
                        p,
                        "`EMPTY`, `ANY` or `(` to start the content specification",
                    ))
                }
            }
        };
        let p = skip_ws(b, p);
        if b.get(p) != Some(&b'>') {
            return Err(self.expected(src, p, "`>` to end the element type declaration"));
        }
        Ok(p + 1)
    }

    /// Mixed or children content model; `b[pos] == b'('`.
    fn content_model(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let mut p = skip_ws(b, pos + 1);
        if b[p..].starts_with(b"#PCDATA") {
            p += 7;
            let mut names = false;
            loop {
                p = skip_ws(b, p);
                match b.get(p) {
                    Some(b')') => {
                        p += 1;
                        if b.get(p) == Some(&b'*') {
                            return Ok(p + 1);
                        }
                        if names {
                            return Err(self.expected(
                                src,
                                p,
                                "`*` after `)`: a mixed content model listing element types must end in `)*`",
                            ));
                        }
                        return Ok(p);
                    }
                    Some(b'|') => {
                        p = skip_ws(b, p + 1);
                        let (_, e) =
                            self.name(src, p, "an element type name after `|` in mixed content")?;
                        p = e;
                        names = true;
                    }
                    _ => return Err(self.expected(src, p, "`|` or `)` in a mixed content model")),
                }
            }
        }
        // children: an explicit stack of open groups, each with its separator
        // (0 while undecided), so deep nesting cannot exhaust the call stack
        let mut groups: Vec<u8> = vec![0];
        'cp: loop {
            p = skip_ws(b, p);
            if b.get(p) == Some(&b'(') {
                groups.push(0);
                p += 1;
                continue 'cp;
            }
            if b[p..].starts_with(b"#PCDATA") {
                return Err(self.dtd_err(
                    src,
                    p,
                    "`#PCDATA` may appear only first in the outermost group of a mixed content model".to_string(),
                ));
            }
            let (_, e) = self.name(src, p, "an element type name or `(` in a content model")?;
            p = occurrence(b, e);
            loop {
                p = skip_ws(b, p);
                match b.get(p) {
                    Some(&c @ (b'|' | b',')) => {
                        let Some(sep) = groups.last_mut() else {
                            return Err(self.expected(src, p, "`>`"));
                        };
                        if *sep == 0 {
                            *sep = c;
                        } else if *sep != c {
                            return Err(self.dtd_err(
                                src,
                                p,
                                format!(
                                    "`{}` after `{}` in one content model group; a group is either a choice (`|`) or a sequence (`,`)",
                                    c as char, *sep as char
                                ),
                            ));
                        }
                        p += 1;
                        continue 'cp;
                    }
                    Some(b')') => {
                        groups.pop();
                        p = occurrence(b, p + 1);
                        if groups.is_empty() {
                            return Ok(p);
                        }
                    }
                    _ => return Err(self.expected(src, p, "`,`, `|` or `)` in a content model")),
                }
            }
        }
    }

    // ---- <!ATTLIST

    fn attlist_decl(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let decl_offset = Self::decl_offset(src, pos);
        let p = self.req_ws(src, pos + 9, "whitespace after `<!ATTLIST`")?;
        let (element, mut p) = self.name(src, p, "an element type name after `<!ATTLIST`")?;
        loop {
            let q = skip_ws(b, p);
            if b.get(q) == Some(&b'>') {
                return Ok(q + 1);
            }
            if q == p {
                return Err(self.expected(
                    src,
                    p,
                    "whitespace or `>` in the attribute-list declaration",
                ));
            }
            let (name, q) =
                self.name(src, q, "an attribute name or `>` in the attribute-list declaration")?;
            let q = self.req_ws(src, q, "whitespace after the attribute name in `<!ATTLIST`")?;
            let (ty, q) = self.att_type(src, q)?;
            let q = self.req_ws(src, q, "whitespace after the attribute type in `<!ATTLIST`")?;
            let (default, q) = self.default_decl(src, q, ty == AttType::Cdata)?;
            if !self.skipping && self.att_seen.insert((element.to_string(), name.to_string())) {
                self.dtd.add_attribute(AttDecl {
                    element: element.to_string(),
                    name: name.to_string(),
                    ty,
                    default,
                    decl_offset,
                    value: None,
                    value_expansion: 0,
                });
            }
            p = q;
        }
    }

    fn att_type(&mut self, src: &Src, pos: usize) -> Result<(AttType, usize), Error> {
        let b = src.b;
        if b.get(pos) == Some(&b'(') {
            let (values, p) = self.token_list(src, pos, true)?;
            return Ok((AttType::Enumeration(values), p));
        }
        let Some((kw, p)) = token(b, pos) else {
            return Err(self.expected(
                src,
                pos,
                "an attribute type (`CDATA`, `ID`, ..., `NOTATION` or `(`)",
            ));
        };
        let ty = match kw {
            "CDATA" => AttType::Cdata,
            "ID" => AttType::Id,
            "IDREF" => AttType::IdRef,
            "IDREFS" => AttType::IdRefs,
            "ENTITY" => AttType::Entity,
            "ENTITIES" => AttType::Entities,
            "NMTOKEN" => AttType::NmToken,
            "NMTOKENS" => AttType::NmTokens,
            "NOTATION" => {
                let p = self.req_ws(src, p, "whitespace after `NOTATION` in an attribute type")?;
                if b.get(p) != Some(&b'(') {
                    return Err(self.expected(src, p, "`(` to start the list of notation names"));
                }
                let (names, p) = self.token_list(src, p, false)?;
                return Ok((AttType::Notation(names), p));
            }
            other => {
                return Err(self.dtd_err(
                    src,
                    pos,
                    format!(
                        "unknown attribute type `{other}`; expected `CDATA`, `ID`, `IDREF`, `IDREFS`, `ENTITY`, `ENTITIES`, `NMTOKEN`, `NMTOKENS`, `NOTATION` or an enumeration"
                    ),
                ))
            }
        };
        Ok((ty, p))
    }

    /// `'(' S? tok (S? '|' S? tok)* S? ')'` with Nmtokens or Names.
    fn token_list(
        &mut self,
        src: &Src,
        pos: usize,
        nmtokens: bool,
    ) -> Result<(Vec<String>, usize), Error> {
        let b = src.b;
        let mut out = Vec::new();
        let mut p = skip_ws(b, pos + 1);
        loop {
            let end = if nmtokens { scan_nmtoken(b, p) } else { scan_name(b, p) };
            let Some(end) = end else {
                return Err(self.expected(
                    src,
                    p,
                    if nmtokens {
                        "a name token in the enumeration"
                    } else {
                        "a notation name in the list"
                    },
                ));
            };
            self.check_len(src, p, end)?;
            out.push(lossy(&b[p..end]).into_owned());
            p = skip_ws(b, end);
            match b.get(p) {
                Some(b'|') => p = skip_ws(b, p + 1),
                Some(b')') => return Ok((out, p + 1)),
                _ => return Err(self.expected(src, p, "`|` or `)` in the list")),
            }
        }
    }

    fn default_decl(
        &mut self,
        src: &Src,
        pos: usize,
        cdata: bool,
    ) -> Result<(AttDefault, usize), Error> {
        let b = src.b;
        match b.get(pos) {
            Some(b'#') => match token(b, pos + 1) {
                Some(("REQUIRED", p)) => Ok((AttDefault::Required, p)),
                Some(("IMPLIED", p)) => Ok((AttDefault::Implied, p)),
                Some(("FIXED", p)) => {
                    let p = self.req_ws(src, p, "whitespace after `#FIXED`")?;
                    let (v, p) = self.att_value(src, p, cdata)?;
                    Ok((AttDefault::Fixed(v), p))
                }
                Some((other, _)) => Err(self.dtd_err(
                    src,
                    pos,
                    format!(
                        "unknown default `#{other}`; expected `#REQUIRED`, `#IMPLIED` or `#FIXED`"
                    ),
                )),
                None => {
                    Err(self.expected(src, pos + 1, "`REQUIRED`, `IMPLIED` or `FIXED` after `#`"))
                }
            },
            Some(b'"' | b'\'') => {
                let (v, p) = self.att_value(src, pos, cdata)?;
                Ok((AttDefault::Default(v), p))
            }
            _ => Err(self.expected(
                src,
                pos,
                "`#REQUIRED`, `#IMPLIED`, `#FIXED` or a quoted default value",
            )),
        }
    }

    /// A default AttValue literal; checked by normalizing it (WFCs No < in
    /// Attribute Values, No External Entity References, Entity Declared).
    fn att_value(&mut self, src: &Src, pos: usize, cdata: bool) -> Result<(String, usize), Error> {
        let (r, end) = self.literal(src, pos, "a quoted default value")?;
        let raw = match std::str::from_utf8(&src.b[r.clone()]) {
            Ok(s) => s,
            Err(_) => return Err(self.err(src, r.start, ErrorKind::InvalidUtf8)),
        };
        if let Err(e) = normalize_attribute_value(
            raw,
            src.b,
            r.start,
            Some(&self.dtd),
            cdata,
            &mut *self.budget,
            0,
        ) {
            return Err(self.remap(src, e));
        }
        // Replacement text has normalized line ends: a CR in it came from a
        // character reference in the entity value and normalizes to one space
        // each. Store it as a space so normalizing the stored "raw" literal
        // gives the same result.
        let stored = if src.ref_off.is_some() && raw.contains('\r') {
            raw.replace('\r', " ")
        } else {
            raw.to_string()
        };
        Ok((stored, end))
    }

    // ---- <!ENTITY

    fn entity_decl(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let decl_offset = Self::decl_offset(src, pos);
        let mut p = self.req_ws(src, pos + 8, "whitespace after `<!ENTITY`")?;
        let mut is_pe = false;
        if b.get(p) == Some(&b'%') {
            if !b.get(p + 1).is_some_and(|&c| is_ws(c)) {
                return Err(self.expected(
                    src,
                    p + 1,
                    "whitespace after `%` in a parameter entity declaration (a parameter-entity reference may not occur inside a markup declaration in the internal subset)",
                ));
            }
            is_pe = true;
            p = skip_ws(b, p + 1);
        }
        let name_pos = p;
        let (name, p) = self.name(src, p, "an entity name in `<!ENTITY`")?;
        self.check_no_colon(src, name_pos, name)?;
        let p = self.req_ws(src, p, "whitespace after the entity name")?;
        let (value, p) = match b.get(p) {
            Some(b'"' | b'\'') => {
                let (text, p) = self.entity_value(src, p)?;
                (EntityValue::Internal(text), p)
            }
            _ => {
                if !matches!(token(b, p), Some(("SYSTEM" | "PUBLIC", _))) {
                    return Err(self.expected_keyword(
                        src,
                        p,
                        "a quoted entity value, `SYSTEM` or `PUBLIC`",
                    ));
                }
                let id_at = p;
                let (public_id, system_id, p) = self.external_id(src, p, false)?;
                let system_id = system_id.unwrap_or_default();
                let q = skip_ws(b, p);
                let unparsed = matches!(token(b, q), Some(("NDATA", _)));
                self.refuse_external(src, id_at, p, || match (is_pe, unparsed) {
                    (true, _) => format!("the external parameter entity `%{name}`"),
                    (false, true) => format!("the unparsed entity `{name}`"),
                    (false, false) => format!("the external general entity `{name}`"),
                })?;
                let q = skip_ws(b, p);
                let mut notation = None;
                let mut end = p;
                if let Some(("NDATA", e)) = token(b, q) {
                    if q == p {
                        return Err(self.expected(src, p, "whitespace before `NDATA`"));
                    }
                    if is_pe {
                        return Err(self.dtd_err(
                            src,
                            q,
                            "a parameter entity cannot be unparsed: `NDATA` is allowed only in general entity declarations".to_string(),
                        ));
                    }
                    let e = self.req_ws(src, e, "whitespace after `NDATA`")?;
                    let (n, e) = self.name(src, e, "a notation name after `NDATA`")?;
                    notation = Some(n.to_string());
                    end = e;
                }
                (EntityValue::External { public_id, system_id, notation }, end)
            }
        };
        let p = skip_ws(b, p);
        if b.get(p) != Some(&b'>') {
            return Err(self.expected_keyword(src, p, "`>` to end the entity declaration"));
        }
        if !self.skipping {
            let decl = EntityDecl { name: name.to_string(), value, decl_offset };
            if is_pe {
                self.dtd.add_parameter_entity(decl);
            } else {
                self.dtd.add_entity(decl);
            }
        }
        Ok(p + 1)
    }

    /// An EntityValue literal at `pos`; returns its replacement text (§4.5)
    /// and the offset after the closing quote.
    fn entity_value(&mut self, src: &Src, pos: usize) -> Result<(String, usize), Error> {
        let b = src.b;
        let q = b[pos];
        let normalized = src.ref_off.is_some();
        let mut out = String::new();
        let mut i = pos + 1;
        let mut run = i;
        loop {
            let Some(&c) = b.get(i) else {
                return Err(self.err(
                    src,
                    i,
                    ErrorKind::UnexpectedEof { expected: "the closing quote of the entity value" },
                ));
            };
            if c == q {
                out.push_str(&lossy(&b[run..i]));
                return Ok((out, i + 1));
            }
            match c {
                b'%' => {
                    let shown = match scan_name(b, i + 1) {
                        Some(e) if b.get(e) == Some(&b';') => format!("`{}`", lossy(&b[i..=e])),
                        _ => "`%`".to_string(),
                    };
                    return Err(self.dtd_err(
                        src,
                        i,
                        format!(
                            "{shown} in an entity value: parameter-entity references are not allowed inside markup declarations in the internal subset (wfc: pes in internal subset)"
                        ),
                    ));
                }
                b'&' => {
                    out.push_str(&lossy(&b[run..i]));
                    if b.get(i + 1) == Some(&b'#') {
                        match parse_char_ref(b, i) {
                            Ok((ch, e)) => {
                                out.push(ch);
                                i = e;
                            }
                            Err((j, kind)) => return Err(self.value_err(src, j, kind)),
                        }
                    } else {
                        match scan_entity_ref(b, i) {
                            Ok(e) => {
                                // bypassed (§4.4.7)
                                out.push_str(&lossy(&b[i..=e]));
                                i = e + 1;
                            }
                            Err((j, kind)) => return Err(self.value_err(src, j, kind)),
                        }
                    }
                    run = i;
                }
                b'\r' if !normalized => {
                    out.push_str(&lossy(&b[run..i]));
                    out.push('\n');
                    i += 1;
                    if b.get(i) == Some(&b'\n') {
                        i += 1;
                    }
                    run = i;
                }
                _ => i += 1,
            }
        }
    }

    /// An error inside an entity value; running off the end of the input is
    /// reported as such.
    fn value_err(&self, src: &Src, j: usize, kind: ErrorKind) -> Error {
        if j >= src.b.len() {
            return self.err(
                src,
                j,
                ErrorKind::UnexpectedEof { expected: "the closing quote of the entity value" },
            );
        }
        self.err(src, j, kind)
    }

    // ---- <!NOTATION

    fn notation_decl(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let p = self.req_ws(src, pos + 10, "whitespace after `<!NOTATION`")?;
        let name_pos = p;
        let (name, p) = self.name(src, p, "a notation name after `<!NOTATION`")?;
        self.check_no_colon(src, name_pos, name)?;
        let p = self.req_ws(src, p, "whitespace after the notation name")?;
        let (public_id, system_id, p) = self.external_id(src, p, true)?;
        let p = skip_ws(b, p);
        if b.get(p) != Some(&b'>') {
            return Err(self.expected(src, p, "`>` to end the notation declaration"));
        }
        if self.notation_seen.insert(name.to_string()) {
            self.dtd.notations.push(NotationDecl { name: name.to_string(), public_id, system_id });
        }
        Ok(p + 1)
    }

    // ---- %name; between declarations

    fn pe_reference(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let (name, e) = self.name(src, pos + 1, "a parameter entity name after `%`")?;
        if b.get(e) != Some(&b';') {
            return Err(self.expected(src, e, "`;` to end the parameter-entity reference"));
        }
        let ref_off = src.ref_off.unwrap_or(pos);
        if !self.standalone {
            self.dtd.entities_complete = false;
        }
        let value = self.dtd.parameter_entity(name).map(|d| d.value.clone());
        match value {
            // An undeclared parameter entity is only a validity error
            // (production [69] carries VC: Entity Declared, not the WFC;
            // errata E29/E38). It is treated like one that is not read.
            None | Some(EntityValue::External { .. }) => self.not_read(),
            Some(EntityValue::Internal(replacement)) => {
                if self.pe_stack.iter().any(|n| n == name) {
                    return Err(self.err(
                        src,
                        pos,
                        ErrorKind::RecursiveEntity { name: name.to_string() },
                    ));
                }
                let level = self.pe_stack.len() as u64 + 1;
                let max = self.opts.limits.max_entity_depth as u64;
                if level > max {
                    return Err(self.err(
                        src,
                        pos,
                        ErrorKind::LimitExceeded {
                            limit: LimitKind::EntityDepth,
                            value: level,
                            max,
                        },
                    ));
                }
                self.budget.charge(replacement.len(), self.text, ref_off)?;
                self.pe_stack.push(name.to_string());
                let pe_name = if src.ref_off.is_some() { src.pe_name } else { name };
                let inner = Src { b: replacement.as_bytes(), ref_off: Some(ref_off), pe_name };
                let r = self.subset(&inner, 0, false);
                self.pe_stack.pop();
                r?;
            }
        }
        Ok(e + 1)
    }

    /// A parameter entity that is not read: §5.1.
    fn not_read(&mut self) {
        if !self.standalone {
            self.skipping = true;
            self.dtd.skipped_declarations = true;
        }
    }
}

/// Skips an optional occurrence indicator (`?`, `*`, `+`) at `p`.
fn occurrence(b: &[u8], p: usize) -> usize {
    match b.get(p) {
        Some(b'?' | b'*' | b'+') => p + 1,
        _ => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// These tests read external identifiers: the policy that keeps them.
    fn opts() -> ParseOptions {
        ParseOptions::default().external(ExternalPolicy::Ignore)
    }

    #[test]
    fn external_identifiers_refused_by_default() {
        let o = ParseOptions::default();
        let cases: [(&str, &str, &str); 5] = [
            ("<!DOCTYPE r SYSTEM 'r.dtd'><r/>", "the external DTD subset", "SYSTEM 'r.dtd'"),
            ("<!DOCTYPE r PUBLIC '-//x//y' \"r.dtd\"><r/>", "the external DTD subset", "PUBLIC '-//x//y' \"r.dtd\""),
            ("<!DOCTYPE r [<!ENTITY e SYSTEM 'e.xml'>]><r/>", "the external general entity `e`", "SYSTEM 'e.xml'"),
            ("<!DOCTYPE r [<!ENTITY % p SYSTEM 'p.ent'>]><r/>", "the external parameter entity `%p`", "SYSTEM 'p.ent'"),
            ("<!DOCTYPE r [<!NOTATION n SYSTEM 'n'><!ENTITY u SYSTEM 'u.gif' NDATA n>]><r/>", "the unparsed entity `u`", "SYSTEM 'u.gif'"),
        ];
        for (doc, what, id) in cases {
            let e = parse_with(doc, false, &o).unwrap_err();
            match e.kind() {
                ErrorKind::ExternalReference { what: w, identifier } => {
                    assert_eq!((w.as_str(), identifier.as_str()), (what, id), "{doc}");
                }
                k => panic!("{doc}: {k:?}"),
            }
            assert_eq!(e.offset() as usize, doc.find(id).unwrap(), "{doc}");
            assert!(e.to_string().contains("ExternalPolicy::Ignore"), "{e}");
            assert!(parse_with(doc, false, &opts()).is_ok(), "{doc}");
        }
        // a notation names a format, not content: accepted
        assert!(parse_with("<!DOCTYPE r [<!NOTATION n SYSTEM 'viewer'>]><r/>", false, &o).is_ok());
        assert!(parse_with("<!DOCTYPE r [<!NOTATION n PUBLIC 'x'>]><r/>", false, &o).is_ok());
    }

    fn parse_with(doc: &str, standalone: bool, o: &ParseOptions) -> Result<(Dtd, usize), Error> {
        let start = doc.find("<!DOCTYPE").expect("test document has a doctype");
        let mut budget = ExpansionBudget::new(o, doc.len());
        parse_doctype(doc.as_bytes(), start, standalone, o, &mut budget)
    }

    fn parse(doc: &str) -> Result<Dtd, Error> {
        parse_with(doc, false, &opts()).map(|(d, _)| d)
    }

    fn parse_sa(doc: &str) -> Result<Dtd, Error> {
        parse_with(doc, true, &opts()).map(|(d, _)| d)
    }

    fn internal(d: &Dtd, name: &str) -> String {
        match &d.entity(name).expect("entity declared").value {
            EntityValue::Internal(t) => t.clone(),
            v => panic!("not internal: {v:?}"),
        }
    }

    fn norm(raw: &str, dtd: Option<&Dtd>, cdata: bool) -> Result<String, Error> {
        let o = opts();
        let mut budget = ExpansionBudget::new(&o, raw.len().max(1000));
        normalize_attribute_value(raw, raw.as_bytes(), 0, dtd, cdata, &mut budget, 0)
            .map(|c| c.into_owned())
    }

    #[track_caller]
    fn assert_dtd_err(doc: &str) -> Error {
        match parse(doc) {
            Ok(d) => panic!("accepted malformed doctype {doc:?}: {d:?}"),
            Err(e) => e,
        }
    }

    // ---- valid subsets

    #[test]
    fn full_internal_subset() {
        let doc = "<?xml version='1.0'?>\n<!DOCTYPE doc PUBLIC \" -//Test//DTD  x//EN \" 'http://x/doc.dtd' [\n\
            <!-- a comment -->\n\
            <?pi some data?>\n\
            <?other?>\n\
            <!ELEMENT doc (head, (p | list)*, foot?)>\n\
            <!ELEMENT head (#PCDATA)>\n\
            <!ELEMENT p (#PCDATA | em | b)*>\n\
            <!ELEMENT list ( item+ )>\n\
            <!ELEMENT item ANY>\n\
            <!ELEMENT foot EMPTY>\n\
            <!ELEMENT em ( #PCDATA ) >\n\
            <!ELEMENT b (#PCDATA)*>\n\
            <!ATTLIST doc\n  id ID #REQUIRED\n  ref IDREF #IMPLIED\n  refs IDREFS #IMPLIED\n  ver CDATA #FIXED \"1.0\"\n  kind (a|b| c ) 'a'\n  pic ENTITY #IMPLIED\n  pics ENTITIES #IMPLIED\n  tok NMTOKEN \"x\"\n  toks NMTOKENS '  x   y '\n  fmt NOTATION ( gif | png ) #IMPLIED>\n\
            <!ATTLIST doc id CDATA 'ignored' extra CDATA 'e&amp;&#65;'>\n\
            <!ENTITY copy \"&#169; &amp; &other; <b>x</b>\">\n\
            <!ENTITY copy 'second binding ignored'>\n\
            <!ENTITY ext SYSTEM \"ext.xml\">\n\
            <!ENTITY pubext PUBLIC \"-//X//EN\" \"pub.xml\">\n\
            <!ENTITY pic SYSTEM 'pic.gif' NDATA gif>\n\
            <!ENTITY % pe \"<!ENTITY fromPe 'yes'>\">\n\
            <!NOTATION gif SYSTEM \"image/gif\">\n\
            <!NOTATION png PUBLIC \"-//PNG//EN\">\n\
            <!NOTATION jpg PUBLIC '-//JPG//EN' 'jpg.exe'>\n\
            ]>\n<doc id='x'/>";
        let start = doc.find("<!DOCTYPE").unwrap();
        let o = opts();
        let mut budget = ExpansionBudget::new(&o, doc.len());
        let (d, end) = parse_doctype(doc.as_bytes(), start, false, &o, &mut budget).unwrap();
        assert_eq!(&doc[end..], "\n<doc id='x'/>");
        assert_eq!(d.span, start..end);
        let sub = d.internal_subset.clone().unwrap();
        assert!(doc[sub.clone()].starts_with("\n<!-- a comment"));
        assert!(doc[sub].ends_with("'jpg.exe'>\n"));
        assert_eq!(d.name, "doc");
        assert_eq!(d.public_id.as_deref(), Some("-//Test//DTD x//EN"));
        assert_eq!(d.system_id.as_deref(), Some("http://x/doc.dtd"));
        // an external subset exists, so WFC Entity Declared does not apply
        assert!(!d.entities_complete);
        assert!(!d.undeclared_is_error());
        assert!(!d.skipped_declarations);

        assert_eq!(internal(&d, "copy"), "\u{a9} &amp; &other; <b>x</b>");
        assert_eq!(d.entities.iter().filter(|e| e.name == "copy").count(), 1);
        match &d.entity("ext").unwrap().value {
            EntityValue::External { public_id: None, system_id, notation: None } => {
                assert_eq!(system_id, "ext.xml")
            }
            v => panic!("{v:?}"),
        }
        match &d.entity("pubext").unwrap().value {
            EntityValue::External { public_id: Some(p), system_id, notation: None } => {
                assert_eq!(p, "-//X//EN");
                assert_eq!(system_id, "pub.xml");
            }
            v => panic!("{v:?}"),
        }
        match &d.entity("pic").unwrap().value {
            EntityValue::External { notation: Some(n), .. } => assert_eq!(n, "gif"),
            v => panic!("{v:?}"),
        }
        // declared but never referenced: not expanded
        assert!(d.entity("fromPe").is_none());
        match &d.parameter_entity("pe").unwrap().value {
            EntityValue::Internal(t) => assert_eq!(t, "<!ENTITY fromPe 'yes'>"),
            v => panic!("{v:?}"),
        }
        assert!(d.entity("pe").is_none());
        let names: Vec<&str> = d.entities.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["copy", "ext", "pubext", "pic"]);
        let decl = d.entity("copy").unwrap().decl_offset;
        assert!(doc[decl..].starts_with("<!ENTITY copy \""));

        let att = |n: &str| d.attribute("doc", n).unwrap_or_else(|| panic!("attribute {n}"));
        assert_eq!(att("id").ty, AttType::Id);
        assert_eq!(att("id").default, AttDefault::Required);
        assert_eq!(att("ref").ty, AttType::IdRef);
        assert_eq!(att("refs").ty, AttType::IdRefs);
        assert_eq!(att("ver").default, AttDefault::Fixed("1.0".into()));
        assert_eq!(att("kind").ty, AttType::Enumeration(vec!["a".into(), "b".into(), "c".into()]));
        assert_eq!(att("kind").default, AttDefault::Default("a".into()));
        assert_eq!(att("pic").ty, AttType::Entity);
        assert_eq!(att("pics").ty, AttType::Entities);
        assert_eq!(att("tok").ty, AttType::NmToken);
        assert_eq!(att("toks").ty, AttType::NmTokens);
        assert_eq!(att("toks").default, AttDefault::Default("  x   y ".into()));
        assert_eq!(att("fmt").ty, AttType::Notation(vec!["gif".into(), "png".into()]));
        assert_eq!(att("extra").default, AttDefault::Default("e&amp;&#65;".into()));
        assert!(d.attribute("doc", "nope").is_none());
        assert!(d.attribute("item", "id").is_none());
        let all: Vec<&str> = d.attributes_of("doc").map(|a| a.name.as_str()).collect();
        assert_eq!(
            all,
            ["id", "ref", "refs", "ver", "kind", "pic", "pics", "tok", "toks", "fmt", "extra"]
        );
        assert_eq!(d.attributes.len(), 11);

        let n: Vec<(&str, Option<&str>, Option<&str>)> = d
            .notations
            .iter()
            .map(|n| (n.name.as_str(), n.public_id.as_deref(), n.system_id.as_deref()))
            .collect();
        assert_eq!(
            n,
            [
                ("gif", None, Some("image/gif")),
                ("png", Some("-//PNG//EN"), None),
                ("jpg", Some("-//JPG//EN"), Some("jpg.exe"))
            ]
        );
    }

    #[test]
    fn minimal_forms() {
        let d = parse("<!DOCTYPE doc>").unwrap();
        assert_eq!(d.name, "doc");
        assert!(d.internal_subset.is_none());
        assert!(d.entities_complete);
        assert!(d.undeclared_is_error());
        let d = parse("<!DOCTYPE doc[]>").unwrap();
        assert_eq!(d.internal_subset, Some(14..14));
        let d = parse("<!DOCTYPE\r\ndoc\tSYSTEM\r'a.dtd'[\r\n]\n>").unwrap();
        assert_eq!(d.system_id.as_deref(), Some("a.dtd"));
        assert!(!d.entities_complete);
        let d = parse("<!DOCTYPE doc SYSTEM \"\">").unwrap();
        assert_eq!(d.system_id.as_deref(), Some(""));
        let d = parse("<!DOCTYPE doc PUBLIC \"\" ''>").unwrap();
        assert_eq!(d.public_id.as_deref(), Some(""));
        // an apostrophe in a double-quoted public id, all PubidChars
        let d = parse("<!DOCTYPE doc PUBLIC \"a'b -()+,./:=?;!*#@$_%\r\n09AZ\" 'x'>").unwrap();
        assert_eq!(d.public_id.as_deref(), Some("a'b -()+,./:=?;!*#@$_% 09AZ"));
        // whitespace/comment-only and PI-only subsets
        assert!(parse("<!DOCTYPE d [ <!----> <?p?> <?q\r\n?> ]>").is_ok());
        // standalone documents with an external subset: WFC applies
        let d = parse_sa("<!DOCTYPE doc SYSTEM 'x'>").unwrap();
        assert!(d.entities_complete);
        // non-ASCII names
        let d = parse("<!DOCTYPE élan [<!ELEMENT élan EMPTY><!ENTITY café 'x'>]>").unwrap();
        assert_eq!(d.name, "élan");
        assert!(d.entity("café").is_some());
        // xml-stylesheet and other targets starting with xml are fine
        assert!(parse("<!DOCTYPE d [<?xml-stylesheet href='a'?><?xmlfoo?>]>").is_ok());
        // predefined entities may be declared
        assert!(parse(
            "<!DOCTYPE d [<!ENTITY lt '&#38;#60;'><!ENTITY gt '>'><!ENTITY amp '&#38;#38;'>]>"
        )
        .is_ok());
    }

    #[test]
    fn content_models() {
        for m in [
            "EMPTY",
            "ANY",
            "(a)",
            "(a)*",
            "(a?)",
            "(a,b,c)",
            "(a|b|c)+",
            "((a|b),c*)?",
            "( ( a , b ) | ( c , d ) )",
            "(a,(b|(c,(d|e)+)?)*)",
            "(#PCDATA)",
            "(#PCDATA)*",
            "( #PCDATA | a | b )*",
            "(#PCDATA|a)*",
            "(x:y|z)",
        ] {
            let doc = format!("<!DOCTYPE d [<!ELEMENT e {m}>]>");
            assert!(parse(&doc).is_ok(), "rejected valid content model {m}: {:?}", parse(&doc));
        }
        for m in [
            "",
            "empty",
            "EMPTY?",
            "()",
            "(a|b,c)",
            "(a,b|c)",
            "(a|)",
            "(,a)",
            "(a b)",
            "(a) *",
            "(a",
            "((a)",
            "(a))",
            "(#PCDATA|a)",
            "(#PCDATA,a)*",
            "(a|#PCDATA)*",
            "((#PCDATA))",
            "(#pcdata)",
            "(#PCDATA)+",
            "(#PCDATA|a)+",
            "(a|b)**",
            "(a|b) EMPTY",
            "#PCDATA",
            "(%e;)",
        ] {
            let doc = format!("<!DOCTYPE d [<!ELEMENT e {m}>]>");
            assert!(parse(&doc).is_err(), "accepted invalid content model {m:?}");
        }
        // deep nesting does not use the call stack
        let deep =
            format!("<!DOCTYPE d [<!ELEMENT e {}a{}>]>", "(".repeat(100_000), ")".repeat(100_000));
        assert!(parse(&deep).is_ok());
    }

    #[test]
    fn malformed_doctype() {
        for doc in [
            "<!DOCTYPE>",
            "<!DOCTYPEdoc>",
            "<!DOCTYPE 1doc>",
            "<!DOCTYPE doc",
            "<!DOCTYPE doc [",
            "<!DOCTYPE doc []",
            "<!DOCTYPE doc ] >",
            "<!DOCTYPE doc SYSTEM>",
            "<!DOCTYPE doc SYSTEM'a'>",
            "<!DOCTYPE doc system 'a'>",
            "<!DOCTYPE doc SYSTEM a>",
            "<!DOCTYPE doc SYSTEM 'a>",
            "<!DOCTYPE doc PUBLIC 'a'>",
            "<!DOCTYPE doc PUBLIC 'a''b'>",
            "<!DOCTYPE doc PUBLIC 'a' >",
            "<!DOCTYPE doc PUBLIC 'a{' 'b'>",
            "<!DOCTYPE doc PUBLIC 'a\tb' 'b'>",
            "<!DOCTYPE doc PUBLIC 'é' 'b'>",
            "<!DOCTYPE doc PUBLIC \"a\"b\" 'b'>",
            "<!DOCTYPE doc FOO 'a'>",
            "<!DOCTYPE doc [] [] >",
            "<!DOCTYPE doc [] x>",
            "<!DOCTYPE doc SYSTEM 'a' 'b'>",
            "<!DOCTYPE doc [ junk ]>",
            "<!DOCTYPE doc [ <!-- c --> <!-- no end ]>",
            "<!DOCTYPE doc [ <!-- a -- b --> ]>",
            "<!DOCTYPE doc [ <!-- a ---> ]>",
            "<!DOCTYPE doc [ <!- c -> ]>",
            "<!DOCTYPE doc [ <?xml version='1.0'?> ]>",
            "<!DOCTYPE doc [ <?XmL a?> ]>",
            "<!DOCTYPE doc [ <?pidata?> <? nopi?> ]>",
            "<!DOCTYPE doc [ <?pi?data ?> ]>",
            "<!DOCTYPE doc [ <?pi data ]>",
            "<!DOCTYPE doc [ <![INCLUDE[ <!ELEMENT doc EMPTY> ]]> ]>",
            "<!DOCTYPE doc [ <![IGNORE[ ]]> ]>",
            "<!DOCTYPE doc [ <!element doc EMPTY> ]>",
            "<!DOCTYPE doc [ <!ELEMENTdoc EMPTY> ]>",
            "<!DOCTYPE doc [ <!ELEMENT doc EMPTY ]>",
            "<!DOCTYPE doc [ <!ELEMENT doc> ]>",
            "<!DOCTYPE doc [ <!ELEMENT doc(a)> ]>",
            "<!DOCTYPE doc [ <!ELEMENT doc EMPTY x> ]>",
            "<!DOCTYPE doc [ <!FOO doc> ]>",
            "<!DOCTYPE doc [ <doc/> ]>",
            "<!DOCTYPE doc [ <!ELEMENT doc EMPTY>> ]>",
        ] {
            assert_dtd_err(doc);
        }
    }

    #[test]
    fn malformed_attlist() {
        for decl in [
            "<!ATTLIST>",
            "<!ATTLIST doc a>",
            "<!ATTLIST doc a CDATA>",
            "<!ATTLIST doc a CDATA #REQUIRED",
            "<!ATTLIST doc a cdata #IMPLIED>",
            "<!ATTLIST doc a STRING #IMPLIED>",
            "<!ATTLIST doc a CDATA #required>",
            "<!ATTLIST doc a CDATA #DEFAULT 'x'>",
            "<!ATTLIST doc a CDATA #FIXED>",
            "<!ATTLIST doc a CDATA #FIXED'x'>",
            "<!ATTLIST doc a CDATA 'x'b CDATA #IMPLIED>",
            "<!ATTLIST doc a CDATA #IMPLIEDb CDATA #IMPLIED>",
            "<!ATTLIST doc a CDATA x>",
            "<!ATTLIST doc a CDATA \"x>",
            "<!ATTLIST doc a CDATA #IMPLIED b>",
            "<!ATTLIST doc a CDATA \"a<b\">",
            "<!ATTLIST doc a CDATA '&undeclared;'>",
            "<!ATTLIST doc a CDATA '&#0;'>",
            "<!ATTLIST doc a CDATA '&#xFFFE;'>",
            "<!ATTLIST doc a CDATA '&#x;'>",
            "<!ATTLIST doc a CDATA '&;'>",
            "<!ATTLIST doc a CDATA '& amp;'>",
            "<!ATTLIST doc a CDATA '&amp'>",
            "<!ATTLIST doc a CDATA 'a&b'>",
            "<!ATTLIST doc a (x|) #IMPLIED>",
            "<!ATTLIST doc a () #IMPLIED>",
            "<!ATTLIST doc a (x y) #IMPLIED>",
            "<!ATTLIST doc a (x|y #IMPLIED>",
            "<!ATTLIST doc a (x,y) #IMPLIED>",
            "<!ATTLIST doc a NOTATION(x) #IMPLIED>",
            "<!ATTLIST doc a NOTATION (1x) #IMPLIED>",
            "<!ATTLIST doc a NOTATION #IMPLIED>",
            "<!ATTLIST doc a CDATA%e; #IMPLIED>",
            "<!ATTLIST %e; a CDATA #IMPLIED>",
            "<!ATTLISTdoc a CDATA #IMPLIED>",
        ] {
            assert_dtd_err(&format!("<!DOCTYPE doc [{decl}]>"));
        }
        // entity-related WFCs in defaults
        for subset in [
            // WFC: No < in Attribute Values (through an entity)
            "<!ENTITY e '&#60;'><!ATTLIST doc a CDATA '&e;'>",
            "<!ENTITY e 'a<b'><!ATTLIST doc a CDATA '&e;'>",
            "<!ENTITY f 'x<'><!ENTITY e '&f;'><!ATTLIST doc a CDATA 'y&e;'>",
            // WFC: No External Entity References
            "<!ENTITY e SYSTEM 'e.xml'><!ATTLIST doc a CDATA '&e;'>",
            // unparsed
            "<!NOTATION n SYSTEM 'n'><!ENTITY e SYSTEM 'e' NDATA n><!ATTLIST doc a CDATA '&e;'>",
            // declared after use (WFC: Entity Declared)
            "<!ATTLIST doc a CDATA '&e;'><!ENTITY e 'x'>",
            // recursion
            "<!ENTITY e '&f;'><!ENTITY f '&e;'><!ATTLIST doc a CDATA '&e;'>",
            // malformed reference in replacement text
            "<!ENTITY e '&#38;x'><!ATTLIST doc a CDATA '&e;'>",
        ] {
            assert_dtd_err(&format!("<!DOCTYPE doc [{subset}]>"));
        }
        // valid: char-ref-escaped < is fine; undeclared entity with an external subset
        assert!(parse(
            "<!DOCTYPE doc [<!ENTITY e '&#38;#60;'><!ATTLIST doc a CDATA '&e;&#60;&lt;'>]>"
        )
        .is_ok());
        assert!(parse("<!DOCTYPE doc SYSTEM 'x' [<!ATTLIST doc a CDATA '&undeclared;'>]>").is_ok());
        // but not when standalone
        assert!(
            parse_sa("<!DOCTYPE doc SYSTEM 'x' [<!ATTLIST doc a CDATA '&undeclared;'>]>").is_err()
        );
        // first definition of a pair wins, across declarations
        let d = parse("<!DOCTYPE doc [<!ATTLIST doc a CDATA 'one'><!ATTLIST doc a CDATA 'two' b ID #IMPLIED>]>").unwrap();
        assert_eq!(d.attribute("doc", "a").unwrap().default, AttDefault::Default("one".into()));
        assert_eq!(d.attributes.len(), 2);
        assert_eq!(d.attributes_of("doc").count(), 2);
    }

    #[test]
    fn malformed_entity_and_notation() {
        for decl in [
            "<!ENTITY>",
            "<!ENTITY e>",
            "<!ENTITY e 'x'",
            "<!ENTITY e 'x>",
            "<!ENTITY e x>",
            "<!ENTITY e'x'>",
            "<!ENTITY e 'x' 'y'>",
            "<!ENTITY e SYSTEM>",
            "<!ENTITY e SYSTEM 'x'NDATA n>",
            "<!ENTITY e SYSTEM 'x' NDATA>",
            "<!ENTITY e SYSTEM 'x' ndata n>",
            "<!ENTITY e PUBLIC 'x'>",
            "<!ENTITY e 'x' NDATA n>",
            "<!ENTITY % e SYSTEM 'x' NDATA n>",
            "<!ENTITY %e 'x'>",
            "<!ENTITY % 'x'>",
            "<!ENTITY entity 'x'>x",
            "<!ENTITY e '&'>",
            "<!ENTITY e '& x;'>",
            "<!ENTITY e '&x'>",
            "<!ENTITY e '&#;'>",
            "<!ENTITY e '&#12a;'>",
            "<!ENTITY e '&#x12'>",
            "<!ENTITY e '&#X41;'>",
            "<!ENTITY e '&#0;'>",
            "<!ENTITY e '&#8;'>",
            "<!ENTITY e '&#xD800;'>",
            "<!ENTITY e '&#xFFFF;'>",
            "<!ENTITY e '&#x110000;'>",
            "<!ENTITY e '&#99999999999999999999;'>",
            // WFC: PEs in Internal Subset
            "<!ENTITY % p 'x'><!ENTITY e '%p;'>",
            "<!ENTITY e '100%'>",
            "<!ENTITY e:x 'x'>",
            "<!ENTITY % p:x 'x'>",
            "<!NOTATION>",
            "<!NOTATION n>",
            "<!NOTATION n SYSTEM>",
            "<!NOTATION n PUBLIC>",
            "<!NOTATION n PUBLIC 'a''b'>",
            "<!NOTATION n 'a'>",
            "<!NOTATION n:x SYSTEM 'a'>",
            "<!NOTATION n SYSTEM 'a'",
            "<?a:b data?>",
        ] {
            assert_dtd_err(&format!("<!DOCTYPE doc [{decl}]>"));
        }
        // specific kinds
        let e = assert_dtd_err("<!DOCTYPE doc [<!ENTITY e '&#0;'>]>");
        assert_eq!(e.kind(), &ErrorKind::InvalidCharRef { text: "&#0;".into() });
        assert_eq!(e.offset(), 27);
        let e = assert_dtd_err("<!DOCTYPE doc [<!ENTITY a:b 'x'>]>");
        assert_eq!(e.kind(), &ErrorKind::InvalidName { name: "a:b".into() });
        // without namespaces colons are ordinary name characters
        let no_ns = opts().namespaces(false);
        assert!(parse_with(
            "<!DOCTYPE doc [<!ENTITY a:b 'x'><!NOTATION n:x SYSTEM 'a'><?a:b?>]>",
            false,
            &no_ns
        )
        .is_ok());
    }

    #[test]
    fn entity_values() {
        let d = parse(
            "<!DOCTYPE d [<!ENTITY a \"x&#60;y&#x3E;&amp;&b;'&#13;&#10;\">\
             <!ENTITY b 'l1\r\nl2\rl3\nl4'>\
             <!ENTITY c ''>\
             <!ENTITY % p \"&#37;q;<!ENTITY z '&#38;'>\">]>",
        )
        .unwrap();
        assert_eq!(internal(&d, "a"), "x<y>&amp;&b;'\r\n");
        assert_eq!(internal(&d, "b"), "l1\nl2\nl3\nl4");
        assert_eq!(internal(&d, "c"), "");
        match &d.parameter_entity("p").unwrap().value {
            EntityValue::Internal(t) => assert_eq!(t, "%q;<!ENTITY z '&'>"),
            v => panic!("{v:?}"),
        }
    }

    // ---- parameter entities

    #[test]
    fn pe_references_expand_to_declarations() {
        let d = parse(
            "<!DOCTYPE doc [\n\
             <!ENTITY % decls \"<!ELEMENT doc (#PCDATA)><!ENTITY x 'from pe'>\n\
               <!ATTLIST doc a CDATA 'v&#38;#38;'> <!-- c --> <?pi?>\">\n\
             <!ENTITY % outer '%decls;'>\n\
             <!ENTITY % nested \"&#37;decls2;\">\n\
             <!ENTITY % decls2 \"<!ENTITY y 'nested'>\">\n\
             %decls;\n\
             %nested;\n\
             <!ENTITY x 'later, ignored'>\n\
             ]>",
        );
        // `%decls;` inside a literal in the internal subset is not allowed
        assert!(d.is_err());
        let d = parse(
            "<!DOCTYPE doc [\n\
             <!ENTITY % decls \"<!ELEMENT doc (#PCDATA)><!ENTITY x 'from pe'>\n\
               <!ATTLIST doc a CDATA 'v&#38;#38;'> <!-- c --> <?pi?>\">\n\
             <!ENTITY % nested \"&#37;decls2;\">\n\
             <!ENTITY % decls2 \"<!ENTITY y 'nested'>\">\n\
             %decls;\n\
             %nested;\n\
             <!ENTITY x 'later, ignored'>\n\
             ]>",
        )
        .unwrap();
        assert_eq!(internal(&d, "x"), "from pe");
        assert_eq!(internal(&d, "y"), "nested");
        assert_eq!(d.attribute("doc", "a").unwrap().default, AttDefault::Default("v&#38;".into()));
        // a PE reference was seen: the WFC no longer applies, nothing skipped
        assert!(!d.entities_complete);
        assert!(!d.skipped_declarations);
        // but a standalone document keeps it
        let d = parse_sa("<!DOCTYPE doc [<!ENTITY % p ''>%p;]>").unwrap();
        assert!(d.entities_complete);
    }

    #[test]
    fn pe_reference_errors() {
        for subset in [
            // syntax
            "% p;",
            "%p ;",
            "%p",
            "<!ENTITY % p ''>%p",
            // recursion
            "<!ENTITY % p '&#37;p;'>%p;",
            "<!ENTITY % p '&#37;q;'><!ENTITY % q '&#37;p;'>%p;",
            // replacement text must be whole declarations
            "<!ENTITY % p '&#60;!ELEMENT'>%p;",
            "<!ENTITY % p '&#60;!ELEMENT doc EMPTY'>%p;>",
            "<!ENTITY % p 'junk'>%p;",
            "<!ENTITY % p ']'>%p;",
            "<!ENTITY % p '&#60;![INCLUDE[]]>'>%p;",
            // PE references inside declarations
            "<!ENTITY % p 'EMPTY'><!ELEMENT doc %p;>",
            "<!ENTITY % p 'doc'><!ATTLIST %p; a CDATA #IMPLIED>",
            "<!ENTITY % p '&#60;!ENTITY e \"&#37;q;\">'><!ENTITY % q ''>%p;",
            // errors inside PE replacement text
            "<!ENTITY % p '&#60;!ATTLIST doc a CDATA \"&#38;#60;\" b CDATA \"&#60;\">'>%p;",
            "<!ENTITY % p '&#60;?xml x?>'>%p;",
        ] {
            assert_dtd_err(&format!("<!DOCTYPE doc [{subset}]>"));
        }
        // errors in replacement text are reported at the reference
        let doc = "<!DOCTYPE doc [<!ENTITY % p '&#60;!ELEMENT'> %p;]>";
        let e = assert_dtd_err(doc);
        assert_eq!(e.offset() as usize, doc.find("%p;").unwrap());
        assert!(matches!(e.kind(), ErrorKind::Dtd { .. }), "{e}");
        let e = assert_dtd_err("<!DOCTYPE doc [<!ENTITY % p '&#37;p;'>%p;]>");
        assert!(matches!(e.kind(), ErrorKind::RecursiveEntity { name } if name == "p"), "{e}");
        // an undeclared PE is only a validity error (production [69] has VC:
        // Entity Declared, no WFC); it cannot be read, so later declarations
        // are skipped
        let d = parse("<!DOCTYPE doc SYSTEM 'x' [%undeclared;<!ENTITY e 'x'>]>").unwrap();
        assert!(d.skipped_declarations);
        assert!(d.entity("e").is_none());
        let d = parse("<!DOCTYPE doc [%p;<!ENTITY % p ''><!ENTITY e 'x'>]>").unwrap();
        assert!(d.skipped_declarations);
        assert!(!d.entities_complete);
        assert!(d.parameter_entity("p").is_none());
        assert!(d.entity("e").is_none());
        // standalone: nothing is skipped and the WFC keeps applying
        let d = parse_sa("<!DOCTYPE doc SYSTEM 'x' [%undeclared;<!ENTITY e 'x'>]>").unwrap();
        assert!(d.entities_complete);
        assert!(!d.skipped_declarations);
        assert!(d.entity("e").is_some());
    }

    #[test]
    fn unread_external_pe_skips_later_declarations() {
        let subset = "<!DOCTYPE doc [\
            <!ENTITY before 'b'>\
            <!ATTLIST doc x CDATA 'bx'>\
            <!ENTITY % ext SYSTEM 'ext.ent'>\
            <!ENTITY % int '<!ENTITY viaInt \"i\">'>\
            %ext;\
            <!ENTITY after 'a'>\
            <!ATTLIST doc y CDATA 'ay'>\
            <!ENTITY % late '<!-- -->'>\
            <!NOTATION n SYSTEM 'n'>\
            %int;\
            %late;";
        let doc = format!("{subset}<!ATTLIST doc z CDATA '&maybeFromExt;'>]>");
        let d = parse(&doc).unwrap();
        assert!(d.entity("before").is_some());
        assert!(d.attribute("doc", "x").is_some());
        assert!(d.entity("after").is_none());
        assert!(d.entity("viaInt").is_none());
        assert!(d.attribute("doc", "y").is_none());
        assert!(d.attribute("doc", "z").is_none());
        assert!(d.parameter_entity("late").is_none());
        assert_eq!(d.notations.len(), 1);
        assert!(d.skipped_declarations);
        assert!(!d.entities_complete);
        // syntax is still checked after the skip
        assert!(parse("<!DOCTYPE doc [<!ENTITY % ext SYSTEM 'e'>%ext;<!ENTITY after>]>").is_err());
        assert!(parse(
            "<!DOCTYPE doc [<!ENTITY % ext SYSTEM 'e'>%ext;<!ATTLIST doc a CDATA '<'>]>"
        )
        .is_err());
        // standalone: declarations are still processed, so the WFC applies
        assert!(parse_sa(&doc).is_err());
        let d = parse_sa(&format!("{subset}]>")).unwrap();
        assert!(d.entities_complete);
        assert!(!d.skipped_declarations);
        assert!(d.entity("after").is_some());
        assert!(d.entity("viaInt").is_some());
    }

    #[test]
    fn pe_depth_and_budget() {
        // a chain of 40 PEs exceeds the default depth of 32
        let mut subset = String::from("<!ENTITY % p0 ''>");
        for i in 1..40 {
            subset.push_str(&format!("<!ENTITY % p{i} '&#37;p{};'>", i - 1));
        }
        subset.push_str("%p39;");
        let e = assert_dtd_err(&format!("<!DOCTYPE d [{subset}]>"));
        assert!(
            matches!(e.kind(), ErrorKind::LimitExceeded { limit: LimitKind::EntityDepth, .. }),
            "{e}"
        );
        // exponential PE expansion runs out of budget
        let mut subset = String::from("<!ENTITY % l0 '<!-- xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx -->'>");
        for i in 1..20 {
            let prev = format!("&#37;l{};", i - 1);
            subset.push_str(&format!("<!ENTITY % l{i} '{}'>", prev.repeat(10)));
        }
        subset.push_str("%l19;");
        let e = assert_dtd_err(&format!("<!DOCTYPE d [{subset}]>"));
        assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
    }

    // ---- attribute-value normalization

    #[test]
    fn normalization_spec_table() {
        // XML 1.0 §3.3.3
        let d =
            parse("<!DOCTYPE d [<!ENTITY d '&#xD;'><!ENTITY a '&#xA;'><!ENTITY da '&#xD;&#xA;'>]>")
                .unwrap();
        let d = Some(&d);
        assert_eq!(norm("\n\nxyz", d, false).unwrap(), "xyz");
        assert_eq!(norm("\n\nxyz", d, true).unwrap(), "  xyz");
        assert_eq!(norm("&d;&d;A&a;&#x20;&a;B&da;", d, false).unwrap(), "A B");
        assert_eq!(norm("&d;&d;A&a;&#x20;&a;B&da;", d, true).unwrap(), "  A   B  ");
        assert_eq!(norm("&#xd;&#xd;A&#xa;&#xa;B&#xd;&#xa;", d, false).unwrap(), "\r\rA\n\nB\r\n");
        assert_eq!(norm("&#xd;&#xd;A&#xa;&#xa;B&#xd;&#xa;", d, true).unwrap(), "\r\rA\n\nB\r\n");
        // the same with unnormalized line ends in the raw text
        assert_eq!(norm("\r\n\r\nxyz", d, true).unwrap(), "  xyz");
        assert_eq!(norm("\r\rxyz\r", d, true).unwrap(), "  xyz ");
        assert_eq!(norm("a\tb", d, true).unwrap(), "a b");
    }

    #[test]
    fn normalization_basics() {
        let o = opts();
        let mut budget = ExpansionBudget::new(&o, 100);
        let r =
            normalize_attribute_value("plain value", b"", 0, None, true, &mut budget, 0).unwrap();
        assert!(matches!(r, Cow::Borrowed("plain value")));
        let r = normalize_attribute_value("a b", b"", 0, None, false, &mut budget, 0).unwrap();
        assert!(matches!(r, Cow::Borrowed("a b")));
        assert_eq!(norm("  a   b  ", None, false).unwrap(), "a b");
        assert_eq!(norm("  a   b  ", None, true).unwrap(), "  a   b  ");
        assert_eq!(norm(" &#32; a&#32;&#32;b ", None, false).unwrap(), "a b");
        assert_eq!(norm("", None, false).unwrap(), "");
        assert_eq!(norm("   ", None, false).unwrap(), "");
        // predefined entities work without a DTD
        assert_eq!(norm("&lt;&gt;&amp;&apos;&quot;", None, true).unwrap(), "<>&'\"");
        assert_eq!(norm("&#x10FFFF;&#233;", None, true).unwrap(), "\u{10FFFF}é");
        // without a DTD every other entity is undeclared
        let e = norm("a&e;", None, true).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::UndeclaredEntity { name: "e".into() });
        assert_eq!(e.offset(), 1);
        // literal <
        let e = norm("ab<", None, true).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Unexpected { .. }));
        assert_eq!(e.offset(), 2);
        for bad in
            ["&", "&;", "&#;", "&#x;", "&#12", "&#xG;", "&a", "&a b;", "&#0;", "&#xFFFE;", "&.a;"]
        {
            assert!(norm(bad, None, true).is_err(), "{bad}");
        }
        let e = norm("&#xFFFE;", None, true).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::InvalidCharRef { text: "&#xFFFE;".into() });
        // raw_offset positions errors in the document
        let text = b"<a x='  &nope;'/>";
        let mut budget = ExpansionBudget::new(&o, text.len());
        let e =
            normalize_attribute_value("  &nope;", text, 6, None, true, &mut budget, 0).unwrap_err();
        assert_eq!(e.offset(), 8);
    }

    #[test]
    fn normalization_with_entities() {
        let d = parse(
            "<!DOCTYPE d [\
             <!ENTITY e 'x&f;y'>\
             <!ENTITY f ' in  f '>\
             <!ENTITY lf 'a\r\nb'>\
             <!ENTITY amp2 '&#38;#38;'>\
             <!ENTITY lt2 '&#38;#60;'>\
             <!ENTITY ext SYSTEM 'x'>\
             <!NOTATION n SYSTEM 'n'>\
             <!ENTITY un SYSTEM 'x' NDATA n>\
             <!ENTITY self '&self;'>\
             <!ENTITY bad '&#60;'>\
             ]>",
        )
        .unwrap();
        let dd = Some(&d);
        assert_eq!(norm("[&e;]", dd, true).unwrap(), "[x in  f y]");
        assert_eq!(norm("[&e;]", dd, false).unwrap(), "[x in f y]");
        // replacement text line ends were normalized at declaration: one space
        assert_eq!(norm("&lf;", dd, true).unwrap(), "a b");
        assert_eq!(norm("&amp2;&lt2;", dd, true).unwrap(), "&<");
        let e = norm("a &ext;", dd, true).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::ForbiddenEntityReference { name, .. } if name == "ext")
        );
        assert_eq!(e.offset(), 2);
        let e = norm("&un;", dd, true).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::ForbiddenEntityReference { name, .. } if name == "un")
        );
        let e = norm("&self;", dd, true).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::RecursiveEntity { name: "self".into() });
        let e = norm("xx&bad;", dd, true).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::ForbiddenEntityReference { name, .. } if name == "bad")
        );
        assert_eq!(e.offset(), 2);
        assert!(norm("&undeclared;", dd, true).is_err());
        // when the DTD is incomplete an undeclared reference is dropped
        let d2 = parse("<!DOCTYPE d SYSTEM 'x' [<!ENTITY e 'E'>]>").unwrap();
        assert_eq!(norm("a&undeclared;b&e;", Some(&d2), true).unwrap(), "abE");
    }

    #[test]
    fn entity_depth_in_attribute_values() {
        let mut subset = String::from("<!ENTITY e0 'x'>");
        for i in 1..40 {
            subset.push_str(&format!("<!ENTITY e{i} '&e{};'>", i - 1));
        }
        let d = parse(&format!("<!DOCTYPE d [{subset}]>")).unwrap();
        assert_eq!(norm("&e31;", Some(&d), true).unwrap(), "x");
        let e = norm("&e32;", Some(&d), true).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::LimitExceeded { limit: LimitKind::EntityDepth, value: 33, max: 32 }
            ),
            "{e}"
        );
        // the caller's depth counts too
        let o = opts();
        let mut budget = ExpansionBudget::new(&o, 100);
        assert!(normalize_attribute_value("&e2;", b"", 0, Some(&d), true, &mut budget, 30).is_err());
    }

    #[test]
    fn billion_laughs() {
        let mut subset = String::from("<!ENTITY lol0 'lol'>");
        for i in 1..10 {
            let prev = format!("&lol{};", i - 1);
            subset.push_str(&format!("<!ENTITY lol{i} '{}'>", prev.repeat(10)));
        }
        let doc = format!("<!DOCTYPE d [{subset}]><d a='&lol9;'/>");
        // declaring is cheap
        let d = parse(&doc).unwrap();
        let o = opts();
        let mut budget = ExpansionBudget::new(&o, doc.len());
        let e = normalize_attribute_value(
            "&lol9;",
            doc.as_bytes(),
            doc.len() - 10,
            Some(&d),
            true,
            &mut budget,
            0,
        )
        .unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::LimitExceeded { limit: LimitKind::EntityAmplification, .. }
            ),
            "{e}"
        );
        assert!(budget.used < 200_000);
        // with amplification out of the way the byte limit stops it
        let o = opts().max_entity_amplification(u32::MAX);
        let mut budget = ExpansionBudget::new(&o, doc.len());
        let e =
            normalize_attribute_value("&lol9;", doc.as_bytes(), 0, Some(&d), true, &mut budget, 0)
                .unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::LimitExceeded { limit: LimitKind::EntityExpansionBytes, .. }
            ),
            "{e}"
        );
        // and a default value using it is refused while parsing the DTD
        let doc = format!("<!DOCTYPE d [{subset}<!ATTLIST d a CDATA '&lol9;'>]>");
        let e = assert_dtd_err(&doc);
        assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
    }

    #[test]
    fn budget_charge() {
        let o = opts().max_entity_expansion_bytes(100_000).max_entity_amplification(2);
        let mut b = ExpansionBudget::new(&o, 10);
        // amplification is not checked below 64 KiB
        b.charge(65_536, b"", 0).unwrap();
        let e = b.charge(1, b"", 0).unwrap_err();
        assert!(matches!(
            e.kind(),
            ErrorKind::LimitExceeded { limit: LimitKind::EntityAmplification, max: 2, .. }
        ));
        let mut b = ExpansionBudget::new(&o, 1_000_000);
        b.charge(100_000, b"", 0).unwrap();
        let e = b.charge(1, b"", 0).unwrap_err();
        assert_eq!(
            e.kind(),
            &ErrorKind::LimitExceeded {
                limit: LimitKind::EntityExpansionBytes,
                value: 100_001,
                max: 100_000
            }
        );
        // empty documents do not divide by zero
        let mut b = ExpansionBudget::new(&opts(), 0);
        assert!(b.charge(70_000, b"", 0).is_err());
    }

    #[test]
    fn limits_on_names() {
        let o = opts().max_name_len(5);
        assert!(parse_with("<!DOCTYPE abcde>", false, &o).is_ok());
        let e = parse_with("<!DOCTYPE abcdef>", false, &o).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::LimitExceeded { limit: LimitKind::NameLength, .. }));
        assert!(parse_with("<!DOCTYPE a [<!ENTITY abcdef 'x'>]>", false, &o).is_err());
        assert!(parse_with("<!DOCTYPE a [<!ATTLIST a b (abcdef) #IMPLIED>]>", false, &o).is_err());
    }

    #[test]
    fn truncation_never_panics() {
        let doc = "<!DOCTYPE doc PUBLIC '-//A//EN' 'a.dtd' [\r\n\
            <!-- c --><?pi x?>\
            <!ELEMENT doc (a,(b|c)*)><!ELEMENT a (#PCDATA|b)*>\
            <!ATTLIST doc x CDATA #FIXED 'v&#65;&e;' y (a|b) 'a' z NOTATION (n) #IMPLIED>\
            <!ENTITY e 'v&#x41;&f;'><!ENTITY % p \"<!ENTITY q 'é'>\">%p;\
            <!ENTITY u SYSTEM 'u' NDATA n><!NOTATION n PUBLIC 'n' 'n'>\
            ]>";
        assert!(parse(doc).is_ok());
        for cut in 0..doc.len() {
            if !doc.is_char_boundary(cut) {
                continue;
            }
            let t = &doc[..cut];
            let o = opts();
            let mut budget = ExpansionBudget::new(&o, t.len());
            let r = parse_doctype(t.as_bytes(), 0, false, &o, &mut budget);
            match r {
                Ok(_) => panic!("accepted truncated doctype {t:?}"),
                Err(e) => assert!(
                    matches!(e.kind(), ErrorKind::UnexpectedEof { .. } | ErrorKind::Dtd { .. }),
                    "{t:?}: {e}"
                ),
            }
        }
        // start out of range or not at a doctype
        let o = opts();
        let mut budget = ExpansionBudget::new(&o, 0);
        assert!(parse_doctype(b"<!DOC", 0, false, &o, &mut budget).is_err());
        assert!(parse_doctype(b"", 5, false, &o, &mut budget).is_err());
    }

    #[test]
    fn error_positions() {
        let doc = "<!DOCTYPE doc [\n<!ELEMENT doc (a|b,c)>]>";
        let e = assert_dtd_err(doc);
        assert_eq!(e.offset() as usize, doc.find(',').unwrap());
        assert_eq!((e.line(), e.column()), (2, 19));
        let doc = "<!DOCTYPE doc [<!-- a -- b -->]>";
        let e = assert_dtd_err(doc);
        assert_eq!(e.offset() as usize, doc.find("--").unwrap() + 5);
        let doc = "<!DOCTYPE doc [<!ATTLIST doc a CDATA 'x<y'>]>";
        let e = assert_dtd_err(doc);
        assert_eq!(e.offset() as usize, doc.find("<y").unwrap());
        let doc = "<!DOCTYPE doc [<!ENTITY e '%x;'>]>";
        let e = assert_dtd_err(doc);
        assert_eq!(e.offset() as usize, doc.find("%x").unwrap());
        match e.kind() {
            ErrorKind::Dtd { detail } => assert!(detail.contains("`%x;`"), "{detail}"),
            k => panic!("{k:?}"),
        }
        let e = assert_dtd_err("<!DOCTYPE doc [<!ENTITYe 'x'>]>");
        assert!(e.to_string().contains("expected whitespace after `<!ENTITY`, found `e`"), "{e}");
        assert_eq!(e.offset(), 23);
        let e = assert_dtd_err("<!DOCTYPE doc [<!NOTATION n public 'x'>]>");
        assert!(e.to_string().contains("found `public`"), "{e}");
        let doc = "<!DOCTYPE doc [<!ELEMENT doc %e;>]>";
        let e = assert_dtd_err(doc);
        assert_eq!(e.offset() as usize, doc.find('%').unwrap());
        assert!(e.to_string().contains("pes in internal subset"), "{e}");
    }

    #[test]
    fn lookups_survive_manual_edits() {
        let mut d = parse("<!DOCTYPE d [<!ENTITY a 'A'><!ATTLIST d x CDATA 'X'>]>").unwrap();
        d.entities.push(EntityDecl {
            name: "b".into(),
            value: EntityValue::Internal("B".into()),
            decl_offset: 0,
        });
        d.attributes.push(AttDecl {
            element: "d".into(),
            name: "y".into(),
            ty: AttType::Cdata,
            default: AttDefault::Implied,
            decl_offset: 0,
            value: None,
            value_expansion: 0,
        });
        assert!(d.entity("a").is_some());
        assert!(d.entity("b").is_some());
        assert_eq!(d.attributes_of("d").count(), 2);
        d.reindex();
        assert!(d.entity("b").is_some());
        assert!(d.attribute("d", "y").is_some());
        let mut fresh = Dtd::default();
        fresh.entities.push(EntityDecl {
            name: "c".into(),
            value: EntityValue::Internal("C".into()),
            decl_offset: 0,
        });
        assert!(fresh.entity("c").is_some());
        assert!(fresh.entity("d").is_none());
    }
}
