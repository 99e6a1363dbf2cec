//! [`Node`]: a `Copy` handle to one node of a [`Document`], with navigation,
//! names, values and byte ranges, and the iterators over nodes.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use crate::chars::skip_ws;
use crate::index::*;
use crate::names::{NsId, Sym, NS_NONE};
use crate::text;

use super::{Document, REC_MARK, ROOT_MARK, TEXT_AFTER_MARK, TEXT_START_MARK};

/// The kind of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// The document node.
    Root,
    /// An element.
    Element,
    /// An attribute (namespace declarations included; see [`Node::is_namespace_declaration`]).
    Attribute,
    /// Character data between markup (entity and character references included).
    Text,
    /// A CDATA section.
    CData,
    /// A comment.
    Comment,
    /// A processing instruction.
    ProcessingInstruction,
}

/// A node's identity within its document: `Copy`, `Eq` and `Hash`, two words.
/// [`Node::id`] gives it and [`Document::node`] turns it back into the node.
///
/// What callers may rely on:
///
/// - **Stable within one document.** A document never changes once parsed
///   (edits write new bytes), so an id names the same node for the whole life
///   of its [`Document`], and two nodes of one document are equal exactly when
///   their ids are.
/// - **Meaningless across documents.** The same id in another document (even
///   one with the same bytes, or parsed by the same reused parser) names an
///   unrelated node or none: [`Document::node`] returns `None` for an id
///   outside the document's index, otherwise some node of it; it never
///   panics there, and using the node gives meaningless results or panics, never
///   undefined behaviour.
/// - **Not an order.** Ids do not compare in document order; use
///   [`Node::order_key`] or [`Node::document_order`].
/// - **Representation.** The fields are those of [`Node`] (see the table in its
///   documentation) and are private: they may change between versions, so an id
///   is no format to store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeId {
    /// [`Node`]'s `anchor`.
    pub(crate) anchor: u32,
    /// [`Node`]'s `owner_or_mark`.
    pub(crate) owner_or_mark: u32,
}

/// A handle to one node of a [`Document`]: a document reference and two
/// words, `Copy`. Two handles are equal when they name the same node of the
/// same document.
///
/// The two words say which node it is, with the [tape](Document::tape)'s word
/// indices (`docs/index-format.md`):
///
/// | node | `anchor` | `owner_or_mark` |
/// |---|---|---|
/// | the document (root) | `NONE` | `ROOT_MARK` |
/// | element, comment, PI, CDATA section | its record | `REC_MARK` |
/// | attribute or namespace declaration (written or defaulted) | its record | its element's record |
/// | text that starts an element's content | the element's record | `TEXT_START_MARK` |
/// | text after an element, comment, PI or CDATA section | that node's record | `TEXT_AFTER_MARK` |
///
/// Text has no record of its own: a text node is the gap that starts at the end
/// of its anchor's start tag (`TEXT_START_MARK`) or at the end of its anchor
/// (`TEXT_AFTER_MARK`) and runs to the next record's start or the end of the
/// parent's content. The marks are the top four `u32` values, which no record
/// index reaches (`tape::MAX_TAPE_WORDS`), so an owner is never taken for one.
#[derive(Clone, Copy)]
pub struct Node<'d> {
    pub(crate) doc: &'d Document<'d>,
    /// Word index of a record: the node's own, or the one a text node is
    /// anchored at; `NONE` for the root.
    pub(crate) anchor: u32,
    /// `REC_MARK`, `ROOT_MARK`, `TEXT_START_MARK` or `TEXT_AFTER_MARK`, or for
    /// an attribute (or namespace declaration) its element's record.
    pub(crate) owner_or_mark: u32,
}

// Handles stay a pointer and two words; ids, two words.
const _: () = assert!(std::mem::size_of::<NodeId>() == 8 && std::mem::size_of::<Node<'_>>() <= 16);
// No record index reaches a mark (see the table above).
const _: () = assert!(crate::tape::MAX_TAPE_WORDS < TEXT_AFTER_MARK as usize && TEXT_AFTER_MARK < TEXT_START_MARK);
const _: () = assert!(TEXT_START_MARK < ROOT_MARK && ROOT_MARK < REC_MARK && REC_MARK == u32::MAX);

impl PartialEq for Node<'_> {
    fn eq(&self, o: &Self) -> bool {
        std::ptr::eq(self.doc, o.doc) && self.anchor == o.anchor && self.owner_or_mark == o.owner_or_mark
    }
}
impl Eq for Node<'_> {}
impl std::hash::Hash for Node<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.anchor.hash(h);
        self.owner_or_mark.hash(h);
    }
}

impl fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            NodeKind::Element | NodeKind::Attribute => write!(f, "{:?}({})@{}", self.kind(), self.name(), self.range().start),
            k => write!(f, "{:?}@{}", k, self.range().start),
        }
    }
}

