//! Building a [`Document`] from parts made elsewhere — the input bytes, a token
//! index over them and the name tables — instead of by the parser: what a binary
//! decoder (`vtdx-binary`) or a cache of document skeletons produces.
//!
//! [`Document::assemble`] checks the parts against each other so that the result
//! is a document the parser could have made from the same bytes: a hostile or
//! damaged index is refused with an [`Error`], never turned into a document that
//! breaks the invariants the rest of the library relies on. What it checks, and
//! what it leaves out, is listed on [`Document::assemble`] and in
//! `docs/index-format.md` ("Documents from parts").

mod build;

use std::collections::HashMap;
use std::sync::Arc;

use memchr::{memchr, memchr3};

use crate::chars::{is_ws, scan_name, skip_ws};
use crate::document::{Bytes, Document, Text};
use crate::error::{snippet, Error, ErrorKind, LimitKind};
use crate::index::*;
use crate::input;
use crate::names::{Names, NsId, Sym, NS_NONE, NS_XML, NS_XMLNS, XMLNS_NAMESPACE, XML_NAMESPACE};
use crate::options::ParseOptions;
use crate::parser::{is_qname, DeclSpans};

pub use build::{Assembler, InputEncoding, Piece};

impl Names {
    /// Interns the qualified name `qname` (as written, `p:local` or `local`) in the
    /// namespace `uri` (`""` for none) and returns its symbol: how a producer other
    /// than the parser builds the tables a [`Document::assemble`]d index refers to.
    /// Interning the same pair again returns the same symbol.
    ///
    /// Errors: `qname` is not an XML 1.0 `Name` ([`ErrorKind::InvalidName`]; the
    /// stricter `QName` and namespace checks are [`Document::assemble`]'s), or
    /// the tables already hold 2^27 symbols ([`LimitKind::IndexCapacity`]).
    ///
    /// ```
    /// let mut names = vtdx_core::Names::default();
    /// let s = names.try_intern("p:item", "urn:x").unwrap();
    /// assert_eq!((names.local(s), names.ns_uri(s)), ("item", "urn:x"));
    /// assert_eq!(names.try_intern("p:item", "urn:x").unwrap(), s);
    /// assert!(names.try_intern("1bad", "").is_err());
    /// ```
    pub fn try_intern(&mut self, qname: &str, uri: &str) -> Result<Sym, Error> {
        if !crate::chars::is_name(qname.as_bytes()) {
            return Err(Error::at(ErrorKind::InvalidName { name: snippet(qname.as_bytes(), 60) }, &[], 0));
        }
        let q = self.intern_qname(qname.as_bytes());
        let ns = if uri.is_empty() { NS_NONE } else { self.intern_ns(uri) };
        self.sym(q, ns).ok_or_else(|| {
            let max = crate::names::MAX_SYMS as u64;
            Error::at(ErrorKind::LimitExceeded { limit: LimitKind::IndexCapacity, value: max, max }, &[], 0)
        })
    }
}

impl Names {
    /// Interns the namespace name `uri` and returns its id (`""` is
    /// [`NS_NONE`](crate::NS_NONE)): for a producer that knows the namespace names a
    /// document declares, so that [`Document::assemble`] finds them all interned
    /// and need not copy shared tables to add one.
    pub fn intern_namespace(&mut self, uri: &str) -> NsId {
        if uri.is_empty() {
            NS_NONE
        } else {
            self.intern_ns(uri)
        }
    }
}

/// A mismatch between the index and the text.
#[cold]
#[inline(never)]
fn bad(t: &[u8], at: usize, detail: String) -> Error {
    Error::at(ErrorKind::Syntax { detail: format!("the token index does not match the text: {detail}") }, t, at)
}

#[cold]
#[inline(never)]
fn err(kind: ErrorKind, t: &[u8], at: usize) -> Error {
    Error::at(kind, t, at)
}

#[cold]
#[inline(never)]
fn syntax(t: &[u8], at: usize, detail: &str) -> Error {
    Error::at(ErrorKind::Syntax { detail: detail.to_string() }, t, at)
}

/// Byte classes for the short-span scans: `<`, `&`, `]` in character data; `"`, `'` quotes.
const C_LT: u8 = 1;
const C_AMP: u8 = 2;
const C_RSQB: u8 = 4;
const C_DQ: u8 = 8;
const C_SQ: u8 = 16;
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'<' as usize] = C_LT;
    t[b'&' as usize] = C_AMP;
    t[b']' as usize] = C_RSQB;
    t[b'"' as usize] = C_DQ;
    t[b'\'' as usize] = C_SQ;
    t
};

