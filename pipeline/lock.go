package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
)

// LockName is the lock file of a sequence's work folder (<work>/<seq>/.lock).
//
// Run, Ablate and PrepareDataset lock the folder of every selected sequence
// before any work and release the locks when they return, so two runs on
// the same sequence of one work folder conflict (the second fails at once,
// naming the holder), while runs on disjoint sequences of one work folder
// (a job array, one sequence per job) proceed side by side. The lock file
// is created atomically (a complete temporary file hard-linked into place,
// which fails when the name exists) and holds the holder's PID, host,
// start time, command, and on Linux the boot id and the process start time
// (field 22 of /proc/<pid>/stat). A lock left by a crashed or killed
// process is stale and taken over: on the same host, when the PID is not
// alive, or belongs to a different process (other start time, other boot).
// A lock of another host cannot be checked; the error says to remove it by
// hand when that process is gone.
const LockName = ".lock"

// LockInfo is the content of a lock file (JSON).
type LockInfo struct {
	PID      int       `json:"pid"`
	Host     string    `json:"host"`
	Started  time.Time `json:"started"`
	Command  string    `json:"command"`
	BootID   string    `json:"boot_id,omitempty"`
	PIDStart string    `json:"pid_start,omitempty"` // /proc/<pid>/stat field 22 (clock ticks since boot)
}

func (li LockInfo) String() string {
	return fmt.Sprintf("pid %d on %s (%s, since %s)", li.PID, li.Host, li.Command, li.Started.UTC().Format(time.RFC3339))
}

// Lock is a held lock file.
type Lock struct{ path string }

// Release removes the lock file (idempotent).
func (l *Lock) Release() error {
	if l == nil || l.path == "" {
		return nil
	}
	err := os.Remove(l.path)
	l.path = ""
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// ErrLocked is wrapped by the error of AcquireLock when another live process
// holds the lock.
var ErrLocked = errors.New("in use by another run")

func selfInfo() LockInfo {
	host, _ := os.Hostname()
	return LockInfo{PID: os.Getpid(), Host: host, Started: time.Now().UTC(), Command: strings.Join(os.Args, " "),
		BootID: bootID(), PIDStart: pidStart(os.Getpid())}
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// pidStart returns field 22 (starttime) of /proc/<pid>/stat, "" when it
// cannot be read (no such process, or not Linux).
func pidStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// alive reports whether the process that wrote li still runs (same host).
func (li LockInfo) alive() bool {
	if li.BootID != "" && bootID() != "" && li.BootID != bootID() {
		return false // written before a reboot
	}
	if li.PID <= 0 {
		return false
	}
	if err := syscall.Kill(li.PID, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	if li.PIDStart != "" {
		if now := pidStart(li.PID); now != "" && now != li.PIDStart {
			return false // the PID was reused by another process
		}
	}
	return true
}

// AcquireLock creates dir/.lock for this process (dir is created when
// missing). When a live process holds it, the error (wrapping ErrLocked)
// names the holder and the lock file; a stale lock is replaced.
func AcquireLock(dir string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, LockName)
	me := selfInfo()
	data, _ := json.MarshalIndent(me, "", "  ")
	tmp, err := os.CreateTemp(dir, atomicfile.TempPattern(LockName))
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	for attempt := 0; ; attempt++ {
		err := os.Link(tmp.Name(), path)
		if err == nil {
			return &Lock{path: path}, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		b, rerr := os.ReadFile(path)
		if errors.Is(rerr, os.ErrNotExist) && attempt < 3 {
			continue // released meanwhile
		}
		var holder LockInfo
		if rerr != nil || json.Unmarshal(b, &holder) != nil {
			return nil, fmt.Errorf("%s is locked by %s, which cannot be read (remove it if no densify run uses this folder): %w", dir, path, ErrLocked)
		}
		if holder.Host == me.Host && !holder.alive() && attempt < 3 {
			// Stale: take it over. Rename first so that of two processes
			// seeing the same stale lock only one removes it.
			stale := path + ".stale-" + strconv.Itoa(me.PID)
			if os.Rename(path, stale) == nil {
				if moved, _ := os.ReadFile(stale); string(moved) != string(b) {
					os.Link(stale, path) // another process took it over meanwhile: put its lock back
				}
				os.Remove(stale)
			}
			continue
		}
		hint := "wait for it to finish"
		if holder.Host != me.Host {
			hint = "remove the lock file if that process is gone"
		}
		return nil, fmt.Errorf("%s is in use by %s; lock file %s (%s): %w", dir, holder, path, hint, ErrLocked)
	}
}

// Locks is a set of held sequence locks.
type Locks []*Lock

// Release releases every lock (errors are ignored: a missing lock file is
// no problem at release).
func (ls Locks) Release() {
	for _, l := range ls {
		l.Release()
	}
}

// LockSequences locks the work folders <work>/<seq> of seqs, in name order;
// on failure the locks already taken are released.
func LockSequences(work string, seqs []dataset.SequenceInfo) (Locks, error) {
	names := make([]string, 0, len(seqs))
	for _, s := range seqs {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	var ls Locks
	for _, n := range names {
		l, err := AcquireLock(filepath.Join(work, n))
		if err != nil {
			ls.Release()
			return nil, err
		}
		ls = append(ls, l)
	}
	return ls, nil
}
