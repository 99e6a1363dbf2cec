//! A large document parsed in two halves on two threads.
//!
//! With [`ParseOptions::parallel_parse`] a document of
//! [`crate::PARALLEL_PARSE_MIN_BYTES`] or more (UTF-8, no document type
//! declaration) is cut at the first start tag past its middle. This thread parses
//! the document element's start tag, then the content up to the cut as if the
//! text ended there (the *first half*, which stops at the cut with its elements
//! still open). A second thread parses from the cut to the end at the same time
//! (the *second half*): it does not know which elements are open at the cut, so it
//! starts inside [`STAND_INS`] stand-in elements whose end tags it takes whatever
//! their names (remembering each), with the namespace declarations of the
//! document element in scope, and on its own copy of the name tables.
//!
//! The halves are then joined, and the join checks every guess the second half
//! made against what the first half found at the cut: the cut was at markup (the
//! first half ended in content, not inside a comment, CDATA section or PI); the
//! namespace declarations in scope there are those of the document element; the
//! second half's first end tags for stand-ins name, in order, the elements open at
//! the cut, innermost first, and close them all; and the depth limit holds for the
//! elements of the second half under the elements open at the cut. Its records are
//! then appended with their symbols renumbered into this thread's name tables
//! (interned in the order the second half met them, which is the order a single
//! pass would have met them), their word indices moved, and their stand-in parents
//! replaced by the open elements; those get their ends from the stand-ins' end
//! tags. Whatever follows the document element's end tag is parsed here as the
//! epilog, as always.
//!
//! When a guess fails, or the second half found an error, the second half is
//! thrown away and this thread parses on from the cut, so every error is the one a
//! single pass reports. An error in the first half may come from the cut itself (a
//! reference cut in two): the whole document is then parsed again in one pass.
//! So the result is always the document (or the error) a single pass makes.

use super::*;
use std::mem::MaybeUninit;

/// The record index of the outermost stand-in; the `i`-th has `STAND_IN + i`.
/// Above every real record index (the tape is limited to 2^31 words) and below
/// [`NONE`].
pub(super) const STAND_IN: u32 = 1 << 31;
const _: () = assert!(MAX_TAPE_WORDS <= STAND_IN as usize && STAND_IN as u64 + 64 < NONE as u64);

/// How many stand-ins the second half starts under: the deepest element open at
/// the cut that a split parse can handle (a deeper cut falls back to one pass).
const STAND_INS: usize = 48;

/// How much of the document the first half parses before the second half takes
/// a copy of its name tables.
const WARM_UP: usize = 64 << 10;

#[cfg(any(test, feature = "test-hooks"))]
thread_local! {
    /// Tests: split every document (whatever its size) at the first start tag from
    /// the first offset, with the second the warm-up length.
    pub(crate) static TEST_SPLIT: std::cell::Cell<Option<(usize, usize)>> = const { std::cell::Cell::new(None) };
}

/// Fuzzing (feature `test-hooks`): on this thread, parses with
/// [`ParseOptions::parallel_parse`] split every document at the first start tag
/// from `cut.0`, after a warm-up of `cut.1` bytes; `None` restores the default.
#[cfg(feature = "test-hooks")]
#[doc(hidden)]
pub fn __force_split(cut: Option<(usize, usize)>) {
    TEST_SPLIT.with(|s| s.set(cut));
}

/// `n`, the input size from which a parallel path applies (0 while a test splits).
pub(crate) fn parallel_min(n: usize) -> usize {
    #[cfg(any(test, feature = "test-hooks"))]
    if TEST_SPLIT.with(|s| s.get()).is_some() {
        return 0;
    }
    n
}

/// Where the cut goes in a text of `len` bytes, and the warm-up length.
fn cut_and_warm_up(len: usize) -> (usize, usize) {
    #[cfg(any(test, feature = "test-hooks"))]
    if let Some(forced) = TEST_SPLIT.with(|s| s.get()) {
        return forced;
    }
    (len / 2, WARM_UP)
}

/// The first `<` at or after `at` that may start a start tag.
fn start_tag_at(t: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let lt = at + memchr(b'<', t.get(at..)?)?;
        match t.get(lt + 1) {
            Some(&b) if b >= 0x80 || crate::chars::CLASS[b as usize] & crate::chars::NAME_START != 0 => return Some(lt),
            Some(_) => at = lt + 1,
            None => return None,
        }
    }
}

