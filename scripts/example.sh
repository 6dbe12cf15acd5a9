#!/usr/bin/env bash
# The README's example, the whole job on one release of sglang: unpack it into a fresh folder,
# prove PR #31147's four steps equivalent (the reviewer's report), then apply the refactoring.
#
#   scripts/example.sh [VERSION | TREE] [OUT]     default: 0.5.15.post1 /tmp/sglang-example
#
# VERSION is downloaded from PyPI (one wheel, no dependencies); a TREE (a folder holding the
# sglang package, or a checkout) is copied instead. OUT/tree is the copy the codemod rewrites,
# OUT/report.md the report. Every run starts from a fresh OUT/tree, so running it again on the
# same paths gives the same result. Stops at the first command that fails (the harness exits 1
# on a divergence, 2 when it could not prove the steps: the codemod then does not run).
set -euo pipefail
source=${1:-0.5.15.post1}
out=${2:-/tmp/sglang-example}

rm -rf "$out/tree"
mkdir -p "$out"
if [ -d "$source" ]; then
  cp -R "$source" "$out/tree"
else
  wheels=$(mktemp -d)
  trap 'rm -rf "$wheels"' EXIT
  python -m pip download --no-deps --quiet --disable-pip-version-check -d "$wheels" "sglang==$source"
  python -m zipfile -e "$wheels"/sglang-*.whl "$out/tree"
fi
python -m equivalence --steps "$out/tree" --markdown "$out/report.md"
python -m codemods.extract_kv_dtype "$out/tree"
