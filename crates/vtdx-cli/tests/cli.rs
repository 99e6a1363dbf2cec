//! Runs the built `vtdx` binary. Expected output is written by hand from the
//! inputs; exit statuses follow the documented convention (0 well-formed, 1 not
//! well-formed, 2 usage or I/O problem).

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

mod common;

use common::{code, run_vtdx, stderr, stdout, TempDir};

fn vtdx(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_vtdx(dir, args, stdin)
}

const GOOD: &[u8] = b"<?xml version=\"1.0\"?>\n<a x=\"1\"><b>t</b><!--c--><c/></a>\n";
/// U+0001 on line 2, after two spaces and a two-byte character: column 4, byte 8.
const BAD: &[u8] = "<a>\n  é\u{1}</a>\n".as_bytes();
/// Line breaks CR, then CR LF: the vertical tab is at line 3, column 1, byte 6.
const BAD_CR: &[u8] = b"<a>\r\r\n\x0B</a>";

#[test]
fn check_good_file_exits_0_silently() {
    let d = TempDir::new("good");
    d.file("good.xml", GOOD);
    let o = vtdx(d.path(), &["check", "good.xml"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    assert_eq!(stderr(&o), "");
}

#[test]
fn check_bad_file_reports_file_line_column() {
    let d = TempDir::new("bad");
    d.file("bad.xml", BAD).file("bad-cr.xml", BAD_CR);
    let o = vtdx(d.path(), &["check", "bad.xml"], None);
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].starts_with("bad.xml:2:4: "), "{err}");
    assert!(lines[0].contains("U+0001"), "{err}");
    assert!(lines[0].ends_with("(byte 8)"), "{err}");

    let o = vtdx(d.path(), &["check", "bad-cr.xml"], None);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(err.starts_with("bad-cr.xml:3:1: "), "{err}");
    assert!(err.contains("U+000B") && err.trim_end().ends_with("(byte 6)"), "{err}");
}

#[test]
fn check_several_files_reports_only_the_bad_ones() {
    let d = TempDir::new("several");
    d.file("good.xml", GOOD).file("bad.xml", BAD).file("good2.xml", b"<z/>");
    let o = vtdx(d.path(), &["check", "good.xml", "bad.xml", "good2.xml"], None);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("bad.xml:2:4: "), "{err}");
    let o = vtdx(d.path(), &["check", "good.xml", "good2.xml"], None);
    assert_eq!(code(&o), 0);
}

#[test]
fn check_reads_standard_input() {
    let d = TempDir::new("stdin");
    let o = vtdx(d.path(), &["check", "-"], Some(GOOD));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = vtdx(d.path(), &["check", "-"], Some(b"<a>\x01</a>"));
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(err.starts_with("-:1:4: "), "{err}");
    assert!(err.trim_end().ends_with("(byte 3)"), "{err}");
    // unclosed element: the end of the input, line 2 column 4
    let o = vtdx(d.path(), &["check", "-"], Some(b"<a>\n<b>"));
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("-:2:4: "), "{}", stderr(&o));
}

#[test]
fn quiet_prints_nothing() {
    let d = TempDir::new("quiet");
    d.file("bad.xml", BAD).file("good.xml", GOOD);
    for flag in ["--quiet", "-q"] {
        let o = vtdx(d.path(), &["check", flag, "good.xml", "bad.xml"], None);
        assert_eq!(code(&o), 1);
        assert_eq!(stdout(&o), "");
        assert_eq!(stderr(&o), "");
        let o = vtdx(d.path(), &["check", flag, "good.xml"], None);
        assert_eq!(code(&o), 0);
        assert_eq!(stderr(&o), "");
    }
}

#[test]
fn usage_errors_exit_2() {
    let d = TempDir::new("usage");
    d.file("good.xml", GOOD);
    for args in [
        &[][..],
        &["check"][..],
        &["frobnicate", "good.xml"][..],
        &["check", "--no-such-flag", "good.xml"][..],
        &["fmt", "--indent", "four", "good.xml"][..],
        &["check", "--external-entities", "fetch", "good.xml"][..],
        &["check", "--external", "fetch", "good.xml"][..],
        &["check", "--external", "skip", "good.xml"][..],
    ] {
        let o = vtdx(d.path(), args, None);
        assert_eq!(code(&o), 2, "vtdx {args:?}: {}", stderr(&o));
    }
    let o = vtdx(d.path(), &["stats", "missing.xml"], None);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).starts_with("vtdx: "), "{}", stderr(&o));
    let o = vtdx(d.path(), &["fmt", "missing.xml"], None);
    assert_eq!(code(&o), 2);
    let o = vtdx(d.path(), &["--version"], None);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).starts_with("vtdx "), "{}", stdout(&o));
}

