//! Content models with large occurrence counts, run with counters instead of expanded.
//!
//! A model whose expansion would be large (`maxOccurs="1000000"`, nested ranges such as a
//! sequence `maxOccurs="1000"` of an element `maxOccurs="1000"`, or a `minOccurs` in the
//! millions) keeps its particle tree: compiling it costs time and memory linear in the
//! number of particles, whatever the counts. While an element's children are validated, a
//! *configuration* says where the last child stood: the leaf particle (element or wildcard)
//! it matched and, for every particle on the path from the root to that leaf, how many
//! iterations of it have been started inside the current iteration of its parent. A child
//! moves a configuration by iterating a particle again (its count below `maxOccurs`),
//! leaving it (its count at least `minOccurs`, or its term emptiable) for the next particles
//! of the enclosing sequence, or entering a particle for its first iteration.
//!
//! Unique Particle Attribution guarantees that every child matches one particle, but not
//! that the counts are determined (in `(a{1,2}){2}` the second `a` may be the first group's
//! second or the second group's first), so the state is a small set of configurations,
//! deduplicated after each step, with configurations that another one *dominates* removed
//! (same leaf; every count equal, or both at or above the particle's `minOccurs` and the
//! other's lower: fewer iterations used leave at least as many futures). Counts of an
//! unbounded particle are kept only up to its `minOccurs` (more make no difference). For
//! deterministic counts (the usual case) the set has one member and a step costs the depth
//! of the particle tree. The set's size is limited (`SchemaLimits::max_counter_configs`);
//! a document that goes beyond it gets a `Limit` error instead of unbounded work.

use crate::automaton::{element_matches, CompileError, Matched};
use crate::build::Components;
use crate::model::*;

const NONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
enum Kind {
    /// The names the element particle matches (sorted) with the declaration each stands for.
    Elem(Vec<(NameId, ElemId)>),
    Wild(u32),
    Seq(Vec<u32>),
    Choice(Vec<u32>),
}

#[derive(Debug, Clone)]
struct Node {
    kind: Kind,
    parent: u32,
    /// Index among the parent's children.
    index: u32,
    min: u32,
    max: u32,
    term_nullable: bool,
    /// minOccurs 0 or an emptiable term.
    skippable: bool,
    /// Names that can start the term (sorted) and wildcards that can.
    first: Vec<NameId>,
    first_wild: Vec<u32>,
}

impl Node {
    /// The count from which leaving the particle is allowed.
    fn exit_min(&self) -> u32 {
        if self.term_nullable {
            0
        } else {
            self.min
        }
    }

    /// Counts of an unbounded particle matter only up to its minOccurs.
    fn norm(&self, c: u32) -> u32 {
        if self.max == UNBOUNDED {
            c.min(self.min.max(1))
        } else {
            c
        }
    }
}

/// A content model run with counters.
#[derive(Debug, Clone)]
pub(crate) struct CountedModel {
    nodes: Vec<Node>,
    pub(crate) wildcards: Vec<Wildcard>,
    max_configs: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Config {
    leaf: u32,
    /// Counts of the particles on the path from the root to `leaf`, root first.
    counts: Vec<u32>,
}

/// Where validation of one element's children stands.
#[derive(Debug, Default)]
pub(crate) struct CountedState {
    started: bool,
    configs: Vec<Config>,
}

#[derive(Clone, Copy)]
enum Want {
    Name(NameId, NsIdx),
    Any,
}

/// A step went beyond `max_counter_configs`: the configurations it needed and the limit.
pub(crate) struct TooMany(pub usize, pub usize);

impl CountedModel {
    /// Builds the model of particle `p` (not an `all` group).
    pub(crate) fn build(c: &Components, p: &Particle, max_nodes: usize, max_configs: usize) -> Result<CountedModel, CompileError> {
        let mut m = CountedModel { nodes: Vec::new(), wildcards: Vec::new(), max_configs };
        m.add(c, p, NONE, 0, max_nodes)?;
        Ok(m)
    }

