//! The second pass's input: the document text with every reference to an
//! entity whose replacement text holds markup replaced by that text, so the
//! scanner can index the markup.

use memchr::memchr;

use crate::document::EntityExpansion;
use crate::dtd::{Dtd, EntityValue};
use crate::error::{Error, ErrorKind, LimitKind};

use super::api::Parsed;
use super::{EntState, Parser};

impl Parser {
    /// Builds the text with every content reference to an entity with markup
    /// replaced by its replacement text (recursively for nested markup entities).
    /// `regions` receives each replaced reference with its expansion, to map
    /// error positions back to the input.
    pub(super) fn expand(&mut self, text: &[u8], first: &Parsed, regions: &mut Vec<EntityExpansion>) -> Result<Vec<u8>, Error> {
        let dtd = first.dtd.as_deref();
        let mut out = Vec::with_capacity(text.len() + 1024);
        let mut last = 0;
        let refs = std::mem::take(&mut self.st.markup_refs);
        for (s, e, name) in &refs {
            out.extend_from_slice(&text[last..*s]);
            let xs = out.len();
            self.expand_entity(name, dtd, &mut out, 0, text, *s)?;
            regions.push(EntityExpansion { reference: *s..*e, expansion: xs..out.len() });
            last = *e;
        }
        out.extend_from_slice(&text[last..]);
        Ok(out)
    }

    fn expand_entity(&self, name: &str, dtd: Option<&Dtd>, out: &mut Vec<u8>, depth: u32, text: &[u8], at: usize) -> Result<(), Error> {
        let repl = match dtd.and_then(|d| d.entity(name)).map(|e| &e.value) {
            Some(EntityValue::Internal(r)) => r.as_bytes(),
            _ => return Ok(()),
        };
        if depth > self.opts.limits.max_entity_depth || out.len() as u64 > self.opts.limits.max_entity_expansion_bytes + text.len() as u64 {
            return Err(Error::at(
                ErrorKind::LimitExceeded {
                    limit: LimitKind::EntityExpansionBytes,
                    value: out.len() as u64,
                    max: self.opts.limits.max_entity_expansion_bytes,
                },
                text,
                at,
            ));
        }
        let refs = match self.st.entities.get(name) {
            Some(EntState::Checked { refs, .. }) => refs.clone(),
            _ => Vec::new(),
        };
        let mut last = 0;
        let mut state = CopyState::Content;
        for (s, e, inner) in &refs {
            copy_replacement(&repl[last..*s], &mut state, out);
            self.expand_entity(inner, dtd, out, depth + 1, text, at)?;
            last = *e;
        }
        copy_replacement(&repl[last..], &mut state, out);
        Ok(())
    }
}

/// Where [`copy_replacement`] is inside an entity's replacement text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CopyState {
    Content,
    Tag,
    Value(u8),
    Comment,
    Pi,
    Cdata,
}

/// Copies replacement text into the expanded document. Replacement text had its
/// line ends normalized when the entity was declared, so a CR in it came from a
/// character reference and must stay a CR: in character data it is written back as
/// `&#13;`, in an attribute value as a space (what normalization makes of it there),
/// and in a CDATA section by closing the section around `&#13;`. (In comments and
/// PIs it stays raw and reads as LF: a documented deviation.)
fn copy_replacement(r: &[u8], state: &mut CopyState, out: &mut Vec<u8>) {
    if memchr(b'\r', r).is_none() {
        // no CR: the state still has to follow the markup for later segments, but
        // segments end at references in content, so only Content matters there
        out.extend_from_slice(r);
        *state = CopyState::Content;
        return;
    }
    let mut i = 0;
    while i < r.len() {
        let b = r[i];
        match *state {
            CopyState::Content => {
                if b == b'<' {
                    let rest = &r[i..];
                    *state = if rest.starts_with(b"<!--") {
                        out.extend_from_slice(b"<!--");
                        i += 4;
                        CopyState::Comment
                    } else if rest.starts_with(b"<![CDATA[") {
                        out.extend_from_slice(b"<![CDATA[");
                        i += 9;
                        CopyState::Cdata
                    } else if rest.starts_with(b"<?") {
                        out.extend_from_slice(b"<?");
                        i += 2;
                        CopyState::Pi
                    } else {
                        out.push(b'<');
                        i += 1;
                        CopyState::Tag
                    };
                    continue;
                }
                if b == b'\r' {
                    out.extend_from_slice(b"&#13;");
                } else {
                    out.push(b);
                }
            }
            CopyState::Tag => {
                out.push(b);
                if b == b'"' || b == b'\'' {
                    *state = CopyState::Value(b);
                } else if b == b'>' {
                    *state = CopyState::Content;
                }
            }
            CopyState::Value(q) => {
                if b == b'\r' {
                    out.push(b' ');
                } else {
                    out.push(b);
                    if b == q {
                        *state = CopyState::Tag;
                    }
                }
            }
            CopyState::Comment | CopyState::Pi => {
                let end: &[u8] = if *state == CopyState::Comment { b"-->" } else { b"?>" };
                if r[i..].starts_with(end) {
                    out.extend_from_slice(end);
                    i += end.len();
                    *state = CopyState::Content;
                    continue;
                }
                out.push(b);
            }
            CopyState::Cdata => {
                if r[i..].starts_with(b"]]>") {
                    out.extend_from_slice(b"]]>");
                    i += 3;
                    *state = CopyState::Content;
                    continue;
                }
                if b == b'\r' {
                    out.extend_from_slice(b"]]>&#13;<![CDATA[");
                } else {
                    out.push(b);
                }
            }
        }
        i += 1;
    }
}
