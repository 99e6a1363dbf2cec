//! The cache: templates by a key of the message's first bytes, several per key,
//! bounded in bytes with least-recently-used eviction, shared between threads.

use std::collections::HashMap;
use std::hash::Hasher;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, RwLock};

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
/// Candidate structures remembered per shard before the table is cleared.
const MAX_CANDIDATES: usize = 4096;

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
    #[inline]
    fn try_match(&self) -> bool {
        let tick = self.tick.fetch_add(1, Relaxed);
        let (h, m) = (self.hits.load(Relaxed), self.misses.load(Relaxed));
        self.pinned || m < COLD_MIN || m <= h.saturating_mul(COLD_RATIO) || tick % PROBE == 0
    }

    #[inline]
    fn count(&self, hit: bool) {
        let c = if hit { &self.hits } else { &self.misses };
        let n = c.fetch_add(1, Relaxed) + 1;
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
    candidates: Box<[Mutex<HashMap<u64, u32, BuildFx>>]>,
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
        let mut block = [b'"'; 16];
        let n = (end - at).min(16);
        block[..n].copy_from_slice(&input[at..at + n]);
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
    /// The key [`Inner::lookup`] computed last on this thread, with the address and
    /// length of its message: [`Inner::observe`] of the same message (parsed in
    /// full after the miss) need not hash it again. Only an optimization: a key
    /// decides where a template is filed, never whether a message matches it.
    static LAST_KEY: std::cell::Cell<(usize, usize, u64)> = const { std::cell::Cell::new((0, 0, 0)) };
}

impl Inner {
    pub fn new(config: TemplateConfig) -> Inner {
        Inner {
            config,
            shards: (0..SHARDS).map(|_| RwLock::default()).collect(),
            candidates: (0..SHARDS).map(|_| Mutex::default()).collect(),
            counters: (0..SHARDS).map(|_| Counters::default()).collect(),
            clock: AtomicU64::new(1),
            bytes: AtomicUsize::new(0),
            templates: AtomicUsize::new(0),
        }
    }

    /// The document of `source` if a template of its key matches it; else the
    /// source back. `pool` lends the tape allocation.
    pub fn lookup<'a>(&self, source: Bytes<'a>, opts: &ParseOptions, pool: &mut Vec<u32>) -> Result<Document<'a>, Bytes<'a>> {
        let input: &[u8] = &source;
        let key = key_of(input);
        LAST_KEY.set((input.as_ptr() as usize, input.len(), key));
        let s = (key as usize) % SHARDS;
        let found = {
            let shard = self.shards[s].read().unwrap_or_else(|e| e.into_inner());
            match shard.buckets.get(&key).and_then(|gs| gs.iter().find(|g| g.opts == *opts)) {
                Some(g) if g.try_match() => {
                    let found = g.trie.find(input, pool).map(Arc::clone);
                    g.count(found.is_some());
                    found
                }
                _ => None,
            }
        };
        let c = &self.counters[s];
        let Some(tpl) = found else {
            c.misses.fetch_add(1, Relaxed);
            return Err(source);
        };
        tpl.last_used.store(self.clock.fetch_add(1, Relaxed), Relaxed);
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
    /// (key, and the kind and symbol of every record) and learns it once seen `learn_after` times.
    pub fn observe(&self, doc: &Document<'_>) {
        if self.config.learn_after == 0
            || doc.dtd.is_some()
            || !doc.expansions.is_empty()
            || !matches!(doc.text, Text::Source(0))
            || doc.encoding != (SourceEncoding::Utf8 { bom: false })
        {
            return;
        }
        let input = doc.text();
        let key = match LAST_KEY.get() {
            (p, n, k) if p == input.as_ptr() as usize && n == input.len() => k,
            _ => key_of(input),
        };
        let s = (key as usize) % SHARDS;
        {
            // a key whose learned templates keep missing learns less and less often
            let shard = self.shards[s].read().unwrap_or_else(|e| e.into_inner());
            if let Some(g) = shard.buckets.get(&key).and_then(|gs| gs.iter().find(|g| g.opts == *doc.options())) {
                if !g.may_learn() {
                    return;
                }
            }
        }
        // the structure: the key and every record's kind and symbol
        let mut h = std::hash::BuildHasher::build_hasher(&BuildFx);
        h.write_u64(key);
        let tape = &doc.tape;
        let mut i = 0;
        while i < tape.len() {
            let w = tape[i];
            h.write_u32(w);
            i += crate::index::words_of(crate::index::kind_of(w)) as usize;
        }
        let structure = h.finish();
        let seen = {
            let mut cands = self.candidates[s].lock().unwrap_or_else(|e| e.into_inner());
            if cands.len() >= MAX_CANDIDATES {
                cands.clear();
            }
            let n = cands.entry(structure).or_insert(0);
            *n += 1;
            let seen = *n;
            if seen >= self.config.learn_after {
                cands.remove(&structure);
            }
            seen
        };
        if seen >= self.config.learn_after {
            self.learn_keyed(input, doc.options(), key, false);
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
            c.lock().unwrap_or_else(|e| e.into_inner()).clear();
        }
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
