#!/usr/bin/env python3
"""Run `execscope build` over a Ray cluster, one Ray task per shard, then `execscope merge`.

    python cluster/execscope_ray.py --address auto --shards 4 --out OUT -- TASKS [build options]

What it does (docs/scale.md, "On a cluster"):

* ships the execscope binary to the workers (through Ray's object store; or, with
  `--binary-on-workers PATH`, uses one already installed there), and the task file;
* runs `execscope build TASKS --shard i/n` for every shard as a Ray task, in rounds: a build is a
  pipeline of gates, each needing every outcome of the one before, so each round runs every
  shard's pairs of the first phase with pending pairs, then merges; the merged memo goes back
  to the workers with the next round (`--memo-from`);
* retries a shard whose worker or node dies (`--max-retries`); on the same node the retry resumes
  from the shard's crash-safe memo, elsewhere from the last merged memo;
* prints progress as shards finish, and calls `execscope merge` on the driver at the end of each
  round, until the merge writes the bundle (byte-identical to a one-machine build).

Isolation is the workers': each shard starts the same oracle with the same choice (`auto`
unless `--isolation` says otherwise), which refuses to run below the strongest adequate level
rather than silently weaker. Every shard's manifest records the level it got, and `merge`
refuses shards of different levels.

Ray comes from PyPI, in a virtualenv of its own (`python3 -m venv target/ray-venv &&
target/ray-venv/bin/pip install ray`); execscope itself needs no Python package.
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

import ray

MEMO = ".execscope-build-memo.jsonl"
MANIFEST = "shard.json"
EXIT_ROUND = 3  # `execscope merge`: pairs still pending, run another round


def _die_with_parent():
    """In the execscope child: die when the Ray worker running it dies (SIGKILL included)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _worker_binary(blob, digest, path_on_worker):
    """The execscope binary on this node: the given path, or the shipped bytes cached by hash."""
    if path_on_worker:
        return path_on_worker
    cache = os.path.join(tempfile.gettempdir(), "execscope-ray-bin")
    os.makedirs(cache, exist_ok=True)
    exe = os.path.join(cache, "execscope-" + digest[:16])
    if not os.path.exists(exe):
        data = ray.get(blob[0])  # wrapped in a list: Ray fetches it only when needed
        tmp = exe + ".%d.tmp" % os.getpid()
        with open(tmp, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o755)
        os.replace(tmp, exe)
    return exe


