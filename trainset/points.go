package trainset

import (
	"math"
	"slices"
	"sort"

	"github.com/densify/densify/trajectory"
)

// unexplainedBackground marks the trajectories that Prepare leaves
// unlabelled: those of a background cluster c listed in
// opt.CameraBackground whose upper-quartile normalised camera residual
// q_i (upper[i]) exceeds
//
//	θ_c = R · max(1, Q_c),   R = opt.BackgroundResidual,
//
// with Q_c the median of q over the trajectories of c, provided m_c ≤ R,
// m_c the median over c of the trajectories' median residuals r_i
// (residual[i]): the camera explains the cluster's typical trajectory over
// most of its life. NaNs are left out of both medians and never marked.
// Without upper (a camera.csv written before it) q = r. Nothing is marked
// when R is 0 or residual is nil.
//
// Why: such a cluster is background because the camera motion explains
// most of its points (motiongraph.CameraEvidence), but a trajectory whose
// own points the camera does not explain moves by itself. The multicut
// keeps such trajectories in the background cluster when the object moves
// slowly and the camera follows it (DAVIS cows, dog), and as background
// labels they teach the U-Net
// that the object is background. Leaving them unlabelled removes these
// false background labels at the price of some true ones, which the
// densifier fills in from their neighbours; the factor max(1, Q_c) keeps
// that price small where the background moves somewhat by itself.
//
// Why the upper quartile: parts of an object rest for half of their life
// or more. The hoof of a walking cow stands on the ground while the leg
// swings, and a grazing head is still between moves, so their median
// residual is the ground's; a quarter of their life moving on their own
// is enough to count. On the DAVIS 2016 development sequences the upper
// quartile labels cows, bmx-trees and dog better than the median and no
// sequence noticeably worse; the 90th percentile, better still on cows,
// is worse on bmx-trees. The gate keeps the median: whether the camera
// explains a cluster is a statement about most of its life.
//
// Where the typical trajectory of the cluster is itself unexplained
// (m_c > R: water, whose trajectories ripple), the residuals say nothing
// about which of them belong to an object, and the unexplained ones near
// the object (a swan's wake) are the background labels the densifier needs
// most: on blackswan unlabelling them cost dense J at an unchanged label
// IoU, so such clusters are left alone. So are clusters that are background only by their share
// of the border band: there the camera fit describes a corner of the
// frame, and the residuals of the whole background are large
// (motocross-jump).
func unexplainedBackground(ts *trajectory.TrackSet, residual, upper []float64, opt Options, isBG map[int]bool) []bool {
	out := make([]bool, len(ts.Tracks))
	if !(opt.BackgroundResidual > 0) || residual == nil {
		return out
	}
	if upper == nil {
		upper = residual
	}
	type stats struct{ med, up []float64 }
	byCluster := map[int]*stats{}
	for _, c := range opt.CameraBackground {
		if isBG[c] {
			byCluster[c] = &stats{}
		}
	}
	for i, t := range ts.Tracks {
		st, ok := byCluster[t.Label]
		if !ok {
			continue
		}
		if !math.IsNaN(residual[i]) {
			st.med = append(st.med, residual[i])
		}
		if !math.IsNaN(upper[i]) {
			st.up = append(st.up, upper[i])
		}
	}
	median := func(r []float64) float64 {
		if len(r) == 0 {
			return 0
		}
		slices.Sort(r)
		return r[len(r)/2]
	}
	theta := map[int]float64{}
	for c, st := range byCluster {
		if median(st.med) <= opt.BackgroundResidual {
			theta[c] = opt.BackgroundResidual * max(1, median(st.up))
		}
	}
	for i, t := range ts.Tracks {
		if th, ok := theta[t.Label]; ok {
			out[i] = upper[i] > th // false for NaN
		}
	}
	return out
}

// classWeights implements the ACCV'20 balance w_c = ⌊n_major/n_c/10⌋ + 1.
func classWeights(counts []int, balance bool) []float64 {
	w := make([]float64, len(counts))
	major := 0
	for _, n := range counts {
		major = max(major, n)
	}
	for c, n := range counts {
		w[c] = 1
		if balance && n > 0 && n < major {
			w[c] = math.Floor(float64(major)/float64(n)/10) + 1
		}
	}
	return w
}

