//! The cache: templates by a key of the message's first bytes, several per key,
//! bounded in bytes with least-recently-used eviction, shared between threads.

use std::collections::HashMap;
use std::hash::Hasher;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, RwLock};

use crate::document::{Bytes, Document, Text};
use crate::input::SourceEncoding;
use crate::names::BuildFx;
use crate::options::ParseOptions;

use super::learn::Template;
use super::matcher::Trie;
use super::{TemplateConfig, TemplateStats};

/// Shards of the template map: threads matching messages of different keys take
/// different locks, and a hit takes only a read lock.
const SHARDS: usize = 16;
/// Bytes of the message start hashed into the key.
const KEY_BYTES: usize = 32;
/// Slots of the table of candidate structures (structures parsed in full, not
/// yet learned): direct-mapped, a newer structure takes the slot of an older one.
const CANDIDATES: usize = 8192;
/// The low bits of a candidate slot count the sightings; the others are the
/// structure's hash.
const COUNT_BITS: u32 = 16;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
/// After this many structures counted in a row that were each seen for the first
/// time, misses are *novel*: only one in [`NOVEL_SAMPLE`] is counted (the count
/// walks the whole index, about 5% of a parse), until a counted structure is seen
/// again. A structure that does repeat among novel ones is still learned, a few
/// sightings later.
const NOVEL_RUN: u32 = 64;
/// One miss in this many (per thread) is counted while misses are novel.
const NOVEL_SAMPLE: u32 = 16;

/// A key whose templates matched fewer than one message in this many (over the
/// recent ones) is *cold*: a failed match costs about what a hit saves, so only
/// every [`PROBE`]th message of the key is matched until hits come back.
const COLD_RATIO: u32 = 4;
/// Misses before a key can turn cold.
const COLD_MIN: u32 = 16;
/// A cold key still matches one message in this many (to notice hits coming back).
const PROBE: u32 = 64;
/// The hit and miss counts of a key are halved past this sum (so they describe
/// the recent messages).
const DECAY: u32 = 1024;
/// The longest wait (in messages of the key) between two learnings in a key
/// whose learned templates are not hit.
const MAX_LEARN_GAP: u32 = 1 << 16;

#[derive(Default)]
struct Shard {
    buckets: HashMap<u64, Vec<Group>, BuildFx>,
}

/// The templates of one key learned with one set of options, as one prefix tree,
/// and how well they have done lately.
struct Group {
    opts: ParseOptions,
    templates: Vec<Arc<Template>>,
    trie: Trie,
    /// A template of the group was learned at the caller's request
    /// ([`TemplateCache::learn`](super::TemplateCache::learn)): the group never turns cold.
    pinned: bool,
    hits: AtomicU32,
    misses: AtomicU32,
    /// Messages of the key looked up (probes of a cold key, and the learning clock).
    tick: AtomicU32,
    /// No learning in this key before `tick` reaches this.
    next_learn: AtomicU32,
    /// The wait after the next learning: doubled by each learning with no hit
    /// since the one before, back to 1 on a hit.
    learn_gap: AtomicU32,
    hit_since_learn: AtomicBool,
}

impl Group {
    fn new(opts: &ParseOptions) -> Group {
        Group {
            opts: opts.clone(),
            templates: Vec::new(),
            trie: Trie::default(),
            pinned: false,
            hits: AtomicU32::new(0),
            misses: AtomicU32::new(0),
            tick: AtomicU32::new(0),
            next_learn: AtomicU32::new(0),
            learn_gap: AtomicU32::new(1),
            hit_since_learn: AtomicBool::new(true),
        }
    }

