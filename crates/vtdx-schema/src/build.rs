//! From schema documents to components: the symbol-space registry, QName
//! resolution, and one builder per kind of component, with the representation
//! and component constraints checked as each is built.

use std::collections::{HashMap, HashSet};

use vtdx_core::Node;

use crate::datatypes::{Builtin, NsMap, SimpleType};
use crate::error::{Location, SchemaError, SchemaErrorKind};
use crate::load::{Kind, SchemaDoc, XS, XSI};
use crate::model::*;
use crate::simple;

/// Every component of a schema set, before automata are compiled.
pub(crate) struct Components {
    pub names: NameTable,
    pub types: Vec<TypeDef>,
    pub elements: Vec<ElementDecl>,
    pub attributes: Vec<AttributeDecl>,
    pub ics: Vec<IdentityConstraint>,
    pub global_elements: HashMap<NameId, ElemId>,
    pub global_types: HashMap<NameId, TypeId>,
    pub global_attributes: HashMap<NameId, AttrId>,
    pub notations: HashSet<NameId>,
    /// Direct and indirect members of each head's substitution group.
    pub substitutes: HashMap<ElemId, Vec<ElemId>>,
    /// Complex types whose content models are to be compiled: (type, particle).
    pub xsi_type: NameId,
    pub xsi_nil: NameId,
    pub xsi_schema_location: NameId,
    pub xsi_no_ns_schema_location: NameId,
    pub xsi_ns: NsIdx,
}

type Key = (Kind, NameId, u8);

#[derive(Clone, Copy)]
pub(crate) struct Decl {
    pub(crate) doc: usize,
    pub(crate) rec: u32,
    /// Declared inside `xs:redefine`.
    pub(crate) redefining: bool,
}

pub(crate) struct Builder<'a> {
    pub(crate) docs: &'a [SchemaDoc],
    pub c: Components,
    pub(crate) registry: HashMap<Key, Decl>,
    pub(crate) type_of_key: HashMap<Key, TypeId>,
    pub(crate) type_state: Vec<u8>,
    pub(crate) elem_of_key: HashMap<Key, ElemId>,
    /// Global elements referenced from a content model whose declarations are built
    /// later (a reference needs only the id; building at once would make cycles through
    /// element types look like circular groups or types).
    pub(crate) elem_deferred: Vec<(Key, ElemId)>,
    pub(crate) elem_state: HashMap<ElemId, u8>,
    pub(crate) attr_of_key: HashMap<Key, AttrId>,
    pub(crate) attr_building: HashSet<Key>,
    pub(crate) groups: HashMap<Key, Particle>,
    pub(crate) groups_building: HashSet<Key>,
    pub(crate) attr_groups: HashMap<Key, (Vec<AttrUse>, Option<Wildcard>)>,
    pub(crate) attr_groups_building: HashSet<Key>,
    pub(crate) ics_by_key: HashMap<Key, IcId>,
    pub(crate) ic_building: HashSet<Key>,
    pub(crate) next_particle: u32,
    /// The component being built inside `xs:redefine` (its self-references mean the original).
    pub(crate) redefining: Vec<(Kind, NameId)>,
    pub max_depth: u32,
    pub(crate) depth: u32,
    /// Names of the `use="prohibited"` attributes of the last `attribute_uses` call.
    pub(crate) prohibited: Vec<NameId>,
    /// Model groups and attribute groups redefined without a self-reference: (key,
    /// document, record), checked against their originals after building.
    pub(crate) redefine_checks: Vec<(Key, usize, u32)>,
}

fn e(kind: SchemaErrorKind, message: impl Into<String>, location: Location) -> SchemaError {
    SchemaError { kind, message: message.into(), location }
}

/// The XSD element children of `n`, annotations skipped.
pub(crate) fn xs_children<'d>(n: Node<'d>) -> Vec<Node<'d>> {
    n.element_children().filter(|c| !(c.namespace_uri() == Some(XS) && c.local_name() == "annotation")).collect()
}

fn is_xs(n: &Node<'_>, local: &str) -> bool {
    n.namespace_uri() == Some(XS) && n.local_name() == local
}

/// The attributes each schema element may carry (besides `id` and foreign-namespace ones).
fn allowed_attributes(local: &str) -> Option<&'static [&'static str]> {
    Some(match local {
        "schema" => &["attributeFormDefault", "blockDefault", "elementFormDefault", "finalDefault", "targetNamespace", "version", "lang"],
        "element" => &[
            "name",
            "ref",
            "type",
            "substitutionGroup",
            "minOccurs",
            "maxOccurs",
            "default",
            "fixed",
            "nillable",
            "abstract",
            "final",
            "block",
            "form",
        ],
        "attribute" => &["name", "ref", "type", "use", "default", "fixed", "form"],
        "complexType" => &["name", "mixed", "abstract", "final", "block"],
        "simpleType" => &["name", "final"],
        "group" => &["name", "ref", "minOccurs", "maxOccurs"],
        "attributeGroup" => &["name", "ref"],
        "sequence" | "choice" | "all" => &["minOccurs", "maxOccurs"],
        "any" => &["namespace", "processContents", "minOccurs", "maxOccurs"],
        "anyAttribute" => &["namespace", "processContents"],
        "complexContent" => &["mixed"],
        "simpleContent" => &[],
        "restriction" => &["base"],
        "extension" => &["base"],
        "list" => &["itemType"],
        "union" => &["memberTypes"],
        "include" => &["schemaLocation"],
        "import" => &["namespace", "schemaLocation"],
        "redefine" => &["schemaLocation"],
        "notation" => &["name", "public", "system"],
        "unique" | "key" => &["name"],
        "keyref" => &["name", "refer"],
        "selector" | "field" => &["xpath"],
        "annotation" => &[],
        "minExclusive" | "minInclusive" | "maxExclusive" | "maxInclusive" | "totalDigits" | "fractionDigits" | "length" | "minLength"
        | "maxLength" | "whiteSpace" => &["value", "fixed"],
        "enumeration" | "pattern" => &["value"],
        _ => return None,
    })
}

