//! The template cache against the full parser: messages generated from a few
//! message families (values of every kind, varying repeat counts), mutated at
//! every kind of position, give the same index, names, text and errors through
//! both paths. The reference is a new isolated `Parser` per message (name tables
//! of its own), so symbol numbers are those of a parse of that message alone.

use std::sync::Arc;

use proptest::prelude::*;
use vtdx_core::{Document, Error, ParseOptions, Parser, TemplateCache, TemplateConfig};

/// What a parse gives, as far as anyone can observe it: the tape, the root
/// record, and every node and attribute through the public API; or the error's
/// kind and offset.
type Outcome = Result<(Vec<u32>, Vec<String>), (String, u64)>;

fn view(doc: &Document<'_>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(d) = doc.xml_declaration() {
        out.push(format!("decl {:?} {:?} {:?} {:?}", d.version, d.encoding, d.standalone, d.span));
    }
    out.push(format!("root {:?} {}", doc.root_element().record(), doc.text().len()));
    for n in doc.root().descendants() {
        out.push(format!(
            "{:?} {} {:?} {:?} {:?} {:?}",
            n.kind(),
            n.name(),
            n.namespace_uri(),
            n.range(),
            n.text(),
            n.parent().map(|p| p.id())
        ));
        if n.is_element() {
            for a in n.all_attributes() {
                out.push(format!("  @{} {:?} {:?} {:?}", a.name(), a.namespace_uri(), a.value(), a.range()));
            }
            out.push(format!("  ns {:?}", n.namespaces()));
        }
    }
    out
}

fn outcome(r: Result<Document<'_>, Error>) -> Outcome {
    match r {
        Ok(d) => Ok((d.tape().to_vec(), view(&d))),
        Err(e) => Err((format!("{:?}", e.kind()), e.offset())),
    }
}

/// A cache holding the template of `template` (learned explicitly; the cache
/// learns nothing by itself).
fn cache_for(template: &[u8], opts: &ParseOptions) -> (Arc<TemplateCache>, bool) {
    let cache = Arc::new(TemplateCache::with_config(TemplateConfig { learn_after: 0, ..TemplateConfig::default() }));
    let learned = cache.learn(template, opts);
    (cache, learned)
}

/// Both paths for `msg`; panics when they differ. Returns whether the cache matched.
#[track_caller]
fn compare(cache: &Arc<TemplateCache>, opts: &ParseOptions, msg: &[u8]) -> bool {
    let before = cache.stats().hits;
    let mut p = Parser::isolated(opts.clone()).with_template_cache(Arc::clone(cache));
    let via_cache = outcome(p.parse(msg));
    let hit = cache.stats().hits > before;
    let full = outcome(Parser::isolated(opts.clone()).parse(msg));
    assert_eq!(via_cache, full, "hit={hit} message {:?}", String::from_utf8_lossy(msg));
    hit
}

const GOOD_VALUES: &[&str] = &[
    "",
    "x",
    "hello world",
    "a &amp; b",
    "&lt;tag&gt;",
    "\u{e9}t\u{e9}",
    "\u{65e5}\u{672c}",
    "line\r\nend",
    "tab\there",
    "]]",
    "&quot;&apos;",
    "a value longer than sixty-four bytes, so that the scan goes past its first four looks",
];
const BAD_VALUES: &[&str] =
    &["&#x41;", "&#65;", "]]>", "&e;", "<", "&", "a'b", "a\"b", "&#0;", "\u{1}", "&amp", "\u{fffe}", "<!--c-->", "<![CDATA[x]]>"];

/// Message families: (template of a message with `{}` for each value, repeated unit, count of values per unit).
fn soap(vals: &[&str], n: usize) -> String {
    let items: String = (0..n)
        .map(|k| format!("\n      <m:Item k=\"{}\">{}</m:Item>", vals[(3 + 2 * k) % vals.len()], vals[(4 + 2 * k) % vals.len()]))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:m=\"urn:m\">\n  \
         <soap:Header><m:Id m:ttl=\"{}\">{}</m:Id></soap:Header>\n  <soap:Body>\n    <m:Op a=\"{}\" b='x'>{items}\n    </m:Op>\n  </soap:Body>\n</soap:Envelope>\n",
        vals[0 % vals.len()],
        vals[1 % vals.len()],
        vals[2 % vals.len()]
    )
}

fn po(vals: &[&str], n: usize) -> String {
    let items: String = (0..n)
        .map(|k| {
            let v = |i: usize| vals[(k * 3 + i) % vals.len()];
            format!("\n  <item id=\"{}\"><name>{}</name><qty>{}</qty><![CDATA[fixed]]></item>", v(0), v(1), v(2))
        })
        .collect();
    format!("<po><!--c--><?pi data?><items>{items}\n</items><note>{}</note></po><!--end-->", vals[0])
}

