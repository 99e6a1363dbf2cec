//! Declarations and particles: elements, attributes, attribute uses and groups,
//! model groups and wildcards, identity constraints.

use vtdx_core::Node;

use crate::build::{wildcard_intersection, xs_children, Builder};
use crate::datatypes::NsMap;
use crate::error::{Location, SchemaError, SchemaErrorKind};
use crate::load::{Kind, XS, XSI};
use crate::model::*;

fn e(kind: SchemaErrorKind, message: impl Into<String>, location: Location) -> SchemaError {
    SchemaError { kind, message: message.into(), location }
}

fn is_xs(n: &Node<'_>, local: &str) -> bool {
    n.namespace_uri() == Some(XS) && n.local_name() == local
}

type Key = (Kind, NameId, u8);

impl<'a> Builder<'a> {
    pub(crate) fn global_element(&mut self, key: Key) -> Result<ElemId, SchemaError> {
        if let Some(&id) = self.elem_of_key.get(&key) {
            if let Some(i) = self.elem_deferred.iter().position(|x| x.1 == id) {
                self.elem_deferred.swap_remove(i);
                let decl = self.registry[&key];
                let n = self.node(decl.doc, decl.rec);
                self.element_body(decl.doc, n, id, true)?;
            }
            return Ok(id);
        }
        let id = self.reserve_global_element(key);
        let decl = self.registry[&key];
        let n = self.node(decl.doc, decl.rec);
        self.element_body(decl.doc, n, id, true)?;
        Ok(id)
    }

    /// A global element referenced from a content model: its id now, its declaration
    /// built by [`Self::build_deferred_elements`] (or when something needs it first).
    fn referenced_element(&mut self, key: Key) -> ElemId {
        if let Some(&id) = self.elem_of_key.get(&key) {
            return id;
        }
        let id = self.reserve_global_element(key);
        self.elem_deferred.push((key, id));
        id
    }

    /// Builds the declarations of referenced global elements not built yet.
    pub(crate) fn build_deferred_elements(&mut self) -> Result<(), SchemaError> {
        while let Some((key, _)) = self.elem_deferred.last().copied() {
            self.global_element(key)?;
        }
        Ok(())
    }

    fn reserve_global_element(&mut self, key: Key) -> ElemId {
        let decl = self.registry[&key];
        let n = self.node(decl.doc, decl.rec);
        let id = self.c.elements.len() as ElemId;
        let loc = self.loc(decl.doc, n);
        self.c.elements.push(ElementDecl {
            name: key.1,
            type_: ANY_TYPE,
            nillable: false,
            abstract_: false,
            vc: None,
            block: 0,
            final_: 0,
            subst_head: None,
            ics: Vec::new(),
            global: true,
            loc,
        });
        self.elem_of_key.insert(key, id);
        id
    }

    fn element_body(&mut self, d: usize, n: Node<'a>, id: ElemId, global: bool) -> Result<(), SchemaError> {
        self.check_attrs(d, n)?;
        let loc = self.loc(d, n);
        self.enter(&loc)?;
        let nillable = crate::build::bool_attr(self, d, n, "nillable")?;
        let abstract_ = crate::build::bool_attr(self, d, n, "abstract")?;
        let block = self.deriv_set(d, n, "block", deriv::EXTENSION | deriv::RESTRICTION | deriv::SUBSTITUTION)?;
        let final_ = self.deriv_set(d, n, "final", deriv::EXTENSION | deriv::RESTRICTION)?;
        let mut subst_head = None;
        if let Some(sg) = n.attribute("substitutionGroup") {
            if !global {
                return Err(e(SchemaErrorKind::Structure, "substitutionGroup is allowed only on global elements", loc));
            }
            let hn = self.qname(d, n, &sg)?;
            let Some(hk) = self.lookup(Kind::Element, hn) else {
                return Err(e(
                    SchemaErrorKind::Unresolved,
                    format!("no element declaration named {:?} (substitutionGroup)", self.c.names.display(hn)),
                    loc,
                ));
            };
            if self.elem_state.get(&id) == Some(&1) {
                return Err(e(SchemaErrorKind::Constraint, "substitution group is circular", loc));
            }
            self.elem_state.insert(id, 1);
            let h = self.global_element(hk)?;
            self.elem_state.insert(id, 2);
            subst_head = Some(h);
        }
        let kids = xs_children(n);
        let mut inline = None;
        let mut ics = Vec::new();
        for (i, k) in kids.iter().enumerate() {
            match k.local_name() {
                "simpleType" | "complexType" if i == 0 && k.namespace_uri() == Some(XS) => inline = Some(*k),
                "unique" | "key" | "keyref" if k.namespace_uri() == Some(XS) => ics.push(*k),
                _ => {
                    return Err(e(
                        SchemaErrorKind::Structure,
                        format!("<{}> is not allowed here in <xs:element>", k.name()),
                        self.loc(d, *k),
                    ))
                }
            }
        }
        let type_ = match (n.attribute("type"), inline) {
            (Some(_), Some(_)) => {
                return Err(e(SchemaErrorKind::Structure, "an element has both a `type` attribute and an inline type (src-element.3)", loc))
            }
            (Some(t), None) => self.element_type_by_name(d, n, &t)?,
            (None, Some(k)) => self.anonymous_type(d, k)?,
            (None, None) => match subst_head {
                Some(h) => self.c.elements[h as usize].type_,
                None => ANY_TYPE,
            },
        };
        if let Some(h) = subst_head {
            let head = &self.c.elements[h as usize];
            let blocked = head.final_;
            if !crate::build::derives(&self.c.types, type_, head.type_, blocked) {
                return Err(e(
                    SchemaErrorKind::Constraint,
                    "the type of a substitution group member must derive from the head's type, by methods the head's `final` allows (e-props-correct.4)",
                    loc,
                ));
            }
        }
        let vc = self.value_constraint(d, n, type_, true)?;
        if vc.is_some() {
            if let Some(sd) = self.c.types[type_ as usize].simple() {
                if sd.id_kind == IdKind::Id {
                    return Err(e(
                        SchemaErrorKind::Constraint,
                        "an element of type ID may not have a default or fixed value (e-props-correct.5)",
                        loc,
                    ));
                }
            }
        }
        let mut ic_ids = Vec::new();
        let tns = self.c.names.ns(self.docs[d].target_ns.as_deref());
        for k in ics {
            let name = k.attribute("name").map(|s| s.trim().to_string()).unwrap_or_default();
            let nid = self.c.names.name(tns, &name);
            ic_ids.push(self.ic((Kind::Identity, nid, 0))?);
        }
        self.depth -= 1;
        let el = &mut self.c.elements[id as usize];
        el.type_ = type_;
        el.nillable = nillable;
        el.abstract_ = abstract_;
        el.block = block;
        el.final_ = final_;
        el.subst_head = subst_head;
        el.vc = vc;
        el.ics = ic_ids;
        Ok(())
    }

