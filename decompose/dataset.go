package decompose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/densify/densify/bsds"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/parallel"
	"github.com/densify/densify/uncertainty"
)

// DatasetOptions name a split folder for RunDataset.
type DatasetOptions struct {
	Images string // folder of .jpg images
	GTDir  string // folder of <id>.mat ground truth ("" = no evaluation)
	Out    string
	Limit  int       // first N images only (0 = all)
	Log    io.Writer // progress lines (nil = none)
	// Workers is the number of images decomposed at the same time (≤ 0:
	// 1). Every stage of one image runs on one core, so n workers use up
	// to n cores and n times one image's memory (~0.5 GiB of live heap
	// for 481×321). The outputs do not depend on it; the per-image
	// seconds include the contention of the other workers.
	Workers int
	Options
}

// Reference are the gPb-owt-ucm region scores on the BSDS-500 test split
// (Arbelaez et al., TPAMI 2011, Table 3; ODS), as quoted in the data README.
var Reference = RegionScores{VI: 1.69, PRI: 0.83, Covering: 0.59}

// DatasetSummary is summary.json of a split.
type DatasetSummary struct {
	Images  int            `json:"images"`
	Options Options        `json:"options"`
	PerImg  []ImageRow     `json:"per_image"`
	Mean    *DatasetMeans  `json:"mean,omitempty"`
	Timing  map[string]any `json:"timing"`
}

// ImageRow is one line of images.csv.
type ImageRow struct {
	ID       string             `json:"id"`
	Segments int                `json:"segments"`
	Regions  RegionScores       `json:"regions"`
	VIAUC    map[string]float64 `json:"vi_auc"`
	RIAUC    map[string]float64 `json:"ri_auc"`
	Share10  map[string]float64 `json:"boundary_share_first10"`
	Seconds  float64            `json:"seconds"`
}

// DatasetMeans are the split averages.
type DatasetMeans struct {
	Regions RegionScores `json:"regions"`
	// VIAUC, RIAUC: area under the mean curves per ordering.
	VIAUC map[string]float64 `json:"vi_auc"`
	RIAUC map[string]float64 `json:"ri_auc"`
	// The orderings of Kardoost & Keuper (UAI 2021) at the top level, copies of the per-ordering
	// shares below: ProposedBelowLikelihood = BelowLikelihood["proposed"],
	// ProposedBelowRandom = BelowRandom["proposed"], LikelihoodBelowRandom
	// = BelowRandom["likelihood"], BothBelowRandom (proposed and likelihood
	// both below random) = WithLikelihoodBelowRandom["proposed"].
	ProposedBelowLikelihood float64            `json:"share_proposed_below_likelihood"`
	ProposedBelowRandom     float64            `json:"share_proposed_below_random"`
	LikelihoodBelowRandom   float64            `json:"share_likelihood_below_random"`
	BothBelowRandom         float64            `json:"share_both_below_random"`
	Share10                 map[string]float64 `json:"boundary_share_first10"`
	// BelowLikelihood is, per ordering, the share of images whose VI-AUC is
	// below the likelihood ordering's; BelowRandom the share below the
	// random ordering's.
	BelowLikelihood map[string]float64 `json:"share_below_likelihood"`
	BelowRandom     map[string]float64 `json:"share_below_random"`
	// WithLikelihoodBelowRandom is, per ordering, the share of images where
	// it and the likelihood ordering are both below the random one
	// (BothBelowRandom for that ordering).
	WithLikelihoodBelowRandom map[string]float64 `json:"share_with_likelihood_below_random"`
	// BySegments splits BelowLikelihood by the number of segments of the
	// image's decomposition (SegmentBins).
	BySegments []SegmentBin        `json:"by_segments"`
	Curves     []uncertainty.Curve `json:"curves"`
}

