//! The Rust programs of the side-by-side harness (`bench/run`): vtdx (three ways:
//! `vtdx`, `Document::parse`, the default per-thread parser, warm; `vtdx-cold`, a new
//! `Parser` per document; `vtdx-reuse`, one explicit `Parser` with `recycle`),
//! quick-xml, roxmltree and simdxml, plus the physical reference (memchr for `<`,
//! memcpy).
//!
//! `rust_peers WORKLOAD [--peers a,b] [policy options] FILE...` loads every file
//! into memory, then prints one JSON line per (peer, workload, document); see
//! `vtdx_bench::harness` for the loop and the options. Workloads: `parse`,
//! `roundtrip`, `xpath`, `xpath-eval` (parse + evaluate + count, no edit), `many`
//! (FILE is a NUL-separated message bundle),
//! `memory` (one peer, one file, fresh process: peak RSS, and for vtdx the heap a parsed
//! document holds, counted by this program's global allocator), `scan`, `c14n` (Canonical XML:
//! inclusive and exclusive C14N 1.0 of the whole document, exclusive C14N of a SOAP
//! Body, from a parsed document and from bytes).

use std::hint::black_box;

use vtdx_bench::harness::{self, emit_blank, measure, Args, Line};
use vtdx_bench::XPATH_EXPRS;

const PEERS: &[&str] = &["vtdx", "vtdx-cold", "vtdx-reuse", "quick-xml", "roxmltree", "simdxml"];

/// Heap accounting: a global allocator that wraps the system allocator and, once switched on,
/// counts the bytes requested and not yet freed (`Layout` sizes: what the program asks for,
/// without malloc's own headers and rounding) and their peak. Only the `memory` workload's
/// process switches it on; in every other workload an allocation pays one relaxed load.
mod heap {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering::Relaxed};

    static ON: AtomicBool = AtomicBool::new(false);
    static LIVE: AtomicIsize = AtomicIsize::new(0);
    static PEAK: AtomicIsize = AtomicIsize::new(0);

    pub struct Counting;

    #[inline]
    fn count(delta: isize) {
        if ON.load(Relaxed) {
            let now = LIVE.fetch_add(delta, Relaxed) + delta;
            PEAK.fetch_max(now, Relaxed);
        }
    }

    // SAFETY: every call is forwarded to `System` with the caller's arguments unchanged;
    // the counters do not touch the memory.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            let p = unsafe { System.alloc(l) };
            if !p.is_null() {
                count(l.size() as isize);
            }
            p
        }
        unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
            let p = unsafe { System.alloc_zeroed(l) };
            if !p.is_null() {
                count(l.size() as isize);
            }
            p
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            unsafe { System.dealloc(p, l) };
            count(-(l.size() as isize));
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
            let q = unsafe { System.realloc(p, l, new_size) };
            if !q.is_null() {
                count(new_size as isize - l.size() as isize);
            }
            q
        }
    }

    /// Starts counting (the memory workload, before anything else is allocated).
    pub fn start() {
        ON.store(true, Relaxed);
    }
    /// Bytes live now (relative: only differences mean something).
    pub fn live() -> isize {
        LIVE.load(Relaxed)
    }
    /// Restarts the peak at the current live bytes.
    pub fn reset_peak() {
        PEAK.store(LIVE.load(Relaxed), Relaxed);
    }
    /// The most bytes live at once since [`reset_peak`].
    pub fn peak() -> isize {
        PEAK.load(Relaxed)
    }
}

#[global_allocator]
static ALLOC: heap::Counting = heap::Counting;

