// Package slurmtest starts a real single-node Slurm cluster for a test:
// munged with a generated key, slurmctld and slurmd on 127.0.0.1, their
// configuration, state, spool, logs and sockets in the test's temporary
// folder, on free ports, so nothing of the machine's own Slurm or munge
// setup is used or touched. The node is the machine itself as `slurmd -C`
// describes it; process tracking without cgroups (proctrack/linuxproc,
// task/none, jobacct_gather/none), no accounting. Every daemon runs in the
// foreground in its own process group and is stopped (SIGTERM, then
// SIGKILL) by t.Cleanup, after the cluster's jobs are cancelled, whatever
// the test's outcome; Pdeathsig stops them too if the test process dies.
//
// Start skips the test, saying why, when the cluster cannot run here: not
// root (slurmd launches jobs as their user), a program missing (install
// slurm-wlm and munge: scripts/setup-slurm.sh), or a daemon that does not
// come up (the tail of its log is in the message).
package slurmtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Cluster is a running one-node cluster.
type Cluster struct {
	Dir       string   // configuration, state, spool, logs
	Conf      string   // slurm.conf
	Env       []string // os.Environ() with SLURM_CONF set: for sbatch, squeue, scontrol and the jobs
	Partition string
	procs     []*daemon
}

type daemon struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// Programs are the executables the cluster needs.
var Programs = []string{"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "squeue", "sinfo", "scancel"}

// Start starts the cluster or skips t.
func Start(t testing.TB) *Cluster {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("slurm: needs root (slurmd starts jobs as their user; SlurmUser=root here)")
	}
	for _, p := range Programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("slurm: %s not found on PATH (install slurm-wlm and munge: scripts/setup-slurm.sh)", p)
		}
	}
	c := &Cluster{Dir: t.TempDir(), Partition: "densifytest"}
	t.Cleanup(func() { c.stop(t) })
	if err := c.start(); err != nil {
		t.Skipf("slurm: cannot start a one-node cluster here: %v", err)
	}
	return c
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// nodeLine is the node as `slurmd -C` sees this machine, named localhost at
// 127.0.0.1.
func nodeLine() (string, error) {
	out, err := exec.Command("slurmd", "-C").Output()
	if err != nil {
		return "", fmt.Errorf("slurmd -C: %w", err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	var keep []string
	for _, f := range strings.Fields(first) {
		k, _, _ := strings.Cut(f, "=")
		switch k {
		case "CPUs", "Boards", "SocketsPerBoard", "CoresPerSocket", "ThreadsPerCore", "RealMemory":
			keep = append(keep, f)
		}
	}
	if len(keep) == 0 {
		return "", fmt.Errorf("slurmd -C printed %q", first)
	}
	return "NodeName=localhost NodeAddr=127.0.0.1 NodeHostname=localhost " + strings.Join(keep, " ") + " State=UNKNOWN", nil
}

func (c *Cluster) start() error {
	d := c.Dir
	for _, sub := range []string{"state", "spool", "munge"} {
		if err := os.MkdirAll(filepath.Join(d, sub), 0o700); err != nil {
			return err
		}
	}
	// munge: a fresh key (munged wants 0400 and ≥ 32 bytes) and its own socket.
	key := make([]byte, 128)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	keyPath := filepath.Join(d, "munge", "munge.key")
	if err := os.WriteFile(keyPath, key, 0o400); err != nil {
		return err
	}
	sock := filepath.Join(d, "munge", "munge.sock")
	if len(sock) > 100 {
		return fmt.Errorf("the munge socket path %s is too long for a Unix socket", sock)
	}
	if err := c.run("munged", filepath.Join(d, "munged.log"), "munged", "-F", "--force",
		"--key-file="+keyPath, "--socket="+sock, "--pid-file="+filepath.Join(d, "munge", "munged.pid"),
		"--log-file="+filepath.Join(d, "munge", "munged.file.log"), "--seed-file="+filepath.Join(d, "munge", "seed")); err != nil {
		return err
	}
	if err := waitFor(10*time.Second, func() bool { _, err := os.Stat(sock); return err == nil }); err != nil {
		return fmt.Errorf("munged: no socket %s after 10 s%s", sock, c.tail("munged"))
	}
	ctld, err := freePort()
	if err != nil {
		return err
	}
	slurmd, err := freePort()
	if err != nil {
		return err
	}
	node, err := nodeLine()
	if err != nil {
		return err
	}
	plug := filepath.Join(d, "plugstack.conf")
	if err := os.WriteFile(plug, nil, 0o644); err != nil {
		return err
	}
	conf := fmt.Sprintf(`# one-node test cluster written by internal/slurmtest
ClusterName=densifytest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=%d
SlurmdPort=%d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=%s
StateSaveLocation=%s
SlurmdSpoolDir=%s
SlurmctldPidFile=%s
SlurmdPidFile=%s
SlurmctldLogFile=%s
SlurmdLogFile=%s
PlugStackConfig=%s
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
%s
PartitionName=%s Nodes=localhost Default=YES MaxTime=INFINITE State=UP
`, ctld, slurmd, sock, filepath.Join(d, "state"), filepath.Join(d, "spool"),
		filepath.Join(d, "slurmctld.pid"), filepath.Join(d, "slurmd.pid"),
		filepath.Join(d, "slurmctld.log"), filepath.Join(d, "slurmd.log"), plug, node, c.Partition)
	c.Conf = filepath.Join(d, "slurm.conf")
	if err := os.WriteFile(c.Conf, []byte(conf), 0o644); err != nil {
		return err
	}
	c.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
	if err := c.run("slurmctld", filepath.Join(d, "slurmctld.out"), "slurmctld", "-D", "-i", "-f", c.Conf); err != nil {
		return err
	}
	if err := c.run("slurmd", filepath.Join(d, "slurmd.out"), "slurmd", "-D", "-N", "localhost", "-f", c.Conf); err != nil {
		return err
	}
	var state string
	if err := waitFor(30*time.Second, func() bool {
		out, _ := c.Command(context.Background(), "sinfo", "-h", "-n", "localhost", "-o", "%T").Output()
		state = strings.TrimSpace(string(out))
		return state == "idle"
	}); err != nil {
		return fmt.Errorf("the node is %q, not idle, after 30 s%s%s", state, c.tail("slurmctld"), c.tail("slurmd"))
	}
	return nil
}

// run starts a daemon in the foreground in its own process group, output
// to logPath.
func (c *Cluster) run(name, logPath string, argv ...string) error {
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), "SLURM_CONF="+filepath.Join(c.Dir, "slurm.conf"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	dm := &daemon{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { cmd.Wait(); f.Close(); close(dm.done) }()
	c.procs = append(c.procs, dm)
	select {
	case <-dm.done:
		return fmt.Errorf("%s exited at once%s", name, c.tail(name))
	case <-time.After(300 * time.Millisecond):
	}
	return nil
}

// tail is the end of a daemon's output and log file, for messages.
func (c *Cluster) tail(name string) string {
	var b strings.Builder
	for _, p := range []string{name + ".out", name + ".log"} {
		data, err := os.ReadFile(filepath.Join(c.Dir, p))
		if err != nil || len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		fmt.Fprintf(&b, "\n--- %s:\n%s", p, strings.Join(lines, "\n"))
	}
	return b.String()
}

// Command is a Slurm client command (sbatch, squeue, …) for this cluster.
func (c *Cluster) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = c.Env
	return cmd
}

// JobState is the state of a job (scontrol show job; PENDING, RUNNING,
// COMPLETED, FAILED, CANCELLED, …): for an array, the states of its tasks
// joined by spaces.
func (c *Cluster) JobState(id string) (string, error) {
	out, err := c.Command(context.Background(), "scontrol", "show", "job", "-o", id).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("scontrol show job %s: %v: %s", id, err, bytes.TrimSpace(out))
	}
	var states []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "JobState="); ok {
				states = append(states, v)
			}
		}
	}
	return strings.Join(states, " "), nil
}

