//! Content models: the walk over an element's children, stepping its automaton
//! (DFA, counters or `all`), wildcards and lax assessment.

use super::*;

impl<'s, 'd> Validator<'s, 'd> {
    pub(super) fn expected(
        &self,
        aut: &Automaton,
        state: u32,
        all_seen: Option<&[bool]>,
        cstate: Option<&CountedState>,
        parent: &str,
    ) -> String {
        let mut v: Vec<String> = Vec::new();
        let wild_text = |w: &crate::model::Wildcard| match &w.ns {
            NsCons::Any => "any element".to_string(),
            NsCons::Not(x) => match self.c.names.ns_uri(*x) {
                Some(u) => format!("any element not in {u}"),
                None => "any namespace-qualified element".to_string(),
            },
            NsCons::Set(s) => format!(
                "any element in {}",
                s.iter().map(|x| self.c.names.ns_uri(*x).unwrap_or("no namespace").to_string()).collect::<Vec<_>>().join(" or ")
            ),
        };
        match aut {
            Automaton::Dfa { states, wildcards } => {
                let s = &states[state as usize];
                for (n, _, _) in &s.names {
                    v.push(format!("<{}>", self.c.names.display(*n)));
                }
                for (w, _) in &s.wild {
                    v.push(wild_text(&wildcards[*w as usize]));
                }
            }
            Automaton::All(m) => {
                for (n, _, slot) in &m.entries {
                    if !all_seen.is_some_and(|s| s[*slot as usize]) {
                        v.push(format!("<{}>", self.c.names.display(*n)));
                    }
                }
            }
            Automaton::Counted(m) => {
                let (names, wild) = cstate.map(|st| m.expected(st)).unwrap_or_default();
                for n in names {
                    v.push(format!("<{}>", self.c.names.display(n)));
                }
                for w in wild {
                    v.push(wild_text(&m.wildcards[w as usize]));
                }
            }
        }
        v.sort();
        v.dedup();
        let can_end = match aut {
            Automaton::Dfa { states, .. } => states[state as usize].final_,
            Automaton::All(_) => false,
            Automaton::Counted(m) => cstate.is_some_and(|st| m.is_final(st)),
        };
        let list = match v.len() {
            0 => return format!("the end of <{parent}>"),
            1 => v.remove(0),
            _ => format!("one of {}", v.join(", ")),
        };
        if can_end {
            format!("{list} or the end of <{parent}>")
        } else {
            list
        }
    }

