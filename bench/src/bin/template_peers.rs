//! The `template` workload's vtdx peers (bench/workloads/template.py): a stream of
//! messages (FILE is a NUL-separated bundle, as in the `many` workload) parsed one by
//! one with one reused parser, with and without a template cache
//! (docs/template-cache.md), messages per second with the shared loop
//! (`vtdx_bench::harness`; one operation is one pass over the whole stream).
//!
//! `template_peers template [--peers a,b] [policy options] FILE...`
//!
//! Peers:
//!
//! - `vtdx-full`: one `Parser`, `recycle` after each message (the `many` workload's
//!   `vtdx-reuse`): the full parse the cache is compared with;
//! - `vtdx-template`: one `Parser::with_template_cache`, warm: one untimed pass over the
//!   stream first (the check below), where the cache learns the structures it sees twice,
//!   so learning is not in the timed passes (the harness's warm-up passes come on top);
//! - on an all-miss stream (a FILE whose name starts with `miss`) `vtdx-template` is
//!   measured with a new, empty cache at the start of every pass instead (a miss stream
//!   replayed into one cache would teach it every structure on the second pass), and
//!   `vtdx-template-near` with a new cache that holds, before the pass, the templates of
//!   the messages in `$VTDX_BENCH_TEMPLATE_SEED` (a bundle: the four operations of the
//!   mixed stream, which share their key with every miss message, so each message is
//!   tried against them and fails late, where the operation element is). Making the cache
//!   and learning the seed (four messages) are inside the timed pass.
//!
//! For each cache peer, the speed-up over `vtdx-full` is also measured in pairs
//! (`paired_speedup`, with `paired_q1`/`paired_q3`): each sample is the ratio of one full
//! pass and one cache pass timed right after each other, so a shared machine's changing
//! load falls on both sides.
//!
//! Before timing, every message is parsed once through the peer's parser and compared
//! with a new parser's result (index with names and namespaces, or the error): a
//! difference exits with status 1. Each line carries `messages`, `msgs_per_s`,
//! `elements` (summed over the stream, from the peer's own documents), and for the cache
//! peers its counters: `check_hits`/`check_misses` (the untimed first pass), `hits`,
//! `misses`, `bytes_matched` (over the timed passes only), `templates`, `template_bytes`,
//! `learned`, `evicted`.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use vtdx::core::{TemplateCache, TemplateStats};
use vtdx::Parser;
use vtdx_bench::harness::{self, emit_blank, measure, Args, Line};

const PEERS: &[&str] = &["vtdx-full", "vtdx-template", "vtdx-template-near"];
const WORKLOAD: &str = "template";

fn main() {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("template_peers: {e}");
            std::process::exit(2);
        }
    };
    if args.workload != WORKLOAD {
        eprintln!("template_peers: the workload is `template`, found `{}`", args.workload);
        std::process::exit(2);
    }
    let seed: Vec<Vec<u8>> = match std::env::var("VTDX_BENCH_TEMPLATE_SEED") {
        Ok(p) => harness::split_bundle(&read(&p)),
        Err(_) => Vec::new(),
    };
    for f in &args.files {
        let msgs = harness::split_bundle(&read(f));
        let miss = std::path::Path::new(f).file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("miss"));
        // the full parse: a cell of its own, and the other side of every cache peer's paired passes
        let mut full = Parser::new();
        if let Err(e) = check_pass(&mut full, &msgs) {
            for peer in PEERS.iter().copied().filter(|p| args.wants(p)) {
                emit_blank(peer, WORKLOAD, f, "rejected", &e);
            }
            continue;
        }
        for peer in PEERS.iter().copied().filter(|p| args.wants(p)) {
            match (peer, miss) {
                ("vtdx-full", _) => full_cell(&args, f, &msgs, &mut full),
                ("vtdx-template", false) => warm_cell(&args, f, &msgs, &mut full),
                ("vtdx-template", true) => miss_cell(&args, peer, f, &msgs, &[], &mut full),
                ("vtdx-template-near", true) if seed.is_empty() => {
                    emit_blank(peer, WORKLOAD, f, "skip", "no seed templates: VTDX_BENCH_TEMPLATE_SEED names no bundle")
                }
                ("vtdx-template-near", true) => miss_cell(&args, peer, f, &msgs, &seed, &mut full),
                ("vtdx-template-near", false) => {}
                _ => unreachable!(),
            }
        }
    }
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| {
        eprintln!("template_peers: cannot read {path}: {e}");
        std::process::exit(2)
    })
}

