//! Incremental editing without reserialization.
//!
//! An [`Editor`] records insertions, deletions and replacements as byte ranges of
//! the document text; [`Editor::write_into`] then writes the new document in one
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

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::{self, Write};

use crate::document::{Document, Node, NodeKind};
use crate::error::Error;
use crate::input::{OutEncoding, SourceEncoding};
use crate::options::ParseOptions;

/// Why an edit could not be made or written.
#[derive(Debug)]
#[non_exhaustive]
pub enum EditError {
    /// The operation does not apply to this kind of node (e.g. renaming a comment).
    WrongNodeKind { operation: &'static str, kind: NodeKind },
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
    Conflict { a: std::ops::Range<usize>, b: std::ops::Range<usize> },
    /// A character the document's encoding cannot represent, where a character
    /// reference cannot stand (a name, a comment, a PI, a CDATA section).
    Unencodable { ch: char, encoding: String },
    /// Raw bytes to insert into a document that is not UTF-8 are not UTF-8.
    InvalidBytes,
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

/// What an edit does to its byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Op {
    /// New bytes at a point (`start == end`).
    Insert,
    /// A node, a node's value or name: removed or replaced.
    Replace,
    /// An element's whole content ([`Editor::set_text`]).
    Content,
}

/// How the new bytes are written in a document that is not UTF-8/16.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// Character data or an attribute value: references may stand for any character.
    Text,
    /// A name, comment, PI or CDATA content: no references.
    Markup,
    /// An XML fragment: references in its text and attribute values only.
    Fragment,
    /// The inside of a start tag (an attribute to add).
    InTag,
}

// Among inserts at one byte position, in output order (see the module rules).
const S_OPEN_FIRST: u8 = 0;
const S_OPEN_TEXT: u8 = 1;
const S_OPEN_LAST: u8 = 2;
const S_END_TAG: u8 = 3;
const S_AFTER: u8 = 4;
const S_FIRST: u8 = 5;
const S_TEXT: u8 = 6;
const S_LAST: u8 = 7;
const S_BEFORE: u8 = 8;
const S_ATTR: u8 = 9;
const S_REPLACE: u8 = 10;

#[derive(Debug, Clone)]
struct Edit<'d> {
    start: usize,
    end: usize,
    /// Offset and length of the new bytes in the editor's data (or, for edits made
    /// at output time, in the planner's own buffer).
    data: (usize, usize),
    extra: bool,
    op: Op,
    slot: u8,
    /// How deep in the tree the edit lies: 4 per element depth; +0 a node within
    /// its parent's content, +1 inside a node's own markup, +2 inside an
    /// attribute, +4 the element's content (= its children's +0). Computed from
    /// `lv` when the output is planned (the common in-order case never needs it).
    level: u32,
    lv: Lv<'d>,
    ctx: Ctx,
    seq: u32,
    dead: bool,
}

impl Edit<'_> {
    fn is_removal(&self) -> bool {
        self.op == Op::Replace && self.data.1 == 0
    }

    /// Does `self` (an accepted replacement whose range contains `o`'s) absorb `o`?
    fn absorbs(&self, o: &Edit) -> bool {
        // A point at the start of a range is outside it: what lies deeper there
        // belongs to the node before (content given to an empty-element tag).
        if o.start == o.end && self.start < self.end && o.start == self.start {
            return false;
        }
        if o.level > self.level {
            return true;
        }
        let strict = self.start < o.start && o.end < self.end;
        o.level == self.level
            && ((self.op == Op::Content && (o.op != Op::Insert || strict)) || (self.is_removal() && o.is_removal()))
    }
}

fn depth(n: Node<'_>) -> u32 {
    n.depth() as u32
}

