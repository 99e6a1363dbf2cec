//! Interned names.
//!
//! Every element and attribute name is interned twice during parsing:
//!
//! * as a **qualified name** ([`QNameId`]): the bytes as written, `p:local`;
//! * as a **symbol** ([`Sym`]): the pair (qualified name, namespace URI).
//!
//! The token index stores the symbol, so a name test against an expanded name
//! `{uri}local` or a qualified name is an integer comparison once the matching
//! symbols are known (see [`Names::syms_matching`]).

use std::collections::HashMap;

/// Defines the shared constructor and accessors of an id newtype over `u32`.
macro_rules! u32_id {
    ($t:ident) => {
        impl $t {
            /// The id whose raw index is `index`. Free; any value is accepted (an
            /// index a document's tables do not have makes [`Names`] return another
            /// name or panic, never more).
            #[inline(always)]
            pub const fn new(index: u32) -> $t {
                $t(index)
            }

            /// The raw index, as stored.
            #[inline(always)]
            pub const fn as_u32(self) -> u32 {
                self.0
            }

            /// The raw index as a `usize`, for indexing a table by id.
            #[inline(always)]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl From<$t> for u32 {
            #[inline(always)]
            fn from(id: $t) -> u32 {
                id.0
            }
        }
    };
}

/// An interned namespace URI (a namespace *name*, not a prefix) of one document.
///
/// What callers may rely on:
///
/// - **Indexing.** It indexes the namespace table of the [`Names`] it came from
///   ([`Names::ns_by_id`]); ids are dense from 0 in order of first use.
/// - **Equality.** Within one document, two ids are equal exactly when their URIs
///   are equal (byte for byte), so comparing namespaces is comparing ids.
/// - **Fixed ids.** [`NS_NONE`] (0) is "no namespace" (the empty URI),
///   [`NS_XML`] (1) the `xml` prefix's namespace and [`NS_XMLNS`] (2) the
///   namespace of `xmlns` attributes, in every document.
/// - **Representation.** `#[repr(transparent)]` over a `u32`: [`NsId::new`],
///   [`NsId::as_u32`] and [`NsId::index`] convert without cost.
/// - **Scope.** Other ids are meaningless across documents: the same URI may get
///   another id in another document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct NsId(u32);
u32_id!(NsId);

/// No namespace.
pub const NS_NONE: NsId = NsId(0);
/// `http://www.w3.org/XML/1998/namespace`, bound to the `xml` prefix.
pub const NS_XML: NsId = NsId(1);
/// `http://www.w3.org/2000/xmlns/`, the namespace of namespace declarations.
pub const NS_XMLNS: NsId = NsId(2);
/// The URI bound to `xml:`.
pub const XML_NAMESPACE: &str = "http://www.w3.org/XML/1998/namespace";
/// The URI of `xmlns` attributes.
pub const XMLNS_NAMESPACE: &str = "http://www.w3.org/2000/xmlns/";

/// An interned qualified name as written (`p:local`), whatever namespace its
/// prefix is bound to; the parser's key for names before namespaces are resolved.
///
/// What callers may rely on: it indexes the qualified-name table of one
/// document's [`Names`] (dense from 0 in order of first use); within that
/// document two ids are equal exactly when the names' bytes are; it is
/// meaningless across documents. `#[repr(transparent)]` over a `u32`
/// ([`QNameId::new`], [`QNameId::as_u32`], [`QNameId::index`]). Internal to the
/// parser: the public API names elements and attributes by [`Sym`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct QNameId(u32);
u32_id!(QNameId);

/// An interned (qualified name, namespace URI) pair: the name of an element or
/// attribute as the token index stores it ([`Node::sym`](crate::Node::sym),
/// [`Tape::symbol`](crate::tape::Tape::symbol)).
///
/// What callers may rely on:
///
/// - **Indexing.** It indexes the tables of the [`Names`] of the document it
///   came from ([`Names::qname`], [`Names::local`], [`Names::prefix`],
///   [`Names::ns_id`], [`Names::ns_uri`]). Symbols are dense, `0..`
///   [`Names::sym_count`] in order of first use, so [`Sym::index`] can index a
///   per-document table (a bit set of the symbols a name test matches).
/// - **Equality.** Within one document, two names are the same symbol exactly
///   when both their qualified names (as written) and their namespace URIs are
///   equal: a name test is an integer comparison once the matching symbols are
///   known (see [`Names::syms_matching`]).
/// - **Representation.** `#[repr(transparent)]` over a `u32` below 2^27 (the
///   index packs a 4-bit kind beside it; a document with more distinct names is
///   refused with [`crate::LimitKind::IndexCapacity`]). [`Sym::new`],
///   [`Sym::as_u32`] and [`Sym::index`] convert without cost.
/// - **Scope.** Meaningless across documents: the same name may have another
///   symbol in another document (even one parsed by the same reused
///   [`Parser`](crate::Parser)). A symbol that is not one of the document's
///   makes the [`Names`] accessors return another name or panic, never more.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Sym(u32);
u32_id!(Sym);

