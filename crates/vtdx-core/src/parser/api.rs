//! [`Parser`]: the entry points that turn bytes into a [`Document`] (decoding,
//! one scanning pass, a second over the expanded text when entities hold markup)
//! and keep the allocations for the next document.

use std::borrow::Cow;

use crate::document::{Bytes, Document, EntityExpansion, Text};
use crate::dtd::{Dtd, ExpansionBudget};
use crate::error::{Error, ErrorKind, LimitKind};
use crate::input;
use crate::names::Names;
use crate::options::ParseOptions;

use super::{DeclSpans, Run, State, QNAME_OK_WITH_DEFAULTS};

/// The product of one parse.
pub(crate) struct Parsed {
    pub tape: Vec<u32>,
    pub dtd: Option<Box<Dtd>>,
    pub decl: Option<DeclSpans>,
    pub root: u32,
    /// Set when the document had to be expanded: the text the index describes.
    pub expanded: Option<Vec<u8>>,
    /// With `expanded`: each reference replaced, in document order.
    pub regions: Vec<EntityExpansion>,
}

/// A reusable parser: keeps its allocations (token tape, name tables, stacks)
/// between documents, the seeds' buffer-reuse mode.
///
/// ```
/// let mut parser = vtdx_core::Parser::new();
/// for msg in [&b"<a/>"[..], b"<b><c/></b>"] {
///     let doc = parser.parse(msg).unwrap();
///     assert!(doc.root_element().name().len() == 1);
///     parser.recycle(doc); // hand the index allocation back
/// }
/// ```
#[derive(Debug, Default)]
pub struct Parser {
    pub(crate) opts: ParseOptions,
    pub(crate) tape_pool: Vec<u32>,
    /// The name tables, kept between documents: a reused parser interns each
    /// name once, not once per document. Shared with the documents it made (a
    /// document still alive when the next parse starts makes that parse copy them).
    pub(crate) names_pool: Option<std::sync::Arc<Names>>,
    /// Documents come back through [`Parser::recycle`]: their index keeps its spare
    /// capacity for the next parse instead of giving it back.
    pub(crate) recycling: bool,
    pub(super) st: State,
    /// Templates of earlier messages to match before parsing ([`Parser::with_template_cache`]).
    pub(crate) template_cache: Option<std::sync::Arc<crate::template::TemplateCache>>,
    /// Name tables of its own only ([`Parser::isolated`]).
    pub(crate) isolated: bool,
}

thread_local! {
    /// The name tables of the last parser dropped on this thread, for the next new
    /// parser to start from (see [`Parser::new`]).
    static SPARE_NAMES: std::cell::Cell<Option<std::sync::Arc<Names>>> = const { std::cell::Cell::new(None) };
}

impl Drop for Parser {
    /// Leaves the name tables on this thread for the next new parser, unless they
    /// grew too large to keep (or still carry this parser's marks for element types
    /// with attribute defaults while a document shares them).
    fn drop(&mut self) {
        let Some(mut names) = self.names_pool.take().filter(|_| !self.isolated) else { return };
        if names.too_large_to_keep() {
            return;
        }
        if !self.st.defaults.is_empty() {
            let Some(n) = std::sync::Arc::get_mut(&mut names) else { return };
            clear_default_marks(n, &mut self.st);
        }
        // during the thread's exit the slot may be gone: then the tables just go
        let _ = SPARE_NAMES.try_with(|s| s.set(Some(names)));
    }
}

/// Element types marked as having attribute defaults in the last document
/// (`st.defaults`) are ordinary names again.
fn clear_default_marks(names: &mut Names, st: &mut State) {
    for qid in st.defaults.keys() {
        if let Some(q) = names.qnames.get_mut(qid.index()).filter(|q| q.qname_ok == QNAME_OK_WITH_DEFAULTS) {
            q.qname_ok = 1;
        }
    }
    st.defaults.clear();
}

