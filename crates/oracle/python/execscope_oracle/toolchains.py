# How a program in another language than Python is built and started in its pair child (the
# harness's; stdlib only). Every step runs as a process of the pair child, inside its confinement
# (foreign.py); the toolchains' paths come from execscope (crates/oracle/src/toolchain.rs), which
# also made them visible, read-only, inside the sandbox's root. `build` returns the program's
# command and environment, or raises `BuildFailed` with the word every test records
# (`CompileError`). Per-language flags and limits are in docs/languages.md.

import os
import re
import signal

from .stubs import SOURCES

LANG_NAMES = {"cpp": "C++", "go": "Go", "java": "Java", "javascript": "JavaScript", "rust": "Rust", "typescript": "TypeScript"}

# A JVM under the pair's 1 GiB address-space cap: glibc's per-thread malloc arenas (64 MiB of
# address space each) and the JVM's default reservations (a quarter of the machine's memory for
# the heap, 240 MiB of code cache, 1 GiB of class space) do not fit it; these do, with a heap
# no smaller than what a HumanEval or MBXP task uses. Tiered compilation stops at C1, one
# compiler thread, the serial collector: fewer threads under the pair's process limit, and a
# faster start for a program that runs for milliseconds.
JVM_FLAGS = [
    "-Xmx256m",
    "-XX:+UseSerialGC",
    "-XX:ReservedCodeCacheSize=32m",
    "-XX:MaxMetaspaceSize=128m",
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:TieredStopAtLevel=1",
    "-XX:CICompilerCount=1",
    "-Xshare:auto",
    "-XX:-UsePerfData",
]


DEBUG_FD = None  # execscope's stderr, for the compilers' messages (EXECSCOPE_ORACLE_DEBUG only)


class BuildFailed(Exception):
    """The program cannot run; `word` is what each of its tests records."""

    def __init__(self, word="CompileError"):
        super().__init__(word)
        self.word = word


def base_env(workdir):
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": workdir,
        "TMPDIR": workdir,
        "LANG": "C.UTF-8",
        "MALLOC_ARENA_MAX": "2",
    }


def _write(path, text):
    with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
        f.write(text)


def build(lang, code, entries, tool, workdir):
    """(argv, env) of the built program of `code` in `lang` with the stub for `entries`."""
    recipe = RECIPES.get(lang)
    if recipe is None or not tool:
        raise BuildFailed("Other")
    return recipe(code, entries, tool, workdir)


# -- processes ------------------------------------------------------------------------------------
def spawn(argv, env, fds=None):
    """Starts `argv` (a path and its arguments) with stdin, stdout and stderr on /dev/null and,
    from `fds` ({child fd: our fd}), the descriptors it gets; no other descriptor of ours, in this
    process group, with the default disposition of the signals Python ignores."""
    null = os.open(os.devnull, os.O_RDWR)
    err = DEBUG_FD if DEBUG_FD is not None and fds is None else null
    acts = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, err, 1), (os.POSIX_SPAWN_DUP2, err, 2)]
    for dst, src in sorted((fds or {}).items()):
        acts.append((os.POSIX_SPAWN_DUP2, src, dst))
    keep = {0, 1, 2, null, err} | set((fds or {}).values())
    for fd in _open_fds():
        if fd not in keep:
            try:
                os.set_inheritable(fd, False)
            except OSError:
                pass
    try:
        return os.posix_spawn(argv[0], argv, env, file_actions=acts, setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))
    finally:
        os.close(null)


def _open_fds():
    try:
        return [int(f) for f in os.listdir("/proc/self/fd")]
    except OSError:
        return list(range(3, 64))


def run(argv, env, cwd=None):
    """Runs a build step to its end; whether it succeeded (its output goes nowhere)."""
    if cwd is not None:
        old = os.getcwd()
        os.chdir(cwd)
    try:
        pid = spawn(argv, env)
    except OSError:
        return False
    finally:
        if cwd is not None:
            os.chdir(old)
    _, st = os.waitpid(pid, 0)
    return os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0


