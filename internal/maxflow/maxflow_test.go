package maxflow

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// cutCost is the capacity of the cut that puts the nodes with src[i] on the
// source side: source capacities of sink-side nodes, sink capacities of
// source-side nodes, and arcs from the source side to the sink side.
type arc struct {
	i, j int
	c    float64
}

func cutCost(src []bool, s, t []float64, arcs []arc) float64 {
	v := 0.0
	for i := range src {
		if src[i] {
			v += t[i]
		} else {
			v += s[i]
		}
	}
	for _, a := range arcs {
		if src[a.i] && !src[a.j] {
			v += a.c
		}
	}
	return v
}

// On random graphs of up to 12 nodes, the flow equals the minimum over all
// 2^n cuts, and the cut MaxFlow reports has that capacity.
func TestMaxFlowBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 400; trial++ {
		n := 1 + rng.IntN(12)
		s, tt := make([]float64, n), make([]float64, n)
		g := NewGraph(n, 0)
		for i := 0; i < n; i++ {
			if rng.Float64() < 0.6 {
				s[i] = math.Round(rng.Float64()*20) / 2
			}
			if rng.Float64() < 0.6 {
				tt[i] = rng.Float64() * 10
			}
			g.AddTerminal(i, s[i], tt[i])
		}
		var arcs []arc
		density := rng.Float64()
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if rng.Float64() > density {
					continue
				}
				c, r := rng.Float64()*8, rng.Float64()*8
				if rng.IntN(4) == 0 {
					r = 0
				}
				if rng.IntN(2) == 0 { // add the pair in either orientation
					g.AddEdge(i, j, c, r)
				} else {
					g.AddEdge(j, i, r, c)
				}
				arcs = append(arcs, arc{i, j, c}, arc{j, i, r})
			}
		}
		flow, err := g.MaxFlow()
		if err != nil {
			t.Fatal(err)
		}
		best := math.Inf(1)
		src := make([]bool, n)
		for m := 0; m < 1<<n; m++ {
			for i := range src {
				src[i] = m>>i&1 == 1
			}
			best = min(best, cutCost(src, s, tt, arcs))
		}
		for i := range src {
			src[i] = g.Source(i)
		}
		got := cutCost(src, s, tt, arcs)
		if math.Abs(flow-best) > 1e-9*(1+best) || math.Abs(got-best) > 1e-9*(1+best) {
			t.Fatalf("trial %d (n %d): flow %v, cut found %v, minimum cut %v", trial, n, flow, got, best)
		}
	}
}

// Hand-computed cuts.
func TestMaxFlowByHand(t *testing.T) {
	// s→0 (3), s→1 (2), 0→1 (1), 0→t (2), 1→t (3), 1→0 (0).
	// Paths: s-0-t 2, s-1-t 2, s-0-1-t 1 → flow 5; cut {s}: 3+2 = 5.
	g := NewGraph(2, 1)
	g.AddTerminal(0, 3, 2)
	g.AddTerminal(1, 2, 3)
	g.AddEdge(0, 1, 1, 0)
	f, err := g.MaxFlow()
	if err != nil || f != 5 {
		t.Fatalf("flow %v, err %v; want 5", f, err)
	}
	// AddTerminal keeps only the difference: 0 has +1 from s, 1 has 1 to t;
	// after augmenting s-0-1-t both are exhausted and both ends sit on t's side.
	if g.Source(0) || g.Source(1) {
		t.Errorf("sides %v %v, want both sink", g.Source(0), g.Source(1))
	}

	// A chain s→0→1→2→t with capacities 5, 4, 1, 7, 6: the bottleneck is
	// the middle arc 1→2, so {0, 1} stay with the source.
	g = NewGraph(3, 2)
	g.AddTerminal(0, 5, 0)
	g.AddTerminal(2, 0, 6)
	g.AddEdge(0, 1, 4, 0)
	g.AddEdge(1, 2, 1, 7)
	if f, _ := g.MaxFlow(); f != 1 {
		t.Fatalf("chain flow %v, want 1", f)
	}
	if !g.Source(0) || !g.Source(1) || g.Source(2) {
		t.Errorf("chain sides %v %v %v, want s s t", g.Source(0), g.Source(1), g.Source(2))
	}

	// A 1×3 Potts chain: label 1 free at the ends (D(0) = 3, D(1) = 0),
	// label 0 free in the middle (D(1) = 2), w = 1.5 per edge. E(111) = 2,
	// E(101) = 2·1.5 = 3, E(000) = 6, E(100) = 3 + 1.5 = 4.5: minimum 2 at 111.
	g = NewGraph(3, 2)
	g.AddTerminal(0, 3, 0) // D(0) = 3, D(1) = 0
	g.AddTerminal(1, 0, 2) // D(0) = 0, D(1) = 2
	g.AddTerminal(2, 3, 0)
	g.AddEdge(0, 1, 1.5, 1.5)
	g.AddEdge(1, 2, 1.5, 1.5)
	if f, _ := g.MaxFlow(); f != 2 {
		t.Fatalf("potts flow %v, want 2", f)
	}
	for i := 0; i < 3; i++ {
		if !g.Source(i) {
			t.Errorf("potts node %d on the sink side, want all label 1", i)
		}
	}
}