impl Parser {
    /// A parser with default options.
    ///
    /// A new parser starts from the name tables the last parser dropped on this
    /// thread left behind (when there is one), so a parser per document costs little
    /// more than a parser reused: the names of earlier messages are not interned
    /// again. The tables are only an interning cache; what a document's names and
    /// symbols are does not depend on them (symbols are numbered per table, and are
    /// meaningless across documents in any case).
    pub fn new() -> Parser {
        Parser::default()
    }
    /// A parser with the given options.
    pub fn with_options(opts: ParseOptions) -> Parser {
        let mut p = Parser::default();
        p.opts = opts;
        p
    }
    /// A parser whose name tables are its own: it adopts none that a parser dropped
    /// earlier on this thread left (see [`Parser::new`]), and leaves its own to no
    /// other parser when it is dropped. The tables are visible through
    /// [`Document::names`](crate::Document::names) (every name a parser has met), so
    /// use it when the names in one party's documents must not show in the tables of
    /// another's. Its first document pays for building the tables from nothing.
    pub fn isolated(opts: ParseOptions) -> Parser {
        let mut p = Parser::with_options(opts);
        p.isolated = true;
        p
    }

    /// The options in use.
    pub fn options(&self) -> &ParseOptions {
        &self.opts
    }

    /// This parser, matching each message against the templates of `cache` before
    /// parsing it, and teaching the cache the structures it parses in full (see
    /// [`TemplateCache`](crate::TemplateCache)). A document from a template is the
    /// document a full parse gives; a message no template matches is parsed in full,
    /// with the same result or error. The cache may be shared by many parsers and threads.
    ///
    /// ```
    /// use std::sync::Arc;
    /// let cache = Arc::new(vtdx_core::TemplateCache::new());
    /// let mut parser = vtdx_core::Parser::new().with_template_cache(cache.clone());
    /// for v in ["1", "22", "333"] {
    ///     let msg = format!("<m><v>{v}</v></m>");
    ///     assert_eq!(parser.parse(msg.as_bytes()).unwrap().root_element().first_element_child().unwrap().text().unwrap(), v);
    /// }
    /// assert_eq!(cache.stats().hits, 1);
    /// ```
    pub fn with_template_cache(mut self, cache: std::sync::Arc<crate::template::TemplateCache>) -> Parser {
        self.template_cache = Some(cache);
        self
    }

    /// Sets or removes the template cache ([`Parser::with_template_cache`]).
    pub fn set_template_cache(&mut self, cache: Option<std::sync::Arc<crate::template::TemplateCache>>) {
        self.template_cache = cache;
    }

    /// The template cache in use, if any.
    pub fn template_cache(&self) -> Option<&std::sync::Arc<crate::template::TemplateCache>> {
        self.template_cache.as_ref()
    }