#[test]

fn check_missing_file_exits_2() {
    let d = TempDir::new("missing");
    let o = vtdx(d.path(), &["check", "missing.xml"], None);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("missing.xml"), "{}", stderr(&o));
}

#[test]
fn stats_prints_every_field() {
    let d = TempDir::new("stats");
    // 3 elements, 2 attributes (one namespace declaration), 1 text node, 1 comment, depth 2
    let doc = b"<a xmlns:p=\"urn:p\" x=\"1\"><b>t</b><!--c--><p:c/></a>";
    d.file("s.xml", doc);
    let o = vtdx(d.path(), &["stats", "--repeat", "3", "s.xml"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let field = |name: &str| -> String {
        let line = out.lines().find(|l| l.starts_with(&format!("{name}:"))).unwrap_or_else(|| panic!("no `{name}:` line in\n{out}"));
        line[name.len() + 1..].trim().to_string()
    };
    assert_eq!(field("file"), "s.xml");
    assert_eq!(field("bytes"), doc.len().to_string());
    assert!(field("encoding").contains("Utf8"), "{out}");
    assert_eq!(field("elements"), "3");
    assert!(field("attributes").starts_with("2 "), "{out}");
    assert_eq!(field("text nodes"), "1");
    assert!(field("other nodes").starts_with("1 "), "{out}");
    assert_eq!(field("tokens"), "7");
    assert_eq!(field("max depth"), "2");
    let index: usize = field("index bytes").split_whitespace().next().unwrap().parse().unwrap();
    assert!(index > 0);
    assert!(field("parse time").contains("ms"), "{out}");
    assert!(field("parse time").contains("median of 3"), "{out}");
    assert!(field("throughput").ends_with("MB/s"), "{out}");
    // the output ends with a line break (issue 14), after the last field
    assert!(out.ends_with("MB/s\n"), "{out:?}");

    // from standard input, and an error
    let o = vtdx(d.path(), &["stats", "-"], Some(doc));
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).starts_with("file:"), "{}", stdout(&o));
    assert!(stdout(&o).ends_with("MB/s\n"), "{:?}", stdout(&o));
    let o = vtdx(d.path(), &["stats", "-"], Some(BAD));
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("-:2:4: "), "{}", stderr(&o));
}

#[test]
fn fmt_reindents_with_four_spaces() {
    let d = TempDir::new("fmt");
    let input = "<?xml version=\"1.0\"?><!--top--><a><b x=\"1\"><c>t &amp; u</c></b>\n\n<!--k--><d/>  <e>  </e><f>mixed <g/> text</f><?p data?></a>";
    d.file("in.xml", input.as_bytes());
    let expected = "<?xml version=\"1.0\"?>
<!--top-->
<a>
    <b x=\"1\">
        <c>t &amp; u</c>
    </b>
    <!--k-->
    <d/>
    <e></e>
    <f>mixed <g/> text</f>
    <?p data?>
</a>
";
    let o = vtdx(d.path(), &["fmt", "--indent", "4", "in.xml"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), expected);
    // the default is two spaces
    let o = vtdx(d.path(), &["fmt", "-"], Some(b"<a><b><c/></b></a>"));
    assert_eq!(code(&o), 0);
    assert_eq!(stdout(&o), "<a>\n  <b>\n    <c/>\n  </b>\n</a>\n");
    // the output is well-formed
    d.file("out.xml", expected.as_bytes());
    assert_eq!(code(&vtdx(d.path(), &["check", "out.xml"], None)), 0);
    // a bad input
    let o = vtdx(d.path(), &["fmt", "-"], Some(BAD));
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "");
    assert!(stderr(&o).starts_with("-:2:4: "), "{}", stderr(&o));
}

