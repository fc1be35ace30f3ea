#!/usr/bin/env python3
"""Runs the shell and Python snippets of README.md and docs/ (tested docs).

Every fenced block whose language is `sh` or `python` is a test, run in
document order; the info string after the language says more (see
docs/Testing.md, "Tested documentation"):

  ```sh                      run with bash -euo pipefail; must exit 0
  ```sh fails                must exit non-zero
  ```sh skip=REASON          not run; REASON is one of SKIP_REASONS
  ```python                  run with the project's Python (.venv)
  ```mlir file=NAME          any language: written to NAME for later blocks
  ```python same-as=PATH     the block must appear verbatim in the repo's PATH
  ```text output             right after a run block: its expected output,
                             each line found in order ("..." lines skipped)

Each document runs in a fresh directory that holds symbolic links to the
repository's top-level entries (so `build/bin/wrapper-opt` and
`examples/...` resolve as in a checkout) and gets the files its blocks write,
with the environment the set-up in docs/GettingStarted.md leaves: the
virtual environment active, build/bin on PATH, WRAPPER_BUILD_DIR set.

Usage: scripts/doctest.py [--list] [-k SUBSTRING] [--only-skipped REASON] [FILE.md...]
Prints one line per block and "N passed, N failed, N skipped" last.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Why a block may not run here. Anything else is refused, so that docs do
# not quietly stop being tested.
SKIP_REASONS = {
    "gpu": "needs an NVIDIA GPU",
    "setup": "installs packages or builds the project (what the test command itself does)",
    "suite": "runs the test suite, which runs these tests",
    "placeholder": "stands for the user's own files or paths",
    "excerpt": "an excerpt of code from elsewhere (Inductor's output), not a program",
    "slow": "a benchmark or long run (minutes; a quick form of it runs instead)",
}
RUN_LANGUAGES = ("sh", "python")
FENCE = re.compile(r"^(```+)\s*(\S*)\s*(.*)$")


class Block:
    def __init__(self, path, line, language, attributes, text):
        self.path, self.line, self.language, self.text = path, line, language, text
        self.attributes = attributes
        self.expected = None  # the following `output` block's lines

    @property
    def where(self):
        return f"{os.path.relpath(self.path, ROOT)}:{self.line}"


def parse_attributes(text, where):
    attributes = {}
    for word in text.split():
        key, _, value = word.partition("=")
        if key not in ("fails", "skip", "file", "same-as", "output"):
            raise SystemExit(f"{where}: unknown code block attribute '{key}'")
        attributes[key] = value
    if "skip" in attributes and attributes["skip"] not in SKIP_REASONS:
        raise SystemExit(
            f"{where}: skip reason '{attributes['skip']}' is not one of "
            + ", ".join(sorted(SKIP_REASONS)))
    return attributes


def parse(path):
    blocks = []
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, language, rest = m.groups()
        start = i + 1
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith(fence):
            body.append(lines[i])
            i += 1
        close = i
        i += 1
        where = f"{os.path.relpath(path, ROOT)}:{start}"
        attributes = parse_attributes(rest, where)
        block = Block(path, start, language, attributes, "\n".join(body) + "\n")
        block.close = close
        if "output" in attributes:
            previous = blocks[-1] if blocks else None
            between = lines[previous.close + 1:start - 1] if previous else []
            if previous is None or any(line.strip() for line in between):
                raise SystemExit(f"{where}: an output block must follow a block that runs")
            previous.expected = body
            continue
        blocks.append(block)
    return blocks


def check_output(expected, actual):
    """Each expected line must occur in order in `actual` (as a substring)."""
    lines = actual.split("\n")
    position = 0
    for want in expected:
        want = want.strip()
        if not want or want == "...":
            continue
        while position < len(lines) and want not in lines[position]:
            position += 1
        if position == len(lines):
            return f"expected output line not found (in order): {want!r}"
        position += 1
    return None


def session_directory():
    directory = tempfile.mkdtemp(prefix="wrapper-doctest-")
    for entry in os.listdir(ROOT):
        if entry == ".git":
            continue
        os.symlink(os.path.join(ROOT, entry), os.path.join(directory, entry))
    # `build` is the build directory in use (BUILD_DIR, as scripts/test.sh).
    if os.environ.get("BUILD_DIR"):
        if os.path.lexists(os.path.join(directory, "build")):
            os.remove(os.path.join(directory, "build"))
        os.symlink(os.path.abspath(os.environ["BUILD_DIR"]), os.path.join(directory, "build"))
    return directory


def environment(directory, python):
    env = dict(os.environ)
    venv = os.path.dirname(os.path.dirname(python))
    build = os.path.join(directory, "build")
    env["PATH"] = os.pathsep.join(
        [os.path.join(venv, "bin"), os.path.join(build, "bin"), env.get("PATH", "/usr/bin:/bin")])
    env["VIRTUAL_ENV"] = venv
    env["WRAPPER_BUILD_DIR"] = build
    env.pop("PYTHONPATH", None)
    env.setdefault("PYTHONPATH", os.path.join(ROOT, "python"))
    return env


def run_block(block, directory, env, python, timeout):
    if block.language == "sh":
        command = ["bash", "-euo", "pipefail", "-c", block.text]
    else:
        script = os.path.join(directory, f".block-{block.line}.py")
        with open(script, "w") as f:
            f.write(block.text)
        command = [python, script]
    try:
        result = subprocess.run(command, cwd=directory, env=env, timeout=timeout,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace")
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout} s", ""
    output = result.stdout
    if "fails" in block.attributes:
        if result.returncode == 0:
            return "exited 0, but the docs say it fails", output
    elif result.returncode != 0:
        return f"exit status {result.returncode}", output
    if block.expected is not None:
        problem = check_output(block.expected, output)
        if problem:
            return problem, output
    return None, output


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--list", action="store_true", help="list the blocks, run nothing")
    parser.add_argument("-k", dest="only", help="run blocks whose FILE:LINE contains this")
    venv_python = os.path.join(ROOT, ".venv", "bin", "python")
    parser.add_argument("--python", default=os.environ.get(
        "WRAPPER_PYTHON", venv_python if os.path.exists(venv_python) else sys.executable),
        help="the Python of the snippets (default: $WRAPPER_PYTHON, else .venv's)")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per block")
    parser.add_argument("--keep", action="store_true", help="keep the session directories")
    parser.add_argument("--only-skipped", metavar="REASON", choices=sorted(SKIP_REASONS),
                        help="run only the blocks skipped for REASON (gpu: on a GPU machine)")
    args = parser.parse_args()

    files = args.files or [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(d, f) for d, _, fs in os.walk(os.path.join(ROOT, "docs"))
        for f in fs if f.endswith(".md"))
    passed = failed = skipped = 0
    for path in files:
        blocks = parse(os.path.abspath(path))
        runnable = [b for b in blocks if b.language in RUN_LANGUAGES or "file" in b.attributes
                    or "same-as" in b.attributes]
        if not runnable:
            continue
        directory = None
        env = None
        for block in runnable:
            tag = f"{block.where} ({block.language})"
            # File blocks are written whatever -k selects (later blocks need them).
            if args.only and args.only not in block.where and "file" not in block.attributes:
                continue
            if args.list:
                print(tag, " ".join(f"{k}={v}" if v else k for k, v in block.attributes.items()))
                continue
            if directory is None:
                directory = session_directory()
                env = environment(directory, args.python)
            if "same-as" in block.attributes:
                source = os.path.join(ROOT, block.attributes["same-as"])
                text = open(source, encoding="utf-8").read() if os.path.exists(source) else None
                if text is None or block.text not in text:
                    print(f"FAIL: {tag}: differs from {block.attributes['same-as']}")
                    failed += 1
                else:
                    print(f"PASS: {tag}: same as {block.attributes['same-as']}")
                    passed += 1
                continue
            if "file" in block.attributes:
                target = os.path.join(directory, block.attributes["file"])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "w", encoding="utf-8") as f:
                    f.write(block.text)
                continue
            reason = block.attributes.get("skip")
            if args.only_skipped and reason != args.only_skipped:
                continue
            if reason and reason != args.only_skipped:
                print(f"SKIP: {tag}: {SKIP_REASONS[reason]}")
                skipped += 1
                continue
            start = time.time()
            problem, output = run_block(block, directory, env, args.python, args.timeout)
            seconds = time.time() - start
            if problem:
                print(f"FAIL: {tag}: {problem} ({seconds:.1f} s)")
                print("  | " + block.text.rstrip().replace("\n", "\n  | "))
                tail = output.rstrip().split("\n")[-30:]
                print("  > " + "\n  > ".join(tail))
                failed += 1
            else:
                print(f"PASS: {tag} ({seconds:.1f} s)")
                passed += 1
        if directory and not args.keep:
            shutil.rmtree(directory, ignore_errors=True)
        elif directory:
            print(f"  (kept {directory})")
    if not args.list:
        print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
