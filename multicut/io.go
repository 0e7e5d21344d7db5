package multicut

import (
	"bufio"
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

// Graph instance file format (shared by all densify commands):
//
//	# comment (whole line, or trailing after '#')
//	N M
//	u v cost lifted      (M lines; 0-based ids, lifted 0 or 1)
//
// Blank lines and comments are ignored anywhere. Node i is the i-th track of
// the Tracks file the graph was built from.

// maxLine bounds one line of a graph or labels file.
const maxLine = 1 << 20

// lineReader yields the content lines of a file (comments and blank lines
// skipped) with their 1-based line numbers.
type lineReader struct {
	sc   *bufio.Scanner
	name string
	line int
}

func newLineReader(r io.Reader, name string) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	return &lineReader{sc: sc, name: name}
}

// next returns the fields of the next content line; ok=false at EOF.
func (lr *lineReader) next() (fields []string, ok bool, err error) {
	for lr.sc.Scan() {
		lr.line++
		s := lr.sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		f := strings.Fields(s)
		if len(f) == 0 {
			continue
		}
		return f, true, nil
	}
	if err := lr.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, false, fileerr.New(lr.name, lr.line+1, "line longer than %d bytes", maxLine)
		}
		return nil, false, fileerr.New(lr.name, lr.line, "read: %v", err)
	}
	return nil, false, nil
}

// ReadGraph reads a graph instance file and validates it; errors name the
// file and line.
func ReadGraph(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseGraph(f, path)
}

// ParseGraph parses a graph instance from r; name is used in error messages
// ("name:line: ..."). The result is valid (see Validate).
func ParseGraph(r io.Reader, name string) (*Graph, error) {
	lr := newLineReader(r, name)
	f, ok, err := lr.next()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fileerr.New(name, lr.line, "empty graph file: missing header line 'N M'")
	}
	if len(f) != 2 {
		return nil, fileerr.New(name, lr.line, "header must be 'N M' (2 integers), got %d fields", len(f))
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n < 0 || n > MaxNodes {
		return nil, fileerr.New(name, lr.line, "node count %q is not an integer in [0,%d]", f[0], MaxNodes)
	}
	m, err := strconv.Atoi(f[1])
	if err != nil || m < 0 {
		return nil, fileerr.New(name, lr.line, "edge count %q is not a non-negative integer", f[1])
	}
	// The solvers allocate for every node: the node count is bounded by
	// what the file can hold, the ends of its edges, plus MaxIsolated.
	// (The edge count is checked against the lines that follow.)
	if n > MaxIsolated && n-MaxIsolated > 2*m {
		return nil, fileerr.New(name, lr.line, "node count %d: the %d edges announced touch at most %d nodes, and more than %d nodes without an edge are refused (a corrupt header?)", n, m, 2*m, MaxIsolated)
	}
	g := &Graph{N: n, Edges: make([]Edge, 0, min(m, 1<<20))}
	lines := make([]int, 0, min(m, 1<<20))
	for {
		f, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if len(g.Edges) == m {
			return nil, fileerr.New(name, lr.line, "extra line after the %d edges announced in the header", m)
		}
		if len(f) != 4 {
			return nil, fileerr.New(name, lr.line, "edge line must be 'u v cost lifted' (4 fields), got %d fields", len(f))
		}
		u, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fileerr.New(name, lr.line, "node id %q is not an integer", f[0])
		}
		v, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fileerr.New(name, lr.line, "node id %q is not an integer", f[1])
		}
		c, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return nil, fileerr.New(name, lr.line, "cost %q is not a number", f[2])
		}
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return nil, fileerr.New(name, lr.line, "cost %q is not finite", f[2])
		}
		if math.Abs(c) > MaxCost {
			return nil, fileerr.New(name, lr.line, "cost %s beyond ±%g (energies are sums of costs and must stay finite)", f[2], MaxCost)
		}
		var lifted bool
		switch f[3] {
		case "0":
		case "1":
			lifted = true
		default:
			return nil, fileerr.New(name, lr.line, "lifted flag %q must be 0 or 1", f[3])
		}
		if u < 0 || u >= n || v < 0 || v >= n {
			return nil, fileerr.New(name, lr.line, "node id out of range in edge (%d,%d): ids must be in [0,%d)", u, v, n)
		}
		g.Edges = append(g.Edges, Edge{U: u, V: v, Cost: c, Lifted: lifted})
		lines = append(lines, lr.line)
	}
	if len(g.Edges) != m {
		return nil, fileerr.New(name, lr.line, "header announces %d edges but the file has %d", m, len(g.Edges))
	}
	if msg, p := checkEdges(g.N, g.Edges); msg != "" {
		return nil, fileerr.New(name, 0, "%s", msg)
	} else if p != nil {
		if p.Other >= 0 {
			return nil, fileerr.New(name, lines[p.I], "%s (already on line %d)", p.Msg, lines[p.Other])
		}
		return nil, fileerr.New(name, lines[p.I], "%s", p.Msg)
	}
	return g, nil
}

// FormatGraph writes g in the instance file format. Costs use the shortest
// representation that parses back to the same float64 (strconv 'g', -1), so
// WriteGraph/ReadGraph round trips are exact.
func FormatGraph(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# densify multicut graph: header 'N M', then M lines 'u v cost lifted' (cost > 0 prefers joined)\n")
	fmt.Fprintf(bw, "%d %d\n", g.N, len(g.Edges))
	buf := make([]byte, 0, 64)
	for _, e := range g.Edges {
		buf = buf[:0]
		buf = strconv.AppendInt(buf, int64(e.U), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(e.V), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendFloat(buf, e.Cost, 'g', -1, 64)
		if e.Lifted {
			buf = append(buf, " 1\n"...)
		} else {
			buf = append(buf, " 0\n"...)
		}
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteGraph validates g and writes it atomically to path.
func WriteGraph(path string, g *Graph) error {
	if err := g.Validate(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return FormatGraph(w, g) })
}

// ReadLabels reads a labels file: one integer per line in node order ('#'
// comments and blank lines ignored). n ≥ 0 is the expected number of labels
// (a mismatch is an error); n < 0 accepts any count.
func ReadLabels(path string, n int) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseLabels(f, path, n)
}

// ParseLabels parses a labels file from r (see ReadLabels).
func ParseLabels(r io.Reader, name string, n int) ([]int, error) {
	lr := newLineReader(r, name)
	var labels []int
	if n > 0 {
		labels = make([]int, 0, min(n, 1<<24))
	}
	for {
		f, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if len(f) != 1 {
			return nil, fileerr.New(name, lr.line, "expected one integer label, got %d fields", len(f))
		}
		l, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fileerr.New(name, lr.line, "label %q is not an integer", f[0])
		}
		if n >= 0 && len(labels) == n {
			return nil, fileerr.New(name, lr.line, "more labels than the %d nodes", n)
		}
		labels = append(labels, l)
	}
	if n >= 0 && len(labels) != n {
		return nil, fileerr.New(name, lr.line, "%d labels for %d nodes", len(labels), n)
	}
	return labels, nil
}

// WriteLabels writes one label per line atomically.
func WriteLabels(path string, labels []int) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		buf := make([]byte, 0, 24)
		for _, l := range labels {
			buf = strconv.AppendInt(buf[:0], int64(l), 10)
			buf = append(buf, '\n')
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	})
}
