//! The report's sections, grouped by what they tell the reader; `report::document_with` calls them in reading order.
//! A new section is a function in the file of its kind (or a new file here) and one call in `report::document_with`.

pub mod decision;
pub mod figures;
pub mod notes;
pub mod profile;
pub mod published;
pub mod setup;
pub mod shape;
pub mod summary;
pub mod verdicts;
pub mod warmup;
