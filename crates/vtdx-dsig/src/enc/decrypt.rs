//! Decryption: every `xenc:EncryptedData` of a document is replaced, with the
//! core's `Editor`, by its plaintext, which is parsed where it lands (the
//! namespaces in scope there, the internal subset's entities) and must be
//! well-formed there. Every byte outside the decrypted parts stays as it was.
//!
//! Order: the `EncryptedKey`s that carry a `ReferenceList` (in a WS-Security
//! header, or anywhere outside an `EncryptedData`) are processed in document
//! order — header order — then the remaining `EncryptedData` with the key
//! their own `KeyInfo` gives. A plaintext that holds `EncryptedData` again
//! (super-encryption, an encrypted signature inside an encrypted Body) is
//! decrypted by a further pass, up to [`DecryptConfig::max_depth`] passes.
//!
//! Every cryptographic failure is the one [`EncErrorKind::DecryptionFailed`].
//! When the key transport fails (wrong RSA key, bad OAEP or PKCS#1 padding,
//! an algorithm refused, no key of the caller fits), decryption goes on with
//! a random session key, so that the failure surfaces in the same place — the
//! tag or padding check of the data — and takes about the same time.

use std::cell::Cell;
use std::collections::HashMap;

use vtdx_core::{Document, Editor, Node};

use super::agree;
use super::alg::{self, BlockAlgorithm, KeyAlgorithm, TYPE_CONTENT, TYPE_ELEMENT, TYPE_ENCRYPTED_KEY};
use super::error::{EncError, EncErrorKind};
use super::key::{DecKind, DecryptionKey};
use super::model::{self, is, is_xenc, Cipher, Encrypted};
use crate::alg::DSIG_NS;
use crate::crypto::{AwsLcProvider, CipherProvider, OaepDigest, RsaPadding};
use crate::reference::IdIndex;
use crate::wss::WSSE_NS;

/// Limits and policy of decryption.
#[derive(Debug, Clone)]
pub struct DecryptConfig {
    allow_legacy: bool,
    max_parts: usize,
    max_cipher_bytes: usize,
    max_depth: usize,
    remove_key_entries: bool,
    max_kdf_iterations: u32,
    max_kdf_iterations_total: u64,
    max_recipients: usize,
}

impl Default for DecryptConfig {
    fn default() -> Self {
        DecryptConfig {
            allow_legacy: false,
            max_parts: 256,
            max_cipher_bytes: 256 << 20,
            max_depth: 4,
            remove_key_entries: false,
            max_kdf_iterations: 100_000,
            max_kdf_iterations_total: 400_000,
            max_recipients: 16,
        }
    }
}

impl DecryptConfig {
    /// Accept the legacy algorithms: AES-CBC (unauthenticated: a padding
    /// oracle wherever the failure can be observed) and RSA PKCS#1 v1.5 key
    /// transport (a Bleichenbacher oracle). Off by default.
    pub fn allow_legacy(mut self, on: bool) -> Self {
        self.allow_legacy = on;
        self
    }
    /// At most this many `EncryptedData` elements per pass (default 256).
    pub fn max_parts(mut self, n: usize) -> Self {
        self.max_parts = n;
        self
    }
    /// At most this many characters of `CipherValue` in one document (default 256 MiB).
    pub fn max_cipher_bytes(mut self, n: usize) -> Self {
        self.max_cipher_bytes = n;
        self
    }
    /// At most this many passes for plaintexts that hold `EncryptedData` again (default 4).
    pub fn max_depth(mut self, n: usize) -> Self {
        self.max_depth = n.max(1);
        self
    }
    /// Also remove the `EncryptedKey`s that carry a `ReferenceList` (the
    /// WS-Security header entries) and the `wsse:Security` header's own
    /// `ReferenceList`s once their parts are decrypted (default off: every byte
    /// outside the decrypted parts stays). On, a message that was signed and
    /// then encrypted comes back as it was signed, and a verifier that
    /// requires `mustUnderstand` headers to hold only what it processes
    /// accepts it.
    pub fn remove_key_entries(mut self, on: bool) -> Self {
        self.remove_key_entries = on;
        self
    }
    /// At most this many PBKDF2 iterations in one key derivation (default
    /// 100,000): the count comes from the message, so it bounds what one
    /// `xenc11:DerivedKey` or `AgreementMethod` may cost.
    pub fn max_kdf_iterations(mut self, n: u32) -> Self {
        self.max_kdf_iterations = n;
        self
    }
    /// At most this many PBKDF2 iterations in all the key derivations of one
    /// [`Decryptor::decrypt`] (default 400,000, about half a second of
    /// HMAC-SHA-512 here): every `EncryptedData` may carry a derivation of its own,
    /// so the per-derivation limit alone lets a message cost up to
    /// [`DecryptConfig::max_parts`] times as much. A derivation past the budget
    /// fails, which gives the uniform error.
    pub fn max_kdf_iterations_total(mut self, n: u64) -> Self {
        self.max_kdf_iterations_total = n;
        self
    }
    /// At most this many `xenc:EncryptedKey` in one `ds:KeyInfo` (default 16):
    /// a message for several recipients carries one for each, and each that a key
    /// of the caller's fits is tried (an RSA decryption each); more is refused
    /// with [`EncErrorKind::Limit`].
    pub fn max_recipients(mut self, n: usize) -> Self {
        self.max_recipients = n;
        self
    }
    /// Whether the legacy algorithms are accepted.
    pub fn legacy_allowed(&self) -> bool {
        self.allow_legacy
    }
}

