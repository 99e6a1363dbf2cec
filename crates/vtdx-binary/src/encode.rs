//! Packing: a parsed [`Document`] to a document frame, straight from its index
//! (no second parse): the tape says where every piece of markup is, the text
//! says how it is written.

use std::collections::HashMap;

use memchr::memchr;
use vtdx_core::tape::{RecordKind, Tape, KIND_SHIFT, PAYLOAD_MASK};
use vtdx_core::{Document, SourceEncoding};

use crate::wire::*;
use crate::{Error, ErrorKind};

/// The tables' maps, on the core's name-table hasher (keys are names and short values).
pub(crate) type FxMap<K, V> = HashMap<K, V, vtdx_core::BuildFx>;

/// The tables an encoder shares with its decoder: qualified names, namespace
/// names, symbols (pairs of the two) and short values, each numbered in order of
/// first use.
#[derive(Default)]
pub(crate) struct EncTables {
    qnames: Interner,
    ns: Interner,
    syms: SymTable,
    values: ValueTable,
}

/// The symbol table: (name handle, namespace handle) pairs, numbered in order of
/// entry, found by a map that is brought up to date only when something is
/// looked up (the pairs of a document written to empty tables are all new).
#[derive(Default)]
pub(crate) struct SymTable {
    map: FxMap<(u32, u32), u32>,
    pairs: Vec<(u32, u32)>,
    /// Entries in `map`: the first `indexed` pairs.
    indexed: usize,
}

impl SymTable {
    fn len(&self) -> usize {
        self.pairs.len()
    }

    fn clear(&mut self) {
        self.map.clear();
        self.pairs.clear();
        self.indexed = 0;
    }

    /// Enters `pair` without looking it up (the caller knows it is new).
    fn push_new(&mut self, pair: (u32, u32)) -> u32 {
        self.pairs.push(pair);
        (self.pairs.len() - 1) as u32
    }

    /// The number of `pair`, `Ok` when it was entered before, `Err` when entered now.
    fn get_or_insert(&mut self, pair: (u32, u32)) -> Result<u32, u32> {
        while self.indexed < self.pairs.len() {
            self.map.insert(self.pairs[self.indexed], self.indexed as u32);
            self.indexed += 1;
        }
        if let Some(&h) = self.map.get(&pair) {
            return Ok(h);
        }
        let h = self.push_new(pair);
        self.map.insert(pair, h);
        self.indexed += 1;
        Err(h)
    }
}

/// A table of strings numbered in order of entry, found by their XXH3-64 hash
/// (entries of equal hash chained), kept in one arena: no allocation per entry.
/// The hash map is brought up to date only when something is looked up (the
/// entries of a document written to empty tables are all new).
#[derive(Default)]
pub(crate) struct Interner {
    map: FxMap<u64, u32>,
    arena: Vec<u8>,
    /// Offset, length and the next entry of the same hash (`u32::MAX`: none).
    spans: Vec<(u32, u32, u32)>,
    /// Entries in `map`: the first `indexed`.
    indexed: usize,
}

impl Interner {
    fn len(&self) -> usize {
        self.spans.len()
    }

    fn clear(&mut self) {
        self.map.clear();
        self.arena.clear();
        self.spans.clear();
        self.indexed = 0;
    }

    #[inline]
    fn entry(&self, i: u32) -> &[u8] {
        let (o, l, _) = self.spans[i as usize];
        &self.arena[o as usize..(o + l) as usize]
    }

    /// Enters `s` without looking it up (the caller knows it is new).
    fn push_new(&mut self, s: &[u8]) -> u32 {
        let i = self.spans.len() as u32;
        self.spans.push((self.arena.len() as u32, s.len() as u32, u32::MAX));
        self.arena.extend_from_slice(s);
        i
    }

    /// Brings the hash map up to date.
    #[inline]
    fn index_rest(&mut self) {
        while self.indexed < self.spans.len() {
            let i = self.indexed as u32;
            let h = xxhash_rust::xxh3::xxh3_64(self.entry(i));
            self.spans[i as usize].2 = self.map.insert(h, i).unwrap_or(u32::MAX);
            self.indexed += 1;
        }
    }

