package multicut

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/internal/fileerr"
)

func TestGraphFileRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	g := randomGraph(r, 40, 0.2, 0.2, 0.1)
	// Costs that need all 17 significant digits, tiny and huge exponents.
	g.Edges[0].Cost = 0.1 + 0.2
	g.Edges[1].Cost = -1e-300
	g.Edges[2].Cost = 9.999999999999999e149 // just below MaxCost
	g.Edges[3].Cost = math.Nextafter(1, 2)
	p := filepath.Join(t.TempDir(), "g.txt")
	if err := WriteGraph(p, g); err != nil {
		t.Fatal(err)
	}
	h, err := ReadGraph(p)
	if err != nil {
		t.Fatal(err)
	}
	if h.N != g.N || len(h.Edges) != len(g.Edges) {
		t.Fatalf("size %d/%d vs %d/%d", h.N, len(h.Edges), g.N, len(g.Edges))
	}
	for i := range g.Edges {
		if h.Edges[i] != g.Edges[i] {
			t.Fatalf("edge %d: %+v != %+v", i, h.Edges[i], g.Edges[i])
		}
	}
	// Labels round trip.
	labels := []int{3, 0, -2, 17, 3}
	lp := filepath.Join(t.TempDir(), "l.txt")
	if err := WriteLabels(lp, labels); err != nil {
		t.Fatal(err)
	}
	got, err := ReadLabels(lp, 5)
	if err != nil || !equalInts(got, labels) {
		t.Fatalf("labels %v %v", got, err)
	}
	if got, err := ReadLabels(lp, -1); err != nil || len(got) != 5 {
		t.Fatalf("labels any count %v %v", got, err)
	}
}

func TestParseGraphComments(t *testing.T) {
	src := "# instance\n\n3 2   # nodes edges\n0 1 1.5 0\n  # between\n1 2 -2e-1 1 # lifted\n\n"
	g, err := ParseGraph(strings.NewReader(src), "c.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []Edge{{0, 1, 1.5, false}, {1, 2, -0.2, true}}
	if g.N != 3 || len(g.Edges) != 2 || g.Edges[0] != want[0] || g.Edges[1] != want[1] {
		t.Fatalf("%+v", g)
	}
}

func TestParseGraphErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"empty", "# nothing\n", 1, "missing header"},
		{"header fields", "3\n", 1, "header"},
		{"header nan", "x 2\n", 1, "node count"},
		{"negative m", "3 -1\n", 1, "edge count"},
		{"nan cost", "3 2\n0 1 1 0\n1 2 NaN 0\n", 3, "not finite"},
		{"inf cost", "3 1\n0 1 -Inf 1\n", 2, "not finite"},
		{"huge cost", "3 2\n0 1 1 0\n1 2 -1e308 0\n", 3, "cost -1e308 beyond ±1e+150"},
		{"out of range", "3 2\n0 1 1 0\n1 3 1 0\n", 3, "out of range"},
		{"negative id", "3 1\n-1 1 1 0\n", 2, "out of range"},
		{"too few", "3 3\n0 1 1 0\n1 2 1 0\n", 3, "announces 3 edges but the file has 2"},
		{"too many", "3 1\n0 1 1 0\n1 2 1 0\n", 3, "extra line"},
		{"non-number id", "3 1\n0 b 1 0\n", 2, "not an integer"},
		{"non-number cost", "3 1\n0 1 1.5x 0\n", 2, "not a number"},
		{"fields", "3 1\n0 1 1\n", 2, "4"},
		{"lifted flag", "3 1\n0 1 1 2\n", 2, "0 or 1"},
		{"self-loop", "3 1\n2 2 1 0\n", 2, "self-loop"},
		{"duplicate", "3 3\n0 1 1 0\n1 2 1 0\n1 0 3 1\n", 4, "already on line 2"},
		{"nodes beyond the file", "# one edge\n100000000 1\n0 1 1 0\n", 2, "node count 100000000: the 1 edges announced touch at most 2 nodes, and more than 1048576 nodes without an edge are refused"},
	}
	for _, c := range cases {
		_, err := ParseGraph(strings.NewReader(c.src), "bad.txt")
		var fe *fileerr.Error
		if !errors.As(err, &fe) {
			t.Fatalf("%s: want a file error, got %v", c.name, err)
		}
		if fe.File != "bad.txt" || fe.Line != c.line || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %q (line %d), want line %d containing %q", c.name, err, fe.Line, c.line, c.msg)
		}
	}
}