def die_like(pid):
    """Ends this process the way process `pid` ended (reaping it): the same signal, or an exit."""
    try:
        _, st = os.waitpid(pid, 0)
    except ChildProcessError:
        st = 0
    if os.WIFSIGNALED(st):
        sig = os.WTERMSIG(st)
        try:
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        except (OSError, ValueError, RuntimeError):
            pass
        os.kill(os.getpid(), sig)
    os._exit(0)


# -- C++ ------------------------------------------------------------------------------------------
def build_cpp(code, entries, tool, workdir):
    # The candidate's own `main` (a completion may carry one) is renamed by the preprocessor; the
    # stub's comes after it. An entry is named `::f`: a qualified name finds the candidate's own
    # function alone, never a `std::` one of that name that `using namespace std` brings in
    # (HumanEval-X's `unique`, `max_element`, `count`); and by the type the candidate declares it
    # with (`cpp_entry`), so a C library function of that name (`strlen`) is not taken either.
    # The stub's standard headers come first: precompiled once per machine by execscope, outside
    # the sandbox (`tool["pch"]`, read-only here; crates/oracle/src/pch.rs), else their text.
    pch = tool.get("pch")
    if pch and not os.path.isfile(pch + ".gch"):
        pch = None  # gone since execscope started: the header's text, the same program
    src = "" if pch else tool.get("std_header", "")
    src += "#define main es_candidate_main_\n#line 1\n" + code + "\n#undef main\n" + SOURCES["cpp"]
    src += "\nint main() { return es::serve({" + ", ".join("&es::call<" + cpp_entry(code, e) + ">" for e in entries) + "}); }\n"
    path, exe = os.path.join(workdir, "prog.cpp"), os.path.join(workdir, "prog")
    _write(path, src)
    argv = [tool["cxx"], "-O0", "-w"] + (["-include", pch] if pch else []) + ["-o", exe, path]
    if not run(argv, base_env(workdir), cwd=workdir):
        raise BuildFailed()
    return [exe], base_env(workdir)


_CPP_SKIP = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_CPP_SPECIFIERS = re.compile(r"\b(?:static|inline|extern|constexpr)\b|\[\[.*?\]\]")
_CPP_TYPE = re.compile(r"[A-Za-z_][\w\s:<>,*&]*\Z")
_CPP_NOT_TYPE = re.compile(r"\b(?:template|auto|operator|typedef|using|return|friend|virtual|decltype|namespace|else|do)\b")


def _cpp_blank(code):
    """`code` with its comments, string and character literals and preprocessor lines replaced by
    spaces (newlines kept): the same offsets, only the declarations' text left."""
    out = _CPP_SKIP.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), code)
    return re.sub(r"(?m)^[ \t]*#.*$", lambda m: " " * len(m.group(0)), out)


def _cpp_split(text):
    """`text` split at its commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for c in text:
        if c in "(<[{":
            depth += 1
        elif c in ")>]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return parts


def cpp_signature(code, name):
    """The function-pointer type of the first function `name` the candidate declares at file
    scope (`int (*)(string s)`), or None when no declaration of it reads plainly (a template, a
    trailing return type, a name inside a namespace or class)."""
    text = _cpp_blank(code)
    depth = [0] * (len(text) + 1)
    d = 0
    for i, c in enumerate(text):
        depth[i] = d
        if c in "{(":
            d += 1
        elif c in "})":
            d -= 1
    for m in re.finditer(r"\b" + re.escape(name) + r"\s*\(", text):
        if depth[m.start()] != 0 or (m.start() > 1 and text[m.start() - 2 : m.start()] == "::"):
            continue
        # The return type: back to the previous statement's or block's end.
        j = m.start()
        while j > 0 and text[j - 1] not in ";{}":
            j -= 1
        ret = " ".join(_CPP_SPECIFIERS.sub(" ", text[j : m.start()]).split())
        if not ret or not _CPP_TYPE.match(ret) or _CPP_NOT_TYPE.search(ret):
            continue
        # The parameters: to the matching parenthesis.
        k, pd = m.end() - 1, 0
        while k < len(text):
            pd += 1 if text[k] == "(" else -1 if text[k] == ")" else 0
            if pd == 0:
                break
            k += 1
        if k >= len(text):
            return None
        rest = text[k + 1 :].lstrip()
        noexcept = rest.startswith("noexcept")
        if noexcept:
            rest = re.sub(r"^noexcept\s*(\(\s*true\s*\))?", "", rest).lstrip()
        if not rest or rest[0] not in "{;":
            continue
        params = [" ".join(p.split("=", 1)[0].split()) for p in _cpp_split(text[m.end() : k])]
        params = [p for p in params if p]
        return "{} (*)({}){}".format(ret, ", ".join(params), " noexcept" if noexcept else "")
    return None


def cpp_entry(code, name):
    """The stub's reference to entry `name`: the candidate's own function, picked by the type it
    declares when the name is also a C library function's (HumanEval-X's CPP/23 defines
    `int strlen(string)` beside `<cstring>`'s); `&::name` when no declaration reads plainly."""
    sig = cpp_signature(code, name)
    if sig is None:
        return "&::" + name
    return "(static_cast<" + sig + ">(&::" + name + "))"


