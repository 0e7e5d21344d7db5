package dataset

import (
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DAVIS 2016 (Perazzi et al., CVPR 2016) layout:
//
//	<root>/JPEGImages/480p/<seq>/00000.jpg …
//	<root>/Annotations/480p/<seq>/00000.png …   (one binary mask per frame)
//	<root>/ImageSets/480p/{train,val}.txt        (optional: split lists)

// DAVISPaths returns the frame and annotation folders of sequence seq under
// the DAVIS 2016 root.
func DAVISPaths(root, seq string) (framesDir, annotationsDir string) {
	return filepath.Join(root, "JPEGImages", "480p", seq), filepath.Join(root, "Annotations", "480p", seq)
}

// ReadDAVISAnnotations reads a DAVIS 2016 annotation folder of 0/255 PNG
// masks into the ground-truth form: regions background (colour 0) and object
// (colour 255), penalty [[0,1],[1,0]], every frame labelled with
// probability 1. Frame i is the i-th mask in ListFrames order (DAVIS numbers
// its files from 00000, so this is the number in the name). A grey value
// ≥ 128 is object (paletted masks: any non-zero index).
func ReadDAVISAnnotations(dir string) (*GroundTruth, error) {
	paths, _, err := numberedImages(dir, func(name string) bool {
		return strings.EqualFold(filepath.Ext(name), ".png")
	})
	if err != nil {
		return nil, err
	}
	gt := &GroundTruth{
		Path:        dir,
		Colors:      []int{0, 255},
		Penalty:     [][]float64{{0, 1}, {1, 0}},
		TotalFrames: len(paths),
		Frames:      make([]LabelledFrame, len(paths)),
	}
	for k, p := range paths {
		img, err := ReadImage(p)
		if err != nil {
			return nil, err
		}
		b := img.Bounds()
		w, h := b.Dx(), b.Dy()
		if k > 0 && (w != gt.Frames[0].Width || h != gt.Frames[0].Height) {
			return nil, fmt.Errorf("%s is %dx%d but %s is %dx%d: masks must have the same size",
				p, w, h, paths[0], gt.Frames[0].Width, gt.Frames[0].Height)
		}
		lf := LabelledFrame{Frame: k, File: filepath.Base(p), Width: w, Height: h,
			Region: make([]int, w*h), Prob: make([]float64, w*h)}
		switch m := img.(type) {
		case *image.Gray:
			for y := 0; y < h; y++ {
				row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
				for x := 0; x < w; x++ {
					if row[x] >= 128 {
						lf.Region[y*w+x] = 1
					}
				}
			}
		case *image.Paletted:
			for y := 0; y < h; y++ {
				row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
				for x := 0; x < w; x++ {
					if row[x] != 0 {
						lf.Region[y*w+x] = 1
					}
				}
			}
		default:
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					if color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y >= 128 {
						lf.Region[y*w+x] = 1
					}
				}
			}
		}
		for i := range lf.Prob {
			lf.Prob[i] = 1
		}
		gt.Frames[k] = lf
	}
	return gt, nil
}

// findDefs returns the *Def.dat files of dir, then of dir/GroundTruth.
func findDefs(dir string) ([]string, error) {
	for _, d := range []string{dir, filepath.Join(dir, "GroundTruth")} {
		m, err := filepath.Glob(filepath.Join(d, "*Def.dat"))
		if err != nil {
			return nil, err
		}
		if len(m) > 0 {
			sort.Strings(m)
			return m, nil
		}
	}
	return nil, nil
}

// LoadGroundTruth reads ground truth from path: a file is read as a Def.dat
// (ReadDef); a folder holding a *Def.dat, directly or in a GroundTruth/
// sub-folder, uses that file; any other folder is read as a DAVIS annotation
// folder (ReadDAVISAnnotations). For a DAVIS root and a sequence name use
// LoadGroundTruth(second result of DAVISPaths(root, seq)). A DAVIS frame
// folder (JPEGImages/480p/<seq>) is mapped to its annotation folder.
func LoadGroundTruth(path string) (*GroundTruth, error) {
	def, davis, err := groundTruthSource(path)
	if err != nil {
		return nil, err
	}
	if def != "" {
		return ReadDef(def)
	}
	gt, err := ReadDAVISAnnotations(davis)
	if err != nil {
		return nil, fmt.Errorf("%s: no *Def.dat (also not in GroundTruth/) and not a DAVIS annotation folder: %w", davis, err)
	}
	return gt, nil
}

// groundTruthSource resolves a ground-truth path as LoadGroundTruth does:
// the Def.dat to read, or else the DAVIS annotation folder.
func groundTruthSource(path string) (def, davis string, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", "", err
	}
	if !st.IsDir() {
		return path, "", nil
	}
	defs, err := findDefs(path)
	if err != nil {
		return "", "", err
	}
	switch len(defs) {
	case 0:
	case 1:
		return defs[0], "", nil
	default:
		return "", "", fmt.Errorf("%s: several ground-truth files (%s), name one", path, strings.Join(defs, ", "))
	}
	seq := filepath.Base(filepath.Clean(path))
	if parent := filepath.Dir(filepath.Clean(path)); filepath.Base(parent) == "480p" &&
		filepath.Base(filepath.Dir(parent)) == "JPEGImages" {
		_, ann := DAVISPaths(filepath.Dir(filepath.Dir(parent)), seq)
		if _, err := os.Stat(ann); err == nil {
			path = ann
		}
	}
	return "", path, nil
}

// GroundTruthFiles lists the files LoadGroundTruth(path) reads: the Def.dat
// (def, "" for DAVIS annotations) and the label images it names (with the
// .pgm probability beside a .ppm where one exists), or the PNGs of the
// DAVIS annotation folder. It reads only the Def.dat.
func GroundTruthFiles(path string) (def string, images []string, err error) {
	def, davis, err := groundTruthSource(path)
	if err != nil {
		return "", nil, err
	}
	if davis != "" {
		images, _, err = numberedImages(davis, func(name string) bool {
			return strings.EqualFold(filepath.Ext(name), ".png")
		})
		return "", images, err
	}
	fh, err := os.Open(def)
	if err != nil {
		return "", nil, err
	}
	gt, err := ParseDef(fh, def)
	fh.Close()
	if err != nil {
		return def, nil, err
	}
	for _, lf := range gt.Frames {
		p := lf.File
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(def), p)
		}
		images = append(images, p)
		if prob := strings.TrimSuffix(p, filepath.Ext(p)) + ".pgm"; prob != p {
			if _, err := os.Stat(prob); err == nil {
				images = append(images, prob)
			}
		}
	}
	return def, images, nil
}

// CheckGroundTruthFiles is CheckGroundTruthSize on files, reading only the
// Def.dat and the headers of the label images (or of the DAVIS annotation
// PNGs): a cheap check of every sequence before any work. Unreadable ground
// truth is left to LoadGroundTruth to report (nil here).
func CheckGroundTruthFiles(path string, w, h int, framesDir string) error {
	_, files, err := GroundTruthFiles(path)
	if err != nil {
		return nil
	}
	for _, p := range files {
		fw, fh, err := ImageSize(p)
		if err != nil {
			continue
		}
		if fw != w || fh != h {
			return fmt.Errorf("%s: ground truth %s is %dx%d but the frames in %s are %dx%d", path, filepath.Base(p), fw, fh, framesDir, w, h)
		}
	}
	return nil
}
