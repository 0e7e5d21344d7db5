// Package words guards the words of the repository: its code, comments,
// scripts and documentation speak of the product, not of the history of its
// development. TestNoDevelopmentHistoryWords reads every file git tracks and
// fails, naming file:line, on
//
//   - "session" (the word has no product meaning here; development sessions
//     are history) and "closing note";
//   - issue numbers ("issue 9", "(issue …", "issue:", "issue's");
//   - "seed" for the paper densify implements ("seed Eq. 9", "the seed's",
//     "(seed)", "seed paper", "Eq. 9 of the seed", "as the seed"): cite it
//     as Kardoost & Keuper, UAI 2021 (or UAI'21). "seed" stays for random
//     seeds.
//
// A phrase split over two lines (a comment wrapped after "issue") is found
// too. Binary files, generated files ("Code generated … DO NOT EDIT"),
// vendored files and this file are skipped. Measured evidence belongs in
// docs/results.md, which names dates and commits instead.
package words

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/densify/densify/internal/testutil"
)

// rule is one forbidden pattern and what to write instead.
type rule struct {
	re   *regexp.Regexp
	hint string
}

var rules = []rule{
	{regexp.MustCompile(`(?i)\bsessions?\b`), "development history: state the product's behaviour, put measurements in docs/results.md"},
	{regexp.MustCompile(`(?i)\bclosing notes?\b`), "points at text outside the repository: put the table in docs/results.md"},
	{regexp.MustCompile(`(?i)\bissues?\s+#?[0-9]`), "issue numbers are history: say what the code does and why"},
	{regexp.MustCompile(`(?i)\(issue\b`), "issue numbers are history: say what the code does and why"},
	{regexp.MustCompile(`(?i)\bissue(:|'s\b)`), "issue references are history: say what the code does and why"},
	{regexp.MustCompile(`(?i)\bseed('s)?\s+(Eqs?|Sec|Secs|Fig|Figs|Table)\b`), `the paper is "Kardoost & Keuper, UAI 2021" (or UAI'21), not "seed"`},
	{regexp.MustCompile(`(?i)\bthe seed's\b`), `the paper is "Kardoost & Keuper, UAI 2021" (or UAI'21), not "the seed"`},
	{regexp.MustCompile(`(?i)(^|\s)\(seed[);]`), `the paper is "Kardoost & Keuper, UAI 2021" (or UAI'21), not "(seed)"`},
	{regexp.MustCompile(`(?i)\bseed paper\b`), `the paper is "Kardoost & Keuper, UAI 2021" (or UAI'21)`},
	{regexp.MustCompile(`(?i)\b(Eqs?|Sec|Fig|Table)\.?\s*[0-9][0-9–-]*\s+of\s+the\s+seed\b`), `the paper is "Kardoost & Keuper, UAI 2021" (or UAI'21)`},
	{regexp.MustCompile(`(?i)\b(as|unlike) the seed\b|\bthe seed (leaves|says|calls|defines)\b`), `the paper is "Kardoost & Keuper, UAI 2021" (or UAI'21)`},
}

// self is this file, whose patterns would match themselves.
const self = "internal/words/words_test.go"

// skipped reports files the rules do not apply to: vendored code and this
// file (binary and generated files are recognised by their content).
func skipped(path string) bool {
	return path == self || strings.HasPrefix(path, "vendor/") || strings.Contains(path, "/vendor/")
}

// commentPrefix strips what a wrapped comment's next line starts with.
var commentPrefix = regexp.MustCompile(`^\s*(//+|#+|\*|--|<!--)?\s*`)

// offences returns "line: matched text (hint)" for every line of content
// that a rule matches, with line numbers from 1. A match that starts on a line and runs
// onto the next (a wrapped comment) counts on the line it starts on.
func offences(content string) []string {
	lines := strings.Split(content, "\n")
	var out []string
	for i, line := range lines {
		joined := line
		if i+1 < len(lines) {
			joined += " " + commentPrefix.ReplaceAllString(lines[i+1], "")
		}
		var found []string
		hint := ""
		for _, r := range rules {
			for _, m := range r.re.FindAllStringIndex(joined, -1) {
				if m[0] < len(line) {
					found = append(found, fmt.Sprintf("%q", strings.TrimSpace(joined[m[0]:m[1]])))
					if hint == "" {
						hint = r.hint
					}
					break
				}
			}
		}
		if found != nil {
			out = append(out, fmt.Sprintf("%d: %s (%s)", i+1, strings.Join(found, ", "), hint))
		}
	}
	return out
}

// generated is the marker of generated Go files (go.dev/s/generatedcode).
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

func TestNoDevelopmentHistoryWords(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed:", err)
	}
	root := testutil.RepoRoot()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("no git repository at %s: %v", root, err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 50 {
		t.Fatalf("git ls-files lists %d files, too few for this repository", len(files))
	}
	checked := 0
	for _, f := range files {
		if f == "" || skipped(f) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree, not yet committed
			}
			t.Fatal(err)
		}
		if bytes.IndexByte(b, 0) >= 0 || generated.Match(b) {
			continue
		}
		checked++
		for _, o := range offences(string(b)) {
			t.Errorf("%s:%s", f, o)
		}
	}
	if checked == 0 {
		t.Fatal("no file checked")
	}
}

// The rules find what they are for, also wrapped over two lines, and leave
// random seeds and ordinary words alone.
func TestRules(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"// measured in session 12", 1},
		{"# before sessions 11–20", 1},
		{"// the closing note has the table", 1},
		{"// as issue 9 asks", 1},
		{"// the size below which issue\n// 9 counts a fragment", 1},
		{"// (issue 10)", 1},
		{"// issue: fragmented objects", 1},
		{"// the issue's target", 1},
		{"// costs (seed Eq. 9)", 1},
		{"// the seed's hard examples", 1},
		{"| proposed (seed) | 1.2 |", 1},
		{"| likelihood (seed; E ∪ F) |", 1},
		{"// the prior of Eq. 9 of the seed", 1},
		{"// (seed Table 1 \"w/o\")", 1},
		{"// as the seed (Kardoost & Keuper)", 1},
		{"// (the seed leaves this move out)", 1},
		{"// derives a generator from the seed.", 0},
		{"// a generator seeded with (Seed, e); options (seed, scale, threads)", 0},
		{"rng := rand.New(rand.NewSource(seed))", 0},
		{"// random seed 1; --seeds 3; the k-th seed's model; per seed", 0},
		{"// Kardoost & Keuper, UAI 2021, Eq. 9 (UAI'21 Table 1)", 0},
		{"// a tissue 9 px wide; sessionless", 0},
	} {
		if got := len(offences(tc.text)); got != tc.want {
			t.Errorf("%q: %d offences %v, want %d", tc.text, got, offences(tc.text), tc.want)
		}
	}
}
