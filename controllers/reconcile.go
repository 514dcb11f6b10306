package controllers

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// getLive reads the object req names into obj. It reports false with a nil
// error when the object is gone or being deleted (the caller stops serving
// it), and false with the error when the read failed (the caller retries).
func getLive(ctx context.Context, c client.Client, req reconcile.Request, obj client.Object) (bool, error) {
	if err := c.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return obj.GetDeletionTimestamp().IsZero(), nil
}

// send delivers a copy of obj on ch without blocking the reconcile: when
// the channel is full a goroutine waits for room or for done. A nil ch
// sends nothing.
func send(ch chan<- event.GenericEvent, done <-chan struct{}, obj client.Object) {
	if ch == nil {
		return
	}
	ev := event.GenericEvent{Object: obj.DeepCopyObject().(client.Object)}
	select {
	case ch <- ev:
	default:
		go func() {
			select {
			case ch <- ev:
			case <-done:
			}
		}()
	}
}
