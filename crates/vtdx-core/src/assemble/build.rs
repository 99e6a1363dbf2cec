//! [`Assembler`]: a document written piece by piece from structure tokens
//! (start tag, attribute, text, end tag, ...) by a producer that knows the
//! structure — the binary decoder of `vtdx-binary`. The assembler writes the
//! markup itself (`<`, the name, `="`, `>`, `</`, ...) and the index records with
//! it, so nothing is scanned for markup and nothing the assembler wrote needs
//! checking; what comes from the producer is checked, each piece once: names
//! when they are interned, values when they enter the value table or are used
//! literally, text runs when they end, the whole text for UTF-8 and `Char` at the
//! end (`docs/index-format.md`, "Documents from parts").

use std::sync::Arc;

use memchr::{memchr, memchr3};

use crate::chars::{is_ws, scan_name};
use crate::document::{Bytes, Document, Text};
use crate::error::{snippet, Error, ErrorKind, LimitKind};
use crate::index::*;
use crate::input;
use crate::names::{Names, NsId, QNameId, Sym, NO_PREFIX, NS_NONE, NS_XML, NS_XMLNS, Q_XML, Q_XMLNS, XMLNS_NAMESPACE, XML_NAMESPACE};
use crate::options::ParseOptions;
use crate::parser::{is_qname, DeclSpans};

/// What the assembler knows about one symbol, set when it is interned.
#[derive(Clone, Copy)]
struct SymA {
    /// The markup of the name in `Assembler::narena`, from `off` on: `<q>`,
    /// `</q>`, ` q="` (for a name `q` of `len` bytes).
    off: u32,
    len: u32,
    /// The prefix (`NO_PREFIX` when none).
    prefix: QNameId,
    ns: NsId,
    /// A namespace declaration's name (`xmlns`: 1, `xmlns:p`: 2), with namespaces on.
    decl: u8,
    /// The prefix `xmlns:p` declares (`p`), interned.
    declares: QNameId,
    set: bool,
}

const UNSET: SymA = SymA { off: 0, len: 0, prefix: NO_PREFIX, ns: NS_NONE, decl: 0, declares: NO_PREFIX, set: false };

/// Value flags, found once when a value enters the table.
const F_LT: u8 = 1;
const F_DQ: u8 = 2;
const F_SQ: u8 = 4;
/// `]]>`.
const F_CDEND: u8 = 8;
/// Something other than whitespace.
const F_NONWS: u8 = 16;
/// A malformed or undeclared reference.
const F_BADREF: u8 = 32;
/// `&`, tab, LF or CR: a namespace name written so must be normalized.
const F_NORM: u8 = 64;
/// `]` (internal: then `]]>` is looked for).
const F_RSQB: u8 = 128;

static VCLASS: [u8; 256] = {
    let mut t = [F_NONWS; 256];
    t[b' ' as usize] = 0;
    t[b'\t' as usize] = F_NORM;
    t[b'\n' as usize] = F_NORM;
    t[b'\r' as usize] = F_NORM;
    t[b'<' as usize] = F_LT | F_NONWS;
    t[b'"' as usize] = F_DQ | F_NONWS;
    t[b'\'' as usize] = F_SQ | F_NONWS;
    t[b'&' as usize] = F_NORM | F_BADREF | F_NONWS;
    t[b']' as usize] = F_RSQB | F_NONWS;
    t
};

/// The flags of `s` (see `F_*`).
fn classify(s: &[u8]) -> u8 {
    let mut f = 0u8;
    for &b in s {
        f |= VCLASS[b as usize];
    }
    if f & F_BADREF != 0 {
        // `&` seen: F_BADREF stays only if a reference is bad
        if refs_ok(s) {
            f &= !F_BADREF;
        }
    }
    if f & F_RSQB != 0 && crate::chars::find_seq(s, 0, b"]]>").is_some() {
        f |= F_CDEND;
    }
    f & !F_RSQB
}

/// Are all references in `s` well-formed, and their entities predefined?
fn refs_ok(s: &[u8]) -> bool {
    let mut p = 0;
    while let Some(i) = memchr(b'&', &s[p..]) {
        match reference(s, p + i, s.len()) {
            Ok(e) => p = e,
            Err(_) => return false,
        }
    }
    true
}

/// The reference at `at` (`&`) in `t`, ending before `to`: a character reference
/// to a `Char`, or one of the predefined entities (no DTD). Returns the offset after `;`.
fn reference(t: &[u8], at: usize, to: usize) -> Result<usize, Error> {
    if t.get(at + 1) == Some(&b'#') {
        let (_, e) = crate::parser::char_ref(&t[..to], at)?;
        return Ok(e);
    }
    let ne = match scan_name(&t[..to], at + 1) {
        Some(e) => e,
        None => return Err(syntax(t, at + 1, "expected an entity name or `#` after `&`")),
    };
    if ne >= to || t.get(ne) != Some(&b';') {
        return Err(syntax(t, ne, "expected `;` ending the entity reference"));
    }
    let name = std::str::from_utf8(&t[at + 1..ne]).unwrap_or("");
    if crate::xml::predefined_entity(name).is_none() {
        return Err(Error::at(ErrorKind::UndeclaredEntity { name: name.into() }, t, at));
    }
    Ok(ne + 1)
}

#[cold]
#[inline(never)]
fn syntax(t: &[u8], at: usize, detail: &str) -> Error {
    Error::at(ErrorKind::Syntax { detail: detail.to_string() }, t, at)
}

#[cold]
#[inline(never)]
fn limit(limit: LimitKind, value: u64, max: u64, t: &[u8], at: usize) -> Error {
    Error::at(ErrorKind::LimitExceeded { limit, value, max }, t, at)
}

/// A piece of text or an attribute value: bytes given now, or an entry of the
/// assembler's value table ([`Assembler::add_value`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'v> {
    /// These bytes, as written in the document (references stay references).
    Bytes(&'v [u8]),
    /// The value table's entry with this number.
    Entry(u32),
}

/// How the input bytes of an assembled document are made from its UTF-8 text
/// ([`Assembler::finish`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputEncoding {
    /// UTF-8, the text itself (also any ASCII-compatible encoding the text is pure ASCII in).
    Utf8,
    /// UTF-8 after the byte-order mark EF BB BF (given to [`Assembler::begin`]).
    Utf8Bom,
    /// UTF-16, little-endian, with or without the byte-order mark FF FE.
    Utf16Le {
        /// With the byte-order mark.
        bom: bool,
    },
    /// UTF-16, big-endian, with or without the byte-order mark FE FF.
    Utf16Be {
        /// With the byte-order mark.
        bom: bool,
    },
    /// ISO-8859-1: each character (all below U+0100) one byte.
    Latin1,
}

/// An open element: its record, symbol, and the bindings in scope outside it.
#[derive(Clone, Copy)]
struct OpenEl {
    rec: u32,
    sym: Sym,
    bindings: u32,
    /// The symbol's namespace.
    ns: NsId,
}

/// One attribute of the start tag being written.
#[derive(Clone, Copy)]
struct Att {
    sym: Sym,
    name_at: u32,
    decl: bool,
}

/// Where the document is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Nothing written yet: the XML declaration may come.
    Start,
    /// Before the document element.
    Prolog,
    /// Inside it.
    Root,
    /// After it.
    Epilog,
}

const NO_RUN: usize = usize::MAX;
/// Zero bytes after the name arena.
const PAD: usize = 16;
/// `run_flags` of a run that is not one value-table entry: scanned when it ends.
const RUN_SCAN: u8 = 0xFF;

/// Writes a [`Document`] from structure tokens, checking what the producer
/// supplies, so that the result is the document [`Document::parse`] makes of the
/// same input (up to the numbering of symbols) or an [`Error`] (a producer's
/// input is untrusted).
///
/// The assembler writes all markup itself; the producer gives names (as
/// symbols it [`intern`](Assembler::intern)ed), whitespace, quotes, values and
/// text, which are checked: each name once when interned (`Name`, `QName`, the
/// name-length limit), each value-table entry once when added, each literal
/// value and each run of text when written (no `<`, no closing quote, no `]]>`,
/// references well-formed and predefined), the markup bodies (comments, PIs,
/// CDATA sections, the XML declaration) against their productions, namespace
/// declarations and resolution, attribute uniqueness, the depth and attribute
/// limits, and at [`finish`](Assembler::finish) the whole text for UTF-8 and
/// `Char` and against the encoding the input declares. A document with a
/// document type declaration ([`doctype`](Assembler::doctype)) is only written,
/// then parsed at the end: what its declarations imply is the parser's to work out.
///
/// The tables (names, value entries) live as long as the assembler: a stream
/// of documents interns each name once. Reuse an assembler, and give its
/// documents back with [`recycle`](Assembler::recycle), as with a [`crate::Parser`].
///
/// ```
/// use vtdx_core::{Assembler, InputEncoding, Piece};
///
/// let mut a = Assembler::new(&Default::default());
/// let po = a.intern(b"po", "")?;
/// let n = a.intern(b"n", "")?;
/// a.begin(false);
/// a.start_element(po)?;
/// a.attribute(n, b" ", b"", b"", b'\'', Piece::Bytes(b"1"))?;
/// a.text(Piece::Bytes(b"Can &amp; lid"))?;
/// a.end_element(b"")?;
/// let doc = a.finish(InputEncoding::Utf8)?;
/// assert_eq!(doc.source(), b"<po n='1'>Can &amp; lid</po>");
/// assert_eq!(doc.root_element().text().as_deref(), Some("Can & lid"));
///
/// // what the producer supplies is checked
/// a.begin(false);
/// a.start_element(po)?;
/// assert!(a.text(Piece::Bytes(b"a <b")).and_then(|_| a.end_element(b"")).is_err());
/// # Ok::<(), vtdx_core::Error>(())
/// ```
pub struct Assembler {
    opts: ParseOptions,
    names: Arc<Names>,
    /// Counts the times the name tables were started afresh.
    generation: u64,
    syms: Vec<SymA>,
    /// The qualified names of `syms`, followed by `PAD` zero bytes (short names
    /// are copied 16 bytes at a time).
    narena: Vec<u8>,
    varena: Vec<u8>,
    /// Value-table entries: offset, length, flags.
    values: Vec<(u32, u32, u8)>,
    // the document being written
    buf: Out,
    base: usize,
    tape: Vec<u32>,
    tape_pool: Vec<u32>,
    stack: Vec<OpenEl>,
    bindings: Vec<(QNameId, NsId)>,
    atts: Vec<Att>,
    /// The element whose start tag is being written.
    open: Option<OpenEl>,
    /// Namespace work in the open start tag (a declaration or a prefixed name).
    ns_work: bool,
    stage: Stage,
    root: u32,
    decl: Option<DeclSpans>,
    /// A DOCTYPE was written: the rest is only written, and parsed at the end.
    raw: bool,
    /// The text run being written (its start in `buf`), and how to check it.
    run_start: usize,
    run_flags: u8,
    budget: Option<crate::dtd::ExpansionBudget>,
}

