//! Digests hashed on a helper thread while this thread canonicalizes: the
//! canonical bytes of a large Reference are handed over in chunks, and the
//! helper hashes them as they come, so canonicalization and hash overlap
//! instead of adding up (they are about the same work for a large Body: the
//! hash runs at about 1.8 GB/s with the SHA extensions, Exclusive C14N of an
//! attribute-heavy Body at about 1.2 GB/s).
//!
//! Each thread that streams a digest this way gets one helper thread, started
//! the first time and parked between streams (starting a thread per message
//! costs 20–100 µs, more than a 111 KB Body's hash saves). This thread never
//! waits for the helper: the helper hashes each chunk into a *copy* of the
//! digest context as it stood before the chunk (its checkpoint) and publishes
//! the result as the next checkpoint, dropping the chunk, only if this thread
//! has not taken the work back meanwhile. This thread takes it back — the
//! checkpoint and every chunk not yet through — at the end of the stream, and
//! whenever the helper has fallen three chunks behind (no core to spare: the
//! machine is busy), and hashes those chunks itself. So the digest is always of
//! the bytes in order, and at worst the work is done here, as without a helper,
//! plus the copies.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::crypto::DigestContext;

/// The least size (bytes as written) of a Reference's subtree worth handing
/// over; a smaller one (a Timestamp) is hashed here.
pub(crate) const STREAM_MIN_BYTES: usize = 32 << 10;

/// Canonical bytes per hand-over: small enough that the hash starts early and
/// the last chunk, hashed here after the canonicalization ends, is short (about
/// 9 µs of SHA-256), large enough that the hand-overs cost little.
pub(crate) const CHUNK: usize = 16 << 10;

/// Chunks waiting for the helper at which this thread takes the work back.
const BEHIND: usize = 3;

/// How long the helper looks for the next chunk before it sleeps: a little
/// more than canonicalizing one chunk takes, so that within a stream it is not
/// put to sleep and woken for every chunk (a wake-up costs this thread a system
/// call, and on a virtual machine a few microseconds).
const SPIN: Duration = Duration::from_micros(40);

/// What this thread and its helper share.
struct Shared {
    state: Mutex<State>,
    /// With `state`: the helper waits here for chunks.
    more: Condvar,
    /// `state.chunks.len()`, read without the lock by the spinning helper.
    pending: AtomicUsize,
    /// The helper waits on `more` (set and cleared under the lock): a hand-over
    /// wakes it; else it is spinning or hashing and needs no call.
    asleep: AtomicBool,
}

#[derive(Default)]
struct State {
    /// Bumped whenever this thread takes the work back (and for each stream):
    /// a helper's result for an older generation is dropped.
    generation: u64,
    /// The digest of the stream's bytes before `chunks[0]`; `None` while this
    /// thread holds it.
    checkpoint: Option<Box<dyn DigestContext>>,
    /// The stream's chunks not yet through the digest, in order.
    chunks: VecDeque<Arc<Vec<u8>>>,
    /// Hashed chunks' buffers, for reuse.
    spare: Vec<Vec<u8>>,
    /// The owning thread has ended: the helper ends too.
    quit: bool,
}

/// A lock, whatever a panic elsewhere left poisoned (every update of the state
/// is made whole under the lock).
fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    fn set_pending(&self, st: &State) {
        self.pending.store(st.chunks.len(), Ordering::Relaxed);
    }

    /// Takes the checkpoint and the waiting chunks back, with the helper's
    /// work on them void, and hashes the chunks here: the digest of the stream so far.
    fn take_back(&self) -> Option<Box<dyn DigestContext>> {
        let (ctx, chunks) = {
            let mut st = lock(&self.state);
            st.generation += 1;
            let chunks = std::mem::take(&mut st.chunks);
            self.set_pending(&st);
            (st.checkpoint.take(), chunks)
        };
        let mut ctx = ctx?;
        let mut spare = Vec::new();
        for b in chunks {
            // a digest context's `write_all` does not fail
            let _ = ctx.write_all(&b);
            if let Ok(v) = Arc::try_unwrap(b) {
                spare.push(v);
            }
        }
        lock(&self.state).spare.append(&mut spare);
        Some(ctx)
    }
}

