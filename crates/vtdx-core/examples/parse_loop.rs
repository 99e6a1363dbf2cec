//! Parses a file N times with one reused parser and prints the median MB/s.
//! Handy under `perf record` or `valgrind --tool=callgrind` (instruction counts are
//! repeatable on a noisy machine): `cargo run --release -p vtdx-core --example parse_loop -- FILE [N]`.
//! `FRESH=1` parses with `Document::parse` (a new parser each time) instead;
//! `COLD=1` with a new `Parser::new()` for every document (what a caller who keeps nothing pays);
//! `ISOLATED=1` with a new `Parser::isolated` (name tables built from nothing) for every document;
//! `SPLIT=1` with `ParseOptions::parallel_parse` (two threads for a large document).
//! `BUNDLE=1`: FILE holds many messages separated by NUL bytes (the bench's many-messages
//! workload, `bench/out/soap_messages_10000.bin`); one round parses each once, in order,
//! and the figure printed is messages per second.

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: parse_loop FILE [N]");
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let bytes = std::fs::read(&path).expect("cannot read file");
    let bundle = std::env::var_os("BUNDLE").is_some();
    let msgs: Vec<&[u8]> = if bundle { bytes.split(|&b| b == 0).collect() } else { vec![&bytes[..]] };
    let split = std::env::var_os("SPLIT").is_some();
    let mut parser = vtdx_core::Parser::with_options(vtdx_core::ParseOptions::new().parallel_parse(split));
    let mut times = Vec::with_capacity(n);
    let fresh = std::env::var_os("FRESH").is_some();
    let cold = std::env::var_os("COLD").is_some();
    let isolated = std::env::var_os("ISOLATED").is_some();
    for _ in 0..n {
        let t = Instant::now();
        for &bytes in &msgs {
            if cold || isolated {
                let mut p = if isolated { vtdx_core::Parser::isolated(Default::default()) } else { vtdx_core::Parser::new() };
                let doc = p.parse(bytes).expect("not well-formed");
                std::hint::black_box(doc.tape().len());
            } else if fresh {
                let doc = vtdx_core::Document::parse(bytes).expect("not well-formed");
                std::hint::black_box(doc.tape().len());
            } else {
                let doc = parser.parse(bytes).expect("not well-formed");
                std::hint::black_box(doc.tape().len());
                parser.recycle(doc);
            }
        }
        times.push(t.elapsed().as_secs_f64());
    }
    if n == 0 {
        return;
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let med = times[times.len() / 2];
    if bundle {
        println!("{path}: median {:.3} ms per round, {:.0} messages/s over {n} rounds", med * 1e3, msgs.len() as f64 / med);
        return;
    }
    println!("{path}: median {:.3} ms, {:.0} MB/s over {n} parses", med * 1e3, bytes.len() as f64 / med / 1e6);
}
