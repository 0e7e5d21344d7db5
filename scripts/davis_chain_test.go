package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// davisChain runs scripts/davis-chain.sh with a stand-in densify that
// records each call's arguments (one line per call) and returns those lines,
// the script's combined output and its error.
func davisChain(t *testing.T, env ...string) (calls []string, out string, err error) {
	t.Helper()
	need(t, "bash")
	dir := t.TempDir()
	data := filepath.Join(dir, "davis")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "calls.txt")
	fake := filepath.Join(dir, "densify")
	// run and ablate write the files the script prints afterwards.
	script := `#!/bin/sh
echo "$*" >> ` + log + `
out=""
prev=""
for a in "$@"; do
	[ "$prev" = "--out" ] && out=$a
	prev=$a
done
mkdir -p "$out"
printf '| sequence | F |\n|---|---|\n| s | 1 |\n' > "$out/report.md"
if [ "$1" = ablate ]; then
	[ -n "$FAKE_ABLATE_FAILS" ] && exit 3
	printf '| sequence | ΔF |\n|---|---|\n| s | 0 |\n' > "$out/ablation.md"
fi
exit 0
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "davis-chain.sh", data, filepath.Join(dir, "out"))
	base := callerEnvWithout("EPOCHS", "BATCH", "SCALE", "PRESET", "THREADS", "QUICK", "PHI", "SEQUENCES", "EXTRA", "DENSIFY")
	cmd.Env = append(base, append([]string{"DENSIFY=" + fake}, env...)...)
	b, err := cmd.CombinedOutput()
	if raw, rerr := os.ReadFile(log); rerr == nil {
		calls = strings.Split(strings.TrimSpace(string(raw)), "\n")
	}
	return calls, string(b), err
}

// TestDavisChainBudget: by default the chain trains with densify's own
// budget (no training flag passed), the one of the dense numbers in
// docs/results.md; QUICK=1 is the earlier CPU budget, and a
// variable set explicitly wins over both.
func TestDavisChainBudget(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		want []string // training flags of both calls, in the script's order
	}{
		{"default", nil, nil},
		{"quick", []string{"QUICK=1"}, []string{"--epochs 6", "--batch 1", "--scale 0.25"}},
		{"quick, epochs set", []string{"QUICK=1", "EPOCHS=10"}, []string{"--epochs 10", "--batch 1", "--scale 0.25"}},
		{"scale and threads set", []string{"SCALE=0.5", "THREADS=2"}, []string{"--scale 0.5", "--threads 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls, out, err := davisChain(t, tc.env...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(calls) != 2 || !strings.HasPrefix(calls[0], "run ") || !strings.HasPrefix(calls[1], "ablate ") {
				t.Fatalf("calls %q, want run then ablate", calls)
			}
			for _, c := range calls {
				var got []string
				f := strings.Fields(c)
				for i := 0; i+1 < len(f); i++ {
					switch f[i] {
					case "--epochs", "--batch", "--scale", "--preset", "--threads", "--step-budget":
						got = append(got, f[i]+" "+f[i+1])
					}
				}
				if strings.Join(got, ",") != strings.Join(tc.want, ",") {
					t.Errorf("%s: training flags %q, want %q", strings.Fields(c)[0], got, tc.want)
				}
			}
			if tc.want == nil && !strings.Contains(out, "training: the defaults of densify") {
				t.Errorf("output does not say the defaults are used:\n%s", out)
			}
		})
	}
}

// TestDavisChainQuickRefused: QUICK other than 0 or 1 is refused before
// anything runs.
func TestDavisChainQuickRefused(t *testing.T) {
	calls, out, err := davisChain(t, "QUICK=yes")
	if err == nil || !strings.Contains(out, "QUICK must be 0 or 1") {
		t.Fatalf("err %v, output %q; want a refusal of QUICK=yes", err, out)
	}
	if len(calls) != 0 {
		t.Errorf("densify ran %d times after the refusal", len(calls))
	}
}

// TestDavisChainAblateFails: when ablate fails (no ablation table), the
// chain still prints the per-sequence table, says the ablation table is
// missing and exits non-zero naming both return codes.
func TestDavisChainAblateFails(t *testing.T) {
	_, out, err := davisChain(t, "FAKE_ABLATE_FAILS=1")
	if err == nil {
		t.Fatalf("exit 0 although ablate failed:\n%s", out)
	}
	for _, want := range []string{"| s | 1 |", "(none: see ", "some sequences failed (run: 0, ablate: 3)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
