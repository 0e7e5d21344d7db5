package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"os"
	"strconv"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/fileerr"
)

// Netpbm codec (pgm/ppm, http://netpbm.sourceforge.net/doc/pgm.html and
// ppm.html). FBMS label images are ppm/pgm and MoSegEval reads their raw
// sample values (colour = R·65536 + G·256 + B), so the codec keeps the raw
// samples and their maxval instead of rescaling them.
//
// Supported: P5 and P6 (binary), P2 and P3 (ASCII), maxval 1..65535 (two
// big-endian bytes per sample when maxval > 255), '#' comments in the header.
// Bitmaps (P1, P4) and PAM (P7) are rejected with an error.

// MaxPixels bounds the images the readers accept (width·height), so that a
// corrupt header cannot request unbounded memory. 1<<28 pixels is 16384² .
const MaxPixels = 1 << 28

// PNM is a decoded netpbm image with its raw samples.
type PNM struct {
	Width, Height int
	Channels      int      // 1 (pgm) or 3 (ppm)
	MaxVal        int      // 1..65535
	Pix           []uint16 // row-major, Channels samples per pixel, each in [0, MaxVal]
}

// Value returns the raw sample of channel c at (x, y).
func (p *PNM) Value(x, y, c int) int { return int(p.Pix[(y*p.Width+x)*p.Channels+c]) }

// ColorModel implements image.Image.
func (p *PNM) ColorModel() color.Model {
	if p.Channels == 1 {
		return color.Gray16Model
	}
	return color.RGBA64Model
}

// Bounds implements image.Image.
func (p *PNM) Bounds() image.Rectangle { return image.Rect(0, 0, p.Width, p.Height) }

func (p *PNM) scale(v uint16) uint16 {
	return uint16((uint32(v)*65535 + uint32(p.MaxVal)/2) / uint32(p.MaxVal))
}

// At implements image.Image; samples are scaled from [0, MaxVal] to 16 bits.
func (p *PNM) At(x, y int) color.Color {
	if x < 0 || y < 0 || x >= p.Width || y >= p.Height {
		if p.Channels == 1 {
			return color.Gray16{}
		}
		return color.RGBA64{}
	}
	i := (y*p.Width + x) * p.Channels
	if p.Channels == 1 {
		return color.Gray16{Y: p.scale(p.Pix[i])}
	}
	return color.RGBA64{R: p.scale(p.Pix[i]), G: p.scale(p.Pix[i+1]), B: p.scale(p.Pix[i+2]), A: 0xffff}
}

// Image converts p to a standard library image: *image.Gray or *image.RGBA
// for maxval ≤ 255 (samples rescaled to 0..255 when maxval < 255),
// *image.Gray16 or *image.RGBA64 otherwise.
func (p *PNM) Image() image.Image {
	r := p.Bounds()
	n := p.Width * p.Height
	if p.MaxVal <= 255 {
		s8 := func(v uint16) uint8 { return uint8((uint32(v)*255 + uint32(p.MaxVal)/2) / uint32(p.MaxVal)) }
		if p.Channels == 1 {
			g := image.NewGray(r)
			for i := 0; i < n; i++ {
				g.Pix[i] = s8(p.Pix[i])
			}
			return g
		}
		c := image.NewRGBA(r)
		for i := 0; i < n; i++ {
			c.Pix[4*i] = s8(p.Pix[3*i])
			c.Pix[4*i+1] = s8(p.Pix[3*i+1])
			c.Pix[4*i+2] = s8(p.Pix[3*i+2])
			c.Pix[4*i+3] = 255
		}
		return c
	}
	if p.Channels == 1 {
		g := image.NewGray16(r)
		for i := 0; i < n; i++ {
			v := p.scale(p.Pix[i])
			g.Pix[2*i], g.Pix[2*i+1] = uint8(v>>8), uint8(v)
		}
		return g
	}
	c := image.NewRGBA64(r)
	for i := 0; i < n; i++ {
		for k := 0; k < 3; k++ {
			v := p.scale(p.Pix[3*i+k])
			c.Pix[8*i+2*k], c.Pix[8*i+2*k+1] = uint8(v>>8), uint8(v)
		}
		c.Pix[8*i+6], c.Pix[8*i+7] = 0xff, 0xff
	}
	return c
}

// pnmReader reads header tokens, counting lines for error messages.
type pnmReader struct {
	r       *bufio.Reader
	name    string
	line    int
	pending int // newlines read but not yet counted: EOF errors name the last line with content
}

