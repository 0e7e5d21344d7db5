package uncertainty

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/trajectory"
)

func TestReadSequenceList(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "list.txt")
	os.WriteFile(p, []byte("# name graph labels tracks gt\nseq1 g.txt l.txt /abs/t.dat gt\n\n"), 0o644)
	ins, err := ReadSequenceList(p)
	if err != nil || len(ins) != 1 || ins[0].Graph != filepath.Join(dir, "g.txt") || ins[0].Tracks != "/abs/t.dat" {
		t.Fatalf("list: %+v %v", ins, err)
	}
	os.WriteFile(p, []byte("seq1 g.txt l.txt t.dat gt\nseq2 g.txt\n"), 0o644)
	if _, err := ReadSequenceList(p); err == nil || !strings.Contains(err.Error(), "list.txt:2:") {
		t.Errorf("short line: err = %v, want file:line", err)
	}
}

// Two GT regions, a path graph with one wrong node at the boundary: the
// proposed ordering removes it first, so its VI curve drops to 0 at once.
func TestSparsifySequenceAndOutputs(t *testing.T) {
	n := 20
	g := &multicut.Graph{N: n}
	for i := 0; i+1 < n; i++ {
		c := 2.0
		if i == 9 || i == 10 {
			c = -0.2 // weak evidence around node 10
		}
		g.Edges = append(g.Edges, multicut.Edge{U: i, V: i + 1, Cost: c})
	}
	labels := make([]int, n)
	region := make([]int, n) // 1×n image: pixel x is region 0 for x < 10
	ts := &trajectory.TrackSet{Frames: 1}
	for i := 0; i < n; i++ {
		if i >= 10 {
			region[i] = 1
		}
		if i >= 11 { // node 10 predicted in cluster 0 but lies in region 1
			labels[i] = 1
		}
		ts.Tracks = append(ts.Tracks, trajectory.Track{Points: []trajectory.Point{{X: float64(i), Y: 0, Frame: 0}}})
	}
	gt := &dataset.GroundTruth{Colors: []int{0, 1}, Frames: []dataset.LabelledFrame{{Frame: 0, Width: n, Height: 1, Region: region}}}
	opt := SparsifyOptions{Beta: 0.5, Step: 0.05, Max: 0.9, Seeds: 3}
	sc, err := SparsifySequence("path", g, labels, ts, gt, opt)
	if err != nil {
		t.Fatal(err)
	}
	prop := sc.Curves[0]
	if prop.Name != "proposed" || prop.VI[0] <= 0 || prop.VI[1] != 0 {
		t.Errorf("proposed VI %v: want > 0 then 0 after removing 1 of 20", prop.VI[:3])
	}
	if sc.WithGT != n || sc.Regions != 2 || sc.Clusters != 2 {
		t.Errorf("counts %+v", sc)
	}
	dir := t.TempDir()
	sum, err := WriteSparsifyOutputs(dir, []*SequenceCurves{sc, sc}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Mean == nil || !sum.Mean.Curves[0].VIFalls || sum.Mean.Curves[0].AUCVI >= sum.Mean.Curves[2].AUCVI {
		t.Errorf("summary %+v", sum.Mean)
	}
	// Node 10 is the one wrong label, and u ranks it first: AUC 1.
	for _, c := range sum.Calibration.Sequences {
		if c.Nodes != n || c.Wrong != 1 || c.AUC == nil || *c.AUC != 1 || c.LOSOT == nil || c.LOSOECE == nil || c.ModelAUC == nil {
			t.Errorf("calibration %+v", c)
		}
	}
	var table strings.Builder
	sum.WriteCalibrationTable(&table)
	if !strings.Contains(table.String(), "path                       20    5.0%   1.000") {
		t.Errorf("calibration table:\n%s", table.String())
	}
	for _, f := range []string{"curves.csv", "vi.png", "ri.png", "summary.json", "path/vi.png", "calibration.csv", "error_model.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing output %s", f)
		}
	}
	var back SparsifySummary
	data, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err := json.Unmarshal(data, &back); err != nil || len(back.Sequences) != 2 {
		t.Errorf("summary.json: %v", err)
	}
	if _, err := SparsifySequence("bad", g, labels, &trajectory.TrackSet{}, gt, opt); err == nil {
		t.Error("track count mismatch accepted")
	}
}
