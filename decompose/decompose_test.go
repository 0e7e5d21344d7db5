package decompose

import (
	"encoding/json"
	"image"
	"image/color"
	"math"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/densify/densify/bsds"
	"github.com/densify/densify/eval"
	"github.com/densify/densify/internal/logit"
	"github.com/densify/densify/internal/testutil"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/uncertainty"
)

// TestLineMaxHandComputed checks the 4-connected line on a 5×3 map.
func TestLineMaxHandComputed(t *testing.T) {
	w := 5
	p := make([]float32, 15)
	// values = 10·y + x, so the maximum identifies the pixel
	for i := range p {
		p[i] = float32(10*(i/w) + i%w)
	}
	cases := []struct {
		x0, y0, x1, y1 int
		want           float32
	}{
		{0, 0, 4, 0, 4},  // row 0
		{0, 0, 0, 2, 20}, // column 0
		{0, 0, 1, 1, 11}, // diagonal: (0,0), (1,0), (1,1)
		{1, 1, 0, 0, 11}, // reversed: (1,1), (0,1)=10, (0,0)
		{0, 0, 4, 1, 14}, // (0,0) (1,0) (2,0)→ round(2·1/4)=1 at s=2 → (2,1)…
		{4, 2, 0, 0, 24}, // starts at the maximum
		{3, 0, 3, 0, 3},  // a single pixel
		{0, 2, 4, 0, 21}, // anti-diagonal: first step (0,2)→(1,1) (Round(−½) = −1) passes the corner (1,2) = 21
		{1, 0, 2, 0, 2},  // neighbours
	}
	for _, c := range cases {
		if got := LineMax(p, w, c.x0, c.y0, c.x1, c.y1); got != c.want {
			t.Errorf("LineMax (%d,%d)→(%d,%d) = %v, want %v", c.x0, c.y0, c.x1, c.y1, got, c.want)
		}
	}
	// a thin diagonal boundary (8-connected) blocks the anti-diagonal line
	q := make([]float32, 16)
	for i := 0; i < 4; i++ {
		q[i*4+i] = 1
	}
	if got := LineMax(q, 4, 3, 0, 0, 3); got != 1 {
		t.Errorf("line across a thin diagonal boundary missed it: %v", got)
	}
}

// linePixels is the brute-force 4-connected line: every pixel whose centre
// is visited by the DDA, plus the corner pixel of every diagonal step.
func bruteLineMax(p []float32, w, x0, y0, x1, y1 int) float32 {
	n := max(abs(x1-x0), abs(y1-y0))
	m := float32(math.Inf(-1))
	pts := [][2]int{{x0, y0}}
	for s := 1; s <= n; s++ {
		x := x0 + int(math.Round(float64(s*(x1-x0))/float64(n)))
		y := y0 + int(math.Round(float64(s*(y1-y0))/float64(n)))
		last := pts[len(pts)-1]
		if x != last[0] && y != last[1] {
			pts = append(pts, [2]int{x, last[1]})
		}
		pts = append(pts, [2]int{x, y})
	}
	for _, q := range pts {
		m = max(m, p[q[1]*w+q[0]])
	}
	return m
}