/// Parses every message with `parser` and with a new parser, compares the two, and
/// returns the elements summed over the stream; `Err` names the first message that differs.
fn check_pass(parser: &mut Parser, msgs: &[Vec<u8>]) -> Result<u64, String> {
    let mut elements = 0u64;
    for (i, m) in msgs.iter().enumerate() {
        let got = parser.parse(m).map(|d| (d.record_counts().elements as u64, vtdx_bench::tape_view(&d))).map_err(|e| e.to_string());
        let want =
            Parser::new().parse(m).map(|d| (d.record_counts().elements as u64, vtdx_bench::tape_view(&d))).map_err(|e| e.to_string());
        match (got, want) {
            (Ok(g), Ok(w)) if g == w => elements += g.0,
            (Err(g), Err(w)) if g == w => return Err(format!("message {i} is not well-formed: {g}")),
            _ => return Err(format!("message {i}: the peer's document differs from a new parser's")),
        }
    }
    Ok(elements)
}

/// One pass: every message parsed, its index given back to the parser.
#[inline]
fn pass(parser: &mut Parser, msgs: &[Vec<u8>]) {
    for m in msgs {
        let d = parser.parse(m).unwrap();
        black_box(d.tape().len());
        parser.recycle(d);
    }
}

fn line(peer: &str, f: &str, msgs: &[Vec<u8>], s: &harness::Stats, elements: u64) -> Line {
    let total: u64 = msgs.iter().map(|m| m.len() as u64).sum();
    let mut l = Line::new(peer, WORKLOAD, f);
    l.stats(s, total).int("messages", msgs.len() as u64).num("msgs_per_s", msgs.len() as f64 * 1e9 / s.median_ns).int("elements", elements);
    l
}

fn counters(l: &mut Line, before: &TemplateStats, after: &TemplateStats) {
    l.int("hits", after.hits - before.hits)
        .int("misses", after.misses - before.misses)
        .int("bytes_matched", after.bytes_matched - before.bytes_matched)
        .int("templates", after.templates as u64)
        .int("template_bytes", after.bytes as u64)
        .int("max_bytes", after.max_bytes as u64)
        .int("learned", after.learned)
        .int("evicted", after.evicted);
}

fn full_cell(args: &Args, f: &str, msgs: &[Vec<u8>], parser: &mut Parser) {
    let elements = match check_pass(parser, msgs) {
        Ok(n) => n,
        Err(e) => return emit_blank("vtdx-full", WORKLOAD, f, "rejected", &e),
    };
    let s = measure(&args.policy, || pass(parser, msgs));
    line("vtdx-full", f, msgs, &s, elements).emit();
}

