package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command of the tree shows examples in its --help, each line a call
// of that very command ("densify <its command path> …") with flags it has.
func TestEveryCommandHasExamples(t *testing.T) {
	f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}}
	root := NewCmdRoot(f)
	seen := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "help" || c.Name() == "completion" {
			return // cobra's own
		}
		seen++
		checkExample(t, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if seen < 19 {
		t.Fatalf("walked %d commands, want the root, 18 commands and decompose fit", seen)
	}
}

func checkExample(t *testing.T, c *cobra.Command) {
	t.Helper()
	path := c.CommandPath()
	if strings.TrimSpace(c.Example) == "" {
		t.Errorf("%s: no Example", path)
		return
	}
	calls, continued, target := 0, false, c
	for _, line := range strings.Split(c.Example, "\n") {
		line = strings.TrimSpace(line)
		cont := continued
		continued = strings.HasSuffix(line, `\`)
		if cont {
			checkExampleFlags(t, target, line)
			continue
		}
		if line == "" {
			continue
		}
		if line != path && !strings.HasPrefix(line, path+" ") {
			t.Errorf("%s: example line %q does not start with %q", path, line, path)
			continue
		}
		// The command the line runs: c itself, or for the root any command.
		args := strings.Fields(line)[1:]
		found, _, err := c.Root().Find(args)
		if err != nil {
			t.Errorf("%s: example line %q: %v", path, line, err)
			continue
		}
		if c.HasParent() && found != c {
			t.Errorf("%s: example line %q runs %s (its examples belong there)", path, line, found.CommandPath())
			continue
		}
		target = found
		calls++
		checkExampleFlags(t, target, line)
	}
	if calls == 0 {
		t.Errorf("%s: Example holds no call of the command", path)
	}
}

// checkExampleFlags fails for a --flag of an example line that c does not
// have (flags after a bare "--" belong to another program, text after "#" is
// a comment).
func checkExampleFlags(t *testing.T, c *cobra.Command, line string) {
	t.Helper()
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	for _, w := range strings.Fields(line) {
		if w == "--" {
			return
		}
		name, ok := strings.CutPrefix(w, "--")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		if c.Flags().Lookup(name) == nil && c.InheritedFlags().Lookup(name) == nil {
			t.Errorf("%s: example uses --%s, which it does not have", c.CommandPath(), name)
		}
	}
}

// A command's file stays readable: at most 150 lines for every file that
// builds a command (NewCmdX or newCmdX).
func TestCommandFilesStaySmall(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files: %v", err)
	}
	for _, fn := range files {
		if strings.HasSuffix(fn, "_test.go") {
			continue
		}
		b, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if !strings.Contains(s, "func NewCmd") && !strings.Contains(s, "func newCmd") {
			continue
		}
		if n := strings.Count(s, "\n"); n > 150 {
			t.Errorf("%s: %d lines, more than 150: split it by topic", fn, n)
		}
	}
}