    /// `default` / `fixed` of an element or attribute, checked against its type.
    fn value_constraint(&mut self, d: usize, n: Node<'_>, type_: TypeId, element: bool) -> Result<Option<ValueConstraint>, SchemaError> {
        let dflt = n.attribute("default");
        let fixed = n.attribute("fixed");
        let loc = self.loc(d, n);
        let (lexical, is_fixed) = match (dflt, fixed) {
            (Some(_), Some(_)) => return Err(e(SchemaErrorKind::Structure, "`default` and `fixed` are mutually exclusive", loc)),
            (Some(v), None) => (v.into_owned(), false),
            (None, Some(v)) => (v.into_owned(), true),
            (None, None) => return Ok(None),
        };
        let t = &self.c.types[type_ as usize];
        let st =
            match &t.body {
                TypeBody::Simple(_) => type_,
                TypeBody::Complex(c) => match &c.content {
                    Content::Simple(s) => *s,
                    Content::Elements { particle, mixed: true, .. } if element && crate::build::particle_emptiable(particle) => {
                        return Ok(Some(ValueConstraint { fixed: is_fixed, lexical, value: None }))
                    }
                    _ => return Err(e(
                        SchemaErrorKind::Constraint,
                        "a default or fixed value needs a simple type or simple content (or mixed emptiable content) (cos-valid-default)",
                        loc,
                    )),
                },
                TypeBody::Pending => return Ok(Some(ValueConstraint { fixed: is_fixed, lexical, value: None })),
            };
        let Some(sd) = self.c.types[st as usize].simple() else { return Ok(None) };
        if sd.id_kind == IdKind::Id && !element {
            return Err(e(
                SchemaErrorKind::Constraint,
                "an attribute of type ID may not have a default or fixed value (a-props-correct.3)",
                loc,
            ));
        }
        let ns = NsMap(n.namespaces().into_iter().rev().map(|(p, u)| (p.to_string(), u.to_string())).collect());
        match sd.st.validate(&lexical, &ns) {
            Ok(v) => Ok(Some(ValueConstraint { fixed: is_fixed, lexical, value: Some(v) })),
            Err(m) => Err(e(
                SchemaErrorKind::Constraint,
                format!("the {} value is not valid for its type: {m}", if is_fixed { "fixed" } else { "default" }),
                loc,
            )),
        }
    }

    pub(crate) fn global_attribute(&mut self, key: Key) -> Result<AttrId, SchemaError> {
        if let Some(&id) = self.attr_of_key.get(&key) {
            return Ok(id);
        }
        let decl = self.registry[&key];
        let n = self.node(decl.doc, decl.rec);
        if !self.attr_building.insert(key) {
            return Err(e(SchemaErrorKind::Constraint, "attribute declaration is circular", self.loc(decl.doc, n)));
        }
        let id = self.attribute_decl(decl.doc, n, key.1)?;
        self.attr_of_key.insert(key, id);
        Ok(id)
    }