@ray.remote(num_cpus=1)
def run_shard(run_id, index, count, blob, digest, bin_path, tasks_rel, tasks_bytes, memo_bytes,
              build_args, isolation):
    """One shard of one round, in a node-local directory that survives a retry on this node."""
    base = os.path.join(tempfile.gettempdir(), "execscope-ray", run_id)
    cwd = os.path.join(base, "cwd")
    out = os.path.join(base, "shard%d" % index)
    os.makedirs(out, exist_ok=True)
    tasks = os.path.join(cwd, tasks_rel)
    os.makedirs(os.path.dirname(tasks), exist_ok=True)
    if not os.path.exists(tasks):
        tmp = tasks + ".%d.tmp" % os.getpid()
        with open(tmp, "wb") as f:
            f.write(tasks_bytes)
        os.replace(tmp, tasks)
    cmd = [_worker_binary(blob, digest, bin_path), "build", tasks_rel, "--out", out,
           "--shard", "%d/%d" % (index, count)] + list(build_args)
    if memo_bytes is not None:
        memo = os.path.join(base, "merged-%d.jsonl" % index)
        with open(memo, "wb") as f:
            f.write(memo_bytes)
        cmd += ["--memo-from", memo]
    env = dict(os.environ)
    if isolation:
        env["EXECSCOPE_ISOLATION"] = isolation
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                       preexec_fn=_die_with_parent)
    if p.returncode != 0:
        raise RuntimeError("shard %d/%d failed (exit %d): %s" % (index, count, p.returncode,
                                                                 p.stderr.strip()[-2000:]))
    with open(os.path.join(out, MANIFEST), "rb") as f:
        manifest = f.read()
    with open(os.path.join(out, MEMO), "rb") as f:
        memo_out = f.read()
    node = "%s node %s" % (os.uname().nodename, ray.get_runtime_context().get_node_id()[:8])
    return index, node, manifest, memo_out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--address", default=None,
                    help="Ray cluster address (e.g. auto, or host:port); default: a local Ray")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--out", required=True, help="the bundle directory to write")
    ap.add_argument("--binary", default=None,
                    help="execscope on the driver (default: the one on PATH)")
    ap.add_argument("--binary-on-workers", default=None,
                    help="use this execscope path on every worker instead of shipping the binary")
    ap.add_argument("--workdir", default=None,
                    help="where the driver keeps the shards' results (default: OUT.shards)")
    ap.add_argument("--max-retries", type=int, default=3,
                    help="retries of a shard whose worker or node dies")
    ap.add_argument("--isolation", default=None,
                    help="oracle isolation on the workers (default: execscope's auto)")
    ap.add_argument("--max-rounds", type=int, default=10)
    ap.add_argument("build", nargs=argparse.REMAINDER,
                    help="-- TASKS [execscope build options, e.g. --seed N --stacked]")
    a = ap.parse_args()
    rest = [x for x in a.build if x != "--"] if a.build[:1] == ["--"] else a.build
    if not rest:
        ap.error("give the task file after --")
    tasks_path, build_args = rest[0], rest[1:]
    for bad in ("--out", "--shard", "--memo-from"):
        if bad in build_args:
            ap.error("%s is the driver's to set" % bad)
    if os.path.isabs(tasks_path) or ".." in tasks_path.split(os.sep):
        ap.error("give the task file as a path relative to here without `..` (the bundle "
                 "records it, and the workers recreate it under that name)")
    binary = a.binary or shutil.which("execscope")
    if not binary:
        ap.error("no execscope binary: pass --binary")
    with open(tasks_path, "rb") as f:
        tasks_bytes = f.read()
    with open(binary, "rb") as f:
        bin_bytes = f.read()
    digest = hashlib.sha256(bin_bytes).hexdigest()
    run_id = hashlib.sha256(tasks_bytes + digest.encode() + " ".join(build_args).encode()
                            + str(a.shards).encode()).hexdigest()[:16]
    work = a.workdir or a.out.rstrip("/") + ".shards"
    stamp = os.path.join(work, "RUN_ID")
    if os.path.exists(stamp) and open(stamp).read().strip() != run_id:
        shutil.rmtree(work)  # results of another run (other inputs or binary)
    os.makedirs(work, exist_ok=True)
    with open(stamp, "w") as f:
        f.write(run_id + "\n")

    ray.init(address=a.address, log_to_driver=False)
    blob = None if a.binary_on_workers else [ray.put(bin_bytes)]
    memo = None
    for round_no in range(1, a.max_rounds + 1):
        t0 = time.time()
        pending = {
            run_shard.options(max_retries=a.max_retries, retry_exceptions=False).remote(
                run_id, i, a.shards, blob, digest, a.binary_on_workers, tasks_path, tasks_bytes,
                memo, build_args, a.isolation): i
            for i in range(a.shards)
        }
        parts = []
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            ref = done[0]
            i = pending.pop(ref)
            index, node, manifest, memo_out = ray.get(ref)
            d = os.path.join(work, "shard%d" % index)
            os.makedirs(d, exist_ok=True)
            # The shard's rows of every round: a shard that moved to another node returns only
            # what it executed there.
            kept = os.path.join(d, MEMO)
            seen = set()
            if os.path.exists(kept):
                with open(kept, "rb") as f:
                    seen = set(f.read().splitlines())
            new = [ln for ln in memo_out.splitlines() if ln and ln not in seen]
            with open(kept, "ab") as f:
                for ln in new:
                    f.write(ln + b"\n")
            with open(os.path.join(d, MANIFEST), "wb") as f:
                f.write(manifest)
            parts.append(d)
            print("round %d: shard %d/%d done on %s (%d of %d, %.1f s)"
                  % (round_no, i, a.shards, node, a.shards - len(pending), a.shards,
                     time.time() - t0), flush=True)
        parts.sort()
        m = subprocess.run([binary, "merge", *parts, "--out", a.out, "--tasks", tasks_path],
                           capture_output=True, text=True)
        print(m.stdout.strip(), flush=True)
        if m.returncode == 0:
            return 0
        if m.returncode != EXIT_ROUND:
            print(m.stderr.strip(), file=sys.stderr)
            return m.returncode
        with open(os.path.join(a.out, MEMO), "rb") as f:
            memo = f.read()
    print("no bundle after %d rounds" % a.max_rounds, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
