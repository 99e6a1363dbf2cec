//! Attribute-value normalization (XML 1.0 §3.3.3) and the entity-expansion
//! budget, with the character- and entity-reference scanners the DOCTYPE
//! parser shares.

use std::borrow::Cow;

use crate::chars::{is_xml_char, scan_name};
use crate::error::{describe_at, Error, ErrorKind, LimitKind};
use crate::options::ParseOptions;

use super::{Dtd, EntityValue};

/// Counts bytes produced by entity expansion against the limits, for one document.
#[derive(Debug, Clone)]
pub struct ExpansionBudget {
    /// Bytes charged so far.
    pub used: u64,
    /// [`crate::Limits::max_entity_expansion_bytes`].
    pub max_bytes: u64,
    /// [`crate::Limits::max_entity_amplification`].
    pub max_amplification: u32,
    /// Length of the document, the base of the amplification ratio.
    pub doc_len: u64,
    /// [`crate::Limits::max_entity_depth`].
    pub max_depth: u32,
}

/// Expansion below this many bytes is never refused for amplification.
const AMPLIFICATION_THRESHOLD: u64 = 65_536;

impl ExpansionBudget {
    /// A fresh budget for a document of `doc_len` bytes.
    pub fn new(opts: &ParseOptions, doc_len: usize) -> Self {
        ExpansionBudget {
            used: 0,
            max_bytes: opts.limits.max_entity_expansion_bytes,
            max_amplification: opts.limits.max_entity_amplification,
            doc_len: doc_len as u64,
            max_depth: opts.limits.max_entity_depth,
        }
    }