#[test]
fn parse_flags() {
    let d = TempDir::new("flags");
    d.file("deep.xml", b"<a><b><c/></b></a>")
        .file("ext.xml", b"<!DOCTYPE a [<!ENTITY e SYSTEM 'e.xml'>]><a>&e;</a>")
        .file("colons.xml", b"<a:b:c/>")
        .file("size.xml", b"<a>0123456789</a>");
    assert_eq!(code(&vtdx(d.path(), &["check", "deep.xml"], None)), 0);
    let o = vtdx(d.path(), &["check", "--max-depth", "2", "deep.xml"], None);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("deep.xml:1:7: "), "{}", stderr(&o));
    assert!(stderr(&o).contains("limit exceeded"), "{}", stderr(&o));
    // refused by default (`external_identifiers_are_refused_by_default`); the old
    // flag is a hidden alias of --external
    assert_eq!(code(&vtdx(d.path(), &["check", "ext.xml"], None)), 1);
    assert_eq!(code(&vtdx(d.path(), &["check", "--external-entities", "skip", "ext.xml"], None)), 0);
    let o = vtdx(d.path(), &["check", "--external-entities", "error", "ext.xml"], None);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("`e`"), "{}", stderr(&o));
    assert_eq!(code(&vtdx(d.path(), &["check", "--external-entities", "skip", "--external", "ignore", "ext.xml"], None)), 2);
    assert_eq!(code(&vtdx(d.path(), &["check", "colons.xml"], None)), 1);
    assert_eq!(code(&vtdx(d.path(), &["check", "--no-namespaces", "colons.xml"], None)), 0);
    assert_eq!(code(&vtdx(d.path(), &["check", "--max-size", "10", "size.xml"], None)), 1);
    assert_eq!(code(&vtdx(d.path(), &["check", "--max-size", "17", "size.xml"], None)), 0);
}

#[test]
fn every_limit_has_a_flag() {
    let d = TempDir::new("limits");
    d.file("attrs.xml", b"<a x='1' y='2' z='3'/>")
        .file("name.xml", b"<abcdefgh/>")
        .file("amp.xml", b"<!DOCTYPE a [<!ENTITY e 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'>]><a>&e;&e;</a>")
        .file("nest.xml", b"<!DOCTYPE a [<!ENTITY e1 'x'><!ENTITY e2 '&e1;'><!ENTITY e3 '&e2;'>]><a>&e3;</a>");
    for (flag, low, high, file) in [
        ("--max-attributes", "2", "3", "attrs.xml"),
        ("--max-name-len", "7", "8", "name.xml"),
        ("--max-entity-depth", "2", "3", "nest.xml"),
    ] {
        let o = vtdx(d.path(), &["check", flag, low, file], None);
        assert_eq!(code(&o), 1, "{flag} {low} {file}");
        assert!(stderr(&o).contains("limit exceeded"), "{flag}: {}", stderr(&o));
        assert_eq!(code(&vtdx(d.path(), &["check", flag, high, file], None)), 0, "{flag} {high} {file}");
    }
    // the amplification limit is checked once expansion passes 64 KiB: with a ratio of 1,
    // a small document is still accepted
    assert_eq!(code(&vtdx(d.path(), &["check", "--max-entity-amplification", "1", "amp.xml"], None)), 0);
    assert_eq!(code(&vtdx(d.path(), &["check", "--max-entity-amplification", "x", "amp.xml"], None)), 2);
}

#[test]
fn billion_laughs_exits_1_fast() {
    let d = TempDir::new("lol");
    let mut doc = String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n");
    for i in 1..=9 {
        let prev = if i == 1 { "lol".to_string() } else { format!("lol{}", i - 1) };
        doc.push_str(&format!("<!ENTITY lol{i} \"{}\">\n", format!("&{prev};").repeat(10)));
    }
    doc.push_str("]>\n<lolz>&lol9;</lolz>\n");
    d.file("lol.xml", doc.as_bytes());
    let t0 = Instant::now();
    let o = vtdx(d.path(), &["check", "lol.xml"], None);
    let dt = t0.elapsed();
    assert_eq!(code(&o), 1);
    assert!(dt < Duration::from_secs(10), "took {dt:?}");
    // the reference is on line 14, after `<lolz>`
    assert!(stderr(&o).starts_with("lol.xml:14:7: "), "{}", stderr(&o));
    assert!(stderr(&o).contains("limit exceeded"), "{}", stderr(&o));
    let o = vtdx(d.path(), &["fmt", "lol.xml"], None);
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "");
}

