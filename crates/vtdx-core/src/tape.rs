//! The token index ("tape") for readers that walk it themselves: its record
//! layout and one typed reader of it.
//!
//! This is an expert module, the one place that knows how records are laid out
//! (`docs/index-format.md` draws a document through it). Most code should use
//! [`Node`](crate::Node) and its iterators instead; layers that scan many records
//! per call (XPath's element steps, canonicalization's walk, a binary encoder)
//! read the tape through [`Tape`] and make a [`Node`](crate::Node) only for the
//! records they keep ([`Document::node_at_record`](crate::Document::node_at_record)).
//!
//! # Layout
//!
//! A tape is a `[u32]` of variable-length records in document order. Word 0 of
//! every record holds its [kind](RecordKind) in the top 4 bits ([`KIND_SHIFT`])
//! and, for elements and the four attribute kinds, the name's symbol
//! ([`Sym`](crate::Sym)) in the low 28 ([`PAYLOAD_MASK`]):
//!
//! | record | words | word 0 | word 1 | word 2 | word 3 | word 4 |
//! |---|---|---|---|---|---|---|
//! | element | [`ELEM_WORDS`] | kind, symbol | [`START`]: byte offset of `<` | [`NEXT`]: word just past the subtree | [`PARENT`]: parent element or [`NONE`] | [`ELEM_END`]: byte offset past the element |
//! | attribute, namespace declaration | [`ATTR_WORDS`] | kind, symbol | [`START`]: byte offset of the name | | | |
//! | defaulted attribute or declaration | [`ATTR_WORDS`] | kind, symbol | [`DECL`]: index in `Dtd::attributes` | | | |
//! | comment, PI, CDATA | [`LEAF_WORDS`] | kind | [`START`]: byte offset of `<` | [`LEAF_END`]: byte offset past `>` | [`PARENT`] | |
//!
//! An element's attribute records follow its own record directly (the ones
//! written in the start tag first, then the ones the internal subset defaults),
//! then come its children's records. Text is not stored: a text node is the gap
//! between two pieces of markup. The constants below are checked against each
//! other at compile time.
//!
//! # Example
//!
//! ```
//! use vtdx_core::tape::{RecordKind, Tape};
//! use vtdx_core::Document;
//!
//! let doc = Document::parse(br#"<po date="2026"><item/><!--x--></po>"#)?;
//! let tape = Tape::of(&doc);
//! let po = tape.first().unwrap();
//! assert_eq!(tape.kind(po), RecordKind::Element);
//! assert_eq!(doc.names().qname(tape.symbol(po)), "po");
//! let date = tape.attributes(po).next().unwrap();
//! assert_eq!(&doc.text()[tape.start(date)..][..4], b"date");
//! let kinds: Vec<RecordKind> = tape.children(po).map(|r| tape.kind(r)).collect();
//! assert_eq!(kinds, [RecordKind::Element, RecordKind::Comment]);
//! # Ok::<(), vtdx_core::Error>(())
//! ```

use crate::{Document, Node, Sym};

// ---- the layout ----------------------------------------------------------------------------

/// Word 0 of a record: the kind is `word >> KIND_SHIFT` (4 bits).
pub const KIND_SHIFT: u32 = 28;
/// Word 0 of a record: the symbol is `word & PAYLOAD_MASK` (elements and
/// attribute kinds; 0 for comments, PIs and CDATA sections).
pub const PAYLOAD_MASK: u32 = (1 << KIND_SHIFT) - 1;

/// Words in an element record.
pub const ELEM_WORDS: u32 = 5;
/// Words in a record of one of the attribute kinds (specified or defaulted
/// attribute or namespace declaration).
pub const ATTR_WORDS: u32 = 2;
/// Words in a comment, PI or CDATA record.
pub const LEAF_WORDS: u32 = 4;

/// Field of every record but the defaulted kinds: the byte offset at which the
/// node starts (`<` of a tag, comment, PI or CDATA section; an attribute's name).
pub const START: u32 = 1;
/// Field of the defaulted attribute kinds: the index of the attribute's
/// declaration in `Dtd::attributes` (they have no bytes in the text).
pub const DECL: u32 = 1;
/// Element field: the word index just past the element's subtree (its
/// attributes and descendants).
pub const NEXT: u32 = 2;
/// Element, comment, PI and CDATA field: the word index of the parent element,
/// [`NONE`] at the top level.
pub const PARENT: u32 = 3;
/// Element field: the byte offset just past the element (its end tag's `>`,
/// or the `/>` of an empty-element tag).
pub const ELEM_END: u32 = 4;
/// Comment, PI and CDATA field: the byte offset just past the node's `>`.
pub const LEAF_END: u32 = 2;

/// The [`PARENT`] of a top-level node.
pub const NONE: u32 = u32::MAX;
/// Largest tape, in words: word indices leave the top bit free (node handles
/// use it), and no record index equals [`NONE`].
pub const MAX_TAPE_WORDS: usize = (1 << 31) - 1;

