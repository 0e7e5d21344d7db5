package uncertainty_test

import (
	"fmt"

	"github.com/densify/densify/multicut"
	"github.com/densify/densify/uncertainty"
)

// A path 0–1–2–3 labelled {0, 1} | {2, 3} (β = ½, so the costs are the
// logits log((1−p)/p) themselves). γ_B(v) is the energy change of moving
// v alone into the cluster B across the cut: Σ of v's costs into its own
// cluster minus Σ of its costs into B. Node 1: 0.5 − (−0.5) = 1, so
// u = σ(−1) ≈ 0.269; node 2: 3 − (−0.5) = 3.5, u = σ(−3.5) ≈ 0.029. The
// end nodes have no neighbour across the cut: γ = +∞, u = 0.
func ExampleCompute() {
	g := &multicut.Graph{N: 4, Edges: []multicut.Edge{
		{U: 0, V: 1, Cost: 0.5},
		{U: 1, V: 2, Cost: -0.5},
		{U: 2, V: 3, Cost: 3},
	}}
	r, err := uncertainty.Compute(g, []int{0, 0, 1, 1}, 0.5)
	if err != nil {
		fmt.Println(err)
		return
	}
	for v := range g.N {
		fmt.Printf("node %d: γ = %v, u = %.3f\n", v, r.Gamma[v], r.U[v])
	}
	for _, c := range r.Clusters {
		fmt.Printf("cluster %d: mean u = %.3f\n", c.Label, c.MeanU)
	}
	// Output:
	// node 0: γ = +Inf, u = 0.000
	// node 1: γ = 1, u = 0.269
	// node 2: γ = 3.5, u = 0.029
	// node 3: γ = +Inf, u = 0.000
	// cluster 0: mean u = 0.134
	// cluster 1: mean u = 0.015
}
