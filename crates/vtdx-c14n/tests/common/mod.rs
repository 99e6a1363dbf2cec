//! Shared helpers of the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The reader of the expected-failure lists, shared with the conformance runner
/// and the XPath corpus test (format: `conformance/README.md`).
#[path = "../../../../conformance/src/expected.rs"]
pub mod expected;

/// Reads `conformance/expected-failures/<name>.txt`, which must exist.
pub fn expected_failures(name: &str) -> expected::ExpectedFailures {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).expect("crates/vtdx-c14n is two levels down");
    let path = repo.join("conformance/expected-failures").join(format!("{name}.txt"));
    assert!(path.is_file(), "the expected-failure list is missing: {}", path.display());
    expected::ExpectedFailures::read(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The shared corpus: `$VTDX_CORPUS`, else `../shared/corpus` beside the repository.
/// A missing corpus fails the test loudly.
pub fn corpus() -> PathBuf {
    let p = match std::env::var_os("VTDX_CORPUS") {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let c = p.join("c14n");
    assert!(c.is_dir(), "the C14N corpus is missing at {} (set VTDX_CORPUS to the corpus root, the folder holding c14n/)", c.display());
    p
}

pub fn c14n_dir(sub: &str) -> PathBuf {
    let d = corpus().join("c14n").join(sub);
    assert!(d.is_dir(), "corpus folder {} is missing", d.display());
    d
}

pub fn read(p: &std::path::Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// Shows the first difference of two byte strings.
pub fn diff(got: &[u8], want: &[u8]) -> String {
    let i = got.iter().zip(want).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
    let lo = i.saturating_sub(60);
    format!(
        "first difference at byte {i} (got {} bytes, want {}):\n  got:  {:?}\n  want: {:?}",
        got.len(),
        want.len(),
        String::from_utf8_lossy(&got[lo..(i + 60).min(got.len())]),
        String::from_utf8_lossy(&want[lo..(i + 60).min(want.len())]),
    )
}

/// A small SHA-1 (FIPS 180-4), enough to check the XML-DSig digests of the
/// interop vectors through `DigestWriter`.
#[derive(Clone)]
pub struct Sha1 {
    h: [u32; 5],
    block: [u8; 64],
    fill: usize,
    len: u64,
}

impl Default for Sha1 {
    fn default() -> Self {
        Sha1 { h: [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0], block: [0; 64], fill: 0, len: 0 }
    }
}

impl Sha1 {
    fn compress(&mut self) {
        let mut w = [0u32; 80];
        for (i, c) in self.block.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = self.h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i / 20 {
                0 => ((b & c) | (!b & d), 0x5A827999),
                1 => (b ^ c ^ d, 0x6ED9EBA1),
                2 => ((b & c) | (b & d) | (c & d), 0x8F1BBCDC),
                _ => (b ^ c ^ d, 0xCA62C1D6),
            };
            let t = a.rotate_left(5).wrapping_add(f).wrapping_add(e).wrapping_add(k).wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (h, v) in self.h.iter_mut().zip([a, b, c, d, e]) {
            *h = h.wrapping_add(v);
        }
    }

    pub fn update(&mut self, mut data: &[u8]) {
        self.len += data.len() as u64;
        while !data.is_empty() {
            let n = (64 - self.fill).min(data.len());
            self.block[self.fill..self.fill + n].copy_from_slice(&data[..n]);
            self.fill += n;
            data = &data[n..];
            if self.fill == 64 {
                self.compress();
                self.fill = 0;
            }
        }
    }

    pub fn finish(mut self) -> [u8; 20] {
        let bits = self.len.wrapping_mul(8);
        self.update(&[0x80]);
        while self.fill != 56 {
            self.update(&[0]);
        }
        self.block[56..].copy_from_slice(&bits.to_be_bytes());
        self.compress();
        let mut out = [0u8; 20];
        for (i, h) in self.h.iter().enumerate() {
            out[i * 4..i * 4 + 4].copy_from_slice(&h.to_be_bytes());
        }
        out
    }
}

impl vtdx_c14n::Digest for Sha1 {
    fn update(&mut self, data: &[u8]) {
        Sha1::update(self, data)
    }
}

/// Decodes standard base64, ignoring white space.
pub fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes() {
        let Some(v) = val(c) else { continue };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

#[test]
fn sha1_known_answers() {
    let hex = |d: [u8; 20]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let mut h = Sha1::default();
    h.update(b"abc");
    assert_eq!(hex(h.finish()), "a9993e364706816aba3e25717850c26c9cd0d89d");
    let mut h = Sha1::default();
    h.update(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq");
    assert_eq!(hex(h.finish()), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    assert_eq!(base64_decode("YWJj"), b"abc");
}

pub mod gen;
