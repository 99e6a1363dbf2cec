//! `Document` (the bytes plus their index) and `Node` (a `Copy` handle into it).

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use memchr::memrchr;

use crate::chars::skip_ws;
use crate::dtd::Dtd;
use crate::error::Error;
use crate::index::*;
use crate::input::{self, SourceEncoding};
use crate::names::{Names, NsId, Sym, NS_NONE};
use crate::options::ParseOptions;
use crate::parser::{Parser, XmlDecl};
use crate::text;

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
enum Text {
    Source(usize),
    Owned(Vec<u8>),
}

/// A parsed document: the input bytes and the token index over them.
///
/// Nothing is copied or decoded while parsing (for a UTF-8 input); names,
/// text and attribute values are decoded when asked for. `Document` is
/// `Send + Sync`: share it between threads by reference.
pub struct Document<'a> {
    source: Bytes<'a>,
    text: Text,
    pub(crate) tape: Vec<u32>,
    pub(crate) names: std::sync::Arc<Names>,
    dtd: Option<Box<Dtd>>,
    decl: Option<XmlDecl>,
    encoding: SourceEncoding,
    root: u32,
    pub(crate) opts: ParseOptions,
    /// References to entities whose replacement text holds markup, expanded in
    /// `text`: (start, end) in the unexpanded text, (start, end) in `text`.
    expansions: Vec<(usize, usize, usize, usize)>,
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
    static THREAD_PARSER: std::cell::RefCell<Option<Parser>> = const { std::cell::RefCell::new(None) };
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
    /// expanded to index their content: for each, its byte range in the unexpanded
    /// text and the byte range of its expansion in [`Document::text`]. Empty for
    /// almost every document.
    pub fn entity_expansions(&self) -> &[(usize, usize, usize, usize)] {
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
        self.decl.as_ref()
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
        Node { doc: self.coerce(), a: NONE, b: ROOT_MARK }
    }

    /// The document element.
    #[inline]
    pub fn root_element(&self) -> Node<'_> {
        Node { doc: self.coerce(), a: self.root, b: REC_MARK }
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
        let n = Node { doc: self.coerce(), a: id.0, b: id.1 };
        if id.1 == ROOT_MARK && id.0 == NONE {
            return Some(n);
        }
        let i = id.0 as usize;
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

    /// Counts of the records in the index: (elements, attributes incl. namespace declarations, other records).
    pub fn record_counts(&self) -> (usize, usize, usize) {
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
        (e, a, o)
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
                    let a = Node { doc: self.coerce(), a: i, b: e };
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
        self.tape[i as usize] & PAYLOAD_MASK
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

impl Parser {
    /// Parses `input`, reusing this parser's allocations.
    pub fn parse<'a>(&mut self, input: &'a [u8]) -> Result<Document<'a>, Error> {
        self.parse_bytes(Bytes::Borrowed(input))
    }

    /// Parses an owned buffer; the document owns it.
    pub fn parse_owned(&mut self, input: Vec<u8>) -> Result<Document<'static>, Error> {
        self.parse_bytes(Bytes::Owned(input))
    }

    /// Memory-maps and parses a file.
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub fn parse_file_mmap(&mut self, path: &std::path::Path) -> std::io::Result<Result<Document<'static>, Error>> {
        let f = std::fs::File::open(path)?;
        // SAFETY: the mapping is read-only; the document must not be used while
        // another process truncates or rewrites the file (documented on
        // `Document::from_file_mmap`). Empty files cannot be mapped on every OS.
        if f.metadata()?.len() == 0 {
            return Ok(self.parse_bytes(Bytes::Owned(Vec::new())));
        }
        let m = unsafe { memmap2::Mmap::map(&f)? };
        Ok(self.parse_bytes(Bytes::Mapped(m)))
    }

    fn parse_bytes<'a>(&mut self, source: Bytes<'a>) -> Result<Document<'a>, Error> {
        let decoded = input::decode(&source)?;
        let encoding = decoded.encoding.clone();
        let (text, parsed) = match decoded.text {
            Cow::Borrowed(t) => {
                let off = t.as_ptr() as usize - source.as_ptr() as usize;
                // Offsets in errors count the byte-order mark: they are input offsets.
                let parsed = self.run(t).map_err(|e| {
                    Error::with_position(e.kind().clone(), e.offset() + off as u64, e.line(), e.column())
                })?;
                (Text::Source(off), parsed)
            }
            Cow::Owned(v) => {
                let parsed = self.run(&v)?;
                (Text::Owned(v), parsed)
            }
        };
        let text = match parsed.expanded {
            Some(v) => Text::Owned(v),
            None => text,
        };
        let expansions = parsed.regions;
        let names = std::sync::Arc::new(parsed.names);
        self.names_pool = Some(names.clone());
        let mut tape = parsed.tape;
        if !self.recycling {
            release_spare(&mut tape);
        }
        Ok(Document {
            source,
            text,
            tape,
            names,
            dtd: parsed.dtd,
            decl: parsed.decl,
            encoding,
            root: parsed.root,
            opts: self.opts.clone(),
            expansions,
        })
    }

    /// Takes back a document's allocations for the next parse. From then on the
    /// parser's documents keep their index's spare capacity (the parser expects
    /// them back), where otherwise a document gives back any spare above an
    /// eighth of its index.
    pub fn recycle(&mut self, doc: Document<'_>) {
        self.recycling = true;
        if doc.tape.capacity() > self.tape_pool.capacity() {
            self.tape_pool = doc.tape;
        }
        // dropping the document releases its share of the name tables, so the next
        // parse extends them in place
        drop(doc.names);
    }
}

