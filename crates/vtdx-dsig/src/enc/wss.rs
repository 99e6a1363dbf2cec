//! WS-Security encryption: the SOAP Body's content (and chosen header blocks)
//! encrypted under one session key, the key sent in an `xenc:EncryptedKey`
//! at the top of the `wsse:Security` header with a `ReferenceList` naming
//! every `EncryptedData` (SOAP 1.1 and 1.2).
//!
//! The `EncryptedKey` is prepended to the Security header: WS-Security
//! processes header entries in order, and a receiver must decrypt before it
//! verifies a signature made before the encryption (sign-then-encrypt). For
//! encrypt-then-sign, sign after encrypting: the `ds:Signature` then covers
//! the `EncryptedData` and verifies before decryption.

use vtdx_core::{Document, Node};

use super::alg::XENC_NS;
use super::encrypt::{check_targets, edit_err, plaintext, random_hex, write_encrypted, Encryptor};
use super::error::{EncError, EncErrorKind};
use super::key::EncKind;
use crate::alg::DSIG_NS;
use crate::wss::{SoapMessage, WSSE_NS};

/// Options of WS-Security encryption ([`Encryptor::encrypt_wss`]).
#[derive(Debug, Clone)]
pub struct WssEncryptOptions {
    /// Encrypt the content of the SOAP Body (default true).
    pub body: bool,
    /// Put `mustUnderstand` on a Security header this creates (default true).
    pub must_understand: bool,
}

impl Default for WssEncryptOptions {
    fn default() -> Self {
        WssEncryptOptions { body: true, must_understand: true }
    }
}

impl Encryptor {
    /// Encrypts a SOAP message for WS-Security: the Body's content (unless
    /// `options.body` is false) as `Type` Content and each of `extra` (header
    /// blocks, a `ds:Signature`...) as `Type` Element, all under one session
    /// key, sent in an `xenc:EncryptedKey` (with the `ReferenceList`) that is
    /// prepended to the `wsse:Security` header (made, with the `Header`, when
    /// missing). With a direct AES key the header gets a `xenc:ReferenceList`
    /// and each `EncryptedData` the key's `KeyName`.
    pub fn encrypt_wss<'d>(&self, doc: &'d Document<'d>, options: &WssEncryptOptions, extra: &[Node<'d>]) -> Result<Vec<u8>, EncError> {
        self.check_algorithm()?;
        let soap = SoapMessage::parse(doc)
            .map_err(|e| EncError::new(EncErrorKind::Malformed(format!("SOAP message: {e}"))))?
            .ok_or_else(|| EncError::new(EncErrorKind::NotSoap))?;
        let mut targets: Vec<(Node<'d>, bool)> = Vec::new();
        if options.body {
            targets.push((soap.body, true));
        }
        for &e in extra {
            if e == soap.body {
                if !options.body {
                    targets.push((e, true));
                }
                continue;
            }
            if soap.security.is_some_and(|s| s == e || s.is_within(e)) || e == soap.envelope || Some(e) == soap.header {
                return Err(EncError::at(
                    EncErrorKind::Encrypt(format!("{} cannot be encrypted: it holds the Security header or is the Envelope", e.name())),
                    e.range().start,
                ));
            }
            targets.push((e, false));
        }
        let nodes: Vec<Node<'d>> = targets.iter().map(|(n, _)| *n).collect();
        check_targets(doc, &nodes)?;
        let session = self.session_key()?;
        let ek_id = format!("EK-{}", random_hex(&self.provider, 16));
        let direct = matches!(self.key.kind, EncKind::Direct(_));
        let data_key_info = if direct {
            self.recipient_key_info(true)
        } else {
            format!(
                r##"<ds:KeyInfo xmlns:ds="{DSIG_NS}"><wsse:SecurityTokenReference xmlns:wsse="{WSSE_NS}"><wsse:Reference URI="#{ek_id}" ValueType="{}"/></wsse:SecurityTokenReference></ds:KeyInfo>"##,
                super::alg::WSS_ENCRYPTED_KEY
            )
        };
        let mut ids = Vec::with_capacity(targets.len());
        let mut parts = Vec::with_capacity(targets.len());
        for (t, content) in &targets {
            let id = format!("ED-{}", random_hex(&self.provider, 16));
            parts.push(self.seal(*t, *content, Some(&id), &data_key_info, &session, plaintext(doc, *t, *content))?);
            ids.push(id);
        }
        let entry = match self.encrypted_key(&session, Some(&ek_id), &ids, true)? {
            Some(ek) => ek,
            None => {
                let mut s = format!(r#"<xenc:ReferenceList xmlns:xenc="{XENC_NS}">"#);
                for r in &ids {
                    s.push_str(&format!(r##"<xenc:DataReference URI="#{r}"/>"##));
                }
                s.push_str("</xenc:ReferenceList>");
                s
            }
        };
        let out = write_encrypted(doc, &parts, |ed| {
            crate::wss::insert_security_header(ed, &soap, options.must_understand, &entry, true).map_err(edit_err)
        });
        self.keep_buffers(parts);
        out
    }
}