    /// Whether this message of the key is matched: always, unless the key is cold.
    ///
    /// The group's counts (`tick`, `hits`, `misses`) steer heuristics only, so
    /// they are moved by a load and a store, not a locked read-modify-write: two
    /// threads counting at once may lose a count, which the heuristics do not
    /// notice, and a message saves two atomic operations (the cache's counters in
    /// [`TemplateStats`] stay exact).
    #[inline]
    fn try_match(&self) -> bool {
        let tick = self.tick.load(Relaxed);
        self.tick.store(tick.wrapping_add(1), Relaxed);
        let (h, m) = (self.hits.load(Relaxed), self.misses.load(Relaxed));
        self.pinned || m < COLD_MIN || m <= h.saturating_mul(COLD_RATIO) || tick % PROBE == 0
    }

    #[inline]
    fn count(&self, hit: bool) {
        let c = if hit { &self.hits } else { &self.misses };
        let n = c.load(Relaxed) + 1;
        c.store(n, Relaxed);
        if hit && !self.hit_since_learn.load(Relaxed) {
            self.hit_since_learn.store(true, Relaxed);
        }
        if n + if hit { self.misses.load(Relaxed) } else { self.hits.load(Relaxed) } > DECAY {
            self.hits.store(self.hits.load(Relaxed) / 2, Relaxed);
            self.misses.store(self.misses.load(Relaxed) / 2, Relaxed);
        }
    }

    /// Whether a message of this key parsed in full may be counted for learning now.
    #[inline]
    fn may_learn(&self) -> bool {
        let t = self.tick.load(Relaxed);
        t.wrapping_sub(self.next_learn.load(Relaxed)) < u32::MAX / 2
    }

    /// Learning just happened: the next waits longer if nothing learned before was hit.
    fn learned(&self) {
        let gap = if self.hit_since_learn.swap(false, Relaxed) { 1 } else { (self.learn_gap.load(Relaxed) * 2).min(MAX_LEARN_GAP) };
        self.learn_gap.store(gap, Relaxed);
        self.next_learn.store(self.tick.load(Relaxed).wrapping_add(gap), Relaxed);
    }

    fn rebuild(&mut self) {
        self.trie = Trie::build(&self.templates);
    }
}

#[derive(Default)]
struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
    bytes_matched: AtomicU64,
    learned: AtomicU64,
    evicted: AtomicU64,
}

pub(crate) struct Inner {
    pub config: TemplateConfig,
    shards: Box<[RwLock<Shard>]>,
    /// Candidate structures and their sightings (see [`Inner::observe`]): one
    /// atomic word each, no lock and no allocation on a miss.
    candidates: Box<[AtomicU64]>,
    /// Structures counted in a row that were first sightings, up to [`NOVEL_RUN`].
    novel: AtomicU32,
    counters: Box<[Counters]>,
    clock: AtomicU64,
    bytes: AtomicUsize,
    templates: AtomicUsize,
}

/// The key of a message: a hash of its first bytes, after any XML declaration,
/// up to the first quote or character data (where the first slot may start) and
/// at most [`KEY_BYTES`] of them. The stops are found sixteen bytes at a time.
#[inline]
fn key_of(input: &[u8]) -> u64 {
    let mut p = 0;
    if input.starts_with(b"<?xml") {
        if let Some(e) = crate::chars::find_seq(&input[..input.len().min(256)], 5, b"?>") {
            p = e + 2;
        }
    }
    let end = (p + KEY_BYTES).min(input.len());
    let mut stop = end;
    let mut at = p;
    'scan: while at < end {
        // sixteen bytes loaded at once where the message has them (a stop past
        // `end` ends the scan), padded with a stop at the message's end
        let block: [u8; 16] = match input.get(at..at + 16).and_then(|b| <[u8; 16]>::try_from(b).ok()) {
            Some(b) => b,
            None => {
                let mut b = [b'"'; 16];
                let n = (end - at).min(16);
                b[..n].copy_from_slice(&input[at..at + n]);
                b
            }
        };
        let mut m = crate::chars::mask16(&block, b'"', b'\'', b'>');
        while m != 0 {
            let i = at + m.trailing_zeros() as usize;
            m &= m - 1;
            if i >= end {
                break 'scan;
            }
            if input[i] != b'>' {
                stop = i;
                break 'scan;
            }
            if input.get(i + 1).is_some_and(|&d| !matches!(d, b'<' | b' ' | b'\t' | b'\n' | b'\r')) {
                stop = i + 1;
                break 'scan;
            }
        }
        at += 16;
    }
    let mut h = std::hash::BuildHasher::build_hasher(&BuildFx);
    h.write(&input[..stop]);
    h.finish()
}

