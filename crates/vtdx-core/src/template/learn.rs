//! Learning a template from a message parsed in full: its fixed byte runs, its
//! variable slots and the records the parser wrote, with runs of identical
//! sibling elements folded into one repeated unit.

use std::sync::atomic::{AtomicU64, AtomicU8};
use std::sync::Arc;

use crate::document::Document;
use crate::index::*;
use crate::input::SourceEncoding;
use crate::options::ParseOptions;
use crate::parser::Parser;

use super::matcher;

/// What the learner makes of a message, in order (see `docs/template-cache.md`);
/// compiled into [`Step`]s for matching. Record offsets are relative to the start
/// of the fixed run they lie in, so they move with the length of the slots before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Op {
    /// These bytes, exactly; the run starts here.
    Fixed(Vec<u8>),
    /// Character data up to the next `<`.
    Text,
    /// An attribute value up to the closing quote (the byte held).
    Value(u8),
    /// An element record opens at `rel` in the current run.
    Elem { word0: u32, rel: u32 },
    /// An attribute or namespace-declaration record whose name is at `rel`.
    Attr { word0: u32, rel: u32 },
    /// The innermost open element ends just before `rel`.
    Close { rel: u32 },
    /// A comment, PI or CDATA record from `rel` to `rel + len`.
    Leaf { word0: u32, rel: u32, len: u32 },
    /// Zero or more repetitions of a unit (which starts with a `Fixed`).
    Repeat(Box<[Op]>),
}

/// What a slot holds (after the fixed run and records of a [`Step::Run`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// No slot: the next step starts here.
    None,
    /// Character data up to the next `<`.
    Text,
    /// An attribute value up to the closing quote (the byte held).
    Value(u8),
}

/// A record written after a fixed run is matched; `rel` is an offset in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rec {
    /// An element record opens at `rel`.
    Elem { word0: u32, rel: u32 },
    /// An attribute or namespace-declaration record whose name is at `rel`.
    Attr { word0: u32, rel: u32 },
    /// The innermost open element ends just before `rel`.
    Close { rel: u32 },
    /// A comment, PI or CDATA record from `rel` to `rel + len`.
    Leaf { word0: u32, rel: u32, len: u32 },
}

/// One step of a matched template: the [`Op`]s compiled so that a fixed run, the
/// records in it and the slot after it are one step.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// These bytes exactly (the run starts here), then these records, then the
    /// slot, which may first be tried as the learned value.
    Run { bytes: Box<[u8]>, recs: Box<[Rec]>, slot: Slot, seen: Seen },
    /// A slot with no fixed run before it.
    Slot(Slot),
    /// Zero or more repetitions of a unit (which starts with a `Run`).
    Repeat(Box<[Step]>),
}

/// The value a slot held in the learned message (when at most [`SEEN_BYTES`]
/// long). Many slots hold the same bytes in every message of a kind (algorithm
/// URIs, types, flags); the matcher first tries the slot as these bytes followed
/// by the byte that ends the slot, and scans it only when that fails. Bytes the
/// parser accepted as a slot's whole content in the learned message are accepted
/// in the same slot of any message (what a slot may hold depends on its bytes
/// alone: no DTD, the same quote or the same element), so no check is skipped.
/// A slot whose value keeps changing stops being tried after [`SEEN_MISSES`]
/// failures (an atomic count in the shared template, written only on a failure).
///
/// Not part of a step's structure: two steps that differ only here are equal
/// (the templates of one key share their tree nodes whatever values they learned).
#[derive(Debug, Default)]
pub(crate) struct Seen {
    pub value: Option<Box<[u8]>>,
    pub misses: AtomicU8,
}

/// The longest learned value kept for a slot.
pub(crate) const SEEN_BYTES: usize = 256;
/// Failures after which a slot's learned value is no longer tried.
pub(crate) const SEEN_MISSES: u8 = 4;

impl PartialEq for Seen {
    fn eq(&self, _: &Seen) -> bool {
        true
    }
}

impl Eq for Seen {}

