//! [`VerifyConfig`]: the policy of a [`crate::Verifier`], with secure defaults.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::crypto::{AwsLcProvider, CryptoProvider};

/// Verification policy. The defaults are the secure ones; every relaxation
/// is a named builder call.
///
/// | setting | default |
/// |---|---|
/// | SHA-1 (digests and signature methods) | refused |
/// | MD5, XSLT, RetrievalMethod, truncated HMAC, external references | always refused |
/// | smallest RSA modulus | 2048 bits |
/// | transforms per Reference | 5 |
/// | References per SignedInfo | 30 |
/// | Signatures per document | 10 |
/// | XPath 1.0 transform, XPath Filter 2.0 | refused |
/// | a comment between two pieces of signed text | refused |
/// | SOAP rules (no DOCTYPE, one Envelope, one Body, `mustUnderstand`, one Security header per role) | on |
/// | Timestamp freshness (when a Timestamp is present) | checked, clock skew 300 s, now = the system clock |
/// | a signed Timestamp | not required |
/// | a helper thread hashing large References | off |
#[derive(Debug, Clone)]
pub struct VerifyConfig {
    pub(crate) allow_sha1: bool,
    pub(crate) min_rsa_bits: usize,
    pub(crate) max_transforms: usize,
    pub(crate) max_references: usize,
    pub(crate) max_signatures: usize,
    pub(crate) allow_xpath: bool,
    pub(crate) allow_xpath_filter2: bool,
    pub(crate) reject_split_text: bool,
    pub(crate) soap_checks: bool,
    pub(crate) max_clock_skew: Duration,
    pub(crate) now: Option<SystemTime>,
    pub(crate) require_timestamp: bool,
    pub(crate) decrypts_after: bool,
    pub(crate) parallel: bool,
    pub(crate) provider: Arc<dyn CryptoProvider>,
}

impl Default for VerifyConfig {
    fn default() -> Self {
        VerifyConfig {
            allow_sha1: false,
            min_rsa_bits: 2048,
            max_transforms: 5,
            max_references: 30,
            max_signatures: 10,
            allow_xpath: false,
            allow_xpath_filter2: false,
            reject_split_text: true,
            soap_checks: true,
            max_clock_skew: Duration::from_secs(300),
            now: None,
            require_timestamp: false,
            decrypts_after: false,
            parallel: false,
            provider: Arc::new(AwsLcProvider),
        }
    }
}

impl VerifyConfig {
    /// A builder starting from the defaults.
    pub fn builder() -> VerifyConfigBuilder {
        VerifyConfigBuilder(VerifyConfig::default())
    }

    /// Are SHA-1 digests and signature methods accepted?
    pub fn allows_sha1(&self) -> bool {
        self.allow_sha1
    }
    /// The smallest RSA modulus accepted, in bits.
    pub fn min_rsa_bits(&self) -> usize {
        self.min_rsa_bits
    }
    /// The most transforms one Reference may have.
    pub fn max_transforms(&self) -> usize {
        self.max_transforms
    }
    /// The most References one SignedInfo may have.
    pub fn max_references(&self) -> usize {
        self.max_references
    }
    /// The most Signature elements one document may have.
    pub fn max_signatures(&self) -> usize {
        self.max_signatures
    }
    /// The clock skew allowed when judging a Timestamp.
    pub fn max_clock_skew(&self) -> Duration {
        self.max_clock_skew
    }
    /// The instant Timestamps are judged at: the configured one, else the system clock.
    pub fn now(&self) -> SystemTime {
        self.now.unwrap_or_else(SystemTime::now)
    }
    /// Must a SOAP message carry a Timestamp that a verified Reference covers?
    pub fn requires_timestamp(&self) -> bool {
        self.require_timestamp
    }
}

/// Builds a [`VerifyConfig`].
#[derive(Debug, Clone)]
pub struct VerifyConfigBuilder(VerifyConfig);

impl VerifyConfigBuilder {
    /// Accept SHA-1 (`sha1` digests, `rsa-sha1`, `ecdsa-sha1`, `hmac-sha1`): for
    /// old messages only; SHA-1 collisions are practical.
    pub fn allow_sha1(mut self, on: bool) -> Self {
        self.0.allow_sha1 = on;
        self
    }

    /// The smallest RSA modulus accepted (default 2048). Values below 2048 exist
    /// for the 1024-bit keys of the old interop vectors, in conformance runs;
    /// values below 1024 are raised to 1024.
    pub fn min_rsa_bits(mut self, bits: usize) -> Self {
        self.0.min_rsa_bits = bits.max(1024);
        self
    }

