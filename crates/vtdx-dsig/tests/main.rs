//! The integration tests of vtdx-dsig: one binary.

mod attacks;
mod conformance;
mod interop;
mod sign;
mod wss;
mod xmlenc;
mod xmlenc_agree;
mod xmlenc_conformance;
mod xmlenc_interop;