impl<'d> Node<'d> {
    #[inline]
    pub(super) fn rec(doc: &'d Document<'d>, i: u32) -> Node<'d> {
        Node { doc, anchor: i, owner_or_mark: REC_MARK }
    }

    /// The document this node belongs to.
    pub fn document(&self) -> &'d Document<'d> {
        self.doc
    }

    /// This node's id.
    pub fn id(&self) -> NodeId {
        NodeId { anchor: self.anchor, owner_or_mark: self.owner_or_mark }
    }

    /// The word index of the node's own record in [`Document::tape`]: for
    /// elements, attributes (and namespace declarations), comments, processing
    /// instructions and CDATA sections; `None` for the root and text nodes. O(1).
    #[inline]
    pub fn record(&self) -> Option<u32> {
        match self.owner_or_mark {
            ROOT_MARK | TEXT_START_MARK | TEXT_AFTER_MARK => None,
            _ => Some(self.anchor),
        }
    }

    /// The node's kind.
    #[inline]
    pub fn kind(&self) -> NodeKind {
        match self.owner_or_mark {
            ROOT_MARK => NodeKind::Root,
            TEXT_START_MARK | TEXT_AFTER_MARK => NodeKind::Text,
            REC_MARK => match self.doc.kind_at(self.anchor) {
                K_ELEM => NodeKind::Element,
                K_COMMENT => NodeKind::Comment,
                K_PI => NodeKind::ProcessingInstruction,
                K_CDATA => NodeKind::CData,
                _ => NodeKind::Attribute,
            },
            _ => NodeKind::Attribute,
        }
    }

    /// Is this an element?
    #[inline]
    pub fn is_element(&self) -> bool {
        self.owner_or_mark == REC_MARK && self.doc.kind_at(self.anchor) == K_ELEM
    }
    /// Is this a text node (not CDATA)?
    #[inline]
    pub fn is_text(&self) -> bool {
        matches!(self.owner_or_mark, TEXT_START_MARK | TEXT_AFTER_MARK)
    }
    /// Is this the document node?
    pub fn is_root(&self) -> bool {
        self.owner_or_mark == ROOT_MARK
    }
    /// Is this an attribute (or namespace declaration)?
    pub fn is_attribute(&self) -> bool {
        self.kind() == NodeKind::Attribute
    }
    /// True for `xmlns` and `xmlns:p` attributes.
    pub fn is_namespace_declaration(&self) -> bool {
        self.is_attribute() && matches!(self.doc.kind_at(self.anchor), K_NSDECL | K_NSDECL_DEFAULT)
    }

    /// For an attribute (or namespace declaration): `true` when it is written in
    /// the start tag, `false` when an attribute-list declaration of the internal
    /// subset supplies it (XML 1.0 §3.3.2; the infoset's `[specified]`). A
    /// defaulted attribute has no bytes in the document: its [`Node::range`] is
    /// the empty range at the `>` (or `/>`) that ends its element's start tag,
    /// where it would be written; [`Node::value_range`] is `None`; [`Node::value`]
    /// is the declaration's default normalized for its type. `true` for other nodes.
    pub fn is_specified(&self) -> bool {
        !(self.is_attribute() && self.doc.is_default_at(self.anchor))
    }

    /// For an attribute: whether it is an ID — declared with type `ID` in the
    /// internal subset (XML 1.0 §3.3.1), or `xml:id` (xml:id 1.0).
    pub fn is_id(&self) -> bool {
        if !self.is_attribute() || self.is_namespace_declaration() {
            return false;
        }
        if self.namespace_id() == crate::names::NS_XML && self.local_name() == "id" {
            return true;
        }
        let Some(dtd) = self.doc.dtd() else { return false };
        let owner = self.doc.names.qname(self.doc.sym_at(self.owner_or_mark));
        dtd.attribute(owner, self.name()).is_some_and(|a| a.ty == crate::dtd::AttType::Id)
    }

    /// The interned symbol of an element or attribute.
    #[inline]
    pub fn sym(&self) -> Option<Sym> {
        match self.kind() {
            NodeKind::Element | NodeKind::Attribute => Some(self.doc.sym_at(self.anchor)),
            _ => None,
        }
    }

    /// Qualified name as written (`p:local`) of an element or attribute; the target
    /// of a processing instruction; "" for other nodes.
    pub fn name(&self) -> &'d str {
        match self.kind() {
            NodeKind::Element | NodeKind::Attribute => self.doc.names.qname(self.doc.sym_at(self.anchor)),
            NodeKind::ProcessingInstruction => self.pi_parts().0,
            _ => "",
        }
    }
    /// Local part of the name.
    pub fn local_name(&self) -> &'d str {
        match self.sym() {
            Some(s) => self.doc.names.local(s),
            None => self.name(),
        }
    }
    /// Prefix of the name ("" when none).
    pub fn prefix(&self) -> &'d str {
        self.sym().map_or("", |s| self.doc.names.prefix(s))
    }
    /// Resolved namespace URI of an element or attribute (`None` for no namespace).
    pub fn namespace_uri(&self) -> Option<&'d str> {
        let s = self.sym()?;
        let ns = self.doc.names.ns_id(s);
        if ns == NS_NONE {
            None
        } else {
            Some(self.doc.names.ns_by_id(ns))
        }
    }
    /// Namespace id of an element or attribute.
    pub fn namespace_id(&self) -> NsId {
        self.sym().map_or(NS_NONE, |s| self.doc.names.ns_id(s))
    }

    /// Byte range of the node in [`Document::text`]: an element with its subtree, an
    /// attribute from its name to its closing quote, a text node's characters.
    pub fn range(&self) -> Range<usize> {
        let d = self.doc;
        match self.owner_or_mark {
            ROOT_MARK => 0..d.text().len(),
            TEXT_START_MARK | TEXT_AFTER_MARK => self.text_range(),
            REC_MARK => d.start_at(self.anchor)..d.end_at(self.anchor),
            owner if d.is_default_at(self.anchor) => {
                let at = d.default_anchor(owner);
                at..at
            }
            _ => d.start_at(self.anchor)..d.end_at(self.anchor),
        }
    }

    /// The node's exact bytes (see [`Node::range`]).
    pub fn raw(&self) -> &'d [u8] {
        &self.doc.text()[self.range()]
    }

    /// 1-based line and column of the node's first byte, computed on demand.
    pub fn position(&self) -> (u32, u32) {
        self.doc.line_column(self.range().start)
    }

    fn text_range(&self) -> Range<usize> {
        let d = self.doc;
        if self.owner_or_mark == TEXT_START_MARK {
            let s = d.start_tag_end(self.anchor);
            let e = match d.first_child_record(self.anchor) {
                Some(c) => d.start_at(c),
                None => d.content_end(self.anchor),
            };
            s..e
        } else {
            let s = d.end_at(self.anchor);
            let e = match d.next_sibling_record(self.anchor) {
                Some(n) => d.start_at(n),
                None => d.content_end(d.parent_at(self.anchor)),
            };
            s..e
        }
    }

    /// The parent: an element or the root. `None` for the root.
    pub fn parent(&self) -> Option<Node<'d>> {
        let d = self.doc;
        let p = match self.owner_or_mark {
            ROOT_MARK => return None,
            TEXT_START_MARK => self.anchor,
            TEXT_AFTER_MARK => d.parent_at(self.anchor),
            REC_MARK => match d.kind_at(self.anchor) {
                K_ELEM | K_COMMENT | K_PI | K_CDATA => d.parent_at(self.anchor),
                _ => unreachable_attr(),
            },
            owner => owner,
        };
        Some(if p == NONE { d.root() } else { Node::rec(d, p) })
    }

    /// The parent if it is an element.
    pub fn parent_element(&self) -> Option<Node<'d>> {
        self.parent().filter(|p| p.is_element())
    }

    /// First child (any kind; text included). Attributes are not children.
    pub fn first_child(&self) -> Option<Node<'d>> {
        let d = self.doc;
        match self.owner_or_mark {
            ROOT_MARK => {
                // first top-level record
                if d.tape.is_empty() {
                    None
                } else {
                    Some(Node::rec(d, 0))
                }
            }
            REC_MARK if d.kind_at(self.anchor) == K_ELEM => {
                if let Some(r) = d.bare_leaf_content(self.anchor) {
                    return (!r.is_empty()).then_some(Node { doc: d, anchor: self.anchor, owner_or_mark: TEXT_START_MARK });
                }
                // text before the first child record (or the end tag)? Without child
                // records the content is text or nothing: look at one byte.
                let first = d.first_child_record(self.anchor);
                let ste = d.start_tag_end(self.anchor);
                let text = match first {
                    Some(c) => ste < d.start_at(c),
                    None => ste < d.end_at(self.anchor) && d.text().get(ste) != Some(&b'<'),
                };
                if text {
                    return Some(Node { doc: d, anchor: self.anchor, owner_or_mark: TEXT_START_MARK });
                }
                first.map(|c| Node::rec(d, c))
            }
            _ => None,
        }
    }

    /// Next sibling (any kind).
    pub fn next_sibling(&self) -> Option<Node<'d>> {
        let d = self.doc;
        match self.owner_or_mark {
            ROOT_MARK => None,
            TEXT_START_MARK => d.first_child_record(self.anchor).map(|c| Node::rec(d, c)),
            TEXT_AFTER_MARK => d.next_sibling_record(self.anchor).map(|c| Node::rec(d, c)),
            REC_MARK if !is_attr_kind(d.kind_at(self.anchor)) => {
                if d.parent_at(self.anchor) != NONE {
                    let t = Node { doc: d, anchor: self.anchor, owner_or_mark: TEXT_AFTER_MARK };
                    if !t.text_range().is_empty() {
                        return Some(t);
                    }
                }
                d.next_sibling_record(self.anchor).map(|c| Node::rec(d, c))
            }
            _ => None,
        }
    }

    /// Previous sibling (any kind). O(number of preceding siblings).
    pub fn prev_sibling(&self) -> Option<Node<'d>> {
        // the text before an element's first child record is its first child
        if self.is_attribute() || self.owner_or_mark == TEXT_START_MARK {
            return None;
        }
        let parent = self.parent()?;
        let mut prev = None;
        for c in parent.children() {
            if c == *self {
                return prev;
            }
            prev = Some(c);
        }
        None
    }

    /// Last child (any kind). O(number of children).
    pub fn last_child(&self) -> Option<Node<'d>> {
        self.children().last()
    }

    /// The children, in document order (attributes excluded).
    pub fn children(&self) -> Children<'d> {
        Children { next: self.first_child() }
    }

    /// The element children.
    pub fn element_children(&self) -> impl Iterator<Item = Node<'d>> + 'd {
        let d = self.doc;
        let mut next = match self.owner_or_mark {
            ROOT_MARK => Some(d.root),
            REC_MARK if d.kind_at(self.anchor) == K_ELEM => d.first_child_record(self.anchor),
            _ => None,
        };
        std::iter::from_fn(move || loop {
            let c = next?;
            next = d.next_sibling_record(c);
            if d.kind_at(c) == K_ELEM {
                return Some(Node::rec(d, c));
            }
        })
    }

    /// First element child.
    pub fn first_element_child(&self) -> Option<Node<'d>> {
        self.element_children().next()
    }

    /// Next sibling that is an element.
    pub fn next_element_sibling(&self) -> Option<Node<'d>> {
        let d = self.doc;
        let mut r = match self.owner_or_mark {
            REC_MARK if !is_attr_kind(d.kind_at(self.anchor)) => d.next_sibling_record(self.anchor),
            TEXT_START_MARK => d.first_child_record(self.anchor),
            TEXT_AFTER_MARK => d.next_sibling_record(self.anchor),
            _ => None,
        };
        while let Some(c) = r {
            if d.kind_at(c) == K_ELEM {
                return Some(Node::rec(d, c));
            }
            r = d.next_sibling_record(c);
        }
        None
    }

    /// Previous sibling that is an element.
    pub fn prev_element_sibling(&self) -> Option<Node<'d>> {
        let mut p = self.prev_sibling();
        while let Some(n) = p {
            if n.is_element() {
                return Some(n);
            }
            p = n.prev_sibling();
        }
        None
    }

    /// This node and its descendants in document order (attributes excluded).
    pub fn descendants(&self) -> Descendants<'d> {
        Descendants { root: *self, next: Some(*self) }
    }

    /// The descendant elements of this node (not itself) in document order: a
    /// straight scan of the tape between this element's record and its *next* word,
    /// touching no text. For the root node: every element.
    pub fn descendant_elements(&self) -> DescendantElements<'d> {
        let d = self.doc;
        let (from, to) = match self.owner_or_mark {
            ROOT_MARK => (0, d.tape.len() as u32),
            REC_MARK if d.kind_at(self.anchor) == K_ELEM => (self.anchor + ELEM_WORDS, d.tape[self.anchor as usize + 2]),
            _ => (0, 0),
        };
        DescendantElements { doc: d, i: from, end: to }
    }

    /// The ancestors, nearest first (the root node last). Excludes this node.
    pub fn ancestors(&self) -> impl Iterator<Item = Node<'d>> + 'd {
        let mut cur = self.parent();
        std::iter::from_fn(move || {
            let c = cur?;
            cur = c.parent();
            Some(c)
        })
    }

    /// Is this node `apex` or inside its subtree? An attribute or namespace
    /// declaration is inside its element's subtree; every node of a document is
    /// within its root. Both nodes must come from the same document.
    pub fn is_within(&self, apex: Node<'d>) -> bool {
        apex.kind() == NodeKind::Root || *self == apex || self.ancestors().any(|a| a == apex)
    }

    /// Depth: 0 for the root, 1 for the root element.
    pub fn depth(&self) -> usize {
        self.ancestors().count()
    }

    /// The attributes (namespace declarations excluded), in document order.
    pub fn attributes(&self) -> impl Iterator<Item = Node<'d>> + 'd {
        self.all_attributes().filter(|a| matches!(self.doc.kind_at(a.anchor), K_ATTR | K_ATTR_DEFAULT))
    }

    /// Namespace declarations on this element (`xmlns`, `xmlns:p`), in document order.
    pub fn namespace_declarations(&self) -> impl Iterator<Item = Node<'d>> + 'd {
        self.all_attributes().filter(|a| matches!(self.doc.kind_at(a.anchor), K_NSDECL | K_NSDECL_DEFAULT))
    }

    /// Attributes and namespace declarations in document order.
    pub fn all_attributes(&self) -> impl Iterator<Item = Node<'d>> + 'd {
        let d = self.doc;
        let (mut j, end) = if self.is_element() { (self.anchor + ELEM_WORDS, d.tape[self.anchor as usize + 2]) } else { (0, 0) };
        let owner = self.anchor;
        std::iter::from_fn(move || {
            if j < end && is_attr_kind(d.kind_at(j)) {
                let n = Node { doc: d, anchor: j, owner_or_mark: owner };
                j += ATTR_WORDS;
                Some(n)
            } else {
                None
            }
        })
    }

    /// The attribute node with qualified name `qname`.
    pub fn attribute_node(&self, qname: &str) -> Option<Node<'d>> {
        self.attributes().find(|a| a.name() == qname)
    }

    /// The normalized value of the attribute with qualified name `qname`.
    ///
    /// ```
    /// let doc = vtdx_core::Document::parse(b"<a x='1 &amp; 2'/>").unwrap();
    /// assert_eq!(doc.root_element().attribute("x").as_deref(), Some("1 & 2"));
    /// ```
    ///
    /// Attributes defaulted by the internal subset are found too (unless parsed
    /// with [`crate::ParseOptions::attribute_defaults`] off):
    ///
    /// ```
    /// let doc = vtdx_core::Document::parse(b"<!DOCTYPE a [<!ATTLIST a v NMTOKEN ' 1 '>]><a/>").unwrap();
    /// assert_eq!(doc.root_element().attribute("v").as_deref(), Some("1"));
    /// assert!(!doc.root_element().attribute_node("v").unwrap().is_specified());
    /// ```
    pub fn attribute(&self, qname: &str) -> Option<Cow<'d, str>> {
        self.attribute_node(qname).map(|a| a.value())
    }

    /// The value the internal DTD subset gives an attribute this element does not
    /// specify (`<!ATTLIST e a CDATA 'v'>` or `#FIXED 'v'`), normalized for its
    /// declared type (XML 1.0 §5.1: a non-validating processor supplies these).
    /// Looked up in the declarations, whatever
    /// [`crate::ParseOptions::attribute_defaults`] says; with that option on (the
    /// default) such attributes are also attribute nodes of the element
    /// ([`Node::attributes`], [`Node::is_specified`] `false`).
    pub fn default_attribute(&self, qname: &str) -> Option<Cow<'d, str>> {
        if !self.is_element() {
            return None;
        }
        let dtd = self.doc.dtd()?;
        // normalized once, when the DOCTYPE was read
        dtd.attribute(self.name(), qname)?.value.as_deref().map(Cow::Borrowed)
    }

    /// The attributes the internal DTD subset supplies to this element because the
    /// document does not specify them: (qualified name, normalized value), in
    /// declaration order.
    pub fn default_attributes(&self) -> Vec<(&'d str, Cow<'d, str>)> {
        let Some(dtd) = self.doc.dtd().filter(|_| self.is_element()) else { return Vec::new() };
        let mut out = Vec::new();
        for decl in dtd.attributes_of(self.name()) {
            let name = decl.name.as_str();
            if out.iter().any(|(n, _)| *n == name) || self.all_attributes().any(|a| a.name() == name) {
                continue;
            }
            if let Some(v) = self.default_attribute(name) {
                out.push((name, v));
            }
        }
        out
    }

    /// The value of the attribute with expanded name (`ns`, `local`); `ns = None` for no namespace.
    pub fn attribute_ns(&self, ns: Option<&str>, local: &str) -> Option<Cow<'d, str>> {
        self.attributes().find(|a| a.local_name() == local && a.namespace_uri() == ns).map(|a| a.value())
    }

    /// The namespace declarations in scope on an element, nearest first, each
    /// prefix once ("" for the default namespace). The `xml` prefix is included;
    /// an undeclared default (`xmlns=""`) is not.
    pub fn namespaces(&self) -> Vec<(&'d str, &'d str)> {
        let mut out: Vec<(&'d str, &'d str)> = Vec::new();
        let mut seen: Vec<&'d str> = Vec::new();
        let mut cur = if self.is_element() { Some(*self) } else { self.parent_element() };
        while let Some(e) = cur {
            for a in e.namespace_declarations() {
                let prefix = if a.name() == "xmlns" { "" } else { a.local_name() };
                if seen.contains(&prefix) {
                    continue;
                }
                seen.push(prefix);
                let uri = self.doc.names.ns_by_id(ns_of_decl(&a));
                if !uri.is_empty() {
                    out.push((prefix, uri));
                }
            }
            cur = e.parent_element();
        }
        if !seen.contains(&"xml") {
            out.push(("xml", crate::names::XML_NAMESPACE));
        }
        out
    }

    /// The URI bound to `prefix` ("" for the default namespace) in scope here.
    pub fn lookup_namespace(&self, prefix: &str) -> Option<&'d str> {
        self.namespaces().into_iter().find(|(p, _)| *p == prefix).map(|(_, u)| u)
    }

    /// The node's own text, decoded: a text node's characters (references resolved,
    /// line ends normalized), a CDATA section's content, an attribute's normalized
    /// value, a comment's content, a processing instruction's data, and for an
    /// element the text before its first child element, comment or processing
    /// instruction: its leading text and CDATA children, concatenated (lxml's and
    /// roxmltree's `.text`, which merge CDATA sections into text). `None` for the
    /// root and for elements that do not start with text or CDATA.
    ///
    /// ```
    /// let doc = vtdx_core::Document::parse(b"<a>x<![CDATA[y]]>z<b/>w</a>").unwrap();
    /// assert_eq!(doc.root_element().text().as_deref(), Some("xyz"));
    /// ```
    pub fn text(&self) -> Option<Cow<'d, str>> {
        match self.kind() {
            NodeKind::Root => None,
            NodeKind::Element => {
                let textual = |n: &Node<'d>| matches!(n.kind(), NodeKind::Text | NodeKind::CData);
                let first = self.first_child().filter(textual)?;
                let mut next = first.next_sibling().filter(textual);
                if next.is_none() {
                    return Some(first.value());
                }
                let mut s = first.value().into_owned();
                while let Some(n) = next {
                    s.push_str(&n.value());
                    next = n.next_sibling().filter(textual);
                }
                Some(Cow::Owned(s))
            }
            _ => Some(self.value()),
        }
    }

    /// The node's value as XPath defines the string-value: text and CDATA content,
    /// attribute values, comment content, PI data; for elements and the root the
    /// concatenation of all descendant text and CDATA.
    pub fn value(&self) -> Cow<'d, str> {
        let d = self.doc;
        let t = d.text();
        match self.kind() {
            NodeKind::Text => text::decode_content(d, self.text_range()),
            NodeKind::CData => {
                let r = self.range();
                text::normalize_newlines(&t[r.start + 9..r.end - 3])
            }
            NodeKind::Comment => {
                let r = self.range();
                text::normalize_newlines(&t[r.start + 4..r.end - 3])
            }
            NodeKind::ProcessingInstruction => Cow::Borrowed(self.pi_parts().1).map_newlines(),
            NodeKind::Attribute => {
                if d.is_default_at(self.anchor) {
                    return Cow::Borrowed(d.default_decl(self.anchor).and_then(|a| a.value.as_deref()).unwrap_or(""));
                }
                let r = d.attr_value_range(self.anchor);
                text::attribute_value(d, self.owner_or_mark, self.anchor, r)
            }
            NodeKind::Element | NodeKind::Root => {
                let mut out: Option<Cow<'d, str>> = None;
                for n in self.descendants() {
                    if matches!(n.kind(), NodeKind::Text | NodeKind::CData) {
                        let v = n.value();
                        match &mut out {
                            None => out = Some(v),
                            Some(o) => o.to_mut().push_str(&v),
                        }
                    }
                }
                out.unwrap_or(Cow::Borrowed(""))
            }
        }
    }

    /// Processing instruction (target, data). Data excludes the whitespace after the target.
    fn pi_parts(&self) -> (&'d str, &'d str) {
        let d = self.doc;
        let t = d.text();
        let r = d.start_at(self.anchor)..d.end_at(self.anchor);
        let ne = crate::chars::scan_name(t, r.start + 2).unwrap_or(r.start + 2);
        let target = std::str::from_utf8(&t[r.start + 2..ne]).unwrap_or("");
        let ds = skip_ws(t, ne).min(r.end - 2);
        let data = std::str::from_utf8(&t[ds..r.end - 2]).unwrap_or("");
        (target, data)
    }

    /// A processing instruction's target.
    pub fn pi_target(&self) -> Option<&'d str> {
        (self.kind() == NodeKind::ProcessingInstruction).then(|| self.pi_parts().0)
    }

    /// The order of two nodes of the same document.
    pub fn document_order(&self, other: &Node<'_>) -> std::cmp::Ordering {
        self.order_key().cmp(&other.order_key())
    }

    /// A key that sorts nodes of one document in document order, distinct for
    /// distinct nodes.
    #[inline]
    pub fn order_key(&self) -> u64 {
        // The start offset (cheaper than `range()` for attributes), above 24 bits
        // that tell apart the defaulted attributes of an element: they all sit at
        // the `>` of its start tag, where no other node starts.
        //
        // A text node gets the key just below that of the offset where it ends: no
        // node starts inside it, and what follows starts at or after that offset.
        // The end is the next record's start, or the end of the element (the end
        // tag is no node): words of the tape, no look at the bytes, which for the
        // text of a large document are seldom in cache.
        let d = self.doc;
        match self.owner_or_mark {
            ROOT_MARK => 0,
            TEXT_START_MARK => {
                let end = match d.first_child_record(self.anchor) {
                    Some(c) => d.start_at(c),
                    None => d.end_at(self.anchor),
                };
                ((end as u64 + 1) << 24) - 1
            }
            TEXT_AFTER_MARK => {
                let end = match d.next_sibling_record(self.anchor) {
                    Some(n) => d.start_at(n),
                    None => d.end_at(d.parent_at(self.anchor)),
                };
                ((end as u64 + 1) << 24) - 1
            }
            REC_MARK => (self.doc.start_at(self.anchor) as u64 + 1) << 24,
            owner if self.doc.is_default_at(self.anchor) => {
                let nth = ((self.anchor - owner - ELEM_WORDS) / ATTR_WORDS) as u64;
                ((self.doc.default_anchor(owner) as u64 + 1) << 24) | (nth + 1).min((1 << 24) - 1)
            }
            _ => (self.doc.start_at(self.anchor) as u64 + 1) << 24,
        }
    }

    /// For an element: is it written as an empty-element tag (`<a/>`)?
    pub fn is_empty_element_tag(&self) -> bool {
        self.is_element() && {
            let e = self.doc.end_at(self.anchor);
            e >= 2 && self.doc.text()[e - 2] == b'/'
        }
    }

    /// For an element: byte range of its start tag.
    pub fn start_tag_range(&self) -> Option<Range<usize>> {
        self.is_element().then(|| self.doc.start_at(self.anchor)..self.doc.start_tag_end(self.anchor))
    }

    /// For an element whose content is character data only, with no reference and
    /// no CR (so its bytes are its text as they stand, e.g. `<price>9.5</price>`):
    /// those bytes. `None` for other nodes and for content with child elements,
    /// comments, PIs, CDATA, references or CRs. One short scan, no allocation.
    pub fn plain_content(&self) -> Option<&'d [u8]> {
        if self.owner_or_mark == REC_MARK {
            if let Some(r) = self.doc.bare_leaf_content(self.anchor) {
                let c = &self.doc.text()[r];
                // (short contents, the usual ones, cost less than a call to memchr2)
                let plain =
                    if c.len() <= 32 { !c.iter().any(|&b| b == b'&' || b == b'\r') } else { memchr::memchr2(b'&', b'\r', c).is_none() };
                return plain.then_some(c);
            }
        }
        if !self.is_element() || self.doc.after_attrs(self.anchor) < self.doc.next_at(self.anchor) {
            return None;
        }
        let t = self.doc.text();
        let cs = self.doc.start_tag_end(self.anchor);
        if cs >= self.doc.end_at(self.anchor) {
            return Some(&[]); // an empty-element tag
        }
        let p = crate::chars::find3(t, cs, b'<', b'&', b'\r')?;
        (t[p] == b'<').then(|| &t[cs..p])
    }

    /// For an element: byte range of its content (between start and end tag).
    pub fn content_range(&self) -> Option<Range<usize>> {
        self.is_element().then(|| self.doc.start_tag_end(self.anchor)..self.doc.content_end(self.anchor))
    }

    /// For an attribute written in the start tag: byte range of the raw value
    /// (between the quotes). `None` for other nodes and for defaulted attributes
    /// ([`Node::is_specified`]).
    pub fn value_range(&self) -> Option<Range<usize>> {
        (self.is_attribute() && !self.doc.is_default_at(self.anchor)).then(|| self.doc.attr_value_range(self.anchor))
    }
}

