package uncertainty

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"sort"

	"github.com/densify/densify/multicut"
)

// Alternative is one labeling returned by NBest.
type Alternative struct {
	Labels   []int   `json:"-"`
	Energy   float64 `json:"energy"` // exact Σ c_e y_e (multicut.Energy)
	Clusters int     `json:"clusters"`
	From     int     `json:"from"`  // moved nodes left cluster From …
	To       int     `json:"to"`    // … for To (−1, −1 for the input labeling)
	Moved    int     `json:"moved"` // k, the number of moved nodes
	Split    int     `json:"split"` // extra clusters created because From fell apart
}

// NBestOptions bounds the search.
type NBestOptions struct {
	N    int // labelings to return, the input included (≥ 1)
	MaxK int // largest moved subset per cluster pair (0: no bound)
	// OnePerPair keeps at most one alternative per ordered cluster pair (its
	// lowest-energy k), for more diverse alternatives than the n lowest
	// energies, which are often tiny variations of one boundary. A pair whose
	// best labeling equals one already kept (e.g. A merged into B versus B
	// merged into A) contributes nothing.
	OnePerPair bool
	// Merges also offers, for every ordered pair (A, B) of clusters adjacent
	// through E, the labeling with all of A moved to B (A ∪ B is connected,
	// so it is feasible): the whole uncertain group changes cluster, which
	// moves of the nodes of A that border B alone cannot reach when some
	// node of A has no E-neighbour in B. It competes beside the pair's moves
	// (with OnePerPair, beside the pair's best move); its energy change is
	// −Σ c_e over the edges between A and B.
	Merges bool
}

// NBest returns up to opt.N distinct feasible labelings of g: the input
// first, then the lowest-energy alternatives in increasing energy (ties in
// generation order), following Kardoost & Keuper (UAI 2021) Sec. 4.2.
//
// Candidates: for every ordered pair (A, B) of clusters adjacent through E,
// the nodes of A that can move to B are sorted by γ_B(v) (smallest energy
// increase first, ties by node id); the k-th candidate of the pair moves the
// k smallest of them to B, k = 1, 2, …, MaxK. Moved nodes each have an E-
// neighbour in B, so B ∪ S stays connected; A \ S may fall apart, and then
// every connected component (through E) of it except the one holding its
// smallest node id gets a fresh label, so every returned cluster is connected
// (multicut.Feasible holds). The energy change of a candidate is computed
// exactly over the edges incident to the changed nodes (the moves interact,
// so it is not Σ γ_B), and the returned energies are recomputed with
// multicut.Energy. Labelings are deduplicated by a 128-bit FNV-1a hash of
// their canonical form (labels renamed in order of first appearance).
//
// With opt.Merges, the merge of A into B is one more candidate of the pair
// (Moved = |A|).
//
// An alternative with energy below the input's means the input was not a
// local optimum for these moves; it is still listed after the input.
func NBest(g *multicut.Graph, labels []int, opt NBestOptions) ([]Alternative, error) {
	if opt.N < 1 {
		return nil, fmt.Errorf("nbest: n = %d, want ≥ 1", opt.N)
	}
	adj, err := NewAdjacency(g)
	if err != nil {
		return nil, err
	}
	if err := multicut.Feasible(g, labels); err != nil {
		return nil, fmt.Errorf("nbest: input labels: %w", err)
	}
	moves, err := adj.Moves(labels)
	if err != nil {
		return nil, err
	}
	e0 := multicut.Energy(g, labels)
	input := Alternative{Labels: labels, Energy: e0, Clusters: multicut.NumClusters(labels), From: -1, To: -1}
	if opt.N == 1 {
		return []Alternative{input}, nil
	}

	// group moves by ordered pair, each sorted by (Delta, node)
	sort.SliceStable(moves, func(i, j int) bool {
		a, b := moves[i], moves[j]
		if a.From != b.From {
			return a.From < b.From
		}
		if a.To != b.To {
			return a.To < b.To
		}
		if a.Delta != b.Delta {
			return a.Delta < b.Delta
		}
		return a.V < b.V
	})
	members := map[int][]int{}
	maxLabel := 0
	for v, l := range labels {
		members[l] = append(members[l], v)
		if l > maxLabel {
			maxLabel = l
		}
	}

	s := &nbestState{adj: adj, orig: labels, cur: append([]int(nil), labels...),
		mark: make([]int32, g.N), seen: map[[2]uint64]bool{hashLabels(labels): true}, keep: opt.N - 1,
		perPair: opt.OnePerPair, vis: make([]int32, g.N)}
	for i := 0; i < len(moves); {
		j := i
		for j < len(moves) && moves[j].From == moves[i].From && moves[j].To == moves[i].To {
			j++
		}
		pair := moves[i:j]
		kmax := len(pair)
		if opt.MaxK > 0 && kmax > opt.MaxK {
			kmax = opt.MaxK
		}
		s.pairBestK, s.pairBestE = 0, math.Inf(1)
		for k := 1; k <= kmax; k++ {
			s.candidate(pair[:k], members[pair[0].From], maxLabel, e0)
		}
		if s.perPair && s.pairBestK > 0 && s.wouldKeep(s.pairBestE) {
			// rebuild the pair's best labeling and offer it like any candidate
			s.perPair = false
			s.candidate(pair[:s.pairBestK], members[pair[0].From], maxLabel, e0)
			s.perPair = true
		}
		if opt.Merges && len(members[pair[0].From]) > kmax {
			// the whole of A to B (when the moves above did not already)
			perPair := s.perPair
			s.perPair = false
			s.candidate(mergeMoves(members[pair[0].From], pair[0].From, pair[0].To), members[pair[0].From], maxLabel, e0)
			s.perPair = perPair
		}
		i = j
	}
	out := []Alternative{input}
	for _, a := range s.best {
		a.Energy = multicut.Energy(g, a.Labels)
		a.Clusters = multicut.NumClusters(a.Labels)
		out = append(out, a)
	}
	return out, nil
}

