//! The lean path through element content.
//!
//! Most of a document is made of a few kinds of items: character data without
//! references, start tags whose names were seen before and whose attributes
//! (namespace declarations included) are `name="value"` with plain values (or,
//! for attributes, values with predefined entity references: `&amp;` `&lt;`
//! `&gt;` `&quot;` `&apos;`), and end tags. [`Run::content_fast`] parses
//! runs of those with the parser's state held in locals (the general path reaches
//! it through `self` and spills it around every call), and hands over to the
//! general loop at the first item it does not handle: a comment, CDATA section, PI,
//! reference, a reserved prefix or namespace, a DTD that may type a declaration,
//! anything unusual or malformed. Handing over
//! leaves the state exactly as the general path would have, so that path still
//! makes every check and every error message; this one only ever accepts what it
//! would accept too.

use super::*;

#[cfg(test)]
thread_local! {
    /// Tests: parse everything on the general path, to compare the two.
    static GENERAL_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl Run<'_> {
    /// Parses content from `pos` (inside an element of the document, never in an
    /// entity's replacement text) while it is made of the common items. Returns the
    /// offset where the general loop takes over: at a `<`, `&` or `]` it did not
    /// handle, or at `pos` when it handled nothing. `base` is the general loop's stack
    /// depth: the end tag that returns to it is left to that loop.
    pub(super) fn content_fast(&mut self, t: &[u8], mut pos: usize, base: usize) -> usize {
        if self.fragment_depth != 0 {
            return pos;
        }
        #[cfg(test)]
        if GENERAL_ONLY.with(|g| g.get()) {
            return pos;
        }
        let limits = &self.opts.limits;
        let max_name = limits.max_name_len as usize;
        let max_depth = limits.max_depth as usize;
        let max_attrs = limits.max_attributes as usize;
        let ns_on = self.ns_on;
        let has_dtd = self.dtd.is_some();
        let (q_xml, q_xmlns) = (self.q_xml, self.q_xmlns);
        let st = &mut *self.st;
        let stack = &mut st.stack;
        let bindings = &mut st.bindings;
        let attrs = &mut st.attrs;
        let tape = &mut self.tape;
        let names = &mut *self.names;
        let bound = |bindings: &[Binding], prefix: QNameId| bound_unreserved(bindings, prefix, q_xml, q_xmlns);
        let mut actx = AttrContext { max_name, max_attrs, ns_on, has_dtd, q_xml, q_xmlns, accepted: false };
        loop {
            // character data up to the next markup
            let Some(at) = crate::chars::find3(t, pos, b'<', b'&', b']') else { return pos };
            if t[at] != b'<' || tape.len() >= MAX_TAPE_WORDS {
                return at;
            }
            pos = at;
            let Some(&next) = t.get(pos + 1) else { return pos };
            if next == b'/' {
                // an end tag: the name of the open element, optional whitespace, `>`
                let depth = stack.len();
                if depth <= base + 1 {
                    return pos;
                }
                let open = stack[depth - 1];
                let (ns, os, ol) = (pos + 2, open.name_start as usize, open.name_len as usize);
                let ne = ns + ol;
                if ne >= t.len() {
                    return pos;
                }
                // the open element's name as words (names up to 16 bytes), else its bytes
                let info = &names.qnames[open.qid.index()];
                let same =
                    if info.len as usize == ol { crate::names::load16_at(t, ns, ol) == (info.w0, info.w1) } else { same_at(t, ns, os, ol) };
                if !same {
                    return pos;
                }
                let end = match t[ne] {
                    b'>' => ne + 1,
                    c if is_ws(c) => {
                        let p = skip_ws(t, ne);
                        if t.get(p) != Some(&b'>') {
                            return pos;
                        }
                        p + 1
                    }
                    _ => return pos,
                };
                stack.pop();
                close_record(tape, open.rec, end);
                bindings.truncate(open.bindings as usize);
                pos = end;
                continue;
            }
            if next == b'!' || next == b'?' {
                return pos;
            }
            // a start tag; at depth 0 the document element's (this is then the first
            // call, and an empty document element ends the content)
            let depth = stack.len();
            if depth >= max_depth {
                return pos;
            }
            let top = match stack.last() {
                Some(&top) => top,
                None => OpenElem { rec: NONE, name_start: 0, name_len: 0, bindings: 0, qid: NO_PREFIX, last_child: NO_PREFIX },
            };
            let ns = pos + 1;
            // the name: predicted from where it appeared before, else scanned and interned
            let predicted = if depth == 0 { None } else { predict_name(names, &top, t, ns) };
            let (qid, ne) = match predicted {
                Some(p) => p,
                None => {
                    let Some(ne) = scan_name(t, ns) else { return pos };
                    if ne - ns > max_name {
                        return pos;
                    }
                    (names.intern_qname_at(t, ns, ne), ne)
                }
            };
            // an element type with attribute defaults has `QNAME_OK_WITH_DEFAULTS`: the
            // general path takes its start tags and adds them
            let (eprefix, ok, last) = {
                let info = &names.qnames[qid.index()];
                (info.prefix, !ns_on || info.qname_ok == 1, (info.last_ns, info.last_sym))
            };
            if !ok {
                return pos;
            }
            // the attributes (out of line: most start tags have none)
            let mut p = ne;
            let (empty, decls) = if t.get(p) == Some(&b'>') {
                p += 1;
                attrs.clear();
                (false, false)
            } else {
                match tag_attributes(&actx, names, attrs, bindings, t, p, qid) {
                    Some((np, e, d)) => {
                        p = np;
                        (e, d)
                    }
                    None => return pos,
                }
            };
            // A tag with declarations pushes its bindings here; handing over drops them.
            let bind_base = bindings.len();
            let checked = 'check: {
                if decls && !declare(names, bindings, attrs, t, q_xml, q_xmlns) {
                    break 'check None;
                }
                let ens = if !ns_on || bindings.is_empty() {
                    if eprefix != NO_PREFIX && ns_on {
                        break 'check None;
                    }
                    NS_NONE
                } else {
                    match bound(bindings, eprefix) {
                        Some(n) => n,
                        None if eprefix == NO_PREFIX => NS_NONE,
                        None => break 'check None,
                    }
                };
                // the symbol: usually the one this name had last time
                let sym = if last.0 == ens {
                    last.1
                } else {
                    match names.sym(qid, ens) {
                        Some(s) => s,
                        None => break 'check None,
                    }
                };
                Some(sym)
            };
            let Some(sym) = checked else {
                bindings.truncate(bind_base);
                return pos;
            };
            // recorded as `start_tag` would (symbols made in its order: the element's,
            // then the attributes'); an attribute without a symbol hands over
            let n = attrs.len();
            let rec = tape.len() as u32;
            let (end_rec, end_off) = if empty { (rec + 5 + 2 * n as u32, p as u32) } else { (0, 0) };
            put(tape, [(K_ELEM << KIND_SHIFT) | sym.as_u32(), pos as u32, end_rec, top.rec, end_off]);
            for a in attrs.iter() {
                let Some(s) = names.sym(a.qid, a.ns) else {
                    tape.truncate(rec as usize);
                    bindings.truncate(bind_base);
                    return pos;
                };
                let k = if a.is_decl { K_NSDECL } else { K_ATTR };
                put(tape, [(k << KIND_SHIFT) | s.as_u32(), a.name_off]);
            }
            actx.accepted = true;
            note_child(stack, names, qid);
            if empty {
                bindings.truncate(bind_base);
                if depth == 0 {
                    return p;
                }
            } else {
                stack.push(OpenElem {
                    rec,
                    name_start: ns as u32,
                    name_len: (ne - ns) as u32,
                    bindings: bind_base as u32,
                    qid,
                    last_child: NO_PREFIX,
                });
            }
            pos = p;
        }
    }
}

