//! Attribute uses: declared, wildcard and `xsi:` attributes and their values.

use super::*;

impl<'s, 'd> Validator<'s, 'd> {
    pub(super) fn xsi_attr(&self, ns: NsIdx, id: NameId) -> bool {
        ns == self.c.xsi_ns
            && (id == self.c.xsi_type || id == self.c.xsi_nil || id == self.c.xsi_schema_location || id == self.c.xsi_no_ns_schema_location)
    }

    pub(super) fn attributes_simple(&mut self, r: u32) {
        let tape = self.tape;
        for a in tape.attributes(RecordId::new(r)) {
            if !matches!(tape.kind(a), RecordKind::Attribute | RecordKind::AttributeDefault) {
                continue;
            }
            let (ns, id) = self.sym_name(tape.symbol(a));
            if !self.xsi_attr(ns, id) {
                let (n, an) = (self.node(r), self.attr_node(r, a));
                self.error(
                    an,
                    K::Attribute,
                    format!("attribute {} is not allowed: element <{}> has a simple type (cvc-type.3.1.1)", an.name(), n.name()),
                );
            }
        }
    }

    pub(super) fn attributes(&mut self, r: u32, tag: Tag, cd: &'s ComplexDef) {
        if !tag.attrs && !cd.attrs.iter().any(|u| u.required) {
            return;
        }
        let mut seen = [0u64; 2];
        let mut seen_big: Vec<bool> = Vec::new();
        if cd.attrs.len() > 128 {
            seen_big = vec![false; cd.attrs.len()];
        }
        let tape = self.tape;
        let c = self.c;
        for a in tape.attributes(RecordId::new(r)) {
            if !matches!(tape.kind(a), RecordKind::Attribute | RecordKind::AttributeDefault) {
                continue;
            }
            let (ns, id) = self.sym_name(tape.symbol(a));
            if self.xsi_attr(ns, id) {
                continue;
            }
            let found = if id == NAME_UNKNOWN { None } else { cd.attrs.iter().position(|u| c.attributes[u.decl as usize].name == id) };
            match found {
                Some(i) => {
                    if seen_big.is_empty() {
                        seen[i / 64] |= 1 << (i % 64);
                    } else {
                        seen_big[i] = true;
                    }
                    let u = &cd.attrs[i];
                    let decl = &c.attributes[u.decl as usize];
                    let vc = u.vc.as_ref().or(decl.vc.as_ref());
                    self.attribute_value(r, a, decl.type_, vc);
                }
                None => match &cd.attr_wildcard {
                    Some(w) if w.ns.allows(ns) => match w.process {
                        Process::Skip => {}
                        p => match c.global_attributes.get(&id) {
                            Some(&g) => {
                                let decl = &c.attributes[g as usize];
                                self.attribute_value(r, a, decl.type_, decl.vc.as_ref());
                            }
                            None if p == Process::Strict => {
                                let an = self.attr_node(r, a);
                                self.error(
                                    an,
                                    K::Attribute,
                                    format!("attribute {} has no global declaration (strict wildcard, cvc-wildcard)", an.name()),
                                );
                            }
                            None => {}
                        },
                    },
                    _ => {
                        let (n, an) = (self.node(r), self.attr_node(r, a));
                        self.error(
                            an,
                            K::Attribute,
                            format!("attribute {} is not allowed on element <{}> (cvc-complex-type.3.2)", an.name(), n.name()),
                        );
                    }
                },
            }
        }
        for (i, u) in cd.attrs.iter().enumerate() {
            let s = if seen_big.is_empty() { seen[i / 64] & (1 << (i % 64)) != 0 } else { seen_big[i] };
            if u.required && !s {
                let nm = self.c.attributes[u.decl as usize].name;
                let shown = self.c.names.local(nm).to_string();
                let n = self.node(r);
                self.error(n, K::Attribute, format!("element <{}> is missing required attribute {shown} (cvc-complex-type.4)", n.name()));
            }
        }
    }

    /// The value of attribute record `a` of element record `r`: the short path on the
    /// bytes as written when nothing but the check is wanted, else the general one.
    pub(super) fn attribute_value(&mut self, r: u32, a: RecordId, t: TypeId, vc: Option<&ValueConstraint>) {
        let Some(sd) = self.c.types[t as usize].simple() else { return };
        if !self.keep_typed && vc.is_none() && sd.id_kind == IdKind::None && self.plain_attrs && self.tape.kind(a) == RecordKind::Attribute
        {
            let (vs, ve) = self.attr_value_range(a);
            let raw = &self.text[vs..ve];
            if !raw.iter().any(|&b| matches!(b, b'&' | b'\t' | b'\n' | b'\r')) && sd.st.fast().accepts(raw) {
                return;
            }
        }
        let (n, an) = (self.node(r), self.attr_node(r, a));
        self.attribute_value_node(n, an, t, vc);
    }

    pub(super) fn attribute_value_node(&mut self, n: Node<'d>, a: Node<'d>, t: TypeId, vc: Option<&ValueConstraint>) {
        let Some(sd) = self.c.types[t as usize].simple() else { return };
        let v = a.value();
        if !self.keep_typed && !vc.is_some_and(|f| f.fixed) {
            // the check alone: no value to keep or compare
            let res = check_at(sd, &v, n);
            match res {
                Ok(()) => self.id_check(a, n, sd, &v),
                Err(m) => self.error(a, K::Value, format!("attribute {}: {m}", a.name())),
            }
            return;
        }
        let res = validate_at(sd, &v, n);
        match res {
            Ok(val) => {
                if let Some(f) = vc.filter(|f| f.fixed) {
                    if f.value.as_ref().is_some_and(|fv| *fv != val) {
                        self.error(
                            a,
                            K::Attribute,
                            format!("attribute {} must have the fixed value {:?}; found {:?} (cvc-au)", a.name(), f.lexical, v),
                        );
                    }
                }
                self.id_check(a, n, sd, &v);
                if let (true, Some(rec)) = (self.keep_typed, a.record()) {
                    self.typed.insert(rec, val);
                }
            }
            Err(m) => self.error(a, K::Value, format!("attribute {}: {m}", a.name())),
        }
    }
}