// Every kind fits in the kind bits (the largest is `NsDeclDefault`), `from_word`
// reads each back, and every symbol fits in the payload bits.
const _: () = assert!(RecordKind::NsDeclDefault as u32 >> (32 - KIND_SHIFT) == 0);
const _: () = {
    let mut k = 0;
    while k < 1 << (32 - KIND_SHIFT) {
        if let Some(kind) = RecordKind::from_word(k << KIND_SHIFT) {
            assert!(kind as u32 == k && kind as u32 <= RecordKind::NsDeclDefault as u32);
        }
        k += 1;
    }
};
const _: () = assert!(PAYLOAD_MASK == u32::MAX >> (32 - KIND_SHIFT));
const _: () = assert!(crate::names::MAX_SYMS - 1 <= PAYLOAD_MASK);
// Memory per construct is part of the documented format (docs/index-format.md: 20,
// 8 and 16 bytes).
const _: () = assert!(ELEM_WORDS * 4 == 20 && ATTR_WORDS * 4 == 8 && LEAF_WORDS * 4 == 16);
// Fields sit inside their records; the shared ones sit at one position for every
// kind that has them, so `start` and `parent` read one word whatever the kind.
const _: () = assert!(START > 0 && START < ATTR_WORDS && DECL == START);
const _: () = assert!(NEXT < ELEM_WORDS && PARENT < ELEM_WORDS && ELEM_END < ELEM_WORDS);
const _: () = assert!(LEAF_END < LEAF_WORDS && PARENT < LEAF_WORDS);
const _: () = assert!(START != NEXT && NEXT != PARENT && PARENT != ELEM_END && START != ELEM_END);
const _: () = assert!(START != LEAF_END && LEAF_END != PARENT);
// No record index is NONE; word indices fit in 31 bits.
const _: () = assert!(MAX_TAPE_WORDS < NONE as usize && MAX_TAPE_WORDS <= (u32::MAX >> 1) as usize);
const _: () = assert!(std::mem::size_of::<RecordId>() == 4);

/// A record's kind: the top 4 bits of its word 0. The discriminants are the
/// values stored in the tape (`kind as u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RecordKind {
    /// An element ([`ELEM_WORDS`] words).
    Element = 1,
    /// An attribute written in a start tag.
    Attribute = 2,
    /// A namespace declaration (`xmlns`, `xmlns:p`) written in a start tag.
    NsDecl = 3,
    /// A comment ([`LEAF_WORDS`] words).
    Comment = 4,
    /// A processing instruction ([`LEAF_WORDS`] words).
    Pi = 5,
    /// A CDATA section ([`LEAF_WORDS`] words).
    Cdata = 6,
    /// An attribute an `<!ATTLIST>` of the internal subset defaults (XML 1.0
    /// §3.3.2): no bytes in the text, a [`DECL`] field instead of [`START`].
    AttributeDefault = 7,
    /// A namespace declaration the internal subset defaults, like
    /// [`RecordKind::AttributeDefault`].
    NsDeclDefault = 8,
}

impl RecordKind {
    /// The kind stored in the top bits of `word0`; `None` for bits no record has.
    #[inline(always)]
    pub const fn from_word(word0: u32) -> Option<RecordKind> {
        Some(match word0 >> KIND_SHIFT {
            1 => RecordKind::Element,
            2 => RecordKind::Attribute,
            3 => RecordKind::NsDecl,
            4 => RecordKind::Comment,
            5 => RecordKind::Pi,
            6 => RecordKind::Cdata,
            7 => RecordKind::AttributeDefault,
            8 => RecordKind::NsDeclDefault,
            _ => return None,
        })
    }

    /// The number of words a record of this kind takes.
    #[inline(always)]
    pub const fn words(self) -> u32 {
        words_of(self as u32)
    }

    /// One of the four attribute kinds (specified or defaulted attribute or
    /// namespace declaration): records that follow their element's record.
    #[inline(always)]
    pub const fn is_attribute(self) -> bool {
        is_attr_kind(self as u32)
    }

    /// A comment, PI or CDATA section: a record with no children.
    #[inline(always)]
    pub const fn is_leaf(self) -> bool {
        matches!(self, RecordKind::Comment | RecordKind::Pi | RecordKind::Cdata)
    }
}

/// Words in a record of raw kind `kind` (the bits above [`KIND_SHIFT`]).
#[inline(always)]
pub(crate) const fn words_of(kind: u32) -> u32 {
    // Comparisons, not a `match`: a match becomes a table lookup, which costs
    // instructions in the scanning loops that call this once per record.
    if kind == RecordKind::Element as u32 {
        ELEM_WORDS
    } else if kind.wrapping_sub(RecordKind::Comment as u32) < 3 {
        LEAF_WORDS
    } else {
        ATTR_WORDS
    }
}
const _: () =
    assert!(RecordKind::Pi as u32 == RecordKind::Comment as u32 + 1 && RecordKind::Cdata as u32 == RecordKind::Comment as u32 + 2);

