package wire

import (
	"log/slog"

	"github.com/goironic/ironic/internal/swift"
	"github.com/goironic/ironic/option"
)

// swiftClient is the [swift] section's client (nothing is contacted before
// its first use).
func swiftClient(b *option.Binder, log *slog.Logger) *swift.Client {
	return swift.New(bound[swift.Config](b, compSwift), log.With("component", "swift"))
}
