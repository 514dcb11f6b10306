package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is the API group of every toolgate resource.
const Group = "stk.toolgate.dev"

// Version is the API version of this package.
const Version = "v1alpha1"

// SchemeGroupVersion is GroupVersion as a schema.GroupVersion, for
// registering the types with a runtime.Scheme.
var SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

var (
	// SchemeBuilder registers this package's types with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds this package's types to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&HostAuthority{}, &HostAuthorityList{},
		&ToolRegistry{}, &ToolRegistryList{},
		&PolicySnapshot{}, &PolicySnapshotList{},
		&Consumption{}, &ConsumptionList{},
		&Revocation{}, &RevocationList{},
		&IdentityClaim{}, &IdentityClaimList{},
	)
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
