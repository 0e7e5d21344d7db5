#!/usr/bin/env bash
# Dense masks on real video, leave-one-sequence-out: runs on the
# folder scripts/sparse-eval.sh wrote (whose labels come from cost models that
# never saw the sequence) and, per sequence,
#   densify prepare (real labels, and with ORACLE=1 the same trajectories
#   labelled from the ground truth) → densify train per variant and seed →
#   densify predict (refined masks, the default, and --refine none) →
#   densify eval --masks (DAVIS J = mean per-frame IoU).
# Prints per sequence the label IoU, dense J of every variant (mean ± sd over
# the seeds) with and without the refinement of the masks, J away from the thin
# parts of the object (1-px lines and cords of the annotation), J with those
# thin parts added to the masks (a bound: what completing them could give), J
# with the object's holes taken out of the masks (a bound: what clearing them
# could give), the
# DAVIS 2016 benchmark's J (first and last frame left out), the oracle's J and the training
# minutes; then the means, and for
# every variant against uniform the paired ΔF per sequence, how many
# sequences it helps and whether the mean ΔF exceeds the spread across seeds.
# Everything is also in WORK/dense-TAG.md and WORK/dense-TAG.csv.
# Without ROUNDS it scores the first training only; with ROUNDS=N it also runs the
# N self-training rounds that densify run adds (one by default), each a row of
# its own (variant "<variant>-rR"), so the table gives J per round.
#
# Usage: scripts/dense-eval.sh [WORK]       (default WORK=/tmp/densify-sparse-eval)
# Environment:
#   DAVIS      DAVIS 2016 roots, space-separated (default: the twenty development
#              sequences, ../shared/data/davis2016-dev and davis2016-train10)
#   DENSIFY    densify binary (default: built into WORK)
#   TAG        name of this configuration (default "default"); outputs WORK/<seq>/dense-TAG/
#   VARIANTS   training variants, comma-separated (default "uniform"; hard, confidence)
#   SEEDS      seeds per variant (default 1)
#   FIRST_SEED the first of them (default 1): seeds FIRST_SEED … FIRST_SEED+SEEDS−1, e.g.
#              FIRST_SEED=3 to add a third seed to a finished run of two
#   ORACLE     1 also trains uniform on oracle labels (default 1)
#   SCALE EPOCHS STEP_BUDGET PRESET BATCH THREADS   training budget (defaults: densify train's)
#   SCHEDULE AVERAGE   learning-rate schedule and averaged epochs (densify train --schedule,
#              --average)
#   CRF        weight of the relaxed Potts loss (densify train --crf-weight)
#   INIT       the checkpoint every first training starts from (densify train --init,
#              as densify run --init does), or a folder of <seq>.ckpt, one per sequence
#              (e.g. a model trained without that sequence: densify train --joint).
#              Without it the first training starts from a random initialisation, as
#              densify run --init none does; densify run's default starts from embedded
#              weights that saw every development sequence, so the development sequences
#              measure it with INIT set to such a folder and ROUNDS=0 (docs/results.md,
#              "Starting weights trained on the twenty")
#   PREPARE    extra densify prepare flags (e.g. "--far-background 0.1")
#   PREDICT    extra densify predict flags (e.g. "--temporal 0" for a cheaper ablation)
#   SEQUENCES  space-separated subset (default: all)
#   REUSE      1 keeps models whose training finished under this TAG (train.json
#              written; predicts and scores again), a round's only if it finished after
#              the model it started from; a model a kill interrupted is trained again
#              from the start
#   MODELS_FROM another TAG whose trained models this TAG predicts with (no training):
#              prediction settings (PREDICT) compared on the same models
#   REUSE_MASKS 1 (with REUSE=1) also keeps the prepared set and the scores of masks
#              predicted after the model was written (eval.json), e.g. to add
#              CHECKPOINTS to a finished run
#   ROUNDS     self-training rounds after the first training (default 0): round r
#              trains from round r−1's model.ckpt (--init) on the set plus round r−1's
#              confident mask pixels (--pseudo; PSEUDO adds --pseudo-* flags), with the
#              variant's seed and the training flags above, as densify run --rounds does
#   FLOWS      0 computes the temporal fusion's optical flows in every prediction; by
#              default the first prediction of a sequence keeps them in WORK/<seq>/flows
#              (densify predict --flows: about 6.6 MB a frame) and every later one reads
#              them, which changes no mask
#   UNREFINED  0 skips the second prediction without refinement (its column is then empty)
#   CHECKPOINTS fractions of the training, space-separated (e.g. "0.5 0.67"): also
#              predicts with the checkpoint of the epoch nearest each fraction of the
#              epochs trained (epochs/epoch-NNN.ckpt) and scores it, into
#              WORK/dense-TAG-checkpoints.csv and a table of J against the steps
#              trained. With a constant learning rate (the default) the epoch-k
#              checkpoint is exactly the model a budget of its steps trains, so one
#              training gives J at several budgets. Without CHECKPOINTS each training
#              keeps the checkpoint of its last epoch only (densify train --keep-epochs 1,
#              about 4 MB instead of up to 30 × 4 MB).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-/tmp/densify-sparse-eval}
# shellcheck source=scripts/davis-roots.sh
. "$here/scripts/davis-roots.sh"
dev=$here/../shared/data
DAVIS=${DAVIS:-$dev/davis2016-dev $dev/davis2016-train10}
TAG=${TAG:-default}
VARIANTS=${VARIANTS:-uniform}
SEEDS=${SEEDS:-1}
FIRST_SEED=${FIRST_SEED:-1}
ORACLE=${ORACLE:-1}
PREPARE=${PREPARE:-}
if [[ -z "${DENSIFY:-}" ]]; then
  DENSIFY=$WORK/densify
  (cd "$here" && go build -o "$DENSIFY" ./cmd/densify)
