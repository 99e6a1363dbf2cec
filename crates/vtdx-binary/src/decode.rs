//! Unpacking: a document frame to a [`Document`]. The tokens say where each piece
//! of markup goes, so the decoder writes the text and the token index together,
//! without scanning the text; [`Document::assemble`] then checks the two against
//! each other (a packed input is untrusted). A document with a DOCTYPE, or stored
//! verbatim, is handed to the parser instead (`docs/binary-format.md`).

use std::sync::Arc;

use vtdx_core::tape::{RecordKind, KIND_SHIFT, NONE};
use vtdx_core::{Document, LimitKind, Names, ParseOptions, Parser, Sym};

use crate::encode::FIXED_NS;
use crate::wire::*;
use crate::{Error, ErrorKind};

/// One symbol of the stream's table.
#[derive(Clone, Copy)]
struct DecSym {
    sym: Sym,
    /// The qualified name in `qarena`.
    qoff: u32,
    qlen: u32,
    /// A namespace declaration's name (`xmlns`, `xmlns:p`, with namespaces on).
    decl: bool,
}

/// The decoder's copy of the tables.
pub(crate) struct DecTables {
    qarena: Vec<u8>,
    qnames: Vec<(u32, u32)>,
    ns: Vec<Box<str>>,
    syms: Vec<DecSym>,
    varena: Vec<u8>,
    values: Vec<(u32, u32)>,
    names: Arc<Names>,
}

impl DecTables {
    pub fn new() -> Self {
        let mut t = DecTables {
            qarena: Vec::new(),
            qnames: Vec::new(),
            ns: Vec::new(),
            syms: Vec::new(),
            varena: Vec::new(),
            values: Vec::new(),
            names: Arc::new(Names::default()),
        };
        t.reset();
        t
    }

    pub fn reset(&mut self) {
        self.qarena.clear();
        self.qnames.clear();
        self.ns.clear();
        self.ns.extend(FIXED_NS.iter().map(|&u| Box::<str>::from(u)));
        self.syms.clear();
        self.varena.clear();
        self.values.clear();
        self.names = Arc::new(Names::default());
    }
}

const K_ELEM: u32 = RecordKind::Element as u32;

/// Most bytes reserved up front from a size the input states (the rest is
/// allocated as the output really grows).
const RESERVE_CAP: usize = 64 << 20;

