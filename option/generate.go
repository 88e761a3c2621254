package option

// The option table comes from Ironic's own option definitions, and the
// sample configuration (written by package conf) from the option table,
// in this order.
//go:generate go run ../internal/tools/pygen -gofmt -o upstream_opts.go tools/extract_opts.py
//go:generate go test ../conf -run TestSampleGolden -update
