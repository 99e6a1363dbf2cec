//! Integration tests of vtdx-schema (one binary; one module per area).

mod datatypes;
mod occurrence_counts;
mod oracle_cases;
mod regex;
mod schema_documents;
mod schema_location;
mod structures;