// mergeMoves moves every member of cluster A to B.
func mergeMoves(membersA []int, A, B int) []Move {
	S := make([]Move, len(membersA))
	for k, v := range membersA {
		S[k] = Move{V: v, From: A, To: B}
	}
	return S
}

type nbestState struct {
	adj     *Adjacency
	orig    []int
	cur     []int
	mark    []int32 // mark[v] = stamp when v changed in the current candidate
	stamp   int32
	changed []int
	queue   []int
	seen    map[[2]uint64]bool // hashes of the kept labelings and the input
	best    []Alternative      // sorted by energy, at most keep
	keep    int
	vis     []int32 // search marks of stillConnected
	vstamp  int32
	// perPair: only the best candidate of each cluster pair competes
	perPair   bool
	pairBestK int // moved-set size of the pair's lowest-energy candidate so far
	pairBestE float64
}

// candidate evaluates moving the nodes of S (all from cluster A to B).
func (s *nbestState) candidate(S []Move, membersA []int, maxLabel int, e0 float64) {
	A, B := S[0].From, S[0].To
	s.stamp++
	s.changed = s.changed[:0]
	for _, m := range S {
		s.cur[m.V] = B
		s.mark[m.V] = s.stamp
		s.changed = append(s.changed, m.V)
	}
	// components of A \ S through E; all but the first get fresh labels.
	// Shortcut: A was connected, so every node of A \ S reaches, inside
	// A \ S, one of the A-neighbours of S; if a search from one of them
	// reaches all of them, A \ S is connected and nothing is relabelled.
	split := 0
	comp := 0
	if s.stillConnected(S, A) {
		comp = len(membersA) // skip the component labelling
	}
	seenStamp := -s.stamp // visited marker distinct from "changed"
	for _, r := range membersA {
		if comp >= len(membersA) {
			break
		}
		if s.cur[r] != A || s.mark[r] == seenStamp {
			continue
		}
		label := A
		if comp > 0 {
			label = maxLabel + comp
			split++
		}
		comp++
		s.queue = append(s.queue[:0], r)
		s.mark[r] = seenStamp
		for q := 0; q < len(s.queue); q++ {
			v := s.queue[q]
			if label != A {
				s.cur[v] = label
				s.changed = append(s.changed, v)
			}
			for _, h := range s.adj.Half[s.adj.Off[v]:s.adj.Off[v+1]] {
				u := int(h.To)
				if !h.Lifted && s.cur[u] == A && s.mark[u] != seenStamp {
					s.mark[u] = seenStamp
					s.queue = append(s.queue, u)
				}
			}
		}
	}
	// every changed node gets the "changed" mark for the energy sweep
	for _, v := range s.changed {
		s.mark[v] = s.stamp
	}
	delta := 0.0
	for _, v := range s.changed {
		for _, h := range s.adj.Half[s.adj.Off[v]:s.adj.Off[v+1]] {
			u := int(h.To)
			if s.mark[u] == s.stamp && u < v {
				continue // both endpoints changed: count the edge once
			}
			was := s.orig[v] != s.orig[u]
			now := s.cur[v] != s.cur[u]
			if was != now {
				if now {
					delta += h.Cost
				} else {
					delta -= h.Cost
				}
			}
		}
	}
	e := e0 + delta
	if s.perPair {
		// remember the pair's lowest energy only (cheap); ties keep the smaller k
		if e < s.pairBestE {
			s.pairBestK, s.pairBestE = len(S), e
		}
	} else if s.wouldKeep(e) {
		if hsh := hashLabels(s.cur); !s.seen[hsh] {
			s.insert(Alternative{Labels: append([]int(nil), s.cur...), Energy: e, From: A, To: B, Moved: len(S), Split: split}, hsh)
		}
	}
	for _, v := range s.changed {
		s.cur[v] = s.orig[v]
	}
}