    /// Parses `input`, reusing this parser's allocations.
    pub fn parse<'a>(&mut self, input: &'a [u8]) -> Result<Document<'a>, Error> {
        self.parse_bytes(Bytes::Borrowed(input))
    }

    /// Parses an owned buffer; the document owns it.
    pub fn parse_owned(&mut self, input: Vec<u8>) -> Result<Document<'static>, Error> {
        self.parse_bytes(Bytes::Owned(input))
    }

    /// Reads a file into memory and parses it (the document owns the bytes). The
    /// outer `Result` is the I/O error. See [`Parser::parse_file_mmap`] for the
    /// variant that maps the file instead of copying it.
    pub fn parse_file(&mut self, path: &std::path::Path) -> std::io::Result<Result<Document<'static>, Error>> {
        let bytes = std::fs::read(path)?;
        Ok(self.parse_owned(bytes))
    }

    /// Memory-maps a file read-only and parses it, without copying it. The outer
    /// `Result` is the I/O error.
    ///
    /// # Safety
    ///
    /// The document's text *is* the mapped file, so the file must not be modified or
    /// truncated, by this process or another, while the document (or anything
    /// borrowed from it) is alive. Nothing can enforce that on Linux (there is no
    /// mandatory locking): a change would make the index describe other bytes, which
    /// breaks the invariants the safe API relies on, and a truncation ends the process
    /// with `SIGBUS` when the lost pages are read. Use [`Parser::parse_file`] for files
    /// that other programs may be writing.
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub unsafe fn parse_file_mmap(&mut self, path: &std::path::Path) -> std::io::Result<Result<Document<'static>, Error>> {
        let f = std::fs::File::open(path)?;
        // Empty files cannot be mapped on every OS.
        if f.metadata()?.len() == 0 {
            return Ok(self.parse_bytes(Bytes::Owned(Vec::new())));
        }
        // SAFETY: `Mmap::map` requires that the file is not modified while mapped; that
        // is exactly this function's own precondition, passed on to the caller. The
        // mapping is read-only, so nothing here writes through it.
        let m = unsafe { memmap2::Mmap::map(&f)? };
        Ok(self.parse_bytes(Bytes::Mapped(m)))
    }

    /// Takes back a document's allocations for the next parse. From then on the
    /// parser's documents keep their index's spare capacity (the parser expects
    /// them back), where otherwise a document gives back any spare above an
    /// eighth of its index.
    pub fn recycle(&mut self, doc: Document<'_>) {
        self.recycling = true;
        if doc.tape.capacity() > self.tape_pool.capacity() {
            self.tape_pool = doc.tape;
        }
        // dropping the document releases its share of the name tables, so the next
        // parse extends them in place
        drop(doc.names);
    }

    /// Checks that `input` is well-formed XML (and namespace-well-formed unless the
    /// options turn namespaces off), under this parser's options and limits: the
    /// verdict and the error [`Parser::parse`] gives, without a document. What a
    /// check saves is the index's assembly: the two halves of a large input, parsed on
    /// two threads, are checked against each other but not joined into one index.
    /// A parser with a template cache parses in full (and teaches the cache).
    ///
    /// ```
    /// let mut parser = vtdx_core::Parser::new();
    /// assert!(parser.check(b"<a><b/></a>").is_ok());
    /// // the error `parse` gives, at the same place
    /// let (e, p) = (parser.check(b"<a><b></a>").unwrap_err(), parser.parse(b"<a><b></a>").unwrap_err());
    /// assert_eq!((e.kind(), e.offset(), e.line(), e.column()), (p.kind(), p.offset(), p.line(), p.column()));
    /// ```
    pub fn check(&mut self, input: &[u8]) -> Result<(), Error> {
        self.check_bytes(Bytes::Borrowed(input))
    }

    /// [`Parser::check`] of a memory-mapped file (see [`Parser::parse_file_mmap`]).
    /// The outer `Result` is the I/O error.
    ///
    /// # Safety
    ///
    /// As for [`Parser::parse_file_mmap`]: the file must not be modified or truncated
    /// while the check runs.
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub unsafe fn check_file_mmap(&mut self, path: &std::path::Path) -> std::io::Result<Result<(), Error>> {
        let f = std::fs::File::open(path)?;
        if f.metadata()?.len() == 0 {
            return Ok(self.check(b""));
        }
        // SAFETY: as in `parse_file_mmap`: the file unchanged while mapped is this
        // function's own precondition; the mapping is read-only.
        let m = unsafe { memmap2::Mmap::map(&f)? };
        Ok(self.check_bytes(Bytes::Mapped(m)))
    }

    fn check_bytes(&mut self, source: Bytes<'_>) -> Result<(), Error> {
        if self.template_cache.is_some() {
            return self.parse_bytes(source).map(drop);
        }
        self.st.check_only = true;
        let r = self.parse_full(source);
        self.st.check_only = false;
        let doc = r?;
        // the index is incomplete (see `split.rs`): only its allocation is kept
        if doc.tape.capacity() > self.tape_pool.capacity() {
            self.tape_pool = doc.tape;
        }
        Ok(())
    }

    /// Decodes `source` and scans it into a document.
    fn parse_bytes<'a>(&mut self, source: Bytes<'a>) -> Result<Document<'a>, Error> {
        // (a check that panicked must not leave its mark on the next parse)
        self.st.check_only = false;
        let Some(cache) = self.template_cache.clone() else { return self.parse_full(source) };
        let (source, miss) = match cache.lookup(source, &self.opts, &mut self.tape_pool) {
            Ok(doc) => return Ok(doc),
            Err(miss) => miss,
        };
        let doc = self.parse_full(source)?;
        cache.observe(&doc, miss);
        Ok(doc)
    }

    /// Decodes `source` and scans it into a document (no template cache).
    fn parse_full<'a>(&mut self, source: Bytes<'a>) -> Result<Document<'a>, Error> {
        let parallel = self.opts.parallel_check && source.len() >= super::split::parallel_min(crate::options::PARALLEL_CHECK_MIN_BYTES);
        let (decoded, deferred) = input::decode_deferring(&source, parallel)?;
        let encoding = decoded.encoding.clone();
        let (text, parsed) = match decoded.text {
            Cow::Borrowed(t) => {
                let off = t.as_ptr() as usize - source.as_ptr() as usize;
                let parsed = if !deferred {
                    self.run(t)
                } else if self.opts.parallel_parse && t.len() >= super::split::parallel_min(crate::options::PARALLEL_PARSE_MIN_BYTES) {
                    self.run_checking_halves(t, off)?
                } else {
                    self.run_while_checking(t, off)?
                };
                // Offsets in errors count the byte-order mark: they are input offsets.
                let parsed = parsed.map_err(|e| Error::with_position(e.kind().clone(), e.offset() + off as u64, e.line(), e.column()))?;
                (Text::Source(off), parsed)
            }
            Cow::Owned(v) => {
                let parsed = self.run(&v)?;
                (Text::Owned(v), parsed)
            }
        };
        let text = match parsed.expanded {
            Some(v) => Text::Owned(v),
            None => text,
        };
        let expansions = parsed.regions;
        // the parser keeps its share: the next parse extends the tables in place
        // once this document is gone
        let names = self.names_pool.clone().unwrap_or_default();
        let mut tape = parsed.tape;
        if !self.recycling && !self.st.check_only {
            release_spare(&mut tape);
        }
        Ok(Document {
            source,
            text,
            tape,
            names,
            dtd: parsed.dtd,
            decl: parsed.decl,
            decl_read: std::sync::OnceLock::new(),
            encoding,
            root: parsed.root,
            opts: self.opts.clone(),
            expansions,
        })
    }

    /// [`Parser::run`] on a second thread while this one checks UTF-8 and `Char` over
    /// `text` (`bom_len` bytes into the input), the check that decoding deferred. A
    /// failed check is the outer error and wins over whatever the parse found (it
    /// would have run first); the parse of unchecked text is then thrown away, even
    /// if it panicked. Only a panic on checked text is passed on.
    fn run_while_checking(&mut self, text: &[u8], bom_len: usize) -> Result<Result<Parsed, Error>, Error> {
        let (checked, parsed) = std::thread::scope(|s| {
            let parse = s.spawn(|| self.run(text));
            let checked = input::check_deferred(text, bom_len);
            (checked, parse.join())
        });
        checked?;
        Ok(parsed.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    }

    /// [`Parser::run`] on text whose UTF-8 and `Char` check decoding deferred, to be
    /// made by the run: on both threads of a split parse, each over its half, else
    /// before the document element (see `split.rs`). As [`Parser::run_while_checking`],
    /// a failed check is the outer error.
    fn run_checking_halves(&mut self, text: &[u8], bom_len: usize) -> Result<Result<Parsed, Error>, Error> {
        self.st.check_pending = Some(bom_len);
        self.st.check_error = None;
        // this thread parses text not yet checked (the prolog, the start of the
        // first half): a panic there is thrown away if the check fails, as on the
        // thread of `run_while_checking`
        let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.run(text)));
        let pending = self.st.check_pending.take();
        if let Some(e) = self.st.check_error.take() {
            return Err(e);
        }
        match parsed {
            Ok(parsed) => {
                if pending.is_some() {
                    // the parse stopped before the check was made (an error in the prolog)
                    input::check_deferred(text, bom_len)?;
                }
                Ok(parsed)
            }
            Err(panic) => {
                input::check_deferred(text, bom_len)?;
                std::panic::resume_unwind(panic)
            }
        }
    }

    pub(crate) fn run(&mut self, text: &[u8]) -> Result<Parsed, Error> {
        let limits = &self.opts.limits;
        if text.len() as u64 > limits.max_document_size {
            return Err(Error::at(
                ErrorKind::LimitExceeded { limit: LimitKind::DocumentSize, value: text.len() as u64, max: limits.max_document_size },
                text,
                0,
            ));
        }
        if text.len() > u32::MAX as usize - 1 {
            return Err(Error::at(
                ErrorKind::LimitExceeded { limit: LimitKind::DocumentSize, value: text.len() as u64, max: u32::MAX as u64 - 1 },
                text,
                0,
            ));
        }
        self.reserve_tape(text.len());
        let tape = std::mem::take(&mut self.tape_pool);
        let first = match self.run_once(text, tape, false) {
            Err(_) if self.st.split_retry && self.st.check_error.is_none() => {
                // the first half of a split parse failed: the error may be the cut's
                let tape = std::mem::take(&mut self.tape_pool);
                self.run_once(text, tape, false)?
            }
            r => r?,
        };
        if self.st.markup_refs.is_empty() {
            return Ok(first);
        }
        // Entities with markup are referenced in content: index the expanded text.
        let mut regions = Vec::new();
        let expanded = self.expand(text, &first, &mut regions)?;
        let tape = first.tape;
        let mut second = self.run_once(&expanded, tape, true).map_err(|e| {
            // report the position in the input: inside an expansion, at its reference
            let o = e.offset() as usize;
            let mut delta: isize = 0;
            let mut at = None;
            for r in &regions {
                let (os, oe, xs, xe) = (r.reference.start, r.reference.end, r.expansion.start, r.expansion.end);
                if o < xs {
                    break;
                }
                if o < xe {
                    at = Some(os);
                    break;
                }
                delta += (xe - xs) as isize - (oe - os) as isize;
            }
            let orig = at.unwrap_or_else(|| (o as isize - delta).max(0) as usize).min(text.len());
            Error::at(e.kind().clone(), text, orig)
        })?;
        second.expanded = Some(expanded);
        second.regions = regions;
        Ok(second)
    }

    /// Makes the pooled tape ready for a text of `len` bytes: empty, with room for
    /// typical documents (about one word per 5 input bytes).
    fn reserve_tape(&mut self, len: usize) {
        reserve_tape_for(&mut self.tape_pool, len);
    }

    /// The parser's name tables, to be extended in place by the next parse. While a
    /// document made earlier still shares them, the parse gets a copy of them while
    /// they are small (cheaper than interning every name again), else new tables; so
    /// does a parse after tables have grown too large to keep.
    fn names_for_parse(pool: &mut Option<std::sync::Arc<Names>>, isolated: bool) -> &mut Names {
        let adopt = || if isolated { None } else { SPARE_NAMES.try_with(std::cell::Cell::take).ok().flatten() };
        let arc = pool.get_or_insert_with(|| adopt().unwrap_or_default());
        let shared = std::sync::Arc::get_mut(arc).is_none();
        if (shared && arc.qnames.len() > 256) || arc.too_large_to_keep() {
            if let Some(names) = std::sync::Arc::get_mut(arc) {
                names.reset();
            } else {
                *arc = std::sync::Arc::default();
            }
        }
        std::sync::Arc::make_mut(arc)
    }

    fn run_once(&mut self, text: &[u8], tape: Vec<u32>, expanded: bool) -> Result<Parsed, Error> {
        let names = Self::names_for_parse(&mut self.names_pool, self.isolated);
        let st = &mut self.st;
        // a first half that failed: this time in one pass
        st.split = super::split::SplitState { off: std::mem::take(&mut st.split_retry), ..Default::default() };
        st.stack.clear();
        st.bindings.clear();
        st.attrs.clear();
        if st.stack.capacity() == 0 {
            // a new parser: room for a message's nesting, bindings and attributes in one
            // allocation each (growing push by push cost a new parser about 550
            // instructions on a 2 KB SOAP message)
            st.stack.reserve(32);
            st.bindings.reserve(16);
            st.attrs.reserve(16);
        }
        st.entities.clear();
        st.recent_entities.clear();
        st.markup_refs.clear();
        if !st.defaults.is_empty() {
            clear_default_marks(names, st);
        }
        // interned first by `Names::reset`
        let (q_xml, q_xmlns) = (crate::names::Q_XML, crate::names::Q_XMLNS);
        let mut tape = tape;
        tape.clear();
        let mut run = Run {
            opts: &self.opts,
            st,
            tape,
            names,
            dtd: None,
            budget: ExpansionBudget::new(&self.opts, text.len()),
            ns_on: self.opts.namespaces,
            q_xml,
            q_xmlns,
            fragment_depth: 0,
            expanded,
            lean: true,
        };
        match run.document(text) {
            Ok((decl, root)) => Ok(Parsed { tape: run.tape, dtd: run.dtd, decl, root, expanded: None, regions: Vec::new() }),
            Err(e) => {
                // what was interned stays in the tables; keep the tape allocation too
                self.tape_pool = run.tape;
                Err(e)
            }
        }
    }
}

