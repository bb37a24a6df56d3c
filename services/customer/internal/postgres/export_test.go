package postgres

// SetSearchTuning replaces how a search chooses and bounds the
// newest-first walk, for tests that need the walk on little data; the
// returned function restores the tuning. Tests calling it must not run
// in parallel with other searches.
func SetSearchTuning(overIndex, bound int) (restore func()) {
	o, b := walkOverIndex, walkBound
	walkOverIndex, walkBound = overIndex, bound
	return func() { walkOverIndex, walkBound = o, b }
}
