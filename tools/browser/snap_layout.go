package browser

import (
	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// captureLayout takes the page's layout snapshot (nil if it fails).
func captureLayout(pg *rod.Page) *proto.DOMSnapshotCaptureSnapshotResult {
	snap, err := proto.DOMSnapshotCaptureSnapshot{ComputedStyles: []string{"display", "cursor"}}.Call(pg)
	if err != nil {
		return nil
	}
	return snap
}

// addLayout records, for every element with a layout box, its computed
// display and cursor and whether its box has an area, from one
// DOMSnapshot call: the original decides by the computed display whether
// an element's text runs into its neighbours', prints [cursor=pointer]
// from the computed cursor, and gives no ref (so no cursor) to an element
// without an area. Without the answer, the tag-based defaults apply.
func addLayout(snap *proto.DOMSnapshotCaptureSnapshotResult, idx map[proto.DOMBackendNodeID]*domInfo) {
	if snap == nil {
		return
	}
	str := func(i proto.DOMSnapshotStringIndex) string {
		if i < 0 || int(i) >= len(snap.Strings) {
			return ""
		}
		return snap.Strings[i]
	}
	for _, d := range snap.Documents {
		if d.Nodes == nil || d.Layout == nil {
			continue
		}
		for li, ni := range d.Layout.NodeIndex {
			if ni < 0 || ni >= len(d.Nodes.BackendNodeID) {
				continue
			}
			di := idx[d.Nodes.BackendNodeID[ni]]
			if di == nil || di.typ != 1 {
				continue
			}
			di.laidOut = true
			if li < len(d.Layout.Styles) && len(d.Layout.Styles[li]) == 2 {
				di.display, di.cursor = str(d.Layout.Styles[li][0]), str(d.Layout.Styles[li][1])
			}
			if li < len(d.Layout.Bounds) && len(d.Layout.Bounds[li]) == 4 {
				di.area = d.Layout.Bounds[li][2] > 0 && d.Layout.Bounds[li][3] > 0
			}
		}
	}
	idx[0].layout = true
}