/// How deep an edit lies, computed on demand (see [`Edit::level`]).
#[derive(Debug, Clone, Copy)]
enum Lv<'d> {
    /// A node as a whole, within its parent's content.
    Node(Node<'d>),
    /// The inside of a node's own markup (tags, attribute list, comment text).
    Markup(Node<'d>),
    /// The inside of an attribute of this element (its name and value).
    Attr(Node<'d>),
    /// An element's content.
    Content(Node<'d>),
}

impl Lv<'_> {
    fn get(self) -> u32 {
        match self {
            Lv::Node(n) => 4 * depth(n),
            Lv::Markup(n) => 4 * depth(n) + 1,
            Lv::Attr(e) => 4 * depth(e) + 2,
            Lv::Content(e) => 4 * depth(e) + 4,
        }
    }
}

/// Where a fragment is checked.
#[derive(Clone, Copy)]
enum Place<'d> {
    /// In the content of this element.
    Content(Node<'d>),
    /// Beside the root element: comments, PIs and white space only.
    TopLevel,
    /// In place of the root element: exactly one element, with comments and PIs.
    RootElement,
}

/// Records edits against a [`Document`] and writes the edited document.
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
    live: usize,
}

impl<'d> Editor<'d> {
    /// An editor with no edits. Fragment checking and indentation removal are off.
    pub fn new(doc: &'d Document<'d>) -> Editor<'d> {
        Editor {
            doc,
            edits: Vec::new(),
            data: Vec::new(),
            check: false,
            strip_indent: false,
            opened: Vec::new(),
            renamed: HashMap::new(),
            attr_renamed: HashMap::new(),
            attr_removed: HashSet::new(),
            attr_added: Vec::new(),
            live: 0,
        }
    }

    /// Check every inserted fragment for well-formedness in the namespace context
    /// where it lands (undeclared prefixes are errors). Off by default; on in the CLI.
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
        self.live = 0;
    }

    #[allow(clippy::too_many_arguments)]
    fn push(&mut self, start: usize, end: usize, bytes: &[u8], op: Op, slot: u8, lv: Lv<'d>, ctx: Ctx) -> usize {
        let idx = self.edits.len();
        let off = self.data.len();
        self.data.extend_from_slice(bytes);
        self.edits.push(Edit { start, end, data: (off, bytes.len()), extra: false, op, slot, level: 0, lv, ctx, seq: idx as u32, dead: false });
        self.live += 1;
        idx
    }

    fn insert(&mut self, p: usize, bytes: &[u8], slot: u8, lv: Lv<'d>, ctx: Ctx) -> usize {
        self.push(p, p, bytes, Op::Insert, slot, lv, ctx)
    }

    fn replace_range(&mut self, start: usize, end: usize, bytes: &[u8], lv: Lv<'d>, ctx: Ctx) {
        let slot = if start == end { S_TEXT } else { S_REPLACE };
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
        self.insert_at(node, escape_text(text).as_bytes(), true, true, Ctx::Text)
    }

    /// Inserts character data (escaped) just after a node.
    pub fn insert_text_after(&mut self, node: Node<'d>, text: &str) -> Result<(), EditError> {
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
            self.insert(r.start, bytes, S_BEFORE, Lv::Node(node), ctx);
        } else {
            self.insert(r.end, bytes, S_AFTER, Lv::Node(node), ctx);
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
            self.insert(end, bytes, if first { S_OPEN_FIRST } else { S_OPEN_LAST }, level, ctx);
            return Ok(());
        }
        let r = element.content_range().unwrap_or(0..0);
        if first {
            self.insert(r.start, bytes, S_FIRST, level, ctx);
        } else {
            self.insert(r.end, bytes, S_LAST, level, ctx);
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
    fn expanded<'a>(&self, element: Node<'d>, qname: &'a str) -> Option<(Option<&'d str>, &'a str)> {
        if !self.doc.options().namespaces || qname == "xmlns" || qname.starts_with("xmlns:") {
            return None;
        }
        match qname.split_once(':') {
            Some((p, l)) => Some((element.lookup_namespace(p), l)),
            None => Some((None, qname)),
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
    /// keeps the last value.
    pub fn set_attribute(&mut self, element: Node<'d>, qname: &str, value: &str) -> Result<(), EditError> {
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
        let i = self.insert(p, &v, S_ATTR, Lv::Markup(element), Ctx::InTag);
        self.attr_added.push((e_start, qname.to_string(), i));
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
                if *p == "xml" || (attribute && *p == "xmlns") || context.lookup_namespace(p).is_some() {
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
        if !element.is_element() {
            return self.set_value(element, text);
        }
        let esc = escape_text(text);
        let level = Lv::Content(element);
        if element.is_empty_element_tag() {
            self.open(element);
            let end = element.range().end;
            self.push(end, end, esc.as_bytes(), Op::Content, S_OPEN_TEXT, level, Ctx::Text);
            return Ok(());
        }
        let r = element.content_range().unwrap_or(0..0);
        let slot = if r.is_empty() { S_TEXT } else { S_REPLACE };
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

    // ---- output ----------------------------------------------------------------

    /// Writes the edited document in the document's own encoding.
    pub fn write_to<W: Write>(&self, mut w: W) -> Result<(), EditError> {
        let mut buf = Vec::new();
        self.write_into(&mut buf)?;
        w.write_all(&buf)?;
        Ok(())
    }

    /// The edited document as bytes, in the document's own encoding.
    pub fn to_vec(&self) -> Result<Vec<u8>, EditError> {
        let mut v = Vec::new();
        self.write_into(&mut v)?;
        Ok(v)
    }

    /// Decides which edits take effect and in what order (the module rules).
    /// Returns the edits to write, in output order, and the bytes of edits made here.
    fn plan(&self) -> Result<(Vec<Edit<'d>>, Vec<u8>), EditError> {
        let mut all: Vec<Edit<'d>> = self.edits.iter().filter(|e| !e.dead).cloned().collect();
        let mut extra: Vec<u8> = Vec::new();
        // empty-element tags that receive content: drop the `/`, make the end tag
        for el in &self.opened {
            let end = el.range().end;
            let name = self.renamed.get(&el.range().start).map_or(el.name(), |n| n.as_str());
            let seq = u32::MAX;
            all.push(Edit { start: end - 2, end: end - 1, data: (0, 0), extra: true, op: Op::Replace, slot: S_REPLACE, level: 0, lv: Lv::Markup(*el), ctx: Ctx::Markup, seq, dead: false });
            let off = extra.len();
            extra.extend_from_slice(b"</");
            extra.extend_from_slice(name.as_bytes());
            extra.push(b'>');
            all.push(Edit { start: end, end, data: (off, name.len() + 3), extra: true, op: Op::Insert, slot: S_END_TAG, level: 0, lv: Lv::Markup(*el), ctx: Ctx::Markup, seq, dead: false });
        }
        for e in all.iter_mut() {
            e.level = e.lv.get();
        }
        let conflict = |a: &Edit, b: &Edit| EditError::Conflict { a: a.start..a.end, b: b.start..b.end };

        // 1. replacements: outer first; accepted ones do not overlap (zero-width ones
        //    may sit at the ends of others)
        let mut reps: Vec<usize> = (0..all.len()).filter(|&i| all[i].op != Op::Insert).collect();
        reps.sort_unstable_by_key(|&i| {
            let e = &all[i];
            (e.start, std::cmp::Reverse(e.end), e.level, e.op != Op::Content, e.seq)
        });
        let mut wide: Vec<usize> = Vec::new(); // accepted, non-empty ranges, by start
        let mut narrow: Vec<usize> = Vec::new(); // accepted, empty ranges, by start
        let same = |a: &Edit, b: &Edit| a.start == b.start && a.end == b.end && a.level == b.level && a.op == b.op;
        for (k, &i) in reps.iter().enumerate() {
            let r = &all[i];
            if reps.get(k + 1).is_some_and(|&j| same(r, &all[j])) {
                continue; // the same edit made again later: the last call wins
            }
            if let Some(&c) = wide.last() {
                let s = &all[c];
                if r.start < s.end || (r.start == s.end && r.start == r.end) {
                    if r.end > s.end {
                        return Err(conflict(s, r));
                    }
                    if s.absorbs(r) {
                        continue;
                    }
                    if r.start == r.end && (r.start == s.start || r.start == s.end) {
                        narrow.push(i);
                        continue;
                    }
                    return Err(conflict(s, r));
                }
            }
            if r.start == r.end {
                narrow.push(i);
            } else {
                wide.push(i);
            }
        }
        // zero-width replacements absorb inserts at their point too
        narrow.sort_unstable_by_key(|&i| all[i].start);

        // 2. inserts: absorbed by an accepted replacement they lie in
        let mut keep: Vec<usize> = Vec::with_capacity(all.len());
        'ins: for i in 0..all.len() {
            let e = &all[i];
            if e.op != Op::Insert {
                continue;
            }
            let p = e.start;
            let k = wide.partition_point(|&j| all[j].start <= p);
            for &j in wide[k.saturating_sub(2)..k].iter() {
                let s = &all[j];
                if s.start <= p && p <= s.end {
                    if s.absorbs(e) {
                        continue 'ins;
                    }
                    if s.start < p && p < s.end {
                        return Err(conflict(s, e));
                    }
                }
            }
            let k = narrow.partition_point(|&j| all[j].start < p);
            for &j in narrow[k..].iter().take_while(|&&j| all[j].start == p) {
                if all[j].absorbs(e) {
                    continue 'ins;
                }
            }
            keep.push(i);
        }

        // 3. everything that takes effect, in output order
        keep.extend_from_slice(&wide);
        keep.extend_from_slice(&narrow);
        keep.sort_unstable_by_key(|&i| {
            let e = &all[i];
            (e.start, e.slot, e.seq)
        });
        let out = keep.into_iter().map(|i| all[i].clone()).collect();
        Ok((out, extra))
    }

    /// True when the edits were made in document order, do not touch one another
    /// and no empty-element tag receives content: then no rule applies and the
    /// edits are written as they are (the common case of removing what an XPath
    /// expression selected, in document order).
    fn in_order(&self) -> bool {
        if !self.opened.is_empty() {
            return false;
        }
        let mut prev: Option<&Edit<'d>> = None;
        for e in &self.edits {
            if e.dead {
                return false;
            }
            if let Some(p) = prev {
                if p.start >= e.start || p.end > e.start {
                    return false;
                }
            }
            prev = Some(e);
        }
        true
    }

    /// Writes the edited document into `out` (cleared first; its allocation is reused).
    pub fn write_into(&self, out: &mut Vec<u8>) -> Result<(), EditError> {
        out.clear();
        let doc = self.doc;
        let planned;
        let (plan, extra): (&[Edit<'d>], &[u8]) = if self.in_order() {
            (&self.edits, &[])
        } else {
            planned = self.plan()?;
            (&planned.0, &planned.1)
        };
        let enc = doc.encoding().out_encoding();
        let t = doc.text();
        out.reserve(doc.source().len() + self.data.len());
        // the byte-order mark as it was
        match (doc.encoding(), enc) {
            (_, OutEncoding::Utf8) => out.extend_from_slice(&doc.source()[..doc.bom_len()]),
            (SourceEncoding::Utf16Le { bom: true }, _) => out.extend_from_slice(&[0xFF, 0xFE]),
            (SourceEncoding::Utf16Be { bom: true }, _) => out.extend_from_slice(&[0xFE, 0xFF]),
            _ => {}
        }
        let unexpanded = doc.unexpanded_text();
        let mut w = Writer { enc, label: doc.encoding(), text: t, unexpanded: &unexpanded, regions: doc.entity_expansions(), ri: 0, delta: 0 };
        let mut cursor = 0usize;
        for e in plan {
            if e.start > cursor {
                w.text(cursor, e.start, out)?;
            }
            let bytes = if e.extra { &extra[e.data.0..e.data.0 + e.data.1] } else { &self.data[e.data.0..e.data.0 + e.data.1] };
            w.data(bytes, e.ctx, out)?;
            cursor = cursor.max(e.end);
        }
        w.text(cursor, t.len(), out)?;
        Ok(())
    }

    /// Writes the edited document and parses it again (with the document's options),
    /// so editing can go on.
    pub fn into_document(self) -> Result<Document<'static>, EditError> {
        let bytes = self.to_vec()?;
        let opts: ParseOptions = self.doc.options().clone();
        crate::parser::Parser::with_options(opts).parse_owned(bytes).map_err(EditError::MalformedFragment)
    }
}

/// Does a name in the scope of `owner`'s declaration of `prefix` use the prefix?
fn prefix_used(owner: Node<'_>, prefix: &str) -> bool {
    let uses = |n: &Node<'_>| n.prefix() == prefix || n.attributes().any(|a| a.prefix() == prefix);
    if uses(&owner) {
        return true;
    }
    let declares = |n: &Node<'_>| n.namespace_declarations().any(|d| d.name().strip_prefix("xmlns:") == Some(prefix));
    let mut stack: Vec<Node<'_>> = owner.element_children().collect();
    stack.reverse();
    while let Some(n) = stack.pop() {
        if declares(&n) {
            continue; // redeclared: its subtree is out of scope
        }
        if uses(&n) {
            return true;
        }
        let before = stack.len();
        stack.extend(n.element_children());
        stack[before..].reverse();
    }
    false
}

/// Writes text ranges and new bytes in the document's encoding.
struct Writer<'w> {
    enc: OutEncoding,
    label: &'w SourceEncoding,
    text: &'w [u8],
    unexpanded: &'w [u8],
    regions: &'w [(usize, usize, usize, usize)],
    /// The next region that may meet a text range, and the growth of the text
    /// before it ((expanded - unexpanded) bytes).
    ri: usize,
    delta: isize,
}

impl Writer<'_> {
    fn label(&self) -> String {
        match self.label {
            SourceEncoding::Other { label } => label.clone(),
            e => format!("{e:?}"),
        }
    }

    /// Untouched text `a..b` of the document: the input's own text, references to
    /// markup entities kept unless an edit cut into their expansion.
    fn text(&mut self, mut a: usize, b: usize, out: &mut Vec<u8>) -> Result<(), EditError> {
        while a < b {
            // skip regions that end before `a`
            while self.ri < self.regions.len() && self.regions[self.ri].3 <= a {
                let (os, oe, xs, xe) = self.regions[self.ri];
                self.delta += (xe - xs) as isize - (oe - os) as isize;
                self.ri += 1;
            }
            let Some(&(os, oe, xs, xe)) = self.regions.get(self.ri) else {
                let (ua, ub) = ((a as isize - self.delta) as usize, (b as isize - self.delta) as usize);
                return self.source_text(&self.unexpanded[ua..ub], out);
            };
            if a < xs {
                let stop = xs.min(b);
                let (ua, ub) = ((a as isize - self.delta) as usize, (stop as isize - self.delta) as usize);
                self.source_text(&self.unexpanded[ua..ub], out)?;
                a = stop;
                continue;
            }
            // inside region `ri`
            let stop = xe.min(b);
            if a == xs && stop == xe {
                self.source_text(&self.unexpanded[os..oe], out)?;
            } else {
                // an edit cut into the expansion: write it expanded
                self.source_text(&self.text[a..stop], out)?;
            }
            a = stop;
        }
        Ok(())
    }

    /// True when `s` can be written as it is: UTF-8 output, or ASCII bytes in any
    /// encoding but UTF-16 (each encoded chunk ends in the encoding's ASCII state).
    fn as_is(&self, s: &[u8]) -> bool {
        match self.enc {
            OutEncoding::Utf8 => true,
            OutEncoding::Utf16 { .. } => false,
            _ => s.is_ascii(),
        }
    }

    /// Untouched document text (always encodable: it came from the input).
    fn source_text(&self, s: &[u8], out: &mut Vec<u8>) -> Result<(), EditError> {
        if self.as_is(s) {
            out.extend_from_slice(s);
            return Ok(());
        }
        self.encode(s, true, out)
    }

    /// New bytes, written with references only where `ctx` allows them.
    fn data(&self, s: &[u8], ctx: Ctx, out: &mut Vec<u8>) -> Result<(), EditError> {
        if self.as_is(s) {
            out.extend_from_slice(s);
            return Ok(());
        }
        match (self.enc, ctx) {
            (OutEncoding::Utf16 { .. }, _) | (_, Ctx::Text) => self.encode(s, true, out),
            (_, Ctx::Markup) => self.encode(s, false, out),
            (_, Ctx::Fragment | Ctx::InTag) => {
                for (a, b, refs) in reference_spans(s, ctx == Ctx::InTag) {
                    self.encode(&s[a..b], refs, out)?;
                }
                Ok(())
            }
        }
    }

    /// Encodes UTF-8 `s`; a character the encoding lacks becomes a reference when
    /// `refs`, else an error.
    fn encode(&self, s: &[u8], refs: bool, out: &mut Vec<u8>) -> Result<(), EditError> {
        let s = std::str::from_utf8(s).map_err(|_| EditError::InvalidBytes)?;
        let unencodable = |c: char, out: &mut Vec<u8>| {
            if refs {
                out.extend_from_slice(format!("&#x{:X};", c as u32).as_bytes());
                Ok(())
            } else {
                Err(EditError::Unencodable { ch: c, encoding: self.label() })
            }
        };
        match self.enc {
            OutEncoding::Utf8 => out.extend_from_slice(s.as_bytes()),
            OutEncoding::Utf16 { le } => {
                for u in s.encode_utf16() {
                    out.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
                }
            }
            OutEncoding::Latin1 | OutEncoding::Ascii => {
                let max = if matches!(self.enc, OutEncoding::Latin1) { 0x100 } else { 0x80 };
                for c in s.chars() {
                    if (c as u32) < max {
                        out.push(c as u32 as u8);
                    } else {
                        unencodable(c, out)?;
                    }
                }
            }
            OutEncoding::Other(e) => {
                let mut enc = e.new_encoder();
                let mut rest = s;
                loop {
                    let need = enc.max_buffer_length_from_utf8_without_replacement(rest.len()).unwrap_or(rest.len() * 4 + 16);
                    let at = out.len();
                    out.resize(at + need.max(16), 0);
                    let (res, read, written) = enc.encode_from_utf8_without_replacement(rest, &mut out[at..], true);
                    out.truncate(at + written);
                    rest = &rest[read..];
                    match res {
                        encoding_rs::EncoderResult::InputEmpty => break,
                        encoding_rs::EncoderResult::OutputFull => {}
                        encoding_rs::EncoderResult::Unmappable(c) => unencodable(c, out)?,
                    }
                }
            }
        }
        Ok(())
    }
}