impl Run<'_> {
    /// What besides its bytes decides the lean path's outcome for a start tag:
    /// namespace processing, the name length and attribute count limits.
    fn root_tag_key(&self) -> (bool, u32, u32) {
        let l = &self.opts.limits;
        (self.ns_on, l.max_name_len, l.max_attributes)
    }

    /// The document element's start tag at `pos` when its bytes are those the lean
    /// path last accepted ([`Names::root_tag`]): records and bindings as then, and the
    /// offset after the tag. `None` otherwise (the caller parses it).
    pub(super) fn root_tag_again(&mut self, t: &[u8], pos: usize) -> Option<usize> {
        let key = self.root_tag_key();
        if self.opts.limits.max_depth == 0 || self.tape.len() >= MAX_TAPE_WORDS {
            return None;
        }
        let m = self.names.root_tag.as_deref().filter(|m| m.key == key && t.get(pos..pos + m.bytes.len()) == Some(&m.bytes[..]))?;
        let (rec, end) = (self.tape.len() as u32, pos + m.bytes.len());
        let (end_rec, end_off) = if m.empty { (rec + 5 + 2 * m.attrs.len() as u32, end as u32) } else { (0, 0) };
        put(&mut self.tape, [m.word0, pos as u32, end_rec, NONE, end_off]);
        for &(w, off) in &m.attrs {
            put(&mut self.tape, [w, pos as u32 + off]);
        }
        if !m.empty {
            let st = &mut *self.st;
            let bindings = st.bindings.len() as u32;
            st.bindings.extend(m.bindings.iter().map(|&(prefix, ns)| Binding { prefix, ns }));
            st.stack.push(OpenElem { rec, name_start: pos as u32 + 1, name_len: m.name_len, bindings, qid: m.qid, last_child: NO_PREFIX });
        }
        Some(end)
    }

    /// The lean path took the document element's start tag at `pos` (its records from
    /// `rec` on) and stopped at `stopped` (the tag's end when the element is empty):
    /// keeps the tag, its records and bindings for the next document
    /// ([`Run::root_tag_again`]).
    #[cold]
    #[inline(never)]
    pub(super) fn remember_root_tag(&mut self, t: &[u8], pos: usize, rec: usize, stopped: usize) {
        let key = self.root_tag_key();
        let words = &self.tape[rec..];
        let attrs = || words[5..].chunks_exact(2).take_while(|a| matches!(a[0] >> KIND_SHIFT, K_ATTR | K_NSDECL));
        let st = &*self.st;
        let open = st.stack.first().filter(|e| e.rec as usize == rec);
        let (end, name_len, qid, pushed) = match open {
            None => (stopped, scan_name(t, pos + 1).map_or(0, |e| e - pos - 1), NO_PREFIX, &[][..]),
            Some(e) => {
                // the tag ends after its last attribute's value (or its name), white space and `>`
                let after = match attrs().last() {
                    None => Some(e.name_start as usize + e.name_len as usize),
                    Some(a) => scan_name(t, a[1] as usize).and_then(|ae| {
                        let q = *t.get(ae + 1)?;
                        memchr(q, t.get(ae + 2..)?).map(|v| ae + 2 + v + 1)
                    }),
                };
                let Some(p) = after.map(|p| skip_ws(t, p)).filter(|&p| t.get(p) == Some(&b'>')) else { return };
                let next = st.stack.get(1).map_or(st.bindings.len(), |c| c.bindings as usize);
                (p + 1, e.name_len as usize, e.qid, &st.bindings[e.bindings as usize..next])
            }
        };
        if end - pos > 4096 {
            // rare, and not worth holding on to
            self.names.root_tag = None;
            return;
        }
        let m = self.names.root_tag.get_or_insert_with(Default::default);
        m.bytes.clear();
        m.bytes.extend_from_slice(&t[pos..end]);
        m.key = key;
        m.qid = qid;
        m.name_len = name_len as u32;
        m.empty = open.is_none();
        m.word0 = words[0];
        m.attrs.clear();
        m.attrs.extend(attrs().map(|a| (a[0], a[1] - pos as u32)));
        m.bindings.clear();
        m.bindings.extend(pushed.iter().map(|b| (b.prefix, b.ns)));
    }
}