impl<'a> Builder<'a> {
    pub(crate) fn new(docs: &'a [SchemaDoc]) -> Builder<'a> {
        let mut names = NameTable::new();
        let xsi_ns = names.ns(Some(XSI));
        let xsi_type = names.name(xsi_ns, "type");
        let xsi_nil = names.name(xsi_ns, "nil");
        let xsi_schema_location = names.name(xsi_ns, "schemaLocation");
        let xsi_no_ns_schema_location = names.name(xsi_ns, "noNamespaceSchemaLocation");
        let mut b = Builder {
            docs,
            c: Components {
                names,
                types: Vec::new(),
                elements: Vec::new(),
                attributes: Vec::new(),
                ics: Vec::new(),
                global_elements: HashMap::new(),
                global_types: HashMap::new(),
                global_attributes: HashMap::new(),
                notations: HashSet::new(),
                substitutes: HashMap::new(),
                xsi_type,
                xsi_nil,
                xsi_schema_location,
                xsi_no_ns_schema_location,
                xsi_ns,
            },
            registry: HashMap::new(),
            type_of_key: HashMap::new(),
            type_state: Vec::new(),
            elem_of_key: HashMap::new(),
            elem_deferred: Vec::new(),
            elem_state: HashMap::new(),
            attr_of_key: HashMap::new(),
            attr_building: HashSet::new(),
            groups: HashMap::new(),
            groups_building: HashSet::new(),
            attr_groups: HashMap::new(),
            attr_groups_building: HashSet::new(),
            ics_by_key: HashMap::new(),
            ic_building: HashSet::new(),
            next_particle: 0,
            redefining: Vec::new(),
            max_depth: 512,
            depth: 0,
            prohibited: Vec::new(),
            redefine_checks: Vec::new(),
        };
        b.builtins();
        b
    }

    pub(crate) fn builtins(&mut self) {
        let xs = self.c.names.ns(Some(XS));
        // anyType (index 0): mixed, any element lax, any attribute lax.
        let any_name = self.c.names.name(xs, "anyType");
        let p = Particle {
            min: 0,
            max: UNBOUNDED,
            term: Term::Wildcard(Box::new(Wildcard { ns: NsCons::Any, process: Process::Lax })),
            id: self.particle_id(),
        };
        let seq = Particle { min: 1, max: 1, term: Term::Group(Compositor::Sequence, vec![p]), id: self.particle_id() };
        self.types.push(TypeDef {
            name: Some(any_name),
            base: ANY_TYPE,
            derivation: Derivation::Restriction,
            abstract_: false,
            final_: 0,
            block: 0,
            body: TypeBody::Complex(ComplexDef {
                attrs: Vec::new(),
                attr_wildcard: Some(Wildcard { ns: NsCons::Any, process: Process::Lax }),
                content: Content::Elements { particle: seq, mixed: true, automaton: u32::MAX },
            }),
            loc: Location::default(),
        });
        self.type_state.push(2);
        self.c.global_types.insert(any_name, ANY_TYPE);
        // The built-in simple types, anySimpleType first (index 1).
        let mut ids: HashMap<Builtin, TypeId> = HashMap::new();
        let mut all: Vec<Builtin> = Builtin::ALL.to_vec();
        all.sort_by_key(|b| builtin_depth(*b));
        for b in all {
            let name = self.c.names.name(xs, b.local_name());
            let base = b.base().map_or(ANY_TYPE, |bb| ids[&bb]);
            let id = self.types.len() as TypeId;
            let st = SimpleType::builtin(b);
            let id_kind = match b {
                Builtin::Id => IdKind::Id,
                Builtin::IdRef => IdKind::IdRef,
                Builtin::IdRefs => IdKind::IdRefs,
                _ => IdKind::None,
            };
            let needs_ns = matches!(b, Builtin::QName | Builtin::Notation);
            self.types.push(TypeDef {
                name: Some(name),
                base,
                derivation: if b.is_list() { Derivation::List } else { Derivation::Restriction },
                abstract_: false,
                final_: 0,
                block: 0,
                body: TypeBody::Simple(SimpleDef { st, id_kind, needs_ns, is_notation: b == Builtin::Notation, members: Vec::new() }),
                loc: Location::default(),
            });
            self.type_state.push(2);
            ids.insert(b, id);
            self.c.global_types.insert(name, id);
        }
        debug_assert_eq!(ids[&Builtin::AnySimpleType], ANY_SIMPLE_TYPE);
        // The XML namespace's attributes (xml:lang, xml:space, xml:base, xml:id), built in so
        // that importing the namespace never needs its schema document.
        let xmlns = self.c.names.ns(Some(vtdx_core::XML_NAMESPACE));
        for (local, b) in [("lang", Builtin::Language), ("space", Builtin::NCName), ("base", Builtin::AnyUri), ("id", Builtin::Id)] {
            let name = self.c.names.name(xmlns, local);
            let mut ty = ids[&b];
            if local == "space" {
                let st = crate::datatypes::restrict(
                    &SimpleType::builtin(Builtin::NCName),
                    &[
                        crate::datatypes::FacetSpec::new(crate::datatypes::FacetKind::Enumeration, "default"),
                        crate::datatypes::FacetSpec::new(crate::datatypes::FacetKind::Enumeration, "preserve"),
                    ],
                    &crate::datatypes::NoNamespaces,
                );
                if let Ok(st) = st {
                    ty = self.types.len() as TypeId;
                    self.types.push(TypeDef {
                        name: None,
                        base: ids[&Builtin::NCName],
                        derivation: Derivation::Restriction,
                        abstract_: false,
                        final_: 0,
                        block: 0,
                        body: TypeBody::Simple(SimpleDef {
                            st,
                            id_kind: IdKind::None,
                            needs_ns: false,
                            is_notation: false,
                            members: Vec::new(),
                        }),
                        loc: Location::default(),
                    });
                    self.type_state.push(2);
                }
            }
            let id = self.c.attributes.len() as AttrId;
            self.c.attributes.push(AttributeDecl { name, type_: ty, vc: None, loc: Location::default() });
            self.c.global_attributes.insert(name, id);
        }
    }

    pub(crate) fn particle_id(&mut self) -> u32 {
        self.next_particle += 1;
        self.next_particle
    }

    pub(crate) fn loc(&self, d: usize, n: Node<'_>) -> Location {
        self.docs[d].node_location(n)
    }

    pub(crate) fn node(&self, d: usize, rec: u32) -> Node<'a> {
        self.docs[d].doc.node_at_record(rec).expect("registered record")
    }

    /// Registers every global component of every document; checks the attributes
    /// and the placement of top-level elements.
    pub(crate) fn collect(&mut self) -> Result<(), SchemaError> {
        for d in 0..self.docs.len() {
            let doc = &self.docs[d];
            let root = doc.root();
            let tns = self.c.names.ns(doc.target_ns.as_deref());
            self.check_attrs(d, root)?;
            let mut seen_component = false;
            for c in root.element_children() {
                if c.namespace_uri() != Some(XS) {
                    return Err(e(
                        SchemaErrorKind::Structure,
                        format!("expected a schema element in namespace {XS}; found <{}>", c.name()),
                        self.loc(d, c),
                    ));
                }
                let local = c.local_name();
                match local {
                    "include" | "import" | "redefine" => {
                        self.check_attrs(d, c)?;
                        if seen_component {
                            return Err(e(
                                SchemaErrorKind::Structure,
                                format!("<xs:{local}> must come before every definition and declaration"),
                                self.loc(d, c),
                            ));
                        }
                        if local == "redefine" {
                            for r in xs_children(c) {
                                let k = match r.local_name() {
                                    "simpleType" | "complexType" => Kind::Type,
                                    "group" => Kind::Group,
                                    "attributeGroup" => Kind::AttributeGroup,
                                    other => {
                                        return Err(e(
                                            SchemaErrorKind::Structure,
                                            format!("expected simpleType, complexType, group or attributeGroup in <xs:redefine>; found <xs:{other}>"),
                                            self.loc(d, r),
                                        ))
                                    }
                                };
                                self.register(d, r, k, tns, 0, true)?;
                            }
                        } else {
                            if let Some(r) = xs_children(c).into_iter().next() {
                                return Err(e(
                                    SchemaErrorKind::Structure,
                                    format!("<xs:{local}> may contain only an annotation; found <{}>", r.name()),
                                    self.loc(d, r),
                                ));
                            }
                        }
                    }
                    "annotation" => {}
                    "simpleType" | "complexType" | "element" | "attribute" | "group" | "attributeGroup" | "notation" => {
                        seen_component = true;
                        let k = match local {
                            "simpleType" | "complexType" => Kind::Type,
                            "element" => Kind::Element,
                            "attribute" => Kind::Attribute,
                            "group" => Kind::Group,
                            "attributeGroup" => Kind::AttributeGroup,
                            _ => Kind::Notation,
                        };
                        for bad in ["ref", "minOccurs", "maxOccurs", "form", "use"] {
                            if c.attribute(bad).is_some() {
                                return Err(e(
                                    SchemaErrorKind::Structure,
                                    format!("a top-level <xs:{local}> must not have a `{bad}` attribute"),
                                    self.loc(d, c),
                                ));
                            }
                        }
                        let ver = u8::from(c.attribute("name").is_some_and(|n| doc.redefined.contains(&(k, n.trim().to_string()))));
                        self.register(d, c, k, tns, ver, false)?;
                    }
                    other => {
                        return Err(e(
                            SchemaErrorKind::Structure,
                            format!("<xs:{other}> is not allowed at the top level of a schema"),
                            self.loc(d, c),
                        ))
                    }
                }
            }
            // Identity constraints anywhere in the document.
            for n in root.descendant_elements() {
                if n.namespace_uri() == Some(XS) && matches!(n.local_name(), "unique" | "key" | "keyref") {
                    self.register(d, n, Kind::Identity, tns, 0, false)?;
                }
            }
        }
        Ok(())
    }

    pub(crate) fn register(&mut self, d: usize, n: Node<'_>, k: Kind, tns: NsIdx, ver: u8, redefining: bool) -> Result<(), SchemaError> {
        let Some(name) = n.attribute("name") else {
            return Err(e(SchemaErrorKind::Structure, format!("a top-level <xs:{}> needs a name", n.local_name()), self.loc(d, n)));
        };
        let name = name.trim().to_string();
        if !vtdx_core::is_name(name.as_bytes()) || name.contains(':') {
            return Err(e(SchemaErrorKind::Structure, format!("name must be an NCName; found {name:?}"), self.loc(d, n)));
        }
        let id = self.c.names.name(tns, &name);
        let key = (k, id, ver);
        let rec = n.record().expect("element record");
        if let Some(prev) = self.registry.get(&key) {
            if prev.doc == d && prev.rec == rec {
                return Ok(());
            }
            // The same document reached under two paths defines the same component.
            if self.docs[prev.doc].doc.text() == self.docs[d].doc.text() && prev.rec == rec {
                return Ok(());
            }
            let what = match k {
                Kind::Type => "type definition",
                Kind::Element => "element declaration",
                Kind::Attribute => "attribute declaration",
                Kind::Group => "model group definition",
                Kind::AttributeGroup => "attribute group definition",
                Kind::Notation => "notation declaration",
                Kind::Identity => "identity constraint",
            };
            let pl = self.docs[prev.doc].location(self.node(prev.doc, prev.rec).range().start);
            return Err(e(
                SchemaErrorKind::Duplicate,
                format!("duplicate global {what} {:?} (first defined at {pl})", self.c.names.display(id)),
                self.loc(d, n),
            ));
        }
        if k == Kind::Type && tns == self.c.names.find_ns(XS) && Builtin::from_local_name(&name).is_some() {
            // Redefining a built-in type only happens in the schema for schemas itself.
            return Ok(());
        }
        self.registry.insert(key, Decl { doc: d, rec, redefining });
        Ok(())
    }

