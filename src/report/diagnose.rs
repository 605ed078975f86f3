//! Why a bundle failed to load, in words a user can act on. Loading stops at the first problem
//! it meets, often a SHA256SUMS mismatch, which names the file but not what is wrong with it;
//! `execscope check` goes on and parses every file. On a failed load the front ends (the
//! command line and the dashboard's status line) put check's own findings first and the next
//! step last: `data/corpus.jsonl:872: file is truncated …; run execscope check DIR`.

use crate::bundle::{check, CheckReport, CheckStatus};
use std::path::Path;

/// The message for a load of `root` that failed with `error` (its text): the causes
/// `execscope check` finds beside the checksum mismatch, then the load's own error, then the
/// command that shows every check.
pub fn load_failure(root: &Path, error: &str) -> String {
    describe(root, error, diagnose(root).as_ref())
}

/// What `execscope check` finds in `root` after a failed load (`None`: not a bundle directory,
/// nothing to check).
pub fn diagnose(root: &Path) -> Option<CheckReport> {
    root.join("data").is_dir().then(|| check(root))
}

/// [`load_failure`]'s message from a check already run ([`diagnose`]).
pub fn describe(root: &Path, error: &str, report: Option<&CheckReport>) -> String {
    let shown = root.display();
    let Some(report) = report else {
        return format!("loading bundle {shown}: {error}");
    };
    let causes: Vec<&str> = report
        .items
        .iter()
        .filter(|i| i.status == CheckStatus::Fail && i.name != "sha256 sums")
        .map(|i| i.detail.as_str())
        .filter(|d| !error.contains(d))
        .collect();
    let next = format!("run `execscope check {shown}` for every check");
    if causes.is_empty() {
        format!("loading bundle {shown}: {error}; {next}")
    } else {
        format!(
            "loading bundle {shown}: {} (reported first as: {error}); {next}",
            causes.join("; ")
        )
    }
}
