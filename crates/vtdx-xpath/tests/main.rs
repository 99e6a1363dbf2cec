//! Integration tests: one binary, one module per area.

mod spec;
mod corpus;
mod differential;