func TestParseLabelsErrors(t *testing.T) {
	if _, err := ParseLabels(strings.NewReader("1\n2\nx\n"), "l.txt", 3); err == nil || !strings.HasPrefix(err.Error(), "l.txt:3:") {
		t.Fatalf("got %v", err)
	}
	if _, err := ParseLabels(strings.NewReader("1\n2\n"), "l.txt", 3); err == nil || !strings.Contains(err.Error(), "2 labels for 3 nodes") {
		t.Fatalf("got %v", err)
	}
	if _, err := ParseLabels(strings.NewReader("1\n2\n3\n4\n"), "l.txt", 3); err == nil || !strings.HasPrefix(err.Error(), "l.txt:4:") {
		t.Fatalf("got %v", err)
	}
	if _, err := ParseLabels(strings.NewReader("1 2\n"), "l.txt", -1); err == nil || !strings.HasPrefix(err.Error(), "l.txt:1:") {
		t.Fatalf("got %v", err)
	}
}

// A failed write leaves no file behind.
func TestWriteGraphInvalidNoOutput(t *testing.T) {
	p := filepath.Join(t.TempDir(), "g.txt")
	err := WriteGraph(p, &Graph{N: 2, Edges: []Edge{{0, 1, math.NaN(), false}}})
	if err == nil {
		t.Fatal("want an error")
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("partial output: %v", err)
	}
}

func FuzzParseGraph(f *testing.F) {
	f.Add("3 2\n0 1 1.5 0\n1 2 -2 1\n")
	f.Add("# c\n2 1 # x\n1 0 1e308 1\n")
	f.Add("0 0\n")
	f.Add("4 3\n0 1 1 0\n1 2 0x1p-3 0\n3 0 -0 1\n")
	f.Add("2 1\n0 1 NaN 0\n")
	f.Add("2147483647 1\n0 2147483646 1 0\n")
	f.Fuzz(func(t *testing.T, src string) {
		g, err := ParseGraph(strings.NewReader(src), "fuzz.txt")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.txt:") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("parsed graph invalid: %v", err)
		}
		// Round trip through the writer.
		var sb strings.Builder
		if err := FormatGraph(&sb, g); err != nil {
			t.Fatal(err)
		}
		h, err := ParseGraph(strings.NewReader(sb.String()), "again.txt")
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if h.N != g.N || len(h.Edges) != len(g.Edges) {
			t.Fatal("round trip changed the size")
		}
		for i := range g.Edges {
			if h.Edges[i] != g.Edges[i] && !(h.Edges[i].Cost == 0 && g.Edges[i].Cost == 0) {
				t.Fatalf("round trip changed edge %d", i)
			}
		}
		// Small instances: the solvers accept every valid graph.
		if g.N <= 2000 && len(g.Edges) <= 2000 {
			l, err := KLj(g, KLjOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := Feasible(g, l); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// Costs up to ±MaxCost keep every energy finite; larger ones are refused
// by Validate too (graphs built in memory).
func TestCostBound(t *testing.T) {
	edges := make([]Edge, 0, 6)
	for u := 0; u < 4; u++ {
		edges = append(edges, Edge{U: u, V: (u + 1) % 4, Cost: -MaxCost})
	}
	g := &Graph{N: 4, Edges: edges}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	e := Energy(g, []int{0, 1, 2, 3})
	if math.IsInf(e, 0) || math.IsNaN(e) || e != -4*MaxCost {
		t.Errorf("energy of all cut at the bound: %v", e)
	}
	g.Edges[2].Cost = -1e308
	if err := g.Validate(); err == nil || !strings.Contains(err.Error(), "beyond ±1e+150") {
		t.Errorf("1e308: %v", err)
	}
}

// Up to MaxIsolated nodes beyond the ends of the edges are accepted.
func TestParseGraphIsolatedNodes(t *testing.T) {
	g, err := ParseGraph(strings.NewReader(fmt.Sprintf("%d 1\n0 1 1 0\n", MaxIsolated+2)), "g.txt")
	if err != nil || g.N != MaxIsolated+2 {
		t.Fatalf("%v", err)
	}
	if _, err := ParseGraph(strings.NewReader(fmt.Sprintf("%d 1\n0 1 1 0\n", MaxIsolated+3)), "g.txt"); err == nil {
		t.Fatal("one node more is accepted")
	}
}