    /// Enters `s` (not entered yet), whose hash is `h`, and returns its number.
    fn insert_hashed(&mut self, h: u64, s: &[u8]) -> u32 {
        self.index_rest();
        self.indexed += 1;
        let i = self.spans.len() as u32;
        let next = self.map.insert(h, i).unwrap_or(u32::MAX);
        self.spans.push((self.arena.len() as u32, s.len() as u32, next));
        self.arena.extend_from_slice(s);
        i
    }

    /// The number of `s`, `Ok` when it was entered before, `Err` when entered now:
    /// one hash for both.
    #[inline]
    fn get_or_insert(&mut self, s: &[u8]) -> Result<u32, u32> {
        self.index_rest();
        let h = xxhash_rust::xxh3::xxh3_64(s);
        if let Some(&first) = self.map.get(&h) {
            let mut i = first;
            loop {
                if self.entry(i) == s {
                    return Ok(i);
                }
                i = self.spans[i as usize].2;
                if i == u32::MAX {
                    break;
                }
            }
        }
        Err(self.insert_hashed(h, s))
    }
}

/// The value table: its entries in one arena, found by their XXH3-64 hash (an
/// entry whose hash another entry has is not entered: it is written as a
/// literal, which the format allows).
pub(crate) struct ValueTable {
    map: FxMap<u64, u32>,
    arena: Vec<u8>,
    /// Offset and length of each entry in `arena`.
    spans: Vec<(u32, u32)>,
    /// Per length (below `WS_CACHE`): the last whitespace entry of that length
    /// found or entered (`u32::MAX`: none), tried before the hash.
    ws_last: [u32; WS_CACHE],
}

const WS_CACHE: usize = 48;

impl Default for ValueTable {
    fn default() -> Self {
        ValueTable { map: FxMap::default(), arena: Vec::new(), spans: Vec::new(), ws_last: [u32::MAX; WS_CACHE] }
    }
}

impl ValueTable {
    fn clear(&mut self) {
        self.ws_last = [u32::MAX; WS_CACHE];
        self.map.clear();
        self.arena.clear();
        self.spans.clear();
    }

    /// `Ok(handle)` when `v` is in the table; `Err(true)` when it was entered
    /// now; `Err(false)` when it cannot be (the table is full, or another entry
    /// has its hash).
    #[inline]
    fn find_or_enter(&mut self, v: &[u8]) -> Result<u32, bool> {
        let h = xxhash_rust::xxh3::xxh3_64(v);
        if let Some(&i) = self.map.get(&h) {
            return if self.entry(i) == v { Ok(i) } else { Err(false) };
        }
        self.enter(h, v)
    }

    /// Entry `i`'s bytes.
    #[inline]
    fn entry(&self, i: u32) -> &[u8] {
        let (o, l) = self.spans[i as usize];
        &self.arena[o as usize..(o + l) as usize]
    }

    #[inline(never)]
    fn enter(&mut self, h: u64, v: &[u8]) -> Result<u32, bool> {
        if self.spans.len() >= VALUE_MAX_ENTRIES {
            return Err(false);
        }
        let i = self.spans.len() as u32;
        self.map.insert(h, i);
        self.spans.push((self.arena.len() as u32, v.len() as u32));
        self.arena.extend_from_slice(v);
        Err(true)
    }
}

impl EncTables {
    fn new() -> Self {
        let mut t = EncTables::default();
        t.reset();
        t
    }

    fn reset(&mut self) {
        self.qnames.clear();
        self.ns.clear();
        self.syms.clear();
        self.values.clear();
        for (i, u) in FIXED_NS.iter().enumerate() {
            let h = self.ns.push_new(u.as_bytes());
            debug_assert_eq!(h, i as u32);
        }
    }
}

/// Longest leaf text the writer enters in the value table.
const LEAF_ENTRY_MAX: usize = 40;

/// The namespace table's fixed first entries.
pub(crate) const FIXED_NS: [&str; 3] = ["", vtdx_core::XML_NAMESPACE, vtdx_core::XMLNS_NAMESPACE];

