package main

import (
	"fmt"
	"io"
	"strings"
)

// checkTaskFlags parses the command line of the tasks (densify command
// DATASET --out WORK args…) as they will and applies the checks every
// command gets before it runs (flag syntax and values, ranges, outputs), so
// that a flag a task would refuse fails here, not on the cluster.
func checkTaskFlags(command, dataset, work string, args []string) error {
	root := NewCmdRoot(&Factory{IO: &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}})
	c, _, err := root.Find([]string{command})
	if err != nil || c == root {
		return fmt.Errorf("slurm: no densify command %q", command)
	}
	line := append([]string{dataset, "--out", work}, args...)
	if err := c.ParseFlags(line); err != nil {
		return fmt.Errorf("slurm: the tasks' densify %s would refuse its flags: %w", command, err)
	}
	if err := c.ValidateArgs(c.Flags().Args()); err != nil {
		return fmt.Errorf("slurm: the tasks' densify %s would refuse its arguments %q: %w", command, c.Flags().Args(), err)
	}
	if err := checks.CheckRanges(c); err != nil {
		return fmt.Errorf("slurm: the tasks' densify %s would refuse its flags: %w", command, err)
	}
	if err := checks.CheckOutputs(c, c.Flags().Args()); err != nil {
		return fmt.Errorf("slurm: the tasks' densify %s would refuse its flags: %w", command, err)
	}
	return nil
}