// TestBuildGraphBruteForce compares BuildGraph on tiny maps with a
// brute-force enumeration of all pixel pairs.
func TestBuildGraphBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, nb := range []int{4, 8} {
		w, h := 7, 5
		p := make([]float32, w*h)
		for i := range p {
			p[i] = rng.Float32()
		}
		par := GraphParams{Neighbours: nb, Radius: 4, Lifted: 5, Beta: 0.4}
		g, err := BuildGraph(p, w, h, par)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		offs := LiftedOffsets(par.Lifted, par.Radius, nb)
		if len(offs) != par.Lifted {
			t.Fatalf("%d offsets, want %d", len(offs), par.Lifted)
		}
		type key struct{ u, v int }
		want := map[key]multicut.Edge{}
		for u := 0; u < w*h; u++ {
			for v := u + 1; v < w*h; v++ {
				dx, dy := v%w-u%w, v/w-u/w
				reg := abs(dx)+abs(dy) == 1 || (nb == 8 && abs(dx) == 1 && abs(dy) == 1)
				lif := slices.Contains(offs, Offset{dx, dy}) || slices.Contains(offs, Offset{-dx, -dy})
				if !reg && !lif {
					continue
				}
				q := bruteLineMax(p, w, u%w, u/w, v%w, v/w)
				want[key{u, v}] = multicut.Edge{U: u, V: v, Cost: logit.CostFromProb(float64(q), par.Beta), Lifted: !reg}
			}
		}
		if len(g.Edges) != len(want) {
			t.Fatalf("%d-neighbour graph has %d edges, brute force %d", nb, len(g.Edges), len(want))
		}
		for _, e := range g.Edges {
			u, v := min(e.U, e.V), max(e.U, e.V)
			we, ok := want[key{u, v}]
			// the line max is symmetric except for exact halves; the brute
			// force walks from the smaller id, BuildGraph from the offset's origin
			if !ok || we.Lifted != e.Lifted || math.Abs(we.Cost-e.Cost) > 1e-12 {
				q := bruteLineMax(p, w, e.U%w, e.U/w, e.V%w, e.V/w)
				if !ok || we.Lifted != e.Lifted || math.Abs(logit.CostFromProb(float64(q), par.Beta)-e.Cost) > 1e-12 {
					t.Fatalf("edge (%d,%d) lifted=%v cost %v; brute force %+v (present %v)", e.U, e.V, e.Lifted, e.Cost, we, ok)
				}
			}
		}
	}
}

func TestLiftedOffsetsSpread(t *testing.T) {
	offs := LiftedOffsets(8, 20, 4)
	seen := map[Offset]bool{}
	lo, hi := math.Inf(1), 0.0
	for _, o := range offs {
		if seen[o] || o.DY < 0 || (o.DY == 0 && o.DX <= 0) {
			t.Fatalf("offset %v duplicated or not in the half plane: %v", o, offs)
		}
		seen[o] = true
		r := math.Hypot(float64(o.DX), float64(o.DY))
		lo, hi = math.Min(lo, r), math.Max(hi, r)
		if r > 20.5 {
			t.Fatalf("offset %v longer than τ", o)
		}
	}
	if lo > 2.9 || hi < 19.5 {
		t.Fatalf("offset lengths span [%v, %v], want about [2, 20]", lo, hi)
	}
}

