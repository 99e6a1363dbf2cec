//! The `template` workload: a stream of messages (NUL-separated in one file)
//! parsed one by one with one reused parser, without and with a template cache
//! (docs/template-cache.md). Prints messages per second (median of `--rounds`
//! passes over the stream) and the cache's counters; every message's index is
//! checked against a full parse once before timing.
//!
//! `template_stream MODE BUNDLE [--rounds N]`, MODE `full` or `cache`.

use std::sync::Arc;
use std::time::Instant;

use vtdx::core::TemplateCache;
use vtdx::Parser;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = || -> ! {
        eprintln!("usage: template_stream full|cache BUNDLE [--rounds N]");
        std::process::exit(2)
    };
    let (Some(mode), Some(path)) = (args.get(1), args.get(2)) else { usage() };
    let rounds: usize = match args.get(3).map(String::as_str) {
        Some("--rounds") => args.get(4).and_then(|n| n.parse().ok()).unwrap_or_else(|| usage()),
        None => 5,
        _ => usage(),
    };
    let bundle = std::fs::read(path).unwrap_or_else(|e| {
        eprintln!("template_stream: cannot read {path}: {e}");
        std::process::exit(2)
    });
    let msgs: Vec<&[u8]> = bundle.split(|&b| b == 0).filter(|m| !m.is_empty()).collect();
    let cache = Arc::new(TemplateCache::new());
    let mut parser = match mode.as_str() {
        "full" => Parser::new(),
        "cache" => Parser::new().with_template_cache(Arc::clone(&cache)),
        _ => usage(),
    };
    // the check: every message gives the index a new parser gives (symbols as
    // their qualified names and namespaces: a reused parser numbers them its own way)
    for m in &msgs {
        let got = parser.parse(m).map(|d| view(&d)).map_err(|e| e.to_string());
        let want = Parser::new().parse(m).map(|d| view(&d)).map_err(|e| e.to_string());
        if got != want {
            eprintln!("template_stream: a message parsed differently");
            std::process::exit(1);
        }
    }
    let mut rates = Vec::new();
    let mut bytes = 0usize;
    for _ in 0..rounds.max(1) {
        let t0 = Instant::now();
        for m in &msgs {
            match parser.parse(m) {
                Ok(d) => {
                    bytes += d.tape().len();
                    parser.recycle(d);
                }
                Err(e) => bytes += e.offset() as usize,
            }
        }
        rates.push(msgs.len() as f64 / t0.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    let s = cache.stats();
    println!(
        "{mode}\t{}\tmessages/s {:.0}\thits {}\tmisses {}\tbytes_matched {}\ttemplates {}\ttemplate_bytes {}\t(checksum {bytes})",
        path.rsplit('/').next().unwrap_or(path),
        rates[rates.len() / 2],
        s.hits,
        s.misses,
        s.bytes_matched,
        s.templates,
        s.bytes
    );
}

/// The tape with each record's symbol replaced by its qualified name and namespace.
fn view(d: &vtdx::Document<'_>) -> Vec<String> {
    let (tape, names) = (d.tape(), d.names());
    let mut out = Vec::new();
    let mut i = 0;
    while i < tape.len() {
        let w = tape[i];
        let kind = w >> 28;
        let n = match kind {
            1 => 5,
            2 | 3 | 7 | 8 => 2,
            _ => 4,
        };
        let name = if matches!(kind, 1 | 2 | 3 | 7 | 8) {
            let s = vtdx::core::Sym::new(w & 0x0FFF_FFFF);
            format!("{} {}", names.qname(s), names.ns_uri(s))
        } else {
            String::new()
        };
        out.push(format!("{kind} {name} {:?}", &tape[i + 1..(i + n).min(tape.len())]));
        i += n;
    }
    out
}
