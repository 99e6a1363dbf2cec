//! Incremental editing without reserialization.
//!
//! An [`Editor`] records insertions, deletions and replacements as byte ranges of
//! the document text; [`Editor::append_to`] then writes the new document in one
//! O(n) pass that copies every untouched range as it is and splices in the new
//! bytes. Bytes outside edited ranges are identical to the input, references to
//! entities included.
//!
//! ## The rules
//!
//! Edits form a set, not a script: the result does not depend on the order of the
//! calls except where these rules say so.
//!
//! - **Inserts at one point** land in call order (two `insert_before` of one node,
//!   two `prepend_child` of one element...). Inserts at one byte position that
//!   belong to different places nest as the tree does: content given to an
//!   empty-element tag, then its end tag, then what was inserted after it, then
//!   what was appended to its parent.
//! - **The same edit twice** (setting one value twice, renaming one node twice,
//!   removing then replacing one node): the last call wins.
//! - **Outer edits absorb inner ones.** A removal or replacement of a node absorbs
//!   every edit inside it (an update inside a removed subtree, content appended to
//!   a removed element, a rename of a replaced element); [`Editor::set_text`]
//!   absorbs every edit of the element's content (children removed, updated,
//!   inserted between them). Absorbed edits have no effect. Inserts beside a
//!   removed node (before or after it) are not inside it and stay; so do a first
//!   and a last child added with `prepend_child` / `append_child` beside new text
//!   set with `set_text`.
//! - **Overlaps** that are not containment (possible only with
//!   [`Editor::remove_indentation`], whose removal reaches into the white space
//!   before a node) are an [`EditError::Conflict`] when the output is written.
//! - **Markup entities.** A reference to an entity whose replacement text holds
//!   markup is written back as the reference, unless an edit reaches inside its
//!   expansion: then the expansion, edited, is written instead.
//! - **Encodings.** Everything is written in the document's own encoding. A
//!   character that encoding lacks becomes a character reference in text and
//!   attribute values, and is an [`EditError::Unencodable`] in names, comments,
//!   processing instructions and CDATA sections, where references are not
//!   recognized.
//!
//! Output is never corrupt: it is either what the rules above say, or an error.
//! With [`Editor::check_fragments`] on, inserted fragments and new names are also
//! checked where they land, so the output is well-formed.
//!
//! The module holds one concern per file: this file the [`Editor`] API and
//! the checks of single edits, `plan` the rules that order and absorb edits,
//! `write` the output (escaping and encoding) and `check` the well-formedness
//! checks of fragments and prefixes.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io;

use crate::document::{Document, Node, NodeKind};
use crate::error::Error;
use crate::input::SourceEncoding;

mod check;
mod plan;
#[cfg(test)]
mod tests;
mod write;

use check::{check_fragment, prefix_used, Place};
use plan::{Edit, Lv, Op, Slot};
use write::Ctx;

pub use write::{escape_attr, escape_text};