fi
train_args=()
[[ -n "${SCALE:-}" ]] && train_args+=(--scale "$SCALE")
[[ -n "${EPOCHS:-}" ]] && train_args+=(--epochs "$EPOCHS")
[[ -n "${STEP_BUDGET:-}" ]] && train_args+=(--step-budget "$STEP_BUDGET")
[[ -n "${PRESET:-}" ]] && train_args+=(--preset "$PRESET")
[[ -n "${BATCH:-}" ]] && train_args+=(--batch "$BATCH")
[[ -n "${THREADS:-}" ]] && train_args+=(--threads "$THREADS")
[[ -n "${SCHEDULE:-}" ]] && train_args+=(--schedule "$SCHEDULE")
[[ -n "${AVERAGE:-}" ]] && train_args+=(--average "$AVERAGE")
[[ -n "${CRF:-}" ]] && train_args+=(--crf-weight "$CRF")
[[ -z "${CHECKPOINTS:-}" ]] && train_args+=(--keep-epochs 1) # only CHECKPOINTS reads the others
# shellcheck disable=SC2206
prep_args=($PREPARE)
# shellcheck disable=SC2206
pred_args=(${PREDICT:-})
# shellcheck disable=SC2206
pseudo_args=(${PSEUDO:-})
ROUNDS=${ROUNDS:-0}
mkdir -p "$WORK"
# shellcheck disable=SC2086
DAVIS=$(davis_root "$WORK" $DAVIS)
seqs=${SEQUENCES:-$(cd "$DAVIS/JPEGImages/480p" && ls)}
csv=$WORK/dense-$TAG.csv
echo "sequence,labels,variant,seed,precision,recall,f,j_mean,train_seconds,label_iou,j_unrefined,j_away_thin,j_benchmark,j_with_thin,j_without_holes" > "$csv.tmp"
ckcsv=$WORK/dense-$TAG-checkpoints.csv
[[ -n "${CHECKPOINTS:-}" ]] && echo "sequence,labels,variant,seed,fraction,epoch,epochs,steps,j_mean" > "$ckcsv.tmp"

