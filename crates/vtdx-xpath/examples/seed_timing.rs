//! Quick timing of the seed expressions (parse + evaluate), vtdx beside
//! simdxml, median of many runs:
//! `cargo run --release -p vtdx-xpath --example seed_timing [FILE]`.
//! `ONLY=substr` picks expressions (`ONLY=4` the fourth); `PROFILE_EVAL=1` then loops evaluation
//! alone for 5 s (for `perf record`); `EVAL_LOOPS=N` evaluates N times and
//! nothing else (for `valgrind --tool=callgrind`, instructions per evaluation).

use std::hint::black_box;
use std::time::{Duration, Instant};

use vtdx_core::Document;
use vtdx_xpath::{Namespaces, XPath};

const SEED_EXPRESSIONS: [&str; 5] = [
    "/*/*/*[position() mod 2 = 0]",
    "/purchaseOrder/items/item[USPrice<100]",
    "/*/*/*/quantity/text()",
    "//item/comment",
    "//item/comment/../quantity",
];

fn median(mut f: impl FnMut()) -> Duration {
    let mut v = Vec::new();
    let start = Instant::now();
    while v.len() < 15 || (start.elapsed() < Duration::from_secs(2) && v.len() < 2000) {
        let t = Instant::now();
        f();
        v.push(t.elapsed());
    }
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        let c = std::env::var("VTDX_CORPUS").unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus").to_string());
        format!("{c}/bench/generated/po_big.xml")
    });
    let bytes = std::fs::read(&path).unwrap();
    let mb = bytes.len() as f64 / 1e6;
    let eval_loops = std::env::var("EVAL_LOOPS").ok().and_then(|n| n.parse::<usize>().ok());
    if eval_loops.is_none() {
        let parse = median(|| {
            black_box(Document::parse(black_box(&bytes)).unwrap());
        });
        println!(
            "{path}: {} bytes; vtdx parse alone {:.0} MB/s ({:.3} ms)",
            bytes.len(),
            mb / parse.as_secs_f64(),
            parse.as_secs_f64() * 1e3
        );
    }
    let only = std::env::var("ONLY").ok();
    for expr in SEED_EXPRESSIONS
        .into_iter()
        .enumerate()
        .filter(|(i, e)| {
            only.as_deref().is_none_or(|o| if o.bytes().all(|b| b.is_ascii_digit()) { o == (i + 1).to_string() } else { e.contains(o) })
        })
        .map(|(_, e)| e)
    {
        let xp = XPath::compile(expr, &Namespaces::new()).unwrap();
        let doc = Document::parse(&bytes).unwrap();
        if let Some(n) = eval_loops {
            for _ in 0..n {
                black_box(xp.select(doc.root()).unwrap().len());
            }
            continue;
        }
        if std::env::var_os("PROFILE_EVAL").is_some() {
            let t = Instant::now();
            while t.elapsed() < Duration::from_secs(5) {
                black_box(xp.select(doc.root()).unwrap().len());
            }
            continue;
        }
        let te = median(|| {
            black_box(xp.select(doc.root()).unwrap().len());
        });
        let sx = simdxml::CompiledXPath::compile(expr).unwrap();
        let mut n = (0, 0);
        let tv = median(|| {
            let doc = Document::parse(black_box(&bytes)).unwrap();
            n.0 = black_box(xp.select(doc.root()).unwrap().len());
        });
        let ts = median(|| {
            let mut ix = simdxml::parse(black_box(&bytes)).unwrap();
            ix.ensure_indices();
            n.1 = black_box(sx.eval(&ix).unwrap().len());
        });
        println!(
            "{expr:40} eval {:6.3} ms | nodes {:5}/{:5} | parse+eval: vtdx {:5.0} MB/s ({:6.3} ms)  simdxml {:5.0} MB/s ({:6.3} ms)",
            te.as_secs_f64() * 1e3,
            n.0,
            n.1,
            mb / tv.as_secs_f64(),
            tv.as_secs_f64() * 1e3,
            mb / ts.as_secs_f64(),
            ts.as_secs_f64() * 1e3
        );
    }
}
