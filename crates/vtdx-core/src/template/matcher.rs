//! Matching a message against a template and writing its index: fixed runs are
//! compared a word at a time, each slot is scanned to its end with the checks
//! the parser makes there, and the template's records are written with their
//! offsets moved by the slots' length differences.

use crate::index::*;

use super::learn::{Op, Template};

/// Matching state: the message, where we are, where the current fixed run
/// started in the message, the innermost open element record, the tape.
struct M<'t, 'v> {
    t: &'t [u8],
    pos: usize,
    base: usize,
    open: u32,
    tape: &'v mut Vec<u32>,
}

/// Matches `input` against `tpl`, writing the index into `tape` (cleared first).
/// `false` when the message does not have the template's structure or anything
/// in a slot is not what the parser would accept without a second look; the
/// caller then parses it in full.
pub(crate) fn run_template(tpl: &Template, input: &[u8], tape: &mut Vec<u32>) -> bool {
    tape.clear();
    if input.len() < tpl.min_len || input.len() >= u32::MAX as usize || !input.ends_with(&tpl.tail) {
        return false;
    }
    tape.reserve(tpl.words);
    let mut m = M { t: input, pos: 0, base: 0, open: NONE, tape };
    run(&tpl.ops, &mut m) && m.pos == input.len() && m.open == NONE && m.tape.len() < MAX_TAPE_WORDS
}

fn run(ops: &[Op], m: &mut M<'_, '_>) -> bool {
    for op in ops {
        match op {
            Op::Fixed(b) => {
                if !eq_at(m.t, m.pos, b) {
                    return false;
                }
                m.base = m.pos;
                m.pos += b.len();
            }
            Op::Text => match scan_text(m.t, m.pos) {
                Some(e) => m.pos = e,
                None => return false,
            },
            Op::Value(q) => match scan_value(m.t, m.pos, *q) {
                Some(e) => m.pos = e,
                None => return false,
            },
            Op::Elem { word0, rel } => {
                let rec = m.tape.len() as u32;
                m.tape.extend_from_slice(&[*word0, (m.base as u32).wrapping_add(*rel), 0, m.open, 0]);
                m.open = rec;
            }
            Op::Attr { word0, rel } => m.tape.extend_from_slice(&[*word0, (m.base as u32).wrapping_add(*rel)]),
            Op::Close { rel } => {
                let next = m.tape.len() as u32;
                let Some(r) = m.tape.get_mut(m.open as usize..m.open as usize + ELEM_WORDS as usize) else { return false };
                r[2] = next;
                r[4] = (m.base as u32).wrapping_add(*rel);
                m.open = r[3];
            }
            Op::Leaf { word0, rel, len } => {
                let s = (m.base as u32).wrapping_add(*rel);
                m.tape.extend_from_slice(&[*word0, s, s.wrapping_add(*len), m.open]);
            }
            Op::Repeat(body) => {
                let Some(Op::Fixed(first)) = body.first() else { return false };
                // greedy: a unit whose first run matches must match in full
                while eq_at(m.t, m.pos, first) {
                    if !run(body, m) {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// `t[pos..pos + b.len()] == b`, eight bytes at a time.
#[inline(always)]
fn eq_at(t: &[u8], pos: usize, b: &[u8]) -> bool {
    let Some(s) = t.get(pos..pos + b.len()) else { return false };
    let n = b.len();
    if n < 8 {
        return s == b;
    }
    if n > 64 {
        return s == b;
    }
    let w = |x: &[u8], i: usize| u64::from_ne_bytes(x[i..i + 8].try_into().unwrap_or([0; 8]));
    let mut i = 0;
    while i + 8 <= n {
        if w(s, i) != w(b, i) {
            return false;
        }
        i += 8;
    }
    w(s, n - 8) == w(b, n - 8)
}

/// Character data from `p` to the next `<`, as the parser's content loop checks
/// it: references must be character references to a `Char` or one of the five
/// predefined entities (with no DTD every other entity is undeclared), `]]>` must
/// not occur, and every character must be a `Char` in valid UTF-8.
#[inline]
pub(crate) fn scan_text(t: &[u8], from: usize) -> Option<usize> {
    let mut p = from;
    loop {
        let at = crate::chars::find3(t, p, b'<', b'&', b']')?;
        match t[at] {
            b'<' => return chars_ok(&t[from..at]).then_some(at),
            b'&' => {
                p = if t.get(at + 1) == Some(&b'#') { crate::parser::char_ref(t, at).ok()?.1 } else { at + predefined_ref_len(&t[at..])? };
            }
            _ => {
                if t[at..].starts_with(b"]]>") {
                    return None;
                }
                p = at + 1;
            }
        }
    }
}

/// An attribute value from `p` to its closing quote `q`: no `<`, references to
/// the predefined entities only (a character reference sends the message to the
/// parser), every character a `Char`.
#[inline]
pub(crate) fn scan_value(t: &[u8], from: usize, q: u8) -> Option<usize> {
    let mut p = from;
    loop {
        let at = crate::chars::find3(t, p, q, b'<', b'&')?;
        let c = t[at];
        if c == q {
            return chars_ok(&t[from..at]).then_some(at);
        }
        if c == b'<' {
            return None;
        }
        p = at + predefined_ref_len(&t[at..])?;
    }
}

/// The length of the predefined entity reference `s` starts with (`s[0]` is `&`).
#[inline]
fn predefined_ref_len(s: &[u8]) -> Option<usize> {
    [&b"&amp;"[..], b"&lt;", b"&gt;", b"&quot;", b"&apos;"].into_iter().find(|r| s.starts_with(r)).map(<[u8]>::len)
}

/// Every character of `s` is a `Char` in valid UTF-8: ASCII from space up in
/// one pass eight bytes at a time (tab, LF and CR looked at in their word),
/// anything else through the parser's own check.
#[inline]
fn chars_ok(s: &[u8]) -> bool {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = s.chunks_exact(8);
    for w in &mut words {
        let x = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
        // a byte of 0x80 or more, or below 0x20
        if (x | (x.wrapping_sub(LOW * 0x20) & !x)) & HIGH != 0
            && !w.iter().all(|&c| (0x20..0x80).contains(&c) || matches!(c, b'\t' | b'\n' | b'\r'))
        {
            return crate::input::validate_utf8_chars(s).is_ok();
        }
    }
    if words.remainder().iter().all(|&c| (0x20..0x80).contains(&c) || matches!(c, b'\t' | b'\n' | b'\r')) {
        return true;
    }
    crate::input::validate_utf8_chars(s).is_ok()
}
