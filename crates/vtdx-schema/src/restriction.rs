//! derivation-ok-restriction.5 (§3.4.6) and Particle Valid (Restriction)
//! (§3.9.6): a complex type derived by restriction must allow only what its
//! base allows. The rules of XML Schema 1.0 are applied as written: pointless
//! particles removed, then NameAndTypeOK, NSCompat, NSSubset,
//! NSRecurseCheckCardinality, Recurse, RecurseLax, RecurseUnordered, MapAndSum
//! and RecurseAsIfGroup.

use crate::build::{particle_emptiable, wildcard_subset, Components};
use crate::error::{SchemaError, SchemaErrorKind};
use crate::model::*;

/// Checks the content of type `t` against its base when `t` is a restriction.
pub(crate) fn check(c: &Components, t: TypeId) -> Result<(), SchemaError> {
    let td = &c.types[t as usize];
    if td.derivation != Derivation::Restriction || td.base == ANY_TYPE || t == ANY_TYPE {
        return Ok(());
    }
    let (Some(d), Some(b)) = (td.complex(), c.types[td.base as usize].complex()) else { return Ok(()) };
    let fail = |m: String| Err(SchemaError { kind: SchemaErrorKind::Constraint, message: m, location: td.loc.clone() });
    match (&d.content, &b.content) {
        (Content::Empty, Content::Empty) => Ok(()),
        (Content::Empty, Content::Elements { particle, .. }) => {
            if particle_emptiable(particle) {
                Ok(())
            } else {
                fail("a restriction with empty content needs a base whose content is emptiable (derivation-ok-restriction.5.2)".into())
            }
        }
        (Content::Elements { particle: dp, mixed: dm, .. }, Content::Elements { particle: bp, mixed: bm, .. }) => {
            if *dm && !*bm {
                return fail("a restriction may be mixed only if its base is mixed (derivation-ok-restriction.5.3)".into());
            }
            match valid(c, &normalize(dp), &normalize(bp), 0) {
                Ok(()) => Ok(()),
                Err(m) => fail(format!("the content model is not a valid restriction of the base's (derivation-ok-restriction.5.3, cos-particle-restrict): {m}")),
            }
        }
        (Content::Elements { .. }, Content::Empty) => {
            fail("a restriction of a type with empty content must have empty content (derivation-ok-restriction.5)".into())
        }
        (Content::Elements { particle, mixed: true, .. }, Content::Simple(_)) if particle_emptiable(particle) => Ok(()),
        (Content::Simple(_), Content::Elements { particle, mixed: true, .. }) if particle_emptiable(particle) => Ok(()),
        (Content::Simple(_), Content::Simple(_)) => Ok(()),
        (Content::Empty, Content::Simple(_)) => Ok(()),
        _ => fail("the content type is not a valid restriction of the base's (derivation-ok-restriction.5)".into()),
    }
}

/// Is the model group `d` a valid restriction of `b` (Particle Valid (Restriction),
/// §3.9.6)? Used for src-redefine.6.2.2: a model group redefined without a reference to
/// itself must restrict the original. On failure, says which particles disagree.
pub(crate) fn group_restricts(c: &Components, d: &Particle, b: &Particle) -> Result<(), String> {
    valid(c, &normalize(d), &normalize(b), 0)
}

/// Removes pointless particles (§3.9.6): groups with one member and 1..1 occurrence,
/// nested groups of the same compositor with 1..1 occurrence, empty groups.
fn normalize(p: &Particle) -> Particle {
    match &p.term {
        Term::Group(k, parts) => {
            let mut out = Vec::new();
            for q in parts {
                let q = normalize(q);
                match &q.term {
                    Term::Group(qk, qs) if *qk == *k && q.min == 1 && q.max == 1 && *k != Compositor::All => out.extend(qs.iter().cloned()),
                    Term::Group(_, qs) if qs.is_empty() => {}
                    _ => out.push(q),
                }
            }
            if out.len() == 1 && p.min == 1 && p.max == 1 {
                return out.remove(0);
            }
            if out.len() == 1 && out[0].min == 1 && out[0].max == 1 {
                let mut inner = out.remove(0);
                if let Term::Group(..) = inner.term {
                    inner.min = p.min;
                    inner.max = p.max;
                    return inner;
                }
                return Particle { min: p.min, max: p.max, term: Term::Group(*k, vec![inner]), id: p.id };
            }
            Particle { min: p.min, max: p.max, term: Term::Group(*k, out), id: p.id }
        }
        _ => p.clone(),
    }
}

fn range_ok(dmin: u32, dmax: u32, bmin: u32, bmax: u32) -> bool {
    dmin >= bmin && (bmax == UNBOUNDED || (dmax != UNBOUNDED && dmax <= bmax))
}

