package unet

import (
	"bytes"
	"strings"
	"testing"
)

func TestDoctorCPU(t *testing.T) {
	old := Threads()
	defer SetThreads(old)
	var b bytes.Buffer
	if err := Doctor(&b, DoctorOptions{Device: "cpu", Threads: 1}); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	out := b.String()
	for _, want := range []string{"go:", "libtorch:", "cuda:", "threads:   1 intra-op", "device:    cpu", "BCE"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	t.Log("\n" + out)
	if err := Doctor(&b, DoctorOptions{Device: "tpu"}); err == nil {
		t.Error("unknown device accepted")
	}
}