// RunDataset decomposes every image of a split into Out/<id>/ (RunImage),
// showing progress, and writes Out/images.csv, Out/curves.csv (per image and
// the mean), Out/vi.png and Out/ri.png (mean curves), Out/summary.json and
// Out/summary.md. An image whose Out/<id>/summary.json exists with the same
// options is not recomputed (a killed run resumes).
func RunDataset(o DatasetOptions) (*DatasetSummary, error) {
	items, err := bsds.List(o.Images, o.GTDir)
	if err != nil {
		return nil, err
	}
	if o.Limit > 0 && o.Limit < len(items) {
		items = items[:o.Limit]
	}
	o.Sparsify.defaults()
	sum := &DatasetSummary{Images: len(items), Options: o.Options}
	var sets [][]uncertainty.Curve
	var names []string
	start := time.Now()
	var secs float64
	done := 0
	summaries, err := forEachImage(items, o, func(k int, s *ImageSummary, reused bool) {
		it := items[k]
		done++
		if o.Log == nil {
			return
		}
		note := ""
		if reused {
			note = " (done before)"
		}
		line := fmt.Sprintf("decompose: %d/%d %s: %d segments, %.1f s%s", done, len(items), it.ID, s.Segments, s.Timing.Total, note)
		if ev := s.Evaluation; ev != nil {
			line += fmt.Sprintf(", VI %.3f, VI-AUC proposed %.4f likelihood %.4f random %.4f", ev.Regions.VI, ev.VIAUC["proposed"], ev.VIAUC["likelihood"], ev.VIAUC["random"])
		}
		fmt.Fprintln(o.Log, line)
	})
	if err != nil {
		return nil, err
	}
	for k, s := range summaries {
		it := items[k]
		row := ImageRow{ID: it.ID, Segments: s.Segments, Seconds: s.Timing.Total}
		secs += s.Timing.Total
		if ev := s.Evaluation; ev != nil {
			row.Regions, row.VIAUC, row.RIAUC, row.Share10 = ev.Regions, ev.VIAUC, ev.RIAUC, ev.BoundaryShare
			sets = append(sets, ev.Curves)
			names = append(names, it.ID)
		}
		sum.PerImg = append(sum.PerImg, row)
	}
	sum.Timing = map[string]any{"mean_image_s": secs / float64(len(items)), "wall_s": time.Since(start).Seconds()}
	if len(sets) > 0 {
		if sum.Mean, err = means(sum.PerImg, sets); err != nil {
			return nil, err
		}
		if err := writeCurvesCSV(filepath.Join(o.Out, "curves.csv"), append(names, "mean"), append(sets, sum.Mean.Curves)); err != nil {
			return nil, err
		}
		title := fmt.Sprintf("pixel sparsification: mean of %d images", len(sets))
		for _, m := range []string{"vi", "ri"} {
			if err := uncertainty.PlotCurvesOf(sum.Mean.Curves, m, title, "pixels", filepath.Join(o.Out, m+".png")); err != nil {
				return nil, err
			}
		}
	}
	if err := writeRows(filepath.Join(o.Out, "images.csv"), sum.PerImg); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(o.Out, "summary.json"), sum); err != nil {
		return nil, err
	}
	return sum, atomicfile.WriteBytes(filepath.Join(o.Out, "summary.md"), []byte(Markdown(sum)))
}

