package conductor

import "github.com/goironic/ironic/drivers"

// NodePeriodicsForTest lists the driver periodic jobs the conductor runs.
func (m *Manager) NodePeriodicsForTest() []drivers.KindPeriodic { return m.reg.NodePeriodics() }
