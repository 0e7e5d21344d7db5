package motiongraph

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/densify/densify/camera"
)

func TestCameraEvidence(t *testing.T) {
	// cluster 0: residuals 0.5, 1, 2 (median 1, all ≤ 3: background)
	// cluster 1: 2, 4, 5, 9 (median 5, 1 of 4 explained: not background)
	// cluster 2: 0.2 and 10, 20 (2 tracks; median 10: not background)
	m := &camera.Motion{Norm: [][]float32{{0.5, 1}, {2}, {2, 4}, {5, 9}, {0.2}, {10, 20}}}
	labels := []int{0, 0, 1, 1, 2, 2}
	ev, bg := CameraEvidence(m, labels, 3)
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
	_, bg = CameraEvidence(m, []int{0, 0, 1, 1, 0, 0}, 2)
	if len(bg) != 1 || bg[0] != 0 {
		t.Errorf("background %v, want [0]", bg)
	}
	_, bg = CameraEvidence(&camera.Motion{Norm: [][]float32{{1}, {2}, {9}}}, []int{0, 1, 2}, 3)
	if len(bg) != 2 || bg[0] != 0 || bg[1] != 1 {
		t.Errorf("background %v, want [0 1]", bg)
	}
	// no cluster explained: the one with the smallest median residual
	_, bg = CameraEvidence(&camera.Motion{Norm: [][]float32{{7}, {5}, {9}}}, []int{0, 1, 2}, 3)
	if len(bg) != 1 || bg[0] != 1 {
		t.Errorf("background %v, want [1]", bg)
	}
}

func TestReadBackgroundClusters(t *testing.T) {
	p := filepath.Join(t.TempDir(), "segment.json")
	os.WriteFile(p, []byte(`{"clusters": 3, "background_clusters": [0, 2]}`), 0o644)
	bg, err := ReadBackgroundClusters(p)
	if err != nil || len(bg) != 2 || bg[0] != 0 || bg[1] != 2 {
		t.Fatalf("%v %v", bg, err)
	}
	os.WriteFile(p, []byte(`{"clusters": 3}`), 0o644)
	if _, err := ReadBackgroundClusters(p); err == nil {
		t.Error("segment.json without background_clusters accepted")
	}
}