fn main() {
    if std::env::args().nth(1).as_deref() == Some("memory") {
        heap::start();
    }
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("rust_peers: {e}");
            std::process::exit(2);
        }
    };
    // The glibc malloc settings come from the driver (bench/run), identical for every native peer.
    if std::env::var_os("MALLOC_TRIM_THRESHOLD_").is_none() || std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_none() {
        eprintln!("rust_peers: MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ must be set (bench/run sets them)");
        std::process::exit(2);
    }
    let mut files = Vec::new();
    for f in &args.files {
        match std::fs::read(f) {
            Ok(b) => files.push((f.clone(), b)),
            Err(e) => {
                eprintln!("rust_peers: cannot read {f}: {e}");
                std::process::exit(2);
            }
        }
    }
    let peers: Vec<&str> = PEERS.iter().copied().filter(|p| args.wants(p)).collect();
    match args.workload.as_str() {
        "parse" => {
            for peer in &peers {
                for (f, x) in &files {
                    parse_cell(&args, peer, f, x);
                }
            }
        }
        "roundtrip" => {
            for peer in &peers {
                for (f, x) in &files {
                    roundtrip_cell(&args, peer, f, x);
                }
            }
        }
        "xpath" => {
            for peer in &peers {
                for (f, x) in &files {
                    for (i, e) in XPATH_EXPRS.iter().enumerate() {
                        xpath_cell(&args, peer, f, x, i + 1, e);
                    }
                }
            }
        }
        "xpath-eval" => {
            for peer in &peers {
                for (f, x) in &files {
                    for (i, e) in XPATH_EXPRS.iter().enumerate() {
                        xpath_eval_cell(&args, peer, f, x, i + 1, e);
                    }
                }
            }
        }
        "many" => {
            for peer in &peers {
                for (f, x) in &files {
                    many_cell(&args, peer, f, x);
                }
            }
        }
        "memory" => {
            if peers.len() != 1 || files.len() != 1 {
                eprintln!("rust_peers: memory takes exactly one peer (--peers) and one file: peak RSS is per process");
                std::process::exit(2);
            }
            memory_cell(peers[0], &files[0].0, &files[0].1);
        }
        "c14n" => {
            for peer in &peers {
                for (f, x) in &files {
                    c14n_doc(&args, peer, f, x);
                }
            }
        }
        "scan" => {
            for (f, x) in &files {
                if args.wants("memchr") {
                    let lts = memchr::memchr_iter(b'<', x).count() as u64;
                    let s = measure(&args.policy, || {
                        black_box(memchr::memchr_iter(b'<', black_box(x)).count());
                    });
                    Line::new("memchr", "scan", f).stats(&s, x.len() as u64).int("lt_count", lts).emit();
                }
                if args.wants("memcpy") {
                    let mut dst = vec![0u8; x.len()];
                    let s = measure(&args.policy, || {
                        dst.copy_from_slice(black_box(x));
                        black_box(&mut dst);
                    });
                    Line::new("memcpy", "scan", f).stats(&s, x.len() as u64).emit();
                }
                if args.wants("vtdx-edit") {
                    sparse_edit_write(&args, f, x);
                }
            }
        }
        w => {
            eprintln!("rust_peers: unknown workload {w}");
            std::process::exit(2);
        }
    }
}

fn rox_options<'a>() -> roxmltree::ParsingOptions<'a> {
    roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() }
}

/// Parses `x` once with `peer` and counts its elements (the cross-check every
/// peer reports); `Err` says why the peer refused the document.
fn count_elements(peer: &str, x: &[u8]) -> Result<u64, String> {
    match peer {
        "vtdx" | "vtdx-cold" | "vtdx-reuse" => {
            vtdx::Document::parse(x).map(|d| d.record_counts().elements as u64).map_err(|e| e.to_string())
        }
        "quick-xml" => quick_xml_events(x).map(|(_, elems)| elems),
        "roxmltree" => {
            let s = std::str::from_utf8(x).map_err(|e| format!("roxmltree parses UTF-8 &str only: {e}"))?;
            let d = roxmltree::Document::parse_with_options(s, rox_options()).map_err(|e| e.to_string())?;
            Ok(d.descendants().filter(|n| n.is_element()).count() as u64)
        }
        "simdxml" => {
            let ix = simdxml::parse(x).map_err(|e| e.to_string())?;
            Ok((0..ix.tag_count())
                .filter(|&i| matches!(ix.tag_type(i), simdxml::index::TagType::Open | simdxml::index::TagType::SelfClose))
                .count() as u64)
        }
        _ => unreachable!("unknown peer {peer}"),
    }
}

/// Reads every event from a borrowed slice: (events, elements).
fn quick_xml_events(x: &[u8]) -> Result<(u64, u64), String> {
    use quick_xml::events::Event;
    let mut r = quick_xml::Reader::from_reader(x);
    let (mut n, mut elems) = (0u64, 0u64);
    loop {
        match r.read_event() {
            Ok(Event::Eof) => return Ok((n, elems)),
            Ok(Event::Start(_) | Event::Empty(_)) => {
                n += 1;
                elems += 1
            }
            Ok(_) => n += 1,
            Err(e) => return Err(format!("at byte {}: {e}", r.buffer_position())),
        }
    }
}

