//! Hostile and broken inputs: entity bombs, deep nesting, huge start tags, long
//! names, external references, truncation, byte flips and invalid characters.
//! Every case must end quickly with `Ok` or a typed `Err`, never a panic, a hang
//! or a stack overflow.

use std::time::Duration;

use vtdx_core::{Document, ErrorKind, ExternalPolicy, LimitKind, ParseOptions, SourceEncoding};

use crate::common::*;

/// Generous: every bomb here must be refused in milliseconds; this only catches hangs.
const QUICK: Duration = Duration::from_secs(30); // a hang guard, not a speed claim (machines are shared)

fn billion_laughs(leaf: &str, use_in: &str) -> String {
    let mut s = String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n");
    s.push_str(&format!("  <!ENTITY lol \"{leaf}\">\n"));
    for i in 1..=9 {
        let prev = if i == 1 { "lol".to_string() } else { format!("lol{}", i - 1) };
        s.push_str(&format!("  <!ENTITY lol{i} \"{}\">\n", format!("&{prev};").repeat(10)));
    }
    s.push_str("]>\n");
    s.push_str(use_in);
    s
}

fn assert_expansion_limit(e: &vtdx_core::Error) {
    let l = limit_of(e);
    assert!(matches!(l, LimitKind::EntityExpansionBytes | LimitKind::EntityAmplification), "expected an entity expansion limit, got {l:?}");
}

#[test]
fn billion_laughs_in_content_is_refused_quickly() {
    let doc = billion_laughs("lol", "<lolz>&lol9;</lolz>");
    let (r, dt) = timed(|| Document::parse(doc.as_bytes()).map(|_| ()));
    let e = r.expect_err("billion laughs must be refused");
    assert_expansion_limit(&e);
    assert!(dt < QUICK, "took {dt:?}");
    // reported at the reference in the document
    assert_eq!(e.offset() as usize, find(doc.as_bytes(), "&lol9;</lolz>"));
}

#[test]
fn billion_laughs_in_an_attribute_value_is_refused_quickly() {
    let doc = billion_laughs("lol", "<lolz a=\"&lol9;\"/>");
    let (r, dt) = timed(|| Document::parse(doc.as_bytes()).map(|_| ()));
    assert_expansion_limit(&r.expect_err("billion laughs in an attribute must be refused"));
    assert!(dt < QUICK, "took {dt:?}");
}

#[test]
fn billion_laughs_made_of_elements_is_refused_quickly() {
    // The same bomb with markup in the leaf: expanding it would create 10^9 elements.
    let doc = billion_laughs("<l/>", "<lolz>&lol9;</lolz>");
    let (r, dt) = timed(|| Document::parse(doc.as_bytes()).map(|_| ()));
    assert_expansion_limit(&r.expect_err("markup bomb must be refused"));
    assert!(dt < QUICK, "took {dt:?}");
}

#[test]
fn billion_laughs_declared_but_not_referenced_is_well_formed() {
    // Declaring entities expands nothing; the document is well-formed (§4.1, §4.4).
    let doc = billion_laughs("lol", "<lolz>no references</lolz>");
    let (r, dt) = timed(|| Document::parse(doc.as_bytes()).map(|d| d.root_element().value().into_owned()));
    assert_eq!(r.expect("unreferenced entities are harmless"), "no references");
    assert!(dt < QUICK, "took {dt:?}");
}

/// A 1 MB attribute default built from a small entity tree, applied to 20,000
/// elements (about 80 KB of input): a reader of those attributes would produce
/// 20 GB, so each application is charged to the expansion budget.
fn default_attribute_bomb(elements: usize) -> String {
    let mut s = String::from("<!DOCTYPE r [\n<!ENTITY e0 \"0123456789\">\n");
    for i in 1..=5 {
        s.push_str(&format!("<!ENTITY e{i} \"{}\">\n", format!("&e{};", i - 1).repeat(10)));
    }
    s.push_str("<!ATTLIST i big CDATA \"&e5;\">\n]>\n<r>");
    s.push_str(&"<i/>".repeat(elements));
    s.push_str("</r>");
    s
}

#[test]
fn attribute_defaults_built_from_entities_count_against_the_budget() {
    let doc = default_attribute_bomb(20_000);
    assert!(doc.len() < 90_000);
    let (r, dt) = timed(|| Document::parse(doc.as_bytes()).map(|_| ()));
    let e = r.unwrap_err();
    assert_expansion_limit(&e);
    assert!(dt < QUICK);
    // refused whether or not the defaults are recorded: C14N reads them anyway
    let e = parse_err_with(doc.as_bytes(), &ParseOptions::new().attribute_defaults(false));
    assert_expansion_limit(&e);
    // reported at an element the default applies to, not at the declaration
    assert!(e.offset() as usize > doc.find("<r>").unwrap(), "{e}");
    // a few applications of the same default are fine (5 MB of 10 MiB)
    let small = default_attribute_bomb(4);
    let d = parse_ok_with(small.as_bytes(), &ParseOptions::new().max_entity_amplification(u32::MAX));
    let first = d.root_element().first_element_child().unwrap();
    assert_eq!(first.attribute("big").map(|v| v.len()), Some(1_000_000));
}

