//! A readable dump of the token index, in the format `docs/index-format.md` uses.

use std::io::{self, Write};

use crate::document::Document;
use crate::error::snippet;
use crate::index::*;

/// Writes one line per record: word index, kind, the record's words, and the bytes it points at.
pub fn dump_index<W: Write>(doc: &Document<'_>, mut w: W) -> io::Result<()> {
    let t = doc.tape();
    let text = doc.text();
    writeln!(w, "{:>6}  {:<7} {:<40} bytes", "word", "kind", "fields")?;
    let mut i = 0usize;
    while i < t.len() {
        let k = kind_of(t[i]);
        let sym = crate::Sym::new(t[i] & PAYLOAD_MASK);
        let n = words_of(k) as usize;
        let (name, fields, span) = match k {
            K_ELEM => (
                "elem",
                format!("sym={} off={} next={} parent={} end={}", sym.as_u32(), t[i + 1], t[i + 2], fmt_parent(t[i + 3]), t[i + 4]),
                (t[i + 1] as usize, t[i + 4] as usize),
            ),
            K_ATTR | K_NSDECL => {
                let off = t[i + 1] as usize;
                let qlen = doc.names().qname(sym).len();
                (if k == K_ATTR { "attr" } else { "nsdecl" }, format!("sym={} off={}", sym.as_u32(), off), (off, off + qlen))
            }
            K_ATTR_DEFAULT | K_NSDECL_DEFAULT => {
                // no bytes: show the declaration's name and value
                let decl = t[i + 1];
                let name = if k == K_ATTR_DEFAULT { "attr*" } else { "nsdecl*" };
                (name, format!("sym={} decl={}", sym.as_u32(), decl), (0, 0))
            }
            _ => (
                match k {
                    K_COMMENT => "comment",
                    K_PI => "pi",
                    _ => "cdata",
                },
                format!("off={} end={} parent={}", t[i + 1], t[i + 2], fmt_parent(t[i + 3])),
                (t[i + 1] as usize, t[i + 2] as usize),
            ),
        };
        let shown = if matches!(k, K_ATTR_DEFAULT | K_NSDECL_DEFAULT) {
            let value = doc.dtd().and_then(|d| d.attributes.get(t[i + 1] as usize)).and_then(|a| a.value.as_deref()).unwrap_or("");
            format!("(default) {}=\"{}\"", doc.names().qname(sym), snippet(value.as_bytes(), 40))
        } else {
            snippet(&text[span.0..span.1.min(text.len())], 40)
        }
        .replace('\n', "\\n");
        writeln!(w, "{:>6}  {:<7} {:<40} {}", i, name, fields, shown)?;
        i += n;
    }
    writeln!(w, "{} words ({} bytes) for {} input bytes", t.len(), t.len() * 4, text.len())?;
    Ok(())
}

fn fmt_parent(p: u32) -> String {
    if p == NONE {
        "-".into()
    } else {
        p.to_string()
    }
}