/// The first byte of `s` whose class is in `mask`: a plain loop over short spans
/// (most gaps and values), `memchr` past 32 bytes.
#[inline(always)]
fn find_class(s: &[u8], mask: u8, a: u8, b: u8, c: u8) -> Option<usize> {
    if s.len() <= 32 {
        return s.iter().position(|&x| CLASS[x as usize] & mask != 0);
    }
    memchr3(a, b, c, s)
}

/// One open element of the walk.
struct Open {
    rec: u32,
    sym: Sym,
    bindings: usize,
}

/// One attribute of the start tag being checked.
#[derive(Clone, Copy)]
struct Att {
    sym: Sym,
    name_at: usize,
    is_decl: bool,
}

/// The walk's state.
struct Check<'a> {
    t: &'a [u8],
    tape: &'a [u32],
    names: &'a Names,
    opts: &'a ParseOptions,
    /// Per qualified-name id: 0 not yet checked, 1 checked.
    qname_checked: Vec<u8>,
    /// (prefix, namespace) of the declarations in scope, innermost last.
    bindings: Vec<(&'a str, NsId)>,
    /// Namespace names declared but not interned: their ids follow the interned ones.
    extra_ns: Vec<Vec<u8>>,
    atts: Vec<Att>,
    budget: crate::dtd::ExpansionBudget,
}

impl Document<'static> {
    /// A document from parts made elsewhere: `source`, the input bytes exactly as
    /// [`Document::parse`] would take them (any encoding the parser reads, with its
    /// byte-order mark); `tape`, a token index over the decoded text in the layout of
    /// `docs/index-format.md`; `names`, the tables its symbols index (built with
    /// [`Names::try_intern`], or a parsed document's); `options`, the limits and the
    /// namespace setting to check against (and to record as
    /// [`Document::options`]).
    ///
    /// Nothing is scanned for markup that the index does not say is there: the
    /// parts are **checked against each other**, in one pass over the index and the
    /// text, so that the result is the document the parser would have made of
    /// `source` (the same index, up to the symbol numbering of `names`), or an error:
    ///
    /// * the input: encoding detection, transcoding, UTF-8 and `Char` validity, as
    ///   [`Document::parse`] does them, and the document size limit;
    /// * the index: records of known kinds that tile the tape, in document order,
    ///   with every offset inside the text, every [`NEXT`](crate::tape::NEXT),
    ///   [`PARENT`](crate::tape::PARENT) and end offset equal to what the text says,
    ///   and every symbol inside `names`;
    /// * the markup each record points at: the XML declaration, start tags (each
    ///   attribute record at its name, `=`, a quoted value without `<`, whitespace
    ///   between), end tags naming their element, comments, processing
    ///   instructions and CDATA sections, each with the terminators and forbidden
    ///   sequences of its production; between records, only character data
    ///   (no `<`, no `]]>`, well-formed character and predefined entity references)
    ///   and, outside the document element, only whitespace;
    /// * names and namespaces: `Name` (and, with namespaces on, `QName`) syntax,
    ///   the name-length, depth and attribute limits, attribute uniqueness by
    ///   qualified and expanded name, the reserved prefixes and namespace names,
    ///   and each record's symbol equal to its qualified name as written with the
    ///   namespace its in-scope declarations give it.
    ///
    /// Documents with a document type declaration are refused
    /// ([`ErrorKind::Dtd`]): what their declarations imply (entities, defaulted
    /// attributes, normalization) is the parser's to work out, so parse them.
    /// The namespace names the document declares but no symbol uses are added to
    /// `names` (a copy, when it is shared).
    ///
    /// ```
    /// use vtdx_core::Document;
    ///
    /// let parsed = Document::parse(b"<a x='1'><b/>text</a>")?;
    /// let names = std::sync::Arc::new(parsed.names().clone());
    /// let doc = Document::assemble(parsed.source().to_vec(), parsed.tape().to_vec(), names, &Default::default())?;
    /// assert_eq!(doc.root_element().first_element_child().unwrap().name(), "b");
    ///
    /// // the same index over other bytes is refused
    /// let names = std::sync::Arc::new(parsed.names().clone());
    /// assert!(Document::assemble(b"<a x='1'><c/>text</a>".to_vec(), parsed.tape().to_vec(), names, &Default::default()).is_err());
    /// # Ok::<(), vtdx_core::Error>(())
    /// ```
    pub fn assemble(source: Vec<u8>, tape: Vec<u32>, names: Arc<Names>, options: &ParseOptions) -> Result<Document<'static>, Error> {
        let decoded = input::decode(&source)?;
        let encoding = decoded.encoding.clone();
        let (owned, bom) = match decoded.text {
            std::borrow::Cow::Borrowed(_) => (None, decoded.bom_len),
            std::borrow::Cow::Owned(v) => (Some(v), decoded.bom_len),
        };
        let t: &[u8] = match &owned {
            Some(v) => v,
            None => &source[bom..],
        };
        let limits = &options.limits;
        if t.len() as u64 > limits.max_document_size || t.len() > u32::MAX as usize - 1 {
            let max = limits.max_document_size.min(u32::MAX as u64 - 1);
            return Err(err(ErrorKind::LimitExceeded { limit: LimitKind::DocumentSize, value: t.len() as u64, max }, t, 0));
        }
        if tape.len() >= MAX_TAPE_WORDS {
            let max = MAX_TAPE_WORDS as u64;
            return Err(err(ErrorKind::LimitExceeded { limit: LimitKind::IndexCapacity, value: tape.len() as u64, max }, t, 0));
        }
        let mut c = Check {
            t,
            tape: &tape,
            names: &names,
            opts: options,
            qname_checked: vec![0; names.qnames.len()],
            bindings: Vec::new(),
            extra_ns: Vec::new(),
            atts: Vec::new(),
            budget: crate::dtd::ExpansionBudget::new(options, t.len()),
        };
        let (decl, root) = c.document()?;
        let extra = std::mem::take(&mut c.extra_ns);
        drop(c);
        let mut names = names;
        if !extra.is_empty() {
            let n = Arc::make_mut(&mut names);
            for u in &extra {
                n.intern_ns_bytes(u);
            }
        }
        let text = match owned {
            Some(v) => Text::Owned(v),
            None => Text::Source(bom),
        };
        Ok(Document {
            source: Bytes::Owned(source),
            text,
            tape,
            names,
            dtd: None,
            decl,
            decl_read: std::sync::OnceLock::new(),
            encoding,
            root,
            opts: options.clone(),
            expansions: Vec::new(),
        })
    }
}