checkpoints() { # seq labels variant seed out: J of the epoch checkpoints nearest CHECKPOINTS
  local seq=$1 labels=$2 variant=$3 seed=$4 out=$5 d=$DAVIS/JPEGImages/480p/$1 f k epochs steps
  epochs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["epochs"])' "$out/model/train.json")
  for f in $CHECKPOINTS; do
    k=$(python3 -c 'import sys; f, e = float(sys.argv[1]), int(sys.argv[2]); print(max(1, min(e, round(f * e))))' "$f" "$epochs")
    steps=$(awk -F, -v k="$k" 'NR > 1 && $1 == k { s = $2 } END { print s }' "$out/model/train_log.csv")
    "$DENSIFY" predict --model "$out/model/epochs/epoch-$(printf %03d "$k").ckpt" --frames "$d" --out "$out/masks-e$k" "${pred_args[@]}" "${flows[@]}" > /dev/null 2>&1
    "$DENSIFY" eval --gt "$DAVIS/Annotations/480p/$seq" --masks "$out/masks-e$k" --json "$out/eval-e$k.json" > /dev/null
    python3 -c 'import json,sys; print(",".join(sys.argv[2:]) + ",%.6f" % json.load(open(sys.argv[1]))["j_mean"])' \
      "$out/eval-e$k.json" "$seq" "$labels" "$variant" "$seed" "$f" "$k" "$epochs" "$steps" >> "$ckcsv.tmp"
  done
}

