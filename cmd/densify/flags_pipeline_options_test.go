package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/refine"
	"github.com/densify/densify/trainset"
	"github.com/spf13/pflag"
)

// --cost-model: a file or a named model gives one model; a folder gives
// one per sequence, by file name; a folder without models or with a broken
// one is an error that names it.
func TestLoadCostModels(t *testing.T) {
	davis, _ := motiongraph.NamedCostModel("davis")
	synthetic, _ := motiongraph.NamedCostModel("synthetic")
	dir := t.TempDir()
	for name, m := range map[string]*motiongraph.CostModel{"bear": davis, "cows": synthetic} {
		if err := motiongraph.WriteCostModel(filepath.Join(dir, name+".json"), m); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a model"), 0o644)

	one, per, err := loadCostModels(filepath.Join(dir, "bear.json"))
	if err != nil || per != nil || !reflect.DeepEqual(one, davis) {
		t.Errorf("a file: %v, %v, %v", one, per, err)
	}
	if one, per, err = loadCostModels("synthetic"); err != nil || per != nil || !reflect.DeepEqual(one, synthetic) {
		t.Errorf("a named model: %v, %v, %v", one, per, err)
	}
	one, per, err = loadCostModels(dir)
	if err != nil || one != nil || len(per) != 2 || !reflect.DeepEqual(per["bear"], davis) || !reflect.DeepEqual(per["cows"], synthetic) {
		t.Errorf("a folder: %v, %v, %v", one, per, err)
	}

	if _, _, err := loadCostModels(t.TempDir()); err == nil || !strings.Contains(err.Error(), "without <sequence>.json") {
		t.Errorf("an empty folder: err = %v", err)
	}
	bad := filepath.Join(dir, "dog.json")
	os.WriteFile(bad, []byte("{\n  \"features\": [\n  oops\n"), 0o644)
	if _, _, err := loadCostModels(dir); err == nil || !strings.Contains(err.Error(), bad+":3") {
		t.Errorf("a broken model: err = %v, want it to name %s:3", err, bad)
	}
}

// --primary-object of the dataset commands: auto by default, a bare flag
// is true, =false and =auto as written, anything else an error; prepare's
// stays a plain boolean, off by default.
func TestPrimaryObjectFlag(t *testing.T) {
	for _, c := range []struct {
		args     []string
		auto, on bool
		err      bool
	}{
		{nil, true, false, false},
		{[]string{"--primary-object"}, false, true, false},
		{[]string{"--primary-object=false"}, false, false, false},
		{[]string{"--primary-object=true", "--primary-object=auto"}, true, false, false},
		{[]string{"--primary-object=maybe"}, true, false, true},
	} {
		var p pipelineFlags
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		p.bindUpstream(fs)
		err := fs.Parse(c.args)
		if (err != nil) != c.err || (err == nil && (p.opt.PrimaryObjectAuto != c.auto || p.opt.Prepare.PrimaryObject != c.on)) {
			t.Errorf("%v: auto %v, on %v, err %v; want %v, %v, error %v", c.args, p.opt.PrimaryObjectAuto, p.opt.Prepare.PrimaryObject, err, c.auto, c.on, c.err)
		}
	}
	var o prepareOptions
	fs := pflag.NewFlagSet("prepare", pflag.ContinueOnError)
	o.Prepare = trainset.DefaultOptions()
	bindPrepareFlags(fs, &o.Prepare, nil)
	if err := fs.Parse(nil); err != nil || o.Prepare.PrimaryObject || fs.Lookup("primary-object").Value.Type() != "bool" {
		t.Errorf("prepare: on %v, type %s, err %v", o.Prepare.PrimaryObject, fs.Lookup("primary-object").Value.Type(), err)
	}
}

// parseTrainFlags parses args as run's flags (with --out) and returns the
// pipeline's training options.
func parseTrainFlags(t *testing.T, args ...string) pipeline.TrainOptions {
	t.Helper()
	var p pipelineFlags
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	p.bind(fs)
	if err := fs.Parse(append([]string{"--out", t.TempDir()}, args...)); err != nil {
		t.Fatal(err)
	}
	f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, Getenv: func(string) string { return "" }}
	o, err := p.options(f, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return o.Train
}

// --rounds (none by default from the starting weights, one from a random
// initialisation) and the self-training flags reach the pipeline's
// training options; without rounds no pseudo-label options are set; a
// confidence of 0 (the mask alone) and --pseudo-keep-cut are taken, a
// confidence other than 0 outside (0.5, 1) refused before any work.
func TestSelfTrainingFlags(t *testing.T) {
	parse := func(args ...string) pipeline.TrainOptions { return parseTrainFlags(t, args...) }
	if tr := parse(); tr.Rounds != 0 || tr.Pseudo != nil {
		t.Errorf("defaults: %d rounds, pseudo options %+v; want none from the starting weights", tr.Rounds, tr.Pseudo)
	}
	if tr := parse("--init", "none"); tr.Rounds != 1 || tr.Pseudo == nil || *tr.Pseudo != trainset.DefaultPseudoOptions() || tr.PseudoWeight != 1 {
		t.Errorf("--init none: %d rounds, pseudo options %+v, λ %v; want one round, τ 0.9, band 5, λ 1", tr.Rounds, tr.Pseudo, tr.PseudoWeight)
	}
	if tr := parse("--rounds", "1"); tr.Rounds != 1 || tr.Pseudo == nil {
		t.Errorf("--rounds 1 from the starting weights: %d rounds, pseudo options %+v", tr.Rounds, tr.Pseudo)
	}
	if tr := parse("--init", "none", "--rounds", "0"); tr.Rounds != 0 || tr.Pseudo != nil {
		t.Errorf("--rounds 0: %d rounds, pseudo options %+v", tr.Rounds, tr.Pseudo)
	}
	tr := parse("--rounds", "2", "--pseudo-confidence", "0.8", "--pseudo-band", "3", "--pseudo-weight", "0.5")
	if tr.Rounds != 2 || tr.Pseudo == nil || *tr.Pseudo != (trainset.PseudoOptions{Confidence: 0.8, Band: 3}) || tr.PseudoWeight != 0.5 {
		t.Errorf("parsed: %d rounds, %+v, λ %v", tr.Rounds, tr.Pseudo, tr.PseudoWeight)
	}
	if tr := parse("--rounds", "1", "--pseudo-confidence", "0"); tr.Pseudo == nil || *tr.Pseudo != (trainset.PseudoOptions{Confidence: 0, Band: 5}) {
		t.Errorf("--pseudo-confidence 0 (the mask alone): %+v", tr.Pseudo)
	}
	if tr := parse("--rounds", "1", "--pseudo-keep-cut"); tr.Pseudo == nil || *tr.Pseudo != (trainset.PseudoOptions{Confidence: 0.9, Band: 5, KeepCut: true}) {
		t.Errorf("--pseudo-keep-cut: %+v", tr.Pseudo)
	}
	dir := t.TempDir()
	_, _, err := execute(t, &Factory{}, "run", dir, "--out", filepath.Join(dir, "w"), "--rounds", "1", "--pseudo-confidence", "0.5")
	if err == nil || !strings.Contains(err.Error(), "--pseudo-confidence") {
		t.Errorf("confidence 0.5: %v", err)
	}
}

// The graph cut's flags of run and ablate (those of predict and refine)
// reach the pipeline's training options; out of range they are refused
// before any work, naming the flag.
func TestCutFlagsReachThePipeline(t *testing.T) {
	if tr := parseTrainFlags(t); tr.Cut == nil || *tr.Cut != refine.DefaultCutOptions() {
		t.Errorf("defaults: cut %+v, want %+v", tr.Cut, refine.DefaultCutOptions())
	}
	want := refine.DefaultCutOptions()
	want.Smooth, want.Scale, want.Band, want.Iterations = 10, 0.5, 0.2, 3
	if tr := parseTrainFlags(t, "--smooth", "10", "--cut-scale", "0.5", "--band", "0.2", "--cuts", "3"); tr.Cut == nil || *tr.Cut != want {
		t.Errorf("parsed: cut %+v, want %+v", tr.Cut, want)
	}
	for _, cmd := range []string{"run", "ablate"} {
		dir := t.TempDir()
		_, _, err := execute(t, &Factory{}, cmd, dir, "--out", filepath.Join(dir, "w"), "--cut-scale", "0")
		if err == nil || !strings.Contains(err.Error(), "--cut-scale") {
			t.Errorf("%s --cut-scale 0: %v", cmd, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "w")); !os.IsNotExist(err) {
			t.Errorf("%s --cut-scale 0 made its work folder (%v)", cmd, err)
		}
	}
}