/// The namespace `prefix` is bound to on the lean path; `None` for the reserved
/// prefixes (left to the general path) or an unbound one.
#[inline(always)]
fn bound_unreserved(bindings: &[Binding], prefix: QNameId, q_xml: QNameId, q_xmlns: QNameId) -> Option<NsId> {
    if prefix == q_xml || prefix == q_xmlns {
        return None;
    }
    bound(bindings, prefix)
}

/// What the attribute scan of a start tag on the lean path needs from the run.
#[derive(Clone, Copy)]
struct AttrContext {
    max_name: usize,
    max_attrs: usize,
    ns_on: bool,
    has_dtd: bool,
    q_xml: QNameId,
    q_xmlns: QNameId,
    /// `attrs` holds the attributes of a start tag the lean loop accepted (so
    /// their names are unique), not the general path's.
    accepted: bool,
}

/// The attributes of a start tag on the lean path, from `p` (just after its name)
/// into `attrs`: the offset past the tag, whether it was an empty-element tag and
/// whether it declares namespaces. `None` when the general path must take the tag.
/// A tag without declarations has its attributes' namespaces resolved and their
/// names checked for uniqueness here (a tag with them, in [`declare`]): skipped
/// when the names and namespaces are the last accepted tag's (or its first ones), in its order.
/// `elem` is the element's name, whose `attr_guess` predicts the first attribute's.
#[inline(never)]
fn tag_attributes(
    cx: &AttrContext,
    names: &mut Names,
    attrs: &mut Vec<AttrScratch>,
    bindings: &[Binding],
    t: &[u8],
    mut p: usize,
    elem: QNameId,
) -> Option<(usize, bool, bool)> {
    // `attrs` still holds the previous start tag's attributes: the names to
    // expect in the same places (the tags of a list's items are alike)
    let AttrContext { max_name, max_attrs, ns_on, has_dtd, q_xml, q_xmlns, accepted } = *cx;
    let mut n_attrs = 0;
    let (mut decls, mut unbound) = (false, false);
    let mut same = accepted;
    let empty = loop {
        let &(mut c) = t.get(p)?;
        if is_ws(c) {
            p = skip_ws(t, p + 1);
            let &d = t.get(p)?;
            c = d;
        } else if c != b'>' && c != b'/' {
            return None;
        }
        if c == b'>' {
            p += 1;
            break false;
        }
        if c == b'/' {
            if t.get(p + 1) != Some(&b'>') {
                return None;
            }
            p += 2;
            break true;
        }
        // an attribute, after whitespace: name="value"; the name is the one the
        // previous tag had in this place when its bytes and an `=` are here
        let an = p;
        let guess = attrs.get(n_attrs).map(|a| a.qid);
        let (aq, ae) = match guess.and_then(|g| Some((g, an + name_here(names, t, an, g)?))) {
            Some(hit) => hit,
            // the name before this one in this tag: its `attr_guess` is the next name's
            None => attr_name(names, t, an, if n_attrs == 0 { elem } else { attrs[n_attrs - 1].qid }, max_name)?,
        };
        let &q = t.get(ae + 1)?;
        if q != b'"' && q != b'\'' {
            return None;
        }
        // the value: to the closing quote, past predefined entity references
        let vs = ae + 2;
        let mut stop = crate::chars::find3(t, vs, q, b'<', b'&')?;
        let refs = t[stop] == b'&';
        if refs {
            let s = past_refs(t, stop, q)?;
            stop = s;
        }
        if t[stop] != q || n_attrs >= max_attrs {
            return None;
        }
        let mut is_decl = false;
        let mut ans = NS_NONE;
        if ns_on {
            let info = &names.qnames[aq.index()];
            if info.qname_ok != 1 {
                return None;
            }
            is_decl = aq == q_xmlns || info.prefix == q_xmlns;
            if is_decl {
                // not when a DTD may type it, or its value needs decoding or normalizing;
                // the declaration this attribute made last time, again (its namespace
                // in `ns` tells `declare`), needs no look at the value's characters
                if has_dtd || refs {
                    return None;
                }
                match names.declared_again(aq, &t[vs..stop]) {
                    Some(n) => ans = n,
                    None if has_tab_or_line_end(&t[vs..stop]) => return None,
                    None => {}
                }
                decls = true;
            } else if info.prefix != NO_PREFIX {
                // resolved again below when the tag declares namespaces
                match bound_unreserved(bindings, info.prefix, q_xml, q_xmlns) {
                    Some(n) => ans = n,
                    None => unbound = true,
                }
            }
        }
        let a = AttrScratch {
            qid: aq,
            name_off: an as u32,
            name_end: ae as u32,
            val_start: vs as u32,
            val_end: stop as u32,
            ns: ans,
            is_decl,
            plain: !refs,
        };
        match attrs.get_mut(n_attrs) {
            Some(slot) => {
                same &= slot.qid == aq && slot.ns == ans;
                *slot = a;
            }
            None => {
                same = false;
                attrs.push(a);
            }
        }
        n_attrs += 1;
        p = stop + 1;
    };
    // (fewer names than the last tag's, in its order, are unique too)
    attrs.truncate(n_attrs);
    if !decls && (unbound || (!same && !unique_names(attrs, t, ns_on))) {
        return None;
    }
    Some((p, empty, decls))
}