fn mixed(vals: &[&str], n: usize) -> String {
    let es: String = (0..n).map(|k| format!("<e v='{}'/>", vals[k % vals.len()])).collect();
    format!(
        "<r xmlns=\"urn:d\" xmlns:q=\"urn:q\"><p>{}<b q:x='{}'>{}</b>{}</p>{es}<q:z/></r>",
        vals[0],
        vals[1 % vals.len()],
        vals[2 % vals.len()],
        vals[3 % vals.len()]
    )
}

type Family = fn(&[&str], usize) -> String;
const FAMILIES: &[Family] = &[soap, po, mixed];

#[derive(Debug, Clone)]
enum Mutation {
    None,
    Set(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Truncate(usize),
}

const BYTES: &[u8] = b"<>&'\"]:/ =!?-x\x00\xff\xc3\xa9\r\n\t;#";

fn mutate(mut m: Vec<u8>, how: &Mutation) -> Vec<u8> {
    let n = m.len();
    match *how {
        Mutation::None => {}
        Mutation::Set(i, b) => m[i % n] = b,
        Mutation::Insert(i, b) => m.insert(i % (n + 1), b),
        Mutation::Delete(i) => {
            m.remove(i % n);
        }
        Mutation::Truncate(i) => m.truncate(i % n),
    }
    m
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => Just(Mutation::None),
        2 => (any::<usize>(), proptest::sample::select(BYTES)).prop_map(|(i, b)| Mutation::Set(i, b)),
        1 => (any::<usize>(), proptest::sample::select(BYTES)).prop_map(|(i, b)| Mutation::Insert(i, b)),
        1 => any::<usize>().prop_map(Mutation::Delete),
        1 => any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn values(bad: bool) -> BoxedStrategy<Vec<&'static str>> {
    let good = proptest::sample::select(GOOD_VALUES);
    if bad {
        proptest::collection::vec(prop_oneof![4 => good, 1 => proptest::sample::select(BAD_VALUES)], 1..8).boxed()
    } else {
        proptest::collection::vec(good, 1..8).boxed()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// A message of a family through the cache holding the template of another
    /// message of the same family: the same outcome as the full parser.
    #[test]
    fn cache_agrees_with_the_full_parser(
        family in 0..FAMILIES.len(),
        learned in values(false),
        n_learned in 1usize..5,
        msg in values(true),
        n_msg in 0usize..9,
        how in mutation(),
        namespaces in proptest::bool::weighted(0.85),
    ) {
        let opts = ParseOptions::default().namespaces(namespaces);
        let f = FAMILIES[family];
        let (cache, ok) = cache_for(f(&learned, n_learned).as_bytes(), &opts);
        prop_assert!(ok, "a message of good values is learned");
        let msg = mutate(f(&msg, n_msg).into_bytes(), &how);
        compare(&cache, &opts, &msg);
    }
}

/// Messages of good values and no mutation always match (with one unit or more
/// when the template repeats one). Values are not empty: in mixed content an
/// empty text between two tags is part of the structure (a fixed run).
#[test]
fn unmutated_messages_hit() {
    let opts = ParseOptions::default();
    for (fi, f) in FAMILIES.iter().enumerate() {
        for n_learned in 2..4 {
            let (cache, ok) = cache_for(f(&GOOD_VALUES[1..4], n_learned).as_bytes(), &opts);
            assert!(ok);
            for n in 1..9 {
                for k in 0..GOOD_VALUES.len() - 1 {
                    let vals: Vec<&str> = GOOD_VALUES[1..].iter().cycle().skip(k).take(7).copied().collect();
                    assert!(compare(&cache, &opts, f(&vals, n).as_bytes()), "family {fi}, {n} units, values from {k}");
                }
            }
        }
    }
}

/// Every single-byte change at every offset of a small message, every
/// truncation, and every byte removed: the same outcome both ways.
#[test]
fn every_offset_of_a_small_message() {
    let opts = ParseOptions::default();
    let template = "<?xml version='1.0'?><p:m xmlns:p='urn:p' a=\"1\"><!--c--><p:v x='y'>text &amp; more</p:v><p:v x='z'>t</p:v><![CDATA[c]]><?pi d?></p:m>";
    let (cache, ok) = cache_for(template.as_bytes(), &opts);
    assert!(ok);
    let msg = template.replace("text &amp; more", "other").into_bytes();
    mutate_at_every_offset(&cache, &opts, &msg);
}

/// The same for a message with no repeated unit (its template writes the
/// learned index in one piece and moves the offsets; the one above is written
/// record by record).
#[test]
fn every_offset_of_a_small_flat_message() {
    let opts = ParseOptions::default();
    let template = "<?xml version='1.0'?><p:m xmlns:p='urn:p' a=\"1\"><!--c--><p:v x='y'>text &amp; more</p:v>\n<p:w x='z'>t</p:w><![CDATA[c]]><?pi d?><e/></p:m>";
    let (cache, ok) = cache_for(template.as_bytes(), &opts);
    assert!(ok);
    let msg = template.replace("text &amp; more", "other").replace("x='z'", "x='zz &lt; z'").into_bytes();
    mutate_at_every_offset(&cache, &opts, &msg);
}

/// Every byte of `msg` set to and preceded by each of [`BYTES`], and `msg` cut
/// and shortened at every offset, through `cache` and a full parse alike
/// ([`compare`]); changes inside the slots must still match now and then.
fn mutate_at_every_offset(cache: &Arc<TemplateCache>, opts: &ParseOptions, msg: &[u8]) {
    let (mut hits, mut total) = (0, 0);
    for i in 0..msg.len() {
        for &b in BYTES {
            for how in [Mutation::Set(i, b), Mutation::Insert(i, b)] {
                hits += usize::from(compare(cache, opts, &mutate(msg.to_vec(), &how)));
                total += 1;
            }
        }
        compare(cache, opts, &mutate(msg.to_vec(), &Mutation::Truncate(i)));
        compare(cache, opts, &mutate(msg.to_vec(), &Mutation::Delete(i)));
    }
    assert!(hits > 100 && hits < total, "{hits} hits of {total}");
}

/// Options are part of a template: a parser with other options does not use it.
#[test]
fn templates_are_per_options() {
    let msg = b"<a xmlns:p='urn:p'><p:b>1</p:b></a>";
    let (cache, _) = cache_for(msg, &ParseOptions::default());
    assert!(compare(&cache, &ParseOptions::default(), msg));
    assert!(!compare(&cache, &ParseOptions::default().namespaces(false), msg));
    assert!(!compare(&cache, &ParseOptions::default().max_depth(1), msg));
}

/// The cache learns by itself from a parser's misses, bounds its memory and
/// evicts the least recently used template.
#[test]
fn learning_bounds_and_eviction() {
    let cache = Arc::new(TemplateCache::new());
    let mut p = Parser::new().with_template_cache(Arc::clone(&cache));
    for k in 0..6 {
        let msg = soap(&[&k.to_string()], 3);
        let doc = p.parse(msg.as_bytes()).unwrap();
        assert_eq!(doc.root_element().local_name(), "Envelope");
    }
    let s = cache.stats();
    assert_eq!((s.misses, s.hits, s.learned, s.templates), (2, 4, 1, 1));
    assert!(s.bytes > 0 && s.bytes <= s.max_bytes);
    // room for about one template: learning a second evicts the first
    let one = s.bytes;
    let small =
        Arc::new(TemplateCache::with_config(TemplateConfig { max_bytes: one + one / 2, learn_after: 1, ..TemplateConfig::default() }));
    assert!(small.learn(soap(&["a"], 2).as_bytes(), &ParseOptions::default()));
    assert!(small.learn(po(&["a"], 2).as_bytes(), &ParseOptions::default()));
    let s = small.stats();
    assert_eq!((s.templates, s.learned, s.evicted), (1, 2, 1));
    assert!(s.bytes <= s.max_bytes);
    let mut p = Parser::new().with_template_cache(Arc::clone(&small));
    p.parse(po(&["b"], 4).as_bytes()).unwrap();
    assert_eq!(small.stats().hits, 1, "the newer template stayed");
    small.clear();
    assert_eq!(small.stats().templates, 0);
}

/// Several message types interleaved, from several threads sharing one cache.
#[test]
fn interleaved_types_across_threads() {
    let cache = Arc::new(TemplateCache::new());
    std::thread::scope(|s| {
        for t in 0..4 {
            let cache = Arc::clone(&cache);
            s.spawn(move || {
                let mut p = Parser::new().with_template_cache(cache);
                for k in 0..200usize {
                    let v = format!("{t}-{k}");
                    let vals = [v.as_str(), "x", "y"];
                    let f = FAMILIES[(k + t) % FAMILIES.len()];
                    let msg = f(&vals, 1 + k % 5);
                    let got = outcome(p.parse(msg.as_bytes()));
                    let want = outcome(Parser::new().parse(msg.as_bytes()));
                    assert_eq!(got.map(|g| g.1), want.map(|w| w.1));
                }
            });
        }
    });
    let s = cache.stats();
    assert_eq!(s.hits + s.misses, 800);
    assert!(s.hits > 600, "{s:?}");
}

fn _assert_send_sync<T: Send + Sync>() {}
#[test]
fn cache_is_send_and_sync() {
    _assert_send_sync::<TemplateCache>();
}