#[test]
fn debug_index_matches_the_documented_example() {
    // docs/index-format.md, "A worked example"
    let d = TempDir::new("index");
    let input = "<?xml version=\"1.0\"?>
<po date=\"2026-11-02\">
  <item n=\"1\">Can &amp; lid</item>
  <!--rush-->
  <item n=\"2\"/>
</po>
";
    assert_eq!(input.len(), 116);
    d.file("po.xml", input.as_bytes());
    let o = vtdx(d.path(), &["debug", "index", "po.xml"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split_whitespace().collect()).collect();
    // word, kind and fields of each record, as in the document's listing
    let expect: [&[&str]; 7] = [
        &["0", "elem", "sym=0", "off=22", "next=25", "parent=-", "end=115"],
        &["5", "attr", "sym=1", "off=26"],
        &["7", "elem", "sym=2", "off=47", "next=14", "parent=0", "end=79"],
        &["12", "attr", "sym=3", "off=53"],
        &["14", "comment", "off=82", "end=93", "parent=0"],
        &["18", "elem", "sym=2", "off=96", "next=25", "parent=0", "end=109"],
        &["23", "attr", "sym=3", "off=102"],
    ];
    for e in expect {
        assert!(rows.iter().any(|r| r.len() >= e.len() && &r[..e.len()] == e), "no row starting {e:?} in\n{out}");
    }
    assert!(out.contains("25 words (100 bytes) for 116 input bytes"), "{out}");
}

// ---- external identifiers (issue 14) ---------------------------------------------------

/// An external DTD subset; the identifier starts after `<!DOCTYPE r `: column 13, byte 12.
const EXT_DTD: &[u8] = b"<!DOCTYPE r SYSTEM \"x.dtd\">\n<r>t</r>\n";
/// An external general entity referred to in content; the identifier starts after
/// `<!DOCTYPE r [<!ENTITY e `: column 25, byte 24. The reference is at line 2, column 5.
const EXT_ENTITY: &[u8] = b"<!DOCTYPE r [<!ENTITY e SYSTEM \"e.xml\">]>\n<r>a&e;b</r>\n";
/// An external parameter entity (never referred to): after `<!DOCTYPE r [<!ENTITY % p `:
/// column 27, byte 26.
const EXT_PARAM: &[u8] = b"<!DOCTYPE r [<!ENTITY % p PUBLIC \"-//X//p\" \"p.ent\">]><r/>";
/// An unparsed entity: after `<!DOCTYPE r [<!NOTATION n SYSTEM "n"><!ENTITY u `: column 49, byte 48.
const EXT_NDATA: &[u8] = b"<!DOCTYPE r [<!NOTATION n SYSTEM \"n\"><!ENTITY u SYSTEM \"u.bin\" NDATA n>]><r/>";

/// Every command that parses, with FILE last; `{}` stands for the file.
const PARSING_COMMANDS: [&[&str]; 7] = [
    &["check", "{}"],
    &["stats", "--repeat", "1", "{}"],
    &["fmt", "{}"],
    &["query", "{}", "string(/r)"],
    &["edit", "-d", "//nothing", "{}"],
    &["c14n", "{}"],
    &["debug", "index", "{}"],
];

fn with_file<'a>(cmd: &[&'a str], file: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    // the parse flags right after the subcommand (`debug index` has two words)
    let words = if cmd[0] == "debug" { 2 } else { 1 };
    let mut v: Vec<&str> = cmd[..words].to_vec();
    v.extend_from_slice(extra);
    v.extend(cmd[words..].iter().map(|a| if *a == "{}" { file } else { a }));
    v
}

#[test]
fn external_identifiers_are_refused_by_default() {
    let d = TempDir::new("external");
    // the files they name exist and are not XML: reading them would show
    d.file("dtd.xml", EXT_DTD)
        .file("ent.xml", EXT_ENTITY)
        .file("param.xml", EXT_PARAM)
        .file("ndata.xml", EXT_NDATA)
        .file("x.dtd", b"<!ELEMENT oops")
        .file("e.xml", b"<oops")
        .file("p.ent", b"<!ELEMENT oops");
    let cases = [
        ("dtd.xml", "dtd.xml:1:13: ", "SYSTEM \"x.dtd\"", "(byte 12)"),
        ("ent.xml", "ent.xml:1:25: ", "SYSTEM \"e.xml\"", "(byte 24)"),
        ("param.xml", "param.xml:1:27: ", "PUBLIC \"-//X//p\" \"p.ent\"", "(byte 26)"),
        ("ndata.xml", "ndata.xml:1:49: ", "SYSTEM \"u.bin\"", "(byte 48)"),
    ];
    for (file, at, identifier, byte) in cases {
        for cmd in PARSING_COMMANDS {
            for extra in [&[][..], &["--external", "forbid"][..]] {
                let args = with_file(cmd, file, extra);
                let o = vtdx(d.path(), &args, None);
                assert_eq!(code(&o), 1, "vtdx {args:?}: {}", stderr(&o));
                assert_eq!(stdout(&o), "", "vtdx {args:?}");
                let err = stderr(&o);
                assert_eq!(err.lines().count(), 1, "vtdx {args:?}: {err}");
                assert!(err.starts_with(at), "vtdx {args:?}: {err}");
                assert!(err.contains(identifier), "vtdx {args:?}: {err}");
                assert!(err.contains("--external ignore"), "vtdx {args:?}: {err}");
                assert!(err.trim_end().ends_with(byte), "vtdx {args:?}: {err}");
            }
        }
    }
}

