package main

import (
	"fmt"

	"github.com/densify/densify/train"
)

// printTrained prints a line per trained model (epochs, steps, final loss,
// time, size, checkpoint) and, for prune, the labels it dropped per class.
func printTrained(o *trainOptions, s *train.Summary) {
	for _, m := range append([]*train.Summary{s}, s.Models...) {
		if m.Checkpoint != "" {
			fmt.Fprintf(o.IO.Out, "%s: %d epochs, %d steps, final loss %.4f, %.1f s, %d parameters → %s\n",
				m.Out, m.Epochs, m.Steps, m.FinalLoss, m.Seconds, m.Params, m.Checkpoint)
		}
		if len(m.Pruned) > 0 {
			fmt.Fprintf(o.IO.Out, "%s: prune dropped the labels of", m.Out)
			sep := ""
			for _, c := range m.Pruned {
				name := fmt.Sprintf("class %d", c.Class)
				switch {
				case c.Class == 0:
					name = "background"
				case len(m.Pruned) == 2:
					name = "object"
				}
				fmt.Fprintf(o.IO.Out, "%s %d of %d %s pixels (%.1f %%)", sep, c.Dropped, c.Labelled, name, 100*float64(c.Dropped)/float64(max(c.Labelled, 1)))
				sep = ";"
			}
			fmt.Fprintln(o.IO.Out)
		}
	}
}
