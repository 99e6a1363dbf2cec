//! The scanner: one pass over UTF-8 text that checks well-formedness and writes
//! the token index.
//!
//! Character-level validity (UTF-8, the `Char` production) is checked before this
//! pass by `input::validate_utf8_chars`, so the loops here only look for the
//! bytes that start or end markup, with `memchr`.
//!
//! [`Parser`] and its entry points are in `api.rs`, the expansion of
//! entities that hold markup (for a second pass) in `expand.rs`, the lean
//! path through common content in `fast.rs`; this file is the general scanner.

use std::collections::HashMap;

use memchr::{memchr, memchr2, memchr3, memmem};

use crate::chars::{decode_at, is_name_char, is_name_start_char, is_ws, scan_name, skip_ws};
use crate::dtd::{self, Dtd, EntityValue, ExpansionBudget};
use crate::error::{describe_at, snippet, Error, ErrorKind, LimitKind};
use crate::index::*;
use crate::names::{Names, NsId, QNameId, Sym, NO_PREFIX, NS_NONE, NS_XML, NS_XMLNS, XMLNS_NAMESPACE, XML_NAMESPACE};
use crate::options::{ExternalPolicy, ParseOptions};

mod api;
mod expand;
mod fast;
mod split;

pub use api::Parser;
#[cfg(feature = "test-hooks")]
pub use split::__force_split;

/// What the XML declaration said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct XmlDecl {
    /// `version`, e.g. "1.0".
    pub version: String,
    /// `encoding` as written, if present.
    pub encoding: Option<String>,
    /// `standalone`, if present.
    pub standalone: Option<bool>,
    /// Byte range of the declaration.
    pub span: std::ops::Range<usize>,
}

/// What the parser records of an XML declaration: where its values are in the
/// text (the document makes an [`XmlDecl`] of them when asked), so a parse
/// allocates nothing for it.
#[derive(Debug, Clone, Default)]
pub(crate) struct DeclSpans {
    /// `version`'s value.
    pub version: std::ops::Range<u32>,
    /// `encoding`'s value, if present.
    pub encoding: Option<std::ops::Range<u32>>,
    /// `standalone`, if present.
    pub standalone: Option<bool>,
    /// The offset after the declaration's `?>`.
    pub end: u32,
}