impl Assembler {
    /// An assembler checking against `opts` (limits and the namespace setting,
    /// recorded as each document's [`Document::options`]).
    pub fn new(opts: &ParseOptions) -> Assembler {
        Assembler {
            opts: opts.clone(),
            names: Arc::new(Names::default()),
            generation: 0,
            syms: Vec::new(),
            narena: vec![0; PAD],
            varena: Vec::new(),
            values: Vec::new(),
            buf: Out::default(),
            base: 0,
            tape: Vec::new(),
            tape_pool: Vec::new(),
            stack: Vec::new(),
            bindings: Vec::new(),
            atts: Vec::new(),
            open: None,
            ns_work: false,
            stage: Stage::Start,
            root: 0,
            decl: None,
            raw: false,
            run_start: NO_RUN,
            run_flags: 0,
            budget: None,
        }
    }

    /// The options documents are checked against.
    pub fn options(&self) -> &ParseOptions {
        &self.opts
    }

    /// How many times the name tables were started afresh (they are when they grow
    /// too large to keep): a symbol from [`intern`](Assembler::intern) stays valid
    /// while this number does not change.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The name tables the symbols index (shared with the documents made).
    pub fn names(&self) -> &Arc<Names> {
        &self.names
    }

    /// Interns the qualified name `qname` (as written, `p:local` or `local`) in the
    /// namespace `uri` (`""` for none) and returns its symbol, checking the name
    /// once: UTF-8, the `Name` production (and with namespaces `QName`), and the
    /// name-length limit. Whether the namespace is the one in scope where the
    /// symbol is used is checked at each use.
    pub fn intern(&mut self, qname: &[u8], uri: &str) -> Result<Sym, Error> {
        if let Some(s) = self.find(qname, uri) {
            return Ok(s);
        }
        let bad_name = || Error::at(ErrorKind::InvalidName { name: snippet(qname, 60) }, &[], 0);
        let Ok(q) = std::str::from_utf8(qname) else { return Err(bad_name()) };
        if !crate::chars::is_name(qname) || (self.opts.namespaces && !is_qname(qname)) {
            return Err(bad_name());
        }
        let max = self.opts.limits.max_name_len as u64;
        if qname.len() as u64 > max {
            return Err(limit(LimitKind::NameLength, qname.len() as u64, max, &[], 0));
        }
        let n = Arc::make_mut(&mut self.names);
        let sym = n.try_intern(q, uri)?;
        let qid = n.syms[sym.index()].qname;
        let info = &n.qnames[qid.index()];
        let (len, prefix) = (info.blen, info.prefix);
        self.narena.truncate(self.narena.len() - PAD);
        let off = self.narena.len() as u32;
        for (a, b) in [(&b"<"[..], &b">"[..]), (b"</", b">"), (b" ", b"=\"")] {
            self.narena.extend_from_slice(a);
            self.narena.extend_from_slice(qname);
            self.narena.extend_from_slice(b);
        }
        self.narena.extend_from_slice(&[0; PAD]);
        let (decl, declares) = if !self.opts.namespaces {
            (0, NO_PREFIX)
        } else if q == "xmlns" {
            (1, NO_PREFIX)
        } else if let Some(p) = q.strip_prefix("xmlns:") {
            (2, n.intern_qname(p.as_bytes()))
        } else {
            (0, NO_PREFIX)
        };
        let ns = n.syms[sym.index()].ns;
        if self.syms.len() <= sym.index() {
            self.syms.resize(sym.index() + 1, UNSET);
        }
        self.syms[sym.index()] = SymA { off, len, prefix, ns, decl, declares, set: true };
        Ok(sym)
    }

    /// The symbol of (`qname`, `uri`) if it was interned here before.
    fn find(&self, qname: &[u8], uri: &str) -> Option<Sym> {
        let q = std::str::from_utf8(qname).ok()?;
        let ns = if uri.is_empty() { NS_NONE } else { self.names.find_ns(uri)? };
        let s = self.names.sym_of(q, ns)?;
        self.syms.get(s.index()).filter(|a| a.set).map(|_| s)
    }

    /// Interns the namespace name `uri` (so that declaring it does not copy the
    /// tables a document still holds) and returns its id, for
    /// [`attribute_ns_value`](Assembler::attribute_ns_value) (valid while the
    /// [`generation`](Assembler::generation) stays the same).
    pub fn intern_namespace(&mut self, uri: &str) -> NsId {
        if uri.is_empty() {
            return NS_NONE;
        }
        match self.names.find_ns(uri) {
            Some(id) => id,
            None => Arc::make_mut(&mut self.names).intern_namespace(uri),
        }
    }

    /// Adds `v` to the value table (checked once, here) and returns its number.
    pub fn add_value(&mut self, v: &[u8]) -> u32 {
        let id = self.values.len() as u32;
        self.values.push((self.varena.len() as u32, v.len() as u32, classify(v)));
        self.varena.extend_from_slice(v);
        id
    }

    /// Entries in the value table.
    pub fn value_count(&self) -> usize {
        self.values.len()
    }

    /// Empties the value table.
    pub fn clear_values(&mut self) {
        self.values.clear();
        self.varena.clear();
    }

    /// Starts the name tables afresh if they grew too large to keep (as a reused
    /// parser does), which invalidates the symbols interned so far
    /// ([`generation`](Assembler::generation)): for a producer between documents
    /// whose symbols it does not keep.
    pub fn renew_names_if_large(&mut self) {
        if self.names.too_large_to_keep() {
            self.names = Arc::new(Names::default());
            self.generation += 1;
            self.syms.clear();
            self.narena.clear();
            self.narena.extend_from_slice(&[0; PAD]);
        }
    }

    /// Starts a document (abandoning one not finished). `utf8_bom`: the input
    /// starts with the UTF-8 byte-order mark ([`InputEncoding::Utf8Bom`]).
    pub fn begin(&mut self, utf8_bom: bool) {
        self.buf = Out::default();
        if utf8_bom {
            self.buf.extend_from_slice(&[0xEF, 0xBB, 0xBF]);
        }
        self.base = self.buf.len();
        self.tape = std::mem::take(&mut self.tape_pool);
        self.tape.clear();
        self.stack.clear();
        self.bindings.clear();
        self.atts.clear();
        self.open = None;
        self.ns_work = false;
        self.stage = Stage::Start;
        self.root = 0;
        self.decl = None;
        self.raw = false;
        self.run_start = NO_RUN;
        self.budget = None;
    }

    /// Reserves room for `text` more bytes of text and `words` more index words
    /// (a producer that knows the sizes; capped by the caller).
    pub fn reserve(&mut self, text: usize, words: usize) {
        self.buf.reserve(text);
        self.tape.reserve(words);
    }

    /// Bytes of text written so far (without the byte-order mark).
    #[inline]
    pub fn text_len(&self) -> usize {
        self.buf.len() - self.base
    }

    /// Index words written so far.
    #[inline]
    pub fn index_len(&self) -> usize {
        self.tape.len()
    }

    /// The offset the next byte goes to.
    #[inline(always)]
    fn at(&self) -> u32 {
        (self.buf.len() - self.base) as u32
    }

    #[cold]
    #[inline(never)]
    fn fail(&self, kind: ErrorKind, at: usize) -> Error {
        Error::at(kind, &self.buf[self.base..], at)
    }

    #[cold]
    #[inline(never)]
    fn fail_syntax(&self, at: usize, detail: &str) -> Error {
        syntax(&self.buf[self.base..], at, detail)
    }

    #[inline(always)]
    fn sym_a(&self, s: Sym) -> Result<SymA, Error> {
        match self.syms.get(s.index()) {
            Some(a) if a.set => Ok(*a),
            _ => Err(self.fail_syntax(self.at() as usize, "a symbol this assembler did not intern")),
        }
    }

