// Package testutil locates the repository root and the shared development
// data for tests. Tests that need ../shared/data skip cleanly when it is absent
// (a user's fresh clone has no ../shared).
package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RepoRoot returns the folder holding go.mod, searching upwards from the
// working directory (go test runs in the package folder).
func RepoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// DAVISDev returns ../shared/data/davis2016-dev (beside the repository), or
// skips the test when it is absent. DENSIFY_DAVIS overrides the location.
func DAVISDev(tb testing.TB) string {
	tb.Helper()
	p := os.Getenv("DENSIFY_DAVIS")
	if p == "" {
		p = filepath.Join(RepoRoot(), "..", "shared", "data", "davis2016-dev")
	}
	if _, err := os.Stat(filepath.Join(p, "JPEGImages", "480p")); err != nil {
		tb.Skipf("DAVIS development data not found at %s", p)
	}
	return p
}

// BSDSDev returns ../shared/data/bsds500-dev (beside the repository). It
// does not check that the folder exists: its tests skip, or fall back to
// synthetic data, each in its own way when the files they need are missing.
func BSDSDev() string {
	return filepath.Join(RepoRoot(), "..", "shared", "data", "bsds500-dev")
}

// DAVISSequences are the five sequences of the development subset.
var DAVISSequences = []string{"blackswan", "car-shadow", "dog", "libby", "motocross-jump"}

// Contains reports, as one test error per missing string, every string of
// wants that text (the output of a command, a report) does not contain.
func Contains(tb testing.TB, what, text string, wants ...string) {
	tb.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			tb.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}
