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

// The points beyond the primary object of the segments dropped as not part
// of it become background points: the fixture's cluster 3 (x = 300, 4
// points). Unexplained background trajectories stay unlabelled wherever
// they are: one at (250, 250), beyond the box, and one at (120, 150), 10 px
// below the object's lowest row. Without PrimaryObject nothing is added and
// cluster 3 is foreground.
func TestPrimaryObjectLabelsWhatMovesBeyondItBackground(t *testing.T) {
	in := primaryFixture()
	in.Tracks.Tracks = append(in.Tracks.Tracks, track(0, 250, 250, 0, 1), track(0, 120, 150, 0, 1))
	n := len(in.Tracks.Tracks)
	in.CameraResidual = make([]float64, n)
	in.CameraResidual[n-2], in.CameraResidual[n-1] = 10, 10 // unexplained: 10 > 3·max(1, median 0)
	at := func(set *Set, f, x, y int) int16 {
		for _, fr := range set.Frames {
			if fr.Frame == f {
				return fr.Labels[y*set.Width+x]
			}
		}
		t.Fatalf("no frame %d", f)
		return 0
	}
	for _, c := range []struct {
		primary   bool
		beyond    int
		near, far int16 // labels at (120, 150) and (250, 250), frame 1
		dropped   int16 // label at (300, 110), frame 0
	}{
		{false, 0, Unlabelled, Unlabelled, 1},
		{true, 4, Unlabelled, Unlabelled, 0},
	} {
		o := bare()
		o.Background, o.CameraBackground, o.BackgroundResidual = 0, []int{0}, DefaultBackgroundResidual
		o.PrimaryObject, o.PrimaryMargin = c.primary, DefaultPrimaryMargin
		set, err := Prepare(in, o)
		if err != nil {
			t.Fatal(err)
		}
		if sum := set.Summary(); sum.Unexplained != 2 || set.BeyondPrimary != c.beyond || sum.BeyondPrimary != c.beyond {
			t.Errorf("primary %v: %d unexplained, %d beyond, want 2 and %d", c.primary, sum.Unexplained, set.BeyondPrimary, c.beyond)
		}
		if near, far, dropped := at(set, 1, 120, 150), at(set, 1, 250, 250), at(set, 0, 300, 110); near != c.near || far != c.far || dropped != c.dropped {
			t.Errorf("primary %v: labels near %d far %d dropped %d, want %d %d %d", c.primary, near, far, dropped, c.near, c.far, c.dropped)
		}
	}
}
