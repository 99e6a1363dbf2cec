//! The `template` workload: streams of messages parsed one by one with one
//! reused parser, without and with a template cache (docs/template-cache.md).
//! Prints messages per second (median of `--rounds` passes over the stream) and
//! the cache's counters; every message's index is checked against a full parse
//! once before timing.
//!
//! `template_stream` alone runs the four streams of the workload and prints a
//! table (full parse and cache side by side). `template_stream MODE STREAM
//! [--rounds N] [--no-check]`, MODE `full` or `cache`, runs one (for callgrind;
//! `--no-check` skips the checked pass, which costs more than the timed ones): STREAM is a
//! file of NUL-separated messages or one of the streams built here:
//!
//! - `soap`: 10,000 distinct messages of one structure, `bench/out/soap_messages_10000.bin`
//!   (made by `bench/driver.py` from `soap_wss_2k.xml`);
//! - `mixed`: the same messages in four structures interleaved (the Body's
//!   operation element named `GetQuote`, `GetPrice`, `GetVolume` or `GetRating`:
//!   they share their first bytes and part 1,900 bytes in);
//! - `po`: 10,000 purchase orders of 1 to 12 items, values of varying length;
//! - `miss`: 2,000 of the SOAP messages, each with an operation element of its
//!   own name (2,000 structures sharing their first bytes, none seen twice in a
//!   pass; the passes replay the stream).

use std::sync::Arc;
use std::time::Instant;

use vtdx::core::TemplateCache;
use vtdx::Parser;

const SOAP_BUNDLE: &str = "bench/out/soap_messages_10000.bin";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = || -> ! {
        eprintln!("usage: template_stream [full|cache soap|mixed|po|miss|BUNDLE [--rounds N] [--no-check]]");
        std::process::exit(2)
    };
    if args.len() == 1 {
        return table();
    }
    let (Some(mode), Some(stream)) = (args.get(1), args.get(2)) else { usage() };
    let (mut rounds, mut check) = (5, true);
    let mut rest = args[3..].iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "--rounds" => rounds = rest.next().and_then(|n| n.parse().ok()).unwrap_or_else(|| usage()),
            "--no-check" => check = false,
            _ => usage(),
        }
    }
    let cache = match mode.as_str() {
        "full" => false,
        "cache" => true,
        _ => usage(),
    };
    let msgs = load(stream);
    let r = run(&msgs, cache, rounds, check);
    println!(
        "{mode}\t{stream}\tmessages/s {:.0}\thits {}\tmisses {}\tbytes_matched {}\ttemplates {}\ttemplate_bytes {}\t(checksum {})",
        r.rate, r.stats.hits, r.stats.misses, r.stats.bytes_matched, r.stats.templates, r.stats.bytes, r.checksum
    );
}

/// The four streams, full parse and cache side by side.
fn table() {
    println!("| stream | messages | full parse msg/s | cache msg/s | cache / full | hits | misses | templates | template bytes |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for name in ["soap", "mixed", "po", "miss"] {
        let msgs = load(name);
        let full = run(&msgs, false, 7, true);
        let cached = run(&msgs, true, 7, true);
        let s = cached.stats;
        println!(
            "| {name} | {} | {:.0} | {:.0} | {:.2}x | {} | {} | {} | {} |",
            msgs.len(),
            full.rate,
            cached.rate,
            cached.rate / full.rate,
            s.hits,
            s.misses,
            s.templates,
            s.bytes
        );
    }
}

struct Run {
    rate: f64,
    stats: vtdx::core::TemplateStats,
    checksum: usize,
}

