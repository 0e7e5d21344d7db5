// Package eval scores motion segmentations with the precision/recall
// protocol of the FBMS benchmark, reimplementing MoSegEvalPR and
// MoSegEvalAllPR (P. Ochs, J. Malik, T. Brox: "Segmentation of moving objects
// by long term video analysis", TPAMI 36(6), 2014, Sec. 5) step by step:
//
//  1. For every labelled frame t with frame number ≤ E (E = evaluated length
//     = number of frames of the tracks file; the first labelled frame beyond E
//     stops the loop), every ground-truth pixel adds its probability p to the
//     total size |G_j| of its region j. Every track alive in t whose point,
//     rounded as int(x+0.5), int(y+0.5) (float32, truncation toward zero),
//     lies inside the image adds p(x,y) to the overlap O(j,c) of the pixel's
//     region j and the track's cluster c, to the cluster size |C_c| and to the
//     occupied region size |Ĝ_j|. Distinct covered pixels are counted for the
//     density.
//  2. Regions with |G_j| < 1e-4 (absolute: a sum of probabilities over the
//     evaluated frames, not a fraction) are invisible and dropped.
//  3. P(j,c) = O(j,c)/|C_c| (only where |C_c| ≠ 0), R(j,c) = O(j,c)/|Ĝ_j|
//     (only where also |Ĝ_j| ≠ 0), F = 2PR/(P+R) where P ≠ 0 and R ≠ 0.
//  4. A square matrix of side n = max(#visible regions, #clusters) holds
//     int(F·10000), zero-padded; rows are clusters, columns regions; the
//     Hungarian method (see Hungarian) finds the assignment maximising ΣF.
//  5. Averages run over the assigned pairs: a cluster assigned to a padding
//     region is ignored (clusters ≥ regions); a region assigned to a padding
//     cluster counts P = 1, R = 0 (regions > clusters). P̄, R̄ are the means,
//     F = 2P̄R̄/(P̄+R̄). Extracted objects = #{pairs with (unrounded) F >
//     threshold} − 1 for the background, at least 0; visible objects =
//     #visible regions − 1, at least 0.
//  6. Density = 100·#covered pixels / (#used labelled frames · pixels of the
//     first labelled frame); average region density = 100·mean_j |Ĝ_j|/|G_j|
//     over the visible regions.
//
// Differences from the original code, all deliberate and documented:
//   - Sums are float64 (the original uses float32, which saturates at 2^24 and
//     breaks for dense masks of long sequences); results agree up to float
//     rounding on FBMS-sized inputs.
//   - Ground-truth pixels whose colour is not a region (Region = −1) count as
//     region 0: MoSegEval looks colours up in a table that is never
//     initialised but, being a fresh 64 MiB allocation, is zero in practice.
//   - Cluster ids are the track labels, as in MoSegEval: #clusters = max
//     label + 1, unused labels are empty clusters (they take part in the
//     assignment). Negative labels are an error (MoSegEval indexes out of
//     bounds) unless Options.CompactLabels maps the distinct labels to
//     0..k−1 in increasing order. Tables are sized by the clusters present,
//     not by the largest label (a square table of the largest label has
//     40001² entries for a single label of 40000); beyond 1024
//     clusters the assignment runs on a reduced table with the same optimum
//     (see result). At most MaxClusters distinct labels are accepted.
//   - Where the original would divide by zero (no pair counted, P̄+R̄ = 0, no
//     visible region) we report 0 instead of NaN; with no labelled frame in
//     the evaluated range we return an error.
//   - The original insists that the tracks file length is 10, 50, 200 or the
//     shot length; we accept any length (it only sets E).
//   - The default threshold of the original binaries is 0.9 (a command line
//     argument); the FBMS paper and this project use 0.75 (Options.Threshold).
//
// Dense masks (Masks, MasksFunc) are scored by the same accumulation with
// every pixel of every labelled frame treated as a one-point track.
package eval

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/trajectory"
)

// DefaultThreshold is the F-measure above which an assigned pair counts as an
// extracted object (FBMS paper: F ≥ 75%; MoSegEval compares with '>').
const DefaultThreshold = 0.75