    /// The most transforms one Reference may have (default 5).
    pub fn max_transforms(mut self, n: usize) -> Self {
        self.0.max_transforms = n;
        self
    }

    /// The most References one SignedInfo may have (default 30).
    pub fn max_references(mut self, n: usize) -> Self {
        self.0.max_references = n;
        self
    }

    /// The most Signature elements a document may have (default 10).
    pub fn max_signatures(mut self, n: usize) -> Self {
        self.0.max_signatures = n;
        self
    }

    /// Accept the XPath 1.0 filtering transform (default off: an expression
    /// from the message is evaluated once per node of the input).
    pub fn allow_xpath_transform(mut self, on: bool) -> Self {
        self.0.allow_xpath = on;
        self
    }

    /// Accept XPath Filter 2.0 (default off: expressions from the message are evaluated).
    pub fn allow_xpath_filter2(mut self, on: bool) -> Self {
        self.0.allow_xpath_filter2 = on;
        self
    }

    /// The application decrypts the message after verifying it
    /// ([`crate::enc`]): a `mustUnderstand` Security header may then also hold
    /// `xenc:EncryptedKey` and `xenc:ReferenceList` (default off: such a header
    /// is refused, since nothing would process them).
    pub fn decrypts_after(mut self, on: bool) -> Self {
        self.0.decrypts_after = on;
        self
    }

    /// Refuse signed content in which a comment separates two text nodes,
    /// when the reference leaves comments out (default on; see
    /// [`crate::ErrorKind::CommentInSignedText`]).
    pub fn reject_comment_split_text(mut self, on: bool) -> Self {
        self.0.reject_split_text = on;
        self
    }

    /// Apply the SOAP rules to a document whose element is a SOAP 1.1 or 1.2
    /// `Envelope` (default on): no DOCTYPE, exactly one Envelope and one Body,
    /// at most one `wsse:Security` header per actor/role, `mustUnderstand`
    /// honoured, and a Timestamp, when present, fresh; a signed `wsu:Timestamp`
    /// elsewhere refused (and in a document that is not SOAP, checked). Off only
    /// to look at a wrapped message's signatures (attack analysis), never to
    /// accept one.
    pub fn soap_checks(mut self, on: bool) -> Self {
        self.0.soap_checks = on;
        self
    }

    /// The clock skew allowed when judging a Timestamp's `Created` and `Expires` (default 300 s).
    pub fn max_clock_skew(mut self, skew: Duration) -> Self {
        self.0.max_clock_skew = skew;
        self
    }

    /// Judge Timestamps as of `t` instead of the system clock (archived messages).
    pub fn now(mut self, t: SystemTime) -> Self {
        self.0.now = Some(t);
        self
    }

    /// Require, in a SOAP message, a `wsu:Timestamp` in the Security header that
    /// a verified Reference covers (default off: a Timestamp that is present is
    /// checked for freshness, signed or not; [`crate::Verified::timestamp_signed`] tells).
    pub fn require_timestamp(mut self, on: bool) -> Self {
        self.0.require_timestamp = on;
        self
    }

    /// Hash large References on a helper thread while this thread
    /// canonicalizes them (default off). A Reference whose subtree is 32 KiB or
    /// more is handed over in 16 KiB pieces of canonical bytes to a helper thread
    /// of the calling thread (started the first time, then parked), which hashes
    /// them meanwhile; the calling thread never waits for it, and takes back and
    /// hashes itself whatever the helper has not done when it needs the digest
    /// (or when the helper falls three pieces behind). The work, its order and
    /// the results are the same (the signature over `SignedInfo` is still
    /// checked before any Reference is digested); only the time differs. It pays
    /// on a machine with a core to spare; on a busy one (every core taken, as a
    /// server verifying many messages at once) it costs time, which is why it is
    /// off by default. The provider's digest contexts must be copyable
    /// ([`crate::DigestContext::try_clone`]), else everything stays on this thread.
    pub fn parallel(mut self, on: bool) -> Self {
        self.0.parallel = on;
        self
    }

    /// The crypto provider (default [`AwsLcProvider`]).
    pub fn provider(mut self, p: Arc<dyn CryptoProvider>) -> Self {
        self.0.provider = p;
        self
    }

    /// The configuration.
    pub fn build(self) -> VerifyConfig {
        self.0
    }
}
