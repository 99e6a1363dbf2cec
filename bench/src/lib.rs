//! Shared helpers for the benchmarks: where the benchmark documents are.

use std::path::PathBuf;

/// The shared corpus: `$VTDX_CORPUS`, else `../shared/corpus` beside the repository.
pub fn corpus_dir() -> PathBuf {
    if let Ok(p) = std::env::var("VTDX_CORPUS") {
        return PathBuf::from(p);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

/// The benchmark documents: (short name, bytes). Panics with a clear message when
/// the corpus is missing: benchmarks never run on nothing.
pub fn documents() -> Vec<(String, Vec<u8>)> {
    let root = corpus_dir().join("bench");
    let files = [
        "generated/po_small.xml",
        "generated/po_medium.xml",
        "generated/po_big.xml",
        "generated/po_16mb.xml",
        "generated/soap_wss_2k.xml",
        "generated/soap_big.xml",
        "generated/attrs_heavy.xml",
        "generated/play_text.xml",
        "classic/much_ado.xml",
        "classic/periodic_table.xml",
        "soap/plain-soap-1.1.xml",
        "xmark/xmark-f0.01.xml",
    ];
    files
        .iter()
        .map(|f| {
            let p = root.join(f);
            let bytes =
                std::fs::read(&p).unwrap_or_else(|e| panic!("benchmark document {} is missing: {e} (set VTDX_CORPUS)", p.display()));
            let name = f.rsplit('/').next().unwrap_or(f).trim_end_matches(".xml").to_string();
            (name, bytes)
        })
        .collect()
}

pub mod harness;

/// A document's tape with each record's symbol replaced by its qualified name and
/// namespace URI, one line per record (kind, name, the record's other words): two
/// documents parsed by different (reused) parsers, whose symbols are numbered their
/// own way, compare equal when their indexes are the same. Read through
/// `vtdx_core::tape`, the one reader of the layout.
pub fn tape_view(d: &vtdx::Document<'_>) -> Vec<String> {
    use vtdx::core::tape::{RecordId, Tape};
    let (tape, words, names) = (Tape::of(d), d.tape(), d.names());
    let mut out = Vec::new();
    let mut r = RecordId::default();
    while r.as_usize() < words.len() {
        let next = tape.after_record(r);
        let kind = tape.kind(r);
        let name = if kind.is_leaf() {
            String::new()
        } else {
            let s = tape.symbol(r);
            format!("{} {}", names.qname(s), names.ns_uri(s))
        };
        out.push(format!("{kind:?} {name} {:?}", &words[r.as_usize() + 1..next.as_usize().min(words.len())]));
        r = next;
    }
    out
}

/// The five XPath expressions of the seed's Tables 2-6, in table order. The workload
/// is: parse, evaluate one precompiled expression, remove every selected node,
/// write the document to a memory buffer.
pub const XPATH_EXPRS: [&str; 5] = [
    "/*/*/*[position() mod 2 = 0]",
    "/purchaseOrder/items/item[USPrice<100]",
    "/*/*/*/quantity/text()",
    "//item/comment",
    "//item/comment/../quantity",
];