/// Decrypts documents with the caller's keys.
///
/// ```
/// use vtdx_dsig::enc::{DecryptConfig, DecryptionKey, Decryptor, EncryptConfig, EncryptionKey, Encryptor};
///
/// let kek = [7u8; 32];
/// let doc = vtdx_core::Document::parse(b"<order><card>4111</card></order>")?;
/// let card = doc.root_element().first_element_child().unwrap();
/// let enc = Encryptor::new(EncryptionKey::aes_key_wrap(&kek)?, EncryptConfig::default());
/// let encrypted = enc.encrypt(&doc, &[card], false)?;
/// assert!(!encrypted.windows(4).any(|w| w == b"4111"));
///
/// let dec = Decryptor::new(vec![DecryptionKey::aes(&kek)?], DecryptConfig::default());
/// assert_eq!(dec.decrypt_bytes(&encrypted)?, b"<order><card>4111</card></order>");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Decryptor {
    keys: Vec<DecryptionKey>,
    config: DecryptConfig,
    provider: AwsLcProvider,
}

/// A session key, and whether it is the real one: a random stand-in (`ok`
/// false) is used to the end, then the uniform error is returned even if the
/// unauthenticated CBC padding happened to look right.
#[derive(Clone)]
struct SessionKey {
    key: Vec<u8>,
    ok: bool,
}

/// The result of one pass.
enum Pass {
    Nothing,
    /// The document with the parts replaced; `again` when a plaintext mentions `EncryptedData`.
    Xml {
        bytes: Vec<u8>,
        again: bool,
    },
    /// The plaintext of a document-element `EncryptedData` that is not XML.
    Raw(Vec<u8>),
}

fn failed() -> EncError {
    EncError::decryption_failed()
}

/// Decodes base64 with white space anywhere. Straight from the text first (what
/// vtdx and most encryptors write: one line); only a text that does not decode
/// and holds white space is decoded again without it, copied line by line.
pub(crate) fn decode_b64(text: &str) -> Option<Vec<u8>> {
    let e = &base64_simd::STANDARD;
    if let Ok(v) = e.decode_to_vec(text) {
        return Some(v);
    }
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    if !text.as_bytes().iter().any(ws) {
        return None;
    }
    let mut clean = Vec::with_capacity(text.len());
    for part in text.as_bytes().split(ws) {
        clean.extend_from_slice(part);
    }
    e.decode_to_vec(clean).ok()
}

fn find<T>(v: &[T], mut pred: impl FnMut(&T) -> bool) -> Option<&T> {
    v.iter().find(|x| pred(x))
}

impl Decryptor {
    /// A decryptor with the caller's keys.
    pub fn new(keys: Vec<DecryptionKey>, config: DecryptConfig) -> Decryptor {
        Decryptor { keys, config, provider: AwsLcProvider }
    }