impl DeclSpans {
    /// The declaration as read from `text`, the text the spans describe.
    pub(crate) fn to_decl(&self, text: &[u8]) -> XmlDecl {
        let s =
            |r: &std::ops::Range<u32>| String::from_utf8_lossy(text.get(r.start as usize..r.end as usize).unwrap_or_default()).into_owned();
        XmlDecl {
            version: s(&self.version),
            encoding: self.encoding.as_ref().map(s),
            standalone: self.standalone,
            span: 0..self.end as usize,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct OpenElem {
    rec: u32,
    name_start: u32,
    name_len: u32,
    bindings: u32,
    qid: QNameId,
    /// qname of the last child element seen (NO_PREFIX before the first)
    last_child: QNameId,
}

#[derive(Debug, Clone, Copy)]
struct Binding {
    prefix: QNameId,
    ns: NsId,
}

/// A reference to an entity with markup inside a replacement text: (start, end, entity name).
type MarkupRef = (usize, usize, Box<str>);

#[derive(Debug, Clone, Copy)]
struct AttrScratch {
    qid: QNameId,
    name_off: u32,
    name_end: u32,
    val_start: u32,
    val_end: u32,
    ns: NsId,
    is_decl: bool,
    /// The value has no `&` (and no `<`): its normalized value is its text, unless it has tab, LF or CR.
    plain: bool,
}

impl AttrScratch {
    /// An attribute the internal subset defaults (not written in the tag): its name
    /// range is empty (at the element's `<`) and `val_start` holds the index of its
    /// declaration in `Dtd::attributes`. (No field of its own: the scratch record
    /// stays 28 bytes, which the lean path's start tags feel.)
    #[inline]
    fn is_default(&self) -> bool {
        self.name_off == self.name_end
    }
}

/// An attribute the internal subset defaults for an element type.
#[derive(Debug, Clone, Copy)]
struct DefaultAttr {
    qid: QNameId,
    /// Index of the declaration in `Dtd::attributes`.
    decl: u32,
    /// A namespace declaration (`xmlns`, `xmlns:p`, with namespaces on).
    is_decl: bool,
}

/// What the checker learned about an internal general entity.
#[derive(Debug, Clone)]
enum EntState {
    /// Being checked: a reference reaching it again is recursion.
    Checking,
    Checked {
        /// Bytes produced by expanding it fully.
        size: u64,
        /// Its expansion contains markup (`<`): the document must be expanded to index it.
        markup: bool,
        /// Content references in its replacement text to entities with markup: (start, end, name).
        refs: Vec<(usize, usize, Box<str>)>,
    },
}

/// How many entities `State::recent_entities` keeps.
const RECENT_ENTITIES: usize = 8;

#[derive(Debug, Default)]
struct State {
    stack: Vec<OpenElem>,
    bindings: Vec<Binding>,
    attrs: Vec<AttrScratch>,
    entities: HashMap<Box<str>, EntState>,
    /// The last few internal entities content referred to, checked: name, expanded
    /// size, whether the expansion has markup (a few compares instead of two hash
    /// lookups and a copy of the declaration per reference).
    recent_entities: Vec<(Box<str>, u64, bool)>,
    markup_refs: Vec<(usize, usize, Box<str>)>,
    /// Element type → the attributes the internal subset defaults for it (empty
    /// without attribute-list defaults, so one `is_empty` keeps them off the lean path).
    defaults: HashMap<QNameId, Vec<DefaultAttr>, crate::names::BuildFx>,
    /// The first half of a split parse failed: parse again without splitting (its
    /// error may come from the cut).
    split_retry: bool,
    /// The UTF-8 and `Char` check decoding deferred is this run's to make (with
    /// the offset of the text in the input): by each half of a split parse on its
    /// own thread, else before the document element. Taken when made.
    check_pending: Option<usize>,
    /// That check failed: the error to report, whatever the parse found.
    check_error: Option<Error>,
    /// The second half's tape, kept for the next split parse.
    second_tape: Vec<u32>,
    /// The run only checks the document ([`Parser::check`]): its index is thrown
    /// away, so a split parse does not copy the second half's records into it.
    check_only: bool,
    /// The state of a parse split in two halves (`split.rs`); all off otherwise.
    split: split::SplitState,
}

pub(crate) struct Run<'p> {
    opts: &'p ParseOptions,
    st: &'p mut State,
    tape: Vec<u32>,
    names: &'p mut Names,
    dtd: Option<Box<Dtd>>,
    budget: ExpansionBudget,
    ns_on: bool,
    q_xml: QNameId,
    q_xmlns: QNameId,
    /// Inside an entity's replacement text (checking it): tape writes are discarded.
    fragment_depth: u32,
    /// The document text is already expanded: references to markup entities cannot remain.
    expanded: bool,
    /// The lean path may run: off for a document with attribute defaults parsed
    /// without namespaces (the lean path reads the mark that keeps element types
    /// with defaults away from it only with namespaces on).
    lean: bool,
}

/// The error for one attribute more than the limit allows (`count` already taken).
#[cold]
fn attributes_limit(opts: &ParseOptions, count: usize, t: &[u8], at: usize) -> Error {
    let max = opts.limits.max_attributes as u64;
    err(ErrorKind::LimitExceeded { limit: LimitKind::Attributes, value: count as u64 + 1, max }, t, at)
}

#[inline(never)]
#[cold]
fn err(kind: ErrorKind, t: &[u8], at: usize) -> Error {
    Error::at(kind, t, at)
}

fn unexpected(t: &[u8], at: usize, expected: &'static str) -> Error {
    if at >= t.len() {
        return err(ErrorKind::UnexpectedEof { expected }, t, at);
    }
    err(ErrorKind::Unexpected { expected, found: describe_at(t, at) }, t, at)
}

fn syntax(t: &[u8], at: usize, detail: String) -> Error {
    err(ErrorKind::Syntax { detail }, t, at)
}

impl Run<'_> {
    fn document(&mut self, t: &[u8]) -> Result<(Option<DeclSpans>, u32), Error> {
        let mut pos = 0;
        let mut decl = None;
        if t.starts_with(b"<?xml") && t.get(5).is_some_and(|&b| is_ws(b) || b == b'?') {
            let (d, p) = Self::xml_decl(t)?;
            decl = Some(d);
            pos = p;
        }
        let standalone = decl.as_ref().and_then(|d| d.standalone).unwrap_or(false);
        // prolog
        let mut seen_doctype = false;
        loop {
            pos = skip_ws(t, pos);
            if pos >= t.len() {
                return Err(err(ErrorKind::UnexpectedEof { expected: "the root element" }, t, pos));
            }
            if t[pos] != b'<' {
                return Err(unexpected(t, pos, "markup (`<`) before the root element"));
            }
            match t.get(pos + 1) {
                Some(b'?') => pos = self.pi(t, pos, NONE)?,
                Some(b'!') => {
                    if t[pos..].starts_with(b"<!--") {
                        pos = self.comment(t, pos, NONE)?;
                    } else if t[pos..].starts_with(b"<!DOCTYPE") {
                        if seen_doctype {
                            return Err(syntax(t, pos, "a second document type declaration".into()));
                        }
                        seen_doctype = true;
                        let (d, p) = dtd::parse_doctype(t, pos, standalone, self.opts, &mut self.budget)?;
                        self.dtd = Some(Box::new(d));
                        self.index_defaults();
                        pos = p;
                    } else {
                        return Err(syntax(
                            t,
                            pos,
                            format!("expected a comment or document type declaration, found `{}`", snippet(&t[pos..], 12)),
                        ));
                    }
                }
                _ => break,
            }
        }
        let root = self.tape.len() as u32;
        pos = match self.split_point(t, pos) {
            Some(at) => self.content_split(t, pos, at)?,
            None => {
                self.check_whole(t)?;
                self.content(t, pos, false)?
            }
        };
        // epilog
        loop {
            pos = skip_ws(t, pos);
            if pos >= t.len() {
                break;
            }
            if t[pos] != b'<' {
                return Err(unexpected(t, pos, "only comments, processing instructions or whitespace after the root element"));
            }
            match t.get(pos + 1) {
                Some(b'?') => pos = self.pi(t, pos, NONE)?,
                Some(b'!') if t[pos..].starts_with(b"<!--") => pos = self.comment(t, pos, NONE)?,
                _ => {
                    return Err(syntax(t, pos, format!("content after the root element: `{}`", snippet(&t[pos..], 20))));
                }
            }
        }
        Ok((decl, root))
    }

    /// Reads the XML declaration at the start of `t` (`<?xml` already seen): its
    /// spans and the offset past `?>`. Shared with `assemble`.
    pub(crate) fn xml_decl(t: &[u8]) -> Result<(DeclSpans, usize), Error> {
        // the usual declaration, `<?xml version="1.0" encoding="UTF-8"?>`, in a few compares
        if crate::input::common_utf8_declaration(t) && t.get(36..38) == Some(b"?>") {
            let d = DeclSpans { version: 15..18, encoding: Some(30..35), standalone: None, end: 38 };
            return Ok((d, 38));
        }
        let derr = |at: usize, detail: &str| err(ErrorKind::XmlDeclaration { detail: detail.to_string() }, t, at);
        let mut p = 5;
        let mut d = DeclSpans::default();
        let mut seen = 0u8; // 1 version, 2 encoding, 3 standalone
        loop {
            let ws = p;
            p = skip_ws(t, p);
            if t[p..].starts_with(b"?>") {
                p += 2;
                break;
            }
            if p >= t.len() {
                return Err(err(ErrorKind::UnexpectedEof { expected: "`?>` closing the XML declaration" }, t, p));
            }
            if p == ws {
                return Err(derr(p, "expected whitespace between pseudo-attributes"));
            }
            let ns = p;
            let ne = scan_name(t, p).ok_or_else(|| derr(p, "expected `version`, `encoding` or `standalone`"))?;
            let name = &t[ns..ne];
            p = skip_ws(t, ne);
            if t.get(p) != Some(&b'=') {
                return Err(derr(p, "expected `=` after pseudo-attribute name"));
            }
            p = skip_ws(t, p + 1);
            let q = match t.get(p) {
                Some(&q @ (b'"' | b'\'')) => q,
                _ => return Err(derr(p, "expected a quoted value")),
            };
            let vs = p + 1;
            let ve = vs + memchr(q, &t[vs..]).ok_or_else(|| err(ErrorKind::UnexpectedEof { expected: "closing quote" }, t, vs))?;
            let v = &t[vs..ve];
            p = ve + 1;
            match name {
                b"version" if seen == 0 => {
                    if !(v.len() > 2 && v.starts_with(b"1.") && v[2..].iter().all(u8::is_ascii_digit)) {
                        return Err(derr(vs, &format!("version `{}` is not of the form `1.N`", snippet(v, 20))));
                    }
                    d.version = vs as u32..ve as u32;
                    seen = 1;
                }
                b"encoding" if seen == 1 => {
                    let ok = !v.is_empty()
                        && v[0].is_ascii_alphabetic()
                        && v[1..].iter().all(|&b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-');
                    if !ok {
                        return Err(derr(vs, &format!("invalid encoding name `{}`", snippet(v, 40))));
                    }
                    d.encoding = Some(vs as u32..ve as u32);
                    seen = 2;
                }
                b"standalone" if (1..3).contains(&seen) => {
                    d.standalone = Some(match v {
                        b"yes" => true,
                        b"no" => false,
                        _ => return Err(derr(vs, "standalone must be `yes` or `no`")),
                    });
                    seen = 3;
                }
                _ if seen == 0 => return Err(derr(ns, "`version` must come first")),
                _ => {
                    return Err(derr(
                        ns,
                        &format!("unexpected pseudo-attribute `{}` (order is version, encoding, standalone)", snippet(name, 20)),
                    ));
                }
            }
        }
        if seen == 0 {
            return Err(derr(5, "missing `version`"));
        }
        d.end = p as u32;
        Ok((d, p))
    }

    #[inline]
    fn parent(&self) -> u32 {
        self.st.stack.last().map_or(NONE, |o| o.rec)
    }

    fn check_tape(&self, t: &[u8], at: usize) -> Result<(), Error> {
        if self.tape.len() >= MAX_TAPE_WORDS {
            return Err(err(
                ErrorKind::LimitExceeded { limit: LimitKind::IndexCapacity, value: self.tape.len() as u64, max: MAX_TAPE_WORDS as u64 },
                t,
                at,
            ));
        }
        Ok(())
    }

    fn comment(&mut self, t: &[u8], pos: usize, parent: u32) -> Result<usize, Error> {
        let body = pos + 4;
        let at = crate::chars::find_seq(t, body, b"--")
            .ok_or_else(|| err(ErrorKind::UnexpectedEof { expected: "`-->` closing the comment" }, t, pos))?;
        if t.get(at + 2) != Some(&b'>') {
            if at + 2 >= t.len() {
                return Err(err(ErrorKind::UnexpectedEof { expected: "`-->` closing the comment" }, t, pos));
            }
            return Err(syntax(t, at, "`--` is not allowed inside a comment".into()));
        }
        let end = at + 3;
        self.leaf(K_COMMENT, pos, end, parent);
        Ok(end)
    }

    #[inline]
    fn leaf(&mut self, kind: u32, start: usize, end: usize, parent: u32) {
        if self.fragment_depth == 0 {
            put(&mut self.tape, [kind << KIND_SHIFT, start as u32, end as u32, parent]);
        }
    }

    fn pi(&mut self, t: &[u8], pos: usize, parent: u32) -> Result<usize, Error> {
        let ns = pos + 2;
        let ne = scan_name(t, ns).ok_or_else(|| unexpected(t, ns, "a processing instruction target"))?;
        let target = &t[ns..ne];
        if target.eq_ignore_ascii_case(b"xml") {
            return Err(syntax(
                t,
                pos,
                "the processing instruction target `xml` is reserved (an XML declaration is only allowed at the very start)".into(),
            ));
        }
        if self.ns_on && memchr(b':', target).is_some() {
            return Err(err(ErrorKind::InvalidName { name: snippet(target, 40) }, t, ns));
        }
        self.name_len_check(t, ns, ne)?;
        let end = if t[ne..].starts_with(b"?>") {
            ne + 2
        } else {
            if !t.get(ne).is_some_and(|&b| is_ws(b)) {
                return Err(unexpected(t, ne, "whitespace or `?>` after the processing instruction target"));
            }
            crate::chars::find_seq(t, ne, b"?>")
                .ok_or_else(|| err(ErrorKind::UnexpectedEof { expected: "`?>` closing the processing instruction" }, t, pos))?
                + 2
        };
        self.leaf(K_PI, pos, end, parent);
        Ok(end)
    }

    fn name_len_check(&self, t: &[u8], s: usize, e: usize) -> Result<(), Error> {
        let max = self.opts.limits.max_name_len;
        if (e - s) as u64 > max as u64 {
            return Err(err(ErrorKind::LimitExceeded { limit: LimitKind::NameLength, value: (e - s) as u64, max: max as u64 }, t, s));
        }
        Ok(())
    }

    /// Element content. Document mode (`fragment == false`): `pos` is at the root
    /// element's `<`; returns the offset after its end tag. Fragment mode: parses
    /// all of `t` as content (an entity's replacement text).
    fn content(&mut self, t: &[u8], mut pos: usize, fragment: bool) -> Result<usize, Error> {
        let base = self.st.stack.len();
        // the lean path has just stopped: no use calling it again before the general
        // path has taken an item
        let mut fast_stopped = false;
        if !fragment {
            // the document element's start tag: as the last document's when it has its
            // bytes; on the lean path when its names are known (a reused parser), else
            // on the general one
            let before = self.tape.len();
            let again = self.lean && self.dtd.is_none() && base == 0;
            match again.then(|| self.root_tag_again(t, pos)).flatten() {
                Some(end) => pos = end,
                None => {
                    let start = pos;
                    if self.lean {
                        pos = self.content_fast(t, pos, base);
                        fast_stopped = true;
                    }
                    if self.tape.len() == before {
                        pos = self.start_tag(t, pos)?;
                        fast_stopped = false;
                    } else if again {
                        self.remember_root_tag(t, start, before, pos);
                    }
                }
            }
            if self.st.stack.len() == base {
                return Ok(pos);
            }
        }
        self.content_loop(t, pos, base, fragment, fast_stopped)
    }

    /// The loop of [`Run::content`] from `pos`, with `base` open elements below the
    /// content's own. `fast_stopped`: the lean path has just stopped at `pos`.
    /// A half of a split parse (`split.rs`) ends at the end of `t` with elements open
    /// instead of failing: the first half with any, the second with only stand-ins.
    fn content_loop(&mut self, t: &[u8], mut pos: usize, base: usize, fragment: bool, mut fast_stopped: bool) -> Result<usize, Error> {
        loop {
            // the common items on the lean path; it stops where this loop must decide
            if !fragment && self.lean && !fast_stopped {
                // the stand-ins for the elements open before the second half of a
                // split parse are closed on the general path
                let fast_base = if self.st.split.stand_ins > 0 { self.st.split.stand_ins - 1 } else { base };
                pos = self.content_fast(t, pos, fast_base);
            }
            fast_stopped = false;
            // character data up to the next markup
            loop {
                let Some(at) = crate::chars::find3(t, pos, b'<', b'&', b']') else {
                    if fragment && self.st.stack.len() == base {
                        return Ok(t.len());
                    }
                    if self.st.split.first_half || (self.st.split.second_half && self.st.stack.len() <= self.st.split.stand_ins) {
                        return Ok(t.len());
                    }
                    let name = self
                        .st
                        .stack
                        .last()
                        .map_or(String::new(), |o| snippet(&t[o.name_start as usize..(o.name_start + o.name_len) as usize], 60));
                    return Err(err(ErrorKind::UnclosedElement { name }, t, t.len()));
                };
                pos = at;
                match t[pos] {
                    b'<' => break,
                    b'&' => pos = self.content_reference(t, pos)?,
                    _ => {
                        if t[pos..].starts_with(b"]]>") {
                            return Err(syntax(t, pos, "`]]>` is not allowed in character data".into()));
                        }
                        pos += 1;
                    }
                }
            }
            // markup at pos
            match t.get(pos + 1) {
                Some(b'/') => {
                    if self.st.stack.len() == base {
                        let ne = scan_name(t, pos + 2).unwrap_or(pos + 2);
                        return Err(err(ErrorKind::UnexpectedEndTag { found: snippet(&t[pos + 2..ne], 40) }, t, pos));
                    }
                    pos = self.end_tag(t, pos)?;
                    if !fragment && self.st.stack.len() == base {
                        return Ok(pos);
                    }
                }
                Some(b'!') => {
                    let parent = self.parent();
                    if t[pos..].starts_with(b"<!--") {
                        pos = self.comment(t, pos, parent)?;
                    } else if t[pos..].starts_with(b"<![CDATA[") {
                        let body = pos + 9;
                        let e = crate::chars::find_seq(t, body, b"]]>")
                            .ok_or_else(|| err(ErrorKind::UnexpectedEof { expected: "`]]>` closing the CDATA section" }, t, pos))?;
                        let end = e + 3;
                        self.leaf(K_CDATA, pos, end, parent);
                        pos = end;
                    } else {
                        return Err(syntax(t, pos, format!("expected a comment or CDATA section, found `{}`", snippet(&t[pos..], 12))));
                    }
                }
                Some(b'?') => {
                    let parent = self.parent();
                    pos = self.pi(t, pos, parent)?;
                }
                _ => {
                    pos = self.start_tag(t, pos)?;
                }
            }
            self.check_tape(t, pos)?;
        }
    }

    #[inline(always)]
    fn qname_check(&mut self, t: &[u8], qid: QNameId, s: usize, e: usize) -> Result<(), Error> {
        if self.names.qnames[qid.index()].qname_ok == 1 {
            return Ok(());
        }
        self.qname_check_slow(t, qid, s, e)
    }

    #[inline(never)]
    fn qname_check_slow(&mut self, t: &[u8], qid: QNameId, s: usize, e: usize) -> Result<(), Error> {
        match self.names.qnames[qid.index()].qname_ok {
            2 => return Err(err(ErrorKind::InvalidName { name: snippet(&t[s..e], 60) }, t, s)),
            QNAME_OK_WITH_DEFAULTS => return Ok(()),
            _ => {}
        }
        let name = &t[s..e];
        let ok = is_qname(name);
        self.names.qnames[qid.index()].qname_ok = if ok { 1 } else { 2 };
        if ok {
            Ok(())
        } else {
            Err(err(ErrorKind::InvalidName { name: snippet(name, 60) }, t, s))
        }
    }

    fn start_tag(&mut self, t: &[u8], pos: usize) -> Result<usize, Error> {
        let ns = pos + 1;
        let (qid, ne) = match self.st.stack.last().and_then(|top| predict_name(self.names, top, t, ns)) {
            Some(p) => p,
            None => {
                let ne = match scan_name(t, ns) {
                    Some(e) => e,
                    None => return Err(unexpected(t, ns, "an element name")),
                };
                self.name_len_check(t, ns, ne)?;
                (self.names.intern_qname_at(t, ns, ne), ne)
            }
        };
        if self.ns_on {
            self.qname_check(t, qid, ns, ne)?;
        }
        // remember where this name appeared, for the next prediction
        note_child(&mut self.st.stack, self.names, qid);
        if self.st.stack.len() as u64 >= self.opts.limits.max_depth as u64 {
            return Err(err(
                ErrorKind::LimitExceeded {
                    limit: LimitKind::Depth,
                    value: self.st.stack.len() as u64 + 1,
                    max: self.opts.limits.max_depth as u64,
                },
                t,
                pos,
            ));
        }
        self.st.attrs.clear();
        let mut ns_work = false;
        let mut p = ne;
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
                Some(b'/') => {
                    if t.get(p + 1) == Some(&b'>') {
                        p += 2;
                        empty = true;
                        break;
                    }
                    return Err(unexpected(t, p + 1, "`>` after `/` in an empty-element tag"));
                }
                None => return Err(err(ErrorKind::UnexpectedEof { expected: "`>` closing the start tag" }, t, p)),
                _ => {}
            }
            if p == ws {
                return Err(unexpected(t, p, "whitespace, `>` or `/>` in the start tag"));
            }
            let an = p;
            let ae = scan_name(t, an).ok_or_else(|| unexpected(t, an, "an attribute name, `>` or `/>`"))?;
            self.name_len_check(t, an, ae)?;
            p = skip_ws(t, ae);
            if t.get(p) != Some(&b'=') {
                return Err(unexpected(t, p, "`=` after the attribute name"));
            }
            p = skip_ws(t, p + 1);
            let q = match t.get(p) {
                Some(&q @ (b'"' | b'\'')) => q,
                _ => return Err(unexpected(t, p, "a quoted attribute value")),
            };
            let vs = p + 1;
            // the first quote, `<` or `&`
            let first = crate::chars::find3(t, vs, q, b'<', b'&');
            let plain = first.is_some_and(|f| t[f] == q);
            let ve = match first {
                Some(f) if plain => f,
                Some(f) => match memchr(q, &t[f..]) {
                    Some(i) => f + i,
                    None => return Err(err(ErrorKind::UnexpectedEof { expected: "the closing quote of the attribute value" }, t, vs)),
                },
                None => return Err(err(ErrorKind::UnexpectedEof { expected: "the closing quote of the attribute value" }, t, vs)),
            };
            if !plain {
                let value = &t[vs..ve];
                if let Some(lt) = memchr(b'<', value) {
                    return Err(syntax(t, vs + lt, "`<` is not allowed in an attribute value".into()));
                }
                if let Some(i) = memchr(b'&', value) {
                    self.check_attr_refs(t, vs + i, ve)?;
                }
            }
            let aq = self.names.intern_qname_at(t, an, ae);
            if self.ns_on {
                self.qname_check(t, aq, an, ae)?;
            }
            if self.st.attrs.len() as u64 >= self.opts.limits.max_attributes as u64 {
                return Err(attributes_limit(self.opts, self.st.attrs.len(), t, an));
            }
            let aprefix = self.names.qnames[aq.index()].prefix;
            let is_decl = self.ns_on && (aq == self.q_xmlns || aprefix == self.q_xmlns);
            ns_work |= is_decl || aprefix != NO_PREFIX;
            self.st.attrs.push(AttrScratch {
                qid: aq,
                name_off: an as u32,
                name_end: ae as u32,
                val_start: vs as u32,
                val_end: ve as u32,
                ns: NS_NONE,
                is_decl,
                plain,
            });
            p = ve + 1;
        }

        let specified = self.st.attrs.len();
        if !self.st.defaults.is_empty() {
            ns_work |= self.apply_defaults(t, qid, pos)?;
        }
        let bind_base = self.st.bindings.len() as u32;
        let ens = if !self.ns_on {
            NS_NONE
        } else if self.st.bindings.is_empty() && !ns_work && self.names.qnames[qid.index()].prefix == NO_PREFIX {
            // no namespace in scope, no declaration here, no prefixed name: all in no namespace
            NS_NONE
        } else {
            self.namespaces(t, qid, ns)?
        };
        // attribute uniqueness: by qualified name, then by expanded name
        let n = self.st.attrs.len();
        if specified > 1 {
            self.unique_attrs(t, specified)?;
        }
        if n > specified {
            self.unique_defaults(t, specified, pos)?;
        }
        let parent = self.parent();
        let rec = self.tape.len() as u32;
        if self.fragment_depth == 0 {
            let sym = self.sym(t, qid, ens, pos)?;
            put(&mut self.tape, [(K_ELEM << KIND_SHIFT) | sym.as_u32(), pos as u32, 0, parent, 0]);
            for i in 0..n {
                let a = self.st.attrs[i];
                if a.is_default() && !a.is_decl && !self.opts.attribute_defaults {
                    continue;
                }
                let s = self.sym(t, a.qid, a.ns, a.name_off as usize)?;
                let (k, w1) = match (a.is_decl, !a.is_default()) {
                    (false, true) => (K_ATTR, a.name_off),
                    (true, true) => (K_NSDECL, a.name_off),
                    (false, false) => (K_ATTR_DEFAULT, a.val_start),
                    (true, false) => (K_NSDECL_DEFAULT, a.val_start),
                };
                put(&mut self.tape, [(k << KIND_SHIFT) | s.as_u32(), w1]);
            }
        }
        if empty {
            if self.fragment_depth == 0 {
                close_record(&mut self.tape, rec, p);
            }
            self.st.bindings.truncate(bind_base as usize);
        } else {
            self.st.stack.push(OpenElem {
                rec,
                name_start: ns as u32,
                name_len: (ne - ns) as u32,
                bindings: bind_base,
                qid,
                last_child: NO_PREFIX,
            });
        }
        Ok(p)
    }