/// Decodes one document payload.
pub(crate) fn document(r: &mut Reader<'_>, tables: &mut DecTables, opts: &ParseOptions) -> Result<Document<'static>, Error> {
    let tr = r.byte("the document's transform")?;
    if tr == TR_VERBATIM {
        let src = r.str("the verbatim input")?;
        let mut p = Parser::with_options(opts.clone());
        return p.parse_owned(src.to_vec()).map_err(|e| r.error(ErrorKind::Document(e)));
    }
    if tr > TR_LATIN1 {
        return Err(r.malformed(format!("unknown transform {tr}")));
    }
    read_tables(r, tables, opts)?;
    let max_text = opts.limits.max_document_size.min(u32::MAX as u64 - 1);
    let text_len = r.varint("the text length")?;
    if text_len > max_text {
        let e = vtdx_core::Error::at(
            vtdx_core::ErrorKind::LimitExceeded { limit: LimitKind::DocumentSize, value: text_len, max: max_text },
            &[],
            0,
        );
        return Err(r.error(ErrorKind::Document(e)));
    }
    let text_len = text_len as usize;
    let words = r.count("the index size", vtdx_core::tape::MAX_TAPE_WORDS)?;
    let bom = if tr == TR_UTF8_BOM { 3 } else { 0 };
    let mut buf: Vec<u8> = Vec::with_capacity(bom + text_len.min(RESERVE_CAP));
    if bom == 3 {
        buf.extend_from_slice(&[0xEF, 0xBB, 0xBF]);
    }
    let mut tape: Vec<u32> = Vec::with_capacity(words.min(RESERVE_CAP / 4));
    let doctype = tokens(r, tables, opts, &mut buf, bom, &mut tape, bom + text_len)?;
    if buf.len() != bom + text_len || tape.len() != words {
        return Err(r.malformed(format!(
            "the document is {} bytes with {} index words, its header says {text_len} and {words}",
            buf.len() - bom,
            tape.len()
        )));
    }
    let source = match tr {
        TR_UTF8 | TR_UTF8_BOM => buf,
        TR_UTF16LE | TR_UTF16LE_BOM | TR_UTF16BE | TR_UTF16BE_BOM => {
            let le = tr <= TR_UTF16LE_BOM;
            let with_bom = tr == TR_UTF16LE_BOM || tr == TR_UTF16BE_BOM;
            let s = std::str::from_utf8(&buf).map_err(|e| r.malformed(format!("the text is not UTF-8 at byte {}", e.valid_up_to())))?;
            let mut out = Vec::with_capacity(buf.len() * 2 + 2);
            if with_bom {
                out.extend_from_slice(if le { &[0xFF, 0xFE] } else { &[0xFE, 0xFF] });
            }
            for u in s.encode_utf16() {
                out.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
            }
            out
        }
        _ => {
            let s = std::str::from_utf8(&buf).map_err(|e| r.malformed(format!("the text is not UTF-8 at byte {}", e.valid_up_to())))?;
            let mut out = Vec::with_capacity(buf.len());
            for c in s.chars() {
                let c = c as u32;
                if c > 0xFF {
                    return Err(r.malformed(format!("character U+{c:04X} cannot be written in ISO-8859-1")));
                }
                out.push(c as u8);
            }
            out
        }
    };
    let doc = if doctype {
        Parser::with_options(opts.clone()).parse_owned(source)
    } else {
        Document::assemble(source, tape, tables.names.clone(), opts)
    };
    doc.map_err(|e| r.error(ErrorKind::Document(e)))
}

/// The table additions at the start of a document payload.
fn read_tables(r: &mut Reader<'_>, t: &mut DecTables, opts: &ParseOptions) -> Result<(), Error> {
    let rest = |r: &Reader<'_>| r.data.len().saturating_sub(r.pos);
    let nq = r.count("the number of new names", rest(r))?;
    for _ in 0..nq {
        let q = r.str("a name")?;
        if std::str::from_utf8(q).is_err() {
            return Err(r.malformed("a name that is not UTF-8"));
        }
        if q.len() as u64 > opts.limits.max_name_len as u64 {
            let e = vtdx_core::Error::at(
                vtdx_core::ErrorKind::LimitExceeded {
                    limit: LimitKind::NameLength,
                    value: q.len() as u64,
                    max: opts.limits.max_name_len as u64,
                },
                &[],
                0,
            );
            return Err(r.error(ErrorKind::Document(e)));
        }
        t.qnames.push((t.qarena.len() as u32, q.len() as u32));
        t.qarena.extend_from_slice(q);
    }
    let nn = r.count("the number of new namespace names", rest(r))?;
    for _ in 0..nn {
        let u = r.str("a namespace name")?;
        let u = std::str::from_utf8(u).map_err(|_| r.malformed("a namespace name that is not UTF-8"))?;
        Arc::make_mut(&mut t.names).intern_namespace(u);
        t.ns.push(u.into());
    }
    let ns_count = r.count("the number of new symbols", rest(r))?;
    for _ in 0..ns_count {
        let qh = r.count("a symbol's name", t.qnames.len().saturating_sub(1))?;
        let nh = r.count("a symbol's namespace", t.ns.len().saturating_sub(1))?;
        let (qoff, qlen) = t.qnames[qh];
        let q = std::str::from_utf8(&t.qarena[qoff as usize..(qoff + qlen) as usize]).unwrap_or("");
        let sym = Arc::make_mut(&mut t.names).try_intern(q, &t.ns[nh]).map_err(|e| r.error(ErrorKind::Document(e)))?;
        let decl = opts.namespaces && (q == "xmlns" || q.starts_with("xmlns:"));
        t.syms.push(DecSym { sym, qoff, qlen, decl });
    }
    Ok(())
}

/// An attribute value (or text) reference: a literal, a literal entered in the
/// value table, or a table entry.
#[inline(always)]
fn value(r: &mut Reader<'_>, t: &mut DecTables, buf: &mut Vec<u8>) -> Result<(), Error> {
    let v = r.varint("an attribute value")?;
    let tag = v & 3;
    let n = v >> 2;
    match tag {
        0 | 1 => {
            let n = usize::try_from(n).map_err(|_| r.malformed("value too long"))?;
            let s = r.bytes(n, "an attribute value")?;
            if tag == 1 {
                add_value(r, t, s)?;
            }
            buf.extend_from_slice(s);
            Ok(())
        }
        2 => match t.values.get(n as usize) {
            Some(&(o, l)) => {
                buf.extend_from_slice(&t.varena[o as usize..(o + l) as usize]);
                Ok(())
            }
            None => Err(r.malformed(format!("value handle {n} is not in the table ({} entries)", t.values.len()))),
        },
        _ => Err(r.malformed("an attribute value of unknown form")),
    }
}

#[inline]
fn add_value(r: &Reader<'_>, t: &mut DecTables, s: &[u8]) -> Result<(), Error> {
    if s.is_empty() || s.len() > VALUE_MAX_LEN || t.values.len() >= VALUE_MAX_ENTRIES {
        return Err(r.malformed("a value entered in the table that the table does not take"));
    }
    t.values.push((t.varena.len() as u32, s.len() as u32));
    t.varena.extend_from_slice(s);
    Ok(())
}

/// The tokens of a document: writes the text into `buf` (after `bom` bytes) and
/// the index into `tape`. Returns whether the document has a DOCTYPE.
#[allow(clippy::too_many_arguments)]
fn tokens(
    r: &mut Reader<'_>,
    t: &mut DecTables,
    opts: &ParseOptions,
    buf: &mut Vec<u8>,
    bom: usize,
    tape: &mut Vec<u32>,
    max_len: usize,
) -> Result<bool, Error> {
    // open elements: (record, symbol index)
    let mut stack: Vec<(u32, u32)> = Vec::new();
    // the element whose start tag is open: (record, symbol index)
    let mut open: Option<(u32, u32)> = None;
    let mut doctype = false;
    let mut root_done = false;
    let max_depth = opts.limits.max_depth as usize;
    loop {
        if buf.len() > max_len {
            return Err(r.malformed("the text is longer than its header says"));
        }
        let op = r.byte("a token")?;
        let in_tag_op = matches!(op, 0x40..=0x7F | OP_ATTR_Q | OP_ATTR_X | OP_TAG_WS | OP_EMPTY);
        if let Some(o) = open {
            if !in_tag_op {
                buf.push(b'>');
                stack.push(o);
                open = None;
            }
        } else if in_tag_op {
            return Err(r.malformed(format!("token 0x{op:02X} outside a start tag")));
        }
        match op {
            0x00..=0x3F => {
                let h = r.ranged(op & 0x3F, "an element name handle")?;
                let s = *t.syms.get(h).ok_or_else(|| r.malformed(format!("name handle {h} is not in the table")))?;
                if stack.len() >= max_depth {
                    let e = vtdx_core::Error::at(
                        vtdx_core::ErrorKind::LimitExceeded {
                            limit: LimitKind::Depth,
                            value: stack.len() as u64 + 1,
                            max: max_depth as u64,
                        },
                        &[],
                        0,
                    );
                    return Err(r.error(ErrorKind::Document(e)));
                }
                if stack.is_empty() {
                    if root_done {
                        return Err(r.malformed("a second root element"));
                    }
                    root_done = true;
                }
                let parent = stack.last().map_or(NONE, |&(e, _)| e);
                let rec = tape.len() as u32;
                tape.extend_from_slice(&[(K_ELEM << KIND_SHIFT) | s.sym.as_u32(), (buf.len() - bom) as u32, 0, parent, 0]);
                buf.push(b'<');
                buf.extend_from_slice(&t.qarena[s.qoff as usize..(s.qoff + s.qlen) as usize]);
                open = Some((rec, h as u32));
            }
            0x40..=0x7F | OP_ATTR_Q | OP_ATTR_X => {
                let h = if op < 0x80 {
                    r.ranged(op & 0x3F, "an attribute name handle")?
                } else {
                    r.count("an attribute name handle", u32::MAX as usize)?
                };
                let s = *t.syms.get(h).ok_or_else(|| r.malformed(format!("name handle {h} is not in the table")))?;
                let kind = if s.decl { RecordKind::NsDecl } else { RecordKind::Attribute } as u32;
                let quote = if op == OP_ATTR_X {
                    let ws1 = r.str("whitespace before an attribute")?;
                    buf.extend_from_slice(ws1);
                    tape.extend_from_slice(&[(kind << KIND_SHIFT) | s.sym.as_u32(), (buf.len() - bom) as u32]);
                    buf.extend_from_slice(&t.qarena[s.qoff as usize..(s.qoff + s.qlen) as usize]);
                    let ws2 = r.str("whitespace before `=`")?;
                    buf.extend_from_slice(ws2);
                    buf.push(b'=');
                    let ws3 = r.str("whitespace after `=`")?;
                    buf.extend_from_slice(ws3);
                    let q = r.byte("a quote")?;
                    if q != b'"' && q != b'\'' {
                        return Err(r.malformed("an attribute quote that is not `\"` or `'`"));
                    }
                    q
                } else {
                    buf.push(b' ');
                    tape.extend_from_slice(&[(kind << KIND_SHIFT) | s.sym.as_u32(), (buf.len() - bom) as u32]);
                    buf.extend_from_slice(&t.qarena[s.qoff as usize..(s.qoff + s.qlen) as usize]);
                    buf.push(b'=');
                    if op == OP_ATTR_Q {
                        b'\''
                    } else {
                        b'"'
                    }
                };
                buf.push(quote);
                value(r, t, buf)?;
                buf.push(quote);
            }
            0x80..=0xBF => {
                let n = r.ranged(op & 0x3F, "a text length")?;
                let s = r.bytes(n, "text")?;
                buf.extend_from_slice(s);
            }
            OP_TEXT_NEW => {
                let s = r.str("text")?;
                add_value(r, t, s)?;
                buf.extend_from_slice(s);
            }
            OP_TEXT_REF => {
                let h = r.count("a text handle", t.values.len().saturating_sub(1))?;
                let Some(&(o, l)) = t.values.get(h) else { return Err(r.malformed("a text handle with an empty table")) };
                buf.extend_from_slice(&t.varena[o as usize..(o + l) as usize]);
            }
            OP_END | OP_END_X => {
                let Some((e, h)) = stack.pop() else { return Err(r.malformed("an end tag with no open element")) };
                let s = t.syms[h as usize];
                buf.extend_from_slice(b"</");
                buf.extend_from_slice(&t.qarena[s.qoff as usize..(s.qoff + s.qlen) as usize]);
                if op == OP_END_X {
                    let ws = r.str("whitespace in an end tag")?;
                    buf.extend_from_slice(ws);
                }
                buf.push(b'>');
                close(tape, e, (buf.len() - bom) as u32);
            }
            OP_EMPTY => {
                let Some((e, _)) = open.take() else { return Err(r.malformed("`/>` outside a start tag")) };
                buf.extend_from_slice(b"/>");
                close(tape, e, (buf.len() - bom) as u32);
            }
            OP_TAG_WS => {
                let ws = r.str("whitespace in a start tag")?;
                buf.extend_from_slice(ws);
            }
            OP_COMMENT | OP_PI | OP_CDATA => {
                let body = r.str("a comment, PI or CDATA section")?;
                let start = (buf.len() - bom) as u32;
                let (open_s, close_s, kind): (&[u8], &[u8], RecordKind) = match op {
                    OP_COMMENT => (b"<!--", b"-->", RecordKind::Comment),
                    OP_PI => (b"<?", b"?>", RecordKind::Pi),
                    _ => (b"<![CDATA[", b"]]>", RecordKind::Cdata),
                };
                buf.extend_from_slice(open_s);
                buf.extend_from_slice(body);
                buf.extend_from_slice(close_s);
                let parent = stack.last().map_or(NONE, |&(e, _)| e);
                tape.extend_from_slice(&[(kind as u32) << KIND_SHIFT, start, (buf.len() - bom) as u32, parent]);
            }
            OP_XMLDECL | OP_DOCTYPE => {
                if !stack.is_empty() || root_done {
                    return Err(r.malformed("an XML or document type declaration inside or after the root element"));
                }
                let s = r.str("a declaration")?;
                buf.extend_from_slice(s);
                doctype |= op == OP_DOCTYPE;
            }
            OP_EOD => {
                if !stack.is_empty() {
                    return Err(r.malformed("the document ends with elements open"));
                }
                return Ok(doctype);
            }
            _ => return Err(r.malformed(format!("unknown token 0x{op:02X}"))),
        }
    }
}

/// Completes element record `e`: its *next* is the tape's length now, its end `end`.
#[inline(always)]
fn close(tape: &mut [u32], e: u32, end: u32) {
    let next = tape.len() as u32;
    if let Some(rec) = tape.get_mut(e as usize..e as usize + 5) {
        rec[2] = next;
        rec[4] = end;
    }
}