/// A learned template: what a message must look like to be indexed by
/// [`matcher::run_template`] or a [`matcher::Trie`], and what its document
/// shares with the one learned.
#[derive(Debug)]
pub(crate) struct Template {
    pub steps: Box<[Step]>,
    /// The final fixed run (its last [`TAIL_BYTES`] when longer): a message must end with them.
    pub tail: Box<[u8]>,
    /// Bytes of fixed runs outside repeated units: no message is shorter.
    pub min_len: usize,
    /// Tape words of the learned message (the usual size of a match).
    pub words: usize,
    /// The index written in one piece, for a template with no repeated unit.
    pub flat: Option<matcher::Flat>,
    pub names: Arc<crate::names::Names>,
    pub decl: Option<crate::parser::DeclSpans>,
    pub root: u32,
    /// Heap bytes this template holds (ops, fixed bytes, name tables).
    pub bytes: usize,
    /// Cache clock at the last hit (LRU).
    pub last_used: AtomicU64,
}

/// What the learner builds first: pieces with absolute offsets in the learned message.
#[derive(Debug)]
enum Piece {
    Bytes(usize, usize),
    Text,
    Value(u8),
    Elem(u32, usize),
    Attr(u32, usize),
    Close(usize),
    Leaf(u32, usize, usize),
    Repeat(Vec<Piece>),
}

/// The most bytes of the final fixed run kept as the template's tail. The tail
/// is compared before anything else: a message whose structure differs from
/// the template's near its end (another operation element closing, another
/// trailer) is refused there, before its head is walked. Most final runs are
/// shorter (the close tags after the last text), so this is usually the whole run.
const TAIL_BYTES: usize = 128;

/// Why a message cannot be learned (the learner gives up; nothing is cached).
type Refused = ();

impl Template {
    /// Parses `input` with a new isolated parser (so the template's name tables are
    /// those of a parse of this message alone: small, and holding no names of other
    /// documents parsed on this thread) and learns its template. `None` when the
    /// message is not well-formed or is of a kind the cache does not take: a
    /// document type declaration, a byte-order mark or an encoding other than
    /// UTF-8, entity expansion, or a document over 4 GiB.
    pub(crate) fn learn(input: &[u8], opts: &ParseOptions) -> Option<Template> {
        let mut parser = Parser::isolated(opts.clone());
        let doc = parser.parse(input).ok()?;
        if doc.dtd.is_some()
            || !doc.expansions.is_empty()
            || !matches!(doc.text, crate::document::Text::Source(0))
            || doc.encoding != (SourceEncoding::Utf8 { bom: false })
            || input.len() >= u32::MAX as usize
        {
            return None;
        }
        let pieces = Learner { doc: &doc, t: input }.document().ok()?;
        let ops = convert(input, &pieces).ok()?;
        let tail = match ops.iter().rev().find(|o| !matches!(o, Op::Elem { .. } | Op::Attr { .. } | Op::Close { .. } | Op::Leaf { .. })) {
            Some(Op::Fixed(b)) => b[b.len().saturating_sub(TAIL_BYTES)..].to_vec().into_boxed_slice(),
            _ => return None,
        };
        let min_len = ops.iter().map(|o| if let Op::Fixed(b) = o { b.len() } else { 0 }).sum();
        let names = doc.names.clone();
        let mut steps = compile(&ops).ok()?;
        let mut at = 0;
        if !learn_values(&mut steps, input, &mut at, true) || at != input.len() {
            return None;
        }
        let flat =
            if steps.iter().any(|s| matches!(s, Step::Repeat(_))) { None } else { Some(matcher::Flat::build(&steps, input, &doc.tape)?) };
        let bytes = steps_bytes(&steps)
            + flat.as_ref().map_or(0, matcher::Flat::heap_bytes)
            + names.heap_bytes()
            + tail.len()
            + std::mem::size_of::<Template>()
            + matcher::TRIE_BYTES_PER_TEMPLATE;
        let t = Template {
            steps: steps.into_boxed_slice(),
            tail,
            min_len,
            words: doc.tape.len(),
            flat,
            names,
            decl: doc.decl.clone(),
            root: doc.root,
            bytes,
            last_used: AtomicU64::new(0),
        };
        // the template must give back the index it was learned from, word for
        // word, both ways it can be written (a flat template is written record by
        // record in a tree with templates that are not)
        let mut tape = Vec::new();
        if !matcher::run_records(&t, input, &mut tape) || tape != doc.tape {
            return None;
        }
        if !matcher::run_template(&t, input, &mut tape) || tape != doc.tape {
            return None;
        }
        Some(t)
    }
}