    /// Appends the qualified name of `a`.
    #[inline(always)]
    fn put_name(&mut self, a: SymA) {
        let (off, len) = (a.off as usize + 1, a.len as usize);
        put_to(&mut self.buf, &self.narena[off..off + len]);
    }

    /// Appends `<` and the qualified name of `a`.
    #[inline(always)]
    fn put_open(&mut self, a: SymA) {
        let (off, len) = (a.off as usize, a.len as usize + 1);
        put_to(&mut self.buf, &self.narena[off..off + len]);
    }

    /// Appends `<`, the qualified name of `a` and `>`.
    #[inline(always)]
    fn put_open_gt(&mut self, a: SymA) {
        let (off, len) = (a.off as usize, a.len as usize + 2);
        put_to(&mut self.buf, &self.narena[off..off + len]);
    }

    /// Appends `</`, the qualified name of `a` and `>`.
    #[inline(always)]
    fn put_close(&mut self, a: SymA) {
        let (off, len) = (a.off as usize + a.len as usize + 2, a.len as usize + 3);
        put_to(&mut self.buf, &self.narena[off..off + len]);
    }

    /// Appends ` `, the qualified name of `a` and `="`.
    #[inline(always)]
    fn put_attr(&mut self, a: SymA) {
        let (off, len) = (a.off as usize + 2 * a.len as usize + 5, a.len as usize + 3);
        put_to(&mut self.buf, &self.narena[off..off + len]);
    }