/// Writes documents as frames, keeping the tables from one to the next in
/// stream mode.
pub(crate) struct Encoder {
    tables: EncTables,
    /// Per document: the stream's symbol handle of each document symbol (`u32::MAX`: none yet).
    sym_map: Vec<u32>,
    /// Per document: the qualified-name length of each document symbol.
    sym_len: Vec<u32>,
    /// Per document: the stream's namespace handle of each namespace id of the
    /// document's name tables (`u32::MAX`: not looked up yet).
    ns_seen: Vec<u32>,
    /// Per document: the stream's name handle of each qualified-name number of
    /// the document's name tables (`u32::MAX`: not looked up yet).
    q_seen: Vec<u32>,
    /// Table additions of the document being written.
    add_q: Vec<u8>,
    add_ns: Vec<u8>,
    add_sym: Vec<u8>,
    counts: [u64; 3],
}

impl Encoder {
    pub fn new() -> Self {
        Encoder {
            tables: EncTables::new(),
            sym_map: Vec::new(),
            sym_len: Vec::new(),
            ns_seen: Vec::new(),
            q_seen: Vec::new(),
            add_q: Vec::new(),
            add_ns: Vec::new(),
            add_sym: Vec::new(),
            counts: [0; 3],
        }
    }

    pub fn reset(&mut self) {
        self.tables.reset();
    }

    /// The tables grew too large to keep for the next file (more than 4,096
    /// names or values, or 1 MiB of value bytes).
    pub fn is_large(&self) -> bool {
        let t = &self.tables;
        t.qnames.len() > 4096 || t.values.spans.len() > 4096 || t.values.arena.len() > 1 << 20 || self.sym_map.len() > 4096
    }

