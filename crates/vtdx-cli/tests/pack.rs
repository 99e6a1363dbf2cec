//! `vtdx pack` and `vtdx unpack`: exact round trips, streams, packed files read by
//! the other commands, damaged input (exit 1) and usage errors (exit 2).

mod common;

use common::{code, run_vtdx, stderr, stdout, TempDir};

const PO: &[u8] = b"<?xml version='1.0'?>\n<po xmlns:p='urn:p'>\n  <item n='1' p:k=\"a\">Can &amp; lid</item>\n  <item n='2'/>\n</po>\n";
const UTF16: &[u8] = b"\xFF\xFE<\0r\0>\0\xE9\0<\0/\0r\0>\0";

#[test]
fn pack_then_unpack_gives_back_the_input() {
    let d = TempDir::new("roundtrip");
    d.file("po.xml", PO).file("u16.xml", UTF16);
    for f in ["po.xml", "u16.xml"] {
        let o = run_vtdx(d.path(), &["pack", f, "-o", "p.vtdx"], None);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let packed = d.read("p.vtdx");
        assert!(packed.starts_with(b"\x89VTXB\r\n\x1a"));
        let o = run_vtdx(d.path(), &["unpack", "p.vtdx", "-o", "back.xml"], None);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(d.read("back.xml"), d.read(f));
        // standard output and standard input
        let o = run_vtdx(d.path(), &["unpack", "-"], Some(&packed));
        assert_eq!(code(&o), 0);
        assert_eq!(o.stdout, d.read(f));
        let o = run_vtdx(d.path(), &["pack", "-"], Some(&d.read(f)));
        assert_eq!(o.stdout, packed);
    }
    // no temporary file left behind
    assert_eq!(d.listing(), ["back.xml", "p.vtdx", "po.xml", "u16.xml"]);
}

