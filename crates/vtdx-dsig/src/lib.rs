//! # vtdx-dsig
//!
//! XML Signature 1.1 (and 1.0) verification and signing on the vtdx token
//! index, with the secure defaults twenty years of signature-wrapping and
//! key-confusion attacks call for, and the WS-Security 1.1 header (Timestamp,
//! BinarySecurityToken, SecurityTokenReference, UsernameToken).
//!
//! * **Keys come from the caller**: a [`Verifier`] holds the caller's
//!   [`VerifyingKey`]s (public keys, certificates, HMAC secrets). A message's
//!   `KeyInfo` may *select* among them; a `KeyValue`, certificate or
//!   `RetrievalMethod` in the message never supplies one.
//! * **Same-document references only**: `URI=""`, `#id`, `#xpointer(/)`,
//!   `#xpointer(id('id'))`. Anything else is refused, never opened.
//! * **Streaming digests**: each Reference is canonicalized straight into the
//!   hash (a digest context is a [`std::io::Write`]); the canonical bytes are
//!   never collected.
//! * **The verified view**: [`Verified`] says which nodes (handles and byte
//!   ranges) each Reference covered, and [`Verified::covers`] whether the node
//!   the application will read — located by position, not by ID — is among them.
//! * **SOAP and WS-Security**: for a SOAP message, [`Verifier::verify`] also
//!   applies the SOAP rules (no DOCTYPE, one Envelope, one Body, `mustUnderstand`)
//!   and checks the Timestamp's freshness; [`UsernameTokenValidator`] checks a
//!   UsernameToken against the caller's password, with a [`ReplayCache`].
//! * **Signing** ([`Signer`]): enveloped, detached (elements chosen by XPath)
//!   and the WS-Security header, inserted with the core's `Editor` so every
//!   byte outside the new markup stays as it was.
//!
//! ```
//! use vtdx_dsig::{Verifier, VerifyConfig, VerifyingKey};
//!
//! // an enveloped HMAC-SHA256 signature over the whole document (key "secret")
//! let msg = br#"<doc><v>42</v><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo><CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/><SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#hmac-sha256"/><Reference URI=""><Transforms><Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/><Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/></Transforms><DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><DigestValue>wBxOKYCpIqqIl/S4cChKOBdxZJyAnNcqWjQIWjX6gac=</DigestValue></Reference></SignedInfo><SignatureValue>fx99GPY3snSzJz7IGAui4vzSylc6XbkIdm29LQndvA4=</SignatureValue></Signature></doc>"#;
//! let doc = vtdx_core::Document::parse(msg)?;
//! let verifier = Verifier::new(VerifyConfig::default(), vec![VerifyingKey::hmac(b"secret")?]);
//! let verified = verifier.verify(&doc)?;
//! let v = doc.root_element().first_element_child().unwrap();
//! assert!(verified.covers(doc.root_element()) && verified.covers(v));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What verification guarantees, and what stays the application's job, is
//! written down in `docs/dsig.md`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod alg;
mod config;
pub mod crypto;
pub mod enc;
mod error;
pub mod key;
mod keyinfo;
mod pipe;
mod reference;
mod sign;
mod signature;
pub mod time;
mod trust;
mod verify;
pub mod wss;

pub use alg::{DigestAlgorithm, SignatureAlgorithm};
pub use config::{VerifyConfig, VerifyConfigBuilder};
pub use crypto::{AwsLcProvider, CryptoProvider, DigestContext};
pub use error::{Error, ErrorKind};
pub use key::{Certificate, Curve, KeyMaterial, VerifyingKey};
pub use sign::{select_elements, SignConfig, Signer, SigningKey, WssOptions};
pub use trust::{Crl, TrustStore};
pub use verify::{KeyProvider, Verified, VerifiedReference, VerifiedSignature, Verifier};
pub use wss::{InMemoryReplayCache, ReplayCache, SoapMessage, SoapVersion, UsernameTokenInfo, UsernameTokenValidator};
