#!/usr/bin/env bash
# Install the Debian packages etad's build needs, but only those that are missing.
# Usage: tools/install-deps.sh [--bench]
#   --bench  also try the optional peer libraries the benchmarks compare against
#            (a failure to install those is only a warning).
set -euo pipefail

# pkg-config: the consumer.pkg_config test builds against etad.pc with it.
required=(build-essential cmake ninja-build g++ clang libboost-dev catch2 libbenchmark-dev python3
          pkg-config)
peers=()
for arg in "$@"; do
  case "$arg" in
    --bench) peers=(libadolc-dev libtrilinos-sacado-dev libtrilinos-teuchos-dev) ;;
    *) echo "usage: $0 [--bench]" >&2; exit 2 ;;
  esac
done

# Prints the packages of "$@" that are not installed.
missing() {
  local pkg
  for pkg in "$@"; do
    if [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" != "install ok installed" ]]; then
      echo "$pkg"
    fi
  done
}

mapfile -t need < <(missing "${required[@]}")
mapfile -t want < <(missing "${peers[@]}")
if (( ${#need[@]} == 0 && ${#want[@]} == 0 )); then
  exit 0  # everything is there: no apt-get at all
fi

# Run as root directly, else through sudo, else say what to install.
if [[ $EUID -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
elif (( ${#need[@]} == 0 )); then
  echo "install-deps: warning: not root; the benchmarks will skip ${want[*]}" >&2
  exit 0
else
  echo "install-deps: please install (as root): ${need[*]}${want[*]:+ ${want[*]}}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get update; then
  (( ${#need[@]} == 0 )) || exit 1  # only the optional peers were wanted: carry on
  echo "install-deps: warning: apt-get update failed" >&2
fi
if (( ${#need[@]} > 0 )); then
  echo "install-deps: installing ${need[*]}"
  "${as_root[@]}" apt-get install -y --no-install-recommends "${need[@]}"
fi
if (( ${#want[@]} > 0 )); then
  for pkg in "${want[@]}"; do  # one at a time: one unavailable peer must not block the others
    echo "install-deps: installing optional benchmark peer $pkg"
    "${as_root[@]}" apt-get install -y --no-install-recommends "$pkg" ||
      echo "install-deps: warning: could not install $pkg; the benchmarks will skip it" >&2
  done
fi
