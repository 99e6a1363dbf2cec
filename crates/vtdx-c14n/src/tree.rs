//! The tree walk: the whole document, one subtree, or a subtree minus
//! excluded subtrees, canonicalized by walking the token tape
//! (`docs/index-format.md`) record by record and writing bytes.
//!
//! Every node under the apex is in the node-set, so namespace processing
//! needs only the declarations on each element (and, for the apex, what it
//! inherits), and a token that is canonical as written — a start tag with
//! its declarations and attributes in canonical order, non-redundant, double
//! quoted, single spaced, free of references and of characters that
//! normalization changes; an end tag without white space; character data
//! without `&`, `>` or CR; a comment without CR; a PI as `<?target data?>` —
//! is not rebuilt: it extends the current *raw span*, a byte range of the
//! input written in one piece when a token that must be rebuilt (an
//! empty-element tag, a CDATA section, a reference...) interrupts it. On
//! canonical input the whole subtree is one copy.
//!
//! The slow path of a start tag uses the `Node` API (attribute values
//! normalized by their DTD type, DTD defaults, inherited `xml:*`
//! attributes); element nodes come from a `descendant_elements` iterator
//! advanced in step with the walk, so they cost nothing when not needed.

use std::io::{self, Write};
use std::iter::Peekable;
use std::ops::Range;

use vtdx_core::dtd::AttDefault;
use vtdx_core::tape::{RecordId, RecordKind, Tape};
use vtdx_core::xml;
use vtdx_core::{DescendantElements, Document, Names, Node, NsId, Sym, NS_NONE};

use crate::common::{self, lookup, Att, Sink};
use crate::escape;
use crate::small::Stack;
use crate::{Algorithm, C14nError, Canonicalizer};

const NO_SPAN: (usize, usize) = (usize::MAX, usize::MAX);
/// No namespace declaration (for [`Tree::plain_start_tag`]): not a binding any
/// declaration makes (an `xmlns` prefix cannot be declared).
const NO_DECL: (&str, NsId) = ("xmlns", NS_NONE);
/// How [`Tree::plain_start_tag`]'s tag renders its one namespace node: declared on it ...
const DECLARED: u8 = 1;
/// ... or not declared on it (Exclusive C14N: its prefix's binding, new to the output) ...
const ADDED: u8 = 2;
/// ... and whether its attributes are to be written anew.
const REWRITE: u8 = 4;

#[inline(always)]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// An open element (24 bytes: a walk sets up and moves a few of these per element).
#[derive(Clone, Copy, Default)]
struct Open {
    /// The position just past the element's subtree ([`Tape::next`]).
    next: RecordId,
    /// Byte offset just past the element (token offsets are `u32`, docs/index-format.md).
    end: u32,
    /// The element's name symbol.
    sym: Sym,
    /// `scope` and `rendered` lengths to restore on close.
    scope: u32,
    rendered: u32,
    empty: bool,
}

