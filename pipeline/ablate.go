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
// 2021, Sec. 4.3), the calibrated uncertainty read as label noise and the
// most uncertain labels dropped. VariantHardRight is left out: on the twenty
// DAVIS development sequences a quarter of the hard examples are wrong, and
// neither the temperature nor the error model (uncertainty.ErrorModel, on γ
// and μ_A) calls any of them right with probability 0.9, so it trains as
// uniform does (docs/results.md); --variants adds it.
var DefaultAblationVariants = []Variant{VariantUniform, VariantWeighted, VariantConfidence, VariantPrune}

// AblationCell is one variant on one sequence: the dense scores of its
// seeds (nil where a seed has none) and the mean and sample standard
// deviation of F and J over the seeds that have scores, and of J away from
// the thin parts of the annotation (Scores.JAwayFromThin) and the DAVIS 2016
// benchmark's J (Scores.JBenchmark) over the seeds that have them (N = 0 for
// scores of masks without a DAVIS annotation, or written before they
// existed).
type AblationCell struct {
	Seeds      []*Scores `json:"seeds"`
	F          MeanSD    `json:"f"`
	J          MeanSD    `json:"j"`
	JThin      MeanSD    `json:"j_away_from_thin_parts"`
	JBenchmark MeanSD    `json:"j_benchmark"`
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
// sequences where both have scores, for F and for J: the paired difference
// of the seed means per sequence (ΔF_s = F̄_s(variant) − F̄_s(uniform)), its
// mean, the number of sequences where it is positive, and the spread across
// seeds, the mean over those sequences of ½(sd_s(variant) + sd_s(uniform)).
// Exceeds says whether |mean Δ| is larger than that spread (false with one
// seed, where the spread is unknown). Default says whether the variant
// passes the rule by which a variant replaces uniform as the default of
// `densify run` (DefaultRuleShare).
type Comparison struct {
	Variant   Variant   `json:"variant"`
	Sequences []string  `json:"sequences"`
	DeltaF    []float64 `json:"delta_f"`
	MeanDelta float64   `json:"mean_delta_f"`
	Helped    int       `json:"helped"`
	Spread    float64   `json:"spread"`
	Seeds     int       `json:"seeds"`
	Exceeds   bool      `json:"exceeds_spread"`
	// the same for J
	DeltaJ     []float64 `json:"delta_j"`
	MeanDeltaJ float64   `json:"mean_delta_j"`
	HelpedJ    int       `json:"helped_j"`
	SpreadJ    float64   `json:"spread_j"`
	ExceedsJ   bool      `json:"exceeds_spread_j"`
	Default    bool      `json:"meets_default_rule"`
}

// DefaultRuleShare is the share of the sequences on which a variant must
// raise J, with a mean ΔJ above the seed spread, to become the default of
// `densify run` in place of uniform: 14 of the 20 development sequences.
const DefaultRuleShare = 0.7

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
	MeanJThin map[Variant]MeanSD `json:"mean_j_away_from_thin_parts"`
	// MeanJBenchmark is the same for the DAVIS 2016 benchmark's J.
	MeanJBenchmark map[Variant]MeanSD `json:"mean_j_benchmark"`
	Comparisons    []Comparison       `json:"comparisons"`
}

