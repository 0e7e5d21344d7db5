#!/usr/bin/env bash
# Sparse motion segmentation on real video, leave-one-sequence-out:
#   densify track (cached) → densify fit-costs --fold-models (one cost model per
#   sequence, fitted on all the others) → densify segment with the held-out
#   model → densify eval → densify prepare --segment --gt (training labels
#   scored against the ground truth).
# No number in the table comes from a model that saw the sequence it scores.
#
# Usage: scripts/sparse-eval.sh [WORK]      (default WORK=/tmp/densify-sparse-eval)
# Environment:
#   DAVIS     DAVIS 2016 roots, space-separated (default: the twenty development
#             sequences, ../shared/data/davis2016-dev and davis2016-train10 beside the
#             repository; several roots are joined in WORK/davis by symbolic links)
#   BETA      prior cut probability β (default 0.5: the costs are calibrated)
#   DENSIFY   densify binary (default: built into WORK)
#   TRACKS    folder of cached <seq>Tracks<N>.dat (default WORK/tracks)
#   ORACLE    1 (default) adds the oracle-label column, 0 leaves it out
#   PREPARE   extra densify prepare flags (e.g. "--colour-window 5")
#
# Prints, per sequence: trajectories, clusters, sparse P / R / F (FBMS protocol),
# the share of trajectories in clusters of fewer than 20, the clusters the
# camera motion calls background, and the foreground IoU of the training
# labels against the ground truth (all labelled pixels; those away from object
# parts thinner than 5 px, lines and cords where a right background label
# counts as an error; the hard-example pixels) and, with ORACLE=1, the bound on
# it: the IoU of the oracle labels of the same trajectories (densify prepare
# --oracle: each trajectory labelled by the ground truth under its points, the
# training set of a perfect segmentation of these trajectories); then the means.
# Everything is also in WORK/table.md.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-/tmp/densify-sparse-eval}
# shellcheck source=scripts/davis-roots.sh
. "$here/scripts/davis-roots.sh"
dev=$here/../shared/data
DAVIS=${DAVIS:-$dev/davis2016-dev $dev/davis2016-train10}
BETA=${BETA:-0.5}
TRACKS=${TRACKS:-$WORK/tracks}
ORACLE=${ORACLE:-1}
# shellcheck disable=SC2206
prep_args=(${PREPARE:-})
if [[ $ORACLE != 0 && $ORACLE != 1 ]]; then
  echo "sparse-eval: ORACLE must be 0 or 1, got '$ORACLE'" >&2
  exit 1
fi
mkdir -p "$WORK" "$TRACKS"
# shellcheck disable=SC2086
if ! DAVIS=$(davis_root "$WORK" $DAVIS); then
  echo "sparse-eval: see above" >&2
  exit 1
fi
if [[ -z "${DENSIFY:-}" ]]; then
  DENSIFY=$WORK/densify
  (cd "$here" && go build -o "$DENSIFY" ./cmd/densify)
fi

# one cost model per held-out sequence (and the model on all of them)
if [[ ! -s $WORK/folds/.done ]]; then
  "$DENSIFY" fit-costs --data "$DAVIS" --tracks-dir "$TRACKS" --out "$WORK/model.json" \
    --fold-models "$WORK/folds" > "$WORK/fit.txt"
  date > "$WORK/folds/.done"
fi

{
  echo "| sequence | trajectories | clusters | P | R | F | in clusters < 20 | background clusters | label IoU | label IoU away from thin parts | label IoU (hard) | hard correct | oracle label IoU |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$WORK/table.md"
for d in "$DAVIS"/JPEGImages/480p/*/; do
  seq=$(basename "$d")
  n=$(find "$d" -maxdepth 1 -name '*.jpg' | wc -l)
  gt=$DAVIS/Annotations/480p/$seq
  out=$WORK/$seq
  "$DENSIFY" segment --tracks "$TRACKS/${seq}Tracks$n.dat" --frames "$d" --beta "$BETA" \
    --model "$WORK/folds/$seq.json" --out "$out" > "$out.segment.txt"
  "$DENSIFY" eval --gt "$gt" --tracks "$out/${seq}Tracks$n.dat" --json "$out/eval.json" > /dev/null
  "$DENSIFY" uncertainty --graph "$out/graph.txt" --labels "$out/labels.txt" --out "$out/u.csv" > /dev/null
  "$DENSIFY" prepare --frames "$d" --tracks "$out/${seq}Tracks$n.dat" --uncertainty "$out/u.csv" \
    --segment "$out/segment.json" --gt "$gt" "${prep_args[@]}" --out "$out/set" > "$out/prepare.txt"
  rm -rf "$out/oracle"
  if [[ $ORACLE == 1 ]]; then
    "$DENSIFY" prepare --frames "$d" --tracks "$out/${seq}Tracks$n.dat" --oracle --gt "$gt" \
      --out "$out/oracle" > "$out/oracle.txt"
  fi
  python3 - "$seq" "$out" >> "$WORK/table.md" <<'EOF'
import json, sys
seq, out = sys.argv[1], sys.argv[2]
seg = json.load(open(out + "/segment.json"))
ev = json.load(open(out + "/eval.json"))
try:  # written by densify prepare --gt
    q = json.load(open(out + "/set/label_quality.json"))
    iou, hiou, hacc, hn = q["labelled"]["iou"], q["hard"]["iou"], q["hard"]["accuracy"], q["hard"]["pixels"]
    thick = q["away_from_thin_parts"]["iou"]
except OSError:
    iou, thick, hiou, hacc, hn = (float("nan"),) * 4 + (0,)
try:  # ORACLE=1: the same trajectories labelled by the ground truth
    oracle = "%.3f" % json.load(open(out + "/oracle/label_quality.json"))["labelled"]["iou"]
except OSError:
    oracle = "–"
print("| %s | %d | %d | %.1f | %.1f | %.1f | %.2f %% | %d | %.3f | %.3f | %s | %s | %s |" % (
    seq, seg["nodes"], seg["clusters"], 100 * ev["precision"], 100 * ev["recall"], 100 * ev["f"],
    100 * seg["small_cluster_share"], len(seg["background_clusters"]), iou, thick,
    "%.3f" % hiou if hn else "–", "%.1f %% of %d" % (100 * hacc, hn) if hn else "no hard pixels", oracle))
EOF
  echo "sparse-eval: $seq done" >&2
done
python3 - "$WORK/table.md" <<'EOF'
import sys
rows = [l.split("|")[1:-1] for l in open(sys.argv[1]) if l.startswith("| ") and not l.startswith("| sequence")]
num = lambda i: [float(r[i].strip().split()[0]) for r in rows]
P, R, F, S, IoU, Thick = num(3), num(4), num(5), num(6), num(8), num(9)
m = lambda v: sum(v) / len(v)
oracle = [r[12].strip() for r in rows]
oracle = "" if "–" in oracle else "%.3f (min %.3f)" % (m([float(v) for v in oracle]), min(float(v) for v in oracle))
# how many sequences reach a label IoU of 0.80 (the target for the training labels)
reach = sum(v >= 0.80 for v in IoU)
with open(sys.argv[1], "a") as f:
    f.write("| **mean** | | | %.1f | %.1f | %.1f | %.2f %% | | %.3f (min %.3f; %d of %d ≥ 0.80) | %.3f (min %.3f) | | | %s |\n" % (
        m(P), m(R), m(F), m(S), m(IoU), min(IoU), reach, len(IoU), m(Thick), min(Thick), oracle))
EOF
cat "$WORK/table.md"
