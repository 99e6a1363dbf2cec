//! Content models compiled to deterministic automata.
//!
//! A particle tree becomes a Glushkov (position) automaton: one position per
//! element or wildcard occurrence, with `first`, `last` and `follow` sets.
//! Occurrence ranges are expanded linearly — `t{m,n}` is `m` copies of `t`
//! followed by `n - m` nested optional copies `(t (t (t)?)?)?`, so that each
//! copy's follow set stays small, and `t{m,}` is `m` copies and a starred copy —
//! linear in the counts, never quadratic or exponential. Only models whose expansion is
//! small (`max_expanded` positions) are compiled this way; larger counts run with
//! counters (`counted.rs`), their UPA checked on an expansion with the counts capped
//! ([`capped`]). The subset construction then yields the DFA; Unique Particle
//! Attribution (§3.8.6 cos-nonambig) holds exactly when no DFA state lets two
//! positions of *different* schema particles compete for one name, which is
//! checked on the way. Positions of one particle (copies made by the
//! expansion) may compete; the subset construction merges them. `all` groups
//! compile to a name table and a bit set instead.
//!
//! Limits on positions, follow-set edges and DFA states bound what a hostile
//! schema can cost.

use std::collections::HashMap;

use crate::counted::CountedModel;
use crate::model::*;

/// Limits of the compiler.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AutomatonLimits {
    pub max_positions: usize,
    pub max_edges: usize,
    pub max_states: usize,
    /// Sum of the sizes of all DFA states' position sets (bounds the subset construction's time).
    pub max_work: usize,
    /// Models whose expansion needs more positions than this run with counters.
    pub max_expanded: usize,
    /// Configurations one step of a counted model may keep.
    pub max_configs: usize,
}

/// One DFA state.
#[derive(Debug, Clone, Default)]
pub(crate) struct DState {
    pub final_: bool,
    /// Sorted by name: (name, next state, declaration).
    pub names: Vec<(NameId, u32, ElemId)>,
    /// (wildcard index, next state), tried when no name matches.
    pub wild: Vec<(u32, u32)>,
}

/// An `all` group: each element may appear once, in any order.
#[derive(Debug, Clone)]
pub(crate) struct AllModel {
    /// Sorted by name: (name, declaration, slot).
    pub entries: Vec<(NameId, ElemId, u32)>,
    pub required: Vec<bool>,
    /// The group itself has minOccurs 0.
    pub emptiable: bool,
}

#[derive(Debug, Clone)]
pub(crate) enum Automaton {
    Dfa {
        states: Vec<DState>,
        wildcards: Vec<Wildcard>,
    },
    All(AllModel),
    /// Large occurrence counts: the particle tree run with counters (`counted.rs`).
    Counted(CountedModel),
}

impl Automaton {
    /// Next state on element `name` in namespace `ns`: (state, what matched).
    #[inline]
    pub(crate) fn step(&self, state: u32, name: NameId, ns: NsIdx) -> Option<(u32, Matched<'_>)> {
        let Automaton::Dfa { states, wildcards } = self else { return None };
        let s = &states[state as usize];
        if name != NAME_UNKNOWN {
            if s.names.len() <= 8 {
                if let Some(t) = s.names.iter().find(|t| t.0 == name) {
                    return Some((t.1, Matched::Element(t.2)));
                }
            } else if let Ok(i) = s.names.binary_search_by_key(&name, |t| t.0) {
                let t = s.names[i];
                return Some((t.1, Matched::Element(t.2)));
            }
        }
        for &(w, next) in &s.wild {
            let wc = &wildcards[w as usize];
            if wc.ns.allows(ns) {
                return Some((next, Matched::Wildcard(wc)));
            }
        }
        None
    }
}

/// What a child element matched.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Matched<'a> {
    Element(ElemId),
    Wildcard(&'a Wildcard),
}

#[derive(Clone, Copy)]
enum PosTerm {
    Element(ElemId),
    Wildcard(u32),
}

struct Frag {
    first: Vec<u32>,
    last: Vec<u32>,
    nullable: bool,
}

impl Frag {
    fn eps() -> Frag {
        Frag { first: Vec::new(), last: Vec::new(), nullable: true }
    }
}

struct Glushkov<'c> {
    pos: Vec<(PosTerm, u32)>,
    follow: Vec<Vec<u32>>,
    wildcards: Vec<Wildcard>,
    wild_of_source: HashMap<u32, u32>,
    edges: usize,
    limits: AutomatonLimits,
    /// Occurrence counts capped (for the UPA check of a counted model), see [`capped`].
    cap: Option<u32>,
    _c: &'c Components,
}