/// Is the raw kind one of the four attribute kinds?
#[inline(always)]
pub(crate) const fn is_attr_kind(kind: u32) -> bool {
    const A: u32 = RecordKind::Attribute as u32;
    const N: u32 = RecordKind::NsDecl as u32;
    const AD: u32 = RecordKind::AttributeDefault as u32;
    const ND: u32 = RecordKind::NsDeclDefault as u32;
    matches!(kind, A | N | AD | ND)
}

// ---- record ids ----------------------------------------------------------------------------

/// A position in a tape: the word index of a record's first word, or the end
/// of a range of records (which may be the tape's length).
///
/// What callers may rely on:
///
/// - **Order is document order.** Records are written in the order their nodes
///   start in the text, so comparing two ids of one tape compares their nodes'
///   positions; an element's attribute records come right after it, then its
///   descendants, so the records inside element `e` are exactly those with
///   `e < r < tape.next(e)`.
/// - **Representation.** The id is the word index, a `u32` no larger than
///   [`MAX_TAPE_WORDS`]; [`RecordId::new`] and [`RecordId::word`] convert
///   without cost, and it is the index [`Node::record`] returns and
///   [`Document::node_at_record`] takes.
/// - **Scope.** An id is stable for the life of its document and meaningless
///   for any other. Reading a tape with an id that is not a record of it (from
///   another document, or pointing inside a record) gives meaningless results and
///   may panic, never more: the reader is safe code over a slice.
///
/// `RecordId::default()` is word 0, the first record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct RecordId(u32);

impl RecordId {
    /// The id of the record at word `word`.
    #[inline(always)]
    pub const fn new(word: u32) -> RecordId {
        RecordId(word)
    }

    /// The record of `node` (an element, attribute, namespace declaration,
    /// comment, PI or CDATA section); `None` for the root and text nodes.
    #[inline(always)]
    pub fn of(node: &Node<'_>) -> Option<RecordId> {
        node.record().map(RecordId)
    }

    /// The word index.
    #[inline(always)]
    pub const fn word(self) -> u32 {
        self.0
    }

    /// The word index as a `usize`.
    #[inline(always)]
    pub const fn as_usize(self) -> usize {
        self.0 as usize
    }
}

impl From<RecordId> for u32 {
    #[inline(always)]
    fn from(r: RecordId) -> u32 {
        r.0
    }
}

// ---- the reader ------------------------------------------------------------------------------

/// A typed view of one document's tape: the accessors read the fields of
/// [the layout](self#layout) by record id. `Copy`, the size of a slice.
///
/// Accessors document which kinds they apply to; on a record of another kind
/// (or an id that is not a record) they return meaningless values or panic.
/// Text nodes have no record: they are the gaps between records' byte ranges.
#[derive(Clone, Copy)]
pub struct Tape<'d> {
    words: &'d [u32],
}

impl std::fmt::Debug for Tape<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // the words can be millions; `vtdx debug index` prints them readably
        f.debug_struct("Tape").field("words", &self.words.len()).finish()
    }
}

