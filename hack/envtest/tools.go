//go:build tools

// Package tools pins the two main packages build.sh compiles, so that
// go mod tidy keeps their dependencies in this module's go.mod and go.sum.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
