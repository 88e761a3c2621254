// Package tempest runs the upstream ironic-tempest-plugin API suite (and
// our own plugin, tempest-plugin/goironic_tempest) against our all-in-one
// server, authenticated by a real Keystone, and holds the suite's results
// to the reference Python Ironic's counts.
//
// TestTempestAPI starts Keystone (test/internal/keystone) and the fake
// Neutron (test/fakeneutron), builds and starts ./cmd/ironic (keystone
// auth, the flat network interface), writes a tempest workspace (tempest
// init) with tempest-plugin/tempest.conf.tmpl, runs
//
//	tempest run --regex '^(ironic_tempest_plugin\.tests\.api\.|goironic_tempest\.tests\.)' --parallel --concurrency 2
//
// reads the per-test results from the run's subunit stream (subunit.go,
// results.go) and prints
//
//	tempest: N passed, M failed, K skipped
//
// for the upstream suite. It runs twice: "legacy" (Ironic's default
// policy, a project-scoped admin) and "srbac" ([oslo_policy] enforce_scope
// and enforce_new_defaults, a system-scoped admin: [enforce_scope]
// ironic=true in tempest.conf). See tempest-plugin/README.md for the
// reference's counts, the environment knobs and the result files.
//
// Tempest, ironic-tempest-plugin and Keystone come from Debian's packages
// (scripts/install-test-deps.sh); without them the test skips, or fails
// when IRONIC_TEST_REQUIRE_TEMPEST=1.
package tempest
