package pipeline

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/densify/densify/internal/atomicfile"
)

// DefaultAblationVariants are the variants `densify ablate` trains: the
// baseline without uncertainty, the hard examples of Kardoost & Keuper (UAI
// 2021, Sec. 4.3), the calibrated uncertainty read as label noise, the most
// uncertain labels dropped, and the hard examples that are probably right.
var DefaultAblationVariants = []Variant{VariantUniform, VariantWeighted, VariantConfidence, VariantPrune, VariantHardRight}

// AblationCell is one variant on one sequence: the dense scores of its
// seeds (nil where a seed has none) and the mean and sample standard
// deviation of F and J over the seeds that have scores, and of J away from
// the thin parts of the annotation (Scores.JAwayFromThin) over the seeds that
// have it (N = 0 for scores of masks without a DAVIS annotation, or written
// before it existed).
type AblationCell struct {
	Seeds []*Scores `json:"seeds"`
	F     MeanSD    `json:"f"`
	J     MeanSD    `json:"j"`
	JThin MeanSD    `json:"j_away_from_thin_parts"`
}

// MeanSD is a mean and sample standard deviation (0 for fewer than two
// values) over N values.
type MeanSD struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

func meanSD(x []float64) MeanSD {
	m := MeanSD{N: len(x)}
	if m.N == 0 {
		return m
	}
	for _, v := range x {
		m.Mean += v
	}
	m.Mean /= float64(m.N)
	if m.N > 1 {
		ss := 0.0
		for _, v := range x {
			ss += (v - m.Mean) * (v - m.Mean)
		}
		m.SD = math.Sqrt(ss / float64(m.N-1))
	}
	return m
}

// AblationRow is one sequence of the ablation.
type AblationRow struct {
	Sequence string                    `json:"sequence"`
	Cells    map[Variant]*AblationCell `json:"cells"`
}

// Comparison is one variant against the uniform baseline over the
// sequences where both have scores: the paired difference of the seed-mean F
// per sequence (ΔF_s = F̄_s(variant) − F̄_s(uniform)), its mean, the number of
// sequences where it is positive, and the spread across seeds, the mean over
// those sequences of ½(sd_s(variant) + sd_s(uniform)) of F. Exceeds says
// whether |mean ΔF| is larger than that spread (false with one seed, where
// the spread is unknown).
type Comparison struct {
	Variant   Variant   `json:"variant"`
	Sequences []string  `json:"sequences"`
	DeltaF    []float64 `json:"delta_f"`
	MeanDelta float64   `json:"mean_delta_f"`
	Helped    int       `json:"helped"`
	Spread    float64   `json:"spread"`
	Seeds     int       `json:"seeds"`
	Exceeds   bool      `json:"exceeds_spread"`
}

// Ablation is the ablation table (UAI'21 Table 1, with seeds and a third
// variant): per sequence and variant the scores of every seed; per variant
// the mean over sequences of the seed-mean F and J; and every variant
// compared with uniform.
type Ablation struct {
	Variants []Variant          `json:"variants"`
	Rows     []AblationRow      `json:"rows"`
	MeanF    map[Variant]MeanSD `json:"mean_f"` // over sequences, of the seed means
	MeanJ    map[Variant]MeanSD `json:"mean_j"`
	// MeanJThin is the mean over sequences of the seed-mean J away from
	// thin parts, over the sequences that have it; the tables print it only
	// when that is every sequence of MeanJ.
	MeanJThin   map[Variant]MeanSD `json:"mean_j_away_from_thin_parts"`
	Comparisons []Comparison       `json:"comparisons"`
}