#[test]
fn external_ignore_reads_the_document_without_the_external_content() {
    let d = TempDir::new("external-ignore");
    d.file("dtd.xml", EXT_DTD)
        .file("ent.xml", EXT_ENTITY)
        .file("param.xml", EXT_PARAM)
        .file("ndata.xml", EXT_NDATA)
        .file("x.dtd", b"<!ELEMENT oops")
        .file("e.xml", b"<oops");
    for file in ["dtd.xml", "ent.xml", "param.xml", "ndata.xml"] {
        for cmd in PARSING_COMMANDS {
            let args = with_file(cmd, file, &["--external", "ignore"]);
            let o = vtdx(d.path(), &args, None);
            assert_eq!(code(&o), 0, "vtdx {args:?}: {}", stderr(&o));
            assert_eq!(stderr(&o), "", "vtdx {args:?}");
        }
    }
    // nothing was read: the reference reads as nothing (XML 1.0 §4.4.3)
    let o = vtdx(d.path(), &["query", "--external", "ignore", "ent.xml", "string(/r)"], None);
    assert_eq!(stdout(&o), "ab\n");
    let o = vtdx(d.path(), &["query", "--external=ignore", "dtd.xml", "string(/r)"], None);
    assert_eq!(stdout(&o), "t\n");
    // the flag may come after the file
    assert_eq!(code(&vtdx(d.path(), &["check", "ent.xml", "--external", "ignore"], None)), 0);
    // edit copies the declarations and the reference as they are
    let o = vtdx(d.path(), &["edit", "--external", "ignore", "ent.xml"], None);
    assert_eq!(o.stdout, EXT_ENTITY);
    // among the operations too
    let o = vtdx(d.path(), &["edit", "-s", "/r", "-t", "elem", "-n", "n", "--external", "ignore", "ent.xml"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "<!DOCTYPE r [<!ENTITY e SYSTEM \"e.xml\">]>\n<r>a&e;b<n/></r>\n");
}

#[test]
fn external_reject_references_refuses_a_reference_in_content() {
    let d = TempDir::new("external-reject");
    d.file("dtd.xml", EXT_DTD).file("ent.xml", EXT_ENTITY).file("decl-only.xml", b"<!DOCTYPE r [<!ENTITY e SYSTEM 'e.xml'>]><r>ab</r>");
    for cmd in PARSING_COMMANDS {
        // the reference `&e;` is at line 2, column 5 (byte 46)
        let args = with_file(cmd, "ent.xml", &["--external", "reject-references"]);
        let o = vtdx(d.path(), &args, None);
        assert_eq!(code(&o), 1, "vtdx {args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("ent.xml:2:5: ") && err.contains("`e`") && err.trim_end().ends_with("(byte 46)"), "vtdx {args:?}: {err}");
        // declarations alone, and an external DTD subset, are read as with `ignore`
        for file in ["dtd.xml", "decl-only.xml"] {
            let args = with_file(cmd, file, &["--external", "reject-references"]);
            let o = vtdx(d.path(), &args, None);
            assert_eq!(code(&o), 0, "vtdx {args:?}: {}", stderr(&o));
        }
    }
}

#[test]
fn external_flag_is_documented() {
    let d = TempDir::new("external-help");
    for cmd in [&["check"][..], &["stats"], &["fmt"], &["query"], &["edit"], &["c14n"], &["debug", "index"]] {
        let mut args = cmd.to_vec();
        args.push("--help");
        let o = vtdx(d.path(), &args, None);
        assert_eq!(code(&o), 0, "{args:?}");
        let help = stdout(&o);
        for want in ["--external <POLICY>", "ever fetched", "forbid", "ignore", "reject-references", "[default: forbid]"] {
            assert!(help.contains(want), "vtdx {args:?}: no {want:?} in\n{help}");
        }
    }
}

// ---- input: memory-mapped files, standard input, pipes -----------------------------

/// A document of about 250 KB (more than the CLI maps), with an error on its last
/// line when `bad`: `<r>` then 10,000 lines `<i n="K">text K</i>`.
fn big_doc(bad: bool) -> Vec<u8> {
    let mut s = String::from("<r>\n");
    for k in 0..10_000 {
        s.push_str(&format!("<i n=\"{k}\">text {k}</i>\n"));
    }
    // line 10,002: `<x>` then U+0001 at column 4
    s.push_str(if bad { "<x>\u{1}</x></r>\n" } else { "</r>\n" });
    s.into_bytes()
}

#[test]
fn files_mapped_or_read_give_the_same_results() {
    let d = TempDir::new("input");
    let big = big_doc(false);
    assert!(big.len() > 200 * 1024);
    d.file("big.xml", &big).file("bad.xml", &big_doc(true)).file("small.xml", GOOD);
    // mapped (big.xml) and read (standard input) alike
    for (args, want) in [
        (&["query", "--count", "{}", "//i"][..], "10000\n"),
        (&["query", "{}", "string(//i[@n='9999'])"][..], "text 9999\n"),
        (&["query", "{}", "count(//i[@n = 500])"][..], "1\n"),
    ] {
        for file in ["big.xml", "-"] {
            let a: Vec<&str> = args.iter().map(|x| if *x == "{}" { file } else { x }).collect();
            let o = vtdx(d.path(), &a, if file == "-" { Some(&big) } else { None });
            assert_eq!(code(&o), 0, "vtdx {a:?}: {}", stderr(&o));
            assert_eq!(stdout(&o), want, "vtdx {a:?}");
        }
    }
    assert_eq!(code(&vtdx(d.path(), &["check", "big.xml", "small.xml"], None)), 0);
    // the document's bytes are the file's: edit with no operation copies them
    let o = vtdx(d.path(), &["edit", "big.xml"], None);
    assert_eq!(o.stdout, big);
    let o = vtdx(d.path(), &["stats", "big.xml"], None);
    assert!(stdout(&o).contains(&format!("bytes:           {}\n", big.len())), "{}", stdout(&o));
    // errors are reported at the same place either way: line 10,002, column 4
    let bad = big_doc(true);
    for file in ["bad.xml", "-"] {
        let o = vtdx(d.path(), &["check", file], if file == "-" { Some(&bad) } else { None });
        assert_eq!(code(&o), 1);
        let want = format!("{}:10002:4: ", if file == "-" { "-" } else { "bad.xml" });
        assert!(stderr(&o).starts_with(&want), "{}", stderr(&o));
    }
}

#[test]
fn editing_a_mapped_file_in_place() {
    let d = TempDir::new("input-inplace");
    let big = big_doc(false);
    d.file("big.xml", &big);
    // the output replaces the file the input is mapped from (by renaming over it)
    let o = vtdx(d.path(), &["edit", "-d", "//i[@n != 7]", "-L", "big.xml"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(d.read("big.xml"), b"<r>\n<i n=\"7\">text 7</i>\n</r>\n");
    d.file("big.xml", &big);
    let o = vtdx(d.path(), &["edit", "-u", "//i[@n = 3]", "-v", "three", "-o", "big.xml", "big.xml"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let want = String::from_utf8(big.clone()).unwrap().replace("<i n=\"3\">text 3</i>", "<i n=\"3\">three</i>");
    assert_eq!(d.read("big.xml"), want.as_bytes());
}

#[cfg(unix)]
#[test]
fn pipes_and_devices_are_read() {
    let d = TempDir::new("input-fifo");
    let big = big_doc(false);
    // a named pipe: not a regular file, so it is read
    let fifo = d.path().join("fifo.xml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let writer = {
        let (fifo, big) = (fifo.clone(), big.clone());
        std::thread::spawn(move || std::fs::write(fifo, big).unwrap())
    };
    let o = vtdx(d.path(), &["query", "--count", "fifo.xml", "//i"], None);
    writer.join().unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "10000\n");
    // standard input by its device name
    if Path::new("/dev/stdin").exists() {
        let o = vtdx(d.path(), &["query", "--count", "/dev/stdin", "//i"], Some(&big));
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(stdout(&o), "10000\n");
    }
    // a directory is an I/O problem, as a missing file
    let o = vtdx(d.path(), &["check", "."], None);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}