/// The helper thread's loop.
fn helper(s: Arc<Shared>) {
    loop {
        let t = Instant::now();
        'spin: while s.pending.load(Ordering::Relaxed) == 0 {
            for _ in 0..64 {
                std::hint::spin_loop();
                if s.pending.load(Ordering::Relaxed) != 0 {
                    break 'spin;
                }
            }
            if t.elapsed() >= SPIN {
                break;
            }
        }
        let (generation, mut ctx, chunk) = {
            let mut st = lock(&s.state);
            loop {
                if st.quit {
                    return;
                }
                if let (Some(c), Some(b)) = (&st.checkpoint, st.chunks.front()) {
                    if let Some(copy) = c.try_clone() {
                        break (st.generation, copy, Arc::clone(b));
                    }
                }
                s.asleep.store(true, Ordering::Relaxed);
                st = s.more.wait(st).unwrap_or_else(|e| e.into_inner());
                s.asleep.store(false, Ordering::Relaxed);
            }
        };
        let _ = ctx.write_all(&chunk);
        let mut st = lock(&s.state);
        if st.generation == generation {
            st.checkpoint = Some(ctx);
            st.chunks.pop_front();
            s.set_pending(&st);
            if let Ok(v) = Arc::try_unwrap(chunk) {
                st.spare.push(v);
            }
        }
    }
}

/// This thread's helper (when it could be started), told to end with the thread.
struct Helper(Option<Arc<Shared>>);

impl Drop for Helper {
    fn drop(&mut self) {
        if let Some(s) = &self.0 {
            lock(&s.state).quit = true;
            s.more.notify_one();
        }
    }
}

thread_local! {
    static HELPER: Helper = Helper(start());
}

fn start() -> Option<Arc<Shared>> {
    let s = Arc::new(Shared {
        state: Mutex::new(State::default()),
        more: Condvar::new(),
        pending: AtomicUsize::new(0),
        asleep: AtomicBool::new(false),
    });
    let h = Arc::clone(&s);
    std::thread::Builder::new().name("vtdx-dsig-hash".into()).spawn(move || helper(h)).ok()?;
    Some(s)
}

/// A stream whose digest `ctx` this thread's helper hashes as the bytes come;
/// `Err(ctx)` when there is no helper (it could not be started) or `ctx`
/// cannot be copied.
pub(crate) fn stream(ctx: Box<dyn DigestContext>) -> Result<Stream, Box<dyn DigestContext>> {
    if ctx.try_clone().is_none() {
        return Err(ctx);
    }
    let Some(s) = HELPER.try_with(|h| h.0.clone()).ok().flatten() else { return Err(ctx) };
    let cur = {
        let mut st = lock(&s.state);
        st.generation += 1;
        st.checkpoint = Some(ctx);
        st.chunks.clear();
        s.set_pending(&st);
        st.spare.pop()
    };
    let mut cur = cur.unwrap_or_else(|| Vec::with_capacity(CHUNK + CHUNK / 2));
    cur.clear();
    Ok(Stream { s, cur })
}

/// The bytes of one digest, handed over in chunks of [`CHUNK`] bytes.
pub(crate) struct Stream {
    s: Arc<Shared>,
    cur: Vec<u8>,
}

impl Stream {
    fn hand_over(&mut self) {
        let (behind, asleep) = {
            let mut st = lock(&self.s.state);
            let next = st.spare.pop().unwrap_or_else(|| Vec::with_capacity(CHUNK + CHUNK / 2));
            let full = std::mem::replace(&mut self.cur, next);
            st.chunks.push_back(Arc::new(full));
            self.s.set_pending(&st);
            (st.chunks.len(), self.s.asleep.load(Ordering::Relaxed))
        };
        self.cur.clear();
        if asleep {
            self.s.more.notify_one();
        }
        if behind >= BEHIND {
            // the helper is not keeping up: catch up here, then let it go on
            if let Some(ctx) = self.s.take_back() {
                let mut st = lock(&self.s.state);
                st.checkpoint = Some(ctx);
            }
        }
    }

    /// The digest of everything written.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        if !self.cur.is_empty() {
            let last = std::mem::take(&mut self.cur);
            let mut st = lock(&self.s.state);
            st.chunks.push_back(Arc::new(last));
        }
        self.s.take_back().map(|c| c.finish()).unwrap_or_default()
    }
}

