package main

import (
	"fmt"

	"github.com/densify/densify/unet"
	"github.com/spf13/cobra"
	"gocv.io/x/gocv"
)

type doctorOptions struct {
	IO      *IOStreams
	Device  string
	Threads int
}

func NewCmdDoctor(f *Factory) *cobra.Command {
	o := &doctorOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the native stack: Go, libtorch, OpenCV, CUDA, threads, and a tiny U-Net training step",
		Long: `doctor prints the Go version, the libtorch library in use and its version, the
OpenCV version, CUDA availability and libtorch's intra-op thread count, then runs a few
forward/backward/Adam steps of a tiny U-Net on the chosen device. It exits non-zero
with a hint when something is off (e.g. --device cuda on a CPU-only libtorch).`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runDoctor(o) },
	}
	cmd.Example = doctorExample
	cmd.Flags().StringVar(&o.Device, "device", "cpu", "device for the test step: cpu, cuda or auto")
	cmd.Flags().IntVar(&o.Threads, "threads", 0, "libtorch intra-op threads (0 = all cores)")
	return cmd
}

func runDoctor(o *doctorOptions) error {
	w := o.IO.Out
	fmt.Fprintf(w, "opencv:    %s (gocv %s)\n", gocv.OpenCVVersion(), gocv.Version())
	if err := unet.Doctor(w, unet.DoctorOptions{Device: o.Device, Threads: o.Threads}); err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	fmt.Fprintln(w, "ok")
	return nil
}