func (p *pnmReader) readByte() (byte, error) {
	c, err := p.r.ReadByte()
	if err == nil {
		p.line += p.pending
		p.pending = 0
		if c == '\n' {
			p.pending = 1
		}
	}
	return c, err
}

func (p *pnmReader) errf(format string, args ...any) error {
	return fileerr.New(p.name, p.line, format, args...)
}

// token reads the next whitespace-separated header token, skipping comments.
func (p *pnmReader) token(what string) (string, error) {
	var tok []byte
	for {
		c, err := p.readByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if len(tok) > 0 {
					return string(tok), nil
				}
				return "", p.errf("unexpected end of file, expected %s", what)
			}
			return "", p.errf("read error: %v", err)
		}
		switch {
		case c == '#' && len(tok) == 0:
			for c != '\n' {
				if c, err = p.readByte(); err != nil {
					return "", p.errf("unexpected end of file in a comment, expected %s", what)
				}
			}
		case isSpaceByte(c):
			if len(tok) > 0 {
				if err := p.r.UnreadByte(); err != nil {
					return "", p.errf("read error: %v", err)
				}
				p.pending = 0
				return string(tok), nil
			}
		default:
			tok = append(tok, c)
			if len(tok) > 20 {
				return "", p.errf("%s: token %q… too long", what, tok[:20])
			}
		}
	}
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func (p *pnmReader) uint(what string, min, max int) (int, error) {
	tok, err := p.token(what)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(tok)
	if err != nil {
		return 0, p.errf("%s: %q is not an integer", what, tok)
	}
	if v < min || v > max {
		return 0, p.errf("%s %d out of range [%d, %d]", what, v, min, max)
	}
	return v, nil
}

// pnmHeader reads the magic number and the header fields.
func (p *pnmReader) header() (magic byte, w, h, maxVal int, err error) {
	p.line = 1
	var m [2]byte
	if _, err := io.ReadFull(p.r, m[:]); err != nil || m[0] != 'P' {
		return 0, 0, 0, 0, p.errf("not a netpbm image (no P2/P3/P5/P6 magic number)")
	}
	switch m[1] {
	case '2', '3', '5', '6':
	case '1', '4':
		return 0, 0, 0, 0, p.errf("netpbm bitmaps (P%c) are not supported, use pgm or ppm", m[1])
	default:
		return 0, 0, 0, 0, p.errf("unsupported netpbm magic number P%c", m[1])
	}
	if c, err := p.readByte(); err != nil || !isSpaceByte(c) {
		return 0, 0, 0, 0, p.errf("malformed netpbm magic number")
	}
	if w, err = p.uint("width", 1, MaxPixels); err != nil {
		return
	}
	if h, err = p.uint("height", 1, MaxPixels); err != nil {
		return
	}
	if w*h > MaxPixels {
		return 0, 0, 0, 0, p.errf("image %dx%d larger than %d pixels", w, h, MaxPixels)
	}
	if maxVal, err = p.uint("maxval", 1, 65535); err != nil {
		return
	}
	// Exactly one whitespace character separates the header from a binary raster.
	c, err := p.readByte()
	if err != nil {
		return 0, 0, 0, 0, p.errf("unexpected end of file, expected pixel data")
	}
	if !isSpaceByte(c) {
		return 0, 0, 0, 0, p.errf("maxval must be followed by whitespace")
	}
	return m[1], w, h, maxVal, nil
}

// DecodePNM reads one netpbm image (P2, P3, P5 or P6) from r; name is used in
// errors, which name file:line for header and ASCII data problems.
func DecodePNM(r io.Reader, name string) (*PNM, error) {
	p := &pnmReader{r: bufio.NewReaderSize(r, 1<<16), name: name}
	magic, w, h, maxVal, err := p.header()
	if err != nil {
		return nil, err
	}
	ch := 1
	if magic == '3' || magic == '6' {
		ch = 3
	}
	n := w * h * ch
	img := &PNM{Width: w, Height: h, Channels: ch, MaxVal: maxVal}
	switch magic {
	case '5', '6':
		bps := 1
		if maxVal > 255 {
			bps = 2
		}
		// Read through a LimitReader into a growing buffer: memory follows
		// the data actually present, not the size the header claims.
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(io.LimitReader(p.r, int64(n*bps))); err != nil {
			return nil, fileerr.New(name, 0, "read error: %v", err)
		}
		if buf.Len() < n*bps {
			return nil, fileerr.New(name, 0, "truncated pixel data: %d of %d bytes for %dx%d maxval %d",
				buf.Len(), n*bps, w, h, maxVal)
		}
		data := buf.Bytes()
		img.Pix = make([]uint16, n)
		for i := range img.Pix {
			var v int
			if bps == 1 {
				v = int(data[i])
			} else {
				v = int(data[2*i])<<8 | int(data[2*i+1])
			}
			if v > maxVal {
				return nil, fileerr.New(name, 0, "sample %d at pixel (%d,%d) exceeds maxval %d",
					v, (i/ch)%w, (i/ch)/w, maxVal)
			}
			img.Pix[i] = uint16(v)
		}
	default: // ASCII
		img.Pix = make([]uint16, 0, min(n, 1<<16))
		for len(img.Pix) < n {
			v, err := p.uint("sample", 0, maxVal)
			if err != nil {
				return nil, err
			}
			img.Pix = append(img.Pix, uint16(v))
		}
	}
	return img, nil
}