/// The occurrence range `{min, max}` with both ends capped at `k` above what distinguishes
/// them: `min` at `k`, the optional part (`max - min`) at `k`, `unbounded` kept. Which
/// particles can compete for a name (Unique Particle Attribution) and which declarations
/// share a content model (Element Declarations Consistent) do not depend on counts beyond
/// that: a competition needs a point where a particle may both go on and stop (or be
/// entered again), which `k = 2` copies of each kind preserve.
fn capped(min: u32, max: u32, k: u32) -> (u32, u32) {
    let m = min.min(k);
    if max == UNBOUNDED {
        (m, UNBOUNDED)
    } else {
        (m, m + (max - min).min(k))
    }
}

/// Positions the linear expansion of `p` needs (saturating).
fn expansion_size(p: &Particle) -> u64 {
    let t = match &p.term {
        Term::Element(_) | Term::Wildcard(_) => 1u64,
        Term::Group(_, parts) => parts.iter().fold(0u64, |a, q| a.saturating_add(expansion_size(q))),
    };
    let mult = if p.max == UNBOUNDED { u64::from(p.min) + 1 } else { u64::from(p.max) };
    t.saturating_mul(mult)
}

/// Why a content model cannot be compiled.
pub(crate) enum CompileError {
    /// A configured limit; the message names it.
    Limit(String),
    /// Unique Particle Attribution or Element Declarations Consistent.
    Constraint(String),
}

use crate::build::Components;

impl<'c> Glushkov<'c> {
    fn new_pos(&mut self, t: PosTerm, source: u32) -> Result<u32, CompileError> {
        if self.pos.len() >= self.limits.max_positions {
            return Err(CompileError::Limit(format!(
                "limit exceeded: the content model needs more than {} positions (occurrence counts too large)",
                self.limits.max_positions
            )));
        }
        self.pos.push((t, source));
        self.follow.push(Vec::new());
        Ok((self.pos.len() - 1) as u32)
    }

    fn concat(&mut self, a: Frag, b: Frag) -> Result<Frag, CompileError> {
        for &p in &a.last {
            self.edges += b.first.len();
            if self.edges > self.limits.max_edges {
                return Err(CompileError::Limit(format!(
                    "limit exceeded: the content model needs more than {} transitions",
                    self.limits.max_edges
                )));
            }
            self.follow[p as usize].extend_from_slice(&b.first);
        }
        let mut first = a.first;
        if a.nullable {
            first.extend_from_slice(&b.first);
        }
        let mut last = b.last;
        if b.nullable {
            last.extend_from_slice(&a.last);
        }
        Ok(Frag { first, last, nullable: a.nullable && b.nullable })
    }

    fn term(&mut self, p: &Particle) -> Result<Frag, CompileError> {
        match &p.term {
            Term::Element(e) => {
                let x = self.new_pos(PosTerm::Element(*e), p.id)?;
                Ok(Frag { first: vec![x], last: vec![x], nullable: false })
            }
            Term::Wildcard(w) => {
                let wi = match self.wild_of_source.get(&p.id) {
                    Some(&i) => i,
                    None => {
                        let i = self.wildcards.len() as u32;
                        self.wildcards.push((**w).clone());
                        self.wild_of_source.insert(p.id, i);
                        i
                    }
                };
                let x = self.new_pos(PosTerm::Wildcard(wi), p.id)?;
                Ok(Frag { first: vec![x], last: vec![x], nullable: false })
            }
            Term::Group(Compositor::Choice, parts) => {
                let mut f = Frag { first: Vec::new(), last: Vec::new(), nullable: parts.is_empty() };
                for q in parts {
                    let g = self.particle(q)?;
                    f.first.extend(g.first);
                    f.last.extend(g.last);
                    f.nullable |= g.nullable;
                }
                Ok(f)
            }
            // `all` nested inside another group cannot occur (cos-all-limited); treat as sequence.
            Term::Group(_, parts) => {
                let mut f = Frag::eps();
                for q in parts {
                    let g = self.particle(q)?;
                    f = self.concat(f, g)?;
                }
                Ok(f)
            }
        }
    }

    fn particle(&mut self, p: &Particle) -> Result<Frag, CompileError> {
        let (min, max) = match self.cap {
            Some(k) => capped(p.min, p.max, k),
            None => (p.min, p.max),
        };
        if min == 1 && max == 1 {
            return self.term(p);
        }
        let mut f = Frag::eps();
        for _ in 0..min {
            let t = self.term(p)?;
            f = self.concat(f, t)?;
        }
        if max == UNBOUNDED {
            let t = self.term(p)?;
            for &l in &t.last {
                self.edges += t.first.len();
                self.follow[l as usize].extend_from_slice(&t.first);
            }
            let star = Frag { first: t.first, last: t.last, nullable: true };
            f = self.concat(f, star)?;
        } else {
            let mut r = Frag::eps();
            for _ in min..max {
                let t = self.term(p)?;
                let mut x = self.concat(t, r)?;
                x.nullable = true;
                r = x;
            }
            f = self.concat(f, r)?;
        }
        if self.edges > self.limits.max_edges {
            return Err(CompileError::Limit(format!(
                "limit exceeded: the content model needs more than {} transitions",
                self.limits.max_edges
            )));
        }
        Ok(f)
    }
}

