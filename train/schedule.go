package train

import (
	"fmt"
	"math"
)

// Schedule names how the learning rate changes over the steps of a training.
type Schedule string

const (
	// ScheduleConstant keeps the learning rate η₀ for every step.
	ScheduleConstant Schedule = "constant"
	// ScheduleCosine anneals it from η₀ to 0 over the T steps of the training
	// (Loshchilov & Hutter, "SGDR", ICLR 2017, Eq. 5 without restarts):
	//
	//	η_t = η₀ · ½ (1 + cos(π t / T)),   t = 0, …, T−1 (steps already taken),
	//
	// so that the last weights are those of small steps around a minimum
	// rather than of full-size steps across it. T is the whole budget
	// (steps per epoch × epochs), so the schedule depends on the step
	// alone and a resumed training continues it exactly.
	ScheduleCosine Schedule = "cosine"
)

// Schedules lists the known schedules (flag help, validation).
var Schedules = []Schedule{ScheduleConstant, ScheduleCosine}

// ParseSchedule returns the schedule named s ("" is ScheduleConstant).
func ParseSchedule(s string) (Schedule, error) {
	if s == "" {
		return ScheduleConstant, nil
	}
	for _, v := range Schedules {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("unknown learning-rate schedule %q (constant, cosine)", s)
}

// LRAt is the learning rate of the step after t steps of a training of
// total steps whose peak is lr.
func (s Schedule) LRAt(lr float64, t, total int) float64 {
	if s != ScheduleCosine || total <= 0 {
		return lr
	}
	return lr * 0.5 * (1 + math.Cos(math.Pi*float64(t)/float64(total)))
}

// recorded is the schedule as Options records it: empty for
// ScheduleConstant.
func (s Schedule) recorded() Schedule {
	if s == ScheduleConstant {
		return ""
	}
	return s
}
