//! Unpacking: a document frame to a [`Document`]. The tokens say where each piece
//! of markup goes, so the decoder hands them to a [`vtdx_core::Assembler`], which
//! writes the text and the token index together, without scanning the text for
//! markup, and checks what the tokens supply (names once, when the tables are
//! read; values once, when they enter the value table; text runs, literal values
//! and markup bodies when written; the whole text for UTF-8 and `Char` at the
//! end). A document with a DOCTYPE, or stored verbatim, is parsed instead
//! (`docs/binary-format.md`).

use vtdx_core::{Assembler, Document, InputEncoding, LimitKind, ParseOptions, Parser, Piece, Sym};

use crate::encode::FIXED_NS;
use crate::wire::*;
use crate::{Error, ErrorKind};

/// The decoder's copy of the format's tables (the value table is the
/// assembler's, whose entries are checked once when they enter it).
pub(crate) struct DecTables {
    qarena: Vec<u8>,
    qnames: Vec<(u32, u32)>,
    ns: Vec<Box<str>>,
    /// The assembler's id of each namespace name of `ns`.
    ns_ids: Vec<vtdx_core::NsId>,
    syms: Vec<Sym>,
    /// The tables were emptied (a reset), but their entries are kept: they are
    /// what the table additions `first` (of the first document after the previous
    /// reset) made, with the assembler's name tables of generation `generation`.
    /// A document after a reset whose additions are the same bytes gets the same
    /// tables back without reading them again (one-document files of one kind).
    kept: bool,
    first: Vec<u8>,
    /// The tables' sizes after `first`: names, name bytes, namespaces, symbols.
    first_sizes: [usize; 4],
    generation: u64,
}

impl DecTables {
    fn new() -> Self {
        let mut t = DecTables {
            qarena: Vec::new(),
            qnames: Vec::new(),
            ns: Vec::new(),
            ns_ids: Vec::new(),
            syms: Vec::new(),
            kept: false,
            first: Vec::new(),
            first_sizes: [0; 4],
            generation: u64::MAX,
        };
        t.clear();
        t
    }

    fn clear(&mut self) {
        self.kept = false;
        self.qarena.clear();
        self.qnames.clear();
        self.ns.clear();
        self.ns.extend(FIXED_NS.iter().map(|&u| Box::<str>::from(u)));
        self.ns_ids.clear();
        self.ns_ids.extend([vtdx_core::NS_NONE, vtdx_core::NS_XML, vtdx_core::NS_XMLNS]);
        self.syms.clear();
    }
}

/// The tables and the assembler of one reader: kept from one document to the
/// next (the format's tables only in stream mode; the assembler's name tables
/// always, as a reused parser keeps its own).
pub(crate) struct Decoder {
    pub asm: Assembler,
    t: DecTables,
}

/// Most bytes reserved up front from a size the input states (the rest is
/// allocated as the output really grows).
const RESERVE_CAP: usize = 64 << 20;

/// Texts up to this many bytes are never refused for amplification
/// ([`vtdx_core::Limits::max_packed_amplification`]): a small frame of references
/// to names and values sent earlier in a stream legitimately unpacks to many
/// times its size.
const AMPLIFICATION_THRESHOLD: u64 = 64 << 10;

/// A limit checked against the frame before any text is made: a document error
/// with no position in the text (line and column 0, see [`ErrorKind::Document`]).
#[cold]
fn frame_limit(r: &Reader<'_>, limit: LimitKind, value: u64, max: u64) -> Error {
    r.error(ErrorKind::Document(vtdx_core::Error::with_position(vtdx_core::ErrorKind::LimitExceeded { limit, value, max }, 0, 0, 0)))
}

#[cold]
fn doc_error(r: &Reader<'_>, e: vtdx_core::Error) -> Error {
    r.error(ErrorKind::Document(e))
}

impl Decoder {
    pub fn new(opts: &ParseOptions) -> Self {
        Decoder { asm: Assembler::new(opts), t: DecTables::new() }
    }