/// No two of a start tag's attributes (at most 16 of them, else `false`: left to
/// the general path) share a qualified or expanded name.
#[inline]
fn unique_names(attrs: &[AttrScratch], t: &[u8], ns_on: bool) -> bool {
    let n = attrs.len();
    n < 2 || (n <= 16 && first_duplicate(attrs, t, ns_on).is_none())
}

/// Does `s` hold a tab, LF or CR? Eight bytes at a time, looking closely only at
/// a word with a byte below 0x0E (a namespace name is short: a `memchr3` call costs
/// more than the scan).
#[inline(never)]
fn has_tab_or_line_end(s: &[u8]) -> bool {
    let is_special = |c: &u8| matches!(c, b'\t' | b'\n' | b'\r');
    let mut words = s.chunks_exact(8);
    for w in &mut words {
        let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        if crate::chars::bytes_below(x, 0x0E) != 0 && w.iter().any(is_special) {
            return true;
        }
    }
    words.remainder().iter().any(is_special)
}

/// The length of the name `g` when its bytes are at `an`, followed by an `=`. Names
/// over 16 bytes have no words to compare (`len` is u32::MAX): never.
#[inline(always)]
fn name_here(names: &Names, t: &[u8], an: usize, g: QNameId) -> Option<usize> {
    let i = &names.qnames[g.index()];
    let len = i.len as usize;
    (len <= 16 && t.get(an + len) == Some(&b'=') && crate::names::load16_at(t, an, len) == (i.w0, i.w1)).then_some(len)
}

/// The name of the attribute at `an` and its end, where an `=` must follow, when
/// the name the previous start tag had in this place is not there (which needs no
/// check of the name limit: it is a name of this parse): the `attr_guess` of
/// `before` (the element's name for the first attribute, else the previous
/// attribute's) when its bytes are there, else the name scanned and interned, which
/// then becomes that guess. `None` when there is no name, it is longer than
/// `max_name` or no `=` follows (the general path then takes the tag).
#[inline(always)]
fn attr_name(names: &mut Names, t: &[u8], an: usize, before: QNameId, max_name: usize) -> Option<(QNameId, usize)> {
    let typed = names.qnames[before.index()].attr_guess;
    // (a parser with other limits may have left the guess in the tables)
    if typed != NO_PREFIX {
        if let Some(len) = name_here(names, t, an, typed).filter(|&len| len <= max_name) {
            return Some((typed, an + len));
        }
    }
    attr_name_miss(names, t, an, before, typed, max_name)
}