impl<'a> Check<'a> {
    #[inline(always)]
    fn word(&self, i: usize) -> Option<u32> {
        self.tape.get(i).copied()
    }

    fn document(&mut self) -> Result<(Option<DeclSpans>, u32), Error> {
        let t = self.t;
        let mut pos = 0;
        let mut decl = None;
        if t.starts_with(b"<?xml") && t.get(5).is_some_and(|&b| is_ws(b) || b == b'?') {
            let d = crate::parser::Run::xml_decl(t)?.0;
            pos = d.end as usize;
            decl = Some(d);
        }
        let mut r = 0usize;
        // prolog
        loop {
            pos = skip_ws(t, pos);
            if pos >= t.len() {
                return Err(err(ErrorKind::UnexpectedEof { expected: "the root element" }, t, pos));
            }
            if t[pos] != b'<' {
                return Err(syntax(t, pos, "expected markup (`<`) before the root element"));
            }
            match t.get(pos + 1) {
                Some(b'?') | Some(b'!') if !t[pos..].starts_with(b"<!DOCTYPE") => {
                    (pos, r) = self.leaf(pos, r, NONE)?;
                }
                Some(b'!') => {
                    return Err(err(
                        ErrorKind::Dtd { detail: "a document with a document type declaration cannot be assembled; parse it".into() },
                        t,
                        pos,
                    ))
                }
                _ => break,
            }
        }
        let root = r as u32;
        (pos, r) = self.element_tree(pos, r)?;
        // epilog
        loop {
            pos = skip_ws(t, pos);
            if pos >= t.len() {
                break;
            }
            if t[pos] != b'<' || !matches!(t.get(pos + 1), Some(b'?' | b'!')) {
                return Err(syntax(t, pos, "only comments, processing instructions or whitespace may follow the root element"));
            }
            (pos, r) = self.leaf(pos, r, NONE)?;
        }
        if r != self.tape.len() {
            return Err(bad(t, t.len(), format!("records from word {r} on describe nothing in the text")));
        }
        Ok((decl, root))
    }

