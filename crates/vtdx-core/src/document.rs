//! [`Document`]: the bytes plus their token index, with the document-wide
//! lookups. The handle to one node, [`Node`], is in `document/node.rs`.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use memchr::memrchr;

use crate::chars::skip_ws;
use crate::dtd::Dtd;
use crate::error::Error;
use crate::index::*;
use crate::input::{self, SourceEncoding};
use crate::names::{Names, Sym};
use crate::options::ParseOptions;
use crate::parser::{DeclSpans, Parser, XmlDecl};

mod node;

pub use node::{Children, DescendantElements, Descendants, Node, NodeId, NodeKind};

/// Where the bytes of a document live.
pub(crate) enum Bytes<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
    #[cfg(feature = "mmap")]
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for Bytes<'_> {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Borrowed(b) => b,
            Bytes::Owned(v) => v,
            #[cfg(feature = "mmap")]
            Bytes::Mapped(m) => m,
        }
    }
}

/// The UTF-8 text the index describes: the source itself (after a BOM), or an owned
/// buffer (transcoded from another encoding, or with entity references expanded).
pub(crate) enum Text {
    /// The source after this many bytes (a byte-order mark).
    Source(usize),
    /// A buffer of its own.
    Owned(Vec<u8>),
}

/// A parsed document: the input bytes and the token index over them.
///
/// Nothing is copied or decoded while parsing (for a UTF-8 input); names,
/// text and attribute values are decoded when asked for. `Document` is
/// `Send + Sync`: share it between threads by reference.
pub struct Document<'a> {
    pub(crate) source: Bytes<'a>,
    pub(crate) text: Text,
    pub(crate) tape: Vec<u32>,
    pub(crate) names: std::sync::Arc<Names>,
    pub(crate) dtd: Option<Box<Dtd>>,
    pub(crate) decl: Option<DeclSpans>,
    /// `decl` read, on the first call of [`Document::xml_declaration`].
    pub(crate) decl_read: std::sync::OnceLock<Box<XmlDecl>>,
    pub(crate) encoding: SourceEncoding,
    /// The record of the document element.
    pub(crate) root: u32,
    pub(crate) opts: ParseOptions,
    /// References to entities whose replacement text holds markup, expanded in
    /// `text`, in document order.
    pub(crate) expansions: Vec<EntityExpansion>,
}

/// A reference to an entity whose replacement text holds markup, which the
/// parser replaced by its expansion to index the markup
/// ([`Document::entity_expansions`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EntityExpansion {
    /// The reference (`&name;`) in the unexpanded text: the input's own text
    /// (UTF-8, after any byte-order mark).
    pub reference: Range<usize>,
    /// The expansion in [`Document::text`].
    pub expansion: Range<usize>,
}

/// How many records of each kind the index holds ([`Document::record_counts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RecordCounts {
    /// Elements.
    pub elements: usize,
    /// Attributes, namespace declarations included, and the attributes and
    /// declarations the internal subset defaults.
    pub attributes: usize,
    /// Every other record: comments, processing instructions, CDATA sections.
    pub others: usize,
}

impl fmt::Debug for Document<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Document")
            .field("bytes", &self.source.len())
            .field("index_words", &self.tape.len())
            .field("encoding", &self.encoding)
            .finish()
    }
}

