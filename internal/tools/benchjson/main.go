// Command benchjson turns `go test -bench` output (stdin) into one JSON
// document (stdout): every benchmark with its package, iterations and all
// metrics (ns/op, B/op, allocs/op and custom ones from b.ReportMetric).
// Non-benchmark lines are passed through to stderr so progress stays visible.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

type result struct {
	Package    string             `json:"package"`
	Name       string             `json:"name"`
	Iterations int64              `json:"iterations"`
	Metrics    map[string]float64 `json:"metrics"`
}

// skip is a benchmark that called b.Skip, with the first line of its reason
// (e.g. BenchmarkVsPyTorch without python3-torch).
type skip struct {
	Package string `json:"package"`
	Name    string `json:"name"`
	Reason  string `json:"reason,omitempty"`
}

func main() {
	var out struct {
		GoOS    string   `json:"goos,omitempty"`
		GoArch  string   `json:"goarch,omitempty"`
		CPU     string   `json:"cpu,omitempty"`
		Results []result `json:"benchmarks"`
		Failed  []string `json:"failed,omitempty"`
		Skipped []skip   `json:"skipped,omitempty"`
	}
	out.Results = []result{}
	pkg := ""
	var skipped *skip // the last SKIP line, waiting for its reason
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(os.Stderr, line)
		f := strings.Fields(line)
		if skipped != nil && skipped.Reason == "" && strings.HasPrefix(line, "    ") {
			skipped.Reason = strings.TrimSpace(line)
			if _, after, ok := strings.Cut(skipped.Reason, ": "); ok && strings.Contains(skipped.Reason[:len(skipped.Reason)-len(after)], ".go:") {
				skipped.Reason = after // drop "file_test.go:123: "
			}
			continue
		}
		skipped = nil
		switch {
		case strings.HasPrefix(line, "--- SKIP: Benchmark"):
			out.Skipped = append(out.Skipped, skip{Package: pkg, Name: strings.Fields(strings.TrimPrefix(line, "--- SKIP: "))[0]})
			skipped = &out.Skipped[len(out.Skipped)-1]
		case strings.HasPrefix(line, "pkg: "):
			pkg = strings.TrimPrefix(line, "pkg: ")
		case strings.HasPrefix(line, "goos: "):
			out.GoOS = strings.TrimPrefix(line, "goos: ")
		case strings.HasPrefix(line, "goarch: "):
			out.GoArch = strings.TrimPrefix(line, "goarch: ")
		case strings.HasPrefix(line, "cpu: "):
			out.CPU = strings.TrimPrefix(line, "cpu: ")
		case strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "--- FAIL"):
			out.Failed = append(out.Failed, line)
		case len(f) >= 4 && strings.HasPrefix(f[0], "Benchmark"):
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				continue
			}
			r := result{Package: pkg, Name: f[0], Iterations: n, Metrics: map[string]float64{}}
			for i := 2; i+1 < len(f); i += 2 {
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					break
				}
				r.Metrics[f[i+1]] = v
			}
			out.Results = append(out.Results, r)
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "benchjson:", err)
		os.Exit(1)
	}
	if len(out.Failed) > 0 {
		os.Exit(1)
	}
}
