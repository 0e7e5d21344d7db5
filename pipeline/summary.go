package pipeline

import (
	"fmt"
	"io"
	"slices"
)

// WriteSummary prints the report as a table: per sequence trajectories,
// clusters, sparse F and per variant dense P, R, F, J (percent) and time,
// the means when there are several sequences, and where report.md is.
func (r *Report) WriteSummary(w io.Writer) {
	p := func(s *Scores, f func(*Scores) float64) string {
		if s == nil {
			return "     –"
		}
		return fmt.Sprintf("%6.2f", 100*f(s))
	}
	P := func(s *Scores) float64 { return s.Precision }
	R := func(s *Scores) float64 { return s.Recall }
	F := func(s *Scores) float64 { return s.F }
	I := func(s *Scores) float64 { return s.JMean }
	fmt.Fprintf(w, "%-20s %7s %8s %6s", "sequence", "tracks", "clusters", "sp.F")
	for _, v := range r.Variants {
		fmt.Fprintf(w, " | %-8s %6s %6s %6s %6s", v, "P", "R", "F", "J")
	}
	fmt.Fprintf(w, " | %7s\n", "time(s)")
	for _, s := range r.Sequences {
		name := s.Name
		if slices.Contains(r.Missing, s.Name) {
			name += " MISSING"
		} else if s.Error != "" {
			name += " FAILED"
		}
		fmt.Fprintf(w, "%-20s %7d %8d %6s", name, s.Trajectories, s.Clusters, p(s.Sparse, F))
		for _, v := range r.Variants {
			var sc *Scores
			if d := s.Dense[v]; d != nil {
				sc = d.Scores
			}
			fmt.Fprintf(w, " | %-8s %6s %6s %6s %6s", "", p(sc, P), p(sc, R), p(sc, F), p(sc, I))
		}
		fmt.Fprintf(w, " | %7.1f\n", s.Seconds())
	}
	if len(r.Sequences) > 1 {
		var sp *Scores
		if r.Sparse != nil {
			sp = &Scores{F: r.Sparse.F}
		}
		fmt.Fprintf(w, "%-20s %7s %8s %6s", "mean", "", "", p(sp, F))
		for _, v := range r.Variants {
			var sc *Scores
			if m := r.Dense[v]; m != nil {
				sc = &Scores{Precision: m.Precision, Recall: m.Recall, F: m.F, IoU: m.IoU, JMean: m.JMean}
			}
			fmt.Fprintf(w, " | %-8s %6s %6s %6s %6s", "", p(sc, P), p(sc, R), p(sc, F), p(sc, I))
		}
		fmt.Fprintln(w, " |")
		for _, l := range besideJ {
			if line := l.meanLine(r.Dense, r.Variants); line != "" {
				fmt.Fprintln(w, line)
			}
		}
	}
	if r.ReportPath != "" {
		fmt.Fprintf(w, "report: %s (%.1fs)\n", r.ReportPath, r.Seconds)
	} else {
		fmt.Fprintf(w, "no report written (%.1fs)\n", r.Seconds)
	}
}
