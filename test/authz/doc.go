// Package authz holds the authorization matrix test: every API route,
// called by each persona of a real Keystone (no token, a bad token, a
// system admin, a system reader, a member of the project that owns the
// node, a reader of the project that leases it, a member of an unrelated
// project, and the service user), must answer with the status code the
// reference Python Ironic gives for the same call.
//
// The reference answers are recorded in testdata/matrix.json. To record
// them again, point the test at a reference Ironic that validates tokens
// against the Keystone the test starts:
//
//	IRONIC_AUTHZ_REFERENCE=/work/shared/harness/reference-ironic.sh \
//	    go test ./test/authz -run TestAuthorizationMatrix -update
//
// The test then starts Keystone, starts the reference with AUTH=keystone
// on that Keystone, plays the matrix against it and writes the golden.
// Without that variable it starts our all-in-one server with
// auth_strategy = keystone and compares its answers with the golden.
package authz
