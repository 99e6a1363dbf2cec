//! Every document of the shared corpus that the parser accepts packs and unpacks
//! to the same input bytes and the same index, alone and as one stream.

use vtdx_core::{Document, ExternalPolicy, ParseOptions};

use crate::common::{assert_same, corpus, files};

#[test]
fn whole_corpus_round_trips_byte_for_byte() {
    let root = corpus();
    assert!(root.join("xmlconf").is_dir(), "the shared corpus is missing at {} (set VTDX_CORPUS)", root.display());
    // documents naming an external DTD are read without it, as `--external ignore` does
    let opts = ParseOptions::default().external(ExternalPolicy::Ignore);
    let all = files(&root);
    let (mut accepted, mut assembled, mut non_utf8, mut bytes_in, mut bytes_packed) = (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut max_ratio = 0f64;
    let mut stream = vtdx_binary::StreamWriter::new();
    let mut originals = Vec::new();
    for path in &all {
        let bytes = std::fs::read(path).unwrap();
        let Ok(doc) = Document::parse_with(&bytes, &opts) else { continue };
        let what = path.display().to_string();
        accepted += 1;
        let packed = vtdx_binary::pack(&doc).unwrap_or_else(|e| panic!("{what}: {e}"));
        let back = vtdx_binary::unpack_with(&packed, &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(back.source(), &bytes[..], "{what}: not byte for byte");
        assert_same(&doc, &back, &what);
        if doc.dtd().is_none() && doc.entity_expansions().is_empty() {
            assembled += 1;
        }
        if !matches!(doc.encoding(), vtdx_core::SourceEncoding::Utf8 { bom: false }) {
            non_utf8 += 1;
        }
        bytes_in += bytes.len();
        bytes_packed += packed.len();
        max_ratio = max_ratio.max(doc.text().len() as f64 / packed.len() as f64);
        stream.push(&doc).unwrap();
        originals.push((what, bytes));
    }
    eprintln!(
        "{} files, {accepted} accepted ({assembled} without a DOCTYPE, {non_utf8} not plain UTF-8): {bytes_in} bytes packed to {bytes_packed}; at most {max_ratio:.2} bytes of text per packed byte",
        all.len()
    );
    // every document unpacked under the default limits (above); the amplification
    // limit stays far above what real documents reach
    assert!(max_ratio * 16.0 < f64::from(opts.limits.max_packed_amplification), "{max_ratio}");
    // the shared corpus as laid out (a moved directory fails loudly)
    assert_eq!(all.len(), 23_099, "files in the corpus");
    assert_eq!(accepted, ACCEPTED, "documents the parser accepts");
    let packed = stream.finish();
    let mut n = 0;
    for (doc, (what, bytes)) in vtdx_binary::StreamReader::with_options(&packed, &opts).unwrap().zip(&originals) {
        let doc = doc.unwrap_or_else(|e| panic!("{what} in the stream: {e}"));
        assert_eq!(doc.source(), &bytes[..], "{what} in the stream");
        n += 1;
    }
    assert_eq!(n, originals.len());
}

/// Every XML document of the corpus the parser accepts (with external DTDs ignored).
const ACCEPTED: usize = 20_644;

/// `pack` keeps one encoder per thread: what it packed before (a large document
/// among them, which drops the encoder) changes nothing in what it packs next. Each
/// document is packed on a thread of its own first, then again after all the
/// others, in reverse order.
#[test]
fn pack_output_does_not_depend_on_what_the_thread_packed_before() {
    let root = corpus().join("bench");
    let docs: Vec<Vec<u8>> = [
        "classic/soap2-dom4j.xml",
        "classic/periodic_table.xml",
        "generated/po_big.xml",
        "generated/soap_wss_2k.xml",
        "classic/much_ado.xml",
    ]
    .iter()
    .map(|f| std::fs::read(root.join(f)).unwrap_or_else(|e| panic!("{f}: {e}")))
    .collect();
    let alone: Vec<Vec<u8>> = docs
        .iter()
        .map(|b| {
            let b = b.clone();
            std::thread::spawn(move || vtdx_binary::pack(&Document::parse(&b).unwrap()).unwrap()).join().unwrap()
        })
        .collect();
    for _ in 0..2 {
        for (b, want) in docs.iter().zip(&alone).rev() {
            assert_eq!(&vtdx_binary::pack(&Document::parse(b).unwrap()).unwrap(), want);
        }
    }
}

#[test]
fn every_encoding_round_trips() {
    let body = "<?xml version='1.0' encoding='ENC'?>\r\n<r a='é'>ü &#x20AC; <![CDATA[x]]><!--c--></r>\n";
    let mut cases: Vec<Vec<u8>> = Vec::new();
    for (label, bom) in [("UTF-8", false), ("UTF-8", true)] {
        let mut v = if bom { vec![0xEF, 0xBB, 0xBF] } else { Vec::new() };
        v.extend_from_slice(body.replace("ENC", label).as_bytes());
        cases.push(v);
    }
    for (le, bom) in [(true, true), (true, false), (false, true), (false, false)] {
        let s = body.replace("ENC", "UTF-16");
        let mut v = match (bom, le) {
            (true, true) => vec![0xFF, 0xFE],
            (true, false) => vec![0xFE, 0xFF],
            _ => Vec::new(),
        };
        for u in s.encode_utf16() {
            v.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
        }
        cases.push(v);
    }
    // ISO-8859-1: one byte per character
    cases.push(body.replace("ENC", "ISO-8859-1").chars().map(|c| c as u32 as u8).collect());
    // US-ASCII and windows-1252 (its euro sign is byte 0x80: stored verbatim)
    cases.push(body.replace("ENC", "US-ASCII").replace(['é', 'ü'], "e").into_bytes());
    let mut w1252: Vec<u8> = body.replace("ENC", "windows-1252").chars().map(|c| c as u32 as u8).collect();
    w1252.push(b' ');
    let w1252 = [&w1252[..w1252.len() - 2], b"<!--\x80-->\n"].concat();
    cases.push(w1252);
    // Shift_JIS
    cases.push([&b"<?xml version='1.0' encoding='Shift_JIS'?><r>"[..], &[0x93, 0xfa, 0x96, 0x7b], b"</r>"].concat());
    for src in cases {
        let doc = Document::parse(&src).unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&src)));
        let back = vtdx_binary::unpack(&vtdx_binary::pack(&doc).unwrap()).unwrap();
        assert_same(&doc, &back, &format!("{:?}", doc.encoding()));
    }
}