// NewAblation builds the table from the runs' scores: scores[seq][variant]
// lists the seeds' scores in seed order (nil entries: no score).
func NewAblation(variants []Variant, seqs []string, scores map[string]map[Variant][]*Scores) *Ablation {
	a := &Ablation{Variants: variants, MeanF: map[Variant]MeanSD{}, MeanJ: map[Variant]MeanSD{}, MeanJThin: map[Variant]MeanSD{}, MeanJBenchmark: map[Variant]MeanSD{}}
	perF, perJ, perT, perB := map[Variant][]float64{}, map[Variant][]float64{}, map[Variant][]float64{}, map[Variant][]float64{}
	for _, s := range seqs {
		row := AblationRow{Sequence: s, Cells: map[Variant]*AblationCell{}}
		for _, v := range variants {
			c := &AblationCell{Seeds: scores[s][v]}
			var f, j, th, bj []float64
			for _, sc := range c.Seeds {
				if sc != nil {
					f, j = append(f, sc.F), append(j, sc.JMean)
					if sc.JAwayFromThin != nil {
						th = append(th, *sc.JAwayFromThin)
					}
					if sc.JBenchmark != nil {
						bj = append(bj, *sc.JBenchmark)
					}
				}
			}
			c.F, c.J, c.JThin, c.JBenchmark = meanSD(f), meanSD(j), meanSD(th), meanSD(bj)
			row.Cells[v] = c
			if c.F.N > 0 {
				perF[v], perJ[v] = append(perF[v], c.F.Mean), append(perJ[v], c.J.Mean)
			}
			if c.JThin.N > 0 {
				perT[v] = append(perT[v], c.JThin.Mean)
			}
			if c.JBenchmark.N > 0 {
				perB[v] = append(perB[v], c.JBenchmark.Mean)
			}
		}
		a.Rows = append(a.Rows, row)
	}
	for _, v := range variants {
		a.MeanF[v], a.MeanJ[v], a.MeanJThin[v], a.MeanJBenchmark[v] = meanSD(perF[v]), meanSD(perJ[v]), meanSD(perT[v]), meanSD(perB[v])
	}
	if !slices.Contains(variants, VariantUniform) {
		return a
	}
	for _, v := range variants {
		if v == VariantUniform || v == VariantOracle {
			continue
		}
		c := Comparison{Variant: v}
		f := pairedDelta(a.Rows, v, func(c *AblationCell) MeanSD { return c.F })
		j := pairedDelta(a.Rows, v, func(c *AblationCell) MeanSD { return c.J })
		c.Sequences, c.Seeds = f.sequences, f.seeds
		c.DeltaF, c.MeanDelta, c.Helped, c.Spread, c.Exceeds = f.delta, f.mean, f.helped, f.spread, f.exceeds
		c.DeltaJ, c.MeanDeltaJ, c.HelpedJ, c.SpreadJ, c.ExceedsJ = j.delta, j.mean, j.helped, j.spread, j.exceeds
		c.Default = len(j.delta) > 0 && float64(j.helped) >= DefaultRuleShare*float64(len(j.delta)) && j.mean > 0 && j.exceeds
		a.Comparisons = append(a.Comparisons, c)
	}
	return a
}

// paired is one score of a variant against uniform (Comparison).
type paired struct {
	sequences []string
	delta     []float64
	mean      float64
	helped    int
	spread    float64
	seeds     int
	exceeds   bool
}

