package uncertainty

import (
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/trajectory"
)

// Summary is the headline of an uncertainty result: how many nodes could
// move (γ < ∞), how many would lower the energy by moving (u > 0.5), the
// mean u, and the clusters by decreasing mean uncertainty μ_A.
type Summary struct {
	Nodes     int       `json:"nodes"`
	Clusters  int       `json:"clusters"`
	Boundary  int       `json:"boundary"`  // nodes with γ < ∞
	Improving int       `json:"improving"` // nodes with u > 0.5
	MeanU     float64   `json:"mean_u"`
	ByMeanU   []Cluster `json:"-"` // clusters, largest μ_A first (stable)
}

// Summarize computes the Summary of r.
func Summarize(r *Result) Summary {
	s := Summary{Nodes: len(r.U), Clusters: len(r.Clusters)}
	for v, u := range r.U {
		s.MeanU += u
		if !math.IsInf(r.Gamma[v], 1) {
			s.Boundary++
		}
		if u > 0.5 {
			s.Improving++
		}
	}
	if s.Nodes > 0 {
		s.MeanU /= float64(s.Nodes)
	}
	s.ByMeanU = append([]Cluster(nil), r.Clusters...)
	sort.SliceStable(s.ByMeanU, func(i, j int) bool { return s.ByMeanU[i].MeanU > s.ByMeanU[j].MeanU })
	return s
}

// Write prints the summary and the top clusters with the largest μ_A.
func (s Summary) Write(w io.Writer, top int) {
	fmt.Fprintf(w, "%d nodes, %d clusters: %d can move (γ < inf), %d with u > 0.5 (a move lowers the energy), mean u %.4f\n",
		s.Nodes, s.Clusters, s.Boundary, s.Improving, s.MeanU)
	for _, c := range s.ByMeanU[:min(top, len(s.ByMeanU))] {
		fmt.Fprintf(w, "  cluster %d: %d nodes, μ_A = %.4f\n", c.Label, c.Size, c.MeanU)
	}
}

// FilesOptions is one run of the uncertainty stage on files (ComputeFiles).
type FilesOptions struct {
	Graph, Labels string  // multicut instance and its labelling
	Beta          float64 // cut prior the costs were built with (likelihood baseline)
	CSV           string  // per-node CSV (WriteCSV); "" = not written
	Clusters      string  // per-cluster summary (.csv or .json); "" = not written
	// Tracks is the Tracks file of the nodes; with Heatmaps and FramesDir
	// the heat maps of the frames HeatmapFrames(track frames) are drawn
	// into the folder Heatmaps.
	Tracks        string
	FramesDir     string
	Heatmaps      string
	HeatmapFrames func(trackFrames int) []int
	// Temperature T colours the heat maps by u_T = σ(−γ/T) (HeatmapValues;
	// 0 or 1: by u).
	Temperature float64
	// GT, when not nil, is the ground truth whose labelled frames are drawn:
	// its label images must have the frames' size (CheckHeatmapGeometry).
	GT       *dataset.GroundTruth
	Progress func(done, total int) // heat maps drawn (may be nil)
}

// FilesResult is the outcome of ComputeFiles.
type FilesResult struct {
	Graph    *multicut.Graph
	Labels   []int
	Tracks   *trajectory.TrackSet // nil without opt.Tracks
	Result   *Result
	Summary  Summary
	Heatmaps []string // written heat-map files
}

