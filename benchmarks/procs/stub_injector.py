"""The injector with its query embedder replaced by the stub (stub_embedder.py): after the patch it runs exactly as
`python -m memory_apps.injector ARGS` (its own __main__ block).  Usage: stub_injector.py INJECTOR-ARGS..."""

import runpy
import sys

import stub_embedder  # a sibling: this script runs by its path

stub_embedder.install()
sys.argv[0] = "memory_apps.injector"
runpy.run_module("memory_apps.injector", run_name="__main__", alter_sys=True)
