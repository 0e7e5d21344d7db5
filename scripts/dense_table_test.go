package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/internal/testutil"
)

// denseTable runs scripts/dense-table.py on a CSV and returns its output.
func denseTable(t *testing.T, csv string) string {
	t.Helper()
	need(t, "python3")
	f := filepath.Join(t.TempDir(), "dense.csv")
	if err := os.WriteFile(f, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("python3", "dense-table.py", f).CombinedOutput()
	if err != nil {
		t.Fatalf("dense-table.py: %v\n%s", err, out)
	}
	return string(out)
}

// The table of scripts/dense-eval.sh: J, J away from thin object parts, J
// with them, J without the object's holes, the DAVIS 2016 benchmark's J and
// F per sequence as mean ± sd over seeds, and their means over sequences.
// By hand: a, seeds 1/2: J 0.60/0.70 → 65.0 ± 7.1, away 0.80/0.90 → 85.0 ±
// 7.1, with 0.64/0.74 → 69.0 ± 7.1, without holes 0.66/0.76 → 71.0 ± 7.1,
// benchmark 0.62/0.72 → 67.0 ± 7.1, F 0.70/0.80 → 75.0 ± 7.1; b, one seed:
// J 50.0, away 52.0, with 55.0, without holes 57.0, benchmark 51.0, F 60.0;
// means 57.5, 68.5, 62.0, 64.0, 59.0, 67.5; label IoU mean (0.9 + 0.7)/2 =
// 0.800.
func TestDenseTableOptionalJColumns(t *testing.T) {
	head := "sequence,labels,variant,seed,precision,recall,f,j_mean,train_seconds,label_iou,j_unrefined,j_away_thin,j_benchmark,j_with_thin,j_without_holes\n"
	out := denseTable(t, head+
		"a,real,uniform,1,0.7,0.7,0.70,0.60,120,0.9,,0.80,0.62,0.64,0.66\n"+
		"a,real,uniform,2,0.8,0.8,0.80,0.70,120,0.9,,0.90,0.72,0.74,0.76\n"+
		"b,real,uniform,1,0.6,0.6,0.60,0.50,60,0.7,,0.52,0.51,0.55,0.57\n")
	testutil.Contains(t, "table", out,
		"| sequence | label IoU | J uniform | J uniform away from thin parts | J uniform with the thin parts (bound) | J uniform without the holes (bound) | J uniform, DAVIS benchmark | F uniform | J oracle | train min |",
		"| a | 0.9 | 65.0 ± 7.1 | 85.0 ± 7.1 | 69.0 ± 7.1 | 71.0 ± 7.1 | 67.0 ± 7.1 | 75.0 ± 7.1 | – | 2.0 |",
		"| b | 0.7 | 50.0 | 52.0 | 55.0 | 57.0 | 51.0 | 60.0 | – | 1.0 |",
		"| **mean** | 0.800 | 57.5 | 68.5 | 62.0 | 64.0 | 59.0 | 67.5 | – | 1.5 |")
	// A CSV of earlier runs, without the columns, prints without them.
	old := denseTable(t, "sequence,labels,variant,seed,precision,recall,f,j_mean,train_seconds,label_iou,j_unrefined\n"+
		"a,real,uniform,1,0.7,0.7,0.70,0.60,120,0.9,\n")
	if want := "| a | 0.9 | 60.0 | 70.0 | – | 2.0 |"; !strings.Contains(old, want) || strings.Contains(old, "thin parts") || strings.Contains(old, "holes") || strings.Contains(old, "benchmark") {
		t.Errorf("table of an old CSV, want %q and neither the thin-part nor the benchmark column:\n%s", want, old)
	}
}

// Columns that only some rows have. An oracle row with the bounds does not
// add their columns when no row of real labels has them (reused masks scored
// before the columns existed), and a column that one sequence lacks shows
// "–" there and "–" as its mean, since a mean over fewer sequences would
// not compare with J's. By hand: a J 60.0, away 80.0; b J 50.0 and no
// away; J mean 55.0; oracle (a) 70.0.
func TestDenseTablePartialColumns(t *testing.T) {
	head := "sequence,labels,variant,seed,precision,recall,f,j_mean,train_seconds,label_iou,j_unrefined,j_away_thin,j_benchmark,j_with_thin,j_without_holes\n"
	out := denseTable(t, head+
		"a,real,uniform,1,0.7,0.7,0.70,0.60,120,0.9,,0.80,,,\n"+
		"a,oracle,uniform,1,0.8,0.8,0.80,0.70,100,0.95,,0.85,0.71,0.72,0.73\n"+
		"b,real,uniform,1,0.6,0.6,0.60,0.50,60,0.7,,,,,\n")
	testutil.Contains(t, "table", out,
		"| sequence | label IoU | J uniform | J uniform away from thin parts | F uniform | J oracle | train min |",
		"| a | 0.9 | 60.0 | 80.0 | 70.0 | 70.0 | 2.0 |",
		"| b | 0.7 | 50.0 | – | 60.0 | – | 1.0 |",
		"| **mean** | 0.800 | 55.0 | – | 65.0 | 70.0 | 1.5 |")
	if strings.Contains(out, "nan") || strings.Contains(out, "holes") || strings.Contains(out, "benchmark") {
		t.Errorf("a nan, or a column only the oracle row has:\n%s", out)
	}
}

// Variants against uniform, paired per sequence, for F and for J. By hand:
// prune − uniform: ΔF a +2.0, b −1.0 → +0.50, helps 1 of 2; ΔJ a +4.0,
// b +1.0 → +2.50, helps 2 of 2; one seed each, so no spread.
func TestDenseTablePairedDeltaFAndJ(t *testing.T) {
	head := "sequence,labels,variant,seed,precision,recall,f,j_mean,train_seconds,label_iou,j_unrefined,j_away_thin\n"
	out := denseTable(t, head+
		"a,real,uniform,1,0.7,0.7,0.70,0.60,120,0.9,,\n"+
		"a,real,prune,1,0.7,0.7,0.72,0.64,120,0.9,,\n"+
		"b,real,uniform,1,0.6,0.6,0.60,0.50,60,0.7,,\n"+
		"b,real,prune,1,0.6,0.6,0.59,0.51,60,0.7,,\n")
	testutil.Contains(t, "paired table", out,
		"| variant vs uniform | mean ΔF | sequences helped | seed spread (sd of F) | ΔF > spread |",
		"| prune | +0.50 | 1 of 2 | one seed | – |",
		"| variant vs uniform | mean ΔJ | sequences helped | seed spread (sd of J) | ΔJ > spread |",
		"| prune | +2.50 | 2 of 2 | one seed | – |")
}

// J of the epoch checkpoints beside the final J (dense-eval.sh CHECKPOINTS):
// a at half its epochs 55.0 against 60.0 final, b 48.0 against 50.0: mean
// change (−5 − 2)/2 = −3.50.
func TestDenseTableCheckpoints(t *testing.T) {
	need(t, "python3")
	dir := t.TempDir()
	final := filepath.Join(dir, "dense.csv")
	ck := filepath.Join(dir, "ck.csv")
	os.WriteFile(final, []byte("sequence,labels,variant,seed,precision,recall,f,j_mean,train_seconds,label_iou,j_unrefined,j_away_thin\n"+
		"a,real,uniform,1,0.7,0.7,0.70,0.60,120,0.9,,\n"+
		"b,real,uniform,1,0.6,0.6,0.60,0.50,60,0.7,,\n"), 0o644)
	os.WriteFile(ck, []byte("sequence,labels,variant,seed,fraction,epoch,epochs,steps,j_mean\n"+
		"a,real,uniform,1,0.5,7,14,287,0.55\n"+
		"b,real,uniform,1,0.5,12,24,300,0.48\n"), 0o644)
	out, err := exec.Command("python3", "dense-table.py", "--checkpoints", ck, final).CombinedOutput()
	if err != nil {
		t.Fatalf("dense-table.py --checkpoints: %v\n%s", err, out)
	}
	testutil.Contains(t, "checkpoint table", string(out),
		"| sequence | variant | seed | J at 0.50 of the epochs (steps) | J final |",
		"| a | uniform | 1 | 55.0 (287) | 60.0 |",
		"| b | uniform | 1 | 48.0 (300) | 50.0 |",
		"Mean J change against the final model: 0.50 of the epochs -3.50 (2 sequences)")
}
