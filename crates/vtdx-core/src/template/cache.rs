//! The cache: templates by a key of the message's first bytes, several per key,
//! bounded in bytes with least-recently-used eviction, shared between threads.

use std::collections::HashMap;
use std::hash::Hasher;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, RwLock};

use crate::document::{Bytes, Document, Text};
use crate::input::SourceEncoding;
use crate::names::BuildFx;
use crate::options::ParseOptions;

use super::learn::Template;
use super::matcher::run_template;
use super::{TemplateConfig, TemplateStats};

/// Shards of the template map: threads matching messages of different keys take
/// different locks, and a hit takes only a read lock.
const SHARDS: usize = 16;
/// Bytes of the message start hashed into the key.
const KEY_BYTES: usize = 32;
/// Candidate structures remembered per shard before the table is cleared.
const MAX_CANDIDATES: usize = 4096;

#[derive(Default)]
struct Shard {
    buckets: HashMap<u64, Vec<Arc<Template>>, BuildFx>,
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
/// at most [`KEY_BYTES`] of them.
#[inline]
fn key_of(input: &[u8]) -> u64 {
    let mut p = 0;
    if input.starts_with(b"<?xml") {
        if let Some(e) = memchr::memmem::find(&input[..input.len().min(256)], b"?>") {
            p = e + 2;
        }
    }
    let end = (p + KEY_BYTES).min(input.len());
    while p < end {
        let c = input[p];
        if c == b'"' || c == b'\'' {
            break;
        }
        p += 1;
        if c == b'>' && input.get(p).is_some_and(|&d| !matches!(d, b'<' | b' ' | b'\t' | b'\n' | b'\r')) {
            break;
        }
    }
    let mut h = std::hash::BuildHasher::build_hasher(&BuildFx);
    h.write(&input[..p]);
    h.finish()
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
        let s = (key as usize) % SHARDS;
        let found = {
            let shard = self.shards[s].read().unwrap_or_else(|e| e.into_inner());
            let mut found = None;
            if let Some(list) = shard.buckets.get(&key) {
                for tpl in list {
                    if tpl.opts == *opts && run_template(tpl, input, pool) {
                        tpl.last_used.store(self.clock.fetch_add(1, Relaxed), Relaxed);
                        found = Some(Arc::clone(tpl));
                        break;
                    }
                }
            }
            found
        };
        let c = &self.counters[s];
        let Some(tpl) = found else {
            c.misses.fetch_add(1, Relaxed);
            return Err(source);
        };
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
        let key = key_of(input);
        let s = (key as usize) % SHARDS;
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
            self.learn_keyed(input, doc.options(), key);
        }
    }

    /// Learns the template of `input` (parsed again with a new parser); `false`
    /// when it cannot be learned.
    pub fn learn(&self, input: &[u8], opts: &ParseOptions) -> bool {
        self.learn_keyed(input, opts, key_of(input))
    }

    fn learn_keyed(&self, input: &[u8], opts: &ParseOptions, key: u64) -> bool {
        let Some(tpl) = Template::learn(input, opts) else { return false };
        if tpl.bytes > self.config.max_bytes {
            return false;
        }
        tpl.last_used.store(self.clock.fetch_add(1, Relaxed), Relaxed);
        let size = tpl.bytes;
        let s = (key as usize) % SHARDS;
        {
            let mut shard = self.shards[s].write().unwrap_or_else(|e| e.into_inner());
            let list = shard.buckets.entry(key).or_default();
            if list.len() >= self.config.max_per_key.max(1) {
                // the least recently used of this key makes room
                if let Some((i, _)) = list.iter().enumerate().min_by_key(|(_, t)| t.last_used.load(Relaxed)) {
                    let old = list.remove(i);
                    self.forget(&old, s);
                }
            }
            list.push(Arc::new(tpl));
        }
        self.bytes.fetch_add(size, Relaxed);
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
                for (&k, list) in &shard.buckets {
                    for t in list {
                        let used = t.last_used.load(Relaxed);
                        if oldest.is_none_or(|(u, _, _)| used < u) {
                            oldest = Some((used, s, k));
                        }
                    }
                }
            }
            let Some((used, s, k)) = oldest else { return };
            let mut shard = self.shards[s].write().unwrap_or_else(|e| e.into_inner());
            if let Some(list) = shard.buckets.get_mut(&k) {
                if let Some(i) = list.iter().position(|t| t.last_used.load(Relaxed) == used) {
                    let old = list.remove(i);
                    self.forget(&old, s);
                }
                if list.is_empty() {
                    shard.buckets.remove(&k);
                }
            }
        }
    }

    pub fn clear(&self) {
        for (s, shard) in self.shards.iter().enumerate() {
            let mut shard = shard.write().unwrap_or_else(|e| e.into_inner());
            for (_, list) in shard.buckets.drain() {
                for t in list {
                    self.forget(&t, s);
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