#[test]
fn lexical_forms_are_kept() {
    for x in [
        &b"<a/>"[..],
        b"<a></a>",
        b"<a ></a >",
        b"<a\n\tx = '1'\n  y=\"2\"\t/>",
        b"<a x=\"\" y='&quot;&#x41;&amp;'>&lt;&gt;&#10;</a>",
        b"<?xml version=\"1.0\" standalone='no' ?><!-- c --><?p  q ?>\n<a/>\n<!--e--><?z?>\n\n",
        b"<!DOCTYPE a [<!ENTITY e 'ent'><!ATTLIST a d CDATA 'dflt'>]><a>&e;</a>",
        b"<!DOCTYPE a [<!ENTITY m '<b>in</b>'>]><a>&m;&m;</a>",
        b"<p:a xmlns:p='urn:p' xmlns='urn:d' xmlns:u='urn:unused' p:x='1'><b xmlns=''/><p:c p:y='2'/></p:a>",
        b"<a>\r\n  <b>x</b>\r\n  <b>x</b>\r\n</a>",
        b"<a><![CDATA[]]><![CDATA[<>&]]]]></a>",
    ] {
        let doc = Document::parse(x).unwrap();
        let packed = vtdx_binary::pack(&doc).unwrap();
        let back = vtdx_binary::unpack(&packed).unwrap();
        assert_same(&doc, &back, &String::from_utf8_lossy(x));
    }
}
