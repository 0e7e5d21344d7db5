package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// signalContext is cancelled by Ctrl-C or SIGTERM: run, ablate and train
// stop between steps and leave resumable outputs.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