thread_local! {
    /// Misses observed on this thread while misses are novel (the sampling clock).
    static MISS_TICK: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// What [`Inner::lookup`] found out about a message no template matched, for
/// [`Inner::observe`] of the same message parsed in full: its key (not hashed
/// again) and whether its key may learn now (not looked up again).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Miss {
    key: u64,
    learn: bool,
}

/// The structure of a parsed message, as counted for learning: a hash of its
/// key, its tape length, every record's kind and symbol at its place in the
/// tape, and each element's name (its first sixteen bytes and length, as the
/// name tables hold them: symbols alone are numbers that a parser's tables give
/// out again after they are reset, so two messages with other element names
/// could look alike). Only decides when a template is learned, never whether one
/// matches. Each record is mixed on its own and the results summed, so the only
/// chain from record to record is the walk over the tape.
#[inline]
fn structure_of(key: u64, doc: &Document<'_>) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let (tape, names) = (&doc.tape, &*doc.names);
    let mut acc = key ^ (tape.len() as u64).wrapping_mul(K);
    let mut i = 0;
    while let Some(&w) = tape.get(i) {
        let kind = crate::index::kind_of(w);
        let mut x = ((u64::from(w) << 32) | i as u64).wrapping_mul(K);
        if kind == crate::index::K_ELEM {
            if let Some(q) = names.syms.get((w & crate::index::PAYLOAD_MASK) as usize).and_then(|s| names.qnames.get(s.qname.index())) {
                x ^= (q.w0 ^ q.w1.rotate_left(23) ^ u64::from(q.len)).wrapping_mul(K);
            }
        }
        acc = acc.wrapping_add(x ^ (x >> 29));
        i += crate::index::words_of(kind) as usize;
    }
    acc ^ (acc >> 31)
}

impl Inner {
    pub fn new(config: TemplateConfig) -> Inner {
        Inner {
            config,
            shards: (0..SHARDS).map(|_| RwLock::default()).collect(),
            candidates: (0..CANDIDATES).map(|_| AtomicU64::new(0)).collect(),
            novel: AtomicU32::new(0),
            counters: (0..SHARDS).map(|_| Counters::default()).collect(),
            clock: AtomicU64::new(1),
            bytes: AtomicUsize::new(0),
            templates: AtomicUsize::new(0),
        }
    }

