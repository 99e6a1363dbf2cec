//! Matching a message against a template and writing its index: fixed runs are
//! compared a word at a time, each slot is scanned to its end with the checks
//! the parser makes there (sixteen bytes at a time, looking closer only at
//! references, `]`, control characters and non-ASCII bytes), and the template's
//! records are written with their offsets moved by the slots' length differences.

use std::sync::Arc;

use crate::index::*;

use std::sync::atomic::Ordering::Relaxed;

use super::learn::{Rec, Seen, Slot, Step, Template, SEEN_MISSES};

/// Matching state: the message, where we are, where the current fixed run
/// started in the message, the innermost open element record, and the tape:
/// sized ahead (grown when repeats need more) and filled up to `len`.
struct M<'t, 'v> {
    t: &'t [u8],
    pos: usize,
    base: u32,
    open: u32,
    len: usize,
    tape: &'v mut Vec<u32>,
}

impl<'t, 'v> M<'t, 'v> {
    fn new(t: &'t [u8], tape: &'v mut Vec<u32>, words: usize) -> Self {
        tape.clear();
        tape.resize(words, 0);
        M { t, pos: 0, base: 0, open: NONE, len: 0, tape }
    }

    /// Whether the whole message was matched (and the tape is cut to its length).
    fn done(&mut self) -> bool {
        if self.pos == self.t.len() && self.open == NONE && self.len < MAX_TAPE_WORDS {
            self.tape.truncate(self.len);
            return true;
        }
        false
    }
}

/// Matches `input` against `tpl` alone, writing the index into `tape` (cleared
/// first): in one piece from the learned index when the template has no repeated
/// unit ([`Flat`]), else record by record as the match goes. `false` when the
/// message does not have the template's structure or anything in a slot is not
/// what the parser would accept without a second look; the caller then parses it
/// in full.
pub(crate) fn run_template(tpl: &Template, input: &[u8], tape: &mut Vec<u32>) -> bool {
    match &tpl.flat {
        Some(flat) => {
            let ok = precheck(tpl, input) && match_flat(&tpl.steps, input, tape) && flat.emit(tape);
            if !ok {
                tape.clear();
            }
            ok
        }
        None => run_records(tpl, input, tape),
    }
}

/// The length and tail checks made before any step.
fn precheck(tpl: &Template, input: &[u8]) -> bool {
    input.len() >= tpl.min_len
        && input.len() < u32::MAX as usize
        && input.len() >= tpl.tail.len()
        && eq_at(input, input.len() - tpl.tail.len(), &tpl.tail)
}

/// [`run_template`] writing the records as the match goes, whether or not the
/// template is flat (the learner checks both ways against the learned index).
pub(crate) fn run_records(tpl: &Template, input: &[u8], tape: &mut Vec<u32>) -> bool {
    tape.clear();
    if !precheck(tpl, input) {
        return false;
    }
    let mut m = M::new(input, tape, tpl.words);
    let ok = run::<false>(&tpl.steps, &mut m) && m.done();
    if !ok {
        m.tape.clear();
    }
    ok
}

/// Matches `input` against the steps of a flat template (no repeated unit),
/// leaving in `tape` where each step's fixed run starts in the message, one word
/// a step, for [`Flat::emit`].
pub(crate) fn match_flat(steps: &[Step], input: &[u8], tape: &mut Vec<u32>) -> bool {
    tape.clear();
    tape.reserve(steps.len());
    let mut m = M { t: input, pos: 0, base: 0, open: NONE, len: 0, tape };
    run::<true>(steps, &mut m) && m.pos == input.len()
}

