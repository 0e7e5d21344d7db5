package eval

import (
	"reflect"
	"testing"
)

// Step 2 by hand: region 1's total 5e-5 is below the visibility limit;
// regions 0 and 2 are visible with densities 2/4 = 50 % and 2/2 = 100 %
// (mean 75 %); 3 covered pixels over 2 frames of 4 pixels: density 37.5 %.
func TestVisibleRegionsByHand(t *testing.T) {
	a := &accum{nR: 3, regionTotal: []float64{4, 5e-5, 2}, regionSize: []float64{2, 0, 2},
		coverage: 3, usedFrames: 2, firstPixels: 4}
	res := &Result{}
	vis := a.visibleRegions(res, []int{10, 20, 30})
	if !reflect.DeepEqual(vis, []int{0, 2}) {
		t.Fatalf("visible %v, want [0 2]", vis)
	}
	near(t, "density of region 0", res.RegionDetails[0].Density, 50)
	near(t, "density of region 2", res.RegionDetails[2].Density, 100)
	near(t, "average region density", res.AvgRegionDensity, 75)
	near(t, "density", res.Density, 37.5)
	d := res.RegionDetails[1]
	if d.Visible || d.Color != 20 || d.Cluster != -1 || d.TotalSize != 5e-5 || res.Regions != 2 || res.Visible != 1 {
		t.Errorf("region 1 %+v, regions %d, visible %d", d, res.Regions, res.Visible)
	}
}

// Step 3 by hand on TestMoreClustersThanRegions' sums: O = [[2 .5] [0 1.5]
// [0 0]], |C| = [2.5 1.5 0], |Ĝ| = [2 2]. Cluster 2 is empty (P = R = 0).
func TestPrecisionRecallByHand(t *testing.T) {
	a := &accum{nR: 2, overlap: [][]float64{{2, 0.5}, {0, 1.5}, {0, 0}},
		clusterSize: []float64{2.5, 1.5, 0}, regionSize: []float64{2, 2}}
	tab := a.precisionRecall(3, []int{0, 1})
	want := prTable{P: [][]float64{{0.8, 0.2}, {0, 1}, {0, 0}}, R: [][]float64{{1, 0.25}, {0, 0.75}, {0, 0}}}
	if !reflect.DeepEqual(tab, want) {
		t.Errorf("table %+v, want %+v", tab, want)
	}
	near(t, "F(0,0)", tab.f(0, 0), 2*0.8/1.8)
	near(t, "F(1,1)", tab.f(1, 1), 2*0.75/1.75)
	if tab.score(0, 0) != 8888 || tab.score(0, 1) != 2222 || tab.score(1, 0) != 0 {
		t.Errorf("scores %d %d %d, want 8888 2222 0", tab.score(0, 0), tab.score(0, 1), tab.score(1, 0))
	}
	// Only visible region 1: its column alone.
	if got := a.precisionRecall(3, []int{1}); !reflect.DeepEqual(got.P, [][]float64{{0.2}, {1}, {0}}) {
		t.Errorf("P on region 1: %v", got.P)
	}
}