func TestMaxFlowErrors(t *testing.T) {
	g := NewGraph(2, 1)
	g.AddEdge(0, 1, -1, 0)
	if _, err := g.MaxFlow(); err == nil || !strings.Contains(err.Error(), "capacity -1") {
		t.Errorf("negative arc: %v", err)
	}
	g = NewGraph(1, 0)
	g.AddTerminal(0, math.NaN(), 0)
	if _, err := g.MaxFlow(); err == nil || !strings.Contains(err.Error(), "terminal capacity NaN") {
		t.Errorf("NaN terminal: %v", err)
	}
	g = NewGraph(1, 0)
	if _, err := g.MaxFlow(); err != nil {
		t.Fatal(err)
	}
	if _, err := g.MaxFlow(); err == nil {
		t.Error("second MaxFlow accepted")
	}
}

// edmondsKarp is a reference maximum flow (shortest augmenting paths by
// breadth-first search on a dense capacity matrix; node n is s, n+1 is t).
func edmondsKarp(c [][]float64, s, t int) float64 {
	n := len(c)
	flow := 0.0
	prev := make([]int, n)
	for {
		for i := range prev {
			prev[i] = -1
		}
		prev[s] = s
		q := []int{s}
		for len(q) > 0 && prev[t] < 0 {
			i := q[0]
			q = q[1:]
			for j := 0; j < n; j++ {
				if prev[j] < 0 && c[i][j] > 1e-12 {
					prev[j] = i
					q = append(q, j)
				}
			}
		}
		if prev[t] < 0 {
			return flow
		}
		f := math.Inf(1)
		for j := t; j != s; j = prev[j] {
			f = min(f, c[prev[j]][j])
		}
		for j := t; j != s; j = prev[j] {
			c[prev[j]][j] -= f
			c[j][prev[j]] += f
		}
		flow += f
	}
}

// On random 8-connected grids (the graphs GraphCut builds, too large for
// brute force), the flow equals Edmonds–Karp's and the cut found has that
// capacity: trees kept across many augmentations and the adoption of
// orphans are exercised here.
func TestMaxFlowGridAgainstEdmondsKarp(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := 0; trial < 6; trial++ {
		W, H := 9+trial*3, 7+trial*2
		n := W * H
		c := make([][]float64, n+2)
		for i := range c {
			c[i] = make([]float64, n+2)
		}
		s, tt := make([]float64, n), make([]float64, n)
		g := NewGraph(n, 4*n)
		var arcs []arc
		for i := 0; i < n; i++ {
			s[i], tt[i] = rng.Float64()*4, rng.Float64()*4
			if rng.IntN(3) == 0 {
				s[i] = 0
			}
			g.AddTerminal(i, s[i], tt[i])
			c[n][i], c[i][n+1] = s[i], tt[i]
		}
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				for _, d := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {-1, 1}} {
					u, v := x+d[0], y+d[1]
					if u < 0 || u >= W || v >= H {
						continue
					}
					i, j := y*W+x, v*W+u
					w := rng.Float64() * 3
					g.AddEdge(i, j, w, w)
					c[i][j] += w
					c[j][i] += w
					arcs = append(arcs, arc{i, j, w}, arc{j, i, w})
				}
			}
		}
		want := edmondsKarp(c, n, n+1)
		got, err := g.MaxFlow()
		if err != nil {
			t.Fatal(err)
		}
		src := make([]bool, n)
		for i := range src {
			src[i] = g.Source(i)
		}
		cut := cutCost(src, s, tt, arcs)
		if math.Abs(got-want) > 1e-7*want || math.Abs(cut-want) > 1e-7*want {
			t.Fatalf("%dx%d: flow %v, cut %v, Edmonds–Karp %v", W, H, got, cut, want)
		}
	}
}
