//! Template-cache parsing: messages that repeat a structure are indexed by
//! matching them against the template of an earlier message instead of being
//! parsed again (the Cache Parser seed, with no help from the sender).
//!
//! A template is learned from a message parsed in full: its *fixed runs* (markup,
//! names, namespace declarations, white space between tags) and its *slots*
//! (character data and attribute values), with the records the parser wrote. A
//! new message matches when its bytes equal the fixed runs and each slot holds
//! only what the parser accepts there without a second look; its index is then
//! the template's records with their offsets moved by the slots' length
//! differences. Runs of identical sibling elements are folded into one repeated
//! unit, so a purchase order with 3 items and one with 7 match the same template.
//! Anything the match cannot prove goes to the full parser, which gives exactly
//! its own result or error: a document from the cache is the document a new
//! [`Parser`](crate::Parser) with the same options makes of the same bytes.
//!
//! ```
//! use std::sync::Arc;
//! use vtdx_core::{Parser, TemplateCache};
//!
//! let cache = Arc::new(TemplateCache::new());
//! let mut parser = Parser::new().with_template_cache(Arc::clone(&cache));
//! for n in 0..5 {
//!     let msg = format!("<order id='{n}'><item>pen {n}</item><item>ink</item></order>");
//!     let doc = parser.parse(msg.as_bytes()).unwrap();
//!     assert_eq!(doc.root_element().attribute("id").unwrap(), n.to_string());
//! }
//! let s = cache.stats();
//! // learned at the second sighting of the structure, matched from then on
//! assert_eq!((s.misses, s.hits, s.templates), (2, 3, 1));
//! ```
//!
//! `docs/template-cache.md` draws a template and argues why the two paths agree.

mod cache;
mod learn;
mod matcher;
#[cfg(test)]
mod tests;

use crate::document::{Bytes, Document};
use crate::options::ParseOptions;

/// How a [`TemplateCache`] learns and how much it may hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateConfig {
    /// Bound on the bytes all templates hold (ops, fixed bytes, name tables);
    /// past it the least recently used templates are evicted. Default 16 MiB.
    pub max_bytes: usize,
    /// Templates kept for one key (messages with the same first bytes up to the
    /// first attribute value or text, such as several operations of one SOAP
    /// service); the least recently used makes room. Default 8.
    pub max_per_key: usize,
    /// A structure (the key, and the kind and name of every record) is learned when a parser
    /// using the cache has parsed it in full this many times; 0 never learns
    /// (only [`TemplateCache::learn`] adds templates). Default 2: a stream in
    /// which no structure repeats never pays for learning.
    pub learn_after: u32,
}

impl Default for TemplateConfig {
    fn default() -> Self {
        TemplateConfig { max_bytes: 16 << 20, max_per_key: 8, learn_after: 2 }
    }
}

/// What a [`TemplateCache`] has done ([`TemplateCache::stats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TemplateStats {
    /// Messages indexed by matching a template.
    pub hits: u64,
    /// Messages no template matched (parsed in full).
    pub misses: u64,
    /// Bytes of the messages matched.
    pub bytes_matched: u64,
    /// Templates learned.
    pub learned: u64,
    /// Templates evicted (least recently used, or cleared).
    pub evicted: u64,
    /// Templates held now.
    pub templates: usize,
    /// Bytes the templates hold now.
    pub bytes: usize,
    /// The bound on `bytes` ([`TemplateConfig::max_bytes`]).
    pub max_bytes: usize,
}

/// A cache of message templates, shared by parsers ([`crate::Parser::with_template_cache`])
/// and threads: `Send + Sync`; a hit takes one shard's read lock.
pub struct TemplateCache {
    inner: cache::Inner,
}

impl std::fmt::Debug for TemplateCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TemplateCache").field("config", &self.inner.config).field("stats", &self.stats()).finish()
    }
}

impl Default for TemplateCache {
    fn default() -> Self {
        Self::new()
    }
}

impl TemplateCache {
    /// An empty cache with the default [`TemplateConfig`].
    pub fn new() -> TemplateCache {
        Self::with_config(TemplateConfig::default())
    }

    /// An empty cache with `config`.
    pub fn with_config(config: TemplateConfig) -> TemplateCache {
        TemplateCache { inner: cache::Inner::new(config) }
    }

    /// The configuration.
    pub fn config(&self) -> &TemplateConfig {
        &self.inner.config
    }

    /// Learns the template of `input` as parsed with `opts` now, whatever
    /// [`TemplateConfig::learn_after`] says. `false` when it cannot: the message
    /// is not well-formed, has a document type declaration, is not UTF-8 without
    /// a byte-order mark, or its template would exceed the cache's bound.
    pub fn learn(&self, input: &[u8], opts: &ParseOptions) -> bool {
        self.inner.learn(input, opts)
    }

    /// The counters and the memory held.
    pub fn stats(&self) -> TemplateStats {
        self.inner.stats()
    }

    /// Drops every template (counted as evicted) and every candidate structure.
    pub fn clear(&self) {
        self.inner.clear()
    }

    /// The document of `source` if a template matches; else the source back,
    /// with what [`TemplateCache::observe`] needs to know of the miss.
    pub(crate) fn lookup<'a>(
        &self,
        source: Bytes<'a>,
        opts: &ParseOptions,
        pool: &mut Vec<u32>,
    ) -> Result<Document<'a>, (Bytes<'a>, cache::Miss)> {
        self.inner.lookup(source, opts, pool)
    }

    /// Notes a document parsed in full after `miss` (learning its structure once
    /// it has been seen often enough).
    pub(crate) fn observe(&self, doc: &Document<'_>, miss: cache::Miss) {
        self.inner.observe(doc, miss)
    }
}