    /// Element-only or mixed content of element record `r`: its child records drive the
    /// automaton by symbol; the text between them (element-only content) must be white
    /// space, checked on the bytes.
    pub(super) fn element_content(&mut self, r: u32, tag: Tag, automaton: u32, mixed: bool) -> Vec<(IcId, Table)> {
        let aut: &'s Automaton = &self.s.automata[automaton as usize];
        let mut state = 0u32;
        // a content model run with counters keeps its state on `self.counted`
        let slot = match aut {
            Automaton::Counted(_) => self.counted_push(),
            _ => usize::MAX,
        };
        let mut gave_up = false;
        let mut all_seen: Vec<bool> = match aut {
            Automaton::All(m) => vec![false; m.required.len()],
            _ => Vec::new(),
        };
        let mut tables: Vec<(IcId, Table)> = Vec::new();
        let mut text_reported = mixed;
        let tape = self.tape;
        let words = tape.words();
        let (mut ch, end) = (tag.after_attrs, tape.next(RecordId::new(r)));
        // where the text before the next child record starts
        let mut gap = if mixed { 0 } else { self.start_tag_end(r, tag) };
        loop {
            if self.stopped() {
                break;
            }
            if !text_reported {
                let gap_end = if ch < end { tape.start(ch) } else { self.content_bounds(r, tag).1 };
                if gap_end > gap && !is_xml_ws(&self.text[gap..gap_end]) {
                    self.text_in_element_only(r, gap, &mut text_reported);
                    if self.stopped() {
                        break;
                    }
                }
            }
            if ch >= end {
                break;
            }
            // an element's record read once (kind, name, start, next, end)
            let at = ch.as_usize();
            let elem: Option<[u32; ELEM_WORDS as usize]> = match words.get(at..at + ELEM_WORDS as usize) {
                Some(w) if w[0] >> KIND_SHIFT == RecordKind::Element as u32 => w.try_into().ok(),
                _ => None,
            };
            match elem.map_or_else(|| tape.kind(ch), |_| RecordKind::Element) {
                RecordKind::Element => {
                    let rec = elem.unwrap_or_default();
                    let (ns, id) = self.sym_name(Sym::new(rec[0] & PAYLOAD_MASK));
                    let step = match aut {
                        Automaton::Dfa { .. } => aut.step(state, id, ns),
                        Automaton::Counted(m) => match self.counted_step(m, slot, ch, id, ns) {
                            Some(x) => x,
                            None => {
                                gave_up = true;
                                break;
                            }
                        },
                        Automaton::All(m) => match m.entries.binary_search_by_key(&id, |x| x.0) {
                            Ok(i) if id != NAME_UNKNOWN => {
                                let slot = m.entries[i].2 as usize;
                                if all_seen[slot] {
                                    None
                                } else {
                                    all_seen[slot] = true;
                                    Some((0, Matched::Element(m.entries[i].1)))
                                }
                            }
                            _ => None,
                        },
                    };
                    let sub = match step {
                        Some((next, m)) => {
                            state = next;
                            match m {
                                Matched::Element(e) if self.leaf(ch, &rec, e) => None,
                                Matched::Element(e) => self.element(ch.word(), e),
                                Matched::Wildcard(w) => self.wildcard_element(self.node(ch.word()), w.process),
                            }
                        }
                        None => {
                            let (n, c) = (self.node(r), self.node(ch.word()));
                            let exp = self.expected(aut, state, Some(&all_seen), self.counted.get(slot), n.name());
                            // names in a namespace as {uri}local on both sides, so that a wrong
                            // or missing namespace shows
                            let found = match c.namespace_uri() {
                                Some(u) if !u.is_empty() => format!("{{{u}}}{}", c.local_name()),
                                _ => c.local_name().to_string(),
                            };
                            self.error(c, K::Content, format!("unexpected element <{found}>: expected {exp} (cvc-complex-type.2.4)"));
                            // Go on with the element's own declaration, if it has one.
                            match self.c.global_elements.get(&id) {
                                Some(&e) => self.element(ch.word(), e),
                                None => self.lax(c),
                            }
                        }
                    };
                    if let Some(t) = sub {
                        merge_tables(&mut tables, t);
                    }
                    gap = rec[ELEM_END as usize] as usize;
                    ch = RecordId::new(rec[NEXT as usize]);
                    continue;
                }
                RecordKind::Cdata if !text_reported => {
                    let c = self.node(ch.word());
                    if !is_xml_ws(c.value().as_bytes()) {
                        text_reported = true;
                        let n = self.node(r);
                        self.error(
                            c,
                            K::Content,
                            format!("element <{}> has element-only content; found character data (cvc-complex-type.2.3)", n.name()),
                        );
                    }
                }
                _ => {}
            }
            gap = tape.end_offset(ch);
            ch = tape.subtree_end(ch);
        }
        let complete = match aut {
            Automaton::Dfa { states, .. } => states[state as usize].final_,
            Automaton::Counted(m) => m.is_final(&self.counted[slot]),
            Automaton::All(m) => {
                let none = !all_seen.iter().any(|x| *x);
                (none && m.emptiable) || m.required.iter().zip(&all_seen).all(|(r, s)| !*r || *s)
            }
        };
        if !complete && !gave_up && !self.stopped() {
            let n = self.node(r);
            let exp = self.expected(aut, state, Some(&all_seen), self.counted.get(slot), n.name());
            let off = n.content_range().map_or(n.range().start, |r| r.end);
            self.error_at(
                n,
                off,
                K::Missing,
                format!("element <{}> is incomplete: expected {exp} before its end (cvc-complex-type.2.4)", n.name()),
            );
        }
        if slot != usize::MAX {
            self.counted.truncate(slot);
        }
        tables
    }