    /// Adds `n` expanded bytes; `Err(LimitExceeded EntityExpansionBytes or
    /// EntityAmplification)` past the limits. Amplification (used /
    /// max(doc_len, 1)) is only checked once used > 65,536. The error is
    /// reported at `offset` in `text`.
    pub fn charge(&mut self, n: usize, text: &[u8], offset: usize) -> Result<(), Error> {
        self.used = self.used.saturating_add(n as u64);
        if self.used > self.max_bytes {
            return Err(Error::at(
                ErrorKind::LimitExceeded { limit: LimitKind::EntityExpansionBytes, value: self.used, max: self.max_bytes },
                text,
                offset,
            ));
        }
        if self.used > AMPLIFICATION_THRESHOLD {
            let base = self.doc_len.max(1);
            if self.used / base > self.max_amplification as u64 {
                return Err(Error::at(
                    ErrorKind::LimitExceeded {
                        limit: LimitKind::EntityAmplification,
                        value: self.used / base,
                        max: self.max_amplification as u64,
                    },
                    text,
                    offset,
                ));
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Shared lexical helpers

pub(crate) use crate::xml::{predefined_entity as predefined, PREDEFINED_ENTITIES as PREDEFINED};

/// Parses a character reference; `b[i..]` starts with `&#`. Returns the
/// character and the offset after `;`, or the offset and kind of the error.
pub(super) fn parse_char_ref(b: &[u8], i: usize) -> Result<(char, usize), (usize, ErrorKind)> {
    let mut j = i + 2;
    let hex = b.get(j) == Some(&b'x');
    if hex {
        j += 1;
    }
    let digits = j;
    let mut v: u32 = 0;
    while let Some(&c) = b.get(j) {
        let d = if hex { (c as char).to_digit(16) } else { (c as char).to_digit(10) };
        match d {
            Some(d) => {
                v = v.saturating_mul(if hex { 16 } else { 10 }).saturating_add(d);
                j += 1;
            }
            None => break,
        }
    }
    if j == digits {
        let expected = if hex {
            "hexadecimal digits after `&#x` in the character reference"
        } else {
            "decimal digits or `x` after `&#` in the character reference"
        };
        return Err((j, ErrorKind::Unexpected { expected, found: describe_at(b, j) }));
    }
    if b.get(j) != Some(&b';') {
        return Err((j, ErrorKind::Unexpected { expected: "`;` to end the character reference", found: describe_at(b, j) }));
    }
    match char::from_u32(v).filter(|c| is_xml_char(*c as u32)) {
        Some(c) => Ok((c, j + 1)),
        None => Err((i, ErrorKind::InvalidCharRef { text: String::from_utf8_lossy(&b[i..=j]).into_owned() })),
    }
}

/// Scans `&Name;` where `b[i] == b'&'` and `b[i + 1] != b'#'`. Returns the end
/// of the name (the offset of `;`).
pub(super) fn scan_entity_ref(b: &[u8], i: usize) -> Result<usize, (usize, ErrorKind)> {
    let Some(e) = scan_name(b, i + 1) else {
        return Err((i + 1, ErrorKind::Unexpected { expected: "an entity name or `#` after `&`", found: describe_at(b, i + 1) }));
    };
    if b.get(e) != Some(&b';') {
        return Err((e, ErrorKind::Unexpected { expected: "`;` to end the entity reference", found: describe_at(b, e) }));
    }
    Ok(e)
}

/// Attribute-value normalization (§3.3.3) of a raw attribute value (the bytes
/// between the quotes, from the document or a default literal).
///
/// Character references become the character; references to declared internal
/// general entities become their replacement text, normalized recursively; the
/// five predefined entities always work. A literal white space character
/// becomes a space, where a CR LF pair or lone CR in `raw` counts as one line
/// end. When `cdata` is false, leading and trailing spaces are then dropped and
/// runs of spaces collapsed to one.
///
/// Errors: a literal `<` (Unexpected); an entity whose replacement text
/// contains `<` (WFC: No < in Attribute Values); an external or unparsed entity
/// (ForbiddenEntityReference); an undeclared entity when
/// `dtd.map_or(true, |d| d.entities_complete)` (otherwise the reference is
/// dropped); recursion (RecursiveEntity); the expansion budget and entity
/// depth. `raw_offset` is the offset of `raw[0]` in `text`; errors inside
/// replacement text are reported at the outermost reference. `depth` is the
/// entity nesting depth the value itself occurs at.
///
/// Returns `Cow::Borrowed` when nothing changed.
pub fn normalize_attribute_value<'r>(
    raw: &'r str,
    text: &[u8],
    raw_offset: usize,
    dtd: Option<&Dtd>,
    cdata: bool,
    budget: &mut ExpansionBudget,
    depth: u32,
) -> Result<Cow<'r, str>, Error> {
    let b = raw.as_bytes();
    let mut needs_expansion = false;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'<' => return Err(less_than_error(text, raw_offset + i)),
            b'&' | b'\t' | b'\n' | b'\r' => {
                needs_expansion = true;
                break;
            }
            _ => {}
        }
    }
    if !needs_expansion {
        if cdata || !needs_collapse(raw) {
            return Ok(Cow::Borrowed(raw));
        }
        return Ok(Cow::Owned(collapse_spaces(raw)));
    }
    let mut out = String::with_capacity(raw.len());
    let mut n = Normalizer { text, raw_offset, dtd, complete: dtd.is_none_or(|d| d.entities_complete), budget, depth, stack: Vec::new() };
    n.expand(raw, None, &mut out)?;
    if !cdata && needs_collapse(&out) {
        out = collapse_spaces(&out);
    }
    Ok(Cow::Owned(out))
}

fn less_than_error(text: &[u8], offset: usize) -> Error {
    Error::at(
        ErrorKind::Unexpected { expected: "an attribute value character (`<` must be written `&lt;`)", found: "`<`".to_string() },
        text,
        offset,
    )
}

fn needs_collapse(s: &str) -> bool {
    s.starts_with(' ') || s.ends_with(' ') || s.contains("  ")
}

fn collapse_spaces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for part in s.split(' ').filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

struct Normalizer<'d, 'b> {
    text: &'d [u8],
    raw_offset: usize,
    dtd: Option<&'d Dtd>,
    complete: bool,
    budget: &'b mut ExpansionBudget,
    depth: u32,
    stack: Vec<&'d str>,
}