const _: () = assert!(std::mem::size_of::<Sym>() == 4 && std::mem::size_of::<NsId>() == 4 && std::mem::size_of::<QNameId>() == 4);

pub(crate) const MAX_SYMS: u32 = 1 << 27;
/// The qualified name `xml` (the reserved prefix), interned first in every table.
pub(crate) const Q_XML: QNameId = QNameId(0);
/// The qualified name `xmlns`, interned second in every table.
pub(crate) const Q_XMLNS: QNameId = QNameId(1);
pub(crate) const NO_PREFIX: QNameId = QNameId(u32::MAX);
/// No namespace seen yet (`QNameInfo::last_ns` of a new name).
const NS_UNSET: NsId = NsId(u32::MAX);

/// The byte behind [`EMPTY`].
static EMPTY_BACKING: [u8; 1] = [0];
/// The empty namespace name, as [`Names::ns_by_id`] hands it out: an empty `str`
/// at a real address. (The table's own empty `Box<str>` has a dangling pointer,
/// which sends every comparison with it through glibc's slow path for zero-length
/// `memcmp` on an unaligned address.)
static EMPTY: &str = match std::str::from_utf8(EMPTY_BACKING.split_at(0).0) {
    Ok(s) => s,
    Err(_) => "",
};

#[derive(Debug, Clone)]
pub(crate) struct QNameInfo {
    /// The name's bytes: `Names::arena[off..off + blen]`.
    pub off: u32,
    pub blen: u32,
    /// Length of the prefix in bytes (0 when there is none).
    pub prefix_len: u32,
    /// The prefix, interned as a qualified name (NO_PREFIX when none).
    pub prefix: QNameId,
    /// Last symbol made for this qname and its namespace: the usual case is one URI per qname.
    pub last_ns: NsId,
    pub last_sym: Sym,
    /// Namespaces in XML QName check: 0 not yet checked, 1 ok, 2 not a QName;
    /// 3 ok, and the element type has attribute defaults in the document being
    /// parsed (the lean path then hands its start tags over; reset after each parse).
    pub qname_ok: u8,
    /// Name prediction: the qname that followed this one as a sibling last time, and
    /// the qname of this element's first child last time (`NO_PREFIX` when none).
    pub next_guess: QNameId,
    pub child_guess: QNameId,
    /// Attribute name prediction on the lean path, tried when the previous start tag
    /// had another name in the same place: for an element type, the name of its first
    /// attribute last time; for an attribute, the name of the attribute that followed
    /// it last time (`NO_PREFIX` when none). A name used both ways shares the field:
    /// a guess is always checked against the bytes, so a wrong one costs a compare.
    pub attr_guess: QNameId,
    /// The name's bytes as two words (zero-padded) when it is at most 16 bytes long;
    /// `len == u32::MAX` otherwise (never predicted).
    pub w0: u64,
    pub w1: u64,
    pub len: u32,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct SymInfo {
    pub qname: QNameId,
    pub ns: NsId,
}

/// A small direct-mapped cache in front of the qname hash map.
const CACHE_SIZE: usize = 256;

/// The name tables of one document.
#[derive(Debug, Clone)]
pub struct Names {
    pub(crate) qnames: Vec<QNameInfo>,
    /// Every qualified name's bytes, one after another (no allocation per name).
    pub(crate) arena: String,
    /// Names of at most 16 bytes by their bytes as two zero-padded words and length.
    pub(crate) qname_map: HashMap<(u64, u64, u32), QNameId, BuildFx>,
    /// Longer names.
    long_map: HashMap<Box<[u8]>, QNameId, BuildFx>,
    pub(crate) syms: Vec<SymInfo>,
    pub(crate) sym_map: HashMap<(QNameId, NsId), Sym, BuildFx>,
    pub(crate) ns: Vec<Box<str>>,
    /// Per namespace id: [`NS_HAS_SCHEME`] and [`NS_ATTR_PLAIN`] bits, computed when interned.
    ns_flags: Vec<u8>,
    pub(crate) ns_map: HashMap<Box<[u8]>, NsId, BuildFx>,
    cache: Vec<CacheEntry>,
    /// Direct-mapped caches in front of `long_map` (names of 17 to 32 bytes, such as
    /// `wsse:BinarySecurityToken`) and `ns_map` (namespace declarations).
    long_cache: Vec<LongEntry>,
    ns_cache: Vec<NsEntry>,
    /// The namespace declarations the lean path made last, by the declaring
    /// attribute's name (direct-mapped on its id): see [`Names::declared_again`].
    pub(crate) decl_memo: [DeclMemo; DECL_MEMO_SIZE],
    /// The document element's start tag as the lean path last accepted it.
    pub(crate) root_tag: Option<Box<RootTag>>,
}

/// The document element's start tag as the lean path last accepted it, taken whole
/// when the next document's start tag has the same bytes: a SOAP message declares
/// its namespaces on the `Envelope`, the same way in every message. Its symbols and
/// namespace ids are those of the tables it lives in.
#[derive(Debug, Clone, Default)]
pub(crate) struct RootTag {
    /// The tag, `<` to `>`.
    pub bytes: Vec<u8>,
    /// What else the outcome depends on: namespace processing on, the name length
    /// and attribute count limits.
    pub key: (bool, u32, u32),
    pub qid: QNameId,
    pub name_len: u32,
    pub empty: bool,
    /// The element record's first word (kind and symbol).
    pub word0: u32,
    /// Each attribute and declaration record: its first word and its name's offset
    /// from the `<`.
    pub attrs: Vec<(u32, u32)>,
    /// What the tag's declarations bind: (prefix, namespace).
    pub bindings: Vec<(QNameId, NsId)>,
}

/// A cached name of 17 to 32 bytes: its first 16 and last 16 bytes (overlapping)
/// as four words, which with the length determine it.
#[derive(Debug, Clone, Copy)]
struct LongEntry {
    w: [u64; 4],
    len: u32,
    id: QNameId,
}

const EMPTY_LONG: LongEntry = LongEntry { w: [0; 4], len: u32::MAX, id: QNameId(0) };
const LONG_CACHE_SIZE: usize = 64;

/// A namespace declaration made on the lean path: the declaring attribute's name
/// (`xmlns` or `xmlns:p`), the prefix it binds (interned; `NO_PREFIX` for `xmlns`)
/// and the namespace (never [`NS_NONE`]), which has passed every check a
/// declaration gets (they depend on the prefix and the name only).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DeclMemo {
    pub attr: QNameId,
    pub prefix: QNameId,
    pub ns: NsId,
}