// Step 4's rows by hand. Labels 0, 2, 5 in MoSegEval numbering are six
// clusters, 1, 3 and 4 empty; compact numbering has three.
func TestAssignmentRowsByHand(t *testing.T) {
	mos := numbering{labels: []int{0, 2, 5}, mosegeval: true, total: 6}
	as := exactRows(mos)
	if !reflect.DeepEqual(as.rows, []int{0, -1, 1, -1, -1, 2}) || !reflect.DeepEqual(as.ids, []int{0, 1, 2, 3, 4, 5}) {
		t.Errorf("MoSegEval rows %v ids %v", as.rows, as.ids)
	}
	as = exactRows(numbering{labels: []int{0, 2, 5}})
	if !reflect.DeepEqual(as.rows, []int{0, 1, 2}) || !reflect.DeepEqual(as.ids, []int{0, 1, 2}) {
		t.Errorf("compact rows %v ids %v", as.rows, as.ids)
	}

	// Reduced: F of the three present clusters against two visible regions
	// (scores 2000, 9000, 5000 and 7000, 7000, 1000). The two best of
	// region 0 are clusters 1, 2; of region 1 clusters 0, 1 (a tie, to the
	// smaller id); all three are kept, then min(3 empty, 2) = 2 empty rows
	// with output ids 3, 4.
	tab := prTable{P: [][]float64{{0.2, 0.7}, {0.9, 0.7}, {0.5, 0.1}}, R: [][]float64{{0.2, 0.7}, {0.9, 0.7}, {0.5, 0.1}}}
	as, err := reducedRows(mos, tab, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(as.rows, []int{0, 1, 2, -1, -1}) || !reflect.DeepEqual(as.ids, []int{0, 1, 2, 3, 4}) {
		t.Errorf("reduced rows %v ids %v", as.rows, as.ids)
	}
	// One visible region: its best cluster (1) and one empty row.
	as, err = reducedRows(mos, prTable{P: [][]float64{{0.2}, {0.9}, {0.5}}, R: [][]float64{{0.2}, {0.9}, {0.5}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(as.rows, []int{1, -1}) || !reflect.DeepEqual(as.ids, []int{1, 3}) {
		t.Errorf("reduced rows for one region %v ids %v", as.rows, as.ids)
	}
	// Its cost table: −int(F·10000) for the present cluster, 0 for the
	// empty row and the padding column.
	if c := as.cost(prTable{P: [][]float64{{0.2}, {0.9}, {0.5}}, R: [][]float64{{0.2}, {0.9}, {0.5}}}, 1); !reflect.DeepEqual(c, [][]int{{-9000, 0}, {0, 0}}) {
		t.Errorf("cost %v", c)
	}
}

// Step 5 by hand: two visible regions (0 and 2 of three), one present
// cluster (label 7) in compact numbering, so region 2 gets a padding
// cluster (P = 1, R = 0). Cluster 0 on region 0: O = 3, |C| = 4, |Ĝ_0| = 3,
// P = 0.75, R = 1, F = 6/7, IoU = 3/(3 + 4 − 3) = 0.75.
// P̄ = (0.75 + 1)/2, R̄ = (1 + 0)/2, F = 2P̄R̄/(P̄ + R̄); one pair has
// F > 0.75, which is the background: 0 objects.
func TestAverageByHand(t *testing.T) {
	a := &accum{nR: 3, overlap: [][]float64{{3, 0, 1}}, clusterSize: []float64{4}, regionSize: []float64{3, 0, 1}}
	vis := []int{0, 2}
	num := numbering{labels: []int{7}}
	res := &Result{Threshold: 0.75, RegionDetails: []RegionDetail{{Region: 0, Cluster: -1}, {Region: 1, Cluster: -1}, {Region: 2, Cluster: -1}}}
	tab := a.precisionRecall(1, vis)
	as := exactRows(num)
	as.match = []int{0, 1} // cluster 0 → region 0, the padding cluster → region 2
	rc := a.average(res, num, as, tab, vis)
	if !reflect.DeepEqual(rc, []int{0, -1, -1}) {
		t.Errorf("region clusters %v", rc)
	}
	wantPairs := []Pair{
		{Cluster: 0, Label: 7, Region: 0, Precision: 0.75, Recall: 1, F: 6.0 / 7, Counted: true},
		{Cluster: 1, Label: -1, Region: 2, Precision: 1, Counted: true, Empty: true},
	}
	if len(res.Pairs) != 2 {
		t.Fatalf("pairs %+v", res.Pairs)
	}
	for i, p := range res.Pairs {
		w := wantPairs[i]
		near(t, "pair F", p.F, w.F)
		p.F, w.F = 0, 0
		if p != w {
			t.Errorf("pair %d %+v, want %+v", i, p, w)
		}
	}
	pm, rm := 1.75/2, 0.5
	near(t, "P", res.Precision, pm)
	near(t, "R", res.Recall, rm)
	near(t, "F", res.F, 2*pm*rm/(pm+rm))
	near(t, "IoU of region 0", res.RegionDetails[0].IoU, 0.75)
	if res.Objects != 0 || !res.RegionDetails[0].Object || res.RegionDetails[2].Precision != 1 || res.RegionDetails[2].Cluster != -1 {
		t.Errorf("objects %d, details %+v", res.Objects, res.RegionDetails)
	}
}