# -- Rust -----------------------------------------------------------------------------------------
def arity(code, name):
    """The number of parameters of `fn name` in `code` (generics and nested types skipped), or
    None when there is no such function."""
    m = re.search(r"\bfn\s+" + re.escape(name) + r"\b\s*", code)
    if m is None:
        return None
    i = m.end()
    if i < len(code) and code[i] == "<":
        depth = 0
        while i < len(code):
            if code[i] == "<":
                depth += 1
            elif code[i] == ">" and code[i - 1] != "-":
                depth -= 1
                if depth == 0:
                    i += 1
                    break
            i += 1
        while i < len(code) and code[i].isspace():
            i += 1
    if i >= len(code) or code[i] != "(":
        return None
    depth, commas, body = 0, 0, ""
    for j in range(i, len(code)):
        c = code[j]
        if c in "([{" or (c == "<"):
            depth += 1
        elif c in ")]}" or (c == ">" and code[j - 1] != "-"):
            depth -= 1
            if depth == 0:
                break
        elif c == "," and depth == 1:
            commas += 1
        if depth >= 1 and j > i:
            body += c
    body = body.strip()
    if not body:
        return 0
    return commas + (0 if body.endswith(",") else 1)


def build_rust(code, entries, tool, workdir):
    glue = []
    for e in entries:
        n = arity(code, e)
        if n is None or n > 8:
            raise BuildFailed()
        glue.append("crate::__es::entry{}({} as fn({}) -> _)".format(n, e, ", ".join(["_"] * n)))
    # The candidate in a module of its own (its `fn main`, if any, is not the program's), the glue
    # inside it (its functions need not be `pub`), the stub at the root: the library execscope
    # compiled once per machine, outside the sandbox (`tool["stub_rlib"]`, read-only here;
    # crates/oracle/src/pch.rs), else its source.
    rlib = tool.get("stub_rlib")
    if rlib and not os.path.isfile(rlib):
        rlib = None  # gone since execscope started: the stub's source, the same program
    src = "extern crate es_stub;\nuse es_stub::__es;\n" if rlib else SOURCES["rust"]
    src += "\nmod __es_cand {\n#![allow(warnings)]\n" + code
    src += "\npub(crate) fn __es_entries() -> Vec<crate::__es::Entry> { vec![" + ", ".join(glue) + "] }\n}\n"
    src += "fn main() { __es::serve(__es_cand::__es_entries()) }\n"
    path, exe = os.path.join(workdir, "prog.rs"), os.path.join(workdir, "prog")
    _write(path, src)
    argv = [tool["rustc"], "--edition", "2021", "--cap-lints", "allow", "-C", "opt-level=0", "-C", "debuginfo=0"]
    argv += ["-C", "strip=debuginfo", "-C", "linker=" + tool["linker"], "-o", exe, path]
    if rlib:
        argv += ["--extern", "es_stub=" + rlib]
    if not run(argv, base_env(workdir), cwd=workdir):
        raise BuildFailed()
    return [exe], base_env(workdir)


