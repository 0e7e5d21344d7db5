package dataset

import (
	"reflect"
	"strings"
	"testing"
)

// reader returns a defReader on text positioned after its first line.
func reader(t *testing.T, text string) *defReader {
	t.Helper()
	d, err := newDefReader(strings.NewReader(text), "s.dat")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDefReaderSteps(t *testing.T) {
	d := reader(t, "header\r\nTotal number of regions:\r\n2\r\nScale of region 0:\r\n0\r\n\r\n255\r\n")
	if c, err := d.regions(); err != nil || !reflect.DeepEqual(c, []int{0, 255}) {
		t.Errorf("regions %v, %v", c, err)
	}
	// Four values over two lines, then a blank line: rows [0 1] [1 0].
	d = reader(t, "h\nConfusion penality matrix:\n0 1 1\n\n0\n")
	if p, err := d.penalty(2); err != nil || !reflect.DeepEqual(p, [][]float64{{0, 1}, {1, 0}}) {
		t.Errorf("penalty %v, %v", p, err)
	}
	d = reader(t, "h\nConfusion penality matrix:\n0 1\n1 0 2\n")
	if _, err := d.penalty(2); err == nil || err.Error() != "s.dat:4: more than 2x2 values in the penalty matrix" {
		t.Errorf("five values: %v", err)
	}
	entry := "h\nFrame number:\n4\nFile name:\na_gt.ppm\nInput file name:\na.ppm\n"
	if lf, err := reader(t, entry).labelledFrame(10, 3); err != nil || !reflect.DeepEqual(lf, LabelledFrame{Frame: 4, File: "a_gt.ppm", Input: "a.ppm"}) {
		t.Errorf("entry %+v, %v", lf, err)
	}
	for _, c := range []struct {
		total, prev int
		want        string
	}{{4, -1, "s.dat:3: frame number 4 outside [0, 4)"}, {10, 4, "s.dat:3: frame numbers must increase: 4 after 4"}} {
		if _, err := reader(t, entry).labelledFrame(c.total, c.prev); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("total %d after %d: %v, want %q", c.total, c.prev, err, c.want)
		}
	}
	d = reader(t, "h\nTotal number of labeled frames:\n2\n"+strings.TrimPrefix(entry, "h\n")+"Frame number:\n6\nFile name:\nb.pgm\nInput file name:\n")
	fs, err := d.labelledFrames(10)
	if err != nil || len(fs) != 2 || !reflect.DeepEqual(fs[1], LabelledFrame{Frame: 6, File: "b.pgm"}) {
		t.Errorf("labelled frames %+v, %v", fs, err)
	}
	if err := d.end(2); err != nil {
		t.Errorf("end: %v", err)
	}
	d = reader(t, "h\n\n  \nmore\n")
	if err := d.end(0); err == nil || err.Error() != `s.dat:4: unexpected text "more" after the last of 0 labelled frames` {
		t.Errorf("trailing text: %v", err)
	}
}
