package dataset

import (
	"testing"

	"github.com/densify/densify/trajectory"
)

func TestTrackRegions(t *testing.T) {
	// 4×2 frames; region 0 left half, region 1 right half; pixel (3,1) is no region.
	region := []int{0, 0, 1, 1, 0, 0, 1, -1}
	gt := &GroundTruth{Colors: []int{0, 255}, Frames: []LabelledFrame{
		{Frame: 0, Width: 4, Height: 2, Region: region},
		{Frame: 2, Width: 4, Height: 2, Region: region},
		{Frame: 4, Width: 4, Height: 2, Region: region},
	}}
	track := func(start int, xy ...float64) trajectory.Track {
		var tr trajectory.Track
		for i := 0; i < len(xy); i += 2 {
			tr.Points = append(tr.Points, trajectory.Point{X: xy[i], Y: xy[i+1], Frame: start + i/2})
		}
		return tr
	}
	ts := &trajectory.TrackSet{Frames: 5, Tracks: []trajectory.Track{
		track(0, 0.2, 0, 9, 9, 2.6, 0.4, 9, 9, 2.4, 0.6), // frames 0,2,4: region 0, 1 (x→3), 1 (x→2): majority 1
		track(1, 0, 0),                 // frame 1 only: no labelled frame → −1
		track(0, 3, 1),                 // frame 0 at a no-region pixel → −1
		track(0, 1.4, 0, 0, 0, 2.5, 0), // frame 0 region 0, frame 2 region 1 (2.5 rounds to 3): tie → 0
		track(2, -0.6, 0),              // rounds to x = −1: outside → −1
		track(4, 3.49, 1.49),           // (3,1): no region → −1
	}}
	got := TrackRegions(ts, gt.Frames)
	want := []int{1, -1, -1, 0, -1, -1}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("track %d: GT label %d, want %d", i, got[i], want[i])
		}
	}
}
