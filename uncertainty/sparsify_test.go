package uncertainty

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/densify/densify/eval"
)

func TestSparsifyRemovesWrongNodeFirst(t *testing.T) {
	gt := []int{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, -1}
	pred := []int{5, 5, 5, 6, 5, 6, 6, 6, 6, 6, 5} // node 3 wrong; node 10 has no GT
	good := make([]float64, 11)
	good[3] = 0.9
	good[10] = 1 // ignored: no GT
	flat := make([]float64, 11)
	fr, err := Fractions(0.1, 0.2)
	if err != nil || len(fr) != 3 {
		t.Fatalf("fractions %v %v", fr, err)
	}
	curves, err := Sparsify(pred, gt, []Ordering{
		{Name: "good", Scores: [][]float64{good}},
		{Name: "flat", Scores: [][]float64{flat}},
	}, fr)
	if err != nil {
		t.Fatal(err)
	}
	vi0 := eval.VariationOfInformation(pred[:10], gt[:10])
	if vi0 <= 0 || math.Abs(curves[0].VI[0]-vi0) > 1e-12 || math.Abs(curves[1].VI[0]-vi0) > 1e-12 {
		t.Fatalf("VI at 0%% removed: %v %v, want %v", curves[0].VI[0], curves[1].VI[0], vi0)
	}
	if curves[0].VI[1] != 0 || curves[0].RI[1] != 1 {
		t.Errorf("good ordering at 10%%: VI %v RI %v, want 0, 1", curves[0].VI[1], curves[0].RI[1])
	}
	// flat ordering: ties by node id → nodes 0 then 1 removed; node 3 stays.
	want1 := eval.VariationOfInformation(pred[1:10], gt[1:10])
	want2 := eval.VariationOfInformation(pred[2:10], gt[2:10])
	if math.Abs(curves[1].VI[1]-want1) > 1e-12 || math.Abs(curves[1].VI[2]-want2) > 1e-12 {
		t.Errorf("flat ordering: VI %v, want [%v %v]", curves[1].VI[1:], want1, want2)
	}
	if want := 0.1 * (vi0/2 + 0 + 0/2); math.Abs(curves[0].AUCVI-want) > 1e-12 {
		t.Errorf("AUC VI = %v, want %v", curves[0].AUCVI, want)
	}
	// Averaging over seeds: two runs → the point-wise mean.
	avg, err := Sparsify(pred, gt, []Ordering{{Name: "mix", Scores: [][]float64{good, flat}}}, fr)
	if err != nil {
		t.Fatal(err)
	}
	if want := (0 + want1) / 2; math.Abs(avg[0].VI[1]-want) > 1e-12 {
		t.Errorf("seed average VI = %v, want %v", avg[0].VI[1], want)
	}
	// Dataset mode.
	ds, err := AverageCurves([][]Curve{curves, curves})
	if err != nil || math.Abs(ds[1].AUCVI-curves[1].AUCVI) > 1e-12 {
		t.Errorf("average of identical sets: %v %v", err, ds)
	}
	if _, err := Sparsify(pred[:3], gt, nil, fr); err == nil {
		t.Error("length mismatch accepted")
	}
	if _, err := Fractions(0, 0.9); err == nil {
		t.Error("zero step accepted")
	}
	dir := t.TempDir()
	for _, m := range []string{"vi", "ri"} {
		p := filepath.Join(dir, m+".png")
		if err := PlotCurves(curves, m, "test", p); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(p); err != nil || st.Size() < 1000 {
			t.Errorf("plot %s: %v", m, err)
		}
	}
}

// The oracle finds the wrong node by itself: node 3 (predicted with the
// other region, cell 1 of row 6 and column 5) has the largest VI term,
// log 6 + log 5, so removing 10 % of the ten nodes with ground truth leaves
// VI 0; node 10 (no ground truth) is ignored.
func TestOracleOrderingRemovesWrongNodeFirst(t *testing.T) {
	gt := []int{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, -1}
	pred := []int{5, 5, 5, 6, 5, 6, 6, 6, 6, 6, 5}
	o := OracleOrdering(pred, gt)
	if o.Name != Oracle || math.Abs(o.Scores[0][3]-math.Log(30)) > 1e-12 || o.Scores[0][10] != 0 {
		t.Fatalf("oracle %s scores %v", o.Name, o.Scores[0])
	}
	fr, _ := Fractions(0.1, 0.2)
	curves, err := Sparsify(pred, gt, []Ordering{o}, fr)
	if err != nil {
		t.Fatal(err)
	}
	if c := curves[0]; c.VI[0] != eval.VariationOfInformation(pred[:10], gt[:10]) || c.VI[1] != 0 || c.VI[2] != 0 {
		t.Fatalf("oracle curve %v", c.VI)
	}
}

// No two of the first 40 curves of a plot share colour and dash pattern
// (before, the eighth colour wrapped around: a decomposition plot drew
// "proposed" and "oracle" both in red).
func TestCurveStylesDistinct(t *testing.T) {
	seen := map[string]int{}
	for k := 0; k < 40; k++ {
		c, d := curveStyle(k)
		r, g, b, a := c.RGBA()
		key := fmt.Sprint(r, g, b, a, d)
		if j, ok := seen[key]; ok {
			t.Fatalf("curves %d and %d look alike: %s", j, k, key)
		}
		seen[key] = k
	}
}