    /// The comment, PI or CDATA section at `pos` (its `<`), which must be record `r`
    /// with parent `parent`. Returns the offset after it and the next record.
    fn leaf(&mut self, pos: usize, r: usize, parent: u32) -> Result<(usize, usize), Error> {
        let t = self.t;
        let (Some(w0), Some(start), Some(end), Some(par)) = (self.word(r), self.word(r + 1), self.word(r + 2), self.word(r + 3)) else {
            return Err(bad(t, pos, format!("no record for the markup at byte {pos}")));
        };
        let kind = kind_of(w0);
        let end = end as usize;
        if start as usize != pos || par != parent || w0 & PAYLOAD_MASK != 0 || end > t.len() || end < pos {
            return Err(bad(t, pos, format!("record at word {r} is not the markup at byte {pos}")));
        }
        let b = &t[pos..end];
        let ok = match kind {
            K_COMMENT => {
                if !b.starts_with(b"<!--") || !b.ends_with(b"-->") || b.len() < 7 {
                    false
                } else {
                    let body = &b[4..b.len() - 3];
                    if let Some(i) = memchr::memmem::find(body, b"--") {
                        return Err(syntax(t, pos + 4 + i, "`--` is not allowed inside a comment"));
                    }
                    !body.ends_with(b"-")
                }
            }
            K_PI => {
                if !b.starts_with(b"<?") || !b.ends_with(b"?>") || b.len() < 5 {
                    false
                } else {
                    let ne = scan_name(t, pos + 2).ok_or_else(|| syntax(t, pos + 2, "expected a processing instruction target"))?;
                    let target = &t[pos + 2..ne];
                    if target.eq_ignore_ascii_case(b"xml") {
                        return Err(syntax(t, pos, "the processing instruction target `xml` is reserved"));
                    }
                    if self.opts.namespaces && memchr(b':', target).is_some() {
                        return Err(err(ErrorKind::InvalidName { name: snippet(target, 40) }, t, pos + 2));
                    }
                    self.name_len(pos + 2, ne)?;
                    if ne == end - 2 {
                        true
                    } else if ne > end - 2 || !is_ws(t[ne]) {
                        false
                    } else {
                        memchr::memmem::find(&t[ne..end], b"?>") == Some(end - 2 - ne)
                    }
                }
            }
            K_CDATA if parent != NONE => {
                b.starts_with(b"<![CDATA[") && b.len() >= 12 && memchr::memmem::find(&b[9..], b"]]>") == Some(b.len() - 12)
            }
            _ => false,
        };
        if !ok {
            return Err(bad(t, pos, format!("record at word {r} does not match the markup `{}`", snippet(b, 30))));
        }
        Ok((end, r + LEAF_WORDS as usize))
    }

    #[inline]
    fn name_len(&self, s: usize, e: usize) -> Result<(), Error> {
        let max = self.opts.limits.max_name_len;
        if (e - s) as u64 > max as u64 {
            return Err(err(ErrorKind::LimitExceeded { limit: LimitKind::NameLength, value: (e - s) as u64, max: max as u64 }, self.t, s));
        }
        Ok(())
    }

    /// The symbol of word 0 `w0` of a record at `at`, checked against the tables,
    /// and its qualified name checked once.
    #[inline(always)]
    fn sym_of(&mut self, w0: u32, at: usize) -> Result<(Sym, &'a str), Error> {
        let s = w0 & PAYLOAD_MASK;
        let names = self.names;
        let Some(info) = names.syms.get(s as usize) else {
            return Err(bad(self.t, at, format!("symbol {s} is not in the name tables")));
        };
        let q = info.qname.index();
        let qname = names.qname_text(info.qname);
        if self.qname_checked.get(q) != Some(&1) {
            self.check_qname(q, qname, at)?;
        }
        Ok((Sym::new(s), qname))
    }

    #[cold]
    fn check_qname(&mut self, q: usize, qname: &str, at: usize) -> Result<(), Error> {
        let b = qname.as_bytes();
        if !crate::chars::is_name(b) || (self.opts.namespaces && !is_qname(b)) {
            return Err(err(ErrorKind::InvalidName { name: snippet(b, 60) }, self.t, at));
        }
        self.name_len(at, at + b.len())?;
        if let Some(c) = self.qname_checked.get_mut(q) {
            *c = 1;
        }
        Ok(())
    }

