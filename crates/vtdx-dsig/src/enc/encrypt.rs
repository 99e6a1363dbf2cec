//! Encryption: an element, or its content, replaced by `xenc:EncryptedData`
//! with the core's `Editor`; every other byte stays as it was.
//!
//! The plaintext is the element's (or content's) own text as it stands in the
//! document, so prefixes declared on ancestors, `xml:*` attributes inherited
//! from them and references to the internal subset's entities mean the same
//! when the decryptor parses it back in the same place.

use std::sync::Mutex;

use vtdx_core::{escape_text, Document, Editor, Node, SourceEncoding};

use super::alg::{self, BlockAlgorithm, RsaTransport, TYPE_CONTENT, TYPE_ELEMENT, XENC_NS};
use super::error::{EncError, EncErrorKind};
use super::key::{EncKind, EncryptionKey};
use crate::alg::DSIG_NS;
use crate::crypto::{AwsLcProvider, CipherProvider};

/// How encryption is done. Defaults: AES-256-GCM for the data, RSA-OAEP
/// (`rsa-oaep-mgf1p`, SHA-1) for a session key sent to an RSA key, and a
/// `KeyInfo` identifying the recipient's key (certificate or `KeyName`).
#[derive(Debug, Clone)]
pub struct EncryptConfig {
    pub(crate) algorithm: BlockAlgorithm,
    pub(crate) transport: RsaTransport,
    pub(crate) recipient_info: bool,
}

impl Default for EncryptConfig {
    fn default() -> Self {
        EncryptConfig { algorithm: BlockAlgorithm::AES256_GCM, transport: RsaTransport::default(), recipient_info: true }
    }
}

impl EncryptConfig {
    /// The block algorithm: an AES-GCM one (CBC is offered for decryption of legacy messages only).
    pub fn algorithm(mut self, a: BlockAlgorithm) -> Self {
        self.algorithm = a;
        self
    }
    /// The RSA key transport (default `rsa-oaep-mgf1p` with SHA-1).
    pub fn rsa_transport(mut self, t: RsaTransport) -> Self {
        self.transport = t;
        self
    }
    /// Identify the recipient's key in the `EncryptedKey` (default on): the
    /// certificate (`X509Data`) or the key's name (`KeyName`).
    pub fn recipient_info(mut self, on: bool) -> Self {
        self.recipient_info = on;
        self
    }
}

/// Encrypts parts of documents to the caller's key.
#[derive(Debug)]
pub struct Encryptor {
    pub(crate) key: EncryptionKey,
    pub(crate) config: EncryptConfig,
    pub(crate) provider: AwsLcProvider,
    spare: Spare,
}

/// The largest kept output buffer of AES-GCM sealing (up to this many bytes).
const SPARE_MAX: usize = 16 << 20;

/// An output buffer of AES-GCM sealing that an [`Encryptor`] keeps for its next
/// message: the sealed bytes must go to initialized memory, and zeroing the
/// 2.7 MB of the bench's `soap_big` Body each time costs about 5% of its
/// encryption. It holds ciphertext only (sealing reads the plaintext where it
/// stands), at most [`SPARE_MAX`] bytes; a concurrent use makes a new one.
#[derive(Default)]
struct Spare(Mutex<Vec<u8>>);

impl std::fmt::Debug for Spare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Spare")
    }
}

impl Spare {
    /// A buffer at least `n` bytes long: the kept one when it is free (zeroed only
    /// where it grows), else a new one.
    fn take(&self, n: usize) -> Vec<u8> {
        let mut v = self.0.try_lock().map(|mut g| std::mem::take(&mut *g)).unwrap_or_default();
        if v.len() < n {
            v.resize(n, 0);
        }
        v
    }

    /// Keeps the largest of `bufs`, when it is larger than the one kept.
    fn put(&self, bufs: impl Iterator<Item = Vec<u8>>) {
        if let Some(b) = bufs.filter(|b| b.len() <= SPARE_MAX).max_by_key(|b| b.len()) {
            if let Ok(mut g) = self.0.try_lock() {
                if g.len() < b.len() {
                    *g = b;
                }
            }
        }
    }
}

/// Base64 (RFC 4648, padded, one line), SIMD-encoded: the CipherValue of a
/// 2.7 MB Body is 3.6 MB of base64.
pub(crate) fn b64(b: &[u8]) -> String {
    base64_simd::STANDARD.encode_to_string(b)
}