    fn attribute_decl(&mut self, d: usize, n: Node<'a>, name: NameId) -> Result<AttrId, SchemaError> {
        self.check_attrs(d, n)?;
        let loc = self.loc(d, n);
        let local = self.c.names.local(name).to_string();
        if local == "xmlns" {
            return Err(e(SchemaErrorKind::Constraint, "an attribute may not be named xmlns (no-xmlns)", loc));
        }
        if self.c.names.ns_uri(self.c.names.ns_of(name)) == Some(XSI) {
            return Err(e(SchemaErrorKind::Constraint, "attributes in the XML Schema instance namespace cannot be declared (no-xsi)", loc));
        }
        let kids = xs_children(n);
        let mut inline = None;
        for k in &kids {
            if is_xs(k, "simpleType") && inline.is_none() {
                inline = Some(*k);
            } else {
                return Err(e(SchemaErrorKind::Structure, format!("<{}> is not allowed in <xs:attribute>", k.name()), self.loc(d, *k)));
            }
        }
        let type_ = match (n.attribute("type"), inline) {
            (Some(_), Some(_)) => {
                return Err(e(
                    SchemaErrorKind::Structure,
                    "an attribute has both a `type` attribute and an inline simpleType (src-attribute.4)",
                    loc,
                ))
            }
            (Some(t), None) => self.type_by_name(d, n, &t)?,
            (None, Some(k)) => self.anonymous_type(d, k)?,
            (None, None) => ANY_SIMPLE_TYPE,
        };
        if !self.c.types[type_ as usize].is_simple() {
            return Err(e(SchemaErrorKind::Constraint, "the type of an attribute must be a simple type (a-props-correct)", loc));
        }
        let vc = self.value_constraint(d, n, type_, false)?;
        let id = self.c.attributes.len() as AttrId;
        self.c.attributes.push(AttributeDecl { name, type_, vc, loc });
        Ok(id)
    }