#[test]
fn streams_split_into_numbered_files() {
    let d = TempDir::new("stream");
    d.file("a.xml", PO).file("b.xml", b"<m><id>2</id></m>").file("c.xml", UTF16);
    let o = run_vtdx(d.path(), &["pack", "--stream", "a.xml", "b.xml", "c.xml", "-o", "s.vtdx"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run_vtdx(d.path(), &["unpack", "--stream", "s.vtdx", "-o", "out"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read(d.path().join("out/000001.xml")).unwrap(), PO);
    assert_eq!(std::fs::read(d.path().join("out/000002.xml")).unwrap(), b"<m><id>2</id></m>");
    assert_eq!(std::fs::read(d.path().join("out/000003.xml")).unwrap(), UTF16);
    assert_eq!(std::fs::read_dir(d.path().join("out")).unwrap().count(), 3);
    // a stream is not one document; --stream needs a directory; several files need --stream
    let o = run_vtdx(d.path(), &["unpack", "s.vtdx"], None);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("found 2") && stderr(&o).contains("--stream"), "{}", stderr(&o));
    assert_eq!(code(&run_vtdx(d.path(), &["unpack", "--stream", "s.vtdx"], None)), 2);
    assert_eq!(code(&run_vtdx(d.path(), &["pack", "a.xml", "b.xml"], None)), 2);
}

#[test]
fn other_commands_read_packed_files_as_xml() {
    let d = TempDir::new("commands");
    d.file("po.xml", PO);
    assert_eq!(code(&run_vtdx(d.path(), &["pack", "po.xml", "-o", "po.vtdx"], None)), 0);
    assert_eq!(code(&run_vtdx(d.path(), &["check", "po.vtdx"], None)), 0);
    for args in [
        &["query", "FILE", "//item/@n"][..],
        &["query", "--count", "FILE", "//item"],
        &["query", "--json", "--ns", "p=urn:p", "FILE", "//@p:k"],
        &["c14n", "FILE"],
        &["c14n", "--exclusive", "--subtree", "//item[1]", "FILE"],
        &["fmt", "FILE"],
    ] {
        let on = |f: &str| -> Vec<String> { args.iter().map(|a| if *a == "FILE" { f.to_string() } else { a.to_string() }).collect() };
        let (x, p) = (on("po.xml"), on("po.vtdx"));
        let ox = run_vtdx(d.path(), &x.iter().map(String::as_str).collect::<Vec<_>>(), None);
        let op = run_vtdx(d.path(), &p.iter().map(String::as_str).collect::<Vec<_>>(), None);
        assert_eq!(code(&ox), 0, "{args:?}: {}", stderr(&ox));
        assert_eq!(code(&op), 0, "{args:?}: {}", stderr(&op));
        assert_eq!(ox.stdout, op.stdout, "{args:?}");
    }
    let o = run_vtdx(d.path(), &["stats", "po.vtdx"], None);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains(&format!("bytes:           {}", PO.len())), "{}", stdout(&o));
    // standard input too
    let o = run_vtdx(d.path(), &["check", "-"], Some(&d.read("po.vtdx")));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn damaged_packed_files_are_refused() {
    let d = TempDir::new("damaged");
    d.file("po.xml", PO);
    assert_eq!(code(&run_vtdx(d.path(), &["pack", "po.xml", "-o", "po.vtdx"], None)), 0);
    let p = d.read("po.vtdx");
    let mut flipped = p.clone();
    let mid = p.len() / 2;
    flipped[mid] ^= 0x20;
    d.file("flip.vtdx", &flipped).file("cut.vtdx", &p[..p.len() - 3]);
    for f in ["flip.vtdx", "cut.vtdx"] {
        let o = run_vtdx(d.path(), &["unpack", f], None);
        assert_eq!(code(&o), 1, "{f}");
        assert!(stderr(&o).starts_with(&format!("{f}: ")), "{}", stderr(&o));
        assert_eq!(o.stdout, b"");
        let o = run_vtdx(d.path(), &["check", f], None);
        assert_eq!(code(&o), 1, "{f}");
        assert!(stderr(&o).starts_with(&format!("{f}: ")) && stderr(&o).contains("(packed byte "), "{}", stderr(&o));
    }
    let o = run_vtdx(d.path(), &["unpack", "flip.vtdx"], None);
    assert!(stderr(&o).contains("checksum"), "{}", stderr(&o));
    // every command says it as `unpack` does: no line and column (there is no text),
    // the byte of the packed file: the frame that fails its checksum starts after
    // the 10-byte header (docs/binary-format.md)
    let unpack = stderr(&o);
    assert!(unpack.starts_with("flip.vtdx: checksum mismatch: ") && unpack.ends_with(" (packed byte 10)\n"), "{unpack}");
    d.file("s.xsd", b"<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'><xs:element name='po'/></xs:schema>");
    for args in [
        &["check", "flip.vtdx"][..],
        &["query", "flip.vtdx", "/"],
        &["fmt", "flip.vtdx"],
        &["c14n", "flip.vtdx"],
        &["stats", "flip.vtdx"],
        &["debug", "index", "flip.vtdx"],
        &["validate", "--schema", "s.xsd", "flip.vtdx"],
    ] {
        let o = run_vtdx(d.path(), args, None);
        assert_eq!(code(&o), 1, "{args:?}");
        assert_eq!(stderr(&o), unpack, "{args:?}");
    }
    // --json: the packed byte as `packed_offset`; line, column and offset kept (the
    // contracts list them), 0 for no position in the text
    let o = run_vtdx(d.path(), &["query", "--json", "flip.vtdx", "po.vtdx", "count(//item)"], None);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    let message = unpack.trim_end().strip_prefix("flip.vtdx: ").unwrap().strip_suffix(" (packed byte 10)").unwrap();
    assert_eq!(
        lines[0],
        format!(
            "{{\"file\":\"flip.vtdx\",\"error\":{{\"message\":\"{message}\",\"line\":0,\"column\":0,\"offset\":0,\"packed_offset\":10}}}}"
        )
    );
    assert_eq!(lines[1], r#"{"file":"po.vtdx","result":{"type":"number","value":2}}"#);
    let o = run_vtdx(d.path(), &["validate", "--json", "--schema", "s.xsd", "flip.vtdx"], None);
    assert_eq!(
        stdout(&o).trim_end(),
        format!(
            "{{\"valid\":false,\"files\":[{{\"file\":\"flip.vtdx\",\"valid\":false,\"errors\":[{{\"file\":\"flip.vtdx\",\"line\":0,\"column\":0,\"offset\":0,\"packed_offset\":10,\"path\":\"\",\"message\":\"{message}\"}}]}}]}}"
        )
    );
    // not packed at all; a missing file
    assert_eq!(code(&run_vtdx(d.path(), &["unpack", "po.xml"], None)), 1);
    assert_eq!(code(&run_vtdx(d.path(), &["unpack", "nope.vtdx"], None)), 2);
    // an input that is not well-formed cannot be packed
    d.file("bad.xml", b"<a><b></a>");
    let o = run_vtdx(d.path(), &["pack", "bad.xml"], None);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("bad.xml:1:"), "{}", stderr(&o));
}

#[test]
fn refused_packed_documents_give_both_positions() {
    // packed without namespace processing, read with it: the frame is sound, the
    // document is not namespace-well-formed at line 1, column 2 (byte 1) of its text
    let d = TempDir::new("refused");
    d.file("ns.xml", b"<a:b c:d=\"1\"><x:y/></a:b>");
    assert_eq!(code(&run_vtdx(d.path(), &["pack", "--no-namespaces", "ns.xml", "-o", "ns.vtdx"], None)), 0);
    let o = run_vtdx(d.path(), &["unpack", "ns.vtdx"], None);
    assert_eq!(code(&o), 1);
    let unpack = stderr(&o);
    assert!(
        unpack.starts_with("ns.vtdx: packed document refused: 1:2: namespace prefix `a` is not declared (byte 1) (packed byte "),
        "{unpack}"
    );
    for args in [&["check", "ns.vtdx"][..], &["query", "ns.vtdx", "/"], &["fmt", "ns.vtdx"], &["c14n", "ns.vtdx"], &["stats", "ns.vtdx"]] {
        let o = run_vtdx(d.path(), args, None);
        assert_eq!(code(&o), 1, "{args:?}");
        assert_eq!(stderr(&o), unpack, "{args:?}");
    }
    let packed_byte = unpack.trim_end().rsplit("packed byte ").next().unwrap().strip_suffix(')').unwrap().to_string();
    let o = run_vtdx(d.path(), &["query", "--json", "ns.vtdx", "ns.vtdx", "/"], None);
    assert_eq!(
        stdout(&o).lines().next().unwrap(),
        format!(
            "{{\"file\":\"ns.vtdx\",\"error\":{{\"message\":\"namespace prefix `a` is not declared\",\"line\":1,\"column\":2,\"offset\":1,\"packed_offset\":{packed_byte}}}}}"
        )
    );
}

#[test]
fn packed_amplification_is_limited() {
    // a real document of 400 elements with one 10,000-byte name: 8,002,407 bytes of
    // text that pack to a few KiB, far past the default ratio of 256
    let name = "n".repeat(10_000);
    let xml = format!("<r>{}</r>", format!("<{name}>v</{name}>").repeat(400));
    let d = TempDir::new("amplification");
    d.file("big.xml", xml.as_bytes());
    assert_eq!(code(&run_vtdx(d.path(), &["pack", "big.xml", "-o", "big.vtdx"], None)), 0);
    let ratio = xml.len() / d.read("big.vtdx").len();
    assert!(ratio > 256, "{ratio}");
    for args in [&["check", "big.vtdx"][..], &["query", "big.vtdx", "count(//*)"], &["unpack", "big.vtdx"]] {
        let o = run_vtdx(d.path(), args, None);
        assert_eq!(code(&o), 1, "{args:?}");
        let e = stderr(&o);
        assert!(e.starts_with("big.vtdx: packed document refused: limit exceeded: packed amplification factor"), "{args:?}: {e}");
        assert!(e.contains("the configured maximum is 256 (packed byte "), "{e}");
        assert_eq!(o.stdout, b"");
    }
    let o = run_vtdx(d.path(), &["query", "--max-packed-amplification", "100000", "big.vtdx", "count(//*)"], None);
    assert_eq!((code(&o), stdout(&o)), (0, "401\n".to_string()), "{}", stderr(&o));
    let o = run_vtdx(d.path(), &["unpack", "--max-packed-amplification", "100000", "big.vtdx"], None);
    assert_eq!(o.stdout, xml.as_bytes());
    assert_eq!(code(&run_vtdx(d.path(), &["check", "--max-packed-amplification", "x", "big.vtdx"], None)), 2);
}
