package campaign

// Seeds are the seeds index explores: perIndex of them from
// first+index*perIndex, so that the indices of one campaign never share a
// seed.
func Seeds(first uint64, perIndex, index int) []uint64 {
	seeds := make([]uint64, perIndex)
	for k := range seeds {
		seeds[k] = first + uint64(index)*uint64(perIndex) + uint64(k)
	}
	return seeds
}