    #[inline]
    fn sym(&mut self, t: &[u8], q: QNameId, ns: NsId, at: usize) -> Result<Sym, Error> {
        self.names.sym(q, ns).ok_or_else(|| {
            err(
                ErrorKind::LimitExceeded {
                    limit: LimitKind::IndexCapacity,
                    value: crate::names::MAX_SYMS as u64,
                    max: crate::names::MAX_SYMS as u64,
                },
                t,
                at,
            )
        })
    }

    /// Uniqueness of the first `specified` attributes (those written in the tag).
    fn unique_attrs(&mut self, t: &[u8], specified: usize) -> Result<(), Error> {
        let attrs = &self.st.attrs[..specified];
        let n = attrs.len();
        if n <= 16 {
            if let Some(i) = first_duplicate(attrs, t, self.ns_on) {
                let a = &attrs[i];
                return Err(err(
                    ErrorKind::DuplicateAttribute { name: snippet(&t[a.name_off as usize..a.name_end as usize], 60) },
                    t,
                    a.name_off as usize,
                ));
            }
            return Ok(());
        }
        let mut seen_q: HashMap<QNameId, (), crate::names::BuildFx> = HashMap::with_capacity_and_hasher(n, crate::names::BuildFx);
        let mut seen_x: HashMap<(NsId, &[u8]), (), crate::names::BuildFx> = HashMap::with_hasher(crate::names::BuildFx);
        for a in attrs {
            let name = &t[a.name_off as usize..a.name_end as usize];
            let dup = seen_q.insert(a.qid, ()).is_some()
                || (self.ns_on && a.ns != NS_NONE && !a.is_decl && seen_x.insert((a.ns, local_of(name)), ()).is_some());
            if dup {
                return Err(err(ErrorKind::DuplicateAttribute { name: snippet(name, 60) }, t, a.name_off as usize));
            }
        }
        Ok(())
    }