impl<'d> Tape<'d> {
    /// The tape of `doc`.
    #[inline(always)]
    pub fn of(doc: &'d Document<'_>) -> Tape<'d> {
        Tape { words: doc.tape() }
    }

    /// A view of raw tape words, as [`Document::tape`] returns them.
    #[inline(always)]
    pub const fn new(words: &'d [u32]) -> Tape<'d> {
        Tape { words }
    }

    /// The raw words.
    #[inline(always)]
    pub const fn words(&self) -> &'d [u32] {
        self.words
    }

    /// The length in words.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        self.words.len()
    }

    /// Is the tape empty (never, for a parsed document: it has an element)?
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The position past the last record.
    #[inline(always)]
    pub const fn end(&self) -> RecordId {
        RecordId(self.words.len() as u32)
    }

    /// The first record, `None` for an empty tape.
    #[inline(always)]
    pub const fn first(&self) -> Option<RecordId> {
        if self.words.is_empty() {
            None
        } else {
            Some(RecordId(0))
        }
    }

    /// The records of the document node's children (the document element and the
    /// top-level comments and PIs): the whole tape, as a `(start, end)` range to
    /// step through with [`Tape::subtree_end`].
    #[inline(always)]
    pub const fn root_child_range(&self) -> (RecordId, RecordId) {
        (RecordId(0), self.end())
    }

    #[inline(always)]
    fn word(&self, r: RecordId, field: u32) -> u32 {
        self.words[r.0 as usize + field as usize]
    }

    // ---- any record ----

    /// The record's kind. Panics when the kind bits are not a record's (`r` is
    /// not the start of a record); [`Tape::try_kind`] and the `is_*` tests
    /// never do (and cost a comparison less in a loop).
    #[inline(always)]
    #[track_caller]
    pub fn kind(&self, r: RecordId) -> RecordKind {
        match self.try_kind(r) {
            Some(k) => k,
            None => not_a_record(r),
        }
    }

    /// The record's kind; `None` when the kind bits are not a record's.
    #[inline(always)]
    pub fn try_kind(&self, r: RecordId) -> Option<RecordKind> {
        RecordKind::from_word(self.word(r, 0))
    }

    /// Is `r` a record of kind `kind`?
    #[inline(always)]
    pub fn is_kind(&self, r: RecordId, kind: RecordKind) -> bool {
        self.word(r, 0) >> KIND_SHIFT == kind as u32
    }

    /// Is `r` an element record?
    #[inline(always)]
    pub fn is_element(&self, r: RecordId) -> bool {
        self.is_kind(r, RecordKind::Element)
    }

    /// Is `r` a record of one of the four attribute kinds (attribute or namespace
    /// declaration, written or defaulted)?
    #[inline(always)]
    pub fn is_attribute(&self, r: RecordId) -> bool {
        is_attr_kind(self.word(r, 0) >> KIND_SHIFT)
    }

    /// Is `r` a comment, PI or CDATA record?
    #[inline(always)]
    pub fn is_leaf(&self, r: RecordId) -> bool {
        (self.word(r, 0) >> KIND_SHIFT).wrapping_sub(RecordKind::Comment as u32) < 3
    }

    /// Is `r` a defaulted attribute or namespace declaration (one with a [`DECL`]
    /// field and no bytes in the text)?
    #[inline(always)]
    pub fn is_defaulted(&self, r: RecordId) -> bool {
        const AD: u32 = RecordKind::AttributeDefault as u32;
        const ND: u32 = RecordKind::NsDeclDefault as u32;
        matches!(self.word(r, 0) >> KIND_SHIFT, AD | ND)
    }

    /// The name symbol of an element or attribute-kind record (0 for a comment,
    /// PI or CDATA section).
    #[inline(always)]
    pub fn symbol(&self, r: RecordId) -> Sym {
        Sym::new(self.word(r, 0) & PAYLOAD_MASK)
    }

    /// The byte offset at which the node starts in the text: the `<` of an
    /// element, comment, PI or CDATA section, the name of a written attribute or
    /// namespace declaration. Not for the defaulted kinds (see [`Tape::decl`]).
    #[inline(always)]
    pub fn start(&self, r: RecordId) -> usize {
        debug_assert!(!self.is_defaulted(r));
        self.word(r, START) as usize
    }

    /// The position just past the record itself (for an element: where its
    /// attribute records, if any, start).
    #[inline(always)]
    pub fn after_record(&self, r: RecordId) -> RecordId {
        RecordId(r.0 + words_of(self.word(r, 0) >> KIND_SHIFT))
    }

    /// The position just past an element, comment, PI or CDATA record and
    /// everything inside it: an element's [`Tape::next`], otherwise
    /// [`Tape::after_record`]. Stepping by it from one child record visits its
    /// siblings. Not for the attribute kinds (it takes them for leaves).
    #[inline(always)]
    pub fn subtree_end(&self, r: RecordId) -> RecordId {
        debug_assert!(!self.is_attribute(r));
        if self.is_element(r) {
            RecordId(self.word(r, NEXT))
        } else {
            RecordId(r.0 + LEAF_WORDS)
        }
    }

    /// A record start in `lo..hi` (a run of whole records: a subtree's
    /// descendants, the document's records, or a split parse's second half) at
    /// or just past its middle word, for cutting a scan of those records in
    /// two: the walk steps over whole sibling subtrees and goes down into the
    /// one that holds the middle. `None` when no record but the first starts
    /// there.
    pub fn record_near_middle(&self, lo: RecordId, hi: RecordId) -> Option<RecordId> {
        let mid = lo.0 + (hi.0 - lo.0) / 2;
        let mut j = lo;
        while j < hi {
            if j.0 >= mid {
                return (j > lo).then_some(j);
            }
            let past = if self.is_attribute(j) { self.after_record(j) } else { self.subtree_end(j) };
            // into the subtree that holds the middle (past an element's own
            // record: its attributes, then its children), else over it
            j = if past.0 > mid { self.after_record(j) } else { past };
        }
        None
    }

    /// The parent element of an element, comment, PI or CDATA record; `None`
    /// at the top level (the document node is the parent).
    #[inline(always)]
    pub fn parent(&self, r: RecordId) -> Option<RecordId> {
        match self.word(r, PARENT) {
            NONE => None,
            p => Some(RecordId(p)),
        }
    }

    /// The byte offset just past an element, comment, PI or CDATA section.
    #[inline(always)]
    pub fn end_offset(&self, r: RecordId) -> usize {
        if self.is_element(r) {
            self.element_end(r)
        } else {
            self.leaf_end(r)
        }
    }

    /// The next sibling record (element, comment, PI or CDATA) of an element,
    /// comment, PI or CDATA record, `None` for the last child of its parent.
    #[inline]
    pub fn next_sibling(&self, r: RecordId) -> Option<RecordId> {
        let n = self.subtree_end(r);
        (n < self.siblings_end(r)).then_some(n)
    }

    /// The end of the child records of the parent of an element, comment, PI or
    /// CDATA record: the parent's [`Tape::next`], or the tape's end at the top level.
    #[inline(always)]
    pub fn siblings_end(&self, r: RecordId) -> RecordId {
        match self.parent(r) {
            Some(p) => self.next(p),
            None => self.end(),
        }
    }

    // ---- elements ----

    /// An element's *next*: the position just past its subtree (attribute
    /// records and descendants).
    #[inline(always)]
    pub fn next(&self, e: RecordId) -> RecordId {
        debug_assert!(self.is_element(e));
        RecordId(self.word(e, NEXT))
    }

    /// The byte offset just past an element.
    #[inline(always)]
    pub fn element_end(&self, e: RecordId) -> usize {
        debug_assert!(self.is_element(e));
        self.word(e, ELEM_END) as usize
    }

    /// Where an element's attribute records (if any) start: just past its record.
    #[inline(always)]
    pub const fn attributes_start(&self, e: RecordId) -> RecordId {
        RecordId(e.0 + ELEM_WORDS)
    }

    /// The first position after an element's attribute records: its first child
    /// record, or its [`Tape::next`] when it has none.
    #[inline]
    pub fn after_attributes(&self, e: RecordId) -> RecordId {
        let end = self.next(e);
        let mut j = self.attributes_start(e);
        while j < end && self.is_attribute(j) {
            j = self.next_attribute(j);
        }
        j
    }

    /// The position after the attribute-kind record `a`: its element's next
    /// attribute record, if it has one.
    #[inline(always)]
    pub const fn next_attribute(&self, a: RecordId) -> RecordId {
        RecordId(a.0 + ATTR_WORDS)
    }

    /// The attribute-kind records of element `e`, in tape order: those written in
    /// the start tag (attributes and namespace declarations as written), then
    /// those the internal subset defaults.
    #[inline]
    pub fn attributes(&self, e: RecordId) -> Attributes<'d> {
        Attributes { tape: *self, pos: self.attributes_start(e), end: self.next(e) }
    }

    /// The ordinal of attribute-kind record `a` among the attribute records of
    /// its element `e` (0 for the first): its index in `Node::all_attributes`.
    #[inline(always)]
    pub const fn attribute_ordinal(&self, e: RecordId, a: RecordId) -> usize {
        ((a.0 - e.0 - ELEM_WORDS) / ATTR_WORDS) as usize
    }

    /// The positions of an element's child records: from the first one (or
    /// [`Tape::next`]) to [`Tape::next`]. Step through them with
    /// [`Tape::subtree_end`], or use [`Tape::children`].
    #[inline]
    pub fn child_range(&self, e: RecordId) -> (RecordId, RecordId) {
        (self.after_attributes(e), self.next(e))
    }

    /// Does the element have child records (elements, comments, PIs, CDATA sections)?
    /// Without them its content is at most one text node.
    #[inline]
    pub fn has_child_records(&self, e: RecordId) -> bool {
        self.after_attributes(e) < self.next(e)
    }

    /// An element's child records (elements, comments, PIs, CDATA sections) in
    /// document order.
    #[inline]
    pub fn children(&self, e: RecordId) -> Children<'d> {
        let (pos, end) = self.child_range(e);
        Children { tape: *self, pos, end }
    }

    // ---- other kinds ----

    /// The byte offset just past a comment's, PI's or CDATA section's `>`.
    #[inline(always)]
    pub fn leaf_end(&self, r: RecordId) -> usize {
        debug_assert!(self.is_leaf(r));
        self.word(r, LEAF_END) as usize
    }

    /// The index in `Dtd::attributes` of the declaration that a defaulted
    /// attribute or namespace declaration comes from.
    #[inline(always)]
    pub fn decl(&self, a: RecordId) -> usize {
        debug_assert!(self.is_defaulted(a));
        self.word(a, DECL) as usize
    }
}

