//! Integration tests of the binary form: one binary (`tests/main.rs`) with modules.

mod common;
mod corpus;
mod damage;
mod limits;
mod properties;