/// [`attr_name`] when no guess holds on words: `typed` when it is a name over 16
/// bytes (`soap:mustUnderstand`) and its bytes are there, else the name scanned and
/// interned, and remembered.
#[inline(never)]
fn attr_name_miss(names: &mut Names, t: &[u8], an: usize, before: QNameId, typed: QNameId, max_name: usize) -> Option<(QNameId, usize)> {
    if let Some(i) = names.qnames.get(typed.index()).filter(|i| i.len == u32::MAX && i.blen as usize <= max_name) {
        let (off, len) = (i.off as usize, i.blen as usize);
        if t.get(an + len) == Some(&b'=') && names.arena.as_bytes().get(off..off + len) == t.get(an..an + len) {
            return Some((typed, an + len));
        }
    }
    let ae = scan_name(t, an)?;
    if ae - an > max_name || t.get(ae) != Some(&b'=') {
        return None;
    }
    let q = names.intern_qname_at(t, an, ae);
    names.qnames[before.index()].attr_guess = q;
    Some((q, ae))
}

/// An attribute value quoted with `q` has a `&` at `amp`: the offset of the closing
/// quote or `<` past it, when every reference is a predefined entity reference.
#[inline(never)]
fn past_refs(t: &[u8], mut amp: usize, q: u8) -> Option<usize> {
    loop {
        let stop = crate::chars::find3(t, amp + predefined_ref_len(&t[amp..])?, q, b'<', b'&')?;
        if t[stop] != b'&' {
            return Some(stop);
        }
        amp = stop;
    }
}

/// The length of the predefined entity reference (`&amp;` `&lt;` `&gt;` `&quot;`
/// `&apos;`) that `s` (starting with `&`) starts with, if it does.
#[inline]
fn predefined_ref_len(s: &[u8]) -> Option<usize> {
    let named = |n: &&(&str, char)| s.get(1..=n.0.len()) == Some(n.0.as_bytes()) && s.get(n.0.len() + 1) == Some(&b';');
    dtd::PREDEFINED.iter().find(named).map(|(name, _)| name.len() + 2)
}

/// The namespace declarations of a start tag on the lean path (as `Run::namespaces`
/// makes them): pushes their bindings, then resolves the prefixed attributes with
/// them and checks that the names are unique. `false` when the general path must
/// take the tag (a declaration [`declaration_problem`] objects to, the `xml` prefix,
/// an unbound prefix, a repeated name); the caller drops the bindings pushed so far.
#[inline(never)]
fn declare(names: &mut Names, bindings: &mut Vec<Binding>, attrs: &mut [AttrScratch], t: &[u8], q_xml: QNameId, q_xmlns: QNameId) -> bool {
    for a in attrs.iter_mut().filter(|a| a.is_decl) {
        // made before (`tag_attributes` found the memo; an earlier declaration of this
        // tag may have taken its slot since)
        let slot = a.qid.index() % crate::names::DECL_MEMO_SIZE;
        let m = names.decl_memo[slot];
        if a.ns != NS_NONE && m.attr == a.qid && m.ns == a.ns {
            bindings.push(Binding { prefix: m.prefix, ns: m.ns });
            a.ns = NS_XMLNS;
            continue;
        }
        let uri = &t[a.val_start as usize..a.val_end as usize];
        // `xmlns` or `xmlns:prefix`
        let prefix = if a.qid == q_xmlns { NO_PREFIX } else { names.intern_qname(&t[a.name_off as usize + 6..a.name_end as usize]) };
        // the `xml` prefix, even bound as it must be, is left to the general path
        if prefix == q_xml || declaration_problem(names, q_xml, q_xmlns, prefix, uri).is_some() {
            return false;
        }
        let id = if uri.is_empty() { NS_NONE } else { names.intern_ns_bytes(uri) };
        if id != NS_NONE {
            names.decl_memo[slot] = crate::names::DeclMemo { attr: a.qid, prefix, ns: id };
        }
        bindings.push(Binding { prefix, ns: id });
        a.ns = NS_XMLNS;
    }
    for a in attrs.iter_mut().filter(|a| !a.is_decl) {
        let prefix = names.qnames[a.qid.index()].prefix;
        if prefix != NO_PREFIX {
            if prefix == q_xml || prefix == q_xmlns {
                return false;
            }
            match bound(bindings, prefix) {
                Some(ns) => a.ns = ns,
                None => return false,
            }
        }
    }
    unique_names(attrs, t, true)
}

#[cfg(test)]
mod tests {
    use super::GENERAL_ONLY;
    use crate::{ParseOptions, Parser};
    use proptest::prelude::*;

    /// The index (tape and root) or the error (kind and offset) of one parse, with
    /// the lean path on or off.
    fn outcome(opts: &ParseOptions, doc: &[u8], general_only: bool) -> Result<(Vec<u32>, u32), (String, u64)> {
        GENERAL_ONLY.with(|g| g.set(general_only));
        // tables of its own, so both paths number symbols alike
        let mut parser = Parser::isolated(opts.clone());
        // twice with one parser: the lean path takes only names the general path has
        // checked, so the second parse (with the names and predictions of the first) is
        // the one that exercises it
        let first = parser.run(doc).map(|p| (p.tape, p.root)).map_err(|e| (format!("{:?}", e.kind()), e.offset()));
        let second = parser.run(doc).map(|p| (p.tape, p.root)).map_err(|e| (format!("{:?}", e.kind()), e.offset()));
        GENERAL_ONLY.with(|g| g.set(false));
        assert_eq!(first, second, "a reused parser gave another result");
        second
    }