    fn add(&mut self, c: &Components, p: &Particle, parent: u32, index: u32, max_nodes: usize) -> Result<u32, CompileError> {
        if self.nodes.len() >= max_nodes {
            return Err(CompileError::Limit(format!("limit exceeded: the content model has more than {max_nodes} particles")));
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            kind: Kind::Seq(Vec::new()),
            parent,
            index,
            min: p.min,
            max: p.max,
            term_nullable: false,
            skippable: p.min == 0,
            first: Vec::new(),
            first_wild: Vec::new(),
        });
        let (kind, nullable, first, first_wild) = match &p.term {
            Term::Element(e) => {
                let mut ms = element_matches(c, *e);
                ms.sort_by_key(|x| x.0);
                ms.dedup_by_key(|x| x.0);
                let first = ms.iter().map(|x| x.0).collect();
                (Kind::Elem(ms), false, first, Vec::new())
            }
            Term::Wildcard(w) => {
                let i = self.wildcards.len() as u32;
                self.wildcards.push((**w).clone());
                (Kind::Wild(i), false, Vec::new(), vec![i])
            }
            Term::Group(comp, parts) => {
                let mut kids = Vec::with_capacity(parts.len());
                for q in parts.iter().filter(|q| q.max > 0) {
                    let k = self.add(c, q, id, kids.len() as u32, max_nodes)?;
                    kids.push(k);
                }
                let (mut first, mut first_wild) = (Vec::new(), Vec::new());
                let choice = *comp == Compositor::Choice;
                let mut nullable = !choice || kids.is_empty();
                for &k in &kids {
                    let n = &self.nodes[k as usize];
                    first.extend_from_slice(&n.first);
                    first_wild.extend_from_slice(&n.first_wild);
                    if choice {
                        nullable |= n.skippable;
                    } else if !n.skippable {
                        nullable = false;
                        break;
                    }
                }
                first.sort_unstable();
                first.dedup();
                first_wild.sort_unstable();
                first_wild.dedup();
                (if choice { Kind::Choice(kids) } else { Kind::Seq(kids) }, nullable, first, first_wild)
            }
        };
        let n = &mut self.nodes[id as usize];
        n.kind = kind;
        n.term_nullable = nullable;
        n.skippable |= nullable;
        n.first = first;
        n.first_wild = first_wild;
        Ok(id)
    }

    fn can_start(&self, x: u32, w: Want) -> bool {
        match w {
            Want::Any => true,
            Want::Name(n, ns) => {
                let nd = &self.nodes[x as usize];
                (n != NAME_UNKNOWN && nd.first.binary_search(&n).is_ok())
                    || nd.first_wild.iter().any(|&i| self.wildcards[i as usize].ns.allows(ns))
            }
        }
    }

    /// Configurations after entering particle `x` for iteration `c`, the parent's path counts
    /// being `prefix`, and matching the wanted child at a leaf inside it.
    fn enter(&self, x: u32, prefix: &[u32], c: u32, w: Want, out: &mut Vec<Config>) {
        if !self.can_start(x, w) {
            return;
        }
        let nd = &self.nodes[x as usize];
        let mut counts = Vec::with_capacity(prefix.len() + 1);
        counts.extend_from_slice(prefix);
        counts.push(nd.norm(c));
        match &nd.kind {
            Kind::Elem(_) | Kind::Wild(_) => out.push(Config { leaf: x, counts }),
            Kind::Seq(kids) => {
                for &k in kids {
                    self.enter(k, &counts, 1, w, out);
                    if !self.nodes[k as usize].skippable {
                        break;
                    }
                }
            }
            Kind::Choice(kids) => {
                for &k in kids {
                    self.enter(k, &counts, 1, w, out);
                }
            }
        }
    }

    /// Configurations reachable from `cfg` by the wanted child.
    fn advance(&self, cfg: &Config, w: Want, out: &mut Vec<Config>) {
        let mut x = cfg.leaf;
        let mut d = cfg.counts.len() - 1;
        loop {
            let nd = &self.nodes[x as usize];
            let c = cfg.counts[d];
            if nd.max == UNBOUNDED || c < nd.max {
                self.enter(x, &cfg.counts[..d], c + 1, w, out);
            }
            if c < nd.exit_min() || nd.parent == NONE {
                return;
            }
            let p = &self.nodes[nd.parent as usize];
            if let Kind::Seq(kids) = &p.kind {
                for &k in &kids[nd.index as usize + 1..] {
                    self.enter(k, &cfg.counts[..d], 1, w, out);
                    if !self.nodes[k as usize].skippable {
                        return;
                    }
                }
            }
            x = nd.parent;
            d -= 1;
        }
    }

