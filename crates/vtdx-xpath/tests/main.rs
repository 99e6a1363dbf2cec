//! Integration tests: one binary, one module per area.

mod corpus;
mod differential;
mod shared;
mod spec;