// invisibleSize is MoSegEval's visibility limit on a region's total size.
const invisibleSize = 1e-4

// Options controls an evaluation.
type Options struct {
	// Threshold on F for counting an extracted object; 0 means DefaultThreshold.
	Threshold float64
	// EvalFrames is the evaluated length E: labelled frames with frame number
	// > E are not used. 0 means the tracks' Frames (Sequence) or all frames
	// (Masks); a negative value means all frames.
	EvalFrames int
	// CompactLabels maps the distinct track labels to cluster ids 0..k−1 in
	// increasing order instead of using the label values as ids (MoSegEval).
	CompactLabels bool
	// AllowMissingMasks scores a labelled frame without a mask as all
	// pixels uncovered (listed in Result.MissingMasks and a warning)
	// instead of failing.
	AllowMissingMasks bool
}

// Validate checks the ranges: threshold in (0, 1) (0 = DefaultThreshold),
// evaluated frames ≥ −1.
func (o Options) Validate() error {
	if !(o.Threshold >= 0 && o.Threshold < 1) {
		return fmt.Errorf("eval: threshold must be in (0, 1), got %v", o.Threshold)
	}
	if o.EvalFrames < -1 {
		return fmt.Errorf("eval: evaluated frames must be ≥ −1 (0 = the tracks' frames, −1 = all), got %d", o.EvalFrames)
	}
	return nil
}

func (o Options) threshold() float64 {
	if o.Threshold == 0 {
		return DefaultThreshold
	}
	return o.Threshold
}

// Result is the outcome for one sequence. Precision, Recall, F and IoU are
// fractions in [0,1]; Density and AvgRegionDensity are percent, as MoSegEval
// prints them.
type Result struct {
	Precision        float64 `json:"precision"`
	Recall           float64 `json:"recall"`
	F                float64 `json:"f"`
	Objects          int     `json:"objects"` // extracted objects (F > threshold), background excluded
	Visible          int     `json:"visible"` // visible regions − 1 (background)
	Density          float64 `json:"density"`
	AvgRegionDensity float64 `json:"avg_region_density"`
	// IoU is the Jaccard index of the foreground: the union of the visible
	// regions other than region 0 (the background, by the FBMS and DAVIS
	// convention) against the union of the clusters the assignment gives to
	// them, summed over all evaluated frames, probability-weighted, over the
	// covered points only (for dense masks: all pixels, i.e. the pooled
	// DAVIS region similarity). 1 when both unions are empty.
	IoU float64 `json:"iou"`
	// JMean is the same Jaccard index computed per evaluated labelled frame
	// and averaged (DAVIS J mean; a frame with both unions empty scores 1).
	JMean float64 `json:"j_mean"`
	// JMeanAwayFromThin (dense masks only) is JMean over the pixels outside
	// the band around the thin parts of each frame's ground-truth object
	// (dataset.LabelledFrame.ThinPartsBand: lines, cords, spokes narrower
	// than 5 px, and 3 px around them): how well the masks draw the object
	// where the annotation is not a 1-px line. The same cluster assignment.
	JMeanAwayFromThin *float64 `json:"j_mean_away_from_thin_parts,omitempty"`
	// JMeanWithThinParts (dense masks only) is JMean with every pixel of the
	// thin parts of each frame's ground-truth object (morph.ThinParts)
	// added to the masks' object: the J that completing the lines, cords
	// and spokes the masks miss would reach, the rest of the masks as they
	// are. A bound for analysis, like an oracle; never a score.
	JMeanWithThinParts *float64 `json:"j_mean_with_thin_parts,omitempty"`
	// JMeanWithoutHoles (dense masks only) is JMean with every pixel of the
	// holes of each frame's ground-truth object (dataset.LabelledFrame.Holes:
	// the scene inside a wheel's rim or through rigging) taken out of the
	// masks' object: the J that clearing the holes the masks fill would
	// reach, the rest as it is. A bound for analysis, like an oracle.
	JMeanWithoutHoles *float64 `json:"j_mean_without_holes,omitempty"`
	// JMeanBenchmark, JRecall and JDecay are the DAVIS 2016 benchmark's J
	// mean, recall and decay (Perazzi et al., CVPR 2016, Sec. 3.1), which
	// leave out the first and the last evaluated frame (when there are at
	// least three): the mean J of the frames between them, and JStatistics of
	// them (the fraction with J > 0.5; the mean J of their first quarter minus
	// that of their last). JMean keeps every frame.
	JMeanBenchmark float64 `json:"j_mean_benchmark"`
	JRecall        float64 `json:"j_recall"`
	JDecay         float64 `json:"j_decay"`
	// JFrames is J of every evaluated labelled frame, in frame order.
	JFrames []FrameJ `json:"j_frames"`

	Threshold      float64 `json:"threshold"`
	EvalFrames     int     `json:"eval_frames"`     // E (0: all)
	LabelledFrames int     `json:"labelled_frames"` // labelled frames used
	Regions        int     `json:"regions"`         // visible regions, background included
	Clusters       int     `json:"clusters"`
	// ClusterLabels[c] is the label value (track label or mask value) of cluster c.
	ClusterLabels []int          `json:"cluster_labels"`
	RegionDetails []RegionDetail `json:"region_details"`
	// Pairs lists the assignment row by row (cluster 0, 1, …, then padding
	// clusters), as MoSegEval's "Cluster l => Region k" lines.
	Pairs []Pair `json:"pairs"`
	// MissingMasks lists labelled frames scored without a mask (all pixels
	// uncovered); only with Options.AllowMissingMasks.
	MissingMasks []int `json:"missing_masks,omitempty"`
	// Warnings are the ground truth's warnings (dataset.GroundTruth.Warnings,
	// e.g. label colours the Def.dat does not list) and the evaluation's.
	Warnings []string `json:"warnings,omitempty"`
}