    /// Namespace declarations and resolution for one start tag. Returns the element's namespace.
    fn namespaces(&mut self, t: &[u8], qid: QNameId, name_at: usize) -> Result<NsId, Error> {
        // declarations first
        for i in 0..self.st.attrs.len() {
            let a = self.st.attrs[i];
            if !a.is_decl {
                continue;
            }
            if a.is_default() {
                self.declare_default(t, a, name_at)?;
                self.st.attrs[i].ns = NS_XMLNS;
                continue;
            }
            let raw = &t[a.val_start as usize..a.val_end as usize];
            // A DTD may declare the declaration's type (e.g. NMTOKEN), which changes its normalized value.
            let cdata = self.dtd.as_deref().is_none_or(|d| {
                let en = std::str::from_utf8(&t[name_at..name_at + self.names.qnames[qid.index()].blen as usize]).unwrap_or("");
                let an = std::str::from_utf8(&t[a.name_off as usize..a.name_end as usize]).unwrap_or("");
                d.attribute(en, an).is_none_or(|ad| ad.ty == dtd::AttType::Cdata)
            });
            let uri: std::borrow::Cow<'_, [u8]> = if !cdata || !a.plain || memchr3(b'\t', b'\n', b'\r', raw).is_some() {
                let raw_str = std::str::from_utf8(raw).unwrap_or("");
                std::borrow::Cow::Owned(
                    dtd::normalize_attribute_value(raw_str, t, a.val_start as usize, self.dtd.as_deref(), cdata, &mut self.budget, 0)?
                        .into_owned()
                        .into_bytes(),
                )
            } else {
                // the common case: no allocation, no conversion (the URI is usually interned already)
                std::borrow::Cow::Borrowed(raw)
            };
            let uri: &[u8] = &uri;
            let prefix = if a.qid == self.q_xmlns {
                NO_PREFIX
            } else {
                self.names.intern_qname(local_of(&t[a.name_off as usize..a.name_end as usize]))
            };
            if let Some(detail) = declaration_problem(self.names, self.q_xml, self.q_xmlns, prefix, uri) {
                return Err(err(ErrorKind::ReservedNamespace { detail }, t, a.name_off as usize));
            }
            let id = if uri.is_empty() { NS_NONE } else { self.names.intern_ns_bytes(uri) };
            self.st.bindings.push(Binding { prefix, ns: id });
            self.st.attrs[i].ns = NS_XMLNS;
        }
        let ens = self.resolve(t, qid, name_at, true)?;
        for i in 0..self.st.attrs.len() {
            let a = self.st.attrs[i];
            if a.is_decl {
                continue;
            }
            let ns = if self.names.qnames[a.qid.index()].prefix == NO_PREFIX {
                NS_NONE
            } else {
                self.resolve(t, a.qid, a.name_off as usize, false)?
            };
            self.st.attrs[i].ns = ns;
        }
        Ok(ens)
    }

    #[inline]
    fn resolve(&self, t: &[u8], qid: QNameId, at: usize, element: bool) -> Result<NsId, Error> {
        let prefix = self.names.qnames[qid.index()].prefix;
        if prefix == NO_PREFIX && !element {
            return Ok(NS_NONE);
        }
        if prefix == self.q_xml {
            return Ok(NS_XML);
        }
        if prefix == self.q_xmlns {
            return Err(err(
                ErrorKind::ReservedNamespace { detail: "the prefix `xmlns` is reserved for namespace declarations".into() },
                t,
                at,
            ));
        }
        for b in self.st.bindings.iter().rev() {
            if b.prefix == prefix {
                return Ok(b.ns);
            }
        }
        if prefix == NO_PREFIX {
            return Ok(NS_NONE);
        }
        // the prefix's own entry (not a slice of the name's: a name read before the
        // deferred UTF-8 check is stored with replacement characters)
        let prefix = self.names.qname_text(prefix).to_string();
        Err(err(ErrorKind::UndeclaredPrefix { prefix }, t, at))
    }

    /// After the DOCTYPE: the attributes its attribute-list declarations default,
    /// by element type, for [`Run::apply_defaults`].
    fn index_defaults(&mut self) {
        let Some(dtd) = self.dtd.as_deref() else { return };
        for (i, a) in dtd.attributes.iter().enumerate() {
            if a.value.is_none() || i > u32::MAX as usize - 1 {
                continue;
            }
            let eq = self.names.intern_qname(a.element.as_bytes());
            // keep the element type's start tags off the lean path (a name that is not a
            // QName keeps its mark: the general path reports it)
            let q = &mut self.names.qnames[eq.index()];
            if q.qname_ok != 2 && (!self.ns_on || is_qname(a.element.as_bytes())) {
                q.qname_ok = QNAME_OK_WITH_DEFAULTS;
            }
            let aq = self.names.intern_qname(a.name.as_bytes());
            let prefix = self.names.qnames[aq.index()].prefix;
            let is_decl = self.ns_on && (aq == self.q_xmlns || prefix == self.q_xmlns);
            self.lean &= self.ns_on;
            let list = self.st.defaults.entry(eq).or_default();
            // the first declaration of a name binds (§3.3)
            if !list.iter().any(|d| d.qid == aq) {
                list.push(DefaultAttr { qid: aq, decl: i as u32, is_decl });
            }
        }
    }

    /// Adds to the start tag's attributes those the internal subset defaults for
    /// element type `qid` and the tag does not specify (XML 1.0 §3.3.2), charging
    /// entity expansion in their values to the budget each time. They take part in
    /// the namespace checks whatever [`ParseOptions::attribute_defaults`] says (as
    /// in libxml2); without it only the declarations among them are recorded.
    /// Returns whether one is a declaration or prefixed (namespace work to do).
    #[cold]
    #[inline(never)]
    fn apply_defaults(&mut self, t: &[u8], qid: QNameId, at: usize) -> Result<bool, Error> {
        let st = &mut *self.st;
        let Some(list) = st.defaults.get(&qid) else { return Ok(false) };
        let Some(dtd) = self.dtd.as_deref() else { return Ok(false) };
        let mut ns_work = false;
        for d in list {
            if st.attrs.iter().any(|a| a.qid == d.qid) {
                continue;
            }
            let expansion = dtd.attributes[d.decl as usize].value_expansion;
            if expansion > 0 {
                self.budget.charge(expansion as usize, t, at)?;
            }
            if st.attrs.len() as u64 >= self.opts.limits.max_attributes as u64 {
                return Err(attributes_limit(self.opts, st.attrs.len(), t, at));
            }
            ns_work |= d.is_decl || self.names.qnames[d.qid.index()].prefix != NO_PREFIX;
            let at = at as u32;
            st.attrs.push(AttrScratch {
                qid: d.qid,
                name_off: at,
                name_end: at,
                val_start: d.decl,
                val_end: d.decl,
                ns: NS_NONE,
                is_decl: d.is_decl,
                plain: true,
            });
        }
        Ok(ns_work)
    }

    /// The binding a defaulted namespace declaration makes (its value is the
    /// declaration's normalized default). Errors are reported at the element.
    #[cold]
    fn declare_default(&mut self, t: &[u8], a: AttrScratch, at: usize) -> Result<(), Error> {
        let uri: Vec<u8> =
            self.dtd.as_deref().and_then(|d| d.attributes[a.val_start as usize].value.clone()).unwrap_or_default().into_bytes();
        let prefix = if a.qid == self.q_xmlns {
            NO_PREFIX
        } else {
            let local = local_of(self.names.qname_text(a.qid).as_bytes()).to_vec();
            self.names.intern_qname(&local)
        };
        if let Some(detail) = declaration_problem(self.names, self.q_xml, self.q_xmlns, prefix, &uri) {
            return Err(err(ErrorKind::ReservedNamespace { detail }, t, at));
        }
        let id = if uri.is_empty() { NS_NONE } else { self.names.intern_ns_bytes(&uri) };
        self.st.bindings.push(Binding { prefix, ns: id });
        Ok(())
    }

    /// No defaulted attribute (from `from` on) shares an expanded name with another
    /// attribute of the tag (Namespaces in XML 1.0 §6.3; qualified names cannot
    /// repeat: a default applies only where its name is not specified).
    #[cold]
    fn unique_defaults(&self, t: &[u8], from: usize, at: usize) -> Result<(), Error> {
        if !self.ns_on {
            return Ok(());
        }
        let attrs = &self.st.attrs;
        let local = |a: &AttrScratch| -> &[u8] {
            if !a.is_default() {
                local_of(&t[a.name_off as usize..a.name_end as usize])
            } else {
                local_of(self.names.qname_text(a.qid).as_bytes())
            }
        };
        for i in from..attrs.len() {
            let a = &attrs[i];
            if a.is_decl || a.ns == NS_NONE {
                continue;
            }
            if attrs[..i].iter().any(|b| !b.is_decl && b.ns == a.ns && local(b) == local(a)) {
                return Err(err(ErrorKind::DuplicateAttribute { name: self.names.qname_text(a.qid).to_string() }, t, at));
            }
        }
        Ok(())
    }

    fn end_tag(&mut self, t: &[u8], pos: usize) -> Result<usize, Error> {
        let open = match self.st.stack.last() {
            Some(o) => *o,
            None => return Err(syntax(t, pos, "end tag without a start tag".into())),
        };
        if open.rec >= split::STAND_IN {
            return self.stand_in_end_tag(t, pos);
        }
        let ns = pos + 2;
        let (os, ol) = (open.name_start as usize, open.name_len as usize);
        let ne = ns + ol;
        let matches = t.len() >= ne && same_at(t, ns, os, ol) && {
            match t.get(ne) {
                Some(&b) if b < 0x80 => crate::chars::CLASS[b as usize] & crate::chars::NAME_CHAR == 0,
                Some(_) => !is_name_char(decode_at(t, ne).0),
                None => true,
            }
        };
        if !matches {
            let fe = scan_name(t, ns).unwrap_or(ns);
            if fe == ns {
                return Err(unexpected(t, ns, "an element name in the end tag"));
            }
            return Err(err(
                ErrorKind::MismatchedEndTag { expected: snippet(&t[os..os + ol], 60), found: snippet(&t[ns..fe], 60) },
                t,
                pos,
            ));
        }
        let p = skip_ws(t, ne);
        if t.get(p) != Some(&b'>') {
            return Err(unexpected(t, p, "`>` closing the end tag"));
        }
        let end = p + 1;
        self.st.stack.pop();
        if self.fragment_depth == 0 {
            close_record(&mut self.tape, open.rec, end);
        }
        self.st.bindings.truncate(open.bindings as usize);
        Ok(end)
    }

    /// A character or entity reference in content, at `pos` (`&`). Returns the offset after `;`.
    fn content_reference(&mut self, t: &[u8], pos: usize) -> Result<usize, Error> {
        if t.get(pos + 1) == Some(&b'#') {
            return char_ref(t, pos).map(|(_, e)| e);
        }
        let ns = pos + 1;
        let ne = scan_name(t, ns).ok_or_else(|| unexpected(t, ns, "an entity name or `#` after `&`"))?;
        if t.get(ne) != Some(&b';') {
            return Err(unexpected(t, ne, "`;` ending the entity reference"));
        }
        let name = std::str::from_utf8(&t[ns..ne]).unwrap_or("");
        // The predefined entities always mean their character (a declaration may only
        // restate that, §4.6), as in attribute values.
        if crate::xml::predefined_entity(name).is_some() {
            return Ok(ne + 1);
        }
        let markup = self.check_entity(t, pos, name, true)?;
        if markup {
            if self.expanded {
                // cannot happen: the expanded text has no references to entities with markup
                return Err(syntax(t, pos, format!("entity `{name}` still has markup after expansion")));
            }
            self.st.markup_refs.push((pos, ne + 1, name.into()));
        }
        Ok(ne + 1)
    }

    /// Checks a reference to general entity `name` in content. Returns whether its
    /// expansion contains markup.
    fn check_entity(&mut self, t: &[u8], at: usize, name: &str, charge: bool) -> Result<bool, Error> {
        // an internal entity this document referred to lately: checked, its size known
        if let Some(&(_, size, markup)) = self.st.recent_entities.iter().find(|e| *e.0 == *name) {
            if charge {
                self.budget.charge(size as usize, t, at)?;
            }
            return Ok(markup);
        }
        match self.dtd.as_deref().and_then(|d| d.entity(name)).map(|d| &d.value) {
            None => {
                let must = self.dtd.as_ref().is_none_or(|d| d.undeclared_is_error());
                if must {
                    return Err(err(ErrorKind::UndeclaredEntity { name: name.into() }, t, at));
                }
                return Ok(false);
            }
            Some(EntityValue::External { notation: Some(_), .. }) => {
                return Err(err(ErrorKind::ForbiddenEntityReference { name: name.into(), reason: "it is an unparsed entity" }, t, at));
            }
            Some(EntityValue::External { .. }) => {
                if self.opts.external == ExternalPolicy::RejectReferences {
                    return Err(err(ErrorKind::ExternalEntity { name: name.into() }, t, at));
                }
                return Ok(false);
            }
            Some(EntityValue::Internal(_)) => {}
        }
        let (size, markup) = match self.st.entities.get(name) {
            Some(EntState::Checking) => return Err(err(ErrorKind::RecursiveEntity { name: name.into() }, t, at)),
            Some(EntState::Checked { size, markup, .. }) => (*size, *markup),
            None => {
                if self.fragment_depth >= self.opts.limits.max_entity_depth {
                    return Err(err(
                        ErrorKind::LimitExceeded {
                            limit: LimitKind::EntityDepth,
                            value: self.fragment_depth as u64 + 1,
                            max: self.opts.limits.max_entity_depth as u64,
                        },
                        t,
                        at,
                    ));
                }
                self.st.entities.insert(name.into(), EntState::Checking);
                // (a copy: checking it parses with this run)
                let repl = match self.dtd.as_deref().and_then(|d| d.entity(name)).map(|d| &d.value) {
                    Some(EntityValue::Internal(r)) => r.clone(),
                    _ => String::new(),
                };
                let r = self.check_replacement(repl.as_bytes());
                let (size, markup, refs) = match r {
                    Ok(v) => v,
                    Err(e) => {
                        return Err(match e.kind() {
                            ErrorKind::RecursiveEntity { .. } | ErrorKind::LimitExceeded { .. } | ErrorKind::MalformedEntity { .. } => {
                                err(e.kind().clone(), t, at)
                            }
                            k => err(ErrorKind::MalformedEntity { name: name.into(), detail: k.to_string() }, t, at),
                        });
                    }
                };
                self.st.entities.insert(name.into(), EntState::Checked { size, markup, refs });
                (size, markup)
            }
        };
        let recent = &mut self.st.recent_entities;
        if recent.len() == RECENT_ENTITIES {
            recent.remove(0);
        }
        recent.push((name.into(), size, markup));
        if charge {
            self.budget.charge(size as usize, t, at)?;
        }
        Ok(markup)
    }

    /// Checks an entity's replacement text as content. Returns (expanded size, has markup, markup refs).
    fn check_replacement(&mut self, r: &[u8]) -> Result<(u64, bool, Vec<MarkupRef>), Error> {
        let has_markup_chars = memchr2(b'<', b'&', r).is_some();
        if !has_markup_chars {
            if memmem::find(r, b"]]>").is_some() {
                return Err(syntax(r, 0, "`]]>` is not allowed in character data".into()));
            }
            return Ok((r.len() as u64, false, Vec::new()));
        }
        // Parse as content with the scanner in fragment mode: no tape writes, no namespace checks
        // (the expanded document is checked with namespaces).
        let saved_refs = std::mem::take(&mut self.st.markup_refs);
        let saved_ns = self.ns_on;
        let saved_stack = self.st.stack.len();
        let saved_bind = self.st.bindings.len();
        self.ns_on = false;
        self.fragment_depth += 1;
        let res = self.content(r, 0, true);
        self.fragment_depth -= 1;
        self.ns_on = saved_ns;
        self.st.stack.truncate(saved_stack);
        self.st.bindings.truncate(saved_bind);
        let inner = std::mem::replace(&mut self.st.markup_refs, saved_refs);
        res?;
        // size: own bytes plus each nested entity's size
        let mut size = r.len() as u64;
        let mut markup = memchr(b'<', r).is_some();
        let mut i = 0;
        while let Some(a) = memchr(b'&', &r[i..]) {
            let s = i + a;
            let e = s + memchr(b';', &r[s..]).unwrap_or(r.len() - s);
            let name = std::str::from_utf8(&r[s + 1..e]).unwrap_or("");
            if !name.starts_with('#') {
                if let Some(EntState::Checked { size: n, markup: m, .. }) = self.st.entities.get(name) {
                    size = size.saturating_add(*n);
                    markup |= *m;
                }
            }
            i = e.max(s + 1);
        }
        Ok((size, markup, inner))
    }

    /// Checks the references in an attribute value (from the first `&` at `from` to `end`).
    fn check_attr_refs(&mut self, t: &[u8], from: usize, end: usize) -> Result<(), Error> {
        let raw = std::str::from_utf8(&t[from..end]).unwrap_or("");
        dtd::normalize_attribute_value(raw, t, from, self.dtd.as_deref(), true, &mut self.budget, 0)?;
        Ok(())
    }
}

