package motiongraph

import (
	"slices"

	"github.com/densify/densify/camera"
)

// BackgroundResidual is the largest normalised camera residual |r|/s_t
// (package camera) of a point that the camera motion explains: within three
// times the frame's typical residual, which is the background's own (most
// trajectories are on the background, so s_t is the scale of its departures
// from the homography: noise, parallax, water, foliage).
const BackgroundResidual = 3.0

// BackgroundBorder is the width of the image-border band (a fraction of the
// smaller image side) whose dominant motion is the camera's for the
// background decision (camera.Options.Border): a camera that follows an
// object keeps it nearly static in the middle of the frame, where it can be
// the largest consistent motion of the whole frame, while the border is
// background. On motocross-jump (DAVIS) the whole-frame camera motion made
// the rider background (training-label IoU 0.001); see the closing table of
// scripts/sparse-eval.sh for all sequences.
const BackgroundBorder = 0.15

// ClusterCamera is the camera-motion evidence of one cluster and the
// background decision drawn from it.
type ClusterCamera struct {
	Cluster      int `json:"cluster"`
	Trajectories int `json:"trajectories"`
	Points       int `json:"points"` // trajectory points with a residual
	// ResidualMedian is the median over the cluster's points of |r|/s_t.
	ResidualMedian float64 `json:"camera_residual_median"`
	// Explained is the share of its points with |r|/s_t ≤ BackgroundResidual.
	Explained float64 `json:"camera_explained"`
	// Background: the camera motion explains the cluster (Explained ≥ 0.5,
	// i.e. ResidualMedian ≤ BackgroundResidual), wherever it lies and
	// however many such clusters there are.
	Background bool `json:"background"`
}

// CameraEvidence decides for every cluster 0..clusters−1 of labels (one per
// trajectory of the motion cam was estimated on) whether it is background:
// a cluster whose points the camera motion explains (median normalised
// residual ≤ BackgroundResidual) is background, so sky and ground separated
// by parallax are both background while an independently moving object is
// not. When no cluster qualifies, the one with the smallest median residual
// is background (a sequence always has one). It returns the evidence per
// cluster and the sorted background cluster ids.
func CameraEvidence(cam *camera.Motion, labels []int, clusters int) ([]ClusterCamera, []int) {
	res := make([][]float64, clusters)
	out := make([]ClusterCamera, clusters)
	for i, l := range labels {
		out[l].Trajectories++
		for _, r := range cam.Norm[i] {
			res[l] = append(res[l], float64(r))
		}
	}
	var bg []int
	best := -1
	for c := range out {
		o := &out[c]
		o.Cluster = c
		o.Points = len(res[c])
		if o.Points == 0 {
			continue
		}
		slices.Sort(res[c])
		o.ResidualMedian = res[c][len(res[c])/2]
		n, _ := slices.BinarySearch(res[c], BackgroundResidual+1e-12)
		o.Explained = float64(n) / float64(o.Points)
		o.Background = o.Explained >= 0.5
		if o.Background {
			bg = append(bg, c)
		}
		if best < 0 || o.ResidualMedian < out[best].ResidualMedian ||
			(o.ResidualMedian == out[best].ResidualMedian && o.Trajectories > out[best].Trajectories) {
			best = c
		}
	}
	if len(bg) == 0 && best >= 0 {
		out[best].Background = true
		bg = []int{best}
	}
	return out, bg
}