/// Splits an XML fragment into spans where character references may stand for a
/// character (text, attribute values: `true`) and where they may not (names,
/// comments, PIs, CDATA: `false`). `in_tag`: the fragment starts inside a start tag.
fn reference_spans(s: &[u8], in_tag: bool) -> Vec<(usize, usize, bool)> {
    #[derive(PartialEq, Clone, Copy)]
    enum St {
        Content,
        Tag,
        Value(u8),
        Until(&'static [u8]),
    }
    let refs = |st: St| matches!(st, St::Content | St::Value(_));
    let mut spans: Vec<(usize, usize, bool)> = Vec::new();
    let mut st = if in_tag { St::Tag } else { St::Content };
    let mut start = 0;
    let mut i = 0;
    let switch = |spans: &mut Vec<(usize, usize, bool)>, at: usize, from: St, start: &mut usize| {
        if at > *start {
            spans.push((*start, at, refs(from)));
        }
        *start = at;
    };
    while i < s.len() {
        let rest = &s[i..];
        match st {
            St::Content if rest[0] == b'<' => {
                let next = if rest.starts_with(b"<!--") {
                    St::Until(b"-->")
                } else if rest.starts_with(b"<![CDATA[") {
                    St::Until(b"]]>")
                } else if rest.starts_with(b"<?") {
                    St::Until(b"?>")
                } else {
                    St::Tag
                };
                switch(&mut spans, i, st, &mut start);
                st = next;
            }
            St::Tag if rest[0] == b'"' || rest[0] == b'\'' => {
                switch(&mut spans, i + 1, st, &mut start);
                st = St::Value(rest[0]);
            }
            St::Tag if rest[0] == b'>' => {
                switch(&mut spans, i + 1, st, &mut start);
                st = St::Content;
            }
            St::Value(q) if rest[0] == q => {
                switch(&mut spans, i, st, &mut start);
                st = St::Tag;
            }
            St::Until(end) if rest.starts_with(end) => {
                i += end.len();
                switch(&mut spans, i, st, &mut start);
                st = St::Content;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if s.len() > start {
        spans.push((start, s.len(), refs(st)));
    }
    spans
}

/// Escapes character data: `&`, `<`, `>` and CR (which would otherwise read as LF).
pub fn escape_text(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.bytes().any(|b| matches!(b, b'&' | b'<' | b'>' | b'\r')) {
        return s.into();
    }
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '\r' => o.push_str("&#xD;"),
            c => o.push(c),
        }
    }
    o.into()
}

/// Escapes an attribute value for the given quote: `&`, `<`, the quote, and TAB,
/// LF, CR (which attribute-value normalization would turn into spaces).
pub fn escape_attr(s: &str, quote: u8) -> std::borrow::Cow<'_, str> {
    if !s.bytes().any(|b| matches!(b, b'&' | b'<' | b'"' | b'\'' | b'\t' | b'\n' | b'\r')) {
        return s.into();
    }
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '"' if quote == b'"' => o.push_str("&quot;"),
            '\'' if quote == b'\'' => o.push_str("&apos;"),
            '\t' => o.push_str("&#x9;"),
            '\n' => o.push_str("&#xA;"),
            '\r' => o.push_str("&#xD;"),
            c => o.push(c),
        }
    }
    o.into()
}

