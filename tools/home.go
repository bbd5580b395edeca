package tools

import "os"

// userHome honours OPENCLAW_HOME, as the original does for every default.
func userHome() (string, error) {
	if h := os.Getenv("OPENCLAW_HOME"); h != "" {
		return h, nil
	}
	return os.UserHomeDir()
}
