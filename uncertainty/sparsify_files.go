package uncertainty

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/fileerr"
	"github.com/densify/densify/internal/listfile"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/trajectory"
)

// SequenceInput names the files of one sequence for the sparsification.
type SequenceInput struct {
	Name   string // label in tables and plots
	Graph  string // graph instance file
	Labels string // labels file (predicted clusters)
	Tracks string // Tracks*.dat with one trajectory per node
	GT     string // Def.dat or DAVIS annotation folder (dataset.LoadGroundTruth)
}

// SparsifyOptions configures the sparsification analysis.
type SparsifyOptions struct {
	Beta  float64 `json:"beta"`  // cut prior of the costs (likelihood baseline)
	Step  float64 `json:"step"`  // removal step (fraction)
	Max   float64 `json:"max"`   // largest removed fraction
	Seeds int     `json:"seeds"` // random orderings averaged
}

// Ranges of SparsifyOptions (Validate). The smallest step bounds the number
// of points of a curve (1/MinStep), and so time and memory.
const (
	MinStep  = 1e-4
	MaxSeeds = 1000
)

// Validate checks the ranges: β in (0, 1), step in [MinStep, 1], max in
// [0, 1), seeds in [1, MaxSeeds].
func (o SparsifyOptions) Validate() error {
	switch {
	case !(o.Beta > 0 && o.Beta < 1):
		return fmt.Errorf("sparsify: beta must be in (0, 1), got %v", o.Beta)
	case !(o.Step >= MinStep && o.Step <= 1):
		return fmt.Errorf("sparsify: step must be in [%g, 1] (at most %g curve points), got %v", MinStep, 1/MinStep, o.Step)
	case !(o.Max >= 0 && o.Max < 1):
		return fmt.Errorf("sparsify: max must be in [0, 1), got %v", o.Max)
	case o.Seeds < 1 || o.Seeds > MaxSeeds:
		return fmt.Errorf("sparsify: seeds must be in [1, %d], got %d", MaxSeeds, o.Seeds)
	}
	return nil
}

// SequenceCurves is the sparsification result of one sequence.
type SequenceCurves struct {
	Name      string  `json:"name"`
	Nodes     int     `json:"nodes"`
	WithGT    int     `json:"with_gt"` // trajectories with a ground-truth label (the ones ranked)
	Clusters  int     `json:"clusters"`
	Regions   int     `json:"gt_regions"`
	Uncertain int     `json:"uncertain"` // nodes with u > 0 among WithGT
	Curves    []Curve `json:"curves"`
	// Errors are the nodes with a ground-truth region, their γ and whether
	// their label is wrong (LabelErrors); AUC and AUCLikelihood how well u
	// and the likelihood baseline rank the wrong ones first.
	Errors        []ErrorSample `json:"-"`
	AUC           float64       `json:"-"`
	AUCLikelihood float64       `json:"-"`
}

// SparsifySequence computes the proposed, likelihood and random (mean of
// opt.Seeds seeds 1…Seeds) curves of one labelled instance against the
// ground truth of its trajectories, and the oracle's (OracleOrdering) as
// the reference below them.
func SparsifySequence(name string, g *multicut.Graph, labels []int, ts *trajectory.TrackSet, gt *dataset.GroundTruth, opt SparsifyOptions) (*SequenceCurves, error) {
	if len(ts.Tracks) != g.N {
		return nil, fmt.Errorf("%s: %d trajectories but the graph has %d nodes", name, len(ts.Tracks), g.N)
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if gt != nil && len(gt.Frames) > 0 {
		if err := ts.CheckBounds(name, gt.Frames[0].Width, gt.Frames[0].Height); err != nil {
			return nil, fmt.Errorf("%w (ground truth %s)", err, gt.Path)
		}
	}
	fr, err := Fractions(opt.Step, opt.Max)
	if err != nil {
		return nil, err
	}
	r, err := Compute(g, labels, opt.Beta)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	gtl := dataset.TrackRegions(ts, gt.Frames)
	random := make([][]float64, opt.Seeds)
	for s := range random {
		random[s] = Random(g.N, int64(s+1))
	}
	curves, err := Sparsify(labels, gtl, []Ordering{
		{Name: "proposed", Scores: [][]float64{r.U}},
		{Name: "likelihood", Scores: [][]float64{r.ULik}},
		{Name: "random", Scores: random},
		OracleOrdering(labels, gtl),
	}, fr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sc := &SequenceCurves{Name: name, Nodes: g.N, Clusters: len(r.Clusters), Curves: curves}
	wrong, known := LabelErrors(labels, gtl)
	negGamma := make([]float64, g.N) // ranks as u does, without u's underflow to 0
	for v, gm := range r.Gamma {
		negGamma[v] = -gm
	}
	sc.Errors = Samples(r, wrong, known)
	sc.AUC, sc.AUCLikelihood = AUC(negGamma, wrong, known), AUC(r.ULik, wrong, known)
	regions := map[int]bool{}
	for v, l := range gtl {
		if l >= 0 {
			sc.WithGT++
			regions[l] = true
			if r.U[v] > 0 {
				sc.Uncertain++
			}
		}
	}
	sc.Regions = len(regions)
	return sc, nil
}

// SparsifyFiles loads one sequence's files and runs SparsifySequence.
func SparsifyFiles(in SequenceInput, opt SparsifyOptions) (*SequenceCurves, error) {
	g, labels, err := LoadInstance(in.Graph, in.Labels)
	if err != nil {
		return nil, err
	}
	ts, err := LoadTracks(in.Tracks, g.N)
	if err != nil {
		return nil, err
	}
	gt, err := dataset.LoadGroundTruth(in.GT)
	if err != nil {
		return nil, err
	}
	name := in.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(in.Tracks), filepath.Ext(in.Tracks))
	}
	return SparsifySequence(name, g, labels, ts, gt, opt)
}

