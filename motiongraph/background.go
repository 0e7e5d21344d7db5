package motiongraph

import (
	"slices"

	"github.com/densify/densify/camera"
	"github.com/densify/densify/trajectory"
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
// background. On DAVIS motocross-jump the whole-frame camera motion made the
// rider background (scripts/sparse-eval.sh tabulates the decision on every
// sequence).
const BackgroundBorder = 0.15

// BackgroundBorderShare is the share of the border band a cluster must hold
// to be background whatever the camera fit says (see BorderShares): the
// background of the frames it lives in. On the ten DAVIS development
// sequences every background cluster holds 0.72–1.00 of the band and every
// other cluster less than 0.3.
const BackgroundBorderShare = 0.5

// BorderShares returns, for every cluster 0..clusters−1 of labels (one per
// track of ts), the share of the border band's points it holds in the frames
// it lives in:
//
//	share_c = Σ_{t ∈ T_c} n_c(t) / Σ_{t ∈ T_c} n(t),
//
// with T_c the frames where cluster c has a point, n_c(t) its points in the
// band (camera.BorderBand with BackgroundBorder) at frame t and n(t) all
// points in the band at t (0 when no band point falls in T_c). A camera that
// follows an object keeps it away from the borders, so the cluster that holds
// most of the band is the background of its frames. This is the evidence
// for background clusters whose motion the band's homography does not fit:
// under fast camera motion (motocross-jump) few correspondences reach the
// band and the fit describes one corner.
func BorderShares(ts *trajectory.TrackSet, labels []int, clusters int) []float64 {
	in := camera.BorderBand(ts, BackgroundBorder)
	nf := 0
	for i := range ts.Tracks {
		nf = max(nf, ts.Tracks[i].End()+1)
	}
	all := make([]int, nf)
	mine := make([]map[int]int, clusters) // frame → band points of the cluster
	for c := range mine {
		mine[c] = map[int]int{}
	}
	for i := range ts.Tracks {
		c := labels[i]
		for _, q := range ts.Tracks[i].Points {
			n := mine[c][q.Frame] // registers the frame as alive
			if in(q.X, q.Y) {
				all[q.Frame]++
				n++
			}
			mine[c][q.Frame] = n
		}
	}
	share := make([]float64, clusters)
	for c, frames := range mine {
		num, den := 0, 0
		for t, n := range frames {
			num += n
			den += all[t]
		}
		if den > 0 {
			share[c] = float64(num) / float64(den)
		}
	}
	return share
}

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
	// BorderShare is the share of the border band it holds in its frames
	// (BorderShares).
	BorderShare float64 `json:"border_share"`
	// Background: the camera motion explains the cluster (Explained ≥ 0.5,
	// i.e. ResidualMedian ≤ BackgroundResidual), wherever it lies and
	// however many such clusters there are, or it holds the border band
	// (BorderShare ≥ BackgroundBorderShare).
	Background bool `json:"background"`
}

// CameraEvidence decides for every cluster 0..clusters−1 of labels (one per
// trajectory of the motion cam was estimated on) whether it is background:
// a cluster whose points the camera motion explains (median normalised
// residual ≤ BackgroundResidual) is background, so sky and ground separated
// by parallax are both background while an independently moving object is
// not; so is a cluster whose border share (share[c], from BorderShares; nil:
// none) is at least BackgroundBorderShare. When no cluster qualifies, the
// one with the smallest median residual is background (a sequence always
// has one). It returns the evidence per cluster and the sorted background
// cluster ids.
func CameraEvidence(cam *camera.Motion, labels []int, clusters int, share []float64) ([]ClusterCamera, []int) {
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
		if c < len(share) {
			o.BorderShare = share[c]
		}
		o.Background = o.Explained >= 0.5 || o.BorderShare >= BackgroundBorderShare
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