// FrameJ is the Jaccard index of the foreground in one labelled frame.
type FrameJ struct {
	Frame int     `json:"frame"` // 0-based frame index in the sequence
	J     float64 `json:"j"`
}

// RegionDetail describes one ground-truth region (visible or not).
type RegionDetail struct {
	Region      int     `json:"region"` // index into GroundTruth.Colors
	Color       int     `json:"color"`
	Visible     bool    `json:"visible"`
	TotalSize   float64 `json:"total_size"`   // |G_j|, probability-weighted pixels
	CoveredSize float64 `json:"covered_size"` // |Ĝ_j|, covered by tracks/mask
	Density     float64 `json:"density"`      // 100·|Ĝ_j|/|G_j| (percent)
	Cluster     int     `json:"cluster"`      // assigned cluster id, −1 = padding or invisible
	Precision   float64 `json:"precision"`
	Recall      float64 `json:"recall"`
	F           float64 `json:"f"`
	IoU         float64 `json:"iou"` // O/(|Ĝ_j|+|C_c|−O) with the assigned cluster
	Object      bool    `json:"object"`
}

// Pair is one row of the assignment.
type Pair struct {
	Cluster   int     `json:"cluster"` // cluster id; ≥ Clusters for a padding cluster
	Label     int     `json:"label"`   // its label value (−1 for padding)
	Region    int     `json:"region"`  // region index; −1 for a padding region
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F         float64 `json:"f"`
	Counted   bool    `json:"counted"` // false: cluster on a padding region, ignored
	Empty     bool    `json:"empty"`   // an empty cluster (label gap) or a padding row
}

// accum holds the sums of step 1. Cluster-indexed slices grow as clusters
// appear; overlap[c][j] is O(j,c).
type accum struct {
	nR          int
	overlap     [][]float64
	clusterSize []float64
	regionSize  []float64 // |Ĝ_j|
	regionTotal []float64 // |G_j|
	coverage    int64
	usedFrames  int
	firstPixels int
	frames      []frameAcc // per used frame, for JMean
}

type frameAcc struct {
	frame       int // 0-based frame index in the sequence
	overlap     [][]float64
	clusterSize []float64
	regionSize  []float64
}

func newAccum(nR int) *accum {
	return &accum{nR: nR, regionSize: make([]float64, nR), regionTotal: make([]float64, nR)}
}

func (a *accum) grow(nC int) {
	for len(a.overlap) < nC {
		a.overlap = append(a.overlap, make([]float64, a.nR))
		a.clusterSize = append(a.clusterSize, 0)
	}
}