pub(crate) fn random_hex(p: &AwsLcProvider, n: usize) -> String {
    let mut b = vec![0u8; n];
    let _ = p.random(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn enc_err(m: impl Into<String>) -> EncError {
    EncError::new(EncErrorKind::Encrypt(m.into()))
}

pub(crate) fn edit_err(e: vtdx_core::EditError) -> EncError {
    EncError::new(EncErrorKind::Edit(e.to_string()))
}

impl Encryptor {
    /// An encryptor to the caller's key.
    pub fn new(key: EncryptionKey, config: EncryptConfig) -> Encryptor {
        Encryptor { key, config, provider: AwsLcProvider, spare: Spare::default() }
    }

    /// The configuration.
    pub fn config(&self) -> &EncryptConfig {
        &self.config
    }

    pub(crate) fn check_algorithm(&self) -> Result<BlockAlgorithm, EncError> {
        let a = self.config.algorithm;
        if a.is_legacy() {
            return Err(enc_err(format!("{} is offered for decryption of legacy messages only; encrypt with AES-GCM", a.name())));
        }
        if let EncKind::Direct(k) = &self.key.kind {
            if k.len() != a.key_len() {
                return Err(enc_err(format!("{} needs a key of {} bytes, the key has {}", a.name(), a.key_len(), k.len())));
            }
        }
        Ok(a)
    }

    /// A session key: the caller's for a direct key, else fresh random bytes.
    pub(crate) fn session_key(&self) -> Result<Vec<u8>, EncError> {
        if let EncKind::Direct(k) = &self.key.kind {
            return Ok(k.clone());
        }
        let mut k = vec![0u8; self.config.algorithm.key_len()];
        self.provider.random(&mut k).map_err(|e| enc_err(e.to_string()))?;
        Ok(k)
    }

    /// The `ds:KeyInfo` that identifies the recipient's key, if any.
    pub(crate) fn recipient_key_info(&self, wss: bool) -> String {
        if !self.config.recipient_info {
            return String::new();
        }
        match &self.key.kind {
            EncKind::Rsa { cert: Some(c), .. } if wss => {
                let (vt, v) = match c.subject_key_id() {
                    Some(ski) => (crate::wss::X509_SKI, b64(ski)),
                    None => (
                        crate::wss::THUMBPRINT_SHA1,
                        b64(aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY, c.der()).as_ref()),
                    ),
                };
                format!(
                    r#"<ds:KeyInfo xmlns:ds="{DSIG_NS}"><wsse:SecurityTokenReference xmlns:wsse="{}"><wsse:KeyIdentifier EncodingType="{}" ValueType="{vt}">{v}</wsse:KeyIdentifier></wsse:SecurityTokenReference></ds:KeyInfo>"#,
                    crate::wss::WSSE_NS,
                    crate::wss::BASE64_BINARY
                )
            }
            EncKind::Rsa { cert: Some(c), .. } => format!(
                r#"<ds:KeyInfo xmlns:ds="{DSIG_NS}"><ds:X509Data><ds:X509Certificate>{}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>"#,
                b64(c.der())
            ),
            _ => match &self.key.name {
                Some(n) => format!(r#"<ds:KeyInfo xmlns:ds="{DSIG_NS}"><ds:KeyName>{}</ds:KeyName></ds:KeyInfo>"#, escape_text(n)),
                None => String::new(),
            },
        }
    }

    /// The `xenc:EncryptedKey` transporting `session` (`None` for a direct key),
    /// with an `Id` and a `ReferenceList` when given.
    pub(crate) fn encrypted_key(&self, session: &[u8], id: Option<&str>, refs: &[String], wss: bool) -> Result<Option<String>, EncError> {
        let (method, cipher) = match &self.key.kind {
            EncKind::Direct(_) => return Ok(None),
            EncKind::Rsa { public, .. } => {
                let c = self.provider.rsa_encrypt(public, &self.config.transport.padding(), session).map_err(|e| enc_err(e.to_string()))?;
                (self.config.transport.method_markup(), c)
            }
            EncKind::Wrap(kek) => {
                let uri = alg::kw_uri(kek.len()).ok_or_else(|| enc_err("no AES-KW for this key length"))?;
                let c = self.provider.aes_key_wrap(kek, session).map_err(|e| enc_err(e.to_string()))?;
                (format!(r#"<xenc:EncryptionMethod Algorithm="{uri}"/>"#), c)
            }
        };
        let mut s = format!(r#"<xenc:EncryptedKey xmlns:xenc="{XENC_NS}""#);
        if let Some(id) = id {
            s.push_str(&format!(r#" Id="{id}""#));
        }
        s.push('>');
        s.push_str(&method);
        s.push_str(&self.recipient_key_info(wss));
        s.push_str(&format!("<xenc:CipherData><xenc:CipherValue>{}</xenc:CipherValue></xenc:CipherData>", b64(&cipher)));
        if !refs.is_empty() {
            s.push_str("<xenc:ReferenceList>");
            for r in refs {
                s.push_str(&format!(r##"<xenc:DataReference URI="#{r}"/>"##));
            }
            s.push_str("</xenc:ReferenceList>");
        }
        s.push_str("</xenc:EncryptedKey>");
        Ok(Some(s))
    }

    /// The `xenc:EncryptedData` of one target, holding `plaintext` sealed under
    /// `key` (a fresh IV) out of place: the plaintext is read where it stands in
    /// the document, never copied.
    pub(crate) fn seal<'d>(
        &self,
        target: Node<'d>,
        content: bool,
        id: Option<&str>,
        key_info: &str,
        key: &[u8],
        plaintext: &[u8],
    ) -> Result<Sealed<'d>, EncError> {
        let ty = if content { TYPE_CONTENT } else { TYPE_ELEMENT };
        let id = id.map(|i| format!(r#" Id="{i}""#)).unwrap_or_default();
        let mut head = format!(
            r#"<xenc:EncryptedData xmlns:xenc="{XENC_NS}"{id} Type="{ty}"><xenc:EncryptionMethod Algorithm="{}"/>{key_info}<xenc:CipherData><xenc:CipherValue>"#,
            self.config.algorithm.uri()
        );
        let mut iv = [0u8; 12];
        self.provider.random(&mut iv).map_err(|e| enc_err(e.to_string()))?;
        // the 12-byte IV is 16 base64 characters without padding: the base64 of the
        // sealed bytes can follow it as that of `IV || ciphertext || tag` would
        base64_simd::STANDARD.encode_append(iv, &mut head);
        let len = plaintext.len() + 16;
        let mut buf = self.spare.take(len);
        self.provider.aes_gcm_seal_to(key, &iv, plaintext, &mut buf[..len]).map_err(|e| enc_err(e.to_string()))?;
        Ok(Sealed { target, content, head, buf, len })
    }

    /// Gives the sealing buffers of `parts` back to be kept for the next message.
    pub(crate) fn keep_buffers(&self, parts: Vec<Sealed<'_>>) {
        self.spare.put(parts.into_iter().map(|p| p.buf));
    }

    /// Replaces each target element (or, with `content`, its content) by an
    /// `xenc:EncryptedData` carrying its own session key: an `EncryptedKey` in
    /// its `KeyInfo` (RSA-OAEP or AES-KW), or a `KeyName` for a direct key.
    /// Targets must be elements of `doc`, none inside another.
    pub fn encrypt<'d>(&self, doc: &'d Document<'d>, targets: &[Node<'d>], content: bool) -> Result<Vec<u8>, EncError> {
        self.check_algorithm()?;
        check_targets(doc, targets)?;
        let mut parts = Vec::with_capacity(targets.len());
        for &t in targets {
            let session = self.session_key()?;
            let key_info = match self.encrypted_key(&session, None, &[], false)? {
                Some(ek) => format!(r#"<ds:KeyInfo xmlns:ds="{DSIG_NS}">{ek}</ds:KeyInfo>"#),
                None => self.recipient_key_info(false),
            };
            parts.push(self.seal(t, content, None, &key_info, &session, plaintext(doc, t, content))?);
        }
        let out = write_encrypted(doc, &parts, |_| Ok(()));
        self.keep_buffers(parts);
        out
    }
}

/// The end of an `EncryptedData` after its CipherValue's text.
const ED_TAIL: &str = "</xenc:CipherValue></xenc:CipherData></xenc:EncryptedData>";

/// An `xenc:EncryptedData` made for a target element (or its content): its
/// markup up to the CipherValue's text and that text's first 16 characters (the
/// base64 of the IV), and the ciphertext and tag, whose base64 follows them.
pub(crate) struct Sealed<'d> {
    target: Node<'d>,
    content: bool,
    head: String,
    /// The sealed bytes are `buf[..len]`.
    buf: Vec<u8>,
    len: usize,
}

impl Sealed<'_> {
    fn sealed(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// Below this many sealed bytes the `EncryptedData`s go through the `Editor`
/// whole; from it on, their CipherValues are written straight into the output.
const STRAIGHT_MIN: usize = 64 << 10;

/// The document with each part's `EncryptedData` in place of its target (and
/// `more`'s edits, which may run twice). The base64 of a large ciphertext (3.6 MB
/// for the 2.7 MB Body of the bench's `soap_big`) is written once, into the
/// output sized for it: the `Editor` writes the document with each
/// `EncryptedData` cut short after the base64 of its IV (every other byte of it
/// the document's, or small), each such head is found in that output (it ends in
/// its part's fresh random IV; a head found other than exactly once sends the
/// whole document down the plain way), and the output is copied around the
/// CipherValues. Only for UTF-8 documents, whose output the `Editor` writes with
/// new markup as it is given (so each head is in it at least once), and when the
/// searches cost less than the copies saved: the plain way, the markup through
/// the `Editor`'s buffer into its output, copies the base64 twice.
pub(crate) fn write_encrypted<'d>(
    doc: &'d Document<'d>,
    parts: &[Sealed<'d>],
    more: impl Fn(&mut Editor<'d>) -> Result<(), EncError>,
) -> Result<Vec<u8>, EncError> {
    let b64_len = |n: usize| n.div_ceil(3) * 4;
    let sealed: usize = parts.iter().map(|p| p.len).sum();
    let rest = doc.text().len().saturating_sub(sealed);
    let straight =
        matches!(doc.encoding(), SourceEncoding::Utf8 { .. }) && sealed >= STRAIGHT_MIN && parts.len().saturating_mul(rest) <= sealed;
    if straight {
        let mut ed = Editor::new(doc).check_fragments(false);
        for p in parts {
            place(&mut ed, p.target, p.content, &format!("{}{ED_TAIL}", p.head))?;
        }
        more(&mut ed)?;
        let short = ed.to_vec().map_err(edit_err)?;
        let mut at: Vec<(usize, &Sealed<'d>)> = Vec::with_capacity(parts.len());
        for p in parts {
            let mut found = memchr::memmem::find_iter(&short, p.head.as_bytes());
            if let (Some(i), None) = (found.next(), found.next()) {
                at.push((i + p.head.len(), p));
            }
        }
        if at.len() == parts.len() {
            at.sort_by_key(|(i, _)| *i);
            let mut out = Vec::with_capacity(short.len() + parts.iter().map(|p| b64_len(p.len)).sum::<usize>());
            let mut from = 0;
            for (i, p) in at {
                out.extend_from_slice(&short[from..i]);
                base64_simd::STANDARD.encode_append(p.sealed(), &mut out);
                from = i;
            }
            out.extend_from_slice(&short[from..]);
            return Ok(out);
        }
    }
    let mut ed = Editor::new(doc).check_fragments(false);
    for p in parts {
        let mut m = String::with_capacity(p.head.len() + b64_len(p.len) + ED_TAIL.len());
        m.push_str(&p.head);
        base64_simd::STANDARD.encode_append(p.sealed(), &mut m);
        m.push_str(ED_TAIL);
        place(&mut ed, p.target, p.content, &m)?;
    }
    more(&mut ed)?;
    ed.to_vec().map_err(edit_err)
}

/// The bytes to encrypt: the element's text, or its content's.
pub(crate) fn plaintext<'d>(doc: &'d Document<'d>, t: Node<'d>, content: bool) -> &'d [u8] {
    let r = if content { t.content_range().unwrap_or(0..0) } else { t.range() };
    &doc.text()[r]
}

/// Puts the `EncryptedData` markup in place of the element or of its content.
pub(crate) fn place<'d>(ed: &mut Editor<'d>, t: Node<'d>, content: bool, markup: &str) -> Result<(), EncError> {
    if content {
        ed.set_text(t, "").map_err(edit_err)?;
        ed.append_child(t, markup).map_err(edit_err)
    } else {
        ed.replace(t, markup).map_err(edit_err)
    }
}

/// Targets are elements of `doc`, at least one, none inside another.
pub(crate) fn check_targets<'d>(doc: &'d Document<'d>, targets: &[Node<'d>]) -> Result<(), EncError> {
    if targets.is_empty() {
        return Err(enc_err("nothing to encrypt"));
    }
    for (i, t) in targets.iter().enumerate() {
        if !t.is_element() || !std::ptr::eq(t.document(), doc) {
            return Err(enc_err("a target is not an element of the document"));
        }
        for u in &targets[i + 1..] {
            if u == t || u.is_within(*t) || t.is_within(*u) {
                return Err(EncError::at(EncErrorKind::Encrypt("one target is inside another (or given twice)".into()), u.range().start));
            }
        }
    }
    Ok(())
}
