package toolregistry

// HostCounter exposes a registry's count of host functions held by the C side to the external
// tests: created (one per registration attempt) and released (by the library's free_user_data).
type HostCounter struct{ c *hostCounter }

// HostFuncCounter returns r's counter; it stays readable after r is closed or collected.
func HostFuncCounter(r *Registry) HostCounter { return HostCounter{r.hosts} }

// Live is the number of host functions not yet released.
func (h HostCounter) Live() int64 { return h.c.live() }

// Created is the number of handles ever handed to C.
func (h HostCounter) Created() int64 { return h.c.created.Load() }

// Released is the number of handles the library released.
func (h HostCounter) Released() int64 { return h.c.released.Load() }
