//! Unit tests of learning and matching (the property test comparing the cache
//! with the full parser is `tests/template.rs`).

use super::learn::{Slot, Step, Template};
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

/// A full parse's index, symbols numbered from fresh tables.
fn full(msg: &str) -> Vec<u32> {
    Parser::isolated(Default::default()).parse(msg.as_bytes()).expect("well-formed").tape().to_vec()
}

#[test]
fn runs_slots_and_records_of_a_small_message() {
    let t = learn("<po date=\"2026\">\n  <item n=\"1\">Can</item>\n</po>");
    let fixed: Vec<&[u8]> = t.steps.iter().filter_map(|o| if let Step::Run { bytes, .. } = o { Some(&bytes[..]) } else { None }).collect();
    assert_eq!(fixed, [&b"<po date=\""[..], b"\">\n  <item n=\"", b"\">", b"</item>\n</po>"]);
    let slots: Vec<Slot> = t.steps.iter().filter_map(|o| if let Step::Run { slot, .. } = o { Some(*slot) } else { None }).collect();
    assert_eq!(slots, [Slot::Value(b'"'), Slot::Value(b'"'), Slot::Text, Slot::None]);
    let msg = "<po date=\"2026-11-02\">\n  <item n=\"12\">Watering can</item>\n</po>";
    // no repeated unit: the learned index is copied and its offsets moved
    assert!(t.flat.is_some());
    assert_eq!(matched(&t, msg), Some(full(msg)));
}

