package refine

import (
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/densify/densify/trajectory"
)

// shiftFlow is a fake optical flow for frames that carry their index in
// pixel (0, 0): the scene translates by (vx, vy) pixels per frame, so
// F_{a→b} = (b − a)·(vx, vy) everywhere; broken makes every backward flow
// (b < a) wrong, so the consistency test rejects it.
type shiftFlow struct {
	vx, vy float32
	broken bool
	mu     sync.Mutex // Temporal computes flows concurrently
	calls  map[[2]int]int
}

func (f *shiftFlow) Flow(a, b image.Image) (*trajectory.FlowField, error) {
	ia, ib := int(a.(*image.Gray).Pix[0]), int(b.(*image.Gray).Pix[0])
	f.mu.Lock()
	if f.calls == nil {
		f.calls = map[[2]int]int{}
	}
	f.calls[[2]int{ia, ib}]++
	f.mu.Unlock()
	w, h := a.Bounds().Dx(), a.Bounds().Dy()
	ff := trajectory.NewFlowField(w, h)
	d := float32(ib - ia)
	for i := range ff.U {
		ff.U[i], ff.V[i] = d*f.vx, d*f.vy
		if f.broken && ib < ia {
			ff.U[i] = 0
		}
	}
	return ff, nil
}

func indexFrame(i, w, h int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	g.Pix[0] = uint8(i)
	return g
}

// runTemporal pushes every map and returns the fused maps in order.
func runTemporal(t *testing.T, o TemporalOptions, f Flow, w, h int, maps [][]float32) [][]float32 {
	t.Helper()
	tf, err := NewTemporal(o, f)
	if err != nil {
		t.Fatal(err)
	}
	var got []Fused
	for i, m := range maps {
		out, err := tf.Push(indexFrame(i, w, h), m)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, out...)
	}
	rest, err := tf.Flush()
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, rest...)
	if len(got) != len(maps) {
		t.Fatalf("%d fused maps for %d frames", len(got), len(maps))
	}
	res := make([][]float32, len(got))
	for i, g := range got {
		if g.Index != i {
			t.Fatalf("fused map %d has index %d", i, g.Index)
		}
		res[i] = g.Prob
	}
	return res
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// A static scene (zero flow), K = 1: each frame is the mean of itself and
// its neighbours with weight ½, computed by hand.
func TestTemporalStaticHandComputed(t *testing.T) {
	o := DefaultTemporalOptions()
	o.Radius = 1
	maps := [][]float32{constant(12, float32(0.2)), constant(12, float32(0.8)), constant(12, float32(0.5))}
	got := runTemporal(t, o, &shiftFlow{}, 4, 3, maps)
	want := []float64{
		(0.2 + 0.5*0.8) / 1.5,
		(0.8 + 0.5*0.2 + 0.5*0.5) / 2,
		(0.5 + 0.5*0.8) / 1.5,
	}
	for i, m := range got {
		for j, p := range m {
			if !near(float64(p), want[i]) {
				t.Fatalf("frame %d pixel %d: %v, want %v", i, j, p, want[i])
			}
		}
	}
}

// A translating scene: a bright column moves one pixel right per frame. The
// fused map of the middle frame samples its neighbours where the flow points,
// so the column stays sharp (1 on it, 0 beside it); pixels whose flow leaves
// the frame keep only the frames they can see.
func TestTemporalFollowsFlow(t *testing.T) {
	const w, h = 8, 2
	maps := make([][]float32, 3)
	for i := range maps {
		maps[i] = make([]float32, w*h)
		for y := range h {
			maps[i][y*w+3+i] = 1 // column 3+i
		}
	}
	o := DefaultTemporalOptions()
	o.Radius = 1
	got := runTemporal(t, o, &shiftFlow{vx: 1}, w, h, maps)
	for x := range w {
		want := 0.0
		if x == 4 {
			want = 1
		}
		if p := float64(got[1][x]); !near(p, want) {
			t.Errorf("middle frame x=%d: %v, want %v", x, p, want)
		}
	}
	// Without following the flow the column would be smeared over x = 3…5.
	// Frame 0, x = 7: its successor's sample at x = 8 is outside, so only
	// frame 0 itself counts (0); x = 3: its own 1 and the successor's 1.
	if p := got[0][7]; p != 0 {
		t.Errorf("frame 0 x=7: %v, want 0", p)
	}
	if p := got[0][3]; !near(float64(p), 1) {
		t.Errorf("frame 0 x=3: %v, want 1", p)
	}
}