fn ns_of_decl(a: &Node<'_>) -> NsId {
    // The URI a declaration binds: resolve it as written.
    let v = a.value();
    a.doc.names.find_ns(&v).unwrap_or(NS_NONE)
}

/// `parent` of a record that is not an element, comment, PI or CDATA section
/// but was made as one: attribute records never are (their nodes carry their owner).
#[cold]
fn unreachable_attr() -> u32 {
    debug_assert!(false, "a node made for an attribute record without its owner");
    NONE
}

trait MapNewlines<'d> {
    fn map_newlines(self) -> Cow<'d, str>;
}
impl<'d> MapNewlines<'d> for Cow<'d, str> {
    fn map_newlines(self) -> Cow<'d, str> {
        match self {
            Cow::Borrowed(s) => text::normalize_newlines(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(text::normalize_newlines(s.as_bytes()).into_owned()),
        }
    }
}

/// Iterator over the descendant elements of a node, from [`Node::descendant_elements`].
#[derive(Clone)]
pub struct DescendantElements<'d> {
    doc: &'d Document<'d>,
    i: u32,
    end: u32,
}

impl<'d> Iterator for DescendantElements<'d> {
    type Item = Node<'d>;
    #[inline]
    fn next(&mut self) -> Option<Node<'d>> {
        while self.i < self.end {
            let i = self.i;
            let k = self.doc.kind_at(i);
            self.i += words_of(k);
            if k == K_ELEM {
                return Some(Node::rec(self.doc, i));
            }
        }
        None
    }
}

