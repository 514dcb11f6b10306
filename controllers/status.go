package controllers

import (
	"context"
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/publisher"
)

// outcome is what one reconcile concluded about an object.
type outcome struct {
	reason      string // v1alpha1.ReasonAccepted, ReasonRejected or ReasonWaitingForDependency
	message     string
	digest      string
	publishedBy string
}

// maxMessage bounds a condition message (the API allows 32768 bytes).
const maxMessage = 4096

// faultMessage renders err for a status message or Event: every rejection
// with its path, code and constant rule. Only texts known to echo no input
// are used: engine faults and the publisher package's constant errors;
// anything else becomes a generic sentence.
func faultMessage(err error) string {
	var parts []string
	switch {
	case errors.Is(err, publisher.ErrMissing), errors.Is(err, publisher.ErrMalformed), errors.Is(err, publisher.ErrSignature):
		for _, e := range []error{publisher.ErrMissing, publisher.ErrMalformed, publisher.ErrSignature} {
			if errors.Is(err, e) {
				parts = append(parts, e.Error())
			}
		}
	default:
		for _, e := range fault.All(err) {
			parts = append(parts, strings.TrimPrefix(e.Error(), "engine: "))
		}
	}
	msg := strings.Join(parts, "; ")
	if len(msg) > maxMessage {
		msg = msg[:maxMessage-3] + "..."
	}
	return msg
}

// statusWriter writes status and Events, only while this replica leads.
type statusWriter struct {
	client   client.Client
	recorder events.EventRecorder
	leader   func() bool
}

// write brings obj's status (st points into obj) to o. It does nothing on a
// follower or when the status already says o.
func (w *statusWriter) write(ctx context.Context, obj client.Object, st *v1alpha1.PublicationStatus, o outcome) error {
	if !w.leader() {
		return nil
	}
	want := st.DeepCopy()
	status := metav1.ConditionFalse
	if o.reason == v1alpha1.ReasonAccepted {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&want.Conditions, metav1.Condition{
		Type: v1alpha1.ConditionReady, Status: status, Reason: o.reason, Message: o.message,
		ObservedGeneration: obj.GetGeneration(),
	})
	want.ObservedGeneration = obj.GetGeneration()
	want.ContentDigest = o.digest
	want.PublishedBy = o.publishedBy
	if equality.Semantic.DeepEqual(want, st) {
		return nil
	}
	base := obj.DeepCopyObject().(client.Object)
	*st = *want
	if err := w.client.Status().Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		return err
	}
	eventType := "Normal"
	if o.reason == v1alpha1.ReasonRejected {
		eventType = "Warning"
	}
	if w.recorder != nil {
		note := o.message
		if note == "" {
			note = "published and served"
		}
		w.recorder.Eventf(obj, nil, eventType, o.reason, "Publish", "%s", note)
	}
	return nil
}
