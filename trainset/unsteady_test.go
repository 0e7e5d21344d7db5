package trainset

import (
	"math"
	"testing"

	"github.com/densify/densify/trajectory"
)

// shaken is a trajectory of label in frames 0..5 moving right by 1 px a
// frame at height y, with every point lifted by shake(t) (what the whole
// segment does at once) and, in odd frames, by zig (its own jitter).
func shaken(label int, y, zig float64, shake func(t int) float64) trajectory.Track {
	tr := trajectory.Track{Label: label}
	for f := 0; f < 6; f++ {
		dy := shake(f)
		if f%2 == 1 {
			dy += zig
		}
		tr.Points = append(tr.Points, trajectory.Point{X: float64(f), Y: y + dy, Frame: f})
	}
	return tr
}

func TestUnsteadyForegroundByHand(t *testing.T) {
	shake := func(f int) float64 { return []float64{0, 5, -3, 4, 0, 2}[f] }
	still := func(int) float64 { return 0 }
	// Segment 1: four steady trajectories and one that zigzags by 2 px,
	// all shaken alike. The zigzag's acceleration is ±4 about the shake's,
	// the segment's mean ±4/5 about it, so the steady ones deviate by 0.8
	// from the mean and the zigzag by 3.2; the segment's median over its 30
	// points is 0.8: marked for K < 4, not for K > 4.
	ts := &trajectory.TrackSet{Frames: 6}
	for i := 0; i < 4; i++ {
		ts.Tracks = append(ts.Tracks, shaken(1, float64(10*i), 0, shake))
	}
	ts.Tracks = append(ts.Tracks, shaken(1, 50, 2, shake))
	// Segment 2: four still trajectories and one that zigzags by 0.1 px:
	// 0.04 and 0.16 from the mean, so the median 0.04 is raised to the
	// floor 0.1 and nothing is marked at K = 3.9 (0.16 < 0.39).
	for i := 0; i < 4; i++ {
		ts.Tracks = append(ts.Tracks, shaken(2, float64(10*i), 0, still))
	}
	ts.Tracks = append(ts.Tracks, shaken(2, 50, 0.1, still))
	// The background zigzags too, and a three-point foreground trajectory
	// that jumps: neither is tested.
	ts.Tracks = append(ts.Tracks, shaken(0, 60, 4, still))
	ts.Tracks = append(ts.Tracks, trajectory.Track{Label: 1, Points: []trajectory.Point{{X: 0, Y: 0, Frame: 0}, {X: 9, Y: 9, Frame: 1}, {X: 0, Y: 0, Frame: 2}}})
	fg := func(label int) bool { return label >= 1 }
	for _, c := range []struct {
		k    float64
		want int // the marked trajectory, −1 for none
	}{{3.9, 4}, {4.1, -1}, {0, -1}} {
		got := unsteadyForeground(ts, fg, c.k)
		for i, u := range got {
			if u != (i == c.want) {
				t.Errorf("K = %v: trajectory %d marked %v, want only %d marked", c.k, i, u, c.want)
			}
		}
	}
	// Without the floor segment 2's zigzag would be 4 times its median.
	if got := unsteadyForeground(ts, fg, 1.5); !got[9] || got[5] {
		t.Errorf("K = 1.5: segment 2's zigzag (0.16 > 1.5 · 0.1) marked %v, a still one %v", got[9], got[5])
	}
}

func TestUnsteadyForegroundSkipsGaps(t *testing.T) {
	// A trajectory with a gap between frames 2 and 5 has no acceleration
	// across it: of its points only frame 1 is interior, where it is steady.
	ts := &trajectory.TrackSet{Frames: 8}
	for i := 0; i < 4; i++ {
		ts.Tracks = append(ts.Tracks, shaken(1, float64(10*i), 0, func(int) float64 { return 0 }))
	}
	gap := trajectory.Track{Label: 1}
	for _, f := range []int{0, 1, 2, 5, 6} {
		y := 0.0
		if f >= 5 {
			y = 40 // a jump across the gap
		}
		gap.Points = append(gap.Points, trajectory.Point{X: float64(f), Y: y, Frame: f})
	}
	ts.Tracks = append(ts.Tracks, gap)
	if got := unsteadyForeground(ts, func(int) bool { return true }, 2); got[4] {
		t.Error("a jump across a gap counted as an acceleration")
	}
}