struct Tree<'d, 'c, 'w, W: Write + ?Sized> {
    c: &'c Canonicalizer,
    doc: &'d Document<'d>,
    text: &'d [u8],
    tape: Tape<'d>,
    names: &'d Names,
    sink: Sink<'w, W>,
    /// Pending raw byte range of `text` (`NO_SPAN`: none).
    span: (usize, usize),
    fast: bool,
    /// Start tags may take [`Tree::open_plain`]: the raw fast path is on, no DTD
    /// attribute definitions (defaults, typed values) and, in Exclusive C14N, no
    /// InclusiveNamespaces prefix list. (In the inclusive algorithms an element
    /// with no declarations renders no namespace node inside output.)
    plain_fast: bool,
    exclusive: bool,
    with_comments: bool,
    /// Every binding declared on the open elements (and inherited by the apex).
    scope: Stack<(&'d str, NsId), 8>,
    /// The bindings in force in the output, nearest last.
    rendered: Stack<(&'d str, NsId), 8>,
    stack: Stack<Open, 16>,
    /// Byte offset up to which the input has been accounted for.
    pos: usize,
    apex: Node<'d>,
    apex_start: usize,
    els: Peekable<DescendantElements<'d>>,
    /// Sorted start offsets of the excluded elements and leaf nodes.
    excluded: Vec<usize>,
    ns_out: Stack<(&'d str, NsId), 4>,
    atts: Vec<Att<'d>>,
    /// The attributes of the start tag being opened: (symbol, value start, value end,
    /// flags: 1 the value reads as written, 2 it is also canonical as written).
    raw_atts: Stack<(Sym, u32, u32, u8), 8>,
    scratch: Vec<u8>,
    dtd_atts: bool,
    /// Per symbol: 0 unknown, 1 no attribute definitions in the DTD, 2 some.
    dtd_cache: Vec<u8>,
    /// Bumped whenever `rendered` changes: the key of `utilized_rendered`.
    rendered_gen: u32,
    /// A direct-mapped memo by symbol: (symbol, `rendered_gen + 1`) when the output
    /// was last seen to bind the symbol's prefix to its namespace already.
    utilized_rendered: [(Sym, u32); 16],
}

impl<'d, 'c, 'w, W: Write + ?Sized> Tree<'d, 'c, 'w, W> {
    // ---- output ----------------------------------------------------------------------------

    /// Appends a raw range of the input to the pending span.
    #[inline]
    fn raw(&mut self, r: Range<usize>) -> io::Result<()> {
        if self.span.1 == r.start {
            self.span.1 = r.end;
            return Ok(());
        }
        self.end_span()?;
        self.span = (r.start, r.end);
        Ok(())
    }

    /// Writes the pending span; generated output may follow.
    #[inline]
    fn end_span(&mut self) -> io::Result<()> {
        if self.span.0 != usize::MAX {
            let (s, e) = self.span;
            self.span = NO_SPAN;
            if e > s {
                let t = self.text;
                self.sink.put(&t[s..e])?;
            }
        }
        Ok(())
    }

    // ---- helpers -----------------------------------------------------------------------------

    /// The element node starting at byte `start` (an element of the walk).
    #[inline(never)]
    fn node_for(&mut self, start: usize) -> Node<'d> {
        if start == self.apex_start {
            return self.apex;
        }
        while let Some(n) = self.els.peek() {
            if n.range().start < start {
                self.els.next();
            } else {
                break;
            }
        }
        match self.els.peek() {
            Some(n) if n.range().start == start => *n,
            _ => self.apex.descendant_elements().find(|n| n.range().start == start).unwrap_or(self.apex),
        }
    }

    fn dtd_declares(&mut self, sym: Sym, qname: &str) -> bool {
        let k = sym.index();
        if self.dtd_cache.len() <= k {
            self.dtd_cache.resize(k + 1, 0);
        }
        if self.dtd_cache[k] == 0 {
            self.dtd_cache[k] = if common::dtd_declares(self.doc, qname) { 2 } else { 1 };
        }
        self.dtd_cache[k] == 2
    }

    fn is_excluded(&self, start: usize) -> bool {
        !self.excluded.is_empty() && self.excluded.binary_search(&start).is_ok()
    }

    // ---- elements ------------------------------------------------------------------------------

    /// Processes the start tag of the element record `i`; returns the position
    /// after its attribute records.
    #[inline(always)]
    fn open(&mut self, i: RecordId, parent_output: bool) -> Result<RecordId, C14nError> {
        if let Some(next_word) = self.open_plain(i, parent_output)? {
            return Ok(next_word);
        }
        self.open_general(i, parent_output)
    }

    /// The commonest start tags, without the general bookkeeping: a start tag
    /// inside output whose attributes (if any) are unprefixed, in canonical order
    /// and canonical as written, with no white space but one space before each
    /// attribute and none before `>`, and that either has no namespace declaration
    /// (and, in Exclusive C14N, a prefix the output already binds to its
    /// namespace) or, first, one declaration of its own prefix that the output
    /// does not bind yet, written canonically. Such a tag renders as it stands
    /// (the declaration, if any, is the one namespace node to render; no attribute
    /// to reorder or rewrite); it is copied (an empty-element tag up to its `/>`, then
    /// `></qname>`). A leaf element among them (no child
    /// records) whose text and end tag are canonical as well is copied whole, with
    /// no open element to push and pop. Only with `plain_fast`. `Ok(None)` (nothing
    /// done) for anything else.
    #[inline(always)]
    fn open_plain(&mut self, i: RecordId, parent_output: bool) -> Result<Option<RecordId>, C14nError> {
        if !(self.plain_fast && parent_output) {
            return Ok(None);
        }
        let Some((gt, after, binding, how)) = self.plain_start_tag(i) else { return Ok(None) };
        let tape = self.tape;
        let mut start = tape.start(i);
        let next = tape.next(i);
        let end = tape.element_end(i);
        let sym = tape.symbol(i);
        let qlen = self.names.qname_len(sym);
        if how & REWRITE != 0 {
            return self.open_rewritten(i, gt, after, binding, how).map(Some);
        }
        if how & ADDED != 0 {
            // `<qname`, the declaration the element needs, then the rest as written
            let name_end = start + 1 + qlen;
            self.raw(start..name_end)?;
            self.end_span()?;
            common::write_ns(&mut self.sink.buf, self.names, binding.0, binding.1);
            start = name_end;
        }
        if self.text[gt] == b'/' {
            // an empty-element tag: copied up to `/>`, then `></qname>` (canonical
            // form has no empty-element tags; a declaration on it binds nothing beyond)
            self.raw(start..gt)?;
            self.end_span()?;
            self.sink.buf.push(b'>');
            self.gen_end_tag(sym);
            self.pos = end;
            self.sink.maybe_flush()?;
            return Ok(Some(next));
        }
        if after == next {
            // a leaf: `<qname ...>text</qname>` (a declaration on it binds nothing beyond)
            let t = self.text;
            let ce = end - qlen - 3;
            if !is_ws(t[end - 2]) && (ce == gt + 1 || escape::text_raw_is_canonical(&t[gt + 1..ce])) {
                self.raw(start..end)?;
                self.pos = end;
                return Ok(Some(next));
            }
        }
        self.raw(start..gt + 1)?;
        self.push_plain_open(next, end, sym, binding, how);
        self.pos = gt + 1;
        Ok(Some(after))
    }

    /// Opens an element written by the plain path: its entry on the stack, and
    /// the one namespace node it declared or rendered (`how`) in scope.
    #[inline(always)]
    fn push_plain_open(&mut self, next: RecordId, end: usize, sym: Sym, binding: (&'d str, NsId), how: u8) {
        self.stack.push(Open {
            next,
            end: end as u32,
            sym,
            scope: self.scope.len() as u32,
            rendered: self.rendered.len() as u32,
            empty: false,
        });
        if how & (DECLARED | ADDED) != 0 {
            if how & DECLARED != 0 {
                self.scope.push(binding);
            }
            self.rendered.push(binding);
            self.rendered_gen += 1;
        }
    }

    /// [`Tree::open_plain`] for a start tag to write anew: its attributes (in
    /// `raw_atts`, unprefixed, canonical as written) sorted by name, each after
    /// one space, after its name and the one declaration it renders (`decl` or
    /// `how`), then `>`; the rest as [`Tree::open_plain`] does it.
    #[inline(never)]
    fn open_rewritten(
        &mut self,
        i: RecordId,
        gt: usize,
        after: RecordId,
        binding: (&'d str, NsId),
        how: u8,
    ) -> Result<RecordId, C14nError> {
        let tape = self.tape;
        let (t, names) = (self.text, self.names);
        let start = tape.start(i);
        let next = tape.next(i);
        let end = tape.element_end(i);
        let sym = tape.symbol(i);
        let qlen = names.qname_len(sym);
        self.raw(start..start + 1 + qlen)?;
        self.end_span()?;
        if how & (DECLARED | ADDED) != 0 {
            common::write_ns(&mut self.sink.buf, names, binding.0, binding.1);
        }
        // unprefixed names: the canonical order is the order of the local names
        self.raw_atts.sort_by(|a, b| common::cmp_str(names.local(a.0), names.local(b.0)));
        for &(s, vs, ve, _) in self.raw_atts.as_slice() {
            common::write_att_bytes(&mut self.sink.buf, names.local(s), &t[vs as usize..ve as usize], true);
        }
        self.sink.buf.push(b'>');
        if t[gt] == b'/' {
            self.gen_end_tag(sym);
            self.pos = end;
            self.sink.maybe_flush()?;
            return Ok(next);
        }
        self.sink.maybe_flush()?;
        if after == next {
            let ce = end - qlen - 3;
            if !is_ws(t[end - 2]) && (ce == gt + 1 || escape::text_raw_is_canonical(&t[gt + 1..ce])) {
                self.raw(gt + 1..end)?;
                self.pos = end;
                return Ok(next);
            }
        }
        self.push_plain_open(next, end, sym, binding, how);
        self.pos = gt + 1;
        Ok(after)
    }

    /// For [`Tree::open_plain`]: the offset of the `>` of the start tag of the
    /// element record `i` (of the `/` of `/>` for an empty-element tag), the position after its attribute records, the
    /// binding its declaration renders ([`NO_DECL`]: none) and, in Exclusive
    /// C14N, the binding of its own prefix that it must render though it does
    /// not declare it (an ancestor outside the output, or one whose output did
    /// not utilize it, declared it), when the tag can be
    /// copied as it stands, with that declaration written after its name; and
    /// whether, instead, its attributes (then in `raw_atts`) are to be written
    /// anew: out of canonical order, or with white space other than one space
    /// before an attribute, or any before `>` or `/>`.
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    fn plain_start_tag(&mut self, i: RecordId) -> Option<(usize, RecordId, (&'d str, NsId), u8)> {
        let tape = self.tape;
        let t = self.text;
        let names = self.names;
        let sym = tape.symbol(i);
        let next = tape.next(i);
        let mut p = tape.start(i) + 1 + names.qname_len(sym);
        let mut j = tape.attributes_start(i);
        let mut decl = NO_DECL;
        let mut how = 0;
        if j < next && tape.is_kind(j, RecordKind::NsDecl) {
            decl = self.plain_decl(sym, j, p)?;
            how = DECLARED;
            p = tape.start(j) + names.qname_len(tape.symbol(j)) + names.ns_by_id(decl.1).len() + 3;
            j = tape.next_attribute(j);
        }
        let first_attr = j;
        let mut prev: &str = "";
        self.raw_atts.clear();
        while j < next {
            if !tape.is_kind(j, RecordKind::Attribute) {
                if tape.is_attribute(j) {
                    return None; // a declaration, or a default
                }
                break;
            }
            let asym = tape.symbol(j);
            let local = names.local(asym);
            if local.len() != names.qname_len(asym) {
                return None; // prefixed
            }
            if j > first_attr && common::cmp_str(local, prev).is_le() {
                how |= REWRITE; // out of canonical order
            }
            let astart = tape.start(j);
            let eq = astart + local.len();
            if t[eq] != b'=' || t[eq + 1] != b'"' {
                return None;
            }
            if astart != p + 1 || t[p] != b' ' {
                how |= REWRITE; // other white space before the name (nothing else can be there)
            }
            let (ve, _, canonical) = escape::scan_attr_value(t, eq + 2, b'"');
            if !canonical {
                return None;
            }
            self.raw_atts.push((asym, (eq + 2) as u32, ve as u32, 3));
            prev = local;
            p = ve + 1;
            j = tape.next_attribute(j);
        }
        // `>`, or the `/>` of an empty-element tag (its record has no children:
        // `j == next`), after white space to drop
        if t[p] != b'>' && !(t[p] == b'/' && t.get(p + 1) == Some(&b'>')) {
            if !is_ws(t[p]) {
                return None;
            }
            while is_ws(t[p]) {
                p += 1;
            }
            if t[p] != b'>' && !(t[p] == b'/' && t.get(p + 1) == Some(&b'>')) {
                return None;
            }
            how |= REWRITE;
        }
        if how & DECLARED == 0 && self.exclusive && !self.output_binds(sym) {
            // the one namespace node this element renders (its attributes are
            // unprefixed): its prefix's binding, as the parser resolved it
            let (prefix, ns) = (names.prefix(sym), names.ns_id(sym));
            if prefix == "xml" || common::is_relative_ns(names, ns) {
                return None; // for the general path (and its error)
            }
            decl = (prefix, ns);
            how |= ADDED;
        }
        Some((p, j, decl, how))
    }

    /// For [`Tree::plain_start_tag`]: the declaration record `j` of an element
    /// `sym` whose name ends at byte `p`, when it is ` xmlns:prefix="uri"` (or
    /// ` xmlns="uri"`) for the element's own prefix, written as its canonical form
    /// (the URI as the parser resolved it, nothing to escape, absolute) and not
    /// yet bound so in the output, i.e. the one namespace node the element renders
    /// in every algorithm.
    #[inline(always)]
    fn plain_decl(&self, sym: Sym, j: RecordId, p: usize) -> Option<(&'d str, NsId)> {
        let (t, names) = (self.text, self.names);
        let an = names.qname(self.tape.symbol(j));
        let prefix: &'d str = common::declared_prefix(an);
        if !common::same(prefix, names.prefix(sym)) || prefix == "xml" {
            return None;
        }
        let ns = names.ns_id(sym);
        let astart = self.tape.start(j);
        let vs = astart + an.len() + 2;
        let uri = names.ns_by_id(ns).as_bytes();
        if t[p] != b' ' || astart != p + 1 || t[vs - 2] != b'=' || t[vs - 1] != b'"' {
            return None;
        }
        if t.get(vs..vs + uri.len()) != Some(uri) || t.get(vs + uri.len()) != Some(&b'"') {
            return None; // references or white space to normalize, or not the URI
        }
        if !names.ns_attr_plain(ns) || common::is_relative_ns(names, ns) {
            return None; // to escape, or relative (an error, from the general path)
        }
        if lookup(self.rendered.as_slice(), prefix).unwrap_or(NS_NONE) == ns {
            return None; // superfluous: the general path leaves it out
        }
        Some((prefix, ns))
    }

    /// Does the output already bind the prefix of `sym` to its namespace (so an
    /// element of that name renders no declaration in Exclusive C14N)? Remembered
    /// per symbol until the output bindings change.
    #[inline(always)]
    fn output_binds(&mut self, sym: Sym) -> bool {
        let slot = sym.index() % self.utilized_rendered.len();
        if self.utilized_rendered[slot] == (sym, self.rendered_gen + 1) {
            return true;
        }
        let p = self.names.prefix(sym);
        if p == "xml" || lookup(self.rendered.as_slice(), p).unwrap_or(NS_NONE) != self.names.ns_id(sym) {
            return false;
        }
        self.utilized_rendered[slot] = (sym, self.rendered_gen + 1);
        true
    }

    /// Any start tag: the attribute records, the namespace declarations to render,
    /// then the tag copied or rebuilt.
    #[inline(never)]
    fn open_general(&mut self, i: RecordId, parent_output: bool) -> Result<RecordId, C14nError> {
        let tape = self.tape;
        let t = self.text;
        let names = self.names;
        let sym = tape.symbol(i);
        let qname = names.qname(sym);
        let start = tape.start(i);
        let next = tape.next(i);
        let end = tape.element_end(i);
        let (scope_mark, rendered_mark) = (self.scope.len(), self.rendered.len());
        self.raw_atts.clear();

        // the attribute records: value ranges, the raw checks, the declarations
        // (the apex of an inclusive algorithm declares what it inherits: rebuilt)
        let mut raw_ok = self.fast && (parent_output || self.exclusive);
        let mut p = start + 1 + qname.len();
        let mut n_attrs = 0usize;
        let mut prev_att: Option<Sym> = None;
        let mut j = tape.attributes_start(i);
        while j < next {
            let is_decl = match tape.try_kind(j) {
                Some(RecordKind::Attribute) => false,
                Some(RecordKind::NsDecl) => true,
                Some(RecordKind::AttributeDefault) => {
                    // read through the element node when the tag is rebuilt
                    raw_ok = false;
                    j = tape.next_attribute(j);
                    continue;
                }
                Some(RecordKind::NsDeclDefault) => {
                    // binds like a written declaration; its value is the declaration's default
                    raw_ok = false;
                    let an = names.qname(tape.symbol(j));
                    let prefix: &'d str = common::declared_prefix(an);
                    let n = tape.attribute_ordinal(i, j);
                    let node = self.node_for(start);
                    let v = node.all_attributes().nth(n).map(|a| a.value()).unwrap_or_default();
                    let ns = if v.is_empty() { NS_NONE } else { names.find_ns(&v).unwrap_or(NS_NONE) };
                    self.scope.push((prefix, ns));
                    j = tape.next_attribute(j);
                    continue;
                }
                _ => break,
            };
            let asym = tape.symbol(j);
            let an = names.qname(asym);
            let astart = tape.start(j);
            let mut q = astart + an.len();
            while is_ws(t[q]) {
                q += 1;
            }
            let eq = q;
            q += 1;
            while is_ws(t[q]) {
                q += 1;
            }
            let quote = t[q];
            let vs = q + 1;
            let (ve, as_is, canonical) = escape::scan_attr_value(t, vs, quote);
            if raw_ok {
                raw_ok = t[p] == b' ' && astart == p + 1 && eq == astart + an.len() && vs == eq + 2 && canonical;
            }
            p = ve + 1;
            if is_decl {
                if n_attrs > 0 {
                    raw_ok = false; // declarations come first in canonical form
                }
                let prefix: &'d str = common::declared_prefix(an);
                let ns = if vs == ve {
                    NS_NONE
                } else if common::same(names.prefix(sym), prefix) {
                    // the declaration binds the element's own prefix: the parser resolved it
                    names.ns_id(sym)
                } else if as_is {
                    names.find_ns_bytes(&t[vs..ve]).unwrap_or(NS_NONE)
                } else {
                    let n = tape.attribute_ordinal(i, j);
                    let node = self.node_for(start);
                    let v = node.all_attributes().nth(n).map(|a| a.value()).unwrap_or_default();
                    if v.is_empty() {
                        NS_NONE
                    } else {
                        names.find_ns(&v).unwrap_or(NS_NONE)
                    }
                };
                self.scope.push((prefix, ns));
            } else {
                self.raw_atts.push((asym, vs as u32, ve as u32, u8::from(as_is) | u8::from(canonical) << 1));
                if raw_ok {
                    if prev_att.is_some_and(|p| common::cmp_att_names(names, asym, p).is_le()) {
                        raw_ok = false;
                    }
                    prev_att = Some(asym);
                }
                n_attrs += 1;
            }
            j = tape.next_attribute(j);
        }
        let after_attrs = j;
        let gt = if t[p] == b'>' { p } else { p + memchr::memchr(b'>', &t[p..]).unwrap_or(0) };
        let tag_end = gt + 1;
        let empty = t[gt - 1] == b'/';
        if raw_ok && gt != p {
            raw_ok = false; // white space before `>`, or an empty-element tag
        }
        let dtd_decl = self.dtd_atts && self.dtd_declares(sym, qname);
        if dtd_decl {
            raw_ok = false; // defaults to add, or values to normalize by type
        }

        // the namespace declarations to output
        self.ns_out.clear();
        if self.exclusive {
            self.exclusive_candidates(i, after_attrs, sym, qname, dtd_decl, parent_output, scope_mark);
        } else if parent_output {
            for &(p, ns) in &self.scope.as_slice()[scope_mark..] {
                if p != "xml" && lookup(self.rendered.as_slice(), p).unwrap_or(NS_NONE) != ns {
                    self.ns_out.push((p, ns));
                }
            }
        } else {
            // the apex: every namespace in scope
            for &(p, ns) in self.scope.as_slice().iter().rev() {
                if p != "xml" && !self.ns_out.as_slice().iter().any(|(q, _)| common::same(q, p)) {
                    self.ns_out.push((p, ns));
                }
            }
            self.ns_out.retain(|&(_, ns)| ns != NS_NONE);
        }
        if self.ns_out.len() > 1 {
            self.ns_out.sort_by(|a, b| common::cmp_str(a.0, b.0));
        }
        let decls = &self.scope.as_slice()[scope_mark..];
        for &(p, ns) in decls {
            if common::is_relative_ns(names, ns) {
                return Err(self.relative_uri(i, p, ns));
            }
        }
        if raw_ok {
            let (a, b) = (self.ns_out.as_slice(), decls);
            raw_ok = a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.1 == y.1 && common::same(x.0, y.0));
        }
        if !self.ns_out.is_empty() {
            self.rendered_gen += 1;
        }
        for &x in self.ns_out.as_slice() {
            self.rendered.push(x);
        }

        if raw_ok {
            self.raw(start..tag_end)?;
        } else {
            self.generate_start_tag(start, qname, parent_output, dtd_decl)?;
        }
        self.stack.push(Open { next, end: end as u32, sym, scope: scope_mark as u32, rendered: rendered_mark as u32, empty });
        self.pos = tag_end;
        Ok(after_attrs)
    }

    /// The error for the declaration of `prefix` (binding relative URI `ns`) on the
    /// element record `i`.
    #[cold]
    fn relative_uri(&self, i: RecordId, prefix: &str, ns: NsId) -> C14nError {
        let tape = self.tape;
        let mut offset = tape.start(i);
        for a in tape.attributes(i) {
            if tape.is_kind(a, RecordKind::NsDecl) && common::same(common::declared_prefix(self.names.qname(tape.symbol(a))), prefix) {
                offset = tape.start(a);
            }
        }
        common::relative_ns_error(self.names, prefix, ns, offset)
    }

    /// Exclusive canonicalization of the namespace axis (tree walk, everything in
    /// the node-set): the prefixes the element visibly utilizes, rendered unless
    /// the output already binds them so; the InclusiveNamespaces PrefixList
    /// prefixes, rendered unless the parent (when output) has the same binding.
    #[allow(clippy::too_many_arguments)]
    fn exclusive_candidates(
        &mut self,
        i: RecordId,
        after_attrs: RecordId,
        sym: Sym,
        qname: &'d str,
        dtd_decl: bool,
        parent_output: bool,
        scope_mark: usize,
    ) {
        let names = self.names;
        let out = &mut self.ns_out;
        let listed = |p: &str| !self.c.prefixes.is_empty() && self.c.prefixes.iter().any(|x| x == p);
        let consider = |p: &'d str, ns: NsId, out: &mut Stack<(&'d str, NsId), 4>| {
            if p == "xml" || out.as_slice().iter().any(|(q, _)| common::same(q, p)) || listed(p) {
                return;
            }
            if lookup(self.rendered.as_slice(), p).unwrap_or(NS_NONE) != ns {
                out.push((p, ns));
            }
        };
        consider(names.prefix(sym), names.ns_id(sym), out);
        let tape = self.tape;
        let mut j = tape.attributes_start(i);
        while j < after_attrs {
            if matches!(tape.try_kind(j), Some(RecordKind::Attribute | RecordKind::AttributeDefault)) {
                let asym = tape.symbol(j);
                let p = names.prefix(asym);
                if !p.is_empty() {
                    consider(p, names.ns_id(asym), out);
                }
            }
            j = tape.next_attribute(j);
        }
        if dtd_decl {
            // prefixed attributes defaulted from the DTD are utilized too
            if let Some(dtd) = self.doc.dtd() {
                for ad in dtd.attributes_of(qname) {
                    if matches!(ad.default, AttDefault::Required | AttDefault::Implied) {
                        continue;
                    }
                    let Some((p, _)) = ad.name.split_once(':') else { continue };
                    if p == "xmlns" {
                        continue;
                    }
                    let specified = {
                        let mut j = tape.attributes_start(i);
                        let mut found = false;
                        while j < after_attrs {
                            if names.qname(tape.symbol(j)) == ad.name {
                                found = true;
                            }
                            j = tape.next_attribute(j);
                        }
                        found
                    };
                    if let (false, Some(ns)) = (specified, lookup(self.scope.as_slice(), p)) {
                        if ns != NS_NONE {
                            consider(&ad.name[..p.len()], ns, out);
                        }
                    }
                }
            }
        }
        for x in &self.c.prefixes {
            let p: &str = x;
            if p == "xml" || out.as_slice().iter().any(|(q, _)| common::same(q, p)) {
                continue;
            }
            let parent = if parent_output { lookup(&self.scope.as_slice()[..scope_mark], p) } else { None };
            match self.scope.as_slice().iter().rev().find(|(q, _)| common::same(q, p)).copied().filter(|&(_, ns)| ns != NS_NONE) {
                Some((sp, ns)) => {
                    if parent != Some(ns) {
                        out.push((sp, ns));
                    }
                }
                None => {
                    if p.is_empty() && parent.is_some_and(|ns| ns != NS_NONE) {
                        out.push(("", NS_NONE));
                    }
                }
            }
        }
    }

    /// The slow path of a start tag: rebuilt from the element node.
    #[cold]
    #[inline(never)]
    fn generate_start_tag(&mut self, start: usize, qname: &'d str, parent_output: bool, dtd_decl: bool) -> io::Result<()> {
        if !dtd_decl && (self.exclusive || parent_output) && self.raw_atts.as_slice().iter().all(|a| a.3 & 1 != 0) {
            // values that read as written, no DTD defaults, nothing inherited: straight
            // from the start tag's records and bytes, sorted in place
            let names = self.names;
            if self.raw_atts.len() > 1 {
                self.raw_atts.sort_by(|a, b| common::cmp_att_names(names, a.0, b.0));
            }
            self.end_span()?;
            let t = self.text;
            let buf = &mut self.sink.buf;
            buf.push(b'<');
            buf.extend_from_slice(qname.as_bytes());
            for &(p, ns) in self.ns_out.as_slice() {
                common::write_ns(buf, names, p, ns);
            }
            for &(s, vs, ve, flags) in self.raw_atts.as_slice() {
                common::write_att_bytes(buf, names.qname(s), &t[vs as usize..ve as usize], flags & 2 != 0);
            }
            buf.push(b'>');
            return self.sink.maybe_flush();
        }
        let mut atts = std::mem::take(&mut self.atts);
        atts.clear();
        let e = self.node_for(start);
        atts.extend(e.attributes().map(Att::of));
        if dtd_decl {
            let names = self.names;
            let scope = self.scope.as_slice();
            common::defaults_of(self.doc, e, &|p| lookup(scope, p).filter(|&n| n != NS_NONE).map(|n| names.ns_by_id(n)), &mut atts);
        }
        if !self.exclusive && !parent_output {
            let ancestors: Vec<(Node<'d>, bool)> = e.ancestors().filter(|a| a.is_element()).map(|a| (a, false)).collect();
            common::inherit_xml_attrs(self.doc, self.c.alg, e, &ancestors, &mut atts);
        }
        common::sort_atts(&mut atts);
        self.end_span()?;
        let buf = &mut self.sink.buf;
        buf.push(b'<');
        buf.extend_from_slice(qname.as_bytes());
        for &(p, ns) in self.ns_out.as_slice() {
            common::write_ns(buf, self.names, p, ns);
        }
        for a in &atts {
            common::write_att(buf, a);
        }
        buf.push(b'>');
        self.atts = atts;
        self.sink.maybe_flush()
    }

    /// Closes the innermost open element: its last text, then its end tag.
    fn close(&mut self) -> io::Result<()> {
        let Some(o) = self.stack.pop() else { return Ok(()) };
        let t = self.text;
        let end = o.end as usize;
        if o.empty {
            self.end_span()?;
            self.gen_end_tag(o.sym);
        } else {
            let exact = !is_ws(t[end - 2]);
            let ce = if exact { end - self.names.qname_len(o.sym) - 3 } else { memchr::memrchr(b'<', &t[..end]).unwrap_or(end) };
            if ce > self.pos {
                self.text_run(self.pos..ce)?;
            }
            if self.fast && exact {
                self.raw(ce..end)?;
            } else {
                self.end_span()?;
                self.gen_end_tag(o.sym);
            }
        }
        self.pos = end;
        self.scope.truncate(o.scope as usize);
        if (o.rendered as usize) < self.rendered.len() {
            self.rendered.truncate(o.rendered as usize);
            self.rendered_gen += 1;
        }
        self.sink.maybe_flush()
    }

    fn gen_end_tag(&mut self, sym: Sym) {
        let buf = &mut self.sink.buf;
        buf.extend_from_slice(b"</");
        buf.extend_from_slice(self.names.qname(sym).as_bytes());
        buf.push(b'>');
    }

    // ---- character data, comments, PIs ------------------------------------------------------

    /// Character data between tags: extends the raw span when canonical as it
    /// stands (the common case, inline), else escaped or decoded.
    #[inline(always)]
    fn text_run(&mut self, r: Range<usize>) -> io::Result<()> {
        if self.fast && escape::text_raw_is_canonical(&self.text[r.clone()]) {
            return self.raw(r);
        }
        self.text_run_slow(r)
    }

    #[inline(never)]
    fn text_run_slow(&mut self, r: Range<usize>) -> io::Result<()> {
        let raw = &self.text[r];
        self.end_span()?;
        if memchr::memchr2(b'&', b'\r', raw).is_none() {
            escape::text_into(&mut self.sink.buf, raw);
        } else {
            let mut s = std::mem::take(&mut self.scratch);
            s.clear();
            xml::decode_text_into(self.doc, raw, &mut s, true, 0);
            escape::text_into(&mut self.sink.buf, &s);
            self.scratch = s;
        }
        self.sink.maybe_flush()
    }

    fn cdata(&mut self, r: Range<usize>) -> io::Result<()> {
        self.end_span()?;
        let content = &self.text[r.start + 9..r.end - 3];
        if memchr::memchr(b'\r', content).is_none() {
            escape::text_into(&mut self.sink.buf, content);
        } else {
            let mut s = std::mem::take(&mut self.scratch);
            s.clear();
            xml::normalize_newlines_into(&mut s, content);
            escape::text_into(&mut self.sink.buf, &s);
            self.scratch = s;
        }
        self.sink.maybe_flush()
    }

    fn comment(&mut self, r: Range<usize>) -> io::Result<()> {
        let raw = &self.text[r.clone()];
        if self.fast && memchr::memchr(b'\r', raw).is_none() {
            return self.raw(r);
        }
        self.end_span()?;
        let buf = &mut self.sink.buf;
        buf.extend_from_slice(b"<!--");
        xml::normalize_newlines_into(buf, &raw[4..raw.len() - 3]);
        buf.extend_from_slice(b"-->");
        self.sink.maybe_flush()
    }

    fn pi(&mut self, r: Range<usize>) -> io::Result<()> {
        let t = self.text;
        let raw = &t[r.clone()];
        let mut te = 2;
        while te < raw.len() - 2 && !is_ws(raw[te]) && raw[te] != b'?' {
            te += 1;
        }
        let mut ds = te;
        while ds < raw.len() - 2 && is_ws(raw[ds]) {
            ds += 1;
        }
        let data = &raw[ds..raw.len() - 2];
        if self.fast
            && memchr::memchr(b'\r', raw).is_none()
            && (if data.is_empty() { te == raw.len() - 2 } else { ds == te + 1 && raw[te] == b' ' })
        {
            return self.raw(r);
        }
        self.end_span()?;
        let buf = &mut self.sink.buf;
        buf.extend_from_slice(b"<?");
        buf.extend_from_slice(&raw[2..te]);
        if !data.is_empty() {
            buf.push(b' ');
            xml::normalize_newlines_into(buf, data);
        }
        buf.extend_from_slice(b"?>");
        self.sink.maybe_flush()
    }

    /// A comment or PI at the top level, with its line feed on the side facing
    /// the document element.
    fn top_level(&mut self, i: RecordId, before_root: bool) -> io::Result<()> {
        let k = self.tape.try_kind(i);
        if k == Some(RecordKind::Comment) && !self.with_comments {
            return Ok(());
        }
        let r = self.tape.start(i)..self.tape.leaf_end(i);
        if !before_root {
            self.end_span()?;
            self.sink.buf.push(b'\n');
        }
        match k {
            Some(RecordKind::Comment) => self.comment(r)?,
            Some(RecordKind::Pi) => self.pi(r)?,
            _ => {}
        }
        if before_root {
            self.end_span()?;
            self.sink.buf.push(b'\n');
        }
        Ok(())
    }

    // ---- the walk --------------------------------------------------------------------------------

    /// Canonicalizes the element record `ai` and its subtree.
    fn walk(&mut self, ai: RecordId, parent_output: bool) -> Result<(), C14nError> {
        let tape = self.tape;
        let end_word = tape.next(ai);
        let mut i = self.open(ai, parent_output)?;
        while i < end_word {
            while self.stack.last().is_some_and(|o| o.next <= i) {
                self.close()?;
            }
            let s = tape.start(i);
            if s > self.pos {
                self.text_run(self.pos..s)?;
            }
            if tape.is_element(i) {
                if self.is_excluded(s) {
                    self.pos = tape.element_end(i);
                    i = tape.next(i);
                    continue;
                }
                i = self.open(i, true)?;
            } else if tape.is_leaf(i) {
                let (e, after) = (tape.leaf_end(i), tape.subtree_end(i));
                if !self.is_excluded(s) {
                    match tape.kind(i) {
                        RecordKind::Comment => {
                            if self.with_comments {
                                self.comment(s..e)?;
                            }
                        }
                        RecordKind::Pi => self.pi(s..e)?,
                        _ => self.cdata(s..e)?,
                    }
                }
                self.pos = e;
                i = after;
            } else {
                i = tape.after_record(i);
            }
        }
        while !self.stack.is_empty() {
            self.close()?;
        }
        Ok(())
    }
}

impl<'d, W: Write + ?Sized> Tree<'d, '_, '_, W> {
    /// The walk of [`run`]: the apex's subtree, or the whole document; nothing when
    /// the whole document is excluded.
    #[inline(always)]
    fn go(&mut self, apex: Option<Node<'d>>, whole_excluded: bool) -> Result<(), C14nError> {
        if whole_excluded {
            // the whole document is excluded
        } else if let Some(a) = apex {
            if !self.is_excluded(self.apex_start) {
                // the bindings the apex inherits: the inclusive algorithms declare them all,
                // exclusive canonicalization needs them only for the prefix list and for
                // prefixed attribute defaults (a utilized prefix's URI comes with its name)
                let need_scope = !self.exclusive || !self.c.prefixes.is_empty() || self.dtd_atts;
                if let Some(p) = if need_scope { a.parent_element() } else { None } {
                    for (prefix, uri) in p.namespaces() {
                        if prefix != "xml" {
                            let ns = self.names.find_ns(uri).unwrap_or(NS_NONE);
                            self.scope.push((prefix, ns));
                        }
                    }
                }
                let ai = record_of(self.doc, a).ok_or(C14nError::ForeignNode)?;
                self.walk(ai, false)?;
            }
        } else {
            let tape = self.tape;
            let mut before = true;
            let (mut i, end) = tape.root_child_range();
            while i < end {
                if tape.is_element(i) {
                    if !self.is_excluded(tape.start(i)) {
                        self.walk(i, true)?;
                    }
                    before = false;
                } else if !self.is_excluded(tape.start(i)) {
                    self.top_level(i, before)?;
                }
                i = tape.subtree_end(i);
            }
        }
        self.end_span()?;
        self.sink.flush()?;
        self.sink.w.flush()?;
        Ok(())
    }
}

/// The record of element `e`, which must belong to `doc`.
fn record_of<'d>(doc: &'d Document<'d>, e: Node<'d>) -> Option<RecordId> {
    RecordId::of(&e).filter(|_| std::ptr::eq(e.document(), doc) && e.is_element())
}

pub(crate) fn run<'d, 'w, W: Write + ?Sized>(
    c: &Canonicalizer,
    doc: &'d Document<'d>,
    apex: Option<Node<'d>>,
    excluded: &[Node<'d>],
    sink: Sink<'w, W>,
) -> (Sink<'w, W>, Result<(), C14nError>) {
    let top = apex.unwrap_or_else(|| doc.root_element());
    let mut excl: Vec<usize> = Vec::new();
    if !excluded.is_empty() {
        excl.extend(excluded.iter().filter(|n| !n.is_root()).map(|n| n.range().start));
        excl.sort_unstable();
    }
    let els = match apex {
        Some(a) => a.descendant_elements(),
        None => doc.root().descendant_elements(),
    };
    let mut t = Tree {
        c,
        doc,
        text: doc.text(),
        tape: Tape::of(doc),
        names: doc.names(),
        sink,
        span: NO_SPAN,
        fast: c.fast_path,
        plain_fast: c.fast_path
            && doc.dtd().is_none_or(|d| d.attributes.is_empty())
            && (c.alg != Algorithm::ExcC14n10 || c.prefixes.is_empty()),
        exclusive: c.alg == Algorithm::ExcC14n10,
        with_comments: c.with_comments,
        scope: Stack::new(),
        rendered: Stack::new(),
        stack: Stack::new(),
        pos: 0,
        apex: top,
        apex_start: top.range().start,
        els: els.peekable(),
        excluded: excl,
        ns_out: Stack::new(),
        atts: Vec::new(),
        raw_atts: Stack::new(),
        scratch: Vec::new(),
        dtd_atts: doc.dtd().is_some_and(|d| !d.attributes.is_empty()),
        dtd_cache: Vec::new(),
        rendered_gen: 0,
        utilized_rendered: [(Sym::new(0), 0); 16],
    };
    let whole_excluded = excluded.iter().any(|n| n.is_root());
    let r = t.go(apex, whole_excluded);
    (t.sink, r)
}
