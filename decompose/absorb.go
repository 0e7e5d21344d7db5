package decompose

import (
	"container/heap"

	"github.com/densify/densify/multicut"
)

// AbsorbSmall dissolves every segment of fewer than minSize pixels and lets
// the remaining segments grow into its pixels by a best-first flood over the
// regular edges: a pixel of a dissolved segment joins the segment of the
// already assigned E-neighbour with the largest edge cost (the most
// "join"-like edge), processed in decreasing cost order (Prim-style). Every
// resulting segment stays connected through E, so the labelling remains a
// feasible decomposition. Pixels unreachable from any kept segment keep their
// labels. This is a post-processing step (documented in the results): the
// pixel multicut leaves isolated pixels on boundary centre lines, where all
// edges of a pixel prefer a cut. Returns canonical labels.
func AbsorbSmall(g *multicut.Graph, labels []int, minSize int) []int {
	n := len(labels)
	if minSize <= 1 {
		return multicut.Canonical(labels)
	}
	size := map[int]int{}
	for _, l := range labels {
		size[l]++
	}
	out := make([]int, n)
	for i, l := range labels {
		out[i] = l
		if size[l] < minSize {
			out[i] = -1
		}
	}
	// regular adjacency in CSR form
	off := make([]int32, n+1)
	for _, e := range g.Edges {
		if !e.Lifted {
			off[e.U+1]++
			off[e.V+1]++
		}
	}
	for i := 0; i < n; i++ {
		off[i+1] += off[i]
	}
	nbr := make([]int32, off[n])
	cost := make([]float64, off[n])
	pos := append([]int32(nil), off[:n]...)
	for _, e := range g.Edges {
		if !e.Lifted {
			nbr[pos[e.U]], cost[pos[e.U]] = int32(e.V), e.Cost
			pos[e.U]++
			nbr[pos[e.V]], cost[pos[e.V]] = int32(e.U), e.Cost
			pos[e.V]++
		}
	}
	h := &floodHeap{}
	push := func(v int) {
		for k := off[v]; k < off[v+1]; k++ {
			if u := nbr[k]; out[u] < 0 {
				heap.Push(h, floodItem{cost: cost[k], to: u, label: out[v]})
			}
		}
	}
	for v := 0; v < n; v++ {
		if out[v] >= 0 {
			push(v)
		}
	}
	for h.Len() > 0 {
		it := heap.Pop(h).(floodItem)
		if out[it.to] >= 0 {
			continue
		}
		out[it.to] = it.label
		push(int(it.to))
	}
	for i := range out {
		if out[i] < 0 {
			out[i] = labels[i] // unreachable from kept segments: keep
		}
	}
	return multicut.Canonical(out)
}

type floodItem struct {
	cost  float64
	to    int32
	label int
}

type floodHeap []floodItem

func (h floodHeap) Len() int { return len(h) }
func (h floodHeap) Less(i, j int) bool {
	if h[i].cost != h[j].cost {
		return h[i].cost > h[j].cost
	}
	return h[i].to < h[j].to
}
func (h floodHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *floodHeap) Push(x any)   { *h = append(*h, x.(floodItem)) }
func (h *floodHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