#[test]
fn small_expansion_below_the_limits_is_fine() {
    // lol3 = 1000 × "lol" = 3000 bytes: well under every default limit.
    let doc = billion_laughs("lol", "<lolz>&lol3;</lolz>");
    let d = parse_ok(doc.as_bytes());
    assert_eq!(d.root_element().value(), "lol".repeat(1000));
}

#[test]
fn quadratic_blowup_is_refused() {
    // One 50 KB entity referenced 50,000 times: 2.5 GB of text from a 200 KB document.
    let mut doc = format!("<!DOCTYPE r [<!ENTITY a \"{}\">]>\n<r>", "a".repeat(50_000));
    doc.push_str(&"&a;".repeat(50_000));
    doc.push_str("</r>");
    let (r, dt) = timed(|| Document::parse(doc.as_bytes()).map(|_| ()));
    assert_expansion_limit(&r.expect_err("quadratic blowup must be refused"));
    assert!(dt < QUICK, "took {dt:?}");

    // the same in an attribute value
    let mut doc = format!("<!DOCTYPE r [<!ENTITY a \"{}\">]>\n<r x=\"", "a".repeat(50_000));
    doc.push_str(&"&a;".repeat(50_000));
    doc.push_str("\"/>");
    let (r, dt) = timed(|| Document::parse(doc.as_bytes()).map(|_| ()));
    assert_expansion_limit(&r.expect_err("quadratic blowup in an attribute must be refused"));
    assert!(dt < QUICK, "took {dt:?}");
}

#[test]
fn expansion_limit_is_configurable() {
    // 10 references to a 1000-byte entity: 10,000 bytes of expansion.
    let mut doc = format!("<!DOCTYPE r [<!ENTITY a \"{}\">]>\n<r>", "a".repeat(1000));
    doc.push_str(&"&a;".repeat(10));
    doc.push_str("</r>");
    let d = parse_ok(doc.as_bytes());
    assert_eq!(d.root_element().value().len(), 10_000);
    let e = parse_err_with(doc.as_bytes(), &ParseOptions::new().max_entity_expansion_bytes(5_000));
    assert_eq!(limit_of(&e), LimitKind::EntityExpansionBytes);
}

#[test]
fn entity_nesting_depth_limit() {
    // e0 -> e1 -> ... -> e9 -> "end": ten levels of references.
    let mut dtd = String::from("<!DOCTYPE r [\n");
    for i in 0..10 {
        dtd.push_str(&format!("<!ENTITY e{i} \"{i}&e{};\">\n", i + 1));
    }
    dtd.push_str("<!ENTITY e10 \"end\">\n]>\n");
    let doc = format!("{dtd}<r>&e0;</r>");
    let d = parse_ok(doc.as_bytes());
    assert_eq!(d.root_element().value(), "0123456789end");

    let mut opts = ParseOptions::new();
    opts.limits.max_entity_depth = 4;
    let e = parse_err_with(doc.as_bytes(), &opts);
    assert_eq!(limit_of(&e), LimitKind::EntityDepth);
}

#[test]
fn recursive_entities_are_errors() {
    // WFC: No Recursion
    let direct = b"<!DOCTYPE r [<!ENTITY a \"x&a;\">]><r>&a;</r>";
    assert!(matches!(parse_err(direct).kind(), ErrorKind::RecursiveEntity { .. }));
    let indirect = b"<!DOCTYPE r [<!ENTITY a \"&b;\"><!ENTITY b \"<e>&c;</e>\"><!ENTITY c \"&a;\">]><r>&a;</r>";
    assert!(matches!(parse_err(indirect).kind(), ErrorKind::RecursiveEntity { .. }));
    let in_attr = b"<!DOCTYPE r [<!ENTITY a \"&b;\"><!ENTITY b \"&a;\">]><r x='&a;'/>";
    assert!(matches!(parse_err(in_attr).kind(), ErrorKind::RecursiveEntity { .. }));
}

fn nested(depth: usize) -> String {
    let mut s = String::with_capacity(depth * 7);
    for _ in 0..depth {
        s.push_str("<a>");
    }
    for _ in 0..depth {
        s.push_str("</a>");
    }
    s
}

