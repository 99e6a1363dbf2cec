//! Identity constraints: key, unique and keyref tables bubbling up the walk.

use super::*;

impl<'s, 'd> Validator<'s, 'd> {
    pub(super) fn identity(&mut self, n: Node<'d>, ics: &[IcId], mut below: Vec<(IcId, Table)>) -> Vec<(IcId, Table)> {
        // Keys and uniques first, then keyrefs against them (this element's and those below).
        let mut order: Vec<IcId> = ics.iter().copied().filter(|i| !matches!(self.c.ics[*i as usize].kind, IcKind::KeyRef(_))).collect();
        order.extend(ics.iter().copied().filter(|i| matches!(self.c.ics[*i as usize].kind, IcKind::KeyRef(_))));
        for ic in order {
            let def = &self.c.ics[ic as usize];
            let targets = self.select(n, &def.selector);
            let mut table: Table = HashMap::new();
            let mut refs: Vec<(Vec<Value>, Node<'d>)> = Vec::new();
            let icname = self.c.names.local(def.name).to_string();
            for t in targets {
                let mut row = Vec::with_capacity(def.fields.len());
                let mut complete = true;
                for f in &def.fields {
                    let nodes = self.select_field(t, f);
                    match nodes.as_slice() {
                        [] => {
                            complete = false;
                        }
                        [x] => match x.record().and_then(|r| self.typed.get(&r)) {
                            Some(v) => row.push(v.clone()),
                            None => {
                                if x.is_element() && self.element_is_complex_nonsimple(*x) {
                                    self.error(*x, K::Identity, format!("a field of {icname:?} selects element <{}> which has no simple value (cvc-identity-constraint.3)", x.name()));
                                }
                                complete = false;
                            }
                        },
                        _ => {
                            self.error(
                                t,
                                K::Identity,
                                format!("a field of {icname:?} selects more than one node (cvc-identity-constraint.3)"),
                            );
                            complete = false;
                        }
                    }
                }
                if !complete {
                    if def.kind == IcKind::Key {
                        self.error(
                            t,
                            K::Identity,
                            format!("key {icname:?}: element <{}> lacks a value for every field (cvc-identity-constraint.4.2.1)", t.name()),
                        );
                    }
                    continue;
                }
                match def.kind {
                    IcKind::KeyRef(_) => refs.push((row, t)),
                    _ => {
                        if table.len() >= self.opts.max_identity_rows {
                            self.error(
                                t,
                                K::Limit,
                                format!(
                                    "limit exceeded: identity constraint {icname:?} has more than {} rows",
                                    self.opts.max_identity_rows
                                ),
                            );
                            break;
                        }
                        let rec = t.record().unwrap_or(0);
                        if table.insert(row.clone(), rec).is_some() {
                            let shown = row.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ");
                            let what = if def.kind == IcKind::Key { "key" } else { "unique" };
                            self.error(
                                t,
                                K::Identity,
                                format!("duplicate {what} value ({shown}) for {icname:?} (cvc-identity-constraint.4.1)"),
                            );
                        }
                    }
                }
            }
            match def.kind {
                IcKind::KeyRef(target) => {
                    let empty: Table = HashMap::new();
                    let avail: Vec<&Table> = below.iter().filter(|(i, _)| *i == target).map(|(_, t)| t).collect();
                    for (row, t) in refs {
                        let found = avail.iter().any(|tb| tb.contains_key(&row)) || (avail.is_empty() && empty.contains_key(&row));
                        if !found {
                            let shown = row.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ");
                            self.error(
                                t,
                                K::Identity,
                                format!("keyref {icname:?}: no key matches ({shown}) (cvc-identity-constraint.4.3)"),
                            );
                        }
                    }
                }
                _ => {
                    if self.s.referenced.contains(&ic) {
                        below.push((ic, table));
                    }
                }
            }
        }
        below
    }

    pub(super) fn element_is_complex_nonsimple(&mut self, _x: Node<'d>) -> bool {
        true
    }

    pub(super) fn test(&mut self, n: Node<'d>, t: &NameTest) -> bool {
        let (ns, id) = self.name_of(n);
        match t {
            NameTest::Any => true,
            NameTest::Ns(x) => ns == *x,
            NameTest::Name(x) => id == *x,
        }
    }

    pub(super) fn select(&mut self, n: Node<'d>, paths: &[IcPath]) -> Vec<Node<'d>> {
        let mut out: Vec<Node<'d>> = Vec::new();
        for p in paths {
            let mut cur: Vec<Node<'d>> = if p.descendant { std::iter::once(n).chain(n.descendant_elements()).collect() } else { vec![n] };
            for s in &p.steps {
                match s {
                    None => {}
                    Some(t) => {
                        let mut next = Vec::new();
                        for c in &cur {
                            for ch in c.element_children() {
                                if self.test(ch, t) {
                                    next.push(ch);
                                }
                            }
                        }
                        cur = next;
                    }
                }
            }
            out.extend(cur);
        }
        if paths.len() > 1 || paths.iter().any(|p| p.descendant) {
            out.sort_by_key(|x| x.record());
            out.dedup();
        }
        out
    }

    pub(super) fn select_field(&mut self, n: Node<'d>, paths: &[IcPath]) -> Vec<Node<'d>> {
        let mut out = Vec::new();
        for p in paths {
            let plain = IcPath { descendant: p.descendant, steps: p.steps.clone(), attribute: None };
            let els = self.select(n, std::slice::from_ref(&plain));
            match &p.attribute {
                None => out.extend(els),
                Some(t) => {
                    for e in els {
                        for a in e.attributes() {
                            if self.test(a, t) {
                                out.push(a);
                            }
                        }
                    }
                }
            }
        }
        out.sort_by_key(|x| x.record());
        out.dedup();
        out
    }
}
