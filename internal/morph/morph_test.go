package morph

import (
	"strings"
	"testing"
)

// mask parses rows of '#' (set) and '.' (unset).
func mask(rows ...string) ([]bool, int, int) {
	w, h := len(rows[0]), len(rows)
	m := make([]bool, w*h)
	for y, r := range rows {
		for x, c := range r {
			m[y*w+x] = c == '#'
		}
	}
	return m, w, h
}

func show(m []bool, w int) string {
	var b strings.Builder
	for i, v := range m {
		if i > 0 && i%w == 0 {
			b.WriteByte('\n')
		}
		if v {
			b.WriteByte('#')
		} else {
			b.WriteByte('.')
		}
	}
	return b.String()
}

func TestDilateErodeOpenByHand(t *testing.T) {
	// A 3×3 block at the top left with a one-pixel line leaving it to the
	// right, and a lone pixel at the bottom right.
	in, w, h := mask(
		"###.......",
		"##########",
		"###.......",
		"..........",
		".........#",
	)
	for _, c := range []struct {
		name string
		got  []bool
		want []string
	}{
		{"dilate 1", Dilate(in, w, h, 1), []string{
			"##########",
			"##########",
			"##########",
			"####....##",
			"........##",
		}},
		// The pixels whose 3×3 square, clipped to the image, lies in the
		// set: (0,0)–(1,1), whose squares reach only rows 0–2 and columns
		// 0–2 (the border clips them). (2,1) sees (3,0), (0,2) sees row 3,
		// and no pixel of the line survives.
		{"erode 1", Erode(in, w, h, 1), []string{
			"##........",
			"##........",
			"..........",
			"..........",
			"..........",
		}},
		// The opening keeps the block and drops the line and the lone pixel.
		{"open 1", Open(in, w, h, 1), []string{
			"###.......",
			"###.......",
			"###.......",
			"..........",
			"..........",
		}},
		{"dilate 0", Dilate(in, w, h, 0), []string{
			"###.......",
			"##########",
			"###.......",
			"..........",
			".........#",
		}},
	} {
		want, _, _ := mask(c.want...)
		if show(c.got, w) != show(want, w) {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, show(c.got, w), show(want, w))
		}
	}
	// Dilate does not modify its input.
	if again, _, _ := mask("###.......", "##########", "###.......", "..........", ".........#"); show(in, w) != show(again, w) {
		t.Error("input modified")
	}
}

func TestHolesByHand(t *testing.T) {
	// Left to right: a ring around one pixel (a hole); a diamond closed
	// only by diagonal steps (its 4-connected inside is still a hole); a C
	// open to the right (no hole); a ring cut by the image's right edge,
	// whose inside reaches the border (no hole). Bottom left: a ring of
	// width 2 around two pixels.
	in, w, h := mask(
		"###..#..###..###",
		"#.#.#.#.#....#..",
		"###..#..###..###",
		"................",
		"####............",
		"#..#............",
		"####............",
	)
	want := strings.Join([]string{
		"................",
		".#...#..........",
		"................",
		"................",
		"................",
		".##.............",
		"................",
	}, "\n")
	if got := show(Holes(in, w, h), w); got != want {
		t.Errorf("holes:\n%s\nwant\n%s", got, want)
	}
	// No set pixel: no hole; a full frame: no hole either.
	empty := make([]bool, 12)
	full := []bool{true, true, true, true}
	if got := show(Holes(empty, 4, 3), 4); strings.Contains(got, "#") {
		t.Errorf("holes of the empty set:\n%s", got)
	}
	if got := show(Holes(full, 2, 2), 2); strings.Contains(got, "#") {
		t.Errorf("holes of the full set:\n%s", got)
	}
}