fn mul(a: u32, b: u32) -> u32 {
    if a == UNBOUNDED || b == UNBOUNDED {
        if a == 0 || b == 0 {
            0
        } else {
            UNBOUNDED
        }
    } else {
        a.saturating_mul(b).min(UNBOUNDED - 1)
    }
}

fn add(a: u32, b: u32) -> u32 {
    if a == UNBOUNDED || b == UNBOUNDED {
        UNBOUNDED
    } else {
        a.saturating_add(b).min(UNBOUNDED - 1)
    }
}

/// Effective total range (§3.8.6): (min, max) of the number of element occurrences.
fn total_range(p: &Particle) -> (u32, u32) {
    match &p.term {
        Term::Element(_) | Term::Wildcard(_) => (p.min, p.max),
        Term::Group(Compositor::Choice, v) => {
            let mut mn = u32::MAX;
            let mut mx = 0;
            for q in v {
                let (a, b) = total_range(q);
                mn = mn.min(a);
                mx = if mx == UNBOUNDED || b == UNBOUNDED { UNBOUNDED } else { mx.max(b) };
            }
            if v.is_empty() {
                mn = 0;
            }
            (mul(p.min, mn), mul(p.max, mx))
        }
        Term::Group(_, v) => {
            let mut mn = 0;
            let mut mx = 0;
            for q in v {
                let (a, b) = total_range(q);
                mn = add(mn, a);
                mx = add(mx, b);
            }
            (mul(p.min, mn), mul(p.max, mx))
        }
    }
}

fn name(c: &Components, p: &Particle) -> String {
    match &p.term {
        Term::Element(e) => format!("<{}>", c.names.local(c.elements[*e as usize].name)),
        Term::Wildcard(_) => "a wildcard".into(),
        Term::Group(Compositor::Sequence, _) => "a sequence".into(),
        Term::Group(Compositor::Choice, _) => "a choice".into(),
        Term::Group(Compositor::All, _) => "an all group".into(),
    }
}

fn valid(c: &Components, d: &Particle, b: &Particle, depth: u32) -> Result<(), String> {
    if depth > 64 {
        return Err("content models nested too deeply to compare".into());
    }
    match (&d.term, &b.term) {
        (Term::Element(de), Term::Element(be)) => name_and_type_ok(c, d, *de, b, *be),
        (Term::Element(de), Term::Wildcard(w)) => {
            let ns = c.names.ns_of(c.elements[*de as usize].name);
            if !w.ns.allows(ns) || !range_ok(d.min, d.max, b.min, b.max) {
                return Err(format!("{} is not allowed by the base's wildcard (rcase-NSCompat)", name(c, d)));
            }
            Ok(())
        }
        (Term::Element(_), Term::Group(k, _)) => {
            let g = Particle { min: 1, max: 1, term: Term::Group(*k, vec![d.clone()]), id: 0 };
            valid(c, &g, b, depth + 1)
        }
        (Term::Wildcard(dw), Term::Wildcard(bw)) => {
            let strength = |p: Process| match p {
                Process::Strict => 2,
                Process::Lax => 1,
                Process::Skip => 0,
            };
            if !range_ok(d.min, d.max, b.min, b.max) || !wildcard_subset(dw, bw) || strength(dw.process) < strength(bw.process) {
                return Err("a wildcard is not a subset of the base's wildcard (rcase-NSSubset)".into());
            }
            Ok(())
        }
        (Term::Group(_, ds), Term::Wildcard(_)) => {
            let (mn, mx) = total_range(d);
            if !range_ok(mn, mx, b.min, b.max) {
                return Err("the group occurs more often than the base's wildcard allows (rcase-NSRecurseCheckCardinality)".into());
            }
            let bw = Particle { min: 0, max: UNBOUNDED, term: b.term.clone(), id: b.id };
            for q in ds {
                valid(c, q, &bw, depth + 1)?;
            }
            Ok(())
        }
        (Term::Wildcard(_), _) => Err("a wildcard cannot restrict an element or a group".into()),
        (Term::Group(dk, ds), Term::Group(bk, bs)) => {
            use Compositor::*;
            match (dk, bk) {
                (All, All) | (Sequence, Sequence) => {
                    if !range_ok(d.min, d.max, b.min, b.max) {
                        return Err("occurrence range is wider than the base's (rcase-Recurse)".into());
                    }
                    recurse(c, ds, bs, depth)
                }
                (Choice, Choice) => {
                    if !range_ok(d.min, d.max, b.min, b.max) {
                        return Err("occurrence range is wider than the base's (rcase-RecurseLax)".into());
                    }
                    let mut j = 0;
                    for q in ds {
                        let mut ok = false;
                        while j < bs.len() {
                            let r = valid(c, q, &bs[j], depth + 1);
                            j += 1;
                            if r.is_ok() {
                                ok = true;
                                break;
                            }
                        }
                        if !ok {
                            return Err(format!("{} matches no remaining particle of the base's choice (rcase-RecurseLax)", name(c, q)));
                        }
                    }
                    Ok(())
                }
                (Sequence, All) => {
                    if !range_ok(d.min, d.max, b.min, b.max) {
                        return Err("occurrence range is wider than the base's (rcase-RecurseUnordered)".into());
                    }
                    let mut used = vec![false; bs.len()];
                    for q in ds {
                        let i = bs.iter().enumerate().position(|(i, bq)| !used[i] && valid(c, q, bq, depth + 1).is_ok());
                        match i {
                            Some(i) => used[i] = true,
                            None => {
                                return Err(format!("{} matches no particle of the base's all group (rcase-RecurseUnordered)", name(c, q)))
                            }
                        }
                    }
                    for (i, bq) in bs.iter().enumerate() {
                        if !used[i] && !particle_emptiable(bq) {
                            return Err(format!("{} of the base is required but left out (rcase-RecurseUnordered)", name(c, bq)));
                        }
                    }
                    Ok(())
                }
                (Sequence, Choice) => {
                    let n = ds.len() as u32;
                    let (dmin, dmax) = (mul(d.min, n), mul(d.max, n));
                    if !range_ok(dmin, dmax, b.min, b.max) {
                        return Err("occurrence range is wider than the base's (rcase-MapAndSum)".into());
                    }
                    for q in ds {
                        if !bs.iter().any(|bq| valid(c, q, bq, depth + 1).is_ok()) {
                            return Err(format!("{} matches no particle of the base's choice (rcase-MapAndSum)", name(c, q)));
                        }
                    }
                    Ok(())
                }
                _ => Err(format!("{} cannot restrict {} (cos-particle-restrict)", name(c, d), name(c, b))),
            }
        }
        (Term::Group(..), Term::Element(_)) => Err(format!("{} cannot restrict {} (cos-particle-restrict)", name(c, d), name(c, b))),
    }
}