// forEachImage decomposes items (RunImage, or the stored summary that
// loadDone accepts) with o.Workers images at a time (parallel.For) and
// returns their summaries in the order of items. progress is called for
// every image as it finishes, one call at a time. The first error stops the
// images not yet started and is returned after the running ones have
// finished (each image's outputs are written atomically, so a later run
// resumes from the finished ones).
func forEachImage(items []bsds.Item, o DatasetOptions, progress func(k int, s *ImageSummary, reused bool)) ([]*ImageSummary, error) {
	out := make([]*ImageSummary, len(items))
	var mu sync.Mutex // one call of progress at a time
	err := parallel.For(len(items), max(o.Workers, 1), func(k int) error {
		it := items[k]
		iopt := ImageOptions{Image: it.Image, GT: it.GT, Out: filepath.Join(o.Out, it.ID), Options: o.Options}
		s, reused := loadDone(iopt)
		if s == nil {
			var err error
			if s, err = RunImage(iopt); err != nil {
				return err
			}
		}
		out[k] = s
		mu.Lock()
		progress(k, s, reused)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// loadDone returns the summary of an image already decomposed with the same
// options and evaluated with every ordering of Orderings (nil otherwise: the
// image is done again).
func loadDone(o ImageOptions) (*ImageSummary, bool) {
	data, err := os.ReadFile(filepath.Join(o.Out, "summary.json"))
	if err != nil {
		return nil, false
	}
	var s ImageSummary
	if json.Unmarshal(data, &s) != nil || s.Image != o.Image || s.GT != o.GT || s.Measures != MeasuresVersion {
		return nil, false
	}
	want := o.Options
	want.Sparsify.defaults()
	a, _ := json.Marshal(s.Options)
	b, _ := json.Marshal(want)
	if !bytes.Equal(a, b) || (o.GT != "" && s.Evaluation == nil) {
		return nil, false
	}
	if ev := s.Evaluation; ev != nil {
		for _, name := range Orderings { // written before an ordering was added
			if _, ok := ev.VIAUC[name]; !ok {
				return nil, false
			}
		}
	}
	return &s, true
}

func means(rows []ImageRow, sets [][]uncertainty.Curve) (*DatasetMeans, error) {
	m := &DatasetMeans{VIAUC: map[string]float64{}, RIAUC: map[string]float64{}, Share10: map[string]float64{}, BelowLikelihood: map[string]float64{}, BelowRandom: map[string]float64{}, WithLikelihoodBelowRandom: map[string]float64{}}
	var err error
	if m.Curves, err = uncertainty.AverageCurves(sets); err != nil {
		return nil, err
	}
	for _, c := range m.Curves {
		m.VIAUC[c.Name], m.RIAUC[c.Name] = c.AUCVI, c.AUCRI
	}
	n := 0.0
	for _, r := range rows {
		if r.VIAUC == nil {
			continue
		}
		n++
		m.Regions.VI += r.Regions.VI
		m.Regions.PRI += r.Regions.PRI
		m.Regions.Covering += r.Regions.Covering
		l, q := r.VIAUC["likelihood"], r.VIAUC["random"]
		for _, o := range Orderings {
			m.BelowLikelihood[o] += b2f(r.VIAUC[o] < l)
			m.BelowRandom[o] += b2f(r.VIAUC[o] < q)
			m.WithLikelihoodBelowRandom[o] += b2f(r.VIAUC[o] < q && l < q)
		}
		for k, v := range r.Share10 {
			m.Share10[k] += v
		}
	}
	m.Regions.VI /= n
	m.Regions.PRI /= n
	m.Regions.Covering /= n
	for k := range m.Share10 {
		m.Share10[k] /= n
	}
	for k := range m.BelowLikelihood {
		m.BelowLikelihood[k] /= n
		m.BelowRandom[k] /= n
		m.WithLikelihoodBelowRandom[k] /= n
	}
	// UAI'21's three orderings, kept at the top level of the JSON.
	m.ProposedBelowLikelihood = m.BelowLikelihood["proposed"]
	m.ProposedBelowRandom = m.BelowRandom["proposed"]
	m.LikelihoodBelowRandom = m.BelowRandom["likelihood"]
	m.BothBelowRandom = m.WithLikelihoodBelowRandom["proposed"]
	m.BySegments = bySegments(rows)
	return m, nil
}

// SegmentBins are the lower ends of the segment-count bins of
// DatasetMeans.BySegments: [1, 8), [8, 15), [15, 25), [25, 40), [40, ∞).
var SegmentBins = []int{1, 8, 15, 25, 40}

// SegmentBin is, for the images whose decomposition has Lo to Hi−1
// segments (Hi 0: no upper end), per ordering the share of them whose
// VI-AUC is below the likelihood's.
type SegmentBin struct {
	Lo              int                `json:"lo"`
	Hi              int                `json:"hi,omitempty"`
	Images          int                `json:"images"`
	BelowLikelihood map[string]float64 `json:"share_below_likelihood"`
}

// bySegments fills the SegmentBins from the evaluated rows.
func bySegments(rows []ImageRow) []SegmentBin {
	bins := make([]SegmentBin, len(SegmentBins))
	for i, lo := range SegmentBins {
		bins[i] = SegmentBin{Lo: lo, BelowLikelihood: map[string]float64{}}
		if i+1 < len(SegmentBins) {
			bins[i].Hi = SegmentBins[i+1]
		}
	}
	for _, r := range rows {
		if r.VIAUC == nil {
			continue
		}
		i := max(0, sort.SearchInts(SegmentBins, r.Segments+1)-1)
		bins[i].Images++
		for _, o := range Orderings {
			bins[i].BelowLikelihood[o] += b2f(r.VIAUC[o] < r.VIAUC["likelihood"])
		}
	}
	for i := range bins {
		for o := range bins[i].BelowLikelihood {
			bins[i].BelowLikelihood[o] /= float64(bins[i].Images)
		}
	}
	return bins
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func writeRows(path string, rows []ImageRow) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		fmt.Fprintln(w, "id,segments,vi,pri,covering,vi_auc_proposed,vi_auc_likelihood,vi_auc_random,vi_auc_proposed_layered,ri_auc_proposed,ri_auc_likelihood,ri_auc_random,boundary_share10_proposed,boundary_share10_likelihood,seconds,vi_auc_oracle,vi_auc_proposed_segment")
		for _, r := range rows {
			_, err := fmt.Fprintf(w, "%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.2f,%s,%s\n", r.ID, r.Segments,
				ff(r.Regions.VI), ff(r.Regions.PRI), ff(r.Regions.Covering),
				ff(r.VIAUC["proposed"]), ff(r.VIAUC["likelihood"]), ff(r.VIAUC["random"]), ff(r.VIAUC["proposed-layered"]),
				ff(r.RIAUC["proposed"]), ff(r.RIAUC["likelihood"]), ff(r.RIAUC["random"]),
				ff(r.Share10["proposed"]), ff(r.Share10["likelihood"]), r.Seconds, ff(r.VIAUC[Oracle]), ff(r.VIAUC["proposed-segment"]))
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// Markdown renders the split summary (the table scripts/bsds-eval.sh prints).
func Markdown(s *DatasetSummary) string {
	var b bytes.Buffer
	g := s.Options.Graph
	fmt.Fprintf(&b, "# Image decomposition: %d images\n\n", s.Images)
	post := "the solver's labelling"
	if g.MinSize > 1 {
		post = fmt.Sprintf("segments < %d px absorbed", g.MinSize)
	}
	fmt.Fprintf(&b, "Pixel lifted multicut (%d-neighbour E, %d lifted offsets per pixel up to radius %g, β = %g, %s), GAEC + KLj; mean %.1f s per image.\n\n",
		g.Neighbours, g.Lifted, g.Radius, g.Beta, post, s.Timing["mean_image_s"])
	m := s.Mean
	if m == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "## Sparsification (VI in nats, AUC over removed fraction 0–%g)\n\n", s.Options.Sparsify.Max)
	fmt.Fprintf(&b, "| ordering | VI-AUC (mean curve) | above the oracle | RI-AUC (mean curve) | boundary share of first 10 %% removed | images with VI-AUC below likelihood | below random |\n|---|---|---|---|---|---|---|\n")
	for _, o := range Orderings {
		share := fmt.Sprintf("%.3f", m.Share10[o])
		if o == Oracle { // one per annotator: no single removal mask
			share = "–"
		}
		fmt.Fprintf(&b, "| %s | %.4f | %.4f | %.4f | %s | %.0f %% | %.0f %% |\n", o, m.VIAUC[o], m.VIAUC[o]-m.VIAUC[Oracle], m.RIAUC[o], share, 100*m.BelowLikelihood[o], 100*m.BelowRandom[o])
	}
	fmt.Fprintf(&b, "\nThe oracle knows the annotations: against each annotator it removes first the pixels with the largest term of VI (eval.PointwiseVI); \"above the oracle\" is an ordering's VI-AUC minus the oracle's (the area between their mean curves).\n")
	fmt.Fprintf(&b, "\n**proposed-segment** (densify's measure: UAI'21's γ, its ties at +∞ ranked by the layered Γ, segments smaller than the mean floored at their μ_A; decompose.SegmentFloor): VI-AUC < likelihood on **%.0f %%** of the images, < random on %.0f %%; it and the likelihood both < random on **%.0f %%**.\n\n",
		100*m.BelowLikelihood["proposed-segment"], 100*m.BelowRandom["proposed-segment"], 100*m.WithLikelihoodBelowRandom["proposed-segment"])
	fmt.Fprintf(&b, "UAI'21's γ alone (proposed; u = 0 and ties broken at random for every pixel without an E-neighbour in another segment): VI-AUC < likelihood on %.0f %%; proposed < random: %.0f %%; likelihood < random: %.0f %%; both < random: %.0f %%.\n\n",
		100*m.ProposedBelowLikelihood, 100*m.ProposedBelowRandom, 100*m.LikelihoodBelowRandom, 100*m.BothBelowRandom)
	fmt.Fprintf(&b, "Layered γ (proposed-layered, Γ of decompose.Layered): VI-AUC < likelihood on %.0f %% of the images, < random on %.0f %%.\n\n",
		100*m.BelowLikelihood["proposed-layered"], 100*m.BelowRandom["proposed-layered"])
	fmt.Fprintf(&b, "By the number of segments of the decomposition, the share of images with VI-AUC below the likelihood's:\n\n| segments | images | proposed | proposed-layered | proposed-segment |\n|---|---|---|---|---|\n")
	for _, bin := range m.BySegments {
		span := fmt.Sprintf("≥ %d", bin.Lo)
		if bin.Hi > 0 {
			span = fmt.Sprintf("%d–%d", bin.Lo, bin.Hi-1)
		}
		if bin.Images == 0 {
			fmt.Fprintf(&b, "| %s | 0 | – | – | – |\n", span)
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %.0f %% | %.0f %% | %.0f %% |\n", span, bin.Images, 100*bin.BelowLikelihood["proposed"],
			100*bin.BelowLikelihood["proposed-layered"], 100*bin.BelowLikelihood["proposed-segment"])
	}
	fmt.Fprintf(&b, "\n## Region scores (mean over images of the mean over annotators)\n\n| | VI ↓ | PRI ↑ | covering ↑ |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| densify (this split) | %.3f | %.3f | %.3f |\n", m.Regions.VI, m.Regions.PRI, m.Regions.Covering)
	fmt.Fprintf(&b, "| gPb-owt-ucm (test split, ODS; Arbelaez et al. 2011) | %.2f | %.2f | %.2f |\n", Reference.VI, Reference.PRI, Reference.Covering)
	fmt.Fprintf(&b, "\nPlots: vi.png, ri.png (mean curves); per image: <id>/.\n")
	return b.String()
}
