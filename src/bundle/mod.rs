//! bundle
