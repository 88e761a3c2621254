package ironic

// The fault classes and their HTTP codes come from Ironic's exception
// module; see internal/tools/pygen.
//go:generate go run ./internal/tools/pygen -gofmt -o faults_gen.go internal/tools/pygen/faults.py