/// Why an edit could not be made or written.
#[derive(Debug)]
#[non_exhaustive]
pub enum EditError {
    /// The operation does not apply to this kind of node (e.g. renaming a comment).
    WrongNodeKind {
        /// The operation, as a verb phrase, e.g. `"rename"`, `"insert a child into"`.
        operation: &'static str,
        /// The kind of the node it was asked of.
        kind: NodeKind,
    },
    /// A fragment to insert is not well-formed where it lands
    /// ([`Editor::check_fragments`] is on).
    MalformedFragment(Error),
    /// A new name is not a valid (qualified) name.
    InvalidName(String),
    /// A new name uses a prefix not declared where it lands.
    UndeclaredPrefix(String),
    /// The element would have two attributes with this (qualified or expanded) name.
    DuplicateAttribute(String),
    /// The namespace declaration of this prefix cannot be removed: names in its
    /// scope use the prefix.
    NamespaceInUse(String),
    /// The edit would leave the document without exactly one root element.
    RootElement(&'static str),
    /// Two edits overlap without one containing the other: bytes `a` and `b`.
    Conflict {
        /// The bytes one edit covers, as offsets into [`Document::text`] (like
        /// [`Node::range`]); empty where it inserts.
        a: std::ops::Range<usize>,
        /// The bytes the other edit covers, in the same terms.
        b: std::ops::Range<usize>,
    },
    /// A character the document's encoding cannot represent, where a character
    /// reference cannot stand (a name, a comment, a PI, a CDATA section).
    Unencodable {
        /// The character that cannot be written.
        ch: char,
        /// The document's encoding: its label as declared, or the name of the
        /// [`crate::SourceEncoding`] variant.
        encoding: String,
    },
    /// Raw bytes to insert into a document that is not UTF-8 are not UTF-8.
    InvalidBytes,
    /// Text or a value to write holds a character XML 1.0 does not allow anywhere,
    /// not even as a character reference (production `Char`: most C0 controls,
    /// U+FFFE, U+FFFF).
    InvalidChar(char),
    /// A namespace declaration that Namespaces in XML 1.0 forbids: undeclaring a
    /// prefix (`xmlns:p=""`), declaring `xmlns`, binding `xml` to another name or
    /// its name to another prefix, or binding the `xmlns` namespace name.
    ReservedNamespace(String),
    /// The attribute is supplied by a default of the internal subset
    /// ([`Node::is_specified`] is false): it has no bytes to remove or rename.
    /// [`Editor::set_attribute`] (or [`Editor::set_value`]) writes it explicitly.
    NotSpecified(String),
    /// Writing failed.
    Io(io::Error),
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::WrongNodeKind { operation, kind } => write!(f, "cannot {operation} a node of kind {kind:?}"),
            EditError::MalformedFragment(e) => write!(f, "fragment is not well-formed here: {}", e.kind()),
            EditError::InvalidName(n) => write!(f, "`{n}` is not a valid name"),
            EditError::UndeclaredPrefix(p) => write!(f, "namespace prefix `{p}` is not declared where the name is used"),
            EditError::DuplicateAttribute(n) => write!(f, "the element would have two attributes named `{n}`"),
            EditError::NamespaceInUse(p) => {
                write!(f, "cannot remove the declaration of namespace prefix `{p}`: names in its scope use it")
            }
            EditError::RootElement(what) => write!(f, "{what}"),
            EditError::NotSpecified(n) => write!(
                f,
                "attribute `{n}` is defaulted by the document type declaration, not written in the start tag: it cannot be removed or renamed (setting its value writes it)"
            ),
            EditError::Conflict { a, b } => write!(f, "edits at bytes {}..{} and {}..{} overlap", a.start, a.end, b.start, b.end),
            EditError::Unencodable { ch, encoding } => write!(
                f,
                "character U+{:04X} cannot be written in encoding {encoding} where a character reference is not allowed",
                *ch as u32
            ),
            EditError::InvalidBytes => write!(f, "raw bytes for a document that is not UTF-8 must be UTF-8"),
            EditError::ReservedNamespace(detail) => write!(f, "{detail}"),
            EditError::InvalidChar(c) => write!(f, "character U+{:04X} is not allowed in XML (production Char), not even as a reference", *c as u32),
            EditError::Io(e) => write!(f, "write failed: {e}"),
        }
    }
}

impl std::error::Error for EditError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EditError::MalformedFragment(e) => Some(e),
            EditError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for EditError {
    fn from(e: io::Error) -> Self {
        EditError::Io(e)
    }
}

///
/// ```
/// use vtdx_core::{Document, Editor};
/// let doc = Document::parse(b"<a><b>1</b><c>2</c></a>").unwrap();
/// let b = doc.root_element().first_element_child().unwrap();
/// let mut ed = Editor::new(&doc);
/// ed.remove(b).unwrap();
/// ed.append_child(doc.root_element(), "<d/>").unwrap();
/// assert_eq!(ed.to_vec().unwrap(), b"<a><c>2</c><d/></a>");
/// ```
pub struct Editor<'d> {
    doc: &'d Document<'d>,
    edits: Vec<Edit<'d>>,
    data: Vec<u8>,
    check: bool,
    strip_indent: bool,
    /// Empty-element tags (`<a/>`) that receive content. Their end tags are made at
    /// output time, with the element's name as renamed by then.
    opened: Vec<Node<'d>>,
    /// Elements renamed: start offset -> new name.
    renamed: HashMap<usize, String>,
    /// Attributes renamed: attribute start -> new name.
    attr_renamed: HashMap<usize, String>,
    /// Attributes removed, by start offset.
    attr_removed: HashSet<usize>,
    /// Attributes added by `set_attribute`: (element start, name, edit index).
    attr_added: Vec<(usize, String, usize)>,
    /// The `xmlns:p` among them: (element start, prefix, namespace name, edit index).
    /// They bind `p` for the element's other new attributes.
    ns_added: Vec<(usize, String, String, usize)>,
    live: usize,
}

