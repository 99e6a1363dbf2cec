//! `binary_loop FILE [N] [MODE]`: parse, pack and unpack `FILE` N times each and
//! print the median times and the packed size (`MODE`: `all`, or one of `parse`,
//! `pack`, `unpack` to repeat only that step, for callgrind). With `--stream K`
//! instead of a file count, FILE is packed K times into one stream.

use std::time::Instant;

use vtdx_core::{Document, Parser};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: binary_loop FILE [N] [all|parse|pack|unpack]");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(50);
    let mode = args.get(3).map(String::as_str).unwrap_or("all");
    let bytes = std::fs::read(path).expect("read");
    let doc = Document::parse(&bytes).expect("parse");
    let packed = vtdx_binary::pack(&doc).expect("pack");
    assert_eq!(vtdx_binary::unpack(&packed).expect("unpack").source(), &bytes[..]);
    let mut parser = Parser::new();
    let (mut tp, mut tk, mut tu) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        if mode == "all" || mode == "parse" {
            let t = Instant::now();
            let d = parser.parse(&bytes).expect("parse");
            std::hint::black_box(&d);
            tp.push(t.elapsed().as_secs_f64());
            parser.recycle(d);
        }
        if mode == "all" || mode == "pack" {
            let t = Instant::now();
            let p = vtdx_binary::pack(&doc).expect("pack");
            std::hint::black_box(&p);
            tk.push(t.elapsed().as_secs_f64());
        }
        if mode == "all" || mode == "unpack" {
            let t = Instant::now();
            let d = vtdx_binary::unpack(&packed).expect("unpack");
            std::hint::black_box(&d);
            tu.push(t.elapsed().as_secs_f64());
        }
    }
    let mb = bytes.len() as f64 / 1e6;
    let show = |name: &str, v: Vec<f64>| {
        if !v.is_empty() {
            let m = median(v);
            println!("{name:>7}: {:10.1} us  {:8.0} MB/s", m * 1e6, mb / m);
        }
    };
    println!("{path}: {} bytes, packed {} ({:.1}%)", bytes.len(), packed.len(), 100.0 * packed.len() as f64 / bytes.len() as f64);
    show("parse", tp);
    show("pack", tk);
    show("unpack", tu);
}