// ComputeFiles is the uncertainty stage of `densify uncertainty` and of the
// pipeline: it reads the instance, computes γ and u (Compute; Kardoost &
// Keuper, UAI 2021, Eqs. 10–14), reads the optional inputs, draws the heat
// maps into a folder beside Heatmaps, and only then writes the CSV and the
// cluster summary and puts the heat maps in place, replacing the folder as
// a whole (it must be new, empty or hold heat maps only). A failure leaves
// none of them.
func ComputeFiles(opt FilesOptions) (_ *FilesResult, err error) {
	g, labels, err := LoadInstance(opt.Graph, opt.Labels)
	if err != nil {
		return nil, err
	}
	r, err := Compute(g, labels, opt.Beta)
	if err != nil {
		return nil, fmt.Errorf("%s + %s: %w", opt.Graph, opt.Labels, err)
	}
	res := &FilesResult{Graph: g, Labels: labels, Result: r, Summary: Summarize(r)}
	if opt.Tracks != "" {
		if res.Tracks, err = LoadTracks(opt.Tracks, g.N); err != nil {
			return nil, err
		}
	}
	heat := opt.Heatmaps != "" && res.Tracks != nil
	var tmp string
	if heat {
		if err = atomicfile.CheckReplaceable(opt.Heatmaps, "--heatmaps", ownHeatmap); err != nil {
			return nil, err
		}
		if err = CheckHeatmapGeometry(opt.FramesDir, res.Tracks, opt.Tracks, opt.GT); err != nil {
			return nil, err
		}
		// The heat maps are drawn first, into a folder beside opt.Heatmaps
		// that replaces it at the end: a frame that cannot be read fails
		// before any output is written.
		if tmp, err = atomicfile.TempDir(opt.Heatmaps); err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		var drawn []string
		values, label := HeatmapValues(r, opt.Temperature)
		if drawn, err = WriteHeatmaps(opt.FramesDir, tmp, res.Tracks, values, label, opt.HeatmapFrames(res.Tracks.Frames), opt.Progress); err != nil {
			return nil, err
		}
		for _, p := range drawn {
			res.Heatmaps = append(res.Heatmaps, filepath.Join(opt.Heatmaps, filepath.Base(p)))
		}
	}
	// A failure removes the files of this call: all outputs or none.
	var written []string
	defer func() {
		if err != nil {
			for _, p := range written {
				os.Remove(p)
			}
		}
	}()
	if opt.CSV != "" {
		if err = WriteCSV(opt.CSV, r); err != nil {
			return nil, err
		}
		written = append(written, opt.CSV)
	}
	if opt.Clusters != "" {
		if err = WriteClusters(opt.Clusters, r); err != nil {
			return nil, err
		}
		written = append(written, opt.Clusters)
	}
	if heat {
		if err = atomicfile.ReplaceDir(tmp, filepath.Clean(opt.Heatmaps)); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// SparsifyAll is the sparsification stage of `densify sparsify` on several
// sequences: the curves of each (SparsifyFiles; one line per sequence on
// log, may be nil) and the outputs of WriteSparsifyOutputs in dir, which
// they replace as a whole (dir must be new, empty or hold an earlier
// sparsify's files, which is checked before any work).
func SparsifyAll(ins []SequenceInput, dir string, opt SparsifyOptions, log io.Writer) (*SparsifySummary, error) {
	if log == nil {
		log = io.Discard
	}
	if err := atomicfile.CheckReplaceable(dir, "--out", ownSparsify); err != nil {
		return nil, err
	}
	var seqs []*SequenceCurves
	for i, in := range ins {
		s, err := SparsifyFiles(in, opt)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "sparsify: %d/%d %s (%d trajectories with ground truth)\n", i+1, len(ins), s.Name, s.WithGT)
		seqs = append(seqs, s)
	}
	// The folder is built beside dir and replaces it as a whole: no plot of
	// a sequence of an earlier run stays beside the new ones.
	tmp, err := atomicfile.TempDir(dir)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	sum, err := WriteSparsifyOutputs(tmp, seqs, opt)
	if err != nil {
		return nil, err
	}
	return sum, atomicfile.ReplaceDir(tmp, filepath.Clean(dir))
}

// ownSparsify accepts what SparsifyAll writes into its folder:
// curves.csv, summary.json, calibration.csv, vi.png, ri.png and a folder
// per sequence with its vi.png and ri.png.
func ownSparsify(rel string, isDir bool) bool {
	if isDir {
		return !strings.Contains(rel, "/")
	}
	dir, base := path.Split(rel)
	switch base {
	case "vi.png", "ri.png":
		return !strings.Contains(strings.TrimSuffix(dir, "/"), "/")
	case "curves.csv", "summary.json", "calibration.csv", "error_model.json":
		return dir == ""
	}
	return false
}

// ownNBest accepts what NBestFiles writes into its folder.
func ownNBest(rel string, isDir bool) bool { return !isDir && nbestName.MatchString(rel) }

var nbestName = regexp.MustCompile(`^(labels_[0-9]{2,}\.txt|tracks_[0-9]{2,}\.dat|nbest\.json)$`)

// NBestFilesOptions is one run of `densify nbest` (NBestFiles).
type NBestFilesOptions struct {
	Graph, Labels string // instance and the solution's labelling
	Tracks        string // Tracks file of the nodes ("" = no labelled Tracks files)
	GT            string // ground truth ("" = no scores; needs Tracks)
	Out           string // output folder
	NBest         NBestOptions
}

// NBestFiles reads the instance (and the optional Tracks file and ground
// truth), generates the alternatives (NBest, UAI'21 Sec. 4.2) and writes them
// with WriteNBest into a folder beside Out that then replaces Out as a
// whole (Out must be new, empty or hold an earlier nbest's files, which is
// checked before any work).
func NBestFiles(opt NBestFilesOptions) (*NBestReport, error) {
	if opt.GT != "" && opt.Tracks == "" {
		return nil, fmt.Errorf("--gt needs --tracks")
	}
	if err := atomicfile.CheckReplaceable(opt.Out, "--out", ownNBest); err != nil {
		return nil, err
	}
	g, labels, err := LoadInstance(opt.Graph, opt.Labels)
	if err != nil {
		return nil, err
	}
	var ts *trajectory.TrackSet
	if opt.Tracks != "" {
		if ts, err = LoadTracks(opt.Tracks, g.N); err != nil {
			return nil, err
		}
	}
	var gt *dataset.GroundTruth
	if opt.GT != "" {
		if gt, err = dataset.LoadGroundTruth(opt.GT); err != nil {
			return nil, err
		}
	}
	alts, err := NBest(g, labels, opt.NBest)
	if err != nil {
		return nil, fmt.Errorf("%s + %s: %w", opt.Graph, opt.Labels, err)
	}
	// Built beside opt.Out, which it replaces as a whole: no labelling of
	// an earlier, longer list stays beside the new ones.
	tmp, err := atomicfile.TempDir(opt.Out)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	rep, err := WriteNBest(tmp, alts, ts, gt)
	if err != nil {
		return nil, err
	}
	return rep, atomicfile.ReplaceDir(tmp, filepath.Clean(opt.Out))
}

// ZipInputs pairs the i-th graph, labels, Tracks file, ground truth and
// (optional) name of repeated command-line flags into sequence inputs.
func ZipInputs(graphs, labels, tracks, gts, names []string) ([]SequenceInput, error) {
	n := len(graphs)
	if len(labels) != n || len(tracks) != n || len(gts) != n || (len(names) != 0 && len(names) != n) {
		return nil, fmt.Errorf("give --graph, --labels, --tracks and --gt (and --name) the same number of times (got %d, %d, %d, %d)",
			len(graphs), len(labels), len(tracks), len(gts))
	}
	ins := make([]SequenceInput, n)
	for i := range ins {
		ins[i] = SequenceInput{Graph: graphs[i], Labels: labels[i], Tracks: tracks[i], GT: gts[i]}
		if len(names) > 0 {
			ins[i].Name = names[i]
		}
	}
	return ins, nil
}

// WriteTable prints the areas under the curves and the VI at both ends per
// sequence and ordering, then the mean over the sequences when there is one.
func (s *SparsifySummary) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "%-20s %-11s %9s %9s %9s %9s %s\n", "sequence", "ordering", "AUC-VI", "AUC-RI", "VI@0", "VI@max", "VI falls")
	seqs := s.Sequences
	if s.Mean != nil {
		seqs = append(seqs[:len(seqs):len(seqs)], *s.Mean)
	}
	for _, q := range seqs {
		for _, c := range q.Curves {
			fmt.Fprintf(w, "%-20s %-11s %9.4f %9.4f %9.4f %9.4f %v\n", q.Name, c.Name, c.AUCVI, c.AUCRI, c.VIStart, c.VIEnd, c.VIFalls)
		}
	}
}

