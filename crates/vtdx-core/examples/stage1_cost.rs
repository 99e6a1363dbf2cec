//! What a simdjson-style structural first stage would cost on a document: one pass
//! that classifies every byte against the markup characters `<` `>` `&` `"` `'` `=`
//! 64 bytes at a time (AVX2 when the CPU has it, else SSE2) and writes the offset of
//! each one found into a reused `Vec<u32>`, as simdjson's stage 1 does for JSON.
//! It does less than a real stage 1 would (no quote-state masks, no name boundaries,
//! no check of the bytes), so its instruction count is a lower bound on the
//! first stage alone, to set beside a whole parse (`parse_loop`); `docs/parsing.md`
//! ("A structural first stage") has the figures.
//!
//! `cargo run --release -p vtdx-core --example stage1_cost -- FILE [N]`; under
//! `valgrind --tool=callgrind`, (count(2N) - count(N)) / N is the cost of one pass.

#![allow(unsafe_code)]

/// The six markup characters the stage looks for.
const MARKS: [u8; 6] = [b'<', b'>', b'&', b'"', b'\'', b'='];

/// Bit i set when `block[i]` is one of [`MARKS`] (portable fallback).
fn block_mask_scalar(block: &[u8]) -> u64 {
    block.iter().enumerate().fold(0, |m, (i, c)| m | (u64::from(MARKS.contains(c)) << i))
}

/// Bit i set when `block[i]` is one of [`MARKS`]; `block` is 64 bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn block_mask_avx2(block: &[u8; 64]) -> u64 {
    use std::arch::x86_64::*;
    // SAFETY: the caller checked that the CPU has AVX2; both loads read 32 of the
    // 64 bytes `block` holds (unaligned loads).
    unsafe {
        let half = |p: *const u8| {
            let v = _mm256_loadu_si256(p.cast());
            let mut hit = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(MARKS[0] as i8));
            for &c in &MARKS[1..] {
                hit = _mm256_or_si256(hit, _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8)));
            }
            _mm256_movemask_epi8(hit) as u32 as u64
        };
        half(block.as_ptr()) | (half(block.as_ptr().add(32)) << 32)
    }
}

/// Bit i set when `block[i]` is one of [`MARKS`]; `block` is 64 bytes (SSE2, the
/// x86_64 baseline).
#[cfg(target_arch = "x86_64")]
fn block_mask_sse2(block: &[u8; 64]) -> u64 {
    use std::arch::x86_64::*;
    let mut m = 0u64;
    for (k, chunk) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of the x86_64 baseline; the load reads the 16 bytes of
        // `chunk` (unaligned load).
        let bits = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast());
            let mut hit = _mm_cmpeq_epi8(v, _mm_set1_epi8(MARKS[0] as i8));
            for &c in &MARKS[1..] {
                hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8)));
            }
            _mm_movemask_epi8(hit) as u32 as u64
        };
        m |= bits << (16 * k);
    }
    m
}

/// The offsets of every markup character of `t`, into `out`.
fn stage1(t: &[u8], out: &mut Vec<u32>, avx2: bool) {
    out.clear();
    let mut blocks = t.chunks_exact(64);
    let mut base = 0u32;
    for block in &mut blocks {
        let block: &[u8; 64] = block.try_into().expect("64 bytes");
        #[cfg(target_arch = "x86_64")]
        let mut m = if avx2 {
            // SAFETY: `avx2` is true only when the CPU reported AVX2.
            unsafe { block_mask_avx2(block) }
        } else {
            block_mask_sse2(block)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let mut m = {
            let _ = avx2;
            block_mask_scalar(block)
        };
        while m != 0 {
            out.push(base + m.trailing_zeros());
            m &= m - 1;
        }
        base += 64;
    }
    let mut m = block_mask_scalar(blocks.remainder());
    while m != 0 {
        out.push(base + m.trailing_zeros());
        m &= m - 1;
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: stage1_cost FILE [N]");
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let bytes = std::fs::read(&path).expect("cannot read file");
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::env::var_os("SSE2").is_none() && std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    let mut out = Vec::with_capacity(bytes.len() / 4);
    let mut found = 0;
    for _ in 0..n {
        stage1(&bytes, &mut out, avx2);
        found = std::hint::black_box(out.len());
    }
    println!("{path}: {} bytes, {found} markup characters ({}), {n} passes", bytes.len(), if avx2 { "avx2" } else { "sse2" });
}