#[test]
fn deep_nesting_hits_the_depth_limit() {
    let doc = nested(100_000);
    let (r, dt) = timed(|| Document::parse(doc.as_bytes()).map(|_| ()));
    let e = r.expect_err("100,000 levels exceed the default depth limit");
    match e.kind() {
        ErrorKind::LimitExceeded { limit: LimitKind::Depth, max, .. } => assert_eq!(*max, 1024),
        k => panic!("expected the depth limit, got {k:?}"),
    }
    // the 1,025th start tag
    assert_eq!(e.offset(), 1024 * 3);
    assert!(dt < QUICK);

    // exactly at the limit is fine
    let d = parse_ok(nested(1024).as_bytes()).max_depth();
    assert_eq!(d, 1024);
    let e = parse_err_with(nested(11).as_bytes(), &ParseOptions::new().max_depth(10));
    assert_eq!(limit_of(&e), LimitKind::Depth);
}

#[test]
fn deep_nesting_with_a_raised_limit_does_not_overflow_the_stack() {
    // Parsing and navigating are iterative: run on a thread with a small stack.
    let t = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let doc = nested(100_000);
            let d = parse_ok_with(doc.as_bytes(), &ParseOptions::new().max_depth(200_000));
            assert_eq!(d.max_depth(), 100_000);
            let all: Vec<_> = d.root().descendants().collect();
            assert_eq!(all.len(), 100_001);
            let deepest = *all.last().unwrap();
            assert_eq!(deepest.depth(), 100_000);
            assert!(!deepest.is_empty_element_tag() && deepest.first_child().is_none());
            assert_eq!(deepest.ancestors().count(), 100_000);
            assert_eq!(deepest.range(), 299_997..300_004);
            assert_eq!(d.root_element().value(), "");
            assert_eq!(d.root_element().range(), 0..doc.len());
            let _ = deepest.namespaces();
        })
        .unwrap();
    t.join().expect("deep document on a small stack");
}

#[test]

fn pretty_printing_a_deep_document_does_not_overflow_the_stack() {
    let t = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(|| {
            let doc = nested(100_000);
            let d = parse_ok_with(doc.as_bytes(), &ParseOptions::new().max_depth(200_000));
            let mut out = Vec::new();
            d.write_pretty(&mut out, 0).unwrap();
            // each element has only element content: one line per tag
            assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 199_999);
        })
        .unwrap();
    t.join().expect("pretty printing a deep document on a 1 MiB stack");
}

fn many_attributes(n: usize, dup_last: bool) -> String {
    let mut s = String::with_capacity(n * 12 + 8);
    s.push_str("<r");
    for i in 0..n {
        s.push_str(&format!(" a{i}=\"\""));
    }
    if dup_last {
        s.push_str(" a0=\"again\"");
    }
    s.push_str("/>");
    s
}

#[test]
fn a_million_attributes_hit_the_attribute_limit() {
    let doc = many_attributes(1_000_000, false);
    let (r, dt) = timed(|| Document::parse(doc.as_bytes()).map(|_| ()));
    let e = r.expect_err("a million attributes exceed the default limit");
    match e.kind() {
        ErrorKind::LimitExceeded { limit: LimitKind::Attributes, max, .. } => assert_eq!(*max, 10_000),
        k => panic!("expected the attribute limit, got {k:?}"),
    }
    // reported at the 10,001st attribute
    assert_eq!(e.offset() as usize, find(doc.as_bytes(), " a10000=") + 1);
    assert!(dt < QUICK);
}

#[test]
fn many_attributes_with_a_raised_limit() {
    let doc = many_attributes(100_000, false);
    let opts = ParseOptions::new().max_attributes(1_000_000);
    let (d, dt) = timed(|| parse_ok_with(doc.as_bytes(), &opts));
    assert!(dt < QUICK);
    let r = d.root_element();
    assert_eq!(r.attributes().count(), 100_000);
    assert_eq!(r.attribute("a99999").as_deref(), Some(""));
    // uniqueness is still checked among 100,000 attributes (WFC: Unique Att Spec)
    let doc = many_attributes(100_000, true);
    let e = parse_err_with(doc.as_bytes(), &opts);
    assert!(matches!(e.kind(), ErrorKind::DuplicateAttribute { name } if name == "a0"), "{e}");
}

#[test]
fn duplicate_expanded_names_among_many_attributes() {
    // Namespaces §6.3: no two attributes with the same expanded name, also past the
    // small-tag fast path (here 20 attributes).
    let mut doc = String::from("<r xmlns:p='urn:u' xmlns:q='urn:u'");
    for i in 0..18 {
        doc.push_str(&format!(" x{i}='1'"));
    }
    doc.push_str(" p:k='1' q:k='2'/>");
    let e = parse_err(doc.as_bytes());
    assert!(matches!(e.kind(), ErrorKind::DuplicateAttribute { .. }), "{e}");
    let small = b"<r xmlns:p='urn:u' xmlns:q='urn:u' p:k='1' q:k='2'/>";
    assert!(matches!(parse_err(small).kind(), ErrorKind::DuplicateAttribute { .. }));
}