/// Gives back the tape's spare capacity when it is more than an eighth of what
/// is used and more than 4 KiB: the parser reserves for dense documents (a word
/// per 5 input bytes; typical documents use a word per 8), and a document that is
/// kept should hold only its index. Small documents keep their few spare bytes
/// (a shrink would cost more than it saves). A large allocation shrinks in place.
fn release_spare(tape: &mut Vec<u32>) {
    let spare = tape.capacity() - tape.len();
    if spare * 4 > 4096 && spare > tape.len() / 8 {
        tape.shrink_to_fit();
    }
}

impl Document<'static> {
    /// Parses an owned buffer (with this thread's parser, as [`Document::parse`]).
    pub fn parse_owned(input: Vec<u8>) -> Result<Document<'static>, Error> {
        with_thread_parser(|p| p.parse_owned(input))
    }

    /// Memory-maps `path` and parses it. The outer `Result` is the I/O error.
    ///
    /// The file must not be modified or truncated while the document is alive
    /// (a memory map reflects such changes; the index would then describe other bytes).
    #[cfg(feature = "mmap")]
    pub fn from_file_mmap(path: impl AsRef<std::path::Path>) -> std::io::Result<Result<Document<'static>, Error>> {
        Parser::new().parse_file_mmap(path.as_ref())
    }
}

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

/// A node's identity within its document: stable, `Copy` and hashable. (For
/// document order, compare [`Node::order_key`].)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeId(pub(crate) u32, pub(crate) u32);

/// A handle to a node: a document reference and two words. `Copy`.
#[derive(Clone, Copy)]
pub struct Node<'d> {
    pub(crate) doc: &'d Document<'d>,
    /// Record word index (element, attribute, leaf), or the anchor of a text node.
    pub(crate) a: u32,
    /// REC_MARK, ROOT_MARK, TEXT_*_MARK, or for attributes the owner element's index.
    pub(crate) b: u32,
}

