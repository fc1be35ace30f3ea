"""Checks an installed wrapper_mlir wheel as a new user meets it (run by
scripts/test-package.sh in a fresh virtual environment with an empty
environment; not a pytest module):

  python package_check.py CHECKOUT

Every check prints PASS or FAIL with what it saw; exits 1 when one fails.
The references are independent of the compiler: NumPy for the compiled
programs, eager PyTorch for torch.compile.
"""

import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np

CHECKOUT = Path(sys.argv[1]).resolve()
failures = []


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'}: {name}" + (f" ({detail})" if detail else ""),
          flush=True)
    if not ok:
        failures.append(name)


def run(command, env=None, cwd=None):
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd)


import wrapper_mlir  # noqa: E402
from wrapper_mlir import _install  # noqa: E402

package = Path(wrapper_mlir.__file__).resolve().parent
native = package / "_native"
check("the package is the installed one, not the checkout's",
      not package.is_relative_to(CHECKOUT) and "site-packages" in str(package), str(package))
check("no WRAPPER_BUILD_DIR or PYTHONPATH is set",
      "WRAPPER_BUILD_DIR" not in os.environ and "PYTHONPATH" not in os.environ)

path, origin = _install.locate_tool("wrapper-compile")
check("wrapper-compile is the bundled one", origin == "bundled" and
      Path(path).is_relative_to(native), f"{path}, {origin}")
info = _install.tool_version(path)
manifest = _install.manifest()
check("the tool's version is the manifest's",
      info["commit"] == manifest["commit"] and info["version"] == wrapper_mlir.__version__,
      f"{info['commit']} / {manifest['commit']}")
for key in ("include_dir", "runtime_dir", "openmp_dir"):
    check(f"wrapper-compile links models with the bundle's {key}",
          Path(info[key]).is_relative_to(native), info[key])

# Nothing the tools load comes from the build machine's LLVM or the checkout.
foreign = []
for binary in [*(native / "bin").iterdir(), *(native / "lib").iterdir()]:
    for line in run(["ldd", str(binary)]).stdout.splitlines():
        if "/usr/lib/llvm-" in line or str(CHECKOUT) in line or "not found" in line:
            foreign.append(f"{binary.name}: {line.strip()}")
check("bundled tools and libraries load only bundled or system libraries",
      not foreign, "; ".join(foreign[:3]))
check("the bundle is intact", not _install.verify_bundle())

version = run([sys.executable, "-m", "wrapper_mlir", "--version"])
check("python -m wrapper_mlir --version", version.returncode == 0 and "(bundled)" in
      version.stdout and info["commit"] in version.stdout, version.stdout.strip()[:200])
doctor = run([sys.executable, "-m", "wrapper_mlir", "--doctor"])
check("python -m wrapper_mlir --doctor finds what compiling needs",
      doctor.returncode == 0 and "can compile and run models" in doctor.stdout,
      doctor.stdout.strip().splitlines()[-1] if doctor.stdout else doctor.stderr[-300:])
print(textwrap.indent(doctor.stdout.rstrip(), "    "))