impl Drop for Stream {
    /// Ends the stream (given up when its canonicalization failed): nothing
    /// of it reaches the next one.
    fn drop(&mut self) {
        let mut st = lock(&self.s.state);
        st.generation += 1;
        st.checkpoint = None;
        st.chunks.clear();
        self.s.set_pending(&st);
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, mut buf: &[u8]) -> io::Result<()> {
        while !buf.is_empty() {
            let n = (CHUNK - self.cur.len()).min(buf.len());
            self.cur.extend_from_slice(&buf[..n]);
            buf = &buf[n..];
            if self.cur.len() == CHUNK {
                self.hand_over();
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alg::DigestAlgorithm;
    use crate::crypto::{AwsLcProvider, CryptoProvider};

    fn direct(data: &[u8], alg: DigestAlgorithm) -> Vec<u8> {
        let d = match alg {
            DigestAlgorithm::Sha512 => &aws_lc_rs::digest::SHA512,
            _ => &aws_lc_rs::digest::SHA256,
        };
        aws_lc_rs::digest::digest(d, data).as_ref().to_vec()
    }

    fn piped(pieces: &[&[u8]], alg: DigestAlgorithm, pause: bool) -> Vec<u8> {
        let ctx = AwsLcProvider.digest(alg).unwrap();
        let Ok(mut w) = stream(ctx) else { panic!("no helper thread") };
        for p in pieces {
            w.write_all(p).unwrap();
            if pause {
                // the helper goes to sleep between chunks and is woken by the next one
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        w.finish()
    }

    /// The helper's digest is aws-lc's one-shot digest of the same bytes, however
    /// they are written: nothing, less than a chunk, byte runs that straddle chunks,
    /// one write of many chunks, with the helper kept busy or put to sleep.
    #[test]
    fn digest_is_the_bytes_in_order() {
        let data: Vec<u8> = (0..5 * CHUNK + 123).map(|i| (i * 31 % 251) as u8).collect();
        for alg in [DigestAlgorithm::Sha256, DigestAlgorithm::Sha512] {
            assert_eq!(piped(&[], alg, false), direct(b"", alg));
            assert_eq!(piped(&[&data[..100]], alg, false), direct(&data[..100], alg));
            assert_eq!(piped(&[&data], alg, false), direct(&data, alg));
            let runs: Vec<&[u8]> = data.chunks(CHUNK / 3 + 7).collect();
            assert_eq!(piped(&runs, alg, false), direct(&data, alg));
            assert_eq!(piped(&runs, alg, true), direct(&data, alg));
        }
        // five chunks in one write: the helper is left behind (this thread takes
        // the work back) or keeps up, as the threads happen to run
        let want = direct(&data, DigestAlgorithm::Sha256);
        for _ in 0..200 {
            assert_eq!(piped(&[&data], DigestAlgorithm::Sha256, false), want);
        }
    }

    /// A stream given up halfway (its canonicalization failed) leaves nothing
    /// behind: the next stream's digest is of its own bytes alone.
    #[test]
    fn abandoned_stream_leaves_nothing() {
        let data: Vec<u8> = (0..3 * CHUNK).map(|i| (i % 253) as u8).collect();
        for _ in 0..20 {
            let Ok(mut w) = stream(AwsLcProvider.digest(DigestAlgorithm::Sha256).unwrap()) else { panic!("no helper thread") };
            w.write_all(&data[..2 * CHUNK + 5]).unwrap();
            drop(w);
            assert_eq!(piped(&[&data[7..]], DigestAlgorithm::Sha256, false), direct(&data[7..], DigestAlgorithm::Sha256));
        }
    }

    /// Each thread has its own helper, and several threads stream at once.
    #[test]
    fn threads_stream_at_once() {
        let data: Vec<u8> = (0..4 * CHUNK + 9).map(|i| (i * 7 % 256) as u8).collect();
        let want = direct(&data, DigestAlgorithm::Sha256);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..10 {
                        let runs: Vec<&[u8]> = data.chunks(1000).collect();
                        assert_eq!(piped(&runs, DigestAlgorithm::Sha256, false), want);
                    }
                });
            }
        });
    }
}