/// The per-run state of a split parse.
#[derive(Debug, Default)]
pub(super) struct SplitState {
    /// This run is the first half: the end of the text is the cut.
    pub first_half: bool,
    /// This run is the second half.
    pub second_half: bool,
    /// Stand-ins still open (second half).
    pub stand_ins: usize,
    /// The stand-ins' end tags, in order (second half).
    pub closes: Vec<StandInClose>,
    /// Splitting is off for this run (a retry after a failed first half).
    pub off: bool,
}

/// A stand-in's end tag in the second half.
#[derive(Clone, Copy, Debug)]
pub(super) struct StandInClose {
    name_start: usize,
    name_len: usize,
    /// Offset just past its `>`.
    end: usize,
    /// The second half's tape length when it was met.
    tape_len: usize,
}

/// Why the second half has no result.
enum Failed {
    /// The UTF-8 and `Char` check of its text failed.
    Check(Error),
    /// Its parse failed (perhaps only because a guess was wrong).
    Parse,
}

/// What the second half hands back.
struct Half {
    tape: Vec<u32>,
    names: Names,
    closes: Vec<StandInClose>,
}

impl Run<'_> {
    /// Where to cut the document whose element starts at `root_at`, if it is to be
    /// split: the first start tag at or past the middle of the text.
    pub(super) fn split_point(&self, t: &[u8], root_at: usize) -> Option<usize> {
        let on = self.opts.parallel_parse
            && !self.st.split.off
            && !self.st.split.first_half
            && !self.st.split.second_half
            && t.len() >= parallel_min(crate::options::PARALLEL_PARSE_MIN_BYTES)
            && self.dtd.is_none()
            && !self.expanded
            && self.fragment_depth == 0
            && self.lean
            && self.st.defaults.is_empty();
        if !on {
            return None;
        }
        start_tag_at(t, cut_and_warm_up(t.len()).0.max(root_at + 1))
    }

    /// The document element from `pos` (its `<`) with the content cut at `cut`:
    /// the offset past its end tag, as [`Run::content`] returns it.
    pub(super) fn content_split(&mut self, t: &[u8], pos: usize, cut: usize) -> Result<usize, Error> {
        // the document element's start tag, on the general path
        let p = self.start_tag(t, pos)?;
        if self.st.stack.is_empty() || p >= cut {
            self.check_whole(t)?;
            if self.st.stack.is_empty() {
                return Ok(p);
            }
            return self.content_loop(t, p, 0, false, false);
        }
        let check = self.st.check_pending.take();
        let root_bindings = self.st.bindings.len();
        let outer_bindings = self.st.stack[0].bindings as usize;
        let root_qid = self.st.stack[0].qid;
        let bindings = self.st.bindings.clone();
        // the second half starts with a copy of the name tables once this thread has
        // parsed the first WARM_UP bytes or so (while both check their halves), so
        // that most names have their final symbols in both halves
        let warm = start_tag_at(t, p + cut_and_warm_up(t.len()).1).filter(|&w| w < cut);
        let (tx, rx) = std::sync::mpsc::sync_channel::<Names>(1);
        let (opts, ns_on, q_xml, q_xmlns) = (self.opts, self.ns_on, self.q_xml, self.q_xmlns);
        let mut lens = (0, 0, 0);
        let tape2 = std::mem::take(&mut self.st.second_tape);
        let (checked, first, second) = std::thread::scope(|s| {
            let second = s.spawn(move || {
                if let Some(bom_len) = check {
                    crate::input::check_deferred_range(t, bom_len, cut, t.len()).map_err(Failed::Check)?;
                }
                let names = rx.recv().map_err(|_| Failed::Parse)?;
                second_half(opts, ns_on, (q_xml, q_xmlns), t, cut, names, bindings, root_qid, tape2).map_err(|_| Failed::Parse)
            });
            self.st.split.first_half = true;
            let mut first = match warm {
                Some(w) => self.content_loop(&t[..w], p, 0, false, false),
                None => Ok(p),
            };
            if first.is_ok() && !self.st.stack.is_empty() {
                let names = self.names.clone();
                lens = (names.qnames.len(), names.syms.len(), names.ns.len());
                let _ = tx.send(names);
            }
            drop(tx);
            let checked = match check {
                Some(bom_len) => crate::input::check_deferred_range(t, bom_len, 0, cut),
                None => Ok(()),
            };
            if checked.is_ok() {
                if let Ok(at) = first {
                    if !self.st.stack.is_empty() {
                        first = self.content_loop(&t[..cut], at, 0, false, false);
                    }
                }
            }
            self.st.split.first_half = false;
            (checked, first, second.join())
        });
        let second = match second {
            Ok(r) => r,
            // the second half checks its text before parsing it, but its copy of the
            // name tables holds names this thread read before its check: thrown away
            // with them when that check failed
            Err(_) if checked.is_err() => Err(Failed::Parse),
            Err(panic) => std::panic::resume_unwind(panic),
        };
        // a failed check wins over anything the parse found: the first half's, else
        // the second's (the first half's text was all right then)
        let check_error = match (checked, &second) {
            (Err(e), _) => Some(e),
            (Ok(()), Err(Failed::Check(e))) => Some(e.clone()),
            _ => None,
        };
        if let Some(e) = check_error {
            self.st.check_error = Some(e.clone());
            return Err(e);
        }
        let first = match first {
            Ok(at) => at,
            Err(e) => {
                // perhaps an error of the cut: parse again in one pass
                self.st.split_retry = true;
                return Err(e);
            }
        };
        if self.st.stack.is_empty() {
            // the document element ended before the cut
            return Ok(first);
        }
        if let Ok(h) = second {
            if self.st.bindings.len() == root_bindings {
                let end = self.join(t, &h, lens);
                self.st.second_tape = h.tape;
                if let Some(end) = end {
                    self.st.bindings.truncate(outer_bindings);
                    return Ok(end);
                }
            }
        }
        // a guess failed: go on from the cut in one pass
        self.content_loop(t, cut, 0, false, false)
    }

    /// Makes the check decoding deferred over the whole text, if it is this run's to make.
    pub(super) fn check_whole(&mut self, t: &[u8]) -> Result<(), Error> {
        if let Some(bom_len) = self.st.check_pending.take() {
            if let Err(e) = crate::input::check_deferred(t, bom_len) {
                self.st.check_error = Some(e.clone());
                return Err(e);
            }
        }
        Ok(())
    }

    /// Joins the second half to this run, stopped at the cut; the offset past the
    /// document element's end tag, or `None` (nothing changed) when a guess fails.
    fn join(&mut self, t: &[u8], h: &Half, (q0, s0, n0): (usize, usize, usize)) -> Option<usize> {
        let open = self.st.stack.len();
        // (more elements open than stand-ins: the second half failed at the extra end tag)
        if h.closes.len() < open {
            return None;
        }
        // the stand-ins' end tags name the open elements, innermost first
        for (j, c) in h.closes[..open].iter().enumerate() {
            let o = self.st.stack[open - 1 - j];
            if c.name_len != o.name_len as usize || !same_at(t, c.name_start, o.name_start as usize, c.name_len) {
                return None;
            }
        }
        // (the depth limit needs no check: the second half applied it counting all
        // the stand-ins, at least as many as the elements open at the cut)
        let root_close = h.closes[open - 1];
        let cut_len = root_close.tape_len;
        let base = self.tape.len();
        if base + cut_len > MAX_TAPE_WORDS {
            return None;
        }
        // symbols: the second half's own, interned here in its order
        let mut qmap: Vec<QNameId> = Vec::with_capacity(h.names.qnames.len() - q0);
        for q in &h.names.qnames[q0..] {
            let name = &h.names.arena.as_bytes()[q.off as usize..(q.off + q.blen) as usize];
            qmap.push(self.names.intern_qname(name));
        }
        let mut nsmap: Vec<NsId> = Vec::with_capacity(h.names.ns.len() - n0);
        for u in &h.names.ns[n0..] {
            nsmap.push(self.names.intern_ns_bytes(u.as_bytes()));
        }
        let q_of = |q: QNameId| if q.index() < q0 { q } else { qmap[q.index() - q0] };
        let ns_of = |n: NsId| if n.index() < n0 { n } else { nsmap[n.index() - n0] };
        let mut smap: Vec<u32> = Vec::with_capacity(h.names.syms.len() - s0);
        for si in &h.names.syms[s0..] {
            smap.push(self.names.sym(q_of(si.qname), ns_of(si.ns))?.as_u32());
        }
        if self.st.check_only {
            // a check keeps no index: every test above (names, limits) is made,
            // the second half's records are not copied
            self.st.stack.clear();
            return Some(root_close.end);
        }
        let sym_of = |w0: u32| {
            let s = w0 & PAYLOAD_MASK;
            if (s as usize) < s0 {
                w0
            } else {
                (w0 & !PAYLOAD_MASK) | smap[s as usize - s0]
            }
        };
        // the open elements, by stand-in record index
        let shift = STAND_INS - open;
        let stack = &self.st.stack;
        let parent_of = |p: u32| -> u32 {
            if p >= STAND_IN {
                // before the document element's end tag only the stand-ins for open
                // elements are parents
                stack.get(((p - STAND_IN) as usize).wrapping_sub(shift)).map_or(NONE, |o| o.rec)
            } else {
                p + base as u32
            }
        };
        let src = &h.tape[..cut_len];
        // a large second half is renumbered by two threads, cut at a record
        let cut_at = if cut_len >= parallel_min(PARALLEL_JOIN_WORDS) {
            // (the second half's own word indices: whole subtrees at its top level)
            let t = crate::tape::Tape::new(src);
            t.record_near_middle(crate::tape::RecordId::new(0), t.end()).map(|r| r.as_usize())
        } else {
            None
        };
        // Each word is written once, copied and renumbered in one pass, by two
        // threads for a large second half (each its own whole records).
        // PERF: the join of `vtdx query` on po_16mb, 30 interleaved runs on a
        // quiet host: 1.39 ms median with the copy first (`extend_from_slice`,
        // about 0.55 ms on one thread) and the renumbering in place after; 1.05
        // ms in one pass.
        let renumber = !smap.is_empty();
        let fix = |src: &[u32], dst: &mut [MaybeUninit<u32>]| {
            debug_assert_eq!(src.len(), dst.len());
            let mut r = 0;
            while r < src.len() {
                let w0 = src[r];
                let kind = kind_of(w0);
                let w0 = if renumber && kind != K_COMMENT && kind != K_PI && kind != K_CDATA { sym_of(w0) } else { w0 };
                if kind == K_ELEM {
                    dst[r].write(w0);
                    dst[r + 1].write(src[r + 1]);
                    dst[r + 2].write(src[r + 2] + base as u32);
                    dst[r + 3].write(parent_of(src[r + 3]));
                    dst[r + 4].write(src[r + 4]);
                    r += 5;
                } else if kind == K_ATTR || kind == K_NSDECL {
                    dst[r].write(w0);
                    dst[r + 1].write(src[r + 1]);
                    r += 2;
                } else {
                    dst[r].write(w0);
                    dst[r + 1].write(src[r + 1]);
                    dst[r + 2].write(src[r + 2]);
                    dst[r + 3].write(parent_of(src[r + 3]));
                    r += 4;
                }
            }
            // (a well-formed second half ends on a record end; the stand-ins'
            // records close it)
            r == src.len()
        };
        self.tape.reserve(cut_len);
        let dst = &mut self.tape.spare_capacity_mut()[..cut_len];
        let whole = match cut_at {
            Some(m) => {
                let ((s0, s1), (d0, d1)) = (src.split_at(m), dst.split_at_mut(m));
                std::thread::scope(|s| {
                    let second = s.spawn(|| fix(s1, d1));
                    let first = fix(s0, d0);
                    first & second.join().unwrap_or(false)
                })
            }
            None => fix(src, dst),
        };
        assert!(whole, "the second half's tape ends inside a record");
        #[allow(unsafe_code)]
        // SAFETY: `fix` wrote every word of `dst`, the first `cut_len` words of the
        // spare capacity (indices `0..src.len()`, stepping through whole records;
        // the assert above checks that the last record ends exactly at
        // `src.len()`, so no index was skipped), and `reserve` made room for them:
        // the words `base..base + cut_len` are initialized.
        unsafe {
            self.tape.set_len(base + cut_len);
        }
        // the open elements end where their stand-ins did
        for (j, c) in h.closes[..open].iter().enumerate() {
            let rec = self.st.stack[open - 1 - j].rec as usize;
            self.tape[rec + 2] = (base + c.tape_len) as u32;
            self.tape[rec + 4] = c.end as u32;
        }
        self.st.stack.clear();
        Some(root_close.end)
    }

    /// The end tag of a stand-in (second half): any name, remembered.
    pub(super) fn stand_in_end_tag(&mut self, t: &[u8], pos: usize) -> Result<usize, Error> {
        let ns = pos + 2;
        let Some(ne) = scan_name(t, ns) else { return Err(unexpected(t, ns, "an element name in the end tag")) };
        let p = skip_ws(t, ne);
        if t.get(p) != Some(&b'>') {
            return Err(unexpected(t, p, "`>` closing the end tag"));
        }
        let end = p + 1;
        self.st.split.closes.push(StandInClose { name_start: ns, name_len: ne - ns, end, tape_len: self.tape.len() });
        self.st.stack.pop();
        self.st.split.stand_ins -= 1;
        Ok(end)
    }
}

