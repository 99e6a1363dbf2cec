//! Helpers shared by the modules.

use std::path::PathBuf;

use vtdx_core::tape::{RecordKind, PAYLOAD_MASK};
use vtdx_core::{Document, Sym};

/// The shared corpus: `$VTDX_CORPUS`, else `../shared/corpus` beside the repository.
pub fn corpus() -> PathBuf {
    match std::env::var_os("VTDX_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

/// Every file under `dir`, sorted.
pub fn files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Asserts that two documents have the same input, text, declaration and index
/// (symbols compared by qualified name and namespace, since the two documents
/// number them independently).
pub fn assert_same(a: &Document<'_>, b: &Document<'_>, what: &str) {
    assert_eq!(a.source(), b.source(), "{what}: input bytes differ");
    assert_eq!(a.text(), b.text(), "{what}: text differs");
    assert_eq!(a.encoding(), b.encoding(), "{what}: encoding differs");
    assert_eq!(a.xml_declaration(), b.xml_declaration(), "{what}: declaration differs");
    assert_eq!(a.dtd().is_some(), b.dtd().is_some(), "{what}: DOCTYPE differs");
    let (ta, tb) = (a.tape(), b.tape());
    assert_eq!(ta.len(), tb.len(), "{what}: index sizes differ");
    let mut i = 0;
    while i < ta.len() {
        let kind = RecordKind::from_word(ta[i]).expect("record kind");
        assert_eq!(RecordKind::from_word(tb[i]), Some(kind), "{what}: record kind at word {i}");
        let n = kind.words() as usize;
        if matches!(
            kind,
            RecordKind::Element | RecordKind::Attribute | RecordKind::NsDecl | RecordKind::AttributeDefault | RecordKind::NsDeclDefault
        ) {
            let (sa, sb) = (Sym::new(ta[i] & PAYLOAD_MASK), Sym::new(tb[i] & PAYLOAD_MASK));
            assert_eq!(a.names().qname(sa), b.names().qname(sb), "{what}: name at word {i}");
            assert_eq!(a.names().ns_uri(sa), b.names().ns_uri(sb), "{what}: namespace at word {i}");
        }
        assert_eq!(ta[i + 1..i + n], tb[i + 1..i + n], "{what}: fields of the record at word {i}");
        i += n;
    }
    assert_eq!(a.root_element().record(), b.root_element().record(), "{what}: root element");
}