// Flow that fails the forward–backward test is not used: every frame keeps
// its own map.
func TestTemporalRejectsInconsistentFlow(t *testing.T) {
	o := DefaultTemporalOptions()
	o.Radius = 2
	maps := [][]float32{constant(100, float32(0.1)), constant(100, float32(0.9)), constant(100, float32(0.4))}
	got := runTemporal(t, o, &shiftFlow{vx: 3, broken: true}, 10, 10, maps)
	for i, m := range got {
		for j := range m {
			if m[j] != maps[i][j] {
				t.Fatalf("frame %d pixel %d: %v, want its own %v", i, j, m[j], maps[i][j])
			}
		}
	}
}

// Radius 0 is the identity and needs no flow.
func TestTemporalRadiusZero(t *testing.T) {
	maps := [][]float32{constant(6, float32(0.3)), constant(6, float32(0.7))}
	got := runTemporal(t, TemporalOptions{}, nil, 3, 2, maps)
	for i := range maps {
		for j := range maps[i] {
			if got[i][j] != maps[i][j] {
				t.Fatalf("frame %d changed", i)
			}
		}
	}
}

// Over a long sequence each flow is computed once, frames are emitted as
// soon as their K successors exist, and the number of flows held stays
// within K(K+1).
func TestTemporalStreamsWithBoundedState(t *testing.T) {
	const n, K = 40, 3
	o := DefaultTemporalOptions()
	o.Radius = K
	f := &shiftFlow{}
	tf, err := NewTemporal(o, f)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		out, err := tf.Push(indexFrame(i, 4, 4), constant(16, float32(0.5)))
		if err != nil {
			t.Fatal(err)
		}
		if i >= K && (len(out) != 1 || out[0].Index != i-K) {
			t.Fatalf("push %d emitted %d maps (want frame %d)", i, len(out), i-K)
		}
		if len(tf.flows) > K*(K+1) {
			t.Fatalf("push %d: %d flows held, want ≤ %d", i, len(tf.flows), K*(K+1))
		}
		if len(tf.win) > 2*K+1 {
			t.Fatalf("push %d: %d frames held", i, len(tf.win))
		}
	}
	if _, err := tf.Flush(); err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for a := range n {
		for b := range n {
			if a != b && abs(a-b) <= K {
				pairs++
				if f.calls[[2]int{a, b}] != 1 {
					t.Fatalf("flow %d→%d computed %d times", a, b, f.calls[[2]int{a, b}])
				}
			}
		}
	}
	if len(f.calls) != pairs {
		t.Fatalf("%d flows computed, want %d", len(f.calls), pairs)
	}
}

func TestTemporalErrors(t *testing.T) {
	if _, err := NewTemporal(TemporalOptions{Radius: -1}, nil); err == nil {
		t.Error("negative radius accepted")
	}
	if _, err := NewTemporal(TemporalOptions{Radius: 2}, nil); err == nil || !strings.Contains(err.Error(), "optical flow") {
		t.Errorf("missing flow: %v", err)
	}
	tf, _ := NewTemporal(DefaultTemporalOptions(), &shiftFlow{})
	if _, err := tf.Push(indexFrame(0, 4, 4), constant(15, float32(0))); err == nil || !strings.Contains(err.Error(), "15 values") {
		t.Errorf("short map: %v", err)
	}
	if _, err := tf.Push(indexFrame(0, 4, 4), constant(16, float32(0))); err != nil {
		t.Fatal(err)
	}
	if _, err := tf.Push(indexFrame(1, 5, 4), constant(20, float32(0))); err == nil || !strings.Contains(err.Error(), "5x4") {
		t.Errorf("size change: %v", err)
	}
}