const NO_DECL_MEMO: DeclMemo = DeclMemo { attr: NO_PREFIX, prefix: NO_PREFIX, ns: NS_NONE };
pub(crate) const DECL_MEMO_SIZE: usize = 8;

/// A cached namespace name: its length, first and last 8 bytes (a hint; a hit is
/// confirmed against the interned name) and id.
#[derive(Debug, Clone, Copy)]
struct NsEntry {
    head: u64,
    tail: u64,
    len: u32,
    id: NsId,
}

const EMPTY_NS: NsEntry = NsEntry { head: 0, tail: 0, len: u32::MAX, id: NsId(0) };
const NS_CACHE_SIZE: usize = 64;

/// The first and last 8 bytes of `b` as words (zero-padded below 8 bytes).
#[inline(always)]
fn head_tail(b: &[u8]) -> (u64, u64) {
    if b.len() >= 8 {
        let head = u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8]));
        let tail = u64::from_le_bytes(b[b.len() - 8..].try_into().unwrap_or([0; 8]));
        (head, tail)
    } else {
        (load16(b).0, 0)
    }
}

#[derive(Debug, Clone, Copy)]
struct CacheEntry {
    w0: u64,
    w1: u64,
    len: u32,
    id: QNameId,
}

const EMPTY_ENTRY: CacheEntry = CacheEntry { w0: 0, w1: 0, len: u32::MAX, id: QNameId(0) };

/// The bytes of a name of at most 16 bytes as two little-endian words, zero-padded.
#[inline(always)]
pub(crate) fn load16(b: &[u8]) -> (u64, u64) {
    let mut buf = [0u8; 16];
    buf[..b.len()].copy_from_slice(b);
    (u64::from_le_bytes(buf[..8].try_into().unwrap_or([0; 8])), u64::from_le_bytes(buf[8..].try_into().unwrap_or([0; 8])))
}

