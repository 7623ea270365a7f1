package toolregistry

import (
	"encoding/json"
	"fmt"
)

// UsageStatus is what a registry's usage (co-use) holds; see Registry.UsageStatus.
type UsageStatus struct {
	// Recording is true once EnableUsage (or the registry option "usage") turned usage on: the
	// calls the library runs are recorded.
	Recording bool `json:"recording"`
	// Path is the usage file, "" for none.
	Path string `json:"path"`
	// Tasks counts the tasks recorded (loaded ones included), Tools the tools with counts.
	Tasks uint64 `json:"tasks"`
	Tools int    `json:"tools"`
	// MemoryBytes is about what the counts take in memory.
	MemoryBytes int `json:"memory_bytes"`
	// Warning says why the file was ignored at start (an empty start) or the last write failed.
	Warning string `json:"warning"`
}

// EnableUsage turns usage (co-use learning) on: the tool calls the library runs (Execute, the
// two steps, conversations) are recorded as tasks, and discovers let their best hits bring in
// the tools they are used with (Result.BroughtIn). With a path the counts are loaded from that
// file and written back to it atomically (at most every 5 seconds while tasks come, on
// SaveUsage, and on Close); a missing or corrupt file is an empty start (a corrupt one's warning
// is in UsageStatus). "" keeps the counts in memory only.
func (r *Registry) EnableUsage(path string) error {
	var p []byte
	if path != "" {
		var err error
		if p, err = cText("path", path); err != nil {
			return err
		}
	}
	return r.use(func(h registryHandle) error { return nativeEnableUsage(h, p) })
}

// RecordUsage records one task: these tools were used together (for hosts that run tools
// themselves; it records whether or not usage is enabled). Names of no registered tool, repeats
// and empty names do not count, nor names past the first 32; it returns how many counted (0:
// nothing was recorded).
func (r *Registry) RecordUsage(names ...string) (int, error) {
	if names == nil {
		names = []string{}
	}
	doc, err := json.Marshal(names)
	if err != nil {
		return 0, fmt.Errorf("toolregistry: encoding names: %w", err)
	}
	return r.RecordUsageJSON(doc)
}

// RecordUsageJSON is RecordUsage with the names as a JSON array (`["get_user_token",
// "add_agenda"]`). Anything else is an *Error (CodeInvalidJSON, CodeInvalidArgument naming the
// first bad element) and records nothing.
func (r *Registry) RecordUsageJSON(names []byte) (int, error) {
	in, err := cJSON("names", names)
	if err != nil {
		return 0, err
	}
	var counted int
	err = r.use(func(h registryHandle) (err error) {
		counted, err = nativeRecordUsage(h, in)
		return err
	})
	return counted, err
}

// SaveUsage writes the usage file now, if there is one and something is unsaved; an *Error
// with CodeInternal when it cannot be written (the counts stay in memory).
func (r *Registry) SaveUsage() error {
	return r.use(nativeSaveUsage)
}

// UsageStatus reports what usage holds: recording, the file, tasks, tools, memory, the last
// warning.
func (r *Registry) UsageStatus() (UsageStatus, error) {
	var out []byte
	if err := r.use(func(h registryHandle) (err error) {
		out, err = nativeUsageStatus(h)
		return err
	}); err != nil {
		return UsageStatus{}, err
	}
	var status UsageStatus
	if err := json.Unmarshal(out, &status); err != nil {
		return UsageStatus{}, fmt.Errorf("toolregistry: decoding usage status: %w", err)
	}
	return status, nil
}