/// Parses `msgs` `rounds` times with one reused parser (after one pass checked
/// against a new parser when `check`, else one unchecked pass).
fn run(msgs: &[Vec<u8>], cache: bool, rounds: usize, check: bool) -> Run {
    let tc = Arc::new(TemplateCache::new());
    let mut parser = if cache { Parser::new().with_template_cache(Arc::clone(&tc)) } else { Parser::new() };
    // the check: every message gives the index a new parser gives (symbols as
    // their qualified names and namespaces: a reused parser numbers them its own way)
    if !check {
        timed_pass(&mut parser, msgs);
    }
    for m in msgs.iter().filter(|_| check) {
        let got = parser.parse(m).map(|d| vtdx_bench::tape_view(&d)).map_err(|e| e.to_string());
        let want = Parser::new().parse(m).map(|d| vtdx_bench::tape_view(&d)).map_err(|e| e.to_string());
        if got != want {
            eprintln!("template_stream: a message parsed differently");
            std::process::exit(1);
        }
    }
    let mut rates = Vec::new();
    let mut checksum = 0usize;
    for _ in 0..rounds.max(1) {
        let t0 = Instant::now();
        checksum += timed_pass(&mut parser, msgs);
        rates.push(msgs.len() as f64 / t0.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    Run { rate: rates[rates.len() / 2], stats: tc.stats(), checksum }
}

/// One pass over the stream (a function of its own for `callgrind --toggle-collect=*timed_pass*`).
#[inline(never)]
fn timed_pass(parser: &mut Parser, msgs: &[Vec<u8>]) -> usize {
    let mut checksum = 0;
    for m in msgs {
        match parser.parse(m) {
            Ok(d) => {
                checksum += d.tape().len();
                parser.recycle(d);
            }
            Err(e) => checksum += e.offset() as usize,
        }
    }
    checksum
}

fn load(stream: &str) -> Vec<Vec<u8>> {
    match stream {
        "soap" => soap(),
        "mixed" => {
            const OPS: [&str; 4] = ["GetQuote", "GetPrice", "GetVolume", "GetRating"];
            soap().iter().enumerate().map(|(i, m)| rename_op(m, OPS[i % 4])).collect()
        }
        "miss" => soap().iter().take(2000).enumerate().map(|(i, m)| rename_op(m, &format!("Op{i}"))).collect(),
        "po" => purchase_orders(10_000),
        path => split(&read(path)),
    }
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| {
        eprintln!("template_stream: cannot read {path} ({e}; `python3 bench/driver.py` makes the SOAP bundle)");
        std::process::exit(2)
    })
}

fn split(bundle: &[u8]) -> Vec<Vec<u8>> {
    bundle.split(|&b| b == 0).filter(|m| !m.is_empty()).map(<[u8]>::to_vec).collect()
}

fn soap() -> Vec<Vec<u8>> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let path = format!("{root}/{SOAP_BUNDLE}");
    split(&read(&path))
}

/// The message with its operation element `m:GetQuote` renamed `m:{op}`.
fn rename_op(m: &[u8], op: &str) -> Vec<u8> {
    let s = std::str::from_utf8(m).unwrap_or_else(|_| {
        eprintln!("template_stream: a SOAP message is not UTF-8");
        std::process::exit(2)
    });
    if !s.contains("<m:GetQuote ") {
        eprintln!("template_stream: a SOAP message has no m:GetQuote element");
        std::process::exit(2)
    }
    s.replace("<m:GetQuote ", &format!("<m:{op} ")).replace("</m:GetQuote>", &format!("</m:{op}>")).into_bytes()
}

/// `n` purchase orders of 1 to 12 items, deterministic, values of varying length.
fn purchase_orders(n: usize) -> Vec<Vec<u8>> {
    const PRODUCTS: [&str; 6] = ["Lawnmower", "Baby Monitor", "Sturdy Shelves", "Hose", "Watering can & rake", "Garden gnome (large)"];
    const NAMES: [&str; 5] = ["Alice Smith", "Robert Smith", "Carol O'Neil", "Dave", "Erin Jones-Whitfield"];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = move |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % m) as usize
    };
    (0..n)
        .map(|i| {
            let items = i % 12 + 1;
            let mut s = format!(
                "<?xml version=\"1.0\"?>\n<purchaseOrder xmlns=\"urn:example:po\" orderDate=\"2026-{:02}-{:02}\">\n  <shipTo country=\"US\">\n    <name>{}</name>\n    <street>{} Maple Street</street>\n    <city>Mill Valley</city>\n    <zip>{}</zip>\n  </shipTo>\n  <comment>order {i}: {}</comment>\n  <items>",
                rnd(12) + 1,
                rnd(28) + 1,
                NAMES[rnd(5)],
                rnd(1000),
                90000 + rnd(9999),
                "hurry, my lawn is going wild".split_at(rnd(27)).0
            );
            for k in 0..items {
                s.push_str(&format!(
                    "\n    <item partNum=\"{}-{}\">\n      <productName>{}</productName>\n      <quantity>{}</quantity>\n      <USPrice>{}.{:02}</USPrice>\n    </item>",
                    100 + rnd(900),
                    ["AA", "BB", "XY"][rnd(3)],
                    PRODUCTS[(k + rnd(6)) % 6].replace('&', "&amp;"),
                    rnd(20) + 1,
                    rnd(500),
                    rnd(100)
                ));
            }
            s.push_str("\n  </items>\n</purchaseOrder>\n");
            s.into_bytes()
        })
        .collect()
}
