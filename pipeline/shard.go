package pipeline

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/densify/densify/dataset"
)

// Shard selects one of Count disjoint parts of a dataset's selected
// sequences, so that Count processes (a Slurm job array, a Kubernetes
// Indexed Job) share one work folder on a shared filesystem. The parts are
// deterministic: the selected sequences sorted by name, sequence j (0-based)
// in part j mod Count. Index is 0-based, like SLURM_ARRAY_TASK_ID of
// --array=0-(n-1) and JOB_COMPLETION_INDEX. The zero Shard selects
// everything.
type Shard struct {
	Index, Count int
	// Source says where Index and Count came from, for the log: "--shard
	// 1/4" or the environment variables that gave them.
	Source string
}

// Active reports whether s selects a part (Count > 0).
func (s Shard) Active() bool { return s.Count > 0 }

// String is "i/n" (0-based), or "" for the zero Shard.
func (s Shard) String() string {
	if !s.Active() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// MaxShards bounds n of --shard i/n.
const MaxShards = 100000

// Validate checks 0 ≤ Index < Count ≤ MaxShards (or the zero Shard).
func (s Shard) Validate() error {
	if s.Count == 0 && s.Index == 0 {
		return nil
	}
	src := s.Source
	if src == "" {
		src = fmt.Sprintf("%d/%d", s.Index, s.Count)
	}
	if s.Count < 1 || s.Count > MaxShards {
		return fmt.Errorf("shard %s: the number of shards must be in [1, %d], got %d", src, MaxShards, s.Count)
	}
	if s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %s: the index must be in [0, %d) (0-based, like SLURM_ARRAY_TASK_ID of --array=0-%d), got %d",
			src, s.Count, s.Count-1, s.Index)
	}
	return nil
}

// Pick returns the sequences of part s.Index: seqs sorted by name, every
// s.Count-th from the s.Index-th (round robin, so the parts differ in size
// by at most one). The zero Shard returns seqs unchanged.
func (s Shard) Pick(seqs []dataset.SequenceInfo) []dataset.SequenceInfo {
	if !s.Active() {
		return seqs
	}
	sorted := slices.Clone(seqs)
	slices.SortStableFunc(sorted, func(a, b dataset.SequenceInfo) int { return strings.Compare(a.Name, b.Name) })
	var out []dataset.SequenceInfo
	for j := s.Index; j < len(sorted); j += s.Count {
		out = append(out, sorted[j])
	}
	return out
}

// describeShard is the log line of a sharded selection.
func describeShard(s Shard, picked, all []dataset.SequenceInfo) string {
	names := make([]string, len(picked))
	for i, p := range picked {
		names[i] = p.Name
	}
	list := strings.Join(names, ", ")
	if len(picked) == 0 {
		list = "none (more shards than sequences); nothing to do"
	}
	return fmt.Sprintf("shard %s (%s): %d of %d sequences: %s", s, s.Source, len(picked), len(all), list)
}

