package motiongraph

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/densify/densify/camera"
	"github.com/densify/densify/trajectory"
)

func TestCameraEvidence(t *testing.T) {
	// cluster 0: residuals 0.5, 1, 2 (median 1, all ≤ 3: background)
	// cluster 1: 2, 4, 5, 9 (median 5, 1 of 4 explained: not background)
	// cluster 2: 0.2 and 10, 20 (2 tracks; median 10: not background)
	m := &camera.Motion{Norm: [][]float32{{0.5, 1}, {2}, {2, 4}, {5, 9}, {0.2}, {10, 20}}}
	labels := []int{0, 0, 1, 1, 2, 2}
	ev, bg := CameraEvidence(m, labels, 3, nil)
	if len(bg) != 1 || bg[0] != 0 {
		t.Fatalf("background %v, want [0]", bg)
	}
	want := []ClusterCamera{
		{Cluster: 0, Trajectories: 2, Points: 3, ResidualMedian: 1, Explained: 1, Background: true},
		{Cluster: 1, Trajectories: 2, Points: 4, ResidualMedian: 5, Explained: 0.25},
		{Cluster: 2, Trajectories: 2, Points: 3, ResidualMedian: 10, Explained: 1.0 / 3},
	}
	for i := range want {
		if ev[i] != want[i] {
			t.Errorf("cluster %d: %+v, want %+v", i, ev[i], want[i])
		}
	}
	// two background clusters (sky and ground): both
	_, bg = CameraEvidence(m, []int{0, 0, 1, 1, 0, 0}, 2, nil)
	if len(bg) != 1 || bg[0] != 0 {
		t.Errorf("background %v, want [0]", bg)
	}
	_, bg = CameraEvidence(&camera.Motion{Norm: [][]float32{{1}, {2}, {9}}}, []int{0, 1, 2}, 3, nil)
	if len(bg) != 2 || bg[0] != 0 || bg[1] != 1 {
		t.Errorf("background %v, want [0 1]", bg)
	}
	// no cluster explained: the one with the smallest median residual
	_, bg = CameraEvidence(&camera.Motion{Norm: [][]float32{{7}, {5}, {9}}}, []int{0, 1, 2}, 3, nil)
	if len(bg) != 1 || bg[0] != 1 {
		t.Errorf("background %v, want [1]", bg)
	}
}

// BorderShares on a 100×100 extent (band: within 15 px of its border),
// computed by hand in the comments.
func TestBorderShares(t *testing.T) {
	pt := func(f int, x, y float64) trajectory.Point { return trajectory.Point{Frame: f, X: x, Y: y} }
	tr := func(p ...trajectory.Point) trajectory.Track { return trajectory.Track{Points: p} }
	ts := &trajectory.TrackSet{Frames: 3, Tracks: []trajectory.Track{
		tr(pt(0, 0, 0), pt(1, 5, 5), pt(2, 50, 50)), // cluster 0: band, band, inside
		tr(pt(0, 100, 100), pt(1, 50, 50)),          // cluster 0: band, inside
		tr(pt(2, 2, 50)),                            // cluster 1: band
		tr(pt(0, 50, 95), pt(1, 50, 50)),            // cluster 2: band, inside
		tr(pt(2, 98, 50)),                           // cluster 1: band
	}}
	labels := []int{0, 0, 1, 2, 1}
	got := BorderShares(ts, labels, 3)
	// band points: frame 0: A, B, D (3); frame 1: A (1); frame 2: C, E (2)
	// cluster 0 lives in 0, 1, 2: holds 3 of 6; cluster 1 lives in 2: 2 of 2;
	// cluster 2 lives in 0, 1: 1 of 4
	want := []float64{0.5, 1, 0.25}
	for c := range want {
		if math.Abs(got[c]-want[c]) > 1e-12 {
			t.Errorf("cluster %d: share %v, want %v", c, got[c], want[c])
		}
	}
	// a cluster the camera does not explain but that holds the band is
	// background; one below BackgroundBorderShare is not
	m := &camera.Motion{Norm: [][]float32{{9}, {9}, {9}}}
	ev, bg := CameraEvidence(m, []int{0, 1, 2}, 3, []float64{0.9, 0.1, 0.49})
	if len(bg) != 1 || bg[0] != 0 || ev[0].BorderShare != 0.9 {
		t.Fatalf("background %v (evidence %+v), want [0]", bg, ev)
	}
}

func TestReadSegmentReport(t *testing.T) {
	p := filepath.Join(t.TempDir(), "segment.json")
	os.WriteFile(p, []byte(`{"clusters": 3, "background_clusters": [0, 2], "camera_residuals": "camera.csv",
		"camera_clusters": [{"cluster": 0, "camera_explained": 0.9, "background": true},
			{"cluster": 1, "camera_explained": 0.1, "background": false},
			{"cluster": 2, "camera_explained": 0.2, "border_share": 0.8, "background": true}]}`), 0o644)
	r, err := ReadSegmentReport(p)
	if err != nil || !slices.Equal(r.Background, []int{0, 2}) {
		t.Fatalf("%+v %v", r, err)
	}
	// cluster 2 is background by its border share only
	if got := r.CameraBackground(); !slices.Equal(got, []int{0}) {
		t.Errorf("camera background %v, want [0]", got)
	}
	if got, want := r.CameraResidualsPath(p), filepath.Join(filepath.Dir(p), "camera.csv"); got != want {
		t.Errorf("residual path %q, want %q", got, want)
	}
	os.WriteFile(p, []byte(`{"clusters": 3}`), 0o644)
	if _, err := ReadSegmentReport(p); err == nil {
		t.Error("segment.json without background_clusters accepted")
	}
}
