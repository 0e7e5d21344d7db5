// Package multicut solves minimum cost (lifted) multicut problems:
//
//	min_y Σ_{e ∈ E∪F} c_e · y_e,   y_e = 1 iff the endpoints of e are in different clusters,
//
// over decompositions of G = (V, E) (every cluster connected through E; lifted
// edges F only contribute cost). Positive cost = the endpoints prefer to be
// joined. Solvers: GAEC and KLj (Keuper, Andres, Brox, ICCV 2015). Pure Go.
package multicut

// Edge is an undirected edge with its cost; Lifted edges belong to F and do
// not contribute to connectivity.
type Edge struct {
	U, V   int
	Cost   float64
	Lifted bool
}

// Graph is a multicut instance on nodes 0..N-1.
type Graph struct {
	N     int
	Edges []Edge
}
