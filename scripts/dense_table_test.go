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

// The table of scripts/dense-eval.sh: J, J away from thin object parts and
// F per sequence as mean ± sd over seeds, and their means over sequences.
// By hand: a, seeds 1/2: J 0.60/0.70 → 65.0 ± 7.1, away 0.80/0.90 → 85.0 ±
// 7.1, F 0.70/0.80 → 75.0 ± 7.1; b, one seed: J 50.0, away 52.0, F 60.0;
// means 57.5, 68.5, 67.5; label IoU mean (0.9 + 0.7)/2 = 0.800.
func TestDenseTableAwayFromThinParts(t *testing.T) {
	head := "sequence,labels,variant,seed,precision,recall,f,j_mean,train_seconds,label_iou,j_unrefined,j_away_thin\n"
	out := denseTable(t, head+
		"a,real,uniform,1,0.7,0.7,0.70,0.60,120,0.9,,0.80\n"+
		"a,real,uniform,2,0.8,0.8,0.80,0.70,120,0.9,,0.90\n"+
		"b,real,uniform,1,0.6,0.6,0.60,0.50,60,0.7,,0.52\n")
	testutil.Contains(t, "table", out,
		"| sequence | label IoU | J uniform | J uniform away from thin parts | F uniform | J oracle | train min |",
		"| a | 0.9 | 65.0 ± 7.1 | 85.0 ± 7.1 | 75.0 ± 7.1 | – | 2.0 |",
		"| b | 0.7 | 50.0 | 52.0 | 60.0 | – | 1.0 |",
		"| **mean** | 0.800 | 57.5 | 68.5 | 67.5 | – | 1.5 |")
	// A CSV of earlier runs, without the column, prints without it.
	old := denseTable(t, "sequence,labels,variant,seed,precision,recall,f,j_mean,train_seconds,label_iou,j_unrefined\n"+
		"a,real,uniform,1,0.7,0.7,0.70,0.60,120,0.9,\n")
	if want := "| a | 0.9 | 60.0 | 70.0 | – | 2.0 |"; !strings.Contains(old, want) || strings.Contains(old, "away from thin parts") {
		t.Errorf("table of an old CSV, want %q and no thin-part column:\n%s", want, old)
	}
}