    /// Empties the format's tables (a reset mark, or the end of a one-document file).
    pub fn reset(&mut self) {
        self.asm.renew_names_if_large();
        // the entries stay until the next document's additions show whether they
        // are the same again
        self.t.kept = !self.t.first.is_empty();
        if !self.t.kept {
            self.t.clear();
        }
        self.asm.clear_values();
    }

    /// Decodes one document payload.
    pub fn document(&mut self, r: &mut Reader<'_>) -> Result<Document<'static>, Error> {
        let tr = r.byte("the document's transform")?;
        if tr == TR_VERBATIM {
            let src = r.str("the verbatim input")?;
            let mut p = Parser::with_options(self.asm.options().clone());
            return p.parse_owned(src.to_vec()).map_err(|e| doc_error(r, e));
        }
        let encoding = match tr {
            TR_UTF8 => InputEncoding::Utf8,
            TR_UTF8_BOM => InputEncoding::Utf8Bom,
            TR_UTF16LE => InputEncoding::Utf16Le { bom: false },
            TR_UTF16LE_BOM => InputEncoding::Utf16Le { bom: true },
            TR_UTF16BE => InputEncoding::Utf16Be { bom: false },
            TR_UTF16BE_BOM => InputEncoding::Utf16Be { bom: true },
            TR_LATIN1 => InputEncoding::Latin1,
            _ => return Err(r.malformed(format!("unknown transform {tr}"))),
        };
        self.read_tables(r)?;
        let opts = self.asm.options();
        let max_text = opts.limits.max_document_size.min(u32::MAX as u64 - 1);
        let text_len = r.varint("the text length")?;
        if text_len > max_text {
            return Err(frame_limit(r, LimitKind::DocumentSize, text_len, max_text));
        }
        // a decompression bomb: a text far larger than the frame (the tokens cannot
        // make more text than stated, see `tokens`)
        let frame = r.data.len().max(1) as u64;
        let max_ratio = u64::from(opts.limits.max_packed_amplification);
        if text_len > AMPLIFICATION_THRESHOLD && text_len / frame > max_ratio {
            return Err(frame_limit(r, LimitKind::PackedAmplification, text_len / frame, max_ratio));
        }
        let text_len = text_len as usize;
        let words = r.count("the index size", vtdx_core::tape::MAX_TAPE_WORDS)?;
        self.asm.begin(tr == TR_UTF8_BOM);
        // a record takes at least 4 bytes of text and 5 words (`<a/>`): no more is
        // reserved for the index, whatever the header says
        let words_cap = (text_len / 4 + 1).saturating_mul(5);
        self.asm.reserve(text_len.min(RESERVE_CAP), words.min(words_cap).min(RESERVE_CAP / 4));
        self.tokens(r, text_len, words)?;
        if self.asm.text_len() != text_len || self.asm.index_len() != words {
            return Err(self.size_mismatch(r, text_len, words, true));
        }
        self.asm.finish(encoding).map_err(|e| doc_error(r, e))
    }

    #[cold]
    fn size_mismatch(&self, r: &Reader<'_>, stated_text: usize, stated_words: usize, complete: bool) -> Error {
        r.error(ErrorKind::SizeMismatch {
            stated_text: stated_text as u64,
            stated_index_words: stated_words as u64,
            text: self.asm.text_len() as u64,
            index_words: self.asm.index_len() as u64,
            complete,
        })
    }

    /// The table additions at the start of a document payload: each name checked
    /// once, here (by the assembler, when its symbol is interned).
    fn read_tables(&mut self, r: &mut Reader<'_>) -> Result<(), Error> {
        let start = r.pos;
        if self.t.kept {
            let t = &mut self.t;
            let n = t.first.len();
            if t.generation == self.asm.generation() && r.data.get(start..start + n) == Some(&t.first[..]) {
                // the same additions as the first document's after the last reset:
                // the tables as they made them
                let [q, qa, ns, sy] = t.first_sizes;
                t.qnames.truncate(q);
                t.qarena.truncate(qa);
                t.ns.truncate(ns);
                t.ns_ids.truncate(ns);
                t.syms.truncate(sy);
                t.kept = false;
                r.pos += n;
                return Ok(());
            }
            t.clear();
        }
        let first = self.t.syms.is_empty() && self.t.qnames.is_empty() && self.t.ns.len() == FIXED_NS.len();
        if first {
            // forgotten until these additions are read whole: additions that fail
            // halfway leave entries that are not the ones `first` made
            self.t.first.clear();
        }
        self.read_additions(r)?;
        if first {
            self.t.first.clear();
            self.t.first.extend_from_slice(&r.data[start..r.pos]);
            self.t.generation = self.asm.generation();
            let t = &mut self.t;
            t.first_sizes = [t.qnames.len(), t.qarena.len(), t.ns.len(), t.syms.len()];
        }
        Ok(())
    }

    fn read_additions(&mut self, r: &mut Reader<'_>) -> Result<(), Error> {
        let rest = |r: &Reader<'_>| r.data.len().saturating_sub(r.pos);
        let t = &mut self.t;
        let max_name = self.asm.options().limits.max_name_len as u64;
        let nq = r.count("the number of new names", rest(r))?;
        for _ in 0..nq {
            let q = r.str("a name")?;
            if std::str::from_utf8(q).is_err() {
                return Err(r.malformed("a name that is not UTF-8"));
            }
            if q.len() as u64 > max_name {
                return Err(frame_limit(r, LimitKind::NameLength, q.len() as u64, max_name));
            }
            t.qnames.push((t.qarena.len() as u32, q.len() as u32));
            t.qarena.extend_from_slice(q);
        }
        let nn = r.count("the number of new namespace names", rest(r))?;
        for _ in 0..nn {
            let u = r.str("a namespace name")?;
            let u = std::str::from_utf8(u).map_err(|_| r.malformed("a namespace name that is not UTF-8"))?;
            t.ns_ids.push(self.asm.intern_namespace(u));
            t.ns.push(u.into());
        }
        let ns_count = r.count("the number of new symbols", rest(r))?;
        for _ in 0..ns_count {
            let qh = r.count("a symbol's name", t.qnames.len().saturating_sub(1))?;
            let nh = r.count("a symbol's namespace", t.ns.len().saturating_sub(1))?;
            let (Some(&(qoff, qlen)), Some(uri)) = (t.qnames.get(qh), t.ns.get(nh)) else {
                return Err(r.malformed("a symbol with an empty name or namespace table"));
            };
            let q = &t.qarena[qoff as usize..(qoff + qlen) as usize];
            let sym = self.asm.intern(q, uri).map_err(|e| doc_error(r, e))?;
            t.syms.push(sym);
        }
        Ok(())
    }

    #[inline(always)]
    fn sym(&self, r: &Reader<'_>, h: usize) -> Result<Sym, Error> {
        match self.t.syms.get(h) {
            Some(&s) => Ok(s),
            None => Err(r.malformed(format!("name handle {h} is not in the table ({} entries)", self.t.syms.len()))),
        }
    }

    /// Enters `s` in the value table (the format's rules for entries).
    #[inline]
    fn add_value(&mut self, r: &Reader<'_>, s: &[u8]) -> Result<u32, Error> {
        if s.is_empty() || s.len() > VALUE_MAX_LEN || self.asm.value_count() >= VALUE_MAX_ENTRIES {
            return Err(r.malformed("a value entered in the table that the table does not take"));
        }
        Ok(self.asm.add_value(s))
    }

    /// An attribute value (or text) reference: a literal, a literal entered in the
    /// value table, or a table entry.
    #[inline(always)]
    fn value<'r>(&mut self, r: &mut Reader<'r>) -> Result<Piece<'r>, Error> {
        let v = r.varint("an attribute value")?;
        let n = v >> 2;
        match v & 3 {
            0 => {
                let n = usize::try_from(n).map_err(|_| r.malformed("value too long"))?;
                Ok(Piece::Bytes(r.bytes(n, "an attribute value")?))
            }
            1 => {
                let n = usize::try_from(n).map_err(|_| r.malformed("value too long"))?;
                let s = r.bytes(n, "an attribute value")?;
                Ok(Piece::Entry(self.add_value(r, s)?))
            }
            2 => {
                if n >= self.asm.value_count() as u64 {
                    return Err(r.malformed(format!("value handle {n} is not in the table ({} entries)", self.asm.value_count())));
                }
                Ok(Piece::Entry(n as u32))
            }
            _ => Err(r.malformed("a namespace-name value where only text can be")),
        }
    }

    /// An attribute value: as [`value`](Decoder::value), or (`v & 3 == 3`) the
    /// namespace table's entry `v >> 2`, given as `Err(handle)`.
    #[inline(always)]
    fn attr_value<'r>(&mut self, r: &mut Reader<'r>) -> Result<Result<Piece<'r>, usize>, Error> {
        match r.data.get(r.pos) {
            Some(&b) if b & 3 == 3 => {
                let at = r.pos;
                let v = r.varint("an attribute value")?;
                let h = usize::try_from(v >> 2).unwrap_or(usize::MAX);
                if h >= self.t.ns.len() {
                    r.pos = at;
                    return Err(r.malformed(format!("namespace handle {h} is not in the table ({} entries)", self.t.ns.len())));
                }
                Ok(Err(h))
            }
            _ => self.value(r).map(Ok),
        }
    }

    /// The tokens of a document, handed to the assembler. The common tokens (start
    /// tags, attributes in double quotes, text, end tags) are read from local state
    /// with one-byte varints inline; the rest through the reader.
    fn tokens(&mut self, r: &mut Reader<'_>, max_len: usize, stated_words: usize) -> Result<(), Error> {
        let d = r.data;
        let mut p = r.pos;
        // the start tag is open (attributes may follow), and its whitespace token was seen
        let mut in_tag = false;
        let mut tag_ws = false;
        // the stream's own structure: open elements, and whether the root was seen
        let mut depth = 0usize;
        let mut root_seen = false;
        loop {
            let at = p;
            let Some(&op) = d.get(p) else {
                r.pos = p;
                return Err(r.truncated("a token"));
            };
            p += 1;
            let res = match op {
                0x00..=0x3E => {
                    let Some(&s) = self.t.syms.get(op as usize) else {
                        r.pos = at;
                        return Err(self.bad_sym(r, op as usize));
                    };
                    if depth == 0 {
                        if root_seen {
                            r.pos = at;
                            return Err(r.malformed("a second root element"));
                        }
                        root_seen = true;
                    }
                    depth += 1;
                    in_tag = true;
                    tag_ws = false;
                    self.asm.start_element(s)
                }
                0x40..=0x7E => {
                    if !in_tag || tag_ws {
                        r.pos = at;
                        return Err(r.malformed(format!("token 0x{op:02X} outside a start tag")));
                    }
                    let Some(&s) = self.t.syms.get((op - 0x40) as usize) else {
                        r.pos = at;
                        return Err(self.bad_sym(r, (op - 0x40) as usize));
                    };
                    r.pos = p;
                    let v = self.attr_value(r)?;
                    p = r.pos;
                    match v {
                        Ok(v) => self.asm.attribute(s, b" ", b"", b"", b'"', v),
                        Err(h) => self.asm.attribute_ns_value(s, b" ", b"", b"", b'"', self.t.ns_ids[h]),
                    }
                }
                0x80..=0xBE => {
                    in_tag = false;
                    let n = (op - 0x80) as usize;
                    let Some(s) = d.get(p..p + n) else {
                        r.pos = p;
                        return Err(r.truncated("text"));
                    };
                    p += n;
                    self.asm.text(Piece::Bytes(s))
                }
                OP_TEXT_REF => {
                    in_tag = false;
                    let h = match d.get(p) {
                        Some(&b) if b < 0x80 => {
                            p += 1;
                            b as usize
                        }
                        _ => {
                            r.pos = p;
                            let h = r.count("a text handle", u32::MAX as usize)?;
                            p = r.pos;
                            h
                        }
                    };
                    if h >= self.asm.value_count() {
                        r.pos = at;
                        return Err(r.malformed(format!("text handle {h} is not in the table ({} entries)", self.asm.value_count())));
                    }
                    self.asm.text(Piece::Entry(h as u32))
                }
                OP_LEAF..=0xFE => {
                    let Some(&s) = self.t.syms.get((op - OP_LEAF) as usize) else {
                        r.pos = at;
                        return Err(self.bad_sym(r, (op - OP_LEAF) as usize));
                    };
                    if depth == 0 {
                        if root_seen {
                            r.pos = at;
                            return Err(r.malformed("a second root element"));
                        }
                        root_seen = true;
                    }
                    in_tag = false;
                    r.pos = p;
                    let v = self.value(r)?;
                    p = r.pos;
                    self.asm.leaf_element(s, v)
                }
                OP_END => {
                    if depth == 0 {
                        r.pos = at;
                        return Err(r.malformed("an end tag with no open element"));
                    }
                    depth -= 1;
                    in_tag = false;
                    self.asm.end_element(b"")
                }
                OP_EMPTY => {
                    if !in_tag {
                        r.pos = p;
                        return Err(r.malformed("`/>` outside a start tag"));
                    }
                    in_tag = false;
                    depth -= 1;
                    self.asm.empty_element_end()
                }
                _ => {
                    r.pos = p;
                    let res = self.rare_token(r, op, &mut in_tag, &mut tag_ws, &mut depth, &mut root_seen);
                    p = r.pos;
                    match res {
                        Ok(true) => return Ok(()),
                        Ok(false) => Ok(()),
                        Err(TokErr::Wire(e)) => return Err(e),
                        Err(TokErr::Doc(e)) => Err(e),
                    }
                }
            };
            if let Err(e) = res {
                r.pos = at;
                return Err(doc_error(r, e));
            }
            if self.asm.text_len() > max_len {
                r.pos = p;
                return Err(self.size_mismatch(r, max_len, stated_words, false));
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn bad_sym(&self, r: &Reader<'_>, h: usize) -> Error {
        r.malformed(format!("name handle {h} is not in the table ({} entries)", self.t.syms.len()))
    }

    /// The less common tokens (`r.pos` after the opcode). `Ok(true)` at the end of
    /// the document.
    #[inline(never)]
    fn rare_token(
        &mut self,
        r: &mut Reader<'_>,
        op: u8,
        in_tag: &mut bool,
        tag_ws: &mut bool,
        depth: &mut usize,
        root_seen: &mut bool,
    ) -> Result<bool, TokErr> {
        let at = r.pos - 1;
        let res = match op {
            0x3F => {
                let h = r.ranged(op & 0x3F, "an element name handle")?;
                let s = self.sym(r, h)?;
                if *depth == 0 {
                    if *root_seen {
                        r.pos = at;
                        return Err(r.malformed("a second root element").into());
                    }
                    *root_seen = true;
                }
                *depth += 1;
                *in_tag = true;
                *tag_ws = false;
                self.asm.start_element(s)
            }
            0x7F | OP_ATTR_Q | OP_ATTR_X => {
                if !*in_tag || *tag_ws {
                    return Err(r.malformed(format!("token 0x{op:02X} outside a start tag")).into());
                }
                let h = if op < 0x80 {
                    r.ranged(op & 0x3F, "an attribute name handle")?
                } else {
                    r.count("an attribute name handle", u32::MAX as usize)?
                };
                let s = self.sym(r, h)?;
                if op == OP_ATTR_X {
                    let ws1 = r.str("whitespace before an attribute")?;
                    let ws2 = r.str("whitespace before `=`")?;
                    let ws3 = r.str("whitespace after `=`")?;
                    let q = r.byte("a quote")?;
                    if q != b'"' && q != b'\'' {
                        return Err(r.malformed("an attribute quote that is not `\"` or `'`").into());
                    }
                    match self.attr_value(r)? {
                        Ok(v) => self.asm.attribute(s, ws1, ws2, ws3, q, v),
                        Err(h) => self.asm.attribute_ns_value(s, ws1, ws2, ws3, q, self.t.ns_ids[h]),
                    }
                } else {
                    let q = if op == OP_ATTR_Q { b'\'' } else { b'"' };
                    match self.attr_value(r)? {
                        Ok(v) => self.asm.attribute(s, b" ", b"", b"", q, v),
                        Err(h) => self.asm.attribute_ns_value(s, b" ", b"", b"", q, self.t.ns_ids[h]),
                    }
                }
            }
            0xBF => {
                *in_tag = false;
                let n = r.ranged(op & 0x3F, "a text length")?;
                let s = r.bytes(n, "text")?;
                self.asm.text(Piece::Bytes(s))
            }
            OP_TEXT_NEW => {
                *in_tag = false;
                let s = r.str("text")?;
                let id = self.add_value(r, s)?;
                self.asm.text(Piece::Entry(id))
            }
            OP_END_X => {
                if *depth == 0 {
                    r.pos = at;
                    return Err(r.malformed("an end tag with no open element").into());
                }
                *depth -= 1;
                *in_tag = false;
                let ws = r.str("whitespace in an end tag")?;
                self.asm.end_element(ws)
            }
            OP_TAG_WS => {
                if !*in_tag || *tag_ws {
                    return Err(r.malformed("whitespace token outside a start tag, or a second one").into());
                }
                *tag_ws = true;
                let ws = r.str("whitespace in a start tag")?;
                self.asm.tag_whitespace(ws)
            }
            OP_COMMENT | OP_PI | OP_CDATA => {
                *in_tag = false;
                let body = r.str("a comment, PI or CDATA section")?;
                match op {
                    OP_COMMENT => self.asm.comment(body),
                    OP_PI => self.asm.pi(body),
                    _ => self.asm.cdata(body),
                }
            }
            OP_XMLDECL | OP_DOCTYPE if *depth != 0 || *root_seen => {
                r.pos = at;
                return Err(r.malformed("an XML or document type declaration inside or after the root element").into());
            }
            OP_XMLDECL => {
                let s = r.str("a declaration")?;
                self.asm.xml_declaration(s)
            }
            OP_DOCTYPE => {
                *in_tag = false;
                let s = r.str("a declaration")?;
                self.asm.doctype(s)
            }
            OP_LEAF_X => {
                let h = r.count("a leaf element's name handle", u32::MAX as usize)?;
                let s = self.sym(r, h + LEAF_INLINE as usize)?;
                if *depth == 0 {
                    if *root_seen {
                        r.pos = at;
                        return Err(r.malformed("a second root element").into());
                    }
                    *root_seen = true;
                }
                *in_tag = false;
                let v = self.value(r)?;
                self.asm.leaf_element(s, v)
            }
            OP_EMPTY => {
                if !*in_tag {
                    return Err(r.malformed("`/>` outside a start tag").into());
                }
                *in_tag = false;
                *depth -= 1;
                self.asm.empty_element_end()
            }
            OP_EOD if *depth != 0 => {
                r.pos = at;
                return Err(r.malformed("the document ends with elements open").into());
            }
            OP_EOD => return Ok(true),
            _ => {
                r.pos = at;
                return Err(r.malformed(format!("unknown token 0x{op:02X}")).into());
            }
        };
        match res {
            Ok(()) => Ok(false),
            Err(e) => Err(TokErr::Doc(e)),
        }
    }
}

/// A failed rare token: the wire's error, or the assembler's (placed at the token).
enum TokErr {
    Wire(Error),
    Doc(vtdx_core::Error),
}

impl From<Error> for TokErr {
    fn from(e: Error) -> Self {
        TokErr::Wire(e)
    }
}
