package drivers

import "context"

// The conductor's periodic power sync reads every node's power state once
// per [conductor]sync_power_state_interval and retries a node whose read
// failed at the next pass: [conductor]power_state_sync_max_retries failed
// passes put it in maintenance with fault "power failure". Retrying inside
// the read as well (sushy's ten tries of a GET a BMC answers 5xx, three
// seconds apart; [redfish]connection_attempts; ipmitool's retries) holds
// one of the pass's few workers for half a minute or more per broken BMC,
// so that a tenth of the BMCs failing makes the pass ten times slower
// while changing nothing of its outcome. The sync therefore asks for a
// single attempt.

type singleAttemptKey struct{}

// SingleAttempt returns a context under which a driver makes each request
// to the hardware once: a failure (an error status, a refused or timed out
// connection) is returned as the error the last of its usual retries would
// have returned, at once, without retrying. Everything else (messages,
// error classes, sessions re-established after a 401) is unchanged.
func SingleAttempt(ctx context.Context) context.Context {
	return context.WithValue(ctx, singleAttemptKey{}, true)
}

// IsSingleAttempt reports whether ctx asks for a single attempt: drivers
// that retry check it before each retry.
func IsSingleAttempt(ctx context.Context) bool {
	v, _ := ctx.Value(singleAttemptKey{}).(bool)
	return v
}