fn parse_cell(args: &Args, peer: &str, f: &str, x: &[u8]) {
    let elems = match count_elements(peer, x) {
        Ok(n) => n,
        Err(e) => return emit_blank(peer, "parse", f, "rejected", &e),
    };
    let p = &args.policy;
    let s = match peer {
        "vtdx" => measure(p, || {
            black_box(vtdx::Document::parse(black_box(x)).unwrap().tape().len());
        }),
        "vtdx-cold" => measure(p, || {
            black_box(vtdx::Parser::new().parse(black_box(x)).unwrap().tape().len());
        }),
        "vtdx-reuse" => {
            let mut parser = vtdx::Parser::new();
            measure(p, || {
                let d = parser.parse(black_box(x)).unwrap();
                black_box(d.tape().len());
                parser.recycle(d);
            })
        }
        "quick-xml" => measure(p, || {
            black_box(quick_xml_events(black_box(x)).unwrap());
        }),
        "roxmltree" => measure(p, || {
            let s = std::str::from_utf8(black_box(x)).unwrap();
            let d = roxmltree::Document::parse_with_options(s, rox_options()).unwrap();
            black_box(d.root().first_child());
        }),
        "simdxml" => measure(p, || {
            black_box(simdxml::parse(black_box(x)).unwrap().tag_count());
        }),
        _ => unreachable!(),
    };
    let mut l = Line::new(peer, "parse", f);
    l.stats(&s, x.len() as u64).int("elements", elems);
    if peer.starts_with("vtdx") {
        l.int("index_bytes", vtdx::Document::parse(x).unwrap().index_bytes() as u64);
    }
    l.emit();
}

/// One parse + reserialize into `out` (cleared first); `Err` when the peer cannot.
fn roundtrip_once(peer: &str, parser: &mut vtdx::Parser, x: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    out.clear();
    match peer {
        // vtdx writes the input bytes it indexed: byte-exact, nothing to reserialize.
        "vtdx" => vtdx::Document::parse(x).map_err(|e| e.to_string())?.write_to(&mut *out).map_err(|e| e.to_string()),
        "vtdx-cold" => vtdx::Parser::new().parse(x).map_err(|e| e.to_string())?.write_to(&mut *out).map_err(|e| e.to_string()),
        "vtdx-reuse" => {
            let d = parser.parse(x).map_err(|e| e.to_string())?;
            d.write_to(&mut *out).map_err(|e| e.to_string())?;
            parser.recycle(d);
            Ok(())
        }
        "quick-xml" => {
            use quick_xml::events::Event;
            let mut r = quick_xml::Reader::from_reader(x);
            let mut w = quick_xml::Writer::new(&mut *out);
            loop {
                match r.read_event().map_err(|e| e.to_string())? {
                    Event::Eof => return Ok(()),
                    e => w.write_event(e).map_err(|e| e.to_string())?,
                }
            }
        }
        "roxmltree" => Err("no serializer: roxmltree is a read-only tree".into()),
        "simdxml" => Err("no serializer: simdxml builds a read-only structural index".into()),
        _ => unreachable!(),
    }
}

fn roundtrip_cell(args: &Args, peer: &str, f: &str, x: &[u8]) {
    let mut parser = vtdx::Parser::new();
    let mut out = Vec::with_capacity(x.len() + x.len() / 4);
    if let Err(e) = roundtrip_once(peer, &mut parser, x, &mut out) {
        let status = if e.starts_with("no serializer") { "skip" } else { "rejected" };
        return emit_blank(peer, "roundtrip", f, status, &e);
    }
    let out_elems = count_elements(peer, &out);
    let identical = out == x;
    let out_bytes = out.len() as u64;
    let s = measure(&args.policy, || {
        roundtrip_once(peer, &mut parser, black_box(x), &mut out).unwrap();
        black_box(out.len());
    });
    let mut l = Line::new(peer, "roundtrip", f);
    l.stats(&s, x.len() as u64).int("out_bytes", out_bytes).bool("identical", identical);
    match out_elems {
        Ok(n) => l.int("out_elements", n),
        Err(e) => l.str("reparse_error", &e),
    };
    l.emit();
}

