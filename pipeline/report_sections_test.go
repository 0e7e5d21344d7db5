package pipeline

import (
	"reflect"
	"strings"
	"testing"

	"github.com/densify/densify/uncertainty"
)

func TestReportCells(t *testing.T) {
	sc := &Scores{Precision: 0.9, Recall: 0.8, F: 0.847, IoU: 0.3, JMean: 0.125}
	for _, c := range []struct{ got, want string }{
		{sparseCells(sc), " 90.00 | 80.00 | 84.70 |"},
		{sparseCells(nil), " – | – | – |"},
		{denseCells(sc), " 90.00 | 80.00 | 84.70 | 12.50 |"},
		{denseCells(nil), " – | – | – | – |"},
	} {
		if c.got != c.want {
			t.Errorf("cells %q, want %q", c.got, c.want)
		}
	}
	away := 0.7
	m := &Mean{Count: 2, Precision: 0.5, Recall: 0.4, F: 0.44, IoU: 0.2, JMean: 0.3, JAwayFromThin: &away}
	if got, want := meanScores(m), (&Scores{Precision: 0.5, Recall: 0.4, F: 0.44, IoU: 0.2, JMean: 0.3}); !reflect.DeepEqual(got, want) {
		t.Errorf("mean scores %+v, want %+v", got, want)
	}
	if meanScores(nil) != nil {
		t.Error("scores of no mean")
	}
}

func TestReportSequenceSections(t *testing.T) {
	var b strings.Builder
	u := &UncertaintyInfo{Summary: uncertainty.Summary{Nodes: 50, Boundary: 7, Improving: 2, MeanU: 0.03125}}
	writeUncertainty(&b, u)
	if want := "Uncertainty: mean u 0.0312, 7 of 50 trajectories can move, 2 with u > 0.5.\n"; b.String() != want {
		t.Errorf("uncertainty %q, want %q", b.String(), want)
	}
	b.Reset()
	u.AUCVI = map[string]float64{"proposed": 0.25, "random": 0.5}
	writeUncertainty(&b, u)
	if want := "Area under the VI sparsification curve: proposed 0.2500, likelihood 0.0000, random 0.5000.\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("uncertainty %q, want the suffix %q", b.String(), want)
	}

	b.Reset()
	writeStages(&b, nil)
	if b.Len() != 0 {
		t.Errorf("stage table without stages: %q", b.String())
	}
	writeStages(&b, []StageStatus{{Stage: "track", Seconds: 1.25}, {Stage: "segment", Skipped: true, Seconds: 3}})
	if want := "| stage | seconds | |\n|---|---:|---|\n| track | 1.2 | ran |\n| segment | 3.0 | skipped (up to date) |\n"; b.String() != want {
		t.Errorf("stages %q, want %q", b.String(), want)
	}

	// Links: the sparsification curves only with their areas, the first heat
	// map, the training set, the sparse eval; per variant the masks, the
	// preview and the dense eval where present, in the variants' order.
	s := &SequenceResult{Name: "cows", Uncertainty: &UncertaintyInfo{Heatmaps: []string{"uncertainty/heatmaps/h1.png", "h2.png"}},
		Sparse: &Scores{}, Dense: map[Variant]*DenseResult{
			VariantUniform:  {Masks: "masks-uniform", Preview: "p.png", Scores: &Scores{}},
			VariantWeighted: {Masks: "masks-weighted"},
		}}
	want := []string{"[uncertainty heat map](cows/uncertainty/heatmaps/h1.png)", "[all heat maps](cows/uncertainty/heatmaps)",
		"[sparse eval](cows/eval/sparse.json)", "[masks (weighted)](cows/masks-weighted)",
		"[masks (uniform)](cows/masks-uniform)", "[overlay preview (uniform)](cows/p.png)", "[dense eval (uniform)](cows/eval/dense-uniform.json)"}
	if got := sequenceLinks(s, []Variant{VariantWeighted, VariantUniform, VariantOracle}); !reflect.DeepEqual(got, want) {
		t.Errorf("links\n%q\nwant\n%q", got, want)
	}
}

// The report says which foreground the labels were trained on, read from the
// options as plan.json stores them.
func TestReportStatesTheForegroundMode(t *testing.T) {
	for _, c := range []struct {
		auto, primary bool
		want          string
	}{
		{false, false, "every independently moving segment"},
		{false, true, "the primary moving object only** (`--primary-object`, margin 0.25"},
		{true, false, "on DAVIS 2016 sequences, which annotate one object, **the primary moving object only** (margin 0.25"},
	} {
		o := DefaultOptions()
		o.PrimaryObjectAuto, o.Prepare.PrimaryObject = c.auto, c.primary
		if md := planReport(t, o); !strings.Contains(md, c.want) {
			t.Errorf("auto %v, primary object %v: report lacks %q:\n%s", c.auto, c.primary, c.want, md)
		}
	}
	if got := foregroundMode(map[string]any{}); got != "" {
		t.Errorf("options without prepare: %q", got)
	}
}

// The report says what the first training starts from and how many rounds
// follow, read from the options as plan.json stores them.
func TestReportStatesTheStartingPoint(t *testing.T) {
	for _, c := range []struct {
		init   string
		rounds int
		want   string
	}{
		{"", 1, "starts from a random initialisation (`--init none`), then 1 self-training round(s)"},
		{"/w/starting-weights/unet-cpu-davis.ckpt", 0, "starts from the weights in `/w/starting-weights/unet-cpu-davis.ckpt` (`--init`), no self-training round"},
	} {
		o := DefaultOptions()
		o.Train.Init, o.Train.Rounds = c.init, c.rounds
		if md := planReport(t, o); !strings.Contains(md, c.want) {
			t.Errorf("init %q, rounds %d: report lacks %q:\n%s", c.init, c.rounds, c.want, md)
		}
	}
	if got := startingPoint(map[string]any{}); got != "" {
		t.Errorf("options without train: %q", got)
	}
}

// planReport is the Markdown report of an empty run with options o, built
// from the options as plan.json stores them.
func planReport(t *testing.T, o Options) string {
	t.Helper()
	p, err := newPlan("run", "root", nil, []Variant{VariantUniform}, o)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := (&Report{Options: p.Options}).Markdown(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
