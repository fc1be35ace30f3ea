#!/usr/bin/env bash
# Installs what the project needs on a Debian machine, only when missing:
# LLVM/MLIR 22 (Debian's packages), clang-22, ninja, ccache, cmake,
# GoogleTest, g++ (the C++ emission test compiles with it), clang's
# sanitizer and libFuzzer runtimes, NumPy (the oracle of the extern kernel
# tests), binutils (objdump, readelf: bundling the Python package and its
# check). Safe to run repeatedly; does nothing when all is present.
set -euo pipefail

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22
  ninja-build ccache cmake libgtest-dev python3 libomp-22-dev g++
  libclang-rt-22-dev python3-numpy python3-pytest libopenblas-dev
  python3-venv python3-pip binutils
)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [[ $(id -u) != 0 ]]; then
  command -v sudo >/dev/null || {
    echo "setup: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
