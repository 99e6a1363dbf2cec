//! Reading the tape and the bytes: element and attribute records, start-tag ends,
//! content ranges, the leaf path and simple content.

use super::*;

impl<'s, 'd> Validator<'s, 'd> {
    /// The node of element record `r` (for messages, and the general paths).
    #[inline]
    pub(super) fn node(&self, r: u32) -> Node<'d> {
        self.doc.node_at_record(r).expect("an element record")
    }

    /// The node of attribute record `a` of element record `e`.
    pub(super) fn attr_node(&self, e: u32, a: RecordId) -> Node<'d> {
        self.node(e).attributes().find(|x| x.record() == Some(a.word())).expect("an attribute record of the element")
    }

    /// One pass over the attribute records of element `r`.
    #[inline]
    pub(super) fn tag(&mut self, r: u32) -> Tag {
        let tape = self.tape;
        let e = RecordId::new(r);
        let end = tape.next(e);
        let mut a = tape.attributes_start(e);
        let mut tag = Tag { after_attrs: a, attrs: false, xsi: false, last_written: None };
        while a < end {
            match tape.kind(a) {
                RecordKind::Attribute => {
                    tag.attrs = true;
                    tag.last_written = Some(a);
                    tag.xsi |= self.sym_name(tape.symbol(a)).0 == self.c.xsi_ns;
                }
                RecordKind::AttributeDefault => {
                    tag.attrs = true;
                    tag.xsi |= self.sym_name(tape.symbol(a)).0 == self.c.xsi_ns;
                }
                RecordKind::NsDecl => tag.last_written = Some(a),
                RecordKind::NsDeclDefault => {}
                _ => break,
            }
            a = tape.next_attribute(a);
        }
        tag.after_attrs = a;
        tag
    }

    /// The length of a symbol's qualified name (cached once [`Validator::sym_name`] has
    /// seen it).
    #[inline]
    pub(super) fn qlen(&self, sym: Sym) -> usize {
        match self.qlens.get(sym.index()) {
            Some(&n) if n != 0 => n as usize,
            _ => self.doc.names().qname_len(sym),
        }
    }

    /// The raw value range (between the quotes) of a written attribute record.
    #[inline]
    pub(super) fn attr_value_range(&self, a: RecordId) -> (usize, usize) {
        let (r, vs, ve) = self.last_value.get();
        if r == a.word() {
            return (vs, ve);
        }
        let (vs, ve) = self.find_value_range(a);
        self.last_value.set((a.word(), vs, ve));
        (vs, ve)
    }

    #[inline]
    pub(super) fn find_value_range(&self, a: RecordId) -> (usize, usize) {
        let t = self.text;
        let mut p = self.tape.start(a) + self.qlen(self.tape.symbol(a));
        // the usual `name="value"`
        if let (Some(b'='), Some(&q @ (b'"' | b'\''))) = (t.get(p), t.get(p + 1)) {
            let vs = p + 2;
            let ve = t[vs..].iter().position(|&b| b == q).map_or(t.len(), |i| vs + i);
            return (vs, ve);
        }
        while t.get(p).is_some_and(|&b| is_ws(b)) {
            p += 1;
        }
        // at `=`
        p += 1;
        while t.get(p).is_some_and(|&b| is_ws(b)) {
            p += 1;
        }
        let Some(&q) = t.get(p) else { return (t.len(), t.len()) };
        let vs = p + 1;
        let ve = t[vs..].iter().position(|&b| b == q).map_or(t.len(), |i| vs + i);
        (vs, ve)
    }

    /// The byte offset just past the start tag of element `r`.
    #[inline]
    pub(super) fn start_tag_end(&self, r: u32, tag: Tag) -> usize {
        let (m, end) = self.last_stag.get();
        if m == r {
            return end;
        }
        let end = self.find_start_tag_end(r, tag);
        self.last_stag.set((r, end));
        end
    }

    #[inline]
    pub(super) fn find_start_tag_end(&self, r: u32, tag: Tag) -> usize {
        let t = self.text;
        let tape = self.tape;
        let e = RecordId::new(r);
        let mut p = match tag.last_written {
            Some(a) => self.attr_value_range(a).1 + 1,
            None => tape.start(e) + 1 + self.qlen(tape.symbol(e)),
        };
        while t.get(p).is_some_and(|&b| is_ws(b)) {
            p += 1;
        }
        if t.get(p) == Some(&b'/') {
            p + 2
        } else {
            p + 1
        }
    }

    /// The content of element `r` as a byte range: from the end of its start tag to the
    /// `<` of its end tag (empty for `<a/>`).
    pub(super) fn content_bounds(&self, r: u32, tag: Tag) -> (usize, usize) {
        let t = self.text;
        let e = RecordId::new(r);
        let end = self.tape.element_end(e);
        let cs = self.start_tag_end(r, tag);
        if cs >= end {
            return (end, end);
        }
        // `</qname S? >`: back over the `>`, any white space and the name
        let mut p = end - 1;
        while p > cs && is_ws(t[p - 1]) {
            p -= 1;
        }
        let s = p.saturating_sub(self.qlen(self.tape.symbol(e)) + 2);
        if s >= cs && t.get(s..s + 2) == Some(b"</") {
            return (cs, s);
        }
        match self.node(r).content_range() {
            Some(c) => (c.start, c.end),
            None => (cs, cs),
        }
    }

    /// The text of an element without child records when its bytes are its value as
    /// written: no reference, no CR.
    #[inline]
    pub(super) fn plain_leaf_text(&self, r: u32, tag: Tag) -> Option<&'d [u8]> {
        let (cs, ce) = self.content_bounds(r, tag);
        let b = &self.text[cs..ce];
        (!b.iter().any(|&c| c == b'&' || c == b'\r')).then_some(b)
    }

    pub(super) fn nil_content(&mut self, n: Node<'d>) {
        for ch in n.children() {
            if matches!(ch.kind(), NodeKind::Element | NodeKind::Text | NodeKind::CData) {
                self.error(ch, K::Content, format!("element <{}> is nil (xsi:nil=\"true\") and must be empty (cvc-elt.3.2.1)", n.name()));
                break;
            }
        }
    }

    /// The element's character data when it has no element children: borrowed when the
    /// bytes are the text.
    pub(super) fn text_content(&mut self, n: Node<'d>) -> Option<Cow<'d, str>> {
        if let Some(b) = n.plain_content() {
            return Some(Cow::Borrowed(std::str::from_utf8(b).unwrap_or("")));
        }
        let mut s: Option<Cow<'d, str>> = None;
        let mut bad = None;
        for ch in n.children() {
            match ch.kind() {
                NodeKind::Text | NodeKind::CData => {
                    let v = ch.value();
                    match &mut s {
                        None => s = Some(v),
                        Some(o) => o.to_mut().push_str(&v),
                    }
                }
                NodeKind::Element if bad.is_none() => bad = Some(ch),
                _ => {}
            }
        }
        if let Some(ch) = bad {
            self.error(
                ch,
                K::Content,
                format!("element <{}> has simple content; found child element <{}> (cvc-complex-type.2.2)", n.name(), ch.name()),
            );
            return None;
        }
        Some(s.unwrap_or(Cow::Borrowed("")))
    }

    /// Simple content of element record `r`: the short path on the bytes as written when
    /// nothing but the check is wanted, else (or when the short path does not know) the
    /// general one.
    pub(super) fn simple_content(&mut self, r: u32, tag: Tag, st: TypeId, vc: Option<&ValueConstraint>) {
        if !self.keep_typed && vc.is_none() && tag.after_attrs >= self.tape.next(RecordId::new(r)) {
            if let Some(sd) = self.c.types[st as usize].simple() {
                if sd.id_kind == IdKind::None {
                    let fast = sd.st.fast();
                    // any character data is a value of the type: references and line
                    // ends need no decoding to say so
                    if fast.accepts_anything() {
                        return;
                    }
                    let raw = if fast.raw_safe() {
                        let (cs, ce) = self.content_bounds(r, tag);
                        Some(&self.text[cs..ce])
                    } else {
                        self.plain_leaf_text(r, tag)
                    };
                    if let Some(raw) = raw {
                        if fast.accepts(raw) {
                            return;
                        }
                    }
                }
            }
        }
        self.simple_content_node(self.node(r), st, vc);
    }

    /// The value constraint an empty element takes must be valid for the actual type too
    /// (cvc-elt.5.1.1: an xsi:type may restrict the declared type further); reports it if not.
    #[cold]
    #[inline(never)]
    pub(super) fn value_constraint_fits(&mut self, n: Node<'d>, st: TypeId, v: &ValueConstraint) -> bool {
        let Some(sd) = self.c.types[st as usize].simple() else { return true };
        let res = check_at(sd, &v.lexical, n);
        if let Err(m) = res {
            let what = if v.fixed { "fixed" } else { "default" };
            self.error(
                n,
                K::Value,
                format!(
                    "element <{}>: its {what} value {:?} is not valid for type {}: {m} (cvc-elt.5.1.1)",
                    n.name(),
                    v.lexical,
                    self.tname(st)
                ),
            );
            return false;
        }
        true
    }

    pub(super) fn simple_content_node(&mut self, n: Node<'d>, st: TypeId, vc: Option<&ValueConstraint>) {
        let Some(text) = self.text_content(n) else { return };
        let Some(sd) = self.c.types[st as usize].simple() else { return };
        // An empty element takes its default (or fixed) value (cvc-elt.5.1.2).
        let empty = text.is_empty() && !n.children().any(|c| matches!(c.kind(), NodeKind::Text | NodeKind::CData));
        if empty {
            if let Some(v) = vc {
                if !self.value_constraint_fits(n, st, v) {
                    return;
                }
                if let (Some(val), Some(rec)) = (&v.value, n.record()) {
                    if self.keep_typed {
                        self.typed.insert(rec, val.clone());
                    }
                }
                return;
            }
        }
        if !self.keep_typed && !vc.is_some_and(|v| v.fixed) {
            // no typed value kept and no fixed value to compare: the check alone, which
            // builds no value
            let res = check_at(sd, &text, n);
            match res {
                Ok(()) => self.id_check(n, n, sd, &text),
                Err(m) => {
                    let off = n.content_range().map_or(n.range().start, |r| r.start);
                    self.error_at(n, off, K::Value, format!("element <{}>: {m}", n.name()));
                }
            }
            return;
        }
        let res = validate_at(sd, &text, n);
        match res {
            Ok(v) => {
                if let Some(vcx) = vc.filter(|v| v.fixed) {
                    if vcx.value.as_ref().is_some_and(|f| *f != v) {
                        self.error(
                            n,
                            K::Value,
                            format!(
                                "element <{}> must have the fixed value {:?}; found {:?} (cvc-elt.5.2.2.2.2)",
                                n.name(),
                                vcx.lexical,
                                text.trim()
                            ),
                        );
                    }
                }
                self.id_check(n, n, sd, &text);
                if let (true, Some(rec)) = (self.keep_typed, n.record()) {
                    self.typed.insert(rec, v);
                }
            }
            Err(m) => {
                let off = n.content_range().map_or(n.range().start, |r| r.start);
                self.error_at(n, off, K::Value, format!("element <{}>: {m}", n.name()));
            }
        }
    }

    pub(super) fn mixed_value(&mut self, n: Node<'d>, v: &ValueConstraint) {
        let has_elem = n.element_children().next().is_some();
        if has_elem {
            if v.fixed {
                self.error(n, K::Value, format!("element <{}> has a fixed value and may not contain elements (cvc-elt.5.2.2.1)", n.name()));
            }
            return;
        }
        if v.fixed {
            let t = n.value();
            if !t.is_empty() && t != v.lexical {
                self.error(
                    n,
                    K::Value,
                    format!("element <{}> must have the fixed value {:?}; found {:?} (cvc-elt.5.2.2.2.1)", n.name(), v.lexical, t),
                );
            }
        }
    }

    /// Records an ID or IDREF value of node `n` (an element or an attribute) for
    /// cvc-id; `ctx` is the element whose namespace context the value is read in.
    pub(super) fn id_check(&mut self, n: Node<'d>, ctx: Node<'d>, sd: &SimpleDef, text: &str) {
        self.id_check_depth(n, ctx, sd, text, 0);
    }

    fn id_check_depth(&mut self, n: Node<'d>, ctx: Node<'d>, sd: &SimpleDef, text: &str, depth: u32) {
        match sd.id_kind {
            IdKind::None => {}
            IdKind::Id => {
                let v = text.trim().to_string();
                let rec = n.record().unwrap_or(0);
                if self.ids.insert(v.clone(), rec).is_some() {
                    self.error(n, K::Identity, format!("ID {v:?} is not unique in the document (cvc-id.2)"));
                }
            }
            IdKind::IdRef => self.idrefs.push((text.trim().to_string(), n)),
            IdKind::IdRefs => {
                for t in text.split_ascii_whitespace() {
                    self.idrefs.push((t.to_string(), n));
                }
            }
            IdKind::Union => {
                // the first member type the value is valid for is its actual type
                let c = self.c;
                let member = sd.members.iter().filter_map(|&m| c.types[m as usize].simple()).find(|m| check_at(m, text, ctx).is_ok());
                if let Some(m) = member.filter(|_| depth < 32) {
                    self.id_check_depth(n, ctx, m, text, depth + 1);
                }
            }
        }
    }
}