// TestUncertaintyEqualsPackage: on a tiny two-region image the per-pixel
// uncertainty Decompose reports is the uncertainty package's on the same
// graph and labels with GammaCosts "prior", and on the graph with the prior
// term log((1−β)/β) removed from every cost (β = ½) with "logit"; the
// likelihood is the same in both; the two regions are found.
func TestUncertaintyEqualsPackage(t *testing.T) {
	img := twoRegions(24, 16)
	opt := DefaultOptions()
	opt.Graph.MinSize = 0
	opt.GammaCosts = "prior"
	r, err := Decompose(img, opt)
	if err != nil {
		t.Fatal(err)
	}
	want, err := uncertainty.Compute(r.Graph, r.Labels, opt.Graph.Beta)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.U {
		if r.Uncertainty.U[i] != want.U[i] || r.Uncertainty.ULik[i] != want.ULik[i] {
			t.Fatalf("pixel %d: u %v lik %v, package %v %v", i, r.Uncertainty.U[i], r.Uncertainty.ULik[i], want.U[i], want.ULik[i])
		}
	}
	opt.GammaCosts = "logit"
	rl, err := Decompose(img, opt)
	if err != nil {
		t.Fatal(err)
	}
	raw := &multicut.Graph{N: r.Graph.N, Edges: append([]multicut.Edge(nil), r.Graph.Edges...)}
	for i := range raw.Edges {
		raw.Edges[i].Cost -= uncertainty.PriorOffset(opt.Graph.Beta)
	}
	wantL, err := uncertainty.Compute(raw, rl.Labels, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i := range wantL.U {
		if math.Abs(rl.Uncertainty.U[i]-wantL.U[i]) > 1e-12 || math.Abs(rl.Uncertainty.ULik[i]-want.ULik[i]) > 1e-9 {
			t.Fatalf("logit: pixel %d: u %v lik %v, package %v %v", i, rl.Uncertainty.U[i], rl.Uncertainty.ULik[i], wantL.U[i], want.ULik[i])
		}
		if rl.Uncertainty.U[i] != r.Uncertainty.U[i] {
			changed++
		}
	}
	if changed == 0 {
		t.Fatalf("logit and prior costs give the same u everywhere")
	}
	if _, err := GammaCostsOf("odds"); err == nil {
		t.Fatalf("GammaCostsOf accepted an unknown name")
	}
	if err := multicut.Feasible(r.Graph, r.Labels); err != nil {
		t.Fatal(err)
	}
	// far from the edge (column 12) pixels are certain, the left and right
	// halves far from it are in different segments
	if r.Labels[8*24+2] == r.Labels[8*24+21] {
		t.Fatalf("the two halves were not separated")
	}
	if r.Uncertainty.U[8*24+2] != 0 {
		t.Fatalf("pixel far from the boundary has u = %v", r.Uncertainty.U[8*24+2])
	}
}

// twoRegions is a dark left half and a bright right half with mild noise.
func twoRegions(w, h int) *image.RGBA {
	rng := rand.New(rand.NewSource(1))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := 40
			if x >= w/2 {
				v = 210
			}
			v += rng.Intn(7) - 3
			img.Set(x, y, color.RGBA{uint8(v), uint8(v / 2), uint8(255 - v), 255})
		}
	}
	return img
}

func TestAbsorbSmall(t *testing.T) {
	// 1×6 path with costs; segment {2} is small and joins the neighbour with
	// the larger edge cost (edge 2–3: 5 > edge 1–2: 1)
	g := &multicut.Graph{N: 6}
	costs := []float64{3, 1, 5, 3, 2}
	for i, c := range costs {
		g.Edges = append(g.Edges, multicut.Edge{U: i, V: i + 1, Cost: c})
	}
	g.Edges = append(g.Edges, multicut.Edge{U: 0, V: 5, Cost: -9, Lifted: true})
	got := AbsorbSmall(g, []int{0, 0, 1, 2, 2, 2}, 2)
	if want := []int{0, 0, 1, 1, 1, 1}; !slices.Equal(got, want) {
		t.Fatalf("AbsorbSmall = %v, want %v", got, want)
	}
	if err := multicut.Feasible(g, got); err != nil {
		t.Fatal(err)
	}
	if got := AbsorbSmall(g, []int{0, 0, 1, 2, 2, 2}, 0); !slices.Equal(got, []int{0, 0, 1, 2, 2, 2}) {
		t.Fatalf("minSize 0 changed labels: %v", got)
	}
}

func TestCoveringAndScore(t *testing.T) {
	// gt regions {0,1,2,3} {4,5}; pred {0,1} {2,3,4,5}
	gt := []int{0, 0, 0, 0, 1, 1}
	pred := []int{0, 0, 1, 1, 1, 1}
	// RI(pred, gt) = 7/15: together in both (0,1) (2,3) (4,5), apart in both {0,1}×{4,5}
	// region A (size 4): best overlap max(2/4, 2/6) = 0.5; B (size 2): 2/4 = 0.5
	if c := Covering(pred, gt); math.Abs(c-(4*0.5+2*0.5)/6) > 1e-12 {
		t.Fatalf("covering %v", c)
	}
	if c := Covering(gt, gt); c != 1 {
		t.Fatalf("self covering %v", c)
	}
	anns := []bsds.Annotation{{W: 6, H: 1, Segment: gt}, {W: 6, H: 1, Segment: pred}}
	s, err := Score(pred, anns)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.Covering-(0.5+1)/2) > 1e-12 || math.Abs(s.PRI-(1+7.0/15)/2) > 1e-12 {
		t.Fatalf("scores %+v", s)
	}
}

