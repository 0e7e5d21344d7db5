package multicut_test

import (
	"fmt"

	"github.com/densify/densify/multicut"
)

// A square 0–1–2–3–0 whose edges 0–1 and 2–3 want to be joined (positive
// cost) and 1–2, 3–0 cut, with a lifted edge 0–2 that wants its endpoints
// apart without connecting them. Cutting the square into {0, 1} and
// {2, 3} cuts 1–2 (−3), 3–0 (−1) and the lifted 0–2 (−2): energy −6. Every
// other decomposition is higher: one cluster 0, {0,1,2} | {3} 3, four
// singletons 5 + 4 − 3 − 1 − 2 = 3.
func ExampleSolve() {
	g := &multicut.Graph{N: 4, Edges: []multicut.Edge{
		{U: 0, V: 1, Cost: 5},
		{U: 1, V: 2, Cost: -3},
		{U: 2, V: 3, Cost: 4},
		{U: 3, V: 0, Cost: -1},
		{U: 0, V: 2, Cost: -2, Lifted: true},
	}}
	sol, err := multicut.Solve(g, multicut.SolveOptions{}) // GAEC, then KLj
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("labels:", sol.Labels)
	fmt.Println("energy:", sol.Energy)
	fmt.Println("clusters:", sol.Clusters)
	// Output:
	// labels: [0 0 1 1]
	// energy: -6
	// clusters: 2
}
