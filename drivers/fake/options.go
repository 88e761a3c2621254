package fake

import (
	"strconv"
	"time"

	"github.com/goironic/ironic/option"
)

// Bind reads the [fake] *_delay options.
func (c *Config) Bind(b *option.Binder) {
	for _, d := range []struct {
		name  string
		delay *Delay
	}{
		{"power_delay", &c.PowerDelay}, {"boot_delay", &c.BootDelay},
		{"deploy_delay", &c.DeployDelay}, {"vendor_delay", &c.VendorDelay},
		{"management_delay", &c.ManagementDelay}, {"inspect_delay", &c.InspectDelay},
		{"raid_delay", &c.RAIDDelay}, {"bios_delay", &c.BIOSDelay},
		{"storage_delay", &c.StorageDelay}, {"rescue_delay", &c.RescueDelay},
	} {
		b.Text(d.delay, "fake", d.name)
	}
}

// UnmarshalText parses a *_delay option, as ParseDelay.
func (d *Delay) UnmarshalText(text []byte) error {
	v, err := ParseDelay(string(text))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalText writes the delay as the option is written: "<seconds>" or
// "<min>,<max>".
func (d Delay) MarshalText() ([]byte, error) {
	secs := func(x time.Duration) string { return strconv.Itoa(int(x / time.Second)) }
	if d.Min == d.Max {
		return []byte(secs(d.Min)), nil
	}
	return []byte(secs(d.Min) + "," + secs(d.Max)), nil
}
