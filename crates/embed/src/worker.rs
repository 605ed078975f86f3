//! The client side of the embedding worker: one Python process per [`Worker`], kept alive so a
//! model loads once and each later request costs only its forward pass.
//!
//! Protocol (JSON lines; see `crates/embed/assets/embed_worker.py`): each request is one object on the
//! worker's stdin, each answer one object on its stdout, in order. Vectors come back as
//! little-endian float32 bytes in hex, so they arrive bit-exact. The worker's output is treated
//! as data: every answer is parsed and checked (row count, dimension, finite values) before use.

use super::{EmbedEnv, ModelSpec};
use anyhow::{anyhow, bail, Context};
use ndarray::Array2;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// Which side of the retrieval a text is on (models with prefixes treat them differently).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Query,
    Passage,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Query => "query",
            Role::Passage => "passage",
        }
    }
}

/// What the worker reports about a loaded model (for the invocation table).
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct ModelInfo {
    pub kind: String,
    pub folder: String,
    pub dims: usize,
    pub max_seq_length: Option<usize>,
    pub runtime: String,
    pub weights_sha256: String,
    pub packages: std::collections::BTreeMap<String, String>,
    pub origin: String,
}

/// A running worker process.
pub struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// Environment of the worker: offline, two threads (the machine's budget), no tokenizer pool.
/// OpenMP threads wait passively: spinning idle threads of one worker starve the others and
/// anything else on the machine (measured with `benches/probe.rs` on 2 cores beside a compiler:
/// all-mpnet-base-v2's warm live query 1,016 ms spinning, 76–80 ms passive; Enter on every
/// system 521 ms → 100–155 ms).
const ENV: &[(&str, &str)] = &[
    ("HF_HUB_OFFLINE", "1"),
    ("TRANSFORMERS_OFFLINE", "1"),
    ("OMP_NUM_THREADS", "2"),
    ("MKL_NUM_THREADS", "2"),
    ("OMP_WAIT_POLICY", "PASSIVE"),
    ("TOKENIZERS_PARALLELISM", "false"),
    ("PYTHONDONTWRITEBYTECODE", "1"),
];

impl Worker {
    /// Start a worker in `env` (which must be ready). Its stderr (library chatter) is discarded
    /// unless `$EXECSCOPE_EMBED_DEBUG` is set.
    pub fn spawn(env: &EmbedEnv) -> anyhow::Result<Worker> {
        if !env.is_ready() {
            bail!("{}", env.absence());
        }
        let script = env.worker_script()?;
        let mut cmd = Command::new(env.python());
        // -I: no user site, no PYTHON* variables, the script's folder not on the path.
        cmd.arg("-I").arg(&script);
        for (k, v) in ENV {
            cmd.env(k, v);
        }
        let debug = std::env::var_os("EXECSCOPE_EMBED_DEBUG").is_some();
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if debug {
                Stdio::inherit()
            } else {
                Stdio::null()
            });
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {}", env.python().display()))?;
        let stdin = child.stdin.take().context("worker stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("worker stdout")?);
        let mut w = Worker {
            child,
            stdin,
            stdout,
        };
        w.request(&json!({"op": "ping"}))
            .context("the embedding worker did not start")?;
        Ok(w)
    }

    fn request(&mut self, req: &Value) -> anyhow::Result<Value> {
        let mut line = serde_json::to_string(req)?;
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|_| self.stdin.flush())
            .context("writing to the embedding worker (it exited?)")?;
        let mut answer = String::new();
        let n = self
            .stdout
            .read_line(&mut answer)
            .context("reading from the embedding worker")?;
        if n == 0 {
            bail!("the embedding worker exited (set EXECSCOPE_EMBED_DEBUG=1 to see its messages)");
        }
        let v: Value = serde_json::from_str(&answer).map_err(|e| {
            anyhow!(
                "the embedding worker sent a line that is not JSON ({e}): {:.80}",
                answer
            )
        })?;
        if v.get("ok") != Some(&Value::Bool(true)) {
            let err = v
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("no error message");
            bail!("embedding worker: {err}");
        }
        Ok(v)
    }

    fn base(op: &str, spec: &ModelSpec) -> Value {
        json!({
            "op": op,
            "model": spec.model,
            "device": spec.device,
            "max_seq_length": spec.max_seq_length,
            "batch_size": spec.batch_size,
            "query_prefix": spec.query_prefix,
            "passage_prefix": spec.passage_prefix,
        })
    }

    /// Load the model (if not yet loaded) and describe it.
    pub fn info(&mut self, spec: &ModelSpec) -> anyhow::Result<ModelInfo> {
        let v = self.request(&Self::base("info", spec))?;
        serde_json::from_value(v.get("info").cloned().unwrap_or(Value::Null))
            .context("embedding worker: malformed model info")
    }

    /// Embed texts: one L2-normalised float32 row per text.
    pub fn encode(
        &mut self,
        spec: &ModelSpec,
        role: Role,
        texts: &[String],
    ) -> anyhow::Result<Array2<f32>> {
        let mut req = Self::base("encode", spec);
        req["role"] = json!(role.as_str());
        req["texts"] = json!(texts);
        let v = self.request(&req)?;
        let rows = v.get("rows").and_then(Value::as_u64).unwrap_or(u64::MAX) as usize;
        let dims = v.get("dims").and_then(Value::as_u64).unwrap_or(0) as usize;
        let hex = v.get("f32le_hex").and_then(Value::as_str).unwrap_or("");
        if rows != texts.len() || dims == 0 || hex.len() != rows * dims * 8 {
            bail!(
                "embedding worker: answer of {rows} × {dims} ({} hex digits) for {} texts",
                hex.len(),
                texts.len()
            );
        }
        let bytes = decode_hex(hex).context("embedding worker: bad hex")?;
        let data: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if let Some(i) = data.iter().position(|x| !x.is_finite()) {
            bail!(
                "embedding worker: text {} got a non-finite vector ({})",
                i / dims,
                spec.model
            );
        }
        Ok(Array2::from_shape_vec((rows, dims), data)?)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn decode_hex(s: &str) -> Option<Vec<u8>> {
    fn nib(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    s.as_bytes()
        .chunks_exact(2)
        .map(|p| Some((nib(p[0])? << 4) | nib(p[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_roundtrip() {
        let v = 1.5f32.to_le_bytes();
        let hex: String = v.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(super::decode_hex(&hex).unwrap(), v.to_vec());
        assert!(super::decode_hex("zz").is_none());
    }
}