/// vtdx's parse + XPath + remove-selected + output job, for Tables 2-6: parse, run
/// the precompiled expression, remove every selected node with the [`vtdx::Editor`],
/// write the result into `out`. Returns the number of nodes removed. `peer` says how it
/// parses: `vtdx-reuse` keeps the parser's allocations and the output buffer between
/// documents (the seed's buffer-reuse mode); `vtdx` parses with `Document::parse` (the
/// per-thread parser: name tables kept, a new tape) and `vtdx-cold` with a new `Parser`,
/// both writing into a fresh buffer.
fn vtdx_xpath_edit(parser: &mut vtdx::Parser, peer: &str, x: &[u8], xp: &vtdx::XPath, out: &mut Vec<u8>) -> Result<u64, String> {
    use vtdx::xpath::XNodeKind;
    let reuse = peer == "vtdx-reuse";
    let doc = match peer {
        "vtdx-reuse" => parser.parse(x),
        "vtdx-cold" => vtdx::Parser::new().parse(x),
        _ => vtdx::Document::parse(x),
    }
    .map_err(|e| e.to_string())?;
    let mut removed = 0u64;
    {
        let nodes = xp.select(doc.root()).map_err(|e| e.to_string())?;
        let mut ed = vtdx::Editor::new(&doc);
        for n in nodes.iter() {
            match n.kind() {
                XNodeKind::Root | XNodeKind::Namespace => return Err("selected a node that cannot be removed".into()),
                XNodeKind::Text => {
                    // one XPath text node may be several adjacent text/CDATA records
                    let mut cur = Some(n.node());
                    while let Some(c) = cur.filter(|c| matches!(c.kind(), vtdx::NodeKind::Text | vtdx::NodeKind::CData)) {
                        ed.remove(c).map_err(|e| e.to_string())?;
                        cur = c.next_sibling();
                    }
                }
                _ => ed.remove(n.node()).map_err(|e| e.to_string())?,
            }
            removed += 1;
        }
        if reuse {
            out.clear();
            ed.append_to(out).map_err(|e| e.to_string())?;
        } else {
            *out = ed.to_vec().map_err(|e| e.to_string())?;
        }
    }
    if reuse {
        parser.recycle(doc);
    }
    Ok(removed)
}

fn xpath_cell(args: &Args, peer: &str, f: &str, x: &[u8], idx: usize, expr: &str) {
    let blank = |status: &str, reason: &str| {
        Line::new(peer, "xpath", f).int("expr", idx as u64).str("xpath", expr).str("status", status).str("reason", reason).emit();
    };
    let mut parser = vtdx::Parser::new();
    let mut out = Vec::with_capacity(x.len());
    // precompiled once, outside the timed loop, as in the seed
    let xp = match vtdx::XPath::compile(expr, &vtdx::xpath::Namespaces::new()) {
        Ok(xp) => xp,
        Err(e) => return blank("error", &e.to_string()),
    };
    let run = |parser: &mut vtdx::Parser, out: &mut Vec<u8>| -> Result<u64, String> {
        out.clear();
        match peer {
            "vtdx" | "vtdx-cold" | "vtdx-reuse" => vtdx_xpath_edit(parser, peer, x, &xp, out),
            "simdxml" => Err("XPath but no editing or serializer".into()),
            "roxmltree" => Err("read-only tree, no XPath".into()),
            "quick-xml" => Err("streaming reader, no XPath".into()),
            _ => unreachable!(),
        }
    };
    let removed = match run(&mut parser, &mut out) {
        Ok(n) => n,
        Err(e) => return blank("skip", &e),
    };
    let out_bytes = out.len() as u64;
    let out_elems = count_elements(peer, &out);
    let s = measure(&args.policy, || {
        black_box(run(&mut parser, &mut out).unwrap());
    });
    let mut l = Line::new(peer, "xpath", f);
    l.int("expr", idx as u64).str("xpath", expr).stats(&s, x.len() as u64).int("selected", removed).int("out_bytes", out_bytes);
    match out_elems {
        Ok(n) => l.int("out_elements", n),
        Err(e) => l.str("reparse_error", &e),
    };
    l.emit();
}

