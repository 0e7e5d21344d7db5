#!/usr/bin/env bash
# The full densify chain on DAVIS 2016 sequences:
#   densify run     track → segment → uncertainty → prepare → train (uniform, the default) → predict → eval
#   densify ablate  the same work folder: adds the hard-example and confidence models (the shared upstream stages and the
#                   uniform model are reused) and writes the ablation table
# then prints the per-sequence table (sparse F, dense P/R/F, IoU) and the ablation table.
#
# Usage: scripts/davis-chain.sh [DAVIS_ROOT] [OUT]
#   DAVIS_ROOT  default ../shared/data/davis2016-dev (the ten development sequences)
#   OUT         default davis-out
# Training uses densify's own defaults, the budget of the dense numbers in docs/results.md (unless
# a table says otherwise): scale ¼ on CPU, 2 frames per step, at most 30 epochs within 600 steps (about 1.5 minutes per
# model on 2 cores, whatever the sequence's length). run trains one model per sequence; ablate
# trains every variant with 3 seeds (EXTRA="--seeds 1" for one). QUICK=1 is the earlier
# CPU-friendly budget (scale 0.25, 1 frame per step, 6 epochs), a first look at a fifth of the
# cost; its dense masks are much worse, so do not compare them with docs/results.md.
# Environment (empty: densify's default):
#   DENSIFY  binary (bin/densify)      EPOCHS  training epochs at most    SCALE  U-Net input scale
#   PRESET   U-Net preset              BATCH   frames per step            THREADS libtorch threads (0 = all)
#   QUICK    1: EPOCHS 6, SCALE 0.25, BATCH 1 where not set (default 0)
#   PHI      hard-example threshold φ (default: the prepare default; the ablation only differs
#            when some kept segment has mean uncertainty above φ)
#   SEQUENCES comma-separated subset   EXTRA   further flags for run and ablate
# Re-running resumes: finished stages are skipped (OUT/<seq>/.stamps).
set -euo pipefail

cd "$(dirname "$0")/.."
DATA=${1:-../shared/data/davis2016-dev}
OUT=${2:-davis-out}
BIN=${DENSIFY:-bin/densify}
QUICK=${QUICK:-0}
start=$SECONDS

die() { echo "davis-chain: $*" >&2; exit 1; }
[ -x "$BIN" ] || die "$BIN not found; run make build first"
[ -d "$DATA" ] || die "$DATA: no such folder (give the DAVIS 2016 root as the first argument)"
case $QUICK in
0) ;;
1)
	EPOCHS=${EPOCHS:-6}
	BATCH=${BATCH:-1}
	SCALE=${SCALE:-0.25}
	;;
*) die "QUICK must be 0 or 1, got '$QUICK'" ;;
esac

args=(--out "$OUT" --no-overlay)
budget=""
for kv in "epochs:${EPOCHS:-}" "batch:${BATCH:-}" "scale:${SCALE:-}" "preset:${PRESET:-}" "threads:${THREADS:-}"; do
	if [ -n "${kv#*:}" ]; then
		args+=("--${kv%%:*}" "${kv#*:}")
		budget+="${budget:+, }${kv%%:*} ${kv#*:}"
	fi
done
if [ -n "${PHI:-}" ]; then
	args+=(--phi "$PHI")
fi
if [ -n "${SEQUENCES:-}" ]; then
	args+=(--sequences "$SEQUENCES")
fi
# shellcheck disable=SC2206
extra=(${EXTRA:-})

echo "== densify run $DATA → $OUT (training: ${budget:-the defaults of densify}${PHI:+, φ $PHI})"
run_rc=0
"$BIN" run "$DATA" "${args[@]}" "${extra[@]}" || run_rc=$?
echo
echo "== densify ablate (uniform vs hard examples vs confidence, same seeds, data and budget)"
abl_rc=0
"$BIN" ablate "$DATA" "${args[@]}" "${extra[@]}" > "$OUT/ablate.log" || abl_rc=$?
echo
echo "== per-sequence results ($OUT/report.md; percent)"
# report.md of the ablate run has both variants; print its main table
awk '/^\| sequence /{p=1} p && /^\|/{print} p && !/^\|/{exit}' "$OUT/report.md"
echo
echo "== ablation ($OUT/ablation.md)"
if [ -f "$OUT/ablation.md" ]; then
	sed -n '/^| sequence/,$p' "$OUT/ablation.md"
else
	echo "(none: see $OUT/ablate.log)"
fi
echo
echo "davis-chain: $((SECONDS - start))s; report $OUT/report.md, ablation $OUT/ablation.md, $OUT/ablation.csv"
[ "$run_rc" = 0 ] && [ "$abl_rc" = 0 ] || die "some sequences failed (run: $run_rc, ablate: $abl_rc); see $OUT/report.md"
