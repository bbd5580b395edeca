package gateway

import (
	"net"
	"runtime"
)

// selfIP is the address the gateway's own presence row shows (the
// original's `ip`): the bind address, or for a wildcard bind the first
// non-loopback interface address, as clients on the LAN would reach it.
func (s *Server) selfIP() string {
	ip := net.ParseIP(s.host)
	if ip != nil && !ip.IsUnspecified() {
		return ip.String()
	}
	if ip == nil && s.host != "" {
		return s.host // a host name bind
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return "127.0.0.1"
}

// deviceFamily names this OS as the original's presence rows do.
func deviceFamily() string {
	switch runtime.GOOS {
	case "linux":
		return "Linux"
	case "darwin":
		return "macOS"
	case "windows":
		return "Windows"
	default:
		return runtime.GOOS
	}
}