// With the tracker's fields of neighbouring frames in a FlowStore, the
// fusion reads them instead of computing them and fuses exactly as without
// the store: only the flows two frames apart are computed.
func TestTemporalReadsStoredNeighbourFlows(t *testing.T) {
	const n, w, h = 6, 5, 4
	o := DefaultTemporalOptions() // K = 2
	maps := make([][]float32, n)
	for i := range maps {
		maps[i] = make([]float32, w*h)
		for j := range maps[i] {
			maps[i][j] = float32((i*7+j*3)%10) / 10
		}
	}
	compute := &shiftFlow{vx: 1, vy: 0.5}
	want := runTemporal(t, o, compute, w, h, maps)

	dir := filepath.Join(t.TempDir(), "flows")
	m := shiftManifest(t, n, w, h)
	store, err := trajectory.CreateFlowStore(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	tracker := &shiftFlow{vx: 1, vy: 0.5}
	for i := 0; i+1 < n; i++ {
		for _, p := range [][2]int{{i, i + 1}, {i + 1, i}} {
			f, _ := tracker.Flow(indexFrame(p[0], w, h), indexFrame(p[1], w, h))
			if err := store.Put(p[0], p[1], f); err != nil {
				t.Fatal(err)
			}
		}
	}
	rest := &shiftFlow{vx: 1, vy: 0.5}
	got := runTemporal(t, o, StoredFlow{Store: store, Compute: rest}, w, h, maps)
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("frame %d pixel %d: %v with the store, %v without", i, j, got[i][j], want[i][j])
			}
		}
	}
	for p, k := range rest.calls {
		if abs(p[0]-p[1]) != 2 || k != 1 {
			t.Errorf("flow %d→%d computed %d times with the store", p[0], p[1], k)
		}
	}
	if len(rest.calls) != 2*(n-2) {
		t.Errorf("%d flows computed with the store, want %d", len(rest.calls), 2*(n-2))
	}
	// A stored field that cannot be read is an error naming its file.
	if err := os.WriteFile(filepath.Join(dir, "00002_00003.npy"), []byte("not npy"), 0o644); err != nil {
		t.Fatal(err)
	}
	tf, _ := NewTemporal(o, StoredFlow{Store: store, Compute: rest})
	var perr error
	for i := 0; i < n && perr == nil; i++ {
		_, perr = tf.Push(indexFrame(i, w, h), maps[i])
	}
	if perr == nil {
		_, perr = tf.Flush()
	}
	if perr == nil || !strings.Contains(perr.Error(), "00002_00003.npy") {
		t.Errorf("corrupt stored field: %v", perr)
	}
}

// With Keep, an empty store becomes a cache: the first fusion computes
// every field and stores it, the second computes none, and both fuse
// exactly as without a store, composing (K = 2, the neighbours' fields
// only) and not (the fields two frames apart too).
func TestTemporalKeepsComputedFlows(t *testing.T) {
	const n, w, h = 6, 5, 4
	maps := make([][]float32, n)
	for i := range maps {
		maps[i] = make([]float32, w*h)
		for j := range maps[i] {
			maps[i][j] = float32((i*5+j*3)%10) / 10
		}
	}
	m := shiftManifest(t, n, w, h)
	for _, compose := range []bool{true, false} {
		o := DefaultTemporalOptions()
		o.Compose = compose
		want := runTemporal(t, o, &shiftFlow{vx: 1, vy: -0.5}, w, h, maps)
		store, err := trajectory.CreateFlowStore(filepath.Join(t.TempDir(), "flows"), m)
		if err != nil {
			t.Fatal(err)
		}
		first, second := &shiftFlow{vx: 1, vy: -0.5}, &shiftFlow{vx: 1, vy: -0.5}
		for k, f := range []*shiftFlow{first, second} {
			got := runTemporal(t, o, StoredFlow{Store: store, Compute: f, Keep: true}, w, h, maps)
			for i := range want {
				for j := range want[i] {
					if got[i][j] != want[i][j] {
						t.Fatalf("compose %v, fusion %d, frame %d pixel %d: %v, %v without a store", compose, k+1, i, j, got[i][j], want[i][j])
					}
				}
			}
		}
		wantFirst := 2 * (n - 1) // the neighbours' fields
		if !compose {
			wantFirst += 2 * (n - 2) // and those two frames apart
		}
		if len(first.calls) != wantFirst || len(second.calls) != 0 {
			t.Errorf("compose %v: %d fields computed by the first fusion (want %d), %d by the second (want 0)", compose, len(first.calls), wantFirst, len(second.calls))
		}
		if _, err := store.Get(0, 1); err != nil {
			t.Errorf("compose %v: F_0→1 not kept: %v", compose, err)
		}
	}
}