#[test]
fn repeated_siblings_fold_into_one_unit() {
    let t = learn("<o>\n <i a='1'>x</i>\n <i a='2'>y</i>\n <i a='3'>z</i>\n</o>");
    assert_eq!(t.steps.iter().filter(|o| matches!(o, Step::Repeat(_))).count(), 1);
    // records are written as the units are matched
    assert!(t.flat.is_none());
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

/// Four structures sharing their first bytes and parting late (the operation
/// element deep in the body): one tree, each message matched once, by the
/// template of its own structure, with the index of a full parse.
#[test]
fn templates_of_one_key_share_a_tree() {
    use super::matcher::Trie;
    use std::sync::Arc;
    let msg = |op: &str, v: &str| {
        format!("<env xmlns:m='urn:m'>\n <head id='{v}'><t>{v}</t></head>\n <body><m:{op} a='{v}'><m:x>{v}</m:x></m:{op}></body>\n</env>")
    };
    let ops = ["GetQuote", "GetPrice", "GetVolume", "GetRating"];
    let templates: Vec<Arc<Template>> = ops.iter().map(|op| Arc::new(learn(&msg(op, "1")))).collect();
    let trie = Trie::build(&templates);
    for (k, op) in ops.iter().enumerate() {
        for v in ["2", "long value &amp; more", "\u{e9}"] {
            let m = msg(op, v);
            let mut tape = Vec::new();
            let t = trie.find(m.as_bytes(), &mut tape).expect("a template matches");
            assert!(Arc::ptr_eq(t, &templates[k]), "{op} matched by its own template");
            assert_eq!(tape, full(&m), "{op} {v}");
        }
    }
    // another operation, a corrupted one, a truncated one: no template
    let mut tape = Vec::new();
    for m in [msg("GetOther", "1"), msg("GetQuote", "1").replace("m:x>", "m:y>"), msg("GetPrice", "1")[..60].to_string()] {
        assert!(trie.find(m.as_bytes(), &mut tape).is_none(), "{m}");
        assert!(tape.is_empty());
    }
    // a template that is a prefix of another's steps, and the same template twice
    let short = Arc::new(learn("<a><b>1</b></a>"));
    let trie = Trie::build(&[Arc::clone(&short), Arc::new(learn("<a><b>1</b></a>")), Arc::new(learn("<a><b>1</b><c/></a>"))]);
    let mut tape = Vec::new();
    assert!(Arc::ptr_eq(trie.find(b"<a><b>22</b></a>", &mut tape).expect("matches"), &short));
    assert_eq!(tape, full("<a><b>22</b></a>"));
    assert!(trie.find(b"<a><b>22</b><c/></a>", &mut tape).is_some());
    assert_eq!(tape, full("<a><b>22</b><c/></a>"));
}

/// The slot scanners that look sixteen bytes at a time agree with the plain ones
/// on every byte at every place of a slot, with references and line ends around.
#[test]
fn fast_slot_scanners_agree_with_plain_ones() {
    use super::matcher::{scan_text, scan_text_slow, scan_value, scan_value_slow};
    let bodies: &[&[u8]] = &[b"", b"plain text", b"a &amp; b &#x41; &#65; c", b"]] ] ]>", b"line\r\nend\tx", "\u{e9}\u{65e5}".as_bytes()];
    let mut n = 0;
    for body in bodies {
        for len in [0usize, 5, 15, 16, 17, 40] {
            let mut base: Vec<u8> = body.iter().copied().cycle().take(len.max(body.len())).collect();
            base.extend_from_slice(b"'<tail of the message, long enough for a block>");
            for i in 0..base.len().min(len + 2) {
                for b in [0u8, 1, b'\t', b'\n', b'\r', b'&', b']', b'>', b'<', b'\'', b'"', b'#', b';', 0x7F, 0x80, 0xC3, 0xE6, 0xFF] {
                    let mut t = b"<x>".to_vec();
                    t.extend_from_slice(&base);
                    t[3 + i] = b;
                    assert_eq!(scan_text(&t, 3), scan_text_slow(&t, 3), "text {:?}", String::from_utf8_lossy(&t));
                    for q in [b'\'', b'"'] {
                        assert_eq!(scan_value(&t, 3, q), scan_value_slow(&t, 3, q), "value {:?}", String::from_utf8_lossy(&t));
                    }
                    n += 1;
                }
            }
        }
    }
    assert!(n > 1000);
}

/// A cache that learns by itself backs off a key whose templates keep missing
/// (many structures sharing their first bytes, none repeating for long): few
/// matches are tried and few templates learned, every result stays a full
/// parse's, and a structure that starts repeating is matched again.
#[test]
fn a_key_that_keeps_missing_backs_off() {
    use crate::TemplateCache;
    use std::sync::Arc;
    let cache = Arc::new(TemplateCache::new());
    // a new parser with fresh tables per message: its symbols are numbered as a full parse's
    let parser = || Parser::isolated(Default::default()).with_template_cache(Arc::clone(&cache));
    let msg = |op: usize, v: usize| format!("<env><head>{v}</head><body><op{op} a='{v}'/></body></env>");
    // 400 structures, each seen twice in a row then never again
    for op in 0..400 {
        for v in 0..2 {
            let m = msg(op, v);
            let got = parser().parse(m.as_bytes()).map(|d| d.tape().to_vec()).ok();
            assert_eq!(got, Some(full(&m)));
        }
    }
    // (the structure counted for learning is the records' kinds and symbol
    // numbers, so the first messages of the next structure may hit a template
    // learned from the one before: a few hits)
    let s = cache.stats();
    assert!(s.hits < 10, "{s:?}");
    assert!(s.learned < 40, "learning backs off: {s:?}");
    // a structure that repeats is learned and matched again
    let before = cache.stats().hits;
    for v in 0..(1 << 17) / 2 {
        let m = msg(9999, v % 7);
        assert_eq!(parser().parse(m.as_bytes()).map(|d| d.tape().to_vec()).ok(), Some(full(&m)));
        if cache.stats().hits > before + 100 {
            break;
        }
    }
    assert!(cache.stats().hits > before + 100, "{:?}", cache.stats());
}

/// The tail a message must end with is the template's whole final fixed run
/// (up to 128 bytes): a message whose structure differs from the template's
/// only near its end (another operation element closing) is refused by that
/// compare, before its head is walked.
#[test]
fn the_tail_is_the_final_fixed_run() {
    let msg = |op: &str| {
        format!("<soap:Envelope xmlns:soap='urn:s' xmlns:m='urn:m'><soap:Body><m:{op}><m:note>n</m:note></m:{op}></soap:Body>\n</soap:Envelope>")
    };
    let t = learn(&msg("GetQuote"));
    assert_eq!(&t.tail[..], b"</m:note></m:GetQuote></soap:Body>\n</soap:Envelope>");
    let other = msg("GetPrice");
    assert_eq!(matched(&t, &other), None);
    let same = msg("GetQuote").replace(">n<", ">another note<");
    assert_eq!(matched(&t, &same), Some(full(&same)));
}

/// Learning on the second sighting, and less eagerly among novel misses: after
/// 64 structures in a row each seen for the first time, only one miss in 16 is
/// counted, so a structure that then repeats is learned at a later sighting
/// (two counted ones are 16 apart), and once it is, every result is still a
/// full parse's and the structure hits.
#[test]
fn novel_misses_are_counted_one_in_sixteen() {
    use crate::TemplateCache;
    use std::sync::Arc;
    // structures told apart by their record counts (a parser with fresh tables
    // per message numbers the names of every message alike)
    let msg = |items: usize, v: usize| {
        let items: String = (0..items).map(|_| "<i/>").collect();
        format!("<env><head>{v}</head><body>{items}</body></env>")
    };
    let sightings = |before: usize| {
        let cache = Arc::new(TemplateCache::new());
        // a new parser with fresh tables per message: its symbols are numbered as a full parse's
        let parser = || Parser::isolated(Default::default()).with_template_cache(Arc::clone(&cache));
        for k in 1..=before {
            let m = msg(k, 0);
            assert_eq!(parser().parse(m.as_bytes()).map(|d| d.tape().to_vec()).ok(), Some(full(&m)));
        }
        assert_eq!(cache.stats().learned, 0);
        let mut n = 0;
        while cache.stats().learned == 0 {
            n += 1;
            assert!(n <= 40, "learned by then");
            let m = msg(0, n % 7);
            assert_eq!(parser().parse(m.as_bytes()).map(|d| d.tape().to_vec()).ok(), Some(full(&m)));
        }
        let m = msg(0, 3);
        assert_eq!(parser().parse(m.as_bytes()).map(|d| d.tape().to_vec()).ok(), Some(full(&m)));
        assert_eq!(cache.stats().hits, 1);
        n
    };
    assert_eq!(sightings(10), 2, "learned at the second sighting");
    let n = sightings(100);
    assert!((17..=33).contains(&n), "among novel misses, learned at sighting {n}");
}

/// Element names are part of the structure counted for learning: a reused
/// parser's name tables are reset when they grow past their bound (8,192
/// names), after which it numbers new names as it did before, so messages that
/// each have an element name of their own would look like one structure seen
/// again if only symbols were counted.
#[test]
fn names_not_only_symbols_make_a_structure() {
    use crate::TemplateCache;
    use std::sync::Arc;
    let cache = Arc::new(TemplateCache::new());
    let mut parser = Parser::new().with_template_cache(Arc::clone(&cache));
    for i in 0..12_000 {
        let m = format!("<env><head>{i}</head><body><op{i} a='1'/></body></env>");
        let doc = parser.parse(m.as_bytes()).expect("well-formed");
        assert_eq!(
            doc.root_element().element_children().nth(1).and_then(|b| b.first_element_child()).map(|e| e.name().to_string()),
            Some(format!("op{i}"))
        );
        parser.recycle(doc);
    }
    let s = cache.stats();
    assert_eq!((s.hits, s.misses, s.learned), (0, 12_000, 0), "{s:?}");
}

/// With `learn_after` 1 every structure is learned at its first sighting, however
/// many new structures came before: learning ends a novel run. (Each of another
/// key: learnings in one key that are not hit back off.)
#[test]
fn learn_after_one_learns_every_structure() {
    use crate::{TemplateCache, TemplateConfig};
    use std::sync::Arc;
    let cache = Arc::new(TemplateCache::with_config(TemplateConfig { learn_after: 1, ..TemplateConfig::default() }));
    let parser = || Parser::isolated(Default::default()).with_template_cache(Arc::clone(&cache));
    for k in 1..=200 {
        let m = format!("<e{k}><head>1</head><body/></e{k}>");
        assert_eq!(parser().parse(m.as_bytes()).map(|d| d.tape().to_vec()).ok(), Some(full(&m)));
    }
    assert_eq!(cache.stats().learned, 200);
}

#[test]
fn learned_values_are_tried_first_and_then_scanned() {
    use super::learn::SEEN_MISSES;
    use std::sync::atomic::Ordering::Relaxed;
    let t = learn("<a x='1' y='&amp;'>text</a>");
    let seen: Vec<Option<&[u8]>> =
        t.steps.iter().filter_map(|s| if let Step::Run { seen, .. } = s { Some(seen.value.as_deref()) } else { None }).collect();
    assert_eq!(seen, [Some(&b"1"[..]), Some(b"&amp;"), Some(b"text"), None]);
    // the learned values, values that start with them, and others: as the parser says
    for msg in ["<a x='1' y='&amp;'>text</a>", "<a x='12' y='&amp;;'>texts</a>", "<a x='' y=''>t</a>", "<a x='1' y='&amp;'>text&lt;</a>"] {
        assert_eq!(matched(&t, msg), Some(full(msg)), "{msg}");
    }
    for bad in ["<a x='1<' y='&amp;'>text</a>", "<a x='1' y='&amp;&'>text</a>", "<a x='1' y='&amp;'>text]]></a>"] {
        assert_eq!(matched(&t, bad), None, "{bad}");
    }
    // each slot failed its learned value at least once above; past the limit it is only scanned
    for _ in 0..SEEN_MISSES {
        assert!(matched(&t, "<a x='2' y='b'>other</a>").is_some());
    }
    for s in t.steps.iter() {
        if let Step::Run { seen: super::learn::Seen { value: Some(_), misses }, .. } = s {
            assert!(misses.load(Relaxed) >= SEEN_MISSES);
        }
    }
    let msg = "<a x='1' y='&amp;'>text</a>";
    assert_eq!(matched(&t, msg), Some(full(msg)));
}

/// docs/template-cache.md states the memory of a template per step.
#[test]
fn a_step_is_64_bytes() {
    assert_eq!(std::mem::size_of::<Step>(), 64);
}

/// The five predefined entities of XML 1.0 (section 4.6), and nothing else.
#[test]
fn predefined_references() {
    use super::matcher::predefined_ref_len;
    for (r, n) in [("&lt;", 4), ("&gt;", 4), ("&amp;", 5), ("&apos;", 6), ("&quot;", 6)] {
        assert_eq!(predefined_ref_len(format!("{r}tail").as_bytes()), Some(n), "{r}");
    }
    for r in ["&", "&a", "&am;", "&amp", "&ap;", "&apos", "&lt", "&l;", "&g;", "&quo;", "&Amp;", "&nbsp;", "&#65;", "&e;"] {
        assert_eq!(predefined_ref_len(r.as_bytes()), None, "{r}");
    }
}