/// rcase-Recurse: an order-preserving mapping; base particles left out must be emptiable.
fn recurse(c: &Components, ds: &[Particle], bs: &[Particle], depth: u32) -> Result<(), String> {
    let mut j = 0;
    for q in ds {
        loop {
            if j >= bs.len() {
                return Err(format!("{} matches no remaining particle of the base (rcase-Recurse)", name(c, q)));
            }
            let r = valid(c, q, &bs[j], depth + 1);
            j += 1;
            match r {
                Ok(()) => break,
                Err(m) => {
                    if !particle_emptiable(&bs[j - 1]) {
                        return Err(m);
                    }
                }
            }
        }
    }
    for bq in &bs[j..] {
        if !particle_emptiable(bq) {
            return Err(format!("{} of the base is required but left out (rcase-Recurse)", name(c, bq)));
        }
    }
    Ok(())
}

fn name_and_type_ok(c: &Components, d: &Particle, de: ElemId, b: &Particle, be: ElemId) -> Result<(), String> {
    let dd = &c.elements[de as usize];
    let bd = &c.elements[be as usize];
    if dd.name != bd.name {
        // A member of the base element's substitution group may stand for it.
        if bd.global && c.substitutes.get(&be).is_some_and(|m| m.contains(&de)) {
            return if range_ok(d.min, d.max, b.min, b.max) {
                Ok(())
            } else {
                Err("occurrence range is wider than the base's (rcase-NameAndTypeOK)".into())
            };
        }
        return Err(format!("{} does not match {} of the base (rcase-NameAndTypeOK)", name(c, d), name(c, b)));
    }
    if !range_ok(d.min, d.max, b.min, b.max) {
        return Err(format!(
            "{} occurs {}..{} where the base allows {}..{} (rcase-NameAndTypeOK)",
            name(c, d),
            d.min,
            show(d.max),
            b.min,
            show(b.max)
        ));
    }
    if dd.nillable && !bd.nillable {
        return Err(format!("{} is nillable but the base's is not (rcase-NameAndTypeOK)", name(c, d)));
    }
    if let Some(bv) = bd.vc.as_ref().filter(|v| v.fixed) {
        let same = dd.vc.as_ref().is_some_and(|v| v.fixed && (v.value == bv.value && (v.value.is_some() || v.lexical == bv.lexical)));
        if !same {
            return Err(format!("{} must keep the base's fixed value (rcase-NameAndTypeOK)", name(c, d)));
        }
    }
    if bd.block & !dd.block != 0 {
        return Err(format!("{} must block at least what the base's blocks (rcase-NameAndTypeOK)", name(c, d)));
    }
    if de != be && !crate::build::derives(&c.types, dd.type_, bd.type_, deriv::EXTENSION) {
        return Err(format!("the type of {} does not derive by restriction from the base's (rcase-NameAndTypeOK)", name(c, d)));
    }
    Ok(())
}

fn show(m: u32) -> String {
    if m == UNBOUNDED {
        "unbounded".into()
    } else {
        m.to_string()
    }
}
