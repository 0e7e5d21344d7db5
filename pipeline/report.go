package pipeline

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/morph"
	"github.com/densify/densify/trainset"
)

// SequenceResult is one sequence's row of the report.
type SequenceResult struct {
	Name         string  `json:"name"`
	Split        string  `json:"split,omitempty"`
	FramesDir    string  `json:"frames_dir"`
	GT           string  `json:"ground_truth,omitempty"`
	Frames       int     `json:"frames"`
	TrackFrames  int     `json:"track_frames"`
	Trajectories int     `json:"trajectories"`
	Clusters     int     `json:"clusters"`
	Edges        int     `json:"edges"`
	LiftedEdges  int     `json:"lifted_edges"`
	Energy       float64 `json:"energy"`
	// Sparse is the FBMS score of the labelled trajectories (nil without
	// ground truth).
	Sparse      *Scores                  `json:"sparse,omitempty"`
	Uncertainty *UncertaintyInfo         `json:"uncertainty,omitempty"`
	Prepared    *PrepareInfo             `json:"prepared,omitempty"`
	Dense       map[Variant]*DenseResult `json:"dense,omitempty"`
	// Repeats are the models of the further seeds (Options.Seeds > 1), in
	// seed order; Dense holds the first seed's.
	Repeats map[Variant][]*DenseResult `json:"repeats,omitempty"`
	Stages  []StageStatus              `json:"stages"`
	Error   string                     `json:"error,omitempty"`
}

// Seconds is the summed time of the stages (as recorded when they ran).
func (r *SequenceResult) Seconds() float64 {
	t := 0.0
	for _, s := range r.Stages {
		t += s.Seconds
	}
	return t
}

