package main

import (
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/toolgate/toolgate/internal/manifest"
)

// objectError is a rejection of one manifest object.
type objectError struct {
	kind, namespace, name string
	err                   error
}

func objErr(kind string, o client.Object, err error) error {
	return &objectError{kind: kind, namespace: o.GetNamespace(), name: o.GetName(), err: err}
}

func (e *objectError) Error() string {
	return e.kind + " " + e.namespace + "/" + e.name + ": " + e.err.Error()
}

func (e *objectError) Unwrap() error { return e.err }

// located adds the file and YAML line of every fault to a rejection of a
// manifest object read by set (see manifest.Set.Locate).
func located(set *manifest.Set, err error) error {
	var oe *objectError
	if !errors.As(err, &oe) {
		return err
	}
	if l := set.Locate(oe.kind, oe.namespace, oe.name, oe.err); l != oe.err {
		return l
	}
	return err
}
