package main

import (
	"testing"

	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/trainset"
)

// prepare's default threshold on a trajectory's camera residual is the
// segmentation's threshold on a point's (the packages do not import each
// other; this keeps the two constants one number).
func TestBackgroundResidualDefaultIsTheSegmentationsThreshold(t *testing.T) {
	if trainset.DefaultBackgroundResidual != motiongraph.BackgroundResidual {
		t.Errorf("trainset.DefaultBackgroundResidual = %v, motiongraph.BackgroundResidual = %v",
			trainset.DefaultBackgroundResidual, motiongraph.BackgroundResidual)
	}
}
