// Command devcluster is `make dev-cluster` and `make dev-cluster-down`
// (docs/decisions.md, "`make dev-cluster`"): a local Kubernetes control
// plane for people without kind or Docker. up starts, in a detached process
// of its own, the envtest-built kube-apiserver and etcd
// (sigs.k8s.io/controller-runtime/pkg/envtest, which also installs the CRDs
// and the webhook configurations pointing at a local port with a generated
// CA), runs `toolgate manager` with its webhooks and authorization service
// on loopback, applies config/samples as their policy administrator, waits
// until every sample is Ready, and prints a kubeconfig and the next
// commands. down stops it.
//
//	devcluster up   [-dir .dev-cluster] [-assets DIR] [-toolgate bin/toolgate] [-root .] [-timeout 3m]
//	devcluster down [-dir .dev-cluster]
//
// The directory holds the pid file, state.json (written once everything is
// up), the kubeconfig, the CA of the webhook and service certificate, and
// the logs of this program and of the manager. Nothing listens off
// loopback.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// options are the flags of every verb.
type options struct {
	dir, assets, toolgate, root string
	timeout                     time.Duration
}

func (o options) path(name string) string { return filepath.Join(o.dir, name) }

// The files in the directory.
const (
	pidFile   = "pid"
	stateFile = "state.json"
	logFile   = "devcluster.log"
)

// State is state.json: what up prints and what a test reads.
type State struct {
	PID         int    `json:"pid"`
	Kubeconfig  string `json:"kubeconfig"`
	APIServer   string `json:"apiServer"`
	ServiceURL  string `json:"serviceURL"`
	CAFile      string `json:"caFile"`
	ManagerLog  string `json:"managerLog"`
	ManagerPID  int    `json:"managerPID"`
	SamplesFrom string `json:"samplesFrom"`
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: devcluster up|down [flags]")
		return 2
	}
	fs := flag.NewFlagSet("devcluster "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.dir, "dir", ".dev-cluster", "directory of the cluster's pid, state, kubeconfig and logs")
	fs.StringVar(&o.assets, "assets", os.Getenv("KUBEBUILDER_ASSETS"), "directory holding kube-apiserver and etcd (make envtest-bins)")
	fs.StringVar(&o.toolgate, "toolgate", filepath.Join("bin", "toolgate"), "the toolgate binary (make build)")
	fs.StringVar(&o.root, "root", ".", "the repository root (config/crd/bases, config/webhook, config/samples)")
	fs.DurationVar(&o.timeout, "timeout", 3*time.Minute, "how long up waits for the cluster")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintln(stderr, "devcluster takes flags only")
		return 2
	}
	var err error
	if o.dir, err = filepath.Abs(o.dir); err != nil {
		fmt.Fprintln(stderr, "devcluster:", err)
		return 1
	}
	switch args[0] {
	case "up":
		err = up(o, stdout)
	case "down":
		err = down(o, stdout)
	case "serve": // the detached process up starts
		err = serveCluster(o)
	default:
		fmt.Fprintln(stderr, "usage: devcluster up|down [flags]")
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "devcluster:", err)
		return 1
	}
	return 0
}

// up starts `devcluster serve` detached (its own session, so it outlives
// make and a closed terminal) and waits until it has written state.json,
// or has exited, or the timeout has passed.
func up(o options, stdout io.Writer) error {
	if pid, ok := running(o); ok {
		return fmt.Errorf("a dev cluster is already running (pid %d, %s): run make dev-cluster-down first", pid, o.dir)
	}
	for _, p := range []string{o.assets, o.toolgate} {
		if p == "" {
			return errors.New("give -assets (kube-apiserver and etcd: make envtest-bins) and -toolgate (make build)")
		}
	}
	for _, bin := range []string{filepath.Join(o.assets, "kube-apiserver"), filepath.Join(o.assets, "etcd"), o.toolgate} {
		if _, err := os.Stat(bin); err != nil {
			return fmt.Errorf("%s is missing: run make envtest-bins and make build", bin)
		}
	}
	if err := os.MkdirAll(o.dir, 0o700); err != nil {
		return err
	}
	_ = os.Remove(o.path(stateFile))
	self, err := os.Executable()
	if err != nil {
		return err
	}
	log, err := os.OpenFile(o.path(logFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer func() { _ = log.Close() }()
	toolgate, err := filepath.Abs(o.toolgate)
	if err != nil {
		return err
	}
	root, err := filepath.Abs(o.root)
	if err != nil {
		return err
	}
	assets, err := filepath.Abs(o.assets)
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "serve", "-dir", o.dir, "-assets", assets, "-toolgate", toolgate, "-root", root, "-timeout", o.timeout.String())
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	fmt.Fprintf(stdout, "starting the dev cluster (pid %d; log %s) ...\n", cmd.Process.Pid, o.path(logFile))
	deadline := time.After(o.timeout)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("the dev cluster stopped while starting (%v); its log:\n%s", err, tail(o.path(logFile), 40))
		case <-deadline:
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
			var stopped error
			select {
			case stopped = <-exited:
			case <-time.After(time.Minute):
				killSession(cmd.Process.Pid)
				stopped = <-exited
			}
			return fmt.Errorf("the dev cluster was not up within %s (stopped: %v); its log:\n%s", o.timeout, stopped, tail(o.path(logFile), 40))
		case <-tick.C:
			st, err := readState(o)
			if err != nil {
				continue
			}
			printNext(stdout, o, st)
			return nil
		}
	}
}