/// A second half of this many tape words or more (a document of about 2 MB)
/// is renumbered into the first by two threads (any size while a test splits).
const PARALLEL_JOIN_WORDS: usize = 1 << 18;

/// Parses `t` from `cut` (a `<`) to the end as the second half.
#[allow(clippy::too_many_arguments)]
fn second_half(
    opts: &ParseOptions,
    ns_on: bool,
    (q_xml, q_xmlns): (QNameId, QNameId),
    t: &[u8],
    cut: usize,
    mut names: Names,
    bindings: Vec<Binding>,
    root_qid: QNameId,
    mut tape: Vec<u32>,
) -> Result<Half, Error> {
    let mut st = State::default();
    let nb = bindings.len() as u32;
    st.bindings = bindings;
    for i in 0..STAND_INS {
        st.stack.push(OpenElem {
            rec: STAND_IN + i as u32,
            name_start: 0,
            name_len: 0,
            bindings: nb,
            qid: root_qid,
            last_child: NO_PREFIX,
        });
    }
    st.split = SplitState { second_half: true, stand_ins: STAND_INS, ..SplitState::default() };
    let mut run = Run {
        opts,
        st: &mut st,
        tape: {
            super::api::reserve_tape_for(&mut tape, t.len() - cut);
            tape
        },
        names: &mut names,
        dtd: None,
        budget: ExpansionBudget::new(opts, t.len()),
        ns_on,
        q_xml,
        q_xmlns,
        fragment_depth: 0,
        expanded: false,
        lean: true,
    };
    // returns when every stand-in is closed, or at the end of the text with only
    // stand-ins open
    run.content_loop(t, cut, 0, false, false)?;
    let tape = std::mem::take(&mut run.tape);
    let closes = std::mem::take(&mut run.st.split.closes);
    Ok(Half { tape, names, closes })
}