    /// Appends an attribute-kind record of `kind` for `sym` and the start tag's
    /// text up to the value: ` q="` as stored when written with one space and no
    /// white space around `=` (the quote replaced when it is `'`), else `ws1`,
    /// the name, `ws2`, `=`, `ws3` and the quote. Returns where the name starts.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn put_attr_head(&mut self, kind: u32, sym: Sym, a: SymA, ws1: &[u8], ws2: &[u8], ws3: &[u8], quote: u8) -> u32 {
        let plain = ws1 == b" " && ws2.is_empty() && ws3.is_empty();
        let name_at = if plain { self.at() + 1 } else { self.at() + ws1.len() as u32 };
        self.tape.extend_from_slice(&[(kind << KIND_SHIFT) | sym.as_u32(), name_at]);
        if plain {
            self.put_attr(a);
            if quote != b'"' {
                self.buf.set_last(quote);
            }
        } else {
            self.buf.extend_from_slice(ws1);
            self.put_name(a);
            self.buf.extend_from_slice(ws2);
            self.buf.push(b'=');
            self.buf.extend_from_slice(ws3);
            self.buf.push(quote);
        }
        name_at
    }

    /// Closes the open start tag, or checks the text run that ends here.
    #[inline(always)]
    fn settle(&mut self) -> Result<(), Error> {
        if self.open.is_some() {
            self.close_tag(false)
        } else if self.run_start != NO_RUN {
            if self.run_flags & (F_LT | F_CDEND | F_BADREF) == 0 && !self.stack.is_empty() {
                self.run_start = NO_RUN;
                return Ok(());
            }
            self.end_run()
        } else {
            Ok(())
        }
    }

    /// The XML declaration, `<?xml … ?>` (only first).
    pub fn xml_declaration(&mut self, decl: &[u8]) -> Result<(), Error> {
        if self.stage != Stage::Start {
            return Err(self.fail_syntax(self.at() as usize, "the XML declaration must come first"));
        }
        self.buf.extend_from_slice(decl);
        let t = &self.buf[self.base..];
        if !(t.starts_with(b"<?xml") && t.get(5).is_some_and(|&b| is_ws(b) || b == b'?')) {
            return Err(self.fail_syntax(0, "expected `<?xml` opening the XML declaration"));
        }
        let (d, end) = crate::parser::Run::xml_decl(t)?;
        if end != t.len() {
            return Err(self.fail_syntax(end, "the XML declaration ends before its bytes do"));
        }
        self.decl = Some(d);
        self.stage = Stage::Prolog;
        Ok(())
    }

    /// A document type declaration, with the whitespace around it: the whole gap
    /// between the previous top-level item and the next. From here on the
    /// document is only written; [`finish`](Assembler::finish) parses it.
    pub fn doctype(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.settle()?;
        if matches!(self.stage, Stage::Root | Stage::Epilog) {
            return Err(self.fail_syntax(self.at() as usize, "a document type declaration after the root element"));
        }
        self.stage = Stage::Prolog;
        self.raw = true;
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    /// A start tag's `<` and name: the element `sym`. Its attributes follow, then
    /// any token but an attribute closes the tag (`>`), or
    /// [`empty_element_end`](Assembler::empty_element_end) (`/>`).
    #[inline(always)]
    pub fn start_element(&mut self, sym: Sym) -> Result<(), Error> {
        self.settle()?;
        let a = self.sym_a(sym)?;
        let at = self.at();
        let parent = match self.stack.last() {
            Some(e) => e.rec,
            None => {
                if self.stage == Stage::Epilog {
                    return Err(
                        self.fail_syntax(at as usize, "only comments, processing instructions or whitespace may follow the root element")
                    );
                }
                self.stage = Stage::Root;
                self.root = self.tape.len() as u32;
                NONE
            }
        };
        if self.stack.len() >= self.opts.limits.max_depth as usize {
            let max = self.opts.limits.max_depth as u64;
            return Err(
                self.fail(ErrorKind::LimitExceeded { limit: LimitKind::Depth, value: self.stack.len() as u64 + 1, max }, at as usize)
            );
        }
        let rec = self.tape.len() as u32;
        self.tape.extend_from_slice(&[(K_ELEM << KIND_SHIFT) | sym.as_u32(), at, 0, parent, 0]);
        self.put_open(a);
        self.open = Some(OpenEl { rec, sym, bindings: self.bindings.len() as u32, ns: a.ns });
        self.ns_work = a.prefix != NO_PREFIX;
        self.atts.clear();
        Ok(())
    }

    /// An attribute of the open start tag: `ws1` (at least one whitespace
    /// character), the name `sym`, `ws2`, `=`, `ws3`, then `value` in `quote`s
    /// (`"` or `'`).
    #[inline(always)]
    pub fn attribute(&mut self, sym: Sym, ws1: &[u8], ws2: &[u8], ws3: &[u8], quote: u8, value: Piece<'_>) -> Result<(), Error> {
        if self.open.is_none() {
            return Err(self.fail_syntax(self.at() as usize, "an attribute outside a start tag"));
        }
        let a = self.sym_a(sym)?;
        if ws1.is_empty() || !all_ws(ws1) || !all_ws(ws2) || !all_ws(ws3) {
            return Err(self.fail_syntax(self.at() as usize, "expected whitespace around an attribute"));
        }
        let qf = match quote {
            b'"' => F_DQ,
            b'\'' => F_SQ,
            _ => return Err(self.fail_syntax(self.at() as usize, "expected a quoted attribute value")),
        };
        if self.atts.len() >= self.opts.limits.max_attributes as usize && !self.raw {
            let max = self.opts.limits.max_attributes as u64;
            let at = self.at() as usize;
            return Err(self.fail(ErrorKind::LimitExceeded { limit: LimitKind::Attributes, value: self.atts.len() as u64 + 1, max }, at));
        }
        let decl = a.decl != 0;
        let kind = if decl { K_NSDECL } else { K_ATTR };
        let name_at = self.put_attr_head(kind, sym, a, ws1, ws2, ws3, quote);
        let vs = self.buf.len();
        let flags = match value {
            Piece::Bytes(v) => {
                put_to(&mut self.buf, v);
                // `<`, `&` or the quote: looked at closely (rare)
                let hit = if v.len() <= 32 {
                    v.iter().any(|&b| VCLASS[b as usize] & (F_LT | qf | F_BADREF) != 0)
                } else {
                    memchr3(b'<', b'&', quote, v).is_some()
                };
                if hit {
                    classify(v)
                } else {
                    0
                }
            }
            Piece::Entry(i) => {
                let Some(&(o, l, f)) = self.values.get(i as usize) else {
                    return Err(self.fail_syntax(name_at as usize, "a value-table entry that does not exist"));
                };
                put_to(&mut self.buf, &self.varena[o as usize..(o + l) as usize]);
                f
            }
        };
        let ve = self.buf.len();
        self.buf.push(quote);
        if self.raw {
            return Ok(());
        }
        if flags & (F_LT | qf | F_BADREF) != 0 {
            return Err(self.value_error(vs, ve, quote));
        }
        if decl {
            self.declare(a, vs, ve, flags, name_at as usize)?;
        }
        self.ns_work |= decl || a.prefix != NO_PREFIX;
        self.atts.push(Att { sym, name_at, decl });
        Ok(())
    }

    /// An attribute whose value is the namespace name `id` (from
    /// [`intern_namespace`](Assembler::intern_namespace)) as it stands: what
    /// [`attribute`](Assembler::attribute) writes with that name's bytes as the
    /// value, but a namespace declaration in double quotes neither looks at the
    /// value again (the name's flags, found when it was interned, say it needs no
    /// normalizing and holds no `<`, `&` or `"`) nor looks it up (its id is known).
    pub fn attribute_ns_value(&mut self, sym: Sym, ws1: &[u8], ws2: &[u8], ws3: &[u8], quote: u8, id: NsId) -> Result<(), Error> {
        let names = Arc::clone(&self.names);
        let Some(uri) = names.ns.get(id.index()).map(|u| u.as_bytes()) else {
            return Err(self.fail_syntax(self.at() as usize, "a namespace id this assembler did not intern"));
        };
        let a = match self.syms.get(sym.index()) {
            Some(a) if a.set => *a,
            _ => SymA { decl: 0, ..UNSET },
        };
        let prefix = a.declares;
        // what `attribute` and `declare` refuse takes their way, for their errors
        let allowed = prefix != Q_XMLNS && (prefix == Q_XML) == (id == NS_XML) && id != NS_XMLNS && !(a.decl == 2 && id == NS_NONE);
        if quote != b'"'
            || a.decl == 0
            || !allowed
            || self.raw
            || self.open.is_none()
            || ws1.is_empty()
            || !all_ws(ws1)
            || !all_ws(ws2)
            || !all_ws(ws3)
            || self.atts.len() >= self.opts.limits.max_attributes as usize
            || !names.ns_attr_plain(id)
        {
            return self.attribute(sym, ws1, ws2, ws3, quote, Piece::Bytes(uri));
        }
        let name_at = self.put_attr_head(K_NSDECL, sym, a, ws1, ws2, ws3, quote);
        put_to(&mut self.buf, uri);
        self.buf.push(quote);
        self.bindings.push((prefix, id));
        self.ns_work = true;
        self.atts.push(Att { sym, name_at, decl: true });
        Ok(())
    }

    /// The precise error in the attribute value `buf[vs..ve]`.
    #[cold]
    #[inline(never)]
    fn value_error(&self, vs: usize, ve: usize, quote: u8) -> Error {
        let t = &self.buf[self.base..];
        let (vs, ve) = (vs - self.base, ve - self.base);
        let mut p = vs;
        while let Some(i) = memchr3(b'<', b'&', quote, &t[p..ve]) {
            let at = p + i;
            match t[at] {
                b'<' => return syntax(t, at, "`<` is not allowed in an attribute value"),
                b'&' => match reference(t, at, ve) {
                    Ok(e) => p = e,
                    Err(e) => return e,
                },
                _ => return syntax(t, at, "the attribute value holds its own quote"),
            }
        }
        syntax(t, vs, "a malformed attribute value")
    }

    /// A namespace declaration whose value is `buf[vs..ve]`.
    fn declare(&mut self, a: SymA, vs: usize, ve: usize, flags: u8, at: usize) -> Result<(), Error> {
        let raw = &self.buf[vs..ve];
        let norm = if raw.len() <= 64 {
            raw.iter().any(|&b| VCLASS[b as usize] & F_NORM != 0)
        } else {
            memchr3(b'&', b'\t', b'\n', raw).is_some() || memchr(b'\r', raw).is_some()
        };
        let uri: std::borrow::Cow<'_, [u8]> = if flags & F_NORM != 0 || norm {
            let s = std::str::from_utf8(raw).map_err(|e| self.fail(ErrorKind::InvalidUtf8, vs - self.base + e.valid_up_to()))?;
            let t = &self.buf[self.base..];
            let len = t.len();
            let budget = self.budget.get_or_insert_with(|| crate::dtd::ExpansionBudget::new(&self.opts, len));
            let v = crate::dtd::normalize_attribute_value(s, t, vs - self.base, None, true, budget, 0)?;
            std::borrow::Cow::Owned(v.into_owned().into_bytes())
        } else {
            std::borrow::Cow::Borrowed(raw)
        };
        let prefix = a.declares;
        let problem = if prefix == Q_XMLNS {
            Some("the prefix `xmlns` must not be declared".to_string())
        } else if prefix == Q_XML && *uri != *XML_NAMESPACE.as_bytes() {
            Some(format!("the prefix `xml` can only be bound to `{XML_NAMESPACE}`"))
        } else if prefix != Q_XML && *uri == *XML_NAMESPACE.as_bytes() {
            Some(format!("`{XML_NAMESPACE}` can only be bound to the prefix `xml`"))
        } else if *uri == *XMLNS_NAMESPACE.as_bytes() {
            Some(format!("`{XMLNS_NAMESPACE}` must not be declared"))
        } else if a.decl == 2 && uri.is_empty() {
            Some(format!("the prefix `{}` cannot be undeclared (empty namespace name) in XML 1.0", self.names.qname_text(prefix)))
        } else {
            None
        };
        if let Some(detail) = problem {
            return Err(self.fail(ErrorKind::ReservedNamespace { detail }, at));
        }
        let id = if uri.is_empty() {
            NS_NONE
        } else {
            match self.names.find_ns_bytes(&uri) {
                Some(id) => id,
                None => {
                    let uri = uri.into_owned();
                    Arc::make_mut(&mut self.names).intern_ns_bytes(&uri)
                }
            }
        };
        self.bindings.push((prefix, id));
        Ok(())
    }

    /// Whitespace before the open start tag's `>` or `/>`.
    #[inline]
    pub fn tag_whitespace(&mut self, ws: &[u8]) -> Result<(), Error> {
        if self.open.is_none() || !all_ws(ws) {
            return Err(self.fail_syntax(self.at() as usize, "expected whitespace inside a start tag"));
        }
        self.buf.extend_from_slice(ws);
        Ok(())
    }

    /// `/>`: the open start tag is an empty-element tag.
    #[inline]
    pub fn empty_element_end(&mut self) -> Result<(), Error> {
        if self.open.is_none() {
            return Err(self.fail_syntax(self.at() as usize, "`/>` outside a start tag"));
        }
        self.close_tag(true)
    }

    /// Closes the open start tag with `>` (or `/>` when `empty`): namespaces,
    /// attribute uniqueness.
    #[inline(always)]
    fn close_tag(&mut self, empty: bool) -> Result<(), Error> {
        let Some(o) = self.open else { return Ok(()) };
        if self.atts.is_empty() && !self.ns_work && self.bindings.is_empty() && o.ns == NS_NONE {
            // no attributes, nothing in a namespace: nothing to check
            self.open = None;
            if empty {
                self.buf.extend_from_slice(b"/>");
                self.close_record(o.rec);
            } else {
                self.buf.push(b'>');
                self.stack.push(o);
            }
            return Ok(());
        }
        self.close_tag_checked(empty)
    }

    #[inline(never)]
    fn close_tag_checked(&mut self, empty: bool) -> Result<(), Error> {
        let Some(o) = self.open.take() else { return Ok(()) };
        if !self.raw {
            self.tag_check(o)?;
        }
        if empty {
            self.buf.extend_from_slice(b"/>");
            self.close_record(o.rec);
            self.bindings.truncate(o.bindings as usize);
        } else {
            self.buf.push(b'>');
            self.stack.push(o);
        }
        Ok(())
    }

    /// The checks of the open start tag `o` at its end: namespaces, attribute uniqueness.
    fn tag_check(&self, o: OpenEl) -> Result<(), Error> {
        if self.opts.namespaces {
            if self.ns_work || !self.bindings.is_empty() {
                self.tag_namespaces(o)?;
            } else if self.sym_a(o.sym)?.ns != NS_NONE || self.atts.iter().any(|a| self.syms[a.sym.index()].ns != NS_NONE) {
                return Err(self.wrong_ns(o.sym, o.rec));
            }
        } else if self.sym_a(o.sym)?.ns != NS_NONE || self.atts.iter().any(|a| self.syms[a.sym.index()].ns != NS_NONE) {
            return Err(self.wrong_ns(o.sym, o.rec));
        }
        if self.atts.len() > 1 {
            self.unique()?;
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn wrong_ns(&self, sym: Sym, rec: u32) -> Error {
        let at = self.tape.get(rec as usize + 1).copied().unwrap_or(0) as usize;
        let detail =
            format!("the symbol of `{}` says namespace `{}`, its declarations another", self.names.qname(sym), self.names.ns_uri(sym));
        self.fail(ErrorKind::Syntax { detail }, at)
    }

    /// Resolves the open tag's element and attribute names against the bindings.
    fn tag_namespaces(&self, o: OpenEl) -> Result<(), Error> {
        let ea = self.syms[o.sym.index()];
        let at = self.tape[o.rec as usize + 1] as usize;
        if self.resolve(ea.prefix, true, at + 1)? != ea.ns {
            return Err(self.wrong_ns(o.sym, o.rec));
        }
        for att in &self.atts {
            let a = self.syms[att.sym.index()];
            let want = if att.decl {
                NS_XMLNS
            } else if a.prefix == NO_PREFIX {
                NS_NONE
            } else {
                self.resolve(a.prefix, false, att.name_at as usize)?
            };
            if a.ns != want {
                return Err(self.wrong_ns(att.sym, o.rec));
            }
        }
        Ok(())
    }

    /// The namespace of `prefix` (`NO_PREFIX` for none) on an element or attribute name.
    #[inline]
    fn resolve(&self, prefix: QNameId, element: bool, at: usize) -> Result<NsId, Error> {
        if prefix == NO_PREFIX && !element {
            return Ok(NS_NONE);
        }
        if prefix == Q_XML {
            return Ok(NS_XML);
        }
        if prefix == Q_XMLNS {
            return Err(
                self.fail(ErrorKind::ReservedNamespace { detail: "the prefix `xmlns` is reserved for namespace declarations".into() }, at)
            );
        }
        for (p, ns) in self.bindings.iter().rev() {
            if *p == prefix {
                return Ok(*ns);
            }
        }
        if prefix == NO_PREFIX {
            return Ok(NS_NONE);
        }
        Err(self.fail(ErrorKind::UndeclaredPrefix { prefix: self.names.qname_text(prefix).into() }, at))
    }

    /// Attribute uniqueness by qualified name and (with namespaces) by expanded name.
    fn unique(&self) -> Result<(), Error> {
        let names = &*self.names;
        let atts = &self.atts;
        let dup = |a: &Att| self.fail(ErrorKind::DuplicateAttribute { name: names.qname(a.sym).into() }, a.name_at as usize);
        let expanded = |a: &Att| -> Option<(NsId, &str)> {
            let ns = self.syms[a.sym.index()].ns;
            (self.opts.namespaces && ns != NS_NONE && !a.decl).then(|| (ns, names.local(a.sym)))
        };
        if atts.len() <= 16 {
            for i in 1..atts.len() {
                for k in 0..i {
                    let (a, b) = (&atts[i], &atts[k]);
                    // one symbol per (qname, namespace); the namespaces are checked: a
                    // qualified name repeated is a symbol repeated
                    if a.sym == b.sym || names.syms[a.sym.index()].qname == names.syms[b.sym.index()].qname {
                        return Err(dup(a));
                    }
                    if expanded(a).is_some() && expanded(a) == expanded(b) {
                        return Err(dup(a));
                    }
                }
            }
            return Ok(());
        }
        let mut q = std::collections::HashMap::with_capacity_and_hasher(atts.len(), crate::names::BuildFx);
        let mut x = std::collections::HashMap::with_capacity_and_hasher(atts.len(), crate::names::BuildFx);
        for a in atts {
            if q.insert(names.syms[a.sym.index()].qname, ()).is_some() {
                return Err(dup(a));
            }
            if let Some(e) = expanded(a) {
                if x.insert(e, ()).is_some() {
                    return Err(dup(a));
                }
            }
        }
        Ok(())
    }

    /// Completes element record `rec`: its *next* is the tape's length now, its
    /// end the text's.
    #[inline(always)]
    fn close_record(&mut self, rec: u32) {
        let next = self.tape.len() as u32;
        let end = self.at();
        if let Some(r) = self.tape.get_mut(rec as usize..rec as usize + ELEM_WORDS as usize) {
            r[2] = next;
            r[4] = end;
        }
        if self.stack.is_empty() {
            self.stage = Stage::Epilog;
        }
    }

    /// An element written `<name>text</name>`, with no attributes and only
    /// `text` (character data, possibly empty) as content: what
    /// [`start_element`](Assembler::start_element), [`text`](Assembler::text) and
    /// [`end_element`](Assembler::end_element) write, in one step (its record
    /// written whole, its text checked at once).
    #[inline(always)]
    pub fn leaf_element(&mut self, sym: Sym, text: Piece<'_>) -> Result<(), Error> {
        self.settle()?;
        let a = self.sym_a(sym)?;
        let Some(parent) = self.stack.last().map(|e| e.rec) else {
            return self.leaf_general(sym, text);
        };
        let at = self.at();
        let ns_ok = if !self.opts.namespaces || (a.prefix == NO_PREFIX && self.bindings.is_empty()) {
            a.ns == NS_NONE
        } else {
            self.resolve(a.prefix, true, at as usize + 1).ok() == Some(a.ns)
        };
        if !ns_ok || self.raw || self.stack.len() >= self.opts.limits.max_depth as usize {
            return self.leaf_general(sym, text);
        }
        self.put_open_gt(a);
        let ts = self.buf.len();
        let (bytes, flags) = match text {
            Piece::Bytes(b) => (b, if special(b) { classify(b) } else { 0 }),
            Piece::Entry(i) => match self.values.get(i as usize) {
                Some(&(o, l, f)) => (&self.varena[o as usize..(o + l) as usize], f),
                None => return Err(self.fail_syntax(at as usize, "a value-table entry that does not exist")),
            },
        };
        put_to(&mut self.buf, bytes);
        if flags & (F_LT | F_CDEND | F_BADREF) != 0 {
            self.char_data(ts - self.base)?;
            return Err(self.fail_syntax(ts - self.base, "malformed character data"));
        }
        self.put_close(a);
        let rec = self.tape.len() as u32;
        let end = self.at();
        self.tape.extend_from_slice(&[(K_ELEM << KIND_SHIFT) | sym.as_u32(), at, rec + ELEM_WORDS, parent, end]);
        Ok(())
    }

    /// [`leaf_element`](Assembler::leaf_element) in three steps (the root, names
    /// in namespaces, after a DOCTYPE, and every error).
    #[inline(never)]
    fn leaf_general(&mut self, sym: Sym, text: Piece<'_>) -> Result<(), Error> {
        self.start_element(sym)?;
        self.text(text)?;
        self.end_element(b"")
    }

    /// The end tag of the innermost open element: `</`, its name, `ws`, `>`.
    #[inline(always)]
    pub fn end_element(&mut self, ws: &[u8]) -> Result<(), Error> {
        self.settle()?;
        let Some(e) = self.stack.pop() else {
            return Err(self.fail(ErrorKind::UnexpectedEndTag { found: String::new() }, self.at() as usize));
        };
        if !ws.is_empty() && !all_ws(ws) {
            return Err(self.fail_syntax(self.at() as usize, "expected `>` closing the end tag"));
        }
        let a = self.syms[e.sym.index()];
        if ws.is_empty() {
            self.put_close(a);
        } else {
            self.buf.extend_from_slice(b"</");
            self.put_name(a);
            self.buf.extend_from_slice(ws);
            self.buf.push(b'>');
        }
        self.close_record(e.rec);
        self.bindings.truncate(e.bindings as usize);
        Ok(())
    }

    /// Character data (inside the document element), or whitespace (outside it).
    /// Adjacent pieces make one run, checked when it ends.
    #[inline(always)]
    pub fn text(&mut self, piece: Piece<'_>) -> Result<(), Error> {
        if self.open.is_some() {
            self.close_tag(false)?;
        }
        let (bytes, flags) = match piece {
            Piece::Bytes(b) => (b, if self.stack.is_empty() || special(b) { RUN_SCAN } else { 0 }),
            Piece::Entry(i) => match self.values.get(i as usize) {
                Some(&(o, l, f)) => (&self.varena[o as usize..(o + l) as usize], f),
                None => return Err(self.fail_syntax(self.at() as usize, "a value-table entry that does not exist")),
            },
        };
        if self.run_start == NO_RUN {
            self.run_start = self.buf.len();
            self.run_flags = flags;
        } else {
            self.run_flags = RUN_SCAN;
        }
        put_to(&mut self.buf, bytes);
        if self.stage == Stage::Start {
            self.stage = Stage::Prolog;
        }
        Ok(())
    }

    /// Checks the text run that ends here.
    fn end_run(&mut self) -> Result<(), Error> {
        let start = std::mem::replace(&mut self.run_start, NO_RUN);
        if self.raw {
            return Ok(());
        }
        self.run_check(start)
    }

    /// The checks of the text run from `start` (in `buf`) to the end of the text.
    fn run_check(&self, start: usize) -> Result<(), Error> {
        let f = self.run_flags;
        if self.stack.is_empty() {
            // outside the document element: whitespace only
            let ok = if f != RUN_SCAN { f & F_NONWS == 0 } else { all_ws(&self.buf[start..]) };
            if !ok {
                let t = &self.buf[self.base..];
                let at = start - self.base + t[start - self.base..].iter().position(|&b| !is_ws(b)).unwrap_or(0);
                return Err(if self.stage == Stage::Epilog {
                    syntax(t, at, "only comments, processing instructions or whitespace may follow the root element")
                } else {
                    syntax(t, at, "expected markup (`<`) before the root element")
                });
            }
            return Ok(());
        }
        if f != RUN_SCAN {
            if f & (F_LT | F_CDEND | F_BADREF) == 0 {
                return Ok(());
            }
        } else {
            let s = &self.buf[start..];
            let hit = if s.len() <= 32 {
                s.iter().any(|&b| VCLASS[b as usize] & (F_LT | F_BADREF | F_RSQB) != 0)
            } else {
                memchr3(b'<', b'&', b']', s).is_some()
            };
            if !hit {
                return Ok(());
            }
        }
        self.char_data(start - self.base)
    }

    /// Character data from `from` to the end of the text: no `<`, no `]]>`,
    /// well-formed references to predefined entities.
    #[cold]
    #[inline(never)]
    fn char_data(&self, from: usize) -> Result<(), Error> {
        let t = &self.buf[self.base..];
        let to = t.len();
        let mut p = from;
        while let Some(i) = memchr3(b'<', b'&', b']', &t[p..to]) {
            let at = p + i;
            match t[at] {
                b'<' => return Err(syntax(t, at, "`<` in character data (markup the producer did not announce)")),
                b'&' => p = reference(t, at, to)?,
                _ => {
                    if t[at..to].starts_with(b"]]>") {
                        return Err(syntax(t, at, "`]]>` is not allowed in character data"));
                    }
                    p = at + 1;
                }
            }
        }
        Ok(())
    }

    /// A comment, `<!--` `body` `-->`.
    pub fn comment(&mut self, body: &[u8]) -> Result<(), Error> {
        self.settle()?;
        if !self.raw {
            if let Some(i) = crate::chars::find_seq(body, 0, b"--") {
                return Err(self.fail_syntax(self.at() as usize + 4 + i, "`--` is not allowed inside a comment"));
            }
            if body.ends_with(b"-") {
                return Err(self.fail_syntax(self.at() as usize + 3 + body.len(), "`--` is not allowed inside a comment"));
            }
        }
        self.leaf(K_COMMENT, b"<!--", body, b"-->");
        Ok(())
    }

    /// A processing instruction, `<?` `body` `?>` (`body`: the target, then
    /// nothing or whitespace and the data).
    pub fn pi(&mut self, body: &[u8]) -> Result<(), Error> {
        self.settle()?;
        if !self.raw {
            let at = self.at() as usize + 2;
            let Some(ne) = scan_name(body, 0) else {
                return Err(self.fail_syntax(at, "expected a processing instruction target"));
            };
            let target = &body[..ne];
            if target.eq_ignore_ascii_case(b"xml") {
                return Err(self.fail_syntax(at - 2, "the processing instruction target `xml` is reserved"));
            }
            if self.opts.namespaces && memchr(b':', target).is_some() {
                return Err(self.fail(ErrorKind::InvalidName { name: snippet(target, 40) }, at));
            }
            let max = self.opts.limits.max_name_len as u64;
            if ne as u64 > max {
                return Err(self.fail(ErrorKind::LimitExceeded { limit: LimitKind::NameLength, value: ne as u64, max }, at));
            }
            if ne < body.len() && !is_ws(body[ne]) {
                return Err(self.fail_syntax(at + ne, "expected whitespace or `?>` after the processing instruction target"));
            }
            if let Some(i) = crate::chars::find_seq(body, ne, b"?>").map(|i| i - ne) {
                return Err(self.fail_syntax(at + ne + i, "`?>` ends the processing instruction before its end"));
            }
        }
        self.leaf(K_PI, b"<?", body, b"?>");
        Ok(())
    }

    /// A CDATA section, `<![CDATA[` `body` `]]>` (inside the document element).
    pub fn cdata(&mut self, body: &[u8]) -> Result<(), Error> {
        self.settle()?;
        if !self.raw {
            if self.stack.is_empty() {
                return Err(self.fail_syntax(self.at() as usize, "a CDATA section outside the root element"));
            }
            if let Some(i) = crate::chars::find_seq(body, 0, b"]]>") {
                return Err(self.fail_syntax(self.at() as usize + 9 + i, "`]]>` ends the CDATA section before its end"));
            }
        }
        self.leaf(K_CDATA, b"<![CDATA[", body, b"]]>");
        Ok(())
    }

    fn leaf(&mut self, kind: u32, open: &[u8], body: &[u8], close: &[u8]) {
        let start = self.at();
        self.buf.extend_from_slice(open);
        self.buf.extend_from_slice(body);
        self.buf.extend_from_slice(close);
        let parent = self.stack.last().map_or(NONE, |e| e.rec);
        let end = self.at();
        self.tape.extend_from_slice(&[kind << KIND_SHIFT, start, end, parent]);
        if self.stage == Stage::Start {
            self.stage = Stage::Prolog;
        }
    }

    /// Ends the document and makes it: the input bytes from the text in
    /// `encoding`, decoded and checked as [`Document::parse`] decodes its input
    /// (encoding declaration, UTF-8, `Char`, the document size), or, after a
    /// DOCTYPE, parsed.
    pub fn finish(&mut self, encoding: InputEncoding) -> Result<Document<'static>, Error> {
        self.settle()?;
        let raw = self.raw;
        if !raw {
            if let Some(e) = self.stack.last() {
                let name = self.names.qname(e.sym).into();
                return Err(self.fail(ErrorKind::UnclosedElement { name }, self.at() as usize));
            }
            if self.stage != Stage::Epilog {
                return Err(self.fail(ErrorKind::UnexpectedEof { expected: "the root element" }, self.at() as usize));
            }
        }
        let mut buf = std::mem::take(&mut self.buf).into_vec();
        let base = std::mem::replace(&mut self.base, 0);
        let text_len = buf.len() - base;
        let max = self.opts.limits.max_document_size.min(u32::MAX as u64 - 1);
        if text_len as u64 > max {
            return Err(limit(LimitKind::DocumentSize, text_len as u64, max, &[], 0));
        }
        if self.tape.len() >= MAX_TAPE_WORDS {
            let max = MAX_TAPE_WORDS as u64;
            return Err(limit(LimitKind::IndexCapacity, self.tape.len() as u64, max, &[], 0));
        }
        if matches!(encoding, InputEncoding::Utf8Bom) != (base == 3) {
            return Err(syntax(&[], 0, "the byte-order mark given to `begin` and the encoding given to `finish` differ"));
        }
        let source = match encoding {
            InputEncoding::Utf8 | InputEncoding::Utf8Bom => None,
            InputEncoding::Utf16Le { bom } | InputEncoding::Utf16Be { bom } => {
                let le = matches!(encoding, InputEncoding::Utf16Le { .. });
                let s = std::str::from_utf8(&buf).map_err(|e| Error::at(ErrorKind::InvalidUtf8, &buf, e.valid_up_to()))?;
                let mut out = Vec::with_capacity(buf.len() * 2 + 2);
                if bom {
                    out.extend_from_slice(if le { &[0xFF, 0xFE] } else { &[0xFE, 0xFF] });
                }
                for u in s.encode_utf16() {
                    out.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
                }
                Some(out)
            }
            InputEncoding::Latin1 => {
                let s = std::str::from_utf8(&buf).map_err(|e| Error::at(ErrorKind::InvalidUtf8, &buf, e.valid_up_to()))?;
                let mut out = Vec::with_capacity(buf.len());
                for (i, c) in s.char_indices() {
                    let Ok(b) = u8::try_from(u32::from(c)) else {
                        let detail = format!("character U+{:04X} cannot be written in ISO-8859-1", u32::from(c));
                        return Err(Error::at(ErrorKind::Encoding { detail }, &buf, i));
                    };
                    out.push(b);
                }
                Some(out)
            }
        };
        if raw {
            let src = source.unwrap_or(buf);
            return crate::Parser::with_options(self.opts.clone()).parse_owned(src);
        }
        let (source, text, enc) = match source {
            None => {
                let d = input::decode(&buf)?;
                let same = match &d.text {
                    std::borrow::Cow::Borrowed(t) => d.bom_len == base && t.len() == text_len,
                    std::borrow::Cow::Owned(t) => **t == buf[base..],
                };
                if !same {
                    return Err(self.encoding_mismatch(&buf[base..]));
                }
                let enc = d.encoding;
                drop(d.text);
                (buf, Text::Source(base), enc)
            }
            Some(src) => {
                let d = input::decode(&src)?;
                if *d.text != buf[base..] {
                    return Err(self.encoding_mismatch(&buf[base..]));
                }
                let enc = d.encoding;
                drop(d.text);
                buf.drain(..base);
                (src, Text::Owned(buf), enc)
            }
        };
        let tape = std::mem::take(&mut self.tape);
        Ok(Document {
            source: Bytes::Owned(source),
            text,
            tape,
            names: self.names.clone(),
            dtd: None,
            decl: self.decl.take(),
            decl_read: std::sync::OnceLock::new(),
            encoding: enc,
            root: self.root,
            opts: self.opts.clone(),
            expansions: Vec::new(),
        })
    }

    #[cold]
    fn encoding_mismatch(&self, t: &[u8]) -> Error {
        let detail = "the input made in the given encoding decodes (by its byte-order mark and declaration) to other text".to_string();
        Error::at(ErrorKind::Encoding { detail }, t, 0)
    }

    /// Takes back a document's index allocation for the next document, and
    /// drops its share of the name tables (so the next document extends them in
    /// place rather than copying them).
    pub fn recycle(&mut self, doc: Document<'_>) {
        if doc.tape.capacity() > self.tape_pool.capacity() {
            self.tape_pool = doc.tape;
        }
        drop(doc.names);
    }
}

