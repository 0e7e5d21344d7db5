package uncertainty

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/fileerr"
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

// ReadCSV reads the per-trajectory uncertainty of a CSV written by WriteCSV
// (`densify uncertainty`; columns node,...,uncertainty,...; header required)
// and returns u indexed by node; n is the expected number of nodes.
func ReadCSV(path string, n int) ([]float64, error) { return readCSV(path, n, nil) }

// ReadCSVFor is ReadCSV for the labelling labels (one label per node, e.g.
// the labels of the Tracks file): the file's label column, when it has
// one, must describe the same clusters (the same partition of the nodes,
// whatever the numbers), since the uncertainty is that of a labelling.
func ReadCSVFor(path string, labels []int) ([]float64, error) {
	return readCSV(path, len(labels), labels)
}

func readCSV(path string, n int, labels []int) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, fileerr.New(path, 1, "missing header: %v", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	ni, ok1 := col["node"]
	ui, ok2 := col["uncertainty"]
	if !ok1 || !ok2 {
		return nil, fileerr.New(path, 1, "header must have columns node and uncertainty, got %q", strings.Join(head, ","))
	}
	li, hasLabel := col["label"]
	if labels == nil {
		hasLabel = false
	}
	// The label of the file ↔ the given label, both ways: one partition.
	fileToOurs, oursToFile := map[int]int{}, map[int]int{}
	u := make([]float64, n)
	seen := make([]bool, n)
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fileerr.New(path, line, "%v", err)
		}
		if len(rec) <= max(ni, ui) {
			return nil, fileerr.New(path, line, "expected at least %d fields, got %d", max(ni, ui)+1, len(rec))
		}
		v, err := strconv.Atoi(strings.TrimSpace(rec[ni]))
		if err != nil || v < 0 || v >= n {
			return nil, fileerr.New(path, line, "node %q is not in 0..%d", rec[ni], n-1)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(rec[ui]), 64)
		if err != nil || math.IsNaN(x) || x < 0 || x > 1 {
			return nil, fileerr.New(path, line, "uncertainty %q is not a number in [0,1]", rec[ui])
		}
		if seen[v] {
			return nil, fileerr.New(path, line, "node %d listed twice", v)
		}
		if hasLabel && li < len(rec) {
			l, err := strconv.Atoi(strings.TrimSpace(rec[li]))
			if err != nil {
				return nil, fileerr.New(path, line, "label %q is not an integer", rec[li])
			}
			a, okA := fileToOurs[l]
			b, okB := oursToFile[labels[v]]
			if (okA && a != labels[v]) || (okB && b != l) {
				return nil, fileerr.New(path, line, "node %d has label %d here but %d in the trajectories, which group the nodes differently: the uncertainty of another segmentation", v, l, labels[v])
			}
			fileToOurs[l], oursToFile[labels[v]] = labels[v], l
		}
		seen[v], u[v] = true, x
	}
	for v, s := range seen {
		if !s {
			return nil, fileerr.New(path, 0, "no uncertainty for node %d (the file has fewer nodes than the %d trajectories)", v, n)
		}
	}
	return u, nil
}
