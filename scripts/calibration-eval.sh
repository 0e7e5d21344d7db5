#!/usr/bin/env bash
# Calibration of the node uncertainty on real video, leave-one-sequence-out:
# on the folder scripts/sparse-eval.sh wrote (segmentations with cost models
# that never saw their sequence), densify sparsify over all its sequences at
# once. Per sequence it prints how well u (and the likelihood baseline) rank
# the wrong labels first (AUC), the calibration error of u = σ(−γ), of u_T =
# σ(−γ/T) and of the error model P(wrong | γ, μ_A), T and the model fitted on
# the other sequences, and the hard examples (UAI'21 Sec. 4.3) with their
# share of wrong labels, before and after keeping only those the error model
# calls right. Writes WORK/sparsify/ (curves, calibration.csv, summary.json
# and error_model.json: the model fitted on all sequences, the one
# uncertainty/error_model.json embeds) and WORK/calibration.md.
#
# Usage: scripts/calibration-eval.sh [WORK]   (default WORK=/tmp/densify-sparse-eval)
# Environment: DENSIFY (binary, default: built into WORK), DAVIS (as sparse-eval.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-/tmp/densify-sparse-eval}
[[ -d $WORK/davis/JPEGImages/480p ]] || { echo "calibration-eval: $WORK has no davis/ folder: run scripts/sparse-eval.sh $WORK first" >&2; exit 1; }
if [[ -z "${DENSIFY:-}" ]]; then
  DENSIFY=$WORK/densify
  (cd "$here" && go build -o "$DENSIFY" ./cmd/densify)
fi
list=$WORK/sparsify.list
: > "$list.tmp"
for d in "$WORK"/davis/JPEGImages/480p/*/; do
  seq=$(basename "$d")
  tracks=$(ls "$WORK/$seq"/*Tracks*.dat 2> /dev/null | head -1)
  [[ -n $tracks && -f $WORK/$seq/labels.txt ]] || { echo "calibration-eval: $WORK/$seq has no segmentation: run scripts/sparse-eval.sh $WORK first" >&2; exit 1; }
  printf '%s\t%s\t%s\t%s\t%s\n' "$seq" "$WORK/$seq/graph.txt" "$WORK/$seq/labels.txt" "$tracks" "$WORK/davis/Annotations/480p/$seq" >> "$list.tmp"
done
mv "$list.tmp" "$list"
"$DENSIFY" sparsify --dataset "$list" --out "$WORK/sparsify" > "$WORK/sparsify.txt"
sed -n '/^sequence .*AUC-u/,$p' "$WORK/sparsify.txt" | tee "$WORK/calibration.md"
