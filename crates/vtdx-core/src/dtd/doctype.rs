//! The DOCTYPE parser: `<!DOCTYPE ...>` and its internal subset, checked
//! against the grammar of markup declarations and recorded in a [`Dtd`].

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

use crate::chars::{is_ws, scan_name, scan_nmtoken, skip_ws};
use crate::error::{describe_at, Error, ErrorKind, LimitKind};
use crate::options::{ExternalPolicy, ParseOptions};

use super::normalize::{parse_char_ref, scan_entity_ref};
use super::{normalize_attribute_value, AttDecl, AttDefault, AttType, Dtd, EntityDecl, EntityValue, ExpansionBudget, NotationDecl};

/// Parses the document type declaration starting at `start` (`text[start..]`
/// begins with `<!DOCTYPE`). `standalone` is the XML declaration's
/// standalone="yes". Returns the Dtd and the offset just after the closing `>`.
pub fn parse_doctype(
    text: &[u8],
    start: usize,
    standalone: bool,
    opts: &ParseOptions,
    budget: &mut ExpansionBudget,
) -> Result<(Dtd, usize), Error> {
    let mut p = DtdParser {
        text,
        opts,
        budget,
        standalone,
        dtd: Dtd::default(),
        skipping: false,
        pe_stack: Vec::new(),
        att_seen: HashSet::new(),
        notation_seen: HashSet::new(),
    };
    let end = p.doctype(start)?;
    let mut dtd = p.dtd;
    dtd.span = start..end;
    normalize_defaults(&mut dtd, text, opts)?;
    Ok((dtd, end))
}

/// Fills [`AttDecl::value`] and [`AttDecl::value_expansion`] of every
/// declaration with a default, once all entities are known. The bytes entity
/// expansion produces were charged to the document's budget when the
/// declaration was read; the parser charges them again for every element the
/// default applies to.
fn normalize_defaults(dtd: &mut Dtd, text: &[u8], opts: &ParseOptions) -> Result<(), Error> {
    let mut values = Vec::new();
    for (i, a) in dtd.attributes.iter().enumerate() {
        let raw = match &a.default {
            AttDefault::Default(v) | AttDefault::Fixed(v) => v.as_str(),
            _ => continue,
        };
        let cdata = a.ty == AttType::Cdata;
        let mut scratch = ExpansionBudget::new(opts, text.len());
        let value = normalize_attribute_value(raw, text, a.decl_offset, Some(dtd), cdata, &mut scratch, 0)?.into_owned();
        let expansion = scratch.used;
        values.push((i, value, expansion));
    }
    for (i, v, x) in values {
        dtd.attributes[i].value = Some(v);
        dtd.attributes[i].value_expansion = x;
    }
    Ok(())
}

/// The bytes being parsed: the document, or the replacement text of an
/// internal parameter entity referenced in the internal subset.
#[derive(Clone, Copy)]
struct Src<'s> {
    b: &'s [u8],
    /// For replacement text: the offset in the document of the outermost
    /// parameter-entity reference, where all errors are reported. Replacement
    /// text has normalized line ends.
    ref_off: Option<usize>,
    /// For replacement text: the name of that outermost parameter entity.
    pe_name: &'s str,
}

struct DtdParser<'t, 'b> {
    text: &'t [u8],
    opts: &'t ParseOptions,
    budget: &'b mut ExpansionBudget,
    standalone: bool,
    dtd: Dtd,
    /// After a reference to a parameter entity that was not read (§5.1).
    skipping: bool,
    /// Parameter entities being expanded (recursion check).
    pe_stack: Vec<String>,
    att_seen: HashSet<(String, String)>,
    notation_seen: HashSet<String>,
}

fn token(b: &[u8], pos: usize) -> Option<(&str, usize)> {
    let end = scan_name(b, pos)?;
    std::str::from_utf8(&b[pos..end]).ok().map(|s| (s, end))
}