/// The names an element particle matches: the declaration itself (unless abstract)
/// and every member of its substitution group that the head's `block` lets through.
pub(crate) fn element_matches(c: &Components, e: ElemId) -> Vec<(NameId, ElemId)> {
    let d = &c.elements[e as usize];
    let mut v = vec![(d.name, e)];
    if d.global && d.block & deriv::SUBSTITUTION == 0 {
        if let Some(ms) = c.substitutes.get(&e) {
            for &m in ms {
                let md = &c.elements[m as usize];
                if md.abstract_ {
                    continue;
                }
                // The type derivation must avoid the methods e blocks, its type blocks and
                // any type in between blocks (Substitution Group OK (Transitive), 2.3).
                let blocked = (d.block | c.types[d.type_ as usize].block) & (deriv::EXTENSION | deriv::RESTRICTION);
                if crate::build::substitutable(&c.types, md.type_, d.type_, blocked) {
                    v.push((md.name, m));
                }
            }
        }
    }
    v
}

/// Compiles a content model.
pub(crate) fn compile(c: &Components, p: &Particle, limits: AutomatonLimits) -> Result<Automaton, CompileError> {
    if let Term::Group(Compositor::All, parts) = &p.term {
        let mut entries = Vec::new();
        let mut required = Vec::new();
        for (slot, q) in parts.iter().enumerate() {
            let Term::Element(e) = q.term else { continue };
            for (n, m) in element_matches(c, e) {
                if entries.iter().any(|x: &(NameId, ElemId, u32)| x.0 == n) {
                    return Err(CompileError::Constraint(format!(
                        "element {} appears twice in an `all` group (cos-nonambig)",
                        c.names.display(n)
                    )));
                }
                entries.push((n, m, slot as u32));
            }
            required.push(q.min > 0);
        }
        entries.sort_by_key(|x| x.0);
        check_consistent(c, entries.iter().map(|x| x.1))?;
        return Ok(Automaton::All(AllModel { entries, required, emptiable: p.min == 0 }));
    }
    if expansion_size(p) <= limits.max_expanded as u64 {
        match compile_dfa(c, p, limits, None) {
            Err(CompileError::Limit(_)) => {}
            r => return r,
        }
    }
    // Too large to expand: check UPA and EDC on the capped expansion, run with counters.
    compile_dfa(c, p, limits, Some(2))?;
    Ok(Automaton::Counted(CountedModel::build(c, p, limits.max_positions, limits.max_configs)?))
}

