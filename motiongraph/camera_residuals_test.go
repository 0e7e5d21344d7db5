package motiongraph

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCameraResidualsRoundTripAndErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, CameraResidualsFile)
	in := []float64{0.25, math.NaN(), 12.5, 0, 1.0 / 3}
	if err := WriteCameraResiduals(p, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadCameraResiduals(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("%d values, want %d", len(out), len(in))
	}
	for i := range in {
		if out[i] != in[i] && !(math.IsNaN(in[i]) && math.IsNaN(out[i])) {
			t.Errorf("value %d: %v, want %v", i, out[i], in[i])
		}
	}
	for _, c := range []struct{ body, want string }{
		{"", ":1: empty file"},
		{"node,u\n0,1\n", ":1: header"},
		{cameraResidualsHeader + "\n0,1\n2,1\n", ":3: trajectory \"2\" out of order"},
		{cameraResidualsHeader + "\n0,-1\n", ":2: residual \"-1\""},
		{cameraResidualsHeader + "\n0,NaN\n", ":2: residual \"NaN\""},
		{cameraResidualsHeader + "\n0 1\n", ":2: expected"},
	} {
		os.WriteFile(p, []byte(c.body), 0o644)
		_, err := ReadCameraResiduals(p)
		if err == nil || !strings.Contains(err.Error(), p+c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.body, err, p+c.want)
		}
	}
}