    /// The document of `source` if a template of its key matches it; else the
    /// source back, with what [`Inner::observe`] needs. `pool` lends the tape allocation.
    pub fn lookup<'a>(&self, source: Bytes<'a>, opts: &ParseOptions, pool: &mut Vec<u32>) -> Result<Document<'a>, (Bytes<'a>, Miss)> {
        let input: &[u8] = &source;
        let key = key_of(input);
        let s = (key as usize) % SHARDS;
        let (found, learn) = if self.templates.load(Relaxed) == 0 {
            // nothing to match (a cache that has learned nothing yet): no lock
            (None, true)
        } else {
            let shard = self.shards[s].read().unwrap_or_else(|e| e.into_inner());
            match shard.buckets.get(&key).and_then(|gs| gs.iter().find(|g| g.opts == *opts)) {
                Some(g) => {
                    let matching = g.try_match();
                    // a key whose learned templates keep missing learns less and less often
                    let learn = g.may_learn();
                    let found = if matching {
                        let found = g.trie.find(input, pool).map(Arc::clone);
                        g.count(found.is_some());
                        found
                    } else {
                        None
                    };
                    (found, learn)
                }
                None => (None, true),
            }
        };
        let c = &self.counters[s];
        let Some(tpl) = found else {
            c.misses.fetch_add(1, Relaxed);
            return Err((source, Miss { key, learn: learn && self.config.learn_after > 0 }));
        };
        // the LRU clock, moved as the group's counts are (an approximate order is enough)
        let now = self.clock.load(Relaxed);
        self.clock.store(now + 1, Relaxed);
        tpl.last_used.store(now, Relaxed);
        c.hits.fetch_add(1, Relaxed);
        c.bytes_matched.fetch_add(input.len() as u64, Relaxed);
        Ok(Document {
            source,
            text: Text::Source(0),
            tape: std::mem::take(pool),
            names: Arc::clone(&tpl.names),
            dtd: None,
            decl: tpl.decl.clone(),
            decl_read: std::sync::OnceLock::new(),
            encoding: SourceEncoding::Utf8 { bom: false },
            root: tpl.root,
            opts: opts.clone(),
            expansions: Vec::new(),
        })
    }

    /// After a full parse of a message no template matched: counts its structure
    /// ([`structure_of`]) and learns it once seen `learn_after` times. The count
    /// lives in one slot of a direct-mapped table of atomic words (the structure's
    /// hash above [`COUNT_BITS`], the sightings below): a miss takes no lock and
    /// allocates nothing here, and a structure not seen again for a while loses
    /// its slot to newer ones (as it would have to in any bounded table).
    pub fn observe(&self, doc: &Document<'_>, miss: Miss) {
        if !miss.learn
            || doc.dtd.is_some()
            || !doc.expansions.is_empty()
            || !matches!(doc.text, Text::Source(0))
            || doc.encoding != (SourceEncoding::Utf8 { bom: false })
        {
            return;
        }
        let novel = self.novel.load(Relaxed);
        if novel >= NOVEL_RUN && MISS_TICK.with(|t| t.replace(t.get().wrapping_add(1))) % NOVEL_SAMPLE != 0 {
            return;
        }
        let structure = structure_of(miss.key, doc);
        // never 0, the empty slot
        let tag = (structure & !COUNT_MASK) | (1 << COUNT_BITS);
        let slot = &self.candidates[(structure >> COUNT_BITS) as usize % CANDIDATES];
        let cur = slot.load(Relaxed);
        let seen = if cur & !COUNT_MASK == tag { (cur & COUNT_MASK) + 1 } else { 1 };
        let after = u64::from(self.config.learn_after).min(COUNT_MASK);
        // a structure seen for the first time and not learned now is novel; one
        // seen before, or learned now (`learn_after` 1), ends a novel run
        if seen == 1 && seen < after {
            if novel < NOVEL_RUN {
                self.novel.store(novel + 1, Relaxed);
            }
        } else if novel != 0 {
            self.novel.store(0, Relaxed);
        }
        if seen < after {
            slot.store(tag | seen, Relaxed);
            return;
        }
        // the thread that empties the slot learns (two threads seeing the
        // structure at once learn it once)
        if slot.compare_exchange(cur, 0, Relaxed, Relaxed).is_ok() {
            self.learn_keyed(doc.text(), doc.options(), miss.key, false);
        }
    }

    /// Learns the template of `input` (parsed again with a new parser); `false`
    /// when it cannot be learned.
    pub fn learn(&self, input: &[u8], opts: &ParseOptions) -> bool {
        self.learn_keyed(input, opts, key_of(input), true)
    }

    fn learn_keyed(&self, input: &[u8], opts: &ParseOptions, key: u64, pinned: bool) -> bool {
        let Some(tpl) = Template::learn(input, opts) else { return false };
        if tpl.bytes > self.config.max_bytes {
            return false;
        }
        tpl.last_used.store(self.clock.fetch_add(1, Relaxed), Relaxed);
        let s = (key as usize) % SHARDS;
        {
            let mut shard = self.shards[s].write().unwrap_or_else(|e| e.into_inner());
            let groups = shard.buckets.entry(key).or_default();
            let g = match groups.iter().position(|g| g.opts == *opts) {
                Some(i) => &mut groups[i],
                None => {
                    groups.push(Group::new(opts));
                    groups.last_mut().expect("just pushed")
                }
            };
            let size = tpl.bytes;
            if !pinned {
                g.learned();
            }
            g.pinned |= pinned;
            if g.templates.len() >= self.config.max_per_key.max(1) {
                // the least recently used of this key makes room
                if let Some((i, _)) = g.templates.iter().enumerate().min_by_key(|(_, t)| t.last_used.load(Relaxed)) {
                    let old = g.templates.remove(i);
                    self.forget(&old, s);
                }
            }
            g.templates.push(Arc::new(tpl));
            g.rebuild();
            self.bytes.fetch_add(size, Relaxed);
        }
        self.templates.fetch_add(1, Relaxed);
        self.counters[s].learned.fetch_add(1, Relaxed);
        self.evict();
        true
    }

    fn forget(&self, tpl: &Template, s: usize) {
        self.bytes.fetch_sub(tpl.bytes, Relaxed);
        self.templates.fetch_sub(1, Relaxed);
        self.counters[s].evicted.fetch_add(1, Relaxed);
    }

    /// Evicts least recently used templates while the cache holds more than its bound.
    fn evict(&self) {
        while self.bytes.load(Relaxed) > self.config.max_bytes {
            // the oldest template of all shards
            let mut oldest: Option<(u64, usize, u64)> = None;
            for (s, shard) in self.shards.iter().enumerate() {
                let shard = shard.read().unwrap_or_else(|e| e.into_inner());
                for (&k, groups) in &shard.buckets {
                    for t in groups.iter().flat_map(|g| &g.templates) {
                        let used = t.last_used.load(Relaxed);
                        if oldest.is_none_or(|(u, _, _)| used < u) {
                            oldest = Some((used, s, k));
                        }
                    }
                }
            }
            let Some((used, s, k)) = oldest else { return };
            let mut shard = self.shards[s].write().unwrap_or_else(|e| e.into_inner());
            if let Some(groups) = shard.buckets.get_mut(&k) {
                for g in groups.iter_mut() {
                    if let Some(i) = g.templates.iter().position(|t| t.last_used.load(Relaxed) == used) {
                        let old = g.templates.remove(i);
                        g.rebuild();
                        self.forget(&old, s);
                        break;
                    }
                }
                groups.retain(|g| !g.templates.is_empty());
                if groups.is_empty() {
                    shard.buckets.remove(&k);
                }
            }
        }
    }

    pub fn clear(&self) {
        for (s, shard) in self.shards.iter().enumerate() {
            let mut shard = shard.write().unwrap_or_else(|e| e.into_inner());
            for (_, groups) in shard.buckets.drain() {
                for t in groups.iter().flat_map(|g| &g.templates) {
                    self.forget(t, s);
                }
            }
        }
        for c in self.candidates.iter() {
            c.store(0, Relaxed);
        }
        self.novel.store(0, Relaxed);
    }

    pub fn stats(&self) -> TemplateStats {
        let mut st = TemplateStats {
            templates: self.templates.load(Relaxed),
            bytes: self.bytes.load(Relaxed),
            max_bytes: self.config.max_bytes,
            ..TemplateStats::default()
        };
        for c in self.counters.iter() {
            st.hits += c.hits.load(Relaxed);
            st.misses += c.misses.load(Relaxed);
            st.bytes_matched += c.bytes_matched.load(Relaxed);
            st.learned += c.learned.load(Relaxed);
            st.evicted += c.evicted.load(Relaxed);
        }
        st
    }
}
