//! Integration tests for vtdx-core, built as one test binary.
//!
//! Expected results are taken from the XML 1.0 (Fifth Edition) and Namespaces in
//! XML 1.0 specifications and from the documented API, never from running vtdx.

mod common;
mod defaults;
mod edit;
mod hostile;
mod navigation;
mod properties;
mod regressions;
mod syntax;
mod template;
