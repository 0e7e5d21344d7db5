package motiongraph

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/densify/densify/camera"
	"github.com/densify/densify/trajectory"
)

// stepTracks: A moves 1 px/frame right over frames 0–3, B stands at (10, 0)
// over frames 1–2, C moves 2 px/frame down over frames 0–1.
func stepTracks() *trajectory.TrackSet {
	return &trajectory.TrackSet{Frames: 4, Tracks: []trajectory.Track{
		{Points: []trajectory.Point{{X: 0, Y: 0, Frame: 0}, {X: 1, Y: 0, Frame: 1}, {X: 2, Y: 0, Frame: 2}, {X: 3, Y: 0, Frame: 3}}},
		{Points: []trajectory.Point{{X: 10, Y: 0, Frame: 1}, {X: 10, Y: 0, Frame: 2}}},
		{Points: []trajectory.Point{{X: 5, Y: 5, Frame: 0}, {X: 5, Y: 7, Frame: 1}}},
	}}
}

func TestAliveByFrameByHand(t *testing.T) {
	al := aliveByFrame(stepTracks(), 4)
	want := []aliveFrame{
		{ids: []int32{0, 2}, xs: []float64{0, 5}, ys: []float64{0, 5}},
		{ids: []int32{0, 1, 2}, xs: []float64{1, 10, 5}, ys: []float64{0, 0, 7}},
		{ids: []int32{0, 1}, xs: []float64{2, 10}, ys: []float64{0, 0}},
		{ids: []int32{0}, xs: []float64{3}, ys: []float64{0}},
	}
	if !reflect.DeepEqual(al, want) {
		t.Errorf("alive %+v\nwant  %+v", al, want)
	}
}

// With T = 2, A's displacements are (2−0)/2, (3−1)/2 and, one frame before
// its end, (3−2)/1: all 1 px/frame; B's is 0, C's (0, 2).
func TestTrackDisplacementsByHand(t *testing.T) {
	td := trackDisplacements(stepTracks(), 2)
	if td[0].start != 0 || td[0].end != 3 || td[1].start != 1 || td[1].end != 2 {
		t.Fatalf("frames %d–%d, %d–%d", td[0].start, td[0].end, td[1].start, td[1].end)
	}
	if !reflect.DeepEqual(td[0].dx, []float32{1, 1, 1}) || !reflect.DeepEqual(td[0].dy, []float32{0, 0, 0}) ||
		!reflect.DeepEqual(td[1].dx, []float32{0}) || !reflect.DeepEqual(td[2].dy, []float32{2}) || len(td[0].vari) != 3 {
		t.Errorf("displacements %+v", td)
	}
}

// Local flow variation at frame 1 of A (D = (1, 0)) with neighbours B
// (D = (0, 0)) and C (ended at frame 1: no displacement, left out):
// Σ|D|²/2 − |ΣD/2|² = 1/2 − 1/4 = 0.25. At A's last frame nothing is set.
func TestFlowVariationByHand(t *testing.T) {
	td := trackDisplacements(stepTracks(), 1)
	flowVariation(td, 1, 0, []neighbour{{id: 1}, {id: 2}})
	if td[0].vari[1] != 0.25 {
		t.Errorf("v_A(1) = %v, want 0.25", td[0].vari[1])
	}
	flowVariation(td, 3, 0, []neighbour{{id: 1}})
	if !reflect.DeepEqual(td[0].vari, []float32{0, 0.25, 0}) {
		t.Errorf("v_A = %v", td[0].vari)
	}
	// Alone: the variance of one displacement is 0.
	td[2].vari[0] = 9
	flowVariation(td, 0, 2, nil)
	if td[2].vari[0] != 0 {
		t.Errorf("v_C(0) = %v, want 0", td[2].vari[0])
	}
}

// The frames' pairs merge sorted and unique; the overlap filter keeps pairs
// sharing ≥ 2 frames: A–B (frames 1–2) and A–C (0–1), not B–C (frame 1).
func TestMergeKeysAndOverlapByHand(t *testing.T) {
	ab, ac, bc := pairKey(0, 1), pairKey(2, 0), pairKey(1, 2)
	keys := mergeKeys([][]uint64{{bc, ab}, nil, {ac, ab, bc}})
	if !reflect.DeepEqual(keys, []uint64{ab, ac, bc}) {
		t.Fatalf("merged %x", keys)
	}
	if got := withOverlap(stepTracks(), keys, 2); !reflect.DeepEqual(got, []uint64{ab, ac}) {
		t.Errorf("overlap ≥ 2: %x", got)
	}
	if got := withOverlap(stepTracks(), []uint64{ab, ac, bc}, 3); len(got) != 0 {
		t.Errorf("overlap ≥ 3: %x", got)
	}
	ps := newPairSet(nil, []uint64{ab, ac}, []uint64{bc})
	if !reflect.DeepEqual(ps.U, []int32{0, 0, 1}) || !reflect.DeepEqual(ps.V, []int32{1, 2, 2}) || !reflect.DeepEqual(ps.Lifted, []bool{false, false, true}) {
		t.Errorf("pair set U %v V %v lifted %v", ps.U, ps.V, ps.Lifted)
	}
}

// EstimateCamera is camera.Estimate with the features' motion step, and
// ComputePairs refuses a camera that does not fit the tracks or the step.
func TestEstimateCameraAndCheck(t *testing.T) {
	ts := randomTracks(3, 120, 8, 100, 80)
	fp := DefaultFeatureParams()
	fp.MotionStep = 3
	cam, err := EstimateCamera(ts, fp)
	if err != nil {
		t.Fatal(err)
	}
	co := camera.DefaultOptions()
	co.Step = 3
	want, err := camera.Estimate(ts, co)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cam, want) {
		t.Error("EstimateCamera differs from camera.Estimate with step 3")
	}
	p := DefaultGraphParams()
	if _, err := ComputePairs(ts, nil, cam, p, fp); err != nil {
		t.Fatal(err)
	}
	other, err := EstimateCamera(randomTracks(4, 100, 8, 100, 80), fp)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		cam  *camera.Motion
		fp   FeatureParams
		want string
	}{
		"nil":        {nil, fp, "no camera motion"},
		"step":       {cam, DefaultFeatureParams(), "estimated with step 3, the features use step 5"},
		"other set":  {other, fp, "camera motion of 8 frames and 100 trajectories for a track set of 8 frames and 120"},
		"bad params": {cam, FeatureParams{}, "invalid feature params"},
	} {
		if _, err := ComputePairs(ts, nil, c.cam, p, c.fp); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	// A camera of as many trajectories, one of which has no residuals.
	i := 0
	for len(ts.Tracks[i].Points) < 2 {
		i++
	}
	short := *cam
	short.ResX = slices.Clone(cam.ResX)
	short.ResX[i] = nil
	if _, err := ComputePairs(ts, nil, &short, p, fp); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("0 residuals for trajectory %d ", i)) {
		t.Errorf("missing residuals: %v", err)
	}
	if _, err := EstimateCamera(&trajectory.TrackSet{Frames: 2, Tracks: []trajectory.Track{{}}}, fp); err == nil {
		t.Error("empty track accepted")
	}
}