    #[cold]
    #[inline(never)]
    pub(super) fn counted_push(&mut self) -> usize {
        self.counted.push(CountedState::default());
        self.counted.len() - 1
    }

    /// Steps the counted model whose state is `self.counted[slot]` by child record `ch`;
    /// `None` when the configurations exceed the limit (reported here).
    #[cold]
    #[inline(never)]
    pub(super) fn counted_step(
        &mut self,
        m: &'s CountedModel,
        slot: usize,
        ch: RecordId,
        id: NameId,
        ns: NsIdx,
    ) -> Option<Option<(u32, Matched<'s>)>> {
        match m.step(&mut self.counted[slot], id, ns) {
            Ok(x) => Some(x.map(|x| (0, x))),
            Err(TooMany(k, max)) => {
                let c = self.node(ch.word());
                self.error(
                    c,
                    K::Limit,
                    format!(
                        "limit exceeded: element <{}> leaves {k} ways to count the occurrences in its parent's content model (more than {max}); the rest of the content is not checked",
                        c.name()
                    ),
                );
                None
            }
        }
    }

    /// Text that is not all white space in the bytes between two child records of
    /// element-only element `r`, starting at `at`: the text node decides (a character
    /// reference may stand for white space), as it always has.
    #[cold]
    pub(super) fn text_in_element_only(&mut self, r: u32, at: usize, text_reported: &mut bool) {
        let n = self.node(r);
        let Some(t) = n.children().find(|c| c.kind() == NodeKind::Text && c.range().start == at) else { return };
        let raw = t.raw();
        let ws = if !raw.contains(&b'&') { is_xml_ws(raw) } else { is_xml_ws(t.value().as_bytes()) };
        if !ws {
            *text_reported = true;
            self.error(
                t,
                K::Content,
                format!("element <{}> has element-only content; found character data (cvc-complex-type.2.3)", n.name()),
            );
        }
    }

    pub(super) fn wildcard_element(&mut self, ch: Node<'d>, p: Process) -> Option<Vec<(IcId, Table)>> {
        match p {
            Process::Skip => None,
            _ => {
                let (_, id) = self.name_of(ch);
                let r = ch.record().unwrap_or(0);
                if let Some(&e) = self.c.global_elements.get(&id) {
                    return self.element(r, e);
                }
                if let Some(t) = self.xsi_type_of(ch) {
                    if let Some(t) = t {
                        let tag = self.tag(r);
                        let tb = self.typed_element(r, tag, t, None, false);
                        return (!tb.is_empty()).then_some(tb);
                    }
                    return None;
                }
                if p == Process::Strict {
                    self.error(
                        ch,
                        K::Content,
                        format!("element <{}> has no global declaration (strict wildcard, cvc-complex-type.2.4)", ch.name()),
                    );
                    None
                } else {
                    self.lax(ch)
                }
            }
        }
    }

    /// Lax assessment of an undeclared element: its children are validated where they
    /// have declarations.
    pub(super) fn lax(&mut self, n: Node<'d>) -> Option<Vec<(IcId, Table)>> {
        self.depth += 1;
        if self.depth > self.opts.max_depth {
            self.depth -= 1;
            return None;
        }
        let mut tables = Vec::new();
        for a in n.attributes() {
            let (ns, id) = self.name_of(a);
            if self.xsi_attr(ns, id) {
                continue;
            }
            if let Some(&g) = self.c.global_attributes.get(&id) {
                let decl = &self.c.attributes[g as usize];
                self.attribute_value_node(n, a, decl.type_, decl.vc.as_ref());
            }
        }
        for ch in n.element_children() {
            let r = self.wildcard_element(ch, Process::Lax);
            if let Some(t) = r {
                merge_tables(&mut tables, t);
            }
        }
        self.depth -= 1;
        (!tables.is_empty()).then_some(tables)
    }
}