    /// Builds every registered global component.
    pub(crate) fn build_all(&mut self) -> Result<(), SchemaError> {
        let mut keys: Vec<(Key, Decl)> = self.registry.iter().map(|(k, v)| (*k, *v)).collect();
        keys.sort_by_key(|(_, v)| (v.doc, v.rec));
        for (key, decl) in keys {
            match key.0 {
                Kind::Type => {
                    self.global_type(key)?;
                }
                Kind::Element => {
                    let id = self.global_element(key)?;
                    if key.2 == 0 {
                        self.c.global_elements.insert(key.1, id);
                    }
                }
                Kind::Attribute => {
                    let id = self.global_attribute(key)?;
                    self.c.global_attributes.insert(key.1, id);
                }
                Kind::Group => {
                    self.group(key)?;
                }
                Kind::AttributeGroup => {
                    self.attribute_group(key)?;
                }
                Kind::Notation => {
                    let n = self.node(decl.doc, decl.rec);
                    self.check_attrs(decl.doc, n)?;
                    if n.attribute("public").is_none() && n.attribute("system").is_none() {
                        return Err(e(
                            SchemaErrorKind::Structure,
                            "a notation needs a `public` or `system` attribute",
                            self.loc(decl.doc, n),
                        ));
                    }
                    self.c.notations.insert(key.1);
                }
                Kind::Identity => {
                    self.ic(key)?;
                }
            }
            self.build_deferred_elements()?;
        }
        self.check_redefined_groups()?;
        // Substitution groups: transitive membership, cycles, type derivation.
        let elems: Vec<ElemId> = self.c.global_elements.values().copied().collect();
        for m in elems {
            let mut head = self.c.elements[m as usize].subst_head;
            let mut steps = 0;
            while let Some(h) = head {
                if h == m || steps > self.c.elements.len() {
                    return Err(e(
                        SchemaErrorKind::Constraint,
                        format!("substitution group of {} is circular", self.c.names.display(self.c.elements[m as usize].name)),
                        self.c.elements[m as usize].loc.clone(),
                    ));
                }
                self.c.substitutes.entry(h).or_default().push(m);
                head = self.c.elements[h as usize].subst_head;
                steps += 1;
            }
        }
        for v in self.c.substitutes.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        Ok(())
    }

    pub(crate) fn check_attrs(&self, d: usize, n: Node<'_>) -> Result<(), SchemaError> {
        let local = n.local_name();
        let Some(allowed) = allowed_attributes(local) else {
            return Err(e(
                SchemaErrorKind::Structure,
                format!("<xs:{local}> is not an element of the XML Schema language"),
                self.loc(d, n),
            ));
        };
        for a in n.attributes() {
            if a.namespace_uri().is_some() {
                if a.namespace_uri() == Some(XS) {
                    return Err(e(
                        SchemaErrorKind::Structure,
                        format!("attribute {} in the XML Schema namespace is not allowed", a.name()),
                        self.loc(d, a),
                    ));
                }
                continue;
            }
            let an = a.local_name();
            if an == "id" {
                let v = a.value();
                if !vtdx_core::is_name(v.trim().as_bytes()) || v.contains(':') {
                    return Err(e(SchemaErrorKind::Structure, format!("id must be an NCName; found {v:?}"), self.loc(d, a)));
                }
                continue;
            }
            if !allowed.contains(&an) || (an == "lang" && local == "schema") {
                return Err(e(SchemaErrorKind::Structure, format!("attribute `{an}` is not allowed on <xs:{local}>"), self.loc(d, a)));
            }
        }
        Ok(())
    }

    // ---- QNames --------------------------------------------------------------------

    pub(crate) fn ns_of_prefix(&mut self, d: usize, n: Node<'_>, prefix: &str) -> Option<NsIdx> {
        if prefix == "xml" {
            return Some(self.c.names.ns(Some(vtdx_core::XML_NAMESPACE)));
        }
        match n.lookup_namespace(prefix) {
            Some(u) => Some(self.c.names.ns(Some(u))),
            None if prefix.is_empty() => {
                let doc = &self.docs[d];
                Some(if doc.chameleon { self.c.names.ns(doc.target_ns.as_deref()) } else { 0 })
            }
            None => None,
        }
    }

    pub(crate) fn qname(&mut self, d: usize, n: Node<'_>, v: &str) -> Result<NameId, SchemaError> {
        let v = v.trim();
        let (prefix, local) = match v.split_once(':') {
            Some((p, l)) => (p, l),
            None => ("", v),
        };
        if local.is_empty()
            || local.contains(':')
            || !vtdx_core::is_name(local.as_bytes())
            || (!prefix.is_empty() && !vtdx_core::is_name(prefix.as_bytes()))
        {
            return Err(e(SchemaErrorKind::Structure, format!("expected a QName; found {v:?}"), self.loc(d, n)));
        }
        let Some(ns) = self.ns_of_prefix(d, n, prefix) else {
            return Err(e(SchemaErrorKind::Unresolved, format!("prefix {prefix:?} of {v:?} is not bound to a namespace"), self.loc(d, n)));
        };
        // src-resolve.4: a reference must name the target namespace, the schema namespace,
        // or an imported one.
        let name = self.c.names.name(ns, local);
        let doc = &self.docs[d];
        let tns = self.c.names.ns(doc.target_ns.as_deref());
        if ns != tns && Some(ns) != self.c.names.ns_map_get(XS) && !self.imports(d, ns) {
            return Err(e(
                SchemaErrorKind::Unresolved,
                format!(
                    "{v:?} names namespace {} which this schema document does not import (src-resolve.4)",
                    self.c.names.ns_uri(ns).map_or("(none)".to_string(), |s| format!("{s:?}"))
                ),
                self.loc(d, n),
            ));
        }
        Ok(name)
    }

    pub(crate) fn imports(&self, d: usize, ns: NsIdx) -> bool {
        let uri = self.c.names.ns_uri(ns);
        if uri == Some(vtdx_core::XML_NAMESPACE) && self.docs[d].root().element_children().any(|c| is_xs(&c, "import")) {
            return true;
        }
        self.docs[d].root().element_children().any(|c| is_xs(&c, "import") && c.attribute("namespace").as_deref() == uri)
    }

    pub(crate) fn lookup(&self, k: Kind, name: NameId) -> Option<Key> {
        let (rk, rn) = self.redefining.last().copied().unzip();
        if rk == Some(k) && rn == Some(name) && self.registry.contains_key(&(k, name, 1)) {
            return Some((k, name, 1));
        }
        self.registry.contains_key(&(k, name, 0)).then_some((k, name, 0))
    }

    pub(crate) fn unresolved(&self, what: &str, name: NameId, loc: Location) -> SchemaError {
        e(SchemaErrorKind::Unresolved, format!("no {what} named {:?}", self.c.names.display(name)), loc)
    }

