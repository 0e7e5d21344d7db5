package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"io"
	"os"
)

// One decoding path for every image densify reads (frames, label images,
// masks, BSDS images): ReadImage and ImageSize. Before anything is
// allocated for the pixels, the size in the header is bounded twice: by
// MaxPixels, and by what the file's bytes can encode at the format's best
// compression (pixelsPerByte), so that a header of a few hundred bytes
// cannot claim a picture of gigabytes. A progressive JPEG must code every
// coefficient of every component (checkJPEGScans): one cut between its
// scans decodes, blurred, without a word from image/jpeg.

// pixelsPerByte is, per format, the most pixels one byte of a valid file
// can encode:
//   - png: 8 pixels per byte of filtered rows (1-bit samples) at deflate's
//     largest ratio, 1032:1;
//   - jpeg: one bit per 8×8 block of a component in the first (DC) scan,
//     that is 512 pixels per byte (a baseline block needs two bits);
//   - pnm: one byte per pixel (8-bit binary pgm; ASCII needs two).
var pixelsPerByte = map[string]int64{"png": 8 * 1032, "jpeg": 512, "pnm": 1}

// checkImageSize refuses a header size beyond MaxPixels or beyond what a
// file of size bytes can hold in its format.
func checkImageSize(name, format string, w, h int, size int64) error {
	if w <= 0 || h <= 0 || w > MaxPixels/max(1, h) {
		return fmt.Errorf("%s: %s image of unsupported size %dx%d", name, format, w, h)
	}
	per, ok := pixelsPerByte[format]
	if !ok {
		return fmt.Errorf("%s: %s images are not supported (JPEG, PNG, PPM/PGM)", name, format)
	}
	if int64(w)*int64(h) > per*size {
		return fmt.Errorf("%s: the %s header claims %dx%d pixels, more than its %d bytes can hold (truncated or corrupt file)", name, format, w, h, size)
	}
	return nil
}

func isPNM(head []byte) bool {
	return len(head) >= 2 && head[0] == 'P' && head[1] >= '1' && head[1] <= '7'
}

// imageHeader reads the format and size of the image r holds (size bytes
// long) from its header and checks them (checkImageSize).
func imageHeader(r *bufio.Reader, size int64, name string) (format string, w, h int, err error) {
	if head, _ := r.Peek(2); isPNM(head) {
		if w, h, err = pnmSize(r, name); err != nil {
			return "", 0, 0, err
		}
		return "pnm", w, h, checkImageSize(name, "pnm", w, h, size)
	}
	cfg, format, err := image.DecodeConfig(r)
	if err != nil {
		return "", 0, 0, fmt.Errorf("%s: cannot decode image: %v", name, err)
	}
	return format, cfg.Width, cfg.Height, checkImageSize(name, format, cfg.Width, cfg.Height, size)
}

// DecodeImage decodes the image file content data (see ReadImage); name is
// used in errors.
func DecodeImage(data []byte, name string) (image.Image, error) {
	if isPNM(data) {
		p, err := DecodePNM(bytes.NewReader(data), name)
		if err != nil {
			return nil, err
		}
		return p.Image(), nil
	}
	format, w, h, err := imageHeader(bufio.NewReader(bytes.NewReader(data)), int64(len(data)), name)
	if err != nil {
		return nil, err
	}
	if format == "jpeg" {
		if err := checkJPEGScans(data); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot decode %s image: %v", name, format, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		return nil, fmt.Errorf("%s: %s image decodes to %dx%d, its header says %dx%d", name, format, b.Dx(), b.Dy(), w, h)
	}
	return img, nil
}

// ReadImageFormat is ReadImage for files that must be in one format: "png",
// "jpeg" or "pnm" (e.g. "png" for masks).
func ReadImageFormat(path, format string) (image.Image, error) { return readImage(path, format) }

func readImage(path, want string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	format := "pnm"
	if head, _ := br.Peek(2); !isPNM(head) {
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if format, _, _, err = imageHeader(br, st.Size(), path); err != nil {
			return nil, err
		}
	}
	if want != "" && format != want {
		return nil, fmt.Errorf("%s: a %s image, not %s", path, format, want)
	}
	if format == "pnm" {
		p, err := DecodePNM(br, path)
		if err != nil {
			return nil, err
		}
		return p.Image(), nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return DecodeImage(data, path)
}

// checkJPEGScans walks the markers of a JPEG file and, for a progressive
// one (SOF2), checks that its scans code every coefficient (0…63) of every
// component down to the last bit (successive approximation Al = 0). A
// progressive file cut between two scans and closed with an end marker
// decodes without an error, as a blurred picture; a cut inside a scan is
// left to the decoder, which refuses it. Baseline files pass unchecked.
func checkJPEGScans(b []byte) error {
	if len(b) < 2 || b[0] != 0xff || b[1] != 0xd8 {
		return nil // not a JPEG stream: the decoder says so
	}
	var comps []byte   // component ids of the frame
	var bit [][64]int8 // per component and coefficient: the lowest bit coded so far (-1: none)
	scans := 0
	i := 2
	for i+1 < len(b) {
		if b[i] != 0xff {
			i++ // extraneous data, which the decoder skips too
			continue
		}
		m := b[i+1]
		switch {
		case m == 0xff, m == 0x00:
			i++
			continue
		case m == 0xd9: // EOI
			i = len(b)
			continue
		case m == 0x01 || (m >= 0xd0 && m <= 0xd7): // TEM, RSTn: no length
			i += 2
			continue
		}
		if i+4 > len(b) {
			return nil
		}
		n := int(b[i+2])<<8 | int(b[i+3])
		if n < 2 || i+2+n > len(b) {
			return nil // a short segment: the decoder refuses it
		}
		seg := b[i+4 : i+2+n]
		i += 2 + n
		switch m {
		case 0xc0, 0xc1, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf:
			return nil // not progressive DCT
		case 0xc2: // SOF2
			if len(seg) < 6 {
				return nil
			}
			nc := int(seg[5])
			if len(seg) < 6+3*nc {
				return nil
			}
			comps = make([]byte, nc)
			bit = make([][64]int8, nc)
			for c := range nc {
				comps[c] = seg[6+3*c]
				for k := range bit[c] {
					bit[c][k] = -1
				}
			}
		case 0xda: // SOS, then the scan's entropy-coded data
			if comps == nil || len(seg) < 1 {
				return nil
			}
			ns := int(seg[0])
			if len(seg) < 1+2*ns+3 {
				return nil
			}
			ss, se := int(seg[1+2*ns]), int(seg[2+2*ns])
			ah, al := int8(seg[3+2*ns]>>4), int8(seg[3+2*ns]&15)
			for j := range ns {
				c := bytes.IndexByte(comps, seg[1+2*j])
				if c < 0 || ss > se || se > 63 {
					return nil
				}
				for k := ss; k <= se; k++ {
					if ah == 0 || bit[c][k] == ah {
						bit[c][k] = al
					}
				}
			}
			scans++
			for i+1 < len(b) && !(b[i] == 0xff && b[i+1] != 0 && !(b[i+1] >= 0xd0 && b[i+1] <= 0xd7)) {
				i++
			}
		}
	}
	for c := range bit {
		for k, l := range bit[c] {
			if l != 0 {
				what := "never coded"
				if l > 0 {
					what = fmt.Sprintf("coded only to bit %d", l)
				}
				return fmt.Errorf("progressive JPEG incomplete: coefficient %d of component %d is %s after its %d scans (a truncated file?)", k, c, what, scans)
			}
		}
	}
	return nil
}