    /// Appends one document frame for `doc` to `out`.
    pub fn frame(&mut self, doc: &Document<'_>, out: &mut Vec<u8>, flags: u8) -> Result<(), Error> {
        let frame_start = out.len();
        out.push(FRAME_DOC);
        // the length: a 5-byte placeholder, made minimal afterwards for small frames
        let len_at = out.len();
        out.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x00]);
        let payload_start = out.len();
        match transform(doc) {
            TR_VERBATIM => {
                out.push(TR_VERBATIM);
                put_str(out, doc.source());
            }
            tr => {
                out.push(tr);
                self.structure(doc, out)?;
            }
        }
        let len = out.len() - payload_start;
        if len > u32::MAX as usize * 4 {
            return Err(Error { kind: ErrorKind::Malformed { detail: "document too large to pack".into() }, offset: 0 });
        }
        let mut v = Vec::with_capacity(5);
        put_varint(&mut v, len as u64);
        if len < 1 << 14 {
            // small frame: the minimal varint, the payload moved back (a few bytes)
            out.copy_within(payload_start.., len_at + v.len());
            out.truncate(len_at + v.len() + len);
            out[len_at..len_at + v.len()].copy_from_slice(&v);
        } else {
            // the length padded to 5 bytes: no move
            let mut x = len as u64;
            for i in 0..5 {
                let b = (x & 0x7F) as u8;
                x >>= 7;
                out[len_at + i] = if i < 4 { b | 0x80 } else { b };
            }
        }
        let sum = checksum(&out[frame_start..], flags);
        out.extend_from_slice(&sum.to_le_bytes());
        Ok(())
    }

    /// The symbol tables' additions, the size hints and the tokens of `doc`.
    fn structure(&mut self, doc: &Document<'_>, out: &mut Vec<u8>) -> Result<(), Error> {
        let t = doc.text();
        let tape = doc.tape();
        let names = doc.names();
        // pre-pass over the index: handles for the symbols used, namespace names declared
        self.sym_map.clear();
        self.sym_map.resize(names.sym_count(), u32::MAX);
        self.sym_len.clear();
        self.sym_len.resize(names.sym_count(), 0);
        self.ns_seen.clear();
        self.q_seen.clear();
        // tables empty at the start of the document (as `pack` gives them)
        let fresh = self.tables.qnames.len() == 0 && self.tables.ns.len() == FIXED_NS.len() && self.tables.syms.len() == 0;
        self.add_q.clear();
        self.add_ns.clear();
        self.add_sym.clear();
        self.counts = [0; 3];
        let mut words = 0u64;
        let mut i = 0usize;
        while i < tape.len() {
            let w0 = tape[i];
            let kind = RecordKind::from_word(w0).ok_or_else(|| internal("a record of unknown kind"))?;
            let n = kind.words() as usize;
            match kind {
                RecordKind::Element | RecordKind::Attribute | RecordKind::NsDecl => {
                    let s = (w0 & PAYLOAD_MASK) as usize;
                    if self.sym_map.get(s) == Some(&u32::MAX) {
                        self.add_symbol(doc, s, fresh);
                    }
                    if kind == RecordKind::NsDecl {
                        self.declared_ns(names, t, tape[i + 1] as usize + self.sym_len[s] as usize, fresh);
                    }
                    words += n as u64;
                }
                RecordKind::AttributeDefault | RecordKind::NsDeclDefault => {}
                _ => words += n as u64,
            }
            i += n;
        }
        // the tables, then the tokens (at most the text and a few bytes per record)
        out.reserve(self.add_q.len() + self.add_ns.len() + self.add_sym.len() + 40 + t.len() + tape.len() + 64);
        put_varint(out, self.counts[0]);
        out.extend_from_slice(&self.add_q);
        put_varint(out, self.counts[1]);
        out.extend_from_slice(&self.add_ns);
        put_varint(out, self.counts[2]);
        out.extend_from_slice(&self.add_sym);
        put_varint(out, t.len() as u64);
        put_varint(out, words);
        self.tokens(doc, out)
    }

    /// Gives document symbol `s` its handle, entering its name, namespace and
    /// symbol in the tables where they are new. With `fresh` tables (empty when
    /// the document began), what a document's name tables tell apart is new
    /// without a look-up: each qualified name, namespace and symbol of the
    /// document is entered once, found again by its number in the document.
    fn add_symbol(&mut self, doc: &Document<'_>, s: usize, fresh: bool) {
        let names = doc.names();
        let sym = vtdx_core::Sym::new(s as u32);
        let qname = names.qname(sym);
        let q = names.qname_index(sym);
        let qh = match self.q_seen.get(q) {
            Some(&h) if h != u32::MAX => h,
            _ => {
                let found = if fresh {
                    Err(self.tables.qnames.push_new(qname.as_bytes()))
                } else {
                    self.tables.qnames.get_or_insert(qname.as_bytes())
                };
                let h = match found {
                    Ok(h) => h,
                    Err(h) => {
                        put_str(&mut self.add_q, qname.as_bytes());
                        self.counts[0] += 1;
                        h
                    }
                };
                if self.q_seen.len() <= q {
                    self.q_seen.resize(q + 1, u32::MAX);
                }
                self.q_seen[q] = h;
                h
            }
        };
        let nh = self.ns_handle_of(names, names.ns_id(sym), fresh);
        let found = if fresh { Err(self.tables.syms.push_new((qh, nh))) } else { self.tables.syms.get_or_insert((qh, nh)) };
        let h = match found {
            Ok(h) => h,
            Err(h) => {
                put_varint(&mut self.add_sym, qh as u64);
                put_varint(&mut self.add_sym, nh as u64);
                self.counts[2] += 1;
                h
            }
        };
        self.sym_map[s] = h;
        self.sym_len[s] = qname.len() as u32;
    }

    /// The handle of the document's namespace `id`, found once per namespace of
    /// the document (entered without a look-up in `fresh` tables, but for the
    /// fixed entries).
    fn ns_handle_of(&mut self, names: &vtdx_core::Names, id: vtdx_core::NsId, fresh: bool) -> u32 {
        let ns = id.index();
        if let Some(&h) = self.ns_seen.get(ns) {
            if h != u32::MAX {
                return h;
            }
        }
        let uri = names.ns_by_id(id);
        // the core's fixed namespace ids are the table's fixed entries
        const _: () = assert!(vtdx_core::NS_NONE.index() == 0 && vtdx_core::NS_XML.index() == 1 && vtdx_core::NS_XMLNS.index() == 2);
        let h = match ns {
            0..=2 => ns as u32,
            _ if fresh => {
                put_str(&mut self.add_ns, uri.as_bytes());
                self.counts[1] += 1;
                self.tables.ns.push_new(uri.as_bytes())
            }
            _ => self.ns_handle(uri.as_bytes()),
        };
        if self.ns_seen.len() <= ns {
            self.ns_seen.resize(ns + 1, u32::MAX);
        }
        self.ns_seen[ns] = h;
        h
    }

    fn ns_handle(&mut self, uri: &[u8]) -> u32 {
        match self.tables.ns.get_or_insert(uri) {
            Ok(h) => h,
            Err(h) => {
                put_str(&mut self.add_ns, uri);
                self.counts[1] += 1;
                h
            }
        }
    }

    /// The namespace name a declaration whose name ends at `p` declares, entered
    /// in the table when written plainly (a value with references is left to the
    /// decoder's assembly, which interns it itself).
    fn declared_ns(&mut self, names: &vtdx_core::Names, t: &[u8], p: usize, fresh: bool) {
        let p = skip_ws(t, p);
        let p = skip_ws(t, p + 1);
        let Some(&q) = t.get(p) else { return };
        let Some(e) = memchr(q, &t[p + 1..]) else { return };
        let v = &t[p + 1..p + 1 + e];
        if !v.is_empty() && !v.iter().any(|&c| matches!(c, b'&' | b'\t' | b'\n' | b'\r')) {
            // the document's tables hold every namespace name it declares; the
            // value, between ASCII quotes in UTF-8 text, is UTF-8
            match names.find_ns_bytes(v) {
                Some(id) => {
                    self.ns_handle_of(names, id, fresh);
                }
                None => {
                    self.ns_handle(v);
                }
            }
        }
    }

    #[inline]
    fn value(&mut self, out: &mut Vec<u8>, v: &[u8]) {
        let n = v.len() as u64;
        if !v.is_empty() && v.len() <= VALUE_MAX_LEN {
            match self.tables.values.find_or_enter(v) {
                Ok(h) => {
                    put_varint(out, ((h as u64) << 2) | 2);
                    return;
                }
                Err(true) => {
                    put_varint(out, (n << 2) | 1);
                    out.extend_from_slice(v);
                    return;
                }
                Err(false) => {}
            }
        }
        put_varint(out, n << 2);
        out.extend_from_slice(v);
    }

    /// A leaf element's text: entered in the value table only when short (long
    /// texts seldom repeat, and entering costs a lookup here and a copy there).
    #[inline]
    fn text_value(&mut self, out: &mut Vec<u8>, v: &[u8]) {
        if v.len() <= LEAF_ENTRY_MAX {
            self.value(out, v);
        } else {
            put_varint(out, (v.len() as u64) << 2);
            out.extend_from_slice(v);
        }
    }

    /// Character data (or, at the top level, whitespace and the DOCTYPE) `t[a..b]`.
    #[inline]
    fn gap(&mut self, out: &mut Vec<u8>, t: &[u8], a: usize, b: usize, top: bool) {
        if a >= b {
            return;
        }
        let s = &t[a..b];
        if top && memchr(b'<', s).is_some() && memchr::memmem::find(s, b"<!DOCTYPE").is_some() {
            out.push(OP_DOCTYPE);
            put_str(out, s);
            return;
        }
        if s.len() <= VALUE_MAX_LEN && s.iter().all(|&c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')) {
            let vt = &mut self.tables.values;
            let cached = vt.ws_last.get(s.len()).copied().filter(|&i| i != u32::MAX && vt.entry(i) == s);
            let found = match cached {
                Some(i) => Ok(i),
                None => {
                    let f = vt.find_or_enter(s);
                    let i = match f {
                        Ok(i) => i,
                        Err(true) => (vt.spans.len() - 1) as u32,
                        Err(false) => u32::MAX,
                    };
                    if let Some(c) = vt.ws_last.get_mut(s.len()) {
                        if i != u32::MAX {
                            *c = i;
                        }
                    }
                    f
                }
            };
            match found {
                Ok(h) => {
                    out.push(OP_TEXT_REF);
                    put_varint(out, h as u64);
                    return;
                }
                Err(true) => {
                    out.push(OP_TEXT_NEW);
                    put_str(out, s);
                    return;
                }
                Err(false) => {}
            }
        }
        put_ranged(out, OP_TEXT, s.len());
        out.extend_from_slice(s);
    }

    fn tokens(&mut self, doc: &Document<'_>, out: &mut Vec<u8>) -> Result<(), Error> {
        let t = doc.text();
        let tape = Tape::of(doc);
        let w = tape.words();
        let mut pos = 0usize;
        if let Some(d) = doc.xml_declaration() {
            out.push(OP_XMLDECL);
            put_str(out, &t[..d.span.end]);
            pos = d.span.end;
        }
        // open elements: (record, next word)
        let mut stack: Vec<(usize, usize)> = Vec::new();
        let mut r = 0usize;
        while r < w.len() {
            while let Some(&(e, next)) = stack.last() {
                if r < next {
                    break;
                }
                stack.pop();
                pos = self.end_tag(out, t, w, e, pos);
            }
            let w0 = w[r];
            let kind = w0 >> KIND_SHIFT;
            let start = w[r + 1] as usize;
            self.gap(out, t, pos, start, stack.is_empty());
            if kind == RecordKind::Element as u32 {
                let s = (w0 & PAYLOAD_MASK) as usize;
                let len = self.sym_len[s] as usize;
                let next = w[r + 2] as usize;
                if next == r + 5 && t.get(start + 1 + len) == Some(&b'>') {
                    // no attributes, no child records: `<q>text</q>` is a leaf
                    let end = w[r + 4] as usize;
                    let cs = start + len + 2;
                    if end >= cs + len + 3 && t[end - len - 3..end - len - 1] == *b"</" && t[end - 1] == b'>' {
                        let h = self.sym_map[s] as usize;
                        if h < LEAF_INLINE as usize {
                            out.push(OP_LEAF + h as u8);
                        } else {
                            out.push(OP_LEAF_X);
                            put_varint(out, (h - LEAF_INLINE as usize) as u64);
                        }
                        self.text_value(out, &t[cs..end - len - 3]);
                        pos = end;
                        r = next;
                        continue;
                    }
                }
                put_ranged(out, OP_START, self.sym_map[s] as usize);
                let mut p = start + 1 + len;
                let mut j = r + 5;
                while j < next {
                    let k = w[j] >> KIND_SHIFT;
                    if k == RecordKind::Attribute as u32 || k == RecordKind::NsDecl as u32 {
                        p = self.attribute(out, doc.names(), t, w, j, p);
                    } else if k != RecordKind::AttributeDefault as u32 && k != RecordKind::NsDeclDefault as u32 {
                        break;
                    }
                    j += 2;
                }
                let q = skip_ws(t, p);
                if q > p {
                    out.push(OP_TAG_WS);
                    put_str(out, &t[p..q]);
                }
                if t.get(q) == Some(&b'/') {
                    out.push(OP_EMPTY);
                    pos = q + 2;
                    r = next;
                } else {
                    pos = q + 1;
                    stack.push((r, next));
                    r = j;
                }
            } else {
                let end = w[r + 2] as usize;
                let (op, body) = if kind == RecordKind::Comment as u32 {
                    (OP_COMMENT, &t[start + 4..end - 3])
                } else if kind == RecordKind::Pi as u32 {
                    (OP_PI, &t[start + 2..end - 2])
                } else if kind == RecordKind::Cdata as u32 {
                    (OP_CDATA, &t[start + 9..end - 3])
                } else {
                    return Err(internal("an attribute record outside a start tag"));
                };
                out.push(op);
                put_str(out, body);
                pos = end;
                r += 4;
            }
        }
        while let Some((e, _)) = stack.pop() {
            pos = self.end_tag(out, t, w, e, pos);
        }
        self.gap(out, t, pos, t.len(), true);
        out.push(OP_EOD);
        Ok(())
    }

    /// The attribute record `j`, written from `p` on (the end of the element name
    /// or of the previous attribute). Returns the offset after its closing quote.
    #[inline]
    fn attribute(&mut self, out: &mut Vec<u8>, names: &vtdx_core::Names, t: &[u8], w: &[u32], j: usize, p: usize) -> usize {
        let s = (w[j] & PAYLOAD_MASK) as usize;
        let h = self.sym_map[s] as usize;
        let name_at = w[j + 1] as usize;
        let ae = name_at + self.sym_len[s] as usize;
        let eq = skip_ws(t, ae);
        let vq = skip_ws(t, eq + 1);
        let quote = t[vq];
        let vs = vq + 1;
        let ve = memchr(quote, &t[vs..]).map_or(t.len(), |i| vs + i);
        let ws1 = &t[p..name_at];
        if ws1 == b" " && eq == ae && vq == eq + 1 {
            if quote == b'"' {
                put_ranged(out, OP_ATTR, h);
            } else {
                out.push(OP_ATTR_Q);
                put_varint(out, h as u64);
            }
        } else {
            out.push(OP_ATTR_X);
            put_varint(out, h as u64);
            put_str(out, ws1);
            put_str(out, &t[ae..eq]);
            put_str(out, &t[eq + 1..vq]);
            out.push(quote);
        }
        if w[j] >> KIND_SHIFT == RecordKind::NsDecl as u32 {
            // a namespace name written as the table holds it: a reference to it
            // (the prepass entered every namespace name declared plainly)
            let h = match names.find_ns_bytes(&t[vs..ve]) {
                Some(id) => self.ns_seen.get(id.index()).copied().filter(|&h| h != u32::MAX),
                None => None,
            };
            if let Some(h) = h {
                put_varint(out, (u64::from(h) << 2) | 3);
                return ve + 1;
            }
        }
        self.value(out, &t[vs..ve]);
        ve + 1
    }

    /// The end tag of element record `e`, after character data from `pos`.
    /// Returns the offset after it.
    #[inline]
    fn end_tag(&mut self, out: &mut Vec<u8>, t: &[u8], w: &[u32], e: usize, pos: usize) -> usize {
        let end = w[e + 4] as usize;
        let gt = end - 1;
        let mut q = gt;
        while q > 0 && matches!(t[q - 1], b' ' | b'\t' | b'\n' | b'\r') {
            q -= 1;
        }
        let s = (w[e] & PAYLOAD_MASK) as usize;
        let tag = q - self.sym_len[s] as usize - 2;
        self.gap(out, t, pos, tag, false);
        if q == gt {
            out.push(OP_END);
        } else {
            out.push(OP_END_X);
            put_str(out, &t[q..gt]);
        }
        end
    }
}

