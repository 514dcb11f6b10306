package webhook

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

// FieldErrors converts every rejection in err into a field.ErrorList: the
// fault's path is the field, its code and constant rule the detail, and the
// value is always omitted (Section 38: nothing rejected is echoed).
func FieldErrors(err error) field.ErrorList {
	var out field.ErrorList
	for _, e := range fault.All(err) {
		out = append(out, &field.Error{
			Type:     errorType(e.Code),
			Field:    e.Path,
			BadValue: field.OmitValueType{},
			Detail:   detail(e),
		})
	}
	return out
}

func detail(e *fault.Error) string {
	if e.Rule == "" {
		return e.Code.String()
	}
	return e.Code.String() + ": " + e.Rule
}

// errorType maps a fault code to the closest field error type.
func errorType(c fault.Code) field.ErrorType {
	switch c {
	case fault.Duplicate:
		return field.ErrorTypeDuplicate
	case fault.Missing:
		return field.ErrorTypeRequired
	case fault.UnknownToken:
		return field.ErrorTypeNotSupported
	case fault.NotFound:
		return field.ErrorTypeNotFound
	case fault.LimitExceeded:
		return field.ErrorTypeTooMany
	case fault.Unauthorized, fault.Unsupported:
		return field.ErrorTypeForbidden
	default:
		return field.ErrorTypeInvalid
	}
}

// invalid returns the admission error for err on the object kind/name, or
// nil for a nil err.
func invalid(kind, name string, err error) error {
	if err == nil {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: v1alpha1.Group, Kind: kind}, name, FieldErrors(err))
}