impl<'d> Normalizer<'d, '_> {
    /// Appends the normalized form of `s` to `out`. `at` is `None` for the raw
    /// value (offsets relative to `raw_offset`, line ends not yet normalized)
    /// and `Some(offset of the outermost reference)` inside replacement text.
    fn expand(&mut self, s: &str, at: Option<usize>, out: &mut String) -> Result<(), Error> {
        let b = s.as_bytes();
        let mut i = 0;
        let mut run = 0;
        while i < b.len() {
            match b[i] {
                b'<' => {
                    return Err(match (at, self.stack.last()) {
                        (Some(off), Some(name)) => Error::at(
                            ErrorKind::ForbiddenEntityReference {
                                name: name.to_string(),
                                reason:
                                    "its replacement text contains `<`, which an attribute value must not (wfc: no < in attribute values)",
                            },
                            self.text,
                            off,
                        ),
                        _ => less_than_error(self.text, self.pos(at, i)),
                    });
                }
                b'\t' | b'\n' | b'\r' => {
                    out.push_str(&s[run..i]);
                    out.push(' ');
                    if b[i] == b'\r' && at.is_none() && b.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    i += 1;
                    run = i;
                }
                b'&' => {
                    out.push_str(&s[run..i]);
                    i = self.reference(s, i, at, out)?;
                    run = i;
                }
                _ => i += 1,
            }
        }
        out.push_str(&s[run..]);
        Ok(())
    }

    fn pos(&self, at: Option<usize>, i: usize) -> usize {
        at.unwrap_or(self.raw_offset + i)
    }

    fn reference(&mut self, s: &str, i: usize, at: Option<usize>, out: &mut String) -> Result<usize, Error> {
        let b = s.as_bytes();
        if b.get(i + 1) == Some(&b'#') {
            return match parse_char_ref(b, i) {
                Ok((c, end)) => {
                    out.push(c);
                    Ok(end)
                }
                Err((j, kind)) => Err(Error::at(kind, self.text, self.pos(at, j))),
            };
        }
        let e = scan_entity_ref(b, i).map_err(|(j, kind)| Error::at(kind, self.text, self.pos(at, j)))?;
        let name = &s[i + 1..e];
        if let Some(c) = predefined(name) {
            out.push(c);
            return Ok(e + 1);
        }
        let ref_pos = self.pos(at, i);
        let dtd = self.dtd;
        let Some(decl) = dtd.and_then(|d| d.entity(name)) else {
            if self.complete {
                return Err(Error::at(ErrorKind::UndeclaredEntity { name: name.to_string() }, self.text, ref_pos));
            }
            return Ok(e + 1);
        };
        match &decl.value {
            EntityValue::External { notation: Some(_), .. } => Err(Error::at(
                ErrorKind::ForbiddenEntityReference {
                    name: name.to_string(),
                    reason: "unparsed entity in attribute value (wfc: parsed entity)",
                },
                self.text,
                ref_pos,
            )),
            EntityValue::External { .. } => Err(Error::at(
                ErrorKind::ForbiddenEntityReference {
                    name: name.to_string(),
                    reason: "external entity in attribute value (wfc: no external entity references)",
                },
                self.text,
                ref_pos,
            )),
            EntityValue::Internal(replacement) => {
                if self.stack.contains(&decl.name.as_str()) {
                    return Err(Error::at(ErrorKind::RecursiveEntity { name: name.to_string() }, self.text, ref_pos));
                }
                let level = self.depth as u64 + self.stack.len() as u64 + 1;
                if level > self.budget.max_depth as u64 {
                    return Err(Error::at(
                        ErrorKind::LimitExceeded { limit: LimitKind::EntityDepth, value: level, max: self.budget.max_depth as u64 },
                        self.text,
                        ref_pos,
                    ));
                }
                self.budget.charge(replacement.len(), self.text, ref_pos)?;
                self.stack.push(decl.name.as_str());
                self.expand(replacement, Some(ref_pos), out)?;
                self.stack.pop();
                Ok(e + 1)
            }
        }
    }
}
