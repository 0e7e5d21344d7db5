package eval

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/fileerr"
	"github.com/densify/densify/internal/listfile"
	"github.com/densify/densify/internal/morph"
	"github.com/densify/densify/trajectory"
)

// ScoreFiles scores target against the ground truth gt: a target folder is
// read as dense PNG masks (ReadMaskDir), a file as a Tracks*.dat.
func ScoreFiles(gt *dataset.GroundTruth, target string, opt Options) (*Result, error) {
	st, err := os.Stat(target)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		masks, err := ReadMaskDir(target, gt)
		if err != nil {
			return nil, err
		}
		return Masks(gt, masks, opt)
	}
	return ScoreTracks(gt, target, opt)
}

// ScoreTracks scores the Tracks*.dat file path against gt; a folder is an
// error (it would otherwise be read as masks, see ScoreFiles).
func ScoreTracks(gt *dataset.GroundTruth, path string, opt Options) (*Result, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a Tracks*.dat file (dense masks are scored with --masks)", path)
	}
	ts, err := trajectory.ReadTracks(path)
	if err != nil {
		return nil, err
	}
	if len(gt.Frames) > 0 {
		if err := ts.CheckBounds(path, gt.Frames[0].Width, gt.Frames[0].Height); err != nil {
			return nil, fmt.Errorf("%w (ground truth %s)", err, gt.Path)
		}
	}
	target := path
	r, err := Sequence(gt, ts, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", target, err)
	}
	return r, nil
}

// BestOfN returns, for n = 1..len(results), the best F among the first n
// results (Kardoost & Keuper, UAI 2021, Fig. 6: F of the best of the n
// lowest-energy labelings), and the index of the overall best (−1 when
// there is none). Nil results are skipped.
func BestOfN(results []*Result) (best []float64, bestIndex int) {
	bestIndex = -1
	bf := 0.0
	best = make([]float64, len(results))
	for i, r := range results {
		if r != nil && (bestIndex < 0 || r.F > bf) {
			bf, bestIndex = r.F, i
		}
		best[i] = bf
	}
	return best, bestIndex
}

// ListEntry is one line of a dataset list.
type ListEntry struct {
	Name   string // sequence name (third field, or derived from the GT path)
	GT     string // Def.dat, DAVIS annotation folder or sequence folder
	Target string // Tracks*.dat file or mask folder
}

// ReadList reads a dataset list: one sequence per line, "<gt> <target>
// [name]", '#' starting a comment; relative paths are relative to the
// list's folder. Fields are separated by tabs when the line holds a tab
// (then paths may contain spaces), by white space otherwise (see
// internal/listfile). Without a name, the sequence is named
// after the GT path (a "…Def.dat" file loses that suffix; a folder named
// GroundTruth is named after its parent).
func ReadList(path string) ([]ListEntry, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return ParseList(fh, path, filepath.Dir(path))
}

// ParseList parses a dataset list (see ReadList) read from r; name is used
// in error messages, base resolves relative paths.
func ParseList(r io.Reader, name, base string) ([]ListEntry, error) {
	path := name
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	var out []ListEntry
	byName, byGT := map[string]int{}, map[string]int{} // → line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		f := listfile.Fields(sc.Text())
		switch len(f) {
		case 0:
			continue
		case 2, 3:
		default:
			return nil, fileerr.New(path, line, "want \"<ground truth> <tracks file or mask folder> [name]\" (separate the fields by tabs when a path contains spaces), got %d fields", len(f))
		}
		e := ListEntry{GT: abs(f[0]), Target: abs(f[1])}
		if len(f) == 3 {
			e.Name = f[2]
		} else {
			e.Name = SequenceName(f[0])
		}
		// A name is one row of the report, and a sequence counts once in
		// the means.
		if i := strings.IndexFunc(e.Name, unicode.IsControl); i >= 0 {
			return nil, fileerr.New(path, line, "sequence name %q holds the control character %U", e.Name, []rune(e.Name[i:])[0])
		}
		if l, ok := byName[e.Name]; ok {
			return nil, fileerr.New(path, line, "sequence %q is listed twice (also on line %d): it would count twice in the means", e.Name, l)
		}
		if l, ok := byGT[filepath.Clean(e.GT)]; ok {
			return nil, fileerr.New(path, line, "the ground truth %s is listed twice (also on line %d): its sequence would count twice in the means", e.GT, l)
		}
		byName[e.Name], byGT[filepath.Clean(e.GT)] = line, line
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fileerr.New(path, line+1, "%v", err)
	}
	if len(out) == 0 {
		return nil, fileerr.New(path, line, "no sequence listed")
	}
	return out, nil
}

// SequenceName derives a sequence name from a ground-truth path:
// "cars1Def.dat" → "cars1", ".../cars1/GroundTruth" → "cars1", a DAVIS
// annotation folder → its name.
func SequenceName(gtPath string) string {
	p := filepath.Clean(gtPath)
	b := filepath.Base(p)
	switch {
	case strings.HasSuffix(b, "Def.dat") && len(b) > len("Def.dat"):
		return strings.TrimSuffix(b, "Def.dat")
	case strings.EqualFold(b, "GroundTruth"):
		return filepath.Base(filepath.Dir(p))
	case strings.HasSuffix(b, ".dat"):
		return strings.TrimSuffix(b, ".dat")
	}
	return b
}

