# Starts one half of execscope's oracle from sources held in memory (no file of the package needs
# to exist where the process runs: the harness runs inside a sandbox whose file system holds only
# the interpreter). execscope appends one line to this text, `boot([[name, source], ...], main)`,
# which installs the package `execscope_oracle` from those sources, imports every module of it,
# and runs `main()` of the module named `main`. Python stdlib only.

import importlib.util
import sys

PACKAGE = "execscope_oracle"


class _Sources:
    """A finder and loader for the package's modules, from `files` ({module: source}); each module
    is compiled under the file name "<execscope_oracle/NAME.py>" (what the hang detector takes
    for the harness's own code)."""

    def __init__(self, files):
        self.files = files

    def find_spec(self, name, path=None, target=None):
        short = "__init__" if name == PACKAGE else name[len(PACKAGE) + 1 :] if name.startswith(PACKAGE + ".") else None
        if short not in self.files:
            return None
        return importlib.util.spec_from_loader(name, self, is_package=name == PACKAGE)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        name = module.__name__
        short = "__init__" if name == PACKAGE else name[len(PACKAGE) + 1 :]
        code = compile(self.files[short], "<" + PACKAGE + "/" + short + ".py>", "exec")
        exec(code, module.__dict__)


def boot(files, main):
    """Loads every module of `files` (in their order), then runs `main()` of module `main`. The
    finder is removed once they are loaded: nothing imported later (by a test or by the code
    under test) can be served from it."""
    finder = _Sources(dict(files))
    sys.meta_path.insert(0, finder)
    try:
        for short, _ in files:
            if short != "__init__":
                importlib.import_module(PACKAGE + "." + short)
    finally:
        sys.meta_path.remove(finder)
    sys.modules[PACKAGE + "." + main].main()