// beginFrame adds the GT image of a used labelled frame to the region totals
// and opens its per-frame sums.
func (a *accum) beginFrame(lf *dataset.LabelledFrame) *frameAcc {
	if a.usedFrames == 0 {
		a.firstPixels = lf.Width * lf.Height
	}
	a.usedFrames++
	for i, r := range lf.Region {
		a.regionTotal[max(r, 0)] += lf.Prob[i]
	}
	a.frames = append(a.frames, frameAcc{frame: lf.Frame})
	return &a.frames[len(a.frames)-1]
}

// add records one covered point of cluster c on region r with probability p
// in the frame's overlap table.
func (fa *frameAcc) add(nR, r, c int, p float64) {
	for len(fa.overlap) <= c {
		fa.overlap = append(fa.overlap, make([]float64, nR))
	}
	fa.overlap[c][r] += p
}

// endFrame derives the frame's cluster and region sizes from its overlap
// table and adds everything to the sequence sums. (MoSegEval adds each point
// to all three sums at once; summing per frame first only changes the float
// rounding, and both the track and the mask path use this same order.)
func (a *accum) endFrame(fa *frameAcc) {
	a.grow(len(fa.overlap))
	fa.sizes(a.nR)
	for c, row := range fa.overlap {
		for r, o := range row {
			a.overlap[c][r] += o
		}
		a.clusterSize[c] += fa.clusterSize[c]
	}
	for r, v := range fa.regionSize {
		a.regionSize[r] += v
	}
}

// sizes derives a frame's cluster and region sizes from its overlap table
// (endFrame; alone for the thin-part-free frames, which are not added to
// the sequence sums).
func (fa *frameAcc) sizes(nR int) {
	fa.clusterSize = make([]float64, len(fa.overlap))
	fa.regionSize = make([]float64, nR)
	for c, row := range fa.overlap {
		for r, o := range row {
			fa.clusterSize[c] += o
			fa.regionSize[r] += o
		}
	}
}

// checkGT validates the ground truth before any indexing.
func checkGT(gt *dataset.GroundTruth) error {
	if gt == nil {
		return errors.New("eval: no ground truth")
	}
	nR := len(gt.Colors)
	if nR == 0 {
		return fmt.Errorf("%s: ground truth has no regions", gt.Path)
	}
	for fi := range gt.Frames {
		lf := &gt.Frames[fi]
		n := lf.Width * lf.Height
		if lf.Width <= 0 || lf.Height <= 0 || len(lf.Region) != n || len(lf.Prob) != n {
			return fmt.Errorf("%s: labelled frame %d (%s): size %dx%d does not match its %d labels / %d probabilities",
				gt.Path, lf.Frame, lf.File, lf.Width, lf.Height, len(lf.Region), len(lf.Prob))
		}
		for _, r := range lf.Region {
			if r >= nR || r < -1 {
				return fmt.Errorf("%s: labelled frame %d (%s): region %d out of range [0,%d)", gt.Path, lf.Frame, lf.File, r, nR)
			}
		}
	}
	return nil
}

// usedFrames returns the indices of gt.Frames that MoSegEval evaluates: in
// file order, up to the first with frame number > E (E ≤ 0: all).
func usedFrames(gt *dataset.GroundTruth, e int) []int {
	var idx []int
	for i := range gt.Frames {
		if e > 0 && gt.Frames[i].Frame > e {
			break
		}
		idx = append(idx, i)
	}
	return idx
}

// roundCoord is MoSegEval's (int)(x+0.5f): float32 addition, truncation
// toward zero (so −1.5 < x < 0.5 all give 0). ok is false for values that
// cannot be pixel coordinates (NaN, ±Inf, huge).
func roundCoord(x float64) (int, bool) {
	if math.IsNaN(x) || math.Abs(x) > 1e9 {
		return 0, false
	}
	return int(float32(x) + 0.5), true
}

