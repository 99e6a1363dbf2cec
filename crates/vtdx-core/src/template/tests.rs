//! Unit tests of learning and matching (the property test comparing the cache
//! with the full parser is `tests/template.rs`).

use super::learn::{Op, Template};
use super::matcher::run_template;
use crate::{ParseOptions, Parser};

fn learn(s: &str) -> Template {
    Template::learn(s.as_bytes(), &ParseOptions::default()).expect("learnable")
}

/// The tape the template writes for `msg`, or `None` when it does not match.
fn matched(t: &Template, msg: &str) -> Option<Vec<u32>> {
    let mut tape = Vec::new();
    run_template(t, msg.as_bytes(), &mut tape).then_some(tape)
}

fn full(msg: &str) -> Vec<u32> {
    Parser::new().parse(msg.as_bytes()).expect("well-formed").tape().to_vec()
}

#[test]
fn runs_slots_and_records_of_a_small_message() {
    let t = learn("<po date=\"2026\">\n  <item n=\"1\">Can</item>\n</po>");
    let fixed: Vec<&[u8]> = t.ops.iter().filter_map(|o| if let Op::Fixed(b) = o { Some(&b[..]) } else { None }).collect();
    assert_eq!(fixed, [&b"<po date=\""[..], b"\">\n  <item n=\"", b"\">", b"</item>\n</po>"]);
    let slots = t.ops.iter().filter(|o| matches!(o, Op::Text | Op::Value(_))).count();
    assert_eq!(slots, 3);
    let msg = "<po date=\"2026-11-02\">\n  <item n=\"12\">Watering can</item>\n</po>";
    assert_eq!(matched(&t, msg), Some(full(msg)));
}

#[test]
fn repeated_siblings_fold_into_one_unit() {
    let t = learn("<o>\n <i a='1'>x</i>\n <i a='2'>y</i>\n <i a='3'>z</i>\n</o>");
    assert_eq!(t.ops.iter().filter(|o| matches!(o, Op::Repeat(_))).count(), 1);
    for n in 1..9 {
        let items: String = (0..n).map(|k| format!("\n <i a='{k}'>{}</i>", "v".repeat(k))).collect();
        let msg = format!("<o>{items}\n</o>");
        assert_eq!(matched(&t, &msg), Some(full(&msg)), "{n} items");
    }
    // no item at all is another structure
    assert_eq!(matched(&t, "<o>\n</o>"), None);
}

#[test]
fn slots_refuse_what_the_parser_must_look_at() {
    let t = learn("<a x='1'>text</a>");
    for ok in ["<a x='&amp;'>a &lt; b &#x41;</a>", "<a x=''></a>", "<a x='\u{e9}'>\u{e9}]]</a>", "<a x='1'>a\r\nb</a>"] {
        assert_eq!(matched(&t, ok), Some(full(ok)), "{ok}");
    }
    for bad in [
        "<a x='&ent;'>t</a>",
        "<a x='1'>&ent;</a>",
        "<a x='<'>t</a>",
        "<a x='1'>]]></a>",
        "<a x='1'>&#0;</a>",
        "<a x='\u{1}'>t</a>",
        "<a x='1'>\u{fffe}</a>",
        "<a x='1'>t</a> ",
        "<a x='1'>t</b>",
        "<a x='1'><b/></a>",
        "<a x=\"1\">t</a>",
        "<a x='1'>t",
    ] {
        assert_eq!(matched(&t, bad), None, "{bad}");
    }
    let mut invalid = b"<a x='1'>t</a>".to_vec();
    invalid[10] = 0xFF;
    let mut tape = Vec::new();
    assert!(!run_template(&t, &invalid, &mut tape));
}

#[test]
fn namespace_declarations_are_fixed() {
    let t = learn("<p:a xmlns:p='urn:1' p:k='v'><p:b>t</p:b></p:a>");
    let same = "<p:a xmlns:p='urn:1' p:k='other'><p:b>text</p:b></p:a>";
    assert_eq!(matched(&t, same), Some(full(same)));
    assert_eq!(matched(&t, "<p:a xmlns:p='urn:2' p:k='v'><p:b>t</p:b></p:a>"), None);
}

#[test]
fn what_is_not_learned() {
    let opts = ParseOptions::default();
    for s in ["<!DOCTYPE a [<!ENTITY e 'x'>]><a>&e;</a>", "\u{feff}<a/>", "<a>", "<?xml version='1.0' encoding='ISO-8859-1'?><a/>"] {
        assert!(Template::learn(s.as_bytes(), &opts).is_none(), "{s}");
    }
}