// ReadSequenceList reads a dataset list: one sequence per line,
//
//	name graph labels tracks gt
//
// separated by tabs when the line holds a tab (then paths may contain
// spaces), by white space otherwise (internal/listfile); '#' starts a
// comment; relative paths are taken relative to the list's folder.
func ReadSequenceList(path string) ([]SequenceInput, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	base := filepath.Dir(path)
	rel := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	var out []SequenceInput
	byName := map[string]int{} // → line
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := listfile.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 5 {
			return nil, fileerr.New(path, line, "want 5 fields (name graph labels tracks gt; separated by tabs when a path contains spaces), got %d", len(fs))
		}
		if i := strings.IndexFunc(fs[0], unicode.IsControl); i >= 0 {
			return nil, fileerr.New(path, line, "sequence name %q holds the control character %U", fs[0], []rune(fs[0][i:])[0])
		}
		if l, ok := byName[fs[0]]; ok {
			return nil, fileerr.New(path, line, "sequence %q is listed twice (also on line %d): it would count twice in the mean curves", fs[0], l)
		}
		byName[fs[0]] = line
		out = append(out, SequenceInput{Name: fs[0], Graph: rel(fs[1]), Labels: rel(fs[2]), Tracks: rel(fs[3]), GT: rel(fs[4])})
	}
	if err := sc.Err(); err != nil {
		return nil, fileerr.New(path, 0, "%v", err)
	}
	if len(out) == 0 {
		return nil, fileerr.New(path, 0, "no sequences listed")
	}
	return out, nil
}

// SparsifySummary is the JSON summary of a sparsification run.
type SparsifySummary struct {
	VIUnit    string            `json:"vi_unit"`
	AUC       string            `json:"auc"`
	Options   SparsifyOptions   `json:"options"`
	Sequences []SequenceSummary `json:"sequences"`
	Mean      *SequenceSummary  `json:"mean,omitempty"` // dataset mode: point-wise mean curves
	// Calibration: how well u predicts the wrong labels (Calibrate), and
	// calibration.csv its reliability tables.
	Calibration CalibrationSummary `json:"calibration"`
}

// SequenceSummary condenses one sequence's curves.
type SequenceSummary struct {
	Name     string         `json:"name"`
	Nodes    int            `json:"nodes,omitempty"`
	WithGT   int            `json:"with_gt,omitempty"`
	Clusters int            `json:"clusters,omitempty"`
	Curves   []CurveSummary `json:"curves"`
}

// CurveSummary: areas under the curves and their end points; VIFalls is
// true when VI at the largest removal is below VI with nothing removed.
type CurveSummary struct {
	Name    string  `json:"name"`
	AUCVI   float64 `json:"auc_vi"`
	AUCRI   float64 `json:"auc_ri"`
	VIStart float64 `json:"vi_start"`
	VIEnd   float64 `json:"vi_end"`
	RIStart float64 `json:"ri_start"`
	RIEnd   float64 `json:"ri_end"`
	VIFalls bool    `json:"vi_falls"`
}

func summarize(cs []Curve) []CurveSummary {
	out := make([]CurveSummary, len(cs))
	for i, c := range cs {
		last := len(c.VI) - 1
		out[i] = CurveSummary{Name: c.Name, AUCVI: c.AUCVI, AUCRI: c.AUCRI,
			VIStart: c.VI[0], VIEnd: c.VI[last], RIStart: c.RI[0], RIEnd: c.RI[last], VIFalls: c.VI[last] < c.VI[0]}
	}
	return out
}