    /// The attribute uses and complete wildcard of `nodes` (attribute, attributeGroup,
    /// anyAttribute children). Prohibited uses are left out and remembered in
    /// `self.prohibited`.
    pub(crate) fn attribute_uses(
        &mut self,
        d: usize,
        parent: Node<'a>,
        nodes: &[Node<'a>],
    ) -> Result<(Vec<AttrUse>, Option<Wildcard>), SchemaError> {
        let mut uses: Vec<AttrUse> = Vec::new();
        let mut prohibited = Vec::new();
        let mut local_wc: Option<Wildcard> = None;
        let mut group_wcs: Vec<Wildcard> = Vec::new();
        let tns = self.c.names.ns(self.docs[d].target_ns.as_deref());
        for &a in nodes {
            match a.local_name() {
                "attribute" => {
                    self.check_attrs(d, a)?;
                    let loc = self.loc(d, a);
                    let use_ = a.attribute("use").map(|s| s.trim().to_string());
                    let (required, prohib) = match use_.as_deref() {
                        None | Some("optional") => (false, false),
                        Some("required") => (true, false),
                        Some("prohibited") => (false, true),
                        Some(v) => {
                            return Err(e(
                                SchemaErrorKind::Structure,
                                format!("`use` must be optional, required or prohibited; found {v:?}"),
                                loc,
                            ))
                        }
                    };
                    if a.attribute("default").is_some() && use_.as_deref().is_some_and(|u| u != "optional") {
                        return Err(e(
                            SchemaErrorKind::Structure,
                            "an attribute with a default must have use=\"optional\" (src-attribute.2)",
                            loc,
                        ));
                    }
                    let (decl, use_vc) = if let Some(r) = a.attribute("ref") {
                        for bad in ["name", "type", "form"] {
                            if a.attribute(bad).is_some() {
                                return Err(e(
                                    SchemaErrorKind::Structure,
                                    format!("an attribute reference may not have `{bad}` (src-attribute.3.2)"),
                                    loc,
                                ));
                            }
                        }
                        if !xs_children(a).is_empty() {
                            return Err(e(
                                SchemaErrorKind::Structure,
                                "an attribute reference may not contain a simpleType (src-attribute.3.2)",
                                loc,
                            ));
                        }
                        let nm = self.qname(d, a, &r)?;
                        let id = match self.lookup(Kind::Attribute, nm) {
                            Some(k) => self.global_attribute(k)?,
                            None => match self.c.global_attributes.get(&nm) {
                                Some(&i) => i,
                                None => {
                                    return Err(e(
                                        SchemaErrorKind::Unresolved,
                                        format!("no attribute declaration named {:?}", self.c.names.display(nm)),
                                        loc,
                                    ))
                                }
                            },
                        };
                        let t = self.c.attributes[id as usize].type_;
                        let vc = self.value_constraint_pub(d, a, t)?;
                        if let (Some(gv), Some(uv)) = (&self.c.attributes[id as usize].vc, &vc) {
                            if gv.fixed && (!uv.fixed || uv.value != gv.value) {
                                return Err(e(
                                    SchemaErrorKind::Constraint,
                                    "an attribute use must keep the fixed value of its declaration (au-props-correct.2)",
                                    loc,
                                ));
                            }
                        }
                        (id, vc)
                    } else {
                        let Some(name) = a.attribute("name") else {
                            return Err(e(
                                SchemaErrorKind::Structure,
                                "a local attribute needs a `name` or a `ref` (src-attribute.3.1)",
                                loc,
                            ));
                        };
                        let name = name.trim().to_string();
                        if !vtdx_core::is_name(name.as_bytes()) || name.contains(':') {
                            return Err(e(SchemaErrorKind::Structure, format!("name must be an NCName; found {name:?}"), loc));
                        }
                        let qualified = match a.attribute("form").as_deref().map(str::trim) {
                            None => self.docs[d].attribute_qualified,
                            Some("qualified") => true,
                            Some("unqualified") => false,
                            Some(v) => {
                                return Err(e(
                                    SchemaErrorKind::Structure,
                                    format!("`form` must be qualified or unqualified; found {v:?}"),
                                    loc,
                                ))
                            }
                        };
                        let nid = self.c.names.name(if qualified { tns } else { 0 }, &name);
                        let id = self.attribute_decl(d, a, nid)?;
                        let vc = self.c.attributes[id as usize].vc.clone();
                        (id, vc)
                    };
                    if required && use_vc.as_ref().is_some_and(|v| !v.fixed) {
                        return Err(e(SchemaErrorKind::Structure, "a required attribute may not have a default (src-attribute.2)", loc));
                    }
                    let nm = self.c.attributes[decl as usize].name;
                    if uses.iter().any(|u| self.c.attributes[u.decl as usize].name == nm) {
                        return Err(e(
                            SchemaErrorKind::Constraint,
                            format!("attribute {:?} is declared twice (ct-props-correct.4)", self.c.names.display(nm)),
                            loc,
                        ));
                    }
                    if prohib {
                        prohibited.push(nm);
                    } else {
                        uses.push(AttrUse { decl, required, vc: use_vc });
                    }
                }
                "attributeGroup" => {
                    self.check_attrs(d, a)?;
                    let loc = self.loc(d, a);
                    let Some(r) = a.attribute("ref") else {
                        return Err(e(SchemaErrorKind::Structure, "a local attributeGroup needs a `ref`", loc));
                    };
                    let nm = self.qname(d, a, &r)?;
                    let Some(k) = self.lookup(Kind::AttributeGroup, nm) else {
                        return Err(e(
                            SchemaErrorKind::Unresolved,
                            format!("no attribute group named {:?}", self.c.names.display(nm)),
                            loc,
                        ));
                    };
                    let (gu, gw) = self.attribute_group(k)?;
                    for u in gu {
                        let un = self.c.attributes[u.decl as usize].name;
                        if uses.iter().any(|x| self.c.attributes[x.decl as usize].name == un) {
                            return Err(e(
                                SchemaErrorKind::Constraint,
                                format!("attribute {:?} is declared twice (ct-props-correct.4)", self.c.names.display(un)),
                                loc,
                            ));
                        }
                        uses.push(u);
                    }
                    if let Some(w) = gw {
                        group_wcs.push(w);
                    }
                }
                "anyAttribute" => {
                    local_wc = Some(self.wildcard(d, a)?);
                }
                other => {
                    return Err(e(
                        SchemaErrorKind::Structure,
                        format!("<xs:{other}> is not allowed among attribute declarations"),
                        self.loc(d, a),
                    ))
                }
            }
        }
        // The complete wildcard: the local one intersected with every group's.
        let mut wc = local_wc;
        for g in group_wcs {
            wc = match wc {
                None => Some(g),
                Some(w) => match wildcard_intersection(&w, &g) {
                    Some(x) => Some(x),
                    None => {
                        return Err(e(
                            SchemaErrorKind::Constraint,
                            "the intersection of the attribute wildcards is not expressible (cos-aw-intersect)",
                            self.loc(d, parent),
                        ))
                    }
                },
            };
        }
        // prohibited uses are not part of the result
        uses.retain(|u| !prohibited.contains(&self.c.attributes[u.decl as usize].name));
        self.prohibited = prohibited;
        Ok((uses, wc))
    }

    fn value_constraint_pub(&mut self, d: usize, n: Node<'_>, t: TypeId) -> Result<Option<ValueConstraint>, SchemaError> {
        self.value_constraint(d, n, t, false)
    }

    pub(crate) fn attribute_group(&mut self, key: Key) -> Result<(Vec<AttrUse>, Option<Wildcard>), SchemaError> {
        if let Some(v) = self.attr_groups.get(&key) {
            return Ok(v.clone());
        }
        let decl = self.registry[&key];
        let n = self.node(decl.doc, decl.rec);
        if !self.attr_groups_building.insert(key) {
            // Circular attribute groups: allowed only as a redefinition's self-reference
            // (handled by versions), an error otherwise.
            return Err(e(SchemaErrorKind::Constraint, "attribute group is circular (src-attribute_group.3)", self.loc(decl.doc, n)));
        }
        self.check_attrs(decl.doc, n)?;
        if decl.redefining {
            self.redefining.push((Kind::AttributeGroup, key.1));
        }
        let kids = xs_children(n);
        let r = self.attribute_uses(decl.doc, n, &kids);
        if decl.redefining {
            self.redefining.pop();
        }
        let v = r?;
        if decl.redefining && key.2 == 0 {
            self.redefined_group(key, decl.doc, n)?;
        }
        self.attr_groups.insert(key, v.clone());
        Ok(v)
    }

    pub(crate) fn wildcard(&mut self, d: usize, n: Node<'_>) -> Result<Wildcard, SchemaError> {
        self.check_attrs(d, n)?;
        let loc = self.loc(d, n);
        let tns = self.c.names.ns(self.docs[d].target_ns.as_deref());
        let ns = match n.attribute("namespace").map(|s| s.trim().to_string()).as_deref() {
            None | Some("##any") => NsCons::Any,
            Some("##other") => NsCons::Not(tns),
            Some(list) => {
                let mut v = Vec::new();
                for t in list.split_ascii_whitespace() {
                    let x = match t {
                        "##targetNamespace" => tns,
                        "##local" => 0,
                        "##any" | "##other" => {
                            return Err(e(SchemaErrorKind::Structure, format!("{t} cannot appear in a namespace list"), loc))
                        }
                        u => self.c.names.ns(Some(u)),
                    };
                    if !v.contains(&x) {
                        v.push(x);
                    }
                }
                NsCons::Set(v)
            }
        };
        let process = match n.attribute("processContents").as_deref().map(str::trim) {
            None | Some("strict") => Process::Strict,
            Some("lax") => Process::Lax,
            Some("skip") => Process::Skip,
            Some(v) => return Err(e(SchemaErrorKind::Structure, format!("processContents must be strict, lax or skip; found {v:?}"), loc)),
        };
        if let Some(k) = xs_children(n).into_iter().next() {
            return Err(e(SchemaErrorKind::Structure, format!("<{}> is not allowed in a wildcard", k.name()), self.loc(d, k)));
        }
        Ok(Wildcard { ns, process })
    }

    fn occurs(&self, d: usize, n: Node<'_>) -> Result<(u32, u32), SchemaError> {
        let loc = self.loc(d, n);
        let parse = |v: &str, what: &str| -> Result<u32, SchemaError> {
            let v = v.trim();
            let v = v.strip_prefix('+').unwrap_or(v);
            if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
                return Err(e(SchemaErrorKind::Structure, format!("{what} must be a non-negative integer; found {v:?}"), loc.clone()));
            }
            Ok(v.parse::<u64>().map_or(UNBOUNDED - 1, |x| x.min(u64::from(UNBOUNDED - 1)) as u32))
        };
        let min = match n.attribute("minOccurs") {
            Some(v) => parse(&v, "minOccurs")?,
            None => 1,
        };
        let max = match n.attribute("maxOccurs") {
            Some(v) if v.trim() == "unbounded" => UNBOUNDED,
            Some(v) => parse(&v, "maxOccurs")?,
            None => 1,
        };
        if max < min {
            return Err(e(SchemaErrorKind::Constraint, format!("maxOccurs {max} is less than minOccurs {min} (p-props-correct.2.1)"), loc));
        }
        Ok((min, max))
    }

