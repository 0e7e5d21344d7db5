package uncertainty

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/densify/densify/internal/logit"
	"github.com/densify/densify/multicut"
)

// energy is Σ_e c_e·[labels differ] over E ∪ F (reference for the tests).
func energy(g *multicut.Graph, labels []int) float64 {
	s := 0.0
	for _, e := range g.Edges {
		if labels[e.U] != labels[e.V] {
			s += e.Cost
		}
	}
	return s
}

// handGraph: A = {0,1,2} (label 0), B = {3,4} (label 1), C = {5} (label 7).
func handGraph() (*multicut.Graph, []int) {
	g := &multicut.Graph{N: 6, Edges: []multicut.Edge{
		{U: 0, V: 1, Cost: 2},
		{U: 1, V: 2, Cost: 1.5},
		{U: 2, V: 3, Cost: -1},
		{U: 3, V: 4, Cost: 3},
		{U: 2, V: 5, Cost: 0.5},
		{U: 1, V: 3, Cost: 0.4},
		{U: 0, V: 3, Cost: -2, Lifted: true},
		{U: 2, V: 4, Cost: 1, Lifted: true},
		{U: 0, V: 5, Cost: 0.7, Lifted: true},
	}}
	return g, []int{0, 0, 0, 1, 1, 7}
}