thread_local! {
    /// The parser `Document::parse` uses on this thread (default options).
    /// Boxed, so taking it out and putting it back moves a pointer.
    static THREAD_PARSER: std::cell::RefCell<Option<Box<Parser>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's default-options parser, taken out of its slot for
/// the call (a parse inside a parse on the same thread finds the slot empty and
/// uses a new parser).
fn with_thread_parser<T>(f: impl FnOnce(&mut Parser) -> T) -> T {
    let mut parser = THREAD_PARSER.try_with(|c| c.borrow_mut().take()).ok().flatten().unwrap_or_default();
    let r = f(&mut parser);
    let _ = THREAD_PARSER.try_with(|c| *c.borrow_mut() = Some(parser));
    r
}

impl<'a> Document<'a> {
    /// Parses `input` with default options.
    ///
    /// ```
    /// let doc = vtdx_core::Document::parse(b"<a x='1'><b>hi</b></a>").unwrap();
    /// let b = doc.root_element().first_element_child().unwrap();
    /// assert_eq!(b.name(), "b");
    /// assert_eq!(b.text().as_deref(), Some("hi"));
    /// ```
    ///
    /// Each thread keeps one parser for this function (and for [`Document::parse_owned`]
    /// and [`Document::parse_with`] with default options), so its name tables are not
    /// rebuilt for every document. A document parsed while an earlier one is alive gets
    /// a copy of the tables while they are small, else tables of its own, so no document
    /// carries many names of others. An explicit [`Parser`] with [`Parser::recycle`]
    /// also reuses the index's memory.
    pub fn parse(input: &'a [u8]) -> Result<Document<'a>, Error> {
        with_thread_parser(|p| p.parse(input))
    }

    /// Parses `input` with `opts`.
    pub fn parse_with(input: &'a [u8], opts: &ParseOptions) -> Result<Document<'a>, Error> {
        if *opts == ParseOptions::default() {
            return Self::parse(input);
        }
        Parser::with_options(opts.clone()).parse(input)
    }

    /// The parsed text the index describes (UTF-8). For a UTF-8 input this is the
    /// input after its byte-order mark.
    #[inline]
    pub fn text(&self) -> &[u8] {
        match &self.text {
            Text::Source(off) => &self.source[*off..],
            Text::Owned(v) => v,
        }
    }

    /// The input exactly as it was given (any encoding, BOM included).
    pub fn source(&self) -> &[u8] {
        &self.source
    }

    /// True when [`Document::text`] is the input itself (a UTF-8 document whose
    /// entities needed no expansion), so node byte ranges are input offsets
    /// (plus [`Document::bom_len`]).
    pub fn text_is_source(&self) -> bool {
        matches!(self.text, Text::Source(_))
    }

    /// References to entities whose replacement text holds markup, which the parser
    /// expanded to index their content, in document order: for each, its byte range
    /// in the unexpanded text and the byte range of its expansion in
    /// [`Document::text`]. Empty for almost every document.
    pub fn entity_expansions(&self) -> &[EntityExpansion] {
        &self.expansions
    }

    /// The text before markup-entity expansion (UTF-8, after any BOM): the input
    /// itself for UTF-8, else the input transcoded again.
    pub(crate) fn unexpanded_text(&self) -> Cow<'_, [u8]> {
        if self.expansions.is_empty() {
            return Cow::Borrowed(self.text());
        }
        if let SourceEncoding::Utf8 { bom } = self.encoding {
            // UTF-8 input is its own text (validated when parsed): no second pass
            return Cow::Borrowed(&self.source[if bom { 3 } else { 0 }..]);
        }
        match input::decode(&self.source) {
            Ok(d) => d.text,
            // it decoded when parsed
            Err(_) => Cow::Borrowed(self.text()),
        }
    }

    /// Bytes of byte-order mark at the start of the input.
    pub fn bom_len(&self) -> usize {
        match (&self.text, &self.encoding) {
            (Text::Source(o), _) => *o,
            (_, SourceEncoding::Utf8 { bom: true }) => 3,
            (_, SourceEncoding::Utf16Le { bom: true } | SourceEncoding::Utf16Be { bom: true }) => 2,
            _ => 0,
        }
    }

    /// The encoding the input was in.
    pub fn encoding(&self) -> &SourceEncoding {
        &self.encoding
    }

    /// The XML declaration, if the document has one.
    pub fn xml_declaration(&self) -> Option<&XmlDecl> {
        let d = self.decl.as_ref()?;
        Some(self.decl_read.get_or_init(|| Box::new(d.to_decl(self.text()))))
    }

    /// The document type declaration, if any.
    pub fn dtd(&self) -> Option<&Dtd> {
        self.dtd.as_deref()
    }

    /// The name tables.
    pub fn names(&self) -> &Names {
        &self.names
    }

    /// The raw token index (see `docs/index-format.md`).
    pub fn tape(&self) -> &[u32] {
        &self.tape
    }

    /// The options the document was parsed with.
    pub fn options(&self) -> &ParseOptions {
        &self.opts
    }

    /// Bytes used by the index: the tape plus the name tables.
    pub fn index_bytes(&self) -> usize {
        self.tape.len() * 4 + self.names.heap_bytes()
    }

    /// The root (document) node: parent of the root element and of top-level
    /// comments and processing instructions.
    #[inline]
    pub fn root(&self) -> Node<'_> {
        Node { doc: self.coerce(), anchor: NONE, owner_or_mark: ROOT_MARK }
    }

    /// The document element.
    #[inline]
    pub fn root_element(&self) -> Node<'_> {
        Node { doc: self.coerce(), anchor: self.root, owner_or_mark: REC_MARK }
    }

    #[inline]
    fn coerce(&self) -> &Document<'_> {
        self
    }

    /// Line and column (1-based; column in characters) of a byte offset in [`Document::text`].
    pub fn line_column(&self, offset: usize) -> (u32, u32) {
        crate::error::line_column(self.text(), offset)
    }

    /// A node by its id (as returned by [`Node::id`]). `None` if the id does not
    /// belong to this document.
    pub fn node(&self, id: NodeId) -> Option<Node<'_>> {
        let n = Node { doc: self.coerce(), anchor: id.anchor, owner_or_mark: id.owner_or_mark };
        if id.owner_or_mark == ROOT_MARK && id.anchor == NONE {
            return Some(n);
        }
        let i = id.anchor as usize;
        if i >= self.tape.len() {
            return None;
        }
        Some(n)
    }

    /// The element, comment, processing instruction or CDATA node whose record
    /// starts at word `i` of the [tape](Document::tape) (`docs/index-format.md`;
    /// [`Node::record`] gives the index back), for layers that scan the tape
    /// themselves (XPath). O(1). `None` when `i` is past the tape or the kind
    /// bits at `i` are not one of those records; for an index inside a record
    /// the node is meaningless (using it may panic, never more).
    #[inline]
    pub fn node_at_record(&self, i: u32) -> Option<Node<'_>> {
        match self.tape.get(i as usize).map(|&w| kind_of(w)) {
            Some(K_ELEM | K_COMMENT | K_PI | K_CDATA) => Some(Node::rec(self.coerce(), i)),
            _ => None,
        }
    }

    /// How many records of each kind the index holds. One pass over the index.
    ///
    /// ```
    /// let doc = vtdx_core::Document::parse(b"<a xmlns='urn:x' k='1'><b/><!--c--></a>").unwrap();
    /// let n = doc.record_counts();
    /// assert_eq!((n.elements, n.attributes, n.others), (2, 2, 1));
    /// ```
    pub fn record_counts(&self) -> RecordCounts {
        let (mut e, mut a, mut o) = (0, 0, 0);
        let mut i = 0;
        while i < self.tape.len() {
            let k = kind_of(self.tape[i]);
            match k {
                K_ELEM => e += 1,
                K_ATTR | K_NSDECL | K_ATTR_DEFAULT | K_NSDECL_DEFAULT => a += 1,
                _ => o += 1,
            }
            i += words_of(k) as usize;
        }
        RecordCounts { elements: e, attributes: a, others: o }
    }

    /// The element that has an ID attribute with value `id`: an attribute
    /// declared with type `ID` in the internal subset (XML 1.0 §3.3.1, specified
    /// or defaulted; its value normalized, so `id=" x "` is `x`) or an `xml:id`
    /// attribute (xml:id 1.0, compared as written after normalization). The first
    /// in document order when several share the value (validity constraint ID,
    /// which a well-formed document may break). `None` when there is none. One
    /// pass over the index; callers looking up many ids build their own map from
    /// [`Node::is_id`].
    ///
    /// ```
    /// let doc = vtdx_core::Document::parse(b"<!DOCTYPE r [<!ATTLIST e k ID #IMPLIED>]><r><e k=' b '/><e xml:id='c'/></r>").unwrap();
    /// assert_eq!(doc.element_by_id("b").unwrap().attribute("k").as_deref(), Some("b"));
    /// assert!(doc.element_by_id("c").is_some());
    /// assert!(doc.element_by_id(" b ").is_none());
    /// ```
    pub fn element_by_id(&self, id: &str) -> Option<Node<'_>> {
        let has_id_decl = self.dtd().is_some_and(|d| d.attributes.iter().any(|a| a.ty == crate::dtd::AttType::Id));
        let xml_id = self.names.syms_matching(Some(crate::names::XML_NAMESPACE), Some("id"));
        if !has_id_decl && xml_id.is_empty() {
            return None;
        }
        let (mut i, mut owner) = (0u32, NONE);
        let len = self.tape.len() as u32;
        while i < len {
            let k = self.kind_at(i);
            if k == K_ELEM {
                owner = i; // its attribute records follow it directly
            } else if matches!(k, K_ATTR | K_ATTR_DEFAULT) {
                let sym = self.sym_at(i);
                if has_id_decl || xml_id.contains(&sym) {
                    let e = owner;
                    let a = Node { doc: self.coerce(), anchor: i, owner_or_mark: e };
                    if a.is_id() && a.value() == id {
                        return Some(Node::rec(self.coerce(), e));
                    }
                }
            }
            i += words_of(k);
        }
        None
    }

    /// Deepest element nesting (the root element has depth 1).
    pub fn max_depth(&self) -> usize {
        let mut max = 0;
        let mut stack: Vec<u32> = Vec::new();
        let mut i = 0;
        while i < self.tape.len() {
            let k = kind_of(self.tape[i]);
            if k == K_ELEM {
                while let Some(&top) = stack.last() {
                    if (i as u32) < top {
                        break;
                    }
                    stack.pop();
                }
                stack.push(self.tape[i + 2]);
                max = max.max(stack.len());
            }
            i += words_of(k) as usize;
        }
        max
    }

    // ---- raw record access -------------------------------------------------------

    #[inline(always)]
    pub(crate) fn kind_at(&self, i: u32) -> u32 {
        kind_of(self.tape[i as usize])
    }
    #[inline(always)]
    pub(crate) fn sym_at(&self, i: u32) -> Sym {
        Sym::new(self.tape[i as usize] & PAYLOAD_MASK)
    }
    #[inline(always)]
    pub(crate) fn start_at(&self, i: u32) -> usize {
        self.tape[i as usize + 1] as usize
    }
    /// Word index just past the record's subtree.
    #[inline(always)]
    pub(crate) fn next_at(&self, i: u32) -> u32 {
        match self.kind_at(i) {
            K_ELEM => self.tape[i as usize + 2],
            K_ATTR | K_NSDECL | K_ATTR_DEFAULT | K_NSDECL_DEFAULT => i + ATTR_WORDS,
            _ => i + LEAF_WORDS,
        }
    }
    /// Parent record of an element or leaf record.
    #[inline(always)]
    pub(crate) fn parent_at(&self, i: u32) -> u32 {
        self.tape[i as usize + 3]
    }
    /// Byte offset just past a record (element: its end tag; leaf: its `>`).
    #[inline(always)]
    pub(crate) fn end_at(&self, i: u32) -> usize {
        match self.kind_at(i) {
            K_ELEM => self.tape[i as usize + 4] as usize,
            K_ATTR | K_NSDECL => self.attr_value_range(i).end + 1,
            K_ATTR_DEFAULT | K_NSDECL_DEFAULT => unreachable_default(),
            _ => self.tape[i as usize + 2] as usize,
        }
    }
    /// First word after the element's attribute records.
    #[inline]
    pub(crate) fn after_attrs(&self, e: u32) -> u32 {
        let end = self.tape[e as usize + 2];
        let mut j = e + ELEM_WORDS;
        while j < end && is_attr_kind(self.kind_at(j)) {
            j += ATTR_WORDS;
        }
        j
    }
    /// The declaration a defaulted attribute record (`K_ATTR_DEFAULT`,
    /// `K_NSDECL_DEFAULT`) at word `i` comes from.
    #[inline]
    pub(crate) fn default_decl(&self, i: u32) -> Option<&crate::dtd::AttDecl> {
        self.dtd.as_deref()?.attributes.get(self.tape[i as usize + 1] as usize)
    }
    /// Is the attribute record at word `i` one the internal subset supplied?
    #[inline(always)]
    pub(crate) fn is_default_at(&self, i: u32) -> bool {
        matches!(self.kind_at(i), K_ATTR_DEFAULT | K_NSDECL_DEFAULT)
    }
    /// The last attribute record of element `e` that is written in its start tag.
    fn last_specified_attr(&self, e: u32) -> Option<u32> {
        let mut j = self.after_attrs(e);
        while j > e + ELEM_WORDS {
            j -= ATTR_WORDS;
            if !self.is_default_at(j) {
                return Some(j);
            }
        }
        None
    }
    /// Where a defaulted attribute of element `e` sits: the `>` (or the `/` of
    /// `/>`) that ends the start tag, at which no node starts.
    pub(crate) fn default_anchor(&self, e: u32) -> usize {
        let end = self.start_tag_end(e);
        if self.text()[end - 2] == b'/' {
            end - 2
        } else {
            end - 1
        }
    }
    /// The raw value range (between the quotes) of an attribute record.
    #[inline]
    pub(crate) fn attr_value_range(&self, i: u32) -> Range<usize> {
        let t = self.text();
        let qlen = self.names.qname_len(self.sym_at(i));
        let mut p = skip_ws(t, self.start_at(i) + qlen);
        // at '='
        p = skip_ws(t, p + 1);
        let q = t[p];
        let vs = p + 1;
        vs..crate::chars::find3(t, vs, q, q, q).unwrap_or(t.len())
    }
    /// Byte offset just past an element's start tag.
    pub(crate) fn start_tag_end(&self, e: u32) -> usize {
        let t = self.text();
        let p = if let Some(last) = self.last_specified_attr(e) {
            self.attr_value_range(last).end + 1
        } else {
            self.start_at(e) + 1 + self.names.qname_len(self.sym_at(e))
        };
        let p = skip_ws(t, p);
        if t.get(p) == Some(&b'/') {
            p + 2
        } else {
            p + 1
        }
    }
    /// Offset of the `</` of an element's end tag (its end for an empty-element tag).
    pub(crate) fn content_end(&self, e: u32) -> usize {
        let t = self.text();
        let end = self.end_at(e);
        if end >= 2 && t[end - 2] == b'/' {
            // `<a/>` (an end tag's `>` is never preceded by `/`)
            return end;
        }
        // `</qname S? >`: back over the `>`, any white space and the name
        let mut p = end.saturating_sub(1);
        while p > 0 && matches!(t[p - 1], b' ' | b'\t' | b'\n' | b'\r') {
            p -= 1;
        }
        let s = p.saturating_sub(self.names.qname_len(self.sym_at(e)) + 2);
        if t.get(s..s + 2) == Some(b"</") {
            s
        } else {
            memrchr(b'<', &t[..end]).unwrap_or(end)
        }
    }
    /// Start of the next sibling record of `r` (or the parent's end tag).
    #[inline]
    pub(crate) fn next_sibling_record(&self, r: u32) -> Option<u32> {
        let j = self.next_at(r);
        // The word after a subtree starts a record (never an attribute): a sibling
        // when it has the same parent.
        if (j as usize) < self.tape.len() && self.parent_at(j) == self.parent_at(r) {
            Some(j)
        } else {
            None
        }
    }
    /// The content of element `e` when it is written `<q>…</q>` exactly — no
    /// attribute, no declaration, no child record (so its content is text and
    /// references only) and no white space inside either tag — found from the
    /// record alone; `None` for every other shape (callers then take the
    /// general way: [`Document::start_tag_end`], [`Document::content_end`]).
    ///
    /// PERF: leaf elements are most of what XPath predicates and `text()`
    /// steps read (`item[USPrice<100]`, `quantity/text()`); this costs about a
    /// fifth of `start_tag_end` + `content_end`, which scan attribute records
    /// and the tags' white space.
    #[inline]
    pub(crate) fn bare_leaf_content(&self, e: u32) -> Option<Range<usize>> {
        let i = e as usize;
        let w = self.tape.get(i..i + ELEM_WORDS as usize)?;
        // a subtree of one record: no attribute, no declaration, no child record
        if kind_of(w[0]) != K_ELEM || w[2] != e + ELEM_WORDS {
            return None;
        }
        let t = self.text();
        let qlen = self.names.qname_len(Sym::new(w[0] & PAYLOAD_MASK));
        let cs = w[1] as usize + 1 + qlen;
        // `/>` or white space after the name: not this shape
        if t.get(cs) != Some(&b'>') {
            return None;
        }
        // `</q>` ends at `end` exactly: its `<` is `qlen + 3` bytes back. With
        // white space before the `>` that byte is inside the end tag, where no
        // `<` can be, so the test is exact.
        let ce = (w[4] as usize).checked_sub(qlen + 3)?;
        if ce <= cs || t.get(ce) != Some(&b'<') {
            return None;
        }
        Some(cs + 1..ce)
    }
    /// The content of the element record `e` as its bytes stand, when the
    /// element is written `<q>…</q>` exactly: no attribute or namespace
    /// declaration, no child element, comment, PI or CDATA section, no white
    /// space inside its tags. `None` for every other record and shape (use
    /// [`Node::plain_content`](crate::Node::plain_content) or the string
    /// value then). The bytes are raw: they may hold references and CRs,
    /// which the string value would replace.
    #[inline]
    pub fn bare_leaf_bytes(&self, e: crate::tape::RecordId) -> Option<&[u8]> {
        self.bare_leaf_content(e.word()).map(|r| &self.text()[r])
    }
    /// First child record of an element.
    #[inline]
    pub(crate) fn first_child_record(&self, e: u32) -> Option<u32> {
        let j = self.after_attrs(e);
        if j < self.tape[e as usize + 2] {
            Some(j)
        } else {
            None
        }
    }
}