    /// Items of element content: the common kinds the lean path takes and the kinds it
    /// hands over...
    const GOOD: &[&str] = &[
        "text",
        " ",
        "\n  ",
        "a &amp; b",
        "&#x41;",
        "<!--c-->",
        "<?pi x?>",
        "<![CDATA[<x>]]>",
        "]",
        "<e/>",
        "<e />",
        "<f x='1'/>",
        "<f x=\"1\" y='2'/>",
        "<f\tx = '1'/>",
        "<f p:x='1' q:x='2'/>",
        "<f x='&amp;'/>",
        "<f xmlns='urn:d'/>",
        "<f xmlns:p='urn:other'/>",
        "<f xml:lang='en'/>",
        "<p:f/>",
        "<f p:y='1'/>",
        "<f a='1' b='2' c='3'/>",
        "<abcde/>",
        "<abcd/>",
        "<q:h/>",
        "<g x='a long value, longer than sixteen bytes'/>",
        "<a-name-longer-than-16-bytes/>",
        "<a-name-longer-than-16-bytez/>",
        "<f q:x='1' xmlns:q='urn:q2'/>",
        "<q:g xmlns:q='urn:q3'><q:h/></q:g>",
        "<f xmlns:p='urn:tab\tbed'/>",
        "<f xmlns:p='urn:p' xmlns='urn:d2' p:a='1' a='2'/>",
        "<f xmlns:s='urn:s' xml:lang='en'/>",
        "<a-name-longer-than-16-bytes-and-more/>",
        "<g x='a value longer than the sixty-four bytes looked at sixteen at a time'/>",
        "<f x='&lt;&gt;&quot;&apos;' y='t&amp;u'/>",
        "<f x='1' y='&amp;' z='3'/>",
        "<f y='2' x='1'/>",
        "<f xmlns:q='u&amp;v'/>",
        "<f x='&#x41;&amp;'/>",
        "<f x=\"it&apos;s\" a-attribute-name-of-17='v'/>",
        "<f a-attribute-name-of-17='v' x='&amp;'/>",
    ];
    /// ... and malformed ones, rarer, so both paths must fail the same way too.
    const BAD: &[&str] = &[
        "]]>",
        "<f x='1'y='2'/>",
        "<f x='1' x='2'/>",
        "<f p:x='1' p:x='2'/>",
        "<f x='a<b'/>",
        "<f x='&undeclared;'/>",
        "<u:f/>",
        "<f x='1'",
        "<f/ >",
        "<1f/>",
        "<f:/>",
        "<f x='unterminated/>",
        "<f xmlns:xmlns='u'/>",
        "</>",
        "</nope>",
        "<f a='1' b='2' c='3' d='4'/>",
        "<verylongname/>",
        "<abcdefgh/>",
        "<f abcdefgh='1'/>",
        "<f xmlns:p=''/>",
        "<f xmlns:x='http://www.w3.org/XML/1998/namespace'/>",
        "<f xmlns='http://www.w3.org/2000/xmlns/'/>",
        "<f xmlns:q='a' xmlns:q='b'/>",
        "<f xmlns:q='a' q:x='1' xmlns:r='a' r:x='2'/>",
        "<f xmlns:xml='urn:not-xml'/>",
        // the lean path declares s, then hands the tag over (xml:lang): s must not stay bound
        "<f xmlns:s='urn:s' xml:lang='en'/><s:x/>",
        "<f x='&amp'/>",
        "<f x='&am;'/>",
        "<f x='&#0;'/>",
        "<f x='a&amp;<'/>",
        "<f x='&amp;&'/>",
        "<f x='1' y='&lt;' x='2'/>",
        "<f x ='1'/>",
        "<f x= '1'/>",
        "<f xx='1'/>",
        "<f x='1' yy='2'/>",
        "<f xy'2'/>",
        "<f x='1' y\"2\"/>",
    ];
    const NAMES: &[&str] =
        &["a", "b", "p:c", "d", "a", "q:h", "p:a-name-longer-than-16-bytes", "a-name-longer-than-16-bytes", "a-name-longer-than-16-bytez"];
    const ATTRS: &[&str] = &["", "", " x='1'", " p:y=\"2\"", " x='1' y='\u{e9}'", "  ", " xmlns:q='urn:q'", " xmlns='urn:d'", " xmlns=''"];

    const DEFAULTS_DTD: &str = "<!DOCTYPE r [<!ATTLIST f x CDATA 'd' z NMTOKENS ' t  u ' xmlns:p CDATA 'urn:p2'>\
        <!ATTLIST e xmlns CDATA 'urn:e'><!ATTLIST g q:w CDATA '1' xmlns:q CDATA #FIXED 'urn:q'><!ATTLIST b p:y CDATA '3'>\
        <!ATTLIST d xmlns:p CDATA ''><!ENTITY ent 'entity text'><!ATTLIST abcd v CDATA 'a&ent;b'>]>";

