package trainset

import (
	"testing"

	"github.com/densify/densify/trajectory"
)

// A 400×300 sequence: background 0 along the border; the primary object 1
// (a 5×5 grid of two-frame trajectories over x, y ∈ [100, 140], 50 points;
// box diagonal 56.6, grown by 14.1 px to x ≤ 154.1); 2 beside it (x = 150:
// joins, and the box grows to x ≤ 150 + 0.25·hypot(50, 40) = 166.0); 6 at
// x = 162, outside the first box but inside the second (joins in the
// second round); 3 far away (x = 300); 4 only in frame 5, where the group
// has no point (kept: it cannot be told apart).
func primaryFixture() Input {
	ts := &trajectory.TrackSet{Frames: 6}
	for x := 2.0; x < 400; x += 20 {
		ts.Tracks = append(ts.Tracks, track(0, x, 1, 0, 1, 5))
	}
	for x := 100.0; x <= 140; x += 10 {
		for y := 100.0; y <= 140; y += 10 {
			ts.Tracks = append(ts.Tracks, track(1, x, y, 0, 1))
		}
	}
	ts.Tracks = append(ts.Tracks, track(2, 150, 110, 0, 1), track(2, 150, 120, 0, 1),
		track(3, 300, 110, 0, 1), track(3, 300, 120, 0, 1),
		track(4, 300, 200, 5), track(4, 310, 200, 5),
		track(6, 162, 110, 0, 1), track(6, 162, 120, 0, 1))
	return Input{Tracks: ts, Width: 400, Height: 300}
}

func TestPrimaryObjectKeepsItsPartsAndDropsWhatMovesElsewhere(t *testing.T) {
	o := bare()
	o.Background = 0
	o.PrimaryObject, o.PrimaryMargin = true, DefaultPrimaryMargin
	set, err := Prepare(primaryFixture(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]bool{1: true, 2: true, 3: false, 4: true, 6: true}
	for _, s := range set.Segments {
		if s.Cluster == 0 {
			continue
		}
		if kept := s.Class >= 0; kept != want[s.Cluster] {
			t.Errorf("cluster %d: kept %v (class %d, %q), want %v", s.Cluster, kept, s.Class, s.Dropped, want[s.Cluster])
		}
	}
	// off: every cluster is foreground
	o.PrimaryObject = false
	set, err = Prepare(primaryFixture(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range set.Segments {
		if s.Class < 0 {
			t.Errorf("without --primary-object cluster %d dropped: %q", s.Cluster, s.Dropped)
		}
	}
	// a margin of 0: cluster 2, 10 px right of the box, stays out, and so
	// does 6; 4 is still kept
	o.PrimaryObject, o.PrimaryMargin = true, 0
	set, err = Prepare(primaryFixture(), o)
	if err != nil {
		t.Fatal(err)
	}
	want = map[int]bool{1: true, 2: false, 3: false, 4: true, 6: false}
	for _, s := range set.Segments {
		if kept := s.Class >= 0; s.Cluster != 0 && kept != want[s.Cluster] {
			t.Errorf("margin 0: cluster %d kept %v, want %v", s.Cluster, kept, want[s.Cluster])
		}
	}
}