// Mean holds means over the sequences with scores.
type Mean struct {
	Count     int     `json:"count"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F         float64 `json:"f"` // mean of the per-sequence F
	IoU       float64 `json:"iou"`
	JMean     float64 `json:"j_mean"` // mean of the per-sequence DAVIS J
	// JAwayFromThin is the mean of the per-sequence J away from the thin
	// parts of the annotation (Scores.JAwayFromThin), given only when every
	// sequence of the mean has it, so that it compares with JMean.
	JAwayFromThin *float64 `json:"j_mean_away_from_thin_parts,omitempty"`
	// JBenchmark is the mean of the per-sequence DAVIS 2016 benchmark J
	// (Scores.JBenchmark), likewise given only when every sequence has it.
	JBenchmark *float64 `json:"j_mean_benchmark,omitempty"`
	// JWithThinParts and JWithoutHoles are the means of the per-sequence
	// bounds (Scores.JWithThinParts, JWithoutHoles), likewise.
	JWithThinParts *float64 `json:"j_mean_with_thin_parts,omitempty"`
	JWithoutHoles  *float64 `json:"j_mean_without_holes,omitempty"`

	// beside sums the scores of besideJ, in its order, over the sequences
	// that have them.
	beside []optionalSum
}

// optionalSum sums a score that some sequences' results lack.
type optionalSum struct {
	n   int
	sum float64
}

func (o *optionalSum) add(x *float64) {
	if x != nil {
		o.n++
		o.sum += *x
	}
}

// mean is the mean over count sequences, nil unless all of them had it.
func (o optionalSum) mean(count int) *float64 {
	if count == 0 || o.n != count {
		return nil
	}
	m := o.sum / float64(count)
	return &m
}

func (m *Mean) add(s *Scores) {
	m.Count++
	m.Precision += s.Precision
	m.Recall += s.Recall
	m.F += s.F
	m.IoU += s.IoU
	m.JMean += s.JMean
	if m.beside == nil {
		m.beside = make([]optionalSum, len(besideJ))
	}
	for i, l := range besideJ {
		m.beside[i].add(l.ofScores(s))
	}
}

func (m *Mean) done() {
	if m.Count > 0 {
		n := float64(m.Count)
		m.Precision /= n
		m.Recall /= n
		m.F /= n
		m.IoU /= n
		m.JMean /= n
		for i, l := range besideJ {
			*l.ofMean(m) = m.beside[i].mean(m.Count)
		}
	}
}

// The lines that give a variant's dense J beside another J: away from the
// thin parts of the annotation (1-px lines, cords, spokes:
// morph.ThinPartsBand), the DAVIS 2016 benchmark's, and the two bounds,
// with the thin parts added to the masks and with the object's holes taken
// out of them.
var (
	thinJ = jBeside{
		sequence: fmt.Sprintf("Dense J (away from object parts thinner than %d px, where the annotation draws 1-px lines)", 2*morph.ThinRadius+1),
		mean:     fmt.Sprintf("Mean dense J (away from object parts thinner than %d px)", 2*morph.ThinRadius+1),
		ofScores: func(s *Scores) *float64 { return s.JAwayFromThin },
		key:      "j_mean_away_from_thin_parts",
		ofMean:   func(m *Mean) **float64 { return &m.JAwayFromThin },
	}
	benchmarkJ = jBeside{
		sequence: "Dense J (the DAVIS 2016 benchmark's, first and last frame left out)",
		mean:     "Mean dense J (the DAVIS 2016 benchmark's, first and last frame left out)",
		ofScores: func(s *Scores) *float64 { return s.JBenchmark },
		key:      "j_mean_benchmark",
		ofMean:   func(m *Mean) **float64 { return &m.JBenchmark },
	}
	withThinJ = jBeside{
		sequence: fmt.Sprintf("Dense J (with every object part thinner than %d px added to the masks: a bound)", 2*morph.ThinRadius+1),
		mean:     fmt.Sprintf("Mean dense J (with every object part thinner than %d px added to the masks: a bound)", 2*morph.ThinRadius+1),
		ofScores: func(s *Scores) *float64 { return s.JWithThinParts },
		key:      "j_mean_with_thin_parts",
		ofMean:   func(m *Mean) **float64 { return &m.JWithThinParts },
	}
	withoutHolesJ = jBeside{
		sequence: "Dense J (with the object's holes taken out of the masks: a bound)",
		mean:     "Mean dense J (with the object's holes taken out of the masks: a bound)",
		ofScores: func(s *Scores) *float64 { return s.JWithoutHoles },
		key:      "j_mean_without_holes",
		ofMean:   func(m *Mean) **float64 { return &m.JWithoutHoles },
	}
	// besideJ are those lines in the order the reports print them.
	besideJ = []jBeside{thinJ, benchmarkJ, withThinJ, withoutHolesJ}
)

// jBeside is one such line: its titles for a sequence and for the means,
// the other J's JSON name (in Scores and Mean alike), where a sequence's
// scores hold it and where Mean keeps its mean (Mean.add and done fill
// it).
type jBeside struct {
	sequence, mean string
	key            string
	ofScores       func(*Scores) *float64
	ofMean         func(*Mean) **float64
}

// sequenceLine gives each variant's dense J beside the other J of a
// sequence, or "" when no variant has the latter.
func (l jBeside) sequenceLine(s *SequenceResult, variants []Variant) string {
	return l.line(l.sequence, variants, func(v Variant) (float64, *float64) {
		if d := s.Dense[v]; d != nil && d.Scores != nil {
			return d.Scores.JMean, l.ofScores(d.Scores)
		}
		return 0, nil
	})
}

// meanLine gives each variant's mean dense J beside its mean other J, or ""
// when no variant's mean has the latter.
func (l jBeside) meanLine(dense map[Variant]*Mean, variants []Variant) string {
	return l.line(l.mean, variants, func(v Variant) (float64, *float64) {
		if m := dense[v]; m != nil {
			return m.JMean, *l.ofMean(m)
		}
		return 0, nil
	})
}

// line lists "variant J (other J)", in percent, for every variant whose
// scores (of) have the other J, after the title; "" for none.
func (jBeside) line(title string, variants []Variant, of func(Variant) (j float64, other *float64)) string {
	var parts []string
	for _, v := range variants {
		if j, other := of(v); other != nil {
			parts = append(parts, fmt.Sprintf("%s %.2f (%.2f)", v, 100*j, 100**other))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return title + ": " + strings.Join(parts, ", ") + "."
}

// Report is the outcome of Run or Merge (report.json; report.md is its
// Markdown), built from the result files by buildReport: Started is the
// earliest start of a sequence, Seconds the summed stage time.
type Report struct {
	Root      string            `json:"root"`
	Work      string            `json:"work"`
	Variants  []Variant         `json:"variants"`
	Options   map[string]any    `json:"options"`
	Started   time.Time         `json:"started"`
	Seconds   float64           `json:"seconds"`
	Sequences []*SequenceResult `json:"sequences"`
	Sparse    *Mean             `json:"sparse_mean,omitempty"`
	Dense     map[Variant]*Mean `json:"dense_mean,omitempty"`
	// Missing and Failed name the sequences without a result file and
	// those whose run failed (see buildReport).
	Missing []string `json:"missing,omitempty"`
	Failed  []string `json:"failed,omitempty"`
	// ReportPath is the report.md written by Run; empty when it could not
	// be written (the error says why).
	ReportPath string `json:"-"`
}

// reportOptions records the settings that matter for the numbers.
func reportOptions(o Options) map[string]any {
	return map[string]any{
		"tracker": o.Tracker, "flow": o.Flow, "segment": o.Segment, "heatmap_every": o.HeatmapEvery,
		"sparsify": o.Sparsify, "prepare": o.Prepare, "primary_object_auto": o.PrimaryObjectAuto, "train": o.Train, "eval": o.Eval,
	}
}

func (r *Report) summarise() {
	sp := &Mean{}
	r.Dense = map[Variant]*Mean{}
	for _, s := range r.Sequences {
		if s.Sparse != nil {
			sp.add(s.Sparse)
		}
		for v, d := range s.Dense {
			if d.Scores == nil {
				continue
			}
			if r.Dense[v] == nil {
				r.Dense[v] = &Mean{}
			}
			r.Dense[v].add(d.Scores)
		}
	}
	sp.done()
	if sp.Count > 0 {
		r.Sparse = sp
	}
	for _, m := range r.Dense {
		m.done()
	}
	if len(r.Dense) == 0 {
		r.Dense = nil
	}
}

// Write stores report.json and report.md in dir.
func (r *Report) Write(dir string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "report.json"), append(data, '\n')); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "report.md"), r.Markdown)
}

func pct(v float64) string { return fmt.Sprintf("%.2f", 100*v) }

func opt3(s *Scores, f func(*Scores) float64) string {
	if s == nil {
		return "–"
	}
	return pct(f(s))
}

// link formats a Markdown link to a file of a sequence folder (relative to
// the report, with forward slashes).
func link(text string, parts ...string) string {
	return fmt.Sprintf("[%s](%s)", text, path.Join(parts...))
}

// Markdown writes the report: a table with one row per sequence (sparse
// P/R/F, trajectories, clusters, dense P/R/F/IoU per variant, time), the
// means, then per sequence the stage timings and links to plots and previews.
// Scores are in percent.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	r.writeIntro(&b)
	r.writeTable(&b)
	if len(r.Sequences) > 1 && (r.Sparse != nil || r.Dense != nil) {
		r.writeMeans(&b)
	}
	for _, s := range r.Sequences {
		r.writeSequence(&b, s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeIntro writes the title, the inputs, the scores' protocol and the
// missing and failed sequences.
func (r *Report) writeIntro(b *strings.Builder) {
	fmt.Fprintf(b, "# densify run\n\nInput `%s`, work folder `%s`, %d sequence(s), %.1f s (summed stage time).\n\n", r.Root, r.Work, len(r.Sequences), r.Seconds)
	fmt.Fprintf(b, "Scores in percent (FBMS MoSegEval protocol; J = DAVIS region similarity, the foreground Jaccard index per labelled frame, averaged).\n\n")
	if mode := foregroundMode(r.Options); mode != "" {
		b.WriteString(mode + "\n\n")
	}
	if start := startingPoint(r.Options); start != "" {
		b.WriteString(start + "\n\n")
	}
	if len(r.Missing) > 0 {
		fmt.Fprintf(b, "**Missing** (no result yet; the means leave them out): %s.\n\n", strings.Join(r.Missing, ", "))
	}
	if len(r.Failed) > 0 {
		fmt.Fprintf(b, "**Failed:** %s (see below).\n\n", strings.Join(r.Failed, ", "))
	}
}

// foregroundMode says what the training labels call foreground, read from
// the prepare options as the plan records them (JSON): every moving segment,
// or the primary object only (trainset.Options.PrimaryObject); "" when the
// options do not say.
func foregroundMode(opts map[string]any) string {
	prep, ok := opts["prepare"].(map[string]any)
	if !ok {
		return ""
	}
	if auto, _ := opts["primary_object_auto"].(bool); auto {
		return fmt.Sprintf("Foreground: on DAVIS 2016 sequences, which annotate one object, **the primary moving object only** (margin %v of its box diagonal); elsewhere (FBMS59) every independently moving segment (`--primary-object auto`).", prep["PrimaryMargin"])
	}
	if on, _ := prep["PrimaryObject"].(bool); on {
		return fmt.Sprintf("Foreground: **the primary moving object only** (`--primary-object`, margin %v of its box diagonal), as single-object benchmarks (DAVIS 2016) annotate.", prep["PrimaryMargin"])
	}
	return "Foreground: every independently moving segment, as FBMS59 annotates (`--primary-object` keeps the primary object only, as DAVIS 2016 annotates)."
}

// startingPoint says what the first training starts from and how many
// self-training rounds follow, read from the train options as the plan
// records them (JSON); "" when the options do not say.
func startingPoint(opts map[string]any) string {
	tr, ok := opts["train"].(map[string]any)
	if !ok {
		return ""
	}
	rounds, _ := tr["rounds"].(float64)
	then := fmt.Sprintf("then %v self-training round(s) (`--rounds`)", rounds)
	if rounds == 0 {
		then = "no self-training round (`--rounds`)"
	}
	if init, _ := tr["init"].(string); init != "" {
		return fmt.Sprintf("Dense training: every sequence's first training starts from the weights in `%s` (`--init`), %s.", init, then)
	}
	return fmt.Sprintf("Dense training: every sequence's first training starts from a random initialisation (`--init none`), %s.", then)
}

// writeTable writes the table head and one row per sequence.
func (r *Report) writeTable(b *strings.Builder) {
	head := "| sequence | trajectories | clusters | sparse P | sparse R | sparse F |"
	sep := "|---|---:|---:|---:|---:|---:|"
	for _, v := range r.Variants {
		head += fmt.Sprintf(" dense P (%s) | dense R (%s) | dense F (%s) | J (%s) |", v, v, v, v)
		sep += "---:|---:|---:|---:|"
	}
	head += " time (s) |"
	sep += "---:|"
	b.WriteString(head + "\n" + sep + "\n")
	for _, s := range r.Sequences {
		name := s.Name
		if slices.Contains(r.Missing, s.Name) {
			name += " (missing)"
		} else if s.Error != "" {
			name += " (failed)"
		}
		fmt.Fprintf(b, "| %s | %d | %d |%s", name, s.Trajectories, s.Clusters, sparseCells(s.Sparse))
		for _, v := range r.Variants {
			var sc *Scores
			if d := s.Dense[v]; d != nil {
				sc = d.Scores
			}
			b.WriteString(denseCells(sc))
		}
		fmt.Fprintf(b, " %.1f |\n", s.Seconds())
	}
}

// writeMeans writes the row of the means and the mean J beside the other
// Js (besideJ).
func (r *Report) writeMeans(b *strings.Builder) {
	b.WriteString("| **mean** | | |" + sparseCells(meanScores(r.Sparse)))
	for _, v := range r.Variants {
		b.WriteString(denseCells(meanScores(r.Dense[v])))
	}
	b.WriteString(" |\n")
	for _, l := range besideJ {
		if line := l.meanLine(r.Dense, r.Variants); line != "" {
			b.WriteString("\n" + line + "\n")
		}
	}
}

// meanScores gives a mean the form of a sequence's scores (nil for nil).
func meanScores(m *Mean) *Scores {
	if m == nil {
		return nil
	}
	return &Scores{Precision: m.Precision, Recall: m.Recall, F: m.F, IoU: m.IoU, JMean: m.JMean}
}

// sparseCells are a row's sparse P, R and F cells ("–" without scores).
func sparseCells(sc *Scores) string {
	return fmt.Sprintf(" %s | %s | %s |",
		opt3(sc, func(x *Scores) float64 { return x.Precision }),
		opt3(sc, func(x *Scores) float64 { return x.Recall }),
		opt3(sc, func(x *Scores) float64 { return x.F }))
}

// denseCells are a row's dense P, R, F and J cells of one variant ("–"
// without scores).
func denseCells(sc *Scores) string {
	return fmt.Sprintf(" %s | %s | %s | %s |",
		opt3(sc, func(x *Scores) float64 { return x.Precision }),
		opt3(sc, func(x *Scores) float64 { return x.Recall }),
		opt3(sc, func(x *Scores) float64 { return x.F }),
		opt3(sc, func(x *Scores) float64 { return x.JMean }))
}

// writeSequence writes a sequence's section: its failure, counts,
// uncertainty, training set, oracle and thin-part lines, links, previews
// and stage timings.
func (r *Report) writeSequence(b *strings.Builder, s *SequenceResult) {
	fmt.Fprintf(b, "\n## %s\n\n", s.Name)
	if s.Error != "" {
		fmt.Fprintf(b, "**Failed:** %s\n\n", s.Error)
	}
	fmt.Fprintf(b, "%d frames (%s), %d trajectories over %d frames, %d clusters, energy %.3f, %d edges (+%d lifted).\n",
		s.Frames, s.FramesDir, s.Trajectories, s.TrackFrames, s.Clusters, s.Energy, s.Edges, s.LiftedEdges)
	if s.Uncertainty != nil {
		writeUncertainty(b, s.Uncertainty)
	}
	if s.Prepared != nil {
		writePrepared(b, s.Prepared)
	}
	if line := oracleLine(s, r.Variants); line != "" {
		b.WriteString(line + "\n")
	}
	for _, l := range besideJ {
		if line := l.sequenceLine(s, r.Variants); line != "" {
			b.WriteString(line + "\n")
		}
	}
	if line := roundsLine(s, r.Variants); line != "" {
		b.WriteString(line + "\n")
	}
	b.WriteString("\n")
	if links := sequenceLinks(s, r.Variants); len(links) > 0 {
		b.WriteString(strings.Join(links, " · ") + "\n\n")
	}
	for _, v := range r.Variants {
		if d := s.Dense[v]; d != nil && d.Preview != "" {
			fmt.Fprintf(b, "![%s masks](%s)\n\n", v, path.Join(s.Name, d.Preview))
		}
	}
	writeStages(b, s.Stages)
}

// writeUncertainty writes the uncertainty line: mean u, movable
// trajectories and, with ground truth, the areas under the VI
// sparsification curves.
func writeUncertainty(b *strings.Builder, u *UncertaintyInfo) {
	fmt.Fprintf(b, "Uncertainty: mean u %.4f, %d of %d trajectories can move, %d with u > 0.5.", u.MeanU, u.Boundary, u.Nodes, u.Improving)
	if u.AUCVI != nil {
		fmt.Fprintf(b, " Area under the VI sparsification curve: proposed %.4f, likelihood %.4f, random %.4f",
			u.AUCVI["proposed"], u.AUCVI["likelihood"], u.AUCVI["random"])
		if u.VIFalls != nil {
			fmt.Fprintf(b, " (VI falls as uncertain trajectories go: %v)", *u.VIFalls)
		}
		b.WriteString(".")
	}
	b.WriteString("\n")
}

// writePrepared writes the training set's lines: its counts, the colour
// check's and the background cut's points, and the labels' quality.
func writePrepared(b *strings.Builder, pr *PrepareInfo) {
	fmt.Fprintf(b, "Training set: %d frames %d×%d, %d classes, labelled pixels per class %v, %d hard-example pixels (%d trajectories), %d background trajectories left unlabelled (the camera motion does not explain them), %d foreground points of short trajectories dropped (no long trajectory of their segment nearby).\n",
		pr.Frames, pr.Width, pr.Height, pr.Classes, pr.ClassCounts, pr.HardPixels, pr.HardTracks, pr.Unexplained, pr.Unsupported)
	if pr.ColourRejected > 0 {
		fmt.Fprintf(b, "The colour check dropped %d more, of %d trajectories whose colours are, on the whole, the background's.\n", pr.ColourRejected, pr.ColourRejectedTracks)
	}
	if pr.HardDropped > 0 {
		fmt.Fprintf(b, "Of the dropped points, %d were points of hard examples (uncertain trajectories, which the clean-ups remove as likely wrong).\n", pr.HardDropped)
	}
	if pr.BeyondPrimary > 0 {
		fmt.Fprintf(b, "Beyond the primary object's box, %d points of the segments that are not part of it are background points.\n", pr.BeyondPrimary)
	}
	if pr.CutPoints > 0 {
		fmt.Fprintf(b, "The background cut (a graph cut with the labels as hard constraints) added %d background points near the object, where no trajectory is.\n", pr.CutPoints)
	}
	if q := pr.LabelQuality; q != nil {
		away := "" // absent from the stamps of sets prepared before it existed
		if a := q.AwayFromThin; a != nil {
			away = fmt.Sprintf(" (IoU %.3f away from object parts thinner than %d px)", a.IoU, 2*morph.ThinRadius+1)
		}
		fmt.Fprintf(b, "Training labels against the ground truth: foreground precision %.3f, recall %.3f, IoU %.3f over %d labelled pixels%s; hard-example pixels %.3f / %.3f / %.3f, correct %.1f %% of %d.\n",
			q.Labelled.Precision, q.Labelled.Recall, q.Labelled.IoU, q.Labelled.Pixels, away,
			q.Hard.Precision, q.Hard.Recall, q.Hard.IoU, 100*q.Hard.Accuracy, q.Hard.Pixels)
		if fs := q.UnlabelledObjectFrames(); len(fs) > 0 {
			fmt.Fprintf(b, "In %d of %d annotated frames the object carries no object label (frames %s): the trajectories lost it there, and the network learns it from the other frames only.\n",
				len(fs), len(q.ByFrame), trainset.FrameSpans(fs))
		}
	}
}

// sequenceLinks are the links to a sequence's plots, heat maps, training
// set, evaluations, masks and previews.
func sequenceLinks(s *SequenceResult, variants []Variant) []string {
	var links []string
	if s.Uncertainty != nil && s.Uncertainty.AUCVI != nil {
		links = append(links, link("sparsification curve (VI)", s.Name, "uncertainty", "sparsify", "vi.png"),
			link("(RI)", s.Name, "uncertainty", "sparsify", "ri.png"))
	}
	if s.Uncertainty != nil && len(s.Uncertainty.Heatmaps) > 0 {
		links = append(links, link("uncertainty heat map", s.Name, filepath.ToSlash(s.Uncertainty.Heatmaps[0])),
			link("all heat maps", s.Name, "uncertainty", "heatmaps"))
	}
	if s.Prepared != nil {
		links = append(links, link("training set", s.Name, "prepared", "manifest.json"))
	}
	if s.Sparse != nil {
		links = append(links, link("sparse eval", s.Name, "eval", "sparse.json"))
	}
	for _, v := range variants {
		d := s.Dense[v]
		if d == nil {
			continue
		}
		links = append(links, link("masks ("+string(v)+")", s.Name, d.Masks))
		if d.Preview != "" {
			links = append(links, link("overlay preview ("+string(v)+")", s.Name, d.Preview))
		}
		if d.Scores != nil {
			links = append(links, link("dense eval ("+string(v)+")", s.Name, "eval", "dense-"+RunName(v, 0)+".json"))
		}
	}
	return links
}

// writeStages writes the table of the stage timings (none without stages).
func writeStages(b *strings.Builder, stages []StageStatus) {
	if len(stages) == 0 {
		return
	}
	b.WriteString("| stage | seconds | |\n|---|---:|---|\n")
	for _, st := range stages {
		note := "ran"
		if st.Skipped {
			note = "skipped (up to date)"
		}
		fmt.Fprintf(b, "| %s | %.1f | %s |\n", st.Stage, st.Seconds, note)
	}
}

// oracleLine compares the dense J of the oracle variant (ground-truth labels
// on the same trajectories) with the real labels' best variant: the gap is
// what the segmentation costs, the oracle's distance from 100 % what the
// densifier costs. Empty without an oracle score.
func oracleLine(s *SequenceResult, variants []Variant) string {
	o := s.Dense[VariantOracle]
	if o == nil || o.Scores == nil {
		return ""
	}
	var best *DenseResult
	var bestV Variant
	for _, v := range variants {
		if d := s.Dense[v]; v != VariantOracle && d != nil && d.Scores != nil && (best == nil || d.Scores.JMean > best.Scores.JMean) {
			best, bestV = d, v
		}
	}
	if best == nil {
		return fmt.Sprintf("Oracle labels (ground truth on the same trajectories): dense J %.2f.", 100*o.Scores.JMean)
	}
	seg, den := o.Scores.JMean-best.Scores.JMean, 1-o.Scores.JMean
	limit := "the densifier"
	if seg > den {
		limit = "the segmentation"
	}
	return fmt.Sprintf("Oracle labels (ground truth on the same trajectories): dense J %.2f against %.2f with the segmentation's labels (%s): the labels cost %.2f points, the densifier %.2f; %s limits this sequence.",
		100*o.Scores.JMean, 100*best.Scores.JMean, bestV, 100*seg, 100*den, limit)
}

// roundsLine is the dense J of every self-training round of each variant
// (TrainOptions.Rounds), with the minutes each round took; "" without
// rounds.
func roundsLine(s *SequenceResult, variants []Variant) string {
	var parts []string
	for _, v := range variants {
		d := s.Dense[v]
		if d == nil || len(d.Rounds) == 0 {
			continue
		}
		var rs []string
		for _, r := range d.Rounds {
			j := "no ground truth"
			if r.Scores != nil {
				j = "J " + pct(r.Scores.JMean)
			}
			rs = append(rs, fmt.Sprintf("round %d %s (%.1f min)", r.Round, j, (r.TrainSecs+r.PredictSec)/60))
		}
		parts = append(parts, fmt.Sprintf("%s: %s", v, strings.Join(rs, " → ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Self-training rounds, " + strings.Join(parts, "; ") + "."
}

// Deterministic is the report as JSON lines without what depends on the
// clock or the work folder (stage, training and prediction times, checkpoint
// paths): two runs of the same inputs and seeds, sequential or sharded,
// give the same text.
func (r *Report) Deterministic() (string, error) {
	strip := func(d *DenseResult) *DenseResult {
		dc := *d
		dc.TrainSecs, dc.PredictSec = 0, 0
		dc.Rounds = nil
		for _, r := range d.Rounds {
			r.TrainSecs, r.PredictSec = 0, 0
			dc.Rounds = append(dc.Rounds, r)
		}
		if d.Train != nil {
			tr := *d.Train
			tr.Checkpoint = ""
			dc.Train = &tr
		}
		return &dc
	}
	var b strings.Builder
	for _, s := range r.Sequences {
		c := *s
		c.Stages = nil
		c.Dense = map[Variant]*DenseResult{}
		for v, d := range s.Dense {
			c.Dense[v] = strip(d)
		}
		c.Repeats = nil
		for v, ds := range s.Repeats {
			if c.Repeats == nil {
				c.Repeats = map[Variant][]*DenseResult{}
			}
			for _, d := range ds {
				c.Repeats[v] = append(c.Repeats[v], strip(d))
			}
		}
		j, err := json.Marshal(c)
		if err != nil {
			return "", err
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	j, err := json.Marshal([]any{r.Sparse, r.Dense, r.Missing, r.Failed, r.Variants, r.Root})
	if err != nil {
		return "", err
	}
	b.Write(j)
	return b.String(), nil
}