    /// A particle from `element`, `group`, `sequence`, `choice`, `all` or `any`; `None` when
    /// maxOccurs is 0. `top` says the particle is a complex type's content model.
    pub(crate) fn particle(&mut self, d: usize, n: Node<'a>, top: bool) -> Result<Option<Particle>, SchemaError> {
        self.check_attrs(d, n)?;
        let loc = self.loc(d, n);
        self.enter(&loc)?;
        let r = self.particle_inner(d, n, top);
        self.depth -= 1;
        r
    }

    fn particle_inner(&mut self, d: usize, n: Node<'a>, top: bool) -> Result<Option<Particle>, SchemaError> {
        let loc = self.loc(d, n);
        let (min, max) = self.occurs(d, n)?;
        let id = self.particle_id();
        let term = match n.local_name() {
            "element" => Term::Element(self.local_element(d, n)?),
            "any" => Term::Wildcard(Box::new(self.wildcard(d, n)?)),
            "group" => {
                let Some(r) = n.attribute("ref") else {
                    return Err(e(SchemaErrorKind::Structure, "a local group needs a `ref`", loc));
                };
                if n.attribute("name").is_some() {
                    return Err(e(SchemaErrorKind::Structure, "a group reference may not have a name", loc));
                }
                let nm = self.qname(d, n, &r)?;
                let Some(k) = self.lookup(Kind::Group, nm) else {
                    return Err(e(SchemaErrorKind::Unresolved, format!("no model group named {:?}", self.c.names.display(nm)), loc));
                };
                let g = self.group(k)?;
                if matches!(g.term, Term::Group(Compositor::All, _)) && (!top || min > 1 || max != 1) {
                    {
                        return Err(e(
                            SchemaErrorKind::Constraint,
                            "a group whose model is `all` may appear only alone at the top of a content model, with maxOccurs 1 (cos-all-limited)",
                            loc,
                        ));
                    }
                }
                g.term
            }
            c @ ("sequence" | "choice" | "all") => {
                let comp = match c {
                    "sequence" => Compositor::Sequence,
                    "choice" => Compositor::Choice,
                    _ => Compositor::All,
                };
                if comp == Compositor::All && (!top || min > 1 || max != 1) {
                    return Err(e(
                        SchemaErrorKind::Constraint,
                        "`all` may appear only alone at the top of a content model, with minOccurs 0 or 1 and maxOccurs 1 (cos-all-limited)",
                        loc,
                    ));
                }
                let mut parts = Vec::new();
                for k in xs_children(n) {
                    let ok = k.namespace_uri() == Some(XS)
                        && match comp {
                            Compositor::All => k.local_name() == "element",
                            _ => matches!(k.local_name(), "element" | "group" | "choice" | "sequence" | "any"),
                        };
                    if !ok {
                        return Err(e(SchemaErrorKind::Structure, format!("<{}> is not allowed in <xs:{c}>", k.name()), self.loc(d, k)));
                    }
                    if let Some(p) = self.particle(d, k, false)? {
                        if comp == Compositor::All && p.max > 1 {
                            return Err(e(
                                SchemaErrorKind::Constraint,
                                "an element in `all` must have maxOccurs 0 or 1 (cos-all-limited)",
                                self.loc(d, k),
                            ));
                        }
                        parts.push(p);
                    }
                }
                Term::Group(comp, parts)
            }
            other => return Err(e(SchemaErrorKind::Structure, format!("expected a particle; found <xs:{other}>"), loc)),
        };
        if max == 0 {
            return Ok(None);
        }
        Ok(Some(Particle { min, max, term, id }))
    }