/// The `xpath-eval` workload: parse from memory + evaluate one precompiled expression + count
/// the selected nodes (no removal, no output). vtdx parses with `Document::parse` (the per-thread
/// parser), vtdx-cold with a new `Parser`, vtdx-reuse with a reused `Parser` + `recycle`; simdxml parses its structural index, builds its query
/// indices (`ensure_indices`) and evaluates a `CompiledXPath`.
fn xpath_eval_cell(args: &Args, peer: &str, f: &str, x: &[u8], idx: usize, expr: &str) {
    let blank = |status: &str, reason: &str| {
        Line::new(peer, "xpath-eval", f).int("expr", idx as u64).str("xpath", expr).str("status", status).str("reason", reason).emit();
    };
    let reason = match peer {
        "roxmltree" => Some("read-only tree, no XPath"),
        "quick-xml" => Some("streaming reader, no XPath"),
        _ => None,
    };
    if let Some(r) = reason {
        return blank("skip", r);
    }
    // precompiled once, outside the timed loop
    let xp = match vtdx::XPath::compile(expr, &vtdx::xpath::Namespaces::new()) {
        Ok(xp) => xp,
        Err(e) => return blank("error", &e.to_string()),
    };
    let sx = match simdxml::CompiledXPath::compile(expr) {
        Ok(c) => Some(c),
        Err(e) if peer == "simdxml" => return blank("skip", &format!("simdxml cannot compile the expression: {e}")),
        Err(_) => None,
    };
    let mut parser = vtdx::Parser::new();
    let run = |parser: &mut vtdx::Parser| -> Result<u64, String> {
        match peer {
            "vtdx" => {
                let doc = vtdx::Document::parse(x).map_err(|e| e.to_string())?;
                Ok(xp.select(doc.root()).map_err(|e| e.to_string())?.len() as u64)
            }
            "vtdx-cold" => {
                let doc = vtdx::Parser::new().parse(x).map_err(|e| e.to_string())?;
                Ok(xp.select(doc.root()).map_err(|e| e.to_string())?.len() as u64)
            }
            "vtdx-reuse" => {
                let doc = parser.parse(x).map_err(|e| e.to_string())?;
                let n = xp.select(doc.root()).map_err(|e| e.to_string())?.len() as u64;
                parser.recycle(doc);
                Ok(n)
            }
            "simdxml" => {
                // the crate's advice before querying (its own `eval` does it): the CSR child and
                // close-tag indices; without them evaluation was about 100x slower on po_big
                let mut ix = simdxml::parse(x).map_err(|e| e.to_string())?;
                ix.ensure_indices();
                Ok(sx.as_ref().unwrap().eval(&ix).map_err(|e| e.to_string())?.len() as u64)
            }
            _ => unreachable!(),
        }
    };
    let selected = match run(&mut parser) {
        Ok(n) => n,
        Err(e) if peer == "simdxml" => return blank("skip", &format!("simdxml cannot evaluate the expression: {e}")),
        Err(e) => return blank("rejected", &e),
    };
    let s = measure(&args.policy, || {
        black_box(run(&mut parser).unwrap());
    });
    Line::new(peer, "xpath-eval", f).int("expr", idx as u64).str("xpath", expr).stats(&s, x.len() as u64).int("selected", selected).emit();
}

fn many_cell(args: &Args, peer: &str, f: &str, bundle: &[u8]) {
    let msgs = harness::split_bundle(bundle);
    let total: u64 = msgs.iter().map(|m| m.len() as u64).sum();
    let mut elems = 0;
    for m in &msgs {
        match count_elements(peer, m) {
            Ok(n) => elems += n,
            Err(e) => return emit_blank(peer, "many", f, "rejected", &e),
        }
    }
    let p = &args.policy;
    let s = match peer {
        "vtdx" => measure(p, || {
            for m in &msgs {
                black_box(vtdx::Document::parse(m).unwrap().tape().len());
            }
        }),
        "vtdx-cold" => measure(p, || {
            for m in &msgs {
                black_box(vtdx::Parser::new().parse(m).unwrap().tape().len());
            }
        }),
        "vtdx-reuse" => {
            let mut parser = vtdx::Parser::new();
            measure(p, || {
                for m in &msgs {
                    let d = parser.parse(m).unwrap();
                    black_box(d.tape().len());
                    parser.recycle(d);
                }
            })
        }
        "quick-xml" => measure(p, || {
            for m in &msgs {
                black_box(quick_xml_events(m).unwrap());
            }
        }),
        "roxmltree" => measure(p, || {
            for m in &msgs {
                let d = roxmltree::Document::parse_with_options(std::str::from_utf8(m).unwrap(), rox_options()).unwrap();
                black_box(d.root().first_child());
            }
        }),
        "simdxml" => measure(p, || {
            for m in &msgs {
                black_box(simdxml::parse(m).unwrap().tag_count());
            }
        }),
        _ => unreachable!(),
    };
    Line::new(peer, "many", f)
        .stats(&s, total)
        .int("messages", msgs.len() as u64)
        .num("msgs_per_s", msgs.len() as f64 * 1e9 / s.median_ns)
        .int("elements", elems)
        .emit();
}

