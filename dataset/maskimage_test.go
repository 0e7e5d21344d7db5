package dataset

import (
	"image/color"
	"testing"
)

func TestPaletteIsDAVIS(t *testing.T) {
	p := Palette(5)
	want := []color.RGBA{{0, 0, 0, 255}, {128, 0, 0, 255}, {0, 128, 0, 255}, {128, 128, 0, 255}, {0, 0, 128, 255}}
	for i, w := range want {
		if p[i] != w {
			t.Errorf("palette[%d] = %v, want %v", i, p[i], w)
		}
	}
	if got := Palette(9)[8]; got != (color.RGBA{64, 0, 0, 255}) {
		t.Errorf("palette[8] = %v, want (64,0,0)", got)
	}
}