/// `qname_ok` of an element type with attribute defaults in the document being
/// parsed: a valid QName the lean path does not take.
pub(super) const QNAME_OK_WITH_DEFAULTS: u8 = 3;

/// Namespaces in XML 1.0 `QName`, given a `Name`: at most one colon, with a name
/// start character after it.
pub(crate) fn is_qname(name: &[u8]) -> bool {
    match name.iter().position(|&b| b == b':') {
        None => true,
        Some(c) => {
            c > 0 && c + 1 < name.len() && !name[c + 1..].contains(&b':') && {
                let (ch, _) = decode_at(name, c + 1);
                is_name_start_char(ch)
            }
        }
    }
}

/// Predicts the name of the element at `ns` (just after its `<`) inside `top`, from
/// the names seen before in the same place (the sibling that followed the previous
/// sibling last time, or the first child of this parent's name last time), and
/// checks the prediction against the bytes: two word compares for a name of up to 16
/// bytes, the arena's bytes for a longer one, and a look at the byte after it.
/// Returns the qname id and the name's end when the prediction holds.
#[inline(always)]
fn predict_name(names: &Names, top: &OpenElem, t: &[u8], ns: usize) -> Option<(QNameId, usize)> {
    let guess = if top.last_child != NO_PREFIX {
        names.qnames[top.last_child.index()].next_guess
    } else {
        names.qnames[top.qid.index()].child_guess
    };
    let g = names.qnames.get(guess.index())?;
    let len = g.blen as usize;
    if ns + len >= t.len() {
        return None;
    }
    let same = if g.len as usize == len {
        crate::names::load16_at(t, ns, len) == (g.w0, g.w1)
    } else {
        names.arena.as_bytes().get(g.off as usize..g.off as usize + len) == Some(&t[ns..ns + len])
    };
    if !same {
        return None;
    }
    // the name really ends there (a non-ASCII byte may continue it: let the full scan decide)
    let after = t[ns + len];
    (after < 0x80 && crate::chars::CLASS[after as usize] & crate::chars::NAME_CHAR == 0).then_some((guess, ns + len))
}

