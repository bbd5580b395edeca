// Package mediaref is the reference to a stored result file that tools,
// the media store and the CLI share. It is a leaf, so store/media need not
// import tools for it (tools.MediaRef is an alias of Ref).
package mediaref

// Ref points at bytes stored under the state dir's media/ instead of
// base64 inlined into a result. Agent text refers to it as MEDIA:<path>.
type Ref struct {
	Path     string `json:"path"`
	MimeType string `json:"mimeType"`
	Size     int64  `json:"size"`
}
