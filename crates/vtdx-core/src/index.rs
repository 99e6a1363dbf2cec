//! The core's short names for the tape layout. The layout itself, its
//! compile-time checks and the typed reader live in [`crate::tape`]
//! (`docs/index-format.md` has a worked example); these aliases keep the
//! parser's and the document's raw reads short.

use crate::tape::RecordKind;
pub(crate) use crate::tape::{is_attr_kind, words_of, ATTR_WORDS, ELEM_WORDS, KIND_SHIFT, LEAF_WORDS, MAX_TAPE_WORDS, NONE, PAYLOAD_MASK};

pub(crate) const K_ELEM: u32 = RecordKind::Element as u32;
pub(crate) const K_ATTR: u32 = RecordKind::Attribute as u32;
pub(crate) const K_NSDECL: u32 = RecordKind::NsDecl as u32;
pub(crate) const K_COMMENT: u32 = RecordKind::Comment as u32;
pub(crate) const K_PI: u32 = RecordKind::Pi as u32;
pub(crate) const K_CDATA: u32 = RecordKind::Cdata as u32;
/// An attribute the internal subset supplies (§3.3.2): not in the text.
pub(crate) const K_ATTR_DEFAULT: u32 = RecordKind::AttributeDefault as u32;
/// A namespace declaration the internal subset supplies: not in the text.
pub(crate) const K_NSDECL_DEFAULT: u32 = RecordKind::NsDeclDefault as u32;

/// The raw kind of a record's word 0.
#[inline(always)]
pub(crate) fn kind_of(w0: u32) -> u32 {
    w0 >> KIND_SHIFT
}