// WriteCalibrationTable prints the calibration per sequence: nodes with a
// region, the share of wrong labels, the AUC of u and of the likelihood
// baseline, the expected calibration error at T = 1 and at the temperature
// fitted on the other sequences, the AUC and ECE of the error model fitted
// on them, and the hard examples: how many, the share of wrong labels among
// them, how many the held-out error model calls right (P ≥ RightCut) and
// the share of wrong labels among those ("–" where there is none).
func (s *SparsifySummary) WriteCalibrationTable(w io.Writer) {
	c := s.Calibration
	fmt.Fprintf(w, "%-20s %8s %7s %7s %7s %8s %8s %8s %9s %9s %6s %7s %10s %10s\n", "sequence", "nodes", "wrong", "AUC-u", "AUC-lik", "ECE T=1", "T LOSO", "ECE LOSO",
		"AUC model", "ECE model", "hard", "wrong", "hard right", "wrong")
	opt := func(x *float64, f string) string {
		if x == nil {
			return "–"
		}
		return fmt.Sprintf(f, *x)
	}
	share := func(k, n int) string {
		if n == 0 {
			return "–"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(k)/float64(n))
	}
	for _, q := range c.Sequences {
		fmt.Fprintf(w, "%-20s %8d %7s %7s %7s %8.4f %8s %8s %9s %9s %6d %7s %10d %10s\n", q.Name, q.Nodes, share(q.Wrong, q.Nodes), opt(q.AUC, "%.3f"), opt(q.AUCLikelihood, "%.3f"),
			q.ECE, opt(q.LOSOT, "%.1f"), opt(q.LOSOECE, "%.4f"), opt(q.ModelAUC, "%.3f"), opt(q.ModelECE, "%.4f"),
			q.Hard, share(q.HardWrong, q.Hard), q.HardRight, share(q.HardRightWrong, q.HardRight))
	}
	fmt.Fprintf(w, "temperature fitted on all %d sequences: %.2f\n", len(c.Sequences), c.Temperature)
	if m := c.ErrorModel; m != nil {
		fmt.Fprintf(w, "error model fitted on all %d sequences: P(wrong) = σ(%.4f %+.5f·γ %+.4f·slog γ %+.4f·[γ = ∞] %+.4f·log10 μ_A)\n",
			len(c.Sequences), m.Theta[0], m.Theta[1], m.Theta[2], m.Theta[3], m.Theta[4])
	}
}

// ownHeatmap accepts what ComputeFiles writes into the heat-map folder,
// which it replaces as a whole: heat_NNNNN.png.
func ownHeatmap(rel string, isDir bool) bool { return !isDir && heatmapName.MatchString(rel) }

var heatmapName = regexp.MustCompile(`^heat_[0-9]{5,}\.png$`)
