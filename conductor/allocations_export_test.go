package conductor

// SetShuffle replaces the shuffle that orders allocation candidates.
func SetShuffle(m *Manager, f func(n int, swap func(i, j int))) { m.shuffle = f }
