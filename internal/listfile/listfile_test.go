package listfile

import (
	"reflect"
	"testing"
)

func TestFields(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"a b  c", []string{"a", "b", "c"}},
		{"  # only a comment", nil},
		{"", nil},
		{"my data/cars1Def.dat\tout dir/cars1 tracks.dat\tcars 1", []string{"my data/cars1Def.dat", "out dir/cars1 tracks.dat", "cars 1"}},
		{" a b \t\t c d # comment", []string{"a b", "c d"}},
		{"x\ty", []string{"x", "y"}},
	} {
		if got := Fields(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Fields(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