/// The element records of `doc` whose symbol is one of `syms`, in document order.
///
/// Where it is exact, this compares the raw words with the element word 0s of
/// `syms` 32 at a time instead of walking the records: every word that is
/// not a record's word 0 is a byte offset into the text ([`START`],
/// [`ELEM_END`], [`LEAF_END`]), a word index into the tape ([`NEXT`],
/// [`PARENT`]), [`NONE`] (kind bits 15, no record's) or, in a document with a
/// DTD, a [`DECL`] index. An element's word 0 is `1 << KIND_SHIFT | sym`, at
/// least 2^28: so when the text and the tape are shorter than that and there is
/// no DTD, a word equal to it is that element's record. Other documents are
/// walked record by record.
pub fn elements_with_symbols(doc: &Document<'_>, syms: &[Sym]) -> Vec<RecordId> {
    const LANES: usize = 32;
    let tape = Tape::of(doc);
    let mut out = Vec::new();
    if syms.is_empty() {
        return out;
    }
    const LIMIT: usize = 1 << KIND_SHIFT;
    if doc.dtd().is_some() || doc.text().len() >= LIMIT || tape.len() >= LIMIT {
        let mut r = RecordId(0);
        while r < tape.end() {
            if tape.is_element(r) && syms.contains(&tape.symbol(r)) {
                out.push(r);
            }
            r = tape.after_record(r);
        }
        return out;
    }
    // (a symbol too large for the payload bits names no record)
    let heads: Vec<u32> =
        syms.iter().filter(|s| s.as_u32() <= PAYLOAD_MASK).map(|s| (RecordKind::Element as u32) << KIND_SHIFT | s.as_u32()).collect();
    let words = tape.words();
    let mut chunks = words.chunks_exact(LANES);
    let mut base = 0usize;
    let pick = |at: usize, c: &[u32], out: &mut Vec<RecordId>| {
        for (j, w) in c.iter().enumerate() {
            if heads.contains(w) {
                out.push(RecordId((at + j) as u32));
            }
        }
    };
    for c in &mut chunks {
        let c: &[u32; LANES] = c.try_into().unwrap_or(&[0; LANES]);
        // a branch-free comparison of the whole chunk with each head (vectorized);
        // the chunks that hold one are looked at word by word
        let mut m = [0u32; LANES];
        for &h in &heads {
            for (m, &w) in m.iter_mut().zip(c) {
                *m |= (w == h) as u32;
            }
        }
        if m.iter().fold(0, |a, &b| a | b) != 0 {
            pick(base, c, &mut out);
        }
        base += LANES;
    }
    pick(base, chunks.remainder(), &mut out);
    out
}

