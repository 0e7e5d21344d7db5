package multicut

import (
	"reflect"
	"strings"
	"testing"
)

// Two attractive pairs joined by a repulsive edge and a repulsive lifted edge
// 0–3: the optimum cuts 1–2 (and so the lifted edge), energy −3 − 1 = −4.
func TestSolveHandInstance(t *testing.T) {
	g := &Graph{N: 4, Edges: []Edge{{0, 1, 5, false}, {2, 3, 5, false}, {1, 2, -3, false}, {0, 3, -1, true}}}
	for _, solver := range []string{"gaec", "klj", ""} {
		var lines []string
		sol, err := Solve(g, SolveOptions{Solver: solver, Log: func(f string, a ...any) { lines = append(lines, f) }})
		if err != nil {
			t.Fatal(err)
		}
		if sol.Energy != -4 || sol.Clusters != 2 || !reflect.DeepEqual(Canonical(sol.Labels), []int{0, 0, 1, 1}) {
			t.Errorf("%q: %+v", solver, sol)
		}
		if len(lines) == 0 || !strings.Contains(lines[0], "GAEC") {
			t.Errorf("%q: log %q", solver, lines)
		}
	}
	// KLj from a given start: no GAEC, the start's energy recorded.
	start := []int{0, 1, 2, 3}
	sol, err := Solve(g, SolveOptions{Solver: "klj", Start: start})
	if err != nil || sol.StartEnergy != Energy(g, start) || sol.Energy > sol.StartEnergy {
		t.Fatalf("%+v %v", sol, err)
	}
	if _, err := Solve(g, SolveOptions{Solver: "ilp"}); err == nil || !strings.Contains(err.Error(), "unknown solver") {
		t.Errorf("unknown solver: %v", err)
	}
	if _, err := Solve(g, SolveOptions{Solver: "gaec", Start: start}); err == nil {
		t.Error("gaec with a start labelling accepted")
	}
}
