//! The seed's Tables 2-6 job (parse, one precompiled XPath, remove every selected
//! node, write to a reused buffer) in a loop, with the median time of each phase.
//! For profiling (`perf record`, `valgrind --tool=callgrind`):
//! `cargo run --release -p vtdx --example xpath_edit_loop -- FILE EXPR [N]`.

use std::hint::black_box;
use std::time::Instant;

use vtdx::xpath::{Namespaces, XNodeKind};
use vtdx::{Editor, NodeKind, Parser, XPath};

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: xpath_edit_loop FILE EXPR [N]";
    let path = args.next().expect(usage);
    let expr = args.next().expect(usage);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let bytes = std::fs::read(&path).expect("cannot read file");
    let xp = XPath::compile(&expr, &Namespaces::new()).expect("bad expression");
    let mut parser = Parser::new();
    let mut out = Vec::new();
    let (mut tp, mut ts, mut te) = (Vec::new(), Vec::new(), Vec::new());
    let mut removed = 0;
    for _ in 0..n {
        let t0 = Instant::now();
        let doc = parser.parse(black_box(&bytes)).expect("not well-formed");
        let t1 = Instant::now();
        let nodes = xp.select(doc.root()).expect("evaluation failed");
        let t2 = Instant::now();
        let mut ed = Editor::new(&doc);
        removed = 0;
        for x in nodes.iter() {
            if x.kind() == XNodeKind::Text {
                let mut cur = Some(x.node());
                while let Some(c) = cur.filter(|c| matches!(c.kind(), NodeKind::Text | NodeKind::CData)) {
                    ed.remove(c).unwrap();
                    cur = c.next_sibling();
                }
            } else {
                ed.remove(x.node()).unwrap();
            }
            removed += 1;
        }
        out.clear();
        ed.append_to(&mut out).unwrap();
        let t3 = Instant::now();
        drop(ed);
        drop(nodes);
        parser.recycle(doc);
        tp.push(t1 - t0);
        ts.push(t2 - t1);
        te.push(t3 - t2);
    }
    let med = |v: &mut Vec<std::time::Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64() * 1e6
    };
    let (p, s, e) = (med(&mut tp), med(&mut ts), med(&mut te));
    println!(
        "{path}: {removed} removed, {} bytes out; median µs: parse {p:.2}, select {s:.2}, edit+write {e:.2}, total {:.2} ({:.0} MB/s)",
        out.len(),
        p + s + e,
        bytes.len() as f64 / (p + s + e)
    );
}