    /// The configuration.
    pub fn config(&self) -> &DecryptConfig {
        &self.config
    }

    /// Parses `xml` and decrypts it ([`Decryptor::decrypt`]).
    pub fn decrypt_bytes(&self, xml: &[u8]) -> Result<Vec<u8>, EncError> {
        let doc = Document::parse(xml).map_err(|e| EncError::new(EncErrorKind::Xml(e.to_string())))?;
        self.decrypt(&doc)
    }

    /// Decrypts every `EncryptedData` of `doc`: the document's bytes with each
    /// replaced by its plaintext (or, for a document element that encrypts
    /// data other than XML, the plaintext itself). `NothingEncrypted` when
    /// there is none.
    pub fn decrypt(&self, doc: &Document<'_>) -> Result<Vec<u8>, EncError> {
        // PBKDF2 iterations left for this message, over all its passes
        let kdf_left = Cell::new(self.config.max_kdf_iterations_total);
        let (mut bytes, mut again) = match self.pass(doc, 0, &kdf_left)? {
            Pass::Nothing => return Err(EncErrorKind::NothingEncrypted.into()),
            Pass::Raw(b) => return Ok(b),
            Pass::Xml { bytes, again } => (bytes, again),
        };
        let mut depth = 1;
        while again {
            if depth >= self.config.max_depth {
                return Err(
                    EncErrorKind::Limit { what: "passes of nested encryption", limit: self.config.max_depth, found: depth + 1 }.into()
                );
            }
            let d = Document::parse_with(&bytes, doc.options()).map_err(|_| failed())?;
            match self.pass(&d, depth, &kdf_left)? {
                Pass::Nothing => break,
                Pass::Raw(b) => return Ok(b),
                Pass::Xml { bytes: b, again: a } => {
                    depth += 1;
                    bytes = b;
                    again = a;
                }
            }
        }
        Ok(bytes)
    }