// stillConnected reports whether A \ S (S already moved in s.cur) is
// connected through E, by a breadth-first search from one A-neighbour of S
// that stops as soon as all A-neighbours of S are reached.
func (s *nbestState) stillConnected(S []Move, A int) bool {
	s.vstamp += 2
	target, visited := s.vstamp, s.vstamp+1
	targets := 0
	s.queue = s.queue[:0]
	for _, m := range S {
		for _, h := range s.adj.Half[s.adj.Off[m.V]:s.adj.Off[m.V+1]] {
			u := int(h.To)
			if !h.Lifted && s.cur[u] == A && s.vis[u] != target {
				s.vis[u] = target
				targets++
				if len(s.queue) == 0 {
					s.queue = append(s.queue, u)
				}
			}
		}
	}
	if targets <= 1 {
		return true // A \ S is empty (A merged into B) or hangs on one node
	}
	found := 0
	root := s.queue[0]
	s.vis[root] = visited
	found++
	for q := 0; q < len(s.queue); q++ {
		v := s.queue[q]
		for _, h := range s.adj.Half[s.adj.Off[v]:s.adj.Off[v+1]] {
			u := int(h.To)
			if h.Lifted || s.cur[u] != A || s.vis[u] == visited {
				continue
			}
			if s.vis[u] == target {
				found++
				if found == targets {
					return true
				}
			}
			s.vis[u] = visited
			s.queue = append(s.queue, u)
		}
	}
	return false
}

func (s *nbestState) wouldKeep(e float64) bool {
	return len(s.best) < s.keep || e < s.best[len(s.best)-1].Energy
}

// insert puts alt (hash hsh, not yet seen) into the sorted list, evicting
// the worst when the list is full.
func (s *nbestState) insert(alt Alternative, hsh [2]uint64) {
	pos := sort.Search(len(s.best), func(i int) bool { return s.best[i].Energy > alt.Energy })
	s.best = append(s.best, Alternative{})
	copy(s.best[pos+1:], s.best[pos:])
	s.best[pos] = alt
	s.seen[hsh] = true
	if len(s.best) > s.keep {
		delete(s.seen, hashLabels(s.best[len(s.best)-1].Labels))
		s.best = s.best[:s.keep]
	}
}

// hashLabels is a 128-bit FNV-1a hash of the canonical form of labels
// (renamed 0, 1, … in order of first appearance).
func hashLabels(labels []int) [2]uint64 {
	c := multicut.Canonical(labels)
	h := fnv.New128a()
	var buf [8]byte
	for _, l := range c {
		binary.LittleEndian.PutUint64(buf[:], uint64(l))
		h.Write(buf[:])
	}
	sum := h.Sum(nil)
	return [2]uint64{binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:])}
}