    pub(crate) fn enter(&mut self, loc: &Location) -> Result<(), SchemaError> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(e(
                SchemaErrorKind::Limit,
                format!("limit exceeded: schema components nested deeper than {}", self.max_depth),
                loc.clone(),
            ));
        }
        Ok(())
    }

    // ---- types ------------------------------------------------------------------------

    /// The type a QName names (built-in or global), built.
    pub(crate) fn type_by_name(&mut self, d: usize, n: Node<'_>, v: &str) -> Result<TypeId, SchemaError> {
        self.type_by_name_in(d, n, v, false)
    }

    /// The type of an element declaration: it may be a type still being built (an element
    /// inside a complex type's content having that type is recursion, not a circular
    /// derivation).
    pub(crate) fn element_type_by_name(&mut self, d: usize, n: Node<'_>, v: &str) -> Result<TypeId, SchemaError> {
        self.type_by_name_in(d, n, v, true)
    }

    fn type_by_name_in(&mut self, d: usize, n: Node<'_>, v: &str, pending_ok: bool) -> Result<TypeId, SchemaError> {
        let name = self.qname(d, n, v)?;
        if let Some(key) = self.lookup(Kind::Type, name) {
            if pending_ok {
                if let Some(&t) = self.type_of_key.get(&key) {
                    return Ok(t);
                }
            }
            return self.global_type(key);
        }
        if let Some(&t) = self.c.global_types.get(&name) {
            return Ok(t);
        }
        Err(self.unresolved("type definition", name, self.loc(d, n)))
    }

    pub(crate) fn global_type(&mut self, key: Key) -> Result<TypeId, SchemaError> {
        if let Some(&t) = self.type_of_key.get(&key) {
            if self.type_state[t as usize] == 1 {
                let loc = self.c.types[t as usize].loc.clone();
                return Err(e(
                    SchemaErrorKind::Constraint,
                    format!("type definition {:?} is circular (it derives from itself)", self.c.names.display(key.1)),
                    loc,
                ));
            }
            return Ok(t);
        }
        let decl = self.registry[&key];
        let n = self.node(decl.doc, decl.rec);
        let id = self.reserve_type(decl.doc, n, Some(key.1));
        self.type_of_key.insert(key, id);
        if key.2 == 0 {
            self.c.global_types.insert(key.1, id);
        }
        if decl.redefining {
            self.redefining.push((Kind::Type, key.1));
        }
        let r = self.type_body(decl.doc, n, id);
        if decl.redefining {
            self.redefining.pop();
            if r.is_ok() {
                self.check_redefined_type(decl.doc, n, id, key)?;
            }
        }
        r?;
        Ok(id)
    }

    pub(crate) fn check_redefined_type(&mut self, d: usize, n: Node<'_>, id: TypeId, key: Key) -> Result<(), SchemaError> {
        // src-redefine.5: a redefined type must derive from its original by restriction or
        // extension named by the same name.
        let orig = self.type_of_key.get(&(Kind::Type, key.1, 1)).copied();
        if orig.is_none() || self.c.types[id as usize].base != orig.unwrap_or(u32::MAX) {
            return Err(e(
                SchemaErrorKind::Constraint,
                format!("a redefinition of {:?} must have the original as its base (src-redefine.5)", self.c.names.display(key.1)),
                self.loc(d, n),
            ));
        }
        Ok(())
    }

    pub(crate) fn reserve_type(&mut self, d: usize, n: Node<'_>, name: Option<NameId>) -> TypeId {
        let id = self.c.types.len() as TypeId;
        self.c.types.push(TypeDef {
            name,
            base: ANY_TYPE,
            derivation: Derivation::Restriction,
            abstract_: false,
            final_: 0,
            block: 0,
            body: TypeBody::Pending,
            loc: self.loc(d, n),
        });
        self.type_state.push(1);
        id
    }

    pub(crate) fn anonymous_type(&mut self, d: usize, n: Node<'a>) -> Result<TypeId, SchemaError> {
        if n.attribute("name").is_some() {
            return Err(e(SchemaErrorKind::Structure, format!("a local <xs:{}> must not have a name", n.local_name()), self.loc(d, n)));
        }
        let id = self.reserve_type(d, n, None);
        self.type_body(d, n, id)?;
        Ok(id)
    }

    pub(crate) fn type_body(&mut self, d: usize, n: Node<'a>, id: TypeId) -> Result<(), SchemaError> {
        let loc = self.loc(d, n);
        self.enter(&loc)?;
        self.check_attrs(d, n)?;
        let r = if n.local_name() == "simpleType" { self.simple_type(d, n, id) } else { self.complex_type(d, n, id) };
        self.depth -= 1;
        r?;
        self.type_state[id as usize] = 2;
        Ok(())
    }

    pub(crate) fn deriv_set(&self, d: usize, n: Node<'_>, attr: &str, allowed: u8) -> Result<u8, SchemaError> {
        let doc = &self.docs[d];
        let v = match n.attribute(attr) {
            Some(v) => v.into_owned(),
            None => {
                let dflt = if attr == "final" { &doc.final_default } else { &doc.block_default };
                // Defaults apply, limited to what the component allows.
                return Ok(parse_deriv_set(dflt).unwrap_or(0) & allowed);
            }
        };
        match parse_deriv_set(&v) {
            Some(s) if s & !allowed == 0 || v.trim() == "#all" => Ok(s & allowed),
            _ => Err(e(
                SchemaErrorKind::Structure,
                format!("`{attr}` value {:?} is not allowed on <xs:{}>", v.trim(), n.local_name()),
                self.loc(d, n),
            )),
        }
    }

    pub(crate) fn simple_of(&self, t: TypeId) -> Option<&SimpleDef> {
        self.c.types[t as usize].simple()
    }

    pub(crate) fn simple_type(&mut self, d: usize, n: Node<'a>, id: TypeId) -> Result<(), SchemaError> {
        let final_ = self.deriv_set(d, n, "final", deriv::RESTRICTION | deriv::LIST | deriv::UNION)?;
        self.c.types[id as usize].final_ = final_;
        let kids = xs_children(n);
        let [k] = kids.as_slice() else {
            return Err(e(
                SchemaErrorKind::Structure,
                "<xs:simpleType> must contain exactly one of restriction, list or union",
                self.loc(d, n),
            ));
        };
        let k = *k;
        self.check_attrs(d, k)?;
        let (base, derivation, def) = match k.local_name() {
            "restriction" => {
                let (base, rest) = self.simple_base(d, k, "base")?;
                let bdef = self.simple_def_for_restriction(d, k, base)?;
                if self.c.types[base as usize].final_ & deriv::RESTRICTION != 0 {
                    return Err(e(
                        SchemaErrorKind::Constraint,
                        "the base type's `final` forbids derivation by restriction (st-props-correct.3)",
                        self.loc(d, k),
                    ));
                }
                let st = self.facets(d, k, &bdef.st, &rest)?;
                let def = SimpleDef { st, ..bdef };
                (base, Derivation::Restriction, def)
            }
            "list" => {
                let (item, rest) = self.simple_base(d, k, "itemType")?;
                if let Some(x) = rest.first() {
                    return Err(e(SchemaErrorKind::Structure, format!("<xs:list> may not contain <{}>", x.name()), self.loc(d, *x)));
                }
                let idef = self
                    .simple_of(item)
                    .cloned()
                    .ok_or_else(|| e(SchemaErrorKind::Constraint, "the item type of a list must be a simple type", self.loc(d, k)))?;
                if self.c.types[item as usize].final_ & deriv::LIST != 0 {
                    return Err(e(
                        SchemaErrorKind::Constraint,
                        "the item type's `final` forbids derivation by list (cos-st-restricts.2.1)",
                        self.loc(d, k),
                    ));
                }
                let st = crate::datatypes::list(&idef.st).map_err(|m| e(SchemaErrorKind::SimpleType, m.to_string(), self.loc(d, k)))?;
                let id_kind = if idef.id_kind == IdKind::IdRef { IdKind::IdRefs } else { IdKind::None };
                (
                    ANY_SIMPLE_TYPE,
                    Derivation::List,
                    SimpleDef { st, id_kind, needs_ns: idef.needs_ns, is_notation: false, members: Vec::new() },
                )
            }
            "union" => {
                let mut members = Vec::new();
                if let Some(m) = k.attribute("memberTypes") {
                    for q in m.split_ascii_whitespace() {
                        members.push(self.type_by_name(d, k, q)?);
                    }
                }
                for c in xs_children(k) {
                    if !is_xs(&c, "simpleType") {
                        return Err(e(SchemaErrorKind::Structure, format!("<xs:union> may not contain <{}>", c.name()), self.loc(d, c)));
                    }
                    members.push(self.anonymous_type(d, c)?);
                }
                if members.is_empty() {
                    return Err(e(SchemaErrorKind::Structure, "<xs:union> needs at least one member type", self.loc(d, k)));
                }
                let mut sts = Vec::new();
                let mut needs_ns = false;
                for m in &members {
                    let Some(sd) = self.simple_of(*m) else {
                        return Err(e(SchemaErrorKind::Constraint, "a union's member types must be simple types", self.loc(d, k)));
                    };
                    if self.c.types[*m as usize].final_ & deriv::UNION != 0 {
                        return Err(e(
                            SchemaErrorKind::Constraint,
                            "a member type's `final` forbids derivation by union (cos-st-restricts.3.1)",
                            self.loc(d, k),
                        ));
                    }
                    needs_ns |= sd.needs_ns;
                    sts.push(sd.st.clone());
                }
                let st = crate::datatypes::union(&sts).map_err(|m| e(SchemaErrorKind::SimpleType, m.to_string(), self.loc(d, k)))?;
                let id_kind = if members.iter().any(|&m| self.simple_of(m).is_some_and(|s| s.id_kind != IdKind::None)) {
                    IdKind::Union
                } else {
                    IdKind::None
                };
                (ANY_SIMPLE_TYPE, Derivation::Union, SimpleDef { st, id_kind, needs_ns, is_notation: false, members })
            }
            other => {
                return Err(e(
                    SchemaErrorKind::Structure,
                    format!("expected restriction, list or union in <xs:simpleType>; found <xs:{other}>"),
                    self.loc(d, k),
                ))
            }
        };
        let t = &mut self.c.types[id as usize];
        t.base = base;
        t.derivation = derivation;
        t.body = TypeBody::Simple(def);
        Ok(())
    }

    /// The simple base named by `attr` or given inline; the other children returned.
    pub(crate) fn simple_base(&mut self, d: usize, k: Node<'a>, attr: &str) -> Result<(TypeId, Vec<Node<'a>>), SchemaError> {
        let mut kids = xs_children(k);
        let inline = kids.first().filter(|c| is_xs(c, "simpleType")).copied();
        let base = match (k.attribute(attr), inline) {
            (Some(_), Some(_)) => {
                return Err(e(
                    SchemaErrorKind::Structure,
                    format!("<xs:{}> has both a `{attr}` attribute and an inline simpleType", k.local_name()),
                    self.loc(d, k),
                ))
            }
            (Some(q), None) => self.type_by_name(d, k, &q)?,
            (None, Some(c)) => {
                kids.remove(0);
                self.anonymous_type(d, c)?
            }
            (None, None) => {
                return Err(e(
                    SchemaErrorKind::Structure,
                    format!("<xs:{}> needs a `{attr}` attribute or an inline simpleType", k.local_name()),
                    self.loc(d, k),
                ))
            }
        };
        Ok((base, kids))
    }

    pub(crate) fn simple_def_for_restriction(&self, d: usize, k: Node<'_>, base: TypeId) -> Result<SimpleDef, SchemaError> {
        if base == ANY_SIMPLE_TYPE {
            return Err(e(
                SchemaErrorKind::Constraint,
                "anySimpleType cannot be restricted directly; restrict a primitive type",
                self.loc(d, k),
            ));
        }
        self.simple_of(base)
            .cloned()
            .ok_or_else(|| e(SchemaErrorKind::Constraint, "the base of a simple type must be a simple type", self.loc(d, k)))
    }

    /// Applies the facet children `rest` to `base`.
    pub(crate) fn facets(&mut self, d: usize, k: Node<'_>, base: &SimpleType, rest: &[Node<'_>]) -> Result<SimpleType, SchemaError> {
        let mut specs = Vec::new();
        let mut ns = NsMap::default();
        for f in rest {
            self.check_attrs(d, *f)?;
            let Some(kind) = simple::facet_kind(f.local_name()) else {
                return Err(e(SchemaErrorKind::Structure, format!("expected a facet; found <{}>", f.name()), self.loc(d, *f)));
            };
            let Some(v) = f.attribute("value") else {
                return Err(e(SchemaErrorKind::Structure, format!("<xs:{}> needs a value", f.local_name()), self.loc(d, *f)));
            };
            let fixed = match f.attribute("fixed").as_deref().map(str::trim) {
                None | Some("false") | Some("0") => false,
                Some("true") | Some("1") => true,
                Some(x) => return Err(e(SchemaErrorKind::Structure, format!("`fixed` must be a boolean; found {x:?}"), self.loc(d, *f))),
            };
            let mut spec = crate::datatypes::FacetSpec::new(kind, v.into_owned());
            if fixed {
                spec = spec.fixed();
            }
            specs.push(spec);
        }
        if specs.iter().any(simple::needs_ns) {
            ns = NsMap(k.namespaces().into_iter().rev().map(|(p, u)| (p.to_string(), u.to_string())).collect());
        }
        crate::datatypes::restrict(base, &specs, &ns).map_err(|m| e(SchemaErrorKind::SimpleType, m.to_string(), self.loc(d, k)))
    }

    pub(crate) fn complex_type(&mut self, d: usize, n: Node<'a>, id: TypeId) -> Result<(), SchemaError> {
        let abstract_ = bool_attr(self, d, n, "abstract")?;
        let final_ = self.deriv_set(d, n, "final", deriv::EXTENSION | deriv::RESTRICTION)?;
        let block = self.deriv_set(d, n, "block", deriv::EXTENSION | deriv::RESTRICTION)?;
        {
            let t = &mut self.c.types[id as usize];
            t.abstract_ = abstract_;
            t.final_ = final_;
            t.block = block;
        }
        let mixed_attr = bool_attr(self, d, n, "mixed")?;
        let kids = xs_children(n);
        let first = kids.first().copied();
        if let Some(c) = first.filter(|c| is_xs(c, "simpleContent") || is_xs(c, "complexContent")) {
            if kids.len() > 1 {
                return Err(e(
                    SchemaErrorKind::Structure,
                    format!("<xs:{}> must be the only child of <xs:complexType>", c.local_name()),
                    self.loc(d, kids[1]),
                ));
            }
            self.check_attrs(d, c)?;
            let dk = xs_children(c);
            let [dn] = dk.as_slice() else {
                return Err(e(
                    SchemaErrorKind::Structure,
                    format!("<xs:{}> must contain exactly one restriction or extension", c.local_name()),
                    self.loc(d, c),
                ));
            };
            let dn = *dn;
            self.check_attrs(d, dn)?;
            let ext = match dn.local_name() {
                "extension" => true,
                "restriction" => false,
                other => {
                    return Err(e(
                        SchemaErrorKind::Structure,
                        format!("expected restriction or extension; found <xs:{other}>"),
                        self.loc(d, dn),
                    ))
                }
            };
            let Some(bq) = dn.attribute("base") else {
                return Err(e(SchemaErrorKind::Structure, "derivation needs a `base` attribute", self.loc(d, dn)));
            };
            let base = self.type_by_name(d, dn, &bq)?;
            let bfinal = self.c.types[base as usize].final_;
            if bfinal & (if ext { deriv::EXTENSION } else { deriv::RESTRICTION }) != 0 {
                return Err(e(
                    SchemaErrorKind::Constraint,
                    format!(
                        "the base type's `final` forbids derivation by {} (cos-ct-extends.1.1 / derivation-ok-restriction.1)",
                        if ext { "extension" } else { "restriction" }
                    ),
                    self.loc(d, dn),
                ));
            }
            let t = &mut self.c.types[id as usize];
            t.base = base;
            t.derivation = if ext { Derivation::Extension } else { Derivation::Restriction };
            if is_xs(&c, "simpleContent") {
                if c.attribute("mixed").is_some() {
                    return Err(e(SchemaErrorKind::Structure, "attribute `mixed` is not allowed on <xs:simpleContent>", self.loc(d, c)));
                }
                self.simple_content(d, dn, id, base, ext)?;
            } else {
                let mixed = match c.attribute("mixed") {
                    Some(_) => bool_attr(self, d, c, "mixed")?,
                    None => mixed_attr,
                };
                self.complex_content(d, dn, id, base, ext, mixed)?;
            }
        } else {
            // Shorthand: a restriction of anyType.
            let t = &mut self.c.types[id as usize];
            t.base = ANY_TYPE;
            t.derivation = Derivation::Restriction;
            let (particle, attr_nodes) = self.split_particle(d, n, &kids)?;
            let content = self.effective_content(particle, mixed_attr);
            let (attrs, wc) = self.attribute_uses(d, n, &attr_nodes)?;
            let def = ComplexDef { attrs, attr_wildcard: wc, content };
            self.check_attr_uses(d, n, &def)?;
            self.c.types[id as usize].body = TypeBody::Complex(def);
            self.check_restriction(d, n, id)?;
        }
        Ok(())
    }

    /// Splits complexType/extension/restriction children into the particle and the
    /// attribute declarations, checking their order.
    pub(crate) fn split_particle(
        &mut self,
        d: usize,
        parent: Node<'a>,
        kids: &[Node<'a>],
    ) -> Result<(Option<Particle>, Vec<Node<'a>>), SchemaError> {
        let mut i = 0;
        let mut particle = None;
        if let Some(k) = kids.first() {
            if matches!(k.local_name(), "sequence" | "choice" | "all" | "group") && k.namespace_uri() == Some(XS) {
                particle = self.particle(d, *k, true)?;
                i = 1;
            }
        }
        let rest = kids[i..].to_vec();
        let mut seen_any = false;
        for r in &rest {
            match r.local_name() {
                "attribute" | "attributeGroup" if !seen_any => {}
                "anyAttribute" if !seen_any => seen_any = true,
                other => {
                    return Err(e(
                        SchemaErrorKind::Structure,
                        format!(
                            "<xs:{other}> is not allowed here in <xs:{}> (expected attribute declarations after the content model)",
                            parent.local_name()
                        ),
                        self.loc(d, *r),
                    ))
                }
            }
        }
        Ok((particle, rest))
    }

    pub(crate) fn effective_content(&mut self, particle: Option<Particle>, mixed: bool) -> Content {
        let empty = match &particle {
            None => true,
            Some(p) => particle_empty(p),
        };
        if empty {
            if mixed {
                let id = self.particle_id();
                Content::Elements {
                    particle: Particle { min: 1, max: 1, term: Term::Group(Compositor::Sequence, vec![]), id },
                    mixed: true,
                    automaton: u32::MAX,
                }
            } else {
                Content::Empty
            }
        } else {
            Content::Elements { particle: particle.expect("non-empty"), mixed, automaton: u32::MAX }
        }
    }

    pub(crate) fn complex_content(
        &mut self,
        d: usize,
        dn: Node<'a>,
        id: TypeId,
        base: TypeId,
        ext: bool,
        mixed: bool,
    ) -> Result<(), SchemaError> {
        let kids = xs_children(dn);
        let (particle, attr_nodes) = self.split_particle(d, dn, &kids)?;
        let Some(bdef) = self.c.types[base as usize].complex().cloned() else {
            return Err(e(
                SchemaErrorKind::Constraint,
                "the base of <xs:complexContent> must be a complex type (src-ct.1)",
                self.loc(d, dn),
            ));
        };
        let (own_attrs, own_wc) = self.attribute_uses(d, dn, &attr_nodes)?;
        let own = self.effective_content(particle, mixed);
        let def = if ext {
            // cos-ct-extends: the base's content comes first.
            let content = match (&bdef.content, own) {
                (Content::Simple(_), c) if !matches!(c, Content::Empty) => {
                    return Err(e(
                        SchemaErrorKind::Constraint,
                        "a type with simple content cannot be extended with element content (cos-ct-extends.1.4)",
                        self.loc(d, dn),
                    ))
                }
                (Content::Simple(_), _) => {
                    return Err(e(
                        SchemaErrorKind::Constraint,
                        "a complexContent extension's base must not have simple content (src-ct.1)",
                        self.loc(d, dn),
                    ))
                }
                (b, Content::Empty) => b.clone(),
                (Content::Elements { .. }, Content::Simple(_)) => unreachable_simple(),
                (Content::Empty, c) => c,
                (Content::Elements { particle: bp, mixed: bm, .. }, Content::Elements { particle: op, mixed: om, .. }) => {
                    if *bm != om {
                        return Err(e(
                            SchemaErrorKind::Constraint,
                            "an extension must be mixed exactly when its base is (cos-ct-extends.1.4.3.2.2.1)",
                            self.loc(d, dn),
                        ));
                    }
                    if is_all(bp) || is_all(&op) {
                        if particle_empty(bp) {
                            Content::Elements { particle: op, mixed: om, automaton: u32::MAX }
                        } else {
                            return Err(e(
                                SchemaErrorKind::Constraint,
                                "an `all` group cannot be extended with more particles (cos-all-limited)",
                                self.loc(d, dn),
                            ));
                        }
                    } else {
                        let pid = self.particle_id();
                        Content::Elements {
                            particle: Particle { min: 1, max: 1, term: Term::Group(Compositor::Sequence, vec![bp.clone(), op]), id: pid },
                            mixed: om,
                            automaton: u32::MAX,
                        }
                    }
                }
            };
            let mut attrs = bdef.attrs.clone();
            for u in own_attrs {
                let nm = self.c.attributes[u.decl as usize].name;
                if attrs.iter().any(|a| self.c.attributes[a.decl as usize].name == nm) {
                    return Err(e(
                        SchemaErrorKind::Constraint,
                        format!("attribute {:?} is already declared by the base type (ct-props-correct.4)", self.c.names.display(nm)),
                        self.loc(d, dn),
                    ));
                }
                attrs.push(u);
            }
            let wc = match (own_wc, &bdef.attr_wildcard) {
                (None, b) => b.clone(),
                (Some(o), None) => Some(o),
                (Some(o), Some(b)) => match wildcard_union(&o, b) {
                    Some(u) => Some(u),
                    None => {
                        return Err(e(
                            SchemaErrorKind::Constraint,
                            "the union of the attribute wildcards is not expressible (cos-aw-union)",
                            self.loc(d, dn),
                        ))
                    }
                },
            };
            ComplexDef { attrs, attr_wildcard: wc, content }
        } else {
            let attrs = self.restrict_attrs(d, dn, &bdef, own_attrs)?;
            ComplexDef { attrs, attr_wildcard: own_wc, content: own }
        };
        let n = dn;
        self.check_attr_uses(d, n, &def)?;
        self.c.types[id as usize].body = TypeBody::Complex(def);
        if !ext {
            self.check_restriction(d, dn, id)?;
        }
        Ok(())
    }

    /// Attribute uses of a restriction: its own, plus the base's it does not mention,
    /// minus the prohibited ones (which `own` carries as `required = false` with a
    /// prohibited marker removed before).
    pub(crate) fn restrict_attrs(
        &mut self,
        d: usize,
        dn: Node<'_>,
        bdef: &ComplexDef,
        own: Vec<AttrUse>,
    ) -> Result<Vec<AttrUse>, SchemaError> {
        let prohibited = self.prohibited.clone();
        let mut attrs: Vec<AttrUse> = Vec::new();
        for b in &bdef.attrs {
            let nm = self.c.attributes[b.decl as usize].name;
            let mentioned = own.iter().any(|u| self.c.attributes[u.decl as usize].name == nm) || prohibited.contains(&nm);
            if !mentioned {
                attrs.push(b.clone());
            } else if prohibited.contains(&nm) && b.required {
                return Err(e(
                    SchemaErrorKind::Constraint,
                    format!(
                        "attribute {:?} is required in the base type and cannot be prohibited (derivation-ok-restriction.3)",
                        self.c.names.display(nm)
                    ),
                    self.loc(d, dn),
                ));
            }
        }
        attrs.extend(own);
        Ok(attrs)
    }

    pub(crate) fn simple_content(&mut self, d: usize, dn: Node<'a>, id: TypeId, base: TypeId, ext: bool) -> Result<(), SchemaError> {
        let kids = xs_children(dn);
        let bt = self.c.types[base as usize].clone();
        let def = if ext {
            let (p, attr_nodes) = self.split_particle(d, dn, &kids)?;
            if p.is_some() {
                return Err(e(SchemaErrorKind::Structure, "a simpleContent extension cannot add a content model", self.loc(d, dn)));
            }
            let content = match &bt.body {
                TypeBody::Simple(_) => Content::Simple(base),
                TypeBody::Complex(ComplexDef { content: Content::Simple(s), .. }) => Content::Simple(*s),
                _ => {
                    return Err(e(
                        SchemaErrorKind::Constraint,
                        "the base of a simpleContent extension must be a simple type or a complex type with simple content (src-ct.2)",
                        self.loc(d, dn),
                    ))
                }
            };
            let (own, wc) = self.attribute_uses(d, dn, &attr_nodes)?;
            let (mut attrs, bwc) = match bt.complex() {
                Some(c) => (c.attrs.clone(), c.attr_wildcard.clone()),
                None => (Vec::new(), None),
            };
            for u in own {
                let nm = self.c.attributes[u.decl as usize].name;
                if attrs.iter().any(|a| self.c.attributes[a.decl as usize].name == nm) {
                    return Err(e(
                        SchemaErrorKind::Constraint,
                        format!("attribute {:?} is already declared by the base type (ct-props-correct.4)", self.c.names.display(nm)),
                        self.loc(d, dn),
                    ));
                }
                attrs.push(u);
            }
            let wc = match (wc, bwc) {
                (None, b) => b,
                (Some(o), None) => Some(o),
                (Some(o), Some(b)) => wildcard_union(&o, &b),
            };
            ComplexDef { attrs, attr_wildcard: wc, content }
        } else {
            let Some(bdef) = bt.complex().cloned() else {
                return Err(e(
                    SchemaErrorKind::Constraint,
                    "the base of a simpleContent restriction must be a complex type (src-ct.2)",
                    self.loc(d, dn),
                ));
            };
            let mut rest = kids.clone();
            let inline = rest.first().filter(|c| is_xs(c, "simpleType")).copied();
            if inline.is_some() {
                rest.remove(0);
            }
            let content_base = match (&bdef.content, inline) {
                (Content::Simple(s), None) => *s,
                (_, Some(st)) => {
                    let ok = match &bdef.content {
                        Content::Simple(_) => true,
                        Content::Elements { particle, mixed: true, .. } => particle_emptiable(particle),
                        _ => false,
                    };
                    if !ok {
                        return Err(e(
                            SchemaErrorKind::Constraint,
                            "the base of a simpleContent restriction must have simple content, or mixed emptiable content with an inline simpleType (src-ct.2)",
                            self.loc(d, dn),
                        ));
                    }
                    let t = self.anonymous_type(d, st)?;
                    if let Content::Simple(b) = &bdef.content {
                        if !self.derives(t, *b, 0) {
                            return Err(e(
                                SchemaErrorKind::Constraint,
                                "the inline simpleType must derive from the base's content type (derivation-ok-restriction.5.1)",
                                self.loc(d, st),
                            ));
                        }
                    }
                    t
                }
                _ => {
                    return Err(e(
                        SchemaErrorKind::Constraint,
                        "the base of a simpleContent restriction must have simple content (src-ct.2)",
                        self.loc(d, dn),
                    ))
                }
            };
            // Facets, then attribute declarations.
            let split =
                rest.iter().position(|c| matches!(c.local_name(), "attribute" | "attributeGroup" | "anyAttribute")).unwrap_or(rest.len());
            let (facets, attr_nodes) = rest.split_at(split);
            let content = if facets.is_empty() {
                content_base
            } else {
                let bdef_s = self
                    .simple_of(content_base)
                    .cloned()
                    .ok_or_else(|| e(SchemaErrorKind::Constraint, "simple content base must be simple", self.loc(d, dn)))?;
                let st = self.facets(d, dn, &bdef_s.st, facets)?;
                let nt = self.reserve_type(d, dn, None);
                let t = &mut self.c.types[nt as usize];
                t.base = content_base;
                t.body = TypeBody::Simple(SimpleDef { st, ..bdef_s });
                self.type_state[nt as usize] = 2;
                nt
            };
            let (_p, attr_nodes) = self.split_particle(d, dn, attr_nodes)?;
            let (own, wc) = self.attribute_uses(d, dn, &attr_nodes)?;
            let attrs = self.restrict_attrs(d, dn, &bdef, own)?;
            ComplexDef { attrs, attr_wildcard: wc, content: Content::Simple(content) }
        };
        self.check_attr_uses(d, dn, &def)?;
        self.c.types[id as usize].body = TypeBody::Complex(def);
        if !ext {
            self.check_restriction(d, dn, id)?;
        }
        Ok(())
    }

    pub(crate) fn check_attr_uses(&self, d: usize, n: Node<'_>, def: &ComplexDef) -> Result<(), SchemaError> {
        let mut ids = 0;
        for (i, u) in def.attrs.iter().enumerate() {
            let a = &self.c.attributes[u.decl as usize];
            if def.attrs[..i].iter().any(|v| self.c.attributes[v.decl as usize].name == a.name) {
                return Err(e(
                    SchemaErrorKind::Constraint,
                    format!("attribute {:?} is declared twice in one type (ct-props-correct.4)", self.c.names.display(a.name)),
                    self.loc(d, n),
                ));
            }
            if self.simple_of(a.type_).is_some_and(|s| s.id_kind == IdKind::Id) {
                ids += 1;
            }
        }
        if ids > 1 {
            return Err(e(
                SchemaErrorKind::Constraint,
                "a type may have at most one attribute of type ID (ct-props-correct.5)",
                self.loc(d, n),
            ));
        }
        Ok(())
    }

    /// derivation-ok-restriction (§3.4.6): attributes and wildcard; the content model is
    /// checked by the compiler (`particle::restriction_ok`).
    pub(crate) fn check_restriction(&self, d: usize, n: Node<'_>, id: TypeId) -> Result<(), SchemaError> {
        let t = &self.c.types[id as usize];
        if t.base == ANY_TYPE || id == ANY_TYPE {
            return Ok(());
        }
        let (Some(def), Some(bdef)) = (t.complex(), self.c.types[t.base as usize].complex()) else { return Ok(()) };
        self.attrs_restrict(&def.attrs, def.attr_wildcard.as_ref(), &bdef.attrs, bdef.attr_wildcard.as_ref(), "base type")
            .map_err(|m| e(SchemaErrorKind::Constraint, m, self.loc(d, n)))
    }

    /// Clauses 2 to 4 of derivation-ok-restriction (§3.4.6): the attribute uses and
    /// wildcard `attrs`/`wc` allow only what `battrs`/`bwc` allow (`what` names the
    /// latter in the message: "base type", "original attribute group").
    pub(crate) fn attrs_restrict(
        &self,
        attrs: &[AttrUse],
        wc: Option<&Wildcard>,
        battrs: &[AttrUse],
        bwc: Option<&Wildcard>,
        what: &str,
    ) -> Result<(), String> {
        for u in attrs {
            let a = &self.c.attributes[u.decl as usize];
            let bu = battrs.iter().find(|b| self.c.attributes[b.decl as usize].name == a.name);
            let name = self.c.names.display(a.name);
            match bu {
                Some(b) => {
                    let ba = &self.c.attributes[b.decl as usize];
                    if b.required && !u.required {
                        return Err(format!("attribute {name:?} is required in the {what} (derivation-ok-restriction.2.1.1)"));
                    }
                    if !self.derives(a.type_, ba.type_, 0) {
                        return Err(format!(
                            "the type of attribute {name:?} does not derive from its type in the {what} (derivation-ok-restriction.2.1.2)"
                        ));
                    }
                    let bvc = b.vc.as_ref().or(ba.vc.as_ref());
                    let vc = u.vc.as_ref().or(a.vc.as_ref());
                    if let Some(bv) = bvc.filter(|v| v.fixed) {
                        if !vc.is_some_and(|v| v.fixed && v.value == bv.value) {
                            return Err(format!(
                                "attribute {name:?} has a fixed value in the {what} that the restriction must keep (derivation-ok-restriction.2.1.3)"
                            ));
                        }
                    }
                }
                None => {
                    let ns = self.c.names.ns_of(a.name);
                    if !bwc.is_some_and(|w| w.ns.allows(ns)) {
                        return Err(format!(
                            "attribute {name:?} is neither declared in the {what} nor allowed by its wildcard (derivation-ok-restriction.2.2)"
                        ));
                    }
                }
            }
        }
        for b in battrs {
            if b.required {
                let bn = self.c.attributes[b.decl as usize].name;
                if !attrs.iter().any(|u| self.c.attributes[u.decl as usize].name == bn) {
                    return Err(format!(
                        "required attribute {:?} of the {what} is missing (derivation-ok-restriction.3)",
                        self.c.names.display(bn)
                    ));
                }
            }
        }
        if let Some(w) = wc {
            if !bwc.is_some_and(|bw| wildcard_subset(w, bw)) {
                return Err(format!("the attribute wildcard must be a subset of the {what}'s (derivation-ok-restriction.4)"));
            }
        }
        Ok(())
    }

    /// src-redefine.6 and 7 (§4.2.2): a model group or attribute group redefined without
    /// a reference to itself must restrict the original of the redefined schema
    /// (6.2.2, 7.2.2). Run after every component is built.
    pub(crate) fn check_redefined_groups(&mut self) -> Result<(), SchemaError> {
        for (key, d, rec) in std::mem::take(&mut self.redefine_checks) {
            let n = self.node(d, rec);
            let orig = (key.0, key.1, 1);
            let name = self.c.names.display(key.1);
            let r = match key.0 {
                Kind::Group => {
                    let (Some(p), Some(o)) = (self.groups.get(&key), self.groups.get(&orig)) else { continue };
                    crate::restriction::group_restricts(&self.c, p, o).map_err(|m| {
                        format!("the redefined model group {name:?} is not a valid restriction of the original (src-redefine.6.2.2): {m}")
                    })
                }
                _ => {
                    let (Some((ua, uw)), Some((oa, ow))) = (self.attr_groups.get(&key), self.attr_groups.get(&orig)) else { continue };
                    self.attrs_restrict(ua, uw.as_ref(), oa, ow.as_ref(), "original attribute group").map_err(|m| {
                        format!(
                            "the redefined attribute group {name:?} is not a valid restriction of the original (src-redefine.7.2.2): {m}"
                        )
                    })
                }
            };
            r.map_err(|m| e(SchemaErrorKind::Constraint, m, self.loc(d, n)))?;
        }
        Ok(())
    }

    /// Does the group definition `n` (a redefinition of `name`) contain a reference to
    /// `name` at some level (src-redefine.6.1, 7.1)?
    pub(crate) fn refers_to_self(&mut self, d: usize, n: Node<'_>, name: NameId) -> bool {
        let local = n.local_name();
        n.descendant_elements()
            .filter(|c| is_xs(c, local))
            .any(|c| c.attribute("ref").is_some_and(|r| self.qname(d, c, &r).is_ok_and(|q| q == name)))
    }

    /// Notes a model group or attribute group built inside `xs:redefine`: without a
    /// self-reference the redefined schema must have an original to restrict
    /// (src-redefine.6.2.1, 7.2.1), checked by [`Builder::check_redefined_groups`].
    pub(crate) fn redefined_group(&mut self, key: Key, d: usize, n: Node<'_>) -> Result<(), SchemaError> {
        let (what, clause) = if key.0 == Kind::Group { ("model group", 6) } else { ("attribute group", 7) };
        let has_orig = self.registry.contains_key(&(key.0, key.1, 1));
        if self.refers_to_self(d, n, key.1) {
            return Ok(());
        }
        if !has_orig {
            return Err(e(
                SchemaErrorKind::Constraint,
                format!(
                    "the redefined schema has no {what} named {:?} to redefine (src-redefine.{clause}.2.1)",
                    self.c.names.display(key.1)
                ),
                self.loc(d, n),
            ));
        }
        self.redefine_checks.push((key, d, n.record().expect("element record")));
        Ok(())
    }

    /// Is `t` derived from `base` (reflexively), not using any method in `blocked`?
    pub(crate) fn derives(&self, t: TypeId, base: TypeId, blocked: u8) -> bool {
        derives(&self.c.types, t, base, blocked)
    }
}

