package uncertainty

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/densify/densify/internal/atomicfile"
)

// formatGamma writes γ with full precision and +∞ as "inf".
func formatGamma(g float64) string {
	if math.IsInf(g, 1) {
		return "inf"
	}
	return strconv.FormatFloat(g, 'g', -1, 64)
}

// EncodeCSV writes the per-node table
//
//	node,label,gamma,uncertainty,likelihood_uncertainty,target
//
// (γ = +∞ as "inf"; target is the label of the best alternative cluster B,
// −1 when there is none).
func EncodeCSV(w io.Writer, r *Result) error {
	if _, err := io.WriteString(w, "node,label,gamma,uncertainty,likelihood_uncertainty,target\n"); err != nil {
		return err
	}
	for v := range r.Gamma {
		if _, err := fmt.Fprintf(w, "%d,%d,%s,%s,%s,%d\n", v, r.Labels[v], formatGamma(r.Gamma[v]),
			strconv.FormatFloat(r.U[v], 'g', -1, 64), strconv.FormatFloat(r.ULik[v], 'g', -1, 64), r.Target[v]); err != nil {
			return err
		}
	}
	return nil
}

// WriteCSV writes EncodeCSV atomically to path.
func WriteCSV(path string, r *Result) error {
	return atomicfile.Write(path, func(w io.Writer) error { return EncodeCSV(w, r) })
}

// WriteClusters writes the per-cluster summary (label, size, boundary
// nodes, μ_A, mean likelihood uncertainty) as CSV, or as JSON when path
// ends in .json.
func WriteClusters(path string, r *Result) error {
	if formatOf(path) == "json" {
		data, err := json.MarshalIndent(r.Clusters, "", "  ")
		if err != nil {
			return err
		}
		return atomicfile.WriteBytes(path, append(data, '\n'))
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		if _, err := io.WriteString(w, "label,size,boundary,mean_uncertainty,mean_likelihood_uncertainty\n"); err != nil {
			return err
		}
		for _, c := range r.Clusters {
			if _, err := fmt.Fprintf(w, "%d,%d,%d,%s,%s\n", c.Label, c.Size, c.Boundary,
				strconv.FormatFloat(c.MeanU, 'g', -1, 64), strconv.FormatFloat(c.MeanULik, 'g', -1, 64)); err != nil {
				return err
			}
		}
		return nil
	})
}
