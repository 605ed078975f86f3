#!/usr/bin/env python3
"""Run `execscope build`, `exec verify`, `audit --pool` or `embed` over a Ray cluster, one Ray
task per shard, then `execscope merge`.

    python cluster/execscope_ray.py --address auto --shards 4 --out OUT -- build TASKS [options]
    python cluster/execscope_ray.py --address auto --shards 4 --out OUT -- exec verify BUNDLE
    python cluster/execscope_ray.py --address auto --shards 4 --out OUT -- \
        audit --pool POOL --tasks TASKS [options]
    python cluster/execscope_ray.py --address auto --shards 4 --out BUNDLE -- \
        embed BUNDLE --model M [options]

After `--` come the command's own arguments, as one machine would take them (`-- TASKS
[options]` without a command name means `build`). The driver adds `--shard`, `--out` and
`--memo-from` itself.

What it does (docs/scale.md, "On a cluster"):

* ships the execscope binary to the workers (through Ray's object store; or, with
  `--binary-on-workers PATH`, uses one already installed there), and the command's input files
  (the task file; the bundle's files for `exec verify` and `embed`; the pool and task files for
  `audit`),
  which each worker recreates under the same relative paths, so that what the output records
  is what one machine would record;
* runs the command with `--shard i/n` for every shard as a Ray task. `build` and `audit` run in
  rounds: each is a pipeline whose next phase needs every outcome of the phase before, so each
  round runs every shard's pairs of the first phase with pending pairs, then merges; the merged
  memo goes back to the workers with the next round (`--memo-from`). `exec verify` needs one
  round, and so does `embed` (its workers need the embedding environment, found as on one
  machine: `$EXECSCOPE_EMBED_ENV` in the workers' environment, else the platform cache);
* retries a shard whose worker or node dies (`--max-retries`); on the same node the retry resumes
  from the shard's crash-safe journal, elsewhere from the last merged memo;
* prints progress as shards finish, and calls `execscope merge` on the driver at the end of each
  round, until the merge writes the result (byte-identical to a one-machine run): the bundle
  (`build`), `OUT/verify.jsonl` (`exec verify`), or the audit's tables and files in OUT
  (`audit`, whose tables are also printed), or the system written into the bundle (`embed`,
  whose `--out` must be that bundle).

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
VERIFY = "verify.jsonl"
EMBED_ROWS = "embed-rows.jsonl"
EMBED_ENTRY = "entry.json"
OWN_FLAGS = ("--out", "--shard", "--memo-from")


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
def run_shard(run_id, index, count, blob, digest, bin_path, files, argv, memo_bytes, isolation,
              ok_codes, keep):
    """One shard of one round, in a node-local directory that survives a retry on this node.

    `files`: relative path -> bytes, recreated under the shard's working directory; `argv`: the
    command with `{out}` standing for the shard's output directory; `keep`: the result files
    returned to the driver."""
    base = os.path.join(tempfile.gettempdir(), "execscope-ray", run_id)
    cwd = os.path.join(base, "cwd")
    out = os.path.join(base, "shard%d" % index)
    os.makedirs(out, exist_ok=True)
    for rel, data in files.items():
        path = os.path.join(cwd, rel)
        if os.path.exists(path):
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = path + ".%d.tmp" % os.getpid()
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    cmd = [_worker_binary(blob, digest, bin_path)] + [a.replace("{out}", out) for a in argv]
    cmd += ["--shard", "%d/%d" % (index, count)]
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
    if p.returncode not in ok_codes:
        raise RuntimeError("shard %d/%d failed (exit %d): %s" % (index, count, p.returncode,
                                                                 p.stderr.strip()[-2000:]))
    results = {}
    for name in keep:
        with open(os.path.join(out, name), "rb") as f:
            results[name] = f.read()
    node = "%s node %s" % (os.uname().nodename, ray.get_runtime_context().get_node_id()[:8])
    return index, node, results


def _relative(ap, path, what):
    if os.path.isabs(path) or ".." in path.split(os.sep):
        ap.error("give %s as a path relative to here without `..` (the output records it, and "
                 "the workers recreate it under that name)" % what)


def _read_tree(path):
    """Relative path -> bytes of a file, or of every file under a directory."""
    if os.path.isfile(path):
        with open(path, "rb") as f:
            return {path: f.read()}
    files = {}
    for root, dirs, names in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith(".")]  # partial results, not inputs
        for n in names:
            p = os.path.join(root, n)
            if n.startswith(".") or n.endswith(".tmp"):
                continue  # journals and temporaries are no input
            with open(p, "rb") as f:
                files[os.path.normpath(p)] = f.read()
    return files


def _option(args, name):
    """The value of `--name V` or `--name=V` in args, or None."""
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return None


def plan(ap, rest, out):
    """What to run: (kind, argv with {out}, input paths, result files, exit codes that are a
    success, whether rounds are needed, extra merge arguments)."""
    for bad in OWN_FLAGS:
        if any(a == bad or a.startswith(bad + "=") for a in rest):
            ap.error("%s is the driver's to set" % bad)
    if rest[0] == "exec":
        if rest[1:2] != ["verify"] or len(rest) < 3:
            ap.error("exec: only `exec verify BUNDLE` is sharded")
        bundle = rest[2]
        _relative(ap, bundle, "the bundle")
        if "--sample" in rest or "--slowdown" in rest:
            ap.error("--sample and --slowdown are not sharded: verify every pair")
        return ("verify", ["exec", "verify", bundle, "--out", "{out}"] + rest[3:], [bundle],
                [MANIFEST, VERIFY], (0, 1), False, [])
    if rest[0] == "audit":
        pool, tasks = _option(rest, "--pool"), _option(rest, "--tasks")
        if not pool or not tasks:
            ap.error("audit: only generated pools (--pool P --tasks T) are sharded")
        _relative(ap, pool, "the pool")
        _relative(ap, tasks, "the task file")
        return ("audit", list(rest) + ["--out", "{out}"], [pool, tasks], [MANIFEST, MEMO], (0,), True, [])
    if rest[0] == "embed":
        bundle = rest[1] if len(rest) > 1 else ""
        if not bundle or bundle.startswith("-"):
            ap.error("embed: give the bundle first: -- embed BUNDLE --model M [options]")
        _relative(ap, bundle, "the bundle")
        if os.path.normpath(out) != os.path.normpath(bundle):
            ap.error("embed: --out must be the bundle (%s): the merge writes the system into it"
                     % bundle)
        return ("embed", list(rest) + ["--out", "{out}"], [bundle],
                [MANIFEST, EMBED_ROWS, EMBED_ENTRY], (0,), False, [])
    if rest[0] == "build":
        rest = rest[1:]  # `-- TASKS [options]` (no command name) is a build too
    if not rest:
        ap.error("build: give the task file")
    tasks = rest[0]
    _relative(ap, tasks, "the task file")
    return ("build", ["build", tasks, "--out", "{out}"] + rest[1:], [tasks], [MANIFEST, MEMO],
            (0,), True, ["--tasks", tasks])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--address", default=None,
                    help="Ray cluster address (e.g. auto, or host:port); default: a local Ray")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--out", required=True,
                    help="where the merged result goes (the bundle, verify.jsonl's directory, "
                         "or the audit's directory)")
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
    ap.add_argument("command", nargs=argparse.REMAINDER,
                    help="-- [build] TASKS [options] | -- exec verify BUNDLE | "
                         "-- audit --pool P --tasks T [options] | -- embed BUNDLE --model M")
    a = ap.parse_args()
    rest = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not rest:
        ap.error("give the command's arguments after --")
    kind, argv, inputs, keep, ok_codes, rounds, merge_extra = plan(ap, rest, a.out)
    binary = a.binary or shutil.which("execscope")
    if not binary:
        ap.error("no execscope binary: pass --binary")
    files = {}
    for path in inputs:
        files.update(_read_tree(path))
    with open(binary, "rb") as f:
        bin_bytes = f.read()
    digest = hashlib.sha256(bin_bytes).hexdigest()
    h = hashlib.sha256()
    for rel in sorted(files):
        h.update(rel.encode() + b"\0" + hashlib.sha256(files[rel]).digest())
    h.update(digest.encode() + "\0".join(argv).encode() + str(a.shards).encode())
    run_id = h.hexdigest()[:16]
    work = a.workdir or a.out.rstrip("/") + ".shards"
    stamp = os.path.join(work, "RUN_ID")
    if os.path.exists(stamp) and open(stamp).read().strip() != run_id:
        shutil.rmtree(work)  # results of another run (other inputs, binary or arguments)
    os.makedirs(work, exist_ok=True)
    with open(stamp, "w") as f:
        f.write(run_id + "\n")

    ray.init(address=a.address, log_to_driver=False)
    blob = None if a.binary_on_workers else [ray.put(bin_bytes)]
    files_ref = ray.put(files)
    memo = None
    for round_no in range(1, a.max_rounds + 1):
        t0 = time.time()
        pending = {
            run_shard.options(max_retries=a.max_retries, retry_exceptions=False).remote(
                run_id, i, a.shards, blob, digest, a.binary_on_workers, files_ref, argv, memo,
                a.isolation, ok_codes, keep): i
            for i in range(a.shards)
        }
        parts = []
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            ref = done[0]
            i = pending.pop(ref)
            index, node, results = ray.get(ref)
            d = os.path.join(work, "shard%d" % index)
            os.makedirs(d, exist_ok=True)
            for name, data in results.items():
                if name == MEMO:
                    # The shard's rows of every round: a shard that moved to another node
                    # returns only what it executed there.
                    kept = os.path.join(d, MEMO)
                    seen = set()
                    if os.path.exists(kept):
                        with open(kept, "rb") as f:
                            seen = set(f.read().splitlines())
                    new = [ln for ln in data.splitlines() if ln and ln not in seen]
                    with open(kept, "ab") as f:
                        for ln in new:
                            f.write(ln + b"\n")
                else:
                    with open(os.path.join(d, name), "wb") as f:
                        f.write(data)
            parts.append(d)
            print("round %d: shard %d/%d done on %s (%d of %d, %.1f s)"
                  % (round_no, i, a.shards, node, a.shards - len(pending), a.shards,
                     time.time() - t0), flush=True)
        parts.sort()
        m = subprocess.run([binary, "merge", *parts, "--out", a.out] + merge_extra,
                           capture_output=True, text=True)
        print(m.stdout.rstrip("\n"), flush=True)
        if m.returncode == 0 or (kind == "verify" and m.returncode == 1):
            print(m.stderr.strip(), file=sys.stderr)
            return m.returncode
        if m.returncode != EXIT_ROUND or not rounds:
            print(m.stderr.strip(), file=sys.stderr)
            return m.returncode
        with open(os.path.join(a.out, MEMO), "rb") as f:
            memo = f.read()
    print("no result after %d rounds" % a.max_rounds, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