// TestSparsifyBoundaryFirst: on the two-region image with an annotator equal
// to the halves, removing uncertain pixels first lowers VI at least as fast
// as random removal, and the first removed pixels are boundary pixels.
func TestSparsifyBoundaryFirst(t *testing.T) {
	w, h := 24, 16
	opt := DefaultOptions()
	opt.Graph.MinSize = 0
	opt.Graph.Beta = 0.7
	r, err := Decompose(twoRegions(w, h), opt)
	if err != nil {
		t.Fatal(err)
	}
	seg := make([]int, w*h)
	for i := range seg {
		if i%w >= w/2 {
			seg[i] = 1
		}
	}
	ev, err := Evaluate(r, []bsds.Annotation{{W: w, H: h, Segment: seg}}, SparsifyOptions{Stride: 1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Curves) != len(Orderings) || ev.Curves[0].Name != "proposed" {
		t.Fatalf("curves %+v", ev.Curves)
	}
	if ev.BoundaryShare["proposed"] < ev.BoundaryShare["random"] || ev.BoundaryShare["proposed"] < 0.9*math.Min(1, ev.BoundaryBase/0.1) {
		t.Fatalf("first removed pixels are not boundary pixels: %v (base %v)", ev.BoundaryShare, ev.BoundaryBase)
	}
}

// TestSparsifyOracle: a 10×10 decomposition into halves with a 2×5 block of
// the right half given to the left segment. Against annotator 1 (the true
// halves) the block's pixels have the largest VI term, log 6 + log 5
// (cell 10 of row 60 and column 50), against log(60/50) and log(50/40)
// elsewhere, so the oracle removes the block first and VI is 0 at 10 %
// removed; annotator 2 drew the decomposition itself (VI 0 throughout). The
// mean oracle curve is therefore VI(pred, halves)/2 at 0 and exactly 0 from
// 10 %, below every uncertainty ordering (all scores 0 here: ties).
func TestSparsifyOracle(t *testing.T) {
	w, h := 10, 10
	pred, halves := make([]int, w*h), make([]int, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if x >= w/2 {
				halves[y*w+x] = 1
				pred[y*w+x] = 1
				if x < 7 && y < 5 {
					pred[y*w+x] = 0
				}
			}
		}
	}
	n := w * h
	z := make([]float64, n)
	r := &Result{W: w, H: h, Labels: pred, Uncertainty: &uncertainty.Result{U: z, ULik: z, ULifted: z, ULikE: z},
		GammaLayered: z, GammaSingle: z, SegmentRank: z}
	anns := []bsds.Annotation{{W: w, H: h, Segment: halves}, {W: w, H: h, Segment: pred}}
	curves, err := Sparsify(r, anns, SparsifyOptions{Stride: 1, Step: 0.1, Max: 0.5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var oracle *uncertainty.Curve
	for i := range curves {
		if curves[i].Name == Oracle {
			oracle = &curves[i]
		}
	}
	if oracle == nil || len(curves) != len(Orderings) {
		t.Fatalf("%d curves, oracle %v", len(curves), oracle)
	}
	if want := eval.VariationOfInformation(pred, halves) / 2; math.Abs(oracle.VI[0]-want) > 1e-12 {
		t.Errorf("oracle VI at 0 removed = %v, want %v", oracle.VI[0], want)
	}
	for i := 1; i < len(oracle.VI); i++ {
		if oracle.VI[i] != 0 {
			t.Errorf("oracle VI at %v removed = %v, want 0", oracle.Removed[i], oracle.VI[i])
		}
	}
	for _, c := range curves {
		if c.Name != Oracle && c.AUCVI <= oracle.AUCVI {
			t.Errorf("%s: VI-AUC %v not above the oracle's %v", c.Name, c.AUCVI, oracle.AUCVI)
		}
	}
}

// TestKLjOptions checks the solver options a decomposition passes to KLj:
// no join-and-evict moves, the group moves and the second phase as the
// options say (by default no group moves and the full second phase), the
// multilevel refinement only when asked.
func TestKLjOptions(t *testing.T) {
	start := []int{0, 0, 1}
	k := DefaultOptions().kljOptions(start)
	if k.JoinEvict != -1 || k.GroupMoves != -1 || k.FullSweep != 1000 || k.Levels == nil || len(k.Levels) != 0 || k.MaxIter != 0 || &k.Start[0] != &start[0] {
		t.Fatalf("default KLj options %+v", k)
	}
	o := DefaultOptions()
	o.KLjFullSweep, o.KLjGroupMoves, o.KLjMultilevel, o.KLjMaxIter = -1, 16, true, 7
	if k := o.kljOptions(start); k.FullSweep != -1 || k.GroupMoves != 16 || k.Levels != nil || k.MaxIter != 7 || k.JoinEvict != -1 {
		t.Fatalf("KLj options %+v from %+v", k, o)
	}
}

// TestBySegments bins hand-made rows by their number of segments: counts,
// shares below the likelihood per ordering, an empty bin (no NaN in the
// JSON, dashes in the table) and a row without evaluation left out.
func TestBySegments(t *testing.T) {
	row := func(seg int, prop, seg2, lik float64) ImageRow {
		return ImageRow{Segments: seg, VIAUC: map[string]float64{"proposed": prop, "proposed-layered": 1, "proposed-segment": seg2, "likelihood": lik, "random": 2}}
	}
	rows := []ImageRow{
		row(3, 0.4, 0.9, 0.5), row(7, 0.6, 0.4, 0.5), // 1–7: proposed 1/2, segment 1/2
		row(8, 0.6, 0.6, 0.5),                                                   // 8–14: 0/1
		{Segments: 20},                                                          // not evaluated
		row(30, 0.6, 0.1, 0.5),                                                  // 25–39: segment 1/1
		row(45, 0.6, 0.1, 0.5), row(100, 0.6, 0.7, 0.5), row(40, 0.6, 0.2, 0.5), // ≥ 40: segment 2/3
	}
	bins := bySegments(rows)
	want := []struct {
		lo, hi, n  int
		prop, segm float64
	}{{1, 8, 2, 0.5, 0.5}, {8, 15, 1, 0, 0}, {15, 25, 0, 0, 0}, {25, 40, 1, 0, 1}, {40, 0, 3, 0, 2.0 / 3}}
	if len(bins) != len(want) {
		t.Fatalf("%d bins", len(bins))
	}
	for i, w := range want {
		b := bins[i]
		if b.Lo != w.lo || b.Hi != w.hi || b.Images != w.n || b.BelowLikelihood["proposed"] != w.prop || math.Abs(b.BelowLikelihood["proposed-segment"]-w.segm) > 1e-12 {
			t.Errorf("bin %d: %+v, want %+v", i, b, w)
		}
	}
	if len(bins[2].BelowLikelihood) != 0 {
		t.Errorf("empty bin has shares %v", bins[2].BelowLikelihood)
	}
	if _, err := json.Marshal(bins); err != nil {
		t.Fatal(err)
	}
	s := &DatasetSummary{Images: 7, Options: DefaultOptions(), Timing: map[string]any{"mean_image_s": 1.0},
		Mean: &DatasetMeans{BySegments: bins, VIAUC: map[string]float64{}, RIAUC: map[string]float64{}, Share10: map[string]float64{}, BelowLikelihood: map[string]float64{}, BelowRandom: map[string]float64{}}}
	md := Markdown(s)
	for _, line := range []string{"| 1–7 | 2 | 50 % | 0 % | 50 % |", "| 15–24 | 0 | – | – | – |", "| ≥ 40 | 3 | 0 % | 0 % | 67 % |"} {
		if !strings.Contains(md, line) {
			t.Errorf("summary.md lacks %q:\n%s", line, md)
		}
	}
}

// On a real BSDS val image (143090: 13 segments, where flooring every
// segment at its μ_A, MeasuresVersion 1, put the ordering above the
// likelihood, VI-AUC 0.275 against 0.214) the
// proposed-segment ordering removes VI faster than the likelihood baseline
// (README: 0.172), and both beat random. Skips without ../shared.
func TestProposedSegmentOnBSDS(t *testing.T) {
	root := testutil.BSDSDev()
	img, err := bsds.ReadImage(filepath.Join(root, "images", "val", "143090.jpg"))
	if err != nil {
		t.Skipf("no BSDS data: %v", err)
	}
	r, err := Decompose(img, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	anns, err := bsds.ReadGroundTruth(filepath.Join(root, "groundTruth", "val", "143090.mat"), r.W, r.H)
	if err != nil {
		t.Fatal(err)
	}
	curves, err := Sparsify(r, anns, SparsifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	auc := map[string]float64{}
	for _, c := range curves {
		auc[c.Name] = c.AUCVI
	}
	t.Logf("%d segments, VI-AUC proposed-segment %.4f likelihood %.4f random %.4f", multicut.NumClusters(r.Labels), auc["proposed-segment"], auc["likelihood"], auc["random"])
	if !(auc["proposed-segment"] < 0.9*auc["likelihood"] && auc["likelihood"] < auc["random"]) {
		t.Fatalf("VI-AUC proposed-segment %.4f, likelihood %.4f, random %.4f: want proposed-segment ≥ 10 %% below the likelihood, both below random", auc["proposed-segment"], auc["likelihood"], auc["random"])
	}
}

// means counts, per ordering, the images below the likelihood and those
// where the ordering and the likelihood are both below random (hand-made
// rows; a row without evaluation is left out), and summary.md leads with
// proposed-segment's shares.
func TestMeansShares(t *testing.T) {
	row := func(seg, lik float64) ImageRow {
		return ImageRow{Segments: 10, VIAUC: map[string]float64{"proposed": 1.5, "proposed-segment": seg, "likelihood": lik, "random": 2}}
	}
	rows := []ImageRow{row(0.3, 0.5), row(0.6, 0.5), row(0.3, 2.5), {Segments: 4}}
	sets := [][]uncertainty.Curve{{{Name: "proposed", Removed: []float64{0, 0.9}, VI: []float64{1, 0.5}, RI: []float64{0.5, 0.6}}}}
	m, err := means(rows, sets)
	if err != nil {
		t.Fatal(err)
	}
	o := "proposed-segment"
	if math.Abs(m.BelowLikelihood[o]-2.0/3) > 1e-12 || m.BelowRandom[o] != 1 || math.Abs(m.WithLikelihoodBelowRandom[o]-2.0/3) > 1e-12 {
		t.Fatalf("proposed-segment: below likelihood %v, below random %v, with likelihood below random %v; want 2/3, 1, 2/3", m.BelowLikelihood[o], m.BelowRandom[o], m.WithLikelihoodBelowRandom[o])
	}
	// proposed (1.5) is below the likelihood only in the third row (2.5).
	if math.Abs(m.ProposedBelowLikelihood-1.0/3) > 1e-12 || math.Abs(m.BothBelowRandom-2.0/3) > 1e-12 {
		t.Fatalf("proposed: below likelihood %v, both below random %v; want 1/3 and 2/3", m.ProposedBelowLikelihood, m.BothBelowRandom)
	}
	md := Markdown(&DatasetSummary{Images: 4, Options: DefaultOptions(), Timing: map[string]any{"mean_image_s": 1.0}, Mean: m})
	if want := "VI-AUC < likelihood on **67 %** of the images, < random on 100 %; it and the likelihood both < random on **67 %**."; !strings.Contains(md, want) {
		t.Fatalf("summary.md lacks %q:\n%s", want, md)
	}
}