func TestPrepareDropsUnsteadyForeground(t *testing.T) {
	ts := &trajectory.TrackSet{Frames: 6}
	still := func(int) float64 { return 0 }
	for x := 0.0; x < 40; x += 4 {
		ts.Tracks = append(ts.Tracks, trajectory.Track{Label: 0, Points: []trajectory.Point{{X: x, Y: 1, Frame: 0}, {X: x, Y: 1, Frame: 1}}})
	}
	for i := 0; i < 4; i++ {
		ts.Tracks = append(ts.Tracks, shaken(1, float64(10+2*i), 0, still))
	}
	ts.Tracks = append(ts.Tracks, shaken(1, 20, 2, still))
	zigzagAt := func(f int) int { return (20+2*(f%2))*40 + f }
	opt := bare()
	opt.BackgroundClusters, opt.SupportRadius = []int{0}, 0
	opt.Unsteady = 3
	set, err := Prepare(Input{Tracks: ts, Width: 40, Height: 30}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if set.DroppedUnsteady != 6 || set.DroppedUnsteadyTracks != 1 {
		t.Errorf("dropped %d points of %d trajectories, want the zigzag's 6 points", set.DroppedUnsteady, set.DroppedUnsteadyTracks)
	}
	if s := set.Summary(); s.Unsteady != 6 || s.UnsteadyTracks != 1 {
		t.Errorf("summary: %d points of %d trajectories", s.Unsteady, s.UnsteadyTracks)
	}
	fg := 0
	for _, fr := range set.Frames {
		fg += fr.Counts[1]
		if l := fr.Labels[zigzagAt(fr.Frame)]; l != Unlabelled {
			t.Errorf("frame %d: the zigzag's point is labelled %d", fr.Frame, l)
		}
	}
	if fg != 24 {
		t.Errorf("%d foreground points, want the four steady trajectories' 24", fg)
	}
	opt.Unsteady = 0
	if s, err := Prepare(Input{Tracks: ts, Width: 40, Height: 30}, opt); err != nil || s.DroppedUnsteady != 0 || s.Frames[1].Labels[zigzagAt(1)] != 1 {
		t.Errorf("off: dropped %d, err %v", s.DroppedUnsteady, err)
	}
}

// With the colour check's Λ at hand, a shaking trajectory whose colours
// say object (Λ < −UnsteadyColourMargin) keeps its labels; one with weaker
// colour evidence, or none, does not.
func TestUnsteadyKeepsTrajectoriesOfTheObjectsColour(t *testing.T) {
	nan := math.NaN()
	still := func(int) float64 { return 0 }
	ts := &trajectory.TrackSet{Frames: 6}
	ts.Tracks = append(ts.Tracks, shaken(0, 2, 0, still))
	for i := 0; i < 4; i++ {
		ts.Tracks = append(ts.Tracks, shaken(1, float64(10+2*i), 0, still))
	}
	// Two zigzags: ā = ±8/6, so the steady trajectories deviate by 4/3,
	// the zigzags by 8/3, twice the segment's median.
	ts.Tracks = append(ts.Tracks, shaken(1, 20, 2, still), shaken(1, 24, 2, still))
	opt := bare()
	opt.BackgroundClusters, opt.Unsteady = []int{0}, 1.5
	for _, c := range []struct {
		lambda []float64
		want   []bool
	}{
		{nil, []bool{false, false, false, false, false, true, true}},
		{[]float64{nan, nan, nan, nan, nan, -UnsteadyColourMargin - 0.5, -UnsteadyColourMargin + 0.5}, []bool{false, false, false, false, false, false, true}},
		{[]float64{nan, nan, nan, nan, nan, nan, -2 * UnsteadyColourMargin}, []bool{false, false, false, false, false, true, false}},
	} {
		p := newPreparation(Input{Tracks: ts, Width: 40, Height: 30}, opt)
		if err := p.chooseBackground(); err != nil {
			t.Fatal(err)
		}
		p.assignClasses()
		p.colourLambda = c.lambda
		p.markUnsteady()
		n := 0
		for i, w := range c.want {
			if p.unsteady[i] != w {
				t.Errorf("Λ %v: trajectory %d marked %v, want %v", c.lambda, i, p.unsteady[i], w)
			}
			if w {
				n++
			}
		}
		if p.set.DroppedUnsteadyTracks != n {
			t.Errorf("Λ %v: %d trajectories counted, want %d", c.lambda, p.set.DroppedUnsteadyTracks, n)
		}
	}
}
