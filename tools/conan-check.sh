#!/usr/bin/env bash
# The Conan package check, run by tools/test.sh: `conan create` of the recipe (conanfile.py and
# test_package/) with the Debian profile, Boost from the system and no remote. Without Conan 2
# on PATH it only checks that the recipes parse as Python, and says that it skipped the rest.
# Usage: tools/conan-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - conanfile.py test_package/conanfile.py <<'PY'
import ast, sys
for path in sys.argv[1:]:
    with open(path) as f:
        ast.parse(f.read(), path)
PY

if ! command -v conan >/dev/null; then
  echo "conan not found: skipped the Conan package check"
  exit 0
fi
version=$(conan --version)
if [[ $version != *"version 2."* ]]; then
  echo "conan is not Conan 2 ($version): skipped the Conan package check"
  exit 0
fi

# A Conan home of its own under build/: the user's cache, profiles and remotes are neither used
# nor changed, and the check starts from the same state every time.
export CONAN_HOME="$PWD/build/conan-home"
conan create . -pr:a conan/profiles/debian -nr
