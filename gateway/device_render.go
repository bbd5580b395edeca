package gateway

import (
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"
)

// Human output of the device management commands (openclaw devices
// rename|rotate|revoke); --json prints the result as is.

func renderRenamed(w io.Writer, v gjson.Result) error {
	_, err := fmt.Fprintf(w, "Renamed %s → %s\n", v.Get("deviceId").String(), v.Get("label").String())
	return err
}

func renderRotated(w io.Writer, v gjson.Result) error {
	scopes := strings.Join(strs(v.Get("scopes")), ",")
	if scopes == "" {
		scopes = "none"
	}
	if _, err := fmt.Fprintf(w, "Rotated %s token of %s (scopes: %s)\n", v.Get("role").String(), v.Get("deviceId").String(), scopes); err != nil {
		return err
	}
	if tok := v.Get("token").String(); tok != "" {
		_, err := fmt.Fprintf(w, "New token: %s\n", tok)
		return err
	}
	_, err := fmt.Fprintln(w, "The new token was not sent here; the device receives it when it next connects.")
	return err
}

func renderRevoked(w io.Writer, v gjson.Result) error {
	_, err := fmt.Fprintf(w, "Revoked %s token of %s\n", v.Get("role").String(), v.Get("deviceId").String())
	return err
}