// isolatedPoints returns the indices of points with no other point of the
// same class within radius r (pointBuckets).
func isolatedPoints[P any](pts []P, at func(P) (x, y, c int), r float64) map[int]bool {
	out := map[int]bool{}
	if r <= 0 {
		return out
	}
	xy := make([][2]int, len(pts))
	class := make([]int, len(pts))
	for i, p := range pts {
		xy[i][0], xy[i][1], class[i] = at(p)
	}
	b := newPointBuckets(xy, r)
	for i, p := range xy {
		if !b.nearWhere(p[0], p[1], func(j int) bool { return j != i && class[j] == class[i] }) {
			out[i] = true
		}
	}
	return out
}

// longTrajectories marks, in every group c of trajectories, the long ones:
// those at least as long as the group's point-weighted median length
//
//	m_c = min{ℓ : Σ_{i∈c, ℓ_i ≤ ℓ} ℓ_i ≥ ½ Σ_{i∈c} ℓ_i},   ℓ_i = |points of i|,
//
// so that the long trajectories hold at least half of the group's points,
// or (capLen > 0) at least capLen long. group maps a trajectory's label to
// its group (a segment, or a class); trajectories it does not accept (ok
// false) are not marked.
func longTrajectories(ts *trajectory.TrackSet, group func(label int) (c int, ok bool), capLen int) []bool {
	lens := map[int][]int{}
	for _, t := range ts.Tracks {
		if c, ok := group(t.Label); ok {
			lens[c] = append(lens[c], len(t.Points))
		}
	}
	median := map[int]int{}
	for c, ls := range lens {
		sort.Ints(ls)
		total := 0
		for _, l := range ls {
			total += l
		}
		acc := 0
		for _, l := range ls {
			acc += l
			if 2*acc >= total {
				median[c] = l
				break
			}
		}
	}
	long := make([]bool, len(ts.Tracks))
	for i, t := range ts.Tracks {
		if c, ok := group(t.Label); ok && (len(t.Points) >= median[c] || (capLen > 0 && len(t.Points) >= capLen)) {
			long[i] = true
		}
	}
	return long
}

// unsupportedPoints returns the indices of the points of short
// trajectories (long false, segment seg ≥ 0) with no point of a long
// trajectory of the same segment within radius r (pointBuckets). Points
// with seg < 0 (background) are never returned, nor, with keepAlone, those
// of a segment with no long trajectory among pts (Options.SupportAlone).
//
// Why: the points of a moving segment that sit on short trajectories are
// the segment's least reliable labels. A tracker (Sundaram et al. ECCV
// 2010) ends a trajectory at occlusions and where the flow fails its
// forward–backward check, so things that move with an object but are not
// rigid (spray, water reflections, a wake) carry many short trajectories
// and few long ones; the multicut puts them into the object's segment
// when their motion agrees over the few frames they exist; on the DAVIS
// 2016 development sequences the foreground labels of trajectories of 2–3
// points are far less often on the object than those of long
// trajectories (kite-surf, blackswan most of all). A length threshold
// alone would also remove the short trajectories of objects that move fast
// everywhere (libby's are all shorter than 16 points); requiring a long
// trajectory of the same segment nearby keeps those where the object is.
func unsupportedPoints[P any](pts []P, at func(P) (x, y, seg int, long bool), r float64, keepAlone bool) map[int]bool {
	out := map[int]bool{}
	if !(r > 0) {
		return out
	}
	var xy [][2]int
	var segOf []int
	present := map[int]bool{}
	for _, p := range pts {
		if x, y, seg, long := at(p); long && seg >= 0 {
			xy = append(xy, [2]int{x, y})
			segOf = append(segOf, seg)
			present[seg] = true
		}
	}
	b := newPointBuckets(xy, r)
	for i, p := range pts {
		x, y, seg, long := at(p)
		if long || seg < 0 || (keepAlone && !present[seg]) {
			continue
		}
		if !b.nearWhere(x, y, func(j int) bool { return segOf[j] == seg }) {
			out[i] = true
		}
	}
	return out
}