/// Type derivation OK (§3.4.6 / §3.14.6): `t` reaches `base` by its base chain (or a union
/// member), with no step's method in `blocked`.
pub(crate) fn derives(types: &[TypeDef], t: TypeId, base: TypeId, blocked: u8) -> bool {
    let mut cur = t;
    let mut steps = 0;
    loop {
        if cur == base {
            return true;
        }
        if base == ANY_TYPE {
            // Every type derives from anyType; check only the blocked methods on the way.
            let _ = blocked;
        }
        let td = &types[cur as usize];
        if cur == ANY_TYPE || steps > types.len() {
            return base == ANY_TYPE && blocked == 0;
        }
        let m = match td.derivation {
            Derivation::Extension => deriv::EXTENSION,
            _ => deriv::RESTRICTION,
        };
        if blocked & m != 0 {
            return false;
        }
        if td.base == cur {
            return false;
        }
        cur = td.base;
        steps += 1;
    }
}

/// Substitution Group OK (Transitive) §3.3.6 clause 2.3: `t` derives from `base`, and no
/// method used on the way is in `blocked` (the head's `block` and its type's) or in the
/// `block` of a type in between.
pub(crate) fn substitutable(types: &[TypeDef], t: TypeId, base: TypeId, blocked: u8) -> bool {
    if !derives(types, t, base, 0) {
        return false;
    }
    let (mut methods, mut blocks) = (0u8, blocked);
    let mut cur = t;
    let mut steps = 0;
    while cur != base && steps <= types.len() {
        let td = &types[cur as usize];
        methods |= if td.derivation == Derivation::Extension { deriv::EXTENSION } else { deriv::RESTRICTION };
        if td.base == cur {
            break;
        }
        cur = td.base;
        if cur != base {
            blocks |= types[cur as usize].block;
        }
        steps += 1;
    }
    methods & blocks & (deriv::EXTENSION | deriv::RESTRICTION) == 0
}