// Sequence scores a clustering of point trajectories (the track labels)
// against FBMS-style ground truth; see the package comment for the exact
// protocol.
func Sequence(gt *dataset.GroundTruth, ts *trajectory.TrackSet, opt Options) (*Result, error) {
	if err := checkGT(gt); err != nil {
		return nil, err
	}
	if ts == nil {
		return nil, errors.New("eval: no tracks")
	}
	// Cluster ids: always the distinct labels in increasing order (tables
	// are sized by the clusters present); in MoSegEval numbering the label
	// values up to the largest one are clusters too, the missing ones empty
	// (numbering.empty).
	seen := map[int]bool{}
	var labels []int
	maxLabel := 0
	for i := range ts.Tracks {
		l := ts.Tracks[i].Label
		if l < 0 && !opt.CompactLabels {
			return nil, fmt.Errorf("eval: track %d has negative label %d (MoSegEval needs labels ≥ 0; use compact labels)", i, l)
		}
		maxLabel = max(maxLabel, l)
		if !seen[l] {
			if len(labels) == MaxClusters {
				return nil, fmt.Errorf("eval: more than %d distinct track labels (clusters); a segmentation has far fewer", MaxClusters)
			}
			seen[l] = true
			labels = append(labels, l)
		}
	}
	slices.Sort(labels)
	pos := make(map[int]int, len(labels))
	for c, l := range labels {
		pos[l] = c
	}
	ids := make([]int, len(ts.Tracks))
	for i := range ts.Tracks {
		ids[i] = pos[ts.Tracks[i].Label]
	}
	num := numbering{labels: labels}
	if !opt.CompactLabels && len(labels) > 0 {
		num.mosegeval = true
		num.total = int64(maxLabel) + 1
	}
	if err := checkTable(gt, len(labels)); err != nil {
		return nil, err
	}

	e := opt.EvalFrames
	if e == 0 {
		e = ts.Frames
	}
	a := newAccum(len(gt.Colors))
	a.grow(len(labels))
	for _, fi := range usedFrames(gt, e) {
		lf := &gt.Frames[fi]
		fa := a.beginFrame(lf)
		occupied := make([]bool, lf.Width*lf.Height)
		for i := range ts.Tracks {
			p, ok := ts.Tracks[i].At(lf.Frame)
			if !ok {
				continue
			}
			x, okx := roundCoord(p.X)
			y, oky := roundCoord(p.Y)
			if !okx || !oky || x < 0 || y < 0 || x >= lf.Width || y >= lf.Height {
				continue
			}
			k := y*lf.Width + x
			fa.add(a.nR, max(lf.Region[k], 0), ids[i], lf.Prob[k])
			if !occupied[k] {
				occupied[k] = true
				a.coverage++
			}
		}
		a.endFrame(fa)
	}
	res, _, err := a.result(gt, num, max(e, 0), opt.threshold())
	return res, err
}

// numbering tells result how cluster ids relate to the label values.
// labels are the distinct labels present, in increasing order (compact id c
// ↔ labels[c]). With mosegeval, cluster ids are the label values as in
// MoSegEval, so there are total = largest label + 1 clusters, the
// total − len(labels) missing values being empty clusters.
type numbering struct {
	labels    []int
	mosegeval bool
	total     int64
}

// clusters is the cluster count of the evaluation protocol.
func (n numbering) clusters() int64 {
	if n.mosegeval {
		return n.total
	}
	return int64(len(n.labels))
}

// MaxClusters bounds the number of distinct labels (clusters) an evaluation
// accepts: a motion segmentation has tens of clusters; a colour photo or a
// folder of unrelated images read as masks has one per colour.
const MaxClusters = 1 << 16

// maxTableCells bounds clusters × regions, the size of each overlap table
// (one per used labelled frame plus one for the sequence; 8 MiB each).
const maxTableCells = 1 << 20

// exactSide is the largest assignment table built in full, with a row for
// every cluster (MoSegEval numbering: every label value up to the largest,
// empty ones included), so that ties break exactly as in MoSegEval.
// maxAssignSide bounds the reduced table used beyond it (see result).
var exactSide = 1024 // a variable so that tests can force the reduced table

const maxAssignSide = 4096