#[test]
fn long_names() {
    let name = "n".repeat(60_000);
    let doc = format!("<{name}/>");
    // the default limit is 50,000
    let e = parse_err(doc.as_bytes());
    assert_eq!(limit_of(&e), LimitKind::NameLength);
    let low = ParseOptions::new().max_name_len(1000);
    let e = parse_err_with(doc.as_bytes(), &low);
    match e.kind() {
        ErrorKind::LimitExceeded { limit: LimitKind::NameLength, value, max } => {
            assert_eq!((*value, *max), (60_000, 1000));
        }
        k => panic!("{k:?}"),
    }
    let high = ParseOptions::new().max_name_len(100_000);
    let d = parse_ok_with(doc.as_bytes(), &high);
    assert_eq!(d.root_element().name().len(), 60_000);

    let long = "m".repeat(2000);
    for doc in [
        format!("<r {long}='1'/>"),
        format!("<r><?{long} data?></r>"),
        format!("<?{long}?><r/>"),
        format!("<!DOCTYPE r [<!ENTITY {long} 'x'>]><r/>"),
        format!("<r><{long}></{long}></r>"),
    ] {
        let e = parse_err_with(doc.as_bytes(), &low);
        assert_eq!(limit_of(&e), LimitKind::NameLength, "{}", &doc[..40]);
        parse_ok(doc.as_bytes());
    }
}

#[test]
fn document_size_limit() {
    let doc = b"<r>0123456789</r>";
    let e = parse_err_with(doc, &ParseOptions::new().max_document_size(10));
    assert_eq!(limit_of(&e), LimitKind::DocumentSize);
    parse_ok_with(doc, &ParseOptions::new().max_document_size(doc.len() as u64));
}

const EXT: &[u8] = b"<!DOCTYPE r [<!ENTITY ext SYSTEM 'http://127.0.0.1:9/never.xml'>]><r>a&ext;b</r>";

#[test]
fn external_entity_with_error_policy() {
    let e = parse_err_with(EXT, &ParseOptions::new().external(ExternalPolicy::RejectReferences));
    assert!(matches!(e.kind(), ErrorKind::ExternalEntity { name } if name == "ext"), "{e}");
    assert_eq!(e.offset() as usize, find(EXT, "&ext;"));
}

#[test]
fn external_entity_with_skip_policy_reads_as_nothing() {
    let d = parse_ok_with(EXT, &ParseOptions::new().external(ExternalPolicy::Ignore));
    let r = d.root_element();
    assert_eq!(r.value(), "ab");
    assert_eq!(r.text().as_deref(), Some("ab"));
    // the default refuses the declaration itself
    assert!(matches!(parse_err(EXT).kind(), ErrorKind::ExternalReference { what, .. } if what.contains("`ext`")));
    // a local file is not read either
    let d = parse_ok_with(
        b"<!DOCTYPE r [<!ENTITY f SYSTEM 'file:///etc/passwd'>]><r>&f;</r>",
        &ParseOptions::new().external(ExternalPolicy::Ignore),
    );
    assert_eq!(d.root_element().value(), "");
}

#[test]
fn external_entity_references_in_attribute_values_are_errors() {
    // WFC: No External Entity References, whatever the policy
    let doc = b"<!DOCTYPE r [<!ENTITY ext SYSTEM 'x.xml'>]><r a='&ext;'/>";
    for p in [ExternalPolicy::Ignore, ExternalPolicy::RejectReferences] {
        let e = parse_err_with(doc, &ParseOptions::new().external(p));
        assert!(matches!(e.kind(), ErrorKind::ForbiddenEntityReference { .. } | ErrorKind::ExternalEntity { .. }), "{e}");
    }
}

#[test]
fn unparsed_entity_references_are_errors() {
    // WFC: Parsed Entity
    let doc = b"<!DOCTYPE r [<!NOTATION gif SYSTEM 'image/gif'><!ENTITY pic SYSTEM 'p.gif' NDATA gif>]><r>&pic;</r>";
    let ignore = ParseOptions::new().external(ExternalPolicy::Ignore);
    let e = parse_err_with(doc, &ignore);
    assert!(matches!(e.kind(), ErrorKind::ForbiddenEntityReference { .. }), "{e}");
    // declaring it is well-formed, and refused by default like every external identifier
    let decl = b"<!DOCTYPE r [<!NOTATION gif SYSTEM 'image/gif'><!ENTITY pic SYSTEM 'p.gif' NDATA gif>]><r/>";
    parse_ok_with(decl, &ignore);
    assert!(matches!(parse_err(decl).kind(), ErrorKind::ExternalReference { what, .. } if what == "the unparsed entity `pic`"));
}

