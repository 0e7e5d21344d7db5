#!/usr/bin/env bash
# Image decomposition on a BSDS-500 split (seed Sec. 4.4): pixel lifted multicut, per-pixel
# uncertainty, sparsification against every annotator, region scores. Prints the table of
# OUT/summary.md: mean VI-AUC per ordering (proposed / likelihood / random), the share of images
# where proposed < likelihood and where both are below random, and VI / PRI / covering beside the
# gPb-owt-ucm reference from the data README.
#
# Usage: scripts/bsds-eval.sh [BSDS_ROOT] [SPLIT] [OUT]
#   BSDS_ROOT  default ../shared/data/bsds500-dev (images/<split>, groundTruth/<split>)
#   SPLIT      default val
#   OUT        default bsds-out/<split>
# Environment: DENSIFY binary (bin/densify, built when missing), LIMIT first N images (0 = all),
#   EXTRA further flags for `densify decompose` (e.g. "--beta 0.85").
# About 6–10 s per image on 2 cores; re-running resumes (finished images are skipped).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=${1:-../shared/data/bsds500-dev}
SPLIT=${2:-val}
OUT=${3:-bsds-out/$SPLIT}
BIN=${DENSIFY:-bin/densify}
LIMIT=${LIMIT:-0}
if [ ! -x "$BIN" ]; then
	go build -o "$BIN" ./cmd/densify
fi
# shellcheck disable=SC2086
"$BIN" decompose --images "$ROOT/images/$SPLIT" --gt-dir "$ROOT/groundTruth/$SPLIT" --out "$OUT" \
	--limit "$LIMIT" ${EXTRA:-} >/dev/null
cat "$OUT/summary.md"
