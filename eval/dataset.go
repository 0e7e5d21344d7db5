package eval

import "math"

// SequenceResult is one row of a dataset evaluation.
type SequenceResult struct {
	Name string `json:"name"`
	*Result
}

// Summary aggregates sequences as MoSegEvalAllPR does: P and R are the means
// of the per-sequence P̄ and R̄, F = 2PR/(P+R) is computed from those means
// (not the mean of the per-sequence F), Objects and Visible are sums
// ("Objects of Visible visible objects"), AvgRegionDensity is the mean of the
// per-sequence average region densities (percent). The standard deviations
// are population deviations, sqrt(E[x²] − E[x]²) (clamped at 0 against
// rounding). Density (percent), IoU, JMean, JMeanBenchmark, JRecall and JDecay are plain
// means over the sequences, as the DAVIS benchmark averages them;
// MoSegEvalAllPR does not report them.
type Summary struct {
	Sequences        []SequenceResult `json:"sequences"`
	Count            int              `json:"count"`
	Precision        float64          `json:"precision"`
	Recall           float64          `json:"recall"`
	F                float64          `json:"f"`
	PrecisionStd     float64          `json:"precision_std"`
	RecallStd        float64          `json:"recall_std"`
	Objects          int              `json:"objects"`
	Visible          int              `json:"visible"`
	Density          float64          `json:"density"`
	AvgRegionDensity float64          `json:"avg_region_density"`
	IoU              float64          `json:"iou"`
	JMean            float64          `json:"j_mean"`
	JMeanBenchmark   float64          `json:"j_mean_benchmark"`
	JRecall          float64          `json:"j_recall"`
	JDecay           float64          `json:"j_decay"`
}

// Dataset aggregates per-sequence results (names[i] belongs to results[i]).
// Nil results (sequences that could not be evaluated, as MoSegEvalAllPR
// skips shots that are too short) are left out of the means and the list.
func Dataset(names []string, results []*Result) *Summary {
	s := &Summary{Sequences: []SequenceResult{}}
	var sp, sr, sp2, sr2 float64
	for i, r := range results {
		if r == nil {
			continue
		}
		name := ""
		if i < len(names) {
			name = names[i]
		}
		s.Sequences = append(s.Sequences, SequenceResult{Name: name, Result: r})
		s.Count++
		sp += r.Precision
		sr += r.Recall
		sp2 += r.Precision * r.Precision
		sr2 += r.Recall * r.Recall
		s.Objects += r.Objects
		s.Visible += r.Visible
		s.Density += r.Density
		s.AvgRegionDensity += r.AvgRegionDensity
		s.IoU += r.IoU
		s.JMean += r.JMean
		s.JMeanBenchmark += r.JMeanBenchmark
		s.JRecall += r.JRecall
		s.JDecay += r.JDecay
	}
	if s.Count == 0 {
		return s
	}
	inv := 1 / float64(s.Count)
	s.Precision = sp * inv
	s.Recall = sr * inv
	s.PrecisionStd = math.Sqrt(max(0, sp2*inv-s.Precision*s.Precision))
	s.RecallStd = math.Sqrt(max(0, sr2*inv-s.Recall*s.Recall))
	if s.Precision+s.Recall > 0 {
		s.F = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	s.Density *= inv
	s.AvgRegionDensity *= inv
	s.IoU *= inv
	s.JMean *= inv
	s.JMeanBenchmark *= inv
	s.JRecall *= inv
	s.JDecay *= inv
	return s
}
