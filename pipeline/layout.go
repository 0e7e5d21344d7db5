package pipeline

import (
	"path/filepath"

	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/trajectory"
)

// Layout names the files of one sequence's work folder <work>/<seq>:
//
//	tracks.dat                         trajectories (tracker output, unlabelled)
//	flows/                             the tracker's flow fields (trajectory.FlowStore), read by the
//	                                   temporal fusion of predict; removed once the sequence is done
//	segment/graph.txt                  multicut instance (node i = track i)
//	segment/labels.txt                 cluster id per node
//	segment/camera.csv                 median and upper-quartile camera residual per trajectory
//	segment/<seq>Tracks<N>.dat         labelled trajectories (FBMS format)
//	segment/segment.json               energy, clusters, graph statistics
//	uncertainty/uncertainty.csv        per-trajectory γ, u, likelihood baseline
//	uncertainty/clusters.csv           per-cluster μ_A
//	uncertainty/heatmaps/heat_NNNNN.png
//	uncertainty/sparsify/{curves.csv,vi.png,ri.png,summary.json}   (with ground truth)
//	prepared/                          training set (manifest.json, frames/*.npy, previews/)
//	prepared-oracle/                   the same trajectories labelled from the ground truth (variant oracle)
//	model-<run>/                       U-Net checkpoints and training log
//	masks-<run>/                       dense masks (and previews)
//	eval/sparse.json                   FBMS P/R/F of the labelled trajectories (with ground truth)
//	eval/dense-<run>.json              FBMS P/R/F, IoU and J of the dense masks (with ground truth)
//
// <run> is RunName(variant, seed index): the variant's name for the first
// seed, <variant>-seed<N> for the N-th.
//
//	.stamps/<stage>.json               completion stamps (see Stamp)
type Layout struct {
	Dir  string // <work>/<seq>
	Name string
}

func (l Layout) path(p ...string) string { return filepath.Join(append([]string{l.Dir}, p...)...) }

func (l Layout) Tracks() string      { return l.path("tracks.dat") }
func (l Layout) Flows() string       { return l.path("flows") }
func (l Layout) SegmentDir() string  { return l.path("segment") }
func (l Layout) Graph() string       { return l.path("segment", "graph.txt") }
func (l Layout) Labels() string      { return l.path("segment", "labels.txt") }
func (l Layout) SegmentJSON() string { return l.path("segment", "segment.json") }

// CameraResiduals is the segment stage's per-trajectory camera residuals.
func (l Layout) CameraResiduals() string { return l.path("segment", motiongraph.CameraResidualsFile) }

// LabelledTracks is the FBMS-named labelled Tracks file (frames = the track
// set's length).
func (l Layout) LabelledTracks(frames int) string {
	return l.path("segment", trajectory.TracksFileName(l.Name, frames))
}

func (l Layout) UncertaintyDir() string { return l.path("uncertainty") }
func (l Layout) UncertaintyCSV() string { return l.path("uncertainty", "uncertainty.csv") }
func (l Layout) ClustersCSV() string    { return l.path("uncertainty", "clusters.csv") }
func (l Layout) Heatmaps() string       { return l.path("uncertainty", "heatmaps") }
func (l Layout) SparsifyDir() string    { return l.path("uncertainty", "sparsify") }
func (l Layout) Prepared() string       { return l.path("prepared") }
func (l Layout) PreparedOracle() string { return l.path("prepared-oracle") }
func (l Layout) SparseEval() string     { return l.path("eval", "sparse.json") }

// Model, Masks and DenseEval take a run name (RunName: variant and seed).
func (l Layout) Model(run string) string { return l.path("model-" + run) }
func (l Layout) Masks(run string) string { return l.path("masks-" + run) }
func (l Layout) DenseEval(run string) string {
	return l.path("eval", "dense-"+run+".json")
}