#[test]
fn external_dtd_and_parameter_entities_are_never_fetched() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let docs = [
        format!("<!DOCTYPE r SYSTEM 'http://127.0.0.1:{port}/r.dtd'><r>&declared-outside;</r>"),
        format!("<!DOCTYPE r PUBLIC '-//X//DTD R//EN' 'http://127.0.0.1:{port}/r.dtd'><r/>"),
        format!("<!DOCTYPE r [<!ENTITY % pe SYSTEM 'http://127.0.0.1:{port}/pe.ent'> %pe;]><r>&maybe;</r>"),
        format!("<!DOCTYPE r [<!ENTITY e SYSTEM 'http://127.0.0.1:{port}/e.xml'>]><r>&e;</r>"),
    ];
    let ignore = ParseOptions::new().external(ExternalPolicy::Ignore);
    for doc in &docs {
        let (d, dt) = timed(|| parse_ok_with(doc.as_bytes(), &ignore).root_element().value().into_owned());
        // Undeclared entities are not an error when an unread external subset or
        // parameter entity might declare them (WFC: Entity Declared); they read as nothing.
        assert_eq!(d, "");
        assert!(dt < Duration::from_secs(2));
        // by default the identifier itself is refused
        let e = parse_err(doc.as_bytes());
        assert!(matches!(e.kind(), ErrorKind::ExternalReference { identifier, .. } if identifier.contains("127.0.0.1")), "{e}");
    }
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the parser connected to the network: {other:?}"),
    }
}

#[test]
fn undeclared_entities_in_standalone_documents_are_errors() {
    // WFC: Entity Declared applies with standalone='yes' even with an external subset.
    let doc = b"<?xml version='1.0' standalone='yes'?><!DOCTYPE r SYSTEM 'r.dtd'><r>&x;</r>";
    let ignore = ParseOptions::new().external(ExternalPolicy::Ignore);
    assert!(matches!(parse_err_with(doc, &ignore).kind(), ErrorKind::UndeclaredEntity { name } if name == "x"));
    // and without any DTD
    assert!(matches!(parse_err(b"<r>&x;</r>").kind(), ErrorKind::UndeclaredEntity { .. }));
    // and with an internal subset only
    assert!(matches!(parse_err(b"<!DOCTYPE r [<!ENTITY y 'y'>]><r>&x;</r>").kind(), ErrorKind::UndeclaredEntity { .. }));
}

// ---- truncation ---------------------------------------------------------------------

const PO: &[u8] = include_bytes!("../../../examples/po.xml");

const RICH: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>
<!DOCTYPE r [
  <!ENTITY e \"entity &#38;amp; text\">
  <!ENTITY m \"<i>markup</i>\">
  <!ATTLIST r t NMTOKENS #IMPLIED>
]>
<r xmlns=\"urn:r\" xmlns:x=\"urn:x\" t=\" a  b \">
  <x:c x:a=\"1 &lt; 2\">&e; &#x263A; &m;</x:c>
  <![CDATA[<raw> & ]]]]><![CDATA[>]]>
  <?pi data?><!--c--><é ñ=\"ü\">中文</é>
</r>
<!--after--> <?tail?>
";

/// Lengths at or after the root end tag at which `doc` is complete: the root end,
/// and the end of each trailing comment, PI or whitespace character.
fn complete_lengths(doc: &[u8], root_end: usize) -> Vec<usize> {
    let mut ok = vec![root_end];
    let mut i = root_end;
    while i < doc.len() {
        let end = if doc[i] == b'<' {
            let close: &[u8] = if doc[i + 1] == b'!' { b"-->" } else { b"?>" };
            i + doc[i..].windows(close.len()).position(|w| w == close).unwrap() + close.len()
        } else {
            i + 1
        };
        ok.push(end);
        i = end;
    }
    ok
}

fn check_every_prefix(doc: &[u8], root_end: usize, ok_lengths: &[usize]) {
    for len in 0..=doc.len() {
        let prefix = &doc[..len];
        let r = std::panic::catch_unwind(|| match Document::parse(prefix) {
            Ok(d) => {
                walk(&d);
                true
            }
            Err(_) => false,
        });
        let ok = r.unwrap_or_else(|_| panic!("panic on the prefix of length {len}: {:?}", String::from_utf8_lossy(prefix)));
        if len < root_end {
            assert!(!ok, "prefix of length {len} (before the root end tag) accepted");
        } else {
            assert_eq!(ok, ok_lengths.contains(&len), "prefix of length {len}: {:?}", String::from_utf8_lossy(&prefix[root_end..]));
        }
    }
}

#[test]
fn truncation_of_the_purchase_order_at_every_byte() {
    let root_end = find(PO, "</purchaseOrder>") + "</purchaseOrder>".len();
    let ok = complete_lengths(PO, root_end);
    assert_eq!(ok, [root_end, PO.len()]);
    check_every_prefix(PO, root_end, &ok);
}

#[test]
fn truncation_of_a_rich_document_at_every_byte() {
    let doc = RICH.as_bytes();
    let root_end = find(doc, "</r>") + 4;
    let ok = complete_lengths(doc, root_end);
    assert_eq!(ok.len(), 6); // "", "\n", comment, " ", PI, "\n"
    check_every_prefix(doc, root_end, &ok);
}

