//! Lazy decoding of character data and attribute values.
//!
//! Text is borrowed straight from the document when it needs no change (no
//! reference, no carriage return), which is the common case; otherwise it is
//! decoded into a new `String`. References were checked while parsing, and the
//! total entity expansion was charged against the limits then, so decoding here
//! cannot fail or blow up.

use std::borrow::Cow;
use std::ops::Range;

use memchr::{memchr, memchr2};

use crate::document::Document;
use crate::dtd::{self, AttType, EntityValue, ExpansionBudget};

#[inline]
fn as_str(b: &[u8]) -> &str {
    // The text was validated as UTF-8 before indexing and ranges fall on character boundaries.
    match std::str::from_utf8(b) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&b[..e.valid_up_to()]).unwrap_or(""),
    }
}

/// Line-end normalization (XML 1.0 §2.11): CR LF and lone CR become LF.
pub(crate) fn normalize_newlines(raw: &[u8]) -> Cow<'_, str> {
    if memchr(b'\r', raw).is_none() {
        return Cow::Borrowed(as_str(raw));
    }
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while let Some(p) = memchr(b'\r', &raw[i..]) {
        let p = i + p;
        out.push_str(as_str(&raw[i..p]));
        out.push('\n');
        i = if raw.get(p + 1) == Some(&b'\n') { p + 2 } else { p + 1 };
    }
    out.push_str(as_str(&raw[i..]));
    Cow::Owned(out)
}

/// Decodes character data: references resolved, line ends normalized.
pub(crate) fn decode_content<'d>(d: &'d Document<'d>, r: Range<usize>) -> Cow<'d, str> {
    let raw = &d.text()[r];
    if memchr2(b'&', b'\r', raw).is_none() {
        return Cow::Borrowed(as_str(raw));
    }
    let mut out = String::with_capacity(raw.len());
    decode_into(d, raw, &mut out, true, 0);
    Cow::Owned(out)
}

/// Decodes `raw` (document text when `doc_text`, else replacement text, whose line
/// ends were normalized when the entity was declared) into `out`.
pub(crate) fn decode_into(d: &Document<'_>, raw: &[u8], out: &mut String, doc_text: bool, depth: u32) {
    let mut i = 0;
    loop {
        let found = if doc_text { memchr2(b'&', b'\r', &raw[i..]) } else { memchr(b'&', &raw[i..]) };
        let Some(p) = found else { break };
        let p = i + p;
        out.push_str(as_str(&raw[i..p]));
        if raw[p] == b'\r' {
            out.push('\n');
            i = if raw.get(p + 1) == Some(&b'\n') { p + 2 } else { p + 1 };
            continue;
        }
        let e = p + memchr(b';', &raw[p..]).unwrap_or(raw.len() - p);
        let name = as_str(&raw[p + 1..e]);
        i = (e + 1).min(raw.len());
        if let Some(num) = name.strip_prefix('#') {
            let v = match num.strip_prefix('x') {
                Some(h) => u32::from_str_radix(h, 16).ok(),
                None => num.parse::<u32>().ok(),
            };
            if let Some(c) = v.and_then(char::from_u32) {
                out.push(c);
            }
            continue;
        }
        let predefined = match name {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "apos" => Some('\''),
            "quot" => Some('"'),
            _ => None,
        };
        if let Some(c) = predefined {
            out.push(c);
            continue;
        }
        let declared = d.dtd().and_then(|t| t.entity(name));
        match declared.map(|e| &e.value) {
            Some(EntityValue::Internal(repl)) if depth < d.opts.limits.max_entity_depth => {
                decode_into(d, repl.as_bytes(), out, false, depth + 1);
            }
            Some(EntityValue::Internal(_)) => {}
            Some(EntityValue::External { .. }) => {}
            None => {} // undeclared with an unread external subset: reads as nothing
        }
    }
    out.push_str(as_str(&raw[i..]));
}

/// The normalized value of attribute record `attr` on element record `owner`.
pub(crate) fn attribute_value<'d>(d: &'d Document<'d>, owner: u32, attr: u32, r: Range<usize>) -> Cow<'d, str> {
    let t = d.text();
    let raw = as_str(&t[r.clone()]);
    let cdata = match d.dtd() {
        None => true,
        Some(dt) => {
            let en = d.names.qname(d.sym_at(owner));
            let an = d.names.qname(d.sym_at(attr));
            dt.attribute(en, an).is_none_or(|a| a.ty == AttType::Cdata)
        }
    };
    let b = raw.as_bytes();
    // most values are short: a plain loop beats two memchr calls there
    let needs = if b.len() <= 32 {
        b.iter().any(|&c| matches!(c, b'&' | b'\t' | b'\n' | b'\r'))
    } else {
        memchr2(b'&', b'\t', b).is_some() || memchr2(b'\n', b'\r', b).is_some()
    };
    if cdata && !needs {
        return Cow::Borrowed(raw);
    }
    let mut budget = ExpansionBudget::new(&d.opts, t.len());
    match dtd::normalize_attribute_value(raw, t, r.start, d.dtd(), cdata, &mut budget, 0) {
        Ok(v) => v,
        Err(_) => Cow::Borrowed(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newlines() {
        assert_eq!(normalize_newlines(b"a\r\nb\rc\n"), "a\nb\nc\n");
        assert!(matches!(normalize_newlines(b"abc"), Cow::Borrowed(_)));
    }
}