#[cfg(test)]
mod tests {
    use crate::{ParseOptions, Parser};

    /// The verdict of a parse or check: `Ok` or the error's kind and position.
    fn verdict<T>(r: Result<T, crate::Error>) -> Result<(), (String, u64, u32, u32)> {
        r.map(drop).map_err(|e| (format!("{:?}", e.kind()), e.offset(), e.line(), e.column()))
    }

    /// A check, whose split parse does not join the halves' indexes, gives the
    /// verdict and error of a parse in one pass wherever the cut falls: errors on
    /// either side of the cut, at it, in the stand-ins' end tags, in names and
    /// namespaces first met in the second half, in its UTF-8 and `Char` check.
    #[test]
    fn check_agrees_with_one_pass_at_every_cut() {
        let docs: &[&[u8]] = &[
            b"<r><a><b>1</b><b>2</b></a><a><b>3</b></a></r>",
            b"<r xmlns:p='urn:p'><p:a p:x='1'><b/></p:a><c xmlns:q='urn:q'><q:d/></c><e/></r><!--after-->",
            b"<r><a><b>1</b></a></c></r>",
            b"<r><a><b>1</b></a><c></r>",
            b"<r><a></a><b></b></r><after/>",
            b"<r><a></a><b><q:c/></b></r>",
            b"<r><a></a><b x='1' x='2'/></r>",
            b"<r><a></a><b>\xff</b></r>",
            b"<r><a></a><b>\x01</b></r>",
            b"<r><a><b>1</b></a><a><b>2</b>",
            b"<r><a>&amp;</a><b>&undeclared;</b></r>",
        ];
        for doc in docs {
            let want = verdict(Parser::new().parse(doc));
            let mut parser = Parser::with_options(ParseOptions::default().parallel_parse(true).parallel_check(true));
            for at in 0..doc.len() {
                for warm in [0, 4, 1000] {
                    super::TEST_SPLIT.with(|s| s.set(Some((at, warm))));
                    let got = verdict(parser.check(doc));
                    super::TEST_SPLIT.with(|s| s.set(None));
                    assert_eq!(got, want, "{} cut from {at}, warm-up {warm}", String::from_utf8_lossy(doc));
                }
            }
            // and the parser's next parse is a whole one
            assert_eq!(verdict(parser.parse(doc)), want);
        }
    }
}
