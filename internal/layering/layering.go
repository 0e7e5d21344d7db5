// Package layering states the order of densify's packages, which follows
// the data flow: frames → point trajectories → motion graph and its
// multicut → uncertainty → training labels → U-Net training and
// prediction, with the pipeline that runs the stages and the command that
// wires the native parts last. Its test lists every package of the module
// with go list and fails, naming the import, when a package imports one of
// a later stage or of its own stage, when an internal helper imports a
// stage, or when a package outside Native links OpenCV or libtorch.
package layering

import (
	"fmt"
	"slices"
	"strings"
)

// Module is the module path the package paths of Stages are relative to.
const Module = "github.com/densify/densify"

// Stage is one layer of the module: packages that may import the packages
// of earlier stages and the internal helpers only, not each other.
type Stage struct {
	Name     string
	Packages []string // paths relative to Module
}

// Stages are the layers in data-flow order. Three libraries sit below the
// stages that use them rather than at their place in the data flow:
// multicut (the solver; the motion graph and the image decomposition build
// its graphs), eval (the scores; the uncertainty's n-best solutions and the
// decomposition are scored by its variation of information) and refine
// (mask refinement; video implements its graph cut and optical flow).
var Stages = []Stage{
	{"formats", []string{"matfile", "models", "trajectory"}},
	{"data sets", []string{"dataset"}},
	{"BSDS-500 layout (its images through dataset's decoder)", []string{"bsds"}},
	{"shared algorithms: solver, scores, mask refinement, camera motion", []string{"multicut", "eval", "refine", "camera"}},
	{"1 tracking (OpenCV) and synthetic sequences", []string{"video", "synth"}},
	{"2 motion graph and multicut segmentation; image boundaries", []string{"motiongraph", "boundary"}},
	{"3 uncertainty", []string{"uncertainty"}},
	{"4 training labels; image decomposition", []string{"trainset", "decompose"}},
	{"5 U-Net (libtorch)", []string{"unet"}},
	{"6 training and prediction", []string{"train"}},
	{"orchestration", []string{"pipeline", "slurm"}},
	{"composition root", []string{"cmd/densify"}},
	{"script tests", []string{"scripts"}},
}

// Native are the packages that may use cgo or link OpenCV (gocv) or
// libtorch (gotch): the OpenCV adapter, the U-Net, training and the
// composition root. Every other package is pure Go.
var Native = []string{"video", "unet", "train", "cmd/densify"}

// nativeLibs are the import path prefixes of the native libraries.
var nativeLibs = []string{"gocv.io/x/gocv", "github.com/sugarme/gotch"}

// Package is what Check needs to know of one package (go list's fields).
type Package struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	CgoFiles     []string
	Deps         []string // transitive imports of the package (not its tests)
}

// Check returns one line per violation of Stages and Native in pkgs, each
// naming the package and the offending import; none for a layered module.
func Check(pkgs []Package) []string {
	c := checker{stage: map[string]int{}, deps: map[string][]string{}}
	for i, s := range Stages {
		for _, p := range s.Packages {
			c.stage[p] = i
		}
	}
	for _, p := range pkgs {
		c.deps[p.ImportPath] = p.Deps
	}
	for _, p := range pkgs {
		rel, ok := relative(p.ImportPath)
		if !ok {
			continue
		}
		if _, staged := c.stage[rel]; !staged && !internal(rel) {
			c.report("%s is in no stage of layering.Stages: add it to the stage of its place in the data flow", rel)
			continue
		}
		c.imports(rel, p.Imports, "imports")
		c.imports(rel, p.TestImports, "imports in its tests")
		c.imports(rel, p.XTestImports, "imports in its tests")
		if !slices.Contains(Native, rel) {
			c.native(rel, p)
		}
	}
	return c.out
}

type checker struct {
	stage map[string]int      // stage index of every staged package (relative path)
	deps  map[string][]string // Deps of every listed package (import path)
	out   []string
}

func (c *checker) report(format string, args ...any) {
	c.out = append(c.out, fmt.Sprintf(format, args...))
}

// imports checks the module imports of package rel against the stages.
func (c *checker) imports(rel string, imports []string, what string) {
	own := c.stage[rel]
	for _, imp := range imports {
		q, ok := relative(imp)
		if !ok || q == rel || internal(q) {
			continue
		}
		if internal(rel) {
			c.report("%s %s %s: internal helpers import no stage", rel, what, q)
			continue
		}
		st, ok := c.stage[q]
		switch {
		case !ok:
			// reported as a package in no stage
		case st > own:
			c.report("%s %s %s, of the later stage %q (its own: %q)", rel, what, q, Stages[st].Name, Stages[own].Name)
		case st == own:
			c.report("%s %s %s, of its own stage %q", rel, what, q, Stages[own].Name)
		}
	}
}

// native reports cgo in package rel and every import that links a native
// library.
func (c *checker) native(rel string, p Package) {
	if len(p.CgoFiles) > 0 || slices.Contains(p.Imports, "C") {
		c.report("%s uses cgo (%s), but only %s may", rel, strings.Join(p.CgoFiles, ", "), strings.Join(Native, ", "))
	}
	for _, imp := range p.Imports {
		if lib := c.linked(imp); lib != "" {
			q, ok := relative(imp)
			if !ok {
				q = imp
			}
			c.report("%s imports %s, which links %s, but only %s may", rel, q, lib, strings.Join(Native, ", "))
		}
	}
}

// linked returns the native library that importing path links ("" if none).
func (c *checker) linked(path string) string {
	for _, d := range append([]string{path}, c.deps[path]...) {
		for _, lib := range nativeLibs {
			if d == lib || strings.HasPrefix(d, lib+"/") {
				return lib
			}
		}
	}
	return ""
}

// relative returns path relative to Module, and whether it is in Module.
func relative(path string) (string, bool) {
	if rel, ok := strings.CutPrefix(path, Module+"/"); ok {
		return rel, true
	}
	return "", false
}

func internal(rel string) bool { return rel == "internal" || strings.HasPrefix(rel, "internal/") }