func TestHandComputed(t *testing.T) {
	g, labels := handGraph()
	r, err := Compute(g, labels, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	inf := math.Inf(1)
	// node 0: E-neighbour only 1 (A); 3 and 5 are lifted only      → γ = +∞
	// node 1: A: 0 (2) + 2 (1.5) = 3.5; B via E: 3 (0.4)           → γ_B = 3.1
	// node 2: A: 1 (1.5); B: 3 (−1, E) + 4 (1, lifted) = 0         → γ_B = 1.5
	//         C: 5 (0.5, E)                                        → γ_C = 1.0 = γ
	// node 3: B: 4 (3); A: 2 (−1) + 1 (0.4) + 0 (−2, lifted) = −2.6 → γ_A = 5.6
	// node 4: B: 3 (3); A only through lifted 2–4                  → γ = +∞
	// node 5: C: nothing = 0; A: 2 (0.5, E) + 0 (0.7, lifted)      → γ_A = −1.2 (a move lowers the energy)
	wantGamma := []float64{inf, 3.1, 1.0, 5.6, inf, -1.2}
	wantTarget := []int{-1, 1, 7, 0, -1, 0}
	for v := range wantGamma {
		if math.IsInf(wantGamma[v], 1) {
			if !math.IsInf(r.Gamma[v], 1) || r.U[v] != 0 {
				t.Errorf("node %d: γ = %v, u = %v; want +Inf, 0", v, r.Gamma[v], r.U[v])
			}
		} else if math.Abs(r.Gamma[v]-wantGamma[v]) > 1e-12 {
			t.Errorf("node %d: γ = %v, want %v", v, r.Gamma[v], wantGamma[v])
		}
		if r.Target[v] != wantTarget[v] {
			t.Errorf("node %d: target %d, want %d", v, r.Target[v], wantTarget[v])
		}
		if want := 1 / (1 + math.Exp(wantGamma[v])); math.Abs(r.U[v]-want) > 1e-12 {
			t.Errorf("node %d: u = %v, want σ(−γ) = %v", v, r.U[v], want)
		}
	}
	if r.U[5] <= 0.5 {
		t.Errorf("node 5 has an improving move, u = %v should exceed 0.5", r.U[5])
	}
	// Likelihood baseline of node 1 (β = 0.5): joined 0–1 (2), 1–2 (1.5); cut 1–3 (0.4).
	s := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	if want := 1 - s(2)*s(1.5)*s(-0.4); math.Abs(r.ULik[1]-want) > 1e-12 {
		t.Errorf("node 1: u_lik = %v, want %v", r.ULik[1], want)
	}
	// node 0 (lifted edges count): joined 0–1 (2); cut 0–3 (−2), 0–5 (0.7).
	if want := 1 - s(2)*s(2)*s(-0.7); math.Abs(r.ULik[0]-want) > 1e-12 {
		t.Errorf("node 0: u_lik = %v, want %v", r.ULik[0], want)
	}
	// Diagnostic variants. ULifted also moves to clusters reached only by
	// lifted edges: node 0: A 2; B via lifted 0–3 (−2) → 4; C via lifted
	// 0–5 (0.7) → 1.3 = γ′. Node 4: B 3; A via lifted 2–4 (1) → γ′ = 2.
	// Nodes with an E move keep γ′ = γ. ULikE counts E edges only: node 0
	// has the one joined E edge 0–1 (2).
	for v, want := range map[int]float64{0: s(-1.3), 4: s(-2), 1: s(-3.1), 2: s(-1.0)} {
		if math.Abs(r.ULifted[v]-want) > 1e-12 {
			t.Errorf("node %d: u_lifted = %v, want %v", v, r.ULifted[v], want)
		}
	}
	if want := 1 - s(2); math.Abs(r.ULikE[0]-want) > 1e-12 {
		t.Errorf("node 0: u_lik over E = %v, want %v", r.ULikE[0], want)
	}
	if want := r.ULik[1]; math.Abs(r.ULikE[1]-want) > 1e-12 { // node 1 has no lifted edge
		t.Errorf("node 1: u_lik over E = %v, want %v", r.ULikE[1], want)
	}
	// μ_A over {0,1,2}; cluster C = {5}.
	if len(r.Clusters) != 3 || r.Clusters[2].Label != 7 || r.Clusters[2].Size != 1 {
		t.Fatalf("clusters %+v", r.Clusters)
	}
	if want := (0 + s(-3.1) + s(-1.0)) / 3; math.Abs(r.Clusters[0].MeanU-want) > 1e-12 || r.Clusters[0].Boundary != 2 {
		t.Errorf("μ_A = %v (boundary %d), want %v (2)", r.Clusters[0].MeanU, r.Clusters[0].Boundary, want)
	}

	// With β = 0.3 γ is unchanged (costs already hold the prior); the
	// likelihood uses p_join = σ(c − log(0.7/0.3)).
	r3, err := Compute(g, labels, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	b := math.Log(0.7 / 0.3)
	if math.Abs(r3.Gamma[1]-3.1) > 1e-12 {
		t.Errorf("β=0.3: γ(1) = %v", r3.Gamma[1])
	}
	if want := 1 - s(2-b)*s(1.5-b)*s(-(0.4-b)); math.Abs(r3.ULik[1]-want) > 1e-12 {
		t.Errorf("β=0.3: u_lik(1) = %v, want %v", r3.ULik[1], want)
	}
}

func randomInstance(rng *rand.Rand, n, m, k int) (*multicut.Graph, []int) {
	g := &multicut.Graph{N: n}
	seen := map[[2]int]bool{}
	for len(g.Edges) < m {
		u, v := rng.Intn(n), rng.Intn(n)
		if u == v || seen[[2]int{u, v}] || seen[[2]int{v, u}] {
			continue
		}
		seen[[2]int{u, v}] = true
		g.Edges = append(g.Edges, multicut.Edge{U: u, V: v, Cost: rng.NormFloat64() * 2, Lifted: rng.Intn(4) == 0})
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = 3 * rng.Intn(k)
	}
	return g, labels
}

// Every listed move changes the exact energy by its Delta, and γ(v) is the
// minimum of v's moves.
func TestMovesAreExactEnergyChanges(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for trial := 0; trial < 50; trial++ {
		g, labels := randomInstance(rng, 12, 30, 4)
		adj, err := NewAdjacency(g)
		if err != nil {
			t.Fatal(err)
		}
		moves, err := adj.Moves(labels)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := adj.Compute(labels, 0.5)
		e0 := energy(g, labels)
		best := make([]float64, g.N)
		for i := range best {
			best[i] = math.Inf(1)
		}
		for _, mv := range moves {
			moved := append([]int(nil), labels...)
			moved[mv.V] = mv.To
			if d := energy(g, moved) - e0; math.Abs(d-mv.Delta) > 1e-9 {
				t.Fatalf("trial %d: move %+v: energy change %v", trial, mv, d)
			}
			// the target must be E-adjacent
			ok := false
			for _, e := range g.Edges {
				if !e.Lifted && ((e.U == mv.V && labels[e.V] == mv.To) || (e.V == mv.V && labels[e.U] == mv.To)) {
					ok = true
				}
			}
			if !ok || mv.From != labels[mv.V] || mv.To == mv.From {
				t.Fatalf("trial %d: move %+v is not to an E-adjacent cluster", trial, mv)
			}
			best[mv.V] = math.Min(best[mv.V], mv.Delta)
		}
		for v := range best {
			if best[v] != r.Gamma[v] {
				t.Fatalf("trial %d node %d: γ = %v, min over moves %v", trial, v, r.Gamma[v], best[v])
			}
		}
	}
}

// σ(γ_B) equals UAI'21's product-of-probabilities form (β = 0.5), and
// σ(γ_B − b(n_A − n_B)) equals it for other β.
func TestSigmoidEqualsProductForm(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, beta := range []float64{0.5, 0.2, 0.7} {
		b := PriorOffset(beta)
		for trial := 0; trial < 30; trial++ {
			g, labels := randomInstance(rng, 15, 45, 3)
			adj, _ := NewAdjacency(g)
			moves, err := adj.Moves(labels)
			if err != nil {
				t.Fatal(err)
			}
			if len(moves) == 0 {
				continue
			}
			for _, mv := range moves {
				pA, pB := 1.0, 1.0 // Π_A p_join Π_B p_cut, and Π_B p_join Π_A p_cut
				nA, nB := 0, 0
				for _, e := range g.Edges {
					var u int
					switch mv.V {
					case e.U:
						u = e.V
					case e.V:
						u = e.U
					default:
						continue
					}
					pCut := 1 / (1 + math.Exp(e.Cost-b)) // σ(−(c − b))
					pJoin := 1 - pCut
					switch labels[u] {
					case mv.From:
						pA *= pJoin
						pB *= pCut
						nA++
					case mv.To:
						pA *= pCut
						pB *= pJoin
						nB++
					}
				}
				want := pA / (pA + pB)
				got := logit.Sigmoid(mv.Delta - b*float64(nA-nB))
				if math.Abs(got-want) > 1e-12 {
					t.Fatalf("β=%v move %+v: σ form %v, product form %v", beta, mv, got, want)
				}
				if beta == 0.5 && math.Abs(logit.Sigmoid(mv.Delta)-want) > 1e-12 {
					t.Fatalf("β=0.5 move %+v: σ(γ_B) %v ≠ product %v", mv, logit.Sigmoid(mv.Delta), want)
				}
			}
		}
	}
}

// On a long path with one cut at the end, nodes away from the cut get u = 0.
func TestFarFromCutIsCertain(t *testing.T) {
	n := 20
	g := &multicut.Graph{N: n}
	labels := make([]int, n)
	for i := 0; i+1 < n; i++ {
		g.Edges = append(g.Edges, multicut.Edge{U: i, V: i + 1, Cost: 1})
	}
	g.Edges = append(g.Edges, multicut.Edge{U: 0, V: 10, Cost: -3, Lifted: true}) // lifted: no move
	labels[n-1], labels[n-2] = 1, 1
	r, err := Compute(g, labels, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < n; v++ {
		boundary := v == n-3 || v == n-2
		if boundary != (r.U[v] > 0) {
			t.Errorf("node %d: u = %v (boundary %v)", v, r.U[v], boundary)
		}
	}
	// node 17 (label 0): A: 16 (1); B: 18 (1) → γ = 0, u = ½.
	if r.U[n-3] != 0.5 {
		t.Errorf("node 17: u = %v, want 0.5", r.U[n-3])
	}
}

func TestLargeGammaStable(t *testing.T) {
	g := &multicut.Graph{N: 4, Edges: []multicut.Edge{
		{U: 0, V: 1, Cost: 400}, {U: 1, V: 2, Cost: -300}, {U: 2, V: 3, Cost: 500},
		{U: 0, V: 2, Cost: 250, Lifted: true},
	}}
	r, err := Compute(g, []int{0, 0, 1, 1}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// node 1: A: 0 (400); B: 2 (−300) → γ = 700 → u = e^−700 (finite, > 0).
	// node 2: B: 3 (500); A: 1 (−300) + 0 (250, lifted) = −50 → γ = 550.
	if math.Abs(r.Gamma[1]-700) > 1e-9 || math.Abs(math.Log(r.U[1])+700) > 1e-9 {
		t.Errorf("node 1: γ = %v, log u = %v; want 700, −700", r.Gamma[1], math.Log(r.U[1]))
	}
	if math.Abs(math.Log(r.U[2])+550) > 1e-9 {
		t.Errorf("node 2: log u = %v, want −550", math.Log(r.U[2]))
	}
	for v := range r.U {
		for _, x := range []float64{r.U[v], r.ULik[v]} {
			if math.IsNaN(x) || x < 0 || x > 1 {
				t.Errorf("node %d: value %v outside [0,1]", v, x)
			}
		}
	}
	// A huge improving move: u → 1 exactly, no NaN.
	r2, _ := Compute(g, []int{0, 1, 1, 1}, 0.5) // node 0 alone: γ_B(0) = 0 − 400 − 250 = −650
	if r2.U[0] != 1 || math.Abs(r2.Gamma[0]+650) > 1e-9 {
		t.Errorf("node 0: γ = %v, u = %v; want −650, 1", r2.Gamma[0], r2.U[0])
	}
	// log σ stays accurate far in the tails.
	if got := LogSigmoid(-800); math.Abs(got+800) > 1e-9 {
		t.Errorf("log σ(−800) = %v", got)
	}
	if got := LogSigmoid(800); got != 0 && got < -1e-300 {
		t.Errorf("log σ(800) = %v", got)
	}
	// Likelihood uncertainty of a node with many near-certain joined edges is tiny but not 0.
	if r.ULik[3] <= 0 || r.ULik[3] > 1e-200 {
		t.Errorf("u_lik(3) = %v, want ≈ e^−500", r.ULik[3])
	}
}

func TestInvalidInput(t *testing.T) {
	g, labels := handGraph()
	cases := []struct {
		name   string
		g      *multicut.Graph
		labels []int
		beta   float64
		want   string
	}{
		{"short labels", g, labels[:5], 0.5, "5 labels for 6 nodes"},
		{"negative label", g, []int{0, 0, -1, 1, 1, 2}, 0.5, "negative label"},
		{"beta", g, labels, 1, "beta"},
		{"nan", &multicut.Graph{N: 2, Edges: []multicut.Edge{{U: 0, V: 1, Cost: math.NaN()}}}, []int{0, 0}, 0.5, "not finite"},
		{"id", &multicut.Graph{N: 2, Edges: []multicut.Edge{{U: 0, V: 2, Cost: 1}}}, []int{0, 0}, 0.5, "out of range"},
		{"self-loop", &multicut.Graph{N: 2, Edges: []multicut.Edge{{U: 1, V: 1, Cost: 1}}}, []int{0, 0}, 0.5, "self-loop"},
	}
	for _, c := range cases {
		_, err := Compute(c.g, c.labels, c.beta)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	// Sparse, huge label ids work (map path).
	r, err := Compute(g, []int{1 << 40, 1 << 40, 1 << 40, 5, 5, 9}, 0.5)
	if err != nil || r.Target[2] != 9 || r.Target[3] != 1<<40 {
		t.Errorf("large label ids: err %v, targets %v", err, r.Target)
	}
}

func TestRandomSeeded(t *testing.T) {
	a, b, c := Random(100, 1), Random(100, 1), Random(100, 2)
	same := 0
	for i := range a {
		if a[i] != b[i] || a[i] < 0 || a[i] >= 1 {
			t.Fatalf("Random not reproducible or out of range at %d", i)
		}
		if a[i] == c[i] {
			same++
		}
	}
	if same > 2 {
		t.Errorf("different seeds agree on %d of 100 values", same)
	}
}

// benchInstance: 100k nodes in clusters of ~100, 1M local edges (20% lifted).
func benchInstance() (*multicut.Graph, []int) {
	rng := rand.New(rand.NewSource(7))
	n, m := 100_000, 1_000_000
	g := &multicut.Graph{N: n, Edges: make([]multicut.Edge, 0, m)}
	for len(g.Edges) < m {
		u := rng.Intn(n)
		v := u + 1 + rng.Intn(30)
		if v >= n {
			continue
		}
		g.Edges = append(g.Edges, multicut.Edge{U: u, V: v, Cost: rng.NormFloat64(), Lifted: rng.Intn(5) == 0})
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i / 100
	}
	return g, labels
}

// BenchmarkSweep measures the uncertainty sweep (γ, u and the likelihood
// baseline) on a prebuilt CSR adjacency of a 1M-edge instance.
func BenchmarkSweep(b *testing.B) {
	g, labels := benchInstance()
	adj, err := NewAdjacency(g)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := adj.Compute(labels, 0.5); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g.Edges))*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}

// BenchmarkMoves measures the γ-only sweep (no transcendental functions).
func BenchmarkMoves(b *testing.B) {
	g, labels := benchInstance()
	adj, _ := NewAdjacency(g)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := adj.Moves(labels); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g.Edges))*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}

// BenchmarkCompute includes validation and the CSR build.
func BenchmarkCompute(b *testing.B) {
	g, labels := benchInstance()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Compute(g, labels, 0.5); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g.Edges))*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}
