package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// listModule returns every package of the module as go list sees it.
func listModule(t *testing.T) []Package {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the packages with")
	}
	cmd := exec.Command(goTool, "list", "-e", "-json=ImportPath,Imports,TestImports,XTestImports,CgoFiles,Deps,Error", Module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			Package
			Error *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if p.Error != nil {
			t.Fatalf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p.Package)
	}
	return pkgs
}

// No package imports (in its code or its tests) one of a later stage or of
// its own, no internal helper imports a stage, and only the Native packages
// link OpenCV or libtorch.
func TestModuleIsLayered(t *testing.T) {
	pkgs := listModule(t)
	listed := map[string]bool{}
	for _, p := range pkgs {
		if rel, ok := relative(p.ImportPath); ok {
			listed[rel] = true
		}
	}
	for _, s := range Stages {
		for _, p := range s.Packages {
			if !listed[p] {
				t.Errorf("stage %q names %s, which go list does not know", s.Name, p)
			}
		}
	}
	for _, p := range Native {
		if !listed[p] {
			t.Errorf("Native names %s, which go list does not know", p)
		}
	}
	for _, v := range Check(pkgs) {
		t.Error(v)
	}
	// The check saw the module: the stages and some helpers.
	if !listed["train"] || !listed["pipeline"] || !listed["internal/logit"] {
		t.Fatalf("go list gave %d packages of the module, not train, pipeline and internal/logit", len(listed))
	}
}

func pkg(rel string, imports ...string) Package {
	p := Package{ImportPath: Module + "/" + rel}
	for _, i := range imports {
		if !strings.Contains(i, ".") && i != "C" {
			i = Module + "/" + i
		}
		p.Imports = append(p.Imports, i)
	}
	return p
}

// Check names the package and the offending import of every kind of
// violation, and finds none in a module that keeps to the stages.
func TestCheckNamesTheOffendingImport(t *testing.T) {
	unet := pkg("unet", "models", "github.com/sugarme/gotch")
	unet.Deps = []string{"github.com/sugarme/gotch", "github.com/sugarme/gotch/ts", Module + "/models"}
	clean := []Package{
		pkg("trajectory", "internal/atomicfile"),
		pkg("multicut"),
		pkg("uncertainty", "multicut", "internal/logit"),
		pkg("internal/logit"),
		unet,
		pkg("train", "unet", "refine", "github.com/sugarme/gotch"),
		pkg("pipeline", "uncertainty", "trainset"),
		{ImportPath: Module + "/video", Imports: []string{"C", Module + "/refine", "gocv.io/x/gocv"}, CgoFiles: []string{"flow.go"}, Deps: []string{"gocv.io/x/gocv"}},
		{ImportPath: "gonum.org/v1/gonum/mat"},
	}
	if got := Check(clean); len(got) != 0 {
		t.Fatalf("layered packages: %q", got)
	}

	tests := []struct {
		p    Package
		want string
	}{
		{pkg("train", "pipeline"), `train imports pipeline, of the later stage "orchestration" (its own: "6 training and prediction")`},
		{pkg("decompose", "trainset"), `decompose imports trainset, of its own stage "4 training labels; image decomposition"`},
		{Package{ImportPath: Module + "/eval", TestImports: []string{Module + "/cmd/densify"}}, `eval imports in its tests cmd/densify, of the later stage "composition root"`},
		{pkg("internal/npy", "trainset"), "internal/npy imports trainset: internal helpers import no stage"},
		{pkg("pipeline", "video"), "pipeline imports video, which links gocv.io/x/gocv, but only video, unet, train, cmd/densify may"},
		{pkg("refine", "gocv.io/x/gocv"), "refine imports gocv.io/x/gocv, which links gocv.io/x/gocv"},
		{Package{ImportPath: Module + "/uncertainty", Imports: []string{"C"}, CgoFiles: []string{"fast.go"}}, "uncertainty uses cgo (fast.go)"},
		{pkg("newstage", "trajectory"), "newstage is in no stage of layering.Stages"},
	}
	for _, tc := range tests {
		got := Check(append(slices.Clone(clean), tc.p))
		if len(got) != 1 || !strings.Contains(got[0], tc.want) {
			t.Errorf("%s importing %v: got %q, want one line with %q", tc.p.ImportPath, tc.p.Imports, got, tc.want)
		}
	}
}