// printNext prints where the cluster is and what to do with it.
func printNext(w io.Writer, o options, st State) {
	rel := func(p string) string {
		if wd, err := os.Getwd(); err == nil {
			if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
				return r
			}
		}
		return p
	}
	fmt.Fprintf(w, `dev cluster up: kube-apiserver %s, toolgate manager pid %d, samples from %s applied and Ready.
kubeconfig: %s

Next:
  export KUBECONFIG=%s
  kubectl -n payments get hauth,treg,psnap
  # the admission webhooks and controllers answer from the local manager:
  kubectl apply -f my-policysnapshot.yaml
  # the authorization service (TLS, the CA envtest generated):
  curl --cacert %s %s/healthz
  # a caller token for the samples' agent runtime (or payments-executor):
  kubectl -n payments create token payments-agent-runtime --audience toolgate
  tail -f %s
  make dev-cluster-down
`, st.APIServer, st.ManagerPID, rel(st.SamplesFrom), st.Kubeconfig, rel(st.Kubeconfig), rel(st.CAFile), st.ServiceURL, rel(st.ManagerLog))
}

// down stops the cluster: SIGTERM to the serve process, which stops the
// manager, the apiserver and etcd; after the timeout, SIGKILL to its whole
// session. No cluster running is not an error.
func down(o options, stdout io.Writer) error {
	pid, ok := running(o)
	if !ok {
		removeFiles(o)
		fmt.Fprintln(stdout, "no dev cluster is running in", o.dir)
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return err
	}
	if !waitGone(pid, time.Minute) {
		killSession(pid)
		waitGone(pid, 10*time.Second)
	}
	removeFiles(o)
	fmt.Fprintf(stdout, "dev cluster stopped (pid %d)\n", pid)
	return nil
}

// killSession sends SIGKILL to every process of the session sid: the
// serve process leads it (up starts it with Setsid), and the manager,
// kube-apiserver and etcd are in it, the last two in process groups of
// their own, so a kill of one group would leave them running.
func killSession(sid int) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the parenthesised command: state, ppid, pgrp, session.
		rest := string(raw)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		if f := strings.Fields(rest); len(f) > 3 && f[3] == strconv.Itoa(sid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func removeFiles(o options) {
	_ = os.Remove(o.path(stateFile))
	_ = os.Remove(o.path(pidFile))
}

// running returns the pid of the serve process of o.dir when it is alive
// and is this program (a stale pid file after a reboot names another).
func running(o options) (int, bool) {
	raw, err := os.ReadFile(o.path(pidFile))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(cmdline), "serve\x00-dir\x00"+o.dir+"\x00") {
		return 0, false
	}
	return pid, syscall.Kill(pid, 0) == nil
}

// waitGone waits until pid has exited (or is a zombie nobody reaps).
func waitGone(pid int, d time.Duration) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if f := strings.Fields(string(st)); len(f) > 2 && f[2] == "Z" {
				return true
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

func readState(o options) (State, error) {
	var st State
	raw, err := os.ReadFile(o.path(stateFile))
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(raw, &st)
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// writeAtomic writes data to path through a renamed temporary file, so a
// reader sees all of it or nothing.
func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// signalContext is done on SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
