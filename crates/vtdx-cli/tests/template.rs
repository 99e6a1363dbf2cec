//! `--template-cache` on `vtdx check`, `vtdx query` and `vtdx stats`: a stream of
//! messages of several structures, interleaved, with near misses (single-byte
//! corruptions, truncations, reordered attributes, renamed prefixes), gives the
//! same verdicts, errors and results with the flag as without it, and the
//! verdicts are lxml's (run in a Python subprocess); `vtdx query --json` over
//! several files prints one JSON object per file.

mod common;

use std::process::{Command, Output, Stdio};

use common::TempDir;

fn vtdx(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vtdx")).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).output().expect("run vtdx")
}

fn soap(op: &str, id: usize, items: usize, value: &str) -> String {
    let items: String =
        (0..items).map(|k| format!("\n      <m:item code=\"{k}-{id}\" qty='{}'>{value} {k}</m:item>", k * 3 + id % 7)).collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:m=\"urn:shop\">\n  \
         <soap:Header><m:MessageID>uuid:{id:08}</m:MessageID></soap:Header>\n  <soap:Body>\n    <m:{op} customer=\"c{id}\">{items}\n    </m:{op}>\n  </soap:Body>\n</soap:Envelope>\n"
    )
}

/// The stream: four operations interleaved, item counts 1 to 6, and near misses.
fn stream(dir: &TempDir) -> Vec<String> {
    let ops = ["GetQuote", "PlaceOrder", "CancelOrder", "TrackShipment"];
    let mut names = Vec::new();
    for id in 0..48 {
        let mut msg = soap(ops[id % 4], id, 1 + id % 6, ["Can", "Rake &amp; hoe", "caf\u{e9}", ""][id % 4]).into_bytes();
        match id % 12 {
            5 => {
                let mid = msg.len() / 2;
                msg[mid] = b'<';
            }
            7 => msg.truncate(msg.len() - 9),
            9 => {
                let s = String::from_utf8(msg).unwrap().replacen("customer=\"c9\">", "customer=\"c9\" x='1'>", 1);
                msg = s.into_bytes();
            }
            10 => msg = String::from_utf8(msg).unwrap().replace("m:item", "n:item").into_bytes(),
            11 => {
                msg = String::from_utf8(msg)
                    .unwrap()
                    .replace("xmlns:m=", "xmlns:n=\"urn:shop\" xmlns:m=")
                    .replace("m:item", "n:item")
                    .into_bytes()
            }
            3 => {
                let s = String::from_utf8(msg).unwrap().replace("qty='3'", "qty='&bad;'");
                msg = s.into_bytes();
            }
            _ => {}
        }
        let name = format!("m{id:03}.xml");
        dir.file(&name, &msg);
        names.push(dir.path().join(&name).to_string_lossy().into_owned());
    }
    names
}