/// Runs `steps` from the state in `m`. With `FLAT` (a template with no repeated
/// unit), no record is written: each step pushes the message offset its fixed
/// run starts at (or, for a slot alone, the last one) onto the tape, which
/// [`Flat::emit`] turns into the index once a template has matched in full.
fn run<const FLAT: bool>(steps: &[Step], m: &mut M<'_, '_>) -> bool {
    for step in steps {
        match step {
            Step::Run { bytes, recs, slot, seen } => {
                if !eq_at(m.t, m.pos, bytes) {
                    return false;
                }
                m.base = m.pos as u32;
                m.pos += bytes.len();
                if FLAT {
                    m.tape.push(m.base);
                } else if !recs.is_empty() && !records(recs, m) {
                    return false;
                }
                if !(seen_again(*slot, seen, m) || self::slot(*slot, m)) {
                    return false;
                }
            }
            Step::Slot(s) => {
                if FLAT {
                    m.tape.push(m.base);
                }
                if !self::slot(*s, m) {
                    return false;
                }
            }
            Step::Repeat(body) => {
                if FLAT {
                    return false;
                }
                let Some(Step::Run { bytes: first, .. }) = body.first() else { return false };
                // greedy: a unit whose first run matches must match in full
                while eq_at(m.t, m.pos, first) {
                    if !run::<false>(body, m) {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// The index of a template with no repeated unit, written in one piece: a message
/// that matches such a template has the learned message's records in the same
/// places of the tape, so only the words that hold message offsets differ, each
/// by how far the fixed run it was read from moved (the slots before it grew or
/// shrank by that much). So the learned tape is copied and those words are
/// moved, step by step.
#[derive(Debug)]
pub(crate) struct Flat {
    /// The learned message's tape.
    tape: Box<[u32]>,
    /// The steps whose records hold offset words.
    segs: Box<[Seg]>,
    /// The tape positions of offset words, in the order of `segs`.
    patch: Box<[u32]>,
    /// Steps of the template (one offset word each after a match).
    steps: usize,
}

/// A step of a [`Flat`] template whose records hold offset words: its index,
/// where its fixed run starts in the learned message, and where its words end
/// in `patch` (they start where the previous step's end).
#[derive(Debug, Clone, Copy)]
struct Seg {
    step: u32,
    base: u32,
    end: u32,
}

impl Flat {
    /// The flat index of `steps` (which have no repeated unit) from `input`, the
    /// learned message, and its index `tape`; `None` when the records of `steps`
    /// do not account for `tape` exactly.
    pub(crate) fn build(steps: &[Step], input: &[u8], tape: &[u32]) -> Option<Flat> {
        let mut bases = Vec::new();
        if !match_flat(steps, input, &mut bases) || bases.len() != steps.len() {
            return None;
        }
        let (mut segs, mut patch, mut open, mut len) = (Vec::new(), Vec::new(), Vec::new(), 0u32);
        for (k, step) in steps.iter().enumerate() {
            let before = patch.len();
            let recs: &[Rec] = if let Step::Run { recs, .. } = step { recs } else { &[] };
            for r in recs {
                match *r {
                    Rec::Elem { .. } => {
                        patch.push(len + 1);
                        open.push(len);
                        len += ELEM_WORDS;
                    }
                    Rec::Attr { .. } => {
                        patch.push(len + 1);
                        len += ATTR_WORDS;
                    }
                    Rec::Close { .. } => patch.push(open.pop()? + 4),
                    Rec::Leaf { .. } => {
                        patch.extend([len + 1, len + 2]);
                        len += LEAF_WORDS;
                    }
                }
            }
            if patch.len() > before {
                segs.push(Seg { step: k as u32, base: bases[k], end: patch.len() as u32 });
            }
        }
        // what `emit` relies on (it does not check again)
        if !open.is_empty()
            || len as usize != tape.len()
            || patch.iter().any(|&p| p as usize >= tape.len())
            || segs.iter().any(|s| s.step as usize >= steps.len() || s.end as usize > patch.len())
            || segs.windows(2).any(|w| w[0].end > w[1].end)
        {
            return None;
        }
        Some(Flat { tape: tape.into(), segs: segs.into(), patch: patch.into(), steps: steps.len() })
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        std::mem::size_of_val::<[u32]>(&self.tape)
            + std::mem::size_of_val::<[Seg]>(&self.segs)
            + std::mem::size_of_val::<[u32]>(&self.patch)
    }

    /// Turns the run starts [`match_flat`] left in `tape` into the index.
    #[allow(unsafe_code)]
    fn emit(&self, tape: &mut Vec<u32>) -> bool {
        let n = tape.len();
        if n != self.steps {
            return false;
        }
        // the run starts moved aside (on the stack for templates of up to 64 steps)
        let mut small = [0u32; 64];
        let heap;
        let bases: &[u32] = if n <= small.len() {
            small[..n].copy_from_slice(tape);
            &small[..n]
        } else {
            heap = tape.clone();
            &heap
        };
        tape.clear();
        tape.extend_from_slice(&self.tape);
        let out = &mut tape[..];
        let mut from = 0;
        for s in self.segs.iter() {
            // SAFETY: `build` checked that every `step` is below the number of
            // steps (`n`, the length of `bases`), that the `end`s rise and stay
            // within `patch`, and that every position in `patch` is below the
            // length of `self.tape`, which `out` is a copy of.
            unsafe {
                let d = bases.get_unchecked(s.step as usize).wrapping_sub(s.base);
                let words = self.patch.get_unchecked(from..s.end as usize);
                from = s.end as usize;
                if d != 0 {
                    for &p in words {
                        let w = out.get_unchecked_mut(p as usize);
                        *w = w.wrapping_add(d);
                    }
                }
            }
        }
        true
    }
}

/// Whether the slot at `m.pos` holds the value it held in the learned message
/// (and ends right after it): then `m.pos` moves past it, with no scan (see
/// [`Seen`] for why nothing needs checking). A failure is counted.
#[inline(always)]
fn seen_again(s: Slot, seen: &Seen, m: &mut M<'_, '_>) -> bool {
    let Some(v) = &seen.value else { return false };
    if seen.misses.load(Relaxed) >= SEEN_MISSES {
        return false;
    }
    let end = match s {
        Slot::None => return false,
        Slot::Text => b'<',
        Slot::Value(q) => q,
    };
    if eq_at(m.t, m.pos, v) && m.t.get(m.pos + v.len()) == Some(&end) {
        m.pos += v.len();
        return true;
    }
    seen.misses.store(seen.misses.load(Relaxed).saturating_add(1), Relaxed);
    false
}

#[inline(always)]
fn slot(s: Slot, m: &mut M<'_, '_>) -> bool {
    let end = match s {
        Slot::None => return true,
        Slot::Text => scan_text(m.t, m.pos),
        Slot::Value(q) => scan_value(m.t, m.pos, q),
    };
    match end {
        Some(e) => {
            m.pos = e;
            true
        }
        None => false,
    }
}

/// Writes the records of the run that starts at `m.base`.
#[inline(always)]
fn records(recs: &[Rec], m: &mut M<'_, '_>) -> bool {
    let need = m.len + recs.len() * ELEM_WORDS as usize;
    if need > m.tape.len() {
        m.tape.resize(need.max(m.tape.len() * 2), 0);
    }
    let (tape, base, mut len, mut open) = (&mut m.tape[..], m.base, m.len, m.open);
    for r in recs {
        match *r {
            Rec::Elem { word0, rel } => {
                let Some(w) = tape.get_mut(len..len + 5) else { return false };
                w.copy_from_slice(&[word0, base.wrapping_add(rel), 0, open, 0]);
                open = len as u32;
                len += 5;
            }
            Rec::Attr { word0, rel } => {
                let Some(w) = tape.get_mut(len..len + 2) else { return false };
                w.copy_from_slice(&[word0, base.wrapping_add(rel)]);
                len += 2;
            }
            Rec::Close { rel } => {
                let Some(r) = tape.get_mut(open as usize..open as usize + ELEM_WORDS as usize) else { return false };
                r[2] = len as u32;
                r[4] = base.wrapping_add(rel);
                open = r[3];
            }
            Rec::Leaf { word0, rel, len: n } => {
                let s = base.wrapping_add(rel);
                let Some(w) = tape.get_mut(len..len + 4) else { return false };
                w.copy_from_slice(&[word0, s, s.wrapping_add(n), open]);
                len += 4;
            }
        }
    }
    (m.len, m.open) = (len, open);
    true
}

/// `t[pos..pos + b.len()] == b`. Runs of sixteen bytes or more are compared
/// sixteen at a time with the differences OR-ed together and tested once at the
/// end (the last sixteen overlapping); shorter ones in two overlapping loads of
/// eight, four, or a byte or two.
#[inline(always)]
fn eq_at(t: &[u8], pos: usize, b: &[u8]) -> bool {
    let Some(s) = t.get(pos..pos + b.len()) else { return false };
    let n = b.len();
    if n >= 16 {
        return eq_long(s, b);
    }
    if n >= 8 {
        let w = |x: &[u8], i: usize| u64::from_ne_bytes(x[i..i + 8].try_into().unwrap_or([0; 8]));
        return (w(s, 0) ^ w(b, 0)) | (w(s, n - 8) ^ w(b, n - 8)) == 0;
    }
    if n >= 4 {
        let h = |x: &[u8], i: usize| u32::from_ne_bytes(x[i..i + 4].try_into().unwrap_or([0; 4]));
        return (h(s, 0) ^ h(b, 0)) | (h(s, n - 4) ^ h(b, n - 4)) == 0;
    }
    match n {
        0 => true,
        1 => s[0] == b[0],
        2 => s[0] == b[0] && s[1] == b[1],
        _ => s[0] == b[0] && s[1] == b[1] && s[2] == b[2],
    }
}

/// [`eq_at`] for two slices of one length, sixteen bytes or more.
#[inline(always)]
#[allow(unsafe_code)]
fn eq_long(s: &[u8], b: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86_64 baseline, so the target feature the
        // function enables is always present; it reads only its arguments.
        unsafe { eq_long_sse2(s, b) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        s == b
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
#[allow(unsafe_code)]
fn eq_long_sse2(s: &[u8], b: &[u8]) -> bool {
    use std::arch::x86_64::*;
    let n = s.len();
    if n < 16 || b.len() != n {
        return s == b;
    }
    // the XOR of the sixteen bytes at `i` in both
    let x = |i: usize| match (<&[u8; 16]>::try_from(&s[i..i + 16]), <&[u8; 16]>::try_from(&b[i..i + 16])) {
        // SAFETY: each load reads the sixteen bytes of a `&[u8; 16]` (unaligned).
        (Ok(p), Ok(q)) => unsafe { _mm_xor_si128(_mm_loadu_si128(p.as_ptr().cast()), _mm_loadu_si128(q.as_ptr().cast())) },
        _ => _mm_set1_epi8(1),
    };
    // runs of up to 64 bytes (most) in two or four loads, with no loop
    let acc = if n <= 32 {
        _mm_or_si128(x(0), x(n - 16))
    } else if n <= 64 {
        _mm_or_si128(_mm_or_si128(x(0), x(16)), _mm_or_si128(x(n - 32), x(n - 16)))
    } else {
        let mut acc = x(n - 16);
        let mut i = 0;
        while i + 16 <= n {
            acc = _mm_or_si128(acc, x(i));
            i += 16;
        }
        acc
    };
    _mm_movemask_epi8(_mm_cmpeq_epi8(acc, _mm_setzero_si128())) == 0xFFFF
}

/// Character data from `from` to the next `<`, as the parser's content loop
/// checks it: references must be character references to a `Char` or one of the
/// five predefined entities (with no DTD every other entity is undeclared), `]]>`
/// must not occur, and every character must be a `Char` in valid UTF-8. Sixteen
/// bytes at a time; a non-ASCII byte sends the slot to [`scan_text_slow`].
#[inline(always)]
pub(crate) fn scan_text(t: &[u8], from: usize) -> Option<usize> {
    let mut p = from;
    'blocks: while let Some(w) = t.get(p..p + 16).and_then(|w| <&[u8; 16]>::try_from(w).ok()) {
        let mut m = flags16(w, b'<', b'&', b']');
        while m != 0 {
            let at = p + m.trailing_zeros() as usize;
            m &= m - 1;
            match t[at] {
                b'<' => return Some(at),
                b'\t' | b'\n' | b'\r' => {}
                b']' => {
                    if t[at..].starts_with(b"]]>") {
                        return None;
                    }
                }
                b'&' => {
                    p = if t.get(at + 1) == Some(&b'#') {
                        crate::parser::char_ref(t, at).ok()?.1
                    } else {
                        at + predefined_ref_len(&t[at..])?
                    };
                    continue 'blocks;
                }
                c if c >= 0x80 => return scan_text_slow(t, from),
                _ => return None,
            }
        }
        p += 16;
    }
    scan_text_slow(t, from)
}

/// [`scan_text`] for any slot: finds the end, then checks the characters.
#[inline(never)]
pub(crate) fn scan_text_slow(t: &[u8], from: usize) -> Option<usize> {
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

/// An attribute value from `from` to its closing quote `q`: no `<`, references
/// to the predefined entities only (a character reference sends the message to
/// the parser), every character a `Char`. Sixteen bytes at a time; a non-ASCII
/// byte sends the slot to [`scan_value_slow`].
#[inline(always)]
pub(crate) fn scan_value(t: &[u8], from: usize, q: u8) -> Option<usize> {
    // the quote a constant in each copy (the block mask then needs no broadcast)
    if q == b'"' {
        scan_value_q::<b'"'>(t, from)
    } else {
        scan_value_q::<b'\''>(t, from)
    }
}

#[inline(always)]
fn scan_value_q<const Q: u8>(t: &[u8], from: usize) -> Option<usize> {
    let q = Q;
    let mut p = from;
    'blocks: while let Some(w) = t.get(p..p + 16).and_then(|w| <&[u8; 16]>::try_from(w).ok()) {
        let mut m = flags16(w, q, b'<', b'&');
        while m != 0 {
            let at = p + m.trailing_zeros() as usize;
            m &= m - 1;
            match t[at] {
                c if c == q => return Some(at),
                b'\t' | b'\n' | b'\r' => {}
                b'&' => {
                    p = at + predefined_ref_len(&t[at..])?;
                    continue 'blocks;
                }
                c if c >= 0x80 => return scan_value_slow(t, from, q),
                _ => return None,
            }
        }
        p += 16;
    }
    scan_value_slow(t, from, q)
}

/// [`scan_value`] for any slot: finds the end, then checks the characters.
#[inline(never)]
pub(crate) fn scan_value_slow(t: &[u8], from: usize, q: u8) -> Option<usize> {
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

/// A mask of the bytes of `w` (bit i for byte i) equal to `a`, `b` or `c`, below
/// 0x20, or 0x80 and above.
#[inline(always)]
#[allow(unsafe_code)]
fn flags16(w: &[u8; 16], a: u8, b: u8, c: u8) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86_64 baseline, so the target feature the
        // function enables is always present; it reads only its arguments.
        unsafe { flags16_sse2(w, a, b, c) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0u32;
        for (i, &x) in w.iter().enumerate() {
            m |= u32::from(x == a || x == b || x == c || !(0x20..0x80).contains(&x)) << i;
        }
        m
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
#[allow(unsafe_code)]
fn flags16_sse2(w: &[u8; 16], a: u8, b: u8, c: u8) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: `w` is sixteen readable bytes; the load is unaligned.
    let v = unsafe { _mm_loadu_si128(w.as_ptr().cast::<__m128i>()) };
    let eq = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(a as i8)), _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8))),
        _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8)),
    );
    // signed: 0x80..=0xFF are negative, so below 0x20 as well
    let low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
    _mm_movemask_epi8(_mm_or_si128(eq, low)) as u32
}

/// The length of the predefined entity reference `s` starts with (`s[0]` is `&`).
#[inline]
pub(crate) fn predefined_ref_len(s: &[u8]) -> Option<usize> {
    [&b"&amp;"[..], b"&lt;", b"&gt;", b"&quot;", b"&apos;"].into_iter().find(|r| s.starts_with(r)).map(<[u8]>::len)
}

/// Every character of `s` is a `Char` in valid UTF-8: ASCII from space up in
/// one pass eight bytes at a time (tab, LF and CR looked at in their word),
/// anything else through the parser's own check.
#[inline]
fn chars_ok(s: &[u8]) -> bool {
    let mut words = s.chunks_exact(8);
    for w in &mut words {
        let x = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
        // a byte of 0x80 or more, or below 0x20
        if (x & 0x8080_8080_8080_8080) | crate::chars::bytes_below(x, 0x20) != 0
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

/// The templates of one key (and one set of options) as a prefix tree of their
/// steps: steps the templates share are matched once, and a message is matched
/// against the tree in one pass, taking at each fork the branch whose next step
/// matches (and the next one if that branch fails further on).
#[derive(Debug, Default)]
pub(crate) struct Trie {
    roots: Vec<Node>,
    /// The distinct tails of the templates: a message must end with one of them.
    tails: Vec<Box<[u8]>>,
    /// The shortest message any template can match.
    min_len: usize,
    /// The most tape words a template's learned message had (reserved up front).
    words: usize,
    /// The tree holds one template, which is [`Flat`]: it is matched without
    /// writing records, and the index is written once it has matched.
    flat: bool,
}

/// Steps `from..to` of `tpl` (shared by every template below this node), the
/// template that ends here if any, and the forks that follow.
#[derive(Debug)]
struct Node {
    tpl: Arc<Template>,
    from: usize,
    to: usize,
    end: Option<Arc<Template>>,
    children: Vec<Node>,
}

impl Trie {
    /// The tree of `templates` (tried in this order where they part).
    pub(crate) fn build(templates: &[Arc<Template>]) -> Trie {
        let mut trie = Trie { min_len: usize::MAX, flat: true, ..Trie::default() };
        for t in templates {
            insert(&mut trie.roots, t, 0);
            if !trie.tails.iter().any(|x| **x == *t.tail) {
                trie.tails.push(t.tail.clone());
            }
            trie.min_len = trie.min_len.min(t.min_len);
            trie.words = trie.words.max(t.words);
            // flat only for a key with one template: with the four templates of
            // the benchmark's `mixed` stream, writing the index in one piece took
            // about 10% longer by the clock than writing records (though a quarter
            // fewer instructions); see docs/template-cache.md
            trie.flat &= t.flat.is_some() && templates.len() == 1;
        }
        trie
    }

    /// The template `input` matches, with its index written into `tape`; `None`
    /// when no template matches (the caller parses in full).
    pub(crate) fn find<'s>(&'s self, input: &[u8], tape: &mut Vec<u32>) -> Option<&'s Arc<Template>> {
        tape.clear();
        if input.len() < self.min_len
            || input.len() >= u32::MAX as usize
            || !self.tails.iter().any(|t| input.len() >= t.len() && eq_at(input, input.len() - t.len(), t))
        {
            return None;
        }
        if self.flat {
            let mut m = M { t: input, pos: 0, base: 0, open: NONE, len: 0, tape };
            m.tape.reserve(self.words);
            let found = walk::<true>(&self.roots, &mut m);
            if let Some(t) = found {
                if t.flat.as_ref().is_some_and(|f| f.emit(tape)) {
                    return found;
                }
            }
            tape.clear();
            return None;
        }
        let mut m = M::new(input, tape, self.words);
        let found = walk::<false>(&self.roots, &mut m);
        if found.is_none() {
            m.tape.clear();
        }
        found
    }
}

/// Bytes a template adds to the tree of its key, at most: inserting one adds at
/// most two nodes (the one it ends in, and one split), and perhaps a tail.
pub(crate) const TRIE_BYTES_PER_TEMPLATE: usize = 2 * std::mem::size_of::<Node>() + std::mem::size_of::<Box<[u8]>>() + 32;

/// Adds `t` (whose steps before `at` are those of the parent node) below `nodes`.
fn insert(nodes: &mut Vec<Node>, t: &Arc<Template>, at: usize) {
    for c in nodes.iter_mut() {
        if c.tpl.steps.get(at) != t.steps.get(at) {
            continue;
        }
        let mut k = at;
        while k < c.to && c.tpl.steps.get(k) == t.steps.get(k) {
            k += 1;
        }
        if k < c.to {
            // the two part inside this node: split it where they do
            let tail = Node { tpl: Arc::clone(&c.tpl), from: k, to: c.to, end: c.end.take(), children: std::mem::take(&mut c.children) };
            c.to = k;
            c.children.push(tail);
        }
        if k == t.steps.len() {
            // the same ops as a template already here (or a prefix of them)
            c.end.get_or_insert_with(|| Arc::clone(t));
        } else {
            insert(&mut c.children, t, k);
        }
        return;
    }
    nodes.push(Node { tpl: Arc::clone(t), from: at, to: t.steps.len(), end: Some(Arc::clone(t)), children: Vec::new() });
}

/// Tries each of `nodes` from the same state; the template the message matches.
fn walk<'n, const FLAT: bool>(nodes: &'n [Node], m: &mut M<'_, '_>) -> Option<&'n Arc<Template>> {
    let (pos, base, open, len, pushed) = (m.pos, m.base, m.open, m.len, m.tape.len());
    for (i, c) in nodes.iter().enumerate() {
        if i > 0 {
            // records an abandoned branch closed before the fork are closed again
            // by the branch that matches (every element open at the fork is)
            (m.pos, m.base, m.open, m.len) = (pos, base, open, len);
            if FLAT {
                m.tape.truncate(pushed);
            }
        }
        if !run::<FLAT>(&c.tpl.steps[c.from..c.to], m) {
            continue;
        }
        if c.end.is_some() && if FLAT { m.pos == m.t.len() } else { m.done() } {
            return c.end.as_ref();
        }
        if let Some(t) = walk::<FLAT>(&c.children, m) {
            return Some(t);
        }
    }
    None
}