pub(crate) fn bool_attr(b: &Builder<'_>, d: usize, n: Node<'_>, name: &str) -> Result<bool, SchemaError> {
    match n.attribute(name).as_deref().map(str::trim) {
        None | Some("false") | Some("0") => Ok(false),
        Some("true") | Some("1") => Ok(true),
        Some(v) => Err(e(SchemaErrorKind::Structure, format!("`{name}` must be a boolean; found {v:?}"), b.loc(d, n))),
    }
}

pub(crate) fn parse_deriv_set(s: &str) -> Option<u8> {
    let s = s.trim();
    if s == "#all" {
        return Some(0xff);
    }
    let mut r = 0;
    for t in s.split_ascii_whitespace() {
        r |= match t {
            "extension" => deriv::EXTENSION,
            "restriction" => deriv::RESTRICTION,
            "substitution" => deriv::SUBSTITUTION,
            "list" => deriv::LIST,
            "union" => deriv::UNION,
            _ => return None,
        };
    }
    Some(r)
}

fn builtin_depth(b: Builtin) -> usize {
    let mut n = 0;
    let mut c = b;
    while let Some(p) = c.base() {
        n += 1;
        c = p;
    }
    n
}

pub(crate) fn particle_empty(p: &Particle) -> bool {
    p.max == 0
        || match &p.term {
            Term::Group(_, v) => v.iter().all(particle_empty),
            _ => false,
        }
}