/// Does `s` hold `<`, `&` or `]` (text that needs a close look)?
#[inline(always)]
fn special(s: &[u8]) -> bool {
    if s.len() > 32 {
        return memchr3(b'<', b'&', b']', s).is_some();
    }
    // eight bytes at a time: a byte equal to one of the three has a zero in `x ^ c`
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(LO) & !x & HI;
    let mut chunks = s.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        if zero(x ^ (LO * b'<' as u64)) | zero(x ^ (LO * b'&' as u64)) | zero(x ^ (LO * b']' as u64)) != 0 {
            return true;
        }
    }
    chunks.remainder().iter().any(|&b| matches!(b, b'<' | b'&' | b']'))
}

/// Appends `s` to `buf` (strings of up to 32 bytes as two overlapping words).
#[inline(always)]
fn put_to(buf: &mut Out, s: &[u8]) {
    buf.put(s);
}

/// Capacity kept after the written text, so that a short piece is written as
/// whole words after one capacity check.
const SLACK: usize = 32;

/// The text being written: a `Vec` whose spare capacity is always at least
/// `SLACK` bytes, so that a piece is written with one capacity check and its
/// bytes copied straight into place (no temporary word, nothing to cut back).
#[derive(Default)]
struct Out {
    v: Vec<u8>,
}

