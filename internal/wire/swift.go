package wire

import (
	"log/slog"

	"github.com/goironic/ironic/internal/glance"
	"github.com/goironic/ironic/internal/swift"
	"github.com/goironic/ironic/option"
)

// swiftClient is the [swift] section's client (nothing is contacted before
// its first use).
func swiftClient(b *option.Binder, log *slog.Logger) *swift.Client {
	return swift.New(bound[swift.Config](b, compSwift), log.With("component", "swift"))
}

// glanceClient is the [glance] section's client; Swift temp URLs read the
// [swift] account when [glance] names no swift_endpoint_url, swift_account
// or swift_temp_url_key (nothing is contacted before its first use).
func glanceClient(b *option.Binder, log *slog.Logger) *glance.Client {
	return glance.New(bound[glance.Config](b, compGlance), swiftClient(b, log), log.With("component", "glance"))
}
