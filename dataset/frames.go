package dataset

import (
	"bufio"
	"fmt"
	"image"
	_ "image/jpeg" // register decoders for ReadImage
	_ "image/png"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// imageExts are the frame and label image formats of FBMS and DAVIS.
var imageExts = map[string]bool{".jpg": true, ".jpeg": true, ".png": true, ".ppm": true, ".pgm": true}

// IsImageFile reports whether name has one of the image extensions the
// readers support (.jpg, .jpeg, .png, .ppm, .pgm; case-insensitive).
func IsImageFile(name string) bool {
	return imageExts[strings.ToLower(filepath.Ext(name))]
}

var trailingNumber = regexp.MustCompile(`(\d+)\D*$`)

// FrameNumber returns the last run of digits of the file name without its
// extension: "cars1_0012.jpg" → 12, "00000.png" → 0, "cars1_01_gt.ppm" → 1.
func FrameNumber(name string) (int, bool) {
	base := filepath.Base(name)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	m := trailingNumber.FindStringSubmatch(base)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, false
	}
	return n, true
}

// numberedImages lists the image files of dir (not descending into
// sub-folders) sorted by FrameNumber, with their numbers. It fails when the
// folder holds no image, when an image has no number, when two images share
// a number, or when the numbering has a gap.
func numberedImages(dir string, keep func(name string) bool) ([]string, []int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	type item struct {
		name string
		num  int
	}
	var items []item
	for _, e := range ents {
		if e.IsDir() || !IsImageFile(e.Name()) || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if keep != nil && !keep(e.Name()) {
			continue
		}
		n, ok := FrameNumber(e.Name())
		if !ok {
			return nil, nil, fmt.Errorf("%s: image %s has no frame number in its name", dir, e.Name())
		}
		items = append(items, item{e.Name(), n})
	}
	if len(items) == 0 {
		return nil, nil, fmt.Errorf("%s: no image files (.jpg, .jpeg, .png, .ppm, .pgm)", dir)
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].num != items[j].num {
			return items[i].num < items[j].num
		}
		return items[i].name < items[j].name
	})
	paths := make([]string, len(items))
	nums := make([]int, len(items))
	for i, it := range items {
		if i > 0 {
			prev := items[i-1]
			if it.num == prev.num {
				return nil, nil, fmt.Errorf("%s: %s and %s have the same frame number %d", dir, prev.name, it.name, it.num)
			}
			if it.num != prev.num+1 {
				missing := strconv.Itoa(prev.num + 1)
				if it.num > prev.num+2 {
					missing += fmt.Sprintf("..%d", it.num-1)
				}
				return nil, nil, fmt.Errorf("%s: frame number %s missing between %s and %s", dir, missing, prev.name, it.name)
			}
		}
		paths[i] = filepath.Join(dir, it.name)
		nums[i] = it.num
	}
	return paths, nums, nil
}

// ListFrames returns the image files of a sequence folder (FBMS
// "<seq>_0001.jpg", DAVIS "00000.jpg", synthetic "<seq>_0001.png") sorted by
// the trailing number of their names. The i-th path is frame i (0-based),
// whatever number the first file carries. Sub-folders (GroundTruth/) and
// hidden files are ignored. It fails when the folder holds no image, when
// two files have the same number, or when the numbering has a gap (the error
// names the missing number).
func ListFrames(dir string) ([]string, error) {
	paths, _, err := numberedImages(dir, nil)
	return paths, err
}

// ReadImage decodes a .jpg/.jpeg, .png, .ppm (P6/P3) or .pgm (P5/P2, 8 or 16
// bit) image. Netpbm images come back as standard library types (see
// PNM.Image); use ReadPNM for raw samples. The format is recognised by the
// file's content, so a misnamed file still decodes. The header is checked
// before the pixels are read (see checkImageSize), and a progressive JPEG
// must be complete (checkJPEGScans).
func ReadImage(path string) (image.Image, error) { return readImage(path, "") }

// ImageSize returns the width and height of an image file, reading only its
// header, which is checked as ReadImage checks it.
func ImageSize(path string) (w, h int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	_, w, h, err = imageHeader(bufio.NewReader(f), st.Size(), path)
	if err != nil {
		return 0, 0, err
	}
	return w, h, nil
}

// CheckSameSize verifies that all images have the size of the first one and
// returns that size. The error names the first image whose size differs and
// the first image of the list.
func CheckSameSize(paths []string) (w, h int, err error) {
	if len(paths) == 0 {
		return 0, 0, fmt.Errorf("no images")
	}
	w, h, err = ImageSize(paths[0])
	if err != nil {
		return 0, 0, err
	}
	for _, p := range paths[1:] {
		w2, h2, err := ImageSize(p)
		if err != nil {
			return 0, 0, err
		}
		if w2 != w || h2 != h {
			return 0, 0, fmt.Errorf("%s is %dx%d but %s is %dx%d: all frames must have the same size", p, w2, h2, paths[0], w, h)
		}
	}
	return w, h, nil
}