one() { # seq labels variant seed set out [round prev]: prev is round−1's out
  local seq=$1 labels=$2 variant=$3 seed=$4 set=$5 out=$6 round=${7:-0} prev=${8:-} d=$DAVIS/JPEGImages/480p/$1 t0 secs
  local init=() prob=() row=$3 flows=()
  [[ ${FLOWS:-1} == 0 ]] || flows=(--flows "$WORK/$seq/flows")
  if ((round > 0)); then
    init=(--init "$prev/model/model.ckpt" --pseudo "$prev/masks" "${pseudo_args[@]}")
    row=$variant-r$round
  elif [[ -d ${INIT:-} ]]; then
    [[ -f $INIT/$seq.ckpt ]] || { echo "dense-eval: INIT=$INIT holds no $seq.ckpt" >&2; exit 1; }
    init=(--init "$INIT/$seq.ckpt")
  elif [[ -n ${INIT:-} ]]; then
    init=(--init "$INIT")
  fi
  if [[ $labels == real ]] && ((round < ROUNDS)); then
    prob=(--prob) # the next round's pseudo-labels read the probability maps
  fi
  local from=${out/dense-$TAG\//dense-${MODELS_FROM:-}/}
  if [[ -n "${MODELS_FROM:-}" ]]; then
    [[ -f $from/model/train.json ]] || { echo "dense-eval: $from/model holds no finished training (MODELS_FROM=$MODELS_FROM)" >&2; exit 1; }
    mkdir -p "$out"
    ln -sfn "$from/model" "$out/model"
    secs=$(cat "$from.secs" 2> /dev/null || echo nan)
  elif [[ ${REUSE:-0} == 1 && -f $out/model/train.json && (round -eq 0 || $out/model/train.json -nt $prev/model/model.ckpt) ]]; then
    # (a round is kept only if trained after the model it started from)
    secs=$(cat "$out.secs" 2> /dev/null || echo nan)
  else
    rm -rf "$out/model"
    t0=$(date +%s.%N)
    "$DENSIFY" train --set "$set" --out "$out/model" --variant "$variant" --seed "$seed" "${train_args[@]}" "${init[@]}" > "$out.train.txt" 2>&1
    secs=$(echo "$(date +%s.%N) - $t0" | bc)
    echo "$secs" > "$out.secs"
  fi
  if [[ ${REUSE:-0} == 1 && ${REUSE_MASKS:-0} == 1 && -f $out/eval.json && $out/eval.json -nt $out/model/model.ckpt &&
    (${#prob[@]} == 0 || -d $out/masks/prob) ]]; then
    : # the masks of this model are scored already
  else
    "$DENSIFY" predict --model "$out/model/model.ckpt" --frames "$d" --out "$out/masks" "${pred_args[@]}" "${flows[@]}" "${prob[@]}" > /dev/null 2>&1
    "$DENSIFY" eval --gt "$DAVIS/Annotations/480p/$seq" --masks "$out/masks" --json "$out/eval.json" > /dev/null
  fi
  if [[ ${UNREFINED:-1} == 1 ]]; then
    "$DENSIFY" predict --model "$out/model/model.ckpt" --frames "$d" --out "$out/masks-unrefined" "${pred_args[@]}" "${flows[@]}" --refine none > /dev/null 2>&1
    "$DENSIFY" eval --gt "$DAVIS/Annotations/480p/$seq" --masks "$out/masks-unrefined" --json "$out/eval-unrefined.json" > /dev/null
  else
    rm -f "$out/eval-unrefined.json"
  fi
  [[ -n "${CHECKPOINTS:-}" ]] && checkpoints "$seq" "$labels" "$variant" "$seed" "$out"
  python3 - "$out/eval.json" "$seq" "$labels" "$row" "$seed" "$secs" "$set" "$out/eval-unrefined.json" >> "$csv.tmp" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1])); seq, labels, variant, seed, secs, setdir = sys.argv[2:8]
try:
    j_raw = "%.6f" % json.load(open(sys.argv[8]))["j_mean"]
except OSError:  # UNREFINED=0
    j_raw = ""
iou = ""
try:  # written by densify prepare --gt
    iou = "%s" % json.load(open(setdir + "/label_quality.json"))["labelled"]["iou"]
except OSError:
    pass
thin = ev.get("j_mean_away_from_thin_parts")  # J outside the band around 1-px object parts
bench = ev.get("j_mean_benchmark")  # the DAVIS 2016 benchmark's J: first and last frame left out
with_thin = ev.get("j_mean_with_thin_parts")  # J with the thin parts added to the masks: a bound
no_holes = ev.get("j_mean_without_holes")  # J with the object's holes taken out of the masks: a bound
opt = lambda x: "" if x is None else "%.6f" % x
print("%s,%s,%s,%s,%.6f,%.6f,%.6f,%.6f,%.1f,%s,%s,%s,%s,%s,%s" % (seq, labels, variant, seed, ev["precision"], ev["recall"], ev["f"], ev["j_mean"], float(secs), iou, j_raw,
      opt(thin), opt(bench), opt(with_thin), opt(no_holes)))
PY
}

for seq in $seqs; do
  src=$WORK/$seq
  tracks=$(ls "$src"/*Tracks*.dat | head -1)
  d=$DAVIS/JPEGImages/480p/$seq
  gt=$DAVIS/Annotations/480p/$seq
  out=$src/dense-$TAG
  mkdir -p "$out"
  if [[ ${REUSE:-0} == 1 && ${REUSE_MASKS:-0} == 1 && -f $out/set/manifest.json ]]; then
    : # the set of this TAG is prepared already
  else
    "$DENSIFY" prepare --frames "$d" --tracks "$tracks" --uncertainty "$src/u.csv" --segment "$src/segment.json" \
      --gt "$gt" --out "$out/set" "${prep_args[@]}" > "$out/set.txt"
  fi
  IFS=, read -ra vs <<< "$VARIANTS"
  for v in "${vs[@]}"; do
    for ((s = FIRST_SEED; s < FIRST_SEED + SEEDS; s++)); do
      one "$seq" real "$v" "$s" "$out/set" "$out/$v-s$s"
      prev=$out/$v-s$s
      for ((r = 1; r <= ROUNDS; r++)); do
        one "$seq" real "$v" "$s" "$out/set" "$out/$v-s$s-r$r" "$r" "$prev"
        prev=$out/$v-s$s-r$r
      done
    done
  done
  if [[ $ORACLE == 1 ]]; then
    "$DENSIFY" prepare --frames "$d" --tracks "$tracks" --oracle --gt "$gt" --out "$out/oracle" "${prep_args[@]}" > "$out/oracle.txt"
    one "$seq" oracle uniform 1 "$out/oracle" "$out/oracle-s1"
  fi
  echo "dense-eval: $seq done" >&2
done
mv "$csv.tmp" "$csv"
python3 "$here/scripts/dense-table.py" "$csv" | tee "$WORK/dense-$TAG.md"
if [[ -n "${CHECKPOINTS:-}" ]]; then
  mv "$ckcsv.tmp" "$ckcsv"
  python3 "$here/scripts/dense-table.py" --checkpoints "$ckcsv" "$csv" | tee -a "$WORK/dense-$TAG.md"
fi
