package uncertainty

import (
	"fmt"
	"math"
	"sort"

	"github.com/densify/densify/eval"
)

// Ordering is one way of ranking trajectories for removal: Scores[s][v] is
// the uncertainty of node v in run s (several runs, e.g. of different
// random seeds, are averaged point-wise; the proposed and likelihood
// orderings have one run).
type Ordering struct {
	Name   string
	Scores [][]float64
}

// Oracle is the name of the ordering that knows the ground truth.
const Oracle = "oracle"

// OracleOrdering ranks the nodes by their term of VI(pred, gt)
// (eval.PointwiseVI; nodes with gt < 0 take no part): the sparsification
// curve of an ordering that sorts by the true error (Ilg et al. ECCV 2018,
// Sec. 5), against which the uncertainty orderings are read. Unlike those
// it depends on the ground truth, so it is built per ground truth (per
// annotator).
func OracleOrdering(pred, gt []int) Ordering {
	return Ordering{Name: Oracle, Scores: [][]float64{eval.PointwiseVI(pred, gt)}}
}

// Curve is a sparsification curve: VI (nats) and RI between the predicted
// and the ground-truth labels of the trajectories left after removing the
// fraction Removed[i] of them, most uncertain first.
type Curve struct {
	Name    string    `json:"name"`
	Removed []float64 `json:"removed"`
	VI      []float64 `json:"vi"`
	RI      []float64 `json:"ri"`
	AUCVI   float64   `json:"auc_vi"` // ∫ VI d(removed), trapezoid rule
	AUCRI   float64   `json:"auc_ri"`
}

// Fractions returns 0, step, 2·step, … up to max (inclusive, within 1e-9).
func Fractions(step, max float64) ([]float64, error) {
	if !(step >= MinStep && step <= 1) || !(max >= 0 && max < 1) {
		return nil, fmt.Errorf("sparsify: step %v must be in [%g,1] and max %v in [0,1)", step, MinStep, max)
	}
	var fs []float64
	for i := 0; ; i++ {
		f := float64(i) * step
		if f > max+1e-9 {
			break
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// Sparsify computes one curve per ordering. Only nodes with gt[v] ≥ 0 take
// part; with n of them, step i removes the m = round(f_i·n) highest-scoring
// nodes. Ordering ties are broken by node id (the smaller id is removed
// first), so the result is deterministic. AUC is the trapezoid integral over
// the removed fraction.
func Sparsify(pred, gt []int, orderings []Ordering, fractions []float64) ([]Curve, error) {
	if len(pred) != len(gt) {
		return nil, fmt.Errorf("sparsify: %d predicted labels but %d ground-truth labels", len(pred), len(gt))
	}
	var nodes []int
	for v, l := range gt {
		if l >= 0 {
			nodes = append(nodes, v)
		}
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("sparsify: no trajectory lies in a labelled frame")
	}
	n := len(nodes)
	a, b := make([]int, 0, n), make([]int, 0, n)
	var curves []Curve
	for _, o := range orderings {
		if len(o.Scores) == 0 {
			return nil, fmt.Errorf("sparsify: ordering %q has no scores", o.Name)
		}
		c := Curve{Name: o.Name, Removed: fractions, VI: make([]float64, len(fractions)), RI: make([]float64, len(fractions))}
		order := make([]int, n)
		for _, sc := range o.Scores {
			if len(sc) != len(pred) {
				return nil, fmt.Errorf("sparsify: ordering %q has %d scores for %d nodes", o.Name, len(sc), len(pred))
			}
			copy(order, nodes)
			sort.SliceStable(order, func(i, j int) bool { return sc[order[i]] > sc[order[j]] })
			for i, f := range fractions {
				m := int(math.Round(f * float64(n)))
				a, b = a[:0], b[:0]
				for _, v := range order[m:] {
					a = append(a, pred[v])
					b = append(b, gt[v])
				}
				c.VI[i] += eval.VariationOfInformation(a, b)
				c.RI[i] += eval.RandIndex(a, b)
			}
		}
		for i := range fractions {
			c.VI[i] /= float64(len(o.Scores))
			c.RI[i] /= float64(len(o.Scores))
		}
		c.AUCVI, c.AUCRI = trapezoid(fractions, c.VI), trapezoid(fractions, c.RI)
		curves = append(curves, c)
	}
	return curves, nil
}

func trapezoid(x, y []float64) float64 {
	s := 0.0
	for i := 1; i < len(x); i++ {
		s += (x[i] - x[i-1]) * (y[i] + y[i-1]) / 2
	}
	return s
}

// AverageCurves averages curves point-wise over sequences (dataset mode):
// sets[s] holds the curves of sequence s, all with the same orderings in the
// same order and the same fractions.
func AverageCurves(sets [][]Curve) ([]Curve, error) {
	if len(sets) == 0 {
		return nil, fmt.Errorf("sparsify: no curves to average")
	}
	out := make([]Curve, len(sets[0]))
	for k, c := range sets[0] {
		out[k] = Curve{Name: c.Name, Removed: c.Removed, VI: make([]float64, len(c.Removed)), RI: make([]float64, len(c.Removed))}
	}
	for s, set := range sets {
		if len(set) != len(out) {
			return nil, fmt.Errorf("sparsify: sequence %d has %d curves, want %d", s, len(set), len(out))
		}
		for k, c := range set {
			if c.Name != out[k].Name || len(c.Removed) != len(out[k].Removed) {
				return nil, fmt.Errorf("sparsify: sequence %d: curve %q does not match %q", s, c.Name, out[k].Name)
			}
			for i := range c.Removed {
				out[k].VI[i] += c.VI[i] / float64(len(sets))
				out[k].RI[i] += c.RI[i] / float64(len(sets))
			}
		}
	}
	for k := range out {
		out[k].AUCVI, out[k].AUCRI = trapezoid(out[k].Removed, out[k].VI), trapezoid(out[k].Removed, out[k].RI)
	}
	return out, nil
}