// NewAblation builds the table from the runs' scores: scores[seq][variant]
// lists the seeds' scores in seed order (nil entries: no score).
func NewAblation(variants []Variant, seqs []string, scores map[string]map[Variant][]*Scores) *Ablation {
	a := &Ablation{Variants: variants, MeanF: map[Variant]MeanSD{}, MeanJ: map[Variant]MeanSD{}, MeanJThin: map[Variant]MeanSD{}}
	perF, perJ, perT := map[Variant][]float64{}, map[Variant][]float64{}, map[Variant][]float64{}
	for _, s := range seqs {
		row := AblationRow{Sequence: s, Cells: map[Variant]*AblationCell{}}
		for _, v := range variants {
			c := &AblationCell{Seeds: scores[s][v]}
			var f, j, th []float64
			for _, sc := range c.Seeds {
				if sc != nil {
					f, j = append(f, sc.F), append(j, sc.JMean)
					if sc.JAwayFromThin != nil {
						th = append(th, *sc.JAwayFromThin)
					}
				}
			}
			c.F, c.J, c.JThin = meanSD(f), meanSD(j), meanSD(th)
			row.Cells[v] = c
			if c.F.N > 0 {
				perF[v], perJ[v] = append(perF[v], c.F.Mean), append(perJ[v], c.J.Mean)
			}
			if c.JThin.N > 0 {
				perT[v] = append(perT[v], c.JThin.Mean)
			}
		}
		a.Rows = append(a.Rows, row)
	}
	for _, v := range variants {
		a.MeanF[v], a.MeanJ[v], a.MeanJThin[v] = meanSD(perF[v]), meanSD(perJ[v]), meanSD(perT[v])
	}
	if !slices.Contains(variants, VariantUniform) {
		return a
	}
	for _, v := range variants {
		if v == VariantUniform || v == VariantOracle {
			continue
		}
		c := Comparison{Variant: v}
		spread := 0.0
		for _, r := range a.Rows {
			cv, cu := r.Cells[v], r.Cells[VariantUniform]
			if cv.F.N == 0 || cu.F.N == 0 {
				continue
			}
			d := cv.F.Mean - cu.F.Mean
			c.Sequences, c.DeltaF = append(c.Sequences, r.Sequence), append(c.DeltaF, d)
			c.MeanDelta += d
			if d > 0 {
				c.Helped++
			}
			spread += (cv.F.SD + cu.F.SD) / 2
			c.Seeds = max(c.Seeds, min(cv.F.N, cu.F.N))
		}
		if n := len(c.DeltaF); n > 0 {
			c.MeanDelta /= float64(n)
			c.Spread = spread / float64(n)
			c.Exceeds = c.Seeds > 1 && math.Abs(c.MeanDelta) > c.Spread
		}
		a.Comparisons = append(a.Comparisons, c)
	}
	return a
}

func pm(m MeanSD) string {
	switch {
	case m.N == 0:
		return "–"
	case m.N == 1:
		return fmt.Sprintf("%.2f", 100*m.Mean)
	default:
		return fmt.Sprintf("%.2f ± %.2f", 100*m.Mean, 100*m.SD)
	}
}