impl<'d> Editor<'d> {
    /// An editor with no edits. Fragment checking is on (as in the CLI and the Python
    /// `Editor`); indentation removal is off.
    pub fn new(doc: &'d Document<'d>) -> Editor<'d> {
        Editor {
            doc,
            edits: Vec::new(),
            data: Vec::new(),
            check: true,
            strip_indent: false,
            opened: Vec::new(),
            renamed: HashMap::new(),
            attr_renamed: HashMap::new(),
            attr_removed: HashSet::new(),
            attr_added: Vec::new(),
            ns_added: Vec::new(),
            live: 0,
        }
    }

    /// Check every inserted fragment for well-formedness in the namespace context
    /// where it lands (undeclared prefixes are errors). On by default, as in the CLI
    /// and the Python `Editor(check=True)`; turn it off only for fragments the caller
    /// built and trusts (the output is then well-formed only if they are).
    pub fn check_fragments(mut self, on: bool) -> Self {
        self.check = on;
        self
    }

    /// When removing an element, comment or PI that sits alone on its line, also
    /// remove the line's indentation, so pretty documents stay pretty.
    pub fn remove_indentation(mut self, on: bool) -> Self {
        self.strip_indent = on;
        self
    }

    /// The document being edited.
    pub fn document(&self) -> &'d Document<'d> {
        self.doc
    }

    /// Number of edits recorded (an edit that a later one absorbs or overrides
    /// still counts: the rules are applied when the output is written).
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when no edit was recorded.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Forgets every edit, keeping the allocations.
    pub fn clear(&mut self) {
        self.edits.clear();
        self.data.clear();
        self.opened.clear();
        self.renamed.clear();
        self.attr_renamed.clear();
        self.attr_removed.clear();
        self.attr_added.clear();
        self.ns_added.clear();
        self.live = 0;
    }

    #[allow(clippy::too_many_arguments)]
    fn push(&mut self, start: usize, end: usize, bytes: &[u8], op: Op, slot: Slot, lv: Lv<'d>, ctx: Ctx) -> usize {
        let idx = self.edits.len();
        let off = self.data.len();
        self.data.extend_from_slice(bytes);
        self.edits.push(Edit {
            start,
            end,
            data: (off, bytes.len()),
            extra: false,
            op,
            slot,
            level: 0,
            lv,
            ctx,
            seq: idx as u32,
            dead: false,
        });
        self.live += 1;
        idx
    }

    fn insert(&mut self, p: usize, bytes: &[u8], slot: Slot, lv: Lv<'d>, ctx: Ctx) -> usize {
        self.push(p, p, bytes, Op::Insert, slot, lv, ctx)
    }

    fn replace_range(&mut self, start: usize, end: usize, bytes: &[u8], lv: Lv<'d>, ctx: Ctx) {
        let slot = if start == end { Slot::Text } else { Slot::Replace };
        self.push(start, end, bytes, Op::Replace, slot, lv, ctx);
    }

    // ---- removal ---------------------------------------------------------------

    /// Removes a node: an element with its subtree, an attribute with the whitespace
    /// before it, a text node, a CDATA section, a comment or a processing instruction.
    ///
    /// The root element cannot be removed (replace it instead), nor a namespace
    /// declaration whose prefix names in its scope use.
    pub fn remove(&mut self, node: Node<'d>) -> Result<(), EditError> {
        let t = self.doc.text();
        match node.kind() {
            NodeKind::Root => Err(EditError::WrongNodeKind { operation: "remove", kind: NodeKind::Root }),
            NodeKind::Element if node.parent().is_some_and(|p| p.is_root()) => {
                Err(EditError::RootElement("cannot remove the root element"))
            }
            NodeKind::Attribute if !node.is_specified() => Err(EditError::NotSpecified(node.name().to_string())),
            NodeKind::Attribute => {
                let owner = node.parent().unwrap_or(self.doc.root());
                if node.is_namespace_declaration() && self.doc.options().namespaces {
                    let prefix = node.name().strip_prefix("xmlns:").unwrap_or("");
                    if !prefix.is_empty() && prefix_used(owner, prefix) {
                        return Err(EditError::NamespaceInUse(prefix.to_string()));
                    }
                }
                let r = node.range();
                let mut s = r.start;
                while s > 0 && matches!(t[s - 1], b' ' | b'\t' | b'\n' | b'\r') {
                    s -= 1;
                }
                self.attr_removed.insert(r.start);
                self.replace_range(s, r.end, b"", Lv::Markup(owner), Ctx::Markup);
                Ok(())
            }
            kind => {
                let r = node.range();
                let (mut s, mut e) = (r.start, r.end);
                if self.strip_indent && kind != NodeKind::Text {
                    let mut ls = s;
                    while ls > 0 && matches!(t[ls - 1], b' ' | b'\t') {
                        ls -= 1;
                    }
                    let mut le = e;
                    while le < t.len() && matches!(t[le], b' ' | b'\t') {
                        le += 1;
                    }
                    let line_before = ls > 0 && t[ls - 1] == b'\n';
                    let line_after = le >= t.len() || matches!(t[le], b'\n' | b'\r');
                    if line_before && line_after {
                        // drop "\n<indent>node<trailing blanks>", keep the following line end
                        s = ls - 1;
                        if s > 0 && t[s - 1] == b'\r' {
                            s -= 1;
                        }
                        e = le;
                    }
                }
                self.replace_range(s, e, b"", Lv::Node(node), Ctx::Markup);
                Ok(())
            }
        }
    }

    // ---- insertion -------------------------------------------------------------

    fn check_fragment(&self, place: Place<'d>, fragment: &[u8]) -> Result<(), EditError> {
        if !self.check {
            return Ok(());
        }
        check_fragment(self.doc, place, fragment)
    }

    fn raw_ok(&self, bytes: &[u8]) -> Result<(), EditError> {
        if matches!(self.doc.encoding(), SourceEncoding::Utf8 { .. }) || std::str::from_utf8(bytes).is_ok() {
            Ok(())
        } else {
            Err(EditError::InvalidBytes)
        }
    }

    /// Inserts an XML fragment (elements, text, comments, PIs; UTF-8) just before a node.
    pub fn insert_before(&mut self, node: Node<'d>, fragment: &str) -> Result<(), EditError> {
        self.insert_at(node, fragment.as_bytes(), true, true, Ctx::Fragment)
    }

    /// Inserts an XML fragment just after a node.
    pub fn insert_after(&mut self, node: Node<'d>, fragment: &str) -> Result<(), EditError> {
        self.insert_at(node, fragment.as_bytes(), false, true, Ctx::Fragment)
    }

    /// Inserts raw bytes (UTF-8 markup, not checked, not escaped) just before a node.
    pub fn insert_bytes_before(&mut self, node: Node<'d>, bytes: &[u8]) -> Result<(), EditError> {
        self.raw_ok(bytes)?;
        self.insert_at(node, bytes, true, false, Ctx::Fragment)
    }

    /// Inserts raw bytes (UTF-8 markup, not checked, not escaped) just after a node.
    pub fn insert_bytes_after(&mut self, node: Node<'d>, bytes: &[u8]) -> Result<(), EditError> {
        self.raw_ok(bytes)?;
        self.insert_at(node, bytes, false, false, Ctx::Fragment)
    }

    /// Inserts character data (escaped) just before a node.
    pub fn insert_text_before(&mut self, node: Node<'d>, text: &str) -> Result<(), EditError> {
        check_chars(text)?;
        self.insert_at(node, escape_text(text).as_bytes(), true, true, Ctx::Text)
    }

    /// Inserts character data (escaped) just after a node.
    pub fn insert_text_after(&mut self, node: Node<'d>, text: &str) -> Result<(), EditError> {
        check_chars(text)?;
        self.insert_at(node, escape_text(text).as_bytes(), false, true, Ctx::Text)
    }

    fn insert_at(&mut self, node: Node<'d>, bytes: &[u8], before: bool, check: bool, ctx: Ctx) -> Result<(), EditError> {
        if matches!(node.kind(), NodeKind::Root | NodeKind::Attribute) {
            let operation = if before { "insert before" } else { "insert after" };
            return Err(EditError::WrongNodeKind { operation, kind: node.kind() });
        }
        let parent = node.parent().unwrap_or(self.doc.root());
        if check {
            let place = if parent.is_root() { Place::TopLevel } else { Place::Content(parent) };
            self.check_fragment(place, bytes)?;
        }
        let r = node.range();
        if before {
            self.insert(r.start, bytes, Slot::Before, Lv::Node(node), ctx);
        } else {
            self.insert(r.end, bytes, Slot::After, Lv::Node(node), ctx);
        }
        Ok(())
    }

    /// Inserts an XML fragment as the first content of an element (after content
    /// prepended earlier: inserts at one point keep call order).
    pub fn prepend_child(&mut self, element: Node<'d>, fragment: &str) -> Result<(), EditError> {
        self.child_insert(element, fragment.as_bytes(), true, true, Ctx::Fragment)
    }

    /// Inserts an XML fragment as the last content of an element.
    pub fn append_child(&mut self, element: Node<'d>, fragment: &str) -> Result<(), EditError> {
        self.child_insert(element, fragment.as_bytes(), false, true, Ctx::Fragment)
    }

    /// Appends character data (escaped) as the last content of an element.
    pub fn append_text(&mut self, element: Node<'d>, text: &str) -> Result<(), EditError> {
        check_chars(text)?;
        self.child_insert(element, escape_text(text).as_bytes(), false, false, Ctx::Text)
    }

    /// Appends raw bytes (UTF-8 markup, not checked) as the last content of an element.
    pub fn append_bytes(&mut self, element: Node<'d>, bytes: &[u8]) -> Result<(), EditError> {
        self.raw_ok(bytes)?;
        self.child_insert(element, bytes, false, false, Ctx::Fragment)
    }

    fn open(&mut self, element: Node<'d>) {
        if !self.opened.contains(&element) {
            self.opened.push(element);
        }
    }

    fn child_insert(&mut self, element: Node<'d>, bytes: &[u8], first: bool, check: bool, ctx: Ctx) -> Result<(), EditError> {
        if !element.is_element() {
            return Err(EditError::WrongNodeKind { operation: "insert a child into", kind: element.kind() });
        }
        if check {
            self.check_fragment(Place::Content(element), bytes)?;
        }
        let level = Lv::Content(element);
        if element.is_empty_element_tag() {
            // `<a .../>` becomes `<a ...>content</a>`: the `/` goes, the content comes
            // after the `>`, the end tag after all content (both made at output time)
            self.open(element);
            let end = element.range().end;
            self.insert(end, bytes, if first { Slot::OpenFirst } else { Slot::OpenLast }, level, ctx);
            return Ok(());
        }
        let r = element.content_range().unwrap_or(0..0);
        if first {
            self.insert(r.start, bytes, Slot::First, level, ctx);
        } else {
            self.insert(r.end, bytes, Slot::Last, level, ctx);
        }
        Ok(())
    }

    // ---- attributes ------------------------------------------------------------

    /// The attribute of `element` named `qname` after the edits so far (renames
    /// and removals counted), if it is one of the document's attributes.
    fn live_attribute(&self, element: Node<'d>, qname: &str) -> Option<Node<'d>> {
        element.all_attributes().filter(|a| a.is_specified()).find(|a| {
            let s = a.range().start;
            !self.attr_removed.contains(&s) && self.attr_renamed.get(&s).map_or(a.name(), |n| n.as_str()) == qname
        })
    }

    /// The expanded name `qname` would have on `element` (attributes: no default namespace).
    fn expanded<'s, 'a>(&'s self, element: Node<'d>, qname: &'a str) -> Option<(Option<&'s str>, &'a str)> {
        if !self.doc.options().namespaces || qname == "xmlns" || qname.starts_with("xmlns:") {
            return None;
        }
        match qname.split_once(':') {
            Some((p, l)) => Some((self.lookup_namespace(element, p), l)),
            None => Some((None, qname)),
        }
    }

    /// The namespace `prefix` is bound to at `element`: a declaration this editor
    /// added to the element (`set_attribute(e, "xmlns:p", uri)`) first, else the
    /// document's.
    fn lookup_namespace<'s>(&'s self, element: Node<'d>, prefix: &str) -> Option<&'s str> {
        let e_start = element.range().start;
        let added = self.ns_added.iter().find(|(es, p, _, i)| *es == e_start && p == prefix && !self.edits[*i].dead);
        match added {
            Some((_, _, uri, _)) => Some(uri.as_str()),
            None => element.lookup_namespace(prefix),
        }
    }

    /// Errors when `element` already has (after the edits so far) an attribute with
    /// the qualified or expanded name of `qname`, other than `except`.
    fn check_unique(&self, element: Node<'d>, qname: &str, except: Option<usize>) -> Result<(), EditError> {
        let dup = || EditError::DuplicateAttribute(qname.to_string());
        let e_start = element.range().start;
        let want = self.expanded(element, qname);
        let mut names: Vec<(usize, &str)> = Vec::new();
        // a defaulted attribute is overridden by one written with its name
        for a in element.all_attributes().filter(|a| a.is_specified()) {
            let s = a.range().start;
            if self.attr_removed.contains(&s) {
                continue;
            }
            names.push((s, self.attr_renamed.get(&s).map_or(a.name(), |n| n.as_str())));
        }
        for (es, n, i) in &self.attr_added {
            if *es == e_start && !self.edits[*i].dead {
                names.push((usize::MAX, n.as_str()));
            }
        }
        for (s, n) in names {
            if Some(s) == except {
                continue;
            }
            if n == qname || (want.is_some() && self.expanded(element, n) == want) {
                return Err(dup());
            }
        }
        Ok(())
    }

    /// Sets an attribute on an element: replaces the value if the attribute is
    /// there, else adds ` qname="value"` at the end of the start tag. The value is
    /// escaped for an attribute in double quotes. Setting one new attribute twice
    /// keeps the last value. A namespace declaration added this way
    /// (`xmlns:p`) binds `p` for the attributes added to the same element after it,
    /// so `xmlns:wsu` then `wsu:Id` can be added in one pass.
    pub fn set_attribute(&mut self, element: Node<'d>, qname: &str, value: &str) -> Result<(), EditError> {
        check_chars(value)?;
        if self.doc.options().namespaces {
            check_declaration(qname, value)?;
        }
        if !element.is_element() {
            return Err(EditError::WrongNodeKind { operation: "set an attribute on", kind: element.kind() });
        }
        if let Some(a) = self.live_attribute(element, qname) {
            return self.set_value(a, value);
        }
        self.check_name(element, qname, true)?;
        let e_start = element.range().start;
        let earlier = self.attr_added.iter().position(|(es, n, i)| *es == e_start && n == qname && !self.edits[*i].dead);
        match earlier {
            Some(k) => {
                let i = self.attr_added[k].2;
                self.edits[i].dead = true;
                self.live -= 1;
                self.attr_added.remove(k);
            }
            None => self.check_unique(element, qname, None)?,
        }
        let st = element.start_tag_range().unwrap_or(0..0);
        let t = self.doc.text();
        let mut p = if element.is_empty_element_tag() { st.end - 2 } else { st.end - 1 };
        while p > st.start && matches!(t[p - 1], b' ' | b'\t' | b'\n' | b'\r') {
            p -= 1;
        }
        let mut v = Vec::with_capacity(qname.len() + value.len() + 4);
        v.push(b' ');
        v.extend_from_slice(qname.as_bytes());
        v.extend_from_slice(b"=\"");
        v.extend_from_slice(escape_attr(value, b'"').as_bytes());
        v.push(b'"');
        let i = self.insert(p, &v, Slot::Attr, Lv::Markup(element), Ctx::InTag);
        self.attr_added.push((e_start, qname.to_string(), i));
        if let Some(prefix) = qname.strip_prefix("xmlns:") {
            self.ns_added.push((e_start, prefix.to_string(), value.to_string(), i));
        }
        Ok(())
    }

    fn check_name(&self, context: Node<'d>, qname: &str, attribute: bool) -> Result<(), EditError> {
        if !crate::chars::is_name(qname.as_bytes()) {
            return Err(EditError::InvalidName(qname.to_string()));
        }
        if !self.doc.options().namespaces {
            return Ok(());
        }
        let parts: Vec<&str> = qname.split(':').collect();
        match parts.as_slice() {
            [_] => Ok(()),
            [p, l] if !p.is_empty() && !l.is_empty() && crate::chars::is_name(l.as_bytes()) => {
                let bound = if attribute { self.lookup_namespace(context, p) } else { context.lookup_namespace(p) };
                if *p == "xml" || (attribute && *p == "xmlns") || bound.is_some() {
                    Ok(())
                } else {
                    Err(EditError::UndeclaredPrefix(p.to_string()))
                }
            }
            _ => Err(EditError::InvalidName(qname.to_string())),
        }
    }

    // ---- values ----------------------------------------------------------------

    /// Replaces a node's value, escaped for its context: a text node's characters,
    /// a CDATA section's content, an attribute's value, a comment's content, a PI's
    /// data. For an element, the same as [`Editor::set_text`].
    pub fn set_value(&mut self, node: Node<'d>, value: &str) -> Result<(), EditError> {
        check_chars(value)?;
        let t = self.doc.text();
        match node.kind() {
            NodeKind::Text => {
                let r = node.range();
                self.replace_range(r.start, r.end, escape_text(value).as_bytes(), Lv::Node(node), Ctx::Text);
            }
            NodeKind::CData => {
                let r = node.range();
                let v = value.replace("]]>", "]]]]><![CDATA[>");
                self.replace_range(r.start + 9, r.end - 3, v.as_bytes(), Lv::Markup(node), Ctx::Markup);
            }
            NodeKind::Attribute if !node.is_specified() => {
                let owner = node.parent().unwrap_or(self.doc.root());
                return self.set_attribute(owner, node.name(), value);
            }
            NodeKind::Attribute => {
                if node.is_namespace_declaration() && self.doc.options().namespaces {
                    check_declaration(node.name(), value)?;
                }
                let owner = node.parent().unwrap_or(self.doc.root());
                let r = node.value_range().unwrap_or(0..0);
                let q = t[r.start - 1];
                self.replace_range(r.start, r.end, escape_attr(value, q).as_bytes(), Lv::Attr(owner), Ctx::Text);
            }
            NodeKind::Comment => {
                let r = node.range();
                // no `--` inside, no `-` at the end
                let mut v = String::with_capacity(value.len() + 2);
                for c in value.chars() {
                    if c == '-' && v.ends_with('-') {
                        v.push(' ');
                    }
                    v.push(c);
                }
                if v.ends_with('-') {
                    v.push(' ');
                }
                self.replace_range(r.start + 4, r.end - 3, v.as_bytes(), Lv::Markup(node), Ctx::Markup);
            }
            NodeKind::ProcessingInstruction => {
                let r = node.range();
                let target_end = r.start + 2 + node.name().len();
                let v = value.replace("?>", "? >");
                let mut d = Vec::with_capacity(v.len() + 1);
                if !v.is_empty() {
                    d.push(b' ');
                }
                d.extend_from_slice(v.as_bytes());
                self.replace_range(target_end, r.end - 2, &d, Lv::Markup(node), Ctx::Markup);
            }
            NodeKind::Element => return self.set_text(node, value),
            NodeKind::Root => return Err(EditError::WrongNodeKind { operation: "set the value of", kind: NodeKind::Root }),
        }
        Ok(())
    }

    /// Replaces all content of an element with character data (escaped). Every
    /// other edit of the element's content is absorbed, except content added with
    /// [`Editor::prepend_child`] / [`Editor::append_child`], which stays before /
    /// after the new text.
    pub fn set_text(&mut self, element: Node<'d>, text: &str) -> Result<(), EditError> {
        check_chars(text)?;
        if !element.is_element() {
            return self.set_value(element, text);
        }
        let esc = escape_text(text);
        let level = Lv::Content(element);
        if element.is_empty_element_tag() {
            self.open(element);
            let end = element.range().end;
            self.push(end, end, esc.as_bytes(), Op::Content, Slot::OpenText, level, Ctx::Text);
            return Ok(());
        }
        let r = element.content_range().unwrap_or(0..0);
        let slot = if r.is_empty() { Slot::Text } else { Slot::Replace };
        self.push(r.start, r.end, esc.as_bytes(), Op::Content, slot, level, Ctx::Text);
        Ok(())
    }

    /// Replaces a whole node (element with subtree, text, comment, PI, CDATA) with an
    /// XML fragment. The root element can be replaced by one element (with
    /// comments and PIs around it).
    pub fn replace(&mut self, node: Node<'d>, fragment: &str) -> Result<(), EditError> {
        match node.kind() {
            NodeKind::Root | NodeKind::Attribute => return Err(EditError::WrongNodeKind { operation: "replace", kind: node.kind() }),
            _ => {}
        }
        let parent = node.parent().unwrap_or(self.doc.root());
        let place = if !parent.is_root() {
            Place::Content(parent)
        } else if node.is_element() {
            Place::RootElement
        } else {
            Place::TopLevel
        };
        self.check_fragment(place, fragment.as_bytes())?;
        let r = node.range();
        self.replace_range(r.start, r.end, fragment.as_bytes(), Lv::Node(node), Ctx::Fragment);
        Ok(())
    }

    /// Renames an element (start and end tag together) or an attribute.
    pub fn rename(&mut self, node: Node<'d>, new_qname: &str) -> Result<(), EditError> {
        let old = node.name();
        match node.kind() {
            NodeKind::Element => {
                self.check_name(node, new_qname, false)?;
                let s = node.range().start + 1;
                let level = Lv::Markup(node);
                self.replace_range(s, s + old.len(), new_qname.as_bytes(), level, Ctx::Markup);
                self.renamed.insert(node.range().start, new_qname.to_string());
                if !node.is_empty_element_tag() {
                    let ce = node.content_range().unwrap_or(0..0).end + 2;
                    self.replace_range(ce, ce + old.len(), new_qname.as_bytes(), level, Ctx::Markup);
                }
                Ok(())
            }
            NodeKind::Attribute if !node.is_specified() => Err(EditError::NotSpecified(old.to_string())),
            NodeKind::Attribute => {
                let owner = node.parent().unwrap_or(self.doc.root());
                // renaming a declaration removes its binding: not while names use it
                if node.is_namespace_declaration() && self.doc.options().namespaces && new_qname != old {
                    let prefix = old.strip_prefix("xmlns:").unwrap_or("");
                    if !prefix.is_empty() && prefix_used(owner, prefix) {
                        return Err(EditError::NamespaceInUse(prefix.to_string()));
                    }
                }
                self.check_name(owner, new_qname, true)?;
                let s = node.range().start;
                self.check_unique(owner, new_qname, Some(s))?;
                self.replace_range(s, s + old.len(), new_qname.as_bytes(), Lv::Attr(owner), Ctx::Markup);
                self.attr_renamed.insert(s, new_qname.to_string());
                Ok(())
            }
            k => Err(EditError::WrongNodeKind { operation: "rename", kind: k }),
        }
    }
}

