//go:build tools

// Package tools pins the versions of development tools in a module separate
// from toolgate's own, so their dependencies never enter the product's go.mod.
package tools

import (
	_ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