/// Heap bytes of compiled steps.
fn steps_bytes(steps: &[Step]) -> usize {
    steps
        .iter()
        .map(|o| {
            std::mem::size_of::<Step>()
                + match o {
                    Step::Run { bytes, recs, seen, .. } => {
                        bytes.len() + std::mem::size_of_val::<[Rec]>(recs) + seen.value.as_ref().map_or(0, |v| v.len())
                    }
                    Step::Repeat(body) => steps_bytes(body),
                    Step::Slot(_) => 0,
                }
        })
        .sum()
}

/// Keeps in each step the value its slot holds in `t`, the learned message,
/// matching from `*at`; not in repeated units (`keep` false), whose values
/// differ from one unit to the next by the nature of lists, so trying them would
/// mostly cost a failure.
fn learn_values(steps: &mut [Step], t: &[u8], at: &mut usize, keep: bool) -> bool {
    for step in steps {
        match step {
            Step::Run { bytes, slot, seen, .. } => {
                if !t[*at..].starts_with(bytes) {
                    return false;
                }
                *at += bytes.len();
                let end = match *slot {
                    Slot::None => continue,
                    Slot::Text => matcher::scan_text(t, *at),
                    Slot::Value(q) => matcher::scan_value(t, *at, q),
                };
                let Some(end) = end else { return false };
                seen.value = (keep && end - *at <= SEEN_BYTES).then(|| t[*at..end].into());
                *at = end;
            }
            Step::Slot(s) => {
                let end = match *s {
                    Slot::None => Some(*at),
                    Slot::Text => matcher::scan_text(t, *at),
                    Slot::Value(q) => matcher::scan_value(t, *at, q),
                };
                let Some(end) = end else { return false };
                *at = end;
            }
            Step::Repeat(body) => {
                let Some(Step::Run { bytes: first, .. }) = body.first() else { return false };
                let first = first.clone();
                while t[*at..].starts_with(&first) {
                    if !learn_values(body, t, at, false) {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// Compiles ops into steps: each fixed run with the records that follow it and
/// the slot after them.
fn compile(ops: &[Op]) -> Result<Vec<Step>, Refused> {
    let mut steps = Vec::new();
    let mut i = 0;
    while i < ops.len() {
        match &ops[i] {
            Op::Fixed(b) => {
                let mut recs = Vec::new();
                i += 1;
                while let Some(o) = ops.get(i) {
                    recs.push(match *o {
                        Op::Elem { word0, rel } => Rec::Elem { word0, rel },
                        Op::Attr { word0, rel } => Rec::Attr { word0, rel },
                        Op::Close { rel } => Rec::Close { rel },
                        Op::Leaf { word0, rel, len } => Rec::Leaf { word0, rel, len },
                        _ => break,
                    });
                    i += 1;
                }
                let slot = match ops.get(i) {
                    Some(Op::Text) => Slot::Text,
                    Some(Op::Value(q)) => Slot::Value(*q),
                    _ => Slot::None,
                };
                if slot != Slot::None {
                    i += 1;
                }
                steps.push(Step::Run { bytes: b.clone().into_boxed_slice(), recs: recs.into_boxed_slice(), slot, seen: Seen::default() });
            }
            Op::Text => {
                steps.push(Step::Slot(Slot::Text));
                i += 1;
            }
            Op::Value(q) => {
                steps.push(Step::Slot(Slot::Value(*q)));
                i += 1;
            }
            Op::Repeat(body) => {
                let body = compile(body)?;
                if !matches!(body.first(), Some(Step::Run { .. })) {
                    return Err(());
                }
                steps.push(Step::Repeat(body.into_boxed_slice()));
                i += 1;
            }
            // a record outside a fixed run: `convert` never makes one
            _ => return Err(()),
        }
    }
    Ok(steps)
}

struct Learner<'d> {
    doc: &'d Document<'d>,
    t: &'d [u8],
}

impl Learner<'_> {
    fn document(&self) -> Result<Vec<Piece>, Refused> {
        let doc = self.doc;
        let tape = &doc.tape;
        let mut out = Vec::new();
        let mut cur = 0;
        let mut i = 0u32;
        while (i as usize) < tape.len() {
            let k = kind_of(tape[i as usize]);
            let start = doc.start_at(i);
            out.push(Piece::Bytes(cur, start));
            if k == K_ELEM {
                if i != doc.root {
                    return Err(());
                }
                cur = self.element(i, &mut out)?;
            } else if words_of(k) == LEAF_WORDS {
                cur = self.leaf(i, &mut out);
            } else {
                return Err(());
            }
            i = doc.next_at(i);
        }
        out.push(Piece::Bytes(cur, self.t.len()));
        Ok(out)
    }

    fn leaf(&self, i: u32, out: &mut Vec<Piece>) -> usize {
        let (s, e) = (self.doc.start_at(i), self.doc.end_at(i));
        out.push(Piece::Bytes(s, e));
        out.push(Piece::Leaf(self.doc.tape[i as usize], s, e));
        e
    }

    /// The pieces of element `e`'s subtree; returns the offset after it.
    fn element(&self, e: u32, out: &mut Vec<Piece>) -> Result<usize, Refused> {
        let (doc, t) = (self.doc, self.t);
        let s = doc.start_at(e);
        out.push(Piece::Bytes(s, s + 1));
        out.push(Piece::Elem(doc.tape[e as usize], s));
        let mut cur = s + 1;
        let mut a = e + ELEM_WORDS;
        let after = doc.after_attrs(e);
        while a < after {
            let k = doc.kind_at(a);
            if k != K_ATTR && k != K_NSDECL {
                return Err(());
            }
            let name = doc.start_at(a);
            let vr = doc.attr_value_range(a);
            out.push(Piece::Bytes(cur, name + 1));
            out.push(Piece::Attr(doc.tape[a as usize], name));
            if k == K_NSDECL {
                // the value binds a prefix: part of the structure
                out.push(Piece::Bytes(name + 1, vr.end));
            } else {
                out.push(Piece::Bytes(name + 1, vr.start));
                out.push(Piece::Value(t[vr.start - 1]));
            }
            cur = vr.end;
            a += ATTR_WORDS;
        }
        let tag_end = doc.start_tag_end(e);
        let end = doc.end_at(e);
        out.push(Piece::Bytes(cur, tag_end));
        if end == tag_end {
            out.push(Piece::Close(end));
            return Ok(end);
        }
        let content_end = doc.content_end(e);
        let mut children = Vec::new();
        let mut c = doc.first_child_record(e);
        while let Some(r) = c {
            children.push(r);
            c = doc.next_sibling_record(r);
        }
        if children.is_empty() {
            // a leaf element's content is a slot, however it looks in this message
            out.push(Piece::Text);
        } else {
            let mut items = Vec::with_capacity(children.len());
            let mut at = tag_end;
            // only a child whose first word (kind and name) is its neighbour's can
            // be equal to it: the others are not compared (their ops not built
            // twice; the whole template is converted and checked at the end)
            let word0 = |k: usize| children.get(k).map(|&r| doc.tape[r as usize]);
            for (k, &r) in children.iter().enumerate() {
                let mut gap = Vec::new();
                self.gap(at, doc.start_at(r), &mut gap);
                let mut sub = Vec::new();
                at = if doc.kind_at(r) == K_ELEM { self.element(r, &mut sub)? } else { self.leaf(r, &mut sub) };
                let alike = (k > 0 && word0(k - 1) == word0(k)) || word0(k + 1) == word0(k);
                let key = if alike { Some((convert(t, &gap)?, convert(t, &sub)?)) } else { None };
                items.push((gap, sub, key));
            }
            fold(items, out);
            self.gap(at, content_end, out);
        }
        out.push(Piece::Bytes(content_end, end));
        out.push(Piece::Close(end));
        Ok(end)
    }

    /// Character data between two pieces of markup: fixed when white space only.
    fn gap(&self, from: usize, to: usize, out: &mut Vec<Piece>) {
        if from == to {
            return;
        }
        if self.t[from..to].iter().all(|&b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
            out.push(Piece::Bytes(from, to));
        } else {
            out.push(Piece::Text);
        }
    }
}

/// A child: the gap before it, its pieces, and (when it may equal a neighbour)
/// both as ops, to compare.
type Item = (Vec<Piece>, Vec<Piece>, Option<(Vec<Op>, Vec<Op>)>);

/// Appends the children (each with the gap before it), folding every run of two
/// or more equal children separated by equal fixed gaps into the first child and
/// a repeated unit (gap + child), which a message may repeat any number of times.
fn fold(items: Vec<Item>, out: &mut Vec<Piece>) {
    let (keys, mut pieces): (Vec<_>, Vec<_>) = items.into_iter().map(|(g, s, k)| (k, Some((g, s)))).unzip();
    let n = keys.len();
    // the gap before b is fixed and b's ops are a's
    let follows = |a: &Option<(Vec<Op>, Vec<Op>)>, b: &Option<(Vec<Op>, Vec<Op>)>| match (a, b) {
        (Some(a), Some(b)) => b.0.iter().all(|o| matches!(o, Op::Fixed(_))) && a.1 == b.1,
        _ => false,
    };
    let same = |a: &Option<(Vec<Op>, Vec<Op>)>, b: &Option<(Vec<Op>, Vec<Op>)>| a.is_some() && a == b;
    let mut i = 0;
    while i < n {
        let mut j = i;
        if i + 1 < n && follows(&keys[i], &keys[i + 1]) {
            j = i + 1;
            while j + 1 < n && same(&keys[j + 1], &keys[i + 1]) {
                j += 1;
            }
        }
        if let Some((g, s)) = pieces[i].take() {
            out.extend(g);
            out.extend(s);
        }
        if j > i {
            if let Some((mut g, s)) = pieces[i + 1].take() {
                g.extend(s);
                out.push(Piece::Repeat(g));
            }
        }
        i = j + 1;
    }
}

/// Turns pieces into ops: contiguous bytes become one fixed run, record offsets
/// become offsets in their run.
fn convert(t: &[u8], pieces: &[Piece]) -> Result<Vec<Op>, Refused> {
    let mut ops = Vec::new();
    // (index of the run's op, its start, its end) in the message
    let mut run: Option<(usize, usize, usize)> = None;
    let rel = |run: Option<(usize, usize, usize)>, off: usize| -> Result<u32, Refused> {
        match run {
            Some((_, s, e)) if s <= off && off <= e => Ok((off - s) as u32),
            _ => Err(()),
        }
    };
    for p in pieces {
        match *p {
            Piece::Bytes(a, b) => {
                if a >= b {
                    continue;
                }
                match &mut run {
                    Some((i, _, e)) if *e == a => {
                        if let Some(Op::Fixed(v)) = ops.get_mut(*i) {
                            v.extend_from_slice(&t[a..b]);
                        }
                        *e = b;
                    }
                    _ => {
                        run = Some((ops.len(), a, b));
                        ops.push(Op::Fixed(t[a..b].to_vec()));
                    }
                }
            }
            Piece::Text => {
                ops.push(Op::Text);
                run = None;
            }
            Piece::Value(q) => {
                ops.push(Op::Value(q));
                run = None;
            }
            Piece::Elem(w, off) => ops.push(Op::Elem { word0: w, rel: rel(run, off)? }),
            Piece::Attr(w, off) => ops.push(Op::Attr { word0: w, rel: rel(run, off)? }),
            Piece::Close(off) => ops.push(Op::Close { rel: rel(run, off)? }),
            Piece::Leaf(w, s, e) => {
                let r = rel(run, s)?;
                rel(run, e)?;
                ops.push(Op::Leaf { word0: w, rel: r, len: (e - s) as u32 });
            }
            Piece::Repeat(ref body) => {
                let body = convert(t, body)?;
                if !matches!(body.first(), Some(Op::Fixed(_))) {
                    return Err(());
                }
                ops.push(Op::Repeat(body.into_boxed_slice()));
                run = None;
            }
        }
    }
    for o in &mut ops {
        if let Op::Fixed(v) = o {
            v.shrink_to_fit();
        }
    }
    Ok(ops)
}
