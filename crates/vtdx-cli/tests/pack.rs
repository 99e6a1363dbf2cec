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
        assert!(stderr(&o).contains("packed input"), "{}", stderr(&o));
    }
    let o = run_vtdx(d.path(), &["unpack", "flip.vtdx"], None);
    assert!(stderr(&o).contains("checksum"), "{}", stderr(&o));
    // not packed at all; a missing file
    assert_eq!(code(&run_vtdx(d.path(), &["unpack", "po.xml"], None)), 1);
    assert_eq!(code(&run_vtdx(d.path(), &["unpack", "nope.vtdx"], None)), 2);
    // an input that is not well-formed cannot be packed
    d.file("bad.xml", b"<a><b></a>");
    let o = run_vtdx(d.path(), &["pack", "bad.xml"], None);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("bad.xml:1:"), "{}", stderr(&o));
}
