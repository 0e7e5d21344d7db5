package maxflow

import (
	"slices"
	"testing"
)

// chain is s →(source) 0 →(4) 1 →(2) 2 →(3) t, with a reverse arc 2→1 of 1.
// Arcs: 0 = 0→1, 1 = 1→0, 2 = 1→2, 3 = 2→1.
func chain(source float64) *Graph {
	g := NewGraph(3, 2)
	g.AddTerminal(0, source, 0)
	g.AddTerminal(2, 0, 3)
	g.AddEdge(0, 1, 4, 0)
	g.AddEdge(1, 2, 2, 1)
	return g
}

// The stages of MaxFlow by hand on chain(5): node 0 grows S to node 1,
// node 2 (T) then finds arc 2 from S-node 1; the path 0→1→2 carries its
// bottleneck 2 (arc 1→2), which saturates arc 2 without orphaning anyone;
// no residual arc joins the trees afterwards.
func TestMaxFlowStagesByHand(t *testing.T) {
	g := chain(5)
	s := newSearch(g)
	if !slices.Equal(s.active, []int32{0, 2}) || g.tree[0] != inS || g.tree[2] != inT || g.tree[1] != free {
		t.Fatalf("roots: active %v, trees %v", s.active, g.tree)
	}
	mid := s.grow()
	if mid != 2 || g.tree[1] != inS || g.parent[1] != 1 || g.dist[1] != 2 {
		t.Fatalf("growth: arc %d, node 1 tree %d parent arc %d dist %d", mid, g.tree[1], g.parent[1], g.dist[1])
	}
	if f := g.bottleneck(mid); f != 2 {
		t.Errorf("bottleneck %v, want 2", f)
	}
	s.augment(mid)
	if g.flow != 2 || !slices.Equal(g.rcap, []float64{2, 2, 0, 3}) || !slices.Equal(g.tr, []float64{3, 0, -1}) || len(s.orphans) != 0 {
		t.Errorf("augmented: flow %v, residuals %v, terminals %v, orphans %v", g.flow, g.rcap, g.tr, s.orphans)
	}
	if mid := s.grow(); mid != -1 {
		t.Errorf("second growth found arc %d", mid)
	}
	if !g.Source(0) || !g.Source(1) || g.Source(2) {
		t.Errorf("cut: %v %v %v, want source, source, sink", g.Source(0), g.Source(1), g.Source(2))
	}

	// With 1 from s the terminal arc is the bottleneck: node 0 is orphaned.
	g = chain(1)
	s = newSearch(g)
	mid = s.grow()
	if f := g.bottleneck(mid); f != 1 {
		t.Errorf("bottleneck %v, want 1", f)
	}
	s.augment(mid)
	if !slices.Equal(s.orphans, []int32{0}) || g.parent[0] != orphanArc || g.tr[0] != 0 {
		t.Errorf("orphans %v, parent of 0 %d, its terminal residual %v", s.orphans, g.parent[0], g.tr[0])
	}
	if f, err := chain(1).MaxFlow(); err != nil || f != 1 {
		t.Errorf("max flow %v, %v, want 1", f, err)
	}
}

// nextActive skips nodes that left their tree and empties the FIFO when it
// runs out.
func TestNextActive(t *testing.T) {
	g := chain(5)
	s := newSearch(g)
	g.parent[0] = noParent // as if freed by an adoption
	if i := s.nextActive(); i != 2 || len(s.active) != 0 || s.inActive[0] || s.inActive[2] {
		t.Errorf("next %d, active %v", i, s.active)
	}
	if i := s.nextActive(); i != -1 {
		t.Errorf("next of an empty FIFO: %d", i)
	}
}
