//! The report's sections, grouped by what they tell the reader; `report::document` calls them in reading order.
//! A new section is a function in the file of its kind (or a new file here) and one call in `report::document`.

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