/// Empties `tape` and gives it room for the index of `len` bytes of text (about one
/// word per 5 bytes), backed by huge pages when a new allocation is large.
pub(super) fn reserve_tape_for(tape: &mut Vec<u32>, len: usize) {
    tape.clear();
    let had = tape.capacity();
    tape.reserve(len / 5 + 16);
    #[cfg(all(feature = "mmap", target_os = "linux"))]
    if tape.capacity() != had {
        crate::hugepage::advise_huge(tape);
    }
}

/// Gives back the tape's spare capacity when it is more than an eighth of what
/// is used and more than 4 KiB: the parser reserves for dense documents (a word
/// per 5 input bytes; typical documents use a word per 8), and a document that is
/// kept should hold only its index. Small documents keep their few spare bytes
/// (a shrink would cost more than it saves). A large allocation shrinks in place.
fn release_spare(tape: &mut Vec<u32>) {
    let spare = tape.capacity() - tape.len();
    if spare * 4 > 4096 && spare > tape.len() / 8 {
        tape.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The qualified name `name`'s QName-check state in `names`.
    fn qname_state(names: &Names, name: &str) -> Option<u8> {
        (0..names.qnames.len()).find(|&i| names.qname_text(crate::names::QNameId::new(i as u32)) == name).map(|i| names.qnames[i].qname_ok)
    }

    #[test]
    fn a_new_parser_adopts_the_tables_a_dropped_one_left() {
        std::thread::spawn(|| {
            let mut first = Parser::new();
            let doc = first.parse(b"<m><alpha/><beta x='1'/></m>").unwrap();
            let alpha = doc.names().sym_count();
            drop(doc);
            drop(first);
            // the second parser meets `alpha` and `beta` as known names: its new name `gamma`
            // comes after them, and every name of its document reads as written
            let mut second = Parser::new();
            let doc = second.parse(b"<m><gamma/><alpha/></m>").unwrap();
            let n = doc.names();
            assert_eq!(n.sym_count(), alpha + 1);
            let first = doc.root_element().first_element_child().unwrap();
            let names = [first.name(), first.next_element_sibling().unwrap().name()];
            assert_eq!(names, ["gamma", "alpha"]);
            // a document still alive keeps its tables: the next parser's document gets its own copy
            let mut third = Parser::new();
            drop(second);
            let other = third.parse(b"<z/>").unwrap();
            assert_eq!(doc.root_element().name(), "m");
            assert_eq!(other.root_element().name(), "z");
            drop((doc, other, third));
            // an isolated parser neither adopts tables nor leaves its own
            let mut own = Parser::isolated(ParseOptions::default());
            let doc = own.parse(b"<m><own/></m>").unwrap();
            assert_eq!(doc.names().sym_count(), 2);
            drop((doc, own));
            let mut next = Parser::new();
            let doc = next.parse(b"<delta/>").unwrap();
            let known = |local: &str| !doc.names().syms_matching(None, Some(local)).is_empty();
            assert!(known("alpha") && known("z") && !known("own"), "next adopts the tables third left, not the isolated parser's");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn adopted_tables_carry_no_marks_for_attribute_defaults() {
        std::thread::spawn(|| {
            let mut first = Parser::new();
            let doc = first.parse(b"<!DOCTYPE d [<!ATTLIST e a CDATA 'v'>]><d><e/></d>").unwrap();
            assert_eq!(qname_state(doc.names(), "e"), Some(QNAME_OK_WITH_DEFAULTS));
            drop(doc);
            drop(first);
            let mut second = Parser::new();
            let names = Parser::names_for_parse(&mut second.names_pool, false);
            assert_eq!(qname_state(names, "e"), Some(1));
        })
        .join()
        .unwrap();
    }
}