    fn local_element(&mut self, d: usize, n: Node<'a>) -> Result<ElemId, SchemaError> {
        let loc = self.loc(d, n);
        if let Some(r) = n.attribute("ref") {
            for bad in ["name", "type", "nillable", "default", "fixed", "form", "block", "abstract", "final", "substitutionGroup"] {
                if n.attribute(bad).is_some() {
                    return Err(e(SchemaErrorKind::Structure, format!("an element reference may not have `{bad}` (src-element.2.2)"), loc));
                }
            }
            if !xs_children(n).is_empty() {
                return Err(e(SchemaErrorKind::Structure, "an element reference may contain only an annotation (src-element.2.2)", loc));
            }
            let nm = self.qname(d, n, &r)?;
            let Some(k) = self.lookup(Kind::Element, nm) else {
                return Err(e(SchemaErrorKind::Unresolved, format!("no element declaration named {:?}", self.c.names.display(nm)), loc));
            };
            return Ok(self.referenced_element(k));
        }
        let Some(name) = n.attribute("name") else {
            return Err(e(SchemaErrorKind::Structure, "a local element needs a `name` or a `ref` (src-element.2.1)", loc));
        };
        for bad in ["abstract", "final", "substitutionGroup"] {
            if n.attribute(bad).is_some() {
                return Err(e(SchemaErrorKind::Structure, format!("a local element may not have `{bad}`"), loc));
            }
        }
        let name = name.trim().to_string();
        if !vtdx_core::is_name(name.as_bytes()) || name.contains(':') {
            return Err(e(SchemaErrorKind::Structure, format!("name must be an NCName; found {name:?}"), loc));
        }
        let qualified = match n.attribute("form").as_deref().map(str::trim) {
            None => self.docs[d].element_qualified,
            Some("qualified") => true,
            Some("unqualified") => false,
            Some(v) => return Err(e(SchemaErrorKind::Structure, format!("`form` must be qualified or unqualified; found {v:?}"), loc)),
        };
        let tns = self.c.names.ns(self.docs[d].target_ns.as_deref());
        let nid = self.c.names.name(if qualified { tns } else { 0 }, &name);
        let id = self.c.elements.len() as ElemId;
        self.c.elements.push(ElementDecl {
            name: nid,
            type_: ANY_TYPE,
            nillable: false,
            abstract_: false,
            vc: None,
            block: 0,
            final_: 0,
            subst_head: None,
            ics: Vec::new(),
            global: false,
            loc,
        });
        self.element_body(d, n, id, false)?;
        Ok(id)
    }