func pct(v float64) string { return fmt.Sprintf("%.2f", 100*v) }

// WriteReport writes a MoSegEval-like report of one sequence (percent).
func WriteReport(w io.Writer, title string, r *Result) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Evaluation results for: %s\n", title)
	ev := "all"
	if r.EvalFrames > 0 {
		ev = fmt.Sprint(r.EvalFrames)
	}
	fmt.Fprintf(bw, "Frames used from the sequence: %s; labelled frames in this window: %d\n", ev, r.LabelledFrames)
	fmt.Fprintf(bw, "Clusters: %d; visible regions (with background): %d\n\n", r.Clusters, r.Regions)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cluster\tlabel\tregion\tP(%)\tR(%)\tF(%)\t")
	for _, p := range r.Pairs {
		lab, reg := fmt.Sprint(p.Label), fmt.Sprint(p.Region)
		if p.Empty && (p.Label < 0 || p.Cluster >= r.Clusters) {
			lab = "(empty)"
		}
		if p.Region < 0 {
			reg = "-1"
		}
		if !p.Counted {
			fmt.Fprintf(tw, "%d\t%s\t%s\t\t\t(ignored)\t\n", p.Cluster, lab, reg)
			continue
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t\n", p.Cluster, lab, reg, pct(p.Precision), pct(p.Recall), pct(p.F))
	}
	tw.Flush()
	fmt.Fprintf(bw, "\nAverage region density:  %.2f %%\n", r.AvgRegionDensity)
	fmt.Fprintf(bw, "Density:                 %.2f %%\n", r.Density)
	fmt.Fprintf(bw, "Precision, Recall, F:    %s  %s  %s %%\n", pct(r.Precision), pct(r.Recall), pct(r.F))
	fmt.Fprintf(bw, "Extracted objects (F > %.2f, excluding background): %d of %d visible objects\n", r.Threshold, r.Objects, r.Visible)
	fmt.Fprintf(bw, "Foreground IoU (pooled): %s %%; J mean over frames: %s %%\n", pct(r.IoU), pct(r.JMean))
	fmt.Fprintf(bw, "DAVIS 2016 benchmark (first and last frame left out): J mean %s %%, J recall (frames with J > 50 %%) %s %%, J decay (first quarter − last quarter) %s %%\n",
		pct(r.JMeanBenchmark), pct(r.JRecall), pct(r.JDecay))
	if r.JMeanAwayFromThin != nil {
		fmt.Fprintf(bw, "J mean away from object parts thinner than %d px: %s %%\n", 2*morph.ThinRadius+1, pct(*r.JMeanAwayFromThin))
	}
	if r.JMeanWithThinParts != nil {
		fmt.Fprintf(bw, "J mean with every object part thinner than %d px added to the masks (a bound): %s %%\n", 2*morph.ThinRadius+1, pct(*r.JMeanWithThinParts))
	}
	if r.JMeanWithoutHoles != nil {
		fmt.Fprintf(bw, "J mean with the object's holes taken out of the masks (a bound): %s %%\n", pct(*r.JMeanWithoutHoles))
	}
	return bw.Flush()
}

// WriteTable writes one row per sequence and the MoSegEvalAllPR summary
// (P, R, F in percent, F from the mean P and R; objects of visible objects).
func WriteTable(w io.Writer, s *Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "sequence\tframes\tclusters\tP(%)\tR(%)\tF(%)\tobjects\tdensity(%)\tavg.reg.dens(%)\tIoU(%)\tJ(%)\tJ bench.(%)\tJ recall(%)\tJ decay(%)\t")
	for _, q := range s.Sequences {
		r := q.Result
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%d/%d\t%.2f\t%.2f\t%s\t%s\t%s\t%s\t%s\t\n", q.Name, r.LabelledFrames, r.Clusters,
			pct(r.Precision), pct(r.Recall), pct(r.F), r.Objects, r.Visible, r.Density, r.AvgRegionDensity, pct(r.IoU),
			pct(r.JMean), pct(r.JMeanBenchmark), pct(r.JRecall), pct(r.JDecay))
	}
	fmt.Fprintf(tw, "all (%d)\t\t\t%s\t%s\t%s\t%d/%d\t%.2f\t%.2f\t%s\t%s\t%s\t%s\t%s\t\n", s.Count,
		pct(s.Precision), pct(s.Recall), pct(s.F), s.Objects, s.Visible, s.Density, s.AvgRegionDensity, pct(s.IoU),
		pct(s.JMean), pct(s.JMeanBenchmark), pct(s.JRecall), pct(s.JDecay))
	fmt.Fprintf(tw, "std.dev.\t\t\t%s\t%s\t\t\t\t\t\t\t\t\t\t\n", pct(s.PrecisionStd), pct(s.RecallStd))
	return tw.Flush()
}