const SOAP: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"
               xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd">
  <soap:Header>
    <wsse:Security soap:mustUnderstand="1">
      <wsse:UsernameToken><wsse:Username>ada</wsse:Username></wsse:UsernameToken>
    </wsse:Security>
  </soap:Header>
  <soap:Body xmlns:m="urn:example:stock">
    <m:GetPrice><m:Item currency='EUR'>R&amp;D &#x2013; 42</m:Item></m:GetPrice>
  </soap:Body>
</soap:Envelope>"#;

#[test]
fn truncation_of_a_soap_message_at_every_byte() {
    let doc = SOAP.as_bytes();
    // the root end tag is the last thing in the message: only the whole is well-formed
    check_every_prefix(doc, doc.len(), &[doc.len()]);
}

#[test]
fn truncation_of_a_utf16_document_at_every_byte() {
    let s = RICH.replace("encoding=\"UTF-8\"", "encoding=\"UTF-16\"");
    for le in [true, false] {
        let doc = utf16(&s, le, true);
        let root_end_chars = &s[..s.find("</r>").unwrap() + 4];
        let root_end = 2 + 2 * root_end_chars.encode_utf16().count();
        let ok: Vec<usize> =
            complete_lengths(s.as_bytes(), s.find("</r>").unwrap() + 4).iter().map(|&n| 2 + 2 * s[..n].encode_utf16().count()).collect();
        check_every_prefix(&doc, root_end, &ok);
    }
}

// ---- random damage ------------------------------------------------------------------

#[test]
fn random_byte_flips_never_panic() {
    let samples: [&[u8]; 4] =
        [PO, RICH.as_bytes(), SOAP.as_bytes(), b"<a xmlns:p='u'><p:b c='&amp;'>x<![CDATA[y]]><!--z--><?w v?></p:b></a>"];
    let tight = ParseOptions::new().max_depth(8).max_attributes(4).max_name_len(16).max_entity_expansion_bytes(64);
    let interesting = b"<>&;#x'\"/!?[]-=: \r\n\t\x00\xC3\xA9\xEF\xBB\xBF\xFF";
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut accepted = 0;
    for round in 0..6000 {
        let base = samples[round % samples.len()];
        let mut v = base.to_vec();
        for _ in 0..1 + rng.below(3) {
            let i = rng.below(v.len());
            match rng.below(4) {
                0 => v[i] ^= 1 << rng.below(8),
                1 => v[i] = interesting[rng.below(interesting.len())],
                2 => {
                    v.remove(i);
                }
                _ => v.insert(i, interesting[rng.below(interesting.len())]),
            }
            if v.is_empty() {
                break;
            }
        }
        let r = std::panic::catch_unwind(|| {
            let mut n = 0;
            for opts in [ParseOptions::new(), tight.clone()] {
                if let Ok(d) = Document::parse_with(&v, &opts) {
                    walk(&d);
                    n += 1;
                }
            }
            n
        });
        match r {
            Ok(n) => accepted += n,
            Err(_) => panic!("panic on mutated input {:?}", String::from_utf8_lossy(&v)),
        }
    }
    // sanity: some mutations (in text, for instance) keep the documents well-formed
    assert!(accepted > 0);
}

// ---- characters and encodings -------------------------------------------------------

#[test]
fn invalid_utf8_is_refused() {
    let cases: [&[u8]; 9] = [
        b"<a>\xFF</a>",
        b"<a>\xC0\xAF</a>",         // overlong `/`
        b"<a>\xE0\x80\xAF</a>",     // overlong, three bytes
        b"<a>\xED\xA0\x80</a>",     // UTF-16 surrogate
        b"<a>\xF4\x90\x80\x80</a>", // above U+10FFFF
        b"<a>\xE2\x82</a>",         // truncated sequence
        b"<a x='\x80'/>",           // lone continuation byte in an attribute
        b"<\xC3/>",                 // truncated in a name
        b"<a><!--\xFE--></a>",
    ];
    for c in cases {
        let e = parse_err(c);
        assert!(matches!(e.kind(), ErrorKind::InvalidUtf8), "{:?}: {e}", String::from_utf8_lossy(c));
    }
    assert_eq!(parse_err(b"<a>ok \xFF</a>").offset(), 6);
    // input truncated inside a character at the very end
    assert!(matches!(parse_err(b"<a/>\xE2\x82").kind(), ErrorKind::InvalidUtf8));
}