    pub(crate) fn group(&mut self, key: Key) -> Result<Particle, SchemaError> {
        if let Some(p) = self.groups.get(&key) {
            return Ok(p.clone());
        }
        let decl = self.registry[&key];
        let n = self.node(decl.doc, decl.rec);
        let loc = self.loc(decl.doc, n);
        if !self.groups_building.insert(key) {
            return Err(e(
                SchemaErrorKind::Constraint,
                format!("model group {:?} refers to itself (mg-props-correct.2)", self.c.names.display(key.1)),
                loc,
            ));
        }
        self.check_attrs(decl.doc, n)?;
        let kids = xs_children(n);
        let [k] = kids.as_slice() else {
            return Err(e(SchemaErrorKind::Structure, "a model group definition must contain exactly one of sequence, choice or all", loc));
        };
        if !matches!(k.local_name(), "sequence" | "choice" | "all") || k.namespace_uri() != Some(XS) {
            return Err(e(
                SchemaErrorKind::Structure,
                format!("expected sequence, choice or all; found <{}>", k.name()),
                self.loc(decl.doc, *k),
            ));
        }
        if k.attribute("minOccurs").is_some() || k.attribute("maxOccurs").is_some() {
            return Err(e(
                SchemaErrorKind::Structure,
                "the model group of a group definition may not have minOccurs or maxOccurs",
                self.loc(decl.doc, *k),
            ));
        }
        if decl.redefining {
            self.redefining.push((Kind::Group, key.1));
        }
        let r = self.particle(decl.doc, *k, true);
        if decl.redefining {
            self.redefining.pop();
        }
        if decl.redefining && key.2 == 0 && r.is_ok() {
            self.redefined_group(key, decl.doc, n)?;
        }
        let p = r?.unwrap_or(Particle { min: 1, max: 1, term: Term::Group(Compositor::Sequence, vec![]), id: 0 });
        self.groups.insert(key, p.clone());
        Ok(p)
    }

    pub(crate) fn ic(&mut self, key: Key) -> Result<IcId, SchemaError> {
        if let Some(&i) = self.ics_by_key.get(&key) {
            return Ok(i);
        }
        let Some(decl) = self.registry.get(&key).copied() else {
            return Err(e(
                SchemaErrorKind::Unresolved,
                format!("no identity constraint named {:?}", self.c.names.display(key.1)),
                Location::default(),
            ));
        };
        let n = self.node(decl.doc, decl.rec);
        let d = decl.doc;
        let loc = self.loc(d, n);
        if !self.ic_building.insert(key) {
            return Err(e(SchemaErrorKind::Constraint, "identity constraint refers to itself", loc));
        }
        self.check_attrs(d, n)?;
        let kids = xs_children(n);
        let mut sel = None;
        let mut fields = Vec::new();
        for (i, k) in kids.iter().enumerate() {
            self.check_attrs(d, *k)?;
            let x = k.attribute("xpath").map(|s| s.into_owned());
            let Some(x) = x else {
                return Err(e(SchemaErrorKind::Structure, format!("<xs:{}> needs an xpath attribute", k.local_name()), self.loc(d, *k)));
            };
            match (i, k.local_name()) {
                (0, "selector") => sel = Some(self.ic_path(d, *k, &x, false)?),
                (j, "field") if j > 0 => fields.push(self.ic_path(d, *k, &x, true)?),
                (_, other) => {
                    return Err(e(
                        SchemaErrorKind::Structure,
                        format!("expected a selector followed by fields; found <xs:{other}>"),
                        self.loc(d, *k),
                    ))
                }
            }
        }
        let Some(selector) = sel.filter(|_| !fields.is_empty()) else {
            return Err(e(SchemaErrorKind::Structure, "an identity constraint needs a selector and at least one field", loc));
        };
        let kind = match n.local_name() {
            "unique" => IcKind::Unique,
            "key" => IcKind::Key,
            _ => {
                let Some(r) = n.attribute("refer") else {
                    return Err(e(SchemaErrorKind::Structure, "a keyref needs a `refer` attribute", loc));
                };
                let nm = self.qname(d, n, &r)?;
                // an unresolved `refer` is this keyref's error: report it at the keyref
                if !self.registry.contains_key(&(Kind::Identity, nm, 0)) {
                    return Err(e(
                        SchemaErrorKind::Unresolved,
                        format!("no identity constraint named {:?} (the keyref's `refer`)", self.c.names.display(nm)),
                        loc,
                    ));
                }
                let target = self.ic((Kind::Identity, nm, 0))?;
                let t = &self.c.ics[target as usize];
                if matches!(t.kind, IcKind::KeyRef(_)) {
                    return Err(e(
                        SchemaErrorKind::Constraint,
                        "a keyref must refer to a key or unique constraint (c-props-correct.1)",
                        loc,
                    ));
                }
                if t.fields.len() != fields.len() {
                    return Err(e(
                        SchemaErrorKind::Constraint,
                        format!("the keyref has {} fields; the key it refers to has {} (c-props-correct.2)", fields.len(), t.fields.len()),
                        loc,
                    ));
                }
                IcKind::KeyRef(target)
            }
        };
        let id = self.c.ics.len() as IcId;
        self.c.ics.push(IdentityConstraint { name: key.1, kind, selector, fields, loc });
        self.ics_by_key.insert(key, id);
        Ok(id)
    }