/// Peak resident memory of one parse of one document, the result kept alive while
/// measuring. `base_rss` is the peak before parsing (program + the loaded document).
///
/// For vtdx also the heap, counted by this program's allocator ([`heap`]), in bytes requested:
/// the first parse in the process is a cold one (a new `Parser`, which is what
/// `Document::parse` starts with on a fresh thread), and the parser is dropped after it, so
/// `held_heap_bytes` is everything the kept `Document` owns (tape with whatever reserve it keeps, name
/// tables, DTD) and `parse_peak_heap_bytes` the most the parse had allocated at once (document
/// and parser scratch). `index_bytes` is `Document::index_bytes` (the tape words in use and
/// the name tables). Then the same document is parsed twice more with `Document::parse` (the
/// per-thread parser, warm after the first of them), the first dropped before the second:
/// `held_heap_warm_bytes` is what the second one adds to the heap while it is alive (its name
/// tables stay shared with the parser, so mostly the tape).
fn memory_cell(peer: &str, f: &str, x: &[u8]) {
    let base = harness::peak_rss().max(harness::current_rss());
    let mut index_bytes = None;
    let mut heap_fields = Vec::new();
    let peak = match peer {
        "vtdx" | "vtdx-cold" | "vtdx-reuse" => {
            let live0 = heap::live();
            heap::reset_peak();
            let mut parser = vtdx::Parser::new();
            match parser.parse(x) {
                Ok(d) => {
                    let p = harness::peak_rss();
                    heap_fields.push(("parse_peak_heap_bytes", (heap::peak() - live0).max(0) as u64));
                    drop(parser);
                    heap_fields.push(("held_heap_bytes", (heap::live() - live0).max(0) as u64));
                    index_bytes = Some(d.index_bytes() as u64);
                    heap_fields.push(("tape_bytes", d.tape().len() as u64 * 4));
                    black_box(&d);
                    drop(d);
                    drop(vtdx::Document::parse(x).unwrap());
                    let live1 = heap::live();
                    let warm = vtdx::Document::parse(x).unwrap();
                    heap_fields.push(("held_heap_warm_bytes", (heap::live() - live1).max(0) as u64));
                    black_box(&warm);
                    p
                }
                Err(e) => return emit_blank(peer, "memory", f, "rejected", &e.to_string()),
            }
        }
        "quick-xml" => match quick_xml_events(x) {
            Ok(n) => {
                black_box(n);
                harness::peak_rss()
            }
            Err(e) => return emit_blank(peer, "memory", f, "rejected", &e),
        },
        "roxmltree" => {
            let s = match std::str::from_utf8(x) {
                Ok(s) => s,
                Err(e) => return emit_blank(peer, "memory", f, "rejected", &format!("roxmltree parses UTF-8 &str only: {e}")),
            };
            match roxmltree::Document::parse_with_options(s, rox_options()) {
                Ok(d) => {
                    let p = harness::peak_rss();
                    black_box(&d);
                    p
                }
                Err(e) => return emit_blank(peer, "memory", f, "rejected", &e.to_string()),
            }
        }
        "simdxml" => match simdxml::parse(x) {
            Ok(ix) => {
                let p = harness::peak_rss();
                black_box(&ix);
                p
            }
            Err(e) => return emit_blank(peer, "memory", f, "rejected", &e.to_string()),
        },
        _ => unreachable!(),
    };
    let mut l = Line::new(peer, "memory", f);
    l.str("status", "ok")
        .int("bytes", x.len() as u64)
        .int("base_rss", base)
        .int("peak_rss", peak)
        .int("delta_bytes", peak.saturating_sub(base));
    if let Some(v) = index_bytes {
        l.int("index_bytes", v);
    }
    for (k, v) in heap_fields {
        l.int(k, v);
    }
    l.emit();
}