/// The expansion (occurrence counts capped at `cap` if given) and its subset construction.
fn compile_dfa(c: &Components, p: &Particle, limits: AutomatonLimits, cap: Option<u32>) -> Result<Automaton, CompileError> {
    let mut g = Glushkov {
        pos: Vec::new(),
        follow: Vec::new(),
        wildcards: Vec::new(),
        wild_of_source: HashMap::new(),
        edges: 0,
        limits,
        cap,
        _c: c,
    };
    let root = g.particle(p)?;
    let mut is_last = vec![false; g.pos.len()];
    for &l in &root.last {
        is_last[l as usize] = true;
    }
    check_consistent(c, g.pos.iter().filter_map(|(t, _)| if let PosTerm::Element(e) = t { Some(*e) } else { None }))?;
    // Matches per position (names with the declaration they stand for).
    let mut matches_of: HashMap<ElemId, Vec<(NameId, ElemId)>> = HashMap::new();
    // Subset construction over (candidate set, final).
    let mut states: Vec<DState> = Vec::new();
    let mut index: HashMap<(Vec<u32>, bool), u32> = HashMap::new();
    let mut work: Vec<(Vec<u32>, bool)> = Vec::new();
    let mut start = root.first.clone();
    start.sort_unstable();
    start.dedup();
    index.insert((start.clone(), root.nullable), 0);
    states.push(DState::default());
    work.push((start, root.nullable));
    let mut done = 0usize;
    let mut work_total = 0usize;
    while done < work.len() {
        let (cands, fin) = work[done].clone();
        let sid = done as u32;
        done += 1;
        // name → (positions, decl, sources)
        let mut by_name: HashMap<NameId, (Vec<u32>, ElemId, u32)> = HashMap::new();
        let mut wilds: Vec<(u32, u32, Vec<u32>)> = Vec::new(); // (wildcard, source, positions)
        for &q in &cands {
            let (t, src) = g.pos[q as usize];
            match t {
                PosTerm::Element(e) => {
                    let ms = matches_of.entry(e).or_insert_with(|| element_matches(c, e)).clone();
                    for (n, m) in ms {
                        let ent = by_name.entry(n).or_insert_with(|| (Vec::new(), m, src));
                        if ent.2 != src {
                            return Err(CompileError::Constraint(format!(
                                "content model is not deterministic: element {} can match two different particles (Unique Particle Attribution, cos-nonambig)",
                                c.names.display(n)
                            )));
                        }
                        ent.0.push(q);
                    }
                }
                PosTerm::Wildcard(w) => match wilds.iter_mut().find(|x| x.1 == src) {
                    Some(x) => x.2.push(q),
                    None => wilds.push((w, src, vec![q])),
                },
            }
        }
        // Wildcards against names and each other.
        for (i, (w, src, _)) in wilds.iter().enumerate() {
            let wc = &g.wildcards[*w as usize];
            for (n, (_, _, nsrc)) in &by_name {
                if nsrc != src && wc.ns.allows(c.names.ns_of(*n)) {
                    return Err(CompileError::Constraint(format!(
                        "content model is not deterministic: element {} can match both an element particle and a wildcard (Unique Particle Attribution, cos-nonambig)",
                        c.names.display(*n)
                    )));
                }
            }
            for (w2, src2, _) in &wilds[i + 1..] {
                if src2 != src && wildcards_overlap(wc, &g.wildcards[*w2 as usize]) {
                    return Err(CompileError::Constraint(
                        "content model is not deterministic: two wildcards overlap (Unique Particle Attribution, cos-nonambig)".into(),
                    ));
                }
            }
        }
        let mut target = |ps: &[u32], states: &mut Vec<DState>, work: &mut Vec<(Vec<u32>, bool)>| -> Result<u32, CompileError> {
            let mut next: Vec<u32> = Vec::new();
            let mut f = false;
            for &p in ps {
                next.extend_from_slice(&g.follow[p as usize]);
                f |= is_last[p as usize];
            }
            next.sort_unstable();
            next.dedup();
            let key = (next, f);
            if let Some(&s) = index.get(&key) {
                return Ok(s);
            }
            work_total += key.0.len() + 1;
            if work_total > limits.max_work {
                return Err(CompileError::Limit(format!(
                    "limit exceeded: the content model's deterministic automaton needs more than {} position-set entries (nested occurrence ranges too large)",
                    limits.max_work
                )));
            }
            if states.len() >= limits.max_states {
                return Err(CompileError::Limit(format!(
                    "limit exceeded: the content model needs more than {} automaton states",
                    limits.max_states
                )));
            }
            let s = states.len() as u32;
            states.push(DState::default());
            index.insert(key.clone(), s);
            work.push(key);
            Ok(s)
        };
        let mut names = Vec::with_capacity(by_name.len());
        for (n, (ps, m, _)) in &by_name {
            let t = target(ps, &mut states, &mut work)?;
            names.push((*n, t, *m));
        }
        names.sort_by_key(|x| x.0);
        let mut wild = Vec::new();
        for (w, _, ps) in &wilds {
            let t = target(ps, &mut states, &mut work)?;
            wild.push((*w, t));
        }
        let st = &mut states[sid as usize];
        st.final_ = fin;
        st.names = names;
        st.wild = wild;
    }
    Ok(Automaton::Dfa { states, wildcards: g.wildcards })
}

fn wildcards_overlap(a: &Wildcard, b: &Wildcard) -> bool {
    match (&a.ns, &b.ns) {
        (NsCons::Any, _) | (_, NsCons::Any) => true,
        (NsCons::Not(_), NsCons::Not(_)) => true,
        (NsCons::Not(x), NsCons::Set(s)) | (NsCons::Set(s), NsCons::Not(x)) => s.iter().any(|i| i != x && *i != 0),
        (NsCons::Set(s), NsCons::Set(t)) => s.iter().any(|i| t.contains(i)),
    }
}

/// Element Declarations Consistent (§3.8.6 cos-element-consistent): declarations with one
/// name in one content model have the same type.
fn check_consistent(c: &Components, elems: impl Iterator<Item = ElemId>) -> Result<(), CompileError> {
    let mut seen: HashMap<NameId, TypeId> = HashMap::new();
    for e in elems {
        let d = &c.elements[e as usize];
        match seen.get(&d.name) {
            Some(&t) if t != d.type_ => {
                return Err(CompileError::Constraint(format!(
                    "two declarations of element {} in one content model have different types (cos-element-consistent)",
                    c.names.display(d.name)
                )))
            }
            _ => {
                seen.insert(d.name, d.type_);
            }
        }
    }
    Ok(())
}