    /// Character data `t[from..to]`: no `<`, no `]]>`, well-formed references.
    #[inline]
    fn char_data(&mut self, from: usize, to: usize) -> Result<(), Error> {
        let t = self.t;
        let mut p = from;
        while let Some(i) = find_class(&t[p..to], C_LT | C_AMP | C_RSQB, b'<', b'&', b']') {
            let at = p + i;
            match t[at] {
                b'<' => return Err(bad(t, at, format!("markup at byte {at} has no record"))),
                b'&' => p = self.reference(at, to)?,
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

    /// The reference at `at` (`&`), ending before `to`; returns the offset after `;`.
    fn reference(&mut self, at: usize, to: usize) -> Result<usize, Error> {
        let t = self.t;
        if t.get(at + 1) == Some(&b'#') {
            let (_, e) = crate::parser::char_ref(&t[..to], at)?;
            return Ok(e);
        }
        let ne = match scan_name(&t[..to], at + 1) {
            Some(e) => e,
            None => return Err(syntax(t, at + 1, "expected an entity name or `#` after `&`")),
        };
        if t.get(ne) != Some(&b';') || ne >= to {
            return Err(syntax(t, ne, "expected `;` ending the entity reference"));
        }
        let name = std::str::from_utf8(&t[at + 1..ne]).unwrap_or("");
        if crate::xml::predefined_entity(name).is_none() {
            return Err(err(ErrorKind::UndeclaredEntity { name: name.into() }, t, at));
        }
        Ok(ne + 1)
    }

    /// The document element at `pos`, record `r`, and everything inside it.
    fn element_tree(&mut self, pos: usize, r: usize) -> Result<(usize, usize), Error> {
        let t = self.t;
        let mut stack: Vec<Open> = Vec::new();
        let (mut pos, mut r) = self.start_tag(pos, r, NONE, &mut stack)?;
        while let Some(top) = stack.last() {
            let top_rec = top.rec;
            // character data up to the next markup
            let Some(lt) = find_class(&t[pos..], C_LT, b'<', b'<', b'<').map(|i| pos + i) else {
                return Err(err(ErrorKind::UnclosedElement { name: self.names.qname(top.sym).into() }, t, t.len()));
            };
            if lt > pos {
                self.char_data(pos, lt)?;
            }
            pos = lt;
            match t.get(pos + 1) {
                Some(b'/') => {
                    let open = stack.pop().unwrap_or(Open { rec: 0, sym: Sym::new(0), bindings: 0 });
                    let q = self.names.qname(open.sym).as_bytes();
                    let ne = pos + 2 + q.len();
                    if t.get(pos + 2..ne) != Some(q) {
                        let fe = scan_name(t, pos + 2).unwrap_or(pos + 2);
                        return Err(err(
                            ErrorKind::MismatchedEndTag { expected: snippet(q, 60), found: snippet(&t[pos + 2..fe], 60) },
                            t,
                            pos,
                        ));
                    }
                    let p = skip_ws(t, ne);
                    if t.get(p) != Some(&b'>') {
                        return Err(syntax(t, p, "expected `>` closing the end tag"));
                    }
                    pos = p + 1;
                    self.close(open.rec as usize, r, pos)?;
                    self.bindings.truncate(open.bindings);
                }
                Some(b'?' | b'!') => {
                    (pos, r) = self.leaf(pos, r, top_rec)?;
                }
                _ => {
                    (pos, r) = self.start_tag(pos, r, top_rec, &mut stack)?;
                }
            }
        }
        Ok((pos, r))
    }

    /// Checks the element record `rec`'s *next* (`next`) and end offset (`end`).
    #[inline(always)]
    fn close(&self, rec: usize, next: usize, end: usize) -> Result<(), Error> {
        if self.word(rec + 2) != Some(next as u32) || self.word(rec + 4) != Some(end as u32) {
            return Err(bad(self.t, end, format!("element record at word {rec}: its next or end field is not where the element ends")));
        }
        Ok(())
    }

    /// The start tag at `pos`, record `r`, child of `parent`. Pushes the element
    /// onto `stack` unless it is an empty-element tag. Returns the offset after the
    /// tag and the next record.
    fn start_tag(&mut self, pos: usize, r: usize, parent: u32, stack: &mut Vec<Open>) -> Result<(usize, usize), Error> {
        let t = self.t;
        let (Some(w0), Some(start), Some(par)) = (self.word(r), self.word(r + 1), self.word(r + 3)) else {
            return Err(bad(t, pos, format!("no element record for the start tag at byte {pos}")));
        };
        if kind_of(w0) != K_ELEM || start as usize != pos || par != parent || r + ELEM_WORDS as usize > self.tape.len() {
            return Err(bad(t, pos, format!("record at word {r} is not the start tag at byte {pos}")));
        }
        if stack.len() as u64 >= self.opts.limits.max_depth as u64 {
            let max = self.opts.limits.max_depth as u64;
            return Err(err(ErrorKind::LimitExceeded { limit: LimitKind::Depth, value: stack.len() as u64 + 1, max }, t, pos));
        }
        let (sym, qname) = self.sym_of(w0, pos + 1)?;
        let mut p = pos + 1 + qname.len();
        if t.get(pos + 1..p) != Some(qname.as_bytes()) {
            return Err(bad(t, pos, format!("element record at word {r} names `{qname}`, the text does not")));
        }
        // the name ends there
        match t.get(p) {
            Some(&b) if is_ws(b) || b == b'>' || b == b'/' => {}
            _ => return Err(bad(t, p, format!("element record at word {r}: the name in the text is longer than `{qname}`"))),
        }
        let mut j = r + ELEM_WORDS as usize;
        self.atts.clear();
        let mut ns_work = false;
        let empty;
        loop {
            let ws = p;
            p = skip_ws(t, p);
            match t.get(p) {
                Some(b'>') => {
                    p += 1;
                    empty = false;
                    break;
                }
                Some(b'/') if t.get(p + 1) == Some(&b'>') => {
                    p += 2;
                    empty = true;
                    break;
                }
                None => return Err(err(ErrorKind::UnexpectedEof { expected: "`>` closing the start tag" }, t, p)),
                _ => {}
            }
            if p == ws {
                return Err(syntax(t, p, "expected whitespace, `>` or `/>` in the start tag"));
            }
            let (Some(a0), Some(astart)) = (self.word(j), self.word(j + 1)) else {
                return Err(bad(t, p, format!("no attribute record for the attribute at byte {p}")));
            };
            let ak = kind_of(a0);
            if !(ak == K_ATTR || ak == K_NSDECL) || astart as usize != p {
                return Err(bad(t, p, format!("record at word {j} is not the attribute at byte {p}")));
            }
            if self.atts.len() as u64 >= self.opts.limits.max_attributes as u64 {
                let max = self.opts.limits.max_attributes as u64;
                return Err(err(ErrorKind::LimitExceeded { limit: LimitKind::Attributes, value: self.atts.len() as u64 + 1, max }, t, p));
            }
            let (asym, aname) = self.sym_of(a0, p)?;
            let ae = p + aname.len();
            if t.get(p..ae) != Some(aname.as_bytes()) {
                return Err(bad(t, p, format!("attribute record at word {j} names `{aname}`, the text does not")));
            }
            let mut q = skip_ws(t, ae);
            if t.get(q) != Some(&b'=') {
                return Err(bad(t, q, format!("attribute record at word {j}: expected `=` after `{aname}`")));
            }
            q = skip_ws(t, q + 1);
            let quote = match t.get(q) {
                Some(&c @ (b'"' | b'\'')) => c,
                _ => return Err(syntax(t, q, "expected a quoted attribute value")),
            };
            let vs = q + 1;
            let qc = if quote == b'"' { C_DQ } else { C_SQ };
            // the closing quote, checking each `<` and `&` before it
            let mut ve = vs;
            loop {
                let Some(i) = find_class(&t[ve..], qc | C_LT | C_AMP, quote, b'<', b'&') else {
                    return Err(err(ErrorKind::UnexpectedEof { expected: "the closing quote of the attribute value" }, t, vs));
                };
                ve += i;
                match t[ve] {
                    b'<' => return Err(syntax(t, ve, "`<` is not allowed in an attribute value")),
                    b'&' => {
                        let close = memchr(quote, &t[ve..]).map_or(t.len(), |k| ve + k);
                        ve = self.reference(ve, close)?;
                    }
                    _ => break,
                }
            }
            let is_decl = self.opts.namespaces && (aname == "xmlns" || aname.starts_with("xmlns:"));
            if (ak == K_NSDECL) != is_decl {
                return Err(bad(t, p, format!("record at word {j}: `{aname}` has the wrong record kind")));
            }
            ns_work |= is_decl || aname.contains(':');
            if is_decl {
                self.declare(aname, vs, ve, p)?;
            }
            self.atts.push(Att { sym: asym, name_at: p, is_decl });
            p = ve + 1;
            j += ATTR_WORDS as usize;
        }
        // namespaces
        let names = self.names;
        if self.opts.namespaces {
            let ens = if self.bindings.is_empty() && !ns_work && !qname.contains(':') {
                NS_NONE
            } else {
                self.resolve(names.prefix(sym), true, pos + 1)?
            };
            if names.ns_id(sym) != ens {
                return Err(bad(t, pos, format!("element record at word {r}: `{qname}` has the wrong namespace")));
            }
            for k in 0..self.atts.len() {
                let a = self.atts[k];
                let want = if a.is_decl {
                    NS_XMLNS
                } else if !names.qname(a.sym).contains(':') {
                    NS_NONE
                } else {
                    self.resolve(names.prefix(a.sym), false, a.name_at)?
                };
                if names.ns_id(a.sym) != want {
                    return Err(bad(t, a.name_at, format!("attribute `{}` has the wrong namespace", names.qname(a.sym))));
                }
            }
        } else if names.ns_id(sym) != NS_NONE || self.atts.iter().any(|a| names.ns_id(a.sym) != NS_NONE) {
            return Err(bad(t, pos, format!("element record at word {r}: a namespace without namespace processing")));
        }
        if self.atts.len() > 1 {
            self.unique()?;
        }
        // the element's own record, then its attribute records: no defaulted ones
        let bindings_before = self.bindings.len() - self.atts.iter().filter(|a| a.is_decl).count();
        if empty {
            self.close(r, j, p)?;
            self.bindings.truncate(bindings_before);
        } else {
            stack.push(Open { rec: r as u32, sym, bindings: bindings_before });
        }
        Ok((p, j))
    }

    /// A namespace declaration `aname` with the value `t[vs..ve]`, written at `at`.
    fn declare(&mut self, aname: &'a str, vs: usize, ve: usize, at: usize) -> Result<(), Error> {
        let t = self.t;
        let raw = &t[vs..ve];
        let uri: std::borrow::Cow<'_, [u8]> = if memchr3(b'&', b'\t', b'\n', raw).is_some() || memchr(b'\r', raw).is_some() {
            let s = std::str::from_utf8(raw).unwrap_or("");
            let v = crate::dtd::normalize_attribute_value(s, t, vs, None, true, &mut self.budget, 0)?;
            std::borrow::Cow::Owned(v.into_owned().into_bytes())
        } else {
            std::borrow::Cow::Borrowed(raw)
        };
        let prefix: &'a str = if aname == "xmlns" { "" } else { &aname[6..] };
        let problem = if prefix == "xmlns" {
            Some("the prefix `xmlns` must not be declared".to_string())
        } else if prefix == "xml" && *uri != *XML_NAMESPACE.as_bytes() {
            Some(format!("the prefix `xml` can only be bound to `{XML_NAMESPACE}`"))
        } else if prefix != "xml" && *uri == *XML_NAMESPACE.as_bytes() {
            Some(format!("`{XML_NAMESPACE}` can only be bound to the prefix `xml`"))
        } else if *uri == *XMLNS_NAMESPACE.as_bytes() {
            Some(format!("`{XMLNS_NAMESPACE}` must not be declared"))
        } else if !prefix.is_empty() && uri.is_empty() {
            Some(format!("the prefix `{prefix}` cannot be undeclared (empty namespace name) in XML 1.0"))
        } else {
            None
        };
        if let Some(detail) = problem {
            return Err(err(ErrorKind::ReservedNamespace { detail }, t, at));
        }
        let id = if uri.is_empty() {
            NS_NONE
        } else if let Some(id) = self.names.find_ns_bytes(&uri) {
            id
        } else {
            let k = match self.extra_ns.iter().position(|u| **u == *uri) {
                Some(k) => k,
                None => {
                    self.extra_ns.push(uri.to_vec());
                    self.extra_ns.len() - 1
                }
            };
            NsId::new((self.names.ns.len() + k) as u32)
        };
        self.bindings.push((prefix, id));
        Ok(())
    }

    /// The namespace of `prefix` ("" for none) on an element or attribute name.
    fn resolve(&self, prefix: &str, element: bool, at: usize) -> Result<NsId, Error> {
        if prefix.is_empty() && !element {
            return Ok(NS_NONE);
        }
        if prefix == "xml" {
            return Ok(NS_XML);
        }
        if prefix == "xmlns" {
            return Err(err(
                ErrorKind::ReservedNamespace { detail: "the prefix `xmlns` is reserved for namespace declarations".into() },
                self.t,
                at,
            ));
        }
        for (p, ns) in self.bindings.iter().rev() {
            if *p == prefix {
                return Ok(*ns);
            }
        }
        if prefix.is_empty() {
            return Ok(NS_NONE);
        }
        Err(err(ErrorKind::UndeclaredPrefix { prefix: prefix.into() }, self.t, at))
    }

    /// Attribute uniqueness by qualified name and (with namespaces) by expanded name.
    fn unique(&self) -> Result<(), Error> {
        let names = self.names;
        let atts = &self.atts;
        let dup = |a: &Att| err(ErrorKind::DuplicateAttribute { name: snippet(names.qname(a.sym).as_bytes(), 60) }, self.t, a.name_at);
        let expanded = |a: &Att| -> Option<(NsId, &str)> {
            let ns = names.ns_id(a.sym);
            (self.opts.namespaces && ns != NS_NONE && !a.is_decl).then(|| (ns, names.local(a.sym)))
        };
        if atts.len() <= 16 {
            for i in 1..atts.len() {
                for k in 0..i {
                    let (a, b) = (&atts[i], &atts[k]);
                    let same_q = names.syms[a.sym.index()].qname == names.syms[b.sym.index()].qname;
                    if same_q || (expanded(a).is_some() && expanded(a) == expanded(b)) {
                        return Err(dup(a));
                    }
                }
            }
            return Ok(());
        }
        let mut q = HashMap::with_capacity_and_hasher(atts.len(), crate::names::BuildFx);
        let mut x = HashMap::with_capacity_and_hasher(atts.len(), crate::names::BuildFx);
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(x: &[u8]) -> (Vec<u8>, Vec<u32>, Arc<Names>) {
        let d = Document::parse(x).unwrap();
        (d.source().to_vec(), d.tape().to_vec(), Arc::new(d.names().clone()))
    }

    fn same(a: &Document<'_>, b: &Document<'_>) {
        assert_eq!(a.tape(), b.tape());
        assert_eq!(a.text(), b.text());
        assert_eq!(a.source(), b.source());
        assert_eq!(a.encoding(), b.encoding());
        assert_eq!(a.xml_declaration(), b.xml_declaration());
        assert_eq!(a.root_element().record(), b.root_element().record());
    }

    #[test]
    fn parsed_parts_assemble_to_the_same_document() {
        for x in [
            &b"<a/>"[..],
            b"<?xml version='1.0' standalone='yes'?>\n<!--c--><?pi x?><a  x = \"1\" y='&lt;&#65;'>t<![CDATA[<x>]]><b/>&amp;</a ><!--e-->\n",
            b"<p:a xmlns:p='urn:p' xmlns='urn:d' p:x='1' x='2'><b xmlns=''><p:c/></b><xml:z xml:lang='en'/></p:a>",
            b"<a xmlns:u='urn:unused'><b/></a>",
            b"\xEF\xBB\xBF<a>\xC3\xA9</a>",
            b"<a xmlns:p='urn:&#x61;\tb'><p:b/></a>",
        ] {
            let d = Document::parse(x).unwrap();
            let (s, tape, names) = parts(x);
            let a = Document::assemble(s, tape, names, &ParseOptions::default()).unwrap();
            same(&d, &a);
        }
    }

    #[test]
    fn utf16_is_decoded_and_checked() {
        let src: Vec<u8> = [0xFF, 0xFE].into_iter().chain("<a>é</a>".encode_utf16().flat_map(|u| u.to_le_bytes())).collect();
        let d = Document::parse(&src).unwrap();
        let (s, tape, names) = parts(&src);
        let a = Document::assemble(s, tape, names, &ParseOptions::default()).unwrap();
        same(&d, &a);
    }

    #[test]
    fn mismatches_are_refused() {
        let (_, tape, names) = parts(b"<a x='1'><b/>t</a>");
        for other in [
            &b"<a x='1'><c/>t</a>"[..],
            b"<a x='1'><b/><i/></a>",
            b"<a x='1'><b/>t</a><x/>",
            b"<a y='1'><b/>t</a>",
            b"<a x='1'><b/>&foo;</a>",
        ] {
            assert!(Document::assemble(other.to_vec(), tape.clone(), names.clone(), &ParseOptions::default()).is_err(), "{other:?}");
        }
        // every single-word change of the tape is refused or yields the same document
        let good = b"<a x='1'><b/>t</a>".to_vec();
        for i in 0..tape.len() {
            for v in [0, 1, 2, tape[i].wrapping_add(1), tape[i] ^ (1 << 28), u32::MAX] {
                let mut t2 = tape.clone();
                t2[i] = v;
                if t2 == tape {
                    continue;
                }
                assert!(Document::assemble(good.clone(), t2, names.clone(), &ParseOptions::default()).is_err(), "word {i} = {v}");
            }
        }
        // namespaces: a symbol with the wrong namespace
        let (s, _, _) = parts(b"<p:a xmlns:p='urn:p'/>");
        let mut n = Names::default();
        let wrong = n.try_intern("p:a", "urn:q").unwrap();
        let decl = n.try_intern("xmlns:p", XMLNS_NAMESPACE).unwrap();
        let tape = vec![(K_ELEM << KIND_SHIFT) | wrong.as_u32(), 0, 7, NONE, 22, (K_NSDECL << KIND_SHIFT) | decl.as_u32(), 5];
        assert!(Document::assemble(s, tape, Arc::new(n), &ParseOptions::default()).is_err());
        // a DOCTYPE
        let (s, tape, names) = parts(b"<!DOCTYPE a><a/>");
        assert!(matches!(Document::assemble(s, tape, names, &ParseOptions::default()).unwrap_err().kind(), ErrorKind::Dtd { .. }));
    }
}