# A program through the Python API, against NumPy.
PROGRAM = """
func.func @block(%x: tensor<?x16xf32>, %w: tensor<32x16xf32>, %b: tensor<32xf32>) -> tensor<?x32xf32> {
  %h = tensor_program.linear %x, %w bias %b : (tensor<?x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  %r = tensor_program.relu %h : tensor<?x32xf32>
  %s = tensor_program.softmax %r dim 1 : tensor<?x32xf32>
  return %s : tensor<?x32xf32>
}
"""
rng = np.random.default_rng(0)
x = rng.standard_normal((5, 16), dtype=np.float32)
w = rng.standard_normal((32, 16), dtype=np.float32)
b = rng.standard_normal(32, dtype=np.float32)
try:
    model = wrapper_mlir.compile(PROGRAM)
    (y,) = model(x, w, b)
    h = np.maximum(x @ w.T + b, 0)
    e = np.exp(h - h.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    check("compile(tensor_program text) runs and matches NumPy",
          np.allclose(y, expected, rtol=1e-4, atol=1e-6),
          f"max error {np.abs(y - expected).max():.2e}")
except wrapper_mlir.WrapperError as error:
    check("compile(tensor_program text) runs and matches NumPy", False, str(error)[:300])

# An AOT package of the program, written and loaded with the bundled
# compiler and runtime, from a file and from memory.
try:
    with tempfile.TemporaryDirectory() as work:
        path = wrapper_mlir.package(PROGRAM, path=Path(work) / "block.wpkg")
        for source in (path, path.read_bytes()):
            (y,) = wrapper_mlir.load(source)(x, w, b)
            check(f"a package loaded from {'memory' if isinstance(source, bytes) else 'a file'}"
                  " matches NumPy", np.allclose(y, expected, rtol=1e-4, atol=1e-6))
except wrapper_mlir.WrapperError as error:
    check("a package round-trips", False, str(error)[:300])

# The console scripts, and the library they link: its RUNPATH names the
# bundle, not the build machine.
with tempfile.TemporaryDirectory() as work:
    source = Path(work) / "block.mlir"
    source.write_text(PROGRAM)
    opt = run(["wrapper-opt", str(source)])
    check("console script wrapper-opt parses and prints a program",
          opt.returncode == 0 and "tensor_program.softmax" in opt.stdout, opt.stderr[-300:])
    library = Path(work) / "model.so"
    compiled = run(["wrapper-compile", str(source), "-o", str(library)])
    check("console script wrapper-compile builds model.so", compiled.returncode == 0 and
          library.is_file(), compiled.stderr[-300:])
    if library.is_file():
        dynamic = run(["readelf", "-d", str(library)]).stdout
        paths = re.findall(r"R(?:UN)?PATH.*\[(.*)\]", dynamic)
        entries = [entry for line in paths for entry in line.split(":") if entry]
        check("model.so's RUNPATH is the bundle's", entries and
              all(Path(entry).is_relative_to(native) for entry in entries), ", ".join(entries))

# Refusals: a tool of another ABI, a build directory that does not exist, a
# damaged bundle.
with tempfile.TemporaryDirectory() as work:
    fake = Path(work) / "bin" / "wrapper-compile"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Wrapper 0.1.0 (commit fake)'\n"
                    "echo '  model ABI 99, training ABI 1, CUDA runtime ABI 4'\n")
    fake.chmod(0o755)
    probe = ("import wrapper_mlir, sys\n"
             "try:\n    wrapper_mlir.compile(sys.argv[1])\n"
             "except wrapper_mlir.WrapperError as e:\n    print(e)\n")
    refused = run([sys.executable, "-c", probe, PROGRAM],
                  env=dict(os.environ, WRAPPER_BUILD_DIR=work))
    check("a tool of another model ABI is refused with a message",
          "builds model ABI 99" in refused.stdout, refused.stdout.strip()[:300])
    missing = run([sys.executable, "-c", probe, PROGRAM],
                  env=dict(os.environ, WRAPPER_BUILD_DIR=str(Path(work) / "nowhere")))
    check("a wrong WRAPPER_BUILD_DIR is named in the message",
          "WRAPPER_BUILD_DIR is" in missing.stdout and "nowhere" in missing.stdout,
          missing.stdout.strip()[:300])
header = native / "include" / "Wrapper" / "Runtime" / "WrapperModel.h"
saved = header.read_bytes()
try:
    header.write_bytes(saved + b"/* changed */\n")
    damaged = run([sys.executable, "-m", "wrapper_mlir", "--doctor"])
    line = next((text for text in damaged.stdout.splitlines() if "bundled compiler" in text),
                damaged.stdout[-300:])
    check("--doctor refuses a damaged bundle", damaged.returncode == 1 and
          "changed since it was installed" in damaged.stdout, line)
finally:
    header.write_bytes(saved)

# torch.compile through the installed package's entry point, against eager.
try:
    import torch
except ImportError:
    torch = None
    print("SKIP: torch is not importable here")
if torch is not None:
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(),
                              torch.nn.Linear(32, 8)).eval()
    inputs = torch.randn(4, 16)
    with torch.no_grad():
        expected = mlp(inputs)
        compiled = torch.compile(mlp, backend="wrapper")
        got = compiled(inputs)
    check("torch.compile(backend='wrapper') matches eager",
          torch.allclose(got, expected, rtol=1e-4, atol=1e-5),
          f"max error {(got - expected).abs().max().item():.2e}")
    stats = wrapper_mlir.stats()
    check("the graph ran compiled, not eagerly", stats["compiled"]["inference"] >= 1 and
          not stats["graph_fallbacks"], str(stats)[:200])

print(f"{'FAIL' if failures else 'PASS'}: package check, {len(failures)} failed")
sys.exit(1 if failures else 0)
