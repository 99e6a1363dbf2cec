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
use crate::dtd::{self, AttType, ExpansionBudget};
use crate::xml;

#[inline]
pub(crate) fn as_str(b: &[u8]) -> &str {
    // The text was validated as UTF-8 before indexing and ranges fall on character
    // boundaries. Checked again (no `unsafe`), with SIMD: a value may be a 100 KB text.
    match simdutf8::basic::from_utf8(b) {
        Ok(s) => s,
        Err(_) => match std::str::from_utf8(b) {
            Ok(s) => s,
            Err(e) => std::str::from_utf8(&b[..e.valid_up_to()]).unwrap_or(""),
        },
    }
}

/// Line-end normalization (XML 1.0 §2.11): CR LF and lone CR become LF.
pub(crate) fn normalize_newlines(raw: &[u8]) -> Cow<'_, str> {
    if memchr(b'\r', raw).is_none() {
        return Cow::Borrowed(as_str(raw));
    }
    let mut out = String::with_capacity(raw.len());
    xml::normalize_newlines_into(&mut out, raw);
    Cow::Owned(out)
}

/// Decodes character data: references resolved, line ends normalized.
pub(crate) fn decode_content<'d>(d: &'d Document<'d>, r: Range<usize>) -> Cow<'d, str> {
    let raw = &d.text()[r];
    if memchr2(b'&', b'\r', raw).is_none() {
        return Cow::Borrowed(as_str(raw));
    }
    let mut out = String::with_capacity(raw.len());
    xml::decode_text_into(d, raw, &mut out, true, 0);
    Cow::Owned(out)
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