// addBorderPoints labels background (class 0) points every step pixels
// along the four borders at the given insets, where the pixel is unlabelled.
// It returns how many were added.
func addBorderPoints(labels []int16, W, H, step int, insets []int) int {
	if step <= 0 {
		return 0
	}
	n := 0
	set := func(x, y int) {
		if x >= 0 && y >= 0 && x < W && y < H && labels[y*W+x] == Unlabelled {
			labels[y*W+x] = 0
			n++
		}
	}
	for _, d := range insets {
		for x := 0; x < W; x += step {
			set(x, d)
			set(x, H-1-d)
		}
		for y := 0; y < H; y += step {
			set(d, y)
			set(W-1-d, y)
		}
	}
	return n
}

// addFarBackground labels background (class 0) the unlabelled pixels of the
// grid {(x, y): x, y ≡ ⌊step/2⌋ mod step} whose Euclidean distance to every
// foreground-labelled pixel (class ≥ 1) exceeds r, and returns how many it
// added. A frame without foreground points gets none: the segmentation has
// no object there to be far from, and labelling the whole frame background
// would contradict the frames where the object was found.
//
// These are labels in textureless regions far from any moving trajectory:
// a trajectory tracker (Sundaram et al. ECCV 2010) starts trajectories only
// where the structure tensor is strong, so sky, water and plain walls carry
// no trajectory; far from every foreground point such a
// region is background unless an object is textureless over more than r.
// Distances use a bucket grid of cell size r: a foreground point within r
// lies in one of the 3×3 cells around the pixel's cell.
func addFarBackground(labels []int16, W, H, step int, r float64, avoid [][2]int, gap float64) int {
	if step <= 0 || !(r > 0) {
		return 0
	}
	var fg [][2]int
	for i, l := range labels {
		if l >= 1 {
			fg = append(fg, [2]int{i % W, i / W})
		}
	}
	if len(fg) == 0 {
		return 0
	}
	nearFG := newPointBuckets(fg, r)
	nearAvoid := newPointBuckets(avoid, gap)
	n := 0
	for y := step / 2; y < H; y += step {
		for x := step / 2; x < W; x += step {
			if labels[y*W+x] != Unlabelled || nearFG.near(x, y) || nearAvoid.near(x, y) {
				continue
			}
			labels[y*W+x] = 0
			n++
		}
	}
	return n
}

// pointBuckets answers "is some point within r of (x, y)?" with a bucket
// grid of cell size r: such a point lies in one of the 3×3 cells around
// the query's cell. With r ≤ 0 or no points it answers no.
type pointBuckets struct {
	pts  [][2]int
	r2   float64
	cell int
	grid map[[2]int][]int // cell → indices into pts
}

func newPointBuckets(pts [][2]int, r float64) *pointBuckets {
	b := &pointBuckets{pts: pts, r2: r * r}
	if !(r > 0) || len(pts) == 0 {
		return b
	}
	b.cell = max(1, int(math.Ceil(r)))
	b.grid = map[[2]int][]int{}
	for i, p := range pts {
		k := [2]int{p[0] / b.cell, p[1] / b.cell}
		b.grid[k] = append(b.grid[k], i)
	}
	return b
}

func (b *pointBuckets) near(x, y int) bool { return b.nearWhere(x, y, nil) }

// nearWhere reports whether some point j with ok(j) (nil: any) lies within
// r of (x, y).
func (b *pointBuckets) nearWhere(x, y int, ok func(j int) bool) bool {
	if b.grid == nil {
		return false
	}
	cx, cy := x/b.cell, y/b.cell
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			for _, j := range b.grid[[2]int{cx + dx, cy + dy}] {
				q := b.pts[j]
				ddx, ddy := float64(q[0]-x), float64(q[1]-y)
				if ddx*ddx+ddy*ddy <= b.r2 && (ok == nil || ok(j)) {
					return true
				}
			}
		}
	}
	return false
}
