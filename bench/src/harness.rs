//! The measurement loop and the result format shared by the side-by-side harness
//! (`bench/run`, `src/bin/rust_peers.rs`). The C, C++, Python and Java peers in
//! `bench/peers/` implement the same loop and print the same JSON lines; keep them
//! in step when this changes.
//!
//! One *operation* is one complete job on one document (e.g. parse `po_big.xml`).
//! The loop:
//!
//! 1. warm-up: run the operation for `warmup` (at least once) and estimate its cost;
//! 2. pick a batch size so that one timed sample lasts about [`SAMPLE_TARGET_NS`]
//!    (1 for anything slower than that), so the clock read costs nothing measurable;
//! 3. time samples with a monotonic clock until both `min_samples` samples and
//!    `min_time` are reached, or `max_time` has passed (with at least 3 samples);
//! 4. report the median time per operation over the samples.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// A timed sample lasts about this long (50 µs) when one operation is shorter.
pub const SAMPLE_TARGET_NS: f64 = 50_000.0;

/// How long and how often to measure one (peer, workload, document) cell.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    pub warmup: Duration,
    pub min_time: Duration,
    pub max_time: Duration,
    pub min_samples: usize,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            warmup: Duration::from_millis(200),
            min_time: Duration::from_millis(500),
            max_time: Duration::from_millis(3000),
            min_samples: 15,
        }
    }
}

/// The outcome of [`measure`]: nanoseconds per operation.
#[derive(Clone, Copy, Debug)]
pub struct Stats {
    pub median_ns: f64,
    pub min_ns: f64,
    pub p90_ns: f64,
    /// Operations timed (samples × batch), not counting the warm-up.
    pub iters: u64,
    pub samples: usize,
    pub batch: u64,
}

/// Runs `op` under `policy` and returns the per-operation statistics.
pub fn measure(policy: &Policy, mut op: impl FnMut()) -> Stats {
    let t0 = Instant::now();
    let mut n = 0u64;
    loop {
        op();
        n += 1;
        if t0.elapsed() >= policy.warmup {
            break;
        }
    }
    let per_op = t0.elapsed().as_nanos() as f64 / n as f64;
    let batch = ((SAMPLE_TARGET_NS / per_op.max(1.0)).ceil() as u64).max(1);
    let mut samples: Vec<f64> = Vec::new();
    let start = Instant::now();
    loop {
        let s = Instant::now();
        for _ in 0..batch {
            op();
        }
        samples.push(s.elapsed().as_nanos() as f64 / batch as f64);
        let el = start.elapsed();
        if (samples.len() >= policy.min_samples && el >= policy.min_time) || (el >= policy.max_time && samples.len() >= 3) {
            break;
        }
    }
    samples.sort_by(|a, b| a.total_cmp(b));
    let k = samples.len();
    let median_ns = if k % 2 == 1 { samples[k / 2] } else { (samples[k / 2 - 1] + samples[k / 2]) / 2.0 };
    Stats {
        median_ns,
        min_ns: samples[0],
        p90_ns: samples[((k as f64 * 0.9) as usize).min(k - 1)],
        iters: k as u64 * batch,
        samples: k,
        batch,
    }
}

/// Command-line options every peer program takes:
/// `PROGRAM WORKLOAD [--peers a,b] [--warmup-ms N] [--min-ms N] [--max-ms N]
/// [--min-samples N] [--workload-warmup-ms N] FILE...`
#[derive(Clone, Debug)]
pub struct Args {
    pub workload: String,
    pub peers: Option<Vec<String>>,
    pub policy: Policy,
    /// Warm-up over all the files before the first measurement (the JVM peers need it; native ones take 0).
    pub workload_warmup: Duration,
    pub files: Vec<String>,
}