// checkTable refuses cluster counts whose tables would not fit the bounds.
func checkTable(gt *dataset.GroundTruth, clusters int) error {
	if clusters > MaxClusters {
		return fmt.Errorf("eval: %d distinct labels (clusters) exceed the limit of %d; a segmentation has far fewer (is this a colour image or another kind of file?)", clusters, MaxClusters)
	}
	if cells := int64(clusters) * int64(len(gt.Colors)); cells > maxTableCells {
		return fmt.Errorf("eval: %d clusters × %d ground-truth regions = %d table cells exceed the limit of %d", clusters, len(gt.Colors), cells, maxTableCells)
	}
	return nil
}

// result runs steps 2–6 on the accumulated sums and the region similarity J
// (IoU, JMean; see foreground) with the assignment found; the foreground it
// returns serves further J scores (MasksFunc). Tables are sized by the
// clusters present (compact ids), never by the largest label value.
//
// The assignment (step 4) has one row per cluster. When the protocol's
// cluster count and the visible regions are at most exactSide, the rows are
// all clusters in protocol order (empty ones of the MoSegEval numbering
// included, with zero F), exactly as MoSegEval builds its matrix. Beyond
// that the table is reduced without changing the optimum ΣF: in an optimal
// assignment every region can be given one of its nV best clusters (if its
// cluster is not among them, one of them is not used by the other nV − 1
// regions and can be swapped in, F not lower), so the rows are the union of
// the nV best clusters of each visible region (by int(F·10000), ties to the
// smaller id), in id order, followed by min(empty clusters, nV) empty rows
// (a region matched to an empty cluster counts P = R = 0, as in MoSegEval).
// Only ties between equally good assignments may then break differently
// from MoSegEval.
func (a *accum) result(gt *dataset.GroundTruth, num numbering, e int, thr float64) (*Result, foreground, error) {
	if a.usedFrames == 0 {
		return nil, foreground{}, fmt.Errorf("%s: no labelled frame within the evaluated %d frames", gt.Path, e)
	}
	a.grow(len(num.labels))
	res := &Result{Threshold: thr, EvalFrames: e, LabelledFrames: a.usedFrames, Clusters: int(num.clusters()),
		ClusterLabels: num.labels, Warnings: gt.Warnings}
	vis := a.visibleRegions(res, gt.Colors)
	t := a.precisionRecall(len(num.labels), vis)
	as, err := assignmentRows(num, t, len(vis))
	if err != nil {
		return nil, foreground{}, err
	}
	as.match = Hungarian(as.cost(t, len(vis)))
	regionCluster := a.average(res, num, as, t, vis)
	fg := newForeground(res.RegionDetails, regionCluster)
	res.IoU = fg.jaccard(a.overlap, a.clusterSize, a.regionSize)
	js := fg.frameJ(a.frames)
	res.JMean = mean(js)
	inner := benchmarkFrames(js)
	res.JMeanBenchmark = mean(inner)
	res.JRecall, res.JDecay = JStatistics(inner)
	res.JFrames = make([]FrameJ, len(js))
	for i, j := range js {
		res.JFrames[i] = FrameJ{Frame: a.frames[i].frame, J: j}
	}
	return res, fg, nil
}

// visibleRegions runs step 2 and the densities of step 6: it fills
// res.RegionDetails (sizes, visibility, density), Regions, Visible, Density
// and AvgRegionDensity, and returns the visible regions in increasing order.
func (a *accum) visibleRegions(res *Result, colors []int) []int {
	var vis []int
	res.RegionDetails = make([]RegionDetail, a.nR)
	avgDens := 0.0
	for j := 0; j < a.nR; j++ {
		d := &res.RegionDetails[j]
		*d = RegionDetail{Region: j, Color: colors[j], TotalSize: a.regionTotal[j], CoveredSize: a.regionSize[j], Cluster: -1}
		if a.regionTotal[j] < invisibleSize {
			continue
		}
		d.Visible = true
		d.Density = 100 * a.regionSize[j] / a.regionTotal[j]
		vis = append(vis, j)
		avgDens += a.regionSize[j] / a.regionTotal[j]
	}
	nV := len(vis)
	if nV > 0 {
		res.AvgRegionDensity = 100 * avgDens / float64(nV)
	}
	res.Regions = nV
	res.Visible = max(0, nV-1)
	res.Density = 100 * float64(a.coverage) / (float64(a.usedFrames) * float64(a.firstPixels))
	return vis
}