// ComposeFlows by hand: F_{a→b} = (1, 0) everywhere and F_{b→c}(x, y) =
// (x, y/2), so F_{a→c}(x, y) = (1 + (x + 1), y/2) where x + 1 lies in the
// frame, and far outside the frame at the last column.
func TestComposeFlowsHandComputed(t *testing.T) {
	const w, h = 5, 3
	ab, bc := trajectory.NewFlowField(w, h), trajectory.NewFlowField(w, h)
	for y := range h {
		for x := range w {
			ab.U[y*w+x] = 1
			bc.U[y*w+x], bc.V[y*w+x] = float32(x), float32(y)/2
		}
	}
	ac := ComposeFlows(ab, bc)
	for y := range h {
		for x := range w {
			u, v := ac.U[y*w+x], ac.V[y*w+x]
			if x == w-1 {
				if _, _, ok := bc.At(float64(x)+float64(u), float64(y)+float64(v)); ok || float64(x)+float64(u) < w {
					t.Errorf("(%d,%d): broken chain gives (%v,%v), want a displacement out of the frame", x, y, u, v)
				}
				continue
			}
			if u != float32(x+2) || v != float32(y)/2 {
				t.Errorf("(%d,%d): (%v,%v), want (%v,%v)", x, y, u, v, x+2, float32(y)/2)
			}
		}
	}
}

// With Compose the fusion asks the flow only for neighbours, and on a
// translating scene (where chaining is exact) fuses exactly as with the
// flows computed directly.
func TestTemporalComposedFlowsMatchDirect(t *testing.T) {
	const w, h = 12, 3
	maps := make([][]float32, 6)
	for i := range maps {
		maps[i] = make([]float32, w*h)
		for j := range maps[i] {
			maps[i][j] = float32((j*7+i*3)%10) / 10
		}
	}
	o := DefaultTemporalOptions()
	direct := runTemporal(t, o, &shiftFlow{vx: 1}, w, h, maps)
	o.Compose = true
	f := &shiftFlow{vx: 1}
	composed := runTemporal(t, o, f, w, h, maps)
	for i := range direct {
		for j := range direct[i] {
			if math.Abs(float64(direct[i][j]-composed[i][j])) > 1e-6 {
				t.Fatalf("frame %d pixel %d: composed %v, direct %v", i, j, composed[i][j], direct[i][j])
			}
		}
	}
	for p, n := range f.calls {
		if abs(p[1]-p[0]) != 1 || n != 1 {
			t.Errorf("flow %d→%d asked %d times; with Compose only neighbours, once each", p[0], p[1], n)
		}
	}
	if len(f.calls) != 2*(len(maps)-1) {
		t.Errorf("%d flows asked, want %d", len(f.calls), 2*(len(maps)-1))
	}
}

// shiftManifest is the flow-store manifest of n small files standing for
// w×h frames, flowed by shiftFlow ("shift").
func shiftManifest(t *testing.T, n, w, h int) trajectory.FlowManifest {
	t.Helper()
	frames := make([]string, n)
	for i := range frames {
		frames[i] = filepath.Join(t.TempDir(), "f.png")
		if err := os.WriteFile(frames[i], []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := trajectory.NewFlowManifest(frames, "shift", w, h)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