/// Checks a fragment by parsing it inside a wrapper that declares the namespaces in
/// scope where it lands and repeats the document's internal subset (for its entities).
fn check_fragment(doc: &Document<'_>, place: Place<'_>, fragment: &[u8]) -> Result<(), EditError> {
    let mut w: Vec<u8> = Vec::with_capacity(fragment.len() + 256);
    if let Some(d) = doc.dtd() {
        if let Some(r) = &d.internal_subset {
            w.extend_from_slice(b"<!DOCTYPE w [");
            w.extend_from_slice(&doc.text()[r.clone()]);
            w.extend_from_slice(b"]>");
        }
    }
    let prefix_len;
    match place {
        Place::TopLevel => {
            // only comments, PIs and white space may stand beside the root element
            w.extend_from_slice(b"<w/>");
            prefix_len = w.len();
            w.extend_from_slice(fragment);
        }
        Place::RootElement => {
            // a comment first, so that an XML declaration in the fragment is an error
            w.extend_from_slice(b"<!---->");
            prefix_len = w.len();
            w.extend_from_slice(fragment);
        }
        Place::Content(context) => {
            w.extend_from_slice(b"<w");
            for (p, u) in context.namespaces() {
                if p == "xml" {
                    continue;
                }
                if p.is_empty() {
                    w.extend_from_slice(b" xmlns=\"");
                } else {
                    w.extend_from_slice(b" xmlns:");
                    w.extend_from_slice(p.as_bytes());
                    w.extend_from_slice(b"=\"");
                }
                w.extend_from_slice(escape_attr(u, b'"').as_bytes());
                w.push(b'"');
            }
            w.push(b'>');
            prefix_len = w.len();
            w.extend_from_slice(fragment);
            w.extend_from_slice(b"</w>");
        }
    }
    match Document::parse_with(&w, doc.options()) {
        Ok(_) => Ok(()),
        Err(e) => {
            let off = (e.offset() as usize).saturating_sub(prefix_len).min(fragment.len());
            let (line, col) = crate::error::line_column(fragment, off);
            Err(EditError::MalformedFragment(Error::with_position(e.kind().clone(), off as u64, line, col)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edited(src: &str, f: impl for<'x> FnOnce(&'x Document<'x>, &mut Editor<'x>)) -> String {
        let doc = Document::parse(src.as_bytes()).unwrap();
        let mut ed = Editor::new(&doc);
        f(&doc, &mut ed);
        String::from_utf8(ed.to_vec().unwrap()).unwrap()
    }

    #[test]
    fn no_edits_is_identity() {
        let src = "<?xml version='1.0'?>\n<a x='1'><b/>t&amp;<!--c--></a>\n";
        assert_eq!(edited(src, |_, _| {}), src);
    }

    #[test]
    fn remove_each_kind() {
        let src = "<a x='1' y=\"2\"><b>t</b>u<!--c--><?p d?><![CDATA[e]]></a>";
        let out = edited(src, |doc, ed| {
            let a = doc.root_element();
            ed.remove(a.attribute_node("y").unwrap()).unwrap();
            for c in a.children() {
                if c.kind() != NodeKind::Element {
                    ed.remove(c).unwrap();
                }
            }
        });
        assert_eq!(out, "<a x='1'><b>t</b></a>");
    }

    #[test]
    fn inserts_keep_call_order() {
        let out = edited("<a><b/></a>", |doc, ed| {
            let b = doc.root_element().first_element_child().unwrap();
            ed.insert_before(b, "<x/>").unwrap();
            ed.insert_before(b, "<y/>").unwrap();
            ed.insert_after(b, "<z/>").unwrap();
            ed.prepend_child(b, "1").unwrap();
            ed.append_child(b, "2").unwrap();
        });
        assert_eq!(out, "<a><x/><y/><b>12</b><z/></a>");
    }

    #[test]
    fn values_are_escaped() {
        let out = edited("<a x='1'>old</a>", |doc, ed| {
            let a = doc.root_element();
            ed.set_value(a.attribute_node("x").unwrap(), "it's <&>\"").unwrap();
            ed.set_value(a.first_child().unwrap(), "a<b & ]]> c").unwrap();
            ed.set_attribute(a, "y", "\"q\"\n").unwrap();
        });
        assert_eq!(out, "<a x='it&apos;s &lt;&amp;>\"' y=\"&quot;q&quot;&#xA;\">a&lt;b &amp; ]]&gt; c</a>");
        // and the result reads back as the values that were set
        let doc = Document::parse(out.as_bytes()).unwrap();
        assert_eq!(doc.root_element().attribute("x").unwrap(), "it's <&>\"");
        assert_eq!(doc.root_element().attribute("y").unwrap(), "\"q\"\n");
        assert_eq!(doc.root_element().text().unwrap(), "a<b & ]]> c");
    }

    #[test]
    fn empty_element_tag_receives_content() {
        let out = edited("<a><b x='1'/><c/></a>", |doc, ed| {
            let b = doc.root_element().first_element_child().unwrap();
            ed.append_child(b, "2").unwrap();
            ed.prepend_child(b, "1").unwrap();
            ed.insert_after(b, "<z/>").unwrap();
            ed.rename(b, "bb").unwrap();
            ed.set_attribute(b, "y", "v").unwrap();
        });
        assert_eq!(out, "<a><bb x='1' y=\"v\">12</bb><z/><c/></a>");
    }

    #[test]
    fn rename_start_and_end() {
        let out = edited("<a><b>x</b><b/></a>", |doc, ed| {
            for b in doc.root_element().element_children() {
                ed.rename(b, "c").unwrap();
            }
        });
        assert_eq!(out, "<a><c>x</c><c/></a>");
    }

    #[test]
    fn inner_edits_are_absorbed() {
        let out = edited("<a><b x='1'>t</b></a>", |doc, ed| {
            let b = doc.root_element().first_element_child().unwrap();
            ed.set_value(b.attribute_node("x").unwrap(), "2").unwrap();
            ed.remove(b).unwrap();
            ed.append_child(b, "<c/>").unwrap();
        });
        assert_eq!(out, "<a></a>");
    }

    #[test]
    fn partial_overlap_is_an_error() {
        let doc = Document::parse(b"<a>x\n  <b/>\n</a>").unwrap();
        let mut ed = Editor::new(&doc).remove_indentation(true);
        let b = doc.root_element().first_element_child().unwrap();
        let ws = doc.root_element().first_child().unwrap();
        ed.set_value(ws, "y").unwrap();
        ed.remove(b).unwrap();
        assert!(matches!(ed.to_vec(), Err(EditError::Conflict { .. })));
    }

    #[test]
    fn indentation_removed_with_element() {
        let out = edited("<a>\n  <b/>\n  <c/>\n</a>", |_, _| {});
        assert_eq!(out, "<a>\n  <b/>\n  <c/>\n</a>");
        let doc = Document::parse(b"<a>\n  <b/>\n  <c/>\n</a>").unwrap();
        let mut ed = Editor::new(&doc).remove_indentation(true);
        ed.remove(doc.root_element().first_element_child().unwrap()).unwrap();
        assert_eq!(ed.to_vec().unwrap(), b"<a>\n  <c/>\n</a>");
    }

    #[test]
    fn fragments_checked_in_namespace_context() {
        let doc = Document::parse(b"<a xmlns:p='urn:p'><b/></a>").unwrap();
        let mut ed = Editor::new(&doc).check_fragments(true);
        let b = doc.root_element().first_element_child().unwrap();
        assert!(ed.append_child(b, "<p:c/>").is_ok());
        assert!(matches!(ed.append_child(b, "<q:c/>"), Err(EditError::MalformedFragment(_))));
        assert!(matches!(ed.append_child(b, "<c>"), Err(EditError::MalformedFragment(_))));
        assert!(matches!(ed.insert_after(doc.root_element(), "<x/>"), Err(EditError::MalformedFragment(_))));
        assert!(ed.insert_after(doc.root_element(), "<!--ok-->").is_ok());
        assert!(matches!(ed.rename(b, "q:z"), Err(EditError::UndeclaredPrefix(_))));
    }

    #[test]
    fn utf16_document_is_written_in_utf16() {
        let src: Vec<u8> = std::iter::once(0xFEFFu16)
            .chain("<a>é</a>".encode_utf16())
            .flat_map(|u| u.to_le_bytes())
            .collect();
        let doc = Document::parse(&src).unwrap();
        let mut ed = Editor::new(&doc);
        ed.append_text(doc.root_element(), "ü").unwrap();
        let out = ed.to_vec().unwrap();
        let expect: Vec<u8> = std::iter::once(0xFEFFu16)
            .chain("<a>éü</a>".encode_utf16())
            .flat_map(|u| u.to_le_bytes())
            .collect();
        assert_eq!(out, expect);
    }

    #[test]
    fn into_document_continues() {
        let doc = Document::parse(b"<a><b/></a>").unwrap();
        let mut ed = Editor::new(&doc);
        ed.append_child(doc.root_element(), "<c/>").unwrap();
        let d2 = ed.into_document().unwrap();
        assert_eq!(d2.root_element().element_children().count(), 2);
    }
}
