package rtapp

// Detect reports whether data reads as an rt-app file rather than a
// schedplay scenario: its top-level object (comments and trailing commas
// allowed, as rt-app allows them) has a "tasks" object and no "version".
// It says nothing of whether the file is valid; Decode does.
func Detect(data []byte) bool {
	if len(data) > MaxInputBytes {
		return false
	}
	cleaned, bare, err := clean(data)
	if err != nil {
		return false
	}
	root, err := parseTree(newSource(data), cleaned, bare)
	if err != nil || root.kind != '{' {
		return false
	}
	tasks := false
	for _, m := range root.members {
		switch m.name {
		case "version":
			return false
		case "tasks":
			tasks = tasks || m.val.kind == '{'
		}
	}
	return tasks
}