/// The cache's speed-up over the full parse, measured in pairs: each sample times one
/// pass of `full` and one of `cached` right after each other (which one first
/// alternating), so both see the same load; the ratio of the two times is one sample.
/// Samples until twice the policy's minimum count and time (or its maximum time, with at
/// least 3). Adds `paired_speedup` (the median ratio, full time over cache time),
/// `paired_q1`, `paired_q3`, `paired_samples` and `min_speedup` (the fastest full pass
/// over the fastest cache pass) to the line.
fn paired(args: &Args, l: &mut Line, mut full: impl FnMut(), mut cached: impl FnMut()) {
    let p = &args.policy;
    full();
    cached();
    let mut ratios = Vec::new();
    let mut best = (f64::INFINITY, f64::INFINITY);
    let start = Instant::now();
    loop {
        let (tf, tc) = if ratios.len() % 2 == 0 {
            let t = Instant::now();
            full();
            let tf = t.elapsed();
            let t = Instant::now();
            cached();
            (tf, t.elapsed())
        } else {
            let t = Instant::now();
            cached();
            let tc = t.elapsed();
            let t = Instant::now();
            full();
            (t.elapsed(), tc)
        };
        ratios.push(tf.as_secs_f64() / tc.as_secs_f64().max(1e-9));
        best = (best.0.min(tf.as_secs_f64()), best.1.min(tc.as_secs_f64()));
        let el = start.elapsed();
        if (ratios.len() >= 2 * p.min_samples && el >= 2 * p.min_time) || (el >= p.max_time && ratios.len() >= 3) {
            break;
        }
    }
    ratios.sort_by(f64::total_cmp);
    let k = ratios.len();
    l.num("paired_speedup", ratios[k / 2])
        .num("paired_q1", ratios[k / 4])
        .num("paired_q3", ratios[(3 * k) / 4])
        .int("paired_samples", k as u64);
    // the fastest full pass over the fastest cache pass: the least disturbed of each side
    l.num("min_speedup", best.0 / best.1.max(1e-9));
}

/// The cache warm: learned in the untimed check pass, then every timed pass.
fn warm_cell(args: &Args, f: &str, msgs: &[Vec<u8>], full: &mut Parser) {
    let cache = Arc::new(TemplateCache::new());
    let mut parser = Parser::new().with_template_cache(Arc::clone(&cache));
    let elements = match check_pass(&mut parser, msgs) {
        Ok(n) => n,
        Err(e) => return error("vtdx-template", f, &e),
    };
    let first = cache.stats();
    let s = measure(&args.policy, || pass(&mut parser, msgs));
    let after = cache.stats();
    // the timed passes' own counters: the harness's warm-up passes are in the difference too
    let mut l = line("vtdx-template", f, msgs, &s, elements);
    l.int("check_hits", first.hits).int("check_misses", first.misses);
    counters(&mut l, &first, &after);
    paired(args, &mut l, || pass(full, msgs), || pass(&mut parser, msgs));
    l.emit();
}

/// A new cache for every pass (holding the templates of `seed`, when given).
fn miss_cell(args: &Args, peer: &str, f: &str, msgs: &[Vec<u8>], seed: &[Vec<u8>], full: &mut Parser) {
    let fresh = || {
        let cache = Arc::new(TemplateCache::new());
        for m in seed {
            cache.learn(m, &vtdx::ParseOptions::default());
        }
        cache
    };
    let cache = fresh();
    if cache.stats().templates != seed.len() {
        return error(peer, f, &format!("{} seed templates expected, the cache learned {}", seed.len(), cache.stats().templates));
    }
    let mut parser = Parser::new().with_template_cache(Arc::clone(&cache));
    let elements = match check_pass(&mut parser, msgs) {
        Ok(n) => n,
        Err(e) => return error(peer, f, &e),
    };
    let first = cache.stats();
    // the counters of every timed pass, summed (each pass has a cache of its own)
    let mut sum = TemplateStats::default();
    let mut last = TemplateStats::default();
    let s = measure(&args.policy, || {
        let c = fresh();
        parser.set_template_cache(Some(Arc::clone(&c)));
        pass(&mut parser, msgs);
        let st = c.stats();
        sum.hits += st.hits;
        sum.misses += st.misses;
        sum.bytes_matched += st.bytes_matched;
        last = st;
    });
    let mut l = line(peer, f, msgs, &s, elements);
    l.int("check_hits", first.hits).int("check_misses", first.misses);
    l.int("seed_templates", seed.len() as u64);
    last.hits = sum.hits;
    last.misses = sum.misses;
    last.bytes_matched = sum.bytes_matched;
    counters(&mut l, &TemplateStats::default(), &last);
    paired(
        args,
        &mut l,
        || pass(full, msgs),
        || {
            parser.set_template_cache(Some(fresh()));
            pass(&mut parser, msgs);
        },
    );
    l.emit();
}

fn error(peer: &str, f: &str, why: &str) {
    emit_blank(peer, WORKLOAD, f, "error", why);
}