#[inline(always)]
fn skip_ws(t: &[u8], mut p: usize) -> usize {
    while p < t.len() && matches!(t[p], b' ' | b'\t' | b'\n' | b'\r') {
        p += 1;
    }
    p
}

#[cold]
fn internal(what: &str) -> Error {
    Error { kind: ErrorKind::Malformed { detail: format!("the document's index is not one the parser makes: {what}") }, offset: 0 }
}

/// How the document's input bytes are remade from its text (`TR_*`), checked
/// here so that unpacking gives back the input byte for byte.
fn transform(doc: &Document<'_>) -> u8 {
    if !doc.entity_expansions().is_empty() {
        return TR_VERBATIM;
    }
    let t = doc.text();
    let src = doc.source();
    match doc.encoding() {
        SourceEncoding::Utf8 { bom } if doc.text_is_source() => {
            if *bom {
                TR_UTF8_BOM
            } else {
                TR_UTF8
            }
        }
        SourceEncoding::Utf16Le { bom } | SourceEncoding::Utf16Be { bom } => {
            let le = matches!(doc.encoding(), SourceEncoding::Utf16Le { .. });
            let body = &src[if *bom { 2 } else { 0 }..];
            if utf16_equals(t, body, le) {
                match (le, *bom) {
                    (true, false) => TR_UTF16LE,
                    (true, true) => TR_UTF16LE_BOM,
                    (false, false) => TR_UTF16BE,
                    (false, true) => TR_UTF16BE_BOM,
                }
            } else {
                TR_VERBATIM
            }
        }
        SourceEncoding::Other { .. } if doc.text_is_source() && doc.bom_len() == 0 => TR_UTF8,
        SourceEncoding::Other { .. } if latin1_equals(t, src) => TR_LATIN1,
        _ => TR_VERBATIM,
    }
}

/// Is `body` the UTF-16 encoding of the UTF-8 text `t`?
fn utf16_equals(t: &[u8], body: &[u8], le: bool) -> bool {
    let Ok(s) = std::str::from_utf8(t) else { return false };
    let mut i = 0;
    for u in s.encode_utf16() {
        let b = if le { u.to_le_bytes() } else { u.to_be_bytes() };
        if body.get(i..i + 2) != Some(&b[..]) {
            return false;
        }
        i += 2;
    }
    i == body.len()
}

/// Is `src` the text `t` with each character (all below U+0100) as one byte?
fn latin1_equals(t: &[u8], src: &[u8]) -> bool {
    let Ok(s) = std::str::from_utf8(t) else { return false };
    let mut i = 0;
    for c in s.chars() {
        let c = c as u32;
        if c > 0xFF || src.get(i) != Some(&(c as u8)) {
            return false;
        }
        i += 1;
    }
    i == src.len()
}
