//! Helpers shared by the integration test modules.

use std::time::{Duration, Instant};

use vtdx_core::{Document, Error, ErrorKind, LimitKind, Node, NodeKind, ParseOptions};

/// Parses with default options and returns the error, failing the test on success.
#[track_caller]
pub fn parse_err(input: &[u8]) -> Error {
    parse_err_with(input, &ParseOptions::default())
}

#[track_caller]
pub fn parse_err_with(input: &[u8], opts: &ParseOptions) -> Error {
    match Document::parse_with(input, opts) {
        Ok(_) => panic!("expected an error for {:?}", String::from_utf8_lossy(input)),
        Err(e) => e,
    }
}

/// Parses with default options, failing the test with the error message.
#[track_caller]
pub fn parse_ok(input: &[u8]) -> Document<'_> {
    match Document::parse(input) {
        Ok(d) => d,
        Err(e) => panic!("expected {:?} to parse: {e}", String::from_utf8_lossy(input)),
    }
}

#[track_caller]
pub fn parse_ok_with<'a>(input: &'a [u8], opts: &ParseOptions) -> Document<'a> {
    match Document::parse_with(input, opts) {
        Ok(d) => d,
        Err(e) => panic!("expected {:?} to parse: {e}", String::from_utf8_lossy(&input[..input.len().min(200)])),
    }
}

/// The limit of a `LimitExceeded` error, failing the test for any other kind.
#[track_caller]
pub fn limit_of(e: &Error) -> LimitKind {
    match e.kind() {
        ErrorKind::LimitExceeded { limit, .. } => *limit,
        k => panic!("expected LimitExceeded, got {k:?} ({e})"),
    }
}

/// Runs `f` and returns its result with the time it took.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t0 = Instant::now();
    let r = f();
    (r, t0.elapsed())
}

/// Reads every node of a parsed document (values, names, ranges, positions and
/// the navigation links) and checks the structural invariants that hold for any
/// document. Returns the number of nodes visited.
pub fn walk(doc: &Document<'_>) -> usize {
    let text = doc.text();
    let mut count = 0;
    let mut prev_start: Option<usize> = None;
    for n in doc.root().descendants() {
        count += 1;
        let r = n.range();
        assert!(r.start <= r.end && r.end <= text.len());
        let _ = (n.value(), n.text(), n.name(), n.local_name(), n.namespace_uri(), n.position(), n.raw());
        if !n.is_root() {
            if let Some(p) = prev_start {
                assert!(p < r.start, "document order broken at {n:?}");
            }
            prev_start = Some(r.start);
            let parent = n.parent().unwrap();
            let pr = parent.range();
            assert!(pr.start <= r.start && r.end <= pr.end, "{n:?} outside its parent {parent:?}");
        }
        for c in n.children() {
            assert_eq!(c.parent(), Some(n));
        }
        if n.kind() == NodeKind::Element {
            let _ = n.namespaces();
            for a in n.all_attributes() {
                assert_eq!(a.parent(), Some(n));
                let _ = (a.value(), a.name(), a.namespace_uri(), a.raw());
            }
        }
    }
    count
}

/// The children of `n` as (kind, name, value) triples, for compact assertions.
pub fn kids<'d>(n: Node<'d>) -> Vec<(NodeKind, String, String)> {
    n.children().map(|c| (c.kind(), c.name().to_string(), c.value().into_owned())).collect()
}

/// Byte offset of the first occurrence of `needle` in `hay` (test inputs are written
/// so that the needle is unique where this is used).
#[track_caller]
pub fn find(hay: &[u8], needle: &str) -> usize {
    hay.windows(needle.len()).position(|w| w == needle.as_bytes()).unwrap_or_else(|| panic!("{needle:?} not in the input"))
}

/// A small deterministic PRNG (xorshift64*), so byte-level tests need no dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The same text encoded as UTF-16 (little or big endian), with or without a BOM.
pub fn utf16(s: &str, le: bool, bom: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if bom {
        out.extend_from_slice(if le { &[0xFF, 0xFE] } else { &[0xFE, 0xFF] });
    }
    for u in s.encode_utf16() {
        out.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
    }
    out
}