# -- Go -------------------------------------------------------------------------------------------
def build_go(code, entries, tool, workdir):
    d = os.path.join(workdir, "prog.d")
    os.mkdir(d)
    if re.search(r"(?m)^\s*package\s+\w+", code):
        code = re.sub(r"(?m)^(\s*)package\s+\w+", r"\1package main", code, count=1)
    else:
        code = "package main\n" + code
    code = re.sub(r"(?m)^func\s+main\s*\(", "func es_candidate_main(", code)
    _write(os.path.join(d, "main.go"), code)
    stub = SOURCES["go"] + "\nvar esEntries = []interface{}{" + ", ".join(entries) + "}\n"
    _write(os.path.join(d, "es_stub.go"), stub)
    env = base_env(workdir)
    env.update(
        {
            "GOROOT": tool["goroot"],
            "GOCACHE": os.path.join(workdir, "gocache"),
            "GOPATH": os.path.join(workdir, "gopath"),
            "GO111MODULE": "off",
            "GOFLAGS": "",
            "CGO_ENABLED": "0",
            "GOTOOLCHAIN": "local",
            "GOPROXY": "off",
            "GOTELEMETRY": "off",
        }
    )
    exe = os.path.join(workdir, "prog")
    go = os.path.join(tool["goroot"], "bin", "go")
    if not run([go, "build", "-o", exe, "-ldflags=-s -w", "main.go", "es_stub.go"], env, cwd=d):
        raise BuildFailed()
    return [exe], base_env(workdir)


# -- Java -----------------------------------------------------------------------------------------
def build_java(code, entries, tool, workdir):
    src, out = os.path.join(workdir, "src"), os.path.join(workdir, "classes")
    os.mkdir(src)
    os.mkdir(out)
    m = re.search(r"(?m)^\s*public\s+(?:final\s+|abstract\s+)*(?:class|interface|enum|record)\s+(\w+)", code)
    name = m.group(1) if m else "Solution"
    if name == "EsStub__":
        raise BuildFailed()
    _write(os.path.join(src, name + ".java"), code)
    _write(os.path.join(src, "EsStub__.java"), SOURCES["java"])
    home = tool["home"]
    javac = [os.path.join(home, "bin", "javac")] + ["-J" + f for f in JVM_FLAGS]
    javac += ["-encoding", "UTF-8", "-nowarn", "-proc:none", "-g:none", "-d", out]
    javac += [os.path.join(src, name + ".java"), os.path.join(src, "EsStub__.java")]
    if not run(javac, base_env(workdir), cwd=workdir):
        raise BuildFailed()
    classes = []
    for root, _, files in os.walk(out):
        for f in sorted(files):
            if f.endswith(".class") and "$" not in f and f != "EsStub__.class":
                rel = os.path.relpath(os.path.join(root, f[:-6]), out)
                classes.append(rel.replace(os.sep, "."))
    classes.sort(key=lambda c: (c.split(".")[-1] != "Solution", c))
    java = [os.path.join(home, "bin", "java")] + JVM_FLAGS + ["-XX:+DisplayVMOutputToStderr", "-cp", out, "EsStub__"]
    return java + entries + ["--"] + classes, base_env(workdir)


# -- JavaScript and TypeScript --------------------------------------------------------------------
def build_js(code, entries, tool, workdir, ts=None):
    path = os.path.join(workdir, "candidate." + ("ts" if ts else "js"))
    _write(path, code)
    stub = os.path.join(workdir, "es_stub.js")
    _write(stub, SOURCES["javascript"])
    argv = [tool["node"], stub, path, ts or "", *entries]
    return argv, base_env(workdir)


def build_ts(code, entries, tool, workdir):
    return build_js(code, entries, tool, workdir, ts=tool["typescript"])


RECIPES = {
    "cpp": build_cpp,
    "rust": build_rust,
    "go": build_go,
    "java": build_java,
    "javascript": build_js,
    "typescript": build_ts,
}