// ReadPNM reads a netpbm file.
func ReadPNM(path string) (*PNM, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return DecodePNM(f, path)
}

// pnmSize reads only the header of a netpbm file.
func pnmSize(r io.Reader, name string) (w, h int, err error) {
	p := &pnmReader{r: bufio.NewReader(r), name: name}
	_, w, h, _, err = p.header()
	return w, h, err
}

// EncodePPM writes img as a binary 8-bit ppm (P6). A *PNM with three
// channels and maxval ≤ 255 is written with its raw samples and maxval.
func EncodePPM(w io.Writer, img image.Image) error {
	bw := bufio.NewWriter(w)
	b := img.Bounds()
	if p, ok := img.(*PNM); ok && p.Channels == 3 && p.MaxVal <= 255 {
		fmt.Fprintf(bw, "P6\n%d %d\n%d\n", p.Width, p.Height, p.MaxVal)
		for _, v := range p.Pix {
			bw.WriteByte(byte(v))
		}
		return bw.Flush()
	}
	fmt.Fprintf(bw, "P6\n%d %d\n255\n", b.Dx(), b.Dy())
	switch m := img.(type) {
	case *image.RGBA:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				bw.Write(row[4*x : 4*x+3])
			}
		}
	default:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				bw.Write([]byte{c.R, c.G, c.B})
			}
		}
	}
	return bw.Flush()
}

// EncodePGM writes img as a binary pgm (P5): 16-bit (maxval 65535) for
// *image.Gray16, raw samples and maxval for a one-channel *PNM, otherwise
// 8-bit grey (color.GrayModel).
func EncodePGM(w io.Writer, img image.Image) error {
	bw := bufio.NewWriter(w)
	b := img.Bounds()
	switch m := img.(type) {
	case *PNM:
		if m.Channels != 1 {
			break
		}
		fmt.Fprintf(bw, "P5\n%d %d\n%d\n", m.Width, m.Height, m.MaxVal)
		for _, v := range m.Pix {
			if m.MaxVal > 255 {
				bw.WriteByte(byte(v >> 8))
			}
			bw.WriteByte(byte(v))
		}
		return bw.Flush()
	case *image.Gray16:
		fmt.Fprintf(bw, "P5\n%d %d\n65535\n", b.Dx(), b.Dy())
		for y := b.Min.Y; y < b.Max.Y; y++ {
			o := m.PixOffset(b.Min.X, y)
			bw.Write(m.Pix[o : o+2*b.Dx()])
		}
		return bw.Flush()
	case *image.Gray:
		fmt.Fprintf(bw, "P5\n%d %d\n255\n", b.Dx(), b.Dy())
		for y := b.Min.Y; y < b.Max.Y; y++ {
			o := m.PixOffset(b.Min.X, y)
			bw.Write(m.Pix[o : o+b.Dx()])
		}
		return bw.Flush()
	}
	fmt.Fprintf(bw, "P5\n%d %d\n255\n", b.Dx(), b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			bw.WriteByte(color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y)
		}
	}
	return bw.Flush()
}

// WritePPM writes img to path as a binary ppm, atomically.
func WritePPM(path string, img image.Image) error {
	return atomicfile.Write(path, func(w io.Writer) error { return EncodePPM(w, img) })
}

// WritePGM writes img to path as a binary pgm, atomically.
func WritePGM(path string, img image.Image) error {
	return atomicfile.Write(path, func(w io.Writer) error { return EncodePGM(w, img) })
}