pub(crate) fn particle_emptiable(p: &Particle) -> bool {
    p.min == 0
        || match &p.term {
            Term::Group(Compositor::Choice, v) => v.is_empty() || v.iter().any(particle_emptiable),
            Term::Group(_, v) => v.iter().all(particle_emptiable),
            _ => false,
        }
}

fn is_all(p: &Particle) -> bool {
    matches!(p.term, Term::Group(Compositor::All, _))
}

/// Attribute wildcard union (§3.10.6 cos-aw-union); `None` when not expressible.
pub(crate) fn wildcard_union(a: &Wildcard, b: &Wildcard) -> Option<Wildcard> {
    let ns = match (&a.ns, &b.ns) {
        (x, y) if x == y => x.clone(),
        (NsCons::Any, _) | (_, NsCons::Any) => NsCons::Any,
        (NsCons::Set(x), NsCons::Set(y)) => {
            let mut v = x.clone();
            for i in y {
                if !v.contains(i) {
                    v.push(*i);
                }
            }
            NsCons::Set(v)
        }
        (NsCons::Not(_), NsCons::Not(_)) => NsCons::Not(0),
        (NsCons::Not(n), NsCons::Set(s)) | (NsCons::Set(s), NsCons::Not(n)) => {
            if *n == 0 || s.contains(n) {
                if s.contains(&0) {
                    NsCons::Any
                } else {
                    NsCons::Not(0)
                }
            } else if s.contains(&0) {
                return None;
            } else {
                NsCons::Not(*n)
            }
        }
    };
    Some(Wildcard { ns, process: a.process })
}

