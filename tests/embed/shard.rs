//! `embed --shard i/n` + `execscope merge`: the merged system equals a one-machine `embed`, byte
//! for byte (npz, invocation table, SHA256SUMS), on the tiny fixture with the smallest model
//! (skipped by name without the embedding environment). Without the models, the merge itself:
//! the embedded bundle's real paraphrase-MiniLM-L3-v2 vectors split into shard files and merged
//! back give the same matrices and ids, and merge refuses a missing shard, conflicting vectors,
//! a row whose text changed, and shards of different inputs.

use crate::common;

use execscope::bundle::npy::Npz;
use std::path::{Path, PathBuf};

use common::embed_env_or_skip as env_or_skip;

fn tiny(to: &Path) {
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny"),
        to,
    );
}

#[test]
fn embed_shards_merge_to_the_one_machine_system() {
    let Some(env) = env_or_skip("shard_embed::embed_shards_merge_to_the_one_machine_system") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (whole, sharded) = (tmp.path().join("whole"), tmp.path().join("sharded"));
    tiny(&whole);
    tiny(&sharded);
    let embed = |root: &Path, extra: &[&str]| {
        let mut c = common::execscope();
        c.env("EXECSCOPE_EMBED_ENV", &env.dir)
            .arg("embed")
            .arg(root)
            .args(["--model", "MiniLM-L3", "--name", "l3", "--batch-size", "2"])
            .args(extra);
        String::from_utf8(common::stdout_ok(&mut c)).unwrap()
    };
    embed(&whole, &[]);
    let parts: Vec<PathBuf> = (0..3).map(|i| tmp.path().join(format!("p{i}"))).collect();
    let mut owned = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        let out = embed(
            &sharded,
            &["--shard", &format!("{i}/3"), "--out", p.to_str().unwrap()],
        );
        assert!(out.contains(&format!("shard {i}/3: ")), "{out}");
        owned.push(
            std::fs::read_to_string(p.join("embed-rows.jsonl"))
                .unwrap()
                .lines()
                .count(),
        );
    }
    assert_eq!(owned.iter().sum::<usize>(), 15, "{owned:?}");
    assert!(owned.iter().filter(|&&n| n > 0).count() >= 2, "{owned:?}");
    assert!(
        !sharded.join("embeddings/l3.npz").exists(),
        "a shard wrote into the bundle"
    );
    // A shard rerun keeps its rows.
    let again = embed(
        &sharded,
        &["--shard", "0/3", "--out", parts[0].to_str().unwrap()],
    );
    assert!(again.contains(&format!("{} reused", owned[0])), "{again}");
    let mut c = common::execscope();
    c.arg("merge").args(&parts).arg("--out").arg(&sharded);
    common::stdout_ok(&mut c);
    for f in [
        "embeddings/l3.npz",
        "results/invocation_table.json",
        "SHA256SUMS",
    ] {
        assert!(
            std::fs::read(whole.join(f)).unwrap() == std::fs::read(sharded.join(f)).unwrap(),
            "{f} differs between the one-machine and the merged run"
        );
    }
}

/// The rows of `name`'s npz in the bundle at `root`, in npz order, with section and id.
fn rows_of(root: &Path, name: &str) -> Vec<(String, String, Vec<f32>)> {
    let path = root.join(format!("embeddings/{name}.npz"));
    let bytes = std::fs::read(&path).unwrap();
    let mut z = Npz::open(&path, &bytes).unwrap();
    let mut out = Vec::new();
    for (m, ids) in [
        ("queries", "query_ids"),
        ("corpus", "corpus_ids"),
        ("stacked", "stacked_ids"),
    ] {
        let mat = z.matrix(m).unwrap();
        let ids = z.strings(ids).unwrap();
        let section = if m == "queries" { "queries" } else { m };
        for (row, id) in mat.rows().into_iter().zip(ids) {
            out.push((section.to_string(), id, row.to_vec()));
        }
    }
    out
}

fn text_sha(root: &Path) -> Vec<String> {
    let b = execscope::bundle::load(
        root,
        &execscope::bundle::LoadOptions {
            verify_checksums: false,
            systems: None,
            skip_embeddings: true,
        },
    )
    .unwrap();
    b.queries
        .iter()
        .map(|q| q.text.clone())
        .chain(b.corpus.iter().map(|c| c.code.clone()))
        .chain(b.stacked.iter().map(|v| v.code.clone()))
        .map(|t| execscope::bundle::sha256_hex(t.as_bytes()))
        .collect()
}