// Markdown writes two tables: per sequence the dense F and J of every
// variant (percent, mean ± sd over the seeds), and J away from the thin
// parts of the annotation when some model has it, then the means over the
// sequences; and every variant against uniform (mean ΔF, sequences helped,
// seed spread, whether ΔF exceeds it). Missing values are "–"; so is the
// mean J away from thin parts of a variant when some of its sequences lack
// it (a mean over fewer sequences than J's would not compare).
func (a *Ablation) Markdown(w io.Writer) error {
	var b strings.Builder
	thin := a.hasThin()
	cols := 2
	b.WriteString("| sequence |")
	for _, v := range a.Variants {
		fmt.Fprintf(&b, " F (%s) |", v)
	}
	for _, v := range a.Variants {
		fmt.Fprintf(&b, " J (%s) |", v)
	}
	if thin {
		cols = 3
		for _, v := range a.Variants {
			fmt.Fprintf(&b, " J away from thin parts (%s) |", v)
		}
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", cols*len(a.Variants)) + "\n")
	for _, r := range a.Rows {
		b.WriteString("| " + r.Sequence + " |")
		for _, v := range a.Variants {
			b.WriteString(" " + pm(r.Cells[v].F) + " |")
		}
		for _, v := range a.Variants {
			b.WriteString(" " + pm(r.Cells[v].J) + " |")
		}
		if thin {
			for _, v := range a.Variants {
				b.WriteString(" " + pm(r.Cells[v].JThin) + " |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("| **mean** |")
	for _, v := range a.Variants {
		b.WriteString(" " + mean1(a.MeanF[v]) + " |")
	}
	for _, v := range a.Variants {
		b.WriteString(" " + mean1(a.MeanJ[v]) + " |")
	}
	if thin {
		for _, v := range a.Variants {
			m := a.MeanJThin[v]
			if m.N != a.MeanJ[v].N {
				m = MeanSD{}
			}
			b.WriteString(" " + mean1(m) + " |")
		}
	}
	b.WriteString("\n")
	if len(a.Comparisons) > 0 {
		b.WriteString("\n| variant vs uniform | mean ΔF | helps on | seed spread of F | ΔF beyond the spread |\n|---|---:|---:|---:|---|\n")
		for _, c := range a.Comparisons {
			if len(c.DeltaF) == 0 {
				fmt.Fprintf(&b, "| %s | – | – | – | – |\n", c.Variant)
				continue
			}
			spread, beyond := "one seed", "unknown (one seed)"
			if c.Seeds > 1 {
				spread = fmt.Sprintf("%.2f", 100*c.Spread)
				beyond = map[bool]string{true: "yes", false: "no"}[c.Exceeds]
			}
			fmt.Fprintf(&b, "| %s | %+.2f | %d of %d | %s | %s |\n", c.Variant, 100*c.MeanDelta, c.Helped, len(c.DeltaF), spread, beyond)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// hasThin says whether some model of the table has J away from thin parts.
func (a *Ablation) hasThin() bool {
	for _, r := range a.Rows {
		for _, c := range r.Cells {
			if c.JThin.N > 0 {
				return true
			}
		}
	}
	return false
}

func mean1(m MeanSD) string {
	if m.N == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", 100*m.Mean)
}

// CSV writes sequence,variant,seed,precision,recall,f,iou,j_mean,
// j_away_thin rows, one per scored model (fractions with 6 decimals; seed is
// the 1-based index; j_away_thin is empty where the scores lack it).
func (a *Ablation) CSV(w io.Writer) error {
	var b strings.Builder
	b.WriteString("sequence,variant,seed,precision,recall,f,iou,j_mean,j_away_thin\n")
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }
	for _, r := range a.Rows {
		for _, v := range a.Variants {
			for k, s := range r.Cells[v].Seeds {
				if s == nil {
					continue
				}
				thin := ""
				if s.JAwayFromThin != nil {
					thin = f(*s.JAwayFromThin)
				}
				fmt.Fprintf(&b, "%s,%s,%d,%s,%s,%s,%s,%s,%s\n", r.Sequence, v, k+1, f(s.Precision), f(s.Recall), f(s.F), f(s.IoU), f(s.JMean), thin)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Write stores ablation.md and ablation.csv in dir.
func (a *Ablation) Write(dir string) error {
	if err := atomicfile.Write(filepath.Join(dir, "ablation.md"), func(w io.Writer) error {
		if _, err := io.WriteString(w, "# Ablation: uncertainty in training (UAI'21 Table 1)\n\n"+
			"Dense masks scored with the FBMS protocol (F, percent) and DAVIS J (mean per-frame IoU, percent),\n"+
			"mean ± sd over the seeds. Every variant of a sequence shares the trajectories, segmentation,\n"+
			"training set, seeds and training budget: \"uniform\" uses the class balance only, \"weighted\"\n"+
			"multiplies the loss of hard examples (u_v > μ_A in segments with μ_A > φ) by the factor,\n"+
			"\"confidence\" weights every label by 1 − 2u, \"oracle\" trains uniform on ground-truth labels.\n\n"); err != nil {
			return err
		}
		return a.Markdown(w)
	}); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "ablation.csv"), a.CSV)
}

// AblationOf builds the ablation table of a report's sequences.
func AblationOf(rep *Report, variants []Variant) *Ablation {
	scores := map[string]map[Variant][]*Scores{}
	var seqs []string
	for _, s := range rep.Sequences {
		seqs = append(seqs, s.Name)
		m := map[Variant][]*Scores{}
		for _, v := range variants {
			var list []*Scores
			if d := s.Dense[v]; d != nil {
				list = append(list, d.Scores)
			}
			for _, d := range s.Repeats[v] {
				list = append(list, d.Scores)
			}
			m[v] = list
		}
		scores[s.Name] = m
	}
	return NewAblation(variants, seqs, scores)
}

// Ablate runs the chain with the given variants (default
// DefaultAblationVariants; uniform, the baseline, is always added) and
// Options.Seeds seeds on every selected sequence of root (upstream stages
// shared, computed once), writes the run report and ablation.md /
// ablation.csv into work, and returns the table. With opt.Shard it runs its
// part only and writes no table (densify report writes them, see Merge,
// once every shard has finished).
func Ablate(ctx context.Context, root, work string, opt Options, variants ...Variant) (*Ablation, *Report, error) {
	if len(variants) == 0 {
		variants = DefaultAblationVariants
	}
	if !slices.Contains(variants, VariantUniform) {
		variants = append([]Variant{VariantUniform}, variants...)
	}
	rep, runErr := run(ctx, root, work, opt, "ablate", variants)
	if rep == nil || opt.Shard.Active() {
		return nil, rep, runErr
	}
	a := AblationOf(rep, variants)
	if err := a.Write(work); err != nil {
		return a, rep, err
	}
	return a, rep, runErr
}