/// The `scan` workload's Editor row: the output pass of a sparse edit, beside `memcpy`.
/// The document is parsed and the edits recorded once, outside the timed loop: 8 leaf
/// elements (no element children; fewer in a small document), spread evenly over the
/// document, are removed. Each sample
/// is `Editor::append_to` a reused buffer (MB/s of input bytes). The output is checked
/// against the input with the removed ranges cut out (or, where the index describes
/// decoded or expanded text, by parsing it and counting what is left).
fn sparse_edit_write(args: &Args, f: &str, x: &[u8]) {
    let Ok(doc) = vtdx::Document::parse(x) else { return emit_blank("vtdx-edit", "scan", f, "rejected", "not well-formed") };
    // leaf elements (no element children), 8 of them spread over the document
    let leaves: Vec<vtdx::Node<'_>> =
        doc.root_element().descendants().filter(|n| n.is_element() && n.element_children().next().is_none()).collect();
    let step = leaves.len().div_ceil(8).max(1);
    let chosen: Vec<vtdx::Node<'_>> = leaves.iter().copied().step_by(step).take(8).collect();
    let before = doc.root_element().descendants().filter(|n| n.is_element()).count();
    let mut ed = vtdx::Editor::new(&doc);
    for n in &chosen {
        ed.remove(*n).unwrap();
    }
    let mut out = Vec::with_capacity(x.len());
    out.clear();
    ed.append_to(&mut out).unwrap();
    if doc.text() == x {
        // the expected output: the input without the removed ranges
        let mut want = Vec::with_capacity(x.len());
        let mut at = 0;
        for n in &chosen {
            let r = n.range();
            want.extend_from_slice(&x[at..r.start]);
            at = r.end;
        }
        want.extend_from_slice(&x[at..]);
        assert!(out == want, "vtdx-edit: {f}: the output is not the input without the removed elements");
    } else {
        // the index describes decoded or expanded text: check the result by parsing it
        let d = vtdx::Document::parse(&out).expect("vtdx-edit: the output is not well-formed");
        let left = d.root_element().descendants().filter(|n| n.is_element()).count();
        assert_eq!(left, before - chosen.len(), "vtdx-edit: {f}: wrong number of elements left");
    }
    let s = measure(&args.policy, || {
        out.clear();
        ed.append_to(black_box(&mut out)).unwrap();
        black_box(out.len());
    });
    Line::new("vtdx-edit", "scan", f).stats(&s, x.len() as u64).int("edits", chosen.len() as u64).emit();
}

/// The SOAP 1.1 and 1.2 envelope namespaces: a document whose root element is `Envelope` in one
/// of them gets the c14n workload's `exc-body` case (every peer program applies the same rule).
const SOAP_NS: [&str; 2] = ["http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/2003/05/soap-envelope"];

/// The c14n workload's cases: (case, algorithm, the SOAP Body subtree rather than the whole document).
const C14N_CASES: [(&str, vtdx::c14n::Algorithm, bool); 3] = [
    ("c14n", vtdx::c14n::Algorithm::C14n10, false),
    ("exc", vtdx::c14n::Algorithm::ExcC14n10, false),
    ("exc-body", vtdx::c14n::Algorithm::ExcC14n10, true),
];

/// The `Body` child of a SOAP `Envelope` root element, by navigation.
fn soap_body<'d>(doc: &'d vtdx::Document<'_>) -> Option<vtdx::Node<'d>> {
    let root = doc.root_element();
    let ns = root.namespace_uri()?;
    if root.local_name() != "Envelope" || !SOAP_NS.contains(&ns) {
        return None;
    }
    root.element_children().find(|e| e.local_name() == "Body" && e.namespace_uri() == Some(ns))
}

/// Canonicalizes the whole document, or its SOAP Body, appending to `out`.
fn vtdx_c14n(c: &vtdx::c14n::Canonicalizer, doc: &vtdx::Document<'_>, body: bool, out: &mut Vec<u8>) -> Result<(), String> {
    if body {
        let b = soap_body(doc).ok_or("no SOAP Body")?;
        c.append_subtree(b, out)
    } else {
        c.append_document(doc, out)
    }
    .map_err(|e| e.to_string())
}

