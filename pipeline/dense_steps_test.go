package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/densify/densify/refine"
	"github.com/densify/densify/trainset"
)

// The training stamp keeps what changes the model: the densifier, the
// training variant, a weighted variant's factor and φ, and the training
// options without the predict-only ones.
func TestModelParams(t *testing.T) {
	topt := TrainOptions{Preset: "unet-cpu", Epochs: 3, Seed: 7, Overlays: true, ProbMaps: true, PriorShift: true,
		Refine: "graphcut", Cut: &refine.CutOptions{Smooth: 3}, Temporal: 2, Mirror: true}
	tp := modelParams("unet", WeightedWith(50, 0.25), topt)
	if tp.Densifier != "unet" || tp.Variant != "hard" || tp.Factor != 50 || tp.Phi == nil || *tp.Phi != 0.25 {
		t.Errorf("weighted-f50-phi0.25: %+v", tp)
	}
	o := tp.Options
	if o.Overlays || o.ProbMaps || o.PriorShift || o.Refine != "" || o.Cut != nil || o.Temporal != 0 || o.Mirror {
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

// The prediction stamp spells out the graph cut that refines the masks:
// the defaults when none is given, the given settings otherwise, and no
// cut for a refinement that reads none. A round that another follows
// writes probability maps, unless its labels are the masks alone (τ = 0);
// the self-training settings are not stamped.
func TestPredictOptionsStampTheCut(t *testing.T) {
	def := refine.DefaultCutOptions()
	o := predictOptions(TrainOptions{Refine: "graphcut", Rounds: 1, PseudoWeight: 2}, 0)
	if o.Cut == nil || *o.Cut != def || !o.ProbMaps || o.Rounds != 0 || o.PseudoWeight != 0 {
		t.Errorf("default cut, round 0 of 1: %+v", o)
	}
	b, err := json.Marshal(o)
	if err != nil || !strings.Contains(string(b), `"cut":{"net":0.5,"colour":1,"smooth":20,`) {
		t.Errorf("stamp %s (%v)", b, err)
	}
	masksAlone := trainset.DefaultPseudoOptions()
	masksAlone.Confidence = 0
	if o := predictOptions(TrainOptions{Refine: "graphcut", Rounds: 1, Pseudo: &masksAlone}, 0); o.ProbMaps {
		t.Errorf("round 0 of 1 with τ = 0, whose round reads no maps, writes them: %+v", o)
	}
	given := def
	given.Smooth, given.Scale = 10, 0.5
	topt := TrainOptions{Refine: "graphcut", Cut: &given, Rounds: 1}
	if o := predictOptions(topt, 1); o.Cut == nil || *o.Cut != given || o.ProbMaps {
		t.Errorf("given cut, last round: %+v", o)
	}
	for _, m := range []string{"none", "grabcut", ""} {
		topt.Refine = m
		if o := predictOptions(topt, 0); o.Cut != nil {
			t.Errorf("refinement %q stamps the cut %+v", m, o.Cut)
		}
	}
	if topt.Cut != &given || given.Smooth != 10 {
		t.Error("the caller's options changed")
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
