package synth

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/densify/densify/trajectory"
)

// Corrupt's neighbour steps by hand, on one frame: A (label 0) at x = 0,
// B (0) at 3, C (1) at 4, D (1) at 20, and an empty track E.
func TestCorruptNeighboursByHand(t *testing.T) {
	one := func(label int, x float64) trajectory.Track {
		return trajectory.Track{Label: label, Points: []trajectory.Point{{X: x, Frame: 0}}}
	}
	ts := &trajectory.TrackSet{Frames: 1, Tracks: []trajectory.Track{one(0, 0), one(0, 3), one(1, 4), one(1, 20), {Label: 1}}}
	pf := newPointsByX(ts)
	inf := math.Inf(1)
	nn := pf.nearestDistances(ts)
	if !reflect.DeepEqual(nn, []float64{3, 1, 1, 16, inf}) {
		t.Fatalf("nearest distances %v", nn)
	}
	// Median of 1, 1, 3, 16 (the upper one): 3; radius 2.5·3.
	radius := boundaryRadius(nn)
	if radius != 7.5 {
		t.Fatalf("radius %v, want 7.5", radius)
	}
	// Nearest other label within 7.5: A → C at 4, B → C at 1, C → B at 1;
	// D's nearest label-0 point (B at 17) is too far; E has no point.
	d, l := pf.nearestOtherLabel(ts, radius)
	if !reflect.DeepEqual(d, []float64{4, 1, 1, inf, inf}) || !reflect.DeepEqual(l, []int{1, 1, 0, 0, 0}) {
		t.Errorf("nearest other label: distances %v labels %v", d, l)
	}
	if r := boundaryRadius([]float64{inf}); !math.IsInf(r, 1) {
		t.Errorf("radius without distances %v", r)
	}
}

// relabelRandom changes exactly `left` tracks not chosen yet, each to
// another label present (label + 1 when there is one label only).
func TestRelabelRandom(t *testing.T) {
	ts := &trajectory.TrackSet{}
	for i := 0; i < 10; i++ {
		ts.Tracks = append(ts.Tracks, trajectory.Track{Label: 5})
	}
	out := &trajectory.TrackSet{Tracks: append([]trajectory.Track(nil), ts.Tracks...)}
	chosen := make([]bool, 10)
	chosen[3] = true
	relabelRandom(out, ts, rand.New(rand.NewPCG(1, 2)), chosen, 4)
	changed := 0
	for i, tr := range out.Tracks {
		switch {
		case tr.Label == 6:
			changed++
			if i == 3 {
				t.Error("a chosen track was relabelled")
			}
		case tr.Label != 5:
			t.Errorf("track %d: label %d", i, tr.Label)
		}
	}
	if changed != 4 {
		t.Errorf("%d tracks relabelled, want 4", changed)
	}
	for i := range ts.Tracks {
		ts.Tracks[i].Label = []int{0, 2, 7}[i%3]
	}
	out = &trajectory.TrackSet{Tracks: append([]trajectory.Track(nil), ts.Tracks...)}
	relabelRandom(out, ts, rand.New(rand.NewPCG(3, 4)), make([]bool, 10), 10)
	for i, tr := range out.Tracks {
		if tr.Label == ts.Tracks[i].Label || (tr.Label != 0 && tr.Label != 2 && tr.Label != 7) {
			t.Errorf("track %d: %d → %d", i, ts.Tracks[i].Label, tr.Label)
		}
	}
}

// The background box is the union of the image box [−½, W−½] × [−½, H−½]
// mapped to the world in every frame: a camera moving 1 px/frame right over
// 3 frames of 10×8 sees x from −0.5 to 11.5.
func TestBackgroundBoxByHand(t *testing.T) {
	cam := func(f float64) affine { return translate(-f, 0) }
	if b := backgroundBox(cam, 10, 8, 3); b != (box{-0.5, -0.5, 11.5, 7.5}) {
		t.Errorf("box %+v", b)
	}
	still := func(float64) affine { return translate(0, 0) }
	if b := backgroundBox(still, 10, 8, 3); b != (box{-0.5, -0.5, 9.5, 7.5}) {
		t.Errorf("still camera: box %+v", b)
	}
}