/// Writes shard `i` of `n` of `rows` (rows assigned by blocks of 32) as `embed --shard` does.
fn write_part(
    dir: &Path,
    i: u32,
    n: u32,
    rows: &[(String, String, Vec<f32>)],
    sha: &[String],
    entry: &serde_json::Value,
) {
    std::fs::create_dir_all(dir).unwrap();
    let mut lines = String::new();
    for (r, (section, id, v)) in rows.iter().enumerate() {
        if (r / 32) as u32 % n != i {
            continue;
        }
        let hex: String = v
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .map(|b| format!("{b:02x}"))
            .collect();
        lines.push_str(
            &serde_json::json!({"row": r, "section": section, "id": id,
                "text_sha256": sha[r], "f32le_hex": hex})
            .to_string(),
        );
        lines.push('\n');
    }
    std::fs::write(dir.join("embed-rows.jsonl"), lines).unwrap();
    std::fs::write(dir.join("entry.json"), entry.to_string()).unwrap();
    let manifest = serde_json::json!({
        "kind": "embed", "shard": {"index": i, "count": n}, "state": "done",
        "inputs": {"model": "\"paraphrase-MiniLM-L3-v2\"", "batch_size": "32", "stacked": "true"},
        "source": "paraphrase-MiniLM-L3-v2", "isolation": "none (no snippet is executed)",
        "privileges": "", "runner": "split from the embedded bundle", "budget_ms": 0,
        "execscope": "test", "pending": 0, "phase": null, "executed": 0, "reused": 0,
    });
    std::fs::write(dir.join("shard.json"), manifest.to_string()).unwrap();
}

#[test]
fn merge_of_real_rows_and_its_refusals() {
    let name = "paraphrase-MiniLM-L3-v2";
    let (tmp, root) = common::copy_embedded();
    let rows = rows_of(&root, name);
    let sha = text_sha(&root);
    assert_eq!(rows.len(), sha.len(), "the npz has every text's row");
    let table: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("results/invocation_table.json")).unwrap())
            .unwrap();
    let entry = table["systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == name)
        .unwrap()
        .clone();
    std::fs::remove_file(root.join(format!("embeddings/{name}.npz"))).unwrap();
    let parts: Vec<PathBuf> = (0..3).map(|i| tmp.path().join(format!("p{i}"))).collect();
    for (i, p) in parts.iter().enumerate() {
        write_part(p, i as u32, 3, &rows, &sha, &entry);
    }
    let merge = |parts: &[PathBuf]| {
        let mut c = common::execscope();
        c.arg("merge").args(parts).arg("--out").arg(&root);
        c.output().unwrap()
    };
    let refused = |parts: &[PathBuf], what: &str| {
        let o = merge(parts);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "not refused ({what}): {err}");
        assert!(err.contains(what), "expected {what:?} in: {err}");
        assert!(!root.join(format!("embeddings/{name}.npz")).exists());
    };
    refused(&parts[..2], "missing shard(s) 2 of 3");
    // The same shard twice, one copy with a vector changed.
    let bad = tmp.path().join("p1-bad");
    write_part(&bad, 1, 3, &rows, &sha, &entry);
    let text = std::fs::read_to_string(bad.join("embed-rows.jsonl")).unwrap();
    let at = text.find("\"f32le_hex\":\"").unwrap() + 13;
    let flipped = if &text[at..at + 1] == "0" { "1" } else { "0" };
    std::fs::write(
        bad.join("embed-rows.jsonl"),
        format!("{}{flipped}{}", &text[..at], &text[at + 1..]),
    )
    .unwrap();
    let mut with_bad = parts.clone();
    with_bad.push(bad);
    refused(&with_bad, "conflicting vectors for row 32");
    // Shards of another model setting.
    let other = tmp.path().join("p2-other");
    write_part(&other, 2, 3, &rows, &sha, &entry);
    let m = std::fs::read_to_string(other.join("shard.json")).unwrap();
    std::fs::write(other.join("shard.json"), m.replace("\"32\"", "\"16\"")).unwrap();
    refused(
        &[parts[0].clone(), parts[1].clone(), other],
        "different runs",
    );

    // All three: the system is back, with the same vectors and ids.
    let o = merge(&parts);
    common::assert_ok(&o);
    assert_eq!(
        rows_of(&root, name),
        rows,
        "merged vectors differ from the split ones"
    );
    let table2: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("results/invocation_table.json")).unwrap())
            .unwrap();
    assert_eq!(table2, table, "the invocation table changed");
    // SHA256SUMS lists the new npz with its hash.
    let npz = std::fs::read(root.join(format!("embeddings/{name}.npz"))).unwrap();
    let sums = std::fs::read_to_string(root.join("SHA256SUMS")).unwrap();
    let want = format!(
        "{}  embeddings/{name}.npz",
        execscope::bundle::sha256_hex(&npz)
    );
    assert!(sums.lines().any(|l| l == want), "{want} not in SHA256SUMS");

    // A corpus text changed in the bundle since the shards ran: refused, naming the row.
    let corpus = root.join("data/corpus.jsonl");
    let text = std::fs::read_to_string(&corpus).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let code = first["code"].as_str().unwrap();
    let changed = text.replacen(
        &serde_json::to_string(code).unwrap(),
        &serde_json::to_string(&format!("{code}# changed\n")).unwrap(),
        1,
    );
    assert_ne!(changed, text);
    std::fs::write(&corpus, changed).unwrap();
    std::fs::remove_file(root.join(format!("embeddings/{name}.npz"))).unwrap();
    refused(
        &parts,
        &format!(
            "row {} is corpus {}",
            332,
            first["corpus_id"].as_str().unwrap()
        ),
    );
}
