package multicut

import (
	"sync"
	"testing"
	"time"
)

// Benchmark instances: random geometric graphs with a planted partition
// (GeneratePlanted) at noise 4, where GAEC leaves work for KLj.
var benchCases = []struct {
	name string
	opt  GenerateOptions
}{
	{"10k-100k", GenerateOptions{Seed: 11, Nodes: 10000, Edges: 100000, Clusters: 8, Noise: 4}},
	{"10k-100k-lifted100k", GenerateOptions{Seed: 12, Nodes: 10000, Edges: 100000, Lifted: 100000, Clusters: 8, Noise: 4}},
	// About what a DAVIS 854×480 sequence gives with 8 px spacing.
	{"davis-15k-150k-lifted150k", GenerateOptions{Seed: 13, Nodes: 15000, Edges: 150000, Lifted: 150000, Clusters: 5, Noise: 4}},
}

var (
	benchOnce   sync.Once
	benchGraphs []*Graph
	benchGAEC   [][]int
)

func benchInstances(b *testing.B) {
	benchOnce.Do(func() {
		for _, c := range benchCases {
			g, _ := GeneratePlanted(c.opt)
			l, err := GAEC(g)
			if err != nil {
				panic(err)
			}
			benchGraphs = append(benchGraphs, g)
			benchGAEC = append(benchGAEC, l)
		}
	})
}

func BenchmarkGAEC(b *testing.B) {
	benchInstances(b)
	for i, c := range benchCases {
		g := benchGraphs[i]
		b.Run(c.name, func(b *testing.B) {
			var l []int
			start := time.Now()
			for b.Loop() {
				l, _ = GAEC(g)
			}
			b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "seconds")
			b.ReportMetric(Energy(g, l), "energy")
			b.ReportMetric(float64(NumClusters(l)), "clusters")
		})
	}
}

// BenchmarkKLj times KLj alone, started from the GAEC labelling (computed
// outside the timer; add BenchmarkGAEC for the default pipeline).
func BenchmarkKLj(b *testing.B) {
	benchInstances(b)
	for i, c := range benchCases {
		g := benchGraphs[i]
		b.Run(c.name, func(b *testing.B) {
			var l []int
			start := time.Now()
			for b.Loop() {
				var err error
				l, err = KLj(g, KLjOptions{Start: benchGAEC[i]})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "seconds")
			b.ReportMetric(Energy(g, l), "energy")
			b.ReportMetric(Energy(g, benchGAEC[i]), "gaec-energy")
			b.ReportMetric(float64(NumClusters(l)), "clusters")
		})
	}
}
