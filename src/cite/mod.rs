//! Offline citation auditing for agent-written research reports.
//!
//! Two pure, index-independent halves: [`parse`] finds every citation in a markdown report
//! and the claim it supports; [`support`] scores how well evidence sentences support a
//! claim, lexically. Neither touches the Wikipedia index, so both can be tested on their
//! own; module paths are relative (`super::`) so the tree can move under `cite/` unchanged.

pub mod parse;
pub mod support;
