#!/usr/bin/env bash
# Build etad's tests with g++ and with clang++ (fresh build trees) and run them, then check the
# Conan package when Conan is installed (tools/conan-check.sh).
# Usage: tools/test.sh    — exits non-zero if any build or test fails.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh
for preset in test-gcc test-clang; do
  echo "=== $preset ==="
  cmake --workflow --preset "$preset" --fresh
done
echo "=== Conan package ==="
tools/conan-check.sh  # skips (and says so) when Conan 2 is not installed
echo "=== all tests passed with g++ and clang++ ==="
