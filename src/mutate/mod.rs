//! mutate