impl Out {
    #[inline(always)]
    fn len(&self) -> usize {
        self.v.len()
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, n: usize) {
        self.v.reserve((n + SLACK).max(self.v.capacity()).max(256));
    }

    /// Room for `n` more bytes of text (a producer that knows the size).
    fn reserve(&mut self, n: usize) {
        self.v.reserve(n + SLACK);
    }

    /// Appends `s`: up to 32 bytes as two overlapping words, longer by `memcpy`.
    #[inline(always)]
    #[allow(unsafe_code)]
    fn put(&mut self, s: &[u8]) {
        let n = s.len();
        if self.v.capacity() - self.v.len() < n + SLACK {
            self.grow(n);
        }
        let p = self.v.len();
        let src = s.as_ptr();
        // SAFETY: the capacity after `p` is at least `n + SLACK` (checked above),
        // so every write below, all inside `p..p + n`, is inside the allocation;
        // every read is inside `s` (the word copies read `s[..8]` and `s[n - 8..]`
        // with 8 <= n, and likewise for 4, 16 and the bytes of a short `s`); `s`
        // cannot overlap the spare capacity of `self.v`, which nothing else can
        // borrow; the bytes `p..p + n` are all written before `set_len` makes them
        // part of the vector. PERF: `binary_loop` unpack instructions (callgrind):
        // a temporary word, a capacity check per word and a cut back before.
        unsafe {
            let d = self.v.as_mut_ptr().add(p);
            if n <= 16 {
                if n >= 8 {
                    d.cast::<[u8; 8]>().write_unaligned(src.cast::<[u8; 8]>().read_unaligned());
                    d.add(n - 8).cast::<[u8; 8]>().write_unaligned(src.add(n - 8).cast::<[u8; 8]>().read_unaligned());
                } else if n >= 4 {
                    d.cast::<[u8; 4]>().write_unaligned(src.cast::<[u8; 4]>().read_unaligned());
                    d.add(n - 4).cast::<[u8; 4]>().write_unaligned(src.add(n - 4).cast::<[u8; 4]>().read_unaligned());
                } else if n > 0 {
                    *d = *src;
                    *d.add(n / 2) = *src.add(n / 2);
                    *d.add(n - 1) = *src.add(n - 1);
                }
            } else if n <= 32 {
                d.cast::<[u8; 16]>().write_unaligned(src.cast::<[u8; 16]>().read_unaligned());
                d.add(n - 16).cast::<[u8; 16]>().write_unaligned(src.add(n - 16).cast::<[u8; 16]>().read_unaligned());
            } else {
                std::ptr::copy_nonoverlapping(src, d, n);
            }
            self.v.set_len(p + n);
        }
    }

