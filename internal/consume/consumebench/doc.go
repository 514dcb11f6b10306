// Package consumebench measures Consume throughput and latency of every
// Consumption store on its real backend over loopback (bench_test.go;
// docs/performance.md has the numbers and the command). It has no code of
// its own: the benchmarks are in its test files. The etcd and apiserver
// benchmarks need the envtest binaries (KUBEBUILDER_ASSETS) and skip
// without them. Every backend fsyncs as in production: bbolt on every
// commit, etcd on every raft write (envtest's default --unsafe-no-fsync is
// turned off).
package consumebench