/// Remembers that an element named `qid` is the next child of the open element,
/// for the next name prediction.
#[inline(always)]
fn note_child(stack: &mut [OpenElem], names: &mut Names, qid: QNameId) {
    if let Some(top) = stack.last_mut() {
        let prev = top.last_child;
        top.last_child = qid;
        if prev != NO_PREFIX {
            names.qnames[prev.index()].next_guess = qid;
        } else {
            names.qnames[top.qid.index()].child_guess = qid;
        }
    }
}

/// The namespace the declarations in scope bind `prefix` to (a qname id;
/// `NO_PREFIX` for the default namespace), nearest first. `None` when none does.
#[inline(always)]
fn bound(bindings: &[Binding], prefix: QNameId) -> Option<NsId> {
    bindings.iter().rev().find(|b| b.prefix == prefix).map(|b| b.ns)
}

/// What is wrong with declaring `prefix` (a qname id, `NO_PREFIX` for `xmlns=`) bound
/// to `uri` (Namespaces in XML 1.0 §3 and the reserved prefixes and names), or `None`.
fn declaration_problem(names: &Names, q_xml: QNameId, q_xmlns: QNameId, prefix: QNameId, uri: &[u8]) -> Option<String> {
    if prefix == q_xmlns {
        return Some("the prefix `xmlns` must not be declared".into());
    }
    if prefix == q_xml {
        if uri != XML_NAMESPACE.as_bytes() {
            return Some(format!("the prefix `xml` can only be bound to `{XML_NAMESPACE}`"));
        }
    } else if uri == XML_NAMESPACE.as_bytes() {
        return Some(format!("`{XML_NAMESPACE}` can only be bound to the prefix `xml`"));
    }
    if uri == XMLNS_NAMESPACE.as_bytes() {
        return Some(format!("`{XMLNS_NAMESPACE}` must not be declared"));
    }
    if prefix != NO_PREFIX && uri.is_empty() {
        return Some(format!("the prefix `{}` cannot be undeclared (empty namespace name) in XML 1.0", names.qname_text(prefix)));
    }
    None
}