pub(crate) const REC_MARK: u32 = u32::MAX;
pub(crate) const ROOT_MARK: u32 = u32::MAX - 1;
pub(crate) const TEXT_START_MARK: u32 = u32::MAX - 2;
pub(crate) const TEXT_AFTER_MARK: u32 = u32::MAX - 3;

impl Document<'static> {
    /// Parses an owned buffer (with this thread's parser, as [`Document::parse`]).
    pub fn parse_owned(input: Vec<u8>) -> Result<Document<'static>, Error> {
        with_thread_parser(|p| p.parse_owned(input))
    }

    /// Reads `path` into memory and parses it (with this thread's parser). The outer
    /// `Result` is the I/O error.
    pub fn from_file(path: impl AsRef<std::path::Path>) -> std::io::Result<Result<Document<'static>, Error>> {
        let bytes = std::fs::read(path)?;
        Ok(Document::parse_owned(bytes))
    }

    /// Memory-maps `path` read-only and parses it, without copying it. The outer
    /// `Result` is the I/O error.
    ///
    /// # Safety
    ///
    /// As for [`Parser::parse_file_mmap`]: the file must not be modified or truncated
    /// while the document is alive. [`Document::from_file`] is the safe variant.
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub unsafe fn from_file_mmap(path: impl AsRef<std::path::Path>) -> std::io::Result<Result<Document<'static>, Error>> {
        // SAFETY: the caller upholds `parse_file_mmap`'s precondition (this function's own).
        unsafe { Parser::new().parse_file_mmap(path.as_ref()) }
    }
}

/// `end_at` of a defaulted attribute record: callers ask `range()`, which knows better.
#[cold]
fn unreachable_default() -> usize {
    debug_assert!(false, "end_at of a defaulted attribute record");
    0
}
