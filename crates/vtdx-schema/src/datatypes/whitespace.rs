//! The `whiteSpace` facet (XSD 1.0 Part 2 §4.3.6).

use std::borrow::Cow;

/// How white space in a value is normalized before the value is checked (§4.3.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WhiteSpace {
    /// No normalization.
    Preserve,
    /// Each tab, line feed and carriage return becomes a space.
    Replace,
    /// As `Replace`, then runs of spaces become one space and leading and trailing
    /// spaces are removed.
    Collapse,
}

impl WhiteSpace {
    /// The facet value's spelling (`preserve`, `replace`, `collapse`).
    pub fn name(self) -> &'static str {
        match self {
            WhiteSpace::Preserve => "preserve",
            WhiteSpace::Replace => "replace",
            WhiteSpace::Collapse => "collapse",
        }
    }

    /// Parses a facet value.
    pub fn from_name(s: &str) -> Option<WhiteSpace> {
        match s {
            "preserve" => Some(WhiteSpace::Preserve),
            "replace" => Some(WhiteSpace::Replace),
            "collapse" => Some(WhiteSpace::Collapse),
            _ => None,
        }
    }

    /// Normalizes `s`; borrows it when nothing changes.
    pub fn normalize(self, s: &str) -> Cow<'_, str> {
        match self {
            WhiteSpace::Preserve => Cow::Borrowed(s),
            WhiteSpace::Replace => replace(s),
            WhiteSpace::Collapse => collapse(s),
        }
    }
}

#[inline]
pub(crate) fn is_xml_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Trims leading and trailing XML white space (never allocates).
#[inline]
pub(crate) fn trim(s: &str) -> &str {
    let b = s.as_bytes();
    let mut start = 0;
    let mut end = b.len();
    while start < end && is_xml_ws(b[start]) {
        start += 1;
    }
    while end > start && is_xml_ws(b[end - 1]) {
        end -= 1;
    }
    &s[start..end]
}

fn replace(s: &str) -> Cow<'_, str> {
    if !s.bytes().any(|b| matches!(b, b'\t' | b'\n' | b'\r')) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.chars().map(|c| if matches!(c, '\t' | '\n' | '\r') { ' ' } else { c }).collect())
}

fn collapse(s: &str) -> Cow<'_, str> {
    let t = trim(s);
    let b = t.as_bytes();
    let mut clean = true;
    for i in 0..b.len() {
        match b[i] {
            b'\t' | b'\n' | b'\r' => {
                clean = false;
                break;
            }
            b' ' if i + 1 < b.len() && b[i + 1] == b' ' => {
                clean = false;
                break;
            }
            _ => {}
        }
    }
    if clean {
        return Cow::Borrowed(t);
    }
    let mut out = String::with_capacity(t.len());
    let mut pending = false;
    for c in t.chars() {
        if matches!(c, ' ' | '\t' | '\n' | '\r') {
            pending = true;
        } else {
            if pending {
                out.push(' ');
                pending = false;
            }
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization() {
        assert_eq!(WhiteSpace::Preserve.normalize(" a\tb "), " a\tb ");
        assert_eq!(WhiteSpace::Replace.normalize(" a\tb\r\n"), " a b  ");
        assert_eq!(WhiteSpace::Collapse.normalize(" \ta  \n b  "), "a b");
        assert!(matches!(WhiteSpace::Collapse.normalize(" a b "), Cow::Borrowed("a b")));
        assert_eq!(WhiteSpace::Collapse.normalize(" \t\n"), "");
        // U+00A0 is not XML white space
        assert_eq!(WhiteSpace::Collapse.normalize("\u{a0}a\u{a0}"), "\u{a0}a\u{a0}");
    }
}