/// Attribute wildcard intersection (§3.10.6 cos-aw-intersect); `None` when not expressible.
pub(crate) fn wildcard_intersection(a: &Wildcard, b: &Wildcard) -> Option<Wildcard> {
    let ns = match (&a.ns, &b.ns) {
        (x, y) if x == y => x.clone(),
        (NsCons::Any, o) | (o, NsCons::Any) => o.clone(),
        (NsCons::Not(n), NsCons::Set(s)) | (NsCons::Set(s), NsCons::Not(n)) => {
            NsCons::Set(s.iter().copied().filter(|x| x != n && *x != 0).collect())
        }
        (NsCons::Set(x), NsCons::Set(y)) => NsCons::Set(x.iter().copied().filter(|i| y.contains(i)).collect()),
        (NsCons::Not(x), NsCons::Not(y)) => {
            if *x == 0 {
                NsCons::Not(*y)
            } else if *y == 0 {
                NsCons::Not(*x)
            } else {
                return None;
            }
        }
    };
    Some(Wildcard { ns, process: a.process })
}

/// Wildcard subset (§3.10.6 cos-ns-subset).
pub(crate) fn wildcard_subset(sub: &Wildcard, sup: &Wildcard) -> bool {
    match (&sub.ns, &sup.ns) {
        (_, NsCons::Any) => true,
        (NsCons::Not(a), NsCons::Not(b)) => a == b || *b == 0,
        (NsCons::Set(s), NsCons::Not(b)) => s.iter().all(|x| x != b && *x != 0),
        (NsCons::Set(s), NsCons::Set(t)) => s.iter().all(|x| t.contains(x)),
        _ => false,
    }
}

impl NameTable {
    pub(crate) fn ns_map_get(&self, uri: &str) -> Option<NsIdx> {
        let i = self.find_ns(uri);
        (i != NS_UNKNOWN).then_some(i)
    }
}

impl std::ops::Deref for Builder<'_> {
    type Target = Components;
    fn deref(&self) -> &Components {
        &self.c
    }
}
impl std::ops::DerefMut for Builder<'_> {
    fn deref_mut(&mut self) -> &mut Components {
        &mut self.c
    }
}

/// `effective_content` never yields simple content.
fn unreachable_simple() -> Content {
    Content::Empty
}