    fn pass(&self, doc: &Document<'_>, depth: usize, kdf_left: &Cell<u64>) -> Result<Pass, EncError> {
        let mut eds: Vec<Node<'_>> = Vec::new();
        let mut keyed: Vec<Node<'_>> = Vec::new();
        let mut lists: Vec<Node<'_>> = Vec::new();
        let mut cipher_chars = 0usize;
        for e in doc.root().descendant_elements() {
            if e.namespace_uri() != Some(alg::XENC_NS) {
                continue;
            }
            match e.local_name() {
                "EncryptedData" if !e.ancestors().any(|a| is_xenc(&a, "EncryptedData")) => {
                    eds.push(e);
                    if eds.len() > self.config.max_parts {
                        return Err(EncError::at(
                            EncErrorKind::Limit { what: "xenc:EncryptedData elements", limit: self.config.max_parts, found: eds.len() },
                            e.range().start,
                        ));
                    }
                }
                "EncryptedKey"
                    if e.element_children().any(|c| is_xenc(&c, "ReferenceList"))
                        && !e.ancestors().any(|a| is_xenc(&a, "EncryptedData")) =>
                {
                    keyed.push(e);
                }
                "ReferenceList" if e.parent().is_some_and(|p| is(&p, WSSE_NS, "Security")) => lists.push(e),
                "CipherValue" => {
                    cipher_chars += e.range().len();
                    if cipher_chars > self.config.max_cipher_bytes {
                        return Err(EncError::at(
                            EncErrorKind::Limit {
                                what: "bytes of xenc:CipherValue",
                                limit: self.config.max_cipher_bytes,
                                found: cipher_chars,
                            },
                            e.range().start,
                        ));
                    }
                }
                _ => {}
            }
        }
        if eds.is_empty() {
            return Ok(Pass::Nothing);
        }
        let ids = IdIndex::new(doc);
        // the EncryptedData each ReferenceList assigns to its EncryptedKey, in header order
        let mut order: Vec<(Node<'_>, Option<usize>)> = Vec::with_capacity(eds.len());
        let mut eks: Vec<Encrypted<'_>> = Vec::new();
        for &ek in &keyed {
            let parsed = model::parse(ek)?;
            let idx = eks.len();
            for uri in &parsed.data_references {
                let id = model::fragment_id(uri, ek)?;
                let target = match ids.get(id) {
                    Ok(t) => t,
                    // a later pass: the part was decrypted by an earlier one
                    Err(_) if depth > 0 => continue,
                    Err(e) => {
                        return Err(EncError::at(EncErrorKind::Malformed(format!("xenc:DataReference `{uri}`: {e}")), ek.range().start))
                    }
                };
                if !is_xenc(&target, "EncryptedData") {
                    return Err(EncError::at(
                        EncErrorKind::Malformed(format!("xenc:DataReference `{uri}` names {}, not an xenc:EncryptedData", target.name())),
                        ek.range().start,
                    ));
                }
                if order.iter().any(|(n, _)| *n == target) {
                    return Err(EncError::at(
                        EncErrorKind::Malformed(format!("xenc:EncryptedData `{id}` is named by two xenc:DataReference")),
                        target.range().start,
                    ));
                }
                order.push((target, Some(idx)));
            }
            eks.push(parsed);
        }
        for e in &eds {
            if !order.iter().any(|(n, _)| n == e) {
                order.push((*e, None));
            }
        }
        let mut cache: HashMap<(usize, usize), SessionKey> = HashMap::new();
        let mut ed = Editor::new(doc);
        let mut again = false;
        let root = doc.root_element();
        for (node, ek) in order {
            let enc = model::parse(node)?;
            let block = self.block_algorithm(&enc);
            let key_len = block.map_or(32, |b| b.key_len());
            let keys = match ek {
                Some(i) => vec![self.session_key(&eks[i], key_len, &mut cache, kdf_left)],
                None => self.keys_from_key_info(&enc, key_len, &ids, &mut cache, kdf_left)?,
            };
            let mut cipher = self.cipher_octets(&enc)?;
            let Some(block) = block else { return Err(failed()) };
            // the first key that opens the data (several only for several recipients)
            let mut opened = None;
            for (j, key) in keys.iter().enumerate() {
                let data = if j + 1 == keys.len() { std::mem::take(&mut cipher) } else { cipher.clone() };
                if let Ok(r) = self.decrypt_block(block, &key.key, data) {
                    if key.ok {
                        opened = Some(r);
                        break;
                    }
                }
            }
            let Some((mut plain, at)) = opened else { return Err(failed()) };
            let is_xml = matches!(enc.type_uri.as_deref(), Some(TYPE_ELEMENT | TYPE_CONTENT));
            if !is_xml {
                if node == root {
                    plain.truncate(at.end);
                    plain.drain(..at.start);
                    return Ok(Pass::Raw(plain));
                }
                return Err(EncError::at(EncErrorKind::NotXml(enc.type_uri.clone().unwrap_or_default()), node.range().start));
            }
            let text = simdutf8::basic::from_utf8(&plain[at]).map_err(|_| failed())?;
            if !again && memchr::memmem::find(text.as_bytes(), b"EncryptedData").is_some() {
                again = true;
            }
            // parsed where it lands: well-formed there, or the uniform error
            ed.replace(node, text).map_err(|_| failed())?;
        }
        if self.config.remove_key_entries {
            for n in keyed.into_iter().chain(lists) {
                ed.remove(n).map_err(|e| EncError::new(EncErrorKind::Edit(e.to_string())))?;
            }
        }
        let bytes = ed.to_vec().map_err(|_| failed())?;
        Ok(Pass::Xml { bytes, again })
    }

    fn block_algorithm(&self, enc: &Encrypted<'_>) -> Option<BlockAlgorithm> {
        let b = BlockAlgorithm::from_uri(&enc.method.as_ref()?.algorithm)?;
        (!b.is_legacy() || self.config.allow_legacy).then_some(b)
    }

    fn cipher_octets(&self, enc: &Encrypted<'_>) -> Result<Vec<u8>, EncError> {
        match &enc.cipher {
            Cipher::Value(v) => decode_b64(&v.value())
                .ok_or_else(|| EncError::at(EncErrorKind::Malformed("xenc:CipherValue is not base64".into()), v.range().start)),
            // never dereferenced: the uniform error
            Cipher::Reference => Err(failed()),
        }
    }

    /// Decrypts in place: the buffer and where the plaintext is in it (not moved
    /// to the front: the caller copies it once more anyway).
    fn decrypt_block(&self, block: BlockAlgorithm, key: &[u8], mut data: Vec<u8>) -> Result<(Vec<u8>, std::ops::Range<usize>), EncError> {
        match block {
            BlockAlgorithm::AesGcm(_) => {
                if data.len() < 12 + 16 {
                    return Err(failed());
                }
                let (iv, rest) = data.split_at_mut(12);
                let n = self.provider.aes_gcm_open(key, iv, rest).map_err(|_| failed())?;
                Ok((data, 12..12 + n))
            }
            BlockAlgorithm::AesCbc(_) => {
                if data.len() < 32 || data.len() % 16 != 0 {
                    return Err(failed());
                }
                let (iv, rest) = data.split_at_mut(16);
                let iv: [u8; 16] = (&*iv).try_into().map_err(|_| failed())?;
                self.provider.aes_cbc_decrypt(key, &iv, rest).map_err(|_| failed())?;
                // ISO 10126: the last byte is the padding length (1..=16), the others are arbitrary
                let pad = *rest.last().unwrap_or(&0) as usize;
                if pad == 0 || pad > 16 {
                    return Err(failed());
                }
                let n = rest.len() - pad;
                Ok((data, 16..16 + n))
            }
        }
    }

    /// A random key of `len` bytes: what decryption goes on with when the key transport failed.
    fn random_key(&self, len: usize) -> SessionKey {
        let mut k = vec![0u8; len];
        let _ = self.provider.random(&mut k);
        SessionKey { key: k, ok: false }
    }

    fn key_algorithm(&self, ek: &Encrypted<'_>) -> Option<KeyAlgorithm> {
        let m = ek.method.as_ref()?;
        let digest = |d: &Option<String>| -> Option<OaepDigest> {
            match d {
                None => Some(OaepDigest::Sha1),
                Some(u) => alg::oaep_digest(u),
            }
        };
        let label = m.oaep_params.clone().unwrap_or_default();
        match m.algorithm.as_str() {
            alg::RSA_OAEP_MGF1P => Some(KeyAlgorithm::Rsa(RsaPadding::Oaep { digest: digest(&m.digest)?, mgf: OaepDigest::Sha1, label })),
            alg::RSA_OAEP => {
                let mgf = match &m.mgf {
                    None => OaepDigest::Sha1,
                    Some(u) => alg::mgf(u)?,
                };
                Some(KeyAlgorithm::Rsa(RsaPadding::Oaep { digest: digest(&m.digest)?, mgf, label }))
            }
            alg::RSA_1_5 if self.config.allow_legacy => Some(KeyAlgorithm::Rsa(RsaPadding::Pkcs1)),
            u => alg::kw_len(u).map(KeyAlgorithm::AesKw),
        }
    }

    /// Which of the caller's keys decrypts `ek`: by `KeyName`, else by size.
    fn select_key<'k>(&'k self, ek: &Encrypted<'_>, alg: &KeyAlgorithm, cipher_len: usize) -> Option<&'k DecryptionKey> {
        let names = model::key_names(ek.key_info);
        let fits = |k: &DecryptionKey| match (alg, &k.kind) {
            (KeyAlgorithm::Rsa(_), DecKind::Rsa(r)) => r.modulus_len() == cipher_len,
            (KeyAlgorithm::AesKw(n), DecKind::Secret(s)) => s.len() == *n,
            _ => false,
        };
        find(&self.keys, |k| fits(k) && k.name.as_ref().is_some_and(|n| names.contains(n))).or_else(|| find(&self.keys, |k| fits(k)))
    }

    /// Is there a key of the caller's that would be chosen by name for `ek`?
    fn named_match(&self, ek: &Encrypted<'_>) -> bool {
        let names = model::key_names(ek.key_info);
        self.keys.iter().any(|k| k.name.as_ref().is_some_and(|n| names.contains(n)))
    }

    /// The session key an `EncryptedKey` transports, or a random one (of the
    /// length the data algorithm needs) when anything about it fails.
    fn session_key(
        &self,
        ek: &Encrypted<'_>,
        key_len: usize,
        cache: &mut HashMap<(usize, usize), SessionKey>,
        kdf_left: &Cell<u64>,
    ) -> SessionKey {
        let slot = (ek.node.range().start, key_len);
        if let Some(k) = cache.get(&slot) {
            return k.clone();
        }
        let k = match self.unwrap(ek, key_len, kdf_left) {
            Some(k) => SessionKey { key: k, ok: true },
            None => self.random_key(key_len),
        };
        cache.insert(slot, k.clone());
        k
    }

    fn unwrap(&self, ek: &Encrypted<'_>, key_len: usize, kdf_left: &Cell<u64>) -> Option<Vec<u8>> {
        let cipher = match &ek.cipher {
            Cipher::Value(v) => decode_b64(&v.value())?,
            Cipher::Reference => return None,
        };
        let Some(alg) = self.key_algorithm(ek) else {
            // refused or not offered: spend the time of an RSA decryption all the same
            if let Some(DecKind::Rsa(r)) =
                self.keys.iter().map(|k| &k.kind).find(|k| matches!(k, DecKind::Rsa(r) if r.modulus_len() == cipher.len()))
            {
                let padding = RsaPadding::Oaep { digest: OaepDigest::Sha1, mgf: OaepDigest::Sha1, label: Vec::new() };
                let _ = self.provider.rsa_decrypt(r, &padding, &cipher);
            }
            return None;
        };
        if let KeyAlgorithm::AesKw(n) = alg {
            // a key-encryption key agreed on (ECDH-ES, X25519) or derived from a master secret
            if let Some(kek) = agree::key_from(&self.provider, &self.keys, ek.key_info, n, self.kdf_limits(kdf_left)) {
                let k = self.provider.aes_key_unwrap(&kek?, &cipher).ok()?;
                return (k.len() == key_len).then_some(k);
            }
        }
        let key = self.select_key(ek, &alg, cipher.len())?;
        let k = match (&alg, &key.kind) {
            (KeyAlgorithm::Rsa(padding), DecKind::Rsa(r)) => self.provider.rsa_decrypt(r, padding, &cipher).ok()?,
            (KeyAlgorithm::AesKw(_), DecKind::Secret(s)) => self.provider.aes_key_unwrap(s, &cipher).ok()?,
            _ => return None,
        };
        (k.len() == key_len).then_some(k)
    }

    fn kdf_limits<'c>(&self, left: &'c Cell<u64>) -> agree::Limits<'c> {
        agree::Limits { max_iterations: self.config.max_kdf_iterations, left }
    }

    /// The keys to try on an `EncryptedData` no `ReferenceList` named, from its
    /// `KeyInfo`: one, or for a message to several recipients the session key of
    /// each `EncryptedKey` a key of the caller's opened (a random key when none did).
    fn keys_from_key_info<'d>(
        &self,
        enc: &Encrypted<'d>,
        key_len: usize,
        ids: &IdIndex<'d>,
        cache: &mut HashMap<(usize, usize), SessionKey>,
        kdf_left: &Cell<u64>,
    ) -> Result<Vec<SessionKey>, EncError> {
        let secret = |names: &[String]| -> Option<SessionKey> {
            let fits = |k: &DecryptionKey| matches!(&k.kind, DecKind::Secret(s) if s.len() == key_len);
            let k = find(&self.keys, |k| fits(k) && k.name.as_ref().is_some_and(|n| names.contains(n)))
                .or_else(|| find(&self.keys, |k| fits(k)))?;
            match &k.kind {
                DecKind::Secret(s) => Some(SessionKey { key: s.clone(), ok: true }),
                _ => None,
            }
        };
        let Some(ki) = enc.key_info else {
            return Ok(vec![secret(&[]).unwrap_or_else(|| self.random_key(key_len))]);
        };
        // the data key itself agreed on or derived
        if let Some(k) = agree::key_from(&self.provider, &self.keys, Some(ki), key_len, self.kdf_limits(kdf_left)) {
            return Ok(vec![k.map(|key| SessionKey { key, ok: true }).unwrap_or_else(|| self.random_key(key_len))]);
        }
        let mut eks: Vec<Encrypted<'d>> = Vec::new();
        let mut names = Vec::new();
        for c in ki.element_children() {
            if is_xenc(&c, "EncryptedKey") {
                eks.push(model::parse(c)?);
            } else if is(&c, DSIG_NS, "RetrievalMethod") {
                let ty = c.attribute("Type");
                if ty.as_deref().is_some_and(|t| t.trim() != TYPE_ENCRYPTED_KEY) {
                    continue;
                }
                if let Some(t) = self.same_document_ek(c, c.attribute("URI").as_deref().unwrap_or(""), ids)? {
                    eks.push(t);
                }
            } else if is(&c, WSSE_NS, "SecurityTokenReference") {
                for r in c.element_children().filter(|r| is(r, WSSE_NS, "Reference")) {
                    if let Some(t) = self.same_document_ek(r, r.attribute("URI").as_deref().unwrap_or(""), ids)? {
                        eks.push(t);
                    }
                }
            } else if is(&c, DSIG_NS, "KeyName") {
                names.push(c.value().trim().to_string());
            }
        }
        if eks.len() > self.config.max_recipients {
            return Err(EncError::at(
                EncErrorKind::Limit {
                    what: "xenc:EncryptedKey elements in one ds:KeyInfo",
                    limit: self.config.max_recipients,
                    found: eks.len(),
                },
                ki.range().start,
            ));
        }
        if let Some(named) = eks.iter().find(|ek| self.named_match(ek)) {
            // the recipient the caller's key is named for
            return Ok(vec![self.session_key(named, key_len, cache, kdf_left)]);
        }
        if !eks.is_empty() {
            // several recipients (XML Encryption 1.1 §3.5.1): every one a key of the
            // caller's fits is opened, whichever succeeds, so the time does not tell
            // which did; the data is then tried with each key opened, in order, so
            // that a forged first entry whose padding happens to pass cannot make the
            // message fail where it would have succeeded (no padding oracle)
            let fitting: Vec<&Encrypted<'d>> = eks.iter().filter(|ek| self.fits_some_key(ek)).collect();
            let tried: Vec<&Encrypted<'d>> = if fitting.is_empty() { vec![&eks[0]] } else { fitting };
            let (opened, closed): (Vec<SessionKey>, Vec<SessionKey>) =
                tried.into_iter().map(|ek| self.session_key(ek, key_len, cache, kdf_left)).partition(|k| k.ok);
            // none opened: go on with the first one's random key, failing at the data as usual
            return Ok(if opened.is_empty() { closed.into_iter().take(1).collect() } else { opened });
        }
        Ok(vec![secret(&names).unwrap_or_else(|| self.random_key(key_len))])
    }

    /// Could a key of the caller's open `ek` (its algorithm accepted, and a key of
    /// the right kind and size, or a derivation to run)?
    fn fits_some_key(&self, ek: &Encrypted<'_>) -> bool {
        let Some(alg) = self.key_algorithm(ek) else { return false };
        let len = match &ek.cipher {
            Cipher::Value(v) => v.value().bytes().filter(|b| !b.is_ascii_whitespace()).count() / 4 * 3,
            Cipher::Reference => 0,
        };
        // the base64 length gives the ciphertext length to within 2 bytes
        self.keys.iter().any(|k| match (&alg, &k.kind) {
            (KeyAlgorithm::AesKw(_), DecKind::Agreement(_) | DecKind::Master(_)) => agree::has_derivation(ek.key_info),
            (KeyAlgorithm::Rsa(_), DecKind::Rsa(r)) => r.modulus_len().abs_diff(len) <= 2,
            (KeyAlgorithm::AesKw(n), DecKind::Secret(s)) => s.len() == *n,
            _ => false,
        })
    }

    /// The `EncryptedKey` a same-document reference names; `None` when it
    /// names something else.
    fn same_document_ek<'d>(&self, at: Node<'d>, uri: &str, ids: &IdIndex<'d>) -> Result<Option<Encrypted<'d>>, EncError> {
        let id = model::fragment_id(uri.trim(), at)?;
        let t = ids.get(id).map_err(|e| EncError::at(EncErrorKind::Malformed(format!("reference `{uri}`: {e}")), at.range().start))?;
        if !is_xenc(&t, "EncryptedKey") {
            return Ok(None);
        }
        Ok(Some(model::parse(t)?))
    }
}
