package pipeline

import (
	"strings"
	"testing"

	"github.com/densify/densify/dataset"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		spec   string
		env    func(string) string
		i, n   int
		source string // substring of Source
		err    string // substring of the error
	}{
		{spec: "", env: env("SLURM_ARRAY_TASK_ID", "1", "SLURM_ARRAY_TASK_COUNT", "2")}, // no flag: no sharding
		{spec: "0/1", env: env(), i: 0, n: 1, source: "--shard 0/1"},
		{spec: "3/4", env: env(), i: 3, n: 4},
		{spec: "4/4", env: env(), err: "index must be in [0, 4) (0-based"},
		{spec: "-1/4", env: env(), err: "index must be in [0, 4)"},
		{spec: "1/0", env: env(), err: "number of shards must be in [1, 100000], got 0"},
		{spec: "1", env: env(), err: "want i/n"},
		{spec: "x/2", env: env(), err: `"x" is not a shard index`},
		{spec: "1/y", env: env(), err: `"y" is not a number of shards`},
		{spec: "auto", env: env(), err: "neither SLURM_ARRAY_TASK_ID"},
		// --array=4-6: IDs 4, 5, 6, MIN 4
		{spec: "auto", env: env("SLURM_ARRAY_TASK_ID", "5", "SLURM_ARRAY_TASK_MIN", "4", "SLURM_ARRAY_TASK_COUNT", "3"),
			i: 1, n: 3, source: "SLURM_ARRAY_TASK_ID=5, SLURM_ARRAY_TASK_MIN=4, SLURM_ARRAY_TASK_COUNT=3"},
		// --array=0-4:2: IDs 0, 2, 4
		{spec: "auto", env: env("SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_STEP", "2", "SLURM_ARRAY_TASK_COUNT", "3"),
			i: 2, n: 3, source: "SLURM_ARRAY_TASK_STEP=2"},
		// auto/n: the index straight from SLURM_ARRAY_TASK_ID, whatever the
		// size of this submission (task 2 of 3 resubmitted alone: --array=2)
		{spec: "auto/3", env: env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_MIN", "2", "SLURM_ARRAY_TASK_COUNT", "1"),
			i: 2, n: 3, source: "SLURM_ARRAY_TASK_ID=2, n from --shard auto/3"},
		{spec: "auto/2", env: env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "3"), err: "SLURM_ARRAY_TASK_ID=2 is not in [0, 2): the array's indices must be 0…1"},
		{spec: "auto", env: env("SLURM_ARRAY_TASK_ID", "0"), err: "SLURM_ARRAY_TASK_COUNT is not"},
		// --array=0,3,7 (a list): not a regular range
		{spec: "auto", env: env("SLURM_ARRAY_TASK_ID", "7", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_COUNT", "3"), err: "submit with --array=0-2"},
		{spec: "auto", env: env("JOB_COMPLETION_INDEX", "3"), err: "use --shard auto/N"},
		{spec: "auto/4", env: env("JOB_COMPLETION_INDEX", "3"), i: 3, n: 4, source: "JOB_COMPLETION_INDEX=3"},
		{spec: "auto/4", env: env("JOB_COMPLETION_INDEX", "4"), err: "JOB_COMPLETION_INDEX=4 is not in [0, 4)"},
		{spec: "auto/4", env: env("JOB_COMPLETION_INDEX", "x"), err: `JOB_COMPLETION_INDEX="x" is not a number`},
		{spec: "auto/0", env: env("JOB_COMPLETION_INDEX", "0"), err: "number of shards must be in [1, 100000]"},
		{spec: "auto", env: env("JOB_COMPLETION_INDEX", "0", "SLURM_ARRAY_TASK_ID", "0"), err: "both SLURM_ARRAY_TASK_ID=0 and JOB_COMPLETION_INDEX=0"},
	} {
		s, err := ParseShard(c.spec, c.env)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil || s.Index != c.i || s.Count != c.n || !strings.Contains(s.Source, c.source) {
			t.Errorf("%q: got %+v, %v; want %d/%d from %q", c.spec, s, err, c.i, c.n, c.source)
		}
	}
	if h := ShardHint(env("SLURM_ARRAY_TASK_ID", "2")); !strings.Contains(h, "SLURM_ARRAY_TASK_ID=2 is set but --shard is not") {
		t.Errorf("hint %q", h)
	}
	if h := ShardHint(env()); h != "" {
		t.Errorf("hint outside an array: %q", h)
	}
}

// Round robin over the names sorted: with names e a d b c and 2 shards,
// a c e and b d; every sequence in exactly one part; more shards than
// sequences leave the last ones empty.
func TestShardPick(t *testing.T) {
	var seqs []dataset.SequenceInfo
	for _, n := range []string{"e", "a", "d", "b", "c"} {
		seqs = append(seqs, dataset.SequenceInfo{Name: n})
	}
	names := func(s []dataset.SequenceInfo) string {
		var out []string
		for _, x := range s {
			out = append(out, x.Name)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		s    Shard
		want string
	}{
		{Shard{}, "e a d b c"},
		{Shard{Index: 0, Count: 2}, "a c e"},
		{Shard{Index: 1, Count: 2}, "b d"},
		{Shard{Index: 2, Count: 3}, "c"},
		{Shard{Index: 4, Count: 5}, "e"},
		{Shard{Index: 5, Count: 6}, ""},
	} {
		if got := names(c.s.Pick(seqs)); got != c.want {
			t.Errorf("%s: %q, want %q", c.s, got, c.want)
		}
	}
	if names(seqs) != "e a d b c" {
		t.Error("Pick reordered its input")
	}
}
