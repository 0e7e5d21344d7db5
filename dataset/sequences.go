package dataset

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// SequenceInfo locates one video sequence and its ground truth.
type SequenceInfo struct {
	Name      string // sequence name (folder name)
	Split     string // "Trainingset"/"Testset" (FBMS59), "train"/"val" (DAVIS ImageSets), or ""
	FramesDir string // folder of the frame images (see ListFrames)
	GTPath    string // *Def.dat or DAVIS annotation folder; "" when there is none (see LoadGroundTruth)
	// SingleObject is set for the sequences of a DAVIS 2016 root, whose
	// annotation is one (primary) object per sequence; FBMS59 annotates
	// every moving object.
	SingleObject bool
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// hasImages reports whether dir directly holds at least one image file.
func hasImages(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !e.IsDir() && IsImageFile(e.Name()) && !strings.HasPrefix(e.Name(), ".") {
			return true
		}
	}
	return false
}

// fbmsSequence describes an FBMS-layout sequence folder (frames directly in
// dir, ground truth <dir>/GroundTruth/*Def.dat or *Def.dat in dir).
func fbmsSequence(dir, split string) (SequenceInfo, error) {
	s := SequenceInfo{Name: filepath.Base(filepath.Clean(dir)), Split: split, FramesDir: dir}
	defs, err := findDefs(dir)
	if err != nil {
		return s, err
	}
	switch len(defs) {
	case 0:
	case 1:
		s.GTPath = defs[0]
	default:
		// Prefer <seq>Def.dat when a folder holds several.
		for _, d := range defs {
			if filepath.Base(d) == s.Name+"Def.dat" {
				s.GTPath = d
			}
		}
		if s.GTPath == "" {
			return s, fmt.Errorf("%s: several ground-truth files (%s)", dir, strings.Join(defs, ", "))
		}
	}
	return s, nil
}

// sequenceFolders lists the sub-folders of dir that directly hold images.
func sequenceFolders(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if isDir(p) && hasImages(p) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// davisSplits reads ImageSets/480p/{train,val}.txt (lines
// "/JPEGImages/480p/<seq>/00000.jpg /Annotations/…") into seq → split.
func davisSplits(root string) map[string]string {
	out := map[string]string{}
	for _, split := range []string{"train", "val"} {
		f, err := os.Open(filepath.Join(root, "ImageSets", "480p", split+".txt"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) == 0 {
				continue
			}
			parts := strings.Split(strings.Trim(fields[0], "/"), "/")
			if len(parts) >= 2 {
				out[parts[len(parts)-2]] = split
			}
		}
		f.Close()
	}
	return out
}

// FindSequences discovers the sequences under root, recognising
//   - an FBMS59 root: Trainingset/<seq>, Testset/<seq> (either may be
//     missing), ground truth <seq>/GroundTruth/*Def.dat;
//   - a DAVIS 2016 root: JPEGImages/480p/<seq> with Annotations/480p/<seq>
//     (split from ImageSets/480p/{train,val}.txt when present);
//   - a single FBMS-layout sequence folder (frames directly in root);
//   - a folder of FBMS-layout sequence folders (what `densify synth` writes:
//     <root>/<seq>/<seq>_0001.png …, <root>/<seq>/GroundTruth/<seq>Def.dat).
//
// Sequences come sorted by split, then name; GTPath is "" for a sequence
// without ground truth. It fails when root holds no sequence.
func FindSequences(root string) ([]SequenceInfo, error) {
	if !isDir(root) {
		return nil, fmt.Errorf("%s: not a folder", root)
	}
	var out []SequenceInfo
	// FBMS59 root.
	fbmsRoot := false
	for _, split := range []string{"Trainingset", "Testset"} {
		d := filepath.Join(root, split)
		if !isDir(d) {
			continue
		}
		fbmsRoot = true
		dirs, err := sequenceFolders(d)
		if err != nil {
			return nil, err
		}
		for _, sd := range dirs {
			s, err := fbmsSequence(sd, split)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	if fbmsRoot {
		return nonEmpty(root, out)
	}
	// DAVIS 2016 root.
	if jpeg := filepath.Join(root, "JPEGImages", "480p"); isDir(jpeg) {
		splits := davisSplits(root)
		dirs, err := sequenceFolders(jpeg)
		if err != nil {
			return nil, err
		}
		for _, sd := range dirs {
			name := filepath.Base(sd)
			frames, ann := DAVISPaths(root, name)
			s := SequenceInfo{Name: name, Split: splits[name], FramesDir: frames, SingleObject: true}
			if isDir(ann) {
				s.GTPath = ann
			}
			out = append(out, s)
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].Split < out[j].Split })
		return nonEmpty(root, out)
	}
	// A single sequence folder.
	if hasImages(root) {
		s, err := fbmsSequence(root, "")
		if err != nil {
			return nil, err
		}
		return nonEmpty(root, []SequenceInfo{s})
	}
	// A folder of sequence folders.
	dirs, err := sequenceFolders(root)
	if err != nil {
		return nil, err
	}
	for _, sd := range dirs {
		s, err := fbmsSequence(sd, "")
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return nonEmpty(root, out)
}

// nonEmpty returns s, refusing an empty list and a sequence name (a folder
// name) with a control character, which would split a row of the reports.
func nonEmpty(root string, s []SequenceInfo) ([]SequenceInfo, error) {
	if len(s) == 0 {
		return nil, fmt.Errorf("%s: no sequences found (expected FBMS59 Trainingset/Testset, DAVIS JPEGImages/480p, or folders of frames)", root)
	}
	for _, q := range s {
		if i := strings.IndexFunc(q.Name, unicode.IsControl); i >= 0 {
			return nil, fmt.Errorf("%s: the sequence name %q holds the control character %U, which would split the rows of the reports: rename the folder", q.FramesDir, q.Name, []rune(q.Name[i:])[0])
		}
	}
	return s, nil
}
