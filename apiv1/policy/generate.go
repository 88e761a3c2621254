package policy

// Python Ironic's rule defaults (testdata/defaults.json), the Go table
// made from them, and the sample policy file made from the table, in
// this order.
//go:generate go run ../../internal/tools/pygen -o testdata/defaults.json tools/extract_policies.py
//go:generate go test -run TestDefaults -update .
//go:generate go test -run TestSampleGolden -update .