/// For each length up to 31 (the index masked with 31, so no bounds check), the mask
/// that keeps that many low bytes of a 16-byte word (all 16 from 16 on).
static LOAD16_MASKS: [u128; 32] = {
    let mut m = [u128::MAX; 32];
    let mut i = 0;
    while i < 16 {
        m[i] = (1u128 << (i * 8)) - 1;
        i += 1;
    }
    m
};

/// Like [`load16`] for the `len <= 16` bytes at `text[pos..]`, reading the two words
/// straight from the text (and masking) when 16 bytes are available, which avoids a
/// variable-length copy and a store-forwarding stall on the hot path.
#[inline(always)]
pub(crate) fn load16_at(text: &[u8], pos: usize, len: usize) -> (u64, u64) {
    match text.get(pos..pos + 16).and_then(|s| <[u8; 16]>::try_from(s).ok()) {
        Some(s) => {
            // one 16-byte load, masked to `len` bytes by a table (no branches on the
            // length, which varies name to name) and split
            let x = u128::from_le_bytes(s) & LOAD16_MASKS[len & 31];
            (x as u64, (x >> 64) as u64)
        }
        None => load16(&text[pos..pos + len]),
    }
}

const NS_HAS_SCHEME: u8 = 1;
const NS_ATTR_PLAIN: u8 = 2;

/// Does `uri` start with a scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`,
/// RFC 3986 §3.1), i.e. is it not a relative reference?
pub fn has_uri_scheme(uri: &[u8]) -> bool {
    uri.first().is_some_and(u8::is_ascii_alphabetic) && {
        let rest = &uri[1..];
        let end = rest.iter().position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')));
        end.is_some_and(|i| rest[i] == b':')
    }
}

/// The [`Names::ns_has_scheme`] and [`Names::ns_attr_plain`] bits of a namespace URI.
fn ns_flags_of(uri: &[u8]) -> u8 {
    let plain = !uri.iter().any(|&c| matches!(c, b'&' | b'<' | b'"' | b'\t' | b'\n' | b'\r'));
    (if has_uri_scheme(uri) { NS_HAS_SCHEME } else { 0 }) | (if plain { NS_ATTR_PLAIN } else { 0 })
}

impl Default for Names {
    fn default() -> Self {
        Self::new()
    }
}

impl Names {
    pub(crate) fn new() -> Self {
        // room for the names of a typical message, so a fresh parser does not grow
        // its tables name by name
        let mut n = Names {
            qnames: Vec::with_capacity(64),
            arena: String::with_capacity(1024),
            qname_map: HashMap::with_capacity_and_hasher(64, BuildFx),
            long_map: HashMap::with_hasher(BuildFx),
            syms: Vec::with_capacity(64),
            sym_map: HashMap::with_capacity_and_hasher(64, BuildFx),
            ns: Vec::new(),
            ns_flags: Vec::new(),
            ns_map: HashMap::with_hasher(BuildFx),
            cache: Vec::new(),
            long_cache: Vec::new(),
            ns_cache: Vec::new(),
            decl_memo: [NO_DECL_MEMO; DECL_MEMO_SIZE],
            root_tag: None,
        };
        n.reset();
        n
    }

    /// Empties the tables, keeping their allocations.
    pub(crate) fn reset(&mut self) {
        self.qnames.clear();
        self.arena.clear();
        self.qname_map.clear();
        self.long_map.clear();
        self.syms.clear();
        self.sym_map.clear();
        self.ns.clear();
        self.ns_flags.clear();
        self.ns_map.clear();
        self.cache.clear();
        self.cache.resize(CACHE_SIZE, EMPTY_ENTRY);
        self.long_cache.clear();
        self.long_cache.resize(LONG_CACHE_SIZE, EMPTY_LONG);
        self.ns_cache.clear();
        self.ns_cache.resize(NS_CACHE_SIZE, EMPTY_NS);
        self.decl_memo = [NO_DECL_MEMO; DECL_MEMO_SIZE];
        self.root_tag = None;
        for u in ["", XML_NAMESPACE, XMLNS_NAMESPACE] {
            self.intern_ns(u);
        }
        // the reserved prefixes every parse tests names against, at fixed ids
        let reserved = (self.intern_qname(b"xml"), self.intern_qname(b"xmlns"));
        debug_assert_eq!(reserved, (Q_XML, Q_XMLNS));
    }

    /// Interns a namespace URI.
    pub(crate) fn intern_ns(&mut self, uri: &str) -> NsId {
        self.intern_ns_bytes(uri.as_bytes())
    }

