//! Transparent huge pages for the index of a large document (Linux).
//!
//! A 16 MB document needs an 8 MB tape. Backed by 4 KiB pages, a process that
//! parses it once (the CLI) takes about 2,000 page faults and as many TLB
//! entries; with `MADV_HUGEPAGE` the kernel backs it 2 MiB at a time.
//! PERF: whole-process `vtdx check` on the 16 MB purchase order, median of 21
//! runs: 28.4-29.8 ms with 4 KiB pages, 25.7-26.2 ms with huge pages (the bench
//! `cli` workload measures it beside `xmllint --noout`). Where transparent huge
//! pages are off (`/sys/kernel/mm/transparent_hugepage/enabled` = never) the
//! advice changes nothing.

/// Tapes smaller than this keep 4 KiB pages: a huge page only pays when the
/// allocation spans several.
const MIN_BYTES: usize = 4 << 20;

/// Asks the kernel to back the allocation of `tape` with transparent huge pages
/// (`madvise(MADV_HUGEPAGE)` on the whole pages inside it) when it is large. A
/// hint: the memory's contents and validity do not change, and an error is ignored.
#[allow(unsafe_code)]
pub(crate) fn advise_huge(tape: &mut Vec<u32>) {
    let bytes = tape.capacity() * std::mem::size_of::<u32>();
    if bytes < MIN_BYTES {
        return;
    }
    const PAGE: usize = 4096;
    let start = tape.as_mut_ptr() as usize;
    let (s, e) = ((start + PAGE - 1) & !(PAGE - 1), (start + bytes) & !(PAGE - 1));
    if e <= s {
        return;
    }
    // SAFETY: [s, e) is inside the allocation `tape` owns (its capacity, rounded
    // inwards to page boundaries), which stays alive for the call. MADV_HUGEPAGE
    // neither reads nor writes the memory nor changes its validity or contents: it
    // only tells the kernel which page size to prefer when it backs the range, so
    // no Rust reference or invariant is affected whatever it returns.
    unsafe {
        libc::madvise(s as *mut libc::c_void, e - s, libc::MADV_HUGEPAGE);
    }
}