    #[inline(always)]
    fn extend_from_slice(&mut self, s: &[u8]) {
        self.put(s);
    }

    #[inline(always)]
    fn push(&mut self, b: u8) {
        if self.v.capacity() - self.v.len() < 1 + SLACK {
            self.grow(1);
        }
        self.v.push(b);
    }

    /// Replaces the last byte written.
    #[inline(always)]
    fn set_last(&mut self, b: u8) {
        if let Some(q) = self.v.last_mut() {
            *q = b;
        }
    }

    /// The bytes written.
    fn into_vec(self) -> Vec<u8> {
        self.v
    }
}

impl std::ops::Deref for Out {
    type Target = [u8];
    #[inline(always)]
    fn deref(&self) -> &[u8] {
        &self.v
    }
}

#[inline(always)]
fn all_ws(s: &[u8]) -> bool {
    s.iter().all(|&b| is_ws(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tape::RecordKind;

    /// The tape with each symbol replaced by its (qualified name, namespace).
    fn portable(d: &Document<'_>) -> Vec<(u32, String)> {
        let tape = d.tape();
        let mut out = Vec::new();
        let mut i = 0;
        while i < tape.len() {
            let kind = RecordKind::from_word(tape[i]).unwrap();
            let n = kind.words() as usize;
            let sym = matches!(kind, RecordKind::Element | RecordKind::Attribute | RecordKind::NsDecl).then(|| {
                let s = Sym::new(tape[i] & PAYLOAD_MASK);
                format!("{} {}", d.names().qname(s), d.names().ns_uri(s))
            });
            out.push((tape[i] & !PAYLOAD_MASK, sym.unwrap_or_default()));
            out.extend(tape[i + 1..i + n].iter().map(|&w| (w, String::new())));
            i += n;
        }
        out
    }

    /// Builds `<p:a xmlns:p='urn:p' x="v">` + `text` pieces + `</p:a>`.
    fn build(a: &mut Assembler, pieces: &[&[u8]], value: &[u8], quote: u8) -> Result<Document<'static>, Error> {
        let el = a.intern(b"p:a", "urn:p")?;
        let decl = a.intern(b"xmlns:p", XMLNS_NAMESPACE)?;
        let x = a.intern(b"x", "")?;
        a.begin(false);
        a.start_element(el)?;
        a.attribute(decl, b" ", b"", b"", b'\'', Piece::Bytes(b"urn:p"))?;
        a.attribute(x, b"\n ", b" ", b"", quote, Piece::Bytes(value))?;
        for p in pieces {
            a.text(Piece::Bytes(p))?;
        }
        a.end_element(b" ")?;
        a.finish(InputEncoding::Utf8)
    }

    #[test]
    fn assembled_documents_are_the_parsed_ones() {
        let mut a = Assembler::new(&ParseOptions::default());
        let d = build(&mut a, &[b"t &amp; ", b"u"], b"1", b'"').unwrap();
        let src = b"<p:a xmlns:p='urn:p'\n x =\"1\">t &amp; u</p:a >";
        assert_eq!(d.source(), src);
        let p = Document::parse(src).unwrap();
        assert_eq!(portable(&d), portable(&p));
        assert_eq!(d.root_element().text().as_deref(), Some("t & u"));
        // a reference split over two pieces is one reference
        let d = build(&mut a, &[b"&am", b"p;"], b"1", b'"').unwrap();
        assert_eq!(d.root_element().text().as_deref(), Some("&"));
        // value-table entries, comments, PIs, CDATA, the XML declaration, a prolog and epilog
        let mut a = Assembler::new(&ParseOptions::default());
        let r = a.intern(b"r", "").unwrap();
        let ws = a.add_value(b"\n");
        let v = a.add_value(b"a&lt;b");
        a.begin(true);
        a.xml_declaration(b"<?xml version='1.0' encoding='utf-8'?>").unwrap();
        a.text(Piece::Entry(ws)).unwrap();
        a.comment(b" c ").unwrap();
        a.start_element(r).unwrap();
        a.text(Piece::Entry(v)).unwrap();
        a.cdata(b"<x>]]").unwrap();
        a.pi(b"pi data?").unwrap();
        a.start_element(r).unwrap();
        a.tag_whitespace(b"  ").unwrap();
        a.empty_element_end().unwrap();
        a.end_element(b"").unwrap();
        a.text(Piece::Entry(ws)).unwrap();
        let d = a.finish(InputEncoding::Utf8Bom).unwrap();
        let src = "\u{FEFF}<?xml version='1.0' encoding='utf-8'?>\n<!-- c --><r>a&lt;b<![CDATA[<x>]]]]><?pi data??><r  /></r>\n";
        assert_eq!(d.source(), src.as_bytes());
        assert_eq!(portable(&d), portable(&Document::parse(src.as_bytes()).unwrap()));
        assert_eq!(d.xml_declaration(), Document::parse(src.as_bytes()).unwrap().xml_declaration());
    }

    #[test]
    fn utf16_and_latin1_inputs() {
        let mut a = Assembler::new(&ParseOptions::default());
        let r = a.intern(b"r", "").unwrap();
        for enc in [InputEncoding::Utf16Le { bom: true }, InputEncoding::Utf16Be { bom: true }] {
            a.begin(false);
            a.start_element(r).unwrap();
            a.text(Piece::Bytes("é€".as_bytes())).unwrap();
            a.end_element(b"").unwrap();
            let d = a.finish(enc).unwrap();
            let p = Document::parse(d.source()).unwrap();
            assert_eq!(portable(&d), portable(&p));
            assert_eq!(d.text(), p.text());
        }
        a.begin(false);
        a.xml_declaration(b"<?xml version='1.0' encoding='ISO-8859-1'?>").unwrap();
        a.start_element(r).unwrap();
        a.text(Piece::Bytes("é".as_bytes())).unwrap();
        a.end_element(b"").unwrap();
        let d = a.finish(InputEncoding::Latin1).unwrap();
        assert_eq!(d.source(), b"<?xml version='1.0' encoding='ISO-8859-1'?><r>\xE9</r>");
        // the same text as UTF-8 bytes under a Latin-1 declaration decodes to other text
        a.begin(false);
        a.xml_declaration(b"<?xml version='1.0' encoding='ISO-8859-1'?>").unwrap();
        a.start_element(r).unwrap();
        a.text(Piece::Bytes("é".as_bytes())).unwrap();
        a.end_element(b"").unwrap();
        assert!(matches!(a.finish(InputEncoding::Utf8).unwrap_err().kind(), ErrorKind::Encoding { .. }));
    }

    #[test]
    fn what_the_producer_supplies_is_checked() {
        let opts = ParseOptions::default();
        let bad_texts: [&[&[u8]]; 6] = [&[b"a<b"], &[b"]]", b">"], &[b"&foo;"], &[b"&#0;"], &[b"&am", b"p"], &[b"\x01"]];
        for pieces in bad_texts {
            let mut a = Assembler::new(&opts);
            assert!(build(&mut a, pieces, b"1", b'"').is_err(), "{pieces:?}");
        }
        for (value, quote) in [(&b"a\"b"[..], b'"'), (b"a'b", b'\''), (b"<", b'"'), (b"&x;", b'"')] {
            let mut a = Assembler::new(&opts);
            assert!(build(&mut a, &[b"t"], value, quote).is_err(), "{value:?}");
        }
        // the same checks for value-table entries
        let mut a = Assembler::new(&opts);
        let r = a.intern(b"r", "").unwrap();
        let lt = a.add_value(b"<");
        a.begin(false);
        a.start_element(r).unwrap();
        a.text(Piece::Entry(lt)).unwrap();
        assert!(a.end_element(b"").is_err());
        // names, namespaces, structure
        let mut a = Assembler::new(&opts);
        assert!(a.intern(b"1a", "").is_err());
        assert!(a.intern(b"a:b:c", "").is_err());
        let wrong = a.intern(b"p:a", "urn:q").unwrap();
        let decl = a.intern(b"xmlns:p", XMLNS_NAMESPACE).unwrap();
        let undeclared = a.intern(b"q:a", "urn:q").unwrap();
        let r = a.intern(b"r", "").unwrap();
        let x = a.intern(b"x", "").unwrap();
        a.begin(false);
        a.start_element(wrong).unwrap();
        a.attribute(decl, b" ", b"", b"", b'"', Piece::Bytes(b"urn:p")).unwrap();
        assert!(a.empty_element_end().is_err());
        a.begin(false);
        a.start_element(undeclared).unwrap();
        assert!(a.empty_element_end().is_err());
        a.begin(false);
        a.start_element(r).unwrap();
        a.attribute(x, b" ", b"", b"", b'"', Piece::Bytes(b"1")).unwrap();
        a.attribute(x, b" ", b"", b"", b'"', Piece::Bytes(b"2")).unwrap();
        assert!(matches!(a.empty_element_end().unwrap_err().kind(), ErrorKind::DuplicateAttribute { .. }));
        a.begin(false);
        a.start_element(r).unwrap();
        assert!(a.attribute(x, b"", b"", b"", b'"', Piece::Bytes(b"1")).is_err());
        assert!(a.attribute(x, b"x", b"", b"", b'"', Piece::Bytes(b"1")).is_err());
        a.begin(false);
        a.text(Piece::Bytes(b" ")).unwrap();
        assert!(a.xml_declaration(b"<?xml version='1.0'?>").is_err());
        a.begin(false);
        a.start_element(r).unwrap();
        a.empty_element_end().unwrap();
        assert!(a.start_element(r).is_err());
        a.begin(false);
        assert!(a.cdata(b"x").is_err());
        a.begin(false);
        a.text(Piece::Bytes(b"x")).unwrap();
        assert!(a.start_element(r).is_err());
        for body in [&b"a--b"[..], b"a-"] {
            a.begin(false);
            assert!(a.comment(body).is_err());
        }
        for body in [&b"xml x"[..], b"a?>b", b"", b"a:b", b"a\x01"] {
            a.begin(false);
            let r1 = a.pi(body);
            let r2 = r1.and_then(|_| {
                a.start_element(r)?;
                a.empty_element_end()?;
                a.finish(InputEncoding::Utf8).map(|_| ())
            });
            assert!(r2.is_err(), "{body:?}");
        }
        // a document left open, no root
        a.begin(false);
        a.start_element(r).unwrap();
        assert!(a.finish(InputEncoding::Utf8).is_err());
        a.begin(false);
        assert!(a.finish(InputEncoding::Utf8).is_err());
        // limits
        let mut opts = ParseOptions::default();
        opts.limits.max_depth = 2;
        opts.limits.max_name_len = 3;
        let mut a = Assembler::new(&opts);
        assert!(a.intern(b"long", "").is_err());
        let r = a.intern(b"r", "").unwrap();
        a.begin(false);
        a.start_element(r).unwrap();
        a.start_element(r).unwrap();
        assert!(matches!(a.start_element(r).unwrap_err().kind(), ErrorKind::LimitExceeded { limit: LimitKind::Depth, .. }));
    }

    /// A declaration whose value is given as an interned namespace name writes what
    /// `attribute` writes, and is refused where Namespaces in XML 1.0 section 3
    /// refuses it (the parser, on the same text, is the reference).
    #[test]
    fn namespace_values_are_the_attribute_bytes() {
        let cases: [(&[u8], &str, u8); 9] = [
            (b"xmlns:p", "urn:p", b'"'),
            (b"xmlns", "urn:d", b'"'),
            (b"xmlns:p", "urn:p", b'\''),
            (b"xmlns:xml", XML_NAMESPACE, b'"'),
            (b"xmlns:xml", "urn:other", b'"'),
            (b"xmlns:p", XML_NAMESPACE, b'"'),
            (b"xmlns:p", XMLNS_NAMESPACE, b'"'),
            (b"xmlns:xmlns", "urn:p", b'"'),
            (b"xmlns:p", "", b'"'),
        ];
        for (name, uri, quote) in cases {
            let mut a = Assembler::new(&ParseOptions::default());
            // a default declaration puts `r` in its namespace
            let r = a.intern(b"r", if name == b"xmlns" { uri } else { "" }).unwrap();
            let decl = a.intern(name, XMLNS_NAMESPACE).unwrap();
            let id = a.intern_namespace(uri);
            a.begin(false);
            a.start_element(r).unwrap();
            let d = a
                .attribute_ns_value(decl, b" ", b"", b"", quote, id)
                .and_then(|_| a.empty_element_end())
                .and_then(|_| a.finish(InputEncoding::Utf8));
            let q = quote as char;
            let src = format!("<r {}={q}{uri}{q}/>", std::str::from_utf8(name).unwrap());
            match Document::parse(src.as_bytes()) {
                Ok(p) => {
                    let d = d.unwrap_or_else(|e| panic!("{src}: {e}"));
                    assert_eq!(d.source(), src.as_bytes());
                    assert_eq!(portable(&d), portable(&p));
                }
                Err(_) => assert!(d.is_err(), "{src} was accepted"),
            }
        }
        // a namespace name with characters a value must escape or normalize
        let mut a = Assembler::new(&ParseOptions::default());
        let r = a.intern(b"r", "").unwrap();
        let decl = a.intern(b"xmlns:p", XMLNS_NAMESPACE).unwrap();
        let id = a.intern_namespace("urn:a\"b");
        a.begin(false);
        a.start_element(r).unwrap();
        assert!(a.attribute_ns_value(decl, b" ", b"", b"", b'"', id).and_then(|_| a.empty_element_end()).is_err());
    }

    #[test]
    fn leaf_elements_are_the_three_steps() {
        let mut a = Assembler::new(&ParseOptions::default());
        let r = a.intern(b"r", "").unwrap();
        let pl = a.intern(b"p:l", "urn:p").unwrap();
        let wrong = a.intern(b"p:l", "urn:q").unwrap();
        let decl = a.intern(b"xmlns:p", XMLNS_NAMESPACE).unwrap();
        let l = a.intern(b"l", "").unwrap();
        let v = a.add_value(b"a&amp;b");
        a.begin(false);
        a.start_element(r).unwrap();
        a.attribute(decl, b" ", b"", b"", b'"', Piece::Bytes(b"urn:p")).unwrap();
        a.leaf_element(l, Piece::Bytes(b"x")).unwrap();
        a.leaf_element(pl, Piece::Entry(v)).unwrap();
        a.text(Piece::Bytes(b"\n")).unwrap();
        a.leaf_element(l, Piece::Bytes(b"")).unwrap();
        a.end_element(b"").unwrap();
        let d = a.finish(InputEncoding::Utf8).unwrap();
        let src = b"<r xmlns:p=\"urn:p\"><l>x</l><p:l>a&amp;b</p:l>\n<l></l></r>";
        assert_eq!(d.source(), src);
        assert_eq!(portable(&d), portable(&Document::parse(src).unwrap()));
        // as the root element
        a.begin(false);
        a.leaf_element(l, Piece::Bytes(b"t")).unwrap();
        let d = a.finish(InputEncoding::Utf8).unwrap();
        assert_eq!(portable(&d), portable(&Document::parse(b"<l>t</l>").unwrap()));
        // what the producer supplies is checked
        for bad in [&b"a<b"[..], b"]]>", b"&x;", b"&#0;", b"&amp"] {
            a.begin(false);
            a.start_element(r).unwrap();
            let res = a.leaf_element(l, Piece::Bytes(bad)).and_then(|_| a.end_element(b"")).and_then(|_| a.finish(InputEncoding::Utf8));
            assert!(res.is_err(), "{bad:?}");
        }
        a.begin(false);
        a.start_element(r).unwrap();
        a.attribute(decl, b" ", b"", b"", b'"', Piece::Bytes(b"urn:p")).unwrap();
        assert!(a.leaf_element(wrong, Piece::Bytes(b"x")).is_err());
        let mut opts = ParseOptions::default();
        opts.limits.max_depth = 1;
        let mut a = Assembler::new(&opts);
        let r = a.intern(b"r", "").unwrap();
        a.begin(false);
        a.start_element(r).unwrap();
        let e = a.leaf_element(r, Piece::Bytes(b"x")).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::LimitExceeded { limit: LimitKind::Depth, .. }), "{e}");
    }

    #[test]
    fn a_doctype_hands_the_document_to_the_parser() {
        let mut a = Assembler::new(&ParseOptions::default());
        let r = a.intern(b"r", "").unwrap();
        a.begin(false);
        a.doctype(b"<!DOCTYPE r [<!ENTITY e 'x'>]>").unwrap();
        a.start_element(r).unwrap();
        a.text(Piece::Bytes(b"&e;")).unwrap();
        a.end_element(b"").unwrap();
        let d = a.finish(InputEncoding::Utf8).unwrap();
        assert_eq!(d.root_element().text().as_deref(), Some("x"));
    }
}