// WriteSparsifyOutputs writes, into dir: curves.csv (every sequence and,
// with several, the "mean" rows), vi.png and ri.png (one sequence: its
// curves; several: the mean curves, plus <name>/vi.png and <name>/ri.png per
// sequence) and summary.json. It returns the summary.
func WriteSparsifyOutputs(dir string, seqs []*SequenceCurves, opt SparsifyOptions) (*SparsifySummary, error) {
	sum := &SparsifySummary{VIUnit: "nats (natural log)", AUC: "trapezoid rule over the removed fraction 0…max", Options: opt}
	sets := make([][]Curve, len(seqs))
	for i, s := range seqs {
		sets[i] = s.Curves
		sum.Sequences = append(sum.Sequences, SequenceSummary{Name: s.Name, Nodes: s.Nodes, WithGT: s.WithGT, Clusters: s.Clusters, Curves: summarize(s.Curves)})
	}
	var mean []Curve
	if len(seqs) > 1 {
		var err error
		if mean, err = AverageCurves(sets); err != nil {
			return nil, err
		}
		sum.Mean = &SequenceSummary{Name: "mean", Curves: summarize(mean)}
	}
	err := atomicfile.Write(filepath.Join(dir, "curves.csv"), func(w io.Writer) error {
		if _, err := io.WriteString(w, "sequence,ordering,removed,density,vi,ri\n"); err != nil {
			return err
		}
		row := func(name string, cs []Curve) error {
			for _, c := range cs {
				for i := range c.Removed {
					if _, err := fmt.Fprintf(w, "%s,%s,%s,%s,%s,%s\n", name, c.Name, ff(c.Removed[i]), ff(1-c.Removed[i]), ff(c.VI[i]), ff(c.RI[i])); err != nil {
						return err
					}
				}
			}
			return nil
		}
		for _, s := range seqs {
			if err := row(s.Name, s.Curves); err != nil {
				return err
			}
		}
		if mean != nil {
			return row("mean", mean)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	plotSet := func(sub, title string, cs []Curve) error {
		for _, m := range []string{"vi", "ri"} {
			if err := PlotCurves(cs, m, title, filepath.Join(dir, sub, m+".png")); err != nil {
				return err
			}
		}
		return nil
	}
	if len(seqs) == 1 {
		if err := plotSet("", "sparsification: "+seqs[0].Name, seqs[0].Curves); err != nil {
			return nil, err
		}
	} else {
		if err := plotSet("", fmt.Sprintf("sparsification: mean of %d sequences", len(seqs)), mean); err != nil {
			return nil, err
		}
		for _, s := range seqs {
			if err := plotSet(safeName(s.Name), "sparsification: "+s.Name, s.Curves); err != nil {
				return nil, err
			}
		}
	}
	if sum.Calibration, err = writeCalibration(filepath.Join(dir, "calibration.csv"), seqs); err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "summary.json"), append(data, '\n')); err != nil {
		return nil, err
	}
	return sum, nil
}

// writeCalibration calibrates the sequences' uncertainty (Calibrate) and
// writes the reliability tables to path: one row per sequence, calibrator
// (the temperatures 1 and the one fitted on the other sequences, and the
// error model fitted on them) and bin of its probability of a wrong label;
// beside it, error_model.json, the error model fitted on all sequences.
func writeCalibration(path string, seqs []*SequenceCurves) (CalibrationSummary, error) {
	names := make([]string, len(seqs))
	samples := make([][]ErrorSample, len(seqs))
	aucs, aucsLik := make([]float64, len(seqs)), make([]float64, len(seqs))
	for i, s := range seqs {
		names[i], samples[i], aucs[i], aucsLik[i] = s.Name, s.Errors, s.AUC, s.AUCLikelihood
	}
	sum := Calibrate(names, samples, aucs, aucsLik)
	err := atomicfile.Write(path, func(w io.Writer) error {
		if _, err := io.WriteString(w, "sequence,calibrator,temperature,u_lo,u_hi,nodes,mean_u,wrong_rate\n"); err != nil {
			return err
		}
		rows := func(name, cal, T string, bins []Bin) error {
			for _, b := range bins {
				if _, err := fmt.Fprintf(w, "%s,%s,%s,%s,%s,%d,%s,%s\n", name, cal, T, ff(b.Lo), ff(b.Hi), b.Nodes, ff(b.MeanU), ff(b.WrongRate)); err != nil {
					return err
				}
			}
			return nil
		}
		for _, c := range sum.Sequences {
			if err := rows(c.Name, "temperature", "1", c.Bins); err != nil {
				return err
			}
			if c.LOSOT != nil {
				if err := rows(c.Name, "temperature", ff(*c.LOSOT), c.LOSOBins); err != nil {
					return err
				}
			}
			if c.ModelBins != nil {
				if err := rows(c.Name, "error_model", "", c.ModelBins); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err == nil && sum.ErrorModel != nil {
		err = WriteErrorModel(filepath.Join(filepath.Dir(path), "error_model.json"), sum.ErrorModel)
	}
	return sum, err
}

func ff(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}