// Wait polls the job until none of its states is pending or running, or
// the timeout passes, and returns its states.
func (c *Cluster) Wait(id string, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		st, err := c.JobState(id)
		if err != nil {
			return st, err
		}
		busy := false
		for _, s := range strings.Fields(st) {
			switch s {
			case "PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING":
				busy = true
			}
		}
		if !busy {
			return st, nil
		}
		if time.Now().After(deadline) {
			return st, fmt.Errorf("job %s still %s after %v%s", id, st, timeout, c.tail("slurmctld"))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Logs returns the tails of the daemons' logs (for a failing test).
func (c *Cluster) Logs() string { return c.tail("slurmctld") + c.tail("slurmd") }

func waitFor(d time.Duration, ok func() bool) error {
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out")
		}
		time.Sleep(200 * time.Millisecond)
	}
	return nil
}

// stop cancels the cluster's jobs, then stops the daemons in reverse order
// of start: SIGTERM to the process group, SIGKILL after 10 s.
func (c *Cluster) stop(t testing.TB) {
	if len(c.procs) == 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c.Command(ctx, "scancel", "--partition", c.Partition).Run()
		waitFor(10*time.Second, func() bool {
			out, err := c.Command(ctx, "squeue", "-h", "-o", "%i").Output()
			return err != nil || len(bytes.TrimSpace(out)) == 0
		})
		cancel()
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		dm := c.procs[i]
		syscall.Kill(-dm.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-dm.done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-dm.cmd.Process.Pid, syscall.SIGKILL)
			<-dm.done
			t.Logf("slurmtest: %s (pid %d) did not stop on SIGTERM; killed", dm.name, dm.cmd.Process.Pid)
		}
	}
	c.procs = nil
}
