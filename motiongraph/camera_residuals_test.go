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
	in := CameraResiduals{Median: []float64{0.25, math.NaN(), 12.5, 0, 1.0 / 3}, Upper: []float64{7, math.NaN(), 40, 0.5, 2.0 / 3}}
	if err := WriteCameraResiduals(p, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadCameraResiduals(p)
	if err != nil {
		t.Fatal(err)
	}
	same := func(what string, got, want []float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] && !(math.IsNaN(want[i]) && math.IsNaN(got[i])) {
				t.Errorf("%s %d: %v, want %v", what, i, got[i], want[i])
			}
		}
	}
	same("median", out.Median, in.Median)
	same("upper", out.Upper, in.Upper)
	if err := WriteCameraResiduals(p+".bad", CameraResiduals{Median: []float64{1, 2}, Upper: []float64{3}}); err == nil {
		t.Error("2 medians with 1 upper quartile written")
	} else if _, serr := os.Stat(p + ".bad"); serr == nil {
		t.Error("a file was left behind for the refused residuals")
	}

	// a file of the first format (medians only) still reads: Upper is nil
	os.WriteFile(p, []byte(cameraResidualsHeaderV1+"\n0,1.5\n1,\n2,3\n"), 0o644)
	old, err := ReadCameraResiduals(p)
	if err != nil {
		t.Fatal(err)
	}
	same("v1 median", old.Median, []float64{1.5, math.NaN(), 3})
	if old.Upper != nil {
		t.Errorf("v1 file: upper %v, want nil", old.Upper)
	}
	// a new file without trajectories has an empty, non-nil Upper
	os.WriteFile(p, []byte(cameraResidualsHeader+"\n"), 0o644)
	if e, err := ReadCameraResiduals(p); err != nil || e.Upper == nil || len(e.Median) != 0 {
		t.Errorf("empty new file: %+v, %v", e, err)
	}

	for _, c := range []struct{ body, want string }{
		{"", ":1: empty file"},
		{"node,u\n0,1\n", ":1: header"},
		{cameraResidualsHeader + "\n0,1,2\n2,1,2\n", ":3: trajectory \"2\" out of order"},
		{cameraResidualsHeader + "\n0,-1,2\n", ":2: residual \"-1\""},
		{cameraResidualsHeader + "\n0,1,NaN\n", ":2: residual \"NaN\""},
		{cameraResidualsHeader + "\n0 1\n", ":2: expected 3 comma-separated fields"},
		{cameraResidualsHeader + "\n0,1\n", ":2: expected 3 comma-separated fields"},
		{cameraResidualsHeaderV1 + "\n0,1,2\n", ":2: expected 2 comma-separated fields"},
	} {
		os.WriteFile(p, []byte(c.body), 0o644)
		_, err := ReadCameraResiduals(p)
		if err == nil || !strings.Contains(err.Error(), p+c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.body, err, p+c.want)
		}
	}
}
