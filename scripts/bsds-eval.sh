#!/usr/bin/env bash
# Image decomposition on a BSDS-500 split (Kardoost & Keuper, UAI 2021, Sec. 4.4): pixel
# lifted multicut, per-pixel uncertainty, sparsification against every annotator, region
# scores. Prints the table of
# OUT/summary.md: VI-AUC of the mean curve per ordering (proposed = UAI'21's γ, proposed-layered
# = Γ of decompose.Layered, likelihood, random, and the diagnostic ones), the share of images
# where each ordering is below the likelihood and below random (also by the number of segments of
# the decomposition, where the orderings differ most), and VI / PRI / covering beside
# the gPb-owt-ucm reference from the data README. Writes the averaged sparsification plots
# OUT/vi.png and OUT/ri.png, per-image rows OUT/images.csv and curves OUT/curves.csv.
#
# Usage: scripts/bsds-eval.sh [BSDS_ROOT] [SPLIT] [OUT]
#   BSDS_ROOT  default ../shared/data/bsds500-dev (images/<split>, groundTruth/<split>)
#   SPLIT      default val
#   OUT        default bsds-out/<split>
# Environment: DENSIFY binary (bin/densify, built when missing), LIMIT first N images (0 = all),
#   EXTRA further flags for `densify decompose` (e.g. "--beta 0.85"), WORKERS images at a time
#   (default: the number of cores, at most 8; each takes one core and ~0.5 GiB).
# With one worker about 9 s per image (decomposition about 5 s, evaluation against every annotator
# the rest); two workers on 2 cores take about half the time (val: 7.3 min). Re-running resumes (finished images
# are skipped).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=${1:-../shared/data/bsds500-dev}
SPLIT=${2:-val}
OUT=${3:-bsds-out/$SPLIT}
BIN=${DENSIFY:-bin/densify}
LIMIT=${LIMIT:-0}
cores=$(nproc 2>/dev/null || echo 1)
WORKERS=${WORKERS:-$((cores < 8 ? cores : 8))}
if [ ! -x "$BIN" ]; then
	go build -o "$BIN" ./cmd/densify
fi
# shellcheck disable=SC2086
"$BIN" decompose --images "$ROOT/images/$SPLIT" --gt-dir "$ROOT/groundTruth/$SPLIT" --out "$OUT" \
	--limit "$LIMIT" --workers "$WORKERS" ${EXTRA:-} >/dev/null
cat "$OUT/summary.md"
echo "plots: $OUT/vi.png $OUT/ri.png"