    fn element(depth: u32) -> BoxedStrategy<String> {
        let leaf = prop_oneof![30 => proptest::sample::select(GOOD), 1 => proptest::sample::select(BAD)].prop_map(str::to_string).boxed();
        if depth == 0 {
            return leaf;
        }
        let child = prop_oneof![3 => leaf, 2 => element(depth - 1)];
        (
            proptest::sample::select(NAMES),
            proptest::sample::select(ATTRS),
            proptest::collection::vec(child, 0..6),
            proptest::sample::select(&["", " ", "\n"][..]),
        )
            .prop_map(|(name, attrs, children, ws)| format!("<{name}{attrs}>{}</{name}{ws}>", children.concat()))
            .boxed()
    }

    /// What a parse of `doc` gives: the index (tape, root, and each symbol's name and
    /// namespace) or the error (kind, offset, line, column). `split`: cut the
    /// document at the first start tag from the first offset, with the second the
    /// warm-up (see `split.rs`), and check UTF-8 and `Char` in the halves.
    type Outcome = Result<(Vec<u32>, u32, Vec<(String, String)>), (String, u64, u32, u32)>;
    fn split_outcome(opts: &ParseOptions, doc: &[u8], split: Option<(usize, usize)>) -> Outcome {
        let opts = opts.clone().parallel_parse(split.is_some()).parallel_check(split.is_some());
        crate::parser::split::TEST_SPLIT.with(|s| s.set(split));
        let mut parser = Parser::with_options(opts);
        let r = parser.parse(doc).map(|d| {
            let names = d.names.syms().map(|s| (d.names.qname(s).to_string(), d.names.ns_uri(s).to_string())).collect();
            (d.tape.clone(), d.root, names)
        });
        crate::parser::split::TEST_SPLIT.with(|s| s.set(None));
        r.map_err(|e| (format!("{:?}", e.kind()), e.offset(), e.line(), e.column()))
    }

    /// Items that make a split parse take its other ways: markup with a start tag
    /// inside (the cut may fall there), declarations below the document element,
    /// characters the UTF-8 and `Char` check refuses (`#FF#`: the byte 0xFF).
    const SPLIT_ITEMS: &[&str] = &[
        "<!-- <c/> -->",
        "<![CDATA[ <d> ]]>",
        "<?pi <e?>",
        "<g xmlns:p='urn:p-below'><p:h/></g>",
        "<g xmlns='urn:d-below'><h/></g>",
        "\u{1}",
        "#FF#",
        "<new-name new-attr='1'/>",
        "<n:x xmlns:n='urn:new'><n:y n:z='1'/></n:x>",
        "</r>",
        "</a>",
    ];
    const EPILOGS: &[&str] = &["", "\n", "<!--end-->", "<?end?>", "junk", "<x/>", "&amp;", "</r>"];

    fn split_element(depth: u32) -> BoxedStrategy<String> {
        let leaf = prop_oneof![
            20 => proptest::sample::select(GOOD),
            4 => proptest::sample::select(SPLIT_ITEMS),
            1 => proptest::sample::select(BAD)
        ]
        .prop_map(str::to_string)
        .boxed();
        if depth == 0 {
            return leaf;
        }
        let child = prop_oneof![3 => leaf, 2 => split_element(depth - 1)];
        (proptest::sample::select(NAMES), proptest::sample::select(ATTRS), proptest::collection::vec(child, 0..6))
            .prop_map(|(name, attrs, children)| format!("<{name}{attrs}>{}</{name}>", children.concat()))
            .boxed()
    }

