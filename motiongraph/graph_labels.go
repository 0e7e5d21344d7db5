package motiongraph

// LabelPairs turns the pairs of a PairSet into training samples: a pair is
// "cut" when its trajectories have different ground-truth regions; pairs with
// an unlabelled end (region −1) are skipped. Lifted pairs are included only
// when withLifted is true.
func LabelPairs(ps *PairSet, regions []int, seq string, withLifted bool) []PairSample {
	var out []PairSample
	for i := range ps.Len() {
		if ps.Lifted[i] && !withLifted {
			continue
		}
		ru, rv := regions[ps.U[i]], regions[ps.V[i]]
		if ru < 0 || rv < 0 {
			continue
		}
		f := append([]float64(nil), ps.Features(i)...)
		out = append(out, PairSample{Features: f, Cut: ru != rv, Lifted: ps.Lifted[i], Seq: seq})
	}
	return out
}