/// One document of the c14n workload: vtdx's parse alone (the reference for "C14N at N% of parse
/// throughput"), then per case the canonicalization of the already-parsed document (`from`:
/// `tree`) and parse + canonicalize (`from`: `bytes`). `vtdx` allocates a fresh output vector per
/// canonicalization (`document_to_vec`/`subtree_to_vec`) and parses with `Document::parse` (the
/// per-thread parser); `vtdx-cold` does the same with a new `Parser` per parse (from a tree it is
/// `vtdx`: the document is parsed before the timing starts, so it prints a skip line there);
/// `vtdx-reuse` appends to one reused `Vec<u8>` (`append_document`/`append_subtree`) and parses
/// with a reused `Parser`. Each cell runs its timed operation once more, outside the timing, and
/// reports the length and CRC-32 of that output: the cross-check covers the entry point timed.
/// MB/s are of the input: the whole document, or for `exc-body` from a tree the Body element's
/// bytes (start tag to end tag).
fn c14n_doc(args: &Args, peer: &str, f: &str, x: &[u8]) {
    let reason = match peer {
        "vtdx" | "vtdx-cold" | "vtdx-reuse" => None,
        "quick-xml" => Some("no Canonical XML: a streaming reader and writer (no namespace context or attribute sorting)"),
        "roxmltree" => Some("no Canonical XML: a read-only tree without a serializer"),
        "simdxml" => Some(
            "no Canonical XML: `canonicalize` of an element sorts attributes and expands empty elements but processes no namespaces, \
             comments or PIs and has no exclusive mode",
        ),
        _ => unreachable!(),
    };
    if let Some(r) = reason {
        return emit_blank(peer, "c14n", f, "skip", r);
    }
    let line = |case: &str, from: &str| {
        let mut l = Line::new(peer, "c14n", f);
        l.str("case", case).str("from", from);
        l
    };
    let doc = match vtdx::Document::parse(x) {
        Ok(d) => d,
        Err(e) => return line("parse", "bytes").str("status", "rejected").str("reason", &e.to_string()).emit(),
    };
    let p = &args.policy;
    let reuse = peer == "vtdx-reuse";
    let cold = peer == "vtdx-cold";
    let mut parser = vtdx::Parser::new();
    let s = match peer {
        "vtdx-reuse" => measure(p, || {
            let d = parser.parse(black_box(x)).unwrap();
            black_box(d.tape().len());
            parser.recycle(d);
        }),
        "vtdx-cold" => measure(p, || {
            black_box(vtdx::Parser::new().parse(black_box(x)).unwrap().tape().len());
        }),
        _ => measure(p, || {
            black_box(vtdx::Document::parse(black_box(x)).unwrap().tape().len());
        }),
    };
    line("parse", "bytes").stats(&s, x.len() as u64).int("doc_bytes", x.len() as u64).emit();
    let body = soap_body(&doc);
    let mut out = Vec::with_capacity(x.len() + x.len() / 4);
    let s_err = |e: vtdx::c14n::C14nError| e.to_string();
    for (case, alg, sub) in C14N_CASES {
        if sub && body.is_none() {
            continue;
        }
        let c = vtdx::c14n::Canonicalizer::new(alg);
        let in_bytes = if sub { body.map_or(0, |b| b.range().len()) } else { x.len() } as u64;
        // from a parsed document
        if cold {
            line(case, "tree")
                .str("status", "skip")
                .str("reason", "from a tree vtdx-cold is vtdx: the document is parsed before the timing starts")
                .emit();
        } else {
            let sub_body = body.filter(|_| sub);
            let op = |out: &mut Vec<u8>| -> Result<(), String> {
                match (reuse, sub_body) {
                    (false, None) => *out = c.document_to_vec(&doc).map_err(s_err)?,
                    (false, Some(b)) => *out = c.subtree_to_vec(b).map_err(s_err)?,
                    (true, None) => {
                        out.clear();
                        c.append_document(&doc, out).map_err(s_err)?
                    }
                    (true, Some(b)) => {
                        out.clear();
                        c.append_subtree(b, out).map_err(s_err)?
                    }
                }
                Ok(())
            };
            if let Err(e) = op(&mut out) {
                for from in ["tree", "bytes"] {
                    line(case, from).str("status", "error").str("reason", &e).emit();
                }
                continue;
            }
            let (crc, out_len) = (format!("{:08x}", harness::crc32(&out)), out.len() as u64);
            let s = measure(p, || {
                op(&mut out).unwrap();
                black_box(out.len());
            });
            line(case, "tree").stats(&s, in_bytes).int("doc_bytes", x.len() as u64).int("out_bytes", out_len).str("out_crc32", &crc).emit();
        }
        // parse + canonicalize, from bytes
        let mut op = |out: &mut Vec<u8>| -> Result<(), String> {
            if reuse {
                let d = parser.parse(x).map_err(|e| e.to_string())?;
                out.clear();
                vtdx_c14n(&c, &d, sub, out)?;
                parser.recycle(d);
            } else {
                let d = if cold { vtdx::Parser::new().parse(x) } else { vtdx::Document::parse(x) }.map_err(|e| e.to_string())?;
                *out = if sub { c.subtree_to_vec(soap_body(&d).ok_or("no SOAP Body")?) } else { c.document_to_vec(&d) }.map_err(s_err)?;
            }
            Ok(())
        };
        if let Err(e) = op(&mut out) {
            line(case, "bytes").str("status", "error").str("reason", &e).emit();
            continue;
        }
        let (crc, out_len) = (format!("{:08x}", harness::crc32(&out)), out.len() as u64);
        let s = measure(p, || {
            op(&mut out).unwrap();
            black_box(out.len());
        });
        line(case, "bytes")
            .stats(&s, x.len() as u64)
            .int("doc_bytes", x.len() as u64)
            .int("out_bytes", out_len)
            .str("out_crc32", &crc)
            .emit();
    }
}