#[cold]
#[inline(never)]
#[track_caller]
fn not_a_record(r: RecordId) -> ! {
    panic!("no record starts at word {} of the tape", r.0)
}

/// The attribute-kind records of an element ([`Tape::attributes`]).
#[derive(Clone, Debug)]
pub struct Attributes<'d> {
    tape: Tape<'d>,
    pos: RecordId,
    end: RecordId,
}

impl Iterator for Attributes<'_> {
    type Item = RecordId;

    #[inline]
    fn next(&mut self) -> Option<RecordId> {
        let a = self.pos;
        if a < self.end && self.tape.is_attribute(a) {
            self.pos = self.tape.next_attribute(a);
            Some(a)
        } else {
            None
        }
    }
}

/// An element's child records ([`Tape::children`]).
#[derive(Clone, Debug)]
pub struct Children<'d> {
    tape: Tape<'d>,
    pos: RecordId,
    end: RecordId,
}

impl Iterator for Children<'_> {
    type Item = RecordId;

    #[inline]
    fn next(&mut self) -> Option<RecordId> {
        let r = self.pos;
        if r < self.end {
            self.pos = self.tape.subtree_end(r);
            Some(r)
        } else {
            None
        }
    }
}

/// Hints the CPU to bring the cache line holding `s[i]` in (x86-64's
/// `prefetcht0`; nothing elsewhere, or when `i` is out of bounds). A hint: it
/// reads nothing the program sees and cannot fault.
#[inline(always)]
pub fn prefetch<T>(s: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = s.get(i) {
        #[allow(unsafe_code)]
        // SAFETY: `x` is a live reference, so its address is valid; `prefetcht0`
        // (SSE, part of the x86-64 baseline) only loads the line into the cache:
        // it has no architectural effect, cannot fault, and changes no memory.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(x as *const T as *const i8)
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (s, i);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worked example of `docs/index-format.md`.
    const PO: &[u8] = b"<?xml version=\"1.0\"?>\n<po date=\"2026-11-02\">\n  <item n=\"1\">Can &amp; lid</item>\n  <!--rush-->\n  <item n=\"2\"/>\n</po>\n";

    fn r(w: u32) -> RecordId {
        RecordId::new(w)
    }

    /// `elements_with_symbols` finds what the `Node` API's walk finds, for each
    /// name and pairs of names, in documents with attributes, namespace
    /// declarations, comments, PIs, CDATA, nested elements of the same name,
    /// tapes of every length modulo the 32-word chunks, and with a DTD (whose
    /// defaulted attributes send it down the record walk).
    #[test]
    fn elements_with_symbols_finds_what_the_walk_finds() {
        let mut docs = Vec::new();
        for n in 0..40 {
            let mut x = String::from("<r xmlns:p='urn:p' a='1'>");
            for i in 0..n {
                x.push_str(match i % 6 {
                    0 => "<p:s b='2'><s/></p:s>",
                    1 => "<!--c--><s p:c='3'>t</s>",
                    2 => "<?pi x?><t><![CDATA[<s>]]></t>",
                    3 => "<s xmlns='urn:p'><s/></s>",
                    4 => "<u><u><s/></u></u>",
                    _ => "<t a='1' b='2' c='3'/>",
                });
            }
            x.push_str("</r>");
            docs.push(x);
        }
        docs.push("<!DOCTYPE r [<!ATTLIST s d CDATA 'x'>]><r><s/><t><s a='1'/></t></r>".into());
        for x in &docs {
            let doc = Document::parse(x.as_bytes()).unwrap();
            let names = doc.names();
            let syms: Vec<Sym> = names.syms().collect();
            let walk = |want: &[Sym]| -> Vec<RecordId> {
                doc.root()
                    .descendant_elements()
                    .filter(|e| e.sym().is_some_and(|s| want.contains(&s)))
                    .filter_map(|e| RecordId::of(&e))
                    .collect()
            };
            for (i, &a) in syms.iter().enumerate() {
                for want in [vec![a], vec![a, syms[(i + 1) % syms.len()]], vec![a, Sym::new(PAYLOAD_MASK + 1)]] {
                    assert_eq!(elements_with_symbols(&doc, &want), walk(&want), "{x} {want:?}");
                }
            }
            assert!(elements_with_symbols(&doc, &[]).is_empty());
        }
    }

    /// `record_near_middle` gives a record start (one the record-by-record walk
    /// of `after_record` meets) at or past the middle and inside the range, for
    /// every subtree of a document with attributes, comments, nesting and runs
    /// of siblings.
    #[test]
    fn record_near_middle_is_a_record_start() {
        let mut xml = String::from("<r a='1'>");
        for i in 0..40 {
            xml.push_str(&format!("<g n='{i}'><!--c-->{}<x/></g>", "<i b='2'>t</i>".repeat(i % 7)));
        }
        xml.push_str("</r>");
        let doc = Document::parse(xml.as_bytes()).unwrap();
        let t = Tape::of(&doc);
        let mut starts = Vec::new();
        let mut j = r(0);
        while j < t.end() {
            starts.push(j);
            j = t.after_record(j);
        }
        let mut checked = 0;
        for &e in starts.iter().filter(|&&e| t.is_element(e)) {
            let (lo, hi) = (t.attributes_start(e), t.next(e));
            if let Some(m) = t.record_near_middle(lo, hi) {
                assert!(starts.contains(&m), "{m:?} is not a record start");
                assert!(m > lo && m < hi && m.word() >= lo.word() + (hi.word() - lo.word()) / 2, "{m:?} outside {lo:?}..{hi:?}");
                checked += 1;
            }
        }
        assert!(checked > 40, "{checked}");
        assert!(starts.contains(&t.record_near_middle(r(0), t.end()).unwrap()));
    }

    #[test]
    fn worked_example_records() {
        let doc = Document::parse(PO).unwrap();
        let t = Tape::of(&doc);
        // the table of docs/index-format.md, worked out by hand
        assert_eq!(t.len(), 25);
        assert_eq!(t.end(), r(25));
        assert_eq!(t.first(), Some(r(0)));

        let (po, date, item1, n1, comment, item2, n2) = (r(0), r(5), r(7), r(12), r(14), r(18), r(23));
        let kinds = [
            (po, RecordKind::Element),
            (date, RecordKind::Attribute),
            (item1, RecordKind::Element),
            (n1, RecordKind::Attribute),
            (comment, RecordKind::Comment),
            (item2, RecordKind::Element),
            (n2, RecordKind::Attribute),
        ];
        for (rec, k) in kinds {
            assert_eq!(t.kind(rec), k, "{rec:?}");
            assert_eq!(t.try_kind(rec), Some(k));
            assert!(t.is_kind(rec, k));
            assert_eq!(t.is_element(rec), k == RecordKind::Element);
            assert_eq!(t.is_attribute(rec), k.is_attribute());
            assert_eq!(t.is_leaf(rec), k.is_leaf());
            assert!(!t.is_defaulted(rec));
        }
        // symbols: po=0 date=1 item=2 n=3; comments have none
        let syms: Vec<Sym> = [po, date, item1, n1, comment, item2, n2].iter().map(|&x| t.symbol(x)).collect();
        assert_eq!(syms, [0, 1, 2, 3, 0, 2, 3].map(Sym::new));
        assert_eq!(doc.names().qname(Sym::new(2)), "item");
        // start offsets
        let starts: Vec<usize> = [po, date, item1, n1, comment, item2, n2].iter().map(|&x| t.start(x)).collect();
        assert_eq!(starts, [22, 26, 47, 53, 82, 96, 102]);
        // next, parent, end
        assert_eq!((t.next(po), t.parent(po), t.element_end(po)), (r(25), None, 115));
        assert_eq!((t.next(item1), t.parent(item1), t.element_end(item1)), (r(14), Some(po), 79));
        assert_eq!((t.leaf_end(comment), t.parent(comment)), (93, Some(po)));
        assert_eq!((t.next(item2), t.parent(item2), t.element_end(item2)), (r(25), Some(po), 109));
        assert_eq!([t.end_offset(po), t.end_offset(comment)], [115, 93]);
        // steps
        assert_eq!(t.after_record(po), r(5));
        assert_eq!(t.after_record(date), r(7));
        assert_eq!(t.after_record(comment), r(18));
        assert_eq!(t.subtree_end(item1), r(14));
        assert_eq!(t.subtree_end(comment), r(18));
        assert_eq!(t.attributes_start(item1), r(12));
        assert_eq!(t.after_attributes(po), r(7));
        assert_eq!(t.after_attributes(item2), r(25));
        assert_eq!(t.child_range(po), (r(7), r(25)));
        assert_eq!(t.child_range(item2), (r(25), r(25)));
        assert_eq!(t.root_child_range(), (r(0), r(25)));
        assert!(t.has_child_records(po));
        assert!(!t.has_child_records(item1));
        // iterators
        assert_eq!(t.attributes(po).collect::<Vec<_>>(), [date]);
        assert_eq!(t.attributes(item2).collect::<Vec<_>>(), [n2]);
        assert_eq!(t.attribute_ordinal(item2, n2), 0);
        assert_eq!(t.children(po).collect::<Vec<_>>(), [item1, comment, item2]);
        assert_eq!(t.children(item1).count(), 0);
        // siblings
        assert_eq!(t.next_sibling(item1), Some(comment));
        assert_eq!(t.next_sibling(comment), Some(item2));
        assert_eq!(t.next_sibling(item2), None);
        assert_eq!(t.next_sibling(po), None);
        assert_eq!(t.siblings_end(item1), r(25));
        assert_eq!(t.siblings_end(po), r(25));
        // ids are the core's record indices, and order is document order
        assert_eq!(RecordId::of(&doc.root_element()), Some(po));
        assert_eq!(RecordId::of(&doc.root()), None);
        let nodes: Vec<usize> = [po, item1, comment, item2].iter().map(|&x| doc.node_at_record(x.word()).unwrap().range().start).collect();
        assert_eq!(nodes, [22, 47, 82, 96]);
        let mut ids = vec![item2, po, n1, comment];
        ids.sort();
        assert_eq!(ids, [po, n1, comment, item2]);
    }

    #[test]
    fn top_level_and_leaf_kinds() {
        let doc = Document::parse(b"<?pi x?><a><![CDATA[c]]><?q?></a><!--e-->").unwrap();
        let t = Tape::of(&doc);
        // pi(0..4) a(4..17: cdata 9, pi 13) comment(17..21)
        assert_eq!(t.kind(r(0)), RecordKind::Pi);
        assert_eq!(t.parent(r(0)), None);
        assert_eq!(t.next_sibling(r(0)), Some(r(4)));
        assert_eq!(t.next(r(4)), r(17));
        assert_eq!(t.children(r(4)).map(|x| t.kind(x)).collect::<Vec<_>>(), [RecordKind::Cdata, RecordKind::Pi]);
        assert_eq!(t.parent(r(9)), Some(r(4)));
        assert_eq!((t.start(r(9)), t.leaf_end(r(9))), (11, 24));
        assert_eq!(t.kind(r(17)), RecordKind::Comment);
        assert_eq!(t.next_sibling(r(17)), None);
        assert_eq!(t.siblings_end(r(13)), r(17));
        assert_eq!(t.symbol(r(0)), Sym::new(0));
    }

    #[test]
    fn defaulted_attributes_follow_written_ones() {
        let xml = br#"<!DOCTYPE a [<!ATTLIST a d CDATA "x" xmlns:p CDATA "urn:p" w CDATA "y">]><a w="1" xmlns:q="urn:q"><b/></a>"#;
        let opts = crate::ParseOptions { attribute_defaults: true, ..Default::default() };
        let doc = Document::parse_with(xml, &opts).unwrap();
        let t = Tape::of(&doc);
        let a = t.first().unwrap();
        let kinds: Vec<RecordKind> = t.attributes(a).map(|x| t.kind(x)).collect();
        assert_eq!(kinds, [RecordKind::Attribute, RecordKind::NsDecl, RecordKind::AttributeDefault, RecordKind::NsDeclDefault]);
        let recs: Vec<RecordId> = t.attributes(a).collect();
        let dtd = doc.dtd().unwrap();
        assert_eq!(dtd.attributes[t.decl(recs[2])].name, "d");
        assert_eq!(dtd.attributes[t.decl(recs[3])].name, "xmlns:p");
        assert!(t.is_defaulted(recs[2]) && t.is_defaulted(recs[3]) && !t.is_defaulted(recs[1]));
        assert_eq!(t.attribute_ordinal(a, recs[3]), 3);
        assert_eq!(t.after_attributes(a), r(13));
        assert_eq!(t.children(a).collect::<Vec<_>>(), [r(13)]);
        let names: Vec<String> = doc.root_element().all_attributes().map(|x| x.name().to_string()).collect();
        assert_eq!(names, ["w", "xmlns:q", "d", "xmlns:p"]);
    }

    #[test]
    #[should_panic(expected = "no record starts at word 1")]
    fn kind_inside_a_record_panics() {
        let doc = Document::parse(b"<a/>").unwrap();
        assert_eq!(Tape::of(&doc).try_kind(r(1)), None);
        Tape::of(&doc).kind(r(1));
    }
}