// pairedDelta pairs the score of(cell) of variant v with uniform's over the
// rows where both have it.
func pairedDelta(rows []AblationRow, v Variant, of func(*AblationCell) MeanSD) paired {
	var p paired
	for _, r := range rows {
		cv, cu := of(r.Cells[v]), of(r.Cells[VariantUniform])
		if cv.N == 0 || cu.N == 0 {
			continue
		}
		d := cv.Mean - cu.Mean
		p.sequences, p.delta = append(p.sequences, r.Sequence), append(p.delta, d)
		p.mean += d
		if d > 0 {
			p.helped++
		}
		p.spread += (cv.SD + cu.SD) / 2
		p.seeds = max(p.seeds, min(cv.N, cu.N))
	}
	if n := len(p.delta); n > 0 {
		p.mean /= float64(n)
		p.spread /= float64(n)
		if math.Abs(p.mean) < 1e-12 { // rounding of differences that cancel
			p.mean = 0
		}
		p.exceeds = p.seeds > 1 && math.Abs(p.mean) > p.spread
	}
	return p
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
// variant (percent, mean ± sd over the seeds), and J away from thin parts of
// the annotation and the DAVIS 2016 benchmark's J when some model has them,
// then the means over the sequences; and every variant against uniform
// (mean ΔF, sequences helped, seed spread, whether ΔF exceeds it, the same
// for J, and whether the variant meets the rule for the default of run).
// Missing values are "–"; so is the mean of an optional J of a variant when
// some of its sequences lack it (a mean over fewer sequences than J's would
// not compare).
func (a *Ablation) Markdown(w io.Writer) error {
	var b strings.Builder
	cols := []ablationColumn{
		{"F", func(c *AblationCell) MeanSD { return c.F }, a.MeanF, false},
		{"J", func(c *AblationCell) MeanSD { return c.J }, a.MeanJ, false},
	}
	for _, o := range []ablationColumn{
		{"J away from thin parts", func(c *AblationCell) MeanSD { return c.JThin }, a.MeanJThin, true},
		{"benchmark J", func(c *AblationCell) MeanSD { return c.JBenchmark }, a.MeanJBenchmark, true},
	} {
		if a.has(o.of) {
			cols = append(cols, o)
		}
	}
	b.WriteString("| sequence |")
	for _, c := range cols {
		for _, v := range a.Variants {
			fmt.Fprintf(&b, " %s (%s) |", c.title, v)
		}
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(cols)*len(a.Variants)) + "\n")
	for _, r := range a.Rows {
		b.WriteString("| " + r.Sequence + " |")
		for _, c := range cols {
			for _, v := range a.Variants {
				b.WriteString(" " + pm(c.of(r.Cells[v])) + " |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("| **mean** |")
	for _, c := range cols {
		for _, v := range a.Variants {
			m := c.mean[v]
			if c.optional && m.N != a.MeanJ[v].N {
				m = MeanSD{}
			}
			b.WriteString(" " + mean1(m) + " |")
		}
	}
	b.WriteString("\n")
	if len(a.Comparisons) > 0 {
		b.WriteString("\n| variant vs uniform | mean ΔF | helps F on | seed spread of F | ΔF beyond the spread | mean ΔJ | helps J on | seed spread of J | ΔJ beyond the spread | default of run by the rule |\n" +
			"|---|---:|---:|---:|---|---:|---:|---:|---|---|\n")
		for _, c := range a.Comparisons {
			if len(c.DeltaF) == 0 {
				fmt.Fprintf(&b, "| %s | – | – | – | – | – | – | – | – | – |\n", c.Variant)
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.Variant, deltaCells(c.MeanDelta, c.Helped, len(c.DeltaF), c.Seeds, c.Spread, c.Exceeds),
				deltaCells(c.MeanDeltaJ, c.HelpedJ, len(c.DeltaJ), c.Seeds, c.SpreadJ, c.ExceedsJ), map[bool]string{true: "yes", false: "no"}[c.Default])
		}
		fmt.Fprintf(&b, "\nThe rule: a variant replaces uniform as the default of `densify run` when it raises J on at least %.0f %% of the sequences with a mean ΔJ beyond the seed spread.\n", 100*DefaultRuleShare)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// deltaCells are the four cells of one paired score: mean Δ, helps on,
// seed spread, beyond the spread.
func deltaCells(mean float64, helped, n, seeds int, spread float64, exceeds bool) string {
	sp, beyond := "one seed", "unknown (one seed)"
	if seeds > 1 {
		sp = fmt.Sprintf("%.2f", 100*spread)
		beyond = map[bool]string{true: "yes", false: "no"}[exceeds]
	}
	return fmt.Sprintf("%+.2f | %d of %d | %s | %s", 100*mean, helped, n, sp, beyond)
}

// ablationColumn is one score of the per-sequence table: its title, the
// cell's value and the means over the sequences. An optional score (one
// that some models lack) prints its mean only for a variant that has it on
// every sequence of its J.
type ablationColumn struct {
	title    string
	of       func(*AblationCell) MeanSD
	mean     map[Variant]MeanSD
	optional bool
}

// has says whether some model of the table has the score of(cell).
func (a *Ablation) has(of func(*AblationCell) MeanSD) bool {
	for _, r := range a.Rows {
		for _, c := range r.Cells {
			if of(c).N > 0 {
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
// j_away_thin,j_benchmark rows, one per scored model (fractions with 6
// decimals; seed is the 1-based index; j_away_thin and j_benchmark, the DAVIS
// 2016 benchmark's J, are empty where the scores lack them).
func (a *Ablation) CSV(w io.Writer) error {
	var b strings.Builder
	b.WriteString("sequence,variant,seed,precision,recall,f,iou,j_mean,j_away_thin,j_benchmark\n")
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }
	opt := func(x *float64) string {
		if x == nil {
			return ""
		}
		return f(*x)
	}
	for _, r := range a.Rows {
		for _, v := range a.Variants {
			for k, s := range r.Cells[v].Seeds {
				if s == nil {
					continue
				}
				fmt.Fprintf(&b, "%s,%s,%d,%s,%s,%s,%s,%s,%s,%s\n", r.Sequence, v, k+1, f(s.Precision), f(s.Recall), f(s.F), f(s.IoU), f(s.JMean),
					opt(s.JAwayFromThin), opt(s.JBenchmark))
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
			"\"confidence\" weights every label by 1 − 2u_T (u_T = σ(−γ/T), the calibrated uncertainty), \"prune\"\n"+
			"drops the labels of the most uncertain trajectories, \"hard-right\" multiplies only the hard examples\n"+
			"whose labels are right with probability ≥ 0.9 under the error model P(wrong | γ, μ_A), \"oracle\" trains uniform on ground-truth labels.\n\n"); err != nil {
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
