package eval

import (
	"math"
	"math/rand"
	"testing"
)

func TestPartitionHandExample(t *testing.T) {
	a := []int{0, 0, 1, 1}
	b := []int{0, 0, 0, 1}
	// Pairs (0,1) same/same, (0,3) (1,3) apart/apart agree; (0,2) (1,2) (2,3) disagree: 3/6.
	if got := RandIndex(a, b); math.Abs(got-0.5) > 1e-15 {
		t.Errorf("RI = %v, want 0.5", got)
	}
	// H(b|a) = ½·ln 2 (a=1 splits 1/1); H(a|b) = ¾·H(2/3,1/3) = ¾ ln 3 − ½ ln 2;
	// VI = ¾ ln 3.
	if got, want := VariationOfInformation(a, b), 0.75*math.Log(3); math.Abs(got-want) > 1e-12 {
		t.Errorf("VI = %v, want %v", got, want)
	}
	// Symmetric.
	if got, want := VariationOfInformation(b, a), 0.75*math.Log(3); math.Abs(got-want) > 1e-12 {
		t.Errorf("VI(b,a) = %v, want %v", got, want)
	}
}

func TestPartitionExtremes(t *testing.T) {
	a := []int{3, 3, 7, 7, 9}
	renamed := []int{1, 1, 0, 0, 5}
	if vi := VariationOfInformation(a, renamed); vi != 0 {
		t.Errorf("VI of renamed partition = %v", vi)
	}
	if ri := RandIndex(a, renamed); ri != 1 {
		t.Errorf("RI of renamed partition = %v", ri)
	}
	// All-in-one against all-singletons: VI = ln n, RI = 0.
	one := make([]int, 8)
	single := []int{0, 1, 2, 3, 4, 5, 6, 7}
	if vi := VariationOfInformation(one, single); math.Abs(vi-math.Log(8)) > 1e-12 {
		t.Errorf("VI(one, singletons) = %v, want ln 8", vi)
	}
	if ri := RandIndex(one, single); ri != 0 {
		t.Errorf("RI(one, singletons) = %v, want 0", ri)
	}
	if VariationOfInformation(nil, nil) != 0 || RandIndex(nil, nil) != 1 || RandIndex([]int{4}, []int{2}) != 1 {
		t.Error("degenerate inputs: want VI 0, RI 1")
	}
}

// bruteRI counts agreeing pairs in O(n²).
func bruteRI(a, b []int) float64 {
	agree, total := 0, 0
	for i := range a {
		for j := i + 1; j < len(a); j++ {
			total++
			if (a[i] == a[j]) == (b[i] == b[j]) {
				agree++
			}
		}
	}
	if total == 0 {
		return 1
	}
	return float64(agree) / float64(total)
}

// bruteVI evaluates H(a|b) + H(b|a) by scanning, for every item, all items
// with the same label (O(n²)): H(a|b) = −(1/n) Σ_k log(|{a=a_k, b=b_k}| / |{b=b_k}|).
func bruteVI(a, b []int) float64 {
	n := len(a)
	vi := 0.0
	for k := 0; k < n; k++ {
		var both, sameA, sameB int
		for l := 0; l < n; l++ {
			if a[l] == a[k] && b[l] == b[k] {
				both++
			}
			if a[l] == a[k] {
				sameA++
			}
			if b[l] == b[k] {
				sameB++
			}
		}
		vi -= (math.Log(float64(both)/float64(sameB)) + math.Log(float64(both)/float64(sameA))) / float64(n)
	}
	return vi
}

func TestPartitionAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 200; trial++ {
		n := rng.Intn(60)
		ka, kb := 1+rng.Intn(6), 1+rng.Intn(6)
		a, b := make([]int, n), make([]int, n)
		for i := range a {
			a[i] = rng.Intn(ka) * 17 // sparse, non-contiguous label ids
			b[i] = rng.Intn(kb) - 2  // negative ids are fine too
		}
		if got, want := RandIndex(a, b), bruteRI(a, b); math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: RI = %v, brute force %v", trial, got, want)
		}
		if got, want := VariationOfInformation(a, b), bruteVI(a, b); math.Abs(got-want) > 1e-9 {
			t.Fatalf("trial %d: VI = %v, brute force %v", trial, got, want)
		}
	}
}

// The same partitions give bit-identical VI on every call (the sum does
// not follow the random order of a Go map): run and report results are
// compared bit for bit across processes (sharded vs sequential runs).
func TestVariationOfInformationIsReproducible(t *testing.T) {
	n := 5000
	a, b := make([]int, n), make([]int, n)
	for k := range a {
		a[k] = (k * 7919) % 61
		b[k] = (k*104729)%53 + k%3
	}
	first := VariationOfInformation(a, b)
	for range 50 {
		if v := VariationOfInformation(a, b); math.Float64bits(v) != math.Float64bits(first) {
			t.Fatalf("VI %v, then %v", first, v)
		}
	}
}

// PointwiseVI on the hand example: cells (0,0)=2, (1,0)=1, (1,1)=1, rows 2
// and 2, columns 3 and 1, so the items score log(3/2), log(3/2), log 6 and
// log 2, whose mean is VI = ¾ ln 3; an item without ground truth scores 0
// and changes nobody's counts.
func TestPointwiseVIHandExample(t *testing.T) {
	got := PointwiseVI([]int{0, 0, 1, 1, 5}, []int{0, 0, 0, 1, -1})
	want := []float64{math.Log(1.5), math.Log(1.5), math.Log(6), math.Log(2), 0}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-12 {
			t.Fatalf("item %d: %v, want %v (all %v)", k, got[k], want[k], got)
		}
	}
	if s := PointwiseVI([]int{4, 4, 9}, []int{1, 1, 0}); s[0] != 0 || s[1] != 0 || s[2] != 0 {
		t.Errorf("equal partitions: %v, want zeros", s)
	}
}

// The mean of the terms over the items with ground truth is VI of those items.
func TestPointwiseVIMeanIsVI(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.Intn(80)
		a, b := make([]int, n), make([]int, n)
		var fa, fb []int
		for i := range a {
			a[i] = rng.Intn(5) * 3
			b[i] = rng.Intn(5) - 1 // −1: no ground truth
			if b[i] >= 0 {
				fa, fb = append(fa, a[i]), append(fb, b[i])
			}
		}
		s := PointwiseVI(a, b)
		sum := 0.0
		for i, x := range s {
			if b[i] < 0 && x != 0 {
				t.Fatalf("trial %d: item %d without ground truth scores %v", trial, i, x)
			}
			sum += x
		}
		if len(fa) == 0 {
			continue
		}
		if got, want := sum/float64(len(fa)), VariationOfInformation(fa, fb); math.Abs(got-want) > 1e-9 {
			t.Fatalf("trial %d: mean term %v, VI %v", trial, got, want)
		}
	}
}