#[test]
fn control_characters_are_refused() {
    // Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
    for c in [0x00u8, 0x01, 0x08, 0x0B, 0x0C, 0x0E, 0x1F] {
        for doc in [
            format!("<a>x{}y</a>", c as char),
            format!("<a b='{}'/>", c as char),
            format!("<a><!--{}--></a>", c as char),
            format!("<a><?p {}?></a>", c as char),
            format!("<a><![CDATA[{}]]></a>", c as char),
            format!("<a/><!--{}-->", c as char),
        ] {
            let e = parse_err(doc.as_bytes());
            assert!(matches!(e.kind(), ErrorKind::InvalidChar { code_point } if *code_point == c as u32), "U+{c:04X} in {doc:?}: {e}");
            assert_eq!(e.offset() as usize, doc.find(c as char).unwrap());
        }
        let r = format!("<a>&#{};</a>", c);
        assert!(matches!(parse_err(r.as_bytes()).kind(), ErrorKind::InvalidCharRef { .. }), "{r}");
        let r = format!("<a x='&#x{:X};'/>", c);
        assert!(matches!(parse_err(r.as_bytes()).kind(), ErrorKind::InvalidCharRef { .. }), "{r}");
    }
    // allowed: TAB, LF, CR, DEL and the C1 controls
    let d = parse_ok("<a>\t\n\r\u{7F}\u{80}\u{9F}&#9;&#10;&#13;&#x7F;&#x85;</a>".as_bytes());
    assert_eq!(d.root_element().value(), "\t\n\n\u{7F}\u{80}\u{9F}\t\n\r\u{7F}\u{85}");
}

#[test]
fn noncharacters_and_surrogates_are_refused() {
    for (bytes, cp) in [(&b"\xEF\xBF\xBE"[..], 0xFFFEu32), (b"\xEF\xBF\xBF", 0xFFFF)] {
        let mut doc = b"<a>".to_vec();
        doc.extend_from_slice(bytes);
        doc.extend_from_slice(b"</a>");
        let e = parse_err(&doc);
        assert!(matches!(e.kind(), ErrorKind::InvalidChar { code_point } if *code_point == cp), "{e}");
        assert_eq!(e.offset(), 3);
    }
    for r in ["&#xFFFE;", "&#xFFFF;", "&#xD800;", "&#xDFFF;", "&#x110000;", "&#65534;", "&#0;", "&#x99999999999;"] {
        let doc = format!("<a>{r}</a>");
        assert!(matches!(parse_err(doc.as_bytes()).kind(), ErrorKind::InvalidCharRef { .. }), "{r}");
    }
    let d = parse_ok("<a>&#xFFFD;&#xE000;&#x10000;&#x10FFFF;\u{FFFD}\u{10FFFF}</a>".as_bytes());
    assert_eq!(d.root_element().value(), "\u{FFFD}\u{E000}\u{10000}\u{10FFFF}\u{FFFD}\u{10FFFF}");
    // U+FFFE in UTF-16
    let mut doc = utf16("<a>", true, true);
    doc.extend_from_slice(&[0xFE, 0xFF]);
    doc.extend_from_slice(&utf16("</a>", true, false));
    assert!(matches!(parse_err(&doc).kind(), ErrorKind::InvalidChar { code_point: 0xFFFE }), "{}", parse_err(&doc));
    // an unpaired surrogate in UTF-16
    let mut doc = utf16("<a>", true, true);
    doc.extend_from_slice(&[0x00, 0xD8]);
    doc.extend_from_slice(&utf16("</a>", true, false));
    Document::parse(&doc).expect_err("unpaired surrogate in UTF-16");
}

#[test]
fn utf16_without_bom() {
    // Without a BOM or an encoding declaration the document must be UTF-8 (§4.3.3):
    // NUL bytes are not characters.
    for le in [true, false] {
        Document::parse(&utf16("<a>x</a>", le, false)).expect_err("UTF-16 without BOM or declaration");
    }
    // With a declaration, Appendix F detects `<?` in 16-bit units; the document either
    // reads correctly or is refused as an encoding error, never misread.
    for le in [true, false] {
        let doc = utf16("<?xml version='1.0' encoding='UTF-16'?><a>é😀</a>", le, false);
        match Document::parse(&doc) {
            Ok(d) => assert_eq!(d.root_element().value(), "é😀"),
            Err(e) => assert!(matches!(e.kind(), ErrorKind::Encoding { .. }), "{e}"),
        }
    }
}

