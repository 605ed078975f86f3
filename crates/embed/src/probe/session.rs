//! A dashboard session's counterfactual edits: the query text or a snippet's code, per query, in
//! order (undo takes the last one back). They are mirrored to a scratch file of the session
//! (`<temp>/execscope-session-<pid>/edits.jsonl`, rewritten atomically on every change) so a
//! crash loses nothing, and never written into the bundle.

use super::{ProbeQuery, ProbeRequest};
use std::path::PathBuf;

/// What an edit changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Query,
    /// A corpus row.
    Snippet(usize),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    /// Query row.
    pub query: usize,
    pub target: Target,
    pub text: String,
}

#[derive(Debug)]
pub struct Session {
    edits: Vec<Edit>,
    dir: PathBuf,
}

impl Default for Session {
    fn default() -> Self {
        Session::new(std::env::temp_dir().join(format!("execscope-session-{}", std::process::id())))
    }
}

impl Session {
    /// A session whose scratch files live in `dir` (created on the first edit).
    pub fn new(dir: PathBuf) -> Session {
        Session {
            edits: Vec::new(),
            dir,
        }
    }

    /// The scratch folder (snippets handed to `$EDITOR` are written here too).
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// The scratch log of the edits.
    pub fn log_path(&self) -> PathBuf {
        self.dir.join("edits.jsonl")
    }

    fn save(&self, ids: &dyn Fn(&Edit) -> (String, String)) -> std::io::Result<()> {
        let mut text = String::new();
        for e in &self.edits {
            let (q, target) = ids(e);
            let line = serde_json::json!({"query_id": q, "target": target, "text": e.text});
            text.push_str(&line.to_string());
            text.push('\n');
        }
        execscope_record::atomic::write_atomic(&self.log_path(), text.as_bytes())
    }

    /// Record an edit; `ids` names a query row and a target for the scratch file.
    pub fn push(
        &mut self,
        e: Edit,
        ids: &dyn Fn(&Edit) -> (String, String),
    ) -> std::io::Result<()> {
        self.edits.push(e);
        self.save(ids)
    }

    /// Take back the last edit of query `q`.
    pub fn undo(
        &mut self,
        q: usize,
        ids: &dyn Fn(&Edit) -> (String, String),
    ) -> std::io::Result<Option<Edit>> {
        let Some(i) = self.edits.iter().rposition(|e| e.query == q) else {
            return Ok(None);
        };
        let e = self.edits.remove(i);
        self.save(ids)?;
        Ok(Some(e))
    }

    /// Edits of query `q`.
    pub fn count(&self, q: usize) -> usize {
        self.edits.iter().filter(|e| e.query == q).count()
    }

    /// The current text of a target of query `q` (its last edit), if edited.
    pub fn current(&self, q: usize, target: &Target) -> Option<&str> {
        self.edits
            .iter()
            .rev()
            .find(|e| e.query == q && e.target == *target)
            .map(|e| e.text.as_str())
    }

    /// The probe of query `q` with its edits applied (None when it has none).
    pub fn request(&self, q: usize, k: usize, depth: usize) -> Option<ProbeRequest> {
        if self.count(q) == 0 {
            return None;
        }
        let mut rows: Vec<usize> = Vec::new();
        for e in self.edits.iter().filter(|e| e.query == q) {
            if let Target::Snippet(c) = e.target {
                if !rows.contains(&c) {
                    rows.push(c);
                }
            }
        }
        let replace = rows
            .into_iter()
            .map(|c| {
                let t = self.current(q, &Target::Snippet(c)).unwrap_or_default();
                (c, t.to_string())
            })
            .collect();
        Some(ProbeRequest {
            query: ProbeQuery::Stored {
                row: q,
                text: self.current(q, &Target::Query).map(str::to_string),
            },
            replace,
            systems: None,
            k,
            depth,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_stack_and_undo() {
        let tmp = tempfile::tempdir().unwrap();
        let mut s = Session::new(tmp.path().join("s"));
        let ids = |e: &Edit| {
            (
                format!("q{}", e.query),
                match e.target {
                    Target::Query => "query".to_string(),
                    Target::Snippet(c) => format!("c{c}"),
                },
            )
        };
        assert!(s.request(0, 1, 5).is_none());
        let edit = |q, target, text: &str| Edit {
            query: q,
            target,
            text: text.into(),
        };
        s.push(edit(0, Target::Snippet(3), "a"), &ids).unwrap();
        s.push(edit(0, Target::Query, "new words"), &ids).unwrap();
        s.push(edit(0, Target::Snippet(3), "b"), &ids).unwrap();
        s.push(edit(1, Target::Snippet(4), "c"), &ids).unwrap();
        let r = s.request(0, 1, 5).unwrap();
        assert_eq!(r.replace, vec![(3, "b".to_string())]);
        assert_eq!(
            r.query,
            ProbeQuery::Stored {
                row: 0,
                text: Some("new words".into())
            }
        );
        let log = std::fs::read_to_string(s.log_path()).unwrap();
        assert_eq!(log.lines().count(), 4);
        assert!(log.contains("\"target\":\"c3\""));
        // Undo takes back query 0's last edit only.
        assert_eq!(s.undo(0, &ids).unwrap().unwrap().text, "b");
        assert_eq!(
            s.request(0, 1, 5).unwrap().replace,
            vec![(3, "a".to_string())]
        );
        assert_eq!(s.count(1), 1);
        s.undo(0, &ids).unwrap();
        s.undo(0, &ids).unwrap();
        assert!(s.request(0, 1, 5).is_none());
        assert!(s.undo(0, &ids).unwrap().is_none());
        assert_eq!(
            std::fs::read_to_string(s.log_path())
                .unwrap()
                .lines()
                .count(),
            1
        );
    }
}