/// The first of `attrs` that repeats an earlier one, by qualified name or (with
/// namespaces) by expanded name. Pairwise, for the few attributes of a tag; past
/// four, [`may_repeat`] rules most tags out in one pass first.
#[inline]
fn first_duplicate(attrs: &[AttrScratch], t: &[u8], ns_on: bool) -> Option<usize> {
    if attrs.len() > 4 && !may_repeat(attrs, ns_on) {
        return None;
    }
    for i in 1..attrs.len() {
        for j in 0..i {
            let (a, b) = (&attrs[i], &attrs[j]);
            let same_q = a.qid == b.qid;
            let same_x = !same_q && ns_on && a.ns == b.ns && a.ns != NS_NONE && !a.is_decl && !b.is_decl && {
                let la = local_of(&t[a.name_off as usize..a.name_end as usize]);
                let lb = local_of(&t[b.name_off as usize..b.name_end as usize]);
                la == lb
            };
            if same_q || same_x {
                return Some(i);
            }
        }
    }
    None
}

/// False when no two of `attrs` can share a name: a 256-bit set of the names' ids
/// (modulo 256) shows no two ids alike, and at most one attribute is in a namespace
/// (two could share an expanded name under different prefixes).
#[inline]
fn may_repeat(attrs: &[AttrScratch], ns_on: bool) -> bool {
    let mut bits = [0u64; 4];
    let mut clash = 0u64;
    let mut in_ns = 0usize;
    for a in attrs {
        let q = a.qid.index() & 255;
        let bit = 1u64 << (q & 63);
        clash |= bits[q >> 6] & bit;
        bits[q >> 6] |= bit;
        in_ns += usize::from(ns_on && a.ns != NS_NONE && !a.is_decl);
    }
    clash != 0 || in_ns > 1
}

