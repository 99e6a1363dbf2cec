//! Glue between schema documents and the datatypes layer.

use crate::datatypes::{FacetKind, FacetSpec};

/// The facet a schema element's local name names.
pub(crate) fn facet_kind(local: &str) -> Option<FacetKind> {
    FacetKind::from_local_name(local)
}

/// Does this facet's value need the namespace context (an enumeration of QNames)?
pub(crate) fn needs_ns(s: &FacetSpec) -> bool {
    s.kind == FacetKind::Enumeration
}
