package pipeline

import (
	"testing"
)

// The training stamp keeps what changes the model: the densifier, the
// training variant, a weighted variant's factor and φ, and the training
// options without the predict-only ones.
func TestModelParams(t *testing.T) {
	topt := TrainOptions{Preset: "unet-cpu", Epochs: 3, Seed: 7, Overlays: true, ProbMaps: true, PriorShift: true,
		Refine: "graphcut", Temporal: 2, Mirror: true}
	tp := modelParams("unet", WeightedWith(50, 0.25), topt)
	if tp.Densifier != "unet" || tp.Variant != "hard" || tp.Factor != 50 || tp.Phi == nil || *tp.Phi != 0.25 {
		t.Errorf("weighted-f50-phi0.25: %+v", tp)
	}
	o := tp.Options
	if o.Overlays || o.ProbMaps || o.PriorShift || o.Refine != "" || o.Temporal != 0 || o.Mirror {
		t.Errorf("predict-only options in the training stamp: %+v", o)
	}
	if o.Preset != "unet-cpu" || o.Epochs != 3 || o.Seed != 7 {
		t.Errorf("training options lost: %+v", o)
	}
	if !topt.Overlays || topt.Refine != "graphcut" {
		t.Error("the caller's options changed")
	}
	tp = modelParams("unet", VariantUniform, topt)
	if tp.Variant != "uniform" || tp.Factor != 0 || tp.Phi != nil {
		t.Errorf("uniform: %+v", tp)
	}
	if tp = modelParams("unet", VariantConfidence, topt); tp.Variant != "confidence" || tp.Phi != nil {
		t.Errorf("confidence: %+v", tp)
	}
}

// The first seed's result is the sequence's Dense entry, the further ones
// its Repeats, in seed order.
func TestAddDenseResult(t *testing.T) {
	p := &seqRun{res: &SequenceResult{Dense: map[Variant]*DenseResult{}}}
	d0 := p.addDenseResult(VariantUniform, 0, "uniform", 1)
	d1 := p.addDenseResult(VariantUniform, 1, "uniform-seed2", 2)
	d2 := p.addDenseResult(VariantUniform, 2, "uniform-seed3", 3)
	if p.res.Dense[VariantUniform] != d0 || d0.Masks != "masks-uniform" || d0.Seed != 1 {
		t.Errorf("first seed %+v", d0)
	}
	if r := p.res.Repeats[VariantUniform]; len(r) != 2 || r[0] != d1 || r[1] != d2 || d2.Masks != "masks-uniform-seed3" || d2.Seed != 3 {
		t.Errorf("repeats %+v", r)
	}
}
