"""Checks that every pass and pipeline of the project that `wrapper-opt
--help` lists is documented: passes in docs/Passes/*.md (generated from the
.td files), pipelines in docs/Pipelines.md. Usage: documented_passes.py
HELP_FILE DOCS_DIR"""
import pathlib
import re
import sys

help_text = pathlib.Path(sys.argv[1]).read_text()
docs = pathlib.Path(sys.argv[2])
ours = re.compile(r"^\s{6}--((?:wrapper|tensor-program|convert-wrapper|convert-tensor-program)"
                  r"[a-z0-9-]*)\s", re.M)
flags = sorted(set(ours.findall(help_text)))
passes = "".join(p.read_text() for p in sorted((docs / "Passes").glob("*.md")))
pipelines = (docs / "Pipelines.md").read_text()
missing = [f for f in flags
           if f"`-{f}`" not in passes and f"--{f}" not in pipelines]
print(f"{len(flags)} passes and pipelines registered")
for flag in missing:
    print(f"error: --{flag} is registered but documented neither in docs/Passes/ "
          "nor in docs/Pipelines.md")
sys.exit(1 if missing or not flags else 0)