    fn config_final(&self, cfg: &Config) -> bool {
        let mut x = cfg.leaf;
        let mut d = cfg.counts.len() - 1;
        loop {
            let nd = &self.nodes[x as usize];
            if cfg.counts[d] < nd.exit_min() {
                return false;
            }
            if nd.parent == NONE {
                return true;
            }
            if let Kind::Seq(kids) = &self.nodes[nd.parent as usize].kind {
                if kids[nd.index as usize + 1..].iter().any(|&k| !self.nodes[k as usize].skippable) {
                    return false;
                }
            }
            x = nd.parent;
            d -= 1;
        }
    }

    fn successors(&self, st: &CountedState, w: Want) -> Vec<Config> {
        let mut out = Vec::new();
        if st.started {
            for cfg in &st.configs {
                self.advance(cfg, w, &mut out);
            }
        } else {
            self.enter(0, &[], 1, w, &mut out);
        }
        out
    }

    /// Removes duplicates and dominated configurations.
    fn reduce(&self, v: &mut Vec<Config>) {
        v.sort_unstable();
        v.dedup();
        if v.len() < 2 {
            return;
        }
        let mut keep = vec![true; v.len()];
        let mut path: Vec<u32> = Vec::new();
        let mut i = 0;
        while i < v.len() {
            let leaf = v[i].leaf;
            let mut j = i;
            while j < v.len() && v[j].leaf == leaf {
                j += 1;
            }
            if j - i > 1 {
                path.clear();
                let mut x = leaf;
                while x != NONE {
                    path.push(x);
                    x = self.nodes[x as usize].parent;
                }
                path.reverse();
                for b in i..j {
                    for a in i..j {
                        if a != b && keep[a] && self.dominates(&path, &v[a].counts, &v[b].counts) {
                            keep[b] = false;
                            break;
                        }
                    }
                }
            }
            i = j;
        }
        let mut k = keep.iter();
        v.retain(|_| *k.next().unwrap_or(&true));
    }

    fn dominates(&self, path: &[u32], a: &[u32], b: &[u32]) -> bool {
        path.iter().zip(a.iter().zip(b)).all(|(&x, (&ca, &cb))| ca == cb || (ca < cb && ca >= self.nodes[x as usize].exit_min()))
    }

    /// Steps `st` by a child element: what it matched, `Ok(None)` when it is not allowed
    /// here (the state is then unchanged), `Err` when the configurations exceed the limit.
    pub(crate) fn step(&self, st: &mut CountedState, name: NameId, ns: NsIdx) -> Result<Option<Matched<'_>>, TooMany> {
        let mut out = self.successors(st, Want::Name(name, ns));
        if out.is_empty() {
            return Ok(None);
        }
        self.reduce(&mut out);
        if out.len() > self.max_configs {
            return Err(TooMany(out.len(), self.max_configs));
        }
        let m = match &self.nodes[out[0].leaf as usize].kind {
            Kind::Elem(ms) => match ms.binary_search_by_key(&name, |x| x.0) {
                Ok(i) => Matched::Element(ms[i].1),
                Err(_) => return Ok(None),
            },
            Kind::Wild(i) => Matched::Wildcard(&self.wildcards[*i as usize]),
            _ => return Ok(None),
        };
        st.started = true;
        st.configs = out;
        Ok(Some(m))
    }

    /// The content may end here.
    pub(crate) fn is_final(&self, st: &CountedState) -> bool {
        if st.started {
            st.configs.iter().any(|c| self.config_final(c))
        } else {
            self.nodes[0].skippable
        }
    }

    /// The names and wildcards (indexes into `wildcards`) allowed next, for messages.
    pub(crate) fn expected(&self, st: &CountedState) -> (Vec<NameId>, Vec<u32>) {
        let (mut names, mut wild) = (Vec::new(), Vec::new());
        for cfg in self.successors(st, Want::Any) {
            match &self.nodes[cfg.leaf as usize].kind {
                Kind::Elem(ms) => names.extend(ms.iter().map(|x| x.0)),
                Kind::Wild(i) => wild.push(*i),
                _ => {}
            }
        }
        names.sort_unstable();
        names.dedup();
        wild.sort_unstable();
        wild.dedup();
        (names, wild)
    }
}