/// Text and values the Editor escapes must consist of XML characters: a
/// character outside `Char` cannot be written at all (escaping cannot help).
fn check_chars(s: &str) -> Result<(), EditError> {
    match s.chars().find(|&c| !crate::chars::is_xml_char(c as u32)) {
        Some(c) => Err(EditError::InvalidChar(c)),
        None => Ok(()),
    }
}

/// The rules of Namespaces in XML 1.0 (§3, "Reserved Prefixes and Namespace
/// Names"; "Prefix Declared": no empty prefixed declaration in 1.0) for a
/// declaration `qname="value"` about to be written. Other attributes pass.
fn check_declaration(qname: &str, value: &str) -> Result<(), EditError> {
    use crate::names::{XMLNS_NAMESPACE, XML_NAMESPACE};
    let prefix = match qname.strip_prefix("xmlns") {
        Some("") => None,
        Some(rest) => match rest.strip_prefix(':') {
            Some(p) => Some(p),
            None => return Ok(()), // `xmlnsfoo`: an ordinary attribute name
        },
        None => return Ok(()),
    };
    let problem = match prefix {
        Some("xmlns") => Some("the prefix `xmlns` cannot be declared".to_string()),
        Some("xml") if value != XML_NAMESPACE => Some(format!("the prefix `xml` can only be bound to {XML_NAMESPACE}")),
        Some("xml") => None,
        _ if value == XML_NAMESPACE => Some(format!("only the prefix `xml` can be bound to {XML_NAMESPACE}")),
        _ if value == XMLNS_NAMESPACE => Some(format!("{XMLNS_NAMESPACE} cannot be bound to a prefix")),
        Some(p) if value.is_empty() => Some(format!("the prefix `{p}` cannot be undeclared (`xmlns:{p}=\"\"`) in XML 1.0")),
        _ => None,
    };
    match problem {
        Some(detail) => Err(EditError::ReservedNamespace(detail)),
        None => Ok(()),
    }
}
