package eval

import (
	"math"
	"slices"
)

// foreground is what the region similarity J of the DAVIS benchmark
// (F. Perazzi, J. Pont-Tuset, B. McWilliams, L. Van Gool, M. Gross,
// A. Sorkine-Hornung: "A benchmark dataset and evaluation methodology for
// video object segmentation", CVPR 2016) compares: the ground-truth object is
// the union of the visible regions other than region 0 (the background, by
// the FBMS and DAVIS convention), the segmentation's object the union of the
// clusters the FBMS assignment gives to them. J = |M ∩ G| / |M ∪ G|, the
// Jaccard index of the two unions, probability-weighted over the covered
// points; 1 when both unions are empty.
type foreground struct {
	regions  []int // visible regions other than 0, increasing
	clusters []int // compact ids of the clusters assigned to them, increasing
}

// newForeground takes the visible regions from details and the assignment
// from regionCluster (compact cluster id per region, −1 for none).
func newForeground(details []RegionDetail, regionCluster []int) foreground {
	var f foreground
	for j := 1; j < len(details); j++ {
		if !details[j].Visible {
			continue
		}
		f.regions = append(f.regions, j)
		if c := regionCluster[j]; c >= 0 {
			f.clusters = append(f.clusters, c)
		}
	}
	slices.Sort(f.clusters)
	f.clusters = slices.Compact(f.clusters)
	return f
}

// jaccard is J of one overlap table: ov[c][j] = O(j,c), cs the cluster sizes,
// rs the covered region sizes. Clusters beyond the table (cs) are empty.
func (f foreground) jaccard(ov [][]float64, cs, rs []float64) float64 {
	if inter, union := f.overlap(ov, cs, rs); union > 0 {
		return inter / union
	}
	return 1
}

// overlap returns |M ∩ G| and |M ∪ G| of one overlap table (jaccard).
func (f foreground) overlap(ov [][]float64, cs, rs []float64) (inter, union float64) {
	var fgR, fgC float64
	for _, j := range f.regions {
		fgR += rs[j]
	}
	for _, c := range f.clusters {
		if c >= len(cs) {
			break
		}
		fgC += cs[c]
		for _, j := range f.regions {
			inter += ov[c][j]
		}
	}
	return inter, fgR + fgC - inter
}

// frameJ is J of every frame's table, in the order of the frames.
func (f foreground) frameJ(frames []frameAcc) []float64 {
	js := make([]float64, len(frames))
	for i := range frames {
		fa := &frames[i]
		js[i] = f.jaccard(fa.overlap, fa.clusterSize, fa.regionSize)
	}
	return js
}

// meanJWithThinParts is the DAVIS J mean with every thin pixel of the
// object added to the segmentation's object: frames[i] is a frame's table,
// thin[i] the same frame's overlaps over the thin parts of its object
// (morph.ThinParts). Per frame, with m the thin object pixels on clusters
// that are not the object's, the intersection and the object's size both
// grow by m and the union stays:
//
//	J' = (|M ∩ G| + m) / |M ∪ G|.
func (f foreground) meanJWithThinParts(frames, thin []frameAcc) float64 {
	js := f.frameJ(frames)
	for i := range frames {
		m := 0.0
		for c, row := range thin[i].overlap {
			if slices.Contains(f.clusters, c) {
				continue
			}
			for _, j := range f.regions {
				m += row[j]
			}
		}
		if m > 0 {
			fa := &frames[i]
			inter, union := f.overlap(fa.overlap, fa.clusterSize, fa.regionSize)
			js[i] = (inter + m) / union
		}
	}
	return mean(js)
}

// meanJWithoutHoles is the DAVIS J mean with every pixel of the holes of
// the object taken out of the segmentation's object: frames[i] is a
// frame's table, holes[i] the same frame's overlaps over the holes of its
// object (dataset.LabelledFrame.Holes), which lie outside every object
// region (MasksFunc adds them to region 0). Per frame, with h the hole
// pixels on the object's clusters, the intersection stays and the union
// shrinks by h:
//
//	J' = |M ∩ G| / (|M ∪ G| − h).
func (f foreground) meanJWithoutHoles(frames, holes []frameAcc) float64 {
	js := f.frameJ(frames)
	for i := range frames {
		h := 0.0 // renumber gave every frame a row per cluster
		for _, c := range f.clusters {
			for _, v := range holes[i].overlap[c] {
				h += v
			}
		}
		if h > 0 {
			fa := &frames[i]
			inter, union := f.overlap(fa.overlap, fa.clusterSize, fa.regionSize)
			js[i] = inter / (union - h)
		}
	}
	return mean(js)
}

// meanJ is the DAVIS J mean: J of every frame's table, averaged.
func (f foreground) meanJ(frames []frameAcc) float64 { return mean(f.frameJ(frames)) }

// benchmarkFrames drops the first and the last frame's J, as the DAVIS 2016
// benchmark scores a sequence (its loader strips both before J is averaged),
// when at least three frames are left with one between them.
func benchmarkFrames(js []float64) []float64 {
	if len(js) < 3 {
		return js
	}
	return js[1 : len(js)-1]
}

// mean is the mean of xs, 0 for none.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// JStatistics returns the DAVIS recall and decay of per-frame Jaccard indices
// in frame order (Perazzi et al., CVPR 2016, Sec. 3.1): recall is the
// fraction of frames with J > 0.5; decay is the mean J of the first quarter
// of the frames minus that of the last quarter, the quarters being the four
// bins of the DAVIS benchmark's statistics: bin i holds the frames b_i … b_{i+1}
// (both ends included) with b_i = ⌊1 + i(n−1)/4 + ½⌋ − 1, i = 0…4. A positive
// decay means the masks get worse as the sequence goes on. No frame: 0, 0.
func JStatistics(js []float64) (recall, decay float64) {
	n := len(js)
	if n == 0 {
		return 0, 0
	}
	for _, j := range js {
		if j > 0.5 {
			recall++
		}
	}
	recall /= float64(n)
	bound := func(i int) int { return int(math.Floor(1+float64(i)*float64(n-1)/4+0.5)) - 1 }
	bin := func(i int) []float64 { return js[bound(i) : bound(i+1)+1] }
	return recall, mean(bin(0)) - mean(bin(3))
}