    /// Parses a selector (`field = false`) or field XPath of the §3.11.6 subset.
    fn ic_path(&mut self, d: usize, n: Node<'_>, x: &str, field: bool) -> Result<Vec<IcPath>, SchemaError> {
        let loc = self.loc(d, n);
        let bad = |why: &str| {
            e(
                SchemaErrorKind::Structure,
                format!("{} xpath {x:?} is not in the XML Schema subset: {why}", if field { "field" } else { "selector" }),
                loc.clone(),
            )
        };
        let mut out = Vec::new();
        for alt in x.split('|') {
            let toks = tokenize_path(alt).map_err(|m| bad(&m))?;
            let mut i = 0;
            let mut p = IcPath { descendant: false, steps: Vec::new(), attribute: None };
            if toks.len() >= 2 && toks[0] == "." && toks[1] == "//" {
                p.descendant = true;
                i = 2;
            }
            let mut expect_step = true;
            while i < toks.len() {
                let t = &toks[i];
                if expect_step {
                    if t == "/" || t == "//" {
                        return Err(bad("expected a step"));
                    }
                    let (axis_attr, test) = if t == "@" {
                        i += 1;
                        (true, toks.get(i).cloned().ok_or_else(|| bad("expected a name after @"))?)
                    } else if t == "attribute::" {
                        i += 1;
                        (true, toks.get(i).cloned().ok_or_else(|| bad("expected a name after attribute::"))?)
                    } else if t == "child::" {
                        i += 1;
                        (false, toks.get(i).cloned().ok_or_else(|| bad("expected a name after child::"))?)
                    } else {
                        (false, t.clone())
                    };
                    if axis_attr {
                        if !field || i + 1 != toks.len() {
                            return Err(bad("an attribute step may only end a field"));
                        }
                        p.attribute = Some(self.name_test(d, n, &test, true).map_err(|m| bad(&m))?);
                    } else if test == "." {
                        p.steps.push(None);
                    } else {
                        p.steps.push(Some(self.name_test(d, n, &test, false).map_err(|m| bad(&m))?));
                    }
                    expect_step = false;
                } else {
                    if t != "/" {
                        return Err(bad(&format!("unexpected {t:?}")));
                    }
                    expect_step = true;
                }
                i += 1;
            }
            if expect_step {
                return Err(bad("the path ends without a step"));
            }
            out.push(p);
        }
        Ok(out)
    }

    fn name_test(&mut self, _d: usize, n: Node<'_>, t: &str, attr: bool) -> Result<NameTest, String> {
        if t == "*" {
            return Ok(NameTest::Any);
        }
        let (prefix, local) = t.split_once(':').unwrap_or(("", t));
        if prefix.is_empty() && t.contains(':') {
            return Err(format!("bad name {t:?}"));
        }
        // XPath: an unprefixed name has no namespace (the default namespace does not apply).
        let ns = if prefix.is_empty() {
            0
        } else {
            match n.lookup_namespace(prefix) {
                Some(u) => self.c.names.ns(Some(u)),
                None => return Err(format!("prefix {prefix:?} is not declared")),
            }
        };
        if local == "*" {
            return Ok(NameTest::Ns(ns));
        }
        if !vtdx_core::is_name(local.as_bytes()) || local.contains(':') {
            return Err(format!("bad name {t:?}"));
        }
        let _ = attr;
        Ok(NameTest::Name(self.c.names.name(ns, local)))
    }
}

/// `name::` at the start of `s`, white space allowed before the `::` (XPath tokens may be
/// separated by white space): the length up to and including the `::`.
fn axis(s: &str, name: &str) -> Option<usize> {
    let rest = s.strip_prefix(name)?;
    let ws = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_whitespace()).len();
    rest[ws..].starts_with("::").then_some(name.len() + ws + 2)
}

fn tokenize_path(s: &str) -> Result<Vec<String>, String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if s[i..].starts_with("//") {
            out.push("//".into());
            i += 2;
        } else if c == b'/' {
            out.push("/".into());
            i += 1;
        } else if c == b'@' {
            out.push("@".into());
            i += 1;
        } else if let Some(n) = axis(&s[i..], "child") {
            out.push("child::".into());
            i += n;
        } else if let Some(n) = axis(&s[i..], "attribute") {
            out.push("attribute::".into());
            i += n;
        } else if c == b'.' && !s[i..].starts_with("..") {
            out.push(".".into());
            i += 1;
        } else {
            let st = i;
            while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'/' | b'@' | b'|' | b'[' | b'(' | b')' | b']') {
                i += 1;
            }
            if st == i {
                return Err(format!("unexpected {:?}", c as char));
            }
            out.push(s[st..i].to_string());
        }
    }
    // `//` is only allowed right after a leading `.`.
    for (j, t) in out.iter().enumerate() {
        if t == "//" && !(j == 1 && out[0] == ".") {
            return Err("`//` is allowed only as `.//` at the start".into());
        }
    }
    if out.is_empty() {
        return Err("empty path".into());
    }
    Ok(out)
}