impl<'t> DtdParser<'t, '_> {
    // ---- errors

    fn err(&self, src: &Src, pos: usize, kind: ErrorKind) -> Error {
        match src.ref_off {
            None => Error::at(kind, self.text, pos),
            Some(r) => {
                let kind = match kind {
                    ErrorKind::UnexpectedEof { expected } => ErrorKind::Dtd {
                        detail: format!(
                            "the replacement text of parameter entity `%{};` ends inside a markup declaration: expected {expected}",
                            src.pe_name
                        ),
                    },
                    ErrorKind::Dtd { detail } => {
                        ErrorKind::Dtd { detail: format!("in the replacement text of parameter entity `%{};`: {detail}", src.pe_name) }
                    }
                    k => k,
                };
                Error::at(kind, self.text, r)
            }
        }
    }

    fn dtd_err(&self, src: &Src, pos: usize, detail: String) -> Error {
        self.err(src, pos, ErrorKind::Dtd { detail })
    }

    /// "expected `what`" at `pos`: end of input, a misplaced parameter-entity
    /// reference, or some other character.
    fn expected(&self, src: &Src, pos: usize, what: &'static str) -> Error {
        let kind = match src.b.get(pos) {
            None => ErrorKind::UnexpectedEof { expected: what },
            Some(b'%') => ErrorKind::Dtd {
                detail: format!(
                    "expected {what}, found a parameter-entity reference; in the internal subset they may occur only between markup declarations (wfc: pes in internal subset)"
                ),
            },
            Some(_) => ErrorKind::Dtd {
                detail: format!("expected {what}, found {}", describe_at(src.b, pos)),
            },
        };
        self.err(src, pos, kind)
    }

    /// Re-homes an error computed against `src.b` (by attribute-value
    /// normalization) into the document.
    fn remap(&self, src: &Src, e: Error) -> Error {
        match src.ref_off {
            None => e,
            Some(_) => self.err(src, 0, e.kind().clone()),
        }
    }

    fn decl_offset(src: &Src, pos: usize) -> usize {
        src.ref_off.unwrap_or(pos)
    }

    // ---- lexical pieces

    /// Requires at least one white space character at `pos`; returns the
    /// offset after the white space.
    fn req_ws(&self, src: &Src, pos: usize, what: &'static str) -> Result<usize, Error> {
        match src.b.get(pos) {
            Some(&c) if is_ws(c) => Ok(skip_ws(src.b, pos)),
            _ => Err(self.expected(src, pos, what)),
        }
    }

    fn name<'s>(&self, src: &Src<'s>, pos: usize, what: &'static str) -> Result<(&'s str, usize), Error> {
        let Some(end) = scan_name(src.b, pos) else {
            return Err(self.expected(src, pos, what));
        };
        self.check_len(src, pos, end)?;
        match std::str::from_utf8(&src.b[pos..end]) {
            Ok(s) => Ok((s, end)),
            Err(_) => Err(self.err(src, pos, ErrorKind::InvalidUtf8)),
        }
    }

    fn check_len(&self, src: &Src, pos: usize, end: usize) -> Result<(), Error> {
        let max = self.opts.limits.max_name_len as u64;
        let len = (end - pos) as u64;
        if len > max {
            return Err(self.err(src, pos, ErrorKind::LimitExceeded { limit: LimitKind::NameLength, value: len, max }));
        }
        Ok(())
    }

    /// Namespaces in XML 1.0 §7: entity names, PI targets and notation names
    /// contain no colon.
    fn check_no_colon(&self, src: &Src, pos: usize, name: &str) -> Result<(), Error> {
        if self.opts.namespaces && name.contains(':') {
            return Err(self.err(src, pos, ErrorKind::InvalidName { name: name.to_string() }));
        }
        Ok(())
    }

    /// A quoted literal at `pos`; returns the content range and the offset
    /// after the closing quote.
    fn literal(&self, src: &Src, pos: usize, what: &'static str) -> Result<(Range<usize>, usize), Error> {
        let q = match src.b.get(pos) {
            Some(&q @ (b'"' | b'\'')) => q,
            _ => return Err(self.expected(src, pos, what)),
        };
        match memchr::memchr(q, &src.b[pos + 1..]) {
            Some(k) => Ok((pos + 1..pos + 1 + k, pos + 2 + k)),
            None => Err(self.err(src, src.b.len(), ErrorKind::UnexpectedEof { expected: "the closing quote of a literal" })),
        }
    }

    fn system_literal(&self, src: &Src, pos: usize) -> Result<(String, usize), Error> {
        let (r, end) = self.literal(src, pos, "a quoted system literal")?;
        Ok((lossy(&src.b[r]).into_owned(), end))
    }

    fn pubid_literal(&self, src: &Src, pos: usize) -> Result<(String, usize), Error> {
        let (r, end) = self.literal(src, pos, "a quoted public identifier")?;
        for i in r.clone() {
            let c = src.b[i];
            if !is_pubid_char(c) {
                return Err(self.dtd_err(src, i, format!("{} is not allowed in a public identifier", describe_at(src.b, i))));
            }
        }
        // §4.2.2: white space normalized before matching
        let raw = lossy(&src.b[r]);
        let norm: Vec<&str> = raw.split([' ', '\r', '\n']).filter(|p| !p.is_empty()).collect();
        Ok((norm.join(" "), end))
    }

    /// ExternalID (or, for notations, PublicID) at `pos`, which starts with
    /// `SYSTEM` or `PUBLIC`.
    fn external_id(&self, src: &Src, pos: usize, notation: bool) -> Result<(Option<String>, Option<String>, usize), Error> {
        let (kw, p) = token(src.b, pos).unwrap_or(("", pos));
        match kw {
            "SYSTEM" => {
                let p = self.req_ws(src, p, "whitespace after `SYSTEM`")?;
                let (sys, p) = self.system_literal(src, p)?;
                Ok((None, Some(sys), p))
            }
            "PUBLIC" => {
                let p = self.req_ws(src, p, "whitespace after `PUBLIC`")?;
                let (public, p) = self.pubid_literal(src, p)?;
                if notation {
                    let q = skip_ws(src.b, p);
                    if q > p && matches!(src.b.get(q), Some(b'"' | b'\'')) {
                        let (sys, q) = self.system_literal(src, q)?;
                        return Ok((Some(public), Some(sys), q));
                    }
                    return Ok((Some(public), None, p));
                }
                let p = self.req_ws(src, p, "whitespace and a system literal after the public identifier")?;
                let (sys, p) = self.system_literal(src, p)?;
                Ok((Some(public), Some(sys), p))
            }
            _ => Err(self.expected_keyword(src, pos, "`SYSTEM` or `PUBLIC`")),
        }
    }

    /// With [`ExternalPolicy::Forbid`], the error for the external identifier at
    /// `from..to` of the declaration `what` names.
    fn refuse_external(&self, src: &Src, from: usize, to: usize, what: impl FnOnce() -> String) -> Result<(), Error> {
        if self.opts.external != ExternalPolicy::Forbid {
            return Ok(());
        }
        let identifier = String::from_utf8_lossy(&src.b[from..to.min(src.b.len())]).into_owned();
        let kind = ErrorKind::ExternalReference { what: what(), identifier };
        Err(self.err(src, from, kind))
    }

    /// Like [`Self::expected`], quoting the whole word when a name is found.
    fn expected_keyword(&self, src: &Src, pos: usize, what: &'static str) -> Error {
        match token(src.b, pos) {
            Some((word, _)) => self.dtd_err(src, pos, format!("expected {what}, found `{word}`")),
            None => self.expected(src, pos, what),
        }
    }

    // ---- the declaration

    fn doctype(&mut self, start: usize) -> Result<usize, Error> {
        let text = self.text;
        let src = Src { b: text, ref_off: None, pe_name: "" };
        if !text.get(start..).is_some_and(|t| t.starts_with(b"<!DOCTYPE")) {
            return Err(self.expected(&src, start.min(text.len()), "`<!DOCTYPE`"));
        }
        let mut pos = self.req_ws(&src, start + 9, "whitespace after `<!DOCTYPE`")?;
        let (name, end) = self.name(&src, pos, "the root element type name after `<!DOCTYPE`")?;
        self.dtd.name = name.to_string();
        pos = skip_ws(text, end);
        if let Some((kw, _)) = token(text, pos) {
            if kw != "SYSTEM" && kw != "PUBLIC" {
                return Err(self.dtd_err(
                    &src,
                    pos,
                    format!("expected `SYSTEM`, `PUBLIC`, `[` or `>` after the document type name, found `{kw}`"),
                ));
            }
            if pos == end {
                return Err(self.expected(&src, pos, "whitespace before the external identifier"));
            }
            let (public, system, p) = self.external_id(&src, pos, false)?;
            self.refuse_external(&src, pos, p, || "the external DTD subset".to_string())?;
            self.dtd.public_id = public;
            self.dtd.system_id = system;
            pos = skip_ws(text, p);
        }
        self.dtd.entities_complete = self.dtd.system_id.is_none() || self.standalone;
        if text.get(pos) == Some(&b'[') {
            let sub_start = pos + 1;
            let sub_end = self.subset(&src, sub_start, true)?;
            self.dtd.internal_subset = Some(sub_start..sub_end);
            pos = skip_ws(text, sub_end + 1);
            if text.get(pos) != Some(&b'>') {
                return Err(self.expected(&src, pos, "`>` after the internal subset"));
            }
        } else if text.get(pos) != Some(&b'>') {
            return Err(self.expected(&src, pos, "an external identifier, `[` or `>` in the document type declaration"));
        }
        Ok(pos + 1)
    }

    /// `(markupdecl | DeclSep)*` from `pos`. In the document (`in_doc`) it
    /// ends at `]` (returned offset); in replacement text at its end.
    fn subset(&mut self, src: &Src, mut pos: usize, in_doc: bool) -> Result<usize, Error> {
        let b = src.b;
        loop {
            pos = skip_ws(b, pos);
            match b.get(pos) {
                None if in_doc => return Err(self.expected(src, pos, "`]` to end the internal subset")),
                None => return Ok(pos),
                Some(b']') if in_doc => return Ok(pos),
                Some(b'%') => pos = self.pe_reference(src, pos)?,
                Some(b'<') => pos = self.markup_decl(src, pos)?,
                Some(_) => {
                    return Err(self.dtd_err(
                        src,
                        pos,
                        format!(
                            "expected a markup declaration, a parameter-entity reference{}, found {}",
                            if in_doc { " or `]`" } else { "" },
                            describe_at(b, pos)
                        ),
                    ))
                }
            }
        }
    }

    fn markup_decl(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let rest = &src.b[pos..];
        if rest.starts_with(b"<?") {
            return self.pi(src, pos);
        }
        if rest.starts_with(b"<!--") {
            return self.comment(src, pos);
        }
        if rest.starts_with(b"<![") {
            return Err(self.dtd_err(
                src,
                pos,
                "conditional sections (`<![INCLUDE[`, `<![IGNORE[`) are allowed only in the external subset, not in the internal subset"
                    .to_string(),
            ));
        }
        if rest.starts_with(b"<!") {
            // a keyword run together with what follows (`<!ENTITYx`) is
            // reported by the declaration as missing white space
            let keyword = token(src.b, pos + 2)
                .map(|(kw, _)| ["ELEMENT", "ATTLIST", "ENTITY", "NOTATION"].into_iter().find(|k| kw.starts_with(k)).unwrap_or(kw));
            return match keyword {
                Some("ELEMENT") => self.element_decl(src, pos),
                Some("ATTLIST") => self.attlist_decl(src, pos),
                Some("ENTITY") => self.entity_decl(src, pos),
                Some("NOTATION") => self.notation_decl(src, pos),
                Some(other) => Err(self.dtd_err(
                    src,
                    pos,
                    format!(
                        "unknown markup declaration `<!{other}`; expected `<!ELEMENT`, `<!ATTLIST`, `<!ENTITY`, `<!NOTATION` or `<!--`"
                    ),
                )),
                None => Err(self.expected(src, pos + 2, "`ELEMENT`, `ATTLIST`, `ENTITY`, `NOTATION` or `--` after `<!`")),
            };
        }
        Err(self.expected(src, pos + 1, "`!` or `?` after `<` in the internal subset"))
    }

    fn pi(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let (target, p) = self.name(src, pos + 2, "a processing instruction target after `<?`")?;
        if target.eq_ignore_ascii_case("xml") {
            return Err(self.dtd_err(
                src,
                pos + 2,
                format!(
                    "processing instruction target `{target}` is reserved (an xml declaration may appear only at the very start of the document)"
                ),
            ));
        }
        self.check_no_colon(src, pos + 2, target)?;
        if b[p..].starts_with(b"?>") {
            return Ok(p + 2);
        }
        let p = self.req_ws(src, p, "whitespace or `?>` after the processing instruction target")?;
        match memchr::memmem::find(&b[p..], b"?>") {
            Some(k) => Ok(p + k + 2),
            None => Err(self.err(src, b.len(), ErrorKind::UnexpectedEof { expected: "`?>` to end the processing instruction" })),
        }
    }

    fn comment(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let from = pos + 4;
        match memchr::memmem::find(&b[from..], b"--") {
            None => Err(self.err(src, b.len(), ErrorKind::UnexpectedEof { expected: "`-->` to end the comment" })),
            Some(k) => {
                let q = from + k;
                match b.get(q + 2) {
                    Some(b'>') => Ok(q + 3),
                    None => Err(self.err(src, b.len(), ErrorKind::UnexpectedEof { expected: "`>` to end the comment" })),
                    Some(_) => Err(self.dtd_err(src, q, "`--` is not allowed inside a comment".to_string())),
                }
            }
        }
    }

    // ---- <!ELEMENT

    fn element_decl(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let p = self.req_ws(src, pos + 9, "whitespace after `<!ELEMENT`")?;
        let (_, p) = self.name(src, p, "an element type name after `<!ELEMENT`")?;
        let p = self.req_ws(src, p, "whitespace after the element type name in `<!ELEMENT`")?;
        let p = if b.get(p) == Some(&b'(') {
            self.content_model(src, p)?
        } else {
            match token(b, p) {
                Some(("EMPTY" | "ANY", e)) => e,
                Some((other, _)) => {
                    return Err(self.dtd_err(
                        src,
                        p,
                        format!("unknown content specification `{other}`; expected `EMPTY`, `ANY` or a content model in parentheses"),
                    ))
                }
                None => return Err(self.expected(src, p, "`EMPTY`, `ANY` or `(` to start the content specification")),
            }
        };
        let p = skip_ws(b, p);
        if b.get(p) != Some(&b'>') {
            return Err(self.expected(src, p, "`>` to end the element type declaration"));
        }
        Ok(p + 1)
    }

    /// Mixed or children content model; `b[pos] == b'('`.
    fn content_model(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let mut p = skip_ws(b, pos + 1);
        if b[p..].starts_with(b"#PCDATA") {
            p += 7;
            let mut names = false;
            loop {
                p = skip_ws(b, p);
                match b.get(p) {
                    Some(b')') => {
                        p += 1;
                        if b.get(p) == Some(&b'*') {
                            return Ok(p + 1);
                        }
                        if names {
                            return Err(self.expected(
                                src,
                                p,
                                "`*` after `)`: a mixed content model listing element types must end in `)*`",
                            ));
                        }
                        return Ok(p);
                    }
                    Some(b'|') => {
                        p = skip_ws(b, p + 1);
                        let (_, e) = self.name(src, p, "an element type name after `|` in mixed content")?;
                        p = e;
                        names = true;
                    }
                    _ => return Err(self.expected(src, p, "`|` or `)` in a mixed content model")),
                }
            }
        }
        // children: an explicit stack of open groups, each with its separator
        // (0 while undecided), so deep nesting cannot exhaust the call stack
        let mut groups: Vec<u8> = vec![0];
        'cp: loop {
            p = skip_ws(b, p);
            if b.get(p) == Some(&b'(') {
                groups.push(0);
                p += 1;
                continue 'cp;
            }
            if b[p..].starts_with(b"#PCDATA") {
                return Err(self.dtd_err(
                    src,
                    p,
                    "`#PCDATA` may appear only first in the outermost group of a mixed content model".to_string(),
                ));
            }
            let (_, e) = self.name(src, p, "an element type name or `(` in a content model")?;
            p = occurrence(b, e);
            loop {
                p = skip_ws(b, p);
                match b.get(p) {
                    Some(&c @ (b'|' | b',')) => {
                        let Some(sep) = groups.last_mut() else {
                            return Err(self.expected(src, p, "`>`"));
                        };
                        if *sep == 0 {
                            *sep = c;
                        } else if *sep != c {
                            return Err(self.dtd_err(
                                src,
                                p,
                                format!(
                                    "`{}` after `{}` in one content model group; a group is either a choice (`|`) or a sequence (`,`)",
                                    c as char, *sep as char
                                ),
                            ));
                        }
                        p += 1;
                        continue 'cp;
                    }
                    Some(b')') => {
                        groups.pop();
                        p = occurrence(b, p + 1);
                        if groups.is_empty() {
                            return Ok(p);
                        }
                    }
                    _ => return Err(self.expected(src, p, "`,`, `|` or `)` in a content model")),
                }
            }
        }
    }

    // ---- <!ATTLIST

    fn attlist_decl(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let decl_offset = Self::decl_offset(src, pos);
        let p = self.req_ws(src, pos + 9, "whitespace after `<!ATTLIST`")?;
        let (element, mut p) = self.name(src, p, "an element type name after `<!ATTLIST`")?;
        loop {
            let q = skip_ws(b, p);
            if b.get(q) == Some(&b'>') {
                return Ok(q + 1);
            }
            if q == p {
                return Err(self.expected(src, p, "whitespace or `>` in the attribute-list declaration"));
            }
            let (name, q) = self.name(src, q, "an attribute name or `>` in the attribute-list declaration")?;
            let q = self.req_ws(src, q, "whitespace after the attribute name in `<!ATTLIST`")?;
            let (ty, q) = self.att_type(src, q)?;
            let q = self.req_ws(src, q, "whitespace after the attribute type in `<!ATTLIST`")?;
            let (default, q) = self.default_decl(src, q, ty == AttType::Cdata)?;
            if !self.skipping && self.att_seen.insert((element.to_string(), name.to_string())) {
                self.dtd.add_attribute(AttDecl {
                    element: element.to_string(),
                    name: name.to_string(),
                    ty,
                    default,
                    decl_offset,
                    value: None,
                    value_expansion: 0,
                });
            }
            p = q;
        }
    }

    fn att_type(&mut self, src: &Src, pos: usize) -> Result<(AttType, usize), Error> {
        let b = src.b;
        if b.get(pos) == Some(&b'(') {
            let (values, p) = self.token_list(src, pos, true)?;
            return Ok((AttType::Enumeration(values), p));
        }
        let Some((kw, p)) = token(b, pos) else {
            return Err(self.expected(src, pos, "an attribute type (`CDATA`, `ID`, ..., `NOTATION` or `(`)"));
        };
        let ty = match kw {
            "CDATA" => AttType::Cdata,
            "ID" => AttType::Id,
            "IDREF" => AttType::IdRef,
            "IDREFS" => AttType::IdRefs,
            "ENTITY" => AttType::Entity,
            "ENTITIES" => AttType::Entities,
            "NMTOKEN" => AttType::NmToken,
            "NMTOKENS" => AttType::NmTokens,
            "NOTATION" => {
                let p = self.req_ws(src, p, "whitespace after `NOTATION` in an attribute type")?;
                if b.get(p) != Some(&b'(') {
                    return Err(self.expected(src, p, "`(` to start the list of notation names"));
                }
                let (names, p) = self.token_list(src, p, false)?;
                return Ok((AttType::Notation(names), p));
            }
            other => {
                return Err(self.dtd_err(
                    src,
                    pos,
                    format!(
                        "unknown attribute type `{other}`; expected `CDATA`, `ID`, `IDREF`, `IDREFS`, `ENTITY`, `ENTITIES`, `NMTOKEN`, `NMTOKENS`, `NOTATION` or an enumeration"
                    ),
                ))
            }
        };
        Ok((ty, p))
    }

    /// `'(' S? tok (S? '|' S? tok)* S? ')'` with Nmtokens or Names.
    fn token_list(&mut self, src: &Src, pos: usize, nmtokens: bool) -> Result<(Vec<String>, usize), Error> {
        let b = src.b;
        let mut out = Vec::new();
        let mut p = skip_ws(b, pos + 1);
        loop {
            let end = if nmtokens { scan_nmtoken(b, p) } else { scan_name(b, p) };
            let Some(end) = end else {
                return Err(self.expected(
                    src,
                    p,
                    if nmtokens { "a name token in the enumeration" } else { "a notation name in the list" },
                ));
            };
            self.check_len(src, p, end)?;
            out.push(lossy(&b[p..end]).into_owned());
            p = skip_ws(b, end);
            match b.get(p) {
                Some(b'|') => p = skip_ws(b, p + 1),
                Some(b')') => return Ok((out, p + 1)),
                _ => return Err(self.expected(src, p, "`|` or `)` in the list")),
            }
        }
    }

    fn default_decl(&mut self, src: &Src, pos: usize, cdata: bool) -> Result<(AttDefault, usize), Error> {
        let b = src.b;
        match b.get(pos) {
            Some(b'#') => match token(b, pos + 1) {
                Some(("REQUIRED", p)) => Ok((AttDefault::Required, p)),
                Some(("IMPLIED", p)) => Ok((AttDefault::Implied, p)),
                Some(("FIXED", p)) => {
                    let p = self.req_ws(src, p, "whitespace after `#FIXED`")?;
                    let (v, p) = self.att_value(src, p, cdata)?;
                    Ok((AttDefault::Fixed(v), p))
                }
                Some((other, _)) => {
                    Err(self.dtd_err(src, pos, format!("unknown default `#{other}`; expected `#REQUIRED`, `#IMPLIED` or `#FIXED`")))
                }
                None => Err(self.expected(src, pos + 1, "`REQUIRED`, `IMPLIED` or `FIXED` after `#`")),
            },
            Some(b'"' | b'\'') => {
                let (v, p) = self.att_value(src, pos, cdata)?;
                Ok((AttDefault::Default(v), p))
            }
            _ => Err(self.expected(src, pos, "`#REQUIRED`, `#IMPLIED`, `#FIXED` or a quoted default value")),
        }
    }

    /// A default AttValue literal; checked by normalizing it (WFCs No < in
    /// Attribute Values, No External Entity References, Entity Declared).
    fn att_value(&mut self, src: &Src, pos: usize, cdata: bool) -> Result<(String, usize), Error> {
        let (r, end) = self.literal(src, pos, "a quoted default value")?;
        let raw = match std::str::from_utf8(&src.b[r.clone()]) {
            Ok(s) => s,
            Err(_) => return Err(self.err(src, r.start, ErrorKind::InvalidUtf8)),
        };
        if let Err(e) = normalize_attribute_value(raw, src.b, r.start, Some(&self.dtd), cdata, &mut *self.budget, 0) {
            return Err(self.remap(src, e));
        }
        // Replacement text has normalized line ends: a CR in it came from a
        // character reference in the entity value and normalizes to one space
        // each. Store it as a space so normalizing the stored "raw" literal
        // gives the same result.
        let stored = if src.ref_off.is_some() && raw.contains('\r') { raw.replace('\r', " ") } else { raw.to_string() };
        Ok((stored, end))
    }

    // ---- <!ENTITY

    fn entity_decl(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let decl_offset = Self::decl_offset(src, pos);
        let mut p = self.req_ws(src, pos + 8, "whitespace after `<!ENTITY`")?;
        let mut is_pe = false;
        if b.get(p) == Some(&b'%') {
            if !b.get(p + 1).is_some_and(|&c| is_ws(c)) {
                return Err(self.expected(
                    src,
                    p + 1,
                    "whitespace after `%` in a parameter entity declaration (a parameter-entity reference may not occur inside a markup declaration in the internal subset)",
                ));
            }
            is_pe = true;
            p = skip_ws(b, p + 1);
        }
        let name_pos = p;
        let (name, p) = self.name(src, p, "an entity name in `<!ENTITY`")?;
        self.check_no_colon(src, name_pos, name)?;
        let p = self.req_ws(src, p, "whitespace after the entity name")?;
        let (value, p) = match b.get(p) {
            Some(b'"' | b'\'') => {
                let (text, p) = self.entity_value(src, p)?;
                (EntityValue::Internal(text), p)
            }
            _ => {
                if !matches!(token(b, p), Some(("SYSTEM" | "PUBLIC", _))) {
                    return Err(self.expected_keyword(src, p, "a quoted entity value, `SYSTEM` or `PUBLIC`"));
                }
                let id_at = p;
                let (public_id, system_id, p) = self.external_id(src, p, false)?;
                let system_id = system_id.unwrap_or_default();
                let q = skip_ws(b, p);
                let unparsed = matches!(token(b, q), Some(("NDATA", _)));
                self.refuse_external(src, id_at, p, || match (is_pe, unparsed) {
                    (true, _) => format!("the external parameter entity `%{name}`"),
                    (false, true) => format!("the unparsed entity `{name}`"),
                    (false, false) => format!("the external general entity `{name}`"),
                })?;
                let q = skip_ws(b, p);
                let mut notation = None;
                let mut end = p;
                if let Some(("NDATA", e)) = token(b, q) {
                    if q == p {
                        return Err(self.expected(src, p, "whitespace before `NDATA`"));
                    }
                    if is_pe {
                        return Err(self.dtd_err(
                            src,
                            q,
                            "a parameter entity cannot be unparsed: `NDATA` is allowed only in general entity declarations".to_string(),
                        ));
                    }
                    let e = self.req_ws(src, e, "whitespace after `NDATA`")?;
                    let (n, e) = self.name(src, e, "a notation name after `NDATA`")?;
                    notation = Some(n.to_string());
                    end = e;
                }
                (EntityValue::External { public_id, system_id, notation }, end)
            }
        };
        let p = skip_ws(b, p);
        if b.get(p) != Some(&b'>') {
            return Err(self.expected_keyword(src, p, "`>` to end the entity declaration"));
        }
        if !self.skipping {
            let decl = EntityDecl { name: name.to_string(), value, decl_offset };
            if is_pe {
                self.dtd.add_parameter_entity(decl);
            } else {
                self.dtd.add_entity(decl);
            }
        }
        Ok(p + 1)
    }

    /// An EntityValue literal at `pos`; returns its replacement text (§4.5)
    /// and the offset after the closing quote.
    fn entity_value(&mut self, src: &Src, pos: usize) -> Result<(String, usize), Error> {
        let b = src.b;
        let q = b[pos];
        let normalized = src.ref_off.is_some();
        let mut out = String::new();
        let mut i = pos + 1;
        let mut run = i;
        loop {
            let Some(&c) = b.get(i) else {
                return Err(self.err(src, i, ErrorKind::UnexpectedEof { expected: "the closing quote of the entity value" }));
            };
            if c == q {
                out.push_str(&lossy(&b[run..i]));
                return Ok((out, i + 1));
            }
            match c {
                b'%' => {
                    let shown = match scan_name(b, i + 1) {
                        Some(e) if b.get(e) == Some(&b';') => format!("`{}`", lossy(&b[i..=e])),
                        _ => "`%`".to_string(),
                    };
                    return Err(self.dtd_err(
                        src,
                        i,
                        format!(
                            "{shown} in an entity value: parameter-entity references are not allowed inside markup declarations in the internal subset (wfc: pes in internal subset)"
                        ),
                    ));
                }
                b'&' => {
                    out.push_str(&lossy(&b[run..i]));
                    if b.get(i + 1) == Some(&b'#') {
                        match parse_char_ref(b, i) {
                            Ok((ch, e)) => {
                                out.push(ch);
                                i = e;
                            }
                            Err((j, kind)) => return Err(self.value_err(src, j, kind)),
                        }
                    } else {
                        match scan_entity_ref(b, i) {
                            Ok(e) => {
                                // bypassed (§4.4.7)
                                out.push_str(&lossy(&b[i..=e]));
                                i = e + 1;
                            }
                            Err((j, kind)) => return Err(self.value_err(src, j, kind)),
                        }
                    }
                    run = i;
                }
                b'\r' if !normalized => {
                    out.push_str(&lossy(&b[run..i]));
                    out.push('\n');
                    i += 1;
                    if b.get(i) == Some(&b'\n') {
                        i += 1;
                    }
                    run = i;
                }
                _ => i += 1,
            }
        }
    }

    /// An error inside an entity value; running off the end of the input is
    /// reported as such.
    fn value_err(&self, src: &Src, j: usize, kind: ErrorKind) -> Error {
        if j >= src.b.len() {
            return self.err(src, j, ErrorKind::UnexpectedEof { expected: "the closing quote of the entity value" });
        }
        self.err(src, j, kind)
    }

    // ---- <!NOTATION

    fn notation_decl(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let p = self.req_ws(src, pos + 10, "whitespace after `<!NOTATION`")?;
        let name_pos = p;
        let (name, p) = self.name(src, p, "a notation name after `<!NOTATION`")?;
        self.check_no_colon(src, name_pos, name)?;
        let p = self.req_ws(src, p, "whitespace after the notation name")?;
        let (public_id, system_id, p) = self.external_id(src, p, true)?;
        let p = skip_ws(b, p);
        if b.get(p) != Some(&b'>') {
            return Err(self.expected(src, p, "`>` to end the notation declaration"));
        }
        if self.notation_seen.insert(name.to_string()) {
            self.dtd.notations.push(NotationDecl { name: name.to_string(), public_id, system_id });
        }
        Ok(p + 1)
    }

    // ---- %name; between declarations

    fn pe_reference(&mut self, src: &Src, pos: usize) -> Result<usize, Error> {
        let b = src.b;
        let (name, e) = self.name(src, pos + 1, "a parameter entity name after `%`")?;
        if b.get(e) != Some(&b';') {
            return Err(self.expected(src, e, "`;` to end the parameter-entity reference"));
        }
        let ref_off = src.ref_off.unwrap_or(pos);
        if !self.standalone {
            self.dtd.entities_complete = false;
        }
        let value = self.dtd.parameter_entity(name).map(|d| d.value.clone());
        match value {
            // An undeclared parameter entity is only a validity error
            // (production [69] carries VC: Entity Declared, not the WFC;
            // errata E29/E38). It is treated like one that is not read.
            None | Some(EntityValue::External { .. }) => self.not_read(),
            Some(EntityValue::Internal(replacement)) => {
                if self.pe_stack.iter().any(|n| n == name) {
                    return Err(self.err(src, pos, ErrorKind::RecursiveEntity { name: name.to_string() }));
                }
                let level = self.pe_stack.len() as u64 + 1;
                let max = self.opts.limits.max_entity_depth as u64;
                if level > max {
                    return Err(self.err(src, pos, ErrorKind::LimitExceeded { limit: LimitKind::EntityDepth, value: level, max }));
                }
                self.budget.charge(replacement.len(), self.text, ref_off)?;
                self.pe_stack.push(name.to_string());
                let pe_name = if src.ref_off.is_some() { src.pe_name } else { name };
                let inner = Src { b: replacement.as_bytes(), ref_off: Some(ref_off), pe_name };
                let r = self.subset(&inner, 0, false);
                self.pe_stack.pop();
                r?;
            }
        }
        Ok(e + 1)
    }

    /// A parameter entity that is not read: §5.1.
    fn not_read(&mut self) {
        if !self.standalone {
            self.skipping = true;
            self.dtd.skipped_declarations = true;
        }
    }
}

/// Skips an optional occurrence indicator (`?`, `*`, `+`) at `p`.
fn occurrence(b: &[u8], p: usize) -> usize {
    match b.get(p) {
        Some(b'?' | b'*' | b'+') => p + 1,
        _ => p,
    }
}

/// `b` as text, invalid UTF-8 replaced.
fn lossy(b: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(b)
}

/// PubidChar (production [13]).
fn is_pubid_char(b: u8) -> bool {
    b == b' ' || b == b'\r' || b == b'\n' || b.is_ascii_alphanumeric() || b"-'()+,./:=?;!*#@$_%".contains(&b)
}
