package consumetest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Etcd is a real single-member etcd server (the envtest binary) on
// 127.0.0.1 random ports with a temporary data directory.
type Etcd struct {
	bin, dataDir, logPath string
	clientURL, peerURL    string
	cmd                   *exec.Cmd
	exited                chan struct{}
}

// StartEtcd starts etcd from assets (Assets's directory) and waits until
// it answers; tb's cleanup kills it. The server fsyncs as in production.
func StartEtcd(tb testing.TB, assets string) *Etcd {
	tb.Helper()
	dir := tb.TempDir()
	e := &Etcd{
		bin:       filepath.Join(assets, "etcd"),
		dataDir:   filepath.Join(dir, "data"),
		logPath:   filepath.Join(dir, "etcd.log"),
		clientURL: "http://" + freeAddr(tb),
		peerURL:   "http://" + freeAddr(tb),
	}
	if err := e.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Kill() })
	return e
}

// Endpoint is the client URL.
func (e *Etcd) Endpoint() string { return e.clientURL }

// Config is a client configuration for this server with a no-op logger.
func (e *Etcd) Config() clientv3.Config {
	return clientv3.Config{Endpoints: []string{e.clientURL}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()}
}

// Start starts the server on its data directory (again, after Kill) and
// waits up to 30 s until it serves a linearizable read.
func (e *Etcd) Start() error {
	log, err := os.OpenFile(e.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer func() { _ = log.Close() }()
	e.cmd = exec.Command(e.bin,
		"--name=consumetest",
		"--data-dir="+e.dataDir,
		"--listen-client-urls="+e.clientURL, "--advertise-client-urls="+e.clientURL,
		"--listen-peer-urls="+e.peerURL, "--initial-advertise-peer-urls="+e.peerURL,
		"--initial-cluster=consumetest="+e.peerURL,
		"--log-level=warn",
	)
	e.cmd.Stdout, e.cmd.Stderr = log, log
	if err := e.cmd.Start(); err != nil {
		return fmt.Errorf("start etcd: %w", err)
	}
	e.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) { _ = cmd.Wait(); close(exited) }(e.cmd, e.exited)

	cli, err := clientv3.New(e.Config())
	if err != nil {
		e.Kill()
		return err
	}
	defer func() { _ = cli.Close() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := cli.Get(ctx, "/consumetest-ready")
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-e.exited:
			return fmt.Errorf("etcd exited during startup; see %s", e.logPath)
		default:
		}
		if time.Now().After(deadline) {
			e.Kill()
			return fmt.Errorf("etcd did not become ready in 30 s: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill stops the server with SIGKILL (no graceful shutdown: a crash) and
// waits for it to exit. It is a no-op when the server is not running.
func (e *Etcd) Kill() {
	if e.cmd == nil || e.cmd.Process == nil {
		return
	}
	select {
	case <-e.exited:
		return
	default:
	}
	_ = e.cmd.Process.Signal(syscall.SIGKILL)
	<-e.exited
}

// freeAddr returns a 127.0.0.1 address with a port that was free a moment
// ago.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}