impl Args {
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
        let mut it = args.into_iter();
        let workload = it.next().ok_or("usage: PROGRAM WORKLOAD [options] FILE...")?;
        let mut a = Args { workload, peers: None, policy: Policy::default(), workload_warmup: Duration::ZERO, files: Vec::new() };
        while let Some(x) = it.next() {
            let mut num = |name: &str| -> Result<u64, String> {
                it.next().and_then(|v| v.parse().ok()).ok_or_else(|| format!("{name} needs a number"))
            };
            match x.as_str() {
                "--peers" => a.peers = Some(it.next().ok_or("--peers needs a list")?.split(',').map(String::from).collect()),
                "--warmup-ms" => a.policy.warmup = Duration::from_millis(num(&x)?),
                "--min-ms" => a.policy.min_time = Duration::from_millis(num(&x)?),
                "--max-ms" => a.policy.max_time = Duration::from_millis(num(&x)?),
                "--min-samples" => a.policy.min_samples = num(&x)?.max(1) as usize,
                "--workload-warmup-ms" => a.workload_warmup = Duration::from_millis(num(&x)?),
                _ if x.starts_with("--") => return Err(format!("unknown option {x}")),
                _ => a.files.push(x),
            }
        }
        Ok(a)
    }

    /// Whether `peer` was asked for (all peers when `--peers` is absent).
    pub fn wants(&self, peer: &str) -> bool {
        self.peers.as_ref().is_none_or(|p| p.iter().any(|x| x == peer))
    }
}

/// One JSON result line under construction.
pub struct Line(String);

impl Line {
    pub fn new(peer: &str, workload: &str, file: &str) -> Line {
        let mut l = Line(String::from("{"));
        l.str("peer", peer).str("workload", workload).str("file", file);
        l
    }
    fn key(&mut self, k: &str) {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        let _ = write!(self.0, "\"{k}\":");
    }
    pub fn str(&mut self, k: &str, v: &str) -> &mut Line {
        self.key(k);
        self.0.push('"');
        for c in v.chars() {
            match c {
                '"' => self.0.push_str("\\\""),
                '\\' => self.0.push_str("\\\\"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(self.0, "\\u{:04x}", c as u32);
                }
                c => self.0.push(c),
            }
        }
        self.0.push('"');
        self
    }
    pub fn int(&mut self, k: &str, v: u64) -> &mut Line {
        self.key(k);
        let _ = write!(self.0, "{v}");
        self
    }
    pub fn num(&mut self, k: &str, v: f64) -> &mut Line {
        self.key(k);
        if v.is_finite() {
            let _ = write!(self.0, "{v:.3}");
        } else {
            self.0.push_str("null");
        }
        self
    }
    pub fn bool(&mut self, k: &str, v: bool) -> &mut Line {
        self.key(k);
        self.0.push_str(if v { "true" } else { "false" });
        self
    }
    /// Adds the timing fields and MB/s (10^6 bytes per second) for `bytes` per operation.
    pub fn stats(&mut self, s: &Stats, bytes: u64) -> &mut Line {
        self.str("status", "ok")
            .num("median_ns", s.median_ns)
            .num("min_ns", s.min_ns)
            .num("p90_ns", s.p90_ns)
            .int("iters", s.iters)
            .int("samples", s.samples as u64)
            .int("batch", s.batch)
            .int("bytes", bytes)
            .num("mbps", bytes as f64 * 1e3 / s.median_ns)
    }
    /// Prints the line to stdout.
    pub fn emit(&mut self) {
        self.0.push('}');
        println!("{}", self.0);
    }
}

/// Prints a line saying `peer` cannot do `workload` on `file`: `status` is
/// `"skip"` (the peer has no way to do this job) or `"rejected"` (it refused the document).
pub fn emit_blank(peer: &str, workload: &str, file: &str, status: &str, reason: &str) {
    Line::new(peer, workload, file).str("status", status).str("reason", reason).emit();
}

/// Peak resident set size of this process so far (`VmHWM`), in bytes.
pub fn peak_rss() -> u64 {
    proc_status_kb("VmHWM:") * 1024
}

/// Current resident set size (`VmRSS`), in bytes.
pub fn current_rss() -> u64 {
    proc_status_kb("VmRSS:") * 1024
}

fn proc_status_kb(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines().find(|l| l.starts_with(key)).and_then(|l| l[key.len()..].trim().trim_end_matches("kB").trim().parse().ok()).unwrap_or(0)
}

/// Splits a message bundle (the many-small-messages workload: messages separated by
/// a NUL byte, which XML cannot contain) and copies each message into a buffer of its own.
pub fn split_bundle(bundle: &[u8]) -> Vec<Vec<u8>> {
    bundle.split(|&b| b == 0).filter(|m| !m.is_empty()).map(|m| m.to_vec()).collect()
}

/// CRC-32 (IEEE 802.3, the one of zlib and `zlib.crc32`) of `data`: the c14n workload's
/// cross-check of canonical outputs (with their length) between the peer programs.
pub fn crc32(data: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut t = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    };
    let mut c = !0u32;
    for &b in data {
        c = TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}