// ParseShard reads the --shard flag:
//
//	""       no sharding (the environment is not consulted)
//	"i/n"    part i of n, 0-based (0 ≤ i < n)
//	"auto"   from a whole Slurm job array submitted at once
//	         (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP,
//	         SLURM_ARRAY_TASK_COUNT: i = (ID − MIN) / STEP, n = COUNT)
//	"auto/n" n given, i straight from the array index: SLURM_ARRAY_TASK_ID
//	         of an array 0…n−1 (so a task resubmitted alone with --array=i
//	         keeps its part; the scripts of densify slurm use this form) or
//	         JOB_COMPLETION_INDEX of a Kubernetes Indexed Job (Kubernetes sets
//	         no count: n is the Job's completions)
//
// getenv looks up the environment (os.Getenv). Both Slurm's and
// Kubernetes' variables set at once is an error (which one is meant?).
func ParseShard(spec string, getenv func(string) string) (Shard, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return Shard{}, nil
	}
	head, tail, hasCount := strings.Cut(spec, "/")
	count := 0
	if hasCount {
		n, err := strconv.Atoi(tail)
		if err != nil {
			return Shard{}, fmt.Errorf("--shard %q: %q is not a number of shards (want i/n, auto or auto/n)", spec, tail)
		}
		count = n
	}
	if head != "auto" {
		if !hasCount {
			return Shard{}, fmt.Errorf("--shard %q: want i/n (0-based index i of n shards), auto or auto/n", spec)
		}
		i, err := strconv.Atoi(head)
		if err != nil {
			return Shard{}, fmt.Errorf("--shard %q: %q is not a shard index (want i/n, auto or auto/n)", spec, head)
		}
		s := Shard{Index: i, Count: count, Source: "--shard " + spec}
		if count == 0 {
			return Shard{}, fmt.Errorf("--shard %q: the number of shards must be in [1, %d], got 0", spec, MaxShards)
		}
		return s, s.Validate()
	}
	if hasCount && (count < 1 || count > MaxShards) {
		return Shard{}, fmt.Errorf("--shard %q: the number of shards must be in [1, %d], got %d", spec, MaxShards, count)
	}
	slurmID, k8sIndex := getenv("SLURM_ARRAY_TASK_ID"), getenv("JOB_COMPLETION_INDEX")
	switch {
	case slurmID != "" && k8sIndex != "":
		return Shard{}, fmt.Errorf("--shard %s: both SLURM_ARRAY_TASK_ID=%s and JOB_COMPLETION_INDEX=%s are set; give the shard as i/n",
			spec, slurmID, k8sIndex)
	case slurmID != "" && !hasCount:
		return slurmShard(spec, getenv)
	case slurmID != "" || k8sIndex != "":
		name, v := "SLURM_ARRAY_TASK_ID", slurmID
		if k8sIndex != "" {
			name, v = "JOB_COMPLETION_INDEX", k8sIndex
		}
		i, err := strconv.Atoi(v)
		if err != nil {
			return Shard{}, fmt.Errorf("--shard %s: %s=%q is not a number", spec, name, v)
		}
		if !hasCount {
			return Shard{}, fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%d gives the index, but Kubernetes sets no count: use --shard auto/N with N = the Job's completions", i)
		}
		if i < 0 || i >= count {
			return Shard{}, fmt.Errorf("--shard %s: %s=%d is not in [0, %d): the array's indices must be 0…%d", spec, name, i, count, count-1)
		}
		return Shard{Index: i, Count: count, Source: fmt.Sprintf("%s=%d, n from --shard %s", name, i, spec)}, nil
	}
	return Shard{}, fmt.Errorf("--shard %s: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; give the shard as i/n", spec)
}

// slurmShard derives the shard of a Slurm array task from its environment.
func slurmShard(spec string, getenv func(string) string) (Shard, error) {
	num := func(name string, def int) (int, error) {
		v := getenv(name)
		if v == "" {
			if def < 0 {
				return 0, fmt.Errorf("--shard %s: SLURM_ARRAY_TASK_ID is set but %s is not (not a job array task?)", spec, name)
			}
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("--shard %s: %s=%q is not a number", spec, name, v)
		}
		return n, nil
	}
	id, err := num("SLURM_ARRAY_TASK_ID", -1)
	if err != nil {
		return Shard{}, err
	}
	n, err := num("SLURM_ARRAY_TASK_COUNT", -1)
	if err != nil {
		return Shard{}, err
	}
	lo, err := num("SLURM_ARRAY_TASK_MIN", 0)
	if err != nil {
		return Shard{}, err
	}
	step, err := num("SLURM_ARRAY_TASK_STEP", 1)
	if err != nil {
		return Shard{}, err
	}
	if step < 1 {
		step = 1
	}
	if (id-lo)%step != 0 || (id-lo)/step >= n || id < lo {
		return Shard{}, fmt.Errorf("--shard %s: array task %d (SLURM_ARRAY_TASK_MIN=%d, SLURM_ARRAY_TASK_STEP=%d, SLURM_ARRAY_TASK_COUNT=%d) is not one of a regular range; submit with --array=0-%d",
			spec, id, lo, step, n, n-1)
	}
	s := Shard{Index: (id - lo) / step, Count: n,
		Source: fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d, SLURM_ARRAY_TASK_MIN=%d, SLURM_ARRAY_TASK_COUNT=%d", id, lo, n)}
	if step != 1 {
		s.Source = fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d, SLURM_ARRAY_TASK_MIN=%d, SLURM_ARRAY_TASK_STEP=%d, SLURM_ARRAY_TASK_COUNT=%d", id, lo, step, n)
	}
	return s, s.Validate()
}

// ShardHint is a note for a run without --shard inside an array task: every
// task would then process every sequence (and all but one stop at the
// sequences' locks). Empty outside array tasks.
func ShardHint(getenv func(string) string) string {
	for _, v := range []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"} {
		if x := getenv(v); x != "" {
			return fmt.Sprintf("note: %s=%s is set but --shard is not: this process runs every selected sequence (--shard auto runs this task's part)", v, x)
		}
	}
	return ""
}
