//! The token index ("tape"): variable-length records of 32-bit words.
//!
//! See `docs/index-format.md` for a worked example. In short:
//!
//! | record    | words | word 0              | word 1        | word 2          | word 3         | word 4           |
//! |-----------|-------|---------------------|---------------|-----------------|----------------|------------------|
//! | element   | 5     | `ELEM << 28 \| sym` | offset of `<` | next (subtree end, a word index) | parent (word index or `NONE`) | end (byte offset after the element) |
//! | attribute | 2     | `ATTR << 28 \| sym` | offset of the name | | | |
//! | ns decl   | 2     | `NSDECL << 28 \| sym` | offset of the name | | | |
//! | defaulted attribute | 2 | `ATTR_DEFAULT << 28 \| sym` | index of its declaration in `Dtd::attributes` | | | |
//! | defaulted ns decl   | 2 | `NSDECL_DEFAULT << 28 \| sym` | index of its declaration in `Dtd::attributes` | | | |
//! | comment, PI, CDATA | 4 | `KIND << 28`   | offset of `<` | end (byte offset after `>`) | parent | |
//!
//! Attribute records follow their element's record directly. Text is not stored:
//! a text node is the non-empty gap between two consecutive pieces of markup inside
//! an element, found in O(1) from the records around it. Records appear in
//! document order, so a record's word index orders it; any node's start offset
//! orders it too.

/// A record's kind, in the top 4 bits of its first word.
pub(crate) const KIND_SHIFT: u32 = 28;
pub(crate) const PAYLOAD_MASK: u32 = (1 << KIND_SHIFT) - 1;

pub(crate) const K_ELEM: u32 = 1;
pub(crate) const K_ATTR: u32 = 2;
pub(crate) const K_NSDECL: u32 = 3;
pub(crate) const K_COMMENT: u32 = 4;
pub(crate) const K_PI: u32 = 5;
pub(crate) const K_CDATA: u32 = 6;
/// An attribute the internal subset supplies (§3.3.2): not in the text.
pub(crate) const K_ATTR_DEFAULT: u32 = 7;
/// A namespace declaration the internal subset supplies: not in the text.
pub(crate) const K_NSDECL_DEFAULT: u32 = 8;

/// Words per record kind.
pub(crate) const ELEM_WORDS: u32 = 5;
pub(crate) const ATTR_WORDS: u32 = 2;
pub(crate) const LEAF_WORDS: u32 = 4;

/// "No record": the parent of a top-level node.
pub(crate) const NONE: u32 = u32::MAX;

/// Largest tape, in words. Word indices leave the top bit free for node handles.
pub(crate) const MAX_TAPE_WORDS: usize = (1 << 31) - 1;

#[inline(always)]
pub(crate) fn kind_of(w0: u32) -> u32 {
    w0 >> KIND_SHIFT
}

#[inline(always)]
pub(crate) fn words_of(kind: u32) -> u32 {
    match kind {
        K_ELEM => ELEM_WORDS,
        K_ATTR | K_NSDECL | K_ATTR_DEFAULT | K_NSDECL_DEFAULT => ATTR_WORDS,
        _ => LEAF_WORDS,
    }
}

/// Is `kind` one of the attribute-like records that follow an element's record
/// (attributes and namespace declarations, specified or defaulted)?
#[inline(always)]
pub(crate) fn is_attr_kind(kind: u32) -> bool {
    matches!(kind, K_ATTR | K_NSDECL | K_ATTR_DEFAULT | K_NSDECL_DEFAULT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_sizes_are_pinned() {
        // Memory per construct is part of the documented format (docs/index-format.md).
        assert_eq!(ELEM_WORDS * 4, 20);
        assert_eq!(ATTR_WORDS * 4, 8);
        assert_eq!(LEAF_WORDS * 4, 16);
        assert!(K_CDATA < 16);
    }
}
