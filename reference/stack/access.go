package stack

import (
	"context"

	authorizationv1 "k8s.io/api/authorization/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// CheckAccess asks the API server once, with a SelfSubjectAccessReview,
// whether this process may update Stacks in namespace ns ("" for every
// namespace), as an operator checks its permissions at start. The review
// is a create that makes no object.
func CheckAccess(ctx context.Context, c client.Client, ns string) (allowed bool, reason string, err error) {
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "update", Group: refv1.GroupVersion.Group, Resource: "stacks"},
	}}
	if err := c.Create(ctx, review); err != nil {
		return false, "", err
	}
	return review.Status.Allowed, review.Status.Reason, nil
}
