#!/usr/bin/env bash
# The full densify chain on DAVIS 2016 sequences with CPU-friendly settings:
#   densify run     track → segment → uncertainty → prepare → train (uniform, the default) → predict → eval
#   densify ablate  the same work folder: adds the hard-example and confidence models (the shared upstream stages and the
#                   uniform model are reused) and writes the ablation table
# then prints the per-sequence table (sparse F, dense P/R/F, IoU) and the ablation table.
#
# Usage: scripts/davis-chain.sh [DAVIS_ROOT] [OUT]
#   DAVIS_ROOT  default ../shared/data/davis2016-dev (the five development sequences)
#   OUT         default davis-out
# Environment (defaults chosen so the five sequences finish in about half an hour on 2 cores):
#   DENSIFY  binary (bin/densify)      EPOCHS  training epochs (6)     SCALE  U-Net input scale (0.25)
#   PRESET   U-Net preset (unet-cpu)   BATCH   frames per step (1)     THREADS libtorch threads (0 = all)
#   PHI      hard-example threshold φ (default: the prepare default; the ablation only differs
#            when some kept segment has mean uncertainty above φ)
#   SEQUENCES comma-separated subset   EXTRA   further flags for run and ablate
# Re-running resumes: finished stages are skipped (OUT/<seq>/.stamps).
set -euo pipefail

cd "$(dirname "$0")/.."
DATA=${1:-../shared/data/davis2016-dev}
OUT=${2:-davis-out}
BIN=${DENSIFY:-bin/densify}
EPOCHS=${EPOCHS:-6}
BATCH=${BATCH:-1}
SCALE=${SCALE:-0.25}
PRESET=${PRESET:-unet-cpu}
THREADS=${THREADS:-0}
start=$SECONDS

die() { echo "davis-chain: $*" >&2; exit 1; }
[ -x "$BIN" ] || die "$BIN not found; run make build first"
[ -d "$DATA" ] || die "$DATA: no such folder (give the DAVIS 2016 root as the first argument)"

args=(--out "$OUT" --epochs "$EPOCHS" --batch "$BATCH" --scale "$SCALE" --preset "$PRESET" --threads "$THREADS" --no-overlay)
if [ -n "${PHI:-}" ]; then
	args+=(--phi "$PHI")
fi
if [ -n "${SEQUENCES:-}" ]; then
	args+=(--sequences "$SEQUENCES")
fi
# shellcheck disable=SC2206
extra=(${EXTRA:-})

echo "== densify run $DATA → $OUT (epochs $EPOCHS, batch $BATCH, scale $SCALE, $PRESET${PHI:+, φ $PHI})"
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
cat "$OUT/ablation.md" 2>/dev/null | sed -n '/^| sequence/,$p'
echo
echo "davis-chain: $((SECONDS - start))s; report $OUT/report.md, ablation $OUT/ablation.md, $OUT/ablation.csv"
[ "$run_rc" = 0 ] && [ "$abl_rc" = 0 ] || die "some sequences failed (run: $run_rc, ablate: $abl_rc); see $OUT/report.md"
