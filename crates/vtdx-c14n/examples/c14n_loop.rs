//! Exclusive C14N of a SOAP message's Body (or the whole document) N times, for
//! profiling (`valgrind --tool=callgrind`, `perf record`):
//! `cargo run --release -p vtdx-c14n --example c14n_loop -- FILE [N] [doc|vec|append]`
//! (the Body written to a reused vector through `Write`, or `doc`: the whole
//! document; `vec`: the Body with `subtree_to_vec`, a fresh vector each time, as
//! the benchmark's `vtdx` peer does; `append`: with `append_subtree` into a
//! reused vector, as its `vtdx-reuse` peer does).

use vtdx_c14n::{Algorithm, Canonicalizer};
use vtdx_core::Document;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: c14n_loop FILE [N] [doc]");
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let mode = args.next().unwrap_or_default();
    let whole = mode == "doc";
    let fresh = mode == "vec";
    let append = mode == "append";
    let bytes = std::fs::read(&path).expect("cannot read file");
    let doc = Document::parse(&bytes).expect("not well-formed");
    let exc = Canonicalizer::new(Algorithm::ExcC14n10);
    let body = doc.root_element().element_children().find(|e| e.local_name() == "Body").unwrap_or(doc.root_element());
    let mut out = Vec::new();
    let t = std::time::Instant::now();
    for _ in 0..n {
        out.clear();
        if append {
            exc.append_subtree(body, &mut out).expect("c14n failed");
        } else if fresh {
            out = exc.subtree_to_vec(body).expect("c14n failed");
        } else if whole {
            exc.canonicalize_document(&doc, &mut out).expect("c14n failed");
        } else {
            exc.canonicalize_subtree(body, &mut out).expect("c14n failed");
        }
    }
    let dt = t.elapsed().as_secs_f64() / n as f64;
    println!("{path}: {} bytes out, {:.0} MB/s", out.len(), out.len() as f64 / dt / 1e6);
}
