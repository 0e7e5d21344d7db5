package boundary

import (
	"math"

	"github.com/densify/densify/bsds"
)

// Thin keeps the pixels of p that are local maxima across the boundary:
// p(x) ≥ both neighbours along the direction of the gradient of p
// (quantised to 0°, 45°, 90°, 135°), as in Canny's non-maximum suppression.
// Other pixels get 0.
func Thin(p []float32, w, h int) []float32 {
	out := make([]float32, len(p))
	at := func(x, y int) float32 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return 0
		}
		return p[y*w+x]
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			gx := at(x+1, y) - at(x-1, y)
			gy := at(x, y+1) - at(x, y-1)
			a := math.Atan2(float64(gy), float64(gx))
			if a < 0 {
				a += math.Pi
			}
			var dx, dy int
			switch k := int(math.Round(a/(math.Pi/4))) % 4; k {
			case 0:
				dx, dy = 1, 0
			case 1:
				dx, dy = 1, 1
			case 2:
				dx, dy = 0, 1
			default:
				dx, dy = -1, 1
			}
			v := p[y*w+x]
			if v >= at(x+dx, y+dy) && v >= at(x-dx, y-dy) {
				out[y*w+x] = v
			}
		}
	}
	return out
}

// near marks every pixel within Euclidean distance tol of a set pixel.
func near(in []bool, w, h int, tol float64) []bool {
	r := int(tol)
	var offs [][2]int
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			if float64(dx*dx+dy*dy) <= tol*tol {
				offs = append(offs, [2]int{dx, dy})
			}
		}
	}
	out := make([]bool, len(in))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if !in[y*w+x] {
				continue
			}
			for _, o := range offs {
				xx, yy := x+o[0], y+o[1]
				if xx >= 0 && yy >= 0 && xx < w && yy < h {
					out[yy*w+xx] = true
				}
			}
		}
	}
	return out
}

// Counts are the boundary-matching counts of one image at each threshold:
// a predicted pixel (thinned map ≥ t) is correct when some annotator's
// boundary lies within the tolerance; an annotator's boundary pixel is
// recalled when a predicted pixel lies within the tolerance. Recall counts
// are summed over annotators (so the recall is the annotator-pooled
// fraction). This is a tolerance-disc approximation of the BSDS benchmark's
// one-to-one matching (which additionally forbids one predicted pixel from
// explaining several boundary pixels), so it is slightly optimistic.
type Counts struct {
	Thresholds         []float64
	PredOK, Pred       []int
	RecallOK, RecallGT []int
}

// Match counts matches of the probability map p against the annotators at
// the given thresholds with tolerance tol pixels.
func Match(p []float32, w, h int, anns []bsds.Annotation, thresholds []float64, tol float64) *Counts {
	thin := Thin(p, w, h)
	c := &Counts{Thresholds: thresholds, PredOK: make([]int, len(thresholds)), Pred: make([]int, len(thresholds)),
		RecallOK: make([]int, len(thresholds)), RecallGT: make([]int, len(thresholds))}
	anyGT := make([]bool, w*h)
	nearGT := make([][]bool, len(anns))
	for k, a := range anns {
		for i, b := range a.Boundary {
			if b {
				anyGT[i] = true
			}
		}
		nearGT[k] = a.Boundary
	}
	nearAny := near(anyGT, w, h, tol)
	pred := make([]bool, w*h)
	for ti, t := range thresholds {
		for i, v := range thin {
			pred[i] = v > 0 && float64(v) >= t
			if pred[i] {
				c.Pred[ti]++
				if nearAny[i] {
					c.PredOK[ti]++
				}
			}
		}
		nearPred := near(pred, w, h, tol)
		for _, g := range nearGT {
			for i, b := range g {
				if b {
					c.RecallGT[ti]++
					if nearPred[i] {
						c.RecallOK[ti]++
					}
				}
			}
		}
	}
	return c
}

// Add sums counts of another image (same thresholds).
func (c *Counts) Add(o *Counts) {
	for i := range c.Thresholds {
		c.PredOK[i] += o.PredOK[i]
		c.Pred[i] += o.Pred[i]
		c.RecallOK[i] += o.RecallOK[i]
		c.RecallGT[i] += o.RecallGT[i]
	}
}

// PRF is precision, recall and F = 2PR/(P+R) at one threshold.
type PRF struct {
	Threshold float64 `json:"threshold"`
	P         float64 `json:"precision"`
	R         float64 `json:"recall"`
	F         float64 `json:"f"`
}

// Best returns the per-threshold P/R/F from the pooled counts and the one
// with the largest F (the BSDS "ODS" operating point when the counts are
// summed over a split).
func (c *Counts) Best() (all []PRF, best PRF) {
	for i, t := range c.Thresholds {
		q := PRF{Threshold: t}
		if c.Pred[i] > 0 {
			q.P = float64(c.PredOK[i]) / float64(c.Pred[i])
		}
		if c.RecallGT[i] > 0 {
			q.R = float64(c.RecallOK[i]) / float64(c.RecallGT[i])
		}
		if q.P+q.R > 0 {
			q.F = 2 * q.P * q.R / (q.P + q.R)
		}
		all = append(all, q)
		if q.F > best.F {
			best = q
		}
	}
	return all, best
}
