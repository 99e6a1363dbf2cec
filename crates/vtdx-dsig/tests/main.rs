//! The integration tests of vtdx-dsig: one binary.

mod attacks;
mod conformance;
mod interop;
mod sign;
mod wss;