    /// Interns a namespace name given as bytes of validated UTF-8 (a whole attribute
    /// value): converted to text only when it is new.
    pub(crate) fn intern_ns_bytes(&mut self, uri: &[u8]) -> NsId {
        // a message declares a handful of namespaces, the same ones message after
        // message: a cache slot and one compare instead of hashing the whole URI
        let (head, tail) = head_tail(uri);
        let h = (head ^ tail.rotate_left(29) ^ uri.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = (h >> 58) as usize & (NS_CACHE_SIZE - 1);
        let c = self.ns_cache[slot];
        // (up to 16 bytes, the length and the two words are the bytes)
        if c.len == uri.len() as u32 && c.head == head && c.tail == tail && (uri.len() <= 16 || self.ns[c.id.index()].as_bytes() == uri) {
            return c.id;
        }
        let id = match self.ns_map.get(uri) {
            Some(&id) => id,
            None => {
                let id = NsId(self.ns.len() as u32);
                self.ns.push(String::from_utf8_lossy(uri).into());
                self.ns_flags.push(ns_flags_of(uri));
                self.ns_map.insert(uri.into(), id);
                id
            }
        };
        self.ns_cache[slot] = NsEntry { head, tail, len: uri.len() as u32, id };
        id
    }

    /// The namespace the lean path's last declaration by attribute `attr` bound, when
    /// `uri` (the attribute's value as written) is that namespace's name and has no
    /// tab, line end or character that needs decoding (so the value is its
    /// normalized value). The declaration's prefix is in the same memo entry.
    #[inline]
    pub(crate) fn declared_again(&self, attr: QNameId, uri: &[u8]) -> Option<NsId> {
        let m = self.decl_memo[attr.index() % DECL_MEMO_SIZE];
        (m.attr == attr && self.ns_flags[m.ns.index()] & NS_ATTR_PLAIN != 0 && self.ns[m.ns.index()].as_bytes() == uri).then_some(m.ns)
    }

    /// True when namespace `ns` is an absolute URI: it starts with a scheme (RFC 3986
    /// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`). Canonical XML rejects
    /// relative namespace URIs.
    #[inline]
    pub fn ns_has_scheme(&self, ns: NsId) -> bool {
        self.ns_flags.get(ns.index()).is_some_and(|f| f & NS_HAS_SCHEME != 0)
    }

    /// True when namespace `ns` can be written in a double-quoted attribute value as it
    /// stands: it has no `&`, `<`, `"`, tab, LF or CR.
    #[inline]
    pub fn ns_attr_plain(&self, ns: NsId) -> bool {
        self.ns_flags.get(ns.index()).is_some_and(|f| f & NS_ATTR_PLAIN != 0)
    }

    /// Interns a qualified name whose syntax has already been checked.
    #[inline]
    pub(crate) fn intern_qname(&mut self, name: &[u8]) -> QNameId {
        self.intern_qname_at(name, 0, name.len())
    }

    /// Interns `text[start..end]`.
    #[inline]
    pub(crate) fn intern_qname_at(&mut self, text: &[u8], start: usize, end: usize) -> QNameId {
        let name = &text[start..end];
        if name.len() <= 16 {
            // Short names (almost all): the cache slot holds the name's bytes, so a hit
            // costs two word compares and no pointer chase.
            let (w0, w1) = load16_at(text, start, name.len());
            let h = (w0 ^ w1.rotate_left(17) ^ name.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let slot = (h >> 55) as usize & (CACHE_SIZE - 1);
            let c = self.cache[slot];
            if c.w0 == w0 && c.w1 == w1 && c.len == name.len() as u32 {
                return c.id;
            }
            let id = self.intern_qname_slow(name);
            self.cache[slot] = CacheEntry { w0, w1, len: name.len() as u32, id };
            return id;
        }
        if name.len() <= 32 {
            // 17 to 32 bytes (`SOAP-ENV:Envelope`, `ds:CanonicalizationMethod`): the
            // first and last 16 bytes, overlapping, with the length are the name
            let word = |i: usize| u64::from_le_bytes(name[i..i + 8].try_into().unwrap_or([0; 8]));
            let n = name.len();
            let w = [word(0), word(8), word(n - 16), word(n - 8)];
            let h =
                (w[0] ^ w[1].rotate_left(17) ^ w[2].rotate_left(31) ^ w[3].rotate_left(47) ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let slot = (h >> 58) as usize & (LONG_CACHE_SIZE - 1);
            let c = self.long_cache[slot];
            if c.w == w && c.len == n as u32 {
                return c.id;
            }
            let id = self.intern_qname_slow(name);
            self.long_cache[slot] = LongEntry { w, len: n as u32, id };
            return id;
        }
        self.intern_qname_slow(name)
    }

    /// The id of a qualified name if it was interned.
    fn find_qname(&self, name: &[u8]) -> Option<QNameId> {
        if name.len() <= 16 {
            let (w0, w1) = load16(name);
            self.qname_map.get(&(w0, w1, name.len() as u32)).copied()
        } else {
            self.long_map.get(name).copied()
        }
    }

    fn intern_qname_slow(&mut self, name: &[u8]) -> QNameId {
        if let Some(id) = self.find_qname(name) {
            return id;
        }
        // names are short: a plain loop beats a memchr call
        let colon = name.iter().position(|&b| b == b':');
        let (prefix_len, prefix) = match colon {
            Some(c) if c > 0 && c + 1 < name.len() => {
                let p = self.intern_qname_slow(&name[..c]);
                (c as u32, p)
            }
            _ => (0, NO_PREFIX),
        };
        let id = QNameId(self.qnames.len() as u32);
        let off = self.arena.len() as u32;
        // names come from validated UTF-8 and end at character boundaries
        match std::str::from_utf8(name) {
            Ok(s) => self.arena.push_str(s),
            Err(_) => self.arena.push_str(&String::from_utf8_lossy(name)),
        }
        let blen = self.arena.len() as u32 - off;
        let (w0, w1, len) = if name.len() <= 16 {
            let (a, b) = load16(name);
            self.qname_map.insert((a, b, name.len() as u32), id);
            (a, b, name.len() as u32)
        } else {
            self.long_map.insert(name.into(), id);
            (0, 0, u32::MAX)
        };
        self.qnames.push(QNameInfo {
            off,
            blen,
            prefix_len,
            prefix,
            last_ns: NS_UNSET,
            last_sym: Sym(0),
            qname_ok: 0,
            next_guess: NO_PREFIX,
            child_guess: NO_PREFIX,
            attr_guess: NO_PREFIX,
            w0,
            w1,
            len,
        });
        id
    }

    /// The bytes of an interned qualified name.
    #[inline]
    pub(crate) fn qname_text(&self, q: QNameId) -> &str {
        let i = &self.qnames[q.index()];
        &self.arena[i.off as usize..(i.off + i.blen) as usize]
    }

    /// The symbol for (qname, ns), made on first use. `None` past [`MAX_SYMS`].
    #[inline(always)]
    pub(crate) fn sym(&mut self, q: QNameId, ns: NsId) -> Option<Sym> {
        let info = &self.qnames[q.index()];
        if info.last_ns == ns {
            return Some(info.last_sym);
        }
        self.sym_slow(q, ns)
    }

    #[inline(never)]
    fn sym_slow(&mut self, q: QNameId, ns: NsId) -> Option<Sym> {
        let s = match self.sym_map.get(&(q, ns)) {
            Some(&s) => s,
            None => {
                let s = Sym(self.syms.len() as u32);
                if s.0 >= MAX_SYMS {
                    return None;
                }
                self.syms.push(SymInfo { qname: q, ns });
                self.sym_map.insert((q, ns), s);
                s
            }
        };
        let info = &mut self.qnames[q.index()];
        info.last_ns = ns;
        info.last_sym = s;
        Some(s)
    }

    /// The qualified name of a symbol, as written.
    #[inline]
    pub fn qname(&self, s: Sym) -> &str {
        self.qname_text(self.syms[s.index()].qname)
    }
    /// The length in bytes of a symbol's qualified name.
    #[inline]
    pub fn qname_len(&self, s: Sym) -> usize {
        self.qnames[self.syms[s.index()].qname.index()].blen as usize
    }
    /// The prefix of a symbol's qualified name ("" when none).
    #[inline]
    pub fn prefix(&self, s: Sym) -> &str {
        let i = &self.qnames[self.syms[s.index()].qname.index()];
        let off = i.off as usize;
        &self.arena[off..off + i.prefix_len as usize]
    }
    /// The local part of a symbol's qualified name.
    #[inline]
    pub fn local(&self, s: Sym) -> &str {
        let i = &self.qnames[self.syms[s.index()].qname.index()];
        let (off, pl) = (i.off as usize, i.prefix_len as usize);
        let start = if pl == 0 { off } else { off + pl + 1 };
        &self.arena[start..off + i.blen as usize]
    }
    /// The number of a symbol's qualified name: the symbols of one qualified
    /// name (in different namespaces) share it, and no other symbol has it. For a
    /// writer that looks something up once per qualified name.
    #[inline]
    pub fn qname_index(&self, s: Sym) -> usize {
        self.syms[s.index()].qname.index()
    }
    /// The namespace id of a symbol.
    #[inline]
    pub fn ns_id(&self, s: Sym) -> NsId {
        self.syms[s.index()].ns
    }
    /// The namespace URI of a symbol ("" for none).
    #[inline]
    pub fn ns_uri(&self, s: Sym) -> &str {
        self.ns_by_id(self.syms[s.index()].ns)
    }
    /// A namespace URI by id.
    #[inline]
    pub fn ns_by_id(&self, id: NsId) -> &str {
        if id == NS_NONE {
            return EMPTY;
        }
        &self.ns[id.index()]
    }
    /// The id of a namespace URI if the document uses it.
    pub fn find_ns(&self, uri: &str) -> Option<NsId> {
        self.find_ns_bytes(uri.as_bytes())
    }

    /// [`Names::find_ns`] for a URI given as bytes (no UTF-8 check needed: bytes
    /// that are not UTF-8 are no interned URI).
    #[inline]
    pub fn find_ns_bytes(&self, uri: &[u8]) -> Option<NsId> {
        self.ns_map.get(uri).copied()
    }
    /// Number of symbols.
    pub fn sym_count(&self) -> usize {
        self.syms.len()
    }
    /// Every symbol, in order (`0..`[`Names::sym_count`]).
    pub fn syms(&self) -> impl ExactSizeIterator<Item = Sym> + DoubleEndedIterator + Clone + 'static {
        (0..self.syms.len() as u32).map(Sym)
    }
    /// Every symbol whose expanded name is (`ns`, `local`); `local == None` matches any local name.
    pub fn syms_matching(&self, ns: Option<&str>, local: Option<&str>) -> Vec<Sym> {
        let ns_id = match ns {
            Some(u) => match self.find_ns(u) {
                Some(id) => Some(id),
                None => return Vec::new(),
            },
            None => None,
        };
        self.syms().filter(|&s| ns_id.is_none_or(|id| self.ns_id(s) == id) && local.is_none_or(|l| self.local(s) == l)).collect()
    }
    /// The symbol of qualified name `qname` in namespace `ns`, if the document has it.
    pub fn sym_of(&self, qname: &str, ns: NsId) -> Option<Sym> {
        let q = self.find_qname(qname.as_bytes())?;
        self.sym_map.get(&(q, ns)).copied()
    }
    /// Every symbol whose qualified name is `qname`.
    pub fn syms_with_qname(&self, qname: &str) -> Vec<Sym> {
        match self.find_qname(qname.as_bytes()) {
            None => Vec::new(),
            Some(q) => self.syms().filter(|&s| self.syms[s.index()].qname == q).collect(),
        }
    }
    /// True when the tables have grown past what a reused parser keeps between
    /// documents (so a stream of documents with ever-new names cannot grow them
    /// without bound).
    pub(crate) fn too_large_to_keep(&self) -> bool {
        self.qnames.len() > 8192 || self.syms.len() > 16384 || self.ns.len() > 1024
    }

    /// Heap bytes held by the tables (approximate).
    pub fn heap_bytes(&self) -> usize {
        let q: usize = self.arena.capacity() + self.qnames.len() * (std::mem::size_of::<QNameInfo>() + 24);
        let n: usize = self.ns.iter().map(|u| u.len() * 2 + 40).sum();
        q + n + self.syms.len() * 24 + self.cache.capacity() * std::mem::size_of::<CacheEntry>()
    }
}

/// A small, fast, non-cryptographic hasher for the name maps (keys are names from
/// one document; a hostile document can at worst slow its own parse, which the
/// name-count and size limits bound).
#[derive(Debug, Clone, Copy, Default)]
pub struct BuildFx;

impl std::hash::BuildHasher for BuildFx {
    type Hasher = FxHasher;
    fn build_hasher(&self) -> FxHasher {
        FxHasher(0)
    }
}

/// The hasher behind [`BuildFx`].
#[derive(Debug, Clone, Copy)]
pub struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
            self.add(v);
        }
        let mut tail = 0u64;
        for (i, &b) in chunks.remainder().iter().enumerate() {
            tail |= (b as u64) << (i * 8);
        }
        self.add(tail ^ bytes.len() as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    #[inline]
    fn add(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The caches in front of the maps never confuse two names: URIs with the same
    /// length, first and last 8 bytes, and names of 17 to 32 bytes that differ in one
    /// byte anywhere, keep their own ids, interned in any order and again.
    #[test]
    fn caches_keep_names_apart() {
        let mut n = Names::new();
        let mut uris: Vec<Vec<u8>> = (0..40u8).map(|i| format!("http://example.org/{:02}/same-tail", i).into_bytes()).collect();
        // up to 16 bytes the cache trusts its words; past that, a byte in the middle
        for len in 1..=20usize {
            uris.push(vec![b'u'; len]);
            uris.extend((0..len).map(|at| {
                let mut u = vec![b'u'; len];
                u[at] = b'v';
                u
            }));
        }
        let qnames: Vec<Vec<u8>> = (17..=33usize)
            .flat_map(|len| (0..len).step_by(5).map(move |at| (len, at)))
            .map(|(len, at)| {
                let mut q = vec![b'n'; len];
                q[at] = b'x';
                q
            })
            .collect();
        let ids: Vec<NsId> = uris.iter().map(|u| n.intern_ns_bytes(u)).collect();
        let qids: Vec<QNameId> = qnames.iter().map(|q| n.intern_qname(q)).collect();
        for _ in 0..2 {
            for (u, id) in uris.iter().zip(&ids).rev() {
                assert_eq!(n.intern_ns_bytes(u), *id);
                assert_eq!(n.ns[id.index()].as_bytes(), &u[..]);
            }
            for (q, id) in qnames.iter().zip(&qids).rev() {
                assert_eq!(n.intern_qname(q), *id);
                assert_eq!(n.qname_text(*id).as_bytes(), &q[..]);
            }
        }
        let distinct: std::collections::HashSet<_> = qids.iter().collect();
        assert_eq!(distinct.len(), qnames.len());
        let distinct: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(distinct.len(), uris.len());
    }

    #[test]
    fn namespace_flags() {
        // plain in a double-quoted attribute value: none of & < " tab LF CR
        for (uri, plain) in [
            (&b"http://www.w3.org/2000/09/xmldsig#"[..], true),
            (b"urn:x:y", true),
            (b"http://a.example/with space/and-more-than-eight", true),
            (b"http://a.example/q?a=1&b=2", false),
            (b"http://a.example/<x>", false),
            (b"abcdefgh\"ijklmnop", false),
            (b"abcdefghijklmno\t", false),
            (b"\n", false),
            (b"caf\xc3\xa9-\xe2\x82\xac-unicode-uri", true),
        ] {
            assert_eq!(ns_flags_of(uri) & NS_ATTR_PLAIN != 0, plain, "{:?}", String::from_utf8_lossy(uri));
        }
        // RFC 3986 scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
        for (uri, scheme) in [
            (&b"http://x"[..], true),
            (b"urn:x", true),
            (b"a+b-c.d9:rest", true),
            (b"x:", true),
            (b"9p:x", false),
            (b"relative/path", false),
            (b"../up", false),
            (b"", false),
            (b"no_underscore:x", false),
            (b"noscheme", false),
        ] {
            assert_eq!(ns_flags_of(uri) & NS_HAS_SCHEME != 0, scheme, "{:?}", String::from_utf8_lossy(uri));
        }
        let mut n = Names::new();
        let a = n.intern_ns("http://a.example/q?a=1&b=2");
        let b = n.intern_ns("rel");
        assert!(n.ns_has_scheme(a) && !n.ns_attr_plain(a));
        assert!(!n.ns_has_scheme(b) && n.ns_attr_plain(b));
    }

    #[test]
    fn interning() {
        let mut n = Names::new();
        let a = n.intern_qname(b"p:item");
        let b = n.intern_qname(b"p:item");
        assert_eq!(a, b);
        let u = n.intern_ns("urn:x");
        let s1 = n.sym(a, u).unwrap();
        let s2 = n.sym(a, NS_NONE).unwrap();
        assert_ne!(s1, s2);
        assert_eq!(n.sym(a, u), Some(s1));
        assert_eq!(n.qname(s1), "p:item");
        assert_eq!(n.prefix(s1), "p");
        assert_eq!(n.local(s1), "item");
        assert_eq!(n.ns_uri(s1), "urn:x");
        assert_eq!(n.syms_matching(Some("urn:x"), Some("item")), vec![s1]);
        assert_eq!(n.syms_with_qname("p:item").len(), 2);
    }

    #[test]
    fn the_empty_namespace_name_is_at_a_real_address() {
        let mut n = Names::new();
        let q = n.intern_qname(b"item");
        let s = n.sym(q, NS_NONE).unwrap();
        for uri in [n.ns_uri(s), n.ns_by_id(NS_NONE)] {
            assert_eq!(uri, "");
            // not the dangling pointer of an empty `Box<str>`
            assert_eq!(uri.as_ptr(), EMPTY_BACKING.as_ptr());
        }
    }
}
