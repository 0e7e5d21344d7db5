package trainset

import (
	"math"
	"slices"

	"github.com/densify/densify/trajectory"
)

// primaryObject returns the clusters of the primary moving object among
// the foreground candidates (the clusters that are neither background nor
// smaller than MinSegment), decided without ground truth:
//
//  1. the primary cluster is the candidate with most trajectory points (its
//     size × its persistence; ties: the smaller id);
//  2. per frame, the group's box is the bounding box of its points there,
//     grown on every side by PrimaryMargin × its diagonal;
//  3. a candidate joins the group when at least half of its points that lie
//     in frames where the group has a box fall inside that frame's box, or
//     when fewer than half of its points lie in such frames (it cannot be
//     told apart, so it is kept); steps 2–3 repeat until no candidate joins.
//
// Parts of one object that the multicut split (limbs, rider and bike, a
// second animal beside the first) join; a second moving thing elsewhere in
// the frame (a video screen, spectators standing apart) does not. Single-
// object benchmarks (DAVIS 2016) annotate only the primary object;
// multi-object ones (FBMS59) annotate every moving object, so the option is
// off by default. It also returns the group's boxes (step 2) of the final
// group, for primaryBackground; nil when there is no candidate.
func (p *preparation) primaryObject() (map[int]bool, map[int][4]float64) {
	var cands []int
	for _, id := range p.ids {
		if !p.isBG[id] && !(p.opt.MinSegment > 0 && p.size[id] < p.opt.MinSegment) {
			cands = append(cands, id)
		}
	}
	pts := map[int][][3]float64{} // cluster → (x, y, frame) of its points
	for _, t := range p.ts.Tracks {
		if !slices.Contains(cands, t.Label) {
			continue
		}
		for _, q := range t.Points {
			pts[t.Label] = append(pts[t.Label], [3]float64{q.X, q.Y, float64(q.Frame)})
		}
	}
	group := map[int]bool{}
	if len(cands) == 0 {
		return group, nil
	}
	primary := cands[0]
	for _, id := range cands[1:] {
		if len(pts[id]) > len(pts[primary]) {
			primary = id
		}
	}
	group[primary] = true
	boxes := groupBoxes(group, pts, p.opt.PrimaryMargin)
	for changed := true; changed; {
		changed = false
		for _, id := range cands {
			if group[id] {
				continue
			}
			seen, inside := 0, 0
			for _, q := range pts[id] {
				b, ok := boxes[int(q[2])]
				if !ok {
					continue
				}
				seen++
				if q[0] >= b[0] && q[0] <= b[2] && q[1] >= b[1] && q[1] <= b[3] {
					inside++
				}
			}
			if 2*seen < len(pts[id]) || 2*inside >= seen {
				group[id] = true
				changed = true
			}
		}
		if changed {
			boxes = groupBoxes(group, pts, p.opt.PrimaryMargin)
		}
	}
	return group, boxes
}

// primaryBackground reports whether the points of trajectory i beyond the
// primary object are background points: with PrimaryObject, those of the
// segments dropped as not part of the object (a video screen, spectators
// standing apart: they move on their own, but a single-object benchmark
// counts them as background). Beyond means outside the object's grown box
// in a frame where the object has one (beyondPrimary); points within the
// box, or in frames without one, stay unlabelled. The unexplained
// background trajectories (unexplainedBackground) are left alone: beyond
// the box they are also parts of the object that its segment misses (the
// legs of a walker whose segment is her head and arm; docs/results.md).
func (p *preparation) primaryBackground(i int) bool {
	return p.primaryBoxes != nil && p.set.Segments[p.segIdx[p.ts.Tracks[i].Label]].Dropped == notPrimary
}

// notPrimary is Segment.Dropped of a segment that is not part of the
// primary object.
const notPrimary = "not part of the primary object"

// beyondPrimary reports whether q lies outside the primary object's grown
// box of its frame (false in a frame without one).
func (p *preparation) beyondPrimary(q trajectory.Point) bool {
	b, ok := p.primaryBoxes[q.Frame]
	return ok && (q.X < b[0] || q.X > b[2] || q.Y < b[1] || q.Y > b[3])
}

// groupBoxes is, per frame, the bounding box (x0, y0, x1, y1) of the
// group's points grown on every side by margin × its diagonal.
func groupBoxes(group map[int]bool, pts map[int][][3]float64, margin float64) map[int][4]float64 {
	boxes := map[int][4]float64{}
	for id := range group {
		for _, q := range pts[id] {
			f := int(q[2])
			b, ok := boxes[f]
			if !ok {
				b = [4]float64{q[0], q[1], q[0], q[1]}
			}
			boxes[f] = [4]float64{math.Min(b[0], q[0]), math.Min(b[1], q[1]), math.Max(b[2], q[0]), math.Max(b[3], q[1])}
		}
	}
	for f, b := range boxes {
		m := margin * math.Hypot(b[2]-b[0], b[3]-b[1])
		boxes[f] = [4]float64{b[0] - m, b[1] - m, b[2] + m, b[3] + m}
	}
	return boxes
}