#[test]
fn bom_and_declaration_must_agree() {
    // §4.3.3: an encoding declaration that contradicts the BOM is a fatal error
    let mut utf8_bom_utf16_decl = b"\xEF\xBB\xBF".to_vec();
    utf8_bom_utf16_decl.extend_from_slice(b"<?xml version='1.0' encoding='UTF-16'?><a/>");
    let mut utf8_bom_latin1_decl = b"\xEF\xBB\xBF".to_vec();
    utf8_bom_latin1_decl.extend_from_slice(b"<?xml version='1.0' encoding='ISO-8859-1'?><a/>");
    let utf16_bom_utf8_decl = utf16("<?xml version='1.0' encoding='UTF-8'?><a/>", true, true);
    let utf16be_bom_latin1_decl = utf16("<?xml version='1.0' encoding='ISO-8859-1'?><a/>", false, true);
    for doc in [&utf8_bom_utf16_decl, &utf8_bom_latin1_decl, &utf16_bom_utf8_decl, &utf16be_bom_latin1_decl] {
        let e = parse_err(doc);
        assert!(matches!(e.kind(), ErrorKind::Encoding { .. }), "{e}");
    }
    // agreeing ones, encoding names are case-insensitive
    let mut ok = b"\xEF\xBB\xBF".to_vec();
    ok.extend_from_slice(b"<?xml version='1.0' encoding='utf-8'?><a/>");
    assert_eq!(parse_ok(&ok).encoding(), &SourceEncoding::Utf8 { bom: true });
    let d16 = utf16("<?xml version='1.0' encoding='UTF-16'?><a/>", true, true);
    assert_eq!(parse_ok(&d16).encoding(), &SourceEncoding::Utf16Le { bom: true });
    let d16 = utf16("<?xml version='1.0' encoding='utf-16'?><a/>", false, true);
    assert_eq!(parse_ok(&d16).encoding(), &SourceEncoding::Utf16Be { bom: true });
}

#[test]
fn unknown_and_unsupported_encodings_are_refused() {
    let e = parse_err(b"<?xml version='1.0' encoding='x-no-such-encoding'?><a/>");
    assert!(matches!(e.kind(), ErrorKind::Encoding { .. }), "{e}");
    // UCS-4 (Appendix F): recognized, not supported
    let ucs4: Vec<u8> = "<a/>".bytes().flat_map(|b| [0, 0, 0, b]).collect();
    Document::parse(&ucs4).expect_err("UCS-4");
    // declared US-ASCII with a non-ASCII byte
    Document::parse(b"<?xml version='1.0' encoding='US-ASCII'?><a>\xE9</a>").expect_err("non-ASCII byte in US-ASCII");
}

#[test]
fn empty_and_whitespace_inputs_are_errors() {
    for doc in [&b""[..], b" ", b"\xEF\xBB\xBF", b"\xFF\xFE", b"<?xml version='1.0'?>", b"<!-- only -->", b"text"] {
        Document::parse(doc).expect_err("no root element");
    }
}

// ---- the UTF-8 / Char check on a second thread (ParseOptions::parallel_check) -------

/// A document above `PARALLEL_CHECK_MIN_BYTES`, with `tail` spliced in near its end
/// and `head` near its start.
fn large_doc(head: &[u8], tail: &[u8]) -> Vec<u8> {
    let mut v = b"<r>".to_vec();
    v.extend_from_slice(head);
    while v.len() < vtdx_core::PARALLEL_CHECK_MIN_BYTES + 4096 {
        v.extend_from_slice(b"<item n='1'>text &amp; more</item>\n");
    }
    v.extend_from_slice(tail);
    v.extend_from_slice(b"</r>");
    v
}

#[test]
fn parallel_check_gives_the_sequential_results() {
    let on = ParseOptions::new().parallel_check(true);
    let off = ParseOptions::new();
    let cases: [(&str, Vec<u8>); 6] = [
        ("well-formed", large_doc(b"", b"")),
        // the encoding error comes first even though the parse fails far earlier
        ("bad UTF-8 late, syntax error early", large_doc(b"<a></b>", b"<x>\xC3\x28</x>")),
        ("control character late, syntax error early", large_doc(b"<a x='1' x='2'/>", b"<x>\x01</x>")),
        ("U+FFFE late", large_doc(b"", "<x>\u{FFFE}</x>".as_bytes())),
        ("syntax error only", large_doc(b"", b"<x></y>")),
        // bytes the parser never checks (inside names and attribute values) before the check fails
        ("bad UTF-8 in a name", large_doc(b"<\xFF\xFE/>", b"")),
    ];
    for (what, doc) in &cases {
        let seq = Document::parse_with(doc, &off);
        let par = Document::parse_with(doc, &on);
        match (&seq, &par) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.root_element().descendants().count(), b.root_element().descendants().count(), "{what}");
                assert_eq!(a.record_counts(), b.record_counts(), "{what}");
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.kind(), b.kind(), "{what}");
                assert_eq!((a.offset(), a.line(), a.column()), (b.offset(), b.line(), b.column()), "{what}");
            }
            _ => panic!("{what}: sequential {:?}, parallel {:?}", seq.as_ref().err(), par.as_ref().err()),
        }
    }
    // the encoding errors are the encoding kinds, not the syntax errors before them
    assert!(matches!(Document::parse_with(&cases[1].1, &on).unwrap_err().kind(), ErrorKind::InvalidUtf8));
    assert!(matches!(Document::parse_with(&cases[2].1, &on).unwrap_err().kind(), ErrorKind::InvalidChar { code_point: 1 }));
}