/// Completes the element record at word `rec` once its end is known: the word after
/// its subtree (the tape's length now) and the byte offset after its end tag.
#[inline(always)]
fn close_record(tape: &mut [u32], rec: u32, end: usize) {
    let next = tape.len() as u32;
    if let Some(r) = tape.get_mut(rec as usize..rec as usize + 5) {
        r[2] = next;
        r[4] = end as u32;
    }
}

/// Appends a record's words to the tape (one copy; `resize` and a copy wrote each word twice).
#[inline(always)]
fn put<const N: usize>(tape: &mut Vec<u32>, words: [u32; N]) {
    tape.extend_from_slice(&words);
}

/// `t[a..a + len] == t[b..b + len]` (both in range) without a `memcmp` call for the
/// short names that dominate.
#[inline(always)]
fn same_at(t: &[u8], a: usize, b: usize, len: usize) -> bool {
    if len <= 16 {
        return crate::names::load16_at(t, a, len) == crate::names::load16_at(t, b, len);
    }
    t[a..a + len] == t[b..b + len]
}

#[inline]
fn local_of(name: &[u8]) -> &[u8] {
    match memchr(b':', name) {
        Some(c) => &name[c + 1..],
        None => name,
    }
}

/// Parses a character reference at `pos` (`&#`). Returns the code point and the offset after `;`.
pub(crate) fn char_ref(t: &[u8], pos: usize) -> Result<(char, usize), Error> {
    let mut p = pos + 2;
    let hex = t.get(p) == Some(&b'x');
    if hex {
        p += 1;
    }
    let ds = p;
    let mut v: u32 = 0;
    while let Some(&b) = t.get(p) {
        let d = match b {
            b'0'..=b'9' => (b - b'0') as u32,
            b'a'..=b'f' if hex => (b - b'a' + 10) as u32,
            b'A'..=b'F' if hex => (b - b'A' + 10) as u32,
            _ => break,
        };
        v = v.saturating_mul(if hex { 16 } else { 10 }).saturating_add(d);
        p += 1;
    }
    if p == ds {
        return Err(unexpected(
            t,
            p,
            if hex { "hexadecimal digits in the character reference" } else { "digits in the character reference" },
        ));
    }
    if t.get(p) != Some(&b';') {
        return Err(unexpected(t, p, "`;` ending the character reference"));
    }
    let c = match char::from_u32(v) {
        Some(c) if crate::chars::is_xml_char(v) => c,
        _ => return Err(err(ErrorKind::InvalidCharRef { text: snippet(&t[pos..=p], 20) }, t, pos)),
    };
    Ok((c, p + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn att(qid: u32, name: (u32, u32), ns: NsId) -> AttrScratch {
        AttrScratch {
            qid: QNameId::new(qid),
            name_off: name.0,
            name_end: name.1,
            val_start: 0,
            val_end: 0,
            ns,
            is_decl: false,
            plain: true,
        }
    }

    /// The usual declaration read in a few compares reads as the general reader
    /// reads it (the same with a space before `?>`, which only the latter takes).
    #[test]
    fn common_declaration_as_the_general_reader() {
        for (fast, general) in [
            ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>", "<?xml version=\"1.0\" encoding=\"UTF-8\" ?><a/>"),
            ("<?xml version='1.0' encoding='utf-8'?>\n<a/>", "<?xml version='1.0' encoding='utf-8' ?>\n<a/>"),
        ] {
            let a = crate::Document::parse(fast.as_bytes()).unwrap();
            let b = crate::Document::parse(general.as_bytes()).unwrap();
            let (da, db) = (a.xml_declaration().unwrap(), b.xml_declaration().unwrap());
            assert_eq!((&da.version, &da.encoding, da.standalone), (&db.version, &db.encoding, db.standalone));
            assert_eq!((da.span.clone(), db.span.clone()), (0..38, 0..39));
            assert_eq!(a.root_element().name(), "a");
        }
    }

    #[test]
    fn first_duplicate_by_name_and_by_expanded_name() {
        // names in `t`: a:x (0..3), b:x (4..7), c (8..9)
        let t = b"a:x b:x c";
        // ids 1 and 257 share a bit of the set but differ: no repeat
        assert_eq!(first_duplicate(&[att(1, (8, 9), NS_NONE), att(257, (8, 9), NS_NONE)], t, true), None);
        assert_eq!(first_duplicate(&[att(5, (8, 9), NS_NONE), att(6, (8, 9), NS_NONE), att(5, (8, 9), NS_NONE)], t, true), Some(2));
        // a:x and b:x bound to one namespace: the same expanded name, only with namespaces on
        let (ax, bx) = (att(10, (0, 3), NsId::new(7)), att(11, (4, 7), NsId::new(7)));
        assert_eq!(first_duplicate(&[att(3, (8, 9), NS_NONE), ax, bx], t, true), Some(2));
        let (ax, bx) = (att(10, (0, 3), NsId::new(7)), att(11, (4, 7), NsId::new(7)));
        assert_eq!(first_duplicate(&[ax, bx], t, false), None);
        let (ax, bx) = (att(10, (0, 3), NsId::new(7)), att(11, (4, 7), NsId::new(8)));
        assert_eq!(first_duplicate(&[ax, bx], t, true), None);
        // past four attributes the one-pass set decides first: ids 256 apart share a bit
        let plain = |ids: &[u32]| ids.iter().map(|&q| att(q, (8, 9), NS_NONE)).collect::<Vec<_>>();
        assert!(!may_repeat(&plain(&[1, 2, 3, 4, 5, 6]), true));
        assert!(may_repeat(&plain(&[1, 2, 3, 4, 5, 257]), true));
        assert_eq!(first_duplicate(&plain(&[1, 2, 3, 4, 5, 257]), t, true), None);
        assert_eq!(first_duplicate(&plain(&[1, 2, 3, 4, 5, 6, 3]), t, true), Some(6));
        let mut v = plain(&[1, 2, 3, 4]);
        v.extend([att(10, (0, 3), NsId::new(7)), att(11, (4, 7), NsId::new(7))]);
        assert!(may_repeat(&v, true));
        assert_eq!(first_duplicate(&v, t, true), Some(5));
        assert_eq!(first_duplicate(&v, t, false), None);
    }
}
