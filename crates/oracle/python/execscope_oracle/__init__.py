# execscope's execution oracle, the Python half (stdlib only).
#
# Two processes run it, never the same one: the judge (`judge.main`, trusted, outside the sandbox)
# and the harness (`harness.main`, inside the sandbox, forking the pair children that run the code).
# Modules, lowest first (each imports only modules above it):
#   codec       the value codec: tagged JSON, the bounds, `Unjudged`
#   decode      decoding a message into the receiver's own values
#   excs        exceptions across the halves and their outcome words
#   peer        the RPC protocol both halves speak (requests, replies, iterator chunks)
#   proxy       the test's stand-ins for the code's objects (what the judge decides itself)
#   engine      running a test: namespaces, the assert rewrite, budgets, hang probes
#   pytest_shim the `pytest` a test imports (`raises`, `approx`)
#   detector    the hang detector (the harness's)
#   sandbox     the pair child: runs the code, answers requests on its objects (the harness's)
#   harness     the sandbox's server process
#   judge       the judge's zygote
# The execscope binary embeds these files and starts each process with `boot.py`, which loads
# them from memory (crates/oracle/src/runtime.rs); docs/threat-model.md says who decides what.