/// Iterator over a node's children.
#[derive(Clone)]
pub struct Children<'d> {
    next: Option<Node<'d>>,
}

impl<'d> Iterator for Children<'d> {
    type Item = Node<'d>;
    #[inline]
    fn next(&mut self) -> Option<Node<'d>> {
        let n = self.next?;
        self.next = n.next_sibling();
        Some(n)
    }
}

/// Iterator over a node and its descendants in document order.
#[derive(Clone)]
pub struct Descendants<'d> {
    root: Node<'d>,
    next: Option<Node<'d>>,
}

impl<'d> Iterator for Descendants<'d> {
    type Item = Node<'d>;
    fn next(&mut self) -> Option<Node<'d>> {
        let n = self.next?;
        // advance: first child, else next sibling of self or an ancestor below root
        self.next = match n.first_child() {
            Some(c) => Some(c),
            None => {
                let mut cur = n;
                loop {
                    if cur == self.root {
                        break None;
                    }
                    if let Some(s) = cur.next_sibling() {
                        break Some(s);
                    }
                    match cur.parent() {
                        Some(p) if p != self.root => cur = p,
                        _ => break None,
                    }
                }
            }
        };
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn handles_are_small_and_threadsafe() {
        assert_send_sync::<Document<'static>>();
        assert_send_sync::<Node<'static>>();
        assert!(std::mem::size_of::<Node<'_>>() <= 16);
    }

    #[test]
    fn navigation_with_text_gaps() {
        let doc = Document::parse(b"<a> x <b>y</b>z<!--c--><?p d?><![CDATA[e]]></a>").unwrap();
        let a = doc.root_element();
        let kinds: Vec<_> = a.children().map(|c| (c.kind(), c.value().into_owned())).collect();
        assert_eq!(
            kinds,
            vec![
                (NodeKind::Text, " x ".to_string()),
                (NodeKind::Element, "y".to_string()),
                (NodeKind::Text, "z".to_string()),
                (NodeKind::Comment, "c".to_string()),
                (NodeKind::ProcessingInstruction, "d".to_string()),
                (NodeKind::CData, "e".to_string()),
            ]
        );
        assert_eq!(a.value(), " x yze");
        let b = a.first_element_child().unwrap();
        assert_eq!(b.parent(), Some(a));
        assert_eq!(b.prev_sibling().unwrap().value(), " x ");
        assert_eq!(b.raw(), b"<b>y</b>");
        assert_eq!(a.last_child().unwrap().kind(), NodeKind::CData);
        assert_eq!(doc.root().first_child(), Some(a));
        assert_eq!(a.descendants().count(), 8);
    }

    #[test]
    fn element_text_is_the_leading_text_and_cdata() {
        // expected values: lxml 6.1 (`etree.fromstring(doc).text`, with and
        // without strip_cdata), which merges CDATA sections into text
        let cases: [(&[u8], Option<&str>); 8] = [
            (b"<a>x<![CDATA[y]]>z</a>", Some("xyz")),
            (b"<a>x<![CDATA[y]]>z<b/>w</a>", Some("xyz")),
            (b"<a><![CDATA[y]]><!--c-->z</a>", Some("y")),
            (b"<a>x<?p?>y</a>", Some("x")),
            (b"<a>x&amp;<![CDATA[&]]></a>", Some("x&&")),
            (b"<a><![CDATA[]]></a>", Some("")),
            (b"<a><b/>x</a>", None),
            (b"<a></a>", None),
        ];
        for (src, want) in cases {
            let doc = Document::parse(src).unwrap();
            assert_eq!(doc.root_element().text().as_deref(), want, "{}", String::from_utf8_lossy(src));
        }
    }
}
