package pipeline

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/densify/densify/internal/atomicfile"
)

// AblationRow is one sequence of the ablation: dense scores of the U-Net
// trained without (uniform loss weights) and with the uncertainty-based
// hard-example weights (seed Sec. 4.3, Table 1).
type AblationRow struct {
	Sequence string  `json:"sequence"`
	Uniform  *Scores `json:"uniform"`
	Weighted *Scores `json:"weighted"`
}

// Ablation is the ablation table; Mean holds the means of P, R and F over
// the sequences where both variants were scored.
type Ablation struct {
	Rows []AblationRow `json:"rows"`
	Mean AblationRow   `json:"mean"`
}

// NewAblation builds the table from scored rows (rows missing a variant are
// kept but left out of the means).
func NewAblation(rows []AblationRow) *Ablation {
	a := &Ablation{Rows: rows, Mean: AblationRow{Sequence: "mean"}}
	var mu, mw Mean
	for _, r := range rows {
		if r.Uniform == nil || r.Weighted == nil {
			continue
		}
		mu.add(r.Uniform)
		mw.add(r.Weighted)
	}
	mu.done()
	mw.done()
	if mu.Count > 0 {
		a.Mean.Uniform = &Scores{Precision: mu.Precision, Recall: mu.Recall, F: mu.F, IoU: mu.IoU}
		a.Mean.Weighted = &Scores{Precision: mw.Precision, Recall: mw.Recall, F: mw.F, IoU: mw.IoU}
	}
	return a
}

// Markdown writes the table like the seed's Table 1: P, R, F (percent) of
// the model trained without and with uncertainty weighting, one row per
// sequence, then the mean (the mean of the per-sequence values; Count
// sequences). Missing values are "–".
func (a *Ablation) Markdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| sequence | P (uniform) | R (uniform) | F (uniform) | P (weighted) | R (weighted) | F (weighted) | ΔF |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	row := func(r AblationRow, bold bool) {
		name := r.Sequence
		if bold {
			name = "**" + name + "**"
		}
		d := "–"
		if r.Uniform != nil && r.Weighted != nil {
			d = fmt.Sprintf("%+.2f", 100*(r.Weighted.F-r.Uniform.F))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", name,
			opt3(r.Uniform, func(x *Scores) float64 { return x.Precision }),
			opt3(r.Uniform, func(x *Scores) float64 { return x.Recall }),
			opt3(r.Uniform, func(x *Scores) float64 { return x.F }),
			opt3(r.Weighted, func(x *Scores) float64 { return x.Precision }),
			opt3(r.Weighted, func(x *Scores) float64 { return x.Recall }),
			opt3(r.Weighted, func(x *Scores) float64 { return x.F }), d)
	}
	for _, r := range a.Rows {
		row(r, false)
	}
	row(a.Mean, true)
	_, err := io.WriteString(w, b.String())
	return err
}

// CSV writes sequence,variant,precision,recall,f,iou rows (fractions with
// 6 decimals; missing variants are left out), the means last.
func (a *Ablation) CSV(w io.Writer) error {
	var b strings.Builder
	b.WriteString("sequence,variant,precision,recall,f,iou\n")
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }
	for _, r := range append(append([]AblationRow(nil), a.Rows...), a.Mean) {
		for _, v := range []struct {
			name string
			s    *Scores
		}{{"uniform", r.Uniform}, {"weighted", r.Weighted}} {
			if v.s == nil {
				continue
			}
			fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s\n", r.Sequence, v.name, f(v.s.Precision), f(v.s.Recall), f(v.s.F), f(v.s.IoU))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Write stores ablation.md, ablation.csv in dir.
func (a *Ablation) Write(dir string) error {
	if err := atomicfile.Write(filepath.Join(dir, "ablation.md"), func(w io.Writer) error {
		if _, err := io.WriteString(w, "# Ablation: uncertainty-weighted training (UAI'21 Table 1)\n\n"+
			"Dense masks scored with the FBMS protocol (percent). Both variants per sequence share the\n"+
			"trajectories, segmentation, training set, seed and training budget; \"uniform\" ignores the\n"+
			"hard-example weights, \"weighted\" multiplies the loss of uncertain trajectories' pixels by the factor.\n\n"); err != nil {
			return err
		}
		return a.Markdown(w)
	}); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "ablation.csv"), a.CSV)
}

// Ablate runs the chain with both variants on every selected sequence of
// root (upstream stages shared, computed once), writes the run report and
// ablation.md / ablation.csv into work, and returns the table. With
// opt.Shard it runs its part only and writes no table (densify report
// writes them once every shard has finished).
func Ablate(ctx context.Context, root, work string, opt Options) (*Ablation, *Report, error) {
	rep, runErr := Run(ctx, root, work, opt, VariantUniform, VariantWeighted)
	if rep == nil || opt.Shard.Active() {
		return nil, rep, runErr
	}
	a := ablationOf(rep)
	if err := a.Write(work); err != nil {
		return a, rep, err
	}
	return a, rep, runErr
}
