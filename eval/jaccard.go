package eval

import "slices"

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
	var inter, fgR, fgC float64
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
	if den := fgR + fgC - inter; den > 0 {
		return inter / den
	}
	return 1
}

// meanJ is the DAVIS J mean: J of every frame's table, averaged.
func (f foreground) meanJ(frames []frameAcc) float64 {
	sum := 0.0
	for i := range frames {
		fa := &frames[i]
		sum += f.jaccard(fa.overlap, fa.clusterSize, fa.regionSize)
	}
	return sum / float64(len(frames))
}