impl PartialEq for Node<'_> {
    fn eq(&self, o: &Self) -> bool {
        std::ptr::eq(self.doc, o.doc) && self.a == o.a && self.b == o.b
    }
}
impl Eq for Node<'_> {}
impl std::hash::Hash for Node<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.a.hash(h);
        self.b.hash(h);
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
    fn rec(doc: &'d Document<'d>, i: u32) -> Node<'d> {
        Node { doc, a: i, b: REC_MARK }
    }

    /// The document this node belongs to.
    pub fn document(&self) -> &'d Document<'d> {
        self.doc
    }

    /// This node's id.
    pub fn id(&self) -> NodeId {
        NodeId(self.a, self.b)
    }

    /// The word index of the node's own record in [`Document::tape`]: for
    /// elements, attributes (and namespace declarations), comments, processing
    /// instructions and CDATA sections; `None` for the root and text nodes. O(1).
    #[inline]
    pub fn record(&self) -> Option<u32> {
        match self.b {
            ROOT_MARK | TEXT_START_MARK | TEXT_AFTER_MARK => None,
            _ => Some(self.a),
        }
    }

    /// The node's kind.
    #[inline]
    pub fn kind(&self) -> NodeKind {
        match self.b {
            ROOT_MARK => NodeKind::Root,
            TEXT_START_MARK | TEXT_AFTER_MARK => NodeKind::Text,
            REC_MARK => match self.doc.kind_at(self.a) {
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
        self.b == REC_MARK && self.doc.kind_at(self.a) == K_ELEM
    }
    /// Is this a text node (not CDATA)?
    #[inline]
    pub fn is_text(&self) -> bool {
        matches!(self.b, TEXT_START_MARK | TEXT_AFTER_MARK)
    }
    /// Is this the document node?
    pub fn is_root(&self) -> bool {
        self.b == ROOT_MARK
    }
    /// Is this an attribute (or namespace declaration)?
    pub fn is_attribute(&self) -> bool {
        self.kind() == NodeKind::Attribute
    }
    /// True for `xmlns` and `xmlns:p` attributes.
    pub fn is_namespace_declaration(&self) -> bool {
        self.is_attribute() && matches!(self.doc.kind_at(self.a), K_NSDECL | K_NSDECL_DEFAULT)
    }

    /// For an attribute (or namespace declaration): `true` when it is written in
    /// the start tag, `false` when an attribute-list declaration of the internal
    /// subset supplies it (XML 1.0 §3.3.2; the infoset's `[specified]`). A
    /// defaulted attribute has no bytes in the document: its [`Node::range`] is
    /// the empty range at the `>` (or `/>`) that ends its element's start tag,
    /// where it would be written; [`Node::value_range`] is `None`; [`Node::value`]
    /// is the declaration's default normalized for its type. `true` for other nodes.
    pub fn is_specified(&self) -> bool {
        !(self.is_attribute() && self.doc.is_default_at(self.a))
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
        let owner = self.doc.names.qname(self.doc.sym_at(self.b));
        dtd.attribute(owner, self.name()).is_some_and(|a| a.ty == crate::dtd::AttType::Id)
    }

    /// The interned symbol of an element or attribute.
    #[inline]
    pub fn sym(&self) -> Option<Sym> {
        match self.kind() {
            NodeKind::Element | NodeKind::Attribute => Some(self.doc.sym_at(self.a)),
            _ => None,
        }
    }

    /// Qualified name as written (`p:local`) of an element or attribute; the target
    /// of a processing instruction; "" for other nodes.
    pub fn name(&self) -> &'d str {
        match self.kind() {
            NodeKind::Element | NodeKind::Attribute => self.doc.names.qname(self.doc.sym_at(self.a)),
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
        match self.b {
            ROOT_MARK => 0..d.text().len(),
            TEXT_START_MARK | TEXT_AFTER_MARK => self.text_range(),
            REC_MARK => d.start_at(self.a)..d.end_at(self.a),
            owner if d.is_default_at(self.a) => {
                let at = d.default_anchor(owner);
                at..at
            }
            _ => d.start_at(self.a)..d.end_at(self.a),
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
        if self.b == TEXT_START_MARK {
            let s = d.start_tag_end(self.a);
            let e = match d.first_child_record(self.a) {
                Some(c) => d.start_at(c),
                None => d.content_end(self.a),
            };
            s..e
        } else {
            let s = d.end_at(self.a);
            let e = match d.next_sibling_record(self.a) {
                Some(n) => d.start_at(n),
                None => d.content_end(d.parent_at(self.a)),
            };
            s..e
        }
    }

    /// The parent: an element or the root. `None` for the root.
    pub fn parent(&self) -> Option<Node<'d>> {
        let d = self.doc;
        let p = match self.b {
            ROOT_MARK => return None,
            TEXT_START_MARK => self.a,
            TEXT_AFTER_MARK => d.parent_at(self.a),
            REC_MARK => match d.kind_at(self.a) {
                K_ELEM | K_COMMENT | K_PI | K_CDATA => d.parent_at(self.a),
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
        match self.b {
            ROOT_MARK => {
                // first top-level record
                if d.tape.is_empty() {
                    None
                } else {
                    Some(Node::rec(d, 0))
                }
            }
            REC_MARK if d.kind_at(self.a) == K_ELEM => {
                // text before the first child record (or the end tag)? Without child
                // records the content is text or nothing: look at one byte.
                let first = d.first_child_record(self.a);
                let ste = d.start_tag_end(self.a);
                let text = match first {
                    Some(c) => ste < d.start_at(c),
                    None => ste < d.end_at(self.a) && d.text().get(ste) != Some(&b'<'),
                };
                if text {
                    return Some(Node { doc: d, a: self.a, b: TEXT_START_MARK });
                }
                first.map(|c| Node::rec(d, c))
            }
            _ => None,
        }
    }

    /// Next sibling (any kind).
    pub fn next_sibling(&self) -> Option<Node<'d>> {
        let d = self.doc;
        match self.b {
            ROOT_MARK => None,
            TEXT_START_MARK => d.first_child_record(self.a).map(|c| Node::rec(d, c)),
            TEXT_AFTER_MARK => d.next_sibling_record(self.a).map(|c| Node::rec(d, c)),
            REC_MARK if !is_attr_kind(d.kind_at(self.a)) => {
                if d.parent_at(self.a) != NONE {
                    let t = Node { doc: d, a: self.a, b: TEXT_AFTER_MARK };
                    if !t.text_range().is_empty() {
                        return Some(t);
                    }
                }
                d.next_sibling_record(self.a).map(|c| Node::rec(d, c))
            }
            _ => None,
        }
    }

    /// Previous sibling (any kind). O(number of preceding siblings).
    pub fn prev_sibling(&self) -> Option<Node<'d>> {
        // the text before an element's first child record is its first child
        if self.is_attribute() || self.b == TEXT_START_MARK {
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
        let mut next = match self.b {
            ROOT_MARK => Some(d.root),
            REC_MARK if d.kind_at(self.a) == K_ELEM => d.first_child_record(self.a),
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
        let mut r = match self.b {
            REC_MARK if !is_attr_kind(d.kind_at(self.a)) => d.next_sibling_record(self.a),
            TEXT_START_MARK => d.first_child_record(self.a),
            TEXT_AFTER_MARK => d.next_sibling_record(self.a),
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
        let (from, to) = match self.b {
            ROOT_MARK => (0, d.tape.len() as u32),
            REC_MARK if d.kind_at(self.a) == K_ELEM => (self.a + ELEM_WORDS, d.tape[self.a as usize + 2]),
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

    /// Depth: 0 for the root, 1 for the root element.
    pub fn depth(&self) -> usize {
        self.ancestors().count()
    }

    /// The attributes (namespace declarations excluded), in document order.
    pub fn attributes(&self) -> impl Iterator<Item = Node<'d>> + 'd {
        self.all_attributes().filter(|a| matches!(self.doc.kind_at(a.a), K_ATTR | K_ATTR_DEFAULT))
    }

    /// Namespace declarations on this element (`xmlns`, `xmlns:p`), in document order.
    pub fn namespace_declarations(&self) -> impl Iterator<Item = Node<'d>> + 'd {
        self.all_attributes().filter(|a| matches!(self.doc.kind_at(a.a), K_NSDECL | K_NSDECL_DEFAULT))
    }

    /// Attributes and namespace declarations in document order.
    pub fn all_attributes(&self) -> impl Iterator<Item = Node<'d>> + 'd {
        let d = self.doc;
        let (mut j, end) = if self.is_element() { (self.a + ELEM_WORDS, d.tape[self.a as usize + 2]) } else { (0, 0) };
        let owner = self.a;
        std::iter::from_fn(move || {
            if j < end && is_attr_kind(d.kind_at(j)) {
                let n = Node { doc: d, a: j, b: owner };
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
        let decl = dtd.attribute(self.name(), qname)?;
        let raw = match &decl.default {
            crate::dtd::AttDefault::Default(v) | crate::dtd::AttDefault::Fixed(v) => v.as_str(),
            _ => return None,
        };
        let cdata = decl.ty == crate::dtd::AttType::Cdata;
        let mut budget = crate::dtd::ExpansionBudget::new(&self.doc.opts, self.doc.text().len());
        crate::dtd::normalize_attribute_value(raw, raw.as_bytes(), 0, Some(dtd), cdata, &mut budget, 0)
            .ok()
            .map(|v| Cow::Owned(v.into_owned()))
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
    /// element its first child if that is text (like `roxmltree` and lxml's `.text`).
    /// `None` for the root and for elements that do not start with text.
    pub fn text(&self) -> Option<Cow<'d, str>> {
        match self.kind() {
            NodeKind::Root => None,
            NodeKind::Element => self.first_child().filter(|c| c.is_text() || c.kind() == NodeKind::CData).map(|c| c.value()),
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
                if d.is_default_at(self.a) {
                    return Cow::Borrowed(d.default_decl(self.a).and_then(|a| a.value.as_deref()).unwrap_or(""));
                }
                let r = d.attr_value_range(self.a);
                text::attribute_value(d, self.b, self.a, r)
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
        let r = d.start_at(self.a)..d.end_at(self.a);
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
        match self.b {
            ROOT_MARK => 0,
            TEXT_START_MARK => {
                let end = match d.first_child_record(self.a) {
                    Some(c) => d.start_at(c),
                    None => d.end_at(self.a),
                };
                ((end as u64 + 1) << 24) - 1
            }
            TEXT_AFTER_MARK => {
                let end = match d.next_sibling_record(self.a) {
                    Some(n) => d.start_at(n),
                    None => d.end_at(d.parent_at(self.a)),
                };
                ((end as u64 + 1) << 24) - 1
            }
            REC_MARK => (self.doc.start_at(self.a) as u64 + 1) << 24,
            owner if self.doc.is_default_at(self.a) => {
                let nth = ((self.a - owner - ELEM_WORDS) / ATTR_WORDS) as u64;
                ((self.doc.default_anchor(owner) as u64 + 1) << 24) | (nth + 1).min((1 << 24) - 1)
            }
            _ => (self.doc.start_at(self.a) as u64 + 1) << 24,
        }
    }

    /// For an element: is it written as an empty-element tag (`<a/>`)?
    pub fn is_empty_element_tag(&self) -> bool {
        self.is_element() && {
            let e = self.doc.end_at(self.a);
            e >= 2 && self.doc.text()[e - 2] == b'/'
        }
    }

    /// For an element: byte range of its start tag.
    pub fn start_tag_range(&self) -> Option<Range<usize>> {
        self.is_element().then(|| self.doc.start_at(self.a)..self.doc.start_tag_end(self.a))
    }

    /// For an element whose content is character data only, with no reference and
    /// no CR (so its bytes are its text as they stand, e.g. `<price>9.5</price>`):
    /// those bytes. `None` for other nodes and for content with child elements,
    /// comments, PIs, CDATA, references or CRs. One short scan, no allocation.
    pub fn plain_content(&self) -> Option<&'d [u8]> {
        if !self.is_element() || self.doc.after_attrs(self.a) < self.doc.next_at(self.a) {
            return None;
        }
        let t = self.doc.text();
        let cs = self.doc.start_tag_end(self.a);
        if cs >= self.doc.end_at(self.a) {
            return Some(&[]); // an empty-element tag
        }
        let p = crate::chars::find3(t, cs, b'<', b'&', b'\r')?;
        (t[p] == b'<').then(|| &t[cs..p])
    }

    /// For an element: byte range of its content (between start and end tag).
    pub fn content_range(&self) -> Option<Range<usize>> {
        self.is_element().then(|| self.doc.start_tag_end(self.a)..self.doc.content_end(self.a))
    }

    /// For an attribute written in the start tag: byte range of the raw value
    /// (between the quotes). `None` for other nodes and for defaulted attributes
    /// ([`Node::is_specified`]).
    pub fn value_range(&self) -> Option<Range<usize>> {
        (self.is_attribute() && !self.doc.is_default_at(self.a)).then(|| self.doc.attr_value_range(self.a))
    }
}

fn ns_of_decl(a: &Node<'_>) -> NsId {
    // The URI a declaration binds: resolve it as written.
    let v = a.value();
    a.doc.names.find_ns(&v).unwrap_or(NS_NONE)
}

/// `end_at` of a defaulted attribute record: callers ask `range()`, which knows better.
#[cold]
fn unreachable_default() -> usize {
    debug_assert!(false, "end_at of a defaulted attribute record");
    0
}

#[cold]
fn unreachable_attr() -> u32 {
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
}