// prTable holds step 3: P[c][k] and R[c][k] of present cluster c (compact
// id) against the k-th visible region.
type prTable struct {
	P, R [][]float64
}

// precisionRecall runs step 3 for the nC present clusters and the visible
// regions vis: P = O/|C_c| where |C_c| ≠ 0, R = O/|Ĝ_j| where also |Ĝ_j| ≠ 0,
// 0 elsewhere.
func (a *accum) precisionRecall(nC int, vis []int) prTable {
	t := prTable{P: make([][]float64, nC), R: make([][]float64, nC)}
	for c := 0; c < nC; c++ {
		t.P[c] = make([]float64, len(vis))
		t.R[c] = make([]float64, len(vis))
		cs := a.clusterSize[c]
		if cs == 0 {
			continue
		}
		for k, j := range vis {
			o := a.overlap[c][j]
			t.P[c][k] = o / cs
			if a.regionSize[j] != 0 {
				t.R[c][k] = o / a.regionSize[j]
			}
		}
	}
	return t
}

// fMeasure is 2PR/(P+R), 0 where P or R is 0.
func fMeasure(p, r float64) float64 {
	if p == 0 || r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// f is F of cluster c and the k-th visible region.
func (t prTable) f(c, k int) float64 { return fMeasure(t.P[c][k], t.R[c][k]) }

// score is the assignment's entry int(F·10000).
func (t prTable) score(c, k int) int { return int(t.f(c, k) * 10000) }

// assignment is step 4: the rows of the table and, once solved, the match.
type assignment struct {
	rows  []int // compact cluster id of each row, −1 for an empty cluster
	ids   []int // the row's cluster id in the output (Pair.Cluster)
	match []int // Hungarian: row → column, a visible region index or ≥ nV for padding
}

// assignmentRows chooses the rows of the assignment (see result): all
// clusters in protocol order up to exactSide, the reduced table beyond.
func assignmentRows(num numbering, t prTable, nV int) (assignment, error) {
	if num.clusters() <= int64(exactSide) && nV <= exactSide {
		return exactRows(num), nil
	}
	return reducedRows(num, t, nV)
}

// exactRows has a row for every cluster of the protocol, in order: with the
// MoSegEval numbering every label value up to the largest, the missing ones
// empty.
func exactRows(num numbering) assignment {
	var as assignment
	for r := 0; r < int(num.clusters()); r++ {
		c := r
		if num.mosegeval {
			c = -1
			if k, ok := slices.BinarySearch(num.labels, r); ok {
				c = k
			}
		}
		as.rows = append(as.rows, c)
		as.ids = append(as.ids, r)
	}
	return as
}

// reducedRows has the union of the nV best clusters of each visible region,
// in id order, then min(empty clusters, nV) empty rows; a table side beyond
// maxAssignSide is an error.
func reducedRows(num numbering, t prTable, nV int) (assignment, error) {
	var as assignment
	nC := len(num.labels)
	keep := make([]bool, nC)
	top := min(nV, nC)
	order := make([]int, nC)
	for k := 0; k < nV; k++ {
		for c := range order {
			order[c] = c
		}
		slices.SortStableFunc(order, func(x, y int) int { return t.score(y, k) - t.score(x, k) })
		for _, c := range order[:top] {
			keep[c] = true
		}
	}
	for c, k := range keep {
		if k {
			as.rows = append(as.rows, c)
			as.ids = append(as.ids, c)
		}
	}
	if empty := num.clusters() - int64(nC); empty > 0 {
		for i := int64(0); i < min(empty, int64(nV)); i++ {
			as.rows = append(as.rows, -1)
			as.ids = append(as.ids, nC+int(i))
		}
	}
	if side := max(len(as.rows), nV); side > maxAssignSide {
		return as, fmt.Errorf("eval: assigning %d clusters to %d visible regions needs a %d×%d table, more than %d×%d",
			nC, nV, side, side, maxAssignSide, maxAssignSide)
	}
	return as, nil
}

// cost is the square table of side max(nV, rows) that Hungarian minimises:
// −int(F·10000) of each present cluster's row against each visible region,
// 0 for empty rows and padding.
func (as assignment) cost(t prTable, nV int) [][]int {
	nRows := len(as.rows)
	cost := make([][]int, max(nV, nRows))
	for l := range cost {
		cost[l] = make([]int, len(cost))
		if l < nRows && as.rows[l] >= 0 {
			for k := 0; k < nV; k++ {
				cost[l][k] = -t.score(as.rows[l], k)
			}
		}
	}
	return cost
}

// pair describes row l of the solved assignment (without its scores) and
// returns its compact cluster id, −1 for an empty or padding row.
func (as assignment) pair(l int, num numbering, vis []int) (Pair, int) {
	nRows := len(as.rows)
	total := num.clusters()
	pr := Pair{Cluster: l, Label: -1, Region: -1, Empty: true}
	c := -1
	if l < nRows {
		pr.Cluster = as.ids[l]
		if c = as.rows[l]; c >= 0 {
			pr.Label, pr.Empty = num.labels[c], false
		} else if num.mosegeval && as.ids[l] < int(total) && total <= int64(exactSide) {
			pr.Label = as.ids[l] // an empty cluster of the MoSegEval numbering
		}
	} else {
		pr.Cluster = max(int(min(total, int64(exactSide))), nRows) + l - nRows
	}
	if k := as.match[l]; k < len(vis) {
		pr.Region = vis[k]
	}
	return pr, c
}

// average runs step 5 over the solved assignment: res.Pairs, the assigned
// regions' details, Precision, Recall, F and Objects. It returns the compact
// cluster id assigned to each region (−1 for none).
func (a *accum) average(res *Result, num numbering, as assignment, t prTable, vis []int) []int {
	nV, nRows := len(vis), len(as.rows)
	// The protocol's regime: more (or as many) clusters than regions means
	// padding regions, which ignore their clusters; fewer means padding
	// clusters, which count P = 1, R = 0.
	emptyRegions := num.clusters() >= int64(nV)
	sumP, sumR, ctr, objects := 0.0, 0.0, 0, -1
	regionCluster := make([]int, a.nR)
	for j := range regionCluster {
		regionCluster[j] = -1
	}
	for l, k := range as.match {
		pr, c := as.pair(l, num, vis)
		switch {
		case k >= nV:
			// cluster on a padding region: ignored
		case l >= nRows && !emptyRegions:
			// region on a padding cluster: P = 1, R = 0
			pr.Precision, pr.Counted = 1, true
			sumP++
			ctr++
			res.RegionDetails[vis[k]].Precision = 1
		case c < 0:
			// region on an empty cluster (or, with clusters ≥ regions, on a
			// padding row standing for one): P = R = 0, counted
			pr.Counted = true
			ctr++
		default:
			pr.Precision, pr.Recall, pr.F, pr.Counted = t.P[c][k], t.R[c][k], t.f(c, k), true
			ctr++
			if pr.F > res.Threshold {
				objects++
			}
			sumP += pr.Precision
			sumR += pr.Recall
			regionCluster[vis[k]] = c
			a.matched(&res.RegionDetails[vis[k]], pr, c, res.Threshold)
		}
		res.Pairs = append(res.Pairs, pr)
	}
	if ctr > 0 {
		res.Precision = sumP / float64(ctr)
		res.Recall = sumR / float64(ctr)
	}
	if res.Precision+res.Recall > 0 {
		res.F = 2 * res.Precision * res.Recall / (res.Precision + res.Recall)
	}
	res.Objects = max(0, objects)
	return regionCluster
}

// matched fills the detail of a region assigned to present cluster c by the
// pair pr: its cluster, P, R, F, whether it is an extracted object (F > thr),
// and the IoU O/(|Ĝ_j|+|C_c|−O).
func (a *accum) matched(d *RegionDetail, pr Pair, c int, thr float64) {
	d.Cluster, d.Precision, d.Recall, d.F, d.Object = pr.Cluster, pr.Precision, pr.Recall, pr.F, pr.F > thr
	o := a.overlap[c][d.Region]
	if u := a.regionSize[d.Region] + a.clusterSize[c] - o; u > 0 {
		d.IoU = o / u
	}
}