    fn bytes_of(doc: &str) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, part) in doc.split("#FF#").enumerate() {
            if i > 0 {
                out.push(0xFF);
            }
            out.extend_from_slice(part.as_bytes());
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]
        #[test]
        fn split_parse_agrees_with_one_pass(
            body in proptest::collection::vec(split_element(3), 0..5),
            epilog in proptest::sample::select(EPILOGS),
            cut in 0.0f64..1.0,
            warm in 0usize..200,
            variant in 0u8..3,
        ) {
            let doc = bytes_of(&format!("<?xml version='1.0'?><r xmlns:p='urn:p' xmlns='urn:r'>{}</r>{epilog}", body.concat()));
            let mut opts = ParseOptions::default();
            match variant {
                1 => opts.namespaces = false,
                2 => {
                    opts.limits.max_depth = 4;
                    opts.limits.max_attributes = 2;
                }
                _ => {}
            }
            let at = (doc.len() as f64 * cut) as usize;
            prop_assert_eq!(split_outcome(&opts, &doc, Some((at, warm))), split_outcome(&opts, &doc, None));
        }
    }

    #[test]
    fn split_parse_at_every_start_tag() {
        // every cut of a few documents: open elements at the cut named as the stand-ins'
        // end tags say, or not; more elements open at the cut than stand-ins; names and
        // namespaces first met in the second half
        let deep = format!("<r>{}<x/>{}</r>", "<d>".repeat(60), "</d>".repeat(60));
        let docs: Vec<String> = vec![
            "<r><a><b>1</b><b>2</b></a><a><b>3</b></a></r>".into(),
            "<r xmlns:p='urn:p'><p:a p:x='1'><b/></p:a><c xmlns:q='urn:q'><q:d/></c><e/></r><!--after-->".into(),
            "<r><a><b>1</b></a><c><d/></c></r>".into(),
            "<r><a><b>1</b></a></c></r>".into(),
            "<r><a><b>1</b></a><c></r>".into(),
            "<r><a></a><b></b></r><after/>".into(),
            deep,
        ];
        for doc in &docs {
            let want = split_outcome(&ParseOptions::default(), doc.as_bytes(), None);
            for at in 0..doc.len() {
                for warm in [0, 5, 1000] {
                    let got = split_outcome(&ParseOptions::default(), doc.as_bytes(), Some((at, warm)));
                    assert_eq!(got, want, "{doc} cut from {at}, warm-up {warm}");
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
        /// The word-at-a-time test for a tab or line end agrees with `memchr3`, with
        /// bytes around 0x0E and above 0x7F (which the word test can flag falsely).
        #[test]
        fn tab_or_line_end_test_agrees_with_memchr(s in proptest::collection::vec(proptest::prop_oneof![
            4 => 0x20u8..0x7F, 1 => 0u8..0x20, 1 => 0x80u8..=0xFF, 1 => proptest::sample::select(vec![b'\t', b'\n', b'\r', 0x0D, 0x0E, 0x0F, 0x8D, 0x89])
        ], 0..70)) {
            prop_assert_eq!(super::has_tab_or_line_end(&s), memchr::memchr3(b'\t', b'\n', b'\r', &s).is_some());
        }
    }

    /// The lean path expects each attribute name where the previous start tag had it:
    /// names that are prefixes of each other, differ in their last byte, are longer
    /// than 16 bytes or than the name limit, repeat (a duplicate), or are prefixed
    /// and bound differently, all parse as the general path parses them.
    #[test]
    fn expected_attribute_names_agree_with_the_general_path() {
        let tags = [
            "<e ab='1' abc='2'/>",
            "<e abc='1' ab='2'/>",
            "<e ab='1' ab='2'/>",
            "<e ab='1' abd='2'/>",
            "<e a='1' b='2' c='3'/>",
            "<e a='1' b='2'/>",
            "<e a='1' b='2' c='3' d='4'/>",
            "<e a='1' b ='2'/>",
            "<e averyveryverylongname='1' averyveryverylongnamf='2'/>",
            "<e p:a='1' q:a='2' xmlns:q='urn:p'/>",
            "<e p:a='1' q:a='2' xmlns:q='urn:q'/>",
            "<f a='1'><g a='2' b='3'/></f>",
            "<e a='&amp;' b='&lt;'/>",
            // the names of the tag before, but `q` bound to `p`'s namespace now
            "<i xmlns:q='urn:p'><h xmlns:q='urn:q'><e p:a='1' q:a='2'/></h><e p:a='1' q:a='2'/></i>",
            "<i xmlns:q='urn:q'><h xmlns:q='urn:p'><e p:a='1' q:a='2'/></h><e p:a='1' q:a='2'/></i>",
        ];
        let mut small = ParseOptions::default();
        small.limits.max_name_len = 7;
        for opts in [ParseOptions::default(), ParseOptions::default().namespaces(false), small] {
            for a in tags {
                for b in tags {
                    for c in tags {
                        let doc = format!("<r xmlns:p='urn:p'>{a}{b}\n{c}{b}</r>");
                        assert_eq!(outcome(&opts, doc.as_bytes(), false), outcome(&opts, doc.as_bytes(), true), "{doc}");
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 5000, ..ProptestConfig::default() })]
        #[test]
        fn lean_path_agrees_with_the_general_path(body in proptest::collection::vec(element(3), 0..4), variant in 0u8..7) {
            // variants 4 to 6: attribute-list defaults (attributes, declarations that
            // bind or rebind prefixes, a prefixed default) for some of the names, with
            // attribute_defaults on and off, and with namespaces off
            let dtd = if variant >= 4 { DEFAULTS_DTD } else { "" };
            let doc = format!("{dtd}<r xmlns:p='urn:p'>{}</r>", body.concat());
            let mut opts = ParseOptions::default();
            match variant {
                5 => opts.attribute_defaults = false,
                6 => opts.namespaces = false,
                1 => opts.namespaces = false,
                2 => {
                    opts.limits.max_depth = 4;
                    opts.limits.max_attributes = 2;
                    opts.limits.max_name_len = 7; // the root's `xmlns:p` fits
                }
                _ => {}
            }
            prop_assert_eq!(outcome(&opts, doc.as_bytes(), false), outcome(&opts, doc.as_bytes(), true));
        }
    }
}