/// lxml's verdict on each file: `ok` or `error`.
fn lxml_verdicts(files: &[String]) -> Vec<String> {
    let script = "import sys\nfrom lxml import etree\nfor f in sys.argv[1:]:\n    try:\n        etree.parse(f, etree.XMLParser(resolve_entities=False, no_network=True))\n        print('ok')\n    except etree.XMLSyntaxError:\n        print('error')\n";
    let o = Command::new("python3").arg("-c").arg(script).args(files).output().expect("python3 with lxml (scripts/test.sh installs it)");
    assert!(o.status.success(), "lxml reference failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn check_gives_the_same_verdicts_and_errors() {
    let dir = TempDir::new("check");
    let files = stream(&dir);
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    let plain = vtdx(&[&["check"], &args[..]].concat());
    let cached = vtdx(&[&["check", "--template-cache"], &args[..]].concat());
    assert_eq!(plain.status.code(), Some(1));
    assert_eq!(cached.status.code(), plain.status.code());
    assert_eq!(cached.stdout, plain.stdout);
    assert_eq!(String::from_utf8_lossy(&cached.stderr), String::from_utf8_lossy(&plain.stderr));
    // one error line per file lxml rejects, naming that file
    let stderr = String::from_utf8(plain.stderr).unwrap();
    for (f, v) in files.iter().zip(lxml_verdicts(&files)) {
        let reported = stderr.lines().any(|l| l.starts_with(&format!("{f}:")));
        assert_eq!(reported, v == "error", "{f}: lxml says {v}");
    }
}

#[test]
fn query_gives_the_same_results() {
    let dir = TempDir::new("query");
    let files = stream(&dir);
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    for expr in ["//*[local-name()='item']/@code", "count(//*[local-name()='item'])", "string(/*/*[2]/*/@customer)"] {
        for json in [false, true] {
            let mut base = vec!["query"];
            if json {
                base.push("--json");
            }
            let plain = vtdx(&[&base[..], &args[..], &[expr]].concat());
            base.push("--template-cache");
            let cached = vtdx(&[&base[..], &args[..], &[expr]].concat());
            assert_eq!(plain.status.code(), Some(1), "{expr}");
            assert_eq!(cached.status.code(), plain.status.code());
            assert_eq!(String::from_utf8_lossy(&cached.stdout), String::from_utf8_lossy(&plain.stdout), "{expr} json={json}");
            assert_eq!(cached.stderr, plain.stderr);
        }
    }
}

#[test]
fn query_json_over_several_files_is_json_lines() {
    let dir = TempDir::new("jsonl");
    dir.file("a.xml", b"<r><i>1</i><i>2</i></r>").file("b.xml", b"<r><i>3</i></r>").file("c.xml", b"<r>\n<i>4</r>");
    let p = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
    let (a, b, c) = (p("a.xml"), p("b.xml"), p("c.xml"));
    let missing = p("none.xml");
    let o = vtdx(&["query", "--json", &a, &b, &c, &missing, "count(//i)"]);
    assert_eq!(o.status.code(), Some(1));
    let want = format!(
        "{{\"file\":\"{a}\",\"result\":{{\"type\":\"number\",\"value\":2}}}}\n\
         {{\"file\":\"{b}\",\"result\":{{\"type\":\"number\",\"value\":1}}}}\n\
         {{\"file\":\"{c}\",\"error\":{{\"message\":\"end tag `</r>` does not match start tag `<i>`\",\"line\":2,\"column\":5,\"offset\":8}}}}\n"
    );
    let got = String::from_utf8(o.stdout).unwrap();
    assert!(got.starts_with(&want), "{got}");
    let last = got.lines().nth(3).unwrap();
    assert!(last.starts_with(&format!("{{\"file\":\"{missing}\",\"error\":{{\"message\":\"cannot read: ")), "{last}");
    // one file: the single-file contract, unchanged
    let o = vtdx(&["query", "--json", &a, "count(//i)"]);
    assert_eq!(String::from_utf8(o.stdout).unwrap(), "{\"type\":\"number\",\"value\":2}\n");
}

#[test]
fn stats_reports_hits_misses_and_bytes_matched() {
    let dir = TempDir::new("stats");
    let mut files = Vec::new();
    for id in 0..20 {
        let name = format!("s{id:02}.xml");
        dir.file(&name, soap("GetQuote", id, 3, "v").as_bytes());
        files.push(dir.path().join(&name).to_string_lossy().into_owned());
    }
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    let o = vtdx(&[&["stats", "--template-cache"], &args[..]].concat());
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    let field = |k: &str| text.lines().find(|l| l.starts_with(k)).unwrap_or_else(|| panic!("no {k} in {text}")).to_string();
    // learned at the second message, matched from the third on
    assert_eq!(field("hits:"), "hits:            18");
    assert_eq!(field("misses:"), "misses:          2");
    let matched: u64 = field("bytes matched:").split_whitespace().nth(2).unwrap().parse().unwrap();
    let total: u64 = files[2..].iter().map(|f| std::fs::metadata(f).unwrap().len()).sum();
    assert_eq!(matched, total);
}
